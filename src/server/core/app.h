/* app.h - the request pipeline of nqueensd: one request in, one response out, no libmicrohttpd.
 *
 * server.c turns a libmicrohttpd request into an nq_request and the nq_response back into a
 * libmicrohttpd response; everything in between (routing, query parsing, validation, content and
 * coding negotiation, conditional requests, caching, the headers of the contract) lives here, so it
 * can be driven in-process by tests and fuzzers.
 *
 * A request is answered in up to three calls, so the one expensive step can run elsewhere:
 *   1. nq_app_handle answers at once (NQ_APP_DONE: errors, 304, cache hits, streams, static
 *      documents), or returns NQ_APP_COMPUTE with a pending nq_app_work: a computation is needed
 *      (NQ_APP_WAIT: one that only waits, for a long count, and belongs on other threads than the
 *      solver workers).
 *   2. nq_app_compute runs that computation. It is the ONLY call that does expensive work up front,
 *      and it is thread-safe: a worker pool may run it on any thread, once for many identical
 *      requests (nq_app_work_key identifies the computation), sharing its nq_app_result.
 *   3. nq_app_finish turns the result (or the error the computation, or the pool, ended with) into
 *      the response. It never computes.
 * nq_app_serve chains the three inline (what a test or fuzzer wants). Inside, each call runs the
 * matched route's steps (route.h) from the table the app was created with; the core never names a
 * route, and the routes' own state reaches them through the context given at creation.
 * A streamed /solve body computes while it is sent, in batches, in the response's body reader.
 *
 * Thread-safety: an nq_app is shared by all threads (configuration and route table read-only, cache
 * internally locked, request ids, the gzip-stream budget and the pinned bytes atomic). Requests,
 * works, results and responses belong to one thread at a time.
 * Memory: nothing here grows with the size of an answer except cacheable bodies, which are bounded
 * by the cache's entry limit; what responses hold while their clients read is bounded by
 * --max-pinned-bytes (nq_app_pins).
 */
#ifndef NQ_CORE_APP_H
#define NQ_CORE_APP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/errors.h"
#include "base/request_record.h"
#include "cache/cache.h"
#include "core/response.h"
#include "nqueens/solver.h"

typedef struct nq_route nq_route;           /* a row of the route table (route.h) */
typedef struct nq_app nq_app;               /* opaque, shared */
typedef struct nq_app_work nq_app_work;     /* opaque, one pending request */
typedef struct nq_app_result nq_app_result; /* opaque, one computation's outcome */

/* Longest normalised path that is routed; every route's path is far shorter. */
#define NQ_PATH_MAX_ROUTED 256

/* A request path matched to its route: made once by nq_app_match as the request line arrives and
 * carried by the request (nq_request.match) through every later call. path points into buf or at
 * the raw path, so a match is not to be copied: keep it where it was made. */
typedef struct nq_match {
    const nq_route *route;        /* the row matched (the table's fallback row when none) */
    const char *path;             /* the normalised path (buf), or the raw one when too long */
    char buf[NQ_PATH_MAX_ROUTED]; /* storage of the normalised path */
} nq_match;

/* Case-insensitive lookup of a request header; NULL when absent. */
typedef const char *(*nq_header_fn)(void *ctx, const char *name);

/* A request as the application sees it. All pointers are borrowed for the duration of the calls. */
typedef struct nq_request {
    const char *method;    /* "GET", "HEAD", ... */
    const char *path;      /* the raw path of the request target, "/solve" (routed after
                              nq_route_normalize: "/so%6Cve" is "/solve") */
    const char *query;     /* the raw query after '?', or NULL when the target has no '?' */
    size_t query_len;      /* its length */
    nq_header_fn header;   /* header lookup; NULL: no headers */
    void *header_ctx;      /* passed to header */
    const char *body;      /* the whole request body as read (a POST to a route that takes one), need not
                            be NUL-terminated; NULL: no body was read (an empty one is "" with 0) */
    size_t body_len;       /* its length */
    const nq_match *match; /* path's route, as nq_app_match found it once for the whole request;
                              NULL: each call matches path itself (tests, fuzzers) */
} nq_request;

typedef enum nq_app_step {
    NQ_APP_DONE = 0, /* the response is complete */
    NQ_APP_COMPUTE,  /* run the work's computation, then nq_app_finish */
    NQ_APP_WAIT      /* the same, but the "computation" only waits for work that runs elsewhere (a long
                        count in its registry): run it where it cannot hold a solver worker */
} nq_app_step;

