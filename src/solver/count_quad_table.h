/* count_quad_table.h - internal: the quadrant tables of the half-board counter (count_quad.c is the
 * only user).
 *
 * The board is cut once between rows (top rows 0..a-1, bottom rows a..n-1, a = n / 2) and once
 * between columns (left columns 0..l-1, right l..n-1; l = a but at n = 22, layout.left), which gives
 * four quadrants. A quadrant table
 * holds every partial placement inside one quadrant: any number of queens, at most one per row and
 * column, no two on a diagonal. Placements are grouped by the quadrant-local set of rows they fill
 * (high bits of the group number) and of columns (low bits), so "all placements of the top-left
 * quadrant on rows R and columns C" is one contiguous run.
 *
 * Each entry keeps, in three parallel arrays (the pairing loop streams them), what the counter needs
 * without looking at the placement again:
 *   diag: its "\" diagonals (r - c + n - 1) in bits 0..31 and its "/" diagonals (r + c) in bits
 *         32..63, both counted from the first row of its side of the cut (row0): two quadrants on
 *         the same rows conflict iff their diags share a bit;
 *   key:  the diagonals it occupies among those crossing the row cut, less the class bits (below):
 *         a top and a bottom half are compatible iff their keys and their classes share no bit;
 *   mark: the columns it attacks on the row just across the cut (bits 0..21), its class (bits
 *         22..27) and the quadrant-local column of its queen on the row next to the cut (bits
 *         28..31; 0 also when it has none there: a half's edge queen is in exactly one of its two
 *         quadrants, and which one its rows tell, count_quad.c).
 * The diagonals crossing the cut are n - 1 per direction, but the two ends of each need no test
 * (count_quad_table.c, split_key), which leaves 2(n - 3) key bits: 32 at n = 19. At n = 20 the layout
 * moves two more (those through the middle of the cut) out of the key into the class, at n = 21 four,
 * at n = 22 six, and groups of halves whose classes overlap are never joined.
 * Keys and classes are ORs of diagonal bits, and two quadrants of one half never both have an edge
 * queen, so a half's key and mark are the ORs of its two quadrants'.
 *
 * Ownership: nq_quad_create fills a caller-provided nq_quad and nq_quad_destroy frees what it holds.
 * Thread-safety: a built table is read-only; any number of threads may read it.
 */
#ifndef NQ_COUNT_QUAD_TABLE_H
#define NQ_COUNT_QUAD_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "nqueens/solver.h"

#define NQ_QUAD_N_MAX 22          /* largest board: marks of 22 columns, 38 key bits */
#define NQ_QUAD_GROUP_BITS_MAX 22 /* rows + columns of a quadrant: 2^22 groups, 16 MiB of offsets */
#define NQ_QUAD_CUTS_MAX 6        /* at n = 22: 38 key bits, 6 into the class, 32 in keys */
#define NQ_QUAD_CLASS_SHIFT 22    /* mark: attacked columns below, the class from here */
#define NQ_QUAD_EDGE_SHIFT 28     /* mark: the edge queen's quadrant-local column from here */
#define NQ_QUAD_COLS_MAX 16       /* widest quadrant: its local columns fit the mark's 4 top bits */

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
    uint64_t *diag;        /* per entry, grouped: diagonals relative to row0 */
    uint32_t *key;         /* per entry: crossing diagonals outside the class */
    uint32_t *mark;        /* per entry: attacks across the cut and edge column */
    uint32_t *start;       /* groups + 1 offsets: group g is [start[g], start[g+1]) */
    size_t len;            /* entries */
    int group_shift;       /* group of (rows, cols): rows << group_shift | (cols & group_cols) */
    uint32_t group_cols;   /* all columns; for a table of one column set (nq_quad_fill_cols), 0 */
    size_t cap;            /* nq_quad_fill_cols: room in diag, key and mark */
} nq_quad;

/* The key layout for an n x n board, 4 <= n <= NQ_QUAD_N_MAX: class bits only where the key would
 * not fit 32 bits (2 at n = 20, 4 at n = 21, 6 at n = 22). Where it fits, splitting by class bits
 * costs more than it saves: measured at n = 16..18, two central diagonals made the count 20-70%
 * slower. per_set from n = 21 on, where four whole tables would take 1.9 GB. The column cut is the
 * row cut (left = n / 2) but at n = 22, where it moves one column left (left = 10): the two left
 * tables of 11 x 11 would take 2.1 GB, of 11 x 10 they take 690 MB. */
nq_quad_layout nq_quad_layout_for(int n);

/* The layout for n with `cuts` class bits (0, 2, 4 or 6, cuts / 2 <= n - 3; others give 0): the
 * cuts / 2 central crossing diagonals of each direction, left = n / 2, per_set 0. For tests of the
 * class path on small boards. */
nq_quad_layout nq_quad_layout_cut(int n, int cuts);

/* Fill *q with every placement of the quadrant with board rows [row0, row0 + rows) and columns
 * [col0, col0 + cols) of the layout's board, cut after row a - 1 (a = n / 2: a quadrant lies on one
 * side of it). Requires 1 <= rows, cols and rows + cols <= NQ_QUAD_GROUP_BITS_MAX. ctl may be NULL;
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
