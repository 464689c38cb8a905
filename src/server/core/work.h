/* work.h - a request on its way through the pipeline (nq_app_work) and the outcome of its
 * computation (nq_app_result), as route files see them.
 *
 * Every request goes through the same steps, run by pipeline.c; a route (route.h) supplies each one:
 *
 *   parse    the query (and headers) -> the route's plan (nq_app_plan_new): validated against the
 *            configuration, with the canonical key of its answer (cache key, ETag source,
 *            single-flight key). A plan is plain data without pointers, so a byte copy of it is
 *            an independent plan (the worker pool runs on its own copy: nq_app_work_copy).
 *   answer   what can be said without computing: a problem, a 304, a cache hit, a static document,
 *            a stream. Or NQ_APP_COMPUTE: the answer needs the route's computation.
 *   compute  on a solver worker, any thread: the computation, shared by every identical request
 *            in flight; it fills an nq_app_result (and usually publishes to the cache).
 *   finish   the result -> the response, on the request's own thread. Never computes.
 *   late     (optional) the request's deadline passed while the computation goes on: the response
 *            that says so (/count: 202 with progress). Without it, the deadline's 503 problem.
 *
 * The core does what every route shares, once, before parse: path normalisation, routing, the method
 * rules (405, OPTIONS preflight, HEAD), request ids, CORS, content and coding negotiation. So a
 * route never looks at another route, and the core never looks at a route's plan.
 *
 * Thread-safety: the helpers are reentrant; an nq_app_work belongs to one thread at a time.
 */
#ifndef NQ_CORE_WORK_H
#define NQ_CORE_WORK_H

#include <stddef.h>

#include "core/app.h"
#include "core/conditional.h"
#include "core/negotiate.h"
#include "core/problem.h"

/* Longest canonical request key (also the cache and single-flight key). */
#define NQ_APP_KEY_MAX 256

struct nq_app_work {
    nq_app *app;                                /* the application */
    const nq_route *route;                      /* whose steps run it */
    nq_variant variant;                         /* negotiated by the core */
    char key[NQ_APP_KEY_MAX];                   /* canonical key, set by parse ("" until then) */
    char flight[NQ_APP_KEY_MAX];                /* single-flight key when it differs from key (""):
                                                   requests that share a cached answer but not a
                                                   computation, such as waits of other lengths */
    char instance[NQ_PROBLEM_INSTANCE_MAX + 1]; /* request path, for problem bodies */
    void *plan;                                 /* the route's plan (its own struct), or NULL */
    size_t plan_size;                           /* its size in bytes */
    void (*plan_cleanup)(void *plan);           /* frees what the plan owns, or NULL (plain data) */
    nq_app_if_match if_match;                   /* the request's If-Match against the key's tag */
    nq_app_if_match if_match_untagged;          /* ... and against an answer without one (a 202) */
};

struct nq_app_result {
    double seconds;        /* solver time spent */
    const char *method;    /* the solver's method, a static string, for metrics; NULL: the route has one */
    nq_cache_entry *entry; /* the published response, or NULL */
    void *data;            /* the route's own outcome, or NULL */
};

/* Give w a zeroed plan of size bytes (owned by w, copied and freed with it); NULL without memory. */
void *nq_app_plan_new(nq_app_work *w, size_t size);

/* Let w's plan own memory: cleanup(plan) runs before the plan is freed. A plan that owns memory is
 * no longer plain data, so its route must not compute (nq_app_work_copy refuses such a work). */
void nq_app_plan_set_cleanup(nq_app_work *w, void (*cleanup)(void *plan));

/* Give r zeroed data of size bytes (owned by r, freed with it); NULL without memory. */
void *nq_app_result_data_new(nq_app_result *r, size_t size);

/* The opening of an answer step whose tags are its work's key's (nq_app_etag of w's key): when the
 * request's If-None-Match matches one, resp becomes the 304, its length from the cached body, and
 * true is returned; else resp is left alone. Never computes. */
bool nq_app_revalidate(const nq_app_work *w, const nq_request *req, nq_response *resp);

#endif /* NQ_CORE_WORK_H */
