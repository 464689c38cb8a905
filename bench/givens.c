/* givens.c - the benchmarks' partial boards (givens.h). */
#include "givens.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

size_t nq_bench_random_givens(int n, int k, unsigned *seed, nq_square *g)
{
    size_t count = 0;
    while ((int)count < k) {
        nq_square free_sq[NQ_N_MAX * NQ_N_MAX];
        size_t m = 0;
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
                bool ok = true;
                for (size_t i = 0; i < count && ok; i++) {
                    const int gr = (int)g[i].row, gc = (int)g[i].col;
                    ok = gr != r && gc != c && gr - gc != r - c && gr + gc != r + c;
                }
                if (ok) free_sq[m++] = (nq_square){(uint32_t)r, (uint32_t)c};
            }
        if (m == 0) break; /* nowhere left: fewer queens than asked */
        g[count++] = free_sq[(size_t)rand_r(seed) % m];
    }
    return count;
}
