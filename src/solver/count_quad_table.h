/* count_quad_table.h - internal: the quadrant tables of the half-board counter (count_quad.c is the
 * only user).
 *
 * The board is cut once between rows (top rows 0..a-1, bottom rows a..n-1, a = n / 2) and once
 * between columns (left columns 0..l-1, right l..n-1; l = layout.left: a, or 10 from n = 22 on),
 * which gives four quadrants. A quadrant table holds every partial placement inside one quadrant:
 * any number of queens, at most one per row and column, no two on a diagonal. Placements are
 * grouped by the quadrant-local set of rows they fill (high bits of the group number) and of columns
 * (low bits), so "all placements of the top-left quadrant on rows R and columns C" is one contiguous
 * run. In a table of nq_quad_create, the placements of a group that holds the row next to the cut
 * come ordered by that row's queen's column (the edge column in their marks, below); a table of
 * nq_quad_fill_cols has no such order.
 *
 * Each entry keeps, in three parallel arrays (the pairing loop streams them), what the counter needs
 * without looking at the placement again:
 *   diag: its "\" diagonals (r - c + n - 1) in bits 0..31 and its "/" diagonals (r + c) in bits
 *         32..63, each from the first that the side's other quadrant can occupy too
 *         (count_quad_table.c, diag_window): a left and a right quadrant on the same side of the
 *         row cut conflict iff their diags share a bit;
 *   key:  the diagonals it occupies among those crossing the row cut, less the class bits (below):
 *         a top and a bottom half are compatible iff their keys and their classes share no bit;
 *   mark: whether it occupies the crossing diagonals with a single cell across the cut (two of the
 *         four ends, below) through column 0 (bit 0, NQ_QUAD_END_LOW) and column n - 1 (bit 1), its
 *         class (from bit 2, layout.cuts bits) and, above the class, the quadrant-local column of
 *         its queen on the row next to the cut (0 also when it has none there: a half's edge queen
 *         is in exactly one of its two quadrants, and which one its rows tell, count_quad.c). So a
 *         mark's bits from the class up are (edge column, class): the run a half is sorted into.
 * The diagonals crossing the cut are n - 1 per direction, but the two ends of each need no key bit
 * (count_quad_table.c, split_key), which leaves 2(n - 3) key bits: 32 at n = 19. At n = 20 the layout
 * moves two more (those through the middle of the cut) out of the key into the class, at n = 21 four,
 * at n = 22 six, at n = 23 eight, and groups of halves whose classes overlap are never joined.
 * Keys and classes are ORs of diagonal bits, and two quadrants of one half never both have an edge
 * queen, so a half's key and mark are the ORs of its two quadrants'.
 *
 * Ownership: nq_quad_create fills a caller-provided nq_quad and nq_quad_destroy frees what it holds.
 * Thread-safety: a built table is read-only; any number of threads may read it.
 */
#ifndef NQ_COUNT_QUAD_TABLE_H
#define NQ_COUNT_QUAD_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/solver.h"

#define NQ_QUAD_N_MAX 23          /* largest board: 40 key bits */
#define NQ_QUAD_GROUP_BITS_MAX 22 /* rows + columns of a quadrant: 2^22 groups, 16 MiB of offsets */
#define NQ_QUAD_CUTS_MAX 8        /* at n = 23: 40 key bits, 8 into the class, 32 in keys */
#define NQ_QUAD_END_LOW 1u        /* mark: occupies an end diagonal through column 0 */
#define NQ_QUAD_END_HIGH 2u       /* mark: occupies an end diagonal through column n - 1 */
#define NQ_QUAD_CLASS_SHIFT 2     /* mark: the end bits below, the class from here, the edge above */
#define NQ_QUAD_COLS_MAX 16       /* widest quadrant */
#define NQ_QUAD_ROWS_MAX 12       /* tallest: the bottom half of n = 23 */
#define NQ_QUAD_SPARE 8           /* zeroed entries past a table's last one: a vector read past a group */

/* How keys are laid out for one board size: shared by all four quadrants of a count. */
typedef struct nq_quad_layout {
    int n;                         /* board size */
    int cuts;                      /* crossing diagonals moved into the class */
    int cut_pos[NQ_QUAD_CUTS_MAX]; /* their bits in the full crossing key, highest first */
    int per_set;                   /* nonzero: count_quad.c builds the right quadrants per column set */
    int left;                      /* columns of the left quadrants (the column cut is after left - 1) */
} nq_quad_layout;

