/* count_quad_table.c - every partial placement of one quadrant, grouped by rows and columns used.
 *
 * Built by two passes of the same depth-first search (row by row from the cut outwards, so that a
 * group's placements come ordered by their edge queen's column: leave the row empty or put a queen
 * on a free column): the first counts the placements of each group, the prefix sums of those counts
 * become the group offsets, and the second writes each placement at its group's cursor. Two passes
 * cost a second search (a few tens of milliseconds at n = 18) but need no sort and no scratch as
 * large as the table. Sizes, at 16 bytes an entry: 0.9 M entries (15 MB) for a 9 x 9 quadrant,
 * 7.5 M (120 MB) for 10 x 10, 21.6 M (346 MB) for 11 x 10 and 66.8 M (1.07 GB) for 11 x 11.
 *
 * A table of one column set (nq_quad_fill_cols) is searched column by column instead: each of its
 * columns takes one queen on a free row, so every branch ends in a placement. At n = 21 (11 x 11, a
 * bottom-right column set) that is 32 000 entries on average, in about 4 ms.
 */
#include "count_quad_table.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define CANCEL_STRIDE 4096u /* placements between two looks at the cancel flag */

typedef struct builder {
    nq_quad *q;              /* the table being built */
    int top;                 /* the quadrant lies on the top side of the row cut */
    int edge_row;            /* board row next to the cut on the quadrant's side */
    int edge_shift;          /* of the edge column in a mark */
    uint32_t *cursor;        /* second pass: next slot of each group; first pass: NULL */
    const nq_count_ctl *ctl; /* cancel flag to watch, may be NULL */
    unsigned budget;         /* placements until the next look at it */
    bool stopped;            /* cancel seen: the search unwinds */
} builder;

typedef struct partial {
    uint32_t rows, cols; /* quadrant-local rows and columns filled */
    uint64_t d1, d2;     /* board-wide diagonal masks */
    uint32_t mark;       /* edge column (in place), if there is an edge queen yet */
} partial;

/* The key of board-wide diagonal masks d1 (bit r - c + n - 1) and d2 (bit r + c): the diagonals of
 * each direction with cells on both sides of the cut after row a - 1, "\" in the low half and "/" in
 * the high half; then the layout's cut bits are moved out into *cls.
 *
 * The crossing diagonals have board indexes a .. n + a - 2, but the two ends of each direction are
 * left out: each has a single cell on one side of the cut, on the row next to it ("\" a: (a, n-1);
 * "\" n+a-2: (a-1, 0); "/" a: (a, 0); "/" n+a-2: (a-1, n-1)). A half uses that cell only with its
 * edge queen there, and any queen of the other half on that diagonal attacks the cell: the mark's end
 * bits (end_bits) say so, and the counter meets a half of edge column c only with halves that leave
 * c free. So such a diagonal is never shared by a pair the counter joins. That leaves n - 3 bits a
 * direction: 32 in all at n = 19. */
static uint32_t split_key(const nq_quad_layout *lay, uint64_t d1, uint64_t d2, uint32_t *cls)
{
    const int n = lay->n, first = n / 2 + 1, bits = n - 3;
    const uint64_t inner = (UINT64_C(1) << bits) - 1u;
    uint64_t key = (d1 >> first & inner) | (d2 >> first & inner) << bits;
    uint32_t c = 0;
    for (int i = 0; i < lay->cuts; i++) {
        const int at = lay->cut_pos[i];
        c = c << 1 | (uint32_t)(key >> at & 1u);
        key = (key & ((UINT64_C(1) << at) - 1u)) | (key >> (at + 1)) << at;
    }
    *cls = c;
    return (uint32_t)key;
}

/* The mark's end bits of diagonal masks d1 and d2 for a half of the top side (top != 0) or the
 * bottom one: the ends whose single cell is across the cut, through column 0 (top: "/" a, bottom:
 * "\" n+a-2) and through column n - 1 (top: "\" a, bottom: "/" n+a-2). The other two ends have
 * their single cell on the half's own side, on its edge row: the half occupies them only with its
 * edge queen in a corner column, and then the counter meets it only with halves whose edge queen
 * is neither on that column nor next to it, which those ends do not reach. */
static uint32_t end_bits(int n, int top, uint64_t d1, uint64_t d2)
{
    const int a = n / 2, far = n + a - 2;
    const uint64_t low = top ? d2 >> a : d1 >> far, high = top ? d1 >> a : d2 >> far;
    return (uint32_t)(low & 1u) * NQ_QUAD_END_LOW | (uint32_t)(high & 1u) * NQ_QUAD_END_HIGH;
}

