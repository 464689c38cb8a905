/* solution_construct.c - one solution for every n except 2 and 3, by explicit formula, O(1) a row.
 *
 * The construction is the classical one by residue of n modulo 6, as given by Hoffman, Loessi and
 * Moore ("Constructions for the solution of the m queens problem", Mathematics Magazine 42(2):66-72,
 * 1969) and restated by Bernhardsson ("Explicit solutions to the N-queens problem for all N", ACM
 * SIGART Bulletin 2(2):7, 1991). In 1-based columns, rows top to bottom:
 *   n mod 6 not 2 or 3:  2, 4, 6, ..., then 1, 3, 5, ...
 *   n mod 6 = 2:          2, 4, ..., n,   then 3, 1, 7, 9, ..., n-1, 5   (1 and 3 swapped, 5 last)
 *   n mod 6 = 3:          4, 6, ..., n-1, 2, then 5, 7, ..., n, 1, 3    (2 last; 1 and 3 last)
 * (n = 1 is the first family with no even part.) Each family is a handful of runs in which the column
 * grows by 2 from row to row, so a board is described by at most five (first row, first column)
 * pairs: a row's column is found by comparing it with at most four run starts, and a block of rows is
 * a few loops of "+2", which is what lets a server stream 10^8 rows at memory speed.
 * The tests check every n up to 20,000 and samples up to 10^9 with a checker of their own.
 */
#include "nqueens/solution.h"

#include <assert.h>

bool nq_solution_exists(uint64_t n)
{
    return n == 1 || (n >= 4 && n <= NQ_SOLUTION_N_MAX);
}

/* Appends the run starting at row with column col (0-based). */
static void add_run(nq_construct *c, uint32_t row, uint32_t col)
{
    c->seg[c->nseg].row = row;
    c->seg[c->nseg].col = col;
    c->nseg++;
}

nq_err nq_construct_init(nq_construct *c, uint64_t n)
{
    if (c == NULL) return NQ_E_ARG;
    if (n == 0 || n > NQ_SOLUTION_N_MAX) return NQ_E_RANGE;
    if (!nq_solution_exists(n)) return NQ_NO_SOLUTION;
    const uint32_t m = (uint32_t)n, half = m / 2; /* rows that take the even (1-based) columns */
    *c = (nq_construct){.n = m};
    switch (m % 6) {
    case 2: /* evens 2..n; odds 3, 1, 7..n-1, 5 (n >= 8, so the 7.. run is never empty) */
        add_run(c, 0, 1);
        add_run(c, half, 2);
        add_run(c, half + 1, 0);
        add_run(c, half + 2, 6);
        add_run(c, m - 1, 4);
        break;
    case 3: /* evens 4..n-1, 2; odds 5..n, 1, 3 (n >= 9) */
        add_run(c, 0, 3);
        add_run(c, half - 1, 1);
        add_run(c, half, 4);
        add_run(c, m - 2, 0);
        add_run(c, m - 1, 2);
        break;
    default: /* evens 2..; odds 1.. (n = 1: the odd run alone) */
        if (half > 0) add_run(c, 0, 1);
        add_run(c, half, 0);
        break;
    }
    return NQ_OK;
}

/* The run that holds row (row < c->n). */
static uint32_t run_of(const nq_construct *c, uint32_t row)
{
    uint32_t s = c->nseg - 1;
    while (c->seg[s].row > row) s--; /* seg[0].row is 0, so this stops */
    return s;
}

uint32_t nq_construct_column(const nq_construct *c, uint32_t row)
{
    assert(c != NULL && row < c->n);
    const uint32_t s = run_of(c, row);
    return c->seg[s].col + 2 * (row - c->seg[s].row);
}

uint32_t nq_construct_run(const nq_construct *c, uint32_t row, uint32_t *col)
{
    assert(c != NULL && col != NULL && row < c->n);
    const uint32_t s = run_of(c, row);
    *col = c->seg[s].col + 2 * (row - c->seg[s].row);
    const uint32_t end = s + 1 < c->nseg ? c->seg[s + 1].row : c->n;
    return end - row;
}

nq_err nq_construct_rows(const nq_construct *c, uint32_t first, uint32_t count, uint32_t *cols)
{
    if (c == NULL || (cols == NULL && count > 0)) return NQ_E_ARG;
    if (first > c->n || count > c->n - first) return NQ_E_ARG;
    const uint32_t end = first + count;
    uint32_t row = first;
    for (uint32_t s = 0; s < c->nseg && row < end; s++) {
        const uint32_t run_end = s + 1 < c->nseg ? c->seg[s + 1].row : c->n;
        if (run_end <= row) continue;
        const uint32_t stop = run_end < end ? run_end : end;
        /* col = base + 2 * row within the run; written as one add per row so it vectorises */
        const uint32_t base = c->seg[s].col - 2 * c->seg[s].row; /* may wrap; the sum below does not */
        for (; row < stop; row++) cols[row - first] = base + 2 * row;
    }
    return NQ_OK;
}
