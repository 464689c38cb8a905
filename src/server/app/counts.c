/* counts.c - counts computed once and kept in the cache (see counts.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif
#include "app/counts.h"

#include <stdio.h>

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

bool nq_counts_cached(nq_app *app, int n, nq_counts *out)
{
    char key[32];
    nq_counts_key(n, key, sizeof key);
    nq_cache_entry *e = nq_cache_get(nq_app_cache(app), key);
    if (!e) return false;
    *out = nq_cache_entry_value(e)->counts;
    nq_cache_entry_release(e);
    return true;
}

nq_err nq_counts_get(nq_app *app, int n, nq_count_ctl *ctl, nq_counts *counts, nq_cache_entry **entry)
{
    char key[32];
    nq_counts_key(n, key, sizeof key);
    if (entry) *entry = NULL;
    nq_cache_entry *e = nq_cache_get(nq_app_cache(app), key);
    if (e) {
        *counts = nq_cache_entry_value(e)->counts;
        if (entry)
            *entry = e;
        else
            nq_cache_entry_release(e);
        return NQ_OK;
    }
    const double t0 = nq_clock_s();
    const nq_err rc = nq_count(n, (int)nq_app_config(app)->count_threads, ctl, counts);
    if (rc != NQ_OK) return rc;
    nq_counts_publish(app, n, counts, nq_clock_s() - t0, entry);
    return NQ_OK;
}

void nq_counts_publish(nq_app *app, int n, const nq_counts *counts, double seconds, nq_cache_entry **entry)
{
    char key[32], body[NQ_COUNTS_BODY_MAX], etag[32];
    nq_counts_key(n, key, sizeof key);
    nq_app_etag(key, false, etag, sizeof etag);
    const nq_cache_value v = {.content_type = NQ_MEDIA_JSON,
                              .etag = etag,
                              .body = body,
                              .body_len = nq_counts_render(n, counts, body, sizeof body),
                              .solver_seconds = seconds,
                              .counts = *counts};
    if (entry) *entry = NULL;
    /* A refusal (disabled cache) is no error: the caller renders from the counts. */
    (void)nq_cache_put(nq_app_cache(app), key, &v, entry);
}
