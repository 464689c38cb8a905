/* complete.c - GET /complete (and the body of POST): finish a partial board, or give a hint.
 *
 *   {"n":8,"solution":[0,4,7,5,2,6,1,3],"hint":[2,7],"completions":4}
 *
 *   parse    n (up to --max-n-complete; with count=true up to --max-n-complete-count) and the
 *            placement (placement_in.h; the JSON body of a POST, whose query may hold only count),
 *            folded into a plain-data plan: givens that can be completed
 *            at all (one per row, none attacking another) fit a fixed array of NQ_N_MAX squares; the
 *            key is the sorted placement, so every spelling of one board shares an entry and an ETag.
 *            A count the estimate (count_ms) puts past --budget-ms is a 422 too-costly
 *   answer   a 304 from the key; givens that can never be completed (two in a row, or attacking)
 *            are answered at once (solution null, completions 0); a cached body; else the search
 *   compute  nq_complete_first (and nq_complete_count), on a solver worker: completion is
 *            NP-complete, so it runs under the pool's deadline and budget; published to the cache
 *   finish   the published entry, or the body rendered from the result when the cache refused it
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif

#include "routes/complete.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/reply.h"
#include "nqueens/complete.h"
#include "nqueens/cpus.h"
#include "routes/placement_in.h"

#define COMPLETE_KEYS (NQ_QK_N | NQ_QK_COLUMNS | NQ_QK_QUEENS | NQ_QK_COUNT)
#define BODY_MAX 256 /* {"n":32,"solution":[32 x "31,"],"hint":[31,31],"completions":<20 digits>} */

typedef struct complete_plan {
    int n;                      /* board size, validated */
    bool count;                 /* count=true: also the number of completions */
    bool consistent;            /* the givens can be part of a solution as far as they go */
    uint32_t queens;            /* givens in `givens` (consistent plans only) */
    nq_square givens[NQ_N_MAX]; /* row-major */
    char etag[NQ_ETAG_MAX];     /* inconsistent plans: the ETag of their (long) canonical text */
    char etag_gz[NQ_ETAG_MAX];  /* ... and of its gzip form */
} complete_plan;

typedef struct complete_result {
    bool found;             /* a completion exists */
    uint8_t cols[NQ_N_MAX]; /* the first one */
    uint64_t completions;   /* count=true: how many */
} complete_result;

/* The body of an answer into out (BODY_MAX bytes); its length. */
static size_t render(const complete_plan *p, const complete_result *r, char *out)
{
    int o = snprintf(out, BODY_MAX, "{\"n\":%d,\"solution\":", p->n);
    if (!r->found) {
        o += snprintf(out + o, BODY_MAX - (size_t)o, "null,\"hint\":null");
    } else {
        for (int i = 0; i < p->n; i++) o += snprintf(out + o, BODY_MAX - (size_t)o, "%c%u", i ? ',' : '[', r->cols[i]);
        int free_row = 0; /* the first row without a given: givens are row-major, one per row */
        for (uint32_t i = 0; i < p->queens && p->givens[i].row == (uint32_t)free_row; i++) free_row++;
        if (free_row < p->n)
            o += snprintf(out + o, BODY_MAX - (size_t)o, "],\"hint\":[%d,%u]", free_row, r->cols[free_row]);
        else
            o += snprintf(out + o, BODY_MAX - (size_t)o, "],\"hint\":null");
    }
    if (p->count) o += snprintf(out + o, BODY_MAX - (size_t)o, ",\"completions\":%" PRIu64, r->completions);
    o += snprintf(out + o, BODY_MAX - (size_t)o, "}");
    return (size_t)o;
}

/* The estimate of a count's cost, CPU milliseconds on one core (bench/bench_cost complete; the
 * figures are in docs/performance.md, "Refusing what cannot finish"). With no queen given it is
 * nq_count's count: 0.66 s at n = 17, about 5 times more per n. With k >= 1 given it is the mask
 * search under them: 6.7-9.6 s at n = 17 with one queen (mean and worst of five), about 6 times more
 * per n, and each further queen divides it by about 8 (6-13 measured). */
