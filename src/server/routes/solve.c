/* solve.c - GET /solve: every solution of an n x n board, paged, as JSON or NDJSON.
 *
 * How a request is answered, cheapest first:
 *   - validation (400/422) and If-None-Match (304) need no computation at all: the ETag is a hash of
 *     the canonical request, since results never change;
 *   - a body small enough for the cache (nq_cache_fits on its exact size bound) is rendered once by
 *     nq_app_compute, with its gzip form, and served from the cache from then on;
 *   - a bigger body streams: the enumerator is positioned and solutions are rendered batch by batch
 *     as the client reads, gzip-compressed on the fly when allowed. It is never cached. A cursor
 *     seek costs O(n); an offset skip (at most OFFSET_MAX solutions) is computation, so
 *     nq_app_compute does it, off the network threads, and hands the stream the offset-th solution
 *     as a cursor.
 * "total" is given for n <= TOTAL_N_MAX (a cached count); a request without `limit` must fit in
 * max_solutions, which needs that total: otherwise 422 result-too-large, pointing at limit/after.
 *
 * The steps: parse validates the page into a plan; what the page then is (too large, cached or
 * rendered once, a stream positioned by an offset skip, a plain stream) is decided once, by
 * decide(), as soon as the total is known: in answer when the counts are cached (or not needed),
 * else in compute after counting. finish carries out compute's verdict.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif

#include "routes/solve.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/errors.h"
#include "core/reply.h"
#include "counts/counted.h"
#include "counts/published.h"
#include "routes/shared.h"
#include "routes/solve_body.h"

#define SOLVE_KEYS (NQ_QK_N | NQ_QK_FORMAT | NQ_QK_UNIQUE | NQ_QK_LIMIT | NQ_QK_OFFSET | NQ_QK_AFTER)

/* "total" is stated only up to this n: below it a count is cheap (it is cached once computed).
 * Fixed, so that a given URL always gets the same bytes (the ETag promises it). */
#define TOTAL_N_MAX 16

/* Largest offset accepted. Skipping costs O(offset) enumeration (a computation, run by compute), and
 * a streamed page repeats it on every request, since only cacheable pages are kept: at well under a
 * million solutions a second on this hardware (n = 16), 100000 keeps that to about 0.2 s. Beyond
 * it, page with 'after' (O(n)). */
#define OFFSET_MAX 100000u

/* What a page is, once its total is known. */
typedef enum solve_verdict {
    VERDICT_TOO_LARGE, /* no limit, and more than max_solutions (or an unknown number): 422 */
    VERDICT_CACHE,     /* small enough for the cache: rendered once, with its gzip form */
    VERDICT_POSITION,  /* streamed, after an offset skip done once by compute */
    VERDICT_STREAM     /* streamed from the start or a cursor */
} solve_verdict;

typedef struct solve_plan {
    nq_solve_spec spec;             /* the page, validated */
    char not_modified[NQ_ETAG_MAX]; /* the If-None-Match tag that matched, "" if none; the 304 waits for the
                              total, which may make the answer a 422 instead */
} solve_plan;

typedef struct solve_result {
    nq_counts counts;         /* the counts, when the spec has a total */
    solve_verdict verdict;    /* decide()'s */
    bool positioned;          /* VERDICT_POSITION: the skip is done, see cursor */
    bool exhausted;           /* ... and there were no more than offset solutions: empty page */
    uint8_t cursor[NQ_N_MAX]; /* ... the offset-th solution: the page starts after it */
} solve_result;

static int max_n(const nq_config *cfg)
{
    return cfg->max_n_solve < NQ_N_MAX ? cfg->max_n_solve : NQ_N_MAX;
}

/* 422 for a value beyond this server's limits. */
static void over_limit(nq_response *resp, const char *path, const char *param, uint64_t limit, const char *why)
{
    char detail[192];
    (void)snprintf(detail, sizeof detail, "Parameter '%s' must be at most %" PRIu64 " on this server%s.", param, limit,
                   why);
    nq_app_problem(resp, path, NQ_E_LIMIT, param, detail, true, limit);
}

