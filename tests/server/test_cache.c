/* test_cache.c - Check unit tests of the LRU response cache (src/server/cache/cache.c): eviction order,
 * byte bound, refusal of oversize entries, replacement, references that outlive eviction, incremental
 * rehash, large entries (copied or taken over) charged and evicted like small ones, and many threads
 * hammering get/put (labelled "concurrency" so TSan runs it too).
 */
#include "base/errors.h"
#include "cache/cache.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

/* A value over body[0..body_len) with the given ETag. */
static nq_cache_value make_value(const char *body, size_t body_len, const char *etag)
{
    return (nq_cache_value){
        .content_type = "application/json",
        .etag = etag,
        .body = body,
        .body_len = body_len,
    };
}

/* Put key with a small body equal to the key itself; fail the test on error. */
static void put_small(nq_cache *c, const char *key)
{
    const nq_cache_value v = make_value(key, strlen(key), "\"e\"");
    ck_assert_int_eq(nq_cache_put(c, key, &v, NULL), NQ_OK);
}

/* Whether key is present, without disturbing recency more than a get does. */
static bool has(nq_cache *c, const char *key)
{
    nq_cache_entry *const e = nq_cache_get(c, key);
    nq_cache_entry_release(e);
    return e != NULL;
}

/* The charge of one small entry, measured through the stats. */
static size_t small_charge(const char *key)
{
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(1u << 20, &c), NQ_OK);
    put_small(c, key);
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    nq_cache_destroy(c);
    return st.bytes;
}

START_TEST(test_create_arguments)
{
    ck_assert_int_eq(nq_cache_create(1024, NULL), NQ_E_ARG);
    nq_cache_destroy(NULL);
    nq_cache_entry_release(NULL);
    ck_assert_ptr_null(nq_cache_get(NULL, "k"));
    ck_assert_uint_eq(nq_cache_entry_limit(NULL), 0);
    nq_cache_stats st = {.hits = 7};
    nq_cache_stats_get(NULL, &st);
    ck_assert_uint_eq(st.hits, 0);
}
END_TEST

START_TEST(test_get_put_roundtrip)
{
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(1u << 20, &c), NQ_OK);
    ck_assert_ptr_null(nq_cache_get(c, "count?n=8"));

    static const char body[] = "{\"n\":8,\"total\":92,\"unique\":12}";
    static const char gz[] = "\x1f\x8b fake gzip";
    nq_cache_value v = make_value(body, sizeof body - 1u, "\"abc\"");
    v.gzip = gz;
    v.gzip_len = sizeof gz - 1u;
    v.solver_seconds = 0.25;
    v.counts = (nq_counts){.total = 92, .unique = 12};
    nq_cache_entry *put_ref = NULL;
    ck_assert_int_eq(nq_cache_put(c, "count?n=8", &v, &put_ref), NQ_OK);
    ck_assert_ptr_nonnull(put_ref);

    nq_cache_entry *const e = nq_cache_get(c, "count?n=8");
    ck_assert_ptr_eq(e, put_ref);
    const nq_cache_value *const got = nq_cache_entry_value(e);
    ck_assert_ptr_ne(got->body, body); /* a copy, not the caller's buffer */
    ck_assert_uint_eq(got->body_len, sizeof body - 1u);
    ck_assert_mem_eq(got->body, body, sizeof body - 1u);
    ck_assert_uint_eq(got->gzip_len, sizeof gz - 1u);
    ck_assert_mem_eq(got->gzip, gz, sizeof gz - 1u);
    ck_assert_str_eq(got->etag, "\"abc\"");
    ck_assert_str_eq(got->content_type, "application/json");
    ck_assert_double_eq(got->solver_seconds, 0.25);
    ck_assert_uint_eq(got->counts.total, 92);
    ck_assert_uint_eq(got->counts.unique, 12);
    nq_cache_entry_release(e);
    nq_cache_entry_release(put_ref);

    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.hits, 1);
    ck_assert_uint_eq(st.misses, 1);
    ck_assert_uint_eq(st.inserts, 1);
    ck_assert_uint_eq(st.entries, 1);
    ck_assert_uint_eq(st.max_bytes, 1u << 20);
    /* The charge covers at least the bytes themselves. */
    ck_assert_uint_ge(st.bytes, sizeof body - 1u + sizeof gz - 1u + sizeof "count?n=8");
    nq_cache_destroy(c);
}
END_TEST

