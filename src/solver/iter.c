/* iter.c - the resumable enumerator: every solution of an n x n board, in lexicographic order.
 *
 * The workload: the server streams pages of solutions, each page starting either at the beginning,
 * after k solutions, or right after a cursor, and pulls a batch at a time. So the search state must
 * survive between calls in O(n) memory and be rebuilt from a cursor in O(n). It is the textbook
 * backtracking search with the recursion unrolled into an explicit stack: for each row r we keep the
 * columns attacked from the rows above (three bitmasks, bit c = column c) and the set of columns not
 * yet tried in row r. Taking the lowest set bit first visits columns in ascending order, which is
 * exactly the lexicographic order of the column vectors. All of n = 14 is 27 million nodes, so the
 * node loop (step) is kept to a handful of register operations.
 *
 * Filling a large buffer gets one more trick: the left/right mirror turns the block of solutions
 * whose row 0 is column m into the block of column n-1-m, reversed. When a call to nq_iter_next
 * holds all of block m, block n-1-m is copied from it instead of searched (replay_mirror), which
 * halves the search for bulk enumeration; small batches simply search.
 *
 * Unique mode filters that stream down to canonical solutions (the smallest of their 8 images). A
 * canonical solution has cols[0] <= n-1-cols[0] (its mirror image would sort first otherwise), so row
 * 0 only tries the left half; the rest is a per-solution test (symmetry.h).
 */
#include "nqueens/solver.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "search_frame.h"
#include "symmetry.h"

struct nq_iter {
    int n;                      /* board size */
    unsigned flags;             /* NQ_ITER_* given at creation */
    int row;                    /* the row whose untried columns are taken next (0 .. n-2) */
    bool done;                  /* n = 1 only: its one solution was yielded */
    int last_first;             /* row-0 column of the last solution yielded or sought past; -1: none */
    uint32_t full;              /* the n column bits */
    uint32_t first;             /* columns row 0 may use: all, or the left half in unique mode */
    uint32_t allowed[NQ_N_MAX]; /* per row >= 1: columns unique mode's rules leave; all otherwise */
    int side_row;               /* unique mode: by the end of this row both side columns are taken; -1 */
    uint32_t side;              /* the side columns (0 and n-1) */
    const atomic_bool *stop;    /* nq_iter_set_stop's flag, looked at every STOP_STRIDE nodes; or NULL */
    uint32_t until_look;        /* nodes left before the next look at *stop (kept across calls) */
    nq_frame stack[NQ_N_MAX];   /* rows 0 .. n-2; the last row is never pushed (see search) */
};

/* Search nodes between two looks at the stop flag: about a third of a millisecond. */
#define STOP_STRIDE (1u << 16)

/* What one search step ended with. */
typedef enum step_result {
    STEP_FOUND,  /* a solution was written */
    STEP_END,    /* no solution is left */
    STEP_STOPPED /* the stop flag was seen; the search can continue later */
} step_result;

/* Bits of the columns strictly greater than c (c < 32). The shift is done in 64 bits so that
 * c = 31 gives 0 instead of an undefined 32-bit shift. */
static uint32_t above(unsigned c)
{
    return (uint32_t) ~((UINT64_C(2) << c) - 1u);
}

/* ---- unique mode's rules ----------------------------------------------------------------------
 * A canonical board (the smallest of its 8 images) has its row-0 queen at the smallest distance d
 * from a corner among the four edge queens (the queens in rows 0 and n-1, columns 0 and n-1). So:
 *   - d = 0, a corner queen at (0,0): of the board and its transpose, the canonical one has its
 *     row-1 queen left of its column-1 queen's row, so column 1 stays empty above row cols[1];
 *   - d >= 1: columns 0 and n-1 stay empty above row d and below row n-1-d (so both are taken by
 *     the end of row n-1-d), and the last row's queen sits in columns d .. n-1-d.
 * These prune the subtrees that hold no canonical board (about half of what row 0's left half
 * leaves); the per-solution test still decides. count_bt.c counts with the same rules. */

/* Resets the rules to "none": every column of every row. */
static void clear_rules(nq_iter *it)
{
    for (int r = 0; r < it->n; r++) it->allowed[r] = it->full;
    it->side_row = -1;
}

/* Sets the rules that hold below a queen at column c in row r. Only rows 0 and 1 (the latter under
 * a corner queen) decide anything; the rules of deeper rows follow from theirs. */