/* What the app reads of the server around it, given at creation. Every field may be NULL. */
typedef struct nq_app_hooks {
    void *ctx; /* passed to each hook; must outlive the app */
    /* Render /metrics (Prometheus text) into *text, malloc'd, *len bytes; `ready` is what /readyz
     * answers now. Called from any thread. Errors are answered as a problem. */
    nq_err (*metrics)(void *ctx, bool ready, char **text, size_t *len);
    /* A computation of the route named `route` by `method` (a route's name for its solver method,
     * or NULL when the route has one) ended after `seconds` in the solver (any outcome), once
     * however many requests shared it. Called from a solver worker. */
    void (*solver_done)(void *ctx, const char *route, const char *method, double seconds);
} nq_app_hooks;

/* Create the pipeline over a configuration (borrowed: must outlive the app), a cache (borrowed;
 * NULL: nothing is cached), hooks (copied; NULL: none, /metrics then answers 500), the route table
 * (borrowed, constant: rows matched in order, ending in a fallback row whose path is NULL) and the
 * routes' context (borrowed, opaque here: what nq_app_context gives the routes back). On success
 * *out owns it (nq_app_destroy). Errors: NQ_E_ARG (cfg, routes or out NULL), NQ_E_NOMEM. */
nq_err nq_app_create(const nq_config *cfg, nq_cache *cache, const nq_app_hooks *hooks, const nq_route *routes,
                     void *context, nq_app **out);

/* Free app. NULL is accepted. No request may be in progress. */
void nq_app_destroy(nq_app *app);

/* What the app was created with: the configuration, the cache (may be NULL), the hooks (fields may
 * be NULL), the routes' context and the route table. Thread-safe (read-only after creation). */
const nq_config *nq_app_config(const nq_app *app);
nq_cache *nq_app_cache(const nq_app *app);
const nq_app_hooks *nq_app_hooks_of(const nq_app *app);
void *nq_app_context(const nq_app *app);
const nq_route *nq_app_routes(const nq_app *app);

/* Match a raw request path (NUL-terminated) to its route, normalised as nq_route_normalize says, into
 * *m. Pure; thread-safe. */
void nq_app_match(const nq_app *app, const char *raw_path, nq_match *m);

/* Readiness: set once the server starts draining; /readyz then answers 503. Requests still arriving on
 * open connections are served as usual (draining lets work in flight finish). Thread-safe. */
void nq_app_set_draining(nq_app *app, bool draining);
bool nq_app_draining(const nq_app *app);

/* The streams compressing as they are sent now (at most --max-gzip-streams), and how many were sent
 * uncompressed since the start because none was free. Thread-safe (atomic reads). */
void nq_app_gzip_streams(const nq_app *app, unsigned *now, uint64_t *declined);

/* The bytes responses hold now for clients still reading them (cache entries they are sent from,
 * streams' state and private copies), their bound (--max-pinned-bytes, raised to the cache's entry
 * limit when below it), and how many responses were refused since the start because those bytes did
 * not fit. Thread-safe (atomic reads). */
void nq_app_pinned(const nq_app *app, size_t *now, size_t *max, uint64_t *refused);

/* ---- for the core's own files (reply.c, pipeline.c) ------------------------------------------ */

/* The budget of --max-pinned-bytes (cache/pin.h): every response that holds bytes for as long as its
 * client reads takes them from it first (nq_app_pin_body, nq_app_stream_pinned). Thread-safe. */
nq_pin_budget *nq_app_pins(nq_app *app);

/* One of the --max-gzip-streams: a deflate state lives as long as its slowest client, so their
 * number bounds the memory that clients who read slowly can pin. True when one was taken (give it
 * back with nq_app_gzip_give); false when all are, counted as declined. nq_app_gzip_free says
 * whether one would be taken now, without taking it (for HEAD). Thread-safe (atomic). */
bool nq_app_gzip_take(nq_app *app);
void nq_app_gzip_give(nq_app *app);
bool nq_app_gzip_free(const nq_app *app);

/* A fresh request id (16 hex digits) into out (cap > 16 bytes; else out is ""): unique within the
 * process, different across restarts. Thread-safe (atomic counter). */
void nq_app_request_id(nq_app *app, char *out, size_t cap);

/* Step 1: answer req. resp must be initialised (nq_response_init). Returns NQ_APP_DONE with resp
 * complete, or NQ_APP_COMPUTE (NQ_APP_WAIT) with *work set to the pending request (owned by the caller: finish it
 * with nq_app_finish, or drop it with nq_app_work_destroy). Never fails: errors are responses. */
nq_app_step nq_app_handle(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);

/* The key that identifies the work's computation: equal keys compute the same result. */
const char *nq_app_work_key(const nq_app_work *work);