/* Where a half of the top side (top != 0) or the bottom one keeps the diagonals d1 and d2: its key,
 * its class and its mark's end bits. */
static nq_quad_attack diag_bits(const nq_quad_layout *layout, int top, uint64_t d1, uint64_t d2)
{
    nq_quad_attack at;
    at.key = split_key(layout, d1, d2, &at.cls);
    at.mark = end_bits(layout->n, top, d1, d2);
    return at;
}

nq_quad_attack nq_quad_attack_of(const nq_quad_layout *layout, int top, int row, int col)
{
    return diag_bits(layout, top, UINT64_C(1) << (row - col + layout->n - 1), UINT64_C(1) << (row + col));
}

nq_quad_layout nq_quad_layout_cut(int n, int cuts)
{
    nq_quad_layout lay = {.n = n, .left = n / 2};
    const int bits = n - 3; /* a direction's key bits */
    if (cuts <= 0 || cuts % 2 != 0 || cuts > NQ_QUAD_CUTS_MAX || cuts / 2 > bits) return lay;
    /* The diagonals through the middle of the cut, cuts / 2 each way, highest first: "/" above "\". */
    const int mid = (bits - 1) / 2;
    lay.cuts = cuts;
    for (int i = 0; i < cuts / 2; i++) {
        lay.cut_pos[i] = bits + mid + cuts / 2 - 1 - i;
        lay.cut_pos[cuts / 2 + i] = mid + cuts / 2 - 1 - i;
    }
    return lay;
}

nq_quad_layout nq_quad_layout_for(int n)
{
    const int over = 2 * (n - 3) - 32; /* key bits past the 32-bit lanes */
    nq_quad_layout lay = nq_quad_layout_cut(n, over <= 0 ? 0 : (over + 1) & ~1);
    lay.per_set = n > 20;       /* four tables would pass 1.8 GB; at n <= 20 they cost less CPU (measured) */
    if (n >= 22) lay.left = 10; /* two left tables of 11 x 11 would take 2.1 GB */
    return lay;
}

/* A quadrant's diag: only the diagonals that its side's other quadrant can occupy too matter, and
 * those are a window of rows - 1 a direction. With the column cut after column l - 1 and the side's
 * rows from row0, "\" r - c of the left quadrant is at least row0 - l + 1 and of the right one at
 * most row0 + rows - 1 - l; "/" r + c of the left one at most row0 + rows + l - 2 and of the right one
 * at least row0 + l. So diag holds "\" from index row0 - l + n and "/" from row0 + l, each in 32
 * bits: what falls below a window's base is a diagonal the other quadrant cannot have, and nothing
 * passes bit 31 (the highest, rows + cols - 2 of a quadrant's own, stays below 32). */
_Static_assert(NQ_QUAD_ROWS_MAX + NQ_QUAD_COLS_MAX - 2 < 32, "a quadrant's diagonals fit a diag's half");
static uint64_t diag_window(const nq_quad *q, uint64_t d1, uint64_t d2)
{
    const int l = q->layout.left, base1 = q->row0 - l + q->layout.n, base2 = q->row0 + l;
    return (uint64_t)(uint32_t)(d1 >> base1) | (uint64_t)(uint32_t)(d2 >> base2) << 32;
}

static void visit(builder *b, const partial *p)
{
    nq_quad *q = b->q;
    if (--b->budget == 0) {
        b->budget = CANCEL_STRIDE;
        b->stopped = b->ctl != NULL && atomic_load_explicit(&b->ctl->cancel, memory_order_relaxed);
    }
    const uint32_t g = p->rows << q->group_shift | (p->cols & q->group_cols);
    if (b->cursor == NULL) {
        q->start[g + 1u]++;
        return;
    }
    const uint32_t at = b->cursor[g]++;
    const nq_quad_attack bits = diag_bits(&q->layout, b->top, p->d1, p->d2);
    q->diag[at] = diag_window(q, p->d1, p->d2);
    q->key[at] = bits.key;
    q->mark[at] = p->mark | bits.cls << NQ_QUAD_CLASS_SHIFT | bits.mark;
}

/* Fill the i-th row from the cut (quadrant-local row i below it, rows - 1 - i above it) and those
 * further away. ld and rd are the quadrant columns that the queens placed so far attack on that row
 * along the two diagonals, the usual bitmask search, so only free columns are tried. Rows are taken
 * from the cut outwards, so the edge row comes first and each group's placements come out ordered
 * by their edge queen's column (count_quad_table.h). */
