/* count_quad_simd.c - the hot loops of the half-board counter, portable and vectorised
 * (count_quad_simd.h).
 *
 * AVX-512 does all three: pair and pick test 16 lanes at once and squeeze the kept ones together
 * with a compress (to a register, then one whole-vector store: a compress straight to memory is
 * microcoded and slow); join loads a vector of keys once and tests it against four probes
 * (register blocking keeps it bound by the test unit, not by loads), counting matches with a masked
 * add. Tails are loaded and tested under a lane mask. AVX2 does all three on 8 lanes: without a
 * compress, the kept lanes are squeezed by a lane permute whose indices a table gives per 8-bit
 * mask; tails are read by masked loads. Both joins stream short joins that way, but bit-slice long
 * ones (join_slice_avx2, AVX2 code under both sets): the probes become one 256-bit set per key bit,
 * and a key meets 256 probes with five table lookups, several times fewer instructions a pair than
 * the AND-compare-count of either streaming loop. The portable set is branch-free: every element is
 * written, the cursor moves only for kept ones.
 */
#include "count_quad_simd.h"

#include "cpu.h"

/* ---- portable ---------------------------------------------------------------------------------- */

static size_t pair_portable(const uint64_t *ldiag, const uint32_t *lkey, const uint32_t *lmark, size_t llen,
                            const uint64_t *rdiag, const uint32_t *rkey, const uint32_t *rmark, size_t rlen,
                            uint32_t *okey, uint32_t *omark)
{
    size_t out = 0;
    for (size_t l = 0; l < llen; l++) {
        const uint64_t diag = ldiag[l];
        const uint32_t key = lkey[l], mark = lmark[l];
        for (size_t r = 0; r < rlen; r++) {
            okey[out] = key | rkey[r];
            omark[out] = mark | rmark[r];
            out += (diag & rdiag[r]) == 0;
        }
    }
    return out;
}

static size_t pick_portable(const uint32_t *key, const uint32_t *mark, size_t len, uint32_t kmask, uint32_t mmask,
                            uint32_t *out)
{
    size_t kept = 0;
    for (size_t i = 0; i < len; i++) {
        out[kept] = key[i];
        kept += ((key[i] & kmask) | (mark[i] & mmask)) == 0;
    }
    return kept;
}

static uint64_t join_portable(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m)
{
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p++)
        for (size_t i = 0; i < len; i++) hits += (keys[i] & probes[p]) == 0;
    return hits;
}

static const nq_quad_simd portable = {"portable", pair_portable, pick_portable, join_portable};

const nq_quad_simd *nq_quad_simd_portable(void)
{
    return &portable;
}

#if NQ_X86
/* ---- AVX-512 ----------------------------------------------------------------------------------- */

#define AVX512 __attribute__((target("avx512f,bmi2")))

/* Lanes of a 16-lane vector at offset i of a len-element array that lie inside it. */
AVX512 static inline __mmask16 lanes_at(size_t i, size_t len)
{
    const unsigned bits = len - i >= 16 ? 0xFFFFu : (1u << (len - i)) - 1u;
    return (__mmask16)bits;
}

AVX512 static size_t pair_avx512(const uint64_t *ldiag, const uint32_t *lkey, const uint32_t *lmark, size_t llen,
                                 const uint64_t *rdiag, const uint32_t *rkey, const uint32_t *rmark, size_t rlen,
                                 uint32_t *okey, uint32_t *omark)
{
    size_t out = 0;
    for (size_t l = 0; l < llen; l++) {
        const __m512i diag = _mm512_set1_epi64((long long)ldiag[l]);
        const __m512i key = _mm512_set1_epi32((int)lkey[l]), mark = _mm512_set1_epi32((int)lmark[l]);
        for (size_t i = 0; i < rlen; i += 16) {
            const __mmask16 lanes = lanes_at(i, rlen);
            const __mmask8 lo = (__mmask8)lanes, hi = (__mmask8)(lanes >> 8);
            const __mmask8 ok_lo = _mm512_mask_testn_epi64_mask(lo, _mm512_maskz_loadu_epi64(lo, rdiag + i), diag);
            const __mmask8 ok_hi = _mm512_mask_testn_epi64_mask(hi, _mm512_maskz_loadu_epi64(hi, rdiag + i + 8), diag);
            const __mmask16 ok = (__mmask16)(ok_lo | (unsigned)ok_hi << 8);
            const __m512i k = _mm512_or_si512(_mm512_maskz_loadu_epi32(lanes, rkey + i), key);
            const __m512i m = _mm512_or_si512(_mm512_maskz_loadu_epi32(lanes, rmark + i), mark);
            _mm512_storeu_si512(okey + out, _mm512_maskz_compress_epi32(ok, k));
            _mm512_storeu_si512(omark + out, _mm512_maskz_compress_epi32(ok, m));
            out += (size_t)__builtin_popcount(ok);
        }
    }
    return out;
}