static void set_rules(nq_iter *it, int r, uint32_t down, int c)
{
    const int n = it->n;
    if (r == 0) {
        clear_rules(it);
        if (c == 0) return; /* a corner queen: row 1 decides */
        for (int y = 1; y < c; y++) it->allowed[y] &= ~it->side;
        it->allowed[n - 1] &= (uint32_t)(((UINT64_C(1) << (n - c)) - 1u) & ~((UINT64_C(1) << c) - 1u));
        it->side_row = n - 1 - c;
    } else if (r == 1 && down == 1u) {
        clear_rules(it);
        for (int y = 2; y < c; y++) it->allowed[y] &= ~2u;
    }
}

/* Columns row r may take: free of attacks and allowed by the rules. */
static uint32_t row_free(const nq_iter *it, int r, uint32_t down, uint32_t left, uint32_t right)
{
    const uint32_t free = it->allowed[r] & ~(down | left | right);
    return r == it->side_row ? nq_side_rule(free, down, it->side) : free;
}

/* Enter row r + 1 below a queen at column bit `bit` of row r. */
static void descend(nq_iter *it, int r, uint32_t bit)
{
    const nq_frame *f = &it->stack[r];
    nq_frame *g = &it->stack[r + 1];
    if (it->flags & NQ_ITER_UNIQUE) set_rules(it, r, f->down, __builtin_ctz(bit));
    g->down = f->down | bit;
    g->left = (f->left | bit) << 1;
    g->right = (f->right | bit) >> 1;
    g->untried = row_free(it, r + 1, g->down, g->left, g->right);
}

static void rewind_to_start(nq_iter *it)
{
    clear_rules(it);
    it->row = 0;
    it->done = false;
    it->last_first = -1;
    it->stack[0] = (nq_frame){it->first, 0, 0, 0};
}

/* Writes the solution just found to out: row r's queen is the bit that row r+1's `down` adds,
 * row n-2's is `bit` and the last row's is `last`. Rebuilding it here, once per solution, keeps
 * the node loop from storing a column per node. */
static void write_solution(const nq_iter *it, uint32_t bit, uint32_t last, uint8_t *out)
{
    const int n = it->n;
    for (int r = 0; r < n - 2; r++) out[r] = (uint8_t)__builtin_ctz(it->stack[r + 1].down ^ it->stack[r].down);
    out[n - 2] = (uint8_t)__builtin_ctz(bit);
    out[n - 1] = (uint8_t)__builtin_ctz(last);
}

/* n = 1 has one solution, and no row n-2 for the stack to stop at. */
static step_result step_single(nq_iter *it, uint8_t *out)
{
    if (it->done || it->stack[0].untried == 0) return STEP_END;
    it->done = true;
    out[0] = 0;
    return STEP_FOUND;
}

static bool stop_requested(const nq_iter *it)
{
    return it->stop != NULL && atomic_load_explicit(it->stop, memory_order_relaxed);
}

/* Advance to the next solution in search order and write it to out; false once exhausted (and on
 * every later call). This is the hot loop of enumeration (all of n = 14 is 27 million nodes):
 *   - the current row's frame lives in registers; the stack is touched only to push and pop;
 *   - x & -x picks the smallest untried column, so columns are tried in ascending order, which is
 *     the lexicographic order;
 *   - a child is pushed only if its row, and the row below it, still have a free square (a cheap
 *     look-ahead that skips about half of the dead ends);
 *   - the last row has at most one free square once the rows above hold queens, so it is tested
 *     straight from row n-2 instead of being pushed.
 * `rules` (unique mode) adds the per-row masks and the side rule, `watch` the look at the stop flag
 * every STOP_STRIDE nodes (stopping where the state is whole: before a column is taken). Both are
 * compile-time constants in each of step_once's four calls, so the plain search pays for neither. */
static inline __attribute__((always_inline)) step_result search(nq_iter *it, uint8_t *out, const bool rules,
                                                                const bool watch)
{
    const int last = it->n - 1;
    if (last == 0) return step_single(it, out);
    const uint32_t full = it->full;
    uint32_t until_look = it->until_look; /* carried over, so short searches still add up to a look */
    int r = it->row;
    nq_frame cur = it->stack[r];
    for (;;) {
        if (watch && --until_look == 0) {
            until_look = STOP_STRIDE;
            if (stop_requested(it)) {
                it->stack[r] = cur;
                it->row = r;
                it->until_look = until_look;
                return STEP_STOPPED;
            }
        }
        if (cur.untried == 0) {
            if (r == 0) break; /* row 0 has nothing left: the search is over */
            cur = it->stack[--r];
            continue;
        }
        const uint32_t bit = cur.untried & (0u - cur.untried); /* lowest set bit: smallest column */
        cur.untried ^= bit;
        if (rules && r < 2) set_rules(it, r, cur.down, __builtin_ctz(bit));
        const uint32_t down = cur.down | bit, left = (cur.left | bit) << 1, right = (cur.right | bit) >> 1;
        const uint32_t free = rules ? row_free(it, r + 1, down, left, right) : full & ~(down | left | right);
        if (r + 1 == last) {
            if (free == 0) continue;
            it->stack[r] = cur;
            it->row = r;
            if (watch) it->until_look = until_look;
            write_solution(it, bit, free, out);
            return STEP_FOUND;
        }
        if (free == 0 || (full & ~(down | (left << 1) | (right >> 1))) == 0) continue;
        it->stack[r++] = cur;
        cur = (nq_frame){free, down, left, right};
    }
    it->stack[0] = cur;
    it->row = 0;
    if (watch) it->until_look = until_look;
    return STEP_END;
}

