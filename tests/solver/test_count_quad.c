/* test_count_quad.c - Check suite for the half-board counter (count_quad*.c).
 *
 * The cases every counter shares (count_method.h): counts against OEIS A000170 / A002562 for
 * n = 1..17 (fast) and 18..19 (argument "slow"), argument checks, worker counts, progress and
 * cancellation (argument "threads"). Its own: every quadrant entry against a brute force, tables of
 * one column set against whole ones, counts with class bits and per-set right quadrants, the key
 * layout, the SIMD loops against the portable ones, a cancelled table build.
 */
#include "count_quad.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "count_quad_simd.h"
#include "count_quad_table.h"

#define COUNT_METHOD nq_count_quad
#define COUNT_METHOD_N_MAX NQ_COUNT_QUAD_N_MAX
#define COUNT_METHOD_LONG_N 18 /* 2 s on two idle cores, 30 s under ThreadSanitizer */
#include "count_method.h"

enum { FAST_N_MAX = 17, SLOW_N_MAX = 19 };

/* Quadrant tables and the key layout refuse what they cannot build. */
START_TEST(bad_table_arguments)
{
    const nq_quad_layout lay = nq_quad_layout_for(8), tiny = {.n = 3};
    nq_quad q;
    ck_assert_int_eq(nq_quad_create(NULL, &lay, 0, 4, 0, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, NULL, 0, 4, 0, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, &tiny, 0, 1, 0, 1, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, &lay, 0, 0, 0, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, &lay, 6, 4, 0, 4, NULL), NQ_E_ARG); /* off the board */
    ck_assert_int_eq(nq_quad_create(&q, &lay, 0, 4, -1, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, &lay, 2, 4, 0, 4, NULL), NQ_E_ARG); /* across the cut */
    ck_assert_int_eq(nq_quad_create(&q, &lay, 0, 4, 0, 3, NULL), NQ_E_ARG); /* not up to the column cut */
    ck_assert_int_eq(nq_quad_create(&q, &lay, 0, 4, 3, 5, NULL), NQ_E_ARG); /* across it */
    ck_assert_int_eq(nq_quad_create(&q, &lay, 0, 4, 4, 3, NULL), NQ_E_ARG); /* short of the board's edge */
    nq_quad_destroy(NULL);
}
END_TEST

/* ---- quadrant tables ----------------------------------------------------------------------------- */

/* What an entry should hold, worked out queen by queen from the definitions in count_quad_table.h
 * (no layout cuts: n = 8 and 9). */
typedef struct expect {
    uint64_t diag;
    uint32_t key, mark;
} expect;

typedef struct brute {
    int n, a, row0, col0; /* board, cut, quadrant's corner */
    expect *out;          /* entries found so far */
    size_t len;
} brute;

static expect expect_queen(const brute *b, int r, int c)
{
    const int n = b->n, a = b->a, top = r < a, edge_row = top ? a - 1 : a;
    const int d1 = r - c + n - 1, d2 = r + c, lo = a + 1, hi = n + a - 3; /* inner crossing indexes */
    const int w1 = d1 - (b->row0 - a + n), w2 = d2 - (b->row0 + a);       /* diag's windows, left = a */
    expect e = {(w1 >= 0 ? UINT64_C(1) << w1 : 0) | (w2 >= 0 ? UINT64_C(1) << (w2 + 32) : 0), 0, 0};
    if (d1 >= lo && d1 <= hi) e.key |= 1u << (d1 - lo);
    if (d2 >= lo && d2 <= hi) e.key |= 1u << (d2 - lo + (n - 3));
    if (top ? d2 == a : d1 == n + a - 2) e.mark |= NQ_QUAD_END_LOW;              /* the ends across the cut ... */
    if (top ? d1 == a : d2 == n + a - 2) e.mark |= NQ_QUAD_END_HIGH;             /* ... through columns 0 and n - 1 */
    if (r == edge_row) e.mark |= (uint32_t)(c - b->col0) << NQ_QUAD_CLASS_SHIFT; /* no class bits here */
    return e;
}

/* Every placement filling exactly the quadrant-local rows rset and columns cset, by trying every
 * column of cset for the lowest row of rset; appends what each entry should hold to b->out. */