AVX512 static size_t pick_avx512(const uint32_t *key, const uint32_t *mark, size_t len, uint32_t kmask, uint32_t mmask,
                                 uint32_t *out)
{
    const __m512i kbits = _mm512_set1_epi32((int)kmask), mbits = _mm512_set1_epi32((int)mmask);
    size_t kept = 0;
    for (size_t i = 0; i < len; i += 16) {
        const __mmask16 lanes = lanes_at(i, len);
        const __m512i k = _mm512_maskz_loadu_epi32(lanes, key + i);
        const __m512i hit = _mm512_or_si512(_mm512_and_si512(k, kbits),
                                            _mm512_and_si512(_mm512_maskz_loadu_epi32(lanes, mark + i), mbits));
        const __mmask16 free = _mm512_mask_testn_epi32_mask(lanes, hit, hit);
        _mm512_storeu_si512(out + kept, _mm512_maskz_compress_epi32(free, k));
        kept += (size_t)__builtin_popcount(free);
    }
    return kept;
}

/* The streaming join. Probes past the end are 0, which matches every key: their counters are left
 * out of the sum. */
AVX512 static uint64_t join_stream_avx512(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m)
{
    const __m512i one = _mm512_set1_epi32(1);
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p += 4) {
        const __m512i p0 = _mm512_set1_epi32((int)probes[p]);
        const __m512i p1 = _mm512_set1_epi32((int)(p + 1 < m ? probes[p + 1] : 0));
        const __m512i p2 = _mm512_set1_epi32((int)(p + 2 < m ? probes[p + 2] : 0));
        const __m512i p3 = _mm512_set1_epi32((int)(p + 3 < m ? probes[p + 3] : 0));
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
        for (size_t i = 0; i < len; i += 16) {
            const __mmask16 lanes = lanes_at(i, len);
            const __m512i v = _mm512_maskz_loadu_epi32(lanes, keys + i);
            a0 = _mm512_mask_add_epi32(a0, _mm512_mask_testn_epi32_mask(lanes, v, p0), a0, one);
            a1 = _mm512_mask_add_epi32(a1, _mm512_mask_testn_epi32_mask(lanes, v, p1), a1, one);
            a2 = _mm512_mask_add_epi32(a2, _mm512_mask_testn_epi32_mask(lanes, v, p2), a2, one);
            a3 = _mm512_mask_add_epi32(a3, _mm512_mask_testn_epi32_mask(lanes, v, p3), a3, one);
        }
        __m512i sum = a0;
        if (p + 1 < m) sum = _mm512_add_epi32(sum, a1);
        if (p + 2 < m) sum = _mm512_add_epi32(sum, a2);
        if (p + 3 < m) sum = _mm512_add_epi32(sum, a3);
        hits += (uint32_t)_mm512_reduce_add_epi32(sum);
    }
    return hits;
}

/* ---- AVX2 -------------------------------------------------------------------------------------- */

/* BMI2 for rorx, a rotate into another register: the bit-sliced join's chunk extraction (ENTRY). */
#define AVX2 __attribute__((target("avx2,bmi2")))

/* AVX2 has no compress: an 8-bit lane mask picks, from a table, the lane indices of the kept lanes
 * in order (one byte each), which a lane permute applies. Entry m holds, in byte popcount(m & (2^i
 * - 1)), the index i of each set bit i of m; the bytes past the kept lanes are 0 (garbage lanes
 * land in the slack). Built by the preprocessor: no table to fill at run time. */
#define KEEP_BIT(m, i) (((m) >> (i)) & 1u)
#define KEEP_BELOW(m, i) ((m) & ((1u << (i)) - 1u))
#define KEEP_POP(x)                                                                                        \
    (KEEP_BIT(x, 0) + KEEP_BIT(x, 1) + KEEP_BIT(x, 2) + KEEP_BIT(x, 3) + KEEP_BIT(x, 4) + KEEP_BIT(x, 5) + \
     KEEP_BIT(x, 6))
#define KEEP_LANE(m, i) ((uint64_t)(KEEP_BIT(m, i) * (i)) << (8u * KEEP_POP(KEEP_BELOW(m, i))))
#define KEEP(m)                                                                                                  \
    (KEEP_LANE(m, 1) | KEEP_LANE(m, 2) | KEEP_LANE(m, 3) | KEEP_LANE(m, 4) | KEEP_LANE(m, 5) | KEEP_LANE(m, 6) | \
     KEEP_LANE(m, 7))
