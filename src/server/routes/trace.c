/* trace.c - GET /trace: a page of the steps of the textbook backtracking search.
 *
 *   {"n":4,"steps":[{"step":0,"op":"place","row":0,"col":0},...],"next":"/trace?n=4&limit=1000&cursor=..."}
 *
 *   parse    n (up to --max-n-trace), limit (default 1000, up to --max-trace-limit), and where to
 *            start: `from` (a step number) or `cursor` (checked here: a damaged one is a 400); a
 *            `from` past the trace's end is a 422 limit-exceeded with the trace's length (known for
 *            n <= NQ_BODY_TRACE_LENGTH_N_MAX), one whose skip the estimate puts past --budget-ms a
 *            422 too-costly; the key is the canonical request, the body's type included
 *   answer   a 304 from the key; a cached page; a page too big for the cache that starts at a cursor
 *            or at step 0 streams at once (O(n) to position); else the computation
 *   compute  positioning at `from` is O(from) search: on a solver worker (deadline, budget, cancel);
 *            a page that fits the cache is rendered there once and published; a bigger one hands
 *            finish the cursor of its first step
 *   finish   the published entry, or a stream from the cursor compute found
 */
#include "routes/trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/reply.h"
#include "routes/trace_body.h"

#define TRACE_KEYS (NQ_QK_N | NQ_QK_LIMIT | NQ_QK_FROM | NQ_QK_CURSOR)
#define LIMIT_DEFAULT 1000u

typedef struct trace_plan {
    nq_trace_spec spec; /* the page, validated */
    bool cacheable;     /* its size bound fits the cache */
} trace_plan;

typedef struct trace_result {
    char cursor[NQ_TRACE_CURSOR_MAX]; /* a streamed page: the cursor of its first step (maybe the end) */
} trace_result;

static void over_limit(nq_response *resp, const char *path, const char *param, uint64_t limit)
{
    char detail[160];
    (void)snprintf(detail, sizeof detail, "Parameter '%s' must be between 1 and %" PRIu64 " on this server.", param,
                   limit);
    nq_app_problem(resp, path, NQ_E_LIMIT, param, detail, true, limit);
}

/* `from` against the trace's end and the budget: whatever passes can be reached within --budget-ms by
 * the estimate (a 503 then promises no more than the pool keeps); false with resp the problem. */
static bool from_fits(const nq_config *cfg, const nq_request *req, int n, uint64_t from, nq_response *resp)
{
    char detail[320];
    uint64_t len = 0;
    if (nq_body_trace_length(n, &len) && from > len) {
        (void)snprintf(detail, sizeof detail,
                       "Parameter 'from' must be between 0 and %" PRIu64 ": the trace of n = %d has %" PRIu64 " steps.",
                       len, n, len);
        nq_app_problem(resp, req->path, NQ_E_LIMIT, "from", detail, true, len);
        return false;
    }
    const uint64_t ms = nq_body_trace_skip_ms(from);
    if (cfg->budget_ms == 0 || ms <= cfg->budget_ms) return true;
    const uint64_t most = nq_body_trace_skip_within(cfg->budget_ms);
    (void)snprintf(detail, sizeof detail,
                   "Starting at step %" PRIu64 " takes about %" PRIu64 " s of search by this server's estimate, "
                   "more than its budget of %" PRIu64 " s: 'from' may be at most %" PRIu64
                   " here; page on with the 'next' links, which resume at once.",
                   from, (ms + 999u) / 1000u, ((uint64_t)cfg->budget_ms + 999u) / 1000u, most);
    nq_app_problem(resp, req->path, NQ_E_TOO_COSTLY, "from", detail, true, most);
    return false;
}

/* The configuration's bounds and the cursor's validity on top of the query; false with resp set. */
static bool validate(const nq_config *cfg, const nq_request *req, const nq_query *q, nq_trace_spec *s,
                     nq_response *resp)
{
    if (q->n > (uint64_t)cfg->max_n_trace) {
        over_limit(resp, req->path, "n", (uint64_t)cfg->max_n_trace);
        return false;
    }
    if ((q->present & NQ_QK_LIMIT) && q->limit > cfg->max_trace_limit) {
        over_limit(resp, req->path, "limit", cfg->max_trace_limit);
        return false;
    }
    s->n = (int)q->n;
    s->limit = (q->present & NQ_QK_LIMIT)
                   ? q->limit
                   : (LIMIT_DEFAULT < cfg->max_trace_limit ? LIMIT_DEFAULT : cfg->max_trace_limit);
    s->from = q->from;
    s->has_cursor = (q->present & NQ_QK_CURSOR) != 0;
    if (!s->has_cursor) return from_fits(cfg, req, s->n, s->from, resp);
    nq_trace *t = NULL;
    nq_err rc = q->cursor_len < sizeof s->cursor ? nq_trace_create(s->n, &t) : NQ_E_CURSOR;
    if (rc == NQ_OK) rc = nq_trace_resume(t, q->cursor, q->cursor_len);
    nq_trace_destroy(t);
    if (rc == NQ_E_NOMEM) {
        nq_app_problem(resp, req->path, rc, NULL, NULL, false, 0);
        return false;
    }
    if (rc != NQ_OK) {
        nq_app_problem(resp, req->path, NQ_E_CURSOR, "cursor",
                       "Parameter 'cursor' is not a cursor of this board: use the 'next' link of the previous page "
                       "as it was given.",
                       false, 0);
        return false;
    }
    memcpy(s->cursor, q->cursor, q->cursor_len + 1);
    return true;
}

