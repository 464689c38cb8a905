/* count_sym.c - boards invariant under a quarter or half turn, for Burnside's unique count
 * (count_workers.h).
 *
 * The table counters find all solutions; the number of symmetry classes then follows
 * from how many solutions each rotation fixes. Such boards are determined by a quarter (or half) of
 * their queens, so this search places whole rotation orbits at a time and is tiny next to the main
 * count (about a square root of it). Written for clarity: board state is four masks.
 */
#include "count_workers.h"

#include <stdatomic.h>
#include <stdint.h>

#define CANCEL_STRIDE 4096u /* search nodes between two looks at the cancel flag */

typedef struct board {
    uint32_t rows, cols; /* occupied rows and columns */
    uint64_t sum, dif;   /* occupied "/" (r + c) and "\" (r - c + n - 1) diagonals */
} board;

typedef struct sym_search {
    int n;             /* board size */
    int turns;         /* 1: invariant under a quarter turn; 2: under a half turn */
    uint64_t found;    /* boards found so far */
    unsigned budget;   /* nodes until the next cancel check */
    bool stopped;      /* cancel seen */
    nq_count_ctl *ctl; /* may be NULL */
} sym_search;

/* Put a queen on (r, c) unless its row, column or a diagonal is taken. */
static bool put(int n, board *b, int r, int c)
{
    const uint32_t rbit = 1u << r, cbit = 1u << c;
    const uint64_t sbit = 1ull << (r + c), dbit = 1ull << (r - c + n - 1);
    if ((b->rows & rbit) || (b->cols & cbit) || (b->sum & sbit) || (b->dif & dbit)) return false;
    b->rows |= rbit;
    b->cols |= cbit;
    b->sum |= sbit;
    b->dif |= dbit;
    return true;
}

/* Put the whole orbit of (r, c) under the search's rotation: 4 cells for a quarter turn, 2 for a
 * half turn, 1 for the centre of an odd board. */
static bool put_orbit(const sym_search *s, board *b, int r, int c)
{
    const int n = s->n, m = n - 1;
    if (2 * r == m && 2 * c == m) return put(n, b, r, c);
    if (s->turns == 2) return put(n, b, r, c) && put(n, b, m - r, m - c);
    return put(n, b, r, c) && put(n, b, c, m - r) && put(n, b, m - r, m - c) && put(n, b, m - c, r);
}

static bool keep_going(sym_search *s)
{
    if (--s->budget == 0) {
        s->budget = CANCEL_STRIDE;
        if (s->ctl != NULL && atomic_load_explicit(&s->ctl->cancel, memory_order_relaxed)) s->stopped = true;
    }
    return !s->stopped;
}

/* Fill the lowest empty row with every column whose orbit fits, recursively. */
static void search(sym_search *s, const board *b)
{
    const uint32_t full = (uint32_t)((1ull << s->n) - 1u);
    if (b->rows == full) {
        s->found++;
        return;
    }
    if (!keep_going(s)) return;
    const int r = __builtin_ctz(~b->rows);
    uint32_t avail = full & ~b->cols;
    while (avail != 0) {
        const int c = __builtin_ctz(avail);
        avail &= avail - 1u;
        board next = *b;
        if (put_orbit(s, &next, r, c)) search(s, &next);
    }
}

static nq_err count_fixed(int n, int turns, nq_count_ctl *ctl, uint64_t *out)
{
    sym_search s = {n, turns, 0, CANCEL_STRIDE, false, ctl};
    const board empty = {0, 0, 0, 0};
    search(&s, &empty);
    *out = s.found;
    return s.stopped ? NQ_E_CANCELED : NQ_OK;
}

nq_err nq_count_symmetric(int n, nq_count_ctl *ctl, uint64_t *quarter, uint64_t *half)
{
    if (quarter == NULL || half == NULL) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    const nq_err err = count_fixed(n, 1, ctl, quarter);
    return err != NQ_OK ? err : count_fixed(n, 2, ctl, half);
}
