/* count_quad.c - half-board N-Queens counter: quadrants make halves, halves meet in the middle.
 *
 * Workload: one count of all solutions of an n x n board, 13 <= n <= 23, on a few cores.
 *
 * Cut the board after row a - 1 (a = n / 2). Each row holds one queen, so the top half places a
 * queens on some set S of a columns and the bottom half places the other n - a queens on the columns
 * not in S. A solution is a top half on S and a bottom half on the complement that share no diagonal,
 * and only the n - 1 diagonals of each direction that cross the cut can be shared. So each half is
 * reduced to a key of the crossing diagonals it occupies (count_quad_table.h: 2(n - 3) bits, the
 * four ends need no test) and, per column set S, the count is the number of (top, bottom) pairs
 * whose keys AND to zero.
 *
 * Building the halves: cut the columns too, after column l - 1 (l = layout.left: a, or 10 from
 * n = 22 on). A top half on S is a top-left placement on columns S & left and some rows R joined
 * with a top-right placement on the other top rows and columns S & right, the two sharing no
 * diagonal. The quadrant tables (count_quad_table.c) hold every placement of each quadrant grouped
 * by (rows, columns), so the halves of one S are built by pairing groups, with memory for one S at a
 * time. From n = 21 on (layout per_set) only the left quadrants are tabulated: the right ones would
 * take 1.4 GB at n = 21 (11 x 11 and 10 x 11), and more from n = 22 on, where the column cut moves
 * left to keep the left ones small (690 MB at n = 22), and a column set S uses just one right column
 * set per side, S's high bits, which consecutive column sets mostly share; so each worker builds the
 * right placements of the sets it meets, when they change.
 *
 * Counting the pairs: every top half has a queen on row a - 1 (its edge) and attacks some cells of
 * row a; every bottom half has its edge queen on row a and attacks cells of row a - 1. A pair can only
 * match when neither attacks the other's edge queen. Both halves are grouped by edge column (built in
 * that order where there are no class bits and the tables are whole, half_fill_sorted; sorted after
 * they are built otherwise), and for
 * each pair of edge columns (ct, cb) only the tops of edge ct leaving cb free meet the bottoms of edge
 * cb leaving ct free: about a sixth of all pairs (measured at n = 16). Those meet in the SIMD join
 * (count_quad_simd.h), which streams the longer side and tests four keys of the other per loaded
 * vector, or, where a slice is long enough (most of the pairs from n = 18 on), bit-slices
 * the shorter side in blocks of 256 and meets them with a few table lookups per key. With classes,
 * the tops of one class meet the bottoms of all the classes they may in one join (join_classes).
 *
 * Symmetry: the mirror image (c -> n-1-c) of a solution with top columns S has top columns mirror(S).
 * For even n, turning the board upside down gives top columns "not S": so only the smallest column
 * set of each orbit {S, mirror(S), not S, not mirror(S)} is counted, times the orbit's size. For odd n
 * the bottom half has one row more, and its edge row a is the board's middle row, which turning
 * upside down leaves in place: a solution with top columns S and middle queen on column m becomes one
 * with top columns T = not S less m and the same m. So the unit is the pair (S, m), m being the bottom
 * edge column of the join's slices, and its orbit {(S, m), (mirror(S), m'), (T, m), (mirror(T), m')},
 * m' = n-1-m; only the smallest pair of each orbit is joined, times the orbit's size. Either way about
 * a quarter of all pairs of halves are tested; for odd n, the sets with no smallest pair (about 70% of
 * all sets, 43% of those the mirror alone would count) are not built at all. The unique count
 * follows from Burnside's lemma (count_workers.h).
 *
 * Work is split by column set: workers take the next set from an atomic counter. Memory: the four
 * quadrant tables (shared, read-only; per_set: two) and per worker the halves of the largest column
 * set (a few MB, about 10 at n = 20, 40 at n = 22) and, per_set, its own two right-quadrant tables
 * (about 1 MB).
 */
#include "count_quad.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "count_quad_simd.h"
#include "count_quad_table.h"
#include "count_workers.h"

enum quadrant { TOP_LEFT, TOP_RIGHT, BOTTOM_LEFT, BOTTOM_RIGHT, QUADRANTS };

#define CLASSES_MAX (1 << NQ_QUAD_CUTS_MAX)
#define RUNS_MAX (NQ_QUAD_N_MAX << NQ_QUAD_CUTS_MAX)              /* (edge column, class) runs of one half */
#define SORT_SLOTS ((size_t)NQ_QUAD_COLS_MAX << NQ_QUAD_CUTS_MAX) /* runs of one quadrant's edge columns */
#define SPLITS_MAX 924 /* row splits of a half: at most C(12, 6), for the bottom half of n = 23 */
_Static_assert(NQ_QUAD_ROWS_MAX == 12, "SPLITS_MAX is C(NQ_QUAD_ROWS_MAX, NQ_QUAD_ROWS_MAX / 2)");
_Static_assert(NQ_QUAD_SIMD_OVERREAD <= NQ_QUAD_SPARE, "pair's reads past a run stay inside its table");

/* A column set for the top half and the bottom edge columns counted with it, each (set, edge column)
 * standing for its whole symmetry orbit, of 2 or 4 (see "Symmetry" above). */
typedef struct colset {
    uint32_t cols;  /* board columns of the top half's queens */
    uint32_t edges; /* bottom edge columns to count with them */
    uint32_t heavy; /* those of edges whose orbit has 4 members; the others' has 2 */
} colset;

/* A count in progress, and a session's state between calls (nq_quad_session): the tables stay built
 * from the first call that needs them until the job is destroyed. */
