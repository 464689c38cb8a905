/* framing.h - the checks a request head must pass before its body (if any) can be delimited:
 * header field syntax, Host, Content-Length and Transfer-Encoding (RFC 9110 section 5, RFC 9112
 * sections 3.2, 5 and 6).
 *
 * Why the server checks what libmicrohttpd already parsed: libmicrohttpd 0.9.75 takes the first of
 * repeated Content-Length lines (so "0" then "37" lets the 37 bytes be read as a second request),
 * answers a malformed one with a status line and headers sent twice, accepts a space before the
 * colon and a missing Host, and folds continuation lines into garbage. The server therefore never lets
 * libmicrohttpd frame a body it has not checked (head.c adds a "Content-Length: 0" of its own in
 * front of the client's, see nq_framing_synthetic) and decides here, from every header line, whether
 * the request has a body and how long it is.
 *
 * Use: nq_framing_init, then nq_framing_field for every header line in order, then nq_framing_finish.
 * The first fault found wins; later fields are still counted but change no verdict.
 *
 * Thread-safety: pure functions over caller memory; no allocation, no globals that change.
 */
#ifndef NQ_FRAMING_H
#define NQ_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "nqueens/error.h"

/* How the request's body is delimited. */
typedef enum nq_framing_body {
    NQ_FRAMING_NONE = 0, /* no body: no Transfer-Encoding, Content-Length absent or 0 */
    NQ_FRAMING_LENGTH,   /* Content-Length bytes follow the head */
    NQ_FRAMING_CHUNKED   /* chunked transfer coding */
} nq_framing_body;

typedef struct nq_framing {
    nq_err err;           /* first fault: NQ_E_BAD_REQUEST (400), NQ_E_NOT_IMPLEMENTED (501); NQ_OK */
    const char *detail;   /* a static sentence naming the fault, NULL when err is NQ_OK */
    unsigned hosts;       /* Host lines seen */
    unsigned lengths;     /* Content-Length lines seen */
    unsigned codings;     /* Transfer-Encoding lines seen */
    uint64_t length;      /* the Content-Length value, when lengths == 1 and it parsed */
    unsigned chunked;     /* how often "chunked" was named */
    bool chunked_last;    /* the last transfer coding so far is "chunked" */
    bool other_coding;    /* a transfer coding other than "chunked" was named */
    nq_framing_body body; /* the verdict (nq_framing_finish), when err is NQ_OK */
} nq_framing;

/* The value head.c gives the Content-Length field it adds in front of the client's, so that
 * libmicrohttpd never delimits a body itself. nq_framing_is_synthetic recognises it by address,
 * so a client's own "0" is never mistaken for it. */
extern const char nq_framing_synthetic[];

/* Whether value is the server's own field value (see nq_framing_synthetic). */
bool nq_framing_is_synthetic(const char *value);

/* Start the checks of one request head. */
void nq_framing_init(nq_framing *f);

/* Record one header field line: name (nlen bytes) and value (vlen bytes, leading whitespace already
 * skipped). A name that is not a token (a space before the colon: RFC 9112 section 5.1), a value with
 * a control character other than HTAB, a Host that is not a host [":" port] (RFC 9112 section 3.2),
 * a Content-Length that is not one plain decimal number or a
 * repeated Content-Length (RFC 9112 section 6.3), and a transfer coding list with an empty coding name
 * make the head a 400. */
void nq_framing_field(nq_framing *f, const char *name, size_t nlen, const char *value, size_t vlen);

/* Record that a header line was folded onto the previous one (obs-fold, RFC 9112 section 5.2): a
 * 400, since the server cannot restore the folded value. */
void nq_framing_folded(nq_framing *f);

/* Close the checks: http11 says whether the request is HTTP/1.1 (else 1.0). HTTP/1.1 needs exactly
 * one Host, HTTP/1.0 at most one; Transfer-Encoding is a 400 in HTTP/1.0 (RFC 9112 section 6.1),
 * with Content-Length too, and when chunked is not the final coding, or is applied twice; any other
 * coding is a 501. Sets f->body when no fault was found. Returns f->err. */
nq_err nq_framing_finish(nq_framing *f, bool http11);

/* Whether v (len bytes, nothing trimmed) is a Content-Length value: one or more decimal digits, no
 * other byte, fitting 64 bits; its number into *out. */
bool nq_framing_length_value(const char *v, size_t len, uint64_t *out);

/* Whether s (len bytes) is a token (RFC 9110 section 5.6.2): what a method or a field name must be. */
bool nq_framing_is_token(const char *s, size_t len);

#endif /* NQ_FRAMING_H */
