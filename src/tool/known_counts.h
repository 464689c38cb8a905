/* known_counts.h - what the command-line tools (nqueens, nqueens-mpi) share: the counts that are
 * known for every n they count, OEIS A000170 (solutions) and A002562 (classes under the board's
 * symmetries), to hold a count assembled from parts (shards, a checkpoint, workers) against.
 *
 * A count the tools add up from parts that travelled through files and networks is compared with
 * these before it is printed: a part that was damaged or forged in a way its own checks cannot see
 * (sums that still fit each other) then makes the whole count wrong, and is refused rather than
 * printed. Pure and thread-safe (a constant table).
 */
#ifndef NQ_KNOWN_COUNTS_H
#define NQ_KNOWN_COUNTS_H

#include <stdbool.h>

#include "nqueens/solver.h"

/* The known counts of n into *out: true for n = 1..NQ_COUNT_N_MAX, false (nothing written) for any
 * other n. */
bool nq_known_counts(int n, nq_counts *out);

#endif /* NQ_KNOWN_COUNTS_H */