typedef struct nq_quad_session {
    int n, a;                                /* board size; rows in the top half */
    int left;                                /* columns of the left quadrants, layout.left */
    nq_quad quad[QUADRANTS];                 /* the four quadrant tables */
    colset *sets;                            /* the column sets with something to count, edges != 0 (owned) */
    uint32_t nsets;                          /* how many */
    const nq_quad_simd *simd;                /* the hot loops, for this CPU */
    int cuts;                                /* class bits, layout.cuts: read in every sort and pick */
    bool per_set;                            /* layout.per_set: right quadrants built per column set by each worker */
    bool built_sorted;                       /* halves built in run order, no sort (half_fill_sorted) */
    bool built;                              /* quad holds the tables (quads_make succeeded) */
    uint32_t builds;                         /* how many times they were built (a session's tests) */
    nq_quad_layout layout;                   /* how keys are laid out */
    nq_quad_attack attack[2][NQ_QUAD_N_MAX]; /* [0][c]: a top half attacks (a, c); [1][c]: a bottom one (a-1, c) */
    atomic_uint_fast32_t next;               /* next column set to take */
    atomic_uint_fast64_t found;              /* solutions found so far (orbit weights applied) */
    atomic_bool stop;                        /* cancel or failure: every worker leaves */
    atomic_bool nomem;                       /* a worker could not get its scratch memory */
    nq_count_ctl *ctl;                       /* caller's control block, may be NULL */
    const uint8_t *todo;                     /* the tasks to count (task i is column set i), NULL: all */
    nq_count_task_fn done;                   /* told each finished task, may be NULL */
    void *done_arg;                          /* its argument */
} job;

/* The halves of one side for one column set: built unsorted, then sorted by edge column, or, without
 * class bits and with whole tables, built sorted (half_fill_sorted; key and mark are then not
 * allocated). Built with their edge
 * queen in the left quadrant first, then those with it in the right one: a mark holds the edge
 * queen's column within its quadrant only (count_quad_table.h), and where a half stands says which
 * quadrant. */
typedef struct half {
    uint32_t *key;   /* crossing diagonals occupied outside the class, as built */
    uint32_t *mark;  /* end bits, class and edge column (count_quad_table.h), as built */
    uint32_t *skey;  /* key, sorted by (edge column, class) */
    uint32_t *smark; /* mark, in the same order */
    uint32_t *off;   /* RUNS_MAX + 1: run r = c << cuts | k (edge c, class k) is [off[r], off[r+1]) */
    size_t split;    /* as built: the first half whose edge queen is in the right quadrant */
    size_t len, cap; /* halves held, room for */
} half;

/* One row split of a half (half_fill, half_fill_sorted): its two groups, the one holding the edge
 * queen first, and a cursor in that one. */
typedef struct split_runs {
    const nq_quad *edge, *other; /* the quadrant with the edge row, the other one */
    uint32_t at, end;            /* edge's group: the next run starts at, the group ends at */
    uint32_t o0, o1;             /* other's group */
} split_runs;

/* A worker's memory, grown to the largest column set it meets. */
typedef struct scratch {
    half top;               /* the top halves of the column set being counted */
    half bottom;            /* its bottom halves */
    nq_quad right[2];       /* per_set: the top-right and bottom-right placements on ... */
    uint32_t right_cols[2]; /* ... these quadrant-local columns (UINT32_MAX: none built yet) */
    uint32_t *keys;         /* bottom keys of one slice, class by class */
    uint32_t *probes;       /* top keys of one slice, class by class */
    uint32_t *gathered;     /* the bottom keys one top class meets, gathered from keys */
    size_t keys_cap;        /* room in keys, probes and gathered */
    uint32_t *cursor;       /* the sort's cursors: 4 x SORT_SLOTS */
    split_runs *sp;         /* SPLITS_MAX row splits, for half_fill and half_fill_sorted */
} scratch;

static bool cancelled(job *j)
{
    return nq_count_stopping(&j->stop, j->ctl);
}

/* ---- scratch memory --------------------------------------------------------------------------------- */

static void half_free(half *h)
{
    free(h->key);
    free(h->mark);
    free(h->skey);
    free(h->smark);
    h->key = h->mark = h->skey = h->smark = NULL;
    h->len = h->cap = 0;
}

/* Room for `halves` and the kernels' slack in skey and smark, and, unless they are built sorted (the
 * same for every column set of a count), in key and mark. */
static bool half_reserve(half *h, size_t halves, bool built_sorted)
{
    const size_t need = halves + NQ_QUAD_SIMD_SLACK;
    if (need <= h->cap) return true;
    half_free(h);
    h->key = built_sorted ? NULL : malloc(need * sizeof *h->key);
    h->mark = built_sorted ? NULL : malloc(need * sizeof *h->mark);
    h->skey = malloc(need * sizeof *h->skey);
    h->smark = malloc(need * sizeof *h->smark);
    if ((!built_sorted && (h->key == NULL || h->mark == NULL)) || h->skey == NULL || h->smark == NULL) {
        half_free(h);
        return false;
    }
    h->cap = need;
    return true;
}

static void scratch_free(scratch *s)
{
    half_free(&s->top);
    half_free(&s->bottom);
    nq_quad_destroy(&s->right[0]);
    nq_quad_destroy(&s->right[1]);
    free(s->keys);
    free(s->probes);
    free(s->gathered);
    free(s->cursor);
    free(s->sp);
    free(s->top.off);
    free(s->bottom.off);
    memset(s, 0, sizeof *s);
}

/* Room for `tops` top and `bottoms` bottom halves. */
static bool scratch_reserve(scratch *s, size_t tops, size_t bottoms, bool built_sorted)
{
    if (!half_reserve(&s->top, tops, built_sorted) || !half_reserve(&s->bottom, bottoms, built_sorted)) return false;
    const size_t need = (tops > bottoms ? tops : bottoms) + NQ_QUAD_SIMD_SLACK;
    if (need <= s->keys_cap) return true;
    free(s->keys);
    free(s->probes);
    free(s->gathered);
    s->keys = malloc(need * sizeof *s->keys);
    s->probes = malloc(need * sizeof *s->probes);
    s->gathered = malloc(need * sizeof *s->gathered);
    s->keys_cap = s->keys != NULL && s->probes != NULL && s->gathered != NULL ? need : 0;
    return s->keys_cap != 0;
}

/* ---- building the halves --------------------------------------------------------------------------- */

/* Next larger integer with the same number of set bits (Gosper). v != 0. */
static uint32_t next_same_pop(uint32_t v)
{
    const uint32_t low = v & (0u - v);
    const uint32_t ripple = v + low;
    return ripple | (((v ^ ripple) >> 2) / low);
}

