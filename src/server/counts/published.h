/* published.h - the counts of an n x n board as the service keeps them: computed once, published to
 * the cache as the /count body, read back by any route that needs a total (/count, /solve).
 *
 * The cache entry of "count?n=N" carries both the rendered /count body and the counts themselves
 * (nq_cache_value.counts), so a /solve total never parses JSON and never counts twice.
 * Thread-safety: reentrant; the cache is internally locked. Two threads may count the same n at
 * once only when they did not go through the worker pool's single-flight (a /solve total and a
 * /count of the same n): both publish, and the cache keeps one.
 */
#ifndef NQ_COUNTS_PUBLISHED_H
#define NQ_COUNTS_PUBLISHED_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/cache.h"
#include "nqueens/solver.h"

/* Room for a canonical counts key with its NUL: "count?n=27&k=27". */
#define NQ_COUNTS_KEY_MAX 32

/* Longest /count body: {"n":27,"total":<20 digits>,"unique":<20 digits>}. */
#define NQ_COUNTS_BODY_MAX 96

/* Canonical key of the counts of n ("count?n=8"), the cache key of the /count body. */
void nq_counts_key(int n, char *out, size_t cap);

/* The /count body of n and c into out (cap bytes, NUL-terminated); its length, 0 if it does not fit.
 * The library's counts object (nqueens/json.h), the bytes the CLI prints; not cJSON: counts reach
 * 2.3e17 at n = 27, beyond the 2^53 a cJSON number (a double) holds exactly. */
size_t nq_counts_render(int n, const nq_counts *c, char *out, size_t cap);

/* The counts cached under key: true on a hit, with *counts filled and *entry (may be NULL) given a
 * reference to the entry (released here when entry is NULL); cache NULL: a miss. The lookup every counted route shares. */
bool nq_counts_lookup(nq_cache *cache, const char *key, nq_counts *counts, nq_cache_entry **entry);

/* Publish counts under key with its rendered body (len bytes, copied) and the seconds they took.
 * *entry (may be NULL) as for nq_counts_publish. A refusal (a disabled cache) is no error: the
 * caller renders from the counts. */
void nq_counts_put(nq_cache *cache, const char *key, const char *body, size_t len, const nq_counts *counts,
                   double seconds, nq_cache_entry **entry);

/* The counts of n from the cache: true on a hit. */
bool nq_counts_cached(nq_cache *cache, int n, nq_counts *out);

/* Publish the counts of n to the cache as the /count body, which is a pure function of n and c
 * (the same bytes and ETag in every process: a count loaded from the store answers exactly as the
 * one that was computed). *entry (may be NULL) receives a reference to the entry, NULL when the
 * cache refused it. */
void nq_counts_publish(nq_cache *cache, int n, const nq_counts *c, double seconds, nq_cache_entry **entry);

#endif /* NQ_COUNTS_PUBLISHED_H */