#define KEEP4(m) KEEP(m), KEEP((m) + 1u), KEEP((m) + 2u), KEEP((m) + 3u)
#define KEEP16(m) KEEP4(m), KEEP4((m) + 4u), KEEP4((m) + 8u), KEEP4((m) + 12u)
#define KEEP64(m) KEEP16(m), KEEP16((m) + 16u), KEEP16((m) + 32u), KEEP16((m) + 48u)

static const uint64_t keep_lanes[256] = {KEEP64(0u), KEEP64(64u), KEEP64(128u), KEEP64(192u)};

/* The first `count` (0..8) lanes all ones, the others zero: a sliding window on a constant. */
AVX2 static inline __m256i lanes_first(size_t count)
{
    static const int32_t window[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
    return _mm256_loadu_si256((const __m256i *)(const void *)(window + 8 - count));
}

/* Write the lanes of v that `keep` names, in order, to out as one whole vector; returns how many. */
AVX2 static inline size_t keep_store(uint32_t *out, __m256i v, unsigned keep)
{
    const __m256i index = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)&keep_lanes[keep]));
    _mm256_storeu_si256((__m256i *)(void *)out, _mm256_permutevar8x32_epi32(v, index));
    return (size_t)__builtin_popcount(keep);
}

/* Which of the 4 + 4 diagonal words in d0, d1 share no bit with diag: an 8-bit lane mask. */
AVX2 static inline unsigned diag_free(__m256i d0, __m256i d1, __m256i diag)
{
    const __m256i zero = _mm256_setzero_si256();
    const __m256i z0 = _mm256_cmpeq_epi64(_mm256_and_si256(d0, diag), zero);
    const __m256i z1 = _mm256_cmpeq_epi64(_mm256_and_si256(d1, diag), zero);
    return (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(z0)) | (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(z1))
                                                                       << 4;
}

/* The right run is tested 8 placements at a time; its tail (fewer than 8) is loaded once, as a whole
 * vector that reads past the run (NQ_QUAD_SIMD_OVERREAD), and reused for every left placement with
 * the lanes past the run left out. Plain loads, not masked ones: a pair call often has a short run
 * of left placements (count_quad.c, half_fill_sorted), and four masked loads were a fifth of it. */
AVX2 static size_t pair_avx2(const uint64_t *ldiag, const uint32_t *lkey, const uint32_t *lmark, size_t llen,
                             const uint64_t *rdiag, const uint32_t *rkey, const uint32_t *rmark, size_t rlen,
                             uint32_t *okey, uint32_t *omark)
{
    const size_t whole = rlen - rlen % 8, rest = rlen - whole;
    const __m256i tail_d0 = _mm256_loadu_si256((const __m256i *)(const void *)(rdiag + whole));
    const __m256i tail_d1 = _mm256_loadu_si256((const __m256i *)(const void *)(rdiag + whole + 4));
    const __m256i tail_k = _mm256_loadu_si256((const __m256i *)(const void *)(rkey + whole));
    const __m256i tail_m = _mm256_loadu_si256((const __m256i *)(const void *)(rmark + whole));
    const unsigned tail_lanes = (1u << rest) - 1u;
    size_t out = 0;
    for (size_t l = 0; l < llen; l++) {
        const __m256i diag = _mm256_set1_epi64x((long long)ldiag[l]);
        const __m256i key = _mm256_set1_epi32((int)lkey[l]), mark = _mm256_set1_epi32((int)lmark[l]);
        for (size_t i = 0; i < whole; i += 8) {
            const __m256i d0 = _mm256_loadu_si256((const __m256i *)(const void *)(rdiag + i));
            const __m256i d1 = _mm256_loadu_si256((const __m256i *)(const void *)(rdiag + i + 4));
            const unsigned ok = diag_free(d0, d1, diag);
            const __m256i k = _mm256_loadu_si256((const __m256i *)(const void *)(rkey + i));
            const __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)(rmark + i));
            (void)keep_store(okey + out, _mm256_or_si256(k, key), ok);
            out += keep_store(omark + out, _mm256_or_si256(m, mark), ok);
        }
        const unsigned ok = diag_free(tail_d0, tail_d1, diag) & tail_lanes;
        (void)keep_store(okey + out, _mm256_or_si256(tail_k, key), ok);
        out += keep_store(omark + out, _mm256_or_si256(tail_m, mark), ok);
    }
    return out;
}

/* Lanes of k (keys) and m (their marks) that have none of kbits and mbits, as all-ones lanes. */
AVX2 static inline __m256i pick_free(__m256i k, __m256i m, __m256i kbits, __m256i mbits)
{
    const __m256i hit = _mm256_or_si256(_mm256_and_si256(k, kbits), _mm256_and_si256(m, mbits));
    return _mm256_cmpeq_epi32(hit, _mm256_setzero_si256());
}