/* The rows of a half are split between its left and right quadrant: the left one fills the rows in
 * R, |R| = k (its number of columns), the right one the others. R runs over every k-subset of the
 * half's rows in increasing order: from first_split(k) while below 1 << rows, by next_split. */
static uint32_t first_split(int k)
{
    return (1u << k) - 1u;
}

static uint32_t next_split(uint32_t split)
{
    return split == 0 ? UINT32_MAX : next_same_pop(split); /* the empty set has no successor */
}

/* The two groups one row split R pairs: left placements [l0, l1) on rows R and columns lcols, right
 * placements [r0, r1) on the other rows and columns rcols. */
typedef struct split_groups {
    uint32_t l0, l1; /* left quadrant's entries */
    uint32_t r0, r1; /* right quadrant's entries */
} split_groups;

static split_groups groups_of(const nq_quad *left, const nq_quad *right, uint32_t R, uint32_t lcols, uint32_t rcols)
{
    split_groups g;
    nq_quad_group(left, R, lcols, &g.l0, &g.l1);
    nq_quad_group(right, ((1u << left->rows) - 1u) & ~R, rcols, &g.r0, &g.r1);
    return g;
}

/* How many halves pairing could produce at most: the sum over row splits of the two group sizes'
 * product. Cheap (group offsets only); it sizes the scratch before filling it. */
static size_t half_bound(const nq_quad *left, const nq_quad *right, uint32_t lcols, uint32_t rcols)
{
    const int rows = left->rows, k = __builtin_popcount(lcols);
    size_t bound = 0;
    for (uint32_t R = first_split(k); R < 1u << rows; R = next_split(R)) {
        const split_groups g = groups_of(left, right, R, lcols, rcols);
        bound += (size_t)(g.l1 - g.l0) * (size_t)(g.r1 - g.r0);
    }
    return bound;
}

/* The row splits of one pass of a half, the edge queen in the left quadrant (edge_left) or in the
 * right one, whose two groups both hold placements, into sp (room for SPLITS_MAX); returns how many. */
static size_t splits_of(const nq_quad *left, const nq_quad *right, uint32_t lcols, uint32_t rcols, bool edge_left,
                        split_runs *sp)
{
    const int rows = left->rows, k = __builtin_popcount(lcols);
    const uint32_t edge_row = left->row0 == 0 ? 1u << (rows - 1) : 1u; /* quadrant-local */
    size_t count = 0;
    for (uint32_t R = first_split(k); R < 1u << rows; R = next_split(R)) {
        if (((R & edge_row) != 0) != edge_left) continue;
        const split_groups g = groups_of(left, right, R, lcols, rcols);
        if (g.l0 == g.l1 || g.r0 == g.r1) continue;
        sp[count++] = edge_left ? (split_runs){left, right, g.l0, g.l1, g.r0, g.r1}
                                : (split_runs){right, left, g.r0, g.r1, g.l0, g.l1};
    }
    return count;
}

/* Ask for the first lines of a split's next run and of its other group before they are paired: a
 * group is a few dozen bytes somewhere in a table of tens of megabytes, and pairing one mostly
 * waited for it to come from memory (n = 18, one worker: about 0.9x the time). */
static void split_prefetch(const split_runs *s)
{
    __builtin_prefetch(s->edge->diag + s->at);
    __builtin_prefetch(s->edge->key + s->at);
    __builtin_prefetch(s->edge->mark + s->at);
    __builtin_prefetch(s->other->diag + s->o0);
    __builtin_prefetch(s->other->key + s->o0);
    __builtin_prefetch(s->other->mark + s->o0);
}

#define PREFETCH_AHEAD 2 /* splits: as good as 4 at n = 18 */

/* Pair placements [from, to) of split s's edge group with its whole other group into okey/omark
 * (pair is symmetric in its two sides; the second is the vector loop). Returns how many halves. */
static size_t pair_split(const job *j, const split_runs *s, uint32_t from, uint32_t to, uint32_t *okey, uint32_t *omark)
{
    const nq_quad *e = s->edge, *o = s->other;
    return j->simd->pair(e->diag + from, e->key + from, e->mark + from, to - from, o->diag + s->o0, o->key + s->o0,
                         o->mark + s->o0, s->o1 - s->o0, okey, omark);
}

/* Build every half on the rows of `left`/`right` using left-quadrant columns lcols and right-quadrant
 * columns rcols (quadrant-local), unsorted, into key/mark: first the row splits that give the left
 * quadrant the row next to the cut (and so the edge queen), then the others. h has room for
 * half_bound halves and the kernels' slack; sp for SPLITS_MAX splits. */
static void half_fill(const job *j, const nq_quad *left, const nq_quad *right, uint32_t lcols, uint32_t rcols,
                      split_runs *sp, half *h)
{
    size_t len = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) h->split = len;
        const size_t count = splits_of(left, right, lcols, rcols, pass == 0, sp);
        for (size_t i = 0; i < count; i++) {
            if (i + PREFETCH_AHEAD < count) split_prefetch(&sp[i + PREFETCH_AHEAD]);
            len += pair_split(j, &sp[i], sp[i].at, sp[i].end, h->key + len, h->mark + len);
        }
    }
    h->len = len;
}

/* Without class bits a run is an edge column, and the halves can be built in run order, straight
 * into skey/smark, with no sort: the tables list each group's placements by edge column
 * (count_quad_table.h), so a group of the quadrant holding the edge queen is a series of runs, one per
 * edge column. For each edge column c in turn, every row split's run of c is paired with the whole
 * group of the other quadrant. Each split keeps a cursor into its group, moved past run c before
 * c + 1's. At n = 18 and 19 the sort was a sixth of a count; see docs/performance.md. */

/* Build the halves of one pass, edge column by edge column (cols of them, board columns col0 and up;
 * edges: those the pass's quadrant uses), from len on; their runs go to off[]. Returns the new len. */
