/* counts.c - counts computed once and kept in the cache (see counts.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif
#include "app/counts.h"

#include <stdio.h>

#include "app/count_jobs.h"
#include "base/clock.h"
#include "nqueens/json.h"

void nq_counts_key(int n, char *out, size_t cap)
{
    (void)snprintf(out, cap, "count?n=%d", n);
}

size_t nq_counts_render(int n, const nq_counts *c, char *out, size_t cap)
{
    size_t len = 0;
    if (cap == 0 || nq_json_counts(n, c, out, cap - 1, &len) != NQ_OK) return 0;
    out[len] = '\0';
    return len;
}

bool nq_counts_lookup(nq_app *app, const char *key, nq_counts *counts, nq_cache_entry **entry)
{
    if (entry) *entry = NULL;
    nq_cache_entry *e = nq_cache_get(nq_app_cache(app), key);
    if (!e) return false;
    *counts = nq_cache_entry_value(e)->counts;
    if (entry)
        *entry = e;
    else
        nq_cache_entry_release(e);
    return true;
}

void nq_counts_put(nq_app *app, const char *key, const char *body, size_t len, const nq_counts *counts, double seconds,
                   nq_cache_entry **entry)
{
    char etag[32];
    nq_app_etag(key, false, etag, sizeof etag);
    const nq_cache_value v = {.content_type = NQ_MEDIA_JSON,
                              .etag = etag,
                              .body = body,
                              .body_len = len,
                              .solver_seconds = seconds,
                              .counts = *counts};
    if (entry) *entry = NULL;
    (void)nq_cache_put(nq_app_cache(app), key, &v, entry);
}

bool nq_counts_cached(nq_app *app, int n, nq_counts *out)
{
    char key[32];
    nq_counts_key(n, key, sizeof key);
    return nq_counts_lookup(app, key, out, NULL);
}

nq_err nq_counts_get(nq_app *app, int n, nq_count_ctl *ctl, nq_counts *counts, nq_cache_entry **entry)
{
    char key[32];
    nq_counts_key(n, key, sizeof key);
    if (nq_counts_lookup(app, key, counts, entry)) return NQ_OK;
    const double t0 = nq_clock_s();
    const nq_err rc = nq_count(n, (int)nq_app_config(app)->count_threads, ctl, counts);
    if (rc != NQ_OK) return rc;
    const double seconds = nq_clock_s() - t0;
    nq_counts_publish(app, n, counts, seconds, entry);
    /* Whichever route asked (a /count, a /solve total), /counts and the store learn of it. */
    nq_count_jobs_record(nq_app_jobs(app), n, counts, seconds);
    return NQ_OK;
}

void nq_counts_publish(nq_app *app, int n, const nq_counts *counts, double seconds, nq_cache_entry **entry)
{
    char key[32], body[NQ_COUNTS_BODY_MAX];
    nq_counts_key(n, key, sizeof key);
    nq_counts_put(app, key, body, nq_counts_render(n, counts, body, sizeof body), counts, seconds, entry);
}
