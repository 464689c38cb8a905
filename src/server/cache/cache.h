/* cache.h - the response cache of nqueensd: an LRU map from a variant key to an immutable entry,
 * bounded in bytes.
 *
 * Workload: a handful of hot keys ("count?n=8", "solve?n=12&format=board&unique=false") read by many
 * handler threads at once, each read followed by handing the entry's bytes to libmicrohttpd, which
 * sends them after the handler has returned. So entries are reference counted: nq_cache_get returns a
 * reference the caller owns, and the bytes stay valid until that reference is released, even if the
 * entry is evicted or replaced meanwhile. Typical use:
 *
 *     nq_cache_entry *e = nq_cache_get(cache, key);
 *     const nq_cache_value *v = nq_cache_entry_value(e);
 *     resp = MHD_create_response_from_buffer_with_free_callback_cls(v->body_len, (void *)v->body,
 *                                                                  nq_cache_release_cb, e);
 *
 * Every entry keeps its bytes on the heap, whatever their size: one allocation holding the
 * bookkeeping, key, strings, body and gzip form, or, for nq_cache_put_owned, the caller's body as a
 * second allocation taken over without a copy. A server sends them from where the value points.
 *
 * Pins: a response that holds an entry for as long as its client reads turns its reference into a
 * pinned one (nq_cache_entry_pin), which counts the entry's footprint once against a budget of pinned
 * bytes (pin.h) until the last pinned reference goes, whether or not the cache still holds the entry.
 * The cache's own bound says nothing of entries it has evicted; the pin budget bounds those.
 *
 * Bound: the cache charges each entry its whole footprint (bookkeeping, key, strings, body, gzip) and
 * evicts least recently used entries until the total is at most max_bytes. An entry that would cost
 * more than max_bytes / NQ_CACHE_ENTRY_DIVISOR is refused (NQ_E_TOO_LARGE): answers that big are
 * streamed by the caller, never cached, so one huge answer cannot flush the whole cache.
 *
 * Thread-safety: every function but nq_cache_destroy may be called from any thread at any time. One
 * mutex guards the map and the LRU list; every critical section is O(1) (a hash table that grows
 * incrementally, plus a doubly linked list; no scan). Reference counts are atomic, so releasing never
 * takes the lock unless the entry dies. Values are immutable once published: readers need no lock to
 * use them.
 */
#ifndef NQ_CACHE_H
#define NQ_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "cache/pin.h"
#include "nqueens/error.h"
#include "nqueens/solver.h"

/* An entry may cost at most max_bytes / NQ_CACHE_ENTRY_DIVISOR; see nq_cache_entry_limit. */
#define NQ_CACHE_ENTRY_DIVISOR 8u

/* Longest key accepted, in bytes (keys are short canonical strings built by the server). */
#define NQ_CACHE_KEY_MAX 512u

/* Longest content type or ETag accepted, in bytes (without the NUL). */
#define NQ_CACHE_STR_MAX 128u

typedef struct nq_cache nq_cache;             /* opaque */
typedef struct nq_cache_entry nq_cache_entry; /* opaque, reference counted */

/* What an entry holds. On nq_cache_put every pointer is read and its bytes copied (the caller keeps
 * ownership of what it passed in); nq_cache_entry_value returns a view into the entry's own copy,
 * valid while the caller holds a reference. */
typedef struct nq_cache_value {
    const char *content_type; /* NUL-terminated media type, e.g. "application/json"; not NULL */
    const char *etag;         /* NUL-terminated strong ETag, quotes included; not NULL */
    const char *body;         /* identity body (not NUL-terminated); NULL only if body_len is 0 */
    size_t body_len;          /* bytes at body */
    const char *gzip;         /* gzip form of body, or NULL when the entry has none */
    size_t gzip_len;          /* bytes at gzip; 0 when gzip is NULL */
    double solver_seconds;    /* what computing the answer cost, for Server-Timing */
    nq_counts counts;         /* small payload: the totals behind the answer (zero when unused) */
} nq_cache_value;

/* Counters for metrics; a consistent snapshot taken under the lock. */
typedef struct nq_cache_stats {
    uint64_t hits;      /* nq_cache_get calls that found the key */
    uint64_t misses;    /* nq_cache_get calls that did not */
    uint64_t inserts;   /* entries published by nq_cache_put (replacements included) */
    uint64_t evictions; /* entries dropped to keep within max_bytes (replacements not counted) */
    uint64_t refused;   /* nq_cache_put calls refused as too large */
    size_t entries;     /* entries in the cache now */
    size_t bytes;       /* bytes charged for them now, <= max_bytes */
    size_t max_bytes;   /* the configured bound */
} nq_cache_stats;

/* Create a cache bounded to max_bytes. max_bytes 0 makes a disabled cache: every get misses and every
 * put is refused, so callers need no special case. On success *out owns the cache (nq_cache_destroy).
 * Errors: NQ_E_ARG (out NULL), NQ_E_NOMEM (nothing allocated, *out untouched). */
