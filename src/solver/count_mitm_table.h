/* count_mitm_table.h - internal: the bottom-band table and join kernels of the meet-in-the-middle
 * counter (count_mitm.c is the only user).
 *
 * The table holds every placement of the last k rows of an n x n board as a 64-bit key: bits 32..63
 * are the "\" diagonals the placement occupies and bits 0..31 the "/" diagonals, each measured where
 * it crosses the first bottom row (row h = n - k), so a key is compatible with a top placement iff
 * it shares no bit with the top's attack masks on row h (probe = ld << 32 | rd).
 * Keys are grouped in buckets, one per set of k columns (colex rank), and each bucket in n slices by
 * the column of the queen on row h, so a join skips the slices of columns the top attacks on row h.
 * Each slice is padded with NQ_MITM_PAD_KEY to a multiple of NQ_MITM_BUCKET_ALIGN keys and 64-byte
 * aligned, so the join runs whole SIMD vectors with no tail. Probes must have NQ_MITM_PAD_KEY's bit
 * set: pads never match.
 *
 * Ownership: nq_mitm_table_create allocates, nq_mitm_table_destroy frees (NULL accepted).
 * Thread-safety: a built table is read-only; any number of threads may join against it.
 */
#ifndef NQ_COUNT_MITM_TABLE_H
#define NQ_COUNT_MITM_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "nqueens/solver.h"

#define NQ_MITM_PAD_KEY (UINT64_C(1) << 63) /* n <= 27, so no real key uses bit 63 */
#define NQ_MITM_BUCKET_ALIGN 8u             /* keys per 64-byte line and per AVX-512 vector */
#define NQ_MITM_TABLE_CAP ((size_t)1 << 30) /* the table never grows past 1 GiB */
#define NQ_MITM_LO_BITS 12                  /* column-set rank: bits resolved by the first lookup */

typedef struct nq_mitm_table {
    int n;             /* board size */
    int k;             /* rows in the bottom band */
    uint64_t *keys;    /* slice (r, c) is keys[start[r * n + c] .. start[r * n + c + 1]), padded */
    uint32_t *start;   /* nsets * n + 1 offsets: bucket r, queen on row h in column c */
    uint32_t nsets;    /* buckets: C(n, k) */
    uint64_t placed;   /* bottom placements stored (without padding) */
    uint32_t *lo_rank; /* colex rank of the columns below NQ_MITM_LO_BITS, by those bits */
    uint8_t *lo_pop;   /* how many columns below NQ_MITM_LO_BITS, by those bits */
    uint32_t *hi_rank; /* rank share of the higher columns: [lo_pop * hi_count + (set >> LO_BITS)] */
    size_t hi_count;   /* entries per lo_pop row of hi_rank */
} nq_mitm_table;

/* Build the table of the last k rows (1 <= k < n <= NQ_COUNT_N_MAX) on up to `threads` threads
 * (>= 1; the caller's thread is one of them, all are joined before return). ctl may be NULL; its
 * cancel flag is polled during the build. On success *out owns the table.
 * Errors: NQ_E_ARG, NQ_E_NOMEM (allocation failed or the table would pass NQ_MITM_TABLE_CAP),
 * NQ_E_CANCELED. On error nothing is allocated. */
nq_err nq_mitm_table_create(int n, int k, int threads, const nq_count_ctl *ctl, nq_mitm_table **out);

/* Free a table. NULL is accepted and ignored. */
void nq_mitm_table_destroy(nq_mitm_table *t);

/* Bytes the table holds (keys and indexes). */
size_t nq_mitm_table_bytes(const nq_mitm_table *t);

/* The bucket of a set of exactly k free columns. Two loads, no branch: the hot path calls it once
 * per top placement. */
static inline uint32_t nq_mitm_table_bucket(const nq_mitm_table *t, uint32_t free_cols)
{
    const uint32_t lo = free_cols & ((1u << NQ_MITM_LO_BITS) - 1u);
    return t->lo_rank[lo] + t->hi_rank[(size_t)t->lo_pop[lo] * t->hi_count + (free_cols >> NQ_MITM_LO_BITS)];
}

/* Count the keys of keys[0 .. len) (len a multiple of NQ_MITM_BUCKET_ALIGN, keys 64-byte aligned)
 * that share no bit with each of probes[0 .. m); returns the sum over the probes. */
typedef uint64_t (*nq_mitm_join_fn)(const uint64_t *keys, size_t len, const uint64_t *probes, size_t m);

/* The widest join kernel this CPU runs (AVX-512, AVX2 or portable C). Thread-safe. */
nq_mitm_join_fn nq_mitm_join_pick(void);

/* The portable kernel, for tests that hold the SIMD kernels to it. */
uint64_t nq_mitm_join_scalar(const uint64_t *keys, size_t len, const uint64_t *probes, size_t m);

#endif /* NQ_COUNT_MITM_TABLE_H */
