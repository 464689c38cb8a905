/* count_k.c - counts of k queens computed once and kept in the cache (see count_k.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif
#include "routes/count_k.h"

#include <inttypes.h>
#include <stdio.h>

#include "base/clock.h"
#include "core/query.h"
#include "counts/published.h"
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

nq_err nq_counts_k_get(nq_cache *cache, int n, int k, nq_count_ctl *ctl, nq_counts *counts, nq_cache_entry **entry)
{
    char key[NQ_COUNTS_KEY_MAX];
    nq_counts_k_key(n, k, key, sizeof key);
    if (nq_counts_lookup(cache, key, counts, entry)) return NQ_OK;
    const double t0 = nq_clock_s();
    const nq_err rc = nq_count_k(n, k, 1, ctl, counts);
    if (rc != NQ_OK) return rc;
    /* Every JSON integer the server sends stays exact in every client (at most 2^53 - 1). A search
     * finds its placements one by one, so no count that runs within a budget gets there; the bound
     * holds all the same. */
    if (counts->total > NQ_JSON_INT_MAX) return NQ_E_TOO_LARGE;
    char body[NQ_COUNTS_K_BODY_MAX];
    nq_counts_put(cache, key, body, nq_counts_k_render(n, k, counts, body, sizeof body), counts, nq_clock_s() - t0,
                  entry);
    return NQ_OK;
}
