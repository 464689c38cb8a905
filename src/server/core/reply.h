/* reply.h - the answers routes give: successes with the contract's headers, problems, constant
 * bodies, cached entries, streams (gzip on the fly within a budget) and published results.
 *
 * Every success carries ETag, Cache-Control (immutable), Vary and Server-Timing; every problem
 * Cache-Control: no-store (and Retry-After when 503), so no route can forget one.
 * Thread-safety: reentrant; the gzip-stream budget and the pinned bytes are atomic counts per app.
 */
#ifndef NQ_CORE_REPLY_H
#define NQ_CORE_REPLY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "cache/compress.h"
#include "core/query.h"
#include "core/work.h"

/* Render a body into out (cap bytes): its length, 0 when it could not (a fault: no room). */
typedef size_t (*nq_app_render_fn)(const void *arg, char *out, size_t cap);

/* Answer 200 with a JSON body rendered now rather than sent from the cache: cap bytes allocated,
 * render(arg, ...) fills them, and the body goes with the success headers of w's key (identity, not
 * gzip) and seconds. No memory is a 503 problem, a render that fails a 500. */
void nq_app_reply_rendered(const nq_app_work *w, size_t cap, nq_app_render_fn render, const void *arg, double seconds,
                           nq_response *resp);

/* Start a success response: status, Content-Type, ETag (of key, "-gzip" variant when gzip), the
 * immutable caching headers, Server-Timing and, when gzip, Content-Encoding. */
void nq_app_success(nq_response *resp, unsigned status, const char *media, const char *etag, bool gzip,
                    double solver_seconds);

/* A problem response for err with detail, param and (when has_limit) limit. Always complete. */
void nq_app_problem(nq_response *resp, const char *instance, nq_err err, const char *param, const char *detail,
                    bool has_limit, uint64_t limit);

/* The problem response for a rejected query. */
void nq_app_query_problem(nq_response *resp, const char *instance, const nq_query_error *qe);

/* Parse a query that must hold none of the route's parameters but those in `keys` (NQ_QK_*); false,
 * with resp the problem, when it is malformed or holds another one. */
bool nq_app_parse_query(const nq_request *req, unsigned keys, nq_query *q, nq_response *resp);

/* A small constant JSON body for the moment (probes): Cache-Control no-store. */
void nq_app_static_json(nq_response *resp, unsigned status, const char *body);

/* Serve a cached entry (takes over the reference), choosing its gzip form when allowed. */
void nq_app_serve_entry(nq_response *resp, nq_cache_entry *entry, const nq_variant *v, double seconds,
                        nq_cache_outcome outcome);

/* A streamed body a route made: its reader and destructor over its state. */
typedef struct nq_app_body {
    nq_body_read_fn read;         /* pulls the identity bytes */
    void (*destroy)(void *state); /* frees state */
    void *state;                  /* the route's stream; NULL for HEAD (no body is made) */
    uint64_t length;              /* the identity bytes read produces, exactly, when known in advance
                                     (sent with Content-Length); 0: not known (sent chunked) */
} nq_app_body;

/* Complete resp as a 200 whose body streams from body (taken over: freed with the response, or at once
 * on failure), gzip-compressed on the fly when gzip (the caller decided it is allowed and worth it)
 * and one of the --max-gzip-streams is free: the stream holds it until it is freed; with none free it
 * goes uncompressed. Headers are the success headers for w's key, media type and that choice.
 * body.state NULL (HEAD): the headers GET would get now, no body and no work. On a failure resp is
 * the problem. Thread-safe: the budget is one atomic count per app. */
void nq_app_stream(const nq_app_work *w, nq_app_body body, const char *media, bool gzip, double seconds,
                   nq_response *resp);

/* nq_app_stream for a body whose state holds `pinned` bytes for as long as its client reads (its
 * buffers, a private copy of what it renders): they are taken from the app's --max-pinned-bytes first
 * and given back when the stream is freed. When they do not fit, resp is a 503 (overloaded, with
 * Retry-After) and body is freed. HEAD takes nothing. */
void nq_app_stream_pinned(const nq_app_work *w, nq_app_body body, size_t pinned, const char *media, bool gzip,
                          double seconds, nq_response *resp);

/* Whether `bytes` of --max-pinned-bytes are free now, for a request about to compute something that a
 * stream will then hold (checked again, and taken, when the stream is made): false, with resp the 503
 * that nq_app_stream_pinned would answer and the refusal counted, when they are not. */
bool nq_app_pin_room(nq_app *app, size_t bytes, const char *instance, nq_response *resp);

/* Pin the cache entry a finished response is sent from (NQ_BODY_CACHED and a body to send; any other
 * response, a HEAD or a 304 included: NQ_OK, nothing done, as its headers hold no reader) against the app's --max-pinned-bytes: an entry's bytes are taken once while any response holds
 * them, and given back when the last such response is freed, even long after the cache evicted it
 * (cache.h, nq_cache_entry_pin). Called by the pipeline on every response it hands over. Errors:
 * NQ_E_BUSY (the budget cannot hold the entry; *detail says so for the 503) and NQ_E_NOMEM: resp is
 * unchanged and the caller replaces it by the problem. */
nq_err nq_app_pin_body(nq_app *app, nq_response *resp, const char **detail);

/* Bodies from this size on are published without their gzip form, which nq_app_settle adds once the
 * first answers are out: compressing at NQ_COMPRESS_LEVEL_ONCE runs at some 20 MB/s, far slower
 * than rendering, so a 7 MB board would wait 0.4 s for it. Below, it costs under ~10 ms. */
#define NQ_APP_GZIP_LATER_BYTES ((size_t)256 * 1024)

/* Publish a rendered body for w's key: its gzip form made once (when it is worth it, and at once only
 * below NQ_APP_GZIP_LATER_BYTES), put in the cache under the strong ETag of the key, with counts (may
 * be NULL) and seconds kept beside them. body (malloc'd, len bytes) is taken over and freed. *entry
 * receives a reference to the published entry, or NULL when the cache refused it (no cache, too large,
 * no memory): the caller then streams. Errors: NQ_E_NOMEM from compression (nothing published). */
nq_err nq_app_publish(const nq_app_work *w, const char *media, char *body, size_t len, const nq_counts *counts,
                      double seconds, nq_cache_entry **entry);

/* Answer from a shared result's published entry: the response takes its own reference. */
void nq_app_serve_result(nq_response *resp, const nq_app_result *r, const nq_variant *v);

#endif /* NQ_CORE_REPLY_H */