bool nq_route_trace_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, TRACE_KEYS, &q, &qe) != NQ_OK ||
        nq_query_require(&q, NQ_QK_N, &qe) != NQ_OK) {
        nq_app_query_problem(resp, req->path, &qe);
        return false;
    }
    trace_plan *p = nq_app_plan_new(w, sizeof *p);
    if (!p) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    if (!validate(nq_app_config(w->app), req, &q, &p->spec, resp)) return false;
    p->spec.ndjson = w->variant.ndjson;
    const size_t max = nq_body_trace_size_max(&p->spec);
    p->cacheable = nq_cache_fits(nq_app_cache(w->app), max, max);
    char start[NQ_TRACE_CURSOR_MAX + 32];
    if (p->spec.has_cursor)
        (void)snprintf(start, sizeof start, "cursor=%s", p->spec.cursor);
    else
        (void)snprintf(start, sizeof start, "from=%" PRIu64, p->spec.from);
    (void)snprintf(w->key, sizeof w->key, "trace?n=%d&limit=%" PRIu64 "&%s&type=%s", p->spec.n, p->spec.limit, start,
                   p->spec.ndjson ? "ndjson" : "json");
    return true;
}

/* ---- the streamed body ------------------------------------------------------------------------ */

static nq_err body_read(void *src, char *buf, size_t cap, size_t *len)
{
    return nq_body_trace_read(src, buf, cap, len);
}

static void body_free(void *src)
{
    nq_body_trace_destroy(src);
}

/* Answer with a stream of spec's page (positioned in O(n): a cursor, or step 0). */
static void respond_stream(const nq_app_work *w, const nq_trace_spec *spec, double seconds, nq_response *resp)
{
    const bool gz = w->variant.gzip_ok && nq_body_trace_size_max(spec) > NQ_COMPRESS_MIN_BYTES;
    nq_body_trace *b = NULL;
    const nq_err rc = w->variant.head ? NQ_OK : nq_body_trace_create(spec, NULL, &b); /* HEAD: no body */
    if (rc != NQ_OK) {
        nq_app_problem(resp, w->instance, rc, NULL, NULL, false, 0);
        return;
    }
    nq_app_stream(w, (nq_app_body){body_read, body_free, b, 0}, spec->ndjson ? NQ_MEDIA_NDJSON : NQ_MEDIA_JSON, gz,
                  seconds, resp);
}

nq_app_step nq_route_trace_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const trace_plan *p = w->plan;
    if (nq_app_revalidate(w, req, resp)) return NQ_APP_DONE;
    if (p->cacheable) {
        nq_cache_entry *e = nq_cache_get(nq_app_cache(w->app), w->key);
        if (!e) return NQ_APP_COMPUTE; /* rendered once, by compute */
        nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_HIT);
        return NQ_APP_DONE;
    }
    if (!p->spec.has_cursor && p->spec.from > 0 && !w->variant.head) return NQ_APP_COMPUTE; /* the skip */
    respond_stream(w, &p->spec, 0.0, resp);
    return NQ_APP_DONE;
}

/* Render the page, compress it once, publish both. */
static nq_err publish(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r)
{
    const trace_plan *p = w->plan;
    char *body = NULL;
    size_t len = 0;
    const nq_err rc = nq_body_trace_render(&p->spec, ctl, &body, &len);
    if (rc != NQ_OK) return rc;
    /* Refused (no cache, no memory): finish streams the page instead. */
    return nq_app_publish(w, p->spec.ndjson ? NQ_MEDIA_NDJSON : NQ_MEDIA_JSON, body, len, NULL, 0.0, &r->entry);
}

nq_err nq_route_trace_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r)
{
    const trace_plan *p = w->plan;
    trace_result *res = nq_app_result_data_new(r, sizeof *res);
    if (!res) return NQ_E_NOMEM;
    if (p->cacheable) {
        r->entry = nq_cache_get(nq_app_cache(w->app), w->key); /* someone else rendered it meanwhile? */
        if (r->entry) return NQ_OK;
        const nq_err rc = publish(w, ctl, r);
        if (rc != NQ_OK || r->entry) return rc;
    }
    /* A stream: find the cursor of step `from` once, for every waiting request. */
    nq_body_trace *b = NULL;
    nq_err rc = nq_body_trace_create(&p->spec, ctl, &b);
    if (rc == NQ_OK) rc = nq_body_trace_cursor(b, res->cursor, sizeof res->cursor);
    nq_body_trace_destroy(b);
    return rc;
}

void nq_route_trace_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp)
{
    const trace_plan *p = w->plan;
    const trace_result *res = r->data;
    resp->cache = NQ_CACHE_MISS;
    if (r->entry) {
        nq_app_serve_result(resp, r, &w->variant);
        return;
    }
    nq_trace_spec spec = p->spec;
    if (res && !spec.has_cursor) { /* resume where compute's skip ended (perhaps the end: an empty page) */
        spec.has_cursor = true;
        memcpy(spec.cursor, res->cursor, sizeof spec.cursor);
    }
    respond_stream(w, &spec, r->seconds, resp);
}