static void brute_group(brute *b, uint32_t rset, uint32_t cset, expect acc, uint64_t d1, uint64_t d2)
{
    if (rset == 0) {
        if (cset == 0) b->out[b->len++] = acc;
        return;
    }
    const int r = b->row0 + __builtin_ctz(rset);
    for (uint32_t avail = cset; avail != 0; avail &= avail - 1u) {
        const int c = b->col0 + __builtin_ctz(avail);
        const uint64_t b1 = UINT64_C(1) << (r - c + b->n - 1), b2 = UINT64_C(1) << (r + c);
        if ((d1 & b1) || (d2 & b2)) continue;
        const expect q = expect_queen(b, r, c);
        const expect next = {acc.diag | q.diag, acc.key | q.key, acc.mark | q.mark};
        brute_group(b, rset & (rset - 1u), cset & ~(avail & (0u - avail)), next, d1 | b1, d2 | b2);
    }
}

static int expect_cmp(const void *x, const void *y)
{
    const expect *p = x, *q = y;
    if (p->diag != q->diag) return p->diag < q->diag ? -1 : 1;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return p->mark < q->mark ? -1 : p->mark > q->mark;
}

/* Every group of the four quadrants of n = 8 and 9 holds exactly the placements a brute force finds,
 * each with the diagonals, key, attacks and edge column worked out queen by queen. */
START_TEST(quadrants_hold_every_placement)
{
    const int n = 8 + _i, a = n / 2, b = n - a;
    const nq_quad_layout lay = nq_quad_layout_for(n);
    const int where[4][4] = {{0, a, 0, a}, {0, a, a, b}, {a, b, 0, a}, {a, b, a, b}};
    for (int k = 0; k < 4; k++) {
        nq_quad q;
        ck_assert_int_eq(nq_quad_create(&q, &lay, where[k][0], where[k][1], where[k][2], where[k][3], NULL), NQ_OK);
        brute br = {n, a, q.row0, q.col0, malloc(q.len * sizeof(expect)), 0};
        expect *got = malloc(q.len * sizeof *got);
        ck_assert(br.out != NULL && got != NULL);
        size_t total = 0;
        for (uint32_t rset = 0; rset < 1u << q.rows; rset++)
            for (uint32_t cset = 0; cset < 1u << q.cols; cset++) {
                uint32_t first, last;
                nq_quad_group(&q, rset, cset, &first, &last);
                br.len = 0;
                if (__builtin_popcount(rset) == __builtin_popcount(cset) && total < q.len)
                    brute_group(&br, rset, cset, (expect){0, 0, 0}, 0, 0);
                ck_assert_msg(last - first == br.len, "n=%d quadrant %d rows %x cols %x: %u, want %zu", n, k, rset,
                              cset, last - first, br.len);
                for (uint32_t e = first; e < last; e++) got[e - first] = (expect){q.diag[e], q.key[e], q.mark[e]};
                qsort(got, br.len, sizeof *got, expect_cmp);
                qsort(br.out, br.len, sizeof *br.out, expect_cmp);
                ck_assert_msg(memcmp(got, br.out, br.len * sizeof *got) == 0,
                              "n=%d quadrant %d rows %x cols %x: entries differ", n, k, rset, cset);
                total += last - first;
            }
        ck_assert_uint_eq(total, q.len);
        for (size_t e = q.len; e < q.len + NQ_QUAD_SPARE; e++) /* the spare entries, zero */
            ck_assert(q.diag[e] == 0 && q.key[e] == 0 && q.mark[e] == 0);
        free(got);
        free(br.out);
        nq_quad_destroy(&q);
    }
}
END_TEST

/* Within each group of a whole table the placements come ordered by their edge queen's column, which
 * lets the counter build halves in run order without sorting them (count_quad.c, half_fill_sorted):
 * at n = 8 and 9, on both sides of the cut, every group that holds the row next to the cut has its
 * marks' edge columns in increasing order, and uses more than one of them somewhere. */
