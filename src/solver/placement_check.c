/* placement_check.c - attacking pairs of any placement in O(n + queens), listed in order up to a cap.
 *
 * Tuned for two workloads: a whole solution of n = 10^6 (a million queens, no pair: answer in a few
 * milliseconds) and a hostile placement (every queen on one line: n(n-1)/2 pairs, of which a
 * thousand are listed). Both rest on one fact: two distinct squares share at most one line (row,
 * column, diagonal, anti-diagonal), so
 *  - counting: the pairs are the sum over lines of k(k-1)/2 for the k queens on each, nothing counted
 *    twice. Rows come free (the queens are row-major, a row is a run). The other three families are
 *    counted one at a time with a byte per line, 2n - 1 bytes reused, which keeps a full board's
 *    counters in cache; a line past 255 queens spills its further queens into a list that is sorted
 *    and counted apart, so the count stays exact. When the board is much larger than the placement
 *    (a few queens on n = 10^9), the lines are instead counted by sorting the queens' line numbers,
 *    so memory follows the input, never n.
 *  - listing: each line's queens in row-major order (a stable radix sort by line number); a queen's
 *    later partners are the entries after it on its lines, four sorted streams (its row's is simply
 *    the next queens) merged smallest first. Walking the queens in row-major order and merging gives
 *    the pairs ordered by first square, then second, and stops at the cap: O(queens + cap).
 */
#include "nqueens/placement.h"

#include <stdlib.h>
#include <string.h>

#include "placement_impl.h"
#include "radix.h"

#define DENSE_PER_QUEEN 8u     /* byte counters while 2n - 1 <= this * queens + DENSE_SLACK */
#define DENSE_SLACK (1u << 16) /* ... so small boards always count densely */
#define NONE UINT32_MAX        /* no queen (ranks are < NQ_PLACEMENT_CAPACITY_MAX) */

typedef enum family { FAM_COL, FAM_DOWN, FAM_UP, FAM_COUNT } family;

typedef struct check {
    const nq_square *qs; /* the queens, row-major */
    size_t q;            /* how many */
    uint32_t n;          /* board size */
    size_t nlines;       /* lines per diagonal family, 2n - 1 (columns use n of them) */
} check;

/* The line of family f through s: its column, diagonal r - c + n - 1, or anti-diagonal r + c. */
static inline uint32_t line_of(family f, uint32_t n, nq_square s)
{
    switch (f) {
    case FAM_COL: return s.col;
    case FAM_DOWN: return s.row + (n - 1 - s.col);
    case FAM_UP: return s.row + s.col;
    case FAM_COUNT: break;
    }
    return 0;
}

/* k(k-1)/2 without overflow for any k < 2^32. */
static uint64_t pairs_of(uint64_t k)
{
    return k * (k - 1) / 2;
}

/* Pairs within runs of equal keys of sorted[0..count), when each run's line already held `base`
 * queens before it: base * m + m(m-1)/2 for a run of m. */
static uint64_t run_pairs(const uint64_t *sorted, size_t count, uint64_t base)
{
    uint64_t total = 0;
    for (size_t i = 0; i < count;) {
        size_t j = i + 1;
        while (j < count && sorted[j] == sorted[i]) j++;
        total += base * (j - i) + pairs_of(j - i);
        i = j;
    }
    return total;
}

static uint64_t row_pairs(const check *c)
{
    uint64_t total = 0;
    for (size_t i = 0; i < c->q;) {
        size_t j = i + 1;
        while (j < c->q && c->qs[j].row == c->qs[i].row) j++;
        total += pairs_of(j - i);
        i = j;
    }
    return total;
}

/* ---- counting --------------------------------------------------------------------------------- */

/* Family f counted with byte counters cnt[0..nlines); *spill (allocated on first need, 2q keys with
 * scratch, owned by the caller) takes the queens of lines past 255. Each queen adds the number of
 * queens already on its line. */