AVX2 static size_t pick_avx2(const uint32_t *key, const uint32_t *mark, size_t len, uint32_t kmask, uint32_t mmask,
                             uint32_t *out)
{
    const __m256i kbits = _mm256_set1_epi32((int)kmask), mbits = _mm256_set1_epi32((int)mmask);
    const size_t whole = len - len % 8, rest = len - whole;
    size_t kept = 0;
    for (size_t i = 0; i < whole; i += 8) {
        const __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)(mark + i));
        const __m256i k = _mm256_loadu_si256((const __m256i *)(const void *)(key + i));
        const __m256i free = pick_free(k, m, kbits, mbits);
        kept += keep_store(out + kept, k, (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(free)));
    }
    if (rest != 0) {
        const __m256i lanes = lanes_first(rest);
        const __m256i m = _mm256_maskload_epi32((const int *)(const void *)(mark + whole), lanes);
        const __m256i k = _mm256_maskload_epi32((const int *)(const void *)(key + whole), lanes);
        const __m256i free = _mm256_and_si256(pick_free(k, m, kbits, mbits), lanes);
        kept += keep_store(out + kept, k, (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(free)));
    }
    return kept;
}

/* Lanes that match (and lie inside the run: `lanes`) as 1s. A matching lane compares equal to zero,
 * all ones, which the caller subtracts. */
AVX2 static inline __m256i match(__m256i v, __m256i probe, __m256i lanes)
{
    return _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_and_si256(v, probe), _mm256_setzero_si256()), lanes);
}

/* The eight 32-bit lanes of v added up. */
AVX2 static inline uint64_t lanes_sum(__m256i v)
{
    const __m256i wide = _mm256_add_epi64(_mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)),
                                          _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
    const __m128i pair = _mm_add_epi64(_mm256_castsi256_si128(wide), _mm256_extracti128_si256(wide, 1));
    return (uint64_t)_mm_cvtsi128_si64(pair) + (uint64_t)_mm_extract_epi64(pair, 1);
}

/* Keys against up to four probes (count 1..4; the unused probe registers repeat the first and are
 * not counted), into four lane counters: each lane gains at most one per vector of keys. */
AVX2 static inline void join4_avx2(const uint32_t *keys, size_t whole, __m256i tail, __m256i tail_lanes,
                                   const uint32_t *probes, size_t count, __m256i acc[4])
{
    const __m256i all = _mm256_set1_epi32(-1);
    const __m256i p0 = _mm256_set1_epi32((int)probes[0]);
    const __m256i p1 = _mm256_set1_epi32((int)probes[count > 1 ? 1 : 0]);
    const __m256i p2 = _mm256_set1_epi32((int)probes[count > 2 ? 2 : 0]);
    const __m256i p3 = _mm256_set1_epi32((int)probes[count > 3 ? 3 : 0]);
    __m256i a0 = acc[0], a1 = acc[1], a2 = acc[2], a3 = acc[3];
    for (size_t i = 0; i < whole; i += 8) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i));
        a0 = _mm256_sub_epi32(a0, match(v, p0, all));
        a1 = _mm256_sub_epi32(a1, match(v, p1, all));
        a2 = _mm256_sub_epi32(a2, match(v, p2, all));
        a3 = _mm256_sub_epi32(a3, match(v, p3, all));
    }
    a0 = _mm256_sub_epi32(a0, match(tail, p0, tail_lanes));
    a1 = _mm256_sub_epi32(a1, match(tail, p1, tail_lanes));
    a2 = _mm256_sub_epi32(a2, match(tail, p2, tail_lanes));
    a3 = _mm256_sub_epi32(a3, match(tail, p3, tail_lanes));
    acc[0] = a0;
    acc[1] = count > 1 ? a1 : acc[1];
    acc[2] = count > 2 ? a2 : acc[2];
    acc[3] = count > 3 ? a3 : acc[3];
}

/* Keys against probes, four probes per loaded vector of keys (join4_avx2): len >= 1, m >= 1. Lane
 * counters are 32-bit and gather the matches of many probes; they are added into the 64-bit total
 * before any lane can pass 2^31. */
AVX2 static uint64_t join_stream_avx2(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m)
{
    const size_t whole = len - len % 8, vectors = whole / 8 + 1u;
    const __m256i tail_lanes = lanes_first(len - whole);
    const __m256i tail = _mm256_maskload_epi32((const int *)(const void *)(keys + whole), tail_lanes);
    const size_t flush = ((size_t)1 << 31) / vectors; /* probes per counter before a flush: >= 2 */
    uint64_t hits = 0;
    for (size_t p = 0; p < m;) {
        __m256i acc[4] = {_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256(),
                          _mm256_setzero_si256()};
        for (size_t used = 0; p < m && used < flush; used++) {
            const size_t count = m - p < 4 ? m - p : 4;
            join4_avx2(keys, whole, tail, tail_lanes, probes + p, count, acc);
            p += count;
        }
        hits += lanes_sum(acc[0]) + lanes_sum(acc[1]) + lanes_sum(acc[2]) + lanes_sum(acc[3]);
    }
    return hits;
}

