/* test_count_quad.c - Check suite for the half-board counter (count_quad*.c).
 *
 * Counts against OEIS A000170 / A002562 for n = 1..17 (fast) and 18..19 (argument "slow"); the
 * quadrant tables against a brute-force count of every group; the key layout; the SIMD loops against
 * the portable ones; argument checks; worker counts, progress and cancellation (argument "threads").
 */
#include "count_quad.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "count_cases.h"
#include "count_quad_simd.h"
#include "count_quad_table.h"

enum { FAST_N_MAX = 17, SLOW_N_MAX = 19 };

/* A000170 / A002562 for n = 19, beyond count_cases.h (from ../shared/data/nqueens-counts.tsv). */
static const nq_counts counts_19 = {4968057848u, 621012754u};

static nq_counts known(int n)
{
    if (n == 19)
        return counts_19;
    const nq_counts c = {known_counts[n].total, known_counts[n].unique};
    return c;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check_count(int n, int threads)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_counts got = {99, 99};
    ck_assert_int_eq(nq_count_quad(n, threads, &ctl, &got), NQ_OK);
    const nq_counts want = known(n);
    ck_assert_msg(got.total == want.total, "n=%d threads=%d total %llu", n, threads,
                  (unsigned long long)got.total);
    ck_assert_msg(got.unique == want.unique, "n=%d threads=%d unique %llu", n, threads,
                  (unsigned long long)got.unique);
    if (n >= 4) /* smaller boards are answered without splitting any work */
        ck_assert_uint_eq(atomic_load(&ctl.done), atomic_load(&ctl.total));
}

START_TEST(counts_match_oeis)
{
    check_count(_i, 2);
}
END_TEST

START_TEST(counts_match_oeis_slow)
{
    check_count(_i, 0);
}
END_TEST

/* The same counts whatever the number of workers, including more workers than column sets. */
START_TEST(thread_counts_agree)
{
    static const int threads[] = {1, 3, 0, 64};
    static const int boards[] = {5, 12, 14};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
        for (size_t b = 0; b < sizeof boards / sizeof *boards; b++)
            check_count(boards[b], threads[t]);
}
END_TEST

START_TEST(null_ctl_is_fine)
{
    nq_counts got;
    ck_assert_int_eq(nq_count_quad(12, 2, NULL, &got), NQ_OK);
    ck_assert_uint_eq(got.total, 14200);
    ck_assert_uint_eq(got.unique, 1787);
}
END_TEST

