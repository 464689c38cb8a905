/* handle_solve.c - GET /solve: every solution of an n x n board, paged, as JSON or NDJSON.
 *
 * How a request is answered, cheapest first:
 *   - validation (400/422) and If-None-Match (304) need no computation at all: the ETag is a hash of
 *     the canonical request, since results never change;
 *   - a body small enough for the cache (nq_cache_fits on its exact size bound) is rendered once by
 *     nq_app_compute, with its gzip form, and served from the cache from then on;
 *   - a bigger body streams: the enumerator is positioned and solutions are rendered batch by batch
 *     as the client reads, gzip-compressed on the fly when allowed. It is never cached. A cursor
 *     seek costs O(n); an offset skip (at most NQ_APP_OFFSET_MAX solutions) is computation, so
 *     nq_app_compute does it, off the network threads, and hands the stream the offset-th solution
 *     as a cursor.
 * "total" is given for n <= NQ_APP_TOTAL_N_MAX (a cached count); a request without `limit` must fit in
 * max_solutions, which needs that total: otherwise 422 result-too-large, pointing at limit/after.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "clock.h"
#include "router.h"

#define SOLVE_KEYS (NQ_QK_N | NQ_QK_FORMAT | NQ_QK_UNIQUE | NQ_QK_LIMIT | NQ_QK_OFFSET | NQ_QK_AFTER)
#define STREAM_IN_CAP ((size_t)32 * 1024) /* identity bytes the gzip stream pulls at a time */

static int max_n(const nq_config *cfg) { return cfg->max_n_solve < NQ_N_MAX ? cfg->max_n_solve : NQ_N_MAX; }

/* 422 for a value beyond this server's limits. */
static void over_limit(nq_response *resp, const char *path, const char *param, uint64_t limit,
                              const char *why) {
    char detail[192];
    (void)snprintf(detail, sizeof detail, "Parameter '%s' must be at most %" PRIu64 " on this server%s.", param,
                   limit, why);
    nq_app_problem(resp, path, NQ_E_LIMIT, param, detail, true, limit);
}

/* Validate q against the configuration into spec; false with resp complete on a violation. */
static bool validate(const nq_config *cfg, const nq_request *req, const nq_query *q, nq_solve_spec *spec,
                     nq_response *resp) {
    const bool limit_given = (q->present & NQ_QK_LIMIT) != 0;
    if (q->n > (uint64_t)max_n(cfg)) {
        over_limit(resp, req->path, "n", (uint64_t)max_n(cfg), "");
        return false;
    }
    if (limit_given && q->limit > cfg->max_solutions) {
        over_limit(resp, req->path, "limit", cfg->max_solutions, " (solutions in one response)");
        return false;
    }
    if (q->offset > NQ_APP_OFFSET_MAX) {
        over_limit(resp, req->path, "offset", NQ_APP_OFFSET_MAX, "; page further with 'after'");
        return false;
    }
    memset(spec, 0, sizeof *spec);
    spec->n = (int)q->n;
    if ((q->present & NQ_QK_AFTER) &&
        nq_parse_columns(spec->n, q->after, q->after_len, spec->after) != NQ_OK) {
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
    spec->has_total = spec->n <= NQ_APP_TOTAL_N_MAX;
    return true;
}

/* The canonical request: what makes two requests get the same bytes. */
static void canonical_key(const nq_solve_spec *s, const nq_query *q, bool ndjson, char *out, size_t cap) {
    char limit[24] = "all";
    if (s->limit_given) (void)snprintf(limit, sizeof limit, "%" PRIu64, s->limit);
    (void)snprintf(out, cap, "solve?n=%d&format=%s&unique=%s&limit=%s&offset=%" PRIu64 "&after=%s&type=%s", s->n,
                   s->format == NQ_FORMAT_COLUMNS ? "columns" : "board", s->unique ? "true" : "false", limit,
                   s->offset, s->has_after ? q->after : "", ndjson ? "ndjson" : "json");
}

/* A /solve without a limit whose total passes max_solutions is answered 422 (result-too-large). */
static bool over_cap(const nq_app *app, const nq_solve_spec *spec, uint64_t total) {
    return !spec->limit_given && total > nq_app_config(app)->max_solutions;
}

static nq_app_step too_large(const nq_app_work *w, nq_response *resp) {
    const uint64_t cap = nq_app_config(w->app)->max_solutions;
    char detail[192];
    (void)snprintf(detail, sizeof detail,
                   "The answer holds more than %" PRIu64 " solutions, the most one response carries: add "
                   "limit=%" PRIu64 " (or less) and follow each page's 'next' link, which uses 'after'.",
                   cap, cap);
    nq_app_problem(resp, w->instance, NQ_E_TOO_LARGE, "limit", detail, true, cap);
    return NQ_APP_DONE;
}

/* Answer the pending work w (owned: handed to *work for a computation, else destroyed), cheapest
 * first: a 422 known without computing, a 304, a computation of the counts, or what
 * nq_solve_continue makes of cached counts. */
static nq_app_step answer(nq_app *app, const nq_request *req, nq_app_work *w, nq_response *resp,
                          nq_app_work **work) {
    /* An answer known to be too big is a 422 whatever If-None-Match says ("*" would match it): no
     * total means too big, and so does a cached total over the cap. */
    const nq_solve_spec *spec = &w->spec;
    nq_counts counts = {0, 0};
    const bool counted = spec->has_total && nq_app_cached_counts(app, spec->n, &counts);
    const uint64_t total = spec->unique ? counts.unique : counts.total;
    if (!spec->limit_given && (!spec->has_total || (counted && over_cap(app, spec, total)))) {
        too_large(w, resp);
        nq_app_work_destroy(w);
        return NQ_APP_DONE;
    }
    char etag[32], etag_gz[40];
    nq_app_etag(w->key, false, etag, sizeof etag);
    nq_app_etag(w->key, true, etag_gz, sizeof etag_gz);
    const char *tag = nq_app_inm_match(req, etag, etag_gz, &w->variant);
    if (tag) (void)snprintf(w->not_modified, sizeof w->not_modified, "%s", tag);
    if (tag && (spec->limit_given || !spec->has_total || counted)) { /* nothing can make it a 422 */
        nq_app_not_modified(resp, tag);
        nq_app_304_body(resp, nq_app_cache(app), w->key);
        nq_app_work_destroy(w);
        return NQ_APP_DONE;
    }
    if (spec->has_total && !counted) { /* the computation counts first, then renders if cacheable */
        *work = w;
        resp->cache = NQ_CACHE_MISS;
        return NQ_APP_COMPUTE;
    }
    const nq_app_step step = nq_solve_continue(w, &counts, NULL, resp);
    if (step == NQ_APP_COMPUTE) *work = w;
    else nq_app_work_destroy(w);
    return step;
}

nq_app_step nq_handle_solve(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work) {
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, SOLVE_KEYS, &q, &qe) != NQ_OK ||
        nq_query_require(&q, NQ_QK_N, &qe) != NQ_OK) {
        nq_app_query_problem(resp, req->path, &qe);
        return NQ_APP_DONE;
    }
    nq_solve_spec spec;
    if (!validate(nq_app_config(app), req, &q, &spec, resp)) return NQ_APP_DONE;
    nq_variant v;
    nq_app_negotiate(req, &v);
    spec.ndjson = v.ndjson;
    char key[NQ_APP_KEY_MAX];
    canonical_key(&spec, &q, spec.ndjson, key, sizeof key);
    nq_app_work *w = nq_app_work_new(app, NQ_WORK_SOLVE, spec.n, key, req, &v);
    if (!w) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    w->spec = spec;
    return answer(app, req, w, resp, work);
}

