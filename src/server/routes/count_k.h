/* count_k.h - the counts of k queens on an n x n board (k < n) as the service keeps them: computed once
 * by nq_count_k, published to the cache as the /count?n=N&k=K body.
 *
 * Thread-safety: reentrant; the cache is internally locked.
 */
#ifndef NQ_ROUTES_COUNT_K_H
#define NQ_ROUTES_COUNT_K_H

#include <stddef.h>

#include "cache/cache.h"
#include "nqueens/solver.h"

/* Longest body: {"n":27,"k":26,"total":<20 digits>,"unique":<20 digits>}, 74 bytes: it fits the
 * buffer /count renders its own body into. */
#define NQ_COUNTS_K_BODY_MAX 96

/* Canonical key of the counts of k queens on n ("count?n=8&k=4"). */
void nq_counts_k_key(int n, int k, char *out, size_t cap);

/* The body of n, k and c into out (cap bytes, NUL-terminated); its length, 0 if it does not fit. */
size_t nq_counts_k_render(int n, int k, const nq_counts *c, char *out, size_t cap);

/* The counts of k < n queens from the cache, or counted now (nq_count_k, on the calling thread,
 * cancellable through ctl) and published. *entry (may be NULL) receives a reference to the published
 * entry, NULL when the cache refused it. Errors: those of nq_count_k. */
nq_err nq_counts_k_get(nq_cache *cache, int n, int k, nq_count_ctl *ctl, nq_counts *counts, nq_cache_entry **entry);

#endif /* NQ_ROUTES_COUNT_K_H */