START_TEST(bad_arguments)
{
    nq_counts got;
    ck_assert_int_eq(nq_count_quad(8, 1, NULL, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_count_quad(8, -1, NULL, &got), NQ_E_ARG);
    ck_assert_int_eq(nq_count_quad(0, 1, NULL, &got), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_quad(-3, 1, NULL, &got), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_quad(NQ_COUNT_QUAD_N_MAX + 1, 1, NULL, &got), NQ_E_RANGE);
    const nq_quad_layout lay = nq_quad_layout_for(8), tiny = {.n = 3};
    nq_quad q;
    ck_assert_int_eq(nq_quad_create(NULL, &lay, 0, 4, 0, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, NULL, 0, 4, 0, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, &tiny, 0, 1, 0, 1, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, &lay, 0, 0, 0, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, &lay, 6, 4, 0, 4, NULL), NQ_E_ARG); /* off the board */
    ck_assert_int_eq(nq_quad_create(&q, &lay, 0, 4, -1, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_quad_create(&q, &lay, 2, 4, 0, 4, NULL), NQ_E_ARG); /* across the cut */
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
    const int n = b->n, a = b->a, top = r < a, edge_row = top ? a - 1 : a, across = top ? a : a - 1;
    const int d1 = r - c + n - 1, d2 = r + c, lo = a + 1, hi = n + a - 3; /* inner crossing indexes */
    expect e = {UINT64_C(1) << (d1 - b->row0) | UINT64_C(1) << (d2 - b->row0 + 32), 0, 0};
    if (d1 >= lo && d1 <= hi)
        e.key |= 1u << (d1 - lo);
    if (d2 >= lo && d2 <= hi)
        e.key |= 1u << (d2 - lo + (n - 3));
    for (int x = 0; x < n; x++)
        if (abs(x - c) == abs(across - r))
            e.mark |= 1u << x;
    if (r == edge_row)
        e.mark |= (uint32_t)(c + 1) << NQ_QUAD_EDGE_SHIFT;
    return e;
}

/* Every placement filling exactly the quadrant-local rows rset and columns cset, by trying every
 * column of cset for the lowest row of rset; appends what each entry should hold to b->out. */
static void brute_group(brute *b, uint32_t rset, uint32_t cset, expect acc, uint64_t d1, uint64_t d2)
{
    if (rset == 0) {
        if (cset == 0)
            b->out[b->len++] = acc;
        return;
    }
    const int r = b->row0 + __builtin_ctz(rset);
    for (uint32_t avail = cset; avail != 0; avail &= avail - 1u) {
        const int c = b->col0 + __builtin_ctz(avail);
        const uint64_t b1 = UINT64_C(1) << (r - c + b->n - 1), b2 = UINT64_C(1) << (r + c);
        if ((d1 & b1) || (d2 & b2))
            continue;
        const expect q = expect_queen(b, r, c);
        const expect next = {acc.diag | q.diag, acc.key | q.key, acc.mark | q.mark};
        brute_group(b, rset & (rset - 1u), cset & ~(avail & (0u - avail)), next, d1 | b1, d2 | b2);
    }
}

static int expect_cmp(const void *x, const void *y)
{
    const expect *p = x, *q = y;
    if (p->diag != q->diag)
        return p->diag < q->diag ? -1 : 1;
    if (p->key != q->key)
        return p->key < q->key ? -1 : 1;
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
        ck_assert_int_eq(nq_quad_create(&q, &lay, where[k][0], where[k][1], where[k][2],
                                        where[k][3], NULL), NQ_OK);
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
                ck_assert_msg(last - first == br.len, "n=%d quadrant %d rows %x cols %x: %u, want %zu",
                              n, k, rset, cset, last - first, br.len);
                for (uint32_t e = first; e < last; e++)
                    got[e - first] = (expect){q.diag[e], q.key[e], q.mark[e]};
                qsort(got, br.len, sizeof *got, expect_cmp);
                qsort(br.out, br.len, sizeof *br.out, expect_cmp);
                ck_assert_msg(memcmp(got, br.out, br.len * sizeof *got) == 0,
                              "n=%d quadrant %d rows %x cols %x: entries differ", n, k, rset, cset);
                total += last - first;
            }
        ck_assert_uint_eq(total, q.len);
        free(got);
        free(br.out);
        nq_quad_destroy(&q);
    }
}
END_TEST

/* The class path (the layout of n = 20, too long for a test) on small boards: moving the two central
 * crossing diagonals into the class changes nothing in the counts. */