#define COUNT_MS_N17 660.0
#define COUNT_GROWTH 5.0
#define MASK_MS_N17 8000.0
#define MASK_GROWTH 6.0
#define MASK_PER_QUEEN 8.0

static double count_cpu_ms(int n, uint32_t queens)
{
    double ms = queens == 0 ? COUNT_MS_N17 : MASK_MS_N17;
    const double growth = queens == 0 ? COUNT_GROWTH : MASK_GROWTH;
    for (int i = n; i > 17; i--) ms *= growth;
    for (int i = n; i < 17; i++) ms /= growth;
    for (uint32_t i = 1; i < queens; i++) ms /= MASK_PER_QUEEN;
    return ms;
}

/* Whether counting p's completions fits the budget by the estimate, on the threads a count uses;
 * false with resp the problem. The CPUs are looked up only for a count that one core cannot do in
 * time. */
static bool count_fits(const nq_config *cfg, const char *path, const complete_plan *p, nq_response *resp)
{
    if (!p->count || !p->consistent || cfg->budget_ms == 0) return true;
    double ms = count_cpu_ms(p->n, p->queens);
    if (ms <= (double)cfg->budget_ms) return true;
    const unsigned cpus = nq_cpus_available();
    const unsigned threads = cfg->count_threads == 0 || cfg->count_threads > cpus ? cpus : cfg->count_threads;
    ms /= (double)threads;
    if (ms <= (double)cfg->budget_ms) return true;
    const uint64_t secs = (uint64_t)((ms + 999.0) / 1000.0); /* rounded up, as the budget below */
    char detail[320];
    (void)snprintf(detail, sizeof detail,
                   "Counting the completions of %" PRIu32 " given queen%s on a board of n = %d takes about %" PRIu64
                   " s by this server's estimate (%u thread%s), more than its budget of %u s: give more queens or "
                   "ask for a smaller board.",
                   p->queens, p->queens == 1 ? "" : "s", p->n, secs, threads, threads == 1 ? "" : "s",
                   (cfg->budget_ms + 999u) / 1000u);
    nq_app_problem(resp, path, NQ_E_TOO_COSTLY, NULL, detail, false, 0);
    return false;
}

/* The canonical request text ("complete?n=8&count=true&queens=0:1,1:3"); NULL without memory. */
static char *canonical(const nq_placement *pl, bool count)
{
    const size_t cap = nq_placement_render_size(pl) + 48;
    char *key = malloc(cap);
    if (!key) return NULL;
    const int w =
        snprintf(key, cap, "complete?n=%" PRIu32 "&count=%s&queens=", nq_placement_n(pl), count ? "true" : "false");
    if (w < 0 || nq_placement_render_queens(pl, key + w, cap - (size_t)w, NULL) != NQ_OK) {
        free(key);
        return NULL;
    }
    return key;
}