START_TEST(groups_are_ordered_by_edge_column)
{
    const int n = 8 + _i, a = n / 2, b = n - a;
    const nq_quad_layout lay = nq_quad_layout_for(n);
    const int where[4][4] = {{0, a, 0, a}, {0, a, a, b}, {a, b, 0, a}, {a, b, a, b}};
    const int shift = nq_quad_edge_shift(&lay);
    for (int k = 0; k < 4; k++) {
        nq_quad q;
        ck_assert_int_eq(nq_quad_create(&q, &lay, where[k][0], where[k][1], where[k][2], where[k][3], NULL), NQ_OK);
        const uint32_t edge_row = where[k][0] == 0 ? 1u << (q.rows - 1) : 1u;
        size_t groups_mixed = 0;
        for (uint32_t rset = 0; rset < 1u << q.rows; rset++) {
            if ((rset & edge_row) == 0) continue;
            for (uint32_t cset = 0; cset < 1u << q.cols; cset++) {
                uint32_t first, last;
                nq_quad_group(&q, rset, cset, &first, &last);
                for (uint32_t e = first; e + 1u < last; e++)
                    ck_assert_msg(q.mark[e] >> shift <= q.mark[e + 1u] >> shift, "n=%d quadrant %d rows %x cols %x", n,
                                  k, rset, cset);
                groups_mixed += last > first && q.mark[first] >> shift != q.mark[last - 1u] >> shift;
            }
        }
        ck_assert_uint_gt(groups_mixed, 0); /* the order is tested, not vacuous */
        nq_quad_destroy(&q);
    }
}
END_TEST

/* The entries of one group, sorted, for comparing groups whose order may differ. */
static expect *group_sorted(const nq_quad *q, uint32_t first, uint32_t last)
{
    expect *e = malloc((last - first + 1u) * sizeof *e);
    ck_assert_ptr_nonnull(e);
    for (uint32_t i = first; i < last; i++) e[i - first] = (expect){q->diag[i], q->key[i], q->mark[i]};
    qsort(e, last - first, sizeof *e, expect_cmp);
    return e;
}

/* A table of one column set (nq_quad_fill_cols, the right quadrants from n = 21 on) holds, for each
 * row set, exactly the group of the whole table (checked above against a brute force), at odd and
 * even n, on both sides of the cut, with the layout of n = 21 (4 class bits); one table refilled
 * from set to set, and from one quadrant to another. */
START_TEST(column_set_tables_match_whole_ones)
{
    static const int sizes[] = {9, 12, 13};
    nq_quad one = {0};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const int n = sizes[s], a = n / 2, b = n - a;
        const nq_quad_layout lay = nq_quad_layout_cut(n, 4);
        ck_assert_int_eq(lay.cuts, 4);
        const int where[4][4] = {{0, a, a, b}, {a, b, a, b}, {0, a, 0, a}, {a, b, 0, a}};
        for (int k = 0; k < 4; k++) {
            nq_quad whole;
            ck_assert_int_eq(nq_quad_create(&whole, &lay, where[k][0], where[k][1], where[k][2], where[k][3], NULL),
                             NQ_OK);
            size_t total = 0;
            for (uint32_t cset = 0; cset < 1u << whole.cols; cset++) {
                ck_assert_int_eq(
                    nq_quad_fill_cols(&one, &lay, where[k][0], where[k][1], where[k][2], where[k][3], cset), NQ_OK);
                ck_assert_uint_eq(one.start[0], 0);
                ck_assert_uint_eq(one.start[1u << one.rows], one.len);
                for (size_t e = one.len; e < one.len + NQ_QUAD_SPARE; e++) /* spare, zero after a refill too */
                    ck_assert(one.diag[e] == 0 && one.key[e] == 0 && one.mark[e] == 0);
                for (uint32_t rset = 0; rset < 1u << whole.rows; rset++) {
                    uint32_t f0, l0, f1, l1;
                    nq_quad_group(&whole, rset, cset, &f0, &l0);
                    nq_quad_group(&one, rset, cset, &f1, &l1);
                    ck_assert_msg(l1 - f1 == l0 - f0, "n=%d quadrant %d rows %x cols %x: %u, want %u", n, k, rset, cset,
                                  l1 - f1, l0 - f0);
                    expect *want = group_sorted(&whole, f0, l0), *got = group_sorted(&one, f1, l1);
                    ck_assert(memcmp(want, got, (l0 - f0) * sizeof *got) == 0);
                    free(want);
                    free(got);
                }
                total += one.len;
            }
            ck_assert_uint_eq(total, whole.len); /* every entry in exactly one column set */
            nq_quad_destroy(&whole);
        }
    }
    const nq_quad_layout lay = nq_quad_layout_for(8);
    ck_assert_int_eq(nq_quad_fill_cols(NULL, &lay, 0, 4, 4, 4, 1), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_fill_cols(&one, NULL, 0, 4, 4, 4, 1), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_fill_cols(&one, &lay, 0, 4, 4, 4, 1u << 4), NQ_E_ARG); /* a column outside */
    ck_assert_int_eq(nq_quad_fill_cols(&one, &lay, 2, 4, 4, 4, 1), NQ_E_ARG);       /* across the cut */
    nq_quad_destroy(&one);
}
END_TEST

