/* handle_count.c - GET /count?n=N: {"n":8,"total":92,"unique":12}, computed once, then cached.
 *
 * The body is written with snprintf, not cJSON: counts reach 2.3e17 at n = 27, beyond the 2^53
 * that a cJSON number (a double) holds exactly.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif

#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "app_internal.h"
#include "clock.h"
#include "router.h"

#define COUNT_BODY_MAX 96 /* {"n":27,"total":<20 digits>,"unique":<20 digits>} */

static size_t render_counts(int n, const nq_counts *c, char *out, size_t cap) {
    const int w = snprintf(out, cap, "{\"n\":%d,\"total\":%" PRIu64 ",\"unique\":%" PRIu64 "}", n, c->total,
                           c->unique);
    return w > 0 && (size_t)w < cap ? (size_t)w : 0;
}

static int max_n(const nq_app *app) {
    const int cfg = nq_app_config(app)->max_n_count;
    return cfg < NQ_COUNT_N_MAX ? cfg : NQ_COUNT_N_MAX;
}

nq_app_step nq_handle_count(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work) {
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, NQ_QK_N, &q, &qe) != NQ_OK ||
        nq_query_require(&q, NQ_QK_N, &qe) != NQ_OK) {
        nq_app_query_problem(resp, req->path, &qe);
        return NQ_APP_DONE;
    }
    const int max = max_n(app);
    if (q.n > (uint64_t)max) {
        char detail[160];
        (void)snprintf(detail, sizeof detail, "Parameter 'n' must be between 1 and %d on this server.", max);
        nq_app_problem(resp, req->path, NQ_E_LIMIT, "n", detail, true, (uint64_t)max);
        return NQ_APP_DONE;
    }
    char key[32], etag[32], etag_gz[40];
    nq_app_count_key((int)q.n, key, sizeof key);
    nq_app_etag(key, false, etag, sizeof etag);
    nq_app_etag(key, true, etag_gz, sizeof etag_gz);
    nq_variant v;
    nq_app_negotiate(req, &v);
    if (nq_app_try_304(req, etag, etag_gz, &v, resp)) {
        nq_app_304_body(resp, nq_app_cache(app), key);
        return NQ_APP_DONE;
    }
    nq_cache_entry *e = nq_cache_get(nq_app_cache(app), key);
    if (e) {
        nq_app_serve_entry(resp, e, &v, 0.0, NQ_CACHE_HIT);
        return NQ_APP_DONE;
    }
    *work = nq_app_work_new(app, NQ_WORK_COUNT, (int)q.n, key, req, &v);
    if (!*work) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    resp->cache = NQ_CACHE_MISS;
    return NQ_APP_COMPUTE;
}

/* Count n (unless the cache has it by now) and publish the body; *entry (may be NULL) gets a
 * reference to the published entry, NULL when the cache refused it. */
static nq_err count_and_publish(nq_app *app, int n, nq_count_ctl *ctl, nq_counts *counts, nq_cache_entry **entry) {
    char key[32];
    nq_app_count_key(n, key, sizeof key);
    nq_cache_entry *e = nq_cache_get(nq_app_cache(app), key);
    if (e) {
        *counts = nq_cache_entry_value(e)->counts;
        if (entry) *entry = e;
        else nq_cache_entry_release(e);
        return NQ_OK;
    }
    const double t0 = nq_clock_s();
    const nq_err rc = nq_count(n, (int)nq_app_config(app)->count_threads, ctl, counts);
    if (rc != NQ_OK) return rc;
    char body[COUNT_BODY_MAX], etag[32];
    nq_app_etag(key, false, etag, sizeof etag);
    const nq_cache_value v = {.content_type = NQ_MEDIA_JSON,
                              .etag = etag,
                              .body = body,
                              .body_len = render_counts(n, counts, body, sizeof body),
                              .solver_seconds = nq_clock_s() - t0,
                              .counts = *counts};
    /* A refusal (disabled cache) is no error: the caller renders from the counts. */
    (void)nq_cache_put(nq_app_cache(app), key, &v, entry);
    return NQ_OK;
}

nq_err nq_count_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r) {
    return count_and_publish(w->app, w->n, ctl, &r->counts, &r->entry);
}

nq_err nq_count_for_solve(nq_app *app, int n, nq_count_ctl *ctl, nq_counts *counts) {
    return count_and_publish(app, n, ctl, counts, NULL);
}

void nq_count_finish(nq_app_work *w, const nq_app_result *r, nq_response *resp) {
    resp->cache = NQ_CACHE_MISS;
    if (r->entry) {
        nq_cache_entry_retain(r->entry); /* the result is shared; the response takes its own ref */
        nq_app_serve_entry(resp, r->entry, &w->variant, r->seconds, NQ_CACHE_MISS);
        return;
    }
    char etag[32];
    nq_app_etag(w->key, false, etag, sizeof etag);
    char *body = malloc(COUNT_BODY_MAX);
    if (!body) {
        nq_app_problem(resp, w->instance, NQ_E_NOMEM, NULL, NULL, false, 0);
        return;
    }
    nq_app_success(resp, 200, NQ_MEDIA_JSON, etag, false, r->seconds);
    resp->kind = NQ_BODY_OWNED;
    resp->owned = body;
    resp->body = body;
    resp->body_len = render_counts(w->n, &r->counts, body, COUNT_BODY_MAX);
}