static nq_err count_dense(const check *c, family f, uint8_t *cnt, uint64_t **spill, uint64_t *pairs)
{
    size_t nspill = 0;
    uint64_t total = 0;
    memset(cnt, 0, c->nlines);
    for (size_t i = 0; i < c->q; i++) {
        const uint32_t line = line_of(f, c->n, c->qs[i]);
        const uint8_t k = cnt[line];
        if (k < UINT8_MAX) {
            total += k;
            cnt[line] = (uint8_t)(k + 1);
            continue;
        }
        if (*spill == NULL) *spill = malloc(2 * c->q * sizeof **spill);
        if (*spill == NULL) return NQ_E_NOMEM;
        (*spill)[nspill++] = line;
    }
    if (nspill > 0) {
        nq_radix_sort_u64(*spill, *spill + c->q, nspill, 0, nq_bit_width(c->nlines));
        total += run_pairs(*spill, nspill, UINT8_MAX);
    }
    *pairs += total;
    return NQ_OK;
}

/* Family f counted by sorting the line numbers (keys: 2q scratch, owned by the caller). */
static void count_sparse(const check *c, family f, uint64_t *keys, uint64_t *pairs)
{
    for (size_t i = 0; i < c->q; i++) keys[i] = line_of(f, c->n, c->qs[i]);
    nq_radix_sort_u64(keys, keys + c->q, c->q, 0, nq_bit_width(c->nlines));
    *pairs += run_pairs(keys, c->q, 0);
}

/* Pairs per family into fam[0..FAM_COUNT). */
static nq_err count_families(const check *c, uint64_t fam[FAM_COUNT])
{
    const bool dense = c->nlines <= DENSE_PER_QUEEN * c->q + DENSE_SLACK;
    uint8_t *cnt = NULL;
    uint64_t *keys = NULL; /* the spill list (dense) or the sort keys (sparse) */
    nq_err err = NQ_OK;
    if (dense)
        cnt = malloc(c->nlines);
    else
        keys = malloc(2 * c->q * sizeof *keys);
    if (cnt == NULL && keys == NULL) return NQ_E_NOMEM;
    for (int f = 0; f < FAM_COUNT && err == NQ_OK; f++) {
        fam[f] = 0;
        if (dense)
            err = count_dense(c, (family)f, cnt, &keys, &fam[f]);
        else
            count_sparse(c, (family)f, keys, &fam[f]);
    }
    free(keys);
    free(cnt);
    return err;
}

/* ---- listing ---------------------------------------------------------------------------------- */

typedef struct line_lists {
    uint32_t *order; /* ranks of the queens sorted by line, row-major within a line; NULL: skipped */
    uint32_t *pos;   /* pos[rank]: where that queen sits in order */
} line_lists;

/* Builds family f's lists; scratch holds 2q keys. */
static nq_err build_lines(const check *c, family f, uint64_t *scratch, line_lists *l)
{
    l->order = malloc(c->q * sizeof *l->order);
    l->pos = malloc(c->q * sizeof *l->pos);
    if (l->order == NULL || l->pos == NULL) return NQ_E_NOMEM;
    for (size_t i = 0; i < c->q; i++) scratch[i] = (uint64_t)line_of(f, c->n, c->qs[i]) << 32 | i;
    nq_radix_sort_u64(scratch, scratch + c->q, c->q, 32, 32 + nq_bit_width(c->nlines));
    for (size_t j = 0; j < c->q; j++) {
        l->order[j] = (uint32_t)scratch[j];
        l->pos[l->order[j]] = (uint32_t)j;
    }
    return NQ_OK;
}

/* The merge state of one queen: the next partner on its row and on each family's line. */
typedef struct partners {
    uint32_t row_next;        /* next rank on the row, or NONE */
    size_t at[FAM_COUNT];     /* index into lists[f].order of the next candidate */
    uint32_t line[FAM_COUNT]; /* the queen's line in each family */
} partners;