/* Strings one byte longer than the cache accepts; filled in by the fixture. */
static char long_key[NQ_CACHE_KEY_MAX + 2u];
static char long_str[NQ_CACHE_STR_MAX + 2u];

static void fill_long_strings(void)
{
    memset(long_key, 'k', sizeof long_key - 1u);
    memset(long_str, 's', sizeof long_str - 1u);
}

/* Each row: an invalid put; every one must give NQ_E_ARG and leave the cache empty. */
static const struct {
    const char *key;
    nq_cache_value value;
} bad_puts[] = {
    {NULL, {.content_type = "t", .etag = "\"e\""}},
    {"", {.content_type = "t", .etag = "\"e\""}},
    {long_key, {.content_type = "t", .etag = "\"e\""}},
    {"k", {.content_type = NULL, .etag = "\"e\""}},
    {"k", {.content_type = "t", .etag = NULL}},
    {"k", {.content_type = long_str, .etag = "\"e\""}},
    {"k", {.content_type = "t", .etag = long_str}},
    {"k", {.content_type = "t", .etag = "\"e\"", .body = NULL, .body_len = 3}},
    {"k", {.content_type = "t", .etag = "\"e\"", .gzip = NULL, .gzip_len = 3}},
};

START_TEST(test_put_rejects_bad_arguments)
{
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(1u << 20, &c), NQ_OK);
    nq_cache_entry *ref = (nq_cache_entry *)&ref; /* any non-NULL: put must clear it */
    ck_assert_int_eq(nq_cache_put(c, bad_puts[_i].key, &bad_puts[_i].value, &ref), NQ_E_ARG);
    ck_assert_ptr_null(ref);
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.entries, 0);
    ck_assert_uint_eq(st.bytes, 0);
    ck_assert_ptr_null(nq_cache_get(c, bad_puts[_i].key));
    nq_cache_destroy(c);
}
END_TEST

START_TEST(test_eviction_order_is_lru)
{
    /* Keys and bodies of equal length cost the same, so the bound holds exactly DIVISOR of them. */
    const size_t charge = small_charge("k0");
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(NQ_CACHE_ENTRY_DIVISOR * charge, &c), NQ_OK);
    char key[8];
    for (unsigned i = 0; i < NQ_CACHE_ENTRY_DIVISOR; i++) {
        snprintf(key, sizeof key, "k%u", i);
        put_small(c, key);
    }
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.entries, NQ_CACHE_ENTRY_DIVISOR);
    ck_assert_uint_eq(st.bytes, st.max_bytes);
    ck_assert_uint_eq(st.evictions, 0);

    ck_assert(has(c, "k0")); /* touch k0: k1 is now the least recently used */
    put_small(c, "n1");
    ck_assert(!has(c, "k1"));
    put_small(c, "n2");
    ck_assert(!has(c, "k2"));
    put_small(c, "n3");
    ck_assert(!has(c, "k3"));
    put_small(c, "n4");
    ck_assert(!has(c, "k4"));
    ck_assert(has(c, "k0")); /* survived four evictions thanks to the touch */
    static const char *const survivors[] = {"k5", "k6", "k7", "n1", "n2", "n3", "n4"};
    for (size_t i = 0; i < sizeof survivors / sizeof survivors[0]; i++) {
        ck_assert_msg(has(c, survivors[i]), "%s was evicted", survivors[i]);
    }
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.evictions, 4);
    ck_assert_uint_eq(st.entries, NQ_CACHE_ENTRY_DIVISOR);
    ck_assert_uint_eq(st.bytes, st.max_bytes);
    nq_cache_destroy(c);
}
END_TEST

