/* givens.h - the benchmarks' partial boards: k queens placed one by one, each on a square chosen
 * uniformly among those no earlier queen attacks (the "natural" generator of the completion
 * benchmarks). Shared by bench_complete and bench_cost so both time the same instances.
 * Thread-safe: the state is the caller's seed.
 */
#ifndef NQ_BENCH_GIVENS_H
#define NQ_BENCH_GIVENS_H

#include <stddef.h>

#include "nqueens/complete.h"

/* Place up to k queens on an n x n board (n <= NQ_N_MAX) into g (room for k), drawing from *seed
 * (rand_r). Returns how many were placed: fewer than k when no unattacked square is left. */
size_t nq_bench_random_givens(int n, int k, unsigned *seed, nq_square *g);

#endif /* NQ_BENCH_GIVENS_H */