/* Head of family f's stream, or NONE when its line has no more queens. */
static uint32_t head(const check *c, const line_lists *l, const partners *pt, family f)
{
    if (l->order == NULL || pt->at[f] >= c->q) return NONE;
    const uint32_t r = l->order[pt->at[f]];
    return line_of(f, c->n, c->qs[r]) == pt->line[f] ? r : NONE;
}

/* Next rank after r on r's row, or NONE. */
static uint32_t next_on_row(const check *c, uint32_t r)
{
    return (size_t)r + 1 < c->q && c->qs[r + 1].row == c->qs[r].row ? r + 1 : NONE;
}

/* Writes queen a's pairs with later queens, in order, until cap; returns how many it wrote. */
static size_t list_queen(const check *c, const line_lists lists[FAM_COUNT], uint32_t a, nq_pair *out, size_t cap)
{
    partners pt = {.row_next = next_on_row(c, a)};
    for (int f = 0; f < FAM_COUNT; f++) {
        pt.line[f] = line_of((family)f, c->n, c->qs[a]);
        pt.at[f] = lists[f].order != NULL ? (size_t)lists[f].pos[a] + 1 : c->q;
    }
    size_t listed = 0;
    while (listed < cap) {
        uint32_t best = pt.row_next;
        int from = -1; /* -1: the row */
        for (int f = 0; f < FAM_COUNT; f++) {
            const uint32_t h = head(c, &lists[f], &pt, (family)f);
            if (h < best) {
                best = h;
                from = f;
            }
        }
        if (best == NONE) break;
        out[listed++] = (nq_pair){c->qs[a], c->qs[best]};
        if (from < 0)
            pt.row_next = next_on_row(c, best);
        else
            pt.at[from]++;
    }
    return listed;
}

/* Lists the first cap pairs; families with no pairs get no lists. */
static nq_err list_pairs(const check *c, const uint64_t fam[FAM_COUNT], nq_pair *out, size_t cap, size_t *listed)
{
    line_lists lists[FAM_COUNT] = {{NULL, NULL}, {NULL, NULL}, {NULL, NULL}};
    uint64_t *scratch = malloc(2 * c->q * sizeof *scratch);
    nq_err err = scratch != NULL ? NQ_OK : NQ_E_NOMEM;
    for (int f = 0; f < FAM_COUNT && err == NQ_OK; f++)
        if (fam[f] > 0) err = build_lines(c, (family)f, scratch, &lists[f]);
    free(scratch);
    *listed = 0;
    for (size_t a = 0; a < c->q && *listed < cap && err == NQ_OK; a++)
        *listed += list_queen(c, lists, (uint32_t)a, out + *listed, cap - *listed);
    for (int f = 0; f < FAM_COUNT; f++) {
        free(lists[f].order);
        free(lists[f].pos);
    }
    return err;
}

/* ---- entry point ------------------------------------------------------------------------------ */

nq_err nq_placement_check(const nq_placement *p, nq_pair *pairs, size_t cap, nq_check_report *out)
{
    if (p == NULL || out == NULL || !p->finished || (pairs == NULL && cap > 0)) return NQ_E_ARG;
    const check c = {.qs = p->queens, .q = p->count, .n = p->n, .nlines = 2 * (size_t)p->n - 1};
    uint64_t fam[FAM_COUNT] = {0, 0, 0};
    nq_err err = c.q > 1 ? count_families(&c, fam) : NQ_OK;
    if (err != NQ_OK) return err;
    const uint64_t conflicts = row_pairs(&c) + fam[FAM_COL] + fam[FAM_DOWN] + fam[FAM_UP];
    size_t listed = 0;
    if (conflicts > 0 && cap > 0) err = list_pairs(&c, fam, pairs, cap, &listed);
    if (err != NQ_OK) return err;
    *out = (nq_check_report){.queens = c.q,
                             .conflicts = conflicts,
                             .valid = conflicts == 0,
                             .complete = conflicts == 0 && c.q == c.n,
                             .listed = listed};
    return NQ_OK;
}