START_TEST(test_byte_bound_holds)
{
    enum { MAX = 64 * 1024 };
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(MAX, &c), NQ_OK);
    static char body[MAX / NQ_CACHE_ENTRY_DIVISOR];
    memset(body, 'x', sizeof body);
    char key[32];
    for (unsigned i = 0; i < 500; i++) {
        /* Bodies of varied sizes, all admissible. */
        const size_t len = ((size_t)i * 7919u) % (sizeof body - 1024u);
        snprintf(key, sizeof key, "solve?n=%u", i);
        const nq_cache_value v = make_value(body, len, "\"e\"");
        ck_assert_int_eq(nq_cache_put(c, key, &v, NULL), NQ_OK);
        nq_cache_stats st;
        nq_cache_stats_get(c, &st);
        ck_assert_uint_le(st.bytes, MAX);
        ck_assert_uint_gt(st.entries, 0);
    }
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.inserts, 500);
    ck_assert_uint_eq(st.inserts - st.evictions, st.entries);
    nq_cache_destroy(c);
}
END_TEST

START_TEST(test_oversize_refused)
{
    enum { MAX = 80 * 1024 };
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(MAX, &c), NQ_OK);
    ck_assert_uint_eq(nq_cache_entry_limit(c), MAX / NQ_CACHE_ENTRY_DIVISOR);
    static char body[MAX];
    put_small(c, "keep");

    /* A body alone larger than the limit is refused, even though it fits in max_bytes. */
    nq_cache_value v = make_value(body, MAX / NQ_CACHE_ENTRY_DIVISOR + 1u, "\"big\"");
    nq_cache_entry *ref = NULL;
    ck_assert_int_eq(nq_cache_put(c, "big", &v, &ref), NQ_E_TOO_LARGE);
    ck_assert_ptr_null(ref);
    ck_assert(!nq_cache_fits(c, MAX / NQ_CACHE_ENTRY_DIVISOR + 1u, 0));
    /* Body plus gzip count together. */
    v = make_value(body, MAX / NQ_CACHE_ENTRY_DIVISOR / 2u, "\"big\"");
    v.gzip = body;
    v.gzip_len = MAX / NQ_CACHE_ENTRY_DIVISOR / 2u;
    ck_assert_int_eq(nq_cache_put(c, "big", &v, NULL), NQ_E_TOO_LARGE);

    /* What nq_cache_fits admits, put accepts. */
    const size_t fits = MAX / NQ_CACHE_ENTRY_DIVISOR - 2048u;
    ck_assert(nq_cache_fits(c, fits, 0));
    v = make_value(body, fits, "\"ok\"");
    ck_assert_int_eq(nq_cache_put(c, "fits", &v, NULL), NQ_OK);

    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.refused, 2);
    ck_assert_uint_eq(st.entries, 2);
    ck_assert(has(c, "keep")); /* refusals evict nothing */
    ck_assert(!has(c, "big"));
    nq_cache_destroy(c);
}
END_TEST

START_TEST(test_disabled_cache)
{
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(0, &c), NQ_OK);
    const nq_cache_value v = make_value("x", 1, "\"e\"");
    ck_assert_int_eq(nq_cache_put(c, "k", &v, NULL), NQ_E_TOO_LARGE);
    ck_assert(!has(c, "k"));
    ck_assert(!nq_cache_fits(c, 0, 0));
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.misses, 1);
    ck_assert_uint_eq(st.refused, 1);
    nq_cache_destroy(c);
}
END_TEST

START_TEST(test_replace_keeps_old_reader)
{
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(1u << 20, &c), NQ_OK);
    nq_cache_value v = make_value("first", 5, "\"1\"");
    ck_assert_int_eq(nq_cache_put(c, "k", &v, NULL), NQ_OK);
    nq_cache_entry *const old = nq_cache_get(c, "k");
    v = make_value("second!", 7, "\"2\"");
    ck_assert_int_eq(nq_cache_put(c, "k", &v, NULL), NQ_OK);

    nq_cache_entry *const cur = nq_cache_get(c, "k");
    ck_assert_ptr_ne(cur, old);
    ck_assert_str_eq(nq_cache_entry_value(cur)->etag, "\"2\"");
    ck_assert_mem_eq(nq_cache_entry_value(old)->body, "first", 5); /* still readable */
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.entries, 1);
    ck_assert_uint_eq(st.evictions, 0);
    ck_assert_uint_eq(st.inserts, 2);
    nq_cache_entry_release(cur);
    nq_cache_entry_release(old);
    nq_cache_destroy(c);
}
END_TEST