/* Validate q against the configuration into spec; false with resp complete on a violation. */
static bool validate(const nq_config *cfg, const nq_request *req, const nq_query *q, nq_solve_spec *spec,
                     nq_response *resp)
{
    const bool limit_given = (q->present & NQ_QK_LIMIT) != 0;
    if (q->n > (uint64_t)max_n(cfg)) {
        over_limit(resp, req->path, "n", (uint64_t)max_n(cfg), "");
        return false;
    }
    if (limit_given && q->limit > cfg->max_solutions) {
        over_limit(resp, req->path, "limit", cfg->max_solutions, " (solutions in one response)");
        return false;
    }
    if (q->offset > OFFSET_MAX) {
        over_limit(resp, req->path, "offset", OFFSET_MAX, "; page further with 'after'");
        return false;
    }
    memset(spec, 0, sizeof *spec);
    spec->n = (int)q->n;
    if ((q->present & NQ_QK_AFTER) && nq_parse_columns(spec->n, q->after, q->after_len, spec->after) != NQ_OK) {
        char detail[192];
        (void)snprintf(detail, sizeof detail,
                       "Parameter 'after' must be %d comma-separated column numbers from 0 to %d, as "
                       "format=columns gives them.",
                       spec->n, spec->n - 1);
        nq_app_problem(resp, req->path, NQ_E_CURSOR, "after", detail, false, 0);
        return false;
    }
    spec->has_after = (q->present & NQ_QK_AFTER) != 0;
    spec->format = q->format;
    spec->unique = q->unique;
    spec->limit = limit_given ? q->limit : cfg->max_solutions;
    spec->limit_given = limit_given;
    spec->offset = q->offset;
    spec->has_total = spec->n <= TOTAL_N_MAX;
    return true;
}

/* The canonical request: what makes two requests get the same bytes. */
static void canonical_key(const nq_solve_spec *s, const nq_query *q, bool ndjson, char *out, size_t cap)
{
    char limit[24] = "all";
    if (s->limit_given) (void)snprintf(limit, sizeof limit, "%" PRIu64, s->limit);
    (void)snprintf(out, cap, "solve?n=%d&format=%s&unique=%s&limit=%s&offset=%" PRIu64 "&after=%s&type=%s", s->n,
                   s->format == NQ_FORMAT_COLUMNS ? "columns" : "board", s->unique ? "true" : "false", limit, s->offset,
                   s->has_after ? q->after : "", ndjson ? "ndjson" : "json");
}

/* The one place the page's rules are applied, once its total is known (when it has one): spec gets
 * the total, and the verdict says what the answer is. */
static solve_verdict decide(nq_app *app, nq_solve_spec *spec, const nq_counts *counts)
{
    if (spec->has_total) spec->total = spec->unique ? counts->unique : counts->total;
    if (!spec->limit_given && (!spec->has_total || spec->total > nq_app_config(app)->max_solutions))
        return VERDICT_TOO_LARGE;
    const size_t max = nq_body_solve_size_max(spec);
    if (nq_cache_fits(nq_app_cache(app), max, max)) return VERDICT_CACHE;
    return spec->offset > 0 ? VERDICT_POSITION : VERDICT_STREAM;
}

static void too_large(const nq_app_work *w, nq_response *resp)
{
    const uint64_t cap = nq_app_config(w->app)->max_solutions;
    char detail[192];
    (void)snprintf(detail, sizeof detail,
                   "The answer holds more than %" PRIu64 " solutions, the most one response carries: add "
                   "limit=%" PRIu64 " (or less) and follow each page's 'next' link, which uses 'after'.",
                   cap, cap);
    nq_app_problem(resp, w->instance, NQ_E_TOO_LARGE, "limit", detail, true, cap);
}

