/* cache.c - LRU response cache: hash table with incremental rehash, doubly linked recency list,
 * ref-counted immutable entries, bounded in bytes.
 *
 * Each entry is one allocation: the header below followed by key, content type, ETag, body and gzip
 * bytes, whatever their size, so the byte charge is exact and freeing is one call. An entry made by
 * nq_cache_put_owned holds the caller's body as a second allocation instead of a copy, charged as a
 * copy would be. The expensive part of a put (allocating and copying megabytes) happens before the
 * lock is taken; freeing evicted entries happens after it is dropped. A pinned reference
 * (nq_cache_entry_pin) is a small allocation of its own that points at its entry: the entry counts
 * how many there are, so that its charge is taken from the pin budget by the first and given back by
 * the last, atomically, without the lock. Inside the lock every operation touches O(1) nodes: the
 * hash table never rehashes all at once but moves a couple of buckets per operation while it grows
 * (the way Redis' dict does), and the LRU list is doubly linked so an entry moves to the front or
 * leaves in constant time.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strnlen */
#endif
#include "cache/cache.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/hash.h"

#define TABLE_MIN_SLOTS 16u /* first table size; a power of two */
#define REHASH_STEPS 2u     /* old buckets moved per operation while growing */

struct nq_cache_entry {
    atomic_uint_fast32_t refs; /* the cache's reference while linked, plus one per caller */
    atomic_uint_fast32_t pins; /* pinned references to it alive: its charge is pinned while > 0 */
    nq_cache_entry *target;    /* a pinned reference (nq_cache_entry_pin): the entry it holds; else NULL */
    nq_pin_budget *budget;     /* a pinned reference: the budget its entry's charge was taken from */
    nq_cache_entry *chain;     /* next entry in the same hash bucket */
    nq_cache_entry *newer;     /* LRU neighbour towards the head (NULL at the head) */
    nq_cache_entry *older;     /* LRU neighbour towards the tail (NULL at the tail) */
    uint64_t hash;             /* hash of key, kept to rehash without rereading the key */
    size_t charge;             /* bytes this entry counts against max_bytes */
    size_t key_len;            /* strlen(key) */
    const char *key;           /* NUL-terminated, points into data */
    nq_cache_value value;      /* pointers into data (the body into owned when that is not NULL) */
    char *owned;               /* the body, when the entry took it over (nq_cache_put_owned), or NULL */
    char data[];               /* key, content type, ETag (each NUL-terminated)[, body, gzip] */
};

typedef struct table {
    nq_cache_entry **slots; /* bucket heads; NULL when the table is unused */
    size_t mask;            /* slot count - 1 (slot count is a power of two) */
    size_t used;            /* entries in this table */
} table;

struct nq_cache {
    pthread_mutex_t lock;   /* guards everything below */
    table t[2];             /* t[0] main; t[1] the larger table being filled while rehashing */
    size_t rehash_next;     /* next bucket of t[0] to move while rehashing */
    nq_cache_entry *newest; /* LRU head */
    nq_cache_entry *oldest; /* LRU tail: the next victim */
    nq_hash_key seed;       /* SipHash key, random per cache; read-only after create */
    size_t max_bytes;       /* configured bound; read-only after create */
    size_t bytes;           /* sum of linked entries' charges */
    uint64_t hits;          /* see nq_cache_stats */
    uint64_t misses;
    uint64_t inserts;
    uint64_t evictions;
    uint64_t refused;
};

/* Keys embed client input (cursors, offsets), so an unkeyed hash would let a client pick keys that
 * share one bucket and turn every lookup under the lock into a scan; SipHash under a random
 * per-cache key (base/hash.h) makes bucket placement unpredictable. */
static uint64_t hash_key(const nq_hash_key *seed, const char *key, size_t len)
{
    return nq_hash_bytes(seed, key, len);
}

/* Bytes an entry costs, or SIZE_MAX if the sum overflows: the size of its allocation when body and gzip
 * are copied into it (an owned body is charged the same, in its own allocation). */
static size_t entry_charge(size_t key_len, size_t type_len, size_t etag_len, size_t body_len, size_t gzip_len)
{
    const size_t parts[] = {sizeof(nq_cache_entry), key_len + 1u, type_len + 1u, etag_len + 1u, body_len, gzip_len};
    size_t sum = 0;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (parts[i] > SIZE_MAX - sum) {
            return SIZE_MAX;
        }
        sum += parts[i];
    }
    return sum;
}