START_TEST(test_reference_outlives_eviction_and_destroy)
{
    const size_t charge = small_charge("a00");
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(NQ_CACHE_ENTRY_DIVISOR * charge, &c), NQ_OK);
    put_small(c, "a00");
    nq_cache_entry *const held = nq_cache_get(c, "a00");
    nq_cache_entry_retain(held); /* two references now, as two responses would hold */
    char key[16];
    for (unsigned i = 0; i < 4u * NQ_CACHE_ENTRY_DIVISOR; i++) {
        snprintf(key, sizeof key, "b%02u", i);
        put_small(c, key);
    }
    ck_assert(!has(c, "a00")); /* evicted from the cache ... */
    const nq_cache_value *const v = nq_cache_entry_value(held);
    ck_assert_uint_eq(v->body_len, 3);
    ck_assert_mem_eq(v->body, "a00", 3); /* ... yet the bytes are intact (ASan would catch a free) */
    nq_cache_release_cb(held);
    nq_cache_destroy(c);
    ck_assert_str_eq(nq_cache_entry_value(held)->etag, "\"e\""); /* the cache is gone, too */
    nq_cache_entry_release(held);
}
END_TEST

/* Pinned references (nq_cache_entry_pin): an entry's charge is taken once, however many pins share
 * it, and given back by the last one, also after eviction; a refusal takes nothing and leaves the
 * caller's reference usable. */
START_TEST(test_pins_charge_an_entry_once)
{
    const size_t charge = small_charge("a00");
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(NQ_CACHE_ENTRY_DIVISOR * charge, &c), NQ_OK);
    nq_pin_budget budget;
    nq_pin_budget_init(&budget, charge + charge / 2); /* one entry, not two */
    put_small(c, "a00");
    put_small(c, "b00");
    nq_cache_entry *p[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 2; i++) { /* two responses of a00 */
        ck_assert_int_eq(nq_cache_entry_pin(nq_cache_get(c, "a00"), &budget, &p[i]), NQ_OK);
        ck_assert_mem_eq(nq_cache_entry_value(p[i])->body, "a00", 3); /* the same bytes */
    }
    size_t used = 0;
    uint64_t refused = 0;
    nq_pin_stats(&budget, &used, &refused);
    ck_assert_uint_eq(used, charge);
    nq_cache_entry *const b = nq_cache_get(c, "b00"); /* does not fit beside a00 */
    ck_assert_int_eq(nq_cache_entry_pin(b, &budget, &p[2]), NQ_E_BUSY);
    ck_assert_ptr_null(p[2]);
    ck_assert_mem_eq(nq_cache_entry_value(b)->body, "b00", 3); /* still the caller's */
    nq_cache_entry_release(b);
    nq_pin_stats(&budget, &used, &refused);
    ck_assert_uint_eq(used, charge);
    ck_assert_uint_eq(refused, 1);
    char key[16];
    for (unsigned i = 0; i < 4u * NQ_CACHE_ENTRY_DIVISOR; i++) { /* a00 leaves the cache */
        snprintf(key, sizeof key, "c%02u", i);
        put_small(c, key);
    }
    ck_assert(!has(c, "a00"));
    nq_cache_entry_release(p[0]);
    nq_pin_stats(&budget, &used, &refused);
    ck_assert_uint_eq(used, charge); /* p[1] still holds the evicted bytes */
    nq_cache_entry_release(p[1]);
    nq_pin_stats(&budget, &used, &refused);
    ck_assert_uint_eq(used, 0);
    nq_cache_destroy(c);
}
END_TEST

START_TEST(test_many_keys_through_rehash)
{
    enum { KEYS = 5000 };
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(64u << 20, &c), NQ_OK);
    char key[32];
    for (unsigned i = 0; i < KEYS; i++) {
        snprintf(key, sizeof key, "count?n=%u", i);
        put_small(c, key);
        /* Every key put so far stays reachable while the table grows underneath. */
        if (i % 97u == 0) {
            for (unsigned j = 0; j <= i; j += 13u) {
                snprintf(key, sizeof key, "count?n=%u", j);
                ck_assert_msg(has(c, key), "lost %s after %u puts", key, i + 1u);
            }
        }
    }
    for (unsigned i = 0; i < KEYS; i++) {
        snprintf(key, sizeof key, "count?n=%u", i);
        nq_cache_entry *const e = nq_cache_get(c, key);
        ck_assert_ptr_nonnull(e);
        ck_assert_uint_eq(nq_cache_entry_value(e)->body_len, strlen(key));
        ck_assert_mem_eq(nq_cache_entry_value(e)->body, key, strlen(key));
        nq_cache_entry_release(e);
    }
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.entries, KEYS);
    ck_assert_uint_eq(st.evictions, 0);
    nq_cache_destroy(c);
}
END_TEST