static size_t fill_runs(const job *j, split_runs *sp, size_t count, int col0, int cols, uint32_t edges, half *h,
                        size_t len)
{
    const int shift = nq_quad_edge_shift(&j->layout);
    for (int c = 0; c < cols; c++) {
        h->off[col0 + c] = (uint32_t)len;
        if ((edges >> c & 1u) == 0) continue;
        const uint32_t past = (uint32_t)(c + 1) << shift; /* marks of edge c are below, those of c + 1 not */
        for (size_t i = 0; i < count; i++) {
            if (i + PREFETCH_AHEAD < count) split_prefetch(&sp[i + PREFETCH_AHEAD]);
            split_runs *s = &sp[i];
            const uint32_t from = s->at;
            uint32_t to = from;
            while (to < s->end && s->edge->mark[to] < past) to++;
            if (to == from) continue;
            s->at = to;
            len += pair_split(j, s, from, to, h->skey + len, h->smark + len);
        }
    }
    for (size_t i = 0; i < count; i++) assert(sp[i].at == sp[i].end && "every run taken: groups ordered by edge");
    return len;
}

/* half_fill and half_sort in one, for a layout without class bits and tables of nq_quad_create. sp
 * has room for SPLITS_MAX splits. */
static void half_fill_sorted(const job *j, const nq_quad *left, const nq_quad *right, uint32_t lcols, uint32_t rcols,
                             split_runs *sp, half *h)
{
    const int l = j->left;
    size_t len = fill_runs(j, sp, splits_of(left, right, lcols, rcols, true, sp), 0, l, lcols, h, 0);
    h->split = len;
    len = fill_runs(j, sp, splits_of(left, right, lcols, rcols, false, sp), l, j->n - l, rcols, h, len);
    h->off[j->n] = (uint32_t)len;
    h->len = len;
}

/* Counting sort by (edge column, class) into skey/smark and off[], stable, one part of the halves
 * at a time: first those with their edge queen on the left (board columns 0..left-1), then those
 * with it on the right. Neighbouring halves mostly share their run, so one cursor per run would make
 * every step wait for the last one's increment to come back from memory: a part is cut into four
 * consecutive quarters instead, each with its own cursors, walked side by side (four chains that
 * overlap). A mark's bits from the class up are the run within the part (count_quad_table.h): one
 * shift a half. */
_Static_assert(NQ_QUAD_CLASS_SHIFT + NQ_QUAD_CUTS_MAX + 4 <= 32, "a mark holds the class and a local edge column");
_Static_assert(NQ_QUAD_COLS_MAX <= 16, "a local edge column fits four bits");

/* Sort halves [from, to), whose edge queens are on board columns col0 .. col0 + cols - 1, to
 * [*sum, ...) of the sorted arrays, with the cursors `cursor` (4 x SORT_SLOTS); their runs' offsets
 * go to off[] and *sum moves past them. */
static void sort_part(const job *j, half *h, size_t from, size_t to, int col0, int cols, uint32_t *cursor,
                      uint32_t *sum)
{
    const uint32_t slots = (uint32_t)cols << j->cuts;
    uint32_t *const c[4] = {cursor, cursor + SORT_SLOTS, cursor + 2 * SORT_SLOTS, cursor + 3 * SORT_SLOTS};
    for (int p = 0; p < 4; p++) memset(c[p], 0, slots * sizeof *cursor);
    const size_t part = (to - from) / 4, rest = to - from - 3 * part;
    const uint32_t *m0 = h->mark + from, *m1 = m0 + part, *m2 = m1 + part, *m3 = m2 + part; /* m3: the rest */
    for (size_t i = 0; i < part; i++) {
        c[0][m0[i] >> NQ_QUAD_CLASS_SHIFT]++;
        c[1][m1[i] >> NQ_QUAD_CLASS_SHIFT]++;
        c[2][m2[i] >> NQ_QUAD_CLASS_SHIFT]++;
        c[3][m3[i] >> NQ_QUAD_CLASS_SHIFT]++;
    }
    for (size_t i = part; i < rest; i++) c[3][m3[i] >> NQ_QUAD_CLASS_SHIFT]++;
    const uint32_t first = (uint32_t)col0 << j->cuts;
    for (uint32_t slot = 0; slot < slots; slot++) {
        h->off[first + slot] = *sum;
        for (int p = 0; p < 4; p++) {
            const uint32_t count = c[p][slot];
            c[p][slot] = *sum;
            *sum += count;
        }
    }
    const uint32_t *k0 = h->key + from, *k1 = k0 + part, *k2 = k1 + part, *k3 = k2 + part;
    for (size_t i = 0; i < part; i++) {
        const uint32_t at0 = c[0][m0[i] >> NQ_QUAD_CLASS_SHIFT]++;
        const uint32_t at1 = c[1][m1[i] >> NQ_QUAD_CLASS_SHIFT]++;
        const uint32_t at2 = c[2][m2[i] >> NQ_QUAD_CLASS_SHIFT]++;
        const uint32_t at3 = c[3][m3[i] >> NQ_QUAD_CLASS_SHIFT]++;
        h->skey[at0] = k0[i], h->smark[at0] = m0[i];
        h->skey[at1] = k1[i], h->smark[at1] = m1[i];
        h->skey[at2] = k2[i], h->smark[at2] = m2[i];
        h->skey[at3] = k3[i], h->smark[at3] = m3[i];
    }
    for (size_t i = part; i < rest; i++) {
        const uint32_t at = c[3][m3[i] >> NQ_QUAD_CLASS_SHIFT]++;
        h->skey[at] = k3[i], h->smark[at] = m3[i];
    }
}

static void half_sort(const job *j, half *h, uint32_t *cursor)
{
    uint32_t sum = 0;
    sort_part(j, h, 0, h->split, 0, j->left, cursor, &sum);
    sort_part(j, h, h->split, h->len, j->left, j->n - j->left, cursor, &sum);
    h->off[(uint32_t)j->n << j->cuts] = sum;
}

/* ---- joining them ---------------------------------------------------------------------------------- */

/* Pick, class by class, the halves of edge column `edge` that leave the other side's edge queen's
 * cell free (have none of its bits, `cell`): class k lands in out[at[k] .. at[k + 1]). A class with
 * a bit of the cell's diagonals attacks it whole. Returns how many in all. */
