/* count_quad_join.c - 32-bit join kernels of the half-board counter (count_quad_join.h).
 *
 * Each kernel loads a vector of keys once and tests it against four probes (register blocking keeps
 * the kernel bound by the test unit, not by loads). On AVX-512 a test writes a lane mask and a masked
 * add counts it; the last, partial vector is loaded and tested under a lane mask, so keys need no
 * padding. AVX2 has no lane masks: a matching lane compares equal to zero (all ones, -1), which is
 * subtracted; its tail goes through the portable loop.
 */
#include "count_quad_join.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NQ_QUAD_X86 1
#else
#define NQ_QUAD_X86 0
#endif

#define PROBES_PER_PASS 4 /* probes tested against each loaded vector */

uint64_t nq_quad_join_scalar(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m)
{
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p++)
        for (size_t i = 0; i < len; i++)
            hits += (keys[i] & probes[p]) == 0;
    return hits;
}

#if NQ_QUAD_X86
/* A missing fourth probe is all ones: with the lane mask of the vector it can still match a key of
 * 0, so its count is dropped instead (the `used` mask). */
__attribute__((target("avx512f"))) static uint64_t join_avx512(const uint32_t *keys, size_t len,
                                                              const uint32_t *probes, size_t m)
{
    const __m512i one = _mm512_set1_epi32(1);
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p += PROBES_PER_PASS) {
        const __m512i p0 = _mm512_set1_epi32((int)probes[p]);
        const __m512i p1 = _mm512_set1_epi32((int)(p + 1 < m ? probes[p + 1] : 0));
        const __m512i p2 = _mm512_set1_epi32((int)(p + 2 < m ? probes[p + 2] : 0));
        const __m512i p3 = _mm512_set1_epi32((int)(p + 3 < m ? probes[p + 3] : 0));
        __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
        for (size_t i = 0; i < len; i += 16) {
            const __mmask16 lanes = len - i >= 16 ? (__mmask16)0xFFFF
                                                  : (__mmask16)((1u << (len - i)) - 1u);
            const __m512i v = _mm512_maskz_loadu_epi32(lanes, keys + i);
            a0 = _mm512_mask_add_epi32(a0, _mm512_mask_testn_epi32_mask(lanes, v, p0), a0, one);
            a1 = _mm512_mask_add_epi32(a1, _mm512_mask_testn_epi32_mask(lanes, v, p1), a1, one);
            a2 = _mm512_mask_add_epi32(a2, _mm512_mask_testn_epi32_mask(lanes, v, p2), a2, one);
            a3 = _mm512_mask_add_epi32(a3, _mm512_mask_testn_epi32_mask(lanes, v, p3), a3, one);
        }
        /* probes past the end were 0 and matched every key: leave their counters out */
        __m512i sum = a0;
        if (p + 1 < m)
            sum = _mm512_add_epi32(sum, a1);
        if (p + 2 < m)
            sum = _mm512_add_epi32(sum, a2);
        if (p + 3 < m)
            sum = _mm512_add_epi32(sum, a3);
        hits += (uint64_t)(uint32_t)_mm512_reduce_add_epi32(sum);
    }
    return hits;
}

__attribute__((target("avx2"))) static uint64_t join_avx2(const uint32_t *keys, size_t len,
                                                          const uint32_t *probes, size_t m)
{
    const __m256i zero = _mm256_setzero_si256();
    const size_t whole = len - len % 8;
    uint64_t hits = 0;
    for (size_t p = 0; p < m; p += 2) {
        const __m256i p0 = _mm256_set1_epi32((int)probes[p]);
        const __m256i p1 = _mm256_set1_epi32((int)(p + 1 < m ? probes[p + 1] : UINT32_MAX));
        __m256i a0 = zero, a1 = zero;
        for (size_t i = 0; i < whole; i += 8) {
            const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i));
            a0 = _mm256_sub_epi32(a0, _mm256_cmpeq_epi32(_mm256_and_si256(v, p0), zero));
            a1 = _mm256_sub_epi32(a1, _mm256_cmpeq_epi32(_mm256_and_si256(v, p1), zero));
        }
        uint32_t lanes[8];
        _mm256_storeu_si256((__m256i *)(void *)lanes, p + 1 < m ? _mm256_add_epi32(a0, a1) : a0);
        for (int k = 0; k < 8; k++)
            hits += lanes[k];
    }
    return hits + nq_quad_join_scalar(keys + whole, len - whole, probes, m);
}
#endif

nq_quad_join_fn nq_quad_join_pick(void)
{
#if NQ_QUAD_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return join_avx512;
    if (__builtin_cpu_supports("avx2"))
        return join_avx2;
#endif
    return nq_quad_join_scalar;
}