/* The class path (the layouts of n = 20 to 23, too long for a test) on small boards: moving two, four,
 * six or eight central crossing diagonals into the class changes nothing in the counts, with the quadrant
 * tables whole or (per_set, as from n = 21) the right ones built per column set, and with the
 * column cut where the row cut is or (as from n = 22 on) one column further left. */
START_TEST(counts_with_class_bits)
{
    for (int n = 4; n <= 15; n++) {
        for (int cuts = 0; cuts <= NQ_QUAD_CUTS_MAX; cuts += 2) {
            for (int variant = 0; variant < 4; variant++) {
                nq_quad_layout lay = nq_quad_layout_cut(n, cuts);
                ck_assert_int_eq(lay.cuts, cuts / 2 <= n - 3 ? cuts : 0);
                ck_assert_int_eq(lay.left, n / 2);
                lay.per_set = variant & 1;
                lay.left -= variant >> 1;
                nq_counts got = {99, 99};
                ck_assert_int_eq(nq_count_quad_with(n, 2, &lay, NULL, &got), NQ_OK);
                ck_assert_msg(got.total == known_counts[n].total && got.unique == known_counts[n].unique,
                              "n=%d with %d class bits, per_set %d, left %d: %llu / %llu", n, cuts, lay.per_set,
                              lay.left, (unsigned long long)got.total, (unsigned long long)got.unique);
            }
        }
    }
    const nq_quad_layout wrong = nq_quad_layout_cut(9, 0);
    nq_counts got;
    ck_assert_int_eq(nq_count_quad_with(8, 1, &wrong, NULL, &got), NQ_E_ARG);
    ck_assert_int_eq(nq_count_quad_with(8, 1, NULL, NULL, &got), NQ_E_ARG);
    nq_quad_layout uncut = nq_quad_layout_cut(8, 0);
    uncut.left = 0;
    ck_assert_int_eq(nq_count_quad_with(8, 1, &uncut, NULL, &got), NQ_E_ARG);
    uncut.left = 8;
    ck_assert_int_eq(nq_count_quad_with(8, 1, &uncut, NULL, &got), NQ_E_ARG);
    nq_quad_layout wide = nq_quad_layout_cut(23, 6); /* 34 key bits: refused, not truncated */
    ck_assert_int_eq(wide.cuts, 6);
    ck_assert_int_eq(nq_count_quad_with(23, 1, &wide, NULL, &got), NQ_E_ARG);
    wide.cuts = 3;
    ck_assert_int_eq(nq_count_quad_with(23, 1, &wide, NULL, &got), NQ_E_ARG);
}
END_TEST

/* Whole counts with every kernel set this CPU runs (the best one is what the shared cases count
 * with): odd and even boards, long enough (n = 17) that the joins are bit-sliced. */
START_TEST(counts_with_every_kernel_set)
{
    const nq_quad_simd *sets[4];
    const size_t count = nq_quad_simd_all(sets, 4);
    ck_assert_uint_ge(count, 1);
    for (size_t i = 0; i < count; i++) {
        for (int n = 13; n <= 17; n++) {
            nq_counts got = {99, 99};
            ck_assert_int_eq(nq_count_quad_kernels(n, 2, sets[i], NULL, &got), NQ_OK);
            ck_assert_msg(got.total == known_counts[n].total && got.unique == known_counts[n].unique,
                          "n=%d with the %s kernels: %llu / %llu", n, sets[i]->name, (unsigned long long)got.total,
                          (unsigned long long)got.unique);
        }
    }
    nq_counts got;
    ck_assert_int_eq(nq_count_quad_kernels(13, 1, NULL, NULL, &got), NQ_E_ARG);
}
END_TEST

