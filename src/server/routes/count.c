/* count.c - GET /count?n=N: {"n":8,"total":92,"unique":12}, computed once, then cached; a long
 * count (n >= --long-count-n) runs in the background and is answered 202 with its progress until done.
 *
 *   parse    n, within --max-n-count; Prefer (respond-async, wait=S capped by --deadline-ms); the key
 *            is the counts' own cache key (counts/published.h), the single-flight key adds the wait
 *   answer   a 304 from the key alone, the cached body, a long count already done (the registry
 *            outlives cache evictions), or, for respond-async, the 202 at once
 *   compute  a short count: nq_count, published and recorded. A long one (asked for as NQ_APP_WAIT,
 *            so it waits off the solver workers): started (or joined) in the registry
 *            (counts/jobs.h), then waited for up to the request's wait
 *   finish   the published entry, the body rendered from the counts, or the 202 of a count not done
 *   late     the pool's deadline came first: the 202
 *
 * The 200 is the same whichever way the count was made (quick, long, loaded from the store) and
 * whichever replica answers: its body is rendered from n and the counts, its ETag from the key. The
 * 202 is the store's view (status, progress, elapsed time by the database's clock); a long count
 * whose state cannot be read (the database unreachable) is the 503 store-unavailable.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif
#include "routes/count.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/errors.h"
#include "core/prefer.h"
#include "core/reply.h"
#include "counts/counted.h"
#include "counts/jobs.h"
#include "counts/published.h"
#include "routes/count_k.h"
#include "routes/shared.h"

#define ACCEPTED_BODY_MAX 160 /* {"n":27,"status":"running","progress":...,"elapsed_s":...,"eta_s":...} */

typedef struct count_plan {
    int n;            /* board size, validated */
    int k;            /* queens to place, 0..n (n when k is absent) */
    bool long_count;  /* n >= --long-count-n: the registry runs it */
    bool async;       /* Prefer: respond-async */
    bool wait_given;  /* Prefer: wait=S (valid) */
    uint32_t wait_ms; /* how long this request waits; UINT32_MAX: as long as it takes */
} count_plan;

typedef struct count_result {
    nq_counts counts; /* filled when done */
    bool pending;     /* the count goes on: answer 202 */
} count_result;

static int max_n(const nq_config *cfg)
{
    return cfg->max_n_count < NQ_COUNT_N_MAX ? cfg->max_n_count : NQ_COUNT_N_MAX;
}

/* The request's wait: Prefer's, capped by --deadline-ms (0: no cap), else the deadline itself. */
static uint32_t wait_of(const nq_prefer *pref, const nq_config *cfg)
{
    const uint64_t cap = cfg->deadline_ms ? cfg->deadline_ms : UINT32_MAX;
    if (!pref->has_wait) return (uint32_t)cap;
    const uint64_t ms = pref->wait_s * 1000u;
    return (uint32_t)(ms < cap ? ms : cap);
}

static void plan_prefer(count_plan *p, const nq_request *req, const nq_config *cfg)
{
    nq_prefer pref;
    nq_prefer_parse(req->header ? req->header(req->header_ctx, "Prefer") : NULL, &pref);
    p->async = pref.respond_async;
    p->wait_given = pref.has_wait;
    p->wait_ms = p->async ? 0 : wait_of(&pref, cfg);
}

/* k against n, and n against the k-queens maximum when k < n; false with resp the problem. */
static bool k_valid(const nq_config *cfg, const nq_request *req, const nq_query *q, nq_response *resp)
{
    char detail[160];
    if (q->k > q->n) {
        (void)snprintf(detail, sizeof detail, "Parameter 'k' must be between 0 and n (%" PRIu64 ").", q->n);
        nq_app_problem(resp, req->path, NQ_E_PARAM_INVALID, "k", detail, false, 0);
        return false;
    }
    if (q->k < q->n && q->n > (uint64_t)cfg->max_n_count_k) {
        (void)snprintf(detail, sizeof detail, "With k < n, parameter 'n' must be between 1 and %d on this server.",
                       cfg->max_n_count_k);
        nq_app_problem(resp, req->path, NQ_E_LIMIT, "n", detail, true, (uint64_t)cfg->max_n_count_k);
        return false;
    }
    return true;
}

