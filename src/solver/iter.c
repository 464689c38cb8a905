/* iter.c - the resumable enumerator: every solution of an n x n board, in lexicographic order.
 *
 * The workload: the server streams pages of solutions, each page starting either at the beginning,
 * after k solutions, or right after a cursor, and pulls a batch at a time. So the search state must
 * survive between calls in O(n) memory and be rebuilt from a cursor in O(n). It is the textbook
 * backtracking search with the recursion unrolled into an explicit stack: for each row r we keep the
 * columns attacked from the rows above (three bitmasks, bit c = column c) and the set of columns not
 * yet tried in row r. Taking the lowest set bit first visits columns in ascending order, which is
 * exactly the lexicographic order of the column vectors.
 *
 * Unique mode filters that stream down to canonical solutions (the smallest of their 8 images). A
 * canonical solution has cols[0] <= n-1-cols[0] (its mirror image would sort first otherwise), so row
 * 0 only tries the left half; the rest is a per-solution test (symmetry.h).
 */
#include "nqueens/solver.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symmetry.h"

struct nq_iter {
    int n;                      /* board size */
    unsigned flags;             /* NQ_ITER_* given at creation */
    int row;                    /* the row whose untried columns are taken next */
    uint32_t full;              /* the n column bits */
    uint32_t first;             /* columns row 0 may use: all, or the left half in unique mode */
    uint32_t untried[NQ_N_MAX]; /* per row: free columns not yet tried in the current branch */
    uint32_t down[NQ_N_MAX];    /* per row: columns taken by the rows above */
    uint32_t left[NQ_N_MAX];    /* per row: squares attacked along one diagonal from above */
    uint32_t right[NQ_N_MAX];   /* per row: squares attacked along the other diagonal */
    uint8_t cols[NQ_N_MAX];     /* the current branch; a solution when step() returns true */
};

/* Bits of the columns strictly greater than c (c < 32). The shift is done in 64 bits so that
 * c = 31 gives 0 instead of an undefined 32-bit shift. */
static uint32_t above(unsigned c) {
    return (uint32_t)~((UINT64_C(2) << c) - 1u);
}

static uint32_t free_columns(const nq_iter *it, int r) {
    const uint32_t allowed = r == 0 ? it->first : it->full;
    return allowed & ~(it->down[r] | it->left[r] | it->right[r]);
}

/* Enter row r + 1 below a queen at column bit `bit` of row r. */
static void descend(nq_iter *it, int r, uint32_t bit) {
    it->down[r + 1] = it->down[r] | bit;
    it->left[r + 1] = (it->left[r] | bit) << 1;
    it->right[r + 1] = (it->right[r] | bit) >> 1;
    it->untried[r + 1] = free_columns(it, r + 1);
}

static void rewind_to_start(nq_iter *it) {
    it->row = 0;
    it->down[0] = it->left[0] = it->right[0] = 0;
    it->untried[0] = free_columns(it, 0);
}

/* Advance to the next solution in search order; false once exhausted (and on every later call).
 * This is the hot loop of enumeration: a few bit operations per square, no calls, no allocation. */
static bool step(nq_iter *it) {
    const int last = it->n - 1;
    int r = it->row;
    for (;;) {
        const uint32_t untried = it->untried[r];
        if (untried == 0) {
            if (r == 0) break; /* row 0 has nothing left: the search is over */
            r--;
            continue;
        }
        const uint32_t bit = untried & (0u - untried); /* lowest set bit: smallest column */
        it->untried[r] = untried ^ bit;
        it->cols[r] = (uint8_t)__builtin_ctz(bit);
        if (r == last) {
            it->row = r;
            return true;
        }
        descend(it, r, bit);
        r++;
    }
    it->row = 0;
    return false;
}

/* step(), skipping solutions that unique mode does not yield. */
static bool step_filtered(nq_iter *it) {
    if (!(it->flags & NQ_ITER_UNIQUE)) return step(it);
    while (step(it))
        if (nq_sym_classify(it->n, it->cols) != 0) return true;
    return false;
}

nq_err nq_iter_create(int n, unsigned flags, nq_iter **out) {
    if (out == NULL || (flags & ~(unsigned)NQ_ITER_UNIQUE) != 0) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_N_MAX) return NQ_E_RANGE;
    nq_iter *it = calloc(1, sizeof *it);
    if (it == NULL) return NQ_E_NOMEM;
    it->n = n;
    it->flags = flags;
    it->full = (uint32_t)((UINT64_C(1) << n) - 1u);
    /* Unique mode: columns 0 .. (n-1)/2 of row 0 (the middle one too when n is odd). */
    it->first = (flags & NQ_ITER_UNIQUE) ? (uint32_t)((UINT64_C(1) << ((n + 1) / 2)) - 1u) : it->full;
    rewind_to_start(it);
    *out = it;
    return NQ_OK;
}

void nq_iter_destroy(nq_iter *it) {
    free(it);
}

/* Rebuilds the stack as the search would hold it right after visiting cursor's longest attack-free
 * prefix: rows above keep only the columns greater than the cursor's as untried, and the row where
 * the cursor stops (its first attacked column, or the last row) too. The next step() then backtracks
 * to the deepest row with a greater column left, which is where the next solution after cursor is. */
nq_err nq_iter_seek_after(nq_iter *it, const uint8_t *cursor, size_t len) {
    if (it == NULL || cursor == NULL) return NQ_E_ARG;
    if (len != (size_t)it->n) return NQ_E_CURSOR;
    for (size_t i = 0; i < len; i++)
        if (cursor[i] >= it->n) return NQ_E_CURSOR;

    rewind_to_start(it);
    for (int r = 0;; r++) {
        const uint32_t bit = UINT32_C(1) << cursor[r];
        const bool placeable = (it->untried[r] & bit) != 0;
        it->cols[r] = cursor[r];
        it->untried[r] &= above(cursor[r]);
        if (!placeable || r == it->n - 1) {
            it->row = r;
            return NQ_OK;
        }
        descend(it, r, bit);
    }
}

nq_err nq_iter_skip(nq_iter *it, uint64_t k, uint64_t *skipped) {
    if (it == NULL) return NQ_E_ARG;
    uint64_t done = 0;
    while (done < k && step_filtered(it)) done++;
    if (skipped != NULL) *skipped = done;
    return NQ_OK;
}

nq_err nq_iter_next(nq_iter *it, uint8_t *cols, size_t max, size_t *got) {
    if (it == NULL || cols == NULL || got == NULL || max == 0) return NQ_E_ARG;
    const size_t n = (size_t)it->n;
    size_t i = 0;
    while (i < max && step_filtered(it)) {
        memcpy(cols + i * n, it->cols, n);
        i++;
    }
    *got = i;
    return NQ_OK;
}

int nq_iter_n(const nq_iter *it) {
    return it == NULL ? 0 : it->n;
}

unsigned nq_iter_flags(const nq_iter *it) {
    return it == NULL ? 0u : it->flags;
}
