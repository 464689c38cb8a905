/* app_internal.h - what app.c shares with the route handlers (handle_*.c). Internal to nqueensd_core.
 *
 * The handlers build responses with the helpers below, which put on every response the headers the
 * contract requires (X-Request-Id, CORS; on success ETag, Cache-Control, Vary, Server-Timing; on
 * errors no-store), so no handler can forget one.
 */
#ifndef NQ_APP_INTERNAL_H
#define NQ_APP_INTERNAL_H

#include <stdatomic.h>

#include "app.h"
#include "body_solve.h"
#include "compress.h"
#include "problem.h"
#include "query.h"

/* Cache-Control of every success: results never change. */
#define NQ_CACHE_CONTROL_IMMUTABLE "public, max-age=31536000, immutable"
#define NQ_MEDIA_JSON "application/json"
#define NQ_MEDIA_NDJSON "application/x-ndjson"

/* /solve states "total" only up to this n: below it a count is cheap (it is cached once computed).
 * Fixed, so that a given URL always gets the same bytes (the ETag promises it). */
#define NQ_APP_TOTAL_N_MAX 16

/* Largest offset accepted. Skipping costs O(offset) enumeration (a computation, run by
 * nq_app_compute), and a streamed page repeats it on every request, since only cacheable pages are
 * kept: at well under a million solutions a second on this hardware (n = 16), 100000 keeps that to
 * about 0.2 s. Beyond it, page with 'after' (O(n)). */
#define NQ_APP_OFFSET_MAX 100000u

/* Longest canonical request key (also the cache and single-flight key). */
#define NQ_APP_KEY_MAX 256

struct nq_app {
    const nq_config *cfg;        /* read-only after start-up */
    nq_cache *cache;             /* shared, internally locked; may be NULL */
    atomic_bool draining;        /* readiness */
    atomic_uint_fast64_t next_id; /* request-id counter */
    uint64_t id_seed;            /* random per process, so ids differ across restarts */
    char *openapi_gzip;          /* gzip of the embedded openapi.yaml, made once */
    size_t openapi_gzip_len;     /* its length */
    char openapi_etag[24];       /* strong ETag of the document */
    char openapi_etag_gz[32];    /* and of its gzip form */
    _Atomic(nq_ops *) ops;       /* operations bundle, or NULL (nq_app_set_ops) */
};

/* What a negotiated request wants back. */
typedef struct nq_variant {
    bool head;        /* HEAD: headers only */
    bool gzip_ok;     /* Accept-Encoding allows gzip */
    bool ndjson;      /* Accept prefers application/x-ndjson */
} nq_variant;

typedef enum nq_work_kind { NQ_WORK_COUNT, NQ_WORK_SOLVE } nq_work_kind;

struct nq_app_work {
    nq_app *app;                 /* the application */
    nq_work_kind kind;           /* what to compute */
    int n;                       /* board size */
    bool render;                 /* SOLVE: render the body and publish it to the cache */
    nq_variant variant;          /* negotiated */
    nq_solve_spec spec;          /* SOLVE: the page */
    char key[NQ_APP_KEY_MAX];    /* canonical key of the response: cache key, ETag source and the
                                    computation's single-flight key */
    char instance[NQ_PROBLEM_INSTANCE_MAX + 1]; /* request path, for problem bodies */
    char not_modified[40];       /* SOLVE: the If-None-Match tag that matched, "" if none; the 304
                                    waits for the total, which may make the answer a 422 instead */
};

struct nq_app_result {
    nq_counts counts;            /* the counts (always filled when computed or fetched) */
    double seconds;              /* solver time spent */
    nq_cache_entry *entry;       /* the published response, or NULL (the cache refused it) */
    bool positioned;             /* SOLVE, streamed with an offset: the skip is done, see cursor */
    bool exhausted;              /* ... and there were no more than offset solutions: empty page */
    uint8_t cursor[NQ_N_MAX];    /* ... the offset-th solution: the page starts after it */
};

/* ---- shared helpers (app.c) ---- */

/* Start a success response: status, Content-Type, ETag (of key, "-gzip" variant when gzip), the
 * immutable caching headers, Server-Timing and, when gzip, Content-Encoding. */
void nq_app_success(nq_response *resp, unsigned status, const char *media, const char *etag, bool gzip,
                    double solver_seconds);

/* A problem response for err with detail, param and (when has_limit) limit. Always complete. */
void nq_app_problem(nq_response *resp, const char *instance, nq_err err, const char *param,
                    const char *detail, bool has_limit, uint64_t limit);

/* The problem response for a rejected query. */
void nq_app_query_problem(nq_response *resp, const char *instance, const nq_query_error *qe);

/* Strong ETag of a canonical key: "\"<16 hex>\"", or "\"<16 hex>-gzip\"". */
void nq_app_etag(const char *key, bool gzip, char *out, size_t cap);

/* The gzip form of an ETag nq_app_etag made ("\"<16 hex>\"" -> "\"<16 hex>-gzip\""): for tags kept
 * with a cached body, whose key is no longer at hand. */
void nq_app_etag_gzip(const char *etag, char *out, size_t cap);

/* If the request's If-None-Match matches etag (or etag_gz, when the client accepts gzip), make resp
 * a 304 naming the tag that matched and return true; else leave resp alone and return false. */
bool nq_app_try_304(const nq_request *req, const char *etag, const char *etag_gz, const nq_variant *v,
                    nq_response *resp);

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

/* Serve a cached entry (takes over the reference), choosing its gzip form when allowed. */
void nq_app_serve_entry(nq_response *resp, nq_cache_entry *entry, const nq_variant *v, double seconds,
                        nq_cache_outcome outcome);

/* A new pending work of kind for board n, the response key (copied) and the variant the handler
 * negotiated; NULL on allocation failure. */
nq_app_work *nq_app_work_new(nq_app *app, nq_work_kind kind, int n, const char *key,
                             const nq_request *req, const nq_variant *variant);

/* Look the counts of n up in the cache (true on a hit). */
bool nq_app_cached_counts(nq_app *app, int n, nq_counts *out);

/* Canonical key of the counts of n ("count?n=8"). */
void nq_app_count_key(int n, char *out, size_t cap);

/* ---- handlers' continuation (handle_solve.c, handle_count.c) ---- */

/* Finish a SOLVE work once its counts are known (counts: read only when the spec has a total);
 * result may be NULL (nothing computed). */
nq_app_step nq_solve_continue(nq_app_work *w, const nq_counts *counts, const nq_app_result *result,
                              nq_response *resp);

/* Run a work's computation (see nq_app_compute). */
nq_err nq_count_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
nq_err nq_solve_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);

/* The counts of n for a /solve total: from the cache, or computed and published to it. */
nq_err nq_count_for_solve(nq_app *app, int n, nq_count_ctl *ctl, nq_counts *counts);

/* Complete a COUNT work's response from its result. */
void nq_count_finish(nq_app_work *w, const nq_app_result *r, nq_response *resp);

#endif /* NQ_APP_INTERNAL_H */
