/* pipeline.h - the request pipeline of the app, as route files see it. Internal to the app layer.
 *
 * Every request goes through the same steps, run by app.c; a route (router.h) supplies each one:
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
 * The helpers below put on every response the headers the contract requires (ETag, Cache-Control,
 * Vary and Server-Timing on success; no-store on errors), so no route can forget one.
 * Thread-safety: the helpers are reentrant; an nq_app_work belongs to one thread at a time.
 */
#ifndef NQ_PIPELINE_H
#define NQ_PIPELINE_H

#include <stddef.h>

#include "app/app.h"
#include "app/body_solve.h"
#include "app/problem.h"
#include "app/query.h"
#include "cache/compress.h"

/* Cache-Control of every success: results never change. */
#define NQ_CACHE_CONTROL_IMMUTABLE "public, max-age=31536000, immutable"
#define NQ_MEDIA_JSON "application/json"
#define NQ_MEDIA_NDJSON "application/x-ndjson"

/* Longest canonical request key (also the cache and single-flight key). */
#define NQ_APP_KEY_MAX 256

/* What a negotiated request wants back. */
typedef struct nq_variant {
    bool head;    /* HEAD: headers only */
    bool gzip_ok; /* Accept-Encoding allows gzip */
    bool ndjson;  /* Accept prefers application/x-ndjson */
} nq_variant;

typedef struct nq_route nq_route;

/* An If-Match condition (RFC 9110 section 13.1.1), evaluated against a representation's tag. */
typedef enum nq_app_if_match {
    NQ_IF_MATCH_NONE = 0, /* the request has no If-Match */
    NQ_IF_MATCH_HOLDS,    /* it names the representation (or "*") */
    NQ_IF_MATCH_FAILS     /* it does not: a 2xx or 304 answer becomes 412 */
} nq_app_if_match;

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

/* ---- the app's shared state ------------------------------------------------------------------ */

/* The configuration and cache the app was created with (the cache may be NULL). */
const nq_config *nq_app_config(const nq_app *app);
nq_cache *nq_app_cache(const nq_app *app);

/* The long-count registry (count_jobs.h). */
struct nq_count_jobs *nq_app_jobs(const nq_app *app);

/* The hooks given at creation (fields may be NULL). */
const nq_app_hooks *nq_app_hooks_of(const nq_app *app);

/* The embedded openapi.yaml: its bytes, gzip form and ETags, made once at creation. */
typedef struct nq_app_document {
    const char *body;    /* the identity bytes */
    size_t body_len;     /* their length */
    const char *gzip;    /* the gzip form */
    size_t gzip_len;     /* its length */
    const char *etag;    /* strong ETag of the identity form */
    const char *etag_gz; /* and of the gzip form */
} nq_app_document;
const nq_app_document *nq_app_openapi(const nq_app *app);

/* The embedded web page and its assets (web.h), prepared once at creation. */
const struct nq_web *nq_app_web(const nq_app *app);

/* ---- responses ------------------------------------------------------------------------------- */

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

/* ETag of a canonical key: strong for the identity bytes, "\"<16 hex>\"", which the key alone
 * decides; weak for the gzip form, "W/\"<16 hex>-gzip\"", whose bytes also depend on how it was
 * compressed (level 6 for the cache, level 1 while streaming) and on the zlib at hand. */
void nq_app_etag(const char *key, bool gzip, char *out, size_t cap);

/* The gzip form of an ETag nq_app_etag made ("\"<16 hex>\"" -> "W/\"<16 hex>-gzip\""): for tags kept
 * with a cached body, whose key is no longer at hand. */
void nq_app_etag_gzip(const char *etag, char *out, size_t cap);

/* If the request's If-None-Match matches etag (or etag_gz, when the client accepts gzip), make resp
 * a 304 naming the tag that matched and return true; else leave resp alone and return false. */
bool nq_app_try_304(const nq_request *req, const char *etag, const char *etag_gz, const nq_variant *v,
                    nq_response *resp);

/* The request's If-Match against a representation whose ETag is etag (NULL: it has none). It holds
 * for "*" or the strong tag of the identity form (a gzip form's weak W/"<hex>-gzip" names the same
 * content, whose strong tag is "<hex>"); weak tags in the list never match (strong comparison,
 * RFC 9110 section 13.1.1). A POST's target has no representation of its own: any If-Match fails. */
nq_app_if_match nq_app_if_match_eval(const nq_request *req, const char *etag);

/* The tag (etag or etag_gz, as nq_app_try_304 would choose) that the request's If-None-Match
 * matches, or NULL; resp is not touched. */
const char *nq_app_inm_match(const nq_request *req, const char *etag, const char *etag_gz, const nq_variant *v);

/* Make resp the 304 naming tag (what nq_app_try_304 does on a match). */
void nq_app_not_modified(nq_response *resp, const char *tag);

/* A 304 is sent like a HEAD response: headers only, with the Content-Length of the body the response
 * holds. Attach the body the 200 would have had when the cache has it (the form named by the 304's
 * ETag), so that Content-Length tells the truth (RFC 9110 section 8.6); without it the server states
 * no length (and closes the connection after the 304: see server.c). Never computes. */
void nq_app_304_body(nq_response *resp, nq_cache *cache, const char *key);

/* Negotiate the variant of req (HEAD, gzip, NDJSON). */
void nq_app_negotiate(const nq_request *req, nq_variant *v);

/* Whether req is a POST: its placement is req->body, of the type and size the core has checked. */
bool nq_app_posted(const nq_request *req);

/* Whether req's Content-Type is application/json, alone or with charset=utf-8 (case-insensitive,
 * whitespace and a quoted value allowed); any other type or parameter, or none, is false. */
bool nq_app_json_content(const nq_request *req);

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

#endif /* NQ_PIPELINE_H */
