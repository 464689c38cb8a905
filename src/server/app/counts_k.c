/* counts_k.c - counts of k queens computed once and kept in the cache (see counts_k.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif
#include "app/counts_k.h"

#include <inttypes.h>
#include <stdio.h>

#include "base/clock.h"
#include "nqueens/json.h"
#include "nqueens/kqueens.h"

void nq_counts_k_key(int n, int k, char *out, size_t cap)
{
    (void)snprintf(out, cap, "count?n=%d&k=%d", n, k);
}

size_t nq_counts_k_render(int n, int k, const nq_counts *c, char *out, size_t cap)
{
    size_t len = 0; /* the library's renderer, as the CLI's (nqueens/json.h) */
    return nq_json_counts_k(n, k, c, out, cap, &len) == NQ_OK ? len : 0;
}

nq_err nq_counts_k_get(nq_app *app, int n, int k, nq_count_ctl *ctl, nq_counts *counts, nq_cache_entry **entry)
{
    char key[40];
    nq_counts_k_key(n, k, key, sizeof key);
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
    const nq_err rc = nq_count_k(n, k, 1, ctl, counts);
    if (rc != NQ_OK) return rc;
    char body[NQ_COUNTS_K_BODY_MAX], etag[32];
    nq_app_etag(key, false, etag, sizeof etag);
    const nq_cache_value v = {.content_type = NQ_MEDIA_JSON,
                              .etag = etag,
                              .body = body,
                              .body_len = nq_counts_k_render(n, k, counts, body, sizeof body),
                              .solver_seconds = nq_clock_s() - t0,
                              .counts = *counts};
    (void)nq_cache_put(nq_app_cache(app), key, &v, entry); /* a refusal is no error: finish renders */
    return NQ_OK;
}
