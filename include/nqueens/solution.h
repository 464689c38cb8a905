/* solution.h - one solution for a board of any size: constructed, or random from a seed.
 *
 * For boards far beyond what can be enumerated (solver.h stops at n = 32): n up to
 * NQ_SOLUTION_N_MAX = 10^9. A solution is a column vector: cols[r] is the 0-based column of the queen
 * in row r, as uint32_t.
 *
 * Boards 2 and 3 have no solution; every other n has. Functions asked for one of them return
 * NQ_NO_SOLUTION, which is an answer (the table maps it to 200), not a failure.
 *
 * Thread-safety: every function is reentrant; an nq_construct is read-only after nq_construct_init
 * and may be shared. nq_random_solution's control block is shared like nq_count's (cancel from one
 * thread, read progress from another).
 */
#ifndef NQ_SOLUTION_H
#define NQ_SOLUTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"
#include "nqueens/placement.h"
#include "nqueens/solver.h"

#define NQ_SOLUTION_N_MAX NQ_PLACEMENT_N_MAX /* 10^9 */

/* True when an n x n board has a solution: n = 1 or 4 <= n (<= NQ_SOLUTION_N_MAX). */
bool nq_solution_exists(uint64_t n);

/* ---- the explicit construction ---------------------------------------------------------------- */

/* The construction for one n, worked out once (O(1)) so that each row then costs a few instructions.
 * Callers read no field; it is a plain value so it lives on the stack of a request and needs no
 * freeing. */
typedef struct nq_construct {
    uint32_t n;    /* board size */
    uint32_t nseg; /* runs in use */
    struct {
        uint32_t row; /* first row of the run */
        uint32_t col; /* its column; each next row of the run is 2 columns further right */
    } seg[5];         /* the rows split into runs of columns in steps of 2, in row order */
} nq_construct;

/* Prepare the construction for n (solution_construct.c says which; n = 8 gives 1,3,5,7,2,0,6,4).
 * Returns NQ_OK; NQ_NO_SOLUTION for n = 2, 3 (*c is then unusable); NQ_E_ARG (c NULL);
 * NQ_E_RANGE (n = 0 or n > NQ_SOLUTION_N_MAX). */
nq_err nq_construct_init(nq_construct *c, uint64_t n);

/* The column of the queen in `row` (row < c->n, asserted): O(1), no memory, so a server can stream a
 * board of any size row by row. */
uint32_t nq_construct_column(const nq_construct *c, uint32_t row);

/* Write the columns of rows first .. first+count-1 to cols[0..count): the same values as
 * nq_construct_column, about a nanosecond per row (plain runs of +2, which vectorise). For streaming
 * in blocks. Errors: NQ_E_ARG (c NULL, cols NULL with count > 0, first + count > n). */
nq_err nq_construct_rows(const nq_construct *c, uint32_t first, uint32_t count, uint32_t *cols);

/* The run of the construction that holds `row` (row < c->n, asserted), from row on: *col receives
 * row's column, and the result is how many rows, row included, keep adding 2 to it (at least 1).
 * O(1). For renderers that write a run at a time (nq_json_run). */
uint32_t nq_construct_run(const nq_construct *c, uint32_t row, uint32_t *col);

/* ---- the random solution ---------------------------------------------------------------------- */

/* Boards below this size are solved by a randomised backtracking search, at and above it by local
 * search (solution_random.c explains why). */
#define NQ_RANDOM_LOCAL_MIN 32

/* Working memory nq_random_solution allocates for n, in bytes, besides the caller's 4n-byte cols:
 * about 4n (a byte per diagonal of each direction) plus 0.63n for the repair phase's work
 * list: 4.6 MB at n = 10^6, 460 MB at 10^8. An upper bound, for admission control; 0 below
 * NQ_RANDOM_LOCAL_MIN (no heap) and for n outside the range. */
size_t nq_random_memory(uint64_t n);

/* Write to cols[0..n) a random solution of the n x n board, determined by (n, seed) alone: the same
 * board on every platform, compiler and build of this release (the library's own xoshiro256**
 * generator, seeded by splitmix64). Different seeds give different boards (except where n has few
 * solutions).
 * n >= NQ_RANDOM_LOCAL_MIN: Sosic and Gu's QS4-style local search (a conflict-free greedy start over a
 * random permutation, then swaps that reduce the number of attacks), expected O(n) time; about 0.07 s
 * at n = 10^6 and 2.5 s at 10^7 on one core (docs/solution.md). Smaller n: randomised backtracking.
 * ctl may be NULL; when given (initialised with nq_count_ctl_init) the search looks at ctl->cancel
 * every 4096 steps and returns NQ_E_CANCELED within about a millisecond of search (plus, at worst, a
 * pass over its arrays, about 0.1 s at n = 10^8), and reports progress through ctl->done /
 * ctl->total (read it with nq_count_progress; 1.0 when done).
 * Memory: nq_random_memory(n), allocated inside and freed before the call returns.
 * Returns NQ_OK; NQ_NO_SOLUTION (n = 2, 3; cols untouched); NQ_E_ARG (cols NULL); NQ_E_RANGE
 * (n = 0 or n > NQ_SOLUTION_N_MAX); NQ_E_NOMEM; NQ_E_CANCELED (cols then holds a permutation that is
 * not yet a solution). */
nq_err nq_random_solution(uint64_t n, uint64_t seed, nq_count_ctl *ctl, uint32_t *cols);

#endif /* NQ_SOLUTION_H */
