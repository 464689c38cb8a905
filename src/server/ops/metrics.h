/* metrics.h - nqueensd's Prometheus metrics: counters updated by many threads, rendered on /metrics.
 *
 * Two kinds of figures:
 *   - events counted here as they happen: requests by route and status, a latency histogram and
 *     response bytes per route (nq_metrics_observe_request, from the request-completion hook), and
 *     solver time by kind and, where a route has more than one, method (nq_metrics_observe_solver,
 *     from the computation itself: once per computation, not once per request waiting on it);
 *   - state owned by other modules (cache, worker pool, connections), which they already track: the
 *     /metrics handler takes a snapshot of it into nq_metrics_state and passes it to nq_metrics_render,
 *     so nothing is counted twice and no other module depends on this one.
 *
 * Thread-safety: observe and render may run on any threads at once. Counters are relaxed atomics (a
 * scrape may see one request in the count but not yet in the histogram: Prometheus tolerates that);
 * the only lock guards the first sighting of a route name, which happens once per route per process.
 * Failure: observing never fails and never allocates; rendering returns an error and no output.
 */
#ifndef NQ_METRICS_H
#define NQ_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "cache/cache.h"
#include "nqueens/error.h"
#include "base/request_record.h"

#define NQ_METRICS_ROUTES_MAX 32u        /* distinct route labels; later ones are counted as "other" */
#define NQ_METRICS_ROUTE_NAME_MAX 32u    /* longest route label plus NUL; longer ones count as "other" */
#define NQ_METRICS_RENDER_MAX (1u << 20) /* /metrics body cap in bytes */

typedef struct nq_metrics nq_metrics; /* opaque */

typedef enum nq_metrics_kind {
    NQ_METRICS_COUNT = 0,          /* a /count computation */
    NQ_METRICS_SOLVE,              /* a /solve computation (an enumeration page or a total) */
    NQ_METRICS_SOLUTION_CONSTRUCT, /* a /solution construction rendered once (to be cached) */
    NQ_METRICS_SOLUTION_RANDOM,    /* a /solution local search (and its render, when cached) */
    NQ_METRICS_COMPLETE,           /* a /complete search */
    NQ_METRICS_TRACE,              /* a /trace page rendered once, or the skip to its first step */
    NQ_METRICS_KINDS               /* how many there are */
} nq_metrics_kind;

/* The worker pool's figures (a copy of its own snapshot, so this header needs no pool.h). */
typedef struct nq_metrics_pool {
    uint64_t running;   /* computations on a worker now */
    uint64_t queued;    /* computations waiting for a worker now */
    uint64_t waiting;   /* requests waiting for a computation now */
    uint64_t started;   /* computations a worker began */
    uint64_t finished;  /* computations that ran to the end (successfully or not) */
    uint64_t cancelled; /* computations cancelled (budget, shutdown) */
    uint64_t shared;    /* requests that joined a computation already in flight (single-flight) */
    uint64_t rejected;  /* requests refused because the queue was full */
    uint64_t deadlines; /* requests that gave up waiting (deadline) */
} nq_metrics_pool;

/* The figures of the threads that hold requests waiting for a long count. */
typedef struct nq_metrics_waits {
    uint64_t running;  /* waits held now (identical requests share one) */
    uint64_t queued;   /* waits queued for a free waiting thread */
    uint64_t rejected; /* requests refused with 503: every waiting thread busy and the queue full */
} nq_metrics_waits;

/* The connection guard's figures. */
typedef struct nq_metrics_conns {
    uint64_t open;          /* client connections open now */
    uint64_t accepted;      /* connections accepted since start */
    uint64_t refused;       /* connections closed as they came: over the per-address limit, or no memory */
    uint64_t head_timeouts; /* connections closed because their request head did not arrive in time */
    uint64_t body_bytes;    /* bytes allocated for request bodies being read now */
    uint64_t body_cap;      /* the most they may take (--max-bodies-bytes) */
} nq_metrics_conns;

/* State other modules own, sampled by the /metrics handler just before rendering. A NULL pointer
 * leaves that family out of the output. */
typedef struct nq_metrics_state {
    bool ready;                    /* readiness as /readyz reports it */
    const nq_cache_stats *cache;   /* cache figures, or NULL */
    const nq_metrics_pool *pool;   /* worker pool figures, or NULL */
    const nq_metrics_waits *waits; /* long-count wait figures, or NULL */
    const nq_metrics_conns *conns; /* connection figures, or NULL */
} nq_metrics_state;

/* Create an empty metrics registry; version is the build's version label (copied, at most 63 bytes
 * are kept). On success *out owns it (nq_metrics_destroy).
 * Errors: NQ_E_ARG (out or version NULL), NQ_E_NOMEM (*out untouched). */
nq_err nq_metrics_create(const char *version, nq_metrics **out);

/* Free m. NULL is accepted and ignored. No observe or render may run on m during or after it. */
void nq_metrics_destroy(nq_metrics *m);

/* Count one finished request: requests_total{route,status}, the duration histogram and body bytes.
 * A record with status 0 (no response was sent) is counted only in the unanswered counter.
 * Thread-safe, lock-free except the first time a route name is seen. m or r NULL: no-op. */
void nq_metrics_observe_request(nq_metrics *m, const nq_request_record *r);

/* The kind of a computation of the route named name ("count", "solve", "solution", "complete",
 * "trace": the routes that compute) by the method named method ("construct" or "random" for
 * "solution"; NULL for the others, which have one): true and *out set, or false for any other pair. */
bool nq_metrics_kind_find(const char *name, const char *method, nq_metrics_kind *out);

/* Add the seconds one computation of the given kind spent in the solver (whatever its outcome).
 * Thread-safe, lock-free. m NULL or an unknown kind: no-op. */
void nq_metrics_observe_solver(nq_metrics *m, nq_metrics_kind kind, double seconds);

/* Render everything in the Prometheus text exposition format 0.0.4 into a new buffer of *len bytes
 * (NUL-terminated; *out is the caller's to free with free()). state may be NULL (no sampled state).
 * Errors: NQ_E_ARG (m, out or len NULL), NQ_E_NOMEM, NQ_E_TOO_LARGE (over NQ_METRICS_RENDER_MAX);
 * on error *out and *len are untouched. Thread-safe. */
nq_err nq_metrics_render(const nq_metrics *m, const nq_metrics_state *state, char **out, size_t *len);

#endif /* NQ_METRICS_H */
