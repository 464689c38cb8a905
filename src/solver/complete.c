/* complete.c - the first solution containing given queens, and their number (see complete.h).
 *
 * Tuned for boards up to 32 rows with a handful of givens: the givens are folded once into a mask
 * per row of the squares they attack (blocked[]), so the inner loop is the plain three-mask search
 * with one more OR, and a row holding a given offers only that square. The explicit stack lives in
 * a struct on the caller's stack: nothing is allocated.
 */
#include "nqueens/complete.h"

#include <string.h>

#define POLL_MASK ((1u << 14) - 1) /* nodes between looks at ctl->cancel */

/* The givens, folded for the search. */
typedef struct board {
    int n;                     /* rows */
    uint32_t full;             /* the n low bits */
    uint32_t blocked[NQ_N_MAX]; /* squares of each row a given queen of another row attacks */
    int given[NQ_N_MAX];       /* the given column of each row, -1 for a free row */
    int first_free;            /* the first row without a given, n when every row has one */
} board;

/* The explicit stack of one search. */
typedef struct stack {
    uint32_t untried[NQ_N_MAX + 1]; /* candidates of each row not yet tried */
    uint32_t down[NQ_N_MAX + 1];    /* columns taken above */
    uint32_t left[NQ_N_MAX + 1];    /* squares attacked along one diagonal from above */
    uint32_t right[NQ_N_MAX + 1];   /* ... and along the other */
    uint8_t cols[NQ_N_MAX];         /* the current branch */
} stack;

static int lowest_bit(uint32_t b) { return __builtin_ctz(b); }

bool nq_complete_consistent(int n, const nq_square *givens, size_t count) {
    if (n < NQ_N_MIN || n > NQ_N_MAX || (count > 0 && !givens)) return false;
    uint64_t rows = 0, cols = 0, diag = 0, anti = 0; /* diagonals: r - c + n - 1 and r + c, both < 63 */
    for (size_t i = 0; i < count; i++) {
        const uint32_t r = givens[i].row, c = givens[i].col;
        if (r >= (uint32_t)n || c >= (uint32_t)n) return false;
        const uint64_t br = 1ull << r, bc = 1ull << c, bd = 1ull << (r + (uint32_t)n - 1u - c),
                       ba = 1ull << (r + c);
        if ((rows & br) || (cols & bc) || (diag & bd) || (anti & ba)) return false;
        rows |= br, cols |= bc, diag |= bd, anti |= ba;
    }
    return true;
}

/* Block the lines of the given queen at (r0, c0) in every other row. */
static void block_lines(board *b, int r0, int c0) {
    for (int r = 0; r < b->n; r++) {
        if (r == r0) continue;
        const int d = r > r0 ? r - r0 : r0 - r;
        uint32_t m = 1u << c0;
        if (c0 + d < b->n) m |= 1u << (c0 + d);
        if (c0 - d >= 0) m |= 1u << (c0 - d);
        b->blocked[r] |= m;
    }
}

/* Fold consistent givens (checked by the caller) into b. */
static void prepare(int n, const nq_square *givens, size_t count, board *b) {
    memset(b, 0, sizeof *b);
    b->n = n;
    b->full = n == 32 ? UINT32_MAX : (1u << n) - 1u;
    for (int r = 0; r < n; r++) b->given[r] = -1;
    for (size_t i = 0; i < count; i++) {
        b->given[givens[i].row] = (int)givens[i].col;
        block_lines(b, (int)givens[i].row, (int)givens[i].col);
    }
    b->first_free = n;
    for (int r = n - 1; r >= 0; r--)
        if (b->given[r] < 0) b->first_free = r;
}

/* Candidates of row r below the stack's masks. */
static uint32_t candidates(const board *b, const stack *s, int r) {
    uint32_t m = b->full & ~(s->down[r] | s->left[r] | s->right[r] | b->blocked[r]);
    if (b->given[r] >= 0) m &= 1u << b->given[r];
    return m;
}

static bool canceled(nq_count_ctl *ctl) {
    return ctl && atomic_load_explicit(&ctl->cancel, memory_order_relaxed);
}

/* Progress: the candidates of the first free row, one task each. */
static void progress_start(nq_count_ctl *ctl, uint32_t first_row) {
    if (!ctl) return;
    const unsigned tasks = (unsigned)__builtin_popcount(first_row);
    atomic_store(&ctl->done, 0);
    atomic_store(&ctl->total, tasks ? tasks : 1u);
}