static size_t pick_classes(const job *j, const half *h, int edge, const nq_quad_attack *cell, uint32_t *out, size_t *at)
{
    const uint32_t classes = 1u << j->cuts, run = (uint32_t)edge << j->cuts;
    size_t len = 0;
    for (uint32_t k = 0; k < classes; k++) {
        at[k] = len;
        if ((k & cell->cls) != 0) continue;
        const uint32_t first = h->off[run + k], last = h->off[run + k + 1u];
        len += j->simd->pick(h->skey + first, h->smark + first, last - first, cell->key, cell->mark, out + len);
    }
    at[classes] = len;
    return len;
}

/* The bottom keys of the classes in `allowed` (a set of classes), gathered into out in class order;
 * returns how many. Classes next to each other in the slice are copied as one run. */
static size_t gather_classes(const uint32_t *keys, const size_t *kat, uint32_t allowed, uint32_t *out)
{
    size_t len = 0, run = kat[0], run_end = kat[0];
    for (uint32_t k = 0;; k = ((k | ~allowed) + 1u) & allowed) { /* every subset of allowed, increasing */
        if (kat[k] != run_end) { /* not adjacent to the run so far: copy that run, start another */
            memcpy(out + len, keys + run, (run_end - run) * sizeof *out);
            len += run_end - run;
            run = kat[k];
        }
        run_end = kat[k + 1u];
        if (k == allowed) break;
    }
    memcpy(out + len, keys + run, (run_end - run) * sizeof *out);
    return len + (run_end - run);
}

/* Join the picked tops and bottoms of one slice: top class t meets the bottom classes that share
 * no bit with it. With many classes (256 at n = 23) those are short, and a join per pair of classes
 * would mostly pay its set-up and tails; so the bottom keys a top class meets are gathered into one
 * array (all of them when t is 0: the picked keys as they are) and joined once, where the join may
 * bit-slice them. Gathering even for one top is cheaper than joining class by class (n = 23,
 * sampled tasks: 11% less CPU; gathering only for 4 tops or more: 7%). */
static uint64_t join_classes(const job *j, const scratch *s, const size_t *kat, const size_t *pat)
{
    const uint32_t mask = (1u << j->cuts) - 1u;
    uint64_t sum = 0;
    for (uint32_t t = 0; t <= mask; t++) {
        const size_t m = pat[t + 1u] - pat[t];
        if (m == 0) continue;
        const uint32_t allowed = ~t & mask;
        const uint32_t *probes = s->probes + pat[t];
        if (allowed == mask) {
            sum += j->simd->join(s->keys, kat[mask + 1u], probes, m);
        } else {
            const size_t len = gather_classes(s->keys, kat, allowed, s->gathered);
            if (len != 0) sum += j->simd->join(s->gathered, len, probes, m);
        }
    }
    return sum;
}

/* The solutions of one column set: pairs of compatible halves, slice by slice (see the top of the
 * file), over the bottom edge columns set counts, each times its orbit's size. Returns false when
 * cancelled. */
static bool join_halves(job *j, scratch *s, const colset *set, uint64_t *solutions)
{
    const half *top = &s->top, *bottom = &s->bottom;
    const int cuts = j->cuts;
    size_t kat[CLASSES_MAX + 1], pat[CLASSES_MAX + 1];
    uint64_t sum = 0;
    for (int cb = 0; cb < j->n; cb++) {
        if ((set->edges >> cb & 1u) == 0 || bottom->off[cb << cuts] == bottom->off[(cb + 1) << cuts]) continue;
        if (cancelled(j)) return false;
        const uint64_t weight = ((set->heavy >> cb) & 1u) != 0 ? 4u : 2u;
        for (int ct = 0; ct < j->n; ct++) {
            if (top->off[ct << cuts] == top->off[(ct + 1) << cuts] || ct == cb + 1 || ct + 1 == cb)
                continue; /* no tops, or adjacent edge queens (they attack each other) */
            if (pick_classes(j, bottom, cb, &j->attack[1][ct], s->keys, kat) == 0) continue;
            if (pick_classes(j, top, ct, &j->attack[0][cb], s->probes, pat) == 0) continue;
            sum += weight * join_classes(j, s, kat, pat);
        }
    }
    *solutions = sum;
    return true;
}

static bool out_of_memory(job *j)
{
    atomic_store(&j->nomem, true);
    atomic_store(&j->stop, true);
    return false;
}

/* The right quadrant of one side (0: top, 1: bottom) holding the placements on right-quadrant columns
 * rcols: the shared table, or (per_set) the worker's own, refilled when rcols changes. Column sets
 * are listed in increasing order and their right columns are the high bits, so consecutive sets
 * mostly share them and a refill is rare. NULL when out of memory. */
static const nq_quad *right_quad(const job *j, scratch *s, int side, uint32_t rcols)
{
    const nq_quad *shared = &j->quad[side == 0 ? TOP_RIGHT : BOTTOM_RIGHT];
    if (!j->per_set) return shared;
    nq_quad *q = &s->right[side];
    if (q->start == NULL || s->right_cols[side] != rcols) { /* never filled, or another set */
        const int a = j->a, row0 = side == 0 ? 0 : a, rows = side == 0 ? a : j->n - a;
        s->right_cols[side] = UINT32_MAX;
        if (nq_quad_fill_cols(q, &j->layout, row0, rows, j->left, j->n - j->left, rcols) != NQ_OK) return NULL;
        s->right_cols[side] = rcols;
    }
    return q;
}

/* Count the solutions whose top half uses set's columns (and, for odd n, whose middle queen is on one
 * of its edge columns), each times its orbit's size. Returns false when cancelled or out of memory
 * (then j->nomem is set). */