nq_err nq_cache_create(size_t max_bytes, nq_cache **out);

/* Drop the cache's references to all entries and free the cache. Entries still referenced by callers
 * stay valid until released. NULL is accepted and ignored. Must not race other calls on c. */
void nq_cache_destroy(nq_cache *c);

/* Look key up. On a hit, mark the entry most recently used and return a new reference the caller must
 * release (nq_cache_entry_release); on a miss return NULL. Counts a hit or a miss.
 * NULL c or key (or a key longer than NQ_CACHE_KEY_MAX) is a miss that is not counted. */
nq_cache_entry *nq_cache_get(nq_cache *c, const char *key);

/* Whether e is the entry key maps to now: no reference taken, no hit or miss counted, recency kept
 * (for a caller about to replace an entry it holds, which need not if it was evicted or replaced).
 * NULL c, key or e is false. */
bool nq_cache_holds(nq_cache *c, const char *key, const nq_cache_entry *e);

/* Copy v into a new entry under key, most recently used, evicting least recently used entries to fit.
 * An existing entry with the same key is replaced (its current readers keep their references).
 * If out is not NULL, *out receives a reference to the new entry on success (the caller releases
 * it), NULL on error.
 * Errors: NQ_E_ARG (c, key or v NULL; key empty or longer than NQ_CACHE_KEY_MAX; content_type or
 * etag NULL or longer than NQ_CACHE_STR_MAX; body NULL with body_len > 0; gzip NULL with
 * gzip_len > 0), NQ_E_TOO_LARGE (the entry would cost more than nq_cache_entry_limit: not cached,
 * serve it some other way; no error for the client), NQ_E_NOMEM.
 * On error the cache is unchanged (apart from the refused counter). */
nq_err nq_cache_put(nq_cache *c, const char *key, const nq_cache_value *v, nq_cache_entry **out);

/* nq_cache_put, but the entry takes over body (malloc'd, v->body_len bytes; v->body is ignored)
 * instead of copying it, and is charged as if it had copied it: for an answer that should not wait for
 * its bytes to be copied before it is served. v's other strings and its gzip form are copied as by
 * nq_cache_put. body is freed with the entry, or at once on any error (the caller must not use or
 * free it after the call either way). Errors: as nq_cache_put, and NQ_E_ARG for a NULL body. */
nq_err nq_cache_put_owned(nq_cache *c, const char *key, const nq_cache_value *v, char *body, nq_cache_entry **out);

/* The largest footprint an entry may have (max_bytes / NQ_CACHE_ENTRY_DIVISOR; 0 for a disabled or
 * NULL cache), counting bookkeeping, key and strings as well as body and gzip bytes. */
size_t nq_cache_entry_limit(const nq_cache *c);

/* Whether an entry with a body_len-byte body and a gzip_len-byte gzip form would be admitted whatever
 * its key and strings (it assumes the longest ones): lets the caller decide to stream before rendering
 * anything. When it returns true, nq_cache_put of such an entry is not refused. */
bool nq_cache_fits(const nq_cache *c, size_t body_len, size_t gzip_len);

/* Take a snapshot of the counters. Zeroes *out when c is NULL. out must not be NULL. */
void nq_cache_stats_get(nq_cache *c, nq_cache_stats *out);

/* The entry's value; valid until the caller's reference is released. e must not be NULL. */
const nq_cache_value *nq_cache_entry_value(const nq_cache_entry *e);

/* Take another reference to e (e.g. one per response sharing the bytes). e must not be NULL. */
void nq_cache_entry_retain(nq_cache_entry *e);

/* Turn the caller's reference e into a pinned one, for a response that holds the bytes as long as its
 * client reads: *out receives a new reference to the same value (nq_cache_entry_value gives the same
 * bytes), which takes e's reference over. While an entry has pinned references alive, its whole charge
 * is taken from budget once, however many there are (they share its bytes); releasing the last one
 * gives it back, whether the entry is still cached or long evicted. All pins of one entry must come
 * from the same budget; e must not itself be pinned.
 * Errors: NQ_E_BUSY (budget refused the charge), NQ_E_NOMEM; then *out is NULL and e is still the
 * caller's. Thread-safe (lock-free). */
nq_err nq_cache_entry_pin(nq_cache_entry *e, nq_pin_budget *budget, nq_cache_entry **out);

/* Give back a reference; the last one frees the entry. NULL is accepted and ignored. */
void nq_cache_entry_release(nq_cache_entry *e);

/* nq_cache_entry_release with the signature of libmicrohttpd's MHD_ContentReaderFreeCallback, to pass
 * as the free callback of a response built over the entry's bytes (entry is the nq_cache_entry). */
void nq_cache_release_cb(void *entry);

#endif /* NQ_CACHE_H */
