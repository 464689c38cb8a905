/* count_mitm_table.c - the bottom-band table of the meet-in-the-middle counter, and its join kernels.
 *
 * Built once per count in two walks of every placement of the last k rows: the first sizes the
 * buckets, the second files each key. The walk is a plain bitmask search (it visits a few million
 * placements where the main search visits billions); the join kernels are the hot path.
 */
#include "count_mitm_table.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "count_workers.h"
#include "cpu.h"

/* ---- join kernels ------------------------------------------------------------------------------ */

uint64_t nq_mitm_join_scalar(const uint64_t *keys, size_t len, const uint64_t *probes, size_t m)
{
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p++)
        for (size_t i = 0; i < len; i++) hits += (keys[i] & probes[p]) == 0;
    return hits;
}

#if NQ_X86
/* AVX-512: each 8-key line is loaded once and tested against four probes (register blocking keeps
 * the kernel bound by the test unit, not by loads); testn sets a mask bit per lane whose AND is 0,
 * and a masked add counts it. A missing fourth probe is all ones, which no key or pad matches. */
__attribute__((target("avx512f"))) static uint64_t join_avx512(const uint64_t *keys, size_t len, const uint64_t *probes,
                                                               size_t m)
{
    const __m512i one = _mm512_set1_epi64(1);
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p += 4) {
        const __m512i p0 = _mm512_set1_epi64((long long)probes[p]);
        const __m512i p1 = _mm512_set1_epi64((long long)(p + 1 < m ? probes[p + 1] : UINT64_MAX));
        const __m512i p2 = _mm512_set1_epi64((long long)(p + 2 < m ? probes[p + 2] : UINT64_MAX));
        const __m512i p3 = _mm512_set1_epi64((long long)(p + 3 < m ? probes[p + 3] : UINT64_MAX));
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
        for (size_t i = 0; i < len; i += 8) {
            const __m512i v = _mm512_load_si512((const void *)(keys + i));
            a0 = _mm512_mask_add_epi64(a0, _mm512_testn_epi64_mask(v, p0), a0, one);
            a1 = _mm512_mask_add_epi64(a1, _mm512_testn_epi64_mask(v, p1), a1, one);
            a2 = _mm512_mask_add_epi64(a2, _mm512_testn_epi64_mask(v, p2), a2, one);
            a3 = _mm512_mask_add_epi64(a3, _mm512_testn_epi64_mask(v, p3), a3, one);
        }
        const __m512i sum = _mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3));
        hits += (uint64_t)_mm512_reduce_add_epi64(sum);
    }
    return hits;
}

/* AVX2: the same with 4-key vectors; a matching lane compares to -1, which is subtracted. */
__attribute__((target("avx2"))) static uint64_t join_avx2(const uint64_t *keys, size_t len, const uint64_t *probes,
                                                          size_t m)
{
    const __m256i zero = _mm256_setzero_si256();
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p += 2) {
        const __m256i p0 = _mm256_set1_epi64x((long long)probes[p]);
        const __m256i p1 = _mm256_set1_epi64x((long long)(p + 1 < m ? probes[p + 1] : UINT64_MAX));
        __m256i a0 = zero, a1 = zero;
        for (size_t i = 0; i < len; i += 4) {
            const __m256i v = _mm256_load_si256((const __m256i *)(const void *)(keys + i));
            a0 = _mm256_sub_epi64(a0, _mm256_cmpeq_epi64(_mm256_and_si256(v, p0), zero));
            a1 = _mm256_sub_epi64(a1, _mm256_cmpeq_epi64(_mm256_and_si256(v, p1), zero));
        }
        uint64_t lanes[4];
        _mm256_storeu_si256((__m256i *)(void *)lanes, _mm256_add_epi64(a0, a1));
        hits += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    }
    return hits;
}
#endif

nq_mitm_join_fn nq_mitm_join_pick(void)
{
    switch (nq_simd_level()) {
#if NQ_X86
    case NQ_SIMD_AVX512: return join_avx512;
    case NQ_SIMD_AVX2: return join_avx2;
#endif
    default: return nq_mitm_join_scalar;
    }
}

/* ---- column-set ranks -------------------------------------------------------------------------- */

/* Colex rank share of the set bits of `bits`, positions offset by `base`, the lowest having index
 * `first` among all columns of the set: the sum of C(position, index + 1). */
static uint32_t colex_part(uint32_t bits, int base, int first)
{
    uint64_t r = 0;
    for (int idx = first; bits != 0; idx++) {
        r += nq_binomial(__builtin_ctz(bits) + base, idx + 1);
        bits &= bits - 1u;
    }
    return (uint32_t)r;
}