static bool count_set(job *j, scratch *s, const colset *set, uint64_t *found)
{
    const int l = j->left;
    const uint32_t cols = set->cols;
    const uint32_t left = (1u << l) - 1u, other = ((1u << j->n) - 1u) & ~cols;
    const nq_quad *q = j->quad;
    const nq_quad *top_right = right_quad(j, s, 0, cols >> l), *bottom_right = right_quad(j, s, 1, other >> l);
    if (top_right == NULL || bottom_right == NULL) return out_of_memory(j);
    const size_t tops = half_bound(&q[TOP_LEFT], top_right, cols & left, cols >> l);
    const size_t bottoms = half_bound(&q[BOTTOM_LEFT], bottom_right, other & left, other >> l);
    if (tops == 0 || bottoms == 0) {
        *found = 0;
        return true;
    }
    if (!scratch_reserve(s, tops, bottoms, j->built_sorted)) return out_of_memory(j);
    if (j->built_sorted) {
        half_fill_sorted(j, &q[TOP_LEFT], top_right, cols & left, cols >> l, s->sp, &s->top);
        half_fill_sorted(j, &q[BOTTOM_LEFT], bottom_right, other & left, other >> l, s->sp, &s->bottom);
    } else {
        half_fill(j, &q[TOP_LEFT], top_right, cols & left, cols >> l, s->sp, &s->top);
        half_fill(j, &q[BOTTOM_LEFT], bottom_right, other & left, other >> l, s->sp, &s->bottom);
        half_sort(j, &s->top, s->cursor);
        half_sort(j, &s->bottom, s->cursor);
    }
    return join_halves(j, s, set, found);
}

