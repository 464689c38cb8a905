/* count_quad_simd.h - internal: the hot loops of the half-board counter (count_quad.c), one set per
 * instruction set.
 *
 *   pair: build halves from one left-quadrant placement and a run of right-quadrant placements;
 *   pick: copy the keys of a run of halves that leave a given cell free (have none of its bits);
 *   join: count (key, probe) pairs that share no bit (bottom halves against top halves).
 * All three stream 32-bit keys and marks (count_quad_table.h). 32-bit lanes test twice as many pairs
 * per instruction as 64-bit ones, and the test unit is what bounds the join.
 *
 * pair and pick write whole vectors: their output must have NQ_QUAD_SIMD_SLACK elements of room past
 * what they return. pair may also read NQ_QUAD_SIMD_OVERREAD elements past the end of rdiag, rkey and
 * rmark (and leaves them out): the quadrant tables keep that many spare entries (NQ_QUAD_SPARE).
 * join takes any length below 2^30 keys (it masks its tail; its lane counters are 32-bit): a join gets
 * one slice of one column set's halves, hundreds to thousands of keys. Keys are at most 32 bits
 * wide; how a set counts (streamed, or bit-sliced for long joins on AVX2 and AVX-512) is its own
 * affair: every set returns the same count.
 * Thread-safety: pure functions of their arguments; the table is constant.
 */
#ifndef NQ_COUNT_QUAD_SIMD_H
#define NQ_COUNT_QUAD_SIMD_H

#include <stddef.h>
#include <stdint.h>

#define NQ_QUAD_SIMD_SLACK 16   /* elements written past the end of pair's and pick's output */
#define NQ_QUAD_SIMD_OVERREAD 8 /* elements pair may read past the end of its right run */

typedef struct nq_quad_simd {
    const char *name; /* "avx512", "avx2" or "portable" */

    /* For each l < llen and r < rlen with (ldiag[l] & rdiag[r]) == 0, in that order, append
     * lkey[l] | rkey[r] to okey and lmark[l] | rmark[r] to omark; returns how many were appended.
     * Reads up to NQ_QUAD_SIMD_OVERREAD elements past rdiag, rkey and rmark's rlen. */
    size_t (*pair)(const uint64_t *ldiag, const uint32_t *lkey, const uint32_t *lmark, size_t llen,
                   const uint64_t *rdiag, const uint32_t *rkey, const uint32_t *rmark, size_t rlen, uint32_t *okey,
                   uint32_t *omark);

    /* Append key[i] to out for each i < len with (key[i] & kmask) == 0 and (mark[i] & mmask) == 0;
     * returns how many. */
    size_t (*pick)(const uint32_t *key, const uint32_t *mark, size_t len, uint32_t kmask, uint32_t mmask,
                   uint32_t *out);

    /* Sum over probes[0 .. m) of the number of keys[0 .. len) with (key & probe) == 0. */
    uint64_t (*join)(const uint32_t *keys, size_t len, const uint32_t *probes, size_t m);
} nq_quad_simd;

/* The widest set this CPU runs. Thread-safe. */
const nq_quad_simd *nq_quad_simd_best(void);

/* The portable set, for tests that hold the others to it. */
const nq_quad_simd *nq_quad_simd_portable(void);

/* Every set this CPU runs, widest first, the portable one last: up to `max` of them into out;
 * returns how many. For tests that hold each to the portable one. Thread-safe. */
size_t nq_quad_simd_all(const nq_quad_simd **out, size_t max);

#endif /* NQ_COUNT_QUAD_SIMD_H */