/* Fold a finished placement into w's plan and key; false with resp the problem. */
static bool plan_from(nq_app_work *w, const char *path, const nq_placement *pl, bool count, nq_response *resp)
{
    const nq_config *cfg = nq_app_config(w->app);
    const uint32_t n = nq_placement_n(pl);
    if (count && n > (uint32_t)cfg->max_n_complete_count) {
        char detail[160];
        (void)snprintf(detail, sizeof detail, "With count=true, parameter 'n' must be between 1 and %d on this server.",
                       cfg->max_n_complete_count);
        nq_app_problem(resp, path, NQ_E_LIMIT, "n", detail, true, (uint64_t)cfg->max_n_complete_count);
        return false;
    }
    complete_plan *p = nq_app_plan_new(w, sizeof *p);
    char *key = p ? canonical(pl, count) : NULL;
    if (!key) {
        nq_app_problem(resp, path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    p->n = (int)n;
    p->count = count;
    p->consistent = nq_complete_consistent(p->n, nq_placement_queens(pl), nq_placement_count(pl));
    if (p->consistent) { /* at most one queen per row: it fits, and so does the key */
        p->queens = (uint32_t)nq_placement_count(pl);
        if (p->queens) memcpy(p->givens, nq_placement_queens(pl), p->queens * sizeof p->givens[0]);
        (void)snprintf(w->key, sizeof w->key, "%s", key);
    }
    nq_app_etag(key, false, p->etag, sizeof p->etag);
    nq_app_etag(key, true, p->etag_gz, sizeof p->etag_gz);
    free(key);
    return count_fits(cfg, path, p, resp);
}

bool nq_route_complete_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const bool posted = nq_app_posted(req); /* the placement is the body; the query holds count only */
    nq_query q;
    if (!nq_app_parse_query(req, posted ? NQ_QK_COUNT : COMPLETE_KEYS, &q, resp)) return false;
    const uint32_t max_n = (uint32_t)nq_app_config(w->app)->max_n_complete;
    nq_placement *pl = NULL;
    nq_placement_in_error e;
    const nq_err rc = posted ? nq_placement_from_json(req->body, req->body_len, max_n, &pl, &e)
                             : nq_placement_from_query(&q, max_n, &pl, &e);
    if (rc != NQ_OK) {
        nq_placement_in_problem(resp, req->path, &e);
        return false;
    }
    const bool ok = plan_from(w, req->path, pl, q.count, resp);
    nq_placement_destroy(pl);
    return ok;
}

/* Answer with a body rendered here (not from the cache). */
static void respond(nq_response *resp, const nq_app_work *w, const complete_result *r, double seconds)
{
    const complete_plan *p = w->plan;
    char *body = malloc(BODY_MAX);
    if (!body) {
        nq_app_problem(resp, w->instance, NQ_E_NOMEM, NULL, NULL, false, 0);
        return;
    }
    nq_app_success(resp, 200, NQ_MEDIA_JSON, p->etag, false, seconds);
    nq_response_own(resp, body, render(p, r, body));
}

nq_app_step nq_route_complete_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const complete_plan *p = w->plan;
    nq_cache *cache = nq_app_cache(w->app);
    if (nq_app_try_304(req, p->etag, p->etag_gz, &w->variant, resp)) {
        if (p->consistent) nq_app_304_body(resp, cache, w->key);
        return NQ_APP_DONE;
    }
    if (!p->consistent) { /* known without a search: never completable */
        const complete_result none = {.found = false, .completions = 0};
        respond(resp, w, &none, 0.0);
        return NQ_APP_DONE;
    }
    nq_cache_entry *e = nq_cache_get(cache, w->key);
    if (!e) return NQ_APP_COMPUTE;
    nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_HIT);
    return NQ_APP_DONE;
}

nq_err nq_route_complete_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r)
{
    const complete_plan *p = w->plan;
    r->entry = nq_cache_get(nq_app_cache(w->app), w->key); /* someone else published it meanwhile? */
    if (r->entry) return NQ_OK;
    complete_result *out = nq_app_result_data_new(r, sizeof *out);
    if (!out) return NQ_E_NOMEM;
    const double t0 = nq_clock_s();
    nq_err rc = nq_complete_first(p->n, p->givens, p->queens, ctl, out->cols, &out->found);
    if (rc == NQ_OK && p->count && out->found) /* no completion: none to count */
        rc = nq_complete_count(p->n, p->givens, p->queens, (int)nq_app_config(w->app)->count_threads, ctl,
                               &out->completions);
    if (rc != NQ_OK) return rc;
    char body[BODY_MAX];
    const nq_cache_value v = {.content_type = NQ_MEDIA_JSON,
                              .etag = p->etag,
                              .body = body,
                              .body_len = render(p, out, body),
                              .solver_seconds = nq_clock_s() - t0};
    /* Refused (no cache, no memory): finish renders the body from the result. */
    (void)nq_cache_put(nq_app_cache(w->app), w->key, &v, &r->entry);
    return NQ_OK;
}

void nq_route_complete_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp)
{
    resp->cache = NQ_CACHE_MISS;
    if (r->entry) {
        nq_app_serve_result(resp, r, &w->variant);
        return;
    }
    respond(resp, w, r->data, r->seconds);
}