/* Keys fit the 32-bit kernels: class bits only where the 2(n - 3) key bits would not. */
START_TEST(layout_fits_32_bits)
{
    for (int n = 4; n <= NQ_QUAD_N_MAX; n++) {
        const nq_quad_layout lay = nq_quad_layout_for(n);
        ck_assert_int_eq(lay.n, n);
        ck_assert_int_le(2 * (n - 3) - lay.cuts, 32);
        ck_assert_int_eq(nq_quad_layout_cut(n, 1).cuts, 0); /* only whole pairs */
        ck_assert_int_le(lay.cuts, NQ_QUAD_CUTS_MAX);
        ck_assert_int_eq(lay.cuts, n <= 19 ? 0 : 2 * (n - 19));
        ck_assert_int_eq(lay.per_set, n >= 21);           /* whole right tables would pass 1.4 GB at n = 21 */
        ck_assert_int_eq(lay.left, n >= 22 ? 10 : n / 2); /* left tables of 11 x 11 would take 2.1 GB */
        for (int i = 1; i < lay.cuts; i++)                /* highest first, as they are taken out */
            ck_assert_int_gt(lay.cut_pos[i - 1], lay.cut_pos[i]);
    }
}
END_TEST

/* A queen on either side of the cut attacks a cell of the row across it exactly when the bits of its
 * two diagonals (nq_quad_attack_of on its own square: where a table keeps them) meet the cell's in the
 * key, the class or the mark's end bits; for every layout of n = 6..15. Left out, as the counter
 * leaves them out: the cell on the queen's column, and an edge queen (on the row next to the cut)
 * with the cell on the next column, where the other half's edge queen cannot be. */
START_TEST(attack_bits_match_the_board)
{
    for (int n = 6; n <= 15; n++) {
        for (int cuts = 0; cuts <= NQ_QUAD_CUTS_MAX && cuts / 2 <= n - 3; cuts += 2) {
            const nq_quad_layout lay = nq_quad_layout_cut(n, cuts);
            const int a = n / 2;
            for (int r = 0; r < n; r++) {
                const int top = r < a, across = top ? a : a - 1, edge = top ? r == a - 1 : r == a;
                for (int c = 0; c < n; c++) {
                    const nq_quad_attack q = nq_quad_attack_of(&lay, top, r, c);
                    for (int x = 0; x < n; x++) {
                        if (x == c || (edge && abs(x - c) == 1)) continue;
                        const nq_quad_attack cell = nq_quad_attack_of(&lay, top, across, x);
                        const bool bits = ((q.key & cell.key) | (q.cls & cell.cls) | (q.mark & cell.mark)) != 0;
                        ck_assert_msg(bits == (abs(x - c) == abs(across - r)),
                                      "n=%d cuts=%d queen (%d,%d) cell (%d,%d)", n, cuts, r, c, across, x);
                    }
                }
            }
        }
    }
}
END_TEST

START_TEST(cancel_stops_table_build)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_count_cancel(&ctl);
    const nq_quad_layout lay = nq_quad_layout_for(16);
    nq_quad q;
    ck_assert_int_eq(nq_quad_create(&q, &lay, 0, 8, 0, 8, &ctl), NQ_E_CANCELED);
    ck_assert_ptr_null(q.diag);
    ck_assert_ptr_null(q.start);
}
END_TEST

/* ---- SIMD loops ---------------------------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

enum { LEN = 45 };

/* A heap buffer with room for exactly `len` elements and the kernels' slack, so that AddressSanitizer
 * catches a kernel writing past what its contract allows. */
static uint32_t *out_buffer(size_t len)
{
    uint32_t *p = malloc((len + NQ_QUAD_SIMD_SLACK) * sizeof *p);
    ck_assert_ptr_nonnull(p);
    return p;
}