/* The bit-sliced join: a block of up to 256 probes becomes, for each key bit b, the 256-bit set of
 * probes with bit b; a key then meets the probes that have none of its bits, the AND of the
 * complements of one set per bit. The AND is taken a chunk of key bits at a time: for each chunk
 * and each of its values, the block's probes free of every bit of that value, a table of 64 or 128
 * vectors. A key costs a load and an AND per chunk and a share of a popcount (slice_keys: about
 * 1.5 ns on Zen 3 for up to 256 pairs, 2 ns with a popcount per key, against about 30 pairs a ns
 * for the streaming AND); transposing a block and filling its tables costs about 250 ns. So a
 * block goes this way only when the keys pay for it: at 256 probes from about 36 keys on, at 100
 * probes from about 140. (SLICE_SETUP was measured; SLICE_KEY is the 60 measured with a popcount
 * per key, scaled by 1.5 / 2 ns.) */
#define SLICE_PROBES 256  /* probes of one block: one bit of a 256-bit vector each */
#define SLICE_GROUPS 8    /* groups of 32 probes in a block */
#define SLICE_CHUNKS 5    /* tables per block */
#define SLICE_ENTRIES 128 /* entries of the largest table: a 7-bit chunk */
#define SLICE_SETUP 7500  /* a block's set-up, in pair tests of the streaming join (measured) */
#define SLICE_KEY 45      /* a key against a block, likewise (scaled, above) */

/* Chunk c of a key: `bits` wide from bit `shift`. Keys of up to 30 bits (n <= 18) take five chunks
 * of 6 bits, wider ones (32 bits at n = 19 and 20) three of 6 and two of 7. */
static const int chunk_shift[2][SLICE_CHUNKS] = {{0, 6, 12, 18, 24}, {0, 6, 12, 18, 25}};
static const int chunk_bits[2][SLICE_CHUNKS] = {{6, 6, 6, 6, 6}, {6, 6, 6, 7, 7}};

/* The probe sets of one block: has[b] has bit q set when probe q (in the block's own order) has key
 * bit b; valid has a bit for each probe in the block. */
typedef struct slice_block {
    uint32_t has[32][SLICE_GROUPS]; /* per key bit, per group of 32 probes */
    uint32_t valid[SLICE_GROUPS];   /* per group of 32 probes: the ones that exist */
} slice_block;

/* Four vectors of eight 32-bit lanes regrouped into four byte planes: plane j holds byte j of all 32
 * lanes, in an order that is the same for every plane. */
AVX2 static inline void byte_planes(const __m256i x[4], __m256i plane[4])
{
    const __m256i gather = _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9,
                                            13, 2, 6, 10, 14, 3, 7, 11, 15);
    const __m256i y0 = _mm256_shuffle_epi8(x[0], gather), y1 = _mm256_shuffle_epi8(x[1], gather);
    const __m256i y2 = _mm256_shuffle_epi8(x[2], gather), y3 = _mm256_shuffle_epi8(x[3], gather);
    const __m256i t0 = _mm256_unpacklo_epi32(y0, y1), t1 = _mm256_unpackhi_epi32(y0, y1);
    const __m256i t2 = _mm256_unpacklo_epi32(y2, y3), t3 = _mm256_unpackhi_epi32(y2, y3);
    plane[0] = _mm256_unpacklo_epi64(t0, t2);
    plane[1] = _mm256_unpackhi_epi64(t0, t2);
    plane[2] = _mm256_unpacklo_epi64(t1, t3);
    plane[3] = _mm256_unpackhi_epi64(t1, t3);
}

/* Transpose probes[0 .. m), 1 <= m <= SLICE_PROBES, into *blk, 32 probes at a time: a byte plane
 * shifted left by 7 - t puts bit t of each byte into its sign bit, which movemask collects. Reads
 * nothing past the probes (masked loads); groups past them are left empty. Returns the OR of the
 * probes. */