/* One search step, specialised for the iterator's mode and whether a stop flag is set. */
static step_result step_once(nq_iter *it, uint8_t *out)
{
    const bool watch = it->stop != NULL;
    if (it->flags & NQ_ITER_UNIQUE) return watch ? search(it, out, true, true) : search(it, out, true, false);
    return watch ? search(it, out, false, true) : search(it, out, false, false);
}

/* The next solution the iterator yields: in unique mode, the next canonical one. */
static step_result step_filtered(nq_iter *it, uint8_t *out)
{
    for (;;) {
        const step_result res = step_once(it, out);
        if (res != STEP_FOUND || !(it->flags & NQ_ITER_UNIQUE) || nq_sym_classify(it->n, out) != 0) return res;
    }
}

nq_err nq_iter_create(int n, unsigned flags, nq_iter **out)
{
    if (out == NULL || (flags & ~(unsigned)NQ_ITER_UNIQUE) != 0) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_N_MAX) return NQ_E_RANGE;
    nq_iter *it = calloc(1, sizeof *it);
    if (it == NULL) return NQ_E_NOMEM;
    it->n = n;
    it->flags = flags;
    it->full = (uint32_t)((UINT64_C(1) << n) - 1u);
    /* Unique mode: columns 0 .. (n-1)/2 of row 0 (the middle one too when n is odd). */
    it->first = (flags & NQ_ITER_UNIQUE) ? (uint32_t)((UINT64_C(1) << ((n + 1) / 2)) - 1u) : it->full;
    it->side = (uint32_t)(1u | (UINT64_C(1) << (n - 1)));
    rewind_to_start(it);
    *out = it;
    return NQ_OK;
}

void nq_iter_destroy(nq_iter *it)
{
    free(it);
}

/* Rebuilds the stack as the search would hold it right after visiting the longest prefix of cursor
 * it would visit at all: each row keeps only the columns greater than the cursor's as untried, down
 * to the row where the cursor stops (its first attacked column, or in unique mode one the rules
 * exclude, or row n-2). The next search then backtracks to the deepest row with a greater column
 * left, which is where the next solution after cursor is.
 * One case needs care: when the cursor's first n-1 rows are a valid prefix whose one completion
 * sorts after the cursor, that completion comes next, so row n-2 keeps the cursor's own column. */
nq_err nq_iter_seek_after(nq_iter *it, const uint8_t *cursor, size_t len)
{
    if (it == NULL || cursor == NULL) return NQ_E_ARG;
    if (len != (size_t)it->n) return NQ_E_CURSOR;
    for (size_t i = 0; i < len; i++)
        if (cursor[i] >= it->n) return NQ_E_CURSOR;

    rewind_to_start(it);
    it->last_first = cursor[0]; /* a solution of another block found next is its block's first */
    const int last = it->n - 1;
    if (last == 0) { /* n = 1: the one solution is "0", and nothing sorts after it */
        it->done = true;
        return NQ_OK;
    }
    for (int r = 0;; r++) {
        nq_frame *f = &it->stack[r];
        const uint32_t bit = UINT32_C(1) << cursor[r];
        const bool placeable = (f->untried & bit) != 0;
        uint32_t keep = above(cursor[r]);
        if (placeable && r + 1 == last) {
            if (it->flags & NQ_ITER_UNIQUE) set_rules(it, r, f->down, cursor[r]);
            const uint32_t free = row_free(it, last, f->down | bit, (f->left | bit) << 1, (f->right | bit) >> 1);
            if (free != 0 && (unsigned)__builtin_ctz(free) > cursor[last]) keep |= bit;
        }
        f->untried &= keep;
        if (!placeable || r + 1 == last) {
            it->row = r;
            return NQ_OK;
        }
        descend(it, r, bit);
    }
}