/* Step 2: run the work's computation. ctl (may be NULL) lets another thread cancel a count.
 * Thread-safe; the work is only read. On success *out owns the result (nq_app_result_destroy).
 * Errors: NQ_E_CANCELED, NQ_E_NOMEM, NQ_E_THREAD, solver errors. */
nq_err nq_app_compute(const nq_app_work *work, nq_count_ctl *ctl, nq_app_result **out);

/* After step 2, once every request sharing the result has been answered: the work that need not
 * delay them. The gzip form of a large published body (nq_app_publish leaves it out so the
 * first answers go out at once, in identity form); the entry is then published again with both.
 * Reads *stop (may be NULL) between slices of work and returns soon after it turns true. Thread-safe
 * as nq_app_compute; result is only read. Failures leave the entry as it is (identity only). */
void nq_app_settle(const nq_app_work *work, const nq_app_result *result, const atomic_bool *stop);

/* Step 3: complete resp from the outcome: rc NQ_OK with result (borrowed: may be shared by many
 * works), or the error that ended the computation (result NULL); errors become problem responses
 * (NQ_E_BUSY, NQ_E_DEADLINE and NQ_E_DRAINING are 503 with Retry-After). Consumes work. */
void nq_app_finish(nq_app *app, nq_app_work *work, nq_err rc, const nq_app_result *result, nq_response *resp);

/* An independent copy of work (it borrows nothing from the request), for a worker pool that runs the
 * computation on its own copy because the request may be gone before it ends. NULL on allocation
 * failure. Free it with nq_app_work_destroy. */
nq_app_work *nq_app_work_copy(const nq_app_work *work);

/* Drop a pending work without answering (the client went away). NULL is accepted. */
void nq_app_work_destroy(nq_app_work *work);

/* Free a result. NULL is accepted. */
void nq_app_result_destroy(nq_app_result *result);

/* Solver seconds the result cost (for Server-Timing and metrics); 0 for NULL. */
double nq_app_result_seconds(const nq_app_result *result);

/* Answer req with the problem for err (e.g. NQ_E_URI_TOO_LONG, NQ_E_HEADERS_TOO_LARGE, NQ_E_BAD_REQUEST
 * found by the server before the app ran), with the headers every response carries and detail (a
 * sentence, borrowed; NULL: the problem type's description). No routing: the path is only echoed as
 * the instance. */
void nq_app_reject(nq_app *app, const nq_request *req, nq_err err, const char *detail, nq_response *resp);

/* Steps 1 to 3 in the calling thread. */
void nq_app_serve(nq_app *app, const nq_request *req, nq_response *resp);

/* ---- request bodies --------------------------------------------------------------------------- */

/* Only POST to the routes whose Allow lists it reads a body (JSON: a placement on /check and /complete,
 * a puzzle on /puzzle/solve). The server asks
 * first, from the head alone, so that a body is refused before a byte of it is read:
 *   nq_route_takes_body(match.route) as the request line is parsed (nq_app_match): may this path
 *                                    read a body at all? (the server then lets its transport
 *                                    delimit the body)
 *   nq_app_body_begin(req, ...)      once the head is in: read the body, or answer now (415, 413)
 *   body bytes, at most the cap      cfg->max_body_bytes; nq_app_body_too_large when a chunked body
 *                                    passes it while it arrives
 *   nq_app_handle(req with body)     the answer, exactly as for the equivalent GET
 * nq_app_handle refuses a POST body of the wrong type or size on its own too, for callers that skip
 * nq_app_body_begin (tests, fuzzers). */

typedef enum nq_app_body_step {
    NQ_APP_BODY_NONE = 0, /* the route reads no body of this request (not a POST to a route that takes
                             one): answer it with nq_app_handle; a body it announces is not read */
    NQ_APP_BODY_READ,     /* read the body (at most cfg->max_body_bytes), then nq_app_handle */
    NQ_APP_BODY_REFUSED   /* resp holds the answer (415, or 413 for an announced length over the cap), to
                             be sent before the body is read */
} nq_app_body_step;

/* The first look at a request whose head is in (req->body NULL): chunked, or length the announced
 * Content-Length (0 when there is none). On NQ_APP_BODY_REFUSED resp is complete; otherwise it is not
 * touched. */
nq_app_body_step nq_app_body_begin(nq_app *app, const nq_request *req, bool chunked, uint64_t length,
                                   nq_response *resp);

/* Make resp the 413 of a body that grew past cfg->max_body_bytes while it arrived (chunked), with
 * the headers every response carries. */
void nq_app_body_too_large(nq_app *app, const nq_request *req, nq_response *resp);

#endif /* NQ_CORE_APP_H */