bool nq_route_count_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, NQ_QK_N | NQ_QK_K, &q, &qe) != NQ_OK ||
        nq_query_require(&q, NQ_QK_N, &qe) != NQ_OK) {
        nq_app_query_problem(resp, req->path, &qe);
        return false;
    }
    const nq_config *cfg = nq_app_config(w->app);
    if ((q.present & NQ_QK_K) && !k_valid(cfg, req, &q, resp)) return false;
    const bool k_queens = (q.present & NQ_QK_K) && q.k < q.n;
    const int max = k_queens ? cfg->max_n_count_k : max_n(cfg);
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
    p->k = k_queens ? (int)q.k : p->n;
    p->long_count = !k_queens && p->n >= cfg->long_count_n; /* k queens: seconds at most (max_n_count_k) */
    plan_prefer(p, req, cfg);
    if (k_queens)
        nq_counts_k_key(p->n, p->k, w->key, sizeof w->key);
    else
        nq_counts_key(p->n, w->key, sizeof w->key);
    /* Waits of different lengths must not share one wait; they share the count (the registry). */
    if (p->long_count) (void)snprintf(w->flight, sizeof w->flight, "count?n=%d&wait=%" PRIu32, p->n, p->wait_ms);
    return true;
}

/* ---- the 202 ------------------------------------------------------------------------------------- */

static size_t render_accepted(const nq_job_view *v, char *out, size_t cap)
{
    char eta[32] = "null";
    if (v->eta_s >= 0) (void)snprintf(eta, sizeof eta, "%.1f", v->eta_s);
    const int len = snprintf(out, cap, "{\"n\":%d,\"status\":\"%s\",\"progress\":%.4f,\"elapsed_s\":%.1f,\"eta_s\":%s}",
                             v->n, v->state == NQ_JOB_QUEUED ? "queued" : "running", v->progress, v->elapsed_s, eta);
    return len > 0 && (size_t)len < cap ? (size_t)len : 0;
}

/* 202 Accepted for a count in view's state (QUEUED or RUNNING). */
static void accepted(nq_response *resp, const char *instance, const nq_job_view *v, const count_plan *p)
{
    char *body = malloc(ACCEPTED_BODY_MAX);
    if (!body) {
        nq_app_problem(resp, instance, NQ_E_NOMEM, NULL, NULL, false, 0);
        return;
    }
    char retry[16], location[32], applied[32] = "";
    (void)snprintf(retry, sizeof retry, "%u", nq_count_jobs_retry_after(v));
    (void)snprintf(location, sizeof location, "/count?n=%d", v->n);
    if (p->async)
        (void)snprintf(applied, sizeof applied, "respond-async");
    else if (p->wait_given)
        (void)snprintf(applied, sizeof applied, "wait=%" PRIu32, p->wait_ms / 1000u);
    const size_t len = render_accepted(v, body, ACCEPTED_BODY_MAX);
    if (len == 0) { /* cannot happen: the body's fields are bounded (ACCEPTED_BODY_MAX) */
        free(body);
        nq_app_problem(resp, instance, NQ_E_INTERNAL, NULL, NULL, false, 0);
        return;
    }
    resp->status = 202;
    nq_response_own(resp, body, len);
    nq_response_add_header(resp, "Content-Type", NQ_MEDIA_JSON);
    nq_response_add_header(resp, "Cache-Control", "no-store");
    nq_response_add_header(resp, "Retry-After", retry);
    nq_response_add_header(resp, "Location", location);
    if (applied[0]) nq_response_add_header(resp, "Preference-Applied", applied);
}

static size_t render_done(const void *arg, char *out, size_t cap)
{
    const nq_job_view *v = arg;
    return nq_counts_render(v->n, &v->counts, out, cap);
}

/* The 200 of a count known done: from the cache once published there, else rendered. */
static void serve_done(const nq_app_work *w, const nq_job_view *v, nq_response *resp)
{
    nq_cache_entry *e = NULL;
    nq_counts_publish(nq_app_cache(w->app), v->n, &v->counts, v->seconds, &e);
    if (e) {
        nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_MISS);
        return;
    }
    nq_app_reply_rendered(w, NQ_COUNTS_BODY_MAX, render_done, v, 0.0, resp);
}

/* ---- the steps ----------------------------------------------------------------------------------- */