/* ---- the streamed body ------------------------------------------------------------------------ */

typedef struct solve_stream {
    nq_body_solve *body;     /* identity bytes */
    nq_compress_stream *gz;  /* gzip over body, or NULL */
} solve_stream;

static nq_err body_read(void *src, char *buf, size_t cap, size_t *len) {
    return nq_body_solve_read(src, buf, cap, len);
}

static nq_err stream_read(void *src, char *buf, size_t cap, size_t *len) {
    solve_stream *s = src;
    return s->gz ? nq_compress_stream_read(s->gz, buf, cap, len) : nq_body_solve_read(s->body, buf, cap, len);
}

static void stream_free(void *src) {
    solve_stream *s = src;
    if (!s) return;
    nq_compress_stream_destroy(s->gz);
    nq_body_solve_destroy(s->body);
    free(s);
}

static nq_err stream_create(const nq_solve_spec *spec, bool gzip, solve_stream **out) {
    solve_stream *s = calloc(1, sizeof *s);
    if (!s) return NQ_E_NOMEM;
    nq_err rc = nq_body_solve_create(spec, &s->body);
    if (rc == NQ_OK && gzip)
        rc = nq_compress_stream_create(body_read, s->body, NQ_COMPRESS_LEVEL_STREAM, STREAM_IN_CAP, &s->gz);
    if (rc != NQ_OK) {
        stream_free(s);
        return rc;
    }
    *out = s;
    return NQ_OK;
}

