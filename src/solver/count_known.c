/* count_known.c - OEIS A000170 and A002562 for n = 1..27 (nq_count_known, solver.h).
 *
 * Copied from oeis.org/A000170 and oeis.org/A002562; n = 23 is also this project's own count
 * (bench/results/count-23.ndjson), and the tests count n <= 19 against their own copy
 * (tests/solver/count_cases.h).
 */
#include "nqueens/solver.h"

/* Index n; n = 0 is unused (the tools count n >= 1). */
static const nq_counts known[NQ_COUNT_N_MAX + 1] = {
    {0, 0},
    {1, 1},
    {0, 0},
    {0, 0},
    {2, 1},
    {10, 2},
    {4, 1},
    {40, 6},
    {92, 12},
    {352, 46},
    {724, 92},
    {2680, 341},
    {14200, 1787},
    {73712, 9233},
    {365596, 45752},
    {2279184, 285053},
    {14772512, 1846955},
    {95815104, 11977939},
    {666090624, 83263591},
    {4968057848, 621012754},
    {39029188884, 4878666808},
    {314666222712, 39333324973},
    {2691008701644, 336376244042},
    {24233937684440, 3029242658210},
    {227514171973736, 28439272956934},
    {2207893435808352, 275986683743434},
    {22317699616364044, 2789712466510289},
    {234907967154122528, 29363495934315694},
};

bool nq_count_known(int n, nq_counts *out)
{
    if (n < 1 || n > NQ_COUNT_N_MAX) return false;
    *out = known[n];
    return true;
}