static void not_modified(const nq_app_work *w, const solve_plan *p, nq_response *resp)
{
    nq_app_not_modified(resp, p->not_modified);
    nq_app_304_body(resp, nq_app_cache(w->app), w->key);
}

static void respond_stream(const nq_app_work *w, const nq_solve_spec *spec, double seconds, nq_response *resp);

bool nq_route_solve_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, SOLVE_KEYS, &q, &qe) != NQ_OK ||
        nq_query_require(&q, NQ_QK_N, &qe) != NQ_OK) {
        nq_app_query_problem(resp, req->path, &qe);
        return false;
    }
    solve_plan *p = nq_app_plan_new(w, sizeof *p);
    if (!p) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    if (!validate(nq_app_config(w->app), req, &q, &p->spec, resp)) return false;
    p->spec.ndjson = w->variant.ndjson;
    canonical_key(&p->spec, &q, p->spec.ndjson, w->key, sizeof w->key);
    return true;
}

nq_app_step nq_route_solve_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    solve_plan *p = w->plan;
    nq_solve_spec spec = p->spec;
    nq_counts counts = {0, 0};
    /* The total is known when it is not needed or the counts are cached; else compute decides. */
    const bool known = !spec.has_total || nq_counts_cached(nq_app_cache(w->app), spec.n, &counts);
    const solve_verdict verdict = known ? decide(w->app, &spec, &counts) : VERDICT_STREAM;
    /* An answer known to be too big is a 422 whatever If-None-Match says ("*" would match it). */
    if (known && verdict == VERDICT_TOO_LARGE) {
        too_large(w, resp);
        return NQ_APP_DONE;
    }
    char etag[NQ_ETAG_MAX], etag_gz[NQ_ETAG_MAX];
    nq_app_etag(w->key, false, etag, sizeof etag);
    nq_app_etag(w->key, true, etag_gz, sizeof etag_gz);
    const char *tag = nq_app_inm_match(req, etag, etag_gz, &w->variant);
    if (tag) (void)snprintf(p->not_modified, sizeof p->not_modified, "%s", tag);
    if (tag && (known || spec.limit_given)) { /* nothing can make it a 422 */
        not_modified(w, p, resp);
        return NQ_APP_DONE;
    }
    if (!known) return NQ_APP_COMPUTE; /* compute counts first, then decides */
    if (verdict == VERDICT_CACHE) {
        nq_cache_entry *e = nq_cache_get(nq_app_cache(w->app), w->key);
        if (!e) return NQ_APP_COMPUTE; /* rendered once, by compute */
        nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_HIT);
        return NQ_APP_DONE;
    }
    /* The offset skip is computation; HEAD sends no body and needs none. */
    if (verdict == VERDICT_POSITION && !w->variant.head) return NQ_APP_COMPUTE;
    respond_stream(w, &spec, 0.0, resp);
    return NQ_APP_DONE;
}

/* ---- the streamed body ------------------------------------------------------------------------ */

static nq_err body_read(void *src, char *buf, size_t cap, size_t *len)
{
    return nq_body_solve_read(src, buf, cap, len);
}

static void body_free(void *src)
{
    nq_body_solve_destroy(src);
}

static void respond_stream(const nq_app_work *w, const nq_solve_spec *spec, double seconds, nq_response *resp)
{
    const bool gz = w->variant.gzip_ok && nq_body_solve_size_max(spec) > NQ_COMPRESS_MIN_BYTES;
    nq_body_solve *b = NULL;
    const double t0 = nq_clock_s();
    /* HEAD sends no body: skip positioning the enumerator altogether. */
    const nq_err rc = w->variant.head ? NQ_OK : nq_body_solve_create(spec, &b);
    if (rc != NQ_OK) {
        nq_app_problem(resp, w->instance, rc, NULL, NULL, false, 0);
        return;
    }
    /* The stream's buffers are held as long as its client reads: they count against --max-pinned-bytes. */
    nq_app_stream_pinned(w, (nq_app_body){body_read, body_free, b, 0}, nq_body_solve_footprint(spec),
                         spec->ndjson ? NQ_MEDIA_NDJSON : NQ_MEDIA_JSON, gz, seconds + (nq_clock_s() - t0), resp);
}

