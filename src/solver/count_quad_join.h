/* count_quad_join.h - internal: the join kernels of the half-board counter (count_quad.c).
 *
 * A join counts the pairs (key, probe) that share no bit: keys are bottom halves, probes top halves,
 * both reduced to 32-bit keys. 32-bit lanes test twice as many pairs per instruction as the 64-bit
 * kernels of the meet-in-the-middle counter, and the test unit is what bounds the join.
 *
 * Any lengths: the kernels mask the tail instead of asking for padding.
 * Thread-safety: pure functions of their arguments.
 */
#ifndef NQ_COUNT_QUAD_JOIN_H
#define NQ_COUNT_QUAD_JOIN_H

#include <stddef.h>
#include <stdint.h>

/* Sum over probes[0 .. m) of the number of keys[0 .. len) with (key & probe) == 0. */
typedef uint64_t (*nq_quad_join_fn)(const uint32_t *keys, size_t len, const uint32_t *probes,
                                    size_t m);

/* The widest kernel this CPU runs (AVX-512, AVX2 or portable C). Thread-safe. */
nq_quad_join_fn nq_quad_join_pick(void);

/* The portable kernel, for tests that hold the SIMD kernels to it. */
uint64_t nq_quad_join_scalar(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m);

#endif /* NQ_COUNT_QUAD_JOIN_H */