typedef struct nq_quad {
    nq_quad_layout layout; /* board size and key layout */
    int row0, rows;        /* board rows row0 .. row0 + rows - 1 */
    int col0, cols;        /* board columns col0 .. col0 + cols - 1 */
    uint64_t *diag;        /* per entry, grouped: diagonals, windowed (above) */
    uint32_t *key;         /* per entry: crossing diagonals outside the class */
    uint32_t *mark;        /* per entry: end bits, class and edge column */
    uint32_t *start;       /* groups + 1 offsets: group g is [start[g], start[g+1]) */
    size_t len;            /* entries; NQ_QUAD_SPARE zeroed ones follow in diag, key and mark */
    int group_shift;       /* group of (rows, cols): rows << group_shift | (cols & group_cols) */
    uint32_t group_cols;   /* all columns; for a table of one column set (nq_quad_fill_cols), 0 */
    size_t cap;            /* nq_quad_fill_cols: room in diag, key and mark */
} nq_quad;

/* The key layout for an n x n board, 4 <= n <= NQ_QUAD_N_MAX: class bits only where the key would
 * not fit 32 bits (2 at n = 20, 4 at n = 21, 6 at n = 22, 8 at n = 23). Where it fits, splitting by
 * class bits costs more than it saves: measured at n = 16..18, two central diagonals made the count
 * 20-70% slower. per_set from n = 21 on, where four whole tables would take 1.9 GB. The column cut
 * is the row cut (left = n / 2) but from n = 22 on, where it is after column 9 (left = 10): the two
 * left tables of 11 x 11 would take 2.1 GB at n = 22, of 11 x 10 they take 690 MB. */
nq_quad_layout nq_quad_layout_for(int n);

/* The layout for n with `cuts` class bits (0, 2, 4, 6 or 8, cuts / 2 <= n - 3; others give 0): the
 * cuts / 2 central crossing diagonals of each direction, left = n / 2, per_set 0. For tests of the
 * class path on small boards. */
nq_quad_layout nq_quad_layout_cut(int n, int cuts);

/* True if a count can use `layout`: 4 <= n <= NQ_QUAD_N_MAX, an even number of class bits up to
 * NQ_QUAD_CUTS_MAX that leaves at most 32 key bits, 1 <= left < n. Pure. */
bool nq_quad_layout_ok(const nq_quad_layout *layout);

/* Fill *q with every placement of the quadrant with board rows [row0, row0 + rows) and columns
 * [col0, col0 + cols) of the layout's board: one side of the row cut after row a - 1 (a = n / 2),
 * whole, and one side of the column cut after column layout.left - 1, whole. Requires a layout that
 * nq_quad_layout_ok accepts and rows + cols <= NQ_QUAD_GROUP_BITS_MAX. ctl may be NULL;
 * its cancel flag is looked at every few thousand placements (microseconds).
 * Errors: NQ_E_ARG, NQ_E_NOMEM, NQ_E_CANCELED (then *q holds nothing to free). */
nq_err nq_quad_create(nq_quad *q, const nq_quad_layout *layout, int row0, int rows, int col0, int cols,
                      const nq_count_ctl *ctl);

/* Fill *q, like nq_quad_create, with only the placements that use exactly the quadrant-local columns
 * `colset` (one per column; rows free): groups by row set alone, 2^rows of them. *q must be zeroed,
 * destroyed, or filled by this function before (for the same quadrant): its arrays are reused, grown
 * when short, so a worker refills one table per column set without allocating. Microseconds to a
 * millisecond: the search only tries columns of colset and gives up on a branch whose rows left
 * cannot take the columns left. Errors: NQ_E_ARG, NQ_E_NOMEM (then *q holds nothing to free). */
nq_err nq_quad_fill_cols(nq_quad *q, const nq_quad_layout *layout, int row0, int rows, int col0, int cols,
                         uint32_t colset);

/* Where a half keeps that it attacks one cell of the row across the cut: the bits of its key, its
 * class and its mark that the two diagonals through the cell become. A half attacks the cell iff it
 * has one of them. */
typedef struct nq_quad_attack {
    uint32_t key, cls, mark;
} nq_quad_attack;

/* The bits the two diagonals through the cell (row, col) of the layout's board have in a half of
 * the top side (top != 0) or of the bottom one: for the cells a half may attack, row a for a top
 * half and a - 1 for a bottom one. Pure. */
nq_quad_attack nq_quad_attack_of(const nq_quad_layout *layout, int top, int row, int col);

/* The shift of the edge column in a mark of this layout: above the class. */
static inline int nq_quad_edge_shift(const nq_quad_layout *layout)
{
    return NQ_QUAD_CLASS_SHIFT + layout->cuts;
}

/* Free what q holds (its arrays; q itself is the caller's). Safe on a zeroed or destroyed q. */
void nq_quad_destroy(nq_quad *q);

/* The placements on quadrant-local row set `rows` and column set `cols`: indexes [*first, *last). */
static inline void nq_quad_group(const nq_quad *q, uint32_t rows, uint32_t cols, uint32_t *first, uint32_t *last)
{
    const uint32_t g = rows << q->group_shift | (cols & q->group_cols);
    *first = q->start[g];
    *last = q->start[g + 1u];
}

#endif /* NQ_COUNT_QUAD_TABLE_H */