static void *worker(void *arg)
{
    job *j = arg;
    scratch s;
    memset(&s, 0, sizeof s);
    s.right_cols[0] = s.right_cols[1] = UINT32_MAX;
    s.cursor = malloc(4 * SORT_SLOTS * sizeof *s.cursor);
    s.sp = malloc(SPLITS_MAX * sizeof *s.sp);
    s.top.off = malloc((RUNS_MAX + 1) * sizeof *s.top.off);
    s.bottom.off = malloc((RUNS_MAX + 1) * sizeof *s.bottom.off);
    if (s.cursor == NULL || s.sp == NULL || s.top.off == NULL || s.bottom.off == NULL) {
        scratch_free(&s);
        out_of_memory(j);
        return NULL;
    }
    uint64_t found = 0;
    while (!cancelled(j)) {
        const uint32_t i = (uint32_t)atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (i >= j->nsets) break;
        if (j->todo != NULL && j->todo[i] == 0) continue; /* counted before (resume) or elsewhere */
        uint64_t solutions = 0;
        if (!count_set(j, &s, &j->sets[i], &solutions)) break;
        found += solutions;
        if (j->done != NULL) {
            const nq_count_sums sums = {solutions, solutions};
            j->done(j->done_arg, i, &sums);
        }
        if (j->ctl != NULL) atomic_fetch_add_explicit(&j->ctl->done, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&j->found, found, memory_order_relaxed);
    scratch_free(&s);
    return NULL;
}

/* ---- column sets ---------------------------------------------------------------------------------- */

static uint32_t mirror(uint32_t cols, int n)
{
    uint32_t m = 0;
    for (int c = 0; c < n; c++) m |= (cols >> c & 1u) << (n - 1 - c);
    return m;
}

/* A column set S and a bottom edge column m, ordered by S, then m. */
static uint64_t pair_of(uint32_t cols, int m)
{
    return (uint64_t)cols << 5 | (uint64_t)m;
}

/* If the first of the four pairs is the smallest, the number of distinct ones (2 or 4); else 0. */
static uint32_t orbit_size(const uint64_t orbit[4])
{
    uint32_t size = 0;
    for (int i = 0; i < 4; i++) {
        if (orbit[i] < orbit[0]) return 0;
        bool seen = false;
        for (int k = 0; k < i; k++) seen = seen || orbit[k] == orbit[i];
        size += !seen;
    }
    return size;
}

/* The set's edges and heavy masks (colset): for even n the orbit of the column set alone, {S,
 * mirror(S), not S, not mirror(S)}, the same for every edge column; for odd n the orbit of each pair
 * (S, m) (the top of the file). edges is 0 when no pair is the smallest of its orbit. An orbit has 2
 * or 4 members, never 1: turning the board upside down moves every set (S is never "not S", nor
 * "not S, less m"), and an orbit's size divides the group's 4. */
static void orbits_of(uint32_t cols, int n, colset *set)
{
    const uint32_t all = (1u << n) - 1u, mirrored = mirror(cols, n);
    *set = (colset){cols, 0, 0};
    if (n % 2 == 0) {
        const uint64_t orbit[4] = {cols, mirrored, all & ~cols, all & ~mirrored};
        const uint32_t size = orbit_size(orbit);
        set->edges = size != 0 ? all & ~cols : 0; /* the bottom's edge queen is on one of its columns */
        set->heavy = size == 4 ? set->edges : 0;
        return;
    }
    for (int m = 0; m < n; m++) {
        if (cols >> m & 1u) continue;
        const int m_mirrored = n - 1 - m;
        const uint32_t t = all & ~cols & ~(1u << m); /* mirror(t) needs no walk over the columns: */
        const uint64_t orbit[4] = {pair_of(cols, m), pair_of(mirrored, m_mirrored), pair_of(t, m),
                                   pair_of(all & ~mirrored & ~(1u << m_mirrored), m_mirrored)};
        const uint32_t size = orbit_size(orbit);
        if (size != 0) set->edges |= 1u << m;
        if (size == 4) set->heavy |= 1u << m;
    }
}

/* Every a-column set of n columns (1 <= a < n) with something to count, in increasing order. *out
 * is the caller's to free. */
static nq_err colsets_make(int n, int a, colset **out, uint32_t *len)
{
    if (a < 1 || a >= n) return NQ_E_ARG; /* no set to build a half on (and Gosper's step needs a set bit) */
    const size_t cap = (size_t)nq_binomial(n, a);
    colset *sets = malloc(cap * sizeof *sets);
    if (sets == NULL) return NQ_E_NOMEM;
    uint32_t count = 0;
    for (uint32_t cols = (1u << a) - 1u; cols < (1u << n); cols = next_same_pop(cols)) {
        orbits_of(cols, n, &sets[count]);
        count += sets[count].edges != 0;
    }
    colset *fit = count != 0 ? realloc(sets, count * sizeof *sets) : NULL; /* odd n keep about 28% */
    *out = fit != NULL ? fit : sets;
    *len = count;
    return NQ_OK;
}

/* ---- the count ---------------------------------------------------------------------------------- */

/* One quadrant table to build: where it lies, and how the build went. */
typedef struct quad_task {
    nq_quad *q;                 /* the table to fill */
    int row0, rows, col0, cols; /* its cells */
    nq_err err;                 /* the build's result */
} quad_task;

/* The four builds, taken one at a time by whichever thread is free. */
typedef struct quad_builds {
    quad_task tasks[QUADRANTS];   /* right ones first, then largest first: the last one taken is short */
    const nq_quad_layout *layout; /* key layout */
    const nq_count_ctl *ctl;      /* cancel flag, may be NULL */
    atomic_int next;              /* next task to take */
} quad_builds;

static void *quad_build(void *arg)
{
    quad_builds *b = arg;
    for (int i; (i = atomic_fetch_add(&b->next, 1)) < QUADRANTS;) {
        quad_task *t = &b->tasks[i];
        t->err = nq_quad_create(t->q, b->layout, t->row0, t->rows, t->col0, t->cols, b->ctl);
    }
    return NULL;
}

/* Build the four quadrant tables (per_set: the two left ones) on up to `threads` threads (one a table
 * at most), the calling one included: the build is a few tenths of a second at n = 18, all of it
 * before the workers start. */
static nq_err quads_make(job *j, int threads)
{
    const int a = j->a, b = j->n - a;    /* for odd n the bottom quadrants are larger */
    const int l = j->left, r = j->n - l; /* columns: l = a, or 10 from n = 22 on */
    quad_builds builds = {
        .tasks = {{&j->quad[BOTTOM_RIGHT], a, b, l, r, NQ_OK},
                  {&j->quad[TOP_RIGHT], 0, a, l, r, NQ_OK},
                  {&j->quad[BOTTOM_LEFT], a, b, 0, l, NQ_OK},
                  {&j->quad[TOP_LEFT], 0, a, 0, l, NQ_OK}},
        .layout = &j->layout,
        .ctl = j->ctl,
    };
    const int first = j->per_set ? 2 : 0; /* the right ones come first in tasks */
    atomic_init(&builds.next, first);
    const int count = QUADRANTS - first;
    nq_count_helpers_run(quad_build, &builds, threads < count ? threads : count);
    nq_err err = NQ_OK;
    for (int q = first; q < QUADRANTS && err == NQ_OK; q++) err = builds.tasks[q].err;
    return err;
}

/* A job for n (4 <= n <= NQ_COUNT_QUAD_N_MAX) with the given layout and kernels (NULL: the best this
 * CPU runs): column sets listed, tables not yet built. NULL when out of memory. */
static job *job_create(int n, const nq_quad_layout *layout, const nq_quad_simd *simd)
{
    job *j = calloc(1, sizeof *j);
    if (j == NULL) return NULL;
    j->n = n;
    j->a = n / 2;
    j->left = layout->left;
    j->simd = simd != NULL ? simd : nq_quad_simd_best();
    j->layout = *layout;
    j->cuts = layout->cuts;
    for (int c = 0; c < n; c++) {
        j->attack[0][c] = nq_quad_attack_of(layout, 1, j->a, c);
        j->attack[1][c] = nq_quad_attack_of(layout, 0, j->a - 1, c);
    }
    j->per_set = layout->per_set != 0;
    j->built_sorted = j->cuts == 0 && !j->per_set; /* runs are edge columns; whole tables, ordered */
    if (colsets_make(n, j->a, &j->sets, &j->nsets) != NQ_OK) {
        free(j);
        return NULL;
    }
    return j;
}

static void job_destroy(job *j)
{
    for (int q = 0; q < QUADRANTS; q++) nq_quad_destroy(&j->quad[q]);
    free(j->sets);
    free(j);
}

/* Set j up for one call: what to count and whom to tell; nothing of the last call's run is left. */
static void job_start(job *j, const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done, void *arg)
{
    j->todo = todo;
    j->ctl = ctl;
    j->done = done;
    j->done_arg = arg;
    atomic_init(&j->next, 0);
    atomic_init(&j->found, 0);
    atomic_init(&j->stop, false);
    atomic_init(&j->nomem, false);
}

/* Whether todo leaves a column set to count. When it does not (the symmetric task alone, a resume
 * whose sets are all done), the tables are not built: at n = 23 that is a gigabyte and a minute. */
static bool sets_todo(const job *j)
{
    if (j->todo == NULL) return true;
    for (uint32_t i = 0; i < j->nsets; i++)
        if (j->todo[i] != 0) return true;
    return false;
}

/* Build the tables unless they are built or nothing needs them. A build that failed (cancelled, out of
 * memory) is not kept in part: the next call that needs the tables builds them whole. */
static nq_err tables_ready(job *j, int threads)
{
    if (j->built || !sets_todo(j)) return NQ_OK;
    const nq_err err = quads_make(j, threads);
    if (err != NQ_OK) {
        for (int q = 0; q < QUADRANTS; q++) nq_quad_destroy(&j->quad[q]);
        return err;
    }
    j->built = true;
    j->builds++;
    return NQ_OK;
}

/* Count the column sets (and, when wanted, the symmetric boards: task nsets) that todo names on a
 * job made for n (job_start), reporting each through j->done; *sums receives what the counted tasks
 * add up to. */
static nq_err job_run(job *j, int threads, nq_count_sums *sums)
{
    const bool symmetric = j->todo == NULL || j->todo[j->nsets] != 0;
    nq_err err = tables_ready(j, threads);
    if (err != NQ_OK) return err;
    nq_count_ctl *ctl = j->ctl;
    if (ctl != NULL) {
        uint32_t skipped = 0;
        for (uint32_t i = 0; j->todo != NULL && i <= j->nsets; i++) skipped += j->todo[i] == 0;
        atomic_store(&ctl->done, skipped);
        atomic_store(&ctl->total, j->nsets + 1u);
    }
    uint64_t quarter = 0, half_turn = 0;
    err = nq_count_workers_run(j->n, threads, worker, j, &j->stop, &j->nomem, ctl, symmetric ? &quarter : NULL,
                               symmetric ? &half_turn : NULL);
    if (err != NQ_OK) return err;
    const uint64_t found = atomic_load(&j->found);
    *sums = (nq_count_sums){found, found + 2u * quarter + half_turn};
    if (symmetric) {
        const nq_count_sums sym = {0, 2u * quarter + half_turn};
        if (j->done != NULL) j->done(j->done_arg, j->nsets, &sym);
        if (ctl != NULL) atomic_fetch_add(&ctl->done, 1);
    }
    return NQ_OK;
}

/* The tasked count behind every entry point: n checked, layout given, kernels NULL for the best. */
static nq_err quad_tasks(int n, int threads, const nq_quad_layout *layout, const nq_quad_simd *simd,
                         const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done, void *arg, nq_count_sums *sums)
{
    threads = nq_count_workers(threads, NQ_COUNT_WORKERS_MAX);
    job *j = job_create(n, layout, simd);
    if (j == NULL) return NQ_E_NOMEM;
    job_start(j, todo, ctl, done, arg);
    const nq_err err = job_run(j, threads, sums);
    job_destroy(j);
    return err;
}

/* nq_count_quad_with and nq_count_quad_kernels: arguments checked, then the whole plan. */
static nq_err quad_count(int n, int threads, const nq_quad_layout *layout, const nq_quad_simd *simd, nq_count_ctl *ctl,
                         nq_counts *out)
{
    if (out == NULL || threads < 0 || layout == NULL || layout->n != n) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_QUAD_N_MAX) return NQ_E_RANGE;
    if (ctl != NULL && atomic_load(&ctl->cancel)) return NQ_E_CANCELED;
    if (nq_count_too_small(n, out)) return NQ_OK;
    if (!nq_quad_layout_ok(layout)) return NQ_E_ARG; /* no column cut, or keys past 32 bits */
    nq_count_sums sums = {0, 0};
    const nq_err err = quad_tasks(n, threads, layout, simd, NULL, ctl, NULL, NULL, &sums);
    if (err == NQ_OK) *out = nq_count_sums_counts(&sums);
    return err;
}