AVX2 static uint32_t slice_transpose(const uint32_t *probes, size_t m, slice_block *blk)
{
    __m256i any = _mm256_setzero_si256();
    const size_t groups = (m + 31u) / 32u;
    for (size_t g = 0; g < groups; g++) {
        __m256i x[4], lanes[4], plane[4], valid[4];
        for (size_t i = 0; i < 4; i++) {
            const size_t at = 32 * g + 8 * i, count = at >= m ? 0 : m - at < 8 ? m - at : 8;
            lanes[i] = lanes_first(count);
            x[i] = _mm256_maskload_epi32((const int *)(const void *)(probes + (count != 0 ? at : 0)), lanes[i]);
            any = _mm256_or_si256(any, x[i]);
        }
        byte_planes(x, plane);
        byte_planes(lanes, valid);
        blk->valid[g] = (uint32_t)_mm256_movemask_epi8(valid[0]);
        for (size_t j = 0; j < 4; j++) {
            /* bit t of each byte into its sign bit: immediate shifts, so the eight stay independent */
            uint32_t(*const has)[SLICE_GROUPS] = blk->has + 8 * j;
            has[7][g] = (uint32_t)_mm256_movemask_epi8(plane[j]);
            has[6][g] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(plane[j], 1));
            has[5][g] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(plane[j], 2));
            has[4][g] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(plane[j], 3));
            has[3][g] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(plane[j], 4));
            has[2][g] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(plane[j], 5));
            has[1][g] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(plane[j], 6));
            has[0][g] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(plane[j], 7));
        }
    }
    for (size_t g = groups; g < SLICE_GROUPS; g++) {
        blk->valid[g] = 0;
        for (int b = 0; b < 32; b++) blk->has[b][g] = 0;
    }
    const __m128i half = _mm_or_si128(_mm256_castsi256_si128(any), _mm256_extracti128_si256(any, 1));
    const __m128i quarter = _mm_or_si128(half, _mm_unpackhi_epi64(half, half));
    return (uint32_t)_mm_cvtsi128_si32(_mm_or_si128(quarter, _mm_srli_epi64(quarter, 32)));
}

AVX2 static inline __m256i load_set(const uint32_t words[SLICE_GROUPS])
{
    return _mm256_loadu_si256((const __m256i *)(const void *)words);
}

/* Table of chunk (shift, bits), bits 6 or 7: entry v holds the valid probes free of every bit of
 * v << shift. Entry v is the AND of a low part (its 3 low bits, 8 sets held in registers) and a high
 * part (the others, 8 or 16 sets): every store is an AND of two registers, none waits on an earlier
 * store. */
AVX2 static void slice_table(const slice_block *blk, int shift, int bits, __m256i table[SLICE_ENTRIES])
{
    const __m256i h0 = load_set(blk->has[shift]), h1 = load_set(blk->has[shift + 1]);
    const __m256i h2 = load_set(blk->has[shift + 2]), valid = load_set(blk->valid);
    __m256i low[8];
    low[0] = valid;
    low[1] = _mm256_andnot_si256(h0, valid);
    low[2] = _mm256_andnot_si256(h1, valid);
    low[3] = _mm256_andnot_si256(h1, low[1]);
    for (int v = 0; v < 4; v++) low[4 + v] = _mm256_andnot_si256(h2, low[v]);
    __m256i high[SLICE_ENTRIES / 8];
    high[0] = _mm256_set1_epi32(-1);
    for (int i = 3; i < bits; i++) {
        const __m256i has = load_set(blk->has[shift + i]);
        const int half = 1 << (i - 3);
        for (int v = 0; v < half; v++) high[half + v] = _mm256_andnot_si256(has, high[v]);
    }
    for (int h = 0; h < 1 << (bits - 3); h++) {
        for (int v = 0; v < 8; v++) table[8 * h + v] = _mm256_and_si256(low[v], high[h]);
    }
}

/* Set bits of v, per byte (0..8), added to acc: the nibble-table popcount. */
AVX2 static inline __m256i popcount_bytes(__m256i acc, __m256i v)
{
    const __m256i nibble = _mm256_set1_epi8(0x0f);
    const __m256i bits = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2,
                                          2, 3, 2, 3, 3, 4);
    const __m256i lo = _mm256_shuffle_epi8(bits, _mm256_and_si256(v, nibble));
    const __m256i hi = _mm256_shuffle_epi8(bits, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    return _mm256_add_epi8(acc, _mm256_add_epi8(lo, hi));
}

/* Byte counters into one 64-bit sum. */
AVX2 static inline uint64_t bytes_sum(__m256i acc)
{
    const __m256i wide = _mm256_sad_epu8(acc, _mm256_setzero_si256());
    const __m128i pair = _mm_add_epi64(_mm256_castsi256_si128(wide), _mm256_extracti128_si256(wide, 1));
    return (uint64_t)_mm_cvtsi128_si64(pair) + (uint64_t)_mm_extract_epi64(pair, 1);
}

/* x rotated right by r, 0 <= r < 32. */
static inline uint32_t rotr32(uint32_t x, int r)
{
    return r == 0 ? x : (x >> r) | (x << (32 - r));
}