/* ---- concurrency ------------------------------------------------------------------------------ */

enum { THREADS = 8, ROUNDS = 20000, HOT_KEYS = 24 };

typedef struct hammer_arg {
    nq_cache *cache;   /* shared */
    unsigned seed;     /* per-thread pseudo-random state */
    unsigned failures; /* entries whose bytes did not match their key */
} hammer_arg;

/* Body of key i: its key repeated to a size that varies with i, so entries differ in size. */
static size_t fill_body(unsigned i, char *buf, size_t cap)
{
    const int klen = snprintf(buf, cap, "key-%u|", i);
    const size_t len = (size_t)klen * (1u + i % 40u);
    for (size_t at = (size_t)klen; at < len; at++) {
        buf[at] = buf[at % (size_t)klen];
    }
    return len;
}

static void *hammer(void *p)
{
    hammer_arg *const a = p;
    char key[32];
    char body[64 * 40];
    char expect[64 * 40];
    for (unsigned r = 0; r < ROUNDS; r++) {
        a->seed = a->seed * 1103515245u + 12345u;
        const unsigned i = (a->seed >> 8) % HOT_KEYS;
        snprintf(key, sizeof key, "key-%u", i);
        nq_cache_entry *e = nq_cache_get(a->cache, key);
        if (!e) {
            const size_t len = fill_body(i, body, sizeof body);
            const nq_cache_value v = make_value(body, len, "\"e\"");
            if (nq_cache_put(a->cache, key, &v, &e) != NQ_OK) {
                a->failures++;
                continue;
            }
        }
        /* Use the bytes after other threads may have evicted or replaced the entry. */
        const size_t want = fill_body(i, expect, sizeof expect);
        const nq_cache_value *const v = nq_cache_entry_value(e);
        if (v->body_len != want || memcmp(v->body, expect, want) != 0) {
            a->failures++;
        }
        nq_cache_entry_release(e);
    }
    return NULL;
}

START_TEST(test_concurrent_get_put)
{
    nq_cache *c = NULL;
    /* Small enough that the hot set does not fit: constant eviction under contention. */
    ck_assert_int_eq(nq_cache_create(4096, &c), NQ_OK);
    pthread_t tid[THREADS];
    hammer_arg args[THREADS];
    for (unsigned t = 0; t < THREADS; t++) {
        args[t] = (hammer_arg){.cache = c, .seed = t * 7919u + 1u};
        ck_assert_int_eq(pthread_create(&tid[t], NULL, hammer, &args[t]), 0);
    }
    for (unsigned t = 0; t < THREADS; t++) {
        ck_assert_int_eq(pthread_join(tid[t], NULL), 0);
        ck_assert_uint_eq(args[t].failures, 0);
    }
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.hits + st.misses, (uint64_t)THREADS * ROUNDS);
    ck_assert_uint_gt(st.evictions, 0);
    ck_assert_uint_gt(st.hits, 0);
    ck_assert_uint_le(st.bytes, st.max_bytes);
    nq_cache_destroy(c);
}
END_TEST

#define MIB ((size_t)1024 * 1024)

/* What an entry under key with ETag etag, the make_value content type and no body costs: its
 * bookkeeping and strings, to which a body and gzip form add their lengths exactly. */
static size_t empty_charge(const char *key, const char *etag)
{
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(1u << 20, &c), NQ_OK);
    const nq_cache_value v = make_value(NULL, 0, etag);
    ck_assert_int_eq(nq_cache_put(c, key, &v, NULL), NQ_OK);
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    nq_cache_destroy(c);
    return st.bytes;
}

/* Rows: body and gzip sizes of large entries, up to a little more than a cached n = 12 answer. */
static const struct large_row {
    size_t body_len, gzip_len;
} large_rows[] = {
    {MIB - 1u, 0},             /* identity form alone */
    {MIB, 0},                  /* 1 MiB exactly */
    {MIB - 1u, MIB - 1u},      /* both forms large */
    {100u, MIB},               /* a gzip form larger than its body */
    {3u * MIB + 5u, MIB / 3u}, /* like n = 12: 2.6 MB and 150 kB */
};

