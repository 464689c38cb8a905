/* prefer.h - the Prefer request header (RFC 7240) as /count reads it: respond-async and wait.
 *
 * Prefer = preference *( "," preference ), preference = token [ "=" word ] *( ";" parameter ), tokens
 * case-insensitive, optional whitespace around the separators. A preference this server does not
 * know, or one whose value does not parse (wait=abc, wait=-1), is ignored, as RFC 7240 section 2
 * asks: a preference is a hint, never a reason to fail a request. The first of a repeated preference
 * counts.
 * Thread-safety: pure functions.
 */
#ifndef NQ_PREFER_H
#define NQ_PREFER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct nq_prefer {
    bool respond_async; /* "respond-async": answer 202 at once rather than wait */
    bool has_wait;      /* a valid "wait=S" was given */
    uint64_t wait_s;    /* its seconds (delta-seconds, saturated at UINT32_MAX) */
} nq_prefer;

/* Parse a Prefer header value (NULL: no header) into *out (always filled). */
void nq_prefer_parse(const char *value, nq_prefer *out);

#endif /* NQ_PREFER_H */