static void search(builder *b, int i, const partial *p, uint32_t ld, uint32_t rd)
{
    const nq_quad *q = b->q;
    if (b->stopped) return;
    if (i == q->rows) {
        visit(b, p);
        return;
    }
    const uint32_t full = (1u << q->cols) - 1u;
    search(b, i + 1, p, ld << 1 & full, rd >> 1); /* row left empty */
    const int n = q->layout.n, row = b->top ? q->rows - 1 - i : i, r = q->row0 + row;
    for (uint32_t avail = full & ~(p->cols | ld | rd); avail != 0; avail &= avail - 1u) {
        const uint32_t bit = avail & (0u - avail);
        const int c = q->col0 + __builtin_ctz(bit);
        const uint32_t edge = r == b->edge_row ? (uint32_t)(c - q->col0) << b->edge_shift : 0u;
        const partial next = {
            .rows = p->rows | 1u << row,
            .cols = p->cols | bit,
            .d1 = p->d1 | UINT64_C(1) << (r - c + n - 1),
            .d2 = p->d2 | UINT64_C(1) << (r + c),
            .mark = p->mark | edge,
        };
        search(b, i + 1, &next, (ld | bit) << 1 & full, (rd | bit) >> 1);
    }
}

/* The placements that put one queen in each quadrant-local column of `left` (and none elsewhere), on
 * any rows, added to p: column by column, each queen on a free row off the diagonals taken. Every
 * branch ends in a placement, unlike a row-by-row search that would mostly leave rows empty. */
static void search_cols(builder *b, uint32_t left, const partial *p)
{
    const nq_quad *q = b->q;
    if (left == 0) {
        visit(b, p);
        return;
    }
    const int n = q->layout.n, c = q->col0 + __builtin_ctz(left);
    for (int i = 0; i < q->rows; i++) {
        const int r = q->row0 + i;
        const uint64_t d1 = UINT64_C(1) << (r - c + n - 1), d2 = UINT64_C(1) << (r + c);
        if ((p->rows >> i & 1u) != 0 || (p->d1 & d1) != 0 || (p->d2 & d2) != 0) continue;
        const uint32_t edge = r == b->edge_row ? (uint32_t)(c - q->col0) << b->edge_shift : 0u;
        const partial next = {
            .rows = p->rows | 1u << i,
            .cols = p->cols | (left & (0u - left)),
            .d1 = p->d1 | d1,
            .d2 = p->d2 | d2,
            .mark = p->mark | edge,
        };
        search_cols(b, left & (left - 1u), &next);
    }
}

bool nq_quad_layout_ok(const nq_quad_layout *layout)
{
    const int n = layout->n, cuts = layout->cuts;
    return n >= 4 && n <= NQ_QUAD_N_MAX && cuts >= 0 && cuts <= NQ_QUAD_CUTS_MAX && cuts % 2 == 0 &&
           cuts / 2 <= n - 3 && 2 * (n - 3) - cuts <= 32 && layout->left >= 1 && layout->left < n;
}

/* Is rows [row0, row0 + rows) x columns [col0, col0 + cols) a quadrant of the layout's board: one
 * side of each cut, whole? */
static bool quadrant_ok(const nq_quad_layout *layout, int row0, int rows, int col0, int cols)
{
    const int n = layout->n, a = n / 2, l = layout->left;
    if (!nq_quad_layout_ok(layout) || rows > NQ_QUAD_ROWS_MAX || cols > NQ_QUAD_COLS_MAX) return false;
    return (row0 == 0 ? rows == a : row0 == a && rows == n - a) && (col0 == 0 ? cols == l : col0 == l && cols == n - l);
}

/* Zero the NQ_QUAD_SPARE entries past q's last: a kernel's vector that reads past a group reads
 * entries, never memory outside the arrays or uninitialised values. */
static void spare_clear(nq_quad *q)
{
    memset(q->diag + q->len, 0, NQ_QUAD_SPARE * sizeof *q->diag);
    memset(q->key + q->len, 0, NQ_QUAD_SPARE * sizeof *q->key);
    memset(q->mark + q->len, 0, NQ_QUAD_SPARE * sizeof *q->mark);
}

