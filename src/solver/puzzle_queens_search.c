/* puzzle_queens_search.c - the queens kind's board state and its exact counter (puzzle_queens.h).
 *
 * Tuned for proving a puzzle unique: boards up to 62 rows with many queens given, counted to a
 * limit of 2. A completion puzzle is tightly constrained, so the search propagates before it
 * guesses: a row or column with no open square ends the branch, one with a single open square is
 * filled before any choice, and otherwise it branches on the line (row or column) with the fewest
 * open squares. Column counts are not kept square by square: three running masks (columns seen
 * in at least one, two, three open rows) give the columns with 0, 1 or 2 open squares in O(n) per
 * node. Each level of the recursion copies the state (about 0.6 KB): depth is at most n.
 */
#include "puzzle_queens.h"

#include <string.h>

void nq_pq_state_init(nq_pq_state *s, int n)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    s->full = n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1u;
    s->cols_open = s->rows_open = s->full;
    for (int r = 0; r < NQ_PQ_MAX; r++) s->queen[r] = -1;
    for (int r = 0; r < n; r++) s->cand[r] = s->full;
}

void nq_pq_place(nq_pq_state *s, int r, int c)
{
    if (!(s->cand[r] >> c & 1u)) s->broken = true;
    if (s->queen[r] >= 0) return;
    s->queen[r] = (int16_t)c;
    s->cand[r] = 0;
    s->rows_open &= ~(UINT64_C(1) << r);
    s->cols_open &= ~(UINT64_C(1) << c);
    for (int i = 0; i < s->n; i++)
        if (i != r) s->cand[i] &= ~nq_pq_attacks(i, r, c);
}

void nq_pq_exclude(nq_pq_state *s, int r, int c)
{
    s->cand[r] &= ~(UINT64_C(1) << c);
}

uint64_t nq_pq_col(const nq_pq_state *s, int c)
{
    uint64_t m = 0;
    for (int r = 0; r < s->n; r++) m |= (s->cand[r] >> c & 1u) << r;
    return m;
}

/* ---- the counter ---------------------------------------------------------------------------- */

typedef struct run {
    nq_pq_count *c;     /* the caller's request and results */
    nq__puzzle_work *w; /* the node budget */
    nq_err rc;          /* NQ_OK until cancelled or out of budget */
} run;

/* The next line to fill: *is_row and *line name it; returns its number of open squares (0: the
 * branch is dead, any line will do). */
static int choose(const nq_pq_state *s, bool *is_row, int *line)
{
    uint64_t one = 0, two = 0, three = 0; /* columns open in >= 1, >= 2, >= 3 open rows */
    int best = 65;
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        const uint64_t m = s->cand[r];
        const int k = __builtin_popcountll(m);
        if (k < best) best = k, *is_row = true, *line = r;
        if (k == 0) return 0;
        three |= two & m;
        two |= one & m;
        one |= m;
    }
    const uint64_t none = s->cols_open & ~one, single = one & ~two, pair = two & ~three;
    if (none) return *is_row = false, *line = __builtin_ctzll(none), 0;
    if (best > 1 && single) return *is_row = false, *line = __builtin_ctzll(single), 1;
    if (best > 2 && pair) return *is_row = false, *line = __builtin_ctzll(pair), 2;
    return best;
}

static void record(const nq_pq_state *s, nq_pq_count *c)
{
    if (c->found++ == 0) memcpy(c->first, s->queen, sizeof c->first);
}

/* Depth-first below s; false once the search must end (limit reached, cancelled, budget). */
static bool search(const nq_pq_state *s, run *u)
{
    if (s->rows_open == 0) {
        record(s, u->c);
        return u->c->found < u->c->limit;
    }
    bool is_row = true;
    int line = 0;
    if (choose(s, &is_row, &line) == 0) return true;
    uint64_t opts = is_row ? s->cand[line] : nq_pq_col(s, line);
    for (; opts; opts &= opts - 1) {
        const int k = __builtin_ctzll(opts);
        u->rc = nq__puzzle_tick(u->w);
        if (u->rc != NQ_OK) return false;
        nq_pq_state next = *s;
        nq_pq_place(&next, is_row ? line : k, is_row ? k : line);
        if (!search(&next, u)) return false;
    }
    return true;
}

nq_err nq_pq_count_run(const nq_pq_state *s, nq__puzzle_work *w, nq_pq_count *c)
{
    run u = {c, w, NQ_OK};
    c->found = 0;
    if (s->broken || c->limit == 0) return NQ_OK;
    (void)search(s, &u);
    return u.rc;
}
