/* count_cases.h - known counts for the counting tests: OEIS A000170 (total) and A002562 (unique).
 * Copied from the OEIS (oeis.org/A000170, oeis.org/A002562), n = 1..19; index n. */
#ifndef NQ_TEST_COUNT_CASES_H
#define NQ_TEST_COUNT_CASES_H

#include <stdint.h>

static const struct {
    uint64_t total;  /* A000170(n) */
    uint64_t unique; /* A002562(n) */
} known_counts[] = {
    {0, 0}, /* n = 0: unused */
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
};

#endif /* NQ_TEST_COUNT_CASES_H */