nq_app_step nq_route_count_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    if (nq_app_revalidate(w, req, resp)) return NQ_APP_DONE;
    nq_cache *cache = nq_app_cache(w->app);
    nq_cache_entry *e = nq_cache_get(cache, w->key);
    if (e) {
        nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_HIT);
        return NQ_APP_DONE;
    }
    const count_plan *p = w->plan;
    if (!p->long_count) return NQ_APP_COMPUTE;
    if (p->wait_ms != 0) return NQ_APP_WAIT; /* the registry counts; the request only waits */
    /* respond-async (or a wait of 0): start it and say so, without a worker. */
    nq_job_view v;
    const nq_err rc = nq_count_jobs_start(nq_shared_jobs(w->app), p->n, &v);
    if (rc != NQ_OK)
        nq_app_problem(resp, req->path, rc, NULL, NULL, false, 0);
    else if (v.state == NQ_JOB_DONE)
        serve_done(w, &v, resp);
    else
        accepted(resp, req->path, &v, p);
    return NQ_APP_DONE;
}

nq_err nq_route_count_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r)
{
    const count_plan *p = w->plan;
    count_result *out = nq_app_result_data_new(r, sizeof *out);
    if (!out) return NQ_E_NOMEM;
    if (p->k < p->n) return nq_counts_k_get(nq_app_cache(w->app), p->n, p->k, ctl, &out->counts, &r->entry);
    if (!p->long_count)
        return nq_counts_get(nq_shared_jobs(w->app), p->n, ctl, &out->counts, &r->entry); /* recorded there */
    nq_count_jobs *jobs = nq_shared_jobs(w->app);
    nq_job_view v;
    nq_err rc = nq_count_jobs_start(jobs, p->n, &v);
    /* The pool's cancel (a budget, a shutdown) ends this wait, never the count. */
    if (rc == NQ_OK) rc = nq_count_jobs_wait(jobs, p->n, p->wait_ms, ctl ? &ctl->cancel : NULL, &v);
    if (rc != NQ_OK) return rc;
    if (v.state != NQ_JOB_DONE) {
        out->pending = true;
        return NQ_OK;
    }
    out->counts = v.counts;
    nq_counts_publish(nq_app_cache(w->app), p->n, &v.counts, v.seconds, &r->entry);
    return NQ_OK;
}

/* What a count's body is rendered from (nq_app_reply_rendered): the plan says n and k. */
typedef struct counted_body {
    const count_plan *plan;
    const nq_counts *counts;
} counted_body;

static size_t render_counted(const void *arg, char *out, size_t cap)
{
    const counted_body *b = arg;
    const count_plan *p = b->plan;
    return p->k < p->n ? nq_counts_k_render(p->n, p->k, b->counts, out, cap)
                       : nq_counts_render(p->n, b->counts, out, cap);
}

void nq_route_count_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp)
{
    resp->cache = NQ_CACHE_MISS;
    const count_plan *p = w->plan;
    const count_result *c = r->data;
    if (c->pending) {
        nq_job_view v; /* fresh: the result may be shared by requests that came later */
        const nq_err rc = nq_count_jobs_read(nq_shared_jobs(w->app), p->n, &v);
        if (rc != NQ_OK)
            nq_app_problem(resp, w->instance, rc, NULL, NULL, false, 0); /* the store cannot be read */
        else if (v.state == NQ_JOB_DONE)
            serve_done(w, &v, resp); /* done since */
        else if (v.state == NQ_JOB_NONE)
            nq_app_problem(resp, w->instance, NQ_E_INTERNAL, NULL, NULL, false, 0);
        else
            accepted(resp, w->instance, &v, p);
        return;
    }
    if (r->entry) {
        nq_app_serve_result(resp, r, &w->variant);
        return;
    }
    const counted_body b = {p, &c->counts};
    nq_app_reply_rendered(w, NQ_COUNTS_BODY_MAX, render_counted, &b, r->seconds, resp);
}

void nq_route_count_late(const nq_app_work *w, nq_response *resp)
{
    const count_plan *p = w->plan;
    nq_job_view v;
    const nq_err rc = p->long_count ? nq_count_jobs_read(nq_shared_jobs(w->app), p->n, &v) : NQ_OK;
    if (rc != NQ_OK)
        nq_app_problem(resp, w->instance, rc, NULL, NULL, false, 0); /* the store cannot be read */
    else if (p->long_count && (v.state == NQ_JOB_QUEUED || v.state == NQ_JOB_RUNNING))
        accepted(resp, w->instance, &v, p);
    else /* a short count that outlived the deadline: the result will be cached */
        nq_app_problem(resp, w->instance, NQ_E_DEADLINE, NULL, NULL, false, 0);
}