/* Skip the offset once, for every stream of this request: the offset-th solution becomes the cursor. */
static nq_err position(const nq_solve_spec *spec, solve_result *r)
{
    nq_iter *it = NULL;
    nq_err rc = nq_iter_create(spec->n, spec->unique ? NQ_ITER_UNIQUE : 0u, &it);
    uint64_t skipped = 0;
    size_t got = 0;
    if (rc == NQ_OK) rc = nq_iter_skip(it, spec->offset - 1, &skipped);
    if (rc == NQ_OK && skipped == spec->offset - 1) rc = nq_iter_next(it, r->cursor, 1, &got);
    nq_iter_destroy(it);
    r->positioned = rc == NQ_OK;
    r->exhausted = got == 0;
    return rc;
}

/* Render the whole body, compress it once, publish both. */
static nq_err render_and_publish(const nq_app_work *w, const nq_solve_spec *spec, const nq_counts *counts,
                                 nq_cache_entry **entry)
{
    char *body = NULL;
    size_t len = 0;
    const double t0 = nq_clock_s();
    const nq_err rc = nq_body_solve_render(spec, nq_body_solve_size_max(spec), &body, &len);
    if (rc != NQ_OK) return rc;
    /* Refused (too large after all, or no memory): finish streams it instead. */
    return nq_app_publish(w, spec->ndjson ? NQ_MEDIA_NDJSON : NQ_MEDIA_JSON, body, len, counts, nq_clock_s() - t0,
                          entry);
}

nq_err nq_route_solve_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r)
{
    const solve_plan *p = w->plan;
    nq_solve_spec spec = p->spec;
    solve_result *res = nq_app_result_data_new(r, sizeof *res);
    if (!res) return NQ_E_NOMEM;
    if (spec.has_total) { /* from the cache when it still has them, else counted now */
        const nq_err rc = nq_counts_get(nq_shared_jobs(w->app), spec.n, ctl, &res->counts, NULL);
        if (rc != NQ_OK) return rc;
    }
    res->verdict = decide(w->app, &spec, &res->counts);
    switch (res->verdict) {
    case VERDICT_TOO_LARGE: /* finish answers 422 */
    case VERDICT_STREAM: return NQ_OK;
    case VERDICT_POSITION: return position(&spec, res);
    case VERDICT_CACHE: break;
    }
    r->entry = nq_cache_get(nq_app_cache(w->app), w->key); /* someone else rendered it meanwhile? */
    return r->entry ? NQ_OK : render_and_publish(w, &spec, &res->counts, &r->entry);
}

void nq_route_solve_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp)
{
    const solve_plan *p = w->plan;
    const solve_result *res = r->data;
    nq_solve_spec spec = p->spec;
    if (spec.has_total) spec.total = spec.unique ? res->counts.unique : res->counts.total;
    resp->cache = NQ_CACHE_MISS;
    if (res->verdict == VERDICT_TOO_LARGE) {
        too_large(w, resp);
    } else if (p->not_modified[0]) { /* the condition matched, and the total allows an answer */
        not_modified(w, p, resp);
    } else if (r->entry) {
        nq_app_serve_result(resp, r, &w->variant);
    } else {
        if (res->positioned) { /* resume after the offset-th solution */
            spec.offset = 0;
            spec.has_after = true;
            if (res->exhausted)
                memset(spec.after, spec.n - 1, (size_t)spec.n); /* the last vector */
            else
                memcpy(spec.after, res->cursor, (size_t)spec.n);
        }
        /* Too big to cache (or the cache refused it: the stream then skips the offset itself). */
        respond_stream(w, &spec, r->seconds, resp);
    }
}
