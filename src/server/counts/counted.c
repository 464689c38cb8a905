/* counted.c - the counts of n now: from the cache, or counted in the calling thread and then
 * published and recorded with the long-count service (counted.h).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif
#include "counts/counted.h"

#include <assert.h>

#include "base/clock.h"
#include "counts/published.h"

nq_err nq_counts_get(nq_count_jobs *jobs, int n, nq_count_ctl *ctl, nq_counts *counts, nq_cache_entry **entry)
{
    assert(jobs && counts);
    nq_cache *cache = nq_count_jobs_cache(jobs);
    char key[NQ_COUNTS_KEY_MAX];
    nq_counts_key(n, key, sizeof key);
    if (nq_counts_lookup(cache, key, counts, entry)) return NQ_OK;
    const double t0 = nq_clock_s();
    const nq_err rc = nq_count(n, (int)nq_count_jobs_config(jobs)->count_threads, ctl, counts);
    if (rc != NQ_OK) return rc;
    const double seconds = nq_clock_s() - t0;
    nq_counts_publish(cache, n, counts, seconds, entry);
    /* Whichever route asked (a /count, a /solve total), /counts and the store learn of it. */
    nq_count_jobs_record(jobs, n, counts, seconds);
    return NQ_OK;
}
