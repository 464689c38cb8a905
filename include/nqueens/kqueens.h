/* kqueens.h - k queens: the ways to put k mutually non-attacking queens on an n x n board.
 *
 * The variation the textbooks list beside N-Queens II. k = n is the N-Queens count (nq_count); k < n
 * leaves rows empty, so the search branches on "no queen in this row" too and grows far faster with
 * n: the hardest k (about 2n/3) takes 0.2 s at n = 11, 1.7 s at n = 12 and 16 s at n = 13 on one
 * core of the reference machine (docs/play.md).
 *
 * `unique` counts classes under the 8 symmetries of the square by Burnside's lemma: the mean over the
 * symmetries of the configurations each one fixes. The four reflections fix at most one queen (two
 * queens that mirror each other always share a line), so only the identity and the two rotations
 * need a search, the rotations over a quarter or a half of the board.
 *
 * Thread-safety: reentrant; ctl may be shared as in nq_count. Memory: none allocated for k < n (the
 * recursion is at most n deep).
 */
#ifndef NQ_KQUEENS_H
#define NQ_KQUEENS_H

#include "nqueens/solver.h"

/* Count the placements of k non-attacking queens on the n x n board into *out: total, and unique up
 * to rotations and reflections. 0 <= k <= n; k = 0 is the empty board (1, 1); k = n is nq_count's
 * (on `threads` threads, 0: one per CPU; other k run on the calling thread). ctl (may be NULL) is
 * polled every 2^16 search nodes; progress counts the choices of row 0.
 * Errors: NQ_E_ARG (out NULL, threads < 0), NQ_E_RANGE (n outside 1..NQ_COUNT_N_MAX, or k outside
 * 0..n), NQ_E_CANCELED (*out unspecified), those of nq_count. */
nq_err nq_count_k(int n, int k, int threads, nq_count_ctl *ctl, nq_counts *out);

#endif /* NQ_KQUEENS_H */