/* Entry (k >> shift) % 2^bits of a table, its byte offset taken straight from k: a rotate right by
 * shift - 5 (mod 32) and one mask fold the chunk's extraction and the scaling by 32 bytes. The bits
 * the rotate wraps around land at 37 - shift and up, or below bit 5, outside the mask: a chunk ends
 * at bit 32 at the latest. BMI2's rorx writes another register, so k is not copied first for each
 * chunk: ten scalar instructions a key instead of fourteen, 0.91x the time of a count at n = 20 with
 * the AVX2 kernels (docs/performance.md). That is GCC's code, the release build's; clang folds the
 * rotate and the mask back into a copy, a shift and a mask, the same count as before. */
#define ENTRY(table, k, shift, bits)                          \
    (*(const __m256i *)(const void *)((const char *)(table) + \
                                      (rotr32((k), ((shift) + 27) & 31) & ((((uint32_t)1 << (bits)) - 1u) << 5))))

/* A carry-save adder over bit sets: *hi gets the carries and *lo the sums of a + b + c, bit by bit. */
AVX2 static inline void csa(__m256i *hi, __m256i *lo, __m256i a, __m256i b, __m256i c)
{
    const __m256i u = _mm256_xor_si256(a, b);
    *hi = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(u, c));
    *lo = _mm256_xor_si256(u, c);
}

/* The probes of one block free of every bit of key k (inlined where shift and bits are constants, so
 * that ENTRY's shifts are immediates). */
AVX2 __attribute__((always_inline)) static inline __m256i slice_free(const __m256i (*table)[SLICE_ENTRIES], uint32_t k,
                                                                     const int *shift, const int *bits)
{
    const __m256i a = _mm256_and_si256(ENTRY(table[0], k, shift[0], bits[0]), ENTRY(table[1], k, shift[1], bits[1]));
    const __m256i b = _mm256_and_si256(ENTRY(table[2], k, shift[2], bits[2]), ENTRY(table[3], k, shift[3], bits[3]));
    return _mm256_and_si256(_mm256_and_si256(a, b), ENTRY(table[4], k, shift[4], bits[4]));
}

/* Eight keys' sets added into the running sums of weight 1, 2 and 4; returns the carries of weight 8. */
AVX2 __attribute__((always_inline)) static inline __m256i slice_eight(const uint32_t *k,
                                                                      const __m256i (*table)[SLICE_ENTRIES],
                                                                      const int *shift, const int *bits, __m256i *ones,
                                                                      __m256i *twos, __m256i *fours)
{
    __m256i twos_a, twos_b, fours_a, fours_b, eights;
    csa(&twos_a, ones, *ones, slice_free(table, k[0], shift, bits), slice_free(table, k[1], shift, bits));
    csa(&twos_b, ones, *ones, slice_free(table, k[2], shift, bits), slice_free(table, k[3], shift, bits));
    csa(&fours_a, twos, *twos, twos_a, twos_b);
    csa(&twos_a, ones, *ones, slice_free(table, k[4], shift, bits), slice_free(table, k[5], shift, bits));
    csa(&twos_b, ones, *ones, slice_free(table, k[6], shift, bits), slice_free(table, k[7], shift, bits));
    csa(&fours_b, twos, *twos, twos_a, twos_b);
    csa(&eights, fours, *fours, fours_a, fours_b);
    return eights;
}

/* Keys against one block's tables, in the layout `wide` names (a constant at each call, so that the
 * shifts are immediates). Sixteen keys at a time, their sets are added up bit by bit by carry-save
 * adders (Harley and Seal's popcount): one popcount per 16 keys instead of one per key. Byte counters
 * are flushed every 31 popcounts (of 16 keys, or of one), before a byte can pass 255. */
AVX2 __attribute__((always_inline)) static inline uint64_t slice_keys(const uint32_t *keys, size_t len,
                                                                      const __m256i (*table)[SLICE_ENTRIES], int wide)
{
    const int *shift = chunk_shift[wide], *bits = chunk_bits[wide];
    uint64_t hits = 0;
    __m256i ones = _mm256_setzero_si256(), twos = ones, fours = ones, eights = ones;
    size_t i = 0;
    while (len - i >= 16) {
        __m256i acc = _mm256_setzero_si256();
        for (int rounds = 0; rounds < 31 && len - i >= 16; rounds++, i += 16) {
            const __m256i eights_a = slice_eight(keys + i, table, shift, bits, &ones, &twos, &fours);
            const __m256i eights_b = slice_eight(keys + i + 8, table, shift, bits, &ones, &twos, &fours);
            __m256i sixteens;
            csa(&sixteens, &eights, eights, eights_a, eights_b);
            acc = popcount_bytes(acc, sixteens);
        }
        hits += 16u * bytes_sum(acc);
    }
    const __m256i z = _mm256_setzero_si256(); /* what the adders still hold, by weight */
    hits += bytes_sum(popcount_bytes(z, ones)) + 2u * bytes_sum(popcount_bytes(z, twos)) +
            4u * bytes_sum(popcount_bytes(z, fours)) + 8u * bytes_sum(popcount_bytes(z, eights));
    __m256i acc = z; /* the last keys, fewer than 16, one popcount each */
    for (; i < len; i++) acc = popcount_bytes(acc, slice_free(table, keys[i], shift, bits));
    return hits + bytes_sum(acc);
}