nq_err nq_quad_create(nq_quad *q, const nq_quad_layout *layout, int row0, int rows, int col0, int cols,
                      const nq_count_ctl *ctl)
{
    if (q == NULL || layout == NULL) return NQ_E_ARG;
    if (!quadrant_ok(layout, row0, rows, col0, cols) || rows + cols > NQ_QUAD_GROUP_BITS_MAX) return NQ_E_ARG;
    const int n = layout->n;
    *q = (nq_quad){.layout = *layout,
                   .row0 = row0,
                   .rows = rows,
                   .col0 = col0,
                   .cols = cols,
                   .group_shift = cols,
                   .group_cols = (1u << cols) - 1u};
    const int a = n / 2;
    const bool top = row0 < a;
    builder b = {q, top, top ? a - 1 : a, nq_quad_edge_shift(layout), NULL, ctl, CANCEL_STRIDE, false};
    const partial empty = {0, 0, 0, 0, 0};
    const size_t groups = (size_t)1 << (rows + cols);

    q->start = calloc(groups + 1u, sizeof *q->start);
    if (q->start == NULL) return NQ_E_NOMEM;
    search(&b, 0, &empty, 0, 0);
    if (b.stopped) {
        nq_quad_destroy(q);
        return NQ_E_CANCELED;
    }
    for (size_t g = 0; g < groups; g++) q->start[g + 1u] += q->start[g];
    q->len = q->start[groups];

    b.cursor = malloc((groups + 1u) * sizeof *b.cursor); /* a copy of start, moved along */
    const size_t len = q->len + NQ_QUAD_SPARE;
    q->diag = malloc(len * sizeof *q->diag);
    q->key = malloc(len * sizeof *q->key);
    q->mark = malloc(len * sizeof *q->mark);
    if (b.cursor == NULL || q->diag == NULL || q->key == NULL || q->mark == NULL) {
        free(b.cursor);
        nq_quad_destroy(q);
        return NQ_E_NOMEM;
    }
    memcpy(b.cursor, q->start, (groups + 1u) * sizeof *b.cursor);
    spare_clear(q);
    search(&b, 0, &empty, 0, 0);
    free(b.cursor);
    if (b.stopped) {
        nq_quad_destroy(q);
        return NQ_E_CANCELED;
    }
    return NQ_OK;
}

/* Room for len entries in q's arrays, kept when it has it already. False when out of memory (then
 * q's arrays are freed). */
static bool entries_reserve(nq_quad *q, size_t len)
{
    if (len <= q->cap && q->diag != NULL) return true;
    free(q->diag);
    free(q->key);
    free(q->mark);
    const size_t cap = len + len / 2u + 64u; /* the next column set's may be a little longer */
    q->diag = malloc(cap * sizeof *q->diag);
    q->key = malloc(cap * sizeof *q->key);
    q->mark = malloc(cap * sizeof *q->mark);
    q->cap = cap;
    if (q->diag != NULL && q->key != NULL && q->mark != NULL) return true;
    free(q->diag);
    free(q->key);
    free(q->mark);
    q->diag = NULL;
    q->key = q->mark = NULL;
    q->cap = 0;
    return false;
}

nq_err nq_quad_fill_cols(nq_quad *q, const nq_quad_layout *layout, int row0, int rows, int col0, int cols,
                         uint32_t colset)
{
    if (q == NULL || layout == NULL) return NQ_E_ARG;
    if (!quadrant_ok(layout, row0, rows, col0, cols) || colset >> cols != 0) return NQ_E_ARG;
    const int a = layout->n / 2;
    const size_t groups = (size_t)1 << rows;
    if (q->start == NULL || q->rows != rows) { /* first fill, or another quadrant's table: start over */
        nq_quad_destroy(q);
        q->start = malloc((groups + 1u) * sizeof *q->start);
        if (q->start == NULL) return NQ_E_NOMEM;
    }
    q->layout = *layout;
    q->row0 = row0, q->rows = rows, q->col0 = col0, q->cols = cols;
    q->group_shift = 0, q->group_cols = 0;
    memset(q->start, 0, (groups + 1u) * sizeof *q->start);
    const bool top = row0 < a;
    builder b = {q, top, top ? a - 1 : a, nq_quad_edge_shift(layout), NULL, NULL, CANCEL_STRIDE, false};
    const partial empty = {0, 0, 0, 0, 0};
    search_cols(&b, colset, &empty); /* counts each group into start[g + 1] */
    for (size_t g = 0; g < groups; g++) q->start[g + 1u] += q->start[g];
    q->len = q->start[groups];
    if (!entries_reserve(q, q->len + NQ_QUAD_SPARE)) {
        nq_quad_destroy(q);
        return NQ_E_NOMEM;
    }
    spare_clear(q);
    /* The second pass moves each group's offset to its end; the group before's end is its start. */
    b.cursor = q->start;
    search_cols(&b, colset, &empty);
    memmove(q->start + 1, q->start, groups * sizeof *q->start);
    q->start[0] = 0;
    return NQ_OK;
}

void nq_quad_destroy(nq_quad *q)
{
    if (q == NULL) return;
    free(q->diag);
    free(q->key);
    free(q->mark);
    free(q->start);
    memset(q, 0, sizeof *q);
    q->diag = NULL; /* said again for the static analyzer, which does not see memset clear pointers */
    q->key = q->mark = NULL;
    q->start = NULL;
}