START_TEST(counts_with_class_bits)
{
    for (int n = 4; n <= 15; n++) {
        const nq_quad_layout lay = nq_quad_layout_cut(n, NQ_QUAD_CUTS_MAX);
        ck_assert_int_eq(lay.cuts, NQ_QUAD_CUTS_MAX);
        nq_counts got = {99, 99};
        ck_assert_int_eq(nq_count_quad_with(n, 2, &lay, NULL, &got), NQ_OK);
        ck_assert_msg(got.total == known_counts[n].total && got.unique == known_counts[n].unique,
                      "n=%d with class bits: %llu / %llu", n, (unsigned long long)got.total,
                      (unsigned long long)got.unique);
    }
    const nq_quad_layout wrong = nq_quad_layout_cut(9, 0);
    nq_counts got;
    ck_assert_int_eq(nq_count_quad_with(8, 1, &wrong, NULL, &got), NQ_E_ARG);
    ck_assert_int_eq(nq_count_quad_with(8, 1, NULL, NULL, &got), NQ_E_ARG);
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
        ck_assert_int_eq(lay.cuts, n <= 19 ? 0 : 2);
        for (int i = 1; i < lay.cuts; i++) /* highest first, as they are taken out */
            ck_assert_int_gt(lay.cut_pos[i - 1], lay.cut_pos[i]);
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
        for (size_t l = 0; l < 3; l++) {
            uint32_t wk[3 * LEN], wm[3 * LEN];
            const size_t want = ref->pair(diag + l, key + l, mark + l, 3 - l, diag, key, mark, len,
                                          wk, wm);
            uint32_t *ok = out_buffer(want), *om = out_buffer(want);
            ck_assert_uint_eq(set->pair(diag + l, key + l, mark + l, 3 - l, diag, key, mark, len, ok,
                                        om), want);
            ck_assert(memcmp(ok, wk, want * sizeof *ok) == 0 && memcmp(om, wm, want * sizeof *om) == 0);
            free(ok);
            free(om);
        }
        for (int c = 0; c < 32; c += 5) {
            uint32_t wk[LEN];
            const size_t want = ref->pick(key, mark, len, c, wk);
            uint32_t *ok = out_buffer(want);
            ck_assert_uint_eq(set->pick(key, mark, len, c, ok), want);
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

/* ---- cancellation ------------------------------------------------------------------------------ */

typedef struct count_run {
    int n;                /* board size */
    nq_count_ctl ctl;     /* shared with the canceller */
    nq_err err;           /* the count's result */
    double finished;      /* when it returned (now_seconds) */
    atomic_bool returned; /* set once it has: polled while it runs */
} count_run;

static void *count_thread(void *arg)
{
    count_run *run = arg;
    nq_counts got;
    run->err = nq_count_quad(run->n, 2, &run->ctl, &got);
    run->finished = now_seconds();
    atomic_store(&run->returned, true);
    return NULL;
}

/* A cancelled count returns NQ_E_CANCELED promptly: once during the table build (at once), once
 * among the column sets (after progress is seen). The contract is a millisecond or so; the bound is
 * 3 s because two cores are shared with the rest of the suite and ThreadSanitizer runs this 10x
 * slower, and it still tells a working cancel from none: n = 18 takes seconds, 30 under TSan. */
START_TEST(cancel_stops_promptly)
{
    count_run run = {.n = 18};
    nq_count_ctl_init(&run.ctl);
    atomic_init(&run.returned, false);
    pthread_t tid;
    ck_assert_int_eq(pthread_create(&tid, NULL, count_thread, &run), 0);
    if (_i == 1) /* wait for progress, unless the count already ended (it would fail below) */
        while (atomic_load(&run.ctl.done) == 0 && !atomic_load(&run.returned))
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    const double asked = now_seconds();
    nq_count_cancel(&run.ctl);
    pthread_join(tid, NULL);
    ck_assert_int_eq(run.err, NQ_E_CANCELED);
    ck_assert_msg(run.finished - asked < 3.0, "stopped %.3f s after cancel", run.finished - asked);
}
END_TEST

START_TEST(precancelled_count_stops)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_count_cancel(&ctl);
    nq_counts got;
    ck_assert_int_eq(nq_count_quad(16, 2, &ctl, &got), NQ_E_CANCELED);
    ck_assert_int_eq(nq_count_quad(5, 1, &ctl, &got), NQ_E_CANCELED);
}
END_TEST

/* Three selections, one ctest entry each: "fast", the single-answer cases; "threads", the cases
 * about workers and cancellation (small boards, so ThreadSanitizer can run them); "slow", n = 18
 * and 19. */
static Suite *quad_suite(const char *which)
{
    Suite *s = suite_create("count_quad");
    TCase *tc = tcase_create(which);
    tcase_set_timeout(tc, 3600.0); /* the counts bound their own time; Check's 4 s default is no use */
    if (strcmp(which, "slow") == 0) {
        tcase_add_loop_test(tc, counts_match_oeis_slow, FAST_N_MAX + 1, SLOW_N_MAX + 1);
    } else if (strcmp(which, "threads") == 0) {
        tcase_add_test(tc, thread_counts_agree);
        tcase_add_test(tc, null_ctl_is_fine);
        tcase_add_loop_test(tc, cancel_stops_promptly, 0, 2);
        tcase_add_test(tc, precancelled_count_stops);
        tcase_add_test(tc, cancel_stops_table_build);
    } else {
        tcase_add_loop_test(tc, counts_match_oeis, 1, FAST_N_MAX + 1);
        tcase_add_test(tc, bad_arguments);
        tcase_add_loop_test(tc, quadrants_hold_every_placement, 0, 2);
        tcase_add_test(tc, counts_with_class_bits);
        tcase_add_test(tc, layout_fits_32_bits);
        tcase_add_test(tc, simd_agrees_with_portable);
    }
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "fast";
    if (strcmp(which, "fast") != 0 && strcmp(which, "threads") != 0 && strcmp(which, "slow") != 0) {
        fprintf(stderr, "usage: %s [fast|threads|slow]\n", argv[0]);
        return EXIT_FAILURE;
    }
    SRunner *sr = srunner_create(quad_suite(which));
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