/* Keys against probes[0 .. m), 1 <= m <= SLICE_PROBES, bit-sliced. The block and its tables live on
 * the stack (21 KB; the L1 holds them beside the streamed keys). */
AVX2 static uint64_t join_slice_avx2(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m)
{
    slice_block blk;
    __m256i table[SLICE_CHUNKS][SLICE_ENTRIES];
    const uint32_t any = slice_transpose(probes, m, &blk);
    const int wide = any >> 30 != 0; /* a bit no probe has never rules a pair out */
    for (int c = 0; c < SLICE_CHUNKS; c++) slice_table(&blk, chunk_shift[wide][c], chunk_bits[wide][c], table[c]);
    const __m256i(*tables)[SLICE_ENTRIES] = (const __m256i(*)[SLICE_ENTRIES])table;
    return wide ? slice_keys(keys, len, tables, 1) : slice_keys(keys, len, tables, 0);
}

typedef uint64_t (*join_fn)(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m);

/* The count is symmetric in keys and probes: the longer array is streamed (its tail and the
 * per-probe set-up, or the per-block set-up, are paid for the fewest times). The shorter one goes
 * in blocks of 256 to the bit-sliced join while a block pays for its set-up, the rest to `stream`.
 * SLICE_SETUP and SLICE_KEY are in the AVX2 loop's pair tests, and serve the AVX-512 loop as they
 * are (join_avx512). */
AVX2 __attribute__((always_inline)) static inline uint64_t join_blocks(const uint32_t *keys, size_t len,
                                                                       const uint32_t *probes, size_t m, join_fn stream)
{
    if (len < m) {
        const uint32_t *swap = keys;
        keys = probes;
        probes = swap;
        const size_t swap_len = len;
        len = m;
        m = swap_len;
    }
    if (m == 0) return 0;
    uint64_t hits = 0;
    size_t p = 0;
    for (; p < m; p += SLICE_PROBES) {
        const size_t block = m - p < SLICE_PROBES ? m - p : SLICE_PROBES;
        if (block * len < SLICE_SETUP + SLICE_KEY * len) break; /* cheaper streamed */
        hits += join_slice_avx2(keys, len, probes + p, block);
    }
    if (p < m) hits += stream(keys, len, probes + p, m - p);
    return hits;
}

AVX2 static uint64_t join_avx2(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m)
{
    return join_blocks(keys, len, probes, m, join_stream_avx2);
}

static const nq_quad_simd avx2 = {"avx2", pair_avx2, pick_avx2, join_avx2};

/* ---- AVX-512: the join ------------------------------------------------------------------------- */

/* Long joins are bit-sliced here too: a key meets 256 probes in a handful of AVX2 instructions, where
 * the streaming join, twice as wide as AVX2's and with test-into-mask, still spends three per 16 pairs
 * (n = 18 on 2 threads: 1.78 s streamed, 1.27 s sliced; n = 19: 28.3 s, 15.2 s). Its 16 lanes test
 * up to twice the pairs of AVX2's 8 per instruction, yet the AVX2 thresholds serve it best: doubled
 * for that, they measured the same on an Intel CPU and 7-12% slower on a Zen 4, whose 512-bit
 * instructions run as two halves (docs/performance.md). Blocks of 512 probes would mostly be half empty:
 * most sliced pairs meet fewer than 512 probes (all but 0.1% at n = 18, 70% at n = 19). */
AVX512 static uint64_t join_avx512(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m)
{
    return join_blocks(keys, len, probes, m, join_stream_avx512);
}

static const nq_quad_simd avx512 = {"avx512", pair_avx512, pick_avx512, join_avx512};
#endif

size_t nq_quad_simd_all(const nq_quad_simd **out, size_t max)
{
    size_t len = 0;
#if NQ_X86
    const nq_simd level = nq_simd_level();
    if (len < max && level >= NQ_SIMD_AVX512) out[len++] = &avx512;
    if (len < max && level >= NQ_SIMD_AVX2) out[len++] = &avx2;
#endif
    if (len < max) out[len++] = &portable;
    return len;
}

const nq_quad_simd *nq_quad_simd_best(void)
{
    const nq_quad_simd *best = &portable;
    (void)nq_quad_simd_all(&best, 1);
    return best;
}