static bool rank_tables_build(nq_mitm_table *t)
{
    const size_t lo_count = (size_t)1 << NQ_MITM_LO_BITS;
    const int hi_bits = t->n > NQ_MITM_LO_BITS ? t->n - NQ_MITM_LO_BITS : 0;
    t->hi_count = (size_t)1 << hi_bits;
    t->lo_rank = malloc(lo_count * sizeof *t->lo_rank);
    t->lo_pop = malloc(lo_count);
    t->hi_rank = malloc((size_t)(NQ_MITM_LO_BITS + 1) * t->hi_count * sizeof *t->hi_rank);
    if (t->lo_rank == NULL || t->lo_pop == NULL || t->hi_rank == NULL) return false;
    for (size_t lo = 0; lo < lo_count; lo++) {
        t->lo_rank[lo] = colex_part((uint32_t)lo, 0, 0);
        t->lo_pop[lo] = (uint8_t)__builtin_popcount((unsigned)lo);
    }
    for (int pop = 0; pop <= NQ_MITM_LO_BITS; pop++)
        for (size_t hi = 0; hi < t->hi_count; hi++)
            t->hi_rank[(size_t)pop * t->hi_count + hi] = colex_part((uint32_t)hi, NQ_MITM_LO_BITS, pop);
    return true;
}

/* ---- the walk of the bottom band ----------------------------------------------------------------- */

/* Pass 1 (keys == NULL) counts placements per bucket into fill[]; pass 2 stores each key at
 * keys[fill[bucket]++]. */
typedef struct walk {
    const nq_mitm_table *t;  /* ranks, n, k */
    uint32_t full;           /* n low bits */
    uint32_t *fill;          /* per-bucket count (pass 1) or next free slot (pass 2) */
    uint64_t *keys;          /* NULL in pass 1 */
    const nq_count_ctl *ctl; /* polled once per second-row placement; may be NULL */
    uint32_t first;          /* column of the queen on row h in the placement being walked */
    bool stopped;            /* cancel seen */
} walk;

/* Place bottom row i (board row h + i). A queen at (h + i, c) lies on the "\" diagonal crossing row
 * h at column c - i and on the "/" diagonal crossing it at c + i; a top queen attacks it exactly when
 * the top's masks on row h hold that bit. Diagonals crossing row h off the board meet no top queen,
 * so they are dropped (bit >> i, and the mask on bit << i). */
static void walk_row(walk *w, int i, uint32_t cols, uint32_t ld, uint32_t rd, uint32_t lkey, uint32_t rkey)
{
    if (i == w->t->k) {
        /* bucket: the top's free columns are ours; slice: our column on row h */
        const uint32_t b = nq_mitm_table_bucket(w->t, cols) * (uint32_t)w->t->n + w->first;
        if (w->keys == NULL)
            w->fill[b]++;
        else
            w->keys[w->fill[b]++] = ((uint64_t)lkey << 32) | rkey;
        return;
    }
    if (i == 2 && w->ctl != NULL && atomic_load_explicit(&w->ctl->cancel, memory_order_relaxed)) w->stopped = true;
    uint32_t avail = w->full & ~(cols | ld | rd);
    while (avail != 0 && !w->stopped) {
        const uint32_t bit = avail & (0u - avail);
        avail ^= bit;
        walk_row(w, i + 1, cols | bit, ((ld | bit) << 1) & w->full, (rd | bit) >> 1, lkey | (bit >> i),
                 rkey | ((bit << i) & w->full));
    }
}

/* ---- the table ------------------------------------------------------------------------------------- */

void nq_mitm_table_destroy(nq_mitm_table *t)
{
    if (t == NULL) return;
    free(t->keys);
    free(t->start);
    free(t->lo_rank);
    free(t->lo_pop);
    free(t->hi_rank);
    free(t);
}

size_t nq_mitm_table_bytes(const nq_mitm_table *t)
{
    if (t == NULL) return 0;
    const size_t slices = (size_t)t->nsets * (size_t)t->n;
    return (size_t)t->start[slices] * sizeof *t->keys + (slices + 1u) * sizeof *t->start +
           ((size_t)1 << NQ_MITM_LO_BITS) * (sizeof *t->lo_rank + 1u) +
           (size_t)(NQ_MITM_LO_BITS + 1) * t->hi_count * sizeof *t->hi_rank;
}