static nq_app_step respond_stream(const nq_app_work *w, const nq_solve_spec *spec, double seconds,
                                  nq_response *resp) {
    const bool gz = w->variant.gzip_ok && nq_body_solve_size_max(spec) > NQ_COMPRESS_MIN_BYTES;
    solve_stream *s = NULL;
    const double t0 = nq_clock_s();
    /* HEAD sends no body: skip positioning the enumerator altogether. */
    const nq_err rc = w->variant.head ? NQ_OK : stream_create(spec, gz, &s);
    if (rc != NQ_OK) {
        nq_app_problem(resp, w->instance, rc, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    char etag[40];
    nq_app_etag(w->key, gz, etag, sizeof etag);
    nq_app_success(resp, 200, spec->ndjson ? NQ_MEDIA_NDJSON : NQ_MEDIA_JSON, etag, gz,
                   seconds + (nq_clock_s() - t0));
    resp->kind = NQ_BODY_STREAM; /* for HEAD an empty one: the headers of GET, no body, no work */
    resp->read = s ? stream_read : NULL;
    resp->stream = s;
    resp->stream_free = s ? stream_free : NULL;
    if (resp->cache == NQ_CACHE_NONE) resp->cache = NQ_CACHE_MISS;
    return NQ_APP_DONE;
}

/* The spec completed with the total, and whether its body goes through the cache. */
static bool prepare(nq_app *app, nq_solve_spec *spec, const nq_counts *counts) {
    if (spec->has_total) spec->total = spec->unique ? counts->unique : counts->total;
    const size_t max = nq_body_solve_size_max(spec);
    return nq_cache_fits(nq_app_cache(app), max, max);
}

nq_app_step nq_solve_continue(nq_app_work *w, const nq_counts *counts, const nq_app_result *result,
                              nq_response *resp) {
    nq_solve_spec spec = w->spec;
    const bool cacheable = prepare(w->app, &spec, counts);
    if (over_cap(w->app, &spec, spec.total)) return too_large(w, resp);
    if (w->not_modified[0]) { /* the condition matched, and the total allows an answer */
        nq_app_not_modified(resp, w->not_modified);
        nq_app_304_body(resp, nq_app_cache(w->app), w->key);
        return NQ_APP_DONE;
    }
    const double seconds = result ? result->seconds : 0.0;
    if (result && result->entry) {
        nq_cache_entry_retain(result->entry); /* the result is shared; the response takes its own ref */
        nq_app_serve_entry(resp, result->entry, &w->variant, seconds, NQ_CACHE_MISS);
        return NQ_APP_DONE;
    }
    if (cacheable) {
        nq_cache_entry *e = nq_cache_get(nq_app_cache(w->app), w->key);
        if (e) {
            nq_app_serve_entry(resp, e, &w->variant, seconds, result ? NQ_CACHE_MISS : NQ_CACHE_HIT);
            return NQ_APP_DONE;
        }
    }
    /* What is left to do before the first byte goes to the computation: the render of a cacheable
     * body, or the offset skip of a streamed one (HEAD needs neither). */
    if (!result && (cacheable || (spec.offset > 0 && !w->variant.head))) {
        resp->cache = NQ_CACHE_MISS;
        return NQ_APP_COMPUTE;
    }
    if (result && result->positioned) { /* resume after the offset-th solution */
        spec.offset = 0;
        spec.has_after = true;
        if (result->exhausted) memset(spec.after, spec.n - 1, (size_t)spec.n); /* the last vector */
        else memcpy(spec.after, result->cursor, (size_t)spec.n);
    }
    /* Too big to cache (or the cache refused it after all: the stream then skips the offset itself). */
    return respond_stream(w, &spec, seconds, resp);
}

/* Skip the offset once, for every stream of this request: the offset-th solution becomes the cursor. */
static nq_err position(const nq_solve_spec *spec, nq_app_result *r) {
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
static nq_err render_and_publish(const nq_app_work *w, const nq_solve_spec *spec, nq_app_result *r) {
    char *body = NULL, *gzip = NULL;
    size_t len = 0, gzip_len = 0;
    const double t0 = nq_clock_s();
    nq_err rc = nq_body_solve_render(spec, nq_body_solve_size_max(spec), &body, &len);
    if (rc == NQ_OK && len > NQ_COMPRESS_MIN_BYTES)
        rc = nq_compress_buffer(body, len, NQ_COMPRESS_LEVEL_ONCE, &gzip, &gzip_len);
    if (rc == NQ_OK) {
        char etag[32];
        nq_app_etag(w->key, false, etag, sizeof etag);
        const nq_cache_value v = {.content_type = spec->ndjson ? NQ_MEDIA_NDJSON : NQ_MEDIA_JSON,
                                  .etag = etag,
                                  .body = body,
                                  .body_len = len,
                                  .gzip = gzip,
                                  .gzip_len = gzip_len,
                                  .solver_seconds = nq_clock_s() - t0,
                                  .counts = r->counts};
        /* Refused (too large after all, or no memory): finish streams it instead. */
        (void)nq_cache_put(nq_app_cache(w->app), w->key, &v, &r->entry);
    }
    free(body);
    free(gzip);
    return rc;
}

nq_err nq_solve_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r) {
    nq_solve_spec spec = w->spec;
    if (spec.has_total) { /* from the cache when it still has them, else counted now */
        const nq_err rc = nq_count_for_solve(w->app, spec.n, ctl, &r->counts);
        if (rc != NQ_OK) return rc;
    }
    const bool cacheable = prepare(w->app, &spec, &r->counts);
    if (over_cap(w->app, &spec, spec.total)) return NQ_OK; /* finish answers 422 */
    if (!cacheable) return spec.offset > 0 ? position(&spec, r) : NQ_OK; /* finish streams it */
    nq_cache_entry *e = nq_cache_get(nq_app_cache(w->app), w->key);
    if (e) { /* someone else rendered it meanwhile */
        r->entry = e;
        return NQ_OK;
    }
    return render_and_publish(w, &spec, r);
}