static void progress_end(nq_count_ctl *ctl) {
    if (ctl) atomic_store(&ctl->done, atomic_load(&ctl->total));
}

/* Depth-first over the free rows, lowest column first. With `first`, stop at the first solution (left
 * in s->cols) and return 1; else return the number of solutions (the last row is counted by popcount,
 * not walked). *rc becomes NQ_E_CANCELED when ctl stops it. */
static uint64_t search(const board *b, stack *s, bool first, nq_count_ctl *ctl, nq_err *rc) {
    const int n = b->n;
    uint64_t found = 0;
    unsigned nodes = 0, taken_first = 0;
    s->down[0] = s->left[0] = s->right[0] = 0;
    s->untried[0] = candidates(b, s, 0);
    progress_start(ctl, b->first_free < n ? s->untried[b->first_free] : 0u);
    int r = 0;
    while (r >= 0) {
        if (!s->untried[r]) { /* this row is exhausted: back up */
            r--;
            continue;
        }
        if ((++nodes & POLL_MASK) == 0 && canceled(ctl)) {
            *rc = NQ_E_CANCELED;
            return found;
        }
        if (r == b->first_free && ctl) atomic_store_explicit(&ctl->done, taken_first++, memory_order_relaxed);
        if (r == n - 1 && !first) { /* every candidate of the last row is a solution */
            found += (uint64_t)__builtin_popcount(s->untried[r]);
            s->untried[r] = 0;
            continue;
        }
        const uint32_t bit = s->untried[r] & (~s->untried[r] + 1u);
        s->untried[r] ^= bit;
        s->cols[r] = (uint8_t)lowest_bit(bit);
        if (r == n - 1) {
            progress_end(ctl);
            return 1;
        }
        s->down[r + 1] = s->down[r] | bit;
        s->left[r + 1] = ((s->left[r] | bit) << 1) & b->full;
        s->right[r + 1] = (s->right[r] | bit) >> 1;
        r++;
        s->untried[r] = candidates(b, s, r);
    }
    progress_end(ctl);
    return found;
}

/* The checks both entry points share; *ok says whether the givens can be completed at all. */
static nq_err check_args(int n, const nq_square *givens, size_t count, bool *ok) {
    if (count > 0 && !givens) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_N_MAX) return NQ_E_RANGE;
    for (size_t i = 0; i < count; i++)
        if (givens[i].row >= (uint32_t)n || givens[i].col >= (uint32_t)n) return NQ_E_RANGE;
    *ok = nq_complete_consistent(n, givens, count);
    return NQ_OK;
}

nq_err nq_complete_first(int n, const nq_square *givens, size_t count, nq_count_ctl *ctl, uint8_t *cols,
                         bool *found) {
    if (!cols || !found) return NQ_E_ARG;
    *found = false;
    bool ok = false;
    const nq_err arc = check_args(n, givens, count, &ok);
    if (arc != NQ_OK) return arc;
    if (!ok) {
        progress_start(ctl, 0);
        progress_end(ctl);
        return NQ_OK;
    }
    board b;
    stack s;
    prepare(n, givens, count, &b);
    nq_err rc = NQ_OK;
    const uint64_t got = search(&b, &s, true, ctl, &rc);
    if (rc != NQ_OK) return rc;
    if (got) memcpy(cols, s.cols, (size_t)n);
    *found = got != 0;
    return NQ_OK;
}

nq_err nq_complete_count(int n, const nq_square *givens, size_t count, int threads, nq_count_ctl *ctl,
                         uint64_t *out) {
    if (!out || threads < 0) return NQ_E_ARG;
    bool ok = false;
    const nq_err arc = check_args(n, givens, count, &ok);
    if (arc != NQ_OK) return arc;
    if (n > NQ_COUNT_N_MAX) return NQ_E_RANGE; /* counts beyond it need not fit in 64 bits */
    if (count == 0) {
        nq_counts c;
        const nq_err rc = nq_count(n, threads, ctl, &c);
        if (rc == NQ_OK) *out = c.total;
        return rc;
    }
    *out = 0;
    if (!ok) {
        progress_start(ctl, 0);
        progress_end(ctl);
        return NQ_OK;
    }
    board b;
    stack s;
    prepare(n, givens, count, &b);
    nq_err rc = NQ_OK;
    const uint64_t got = search(&b, &s, false, ctl, &rc);
    if (rc == NQ_OK) *out = got;
    return rc;
}