nq_err nq_iter_skip(nq_iter *it, uint64_t k, uint64_t *skipped)
{
    if (it == NULL) return NQ_E_ARG;
    uint8_t scratch[NQ_N_MAX];
    uint64_t done = 0;
    step_result res = stop_requested(it) ? STEP_STOPPED : STEP_FOUND;
    while (done < k && res == STEP_FOUND) {
        res = step_filtered(it, scratch);
        if (res == STEP_FOUND) done++;
    }
    if (done > 0) it->last_first = scratch[0];
    if (skipped != NULL) *skipped = done;
    return res == STEP_STOPPED ? NQ_E_CANCELED : NQ_OK;
}

nq_err nq_iter_set_stop(nq_iter *it, const atomic_bool *stop)
{
    if (it == NULL) return NQ_E_ARG;
    it->stop = stop;
    it->until_look = STOP_STRIDE;
    return NQ_OK;
}

/* Where each block (the solutions sharing row 0's column) begins and ends in one nq_iter_next
 * call's output; a block that began before the call is not recorded. */
typedef struct block_map {
    size_t begin[NQ_N_MAX]; /* index of the block's first solution, SIZE_MAX if not in this call */
    size_t end[NQ_N_MAX];   /* one past its last solution, once the next block has begun */
    int current;            /* row-0 column of the last solution written, -1 before any */
} block_map;

/* Mirror replay. The left/right mirror (c -> n-1-c in every row) maps the block of row-0 column m
 * onto the block of column n-1-m and reverses the order, so when the whole of block m is in this
 * call's output, block n-1-m is that run read backwards and mirrored: no search needed. That halves
 * the work of filling a large buffer. out[i] already holds the block's first solution (found by the
 * search); this copies the rest, as far as max allows, and leaves the iterator after the last one
 * written: past the block if it was copied whole, else by seeking after the last solution copied.
 * Returns the new count of solutions in out. */
static size_t replay_mirror(nq_iter *it, uint8_t *out, size_t i, size_t max, const block_map *map, int m)
{
    const size_t n = (size_t)it->n;
    size_t k = map->end[m] - 1; /* out[i] mirrors out[k]; the next one mirrors out[k - 1] */
    i++;
    while (k > map->begin[m] && i < max) {
        k--;
        for (size_t r = 0; r < n; r++) out[i * n + r] = (uint8_t)(n - 1 - out[k * n + r]);
        i++;
    }
    if (k == map->begin[m]) {
        it->row = 0; /* row 0's frame still holds the columns after this block's: resume there */
    } else {
        const nq_err err = nq_iter_seek_after(it, out + (i - 1) * n, n);
        assert(err == NQ_OK); /* a solution it wrote is always a valid cursor */
        (void)err;
    }
    return i;
}

/* Notes that out[i], whose row 0 is column c0, starts a new block if it does. */
static bool starts_block(block_map *map, size_t i, int c0)
{
    if (c0 == map->current) return false;
    if (map->current >= 0) map->end[map->current] = i;
    map->begin[c0] = i;
    map->current = c0;
    return true;
}

nq_err nq_iter_next(nq_iter *it, uint8_t *cols, size_t max, size_t *got)
{
    if (it == NULL || cols == NULL || got == NULL || max == 0) return NQ_E_ARG;
    const size_t n = (size_t)it->n;
    const bool unique = (it->flags & NQ_ITER_UNIQUE) != 0;
    block_map map;
    map.current = it->last_first; /* a block already under way when the call began is not recorded */
    for (size_t c = 0; c < n; c++) map.begin[c] = SIZE_MAX;
    size_t i = 0;
    step_result res = stop_requested(it) ? STEP_STOPPED : STEP_FOUND;
    while (i < max && res == STEP_FOUND) {
        res = step_filtered(it, cols + i * n);
        if (res != STEP_FOUND) break;
        const int c0 = cols[i * n];
        const int m = it->n - 1 - c0;
        /* Unique mode never reaches the right half, and the middle column mirrors itself. */
        if (!unique && starts_block(&map, i, c0) && m < c0 && map.begin[m] != SIZE_MAX) {
            i = replay_mirror(it, cols, i, max, &map, m);
            continue;
        }
        i++;
    }
    if (i > 0) it->last_first = cols[(i - 1) * n];
    *got = i;
    return res == STEP_STOPPED ? NQ_E_CANCELED : NQ_OK;
}

int nq_iter_n(const nq_iter *it)
{
    return it == NULL ? 0 : it->n;
}

unsigned nq_iter_flags(const nq_iter *it)
{
    return it == NULL ? 0u : it->flags;
}
