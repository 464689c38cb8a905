/* counted.h - the counts of an n x n board for a request that needs them now (a /count below
 * --long-count-n, a /solve total): from the cache, or counted in the calling thread, published and
 * recorded with the long-count service, so /counts and the store know every count computed,
 * whichever route asked for it.
 * Thread-safety: reentrant (the cache and the service are internally locked).
 */
#ifndef NQ_COUNTS_COUNTED_H
#define NQ_COUNTS_COUNTED_H

#include "cache/cache.h"
#include "counts/jobs.h"
#include "nqueens/solver.h"

/* The counts of n from the service's cache, or counted now (nq_count on the configured threads,
 * cancellable through ctl), published and recorded with the service. *entry (may be NULL) receives
 * a reference to the published entry, NULL when the cache refused it (or there is none).
 * Errors: those of nq_count. */
nq_err nq_counts_get(nq_count_jobs *jobs, int n, nq_count_ctl *ctl, nq_counts *counts, nq_cache_entry **entry);

#endif /* NQ_COUNTS_COUNTED_H */
