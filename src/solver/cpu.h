/* cpu.h - internal to the solver: which vector instructions this CPU runs, asked once per count by
 * the counters that carry SIMD kernels (count_mitm_table.c, count_quad_simd.c).
 *
 * NQ_X86 says whether the compiler can build x86 kernels at all (GCC or clang on x86-64, with
 * target attributes); nq_simd_level what the running CPU supports. Thread-safe and cheap, but each
 * counter asks once and keeps the answer.
 */
#ifndef NQ_SOLVER_CPU_H
#define NQ_SOLVER_CPU_H

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NQ_X86 1
#else
#define NQ_X86 0
#endif

typedef enum nq_simd {
    NQ_SIMD_PORTABLE, /* plain C */
    NQ_SIMD_AVX2,     /* 256-bit vectors, and BMI2 */
    NQ_SIMD_AVX512    /* 512-bit vectors with lane masks (AVX-512F), and AVX2 and BMI2 beside them */
} nq_simd;

static inline nq_simd nq_simd_level(void)
{
#if NQ_X86
    __builtin_cpu_init();
    /* The AVX-512 kernels call AVX2 ones too, and the AVX2 ones use BMI2: every CPU with AVX2 has had
     * BMI2 since both came (Haswell, Excavator), but a VM may mask features. */
    const int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    if (avx2 && __builtin_cpu_supports("avx512f")) return NQ_SIMD_AVX512;
    if (avx2) return NQ_SIMD_AVX2;
#endif
    return NQ_SIMD_PORTABLE;
}

#endif /* NQ_SOLVER_CPU_H */
