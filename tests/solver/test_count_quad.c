/* test_count_quad.c - Check suite for the half-board counter (count_quad*.c).
 *
 * Counts against OEIS A000170 / A002562 for n = 1..17 (fast) and 18..19 (argument "slow"); the
 * quadrant tables against a brute-force count of every group; the key layout; the SIMD loops against
 * the portable ones; argument checks; worker counts, progress and cancellation (argument "threads").
 */
#include "count_quad.h"

#include <check.h>
#include <pthread.h>
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
    nq_quad_destroy(NULL);
}
END_TEST

/* ---- quadrant tables ----------------------------------------------------------------------------- */

/* Placements of a rows x cols quadrant (board rows row0.., columns col0..) filling exactly the local
 * rows `rset` and columns `cset`, by trying every column of cset for the lowest row of rset. */
static uint64_t brute_group(int n, int row0, int col0, uint32_t rset, uint32_t cset, uint64_t d1,
                            uint64_t d2)
{
    if (rset == 0)
        return cset == 0;
    const int i = __builtin_ctz(rset), r = row0 + i;
    uint64_t count = 0;
    for (uint32_t avail = cset; avail != 0; avail &= avail - 1u) {
        const int c = col0 + __builtin_ctz(avail);
        const uint64_t b1 = UINT64_C(1) << (r - c + n - 1), b2 = UINT64_C(1) << (r + c);
        if ((d1 & b1) || (d2 & b2))
            continue;
        count += brute_group(n, row0, col0, rset & (rset - 1u), cset & ~(avail & (0u - avail)),
                             d1 | b1, d2 | b2);
    }
    return count;
}

/* Every group of the four quadrants of n = 8 and 9 holds exactly the placements a brute force
 * finds, and an entry has an edge column iff its group fills the row next to the cut, that column
 * being one of the group's. */
START_TEST(quadrants_hold_every_placement)
{
    const int n = 8 + _i, a = n / 2, b = n - a;
    const nq_quad_layout lay = nq_quad_layout_for(n);
    const int where[4][4] = {{0, a, 0, a}, {0, a, a, b}, {a, b, 0, a}, {a, b, a, b}};
    for (int k = 0; k < 4; k++) {
        nq_quad q;
        ck_assert_int_eq(nq_quad_create(&q, &lay, where[k][0], where[k][1], where[k][2],
                                        where[k][3], NULL), NQ_OK);
        const uint32_t edge_bit = where[k][0] == 0 ? (1u << a) >> 1 : 1u; /* row next to the cut */
        size_t total = 0;
        for (uint32_t rset = 0; rset < 1u << q.rows; rset++)
            for (uint32_t cset = 0; cset < 1u << q.cols; cset++) {
                uint32_t first, last;
                nq_quad_group(&q, rset, cset, &first, &last);
                const uint64_t want = __builtin_popcount(rset) == __builtin_popcount(cset)
                                          ? brute_group(n, q.row0, q.col0, rset, cset, 0, 0)
                                          : 0;
                ck_assert_msg(last - first == want, "n=%d quadrant %d rows %x cols %x: %u, want %llu",
                              n, k, rset, cset, last - first, (unsigned long long)want);
                for (uint32_t e = first; e < last; e++) {
                    const uint32_t edge = nq_quad_mark_edge(q.mark[e]);
                    ck_assert_int_eq(edge != 0, (rset & edge_bit) != 0);
                    if (edge != 0) /* the edge queen stands on one of the group's columns */
                        ck_assert(cset & 1u << (edge - 1u - (uint32_t)q.col0));
                }
                total += last - first;
            }
        ck_assert_uint_eq(total, q.len);
        nq_quad_destroy(&q);
    }
}
END_TEST

/* Keys fit the 32-bit kernels: class bits only where the 2(n - 3) key bits would not. */
START_TEST(layout_fits_32_bits)
{
    for (int n = 4; n <= NQ_QUAD_N_MAX; n++) {
        const nq_quad_layout lay = nq_quad_layout_for(n);
        ck_assert_int_eq(lay.n, n);
        ck_assert_int_le(2 * (n - 3) - lay.cuts, 32);
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

enum { LEN = 45, OUT = 3 * LEN + NQ_QUAD_SIMD_SLACK }; /* pair: up to 3 x LEN halves */

/* Whatever set this CPU picks agrees with the portable one on random sparse data, for every length
 * up to LEN (whole vectors and tails) and every probe count up to 9 (the join blocks 2 or 4). */
START_TEST(simd_agrees_with_portable)
{
    const nq_quad_simd *best = nq_quad_simd_best(), *ref = nq_quad_simd_portable();
    uint64_t diag[LEN], seed = 0x9E3779B97F4A7C15u;
    uint32_t key[LEN], mark[LEN];
    for (size_t i = 0; i < LEN; i++) {
        const uint64_t x = xorshift(&seed), y = xorshift(&seed), z = xorshift(&seed);
        diag[i] = x & y & z;          /* about 8 bits of 64: a third of pairs compatible */
        key[i] = (uint32_t)(x & y >> 32); /* about 8 bits of 32 */
        mark[i] = (uint32_t)(z >> 16);
    }
    uint64_t matched = 0;
    for (size_t len = 0; len <= LEN; len++) {
        uint32_t ok[OUT], om[OUT], wk[OUT], wm[OUT];
        for (size_t l = 0; l < 3; l++) {
            const size_t got = best->pair(diag + l, key + l, mark + l, 3 - l, diag, key, mark, len,
                                          ok, om);
            const size_t want = ref->pair(diag + l, key + l, mark + l, 3 - l, diag, key, mark, len,
                                          wk, wm);
            ck_assert_uint_eq(got, want);
            ck_assert(memcmp(ok, wk, got * sizeof *ok) == 0 && memcmp(om, wm, got * sizeof *om) == 0);
        }
        for (int c = 0; c < 32; c += 5) {
            const size_t got = best->pick(key, mark, len, c, ok);
            ck_assert_uint_eq(got, ref->pick(key, mark, len, c, wk));
            ck_assert(memcmp(ok, wk, got * sizeof *ok) == 0);
        }
        for (size_t m = 1; m <= 9; m++) {
            const uint64_t want = ref->join(key, len, key + LEN - m, m);
            ck_assert_uint_eq(best->join(key, len, key + LEN - m, m), want);
            matched += want;
        }
    }
    ck_assert_uint_gt(matched, 0); /* the data does exercise matches */
    ck_assert_str_ne(best->name, "");
}
END_TEST

/* ---- cancellation ------------------------------------------------------------------------------ */

typedef struct count_run {
    int n;            /* board size */
    nq_count_ctl ctl; /* shared with the canceller */
    nq_err err;       /* the count's result */
    double finished;  /* when it returned (now_seconds) */
} count_run;

static void *count_thread(void *arg)
{
    count_run *run = arg;
    nq_counts got;
    run->err = nq_count_quad(run->n, 2, &run->ctl, &got);
    run->finished = now_seconds();
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
    pthread_t tid;
    ck_assert_int_eq(pthread_create(&tid, NULL, count_thread, &run), 0);
    if (_i == 1)
        while (atomic_load(&run.ctl.done) == 0)
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