/* A copy of a right run of len elements of `size` bytes, with exactly NQ_QUAD_SIMD_OVERREAD more
 * (zeros, which pair with anything: a kernel must leave them out), so that AddressSanitizer catches a
 * kernel reading past its contract. */
static void *run_copy(const void *run, size_t len, size_t size)
{
    unsigned char *p = malloc((len + NQ_QUAD_SIMD_OVERREAD) * size);
    ck_assert_ptr_nonnull(p);
    memcpy(p, run, len * size);
    memset(p + len * size, 0, NQ_QUAD_SIMD_OVERREAD * size);
    return p;
}

/* One set against the portable one on random sparse data, for every length up to LEN (whole vectors
 * and tails), left runs of 1 to 3, every 5th column for pick, every probe count up to 9 (the joins
 * block 2 or 4). */
static uint64_t check_set(const nq_quad_simd *set)
{
    const nq_quad_simd *ref = nq_quad_simd_portable();
    uint64_t diag[LEN], seed = 0x9E3779B97F4A7C15u, matched = 0;
    uint32_t key[LEN], mark[LEN];
    for (size_t i = 0; i < LEN; i++) {
        const uint64_t x = xorshift(&seed), y = xorshift(&seed), z = xorshift(&seed);
        diag[i] = x & y & z;              /* about 8 bits of 64: a third of pairs compatible */
        key[i] = (uint32_t)(x & y >> 32); /* about 8 bits of 32 */
        mark[i] = (uint32_t)(z >> 16);
    }
    for (size_t len = 0; len <= LEN; len++) {
        uint64_t *rdiag = run_copy(diag, len, sizeof *diag);
        uint32_t *rkey = run_copy(key, len, sizeof *key), *rmark = run_copy(mark, len, sizeof *mark);
        for (size_t l = 0; l < 3; l++) {
            uint32_t wk[3 * LEN], wm[3 * LEN];
            const size_t want = ref->pair(diag + l, key + l, mark + l, 3 - l, diag, key, mark, len, wk, wm);
            uint32_t *ok = out_buffer(want), *om = out_buffer(want);
            ck_assert_uint_eq(set->pair(diag + l, key + l, mark + l, 3 - l, rdiag, rkey, rmark, len, ok, om), want);
            ck_assert(memcmp(ok, wk, want * sizeof *ok) == 0 && memcmp(om, wm, want * sizeof *om) == 0);
            free(ok);
            free(om);
        }
        free(rdiag);
        free(rkey);
        free(rmark);
        for (int c = 0; c < 32; c += 5) { /* two key bits, as a cell's two diagonals, and 0 to 2 end bits */
            uint32_t wk[LEN];
            const uint32_t kmask = 1u << c | 1u << (31 - c), mmask = (uint32_t)c % 4u;
            const size_t want = ref->pick(key, mark, len, kmask, mmask, wk);
            uint32_t *ok = out_buffer(want);
            ck_assert_uint_eq(set->pick(key, mark, len, kmask, mmask, ok), want);
            ck_assert(memcmp(ok, wk, want * sizeof *ok) == 0);
            free(ok);
        }
        for (size_t m = 1; m <= 9; m++) {
            const uint64_t want = ref->join(key, len, key + LEN - m, m);
            ck_assert_uint_eq(set->join(key, len, key + LEN - m, m), want);
            matched += want;
        }
    }
    return matched;
}

/* Every set this CPU runs (AVX-512 and AVX2 here, where the hardware has them) agrees with the
 * portable one, and the data does exercise matches. */
START_TEST(simd_agrees_with_portable)
{
    const nq_quad_simd *sets[4];
    const size_t count = nq_quad_simd_all(sets, 4);
    ck_assert_uint_ge(count, 1);
    ck_assert_ptr_eq(sets[count - 1], nq_quad_simd_portable());
    ck_assert_ptr_eq(sets[0], nq_quad_simd_best());
    for (size_t i = 0; i < count; i++)
        ck_assert_msg(check_set(sets[i]) > 0, "%s: no matches in the test data", sets[i]->name);
}
END_TEST

