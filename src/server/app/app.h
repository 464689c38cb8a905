/* app.h - the HTTP application of nqueensd: one request in, one response out, no libmicrohttpd.
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
 * matched route's steps (pipeline.h, router.h).
 * A streamed /solve body computes while it is sent, in batches, in the response's body reader.
 *
 * Thread-safety: an nq_app is shared by all threads (configuration read-only, cache internally
 * locked, request ids from an atomic counter). Requests, works, results and responses belong to one
 * thread at a time.
 * Memory: nothing here grows with the size of an answer except cacheable bodies, which are bounded
 * by the cache's entry limit.
 */
#ifndef NQ_APP_H
#define NQ_APP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/request_record.h"
#include "cache/cache.h"
#include "nqueens/solver.h"

typedef struct nq_app nq_app;               /* opaque, shared */
typedef struct nq_app_work nq_app_work;     /* opaque, one pending request */
typedef struct nq_app_result nq_app_result; /* opaque, one computation's outcome */

/* Case-insensitive lookup of a request header; NULL when absent. */
typedef const char *(*nq_header_fn)(void *ctx, const char *name);

/* A request as the application sees it. All pointers are borrowed for the duration of the calls. */
typedef struct nq_request {
    const char *method;  /* "GET", "HEAD", ... */
    const char *path;    /* the raw path of the request target, "/solve" (routed after
                              nq_router_normalize: "/so%6Cve" is "/solve") */
    const char *query;   /* the raw query after '?', or NULL when the target has no '?' */
    size_t query_len;    /* its length */
    nq_header_fn header; /* header lookup; NULL: no headers */
    void *header_ctx;    /* passed to header */
    const char *body;    /* the whole request body as read (a POST to a route that takes one), need not
                            be NUL-terminated; NULL: no body was read (an empty one is "" with 0) */
    size_t body_len;     /* its length */
} nq_request;

/* Pull reader of a streamed body: as nq_compress_source_fn (len 0 with NQ_OK ends the body). */
typedef nq_err (*nq_body_read_fn)(void *src, char *buf, size_t cap, size_t *len);

typedef enum nq_body_kind {
    NQ_BODY_NONE = 0, /* no body (204, 304) */
    NQ_BODY_STATIC,   /* body points at constant data */
    NQ_BODY_OWNED,    /* body is malloc'd and owned by the response */
    NQ_BODY_CACHED,   /* body lives in `entry`, a cache reference owned by the response */
    NQ_BODY_STREAM    /* produced by read(stream, ...), stream freed with stream_free; read NULL:
                         an empty stream (HEAD), sent with the framing GET would use */
} nq_body_kind;

#define NQ_RESPONSE_HEADERS_MAX 20 /* headers one response may carry */
#define NQ_RESPONSE_ARENA 2048     /* bytes for header values (the CORS origin is the longest) */
#define NQ_REQUEST_ID_MAX 64       /* longest X-Request-Id echoed; longer ones are replaced */

typedef struct nq_header_field {
    const char *name;  /* static string */
    const char *value; /* points into the response's arena, or a static string */
} nq_header_field;

/* A response. Initialise with nq_response_init, release with nq_response_clear. A server that hands
 * the body to its transport takes it over by setting kind to NQ_BODY_NONE (then clear frees nothing
 * of it); the transport then frees it as the kind says (free, nq_cache_entry_release, stream_free). */
typedef struct nq_response {
    unsigned status;                                  /* HTTP status */
    bool head;                                        /* the request was HEAD: send no body */
    size_t nheaders;                                  /* headers used */
    nq_header_field headers[NQ_RESPONSE_HEADERS_MAX]; /* in order */
    char arena[NQ_RESPONSE_ARENA];                    /* storage for header values */
    size_t arena_used;                                /* bytes of arena used */
    nq_body_kind kind;                                /* what the body is */
    const char *body;                                 /* STATIC, OWNED, CACHED: the bytes */
    size_t body_len;                                  /* their length */
    char *owned;                                      /* OWNED: what to free() */
    nq_cache_entry *entry;                            /* CACHED: the reference to release */
    nq_body_read_fn read;                             /* STREAM: reader */
    void *stream;                                     /* STREAM: its state */
    void (*stream_free)(void *stream);                /* STREAM: frees state */
    uint64_t stream_len;                              /* STREAM: the exact bytes read produces, sent as
                                                         Content-Length; 0: not known (chunked) */
    /* for the request record */
    const char *route;                      /* route name (static) */
    char request_id[NQ_REQUEST_ID_MAX + 1]; /* X-Request-Id sent */
    double solver_seconds;                  /* solver time behind this answer */
    nq_cache_outcome cache;                 /* hit, miss or none */
} nq_response;

typedef enum nq_app_step {
    NQ_APP_DONE = 0, /* the response is complete */
    NQ_APP_COMPUTE,  /* run the work's computation, then nq_app_finish */
    NQ_APP_WAIT      /* the same, but the "computation" only waits for work that runs elsewhere (a long
                        count in its registry): run it where it cannot hold a solver worker */
} nq_app_step;