/* Fill buf with a pattern that differs at every offset modulo 251, so misplaced bytes show. */
static void pattern(char *buf, size_t len, unsigned seed)
{
    for (size_t i = 0; i < len; i++) buf[i] = (char)((i + seed) % 251u);
}

/* Entries as large as a cached n = 12 answer live on the heap like small ones: a copy of the bytes
 * put, charged exactly their length on top of the bookkeeping, evicted in LRU order once eight of
 * them fill the cache (an entry may take an eighth), and readable through a reference held across
 * their eviction (ASan and valgrind see a leak if the evicted entry is never freed). */
START_TEST(test_large_entries_on_the_heap)
{
    const struct large_row *row = &large_rows[_i];
    char *body = malloc(row->body_len), *gz = malloc(row->gzip_len + 1u);
    ck_assert(body && gz);
    pattern(body, row->body_len, 1);
    pattern(gz, row->gzip_len, 7);
    nq_cache_value v = make_value(body, row->body_len, "\"f\"");
    v.gzip = row->gzip_len ? gz : NULL;
    v.gzip_len = row->gzip_len;
    const size_t charge = empty_charge("big0", "\"f\"") + row->body_len + row->gzip_len;
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create(8u * charge, &c), NQ_OK);
    ck_assert_uint_eq(nq_cache_entry_limit(c), charge); /* each entry just admitted */

    nq_cache_entry *first = NULL;
    ck_assert_int_eq(nq_cache_put(c, "big0", &v, &first), NQ_OK);
    const nq_cache_value *got = nq_cache_entry_value(first);
    ck_assert_ptr_ne(got->body, body); /* a copy, not the caller's buffer */
    ck_assert_uint_eq(got->body_len, row->body_len);
    ck_assert(memcmp(got->body, body, row->body_len) == 0);
    ck_assert_uint_eq(got->gzip_len, row->gzip_len);
    ck_assert(row->gzip_len ? memcmp(got->gzip, gz, row->gzip_len) == 0 : got->gzip == NULL);
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.bytes, charge);

    char key[8];
    for (unsigned k = 1; k < 8; k++) { /* eight in all: the cache is exactly full */
        snprintf(key, sizeof key, "big%u", k);
        ck_assert_int_eq(nq_cache_put(c, key, &v, NULL), NQ_OK);
    }
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.bytes, 8u * charge);
    ck_assert_uint_eq(st.evictions, 0);
    ck_assert_int_eq(nq_cache_put(c, "big8", &v, NULL), NQ_OK); /* one more: the oldest goes */
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.evictions, 1);
    ck_assert_uint_eq(st.entries, 8);
    ck_assert_uint_eq(st.bytes, 8u * charge);
    ck_assert(!has(c, "big0"));
    ck_assert(has(c, "big1") && has(c, "big8"));
    ck_assert(memcmp(got->body, body, row->body_len) == 0); /* the held reference still reads them */
    if (row->gzip_len) ck_assert(memcmp(got->gzip, gz, row->gzip_len) == 0);
    nq_cache_entry_release(first);
    nq_cache_destroy(c);
    free(body);
    free(gz);
}
END_TEST

/* A taken-over body is served from where it is, never copied whatever its size; it is charged exactly
 * like a copy, freed with the entry (ASan and valgrind see a leak otherwise), and freed at once when
 * refused. Replacing it by a copied entry with both forms is what settling a large answer does. */
