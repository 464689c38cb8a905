/* route_count.c - GET /count?n=N: {"n":8,"total":92,"unique":12}, computed once, then cached.
 *
 *   parse    n, within --max-n-count; the key is the counts' own cache key (counts.h)
 *   answer   a 304 from the key alone, or the cached body
 *   compute  nq_count, published to the cache (counts.c)
 *   finish   the published entry, or the body rendered from the counts when the cache refused it
 */
#include <stdio.h>
#include <stdlib.h>

#include "app/counts.h"
#include "app/router.h"

typedef struct count_plan {
    int n; /* board size, validated */
} count_plan;

typedef struct count_result {
    nq_counts counts; /* always filled by compute */
} count_result;

static int max_n(const nq_config *cfg) { return cfg->max_n_count < NQ_COUNT_N_MAX ? cfg->max_n_count : NQ_COUNT_N_MAX; }

bool nq_count_parse(nq_app_work *w, const nq_request *req, nq_response *resp) {
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, NQ_QK_N, &q, &qe) != NQ_OK ||
        nq_query_require(&q, NQ_QK_N, &qe) != NQ_OK) {
        nq_app_query_problem(resp, req->path, &qe);
        return false;
    }
    const int max = max_n(nq_app_config(w->app));
    if (q.n > (uint64_t)max) {
        char detail[160];
        (void)snprintf(detail, sizeof detail, "Parameter 'n' must be between 1 and %d on this server.", max);
        nq_app_problem(resp, req->path, NQ_E_LIMIT, "n", detail, true, (uint64_t)max);
        return false;
    }
    count_plan *p = nq_app_plan_new(w, sizeof *p);
    if (!p) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    p->n = (int)q.n;
    nq_counts_key(p->n, w->key, sizeof w->key);
    return true;
}

nq_app_step nq_count_answer(nq_app_work *w, const nq_request *req, nq_response *resp) {
    char etag[32], etag_gz[40];
    nq_app_etag(w->key, false, etag, sizeof etag);
    nq_app_etag(w->key, true, etag_gz, sizeof etag_gz);
    nq_cache *cache = nq_app_cache(w->app);
    if (nq_app_try_304(req, etag, etag_gz, &w->variant, resp)) {
        nq_app_304_body(resp, cache, w->key);
        return NQ_APP_DONE;
    }
    nq_cache_entry *e = nq_cache_get(cache, w->key);
    if (!e) return NQ_APP_COMPUTE;
    nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_HIT);
    return NQ_APP_DONE;
}

nq_err nq_count_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r) {
    const count_plan *p = w->plan;
    count_result *out = nq_app_result_data_new(r, sizeof *out);
    if (!out) return NQ_E_NOMEM;
    return nq_counts_get(w->app, p->n, ctl, &out->counts, &r->entry);
}

void nq_count_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp) {
    resp->cache = NQ_CACHE_MISS;
    if (r->entry) {
        nq_app_serve_result(resp, r, &w->variant);
        return;
    }
    const count_plan *p = w->plan;
    const count_result *c = r->data;
    char etag[32];
    nq_app_etag(w->key, false, etag, sizeof etag);
    char *body = malloc(NQ_COUNTS_BODY_MAX);
    if (!body) {
        nq_app_problem(resp, w->instance, NQ_E_NOMEM, NULL, NULL, false, 0);
        return;
    }
    nq_app_success(resp, 200, NQ_MEDIA_JSON, etag, false, r->seconds);
    resp->kind = NQ_BODY_OWNED;
    resp->owned = body;
    resp->body = body;
    resp->body_len = nq_counts_render(p->n, &c->counts, body, NQ_COUNTS_BODY_MAX);
}