typedef enum nq_app_event_level {
    NQ_APP_EVENT_DEBUG = 0, /* routine detail (a checkpoint written) */
    NQ_APP_EVENT_INFO,      /* a count starts, resumes, finishes */
    NQ_APP_EVENT_WARN,      /* a store write failed; serving goes on */
    NQ_APP_EVENT_ERROR      /* a count failed */
} nq_app_event_level;

/* Something the app reports for the log (a long count starting, resuming, finishing; a store write
 * failing). Fields that do not apply are 0 / NULL. */
typedef struct nq_app_event {
    nq_app_event_level level; /* severity */
    const char *msg;          /* what happened, a constant phrase */
    int n;                    /* board size, 0 when none */
    double progress;          /* 0..1, or < 0 when none */
    double seconds;           /* a duration, or < 0 when none */
    const char *error;        /* an error's name (nq_err_name), or NULL */
} nq_app_event;

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
    /* Log an event. Called from any thread, never with a lock of the app held. */
    void (*event)(void *ctx, const nq_app_event *e);
    /* The store of finished counts and checkpoints (store.h), or NULL for none. Borrowed: it must
     * outlive the app. */
    struct nq_store *store;
} nq_app_hooks;

/* Create the application over a configuration (borrowed: must outlive the app), a cache (borrowed;
 * NULL: nothing is cached) and hooks (copied; NULL: none, /metrics then answers 500).
 * The app also starts the long-count registry (count_jobs.h) over hooks->store, loading what it
 * holds. On success *out owns it (nq_app_destroy). Errors: NQ_E_ARG (cfg or out NULL), NQ_E_NOMEM,
 * NQ_E_THREAD, NQ_E_STORE_IO. */
nq_err nq_app_create(const nq_config *cfg, nq_cache *cache, const nq_app_hooks *hooks, nq_app **out);

/* Free app. NULL is accepted. No request may be in progress. */
void nq_app_destroy(nq_app *app);

/* Readiness: set once the server starts draining; /readyz then answers 503. Requests still arriving on
 * open connections are served as usual (draining lets work in flight finish). Thread-safe. */
void nq_app_set_draining(nq_app *app, bool draining);
bool nq_app_draining(const nq_app *app);

/* The streams compressing as they are sent now (at most --max-gzip-streams), and how many were sent
 * uncompressed since the start because none was free. Thread-safe (atomic reads). */
void nq_app_gzip_streams(const nq_app *app, unsigned *now, uint64_t *declined);

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

/* Only POST to /check and /complete reads a body (a JSON placement, placement_in.h). The server asks
 * first, from the head alone, so that a body is refused before a byte of it is read:
 *   nq_app_body_route(path)          as the request line is parsed: may this path read a body at all?
 *                                    (the server then lets its transport delimit the body)
 *   nq_app_body_begin(req, ...)      once the head is in: read the body, or answer now (415, 413)
 *   body bytes, at most the cap      cfg->max_body_bytes; nq_app_body_too_large when a chunked body
 *                                    passes it while it arrives
 *   nq_app_handle(req with body)     the answer, exactly as for the equivalent GET
 * nq_app_handle refuses a POST body of the wrong type or size on its own too, for callers that skip
 * nq_app_body_begin (tests, fuzzers). */

/* Whether a request to path (raw, as nq_request.path) may carry a body to its route: true for the
 * routes whose methods include POST. Pure; thread-safe. */
bool nq_app_body_route(const char *path);

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

/* ---- responses -------------------------------------------------------------------------------- */

/* Make resp an empty 500 response with no headers and no body. */
void nq_response_init(nq_response *resp);

/* Release whatever body resp still owns and re-initialise it. NULL is accepted. */
void nq_response_clear(nq_response *resp);

/* Add a header; value is copied into the arena. Returns false (and adds nothing) when the header
 * table or the arena is full. */
bool nq_response_add_header(nq_response *resp, const char *name, const char *value);

/* Replace the value of the first header called name (case-insensitive), or add it when absent.
 * Returns false (and changes nothing) when the arena or the table is full. */
bool nq_response_set_header(nq_response *resp, const char *name, const char *value);

/* The value of the first header called name (case-insensitive), or NULL. */
const char *nq_response_header(const nq_response *resp, const char *name);

/* Whether a body goes on the wire: not for HEAD, 204 or 304 (whose body, if any, only sizes the
 * Content-Length header, as libmicrohttpd sends such responses headers-only). */
bool nq_response_sends_body(const nq_response *resp);

/* Copy the whole body that goes on the wire (none: see nq_response_sends_body) into buf, reading a
 * stream to its end; *len receives the length. cap must exceed the body (NQ_E_TOO_LARGE otherwise).
 * Used by tests and fuzzers that drive the app without a server.
 * Errors: NQ_E_ARG, NQ_E_TOO_LARGE, the stream's error. */
nq_err nq_response_read_all(nq_response *resp, char *buf, size_t cap, size_t *len);

#endif /* NQ_APP_H */