START_TEST(test_owned_body_is_taken_over)
{
    nq_cache *c = NULL;
    ck_assert_int_eq(nq_cache_create((size_t)256 << 20, &c), NQ_OK);
    const size_t len = 3u * MIB;
    char *body = malloc(len);
    ck_assert_ptr_nonnull(body);
    pattern(body, len, 3);
    nq_cache_value v = make_value(NULL, len, "\"o\"");
    nq_cache_entry *e = NULL;
    ck_assert_int_eq(nq_cache_put_owned(c, "big", &v, body, &e), NQ_OK);
    const nq_cache_value *got = nq_cache_entry_value(e);
    ck_assert_ptr_eq(got->body, body); /* the very bytes: no copy */
    ck_assert_ptr_null(got->gzip);
    ck_assert_str_eq(got->etag, "\"o\"");
    const size_t base = empty_charge("big", "\"o\"");
    nq_cache_stats st;
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.bytes, base + len);
    ck_assert(nq_cache_holds(c, "big", e));
    ck_assert(!nq_cache_holds(c, "other", e));
    ck_assert(!nq_cache_holds(c, NULL, e) && !nq_cache_holds(NULL, "big", e) && !nq_cache_holds(c, "big", NULL));
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.hits + st.misses, 0); /* looking is not a lookup */
    /* Settled: the same key again, copied, with its gzip form; the first reader keeps its bytes. */
    char gz[64];
    pattern(gz, sizeof gz, 9);
    nq_cache_value both = *got;
    both.gzip = gz;
    both.gzip_len = sizeof gz;
    ck_assert_int_eq(nq_cache_put(c, "big", &both, NULL), NQ_OK);
    nq_cache_entry *now = nq_cache_get(c, "big");
    ck_assert_ptr_nonnull(now);
    ck_assert_ptr_ne(now, e);
    ck_assert(!nq_cache_holds(c, "big", e)); /* replaced */
    ck_assert(nq_cache_holds(c, "big", now));
    ck_assert(memcmp(nq_cache_entry_value(now)->body, got->body, len) == 0);
    ck_assert(memcmp(nq_cache_entry_value(now)->gzip, gz, sizeof gz) == 0);
    ck_assert_ptr_ne(nq_cache_entry_value(now)->body, got->body); /* a copy, beside the first */
    nq_cache_stats_get(c, &st);
    ck_assert_uint_eq(st.entries, 1);
    ck_assert_uint_eq(st.bytes, base + len + sizeof gz); /* the first is uncharged once replaced */
    nq_cache_entry_release(now);
    nq_cache_entry_release(e);
    /* Refused (too large for a 1 MiB cache, no body): freed at once, nothing published. */
    nq_cache *tiny = NULL;
    ck_assert_int_eq(nq_cache_create((size_t)1 << 20, &tiny), NQ_OK);
    char *big = malloc(len);
    ck_assert_ptr_nonnull(big);
    ck_assert_int_eq(nq_cache_put_owned(tiny, "big", &v, big, &e), NQ_E_TOO_LARGE);
    ck_assert_ptr_null(e);
    ck_assert_int_eq(nq_cache_put_owned(tiny, "big", &v, NULL, &e), NQ_E_ARG);
    ck_assert_int_eq(nq_cache_put_owned(tiny, "big", NULL, malloc(1), &e), NQ_E_ARG);
    ck_assert(!has(tiny, "big"));
    nq_cache_destroy(tiny);
    nq_cache_destroy(c);
}
END_TEST

static Suite *cache_suite(void)
{
    Suite *const s = suite_create("cache");
    TCase *const unit = tcase_create("unit");
    tcase_add_unchecked_fixture(unit, fill_long_strings, NULL);
    tcase_add_test(unit, test_create_arguments);
    tcase_add_test(unit, test_get_put_roundtrip);
    tcase_add_loop_test(unit, test_put_rejects_bad_arguments, 0, (int)(sizeof bad_puts / sizeof bad_puts[0]));
    tcase_add_test(unit, test_eviction_order_is_lru);
    tcase_add_test(unit, test_byte_bound_holds);
    tcase_add_test(unit, test_oversize_refused);
    tcase_add_test(unit, test_disabled_cache);
    tcase_add_test(unit, test_replace_keeps_old_reader);
    tcase_add_test(unit, test_reference_outlives_eviction_and_destroy);
    tcase_add_test(unit, test_many_keys_through_rehash);
    tcase_add_test(unit, test_pins_charge_an_entry_once);
    tcase_add_loop_test(unit, test_large_entries_on_the_heap, 0, (int)(sizeof large_rows / sizeof large_rows[0]));
    tcase_add_test(unit, test_owned_body_is_taken_over);
    suite_add_tcase(s, unit);
    TCase *const conc = tcase_create("concurrency");
    tcase_set_timeout(conc, 60);
    tcase_add_test(conc, test_concurrent_get_put);
    suite_add_tcase(s, conc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(cache_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
