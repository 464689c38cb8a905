/* count_quad_simd.c - the hot loops of the half-board counter, portable and vectorised
 * (count_quad_simd.h).
 *
 * AVX-512 does all three: pair and pick test 16 lanes at once and squeeze the kept ones together
 * with a compress (to a register, then one whole-vector store: a compress straight to memory is
 * microcoded and slow); join loads a vector of keys once and tests it against four probes
 * (register blocking keeps it bound by the test unit, not by loads), counting matches with a masked
 * add. Tails are loaded and tested under a lane mask. AVX2 has only join (a matching lane compares
 * equal to zero, all ones, which is subtracted), and takes pair and pick from the portable set,
 * which is branch-free: every element is written, the cursor moves only for kept ones.
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

static size_t pick_portable(const uint32_t *key, const uint32_t *mark, size_t len, int c, uint32_t *out)
{
    size_t kept = 0;
    for (size_t i = 0; i < len; i++) {
        out[kept] = key[i];
        kept += (~mark[i] >> c) & 1u;
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

#define AVX512 __attribute__((target("avx512f")))

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

AVX512 static size_t pick_avx512(const uint32_t *key, const uint32_t *mark, size_t len, int c, uint32_t *out)
{
    const __m512i bit = _mm512_set1_epi32((int)(1u << c));
    size_t kept = 0;
    for (size_t i = 0; i < len; i += 16) {
        const __mmask16 lanes = lanes_at(i, len);
        const __mmask16 free = _mm512_mask_testn_epi32_mask(lanes, _mm512_maskz_loadu_epi32(lanes, mark + i), bit);
        const __m512i k = _mm512_maskz_loadu_epi32(lanes, key + i);
        _mm512_storeu_si512(out + kept, _mm512_maskz_compress_epi32(free, k));
        kept += (size_t)__builtin_popcount(free);
    }
    return kept;
}

/* Probes past the end are 0, which matches every key: their counters are left out of the sum. */
AVX512 static uint64_t join_avx512(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m)
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

static const nq_quad_simd avx512 = {"avx512", pair_avx512, pick_avx512, join_avx512};

/* ---- AVX2 -------------------------------------------------------------------------------------- */

__attribute__((target("avx2"))) static uint64_t join_avx2(const uint32_t *keys, size_t len, const uint32_t *probes,
                                                          size_t m)
{
    const __m256i zero = _mm256_setzero_si256();
    const size_t whole = len - len % 8;
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p += 2) {
        const __m256i p0 = _mm256_set1_epi32((int)probes[p]);
        const __m256i p1 = _mm256_set1_epi32((int)(p + 1 < m ? probes[p + 1] : 0));
        __m256i a0 = zero, a1 = zero;
        for (size_t i = 0; i < whole; i += 8) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i));
            a0 = _mm256_sub_epi32(a0, _mm256_cmpeq_epi32(_mm256_and_si256(v, p0), zero));
            a1 = _mm256_sub_epi32(a1, _mm256_cmpeq_epi32(_mm256_and_si256(v, p1), zero));
        }
        uint32_t lanes[8];
        _mm256_storeu_si256((__m256i *)(void *)lanes, p + 1 < m ? _mm256_add_epi32(a0, a1) : a0);
        for (int k = 0; k < 8; k++) hits += lanes[k];
    }
    return hits + join_portable(keys + whole, len - whole, probes, m);
}

static const nq_quad_simd avx2 = {"avx2", pair_portable, pick_portable, join_avx2};
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