nq_err nq_count_quad_with(int n, int threads, const nq_quad_layout *layout, nq_count_ctl *ctl, nq_counts *out)
{
    return quad_count(n, threads, layout, NULL, ctl, out);
}

static nq_quad_layout default_layout(int n)
{
    /* Boards outside 4..NQ_QUAD_N_MAX are not cut: their layout only carries n to the checks. */
    return n >= 4 && n <= NQ_QUAD_N_MAX ? nq_quad_layout_for(n) : (nq_quad_layout){.n = n};
}

uint32_t nq_count_quad_plan(int n)
{
    if (n < 4 || n > NQ_COUNT_QUAD_N_MAX) return 1;
    colset *sets = NULL;
    uint32_t len = 0;
    if (colsets_make(n, n / 2, &sets, &len) != NQ_OK) return 0;
    free(sets);
    return len + 1u;
}

nq_err nq_count_quad_tasks(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done, void *arg)
{
    if (threads < 0) return NQ_E_ARG;
    if (n < 4 || n > NQ_COUNT_QUAD_N_MAX) return NQ_E_RANGE;
    if (ctl != NULL && atomic_load(&ctl->cancel)) return NQ_E_CANCELED;
    const nq_quad_layout layout = default_layout(n);
    nq_count_sums sums = {0, 0};
    return quad_tasks(n, threads, &layout, NULL, todo, ctl, done, arg, &sums);
}

nq_err nq_count_quad_session_create(int n, nq_quad_session **out)
{
    if (out == NULL) return NQ_E_ARG;
    *out = NULL;
    if (n < 4 || n > NQ_COUNT_QUAD_N_MAX) return NQ_E_RANGE;
    const nq_quad_layout layout = default_layout(n);
    *out = job_create(n, &layout, NULL);
    return *out != NULL ? NQ_OK : NQ_E_NOMEM;
}

nq_err nq_count_quad_session_tasks(nq_quad_session *s, int threads, const uint8_t *todo, nq_count_ctl *ctl,
                                   nq_count_task_fn done, void *arg)
{
    if (s == NULL || threads < 0) return NQ_E_ARG;
    if (ctl != NULL && atomic_load(&ctl->cancel)) return NQ_E_CANCELED;
    job_start(s, todo, ctl, done, arg);
    nq_count_sums sums = {0, 0};
    const nq_err err = job_run(s, nq_count_workers(threads, NQ_COUNT_WORKERS_MAX), &sums);
    job_start(s, NULL, NULL, NULL, NULL); /* nothing of the caller's is kept past the call */
    return err;
}

uint32_t nq_count_quad_session_builds(const nq_quad_session *s)
{
    return s->builds;
}

void nq_count_quad_session_destroy(nq_quad_session *s)
{
    if (s != NULL) job_destroy(s);
}

nq_err nq_count_quad(int n, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    const nq_quad_layout layout = default_layout(n);
    return quad_count(n, threads, &layout, NULL, ctl, out);
}

nq_err nq_count_quad_kernels(int n, int threads, const nq_quad_simd *simd, nq_count_ctl *ctl, nq_counts *out)
{
    if (simd == NULL) return NQ_E_ARG;
    const nq_quad_layout layout = default_layout(n);
    return quad_count(n, threads, &layout, simd, ctl, out);
}

bool nq_count_quad_preferred(int n)
{
    /* From n = 13 on it beats backtracking (1.4x at 13, 4x at 14, 15x at 16; docs/performance.md), in
     * memory that stays small below n = 18 (11 MB at n = 16); at n = 21 it takes a sixteenth of the
     * meet-in-the-middle counter's CPU time (2 700 s against about 44 000), in 554 MiB; at n = 22 and
     * 23 a sixtieth (7 924 s against about 491 000; about 97 000 against 5.7 million, sampled), in
     * 832 MiB and 1.5 GiB. */
    return n >= 13 && n <= NQ_COUNT_QUAD_N_MAX;
}