/* Turn per-slice counts in start[1 .. slices] into padded offsets; false past the cap. */
static bool layout_buckets(nq_mitm_table *t)
{
    const size_t slices = (size_t)t->nsets * (size_t)t->n;
    uint64_t end = 0;
    for (size_t b = 0; b < slices; b++) {
        const uint64_t size = t->start[b + 1];
        t->placed += size;
        t->start[b] = (uint32_t)end;
        end += (size + NQ_MITM_BUCKET_ALIGN - 1u) / NQ_MITM_BUCKET_ALIGN * NQ_MITM_BUCKET_ALIGN;
        if (end > UINT32_MAX || end * sizeof *t->keys > NQ_MITM_TABLE_CAP) return false;
    }
    t->start[slices] = (uint32_t)end;
    return true;
}

/* A walk shared by threads: each takes the next row-h column and walks the placements that start
 * there. Those placements fill only that column's slices, so threads never write the same counter
 * or key slot (the slices of one column are theirs alone). */
typedef struct shared_walk {
    walk proto;          /* the walk each thread copies */
    atomic_uint next;    /* next row-h column to take */
    atomic_bool stopped; /* a thread saw the cancel flag */
} shared_walk;

static void *walk_worker(void *arg)
{
    shared_walk *sw = arg;
    walk w = sw->proto;
    const unsigned n = (unsigned)w.t->n;
    for (unsigned c = atomic_fetch_add(&sw->next, 1u); c < n && !w.stopped; c = atomic_fetch_add(&sw->next, 1u)) {
        const uint32_t bit = 1u << c;
        w.first = c;
        walk_row(&w, 1, bit, (bit << 1) & w.full, bit >> 1, bit, bit);
    }
    if (w.stopped) atomic_store(&sw->stopped, true);
    return NULL;
}

/* One walk over all placements on up to `threads` threads, the caller included (the threads take
 * first columns from sw.next, so one that cannot start leaves its share to the others). Returns
 * false when cancelled. */
static bool walk_all(const walk *proto, int threads)
{
    shared_walk sw = {.proto = *proto};
    atomic_init(&sw.next, 0u);
    atomic_init(&sw.stopped, false);
    nq_count_helpers_run(walk_worker, &sw, threads);
    return !atomic_load(&sw.stopped);
}

/* Second walk: file every key (the walk's threads also take the page faults of the fresh keys
 * array, in parallel and with the cancel flag polled), then pad each slice. */
static nq_err fill_keys(nq_mitm_table *t, walk *w, int threads)
{
    const size_t slices = (size_t)t->nsets * (size_t)t->n;
    const size_t count = (size_t)t->start[slices];
    t->keys = aligned_alloc(64, (count * sizeof *t->keys + 63u) / 64u * 64u + 64u);
    uint32_t *fill = malloc(slices * sizeof *fill);
    nq_err err = NQ_E_NOMEM;
    if (t->keys == NULL || fill == NULL) goto end;
    memcpy(fill, t->start, slices * sizeof *fill);
    w->fill = fill;
    w->keys = t->keys;
    if (!walk_all(w, threads)) {
        err = NQ_E_CANCELED;
        goto end;
    }
    /* each slice is now full up to fill[b]; pad the rest (fewer than NQ_MITM_BUCKET_ALIGN keys) */
    for (size_t b = 0; b < slices; b++)
        for (uint32_t i = fill[b]; i < t->start[b + 1]; i++) t->keys[i] = NQ_MITM_PAD_KEY;
    err = NQ_OK;
end:
    free(fill);
    return err;
}

nq_err nq_mitm_table_create(int n, int k, int threads, const nq_count_ctl *ctl, nq_mitm_table **out)
{
    if (out == NULL || k < 1 || k >= n || n > NQ_COUNT_N_MAX || threads < 1) return NQ_E_ARG;
    *out = NULL;
    nq_mitm_table *t = calloc(1, sizeof *t);
    if (t == NULL) return NQ_E_NOMEM;
    t->n = n;
    t->k = k;
    t->nsets = (uint32_t)nq_binomial(n, k);
    nq_err err = NQ_E_NOMEM;
    t->start = calloc((size_t)t->nsets * (size_t)n + 1u, sizeof *t->start);
    if (t->start == NULL || !rank_tables_build(t)) goto fail;
    walk w = {t, (uint32_t)((UINT64_C(1) << n) - 1u), t->start + 1, NULL, ctl, 0, false};
    const bool done = walk_all(&w, threads); /* start[b + 1] = placements in slice b */
    err = done ? NQ_E_NOMEM : NQ_E_CANCELED;
    if (!done || !layout_buckets(t)) goto fail;
    err = fill_keys(t, &w, threads);
    if (err != NQ_OK) goto fail;
    *out = t;
    return NQ_OK;
fail:
    nq_mitm_table_destroy(t);
    return err;
}
