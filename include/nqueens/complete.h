/* complete.h - finish a partial board: the first solution that contains given queens, and how many do.
 *
 * A partial board ("givens") is a set of squares of an n x n board, n <= NQ_N_MAX, given as nq_square
 * entries in any order (the queens of a finished nq_placement qualify). The given queens stay where
 * they are; the search fills the other rows. Solutions are ordered as everywhere in the library
 * (solver.h): lexicographically by the column vector, the order of /solve.
 *
 * How: one 32-bit mask search, row by row. Before it starts, every given queen's column and both
 * diagonals are blocked for every other row (a per-row mask built once), so a free queen never has
 * to be checked against the givens again, and a row with a given queen has exactly one candidate.
 * Givens that share a row, a column or a diagonal can never be completed: that is found before any
 * search, in O(givens).
 *
 * Completion is NP-complete (Gent, Jefferson and Nightingale, 2017): some partial boards of n = 30
 * take seconds, so both searches take an nq_count_ctl to cancel them and to report progress.
 * Thread-safety: reentrant; ctl may be shared as in nq_count (cancel from one thread, read progress
 * from another). Memory: the search keeps O(n) state on the stack and allocates nothing.
 * Failure: arguments are checked first; a failed call writes nothing the caller must free.
 */
#ifndef NQ_COMPLETE_H
#define NQ_COMPLETE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/placement.h"
#include "nqueens/solver.h"

/* Whether the givens can be part of a solution at all as far as they go: each in range, no two in
 * one row, column or diagonal. O(givens). false for NULL with count > 0, or n out of range. */
bool nq_complete_consistent(int n, const nq_square *givens, size_t count);

/* Write to cols[0..n) the lexicographically first solution that contains every given queen, and set
 * *found; *found = false (cols untouched) when none exists, including when the givens attack each
 * other. givens may be NULL when count is 0 (the first solution of the empty board).
 * ctl (may be NULL) is polled every 2^14 search nodes; progress counts the candidates of the first
 * row without a given queen.
 * Errors: NQ_E_ARG (cols or found NULL, givens NULL with count > 0), NQ_E_RANGE (n outside
 * 1..NQ_N_MAX, or a given square outside the board), NQ_E_CANCELED (*found then false). */
nq_err nq_complete_first(int n, const nq_square *givens, size_t count, nq_count_ctl *ctl, uint8_t *cols, bool *found);

/* nq_complete_first on a board with blocked squares (the Blocked n-Queens problem of the same paper):
 * bit c of blocked[r] (r < n) forbids the square (r, c) to every queen, given or placed; bits at or
 * above n are ignored. A given queen on a blocked square has no completion. blocked NULL: nothing is
 * blocked (nq_complete_first). Same errors, polling and progress as nq_complete_first. */
nq_err nq_complete_first_blocked(int n, const nq_square *givens, size_t count, const uint32_t *blocked,
                                 nq_count_ctl *ctl, uint8_t *cols, bool *found);

/* The number of solutions that contain every given queen, into *out (0 when the givens attack each
 * other). With no givens this is nq_count's total, counted by nq_count on `threads` threads
 * (0: one per CPU, as nq_count_cpus says); otherwise the mask search runs on `threads` threads, which
 * share out the subtrees below the first two rows without a given queen (one thread when there are
 * fewer such rows), polling ctl as nq_complete_first does; progress counts those subtrees. A count
 * on several threads allocates one 12 KB task list before it starts (NQ_E_NOMEM without it).
 * n is limited to NQ_COUNT_N_MAX, the largest whose count fits 64 bits.
 * Errors: NQ_E_ARG (out NULL, givens NULL with count > 0, threads < 0), NQ_E_RANGE (n outside
 * 1..NQ_COUNT_N_MAX, or a square outside the board), NQ_E_CANCELED, and those of nq_count. */
nq_err nq_complete_count(int n, const nq_square *givens, size_t count, int threads, nq_count_ctl *ctl, uint64_t *out);

#endif /* NQ_COMPLETE_H */