size_t nq_cache_entry_limit(const nq_cache *c)
{
    return c ? c->max_bytes / NQ_CACHE_ENTRY_DIVISOR : 0;
}

bool nq_cache_fits(const nq_cache *c, size_t body_len, size_t gzip_len)
{
    const size_t worst = entry_charge(NQ_CACHE_KEY_MAX, NQ_CACHE_STR_MAX, NQ_CACHE_STR_MAX, body_len, gzip_len);
    return worst != SIZE_MAX && worst <= nq_cache_entry_limit(c);
}

nq_err nq_cache_create(size_t max_bytes, nq_cache **out)
{
    if (!out) {
        return NQ_E_ARG;
    }
    nq_cache *c = calloc(1, sizeof *c);
    if (!c) {
        return NQ_E_NOMEM;
    }
    c->t[0].slots = calloc(TABLE_MIN_SLOTS, sizeof(nq_cache_entry *));
    if (!c->t[0].slots || pthread_mutex_init(&c->lock, NULL) != 0) {
        free(c->t[0].slots);
        free(c);
        return NQ_E_NOMEM;
    }
    c->t[0].mask = TABLE_MIN_SLOTS - 1u;
    c->max_bytes = max_bytes;
    nq_hash_key_random(&c->seed);
    *out = c;
    return NQ_OK;
}