/* Long joins, where a kernel may take another path than for short ones (the AVX2 one bit-slices
 * blocks of up to 256 probes when the keys pay for a block's set-up, and streams the rest): keys of
 * 26, 30 and 32 bits (n = 16, 18, 19), counts on both sides of that choice and of the block size,
 * blocks not a multiple of 32; keys in runs of 16 (the AVX2 one adds up 16 at a time) past the
 * 31 runs after which its byte counters are flushed, and tails of 1 to 15. Every set agrees with the
 * portable one, either way round; zero keys and probes (compatible with everything) are among the
 * data, and in the dense rows they are nearly all of it (every counter as full as it can get). */
START_TEST(long_joins_agree_with_portable)
{
    static const struct {
        int bits;      /* key width */
        size_t len, m; /* keys, probes */
        bool dense;    /* nearly every key and probe zero */
    } rows[] = {
        {26, 64, 48, false},   {26, 63, 300, false},  {26, 100, 47, false},  {26, 300, 255, false},
        {30, 64, 256, false},  {30, 257, 257, false}, {30, 500, 513, false}, {30, 1000, 64, false},
        {32, 64, 100, false},  {32, 700, 300, false}, {32, 80, 1030, false}, {32, 49, 49, false},
        {32, 2000, 256, true}, {30, 1999, 300, true}, {32, 511, 256, true},  {32, 497, 256, false},
    };
    const nq_quad_simd *sets[4];
    const size_t count = nq_quad_simd_all(sets, 4);
    uint64_t seed = 0x2545F4914F6CDD1Du;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const size_t len = rows[r].len, m = rows[r].m;
        const uint32_t width = rows[r].bits == 32 ? UINT32_MAX : (1u << rows[r].bits) - 1u;
        uint32_t *keys = malloc(len * sizeof *keys), *probes = malloc(m * sizeof *probes);
        ck_assert(keys != NULL && probes != NULL);
        for (size_t i = 0; i < len; i++) {
            const uint64_t x = xorshift(&seed), y = xorshift(&seed);
            const bool zero = rows[r].dense ? i % 61 != 7 : i % 17 == 3;
            keys[i] = zero ? 0 : (uint32_t)(x & y & y >> 32) & width; /* about 8 bits of 32 */
        }
        for (size_t i = 0; i < m; i++) {
            const uint64_t x = xorshift(&seed), y = xorshift(&seed);
            const bool zero = rows[r].dense ? i % 53 != 11 : i % 29 == 5;
            probes[i] = zero ? 0 : (uint32_t)(x & y & y >> 32) & width;
        }
        probes[m - 1] |= 1u << (rows[r].bits - 1); /* the top bit present: the wide layout where 32 */
        const uint64_t want = nq_quad_simd_portable()->join(keys, len, probes, m);
        ck_assert_uint_gt(want, 0);
        for (size_t i = 0; i < count; i++) {
            ck_assert_msg(sets[i]->join(keys, len, probes, m) == want, "%s, row %zu", sets[i]->name, r);
            ck_assert_msg(sets[i]->join(probes, m, keys, len) == want, "%s, row %zu swapped", sets[i]->name, r);
        }
        free(keys);
        free(probes);
    }
}
END_TEST

static void add_own(TCase *tc, const char *which)
{
    if (strcmp(which, "threads") == 0) {
        tcase_add_test(tc, cancel_stops_table_build);
    } else if (strcmp(which, "fast") == 0) {
        tcase_add_test(tc, bad_table_arguments);
        tcase_add_test(tc, attack_bits_match_the_board);
        tcase_add_loop_test(tc, quadrants_hold_every_placement, 0, 2);
        tcase_add_loop_test(tc, groups_are_ordered_by_edge_column, 0, 2);
        tcase_add_test(tc, column_set_tables_match_whole_ones);
        tcase_add_test(tc, counts_with_class_bits);
        tcase_add_test(tc, counts_with_every_kernel_set);
        tcase_add_test(tc, layout_fits_32_bits);
        tcase_add_test(tc, simd_agrees_with_portable);
        tcase_add_test(tc, long_joins_agree_with_portable);
    }
}

int main(int argc, char **argv)
{
    return count_method_main(argc, argv, "count_quad", FAST_N_MAX, SLOW_N_MAX, add_own);
}