void nq_cache_destroy(nq_cache *c)
{
    if (!c) {
        return;
    }
    nq_cache_entry *e = c->newest;
    while (e) {
        nq_cache_entry *const next = e->older;
        nq_cache_entry_release(e);
        e = next;
    }
    free(c->t[0].slots);
    free(c->t[1].slots);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

/* ---- hash table (caller holds the lock) ------------------------------------------------------- */

static bool rehashing(const nq_cache *c)
{
    return c->t[1].slots != NULL;
}

/* Move a few buckets from t[0] to t[1]; when t[0] is empty, t[1] becomes the main table. */
static void rehash_step(nq_cache *c)
{
    if (!rehashing(c)) {
        return;
    }
    for (unsigned step = 0; step < REHASH_STEPS && c->rehash_next <= c->t[0].mask; step++) {
        nq_cache_entry *e = c->t[0].slots[c->rehash_next];
        c->t[0].slots[c->rehash_next++] = NULL;
        while (e) {
            nq_cache_entry *const next = e->chain;
            nq_cache_entry **const slot = &c->t[1].slots[e->hash & c->t[1].mask];
            e->chain = *slot;
            *slot = e;
            c->t[0].used--;
            c->t[1].used++;
            e = next;
        }
    }
    if (c->rehash_next > c->t[0].mask) {
        assert(c->t[0].used == 0);
        free(c->t[0].slots);
        c->t[0] = c->t[1];
        c->t[1] = (table){0};
    }
}

/* Start growing once the load factor passes 1. If the larger table cannot be allocated the cache
 * keeps working with longer chains; growth is retried on a later insert. The table never shrinks:
 * its size follows the peak entry count, which the byte bound already limits. */
static void maybe_grow(nq_cache *c)
{
    if (rehashing(c) || c->t[0].used <= c->t[0].mask || c->t[0].mask > SIZE_MAX / 4u) {
        return;
    }
    const size_t slots = (c->t[0].mask + 1u) * 2u;
    nq_cache_entry **const fresh = calloc(slots, sizeof(nq_cache_entry *));
    if (!fresh) {
        return;
    }
    c->t[1] = (table){.slots = fresh, .mask = slots - 1u, .used = 0};
    c->rehash_next = 0;
}

/* The link that points at key's entry (a bucket head or a predecessor's `chain`), with the table
 * holding it in *owner; NULL when key is absent. */
static nq_cache_entry **find_slot(nq_cache *c, const char *key, size_t len, uint64_t h, table **owner)
{
    for (int i = 0; i < 2; i++) {
        table *const t = &c->t[i];
        if (!t->slots) {
            continue;
        }
        nq_cache_entry **link = &t->slots[h & t->mask];
        for (; *link; link = &(*link)->chain) {
            const nq_cache_entry *const e = *link;
            if (e->hash == h && e->key_len == len && memcmp(e->key, key, len) == 0) {
                *owner = t;
                return link;
            }
        }
    }
    return NULL;
}

/* ---- recency list (caller holds the lock) ----------------------------------------------------- */

static void lru_unlink(nq_cache *c, nq_cache_entry *e)
{
    *(e->newer ? &e->newer->older : &c->newest) = e->older;
    *(e->older ? &e->older->newer : &c->oldest) = e->newer;
    e->newer = e->older = NULL;
}

static void lru_push_front(nq_cache *c, nq_cache_entry *e)
{
    e->newer = NULL;
    e->older = c->newest;
    *(c->newest ? &c->newest->newer : &c->oldest) = e;
    c->newest = e;
}

/* Unlink the entry at *link (in table t) from the table and the list and uncharge it. The cache's
 * reference is handed to the caller, who releases it once the lock is dropped. */
static nq_cache_entry *detach(nq_cache *c, table *t, nq_cache_entry **link)
{
    nq_cache_entry *const e = *link;
    *link = e->chain;
    e->chain = NULL;
    t->used--;
    lru_unlink(c, e);
    c->bytes -= e->charge;
    return e;
}

/* Detach the entry with e's key and hash, if any. */
static nq_cache_entry *detach_key(nq_cache *c, const nq_cache_entry *e)
{
    table *t = NULL;
    nq_cache_entry **const link = find_slot(c, e->key, e->key_len, e->hash, &t);
    return link ? detach(c, t, link) : NULL;
}

/* Detach victim, an entry linked in the cache: never NULL, which the eviction loop relies on. */
static nq_cache_entry *detach_linked(nq_cache *c, const nq_cache_entry *victim)
{
    table *t = NULL;
    nq_cache_entry **const link = find_slot(c, victim->key, victim->key_len, victim->hash, &t);
    assert(link && *link == victim);
    return detach(c, t, link);
}

static void link_new(nq_cache *c, nq_cache_entry *e)
{
    table *const t = rehashing(c) ? &c->t[1] : &c->t[0];
    nq_cache_entry **const slot = &t->slots[e->hash & t->mask];
    e->chain = *slot;
    *slot = e;
    t->used++;
    lru_push_front(c, e);
    c->bytes += e->charge;
}

/* ---- public operations ------------------------------------------------------------------------ */

/* A lookup key's length and hash into *len and *h; false (a miss nobody counts) for a NULL or too long
 * key. */
static bool lookup_key(const nq_cache *c, const char *key, size_t *len, uint64_t *h)
{
    if (!key) {
        return false;
    }
    *len = strnlen(key, NQ_CACHE_KEY_MAX + 1);
    if (*len > NQ_CACHE_KEY_MAX) {
        return false;
    }
    *h = hash_key(&c->seed, key, *len);
    return true;
}

nq_cache_entry *nq_cache_get(nq_cache *c, const char *key)
{
    size_t len = 0;
    uint64_t h = 0;
    if (!c || !lookup_key(c, key, &len, &h)) {
        return NULL;
    }
    nq_cache_entry *hit = NULL;
    pthread_mutex_lock(&c->lock);
    rehash_step(c);
    table *t = NULL;
    nq_cache_entry **const link = find_slot(c, key, len, h, &t);
    if (link) {
        hit = *link;
        lru_unlink(c, hit);
        lru_push_front(c, hit);
        /* Relaxed is enough: the caller's reference is ordered by the lock, and the value was
         * published before the entry was linked under this same lock. */
        atomic_fetch_add_explicit(&hit->refs, 1, memory_order_relaxed);
        c->hits++;
    } else {
        c->misses++;
    }
    pthread_mutex_unlock(&c->lock);
    return hit;
}

bool nq_cache_holds(nq_cache *c, const char *key, const nq_cache_entry *e)
{
    size_t len = 0;
    uint64_t h = 0;
    if (!c || !e || !lookup_key(c, key, &len, &h)) {
        return false;
    }
    pthread_mutex_lock(&c->lock);
    table *t = NULL;
    nq_cache_entry **const link = find_slot(c, key, len, h, &t);
    const bool held = link && *link == e;
    pthread_mutex_unlock(&c->lock);
    return held;
}

/* Copy the bytes at src into *cursor and advance it; return where they landed. */
static char *put_bytes(char **cursor, const char *src, size_t len)
{
    char *const at = *cursor;
    if (len > 0) {
        memcpy(at, src, len);
    }
    *cursor += len;
    return at;
}

/* Build a detached entry holding copies of key and v, charged `charge`, with `refs` references; its
 * body is the `owned` allocation (not copied) when that is not NULL. NULL when out of memory. */
static nq_cache_entry *entry_build(const nq_cache *c, const char *key, size_t key_len, const nq_cache_value *v,
                                   size_t type_len, size_t etag_len, size_t charge, unsigned refs, char *owned)
{
    const size_t size = owned ? entry_charge(key_len, type_len, etag_len, 0, v->gzip_len) : charge;
    nq_cache_entry *const e = malloc(size);
    if (!e) {
        return NULL;
    }
    atomic_init(&e->refs, refs);
    atomic_init(&e->pins, 0);
    e->target = NULL;
    e->budget = NULL;
    e->chain = e->newer = e->older = NULL;
    e->hash = hash_key(&c->seed, key, key_len);
    e->charge = charge;
    e->key_len = key_len;
    e->value = *v;
    e->owned = owned;
    char *cursor = e->data;
    e->key = put_bytes(&cursor, key, key_len + 1u);
    e->value.content_type = put_bytes(&cursor, v->content_type, type_len + 1u);
    e->value.etag = put_bytes(&cursor, v->etag, etag_len + 1u);
    e->value.body = owned ? owned : put_bytes(&cursor, v->body, v->body_len);
    e->value.gzip = v->gzip ? put_bytes(&cursor, v->gzip, v->gzip_len) : NULL;
    return e;
}

static bool value_ok(const nq_cache_value *v)
{
    return v->content_type && v->etag && (v->body || v->body_len == 0) && (v->gzip || v->gzip_len == 0);
}

/* Release a chain of detached entries linked through `chain`. */
static void release_chain(nq_cache_entry *e)
{
    while (e) {
        nq_cache_entry *const next = e->chain;
        e->chain = NULL;
        nq_cache_entry_release(e);
        e = next;
    }
}

/* nq_cache_put, or nq_cache_put_owned when owned is not NULL (v->body is then ignored). */
static nq_err put(nq_cache *c, const char *key, const nq_cache_value *v, char *owned, nq_cache_entry **out)
{
    if (out) {
        *out = NULL;
    }
    if (!c || !key || !v || !value_ok(v)) {
        return NQ_E_ARG;
    }
    const size_t key_len = strnlen(key, NQ_CACHE_KEY_MAX + 1);
    const size_t type_len = strnlen(v->content_type, NQ_CACHE_STR_MAX + 1);
    const size_t etag_len = strnlen(v->etag, NQ_CACHE_STR_MAX + 1);
    if (key_len == 0 || key_len > NQ_CACHE_KEY_MAX || type_len > NQ_CACHE_STR_MAX || etag_len > NQ_CACHE_STR_MAX) {
        return NQ_E_ARG;
    }
    const size_t charge = entry_charge(key_len, type_len, etag_len, v->body_len, v->gzip_len);
    if (charge > nq_cache_entry_limit(c)) {
        pthread_mutex_lock(&c->lock);
        c->refused++;
        pthread_mutex_unlock(&c->lock);
        return NQ_E_TOO_LARGE;
    }
    const unsigned refs = out ? 2u : 1u; /* the cache's, and the caller's if it wants one */
    nq_cache_entry *const e = entry_build(c, key, key_len, v, type_len, etag_len, charge, refs, owned);
    if (!e) {
        return NQ_E_NOMEM;
    }

    nq_cache_entry *dead = NULL; /* entries detached under the lock, released after it */
    pthread_mutex_lock(&c->lock);
    rehash_step(c);
    nq_cache_entry *const old = detach_key(c, e);
    if (old) {
        old->chain = dead;
        dead = old;
    }
    maybe_grow(c);
    link_new(c, e);
    /* charge <= max_bytes / NQ_CACHE_ENTRY_DIVISOR, so the loop stops before reaching e itself. */
    while (c->bytes > c->max_bytes && c->oldest && c->oldest != e) {
        nq_cache_entry *const victim = detach_linked(c, c->oldest);
        victim->chain = dead;
        dead = victim;
        c->evictions++;
    }
    c->inserts++;
    pthread_mutex_unlock(&c->lock);

    release_chain(dead);
    if (out) {
        *out = e;
    }
    return NQ_OK;
}

nq_err nq_cache_put(nq_cache *c, const char *key, const nq_cache_value *v, nq_cache_entry **out)
{
    return put(c, key, v, NULL, out);
}

nq_err nq_cache_put_owned(nq_cache *c, const char *key, const nq_cache_value *v, char *body, nq_cache_entry **out)
{
    if (!body) {
        if (out) {
            *out = NULL;
        }
        return NQ_E_ARG;
    }
    nq_err rc = NQ_E_ARG;
    if (v) {
        nq_cache_value adopted = *v;
        adopted.body = body;
        rc = put(c, key, &adopted, body, out);
    }
    if (rc != NQ_OK) {
        free(body);
    }
    return rc;
}

void nq_cache_stats_get(nq_cache *c, nq_cache_stats *out)
{
    assert(out);
    *out = (nq_cache_stats){0};
    if (!c) {
        return;
    }
    pthread_mutex_lock(&c->lock);
    *out = (nq_cache_stats){
        .hits = c->hits,
        .misses = c->misses,
        .inserts = c->inserts,
        .evictions = c->evictions,
        .refused = c->refused,
        .entries = c->t[0].used + c->t[1].used,
        .bytes = c->bytes,
        .max_bytes = c->max_bytes,
    };
    pthread_mutex_unlock(&c->lock);
}

const nq_cache_value *nq_cache_entry_value(const nq_cache_entry *e)
{
    assert(e);
    return &e->value;
}

void nq_cache_entry_retain(nq_cache_entry *e)
{
    assert(e);
    atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
}

/* Count one more pinned reference to e, taking e's charge from budget when it is the first: false,
 * with nothing changed, when budget refuses it. Lock-free: the charge is taken before the count goes
 * 0 -> 1 and given back when another pin won that race; whoever takes the count 1 -> 0 gives it back
 * (unpin). In the instant between the two a new first pin may take the charge again, so the figure can
 * briefly count an entry twice (and refuse a pin that would fit a moment later), never zero times. */
static bool pin_count(nq_cache_entry *e, nq_pin_budget *budget)
{
    uint_fast32_t pins = atomic_load(&e->pins);
    for (;;) {
        if (pins > 0) {
            if (atomic_compare_exchange_weak(&e->pins, &pins, pins + 1)) {
                return true;
            }
            continue;
        }
        if (!nq_pin_take(budget, e->charge)) {
            return false;
        }
        if (atomic_compare_exchange_strong(&e->pins, &pins, 1)) {
            return true;
        }
        nq_pin_give(budget, e->charge); /* another pin came first: it holds the charge */
    }
}

static void unpin(nq_cache_entry *e, nq_pin_budget *budget)
{
    if (atomic_fetch_sub(&e->pins, 1) == 1) {
        nq_pin_give(budget, e->charge);
    }
}

nq_err nq_cache_entry_pin(nq_cache_entry *e, nq_pin_budget *budget, nq_cache_entry **out)
{
    assert(e && out && !e->target);
    *out = NULL;
    nq_cache_entry *const p = malloc(sizeof *p);
    if (!p) {
        return NQ_E_NOMEM;
    }
    if (!pin_count(e, budget)) {
        free(p);
        return NQ_E_BUSY;
    }
    memset(p, 0, sizeof *p); /* a pinned reference charges nothing to the cache and is in no list */
    atomic_init(&p->refs, 1);
    atomic_init(&p->pins, 0);
    p->key_len = e->key_len;
    p->key = e->key;
    p->value = e->value; /* points into e, which p keeps alive */
    p->target = e;       /* takes over the caller's reference */
    p->budget = budget;
    *out = p;
    return NQ_OK;
}

void nq_cache_entry_release(nq_cache_entry *e)
{
    if (!e) {
        return;
    }
    /* acq_rel: every other holder's use of the entry happens before the last one frees it. */
    if (atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) != 1) {
        return;
    }
    if (e->target) { /* a pinned reference: unpin, then drop the reference it held */
        unpin(e->target, e->budget);
        nq_cache_entry_release(e->target);
        free(e);
        return;
    }
    free(e->owned);
    free(e);
}

void nq_cache_release_cb(void *entry)
{
    nq_cache_entry_release(entry);
}
