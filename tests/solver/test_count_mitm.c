/* test_count_mitm.c - Check suite for the meet-in-the-middle counter (count_mitm*.c).
 *
 * Counts against OEIS A000170 / A002562 for n = 1..17 (fast) and 18 (argument "slow"; n = 19 took
 * eight minutes on 2 cores, and nq_count now gives n = 19 and 20 to the half-board counter); the
 * rotation-symmetric counts behind the unique count; the bottom table and the SIMD join kernels
 * against their definitions; argument checks; worker counts, progress and cancellation
 * (argument "threads").
 */
#include "count_mitm.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "count_mitm_table.h"
#include "count_workers.h"

static const struct {
    int n;           /* board size */
    uint64_t total;  /* A000170(n) */
    uint64_t unique; /* A002562(n) */
} oeis[] = {
    {1, 1, 1},
    {2, 0, 0},
    {3, 0, 0},
    {4, 2, 1},
    {5, 10, 2},
    {6, 4, 1},
    {7, 40, 6},
    {8, 92, 12},
    {9, 352, 46},
    {10, 724, 92},
    {11, 2680, 341},
    {12, 14200, 1787},
    {13, 73712, 9233},
    {14, 365596, 45752},
    {15, 2279184, 285053},
    {16, 14772512, 1846955},
    {17, 95815104, 11977939},
    {18, 666090624, 83263591},
};
enum { FAST_ROWS = 17 }; /* oeis[0 .. FAST_ROWS) run in the fast suite, the rest in the slow one */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void ctl_reset(nq_count_ctl *ctl)
{
    atomic_init(&ctl->cancel, false);
    atomic_init(&ctl->done, 0);
    atomic_init(&ctl->total, 0);
}

static void check_row(size_t row, int threads)
{
    nq_count_ctl ctl;
    ctl_reset(&ctl);
    nq_counts got = {99, 99};
    const int n = oeis[row].n;
    ck_assert_int_eq(nq_count_mitm(n, threads, &ctl, &got), NQ_OK);
    ck_assert_msg(got.total == oeis[row].total, "n=%d total %llu", n, (unsigned long long)got.total);
    ck_assert_msg(got.unique == oeis[row].unique, "n=%d unique %llu", n,
                  (unsigned long long)got.unique);
    ck_assert_uint_eq(atomic_load(&ctl.done), atomic_load(&ctl.total)); /* progress ends at 100% */
}

START_TEST(counts_match_oeis)
{
    check_row((size_t)_i, 2);
}
END_TEST

START_TEST(counts_match_oeis_slow)
{
    check_row((size_t)_i, 0);
}
END_TEST

/* The same counts whatever the number of workers, including more workers than tasks (n = 5). */
START_TEST(thread_counts_agree)
{
    static const int threads[] = {1, 3, 0, 64};
    static const size_t rows[] = {4, 11, 13};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
        for (size_t r = 0; r < sizeof rows / sizeof *rows; r++)
            check_row(rows[r], threads[t]);
}
END_TEST

START_TEST(null_ctl_is_fine)
{
    nq_counts got;
    ck_assert_int_eq(nq_count_mitm(12, 2, NULL, &got), NQ_OK);
    ck_assert_uint_eq(got.total, 14200);
    ck_assert_uint_eq(got.unique, 1787);
}
END_TEST

START_TEST(bad_arguments)
{
    nq_counts got;
    ck_assert_int_eq(nq_count_mitm(8, 1, NULL, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_count_mitm(8, -1, NULL, &got), NQ_E_ARG);
    ck_assert_int_eq(nq_count_mitm(0, 1, NULL, &got), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_mitm(NQ_COUNT_N_MAX + 1, 1, NULL, &got), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_mitm(-3, 1, NULL, &got), NQ_E_RANGE);
    uint64_t q, h;
    ck_assert_int_eq(nq_count_symmetric(8, NULL, NULL, &h), NQ_E_ARG);
    ck_assert_int_eq(nq_count_symmetric(0, NULL, &q, &h), NQ_E_RANGE);
    nq_mitm_table *t = NULL;
    ck_assert_int_eq(nq_mitm_table_create(8, 0, 1, NULL, &t), NQ_E_ARG);
    ck_assert_int_eq(nq_mitm_table_create(8, 8, 1, NULL, &t), NQ_E_ARG);
    ck_assert_int_eq(nq_mitm_table_create(8, 2, 1, NULL, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_mitm_table_create(8, 2, 0, NULL, &t), NQ_E_ARG);
    ck_assert_ptr_null(t);
    nq_mitm_table_destroy(NULL);
}
END_TEST

/* Boards fixed by a quarter turn and by a half turn. Each row satisfies Burnside's lemma with the
 * OEIS counts, (total + 2 quarter + half) / 8 = unique: n = 4 and 5 have a class of two boards fixed
 * by both turns; n = 6 and 7 (not 0 or 1 mod 4) have no quarter-turn symmetric board; n = 8 has
 * one class of four boards fixed by the half turn. */
START_TEST(symmetric_counts)
{
    static const struct {
        int n;
        uint64_t quarter, half;
    } rows[] = {{1, 1, 1}, {2, 0, 0}, {4, 2, 2}, {5, 2, 2}, {6, 0, 4}, {7, 0, 8}, {8, 0, 4}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        uint64_t q = 99, h = 99;
        ck_assert_int_eq(nq_count_symmetric(rows[i].n, NULL, &q, &h), NQ_OK);
        ck_assert_msg(q == rows[i].quarter && h == rows[i].half, "n=%d quarter %llu half %llu",
                      rows[i].n, (unsigned long long)q, (unsigned long long)h);
    }
}
END_TEST

/* The table holds every placement of the last k rows once: k = 1 gives n, k = 2 gives (n-1)(n-2)
 * (n^2 pairs less n same-column and 2(n-1) diagonal ones); buckets are padded and aligned. */
START_TEST(table_holds_every_bottom_placement)
{
    static const struct {
        int n, k;
        uint64_t placed;
    } rows[] = {{4, 1, 4}, {8, 1, 8}, {8, 2, 42}, {13, 2, 132}, {27, 2, 650}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        nq_mitm_table *t = NULL;
        ck_assert_int_eq(nq_mitm_table_create(rows[i].n, rows[i].k, 1 + (int)i % 3, NULL, &t), NQ_OK);
        ck_assert_uint_eq(t->placed, rows[i].placed);
        const size_t slices = (size_t)t->nsets * (size_t)t->n;
        ck_assert_uint_eq(t->start[slices] % NQ_MITM_BUCKET_ALIGN, 0);
        ck_assert_uint_eq((uintptr_t)t->keys % 64u, 0);
        ck_assert_uint_ge(nq_mitm_table_bytes(t), (size_t)rows[i].placed * sizeof(uint64_t));
        nq_mitm_table_destroy(t);
    }
}
END_TEST

/* Whatever kernel this CPU picks agrees with the portable one on random keys, pads included, for
 * every probe count (the kernels block 2 or 4 probes) and bucket length. */
START_TEST(join_kernels_agree)
{
    enum { KEYS = 64, PROBES = 9 };
    _Alignas(64) uint64_t keys[KEYS];
    uint64_t probes[PROBES];
    uint64_t seed = 0x9E3779B97F4A7C15u;
    for (size_t i = 0; i < KEYS; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        keys[i] = i % 5 == 4 ? NQ_MITM_PAD_KEY : seed & seed >> 3 & UINT64_C(0x07ffffff07ffffff);
    }
    for (size_t i = 0; i < PROBES; i++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        probes[i] = (seed & seed >> 5 & UINT64_C(0x07ffffff07ffffff)) | NQ_MITM_PAD_KEY;
    }
    const nq_mitm_join_fn join = nq_mitm_join_pick();
    uint64_t matched = 0;
    for (size_t len = 0; len <= KEYS; len += NQ_MITM_BUCKET_ALIGN)
        for (size_t m = 1; m <= PROBES; m++) {
            const uint64_t want = nq_mitm_join_scalar(keys, len, probes, m);
            ck_assert_uint_eq(join(keys, len, probes, m), want);
            matched += want;
        }
    ck_assert_uint_gt(matched, 0); /* the data does exercise matches */
}
END_TEST

typedef struct count_run {
    int n;             /* board size */
    nq_count_ctl ctl;  /* shared with the canceller */
    nq_err err;        /* the count's result */
    double finished;   /* when it returned (now_seconds) */
} count_run;

static void *count_thread(void *arg)
{
    count_run *run = arg;
    nq_counts got;
    run->err = nq_count_mitm(run->n, 2, &run->ctl, &got);
    run->finished = now_seconds();
    return NULL;
}

/* A cancelled count returns NQ_E_CANCELED promptly. The contract is about 50 ms; the bound here is
 * 3 s because two cores are shared with the rest of the suite and ThreadSanitizer runs this 10x
 * slower, and it still tells a working cancel from none: n = 19 takes minutes. Cancelled once
 * during the table build (at once) and once during the search (after progress is seen). */
START_TEST(cancel_stops_promptly)
{
    count_run run = {.n = 19};
    ctl_reset(&run.ctl);
    pthread_t tid;
    ck_assert_int_eq(pthread_create(&tid, NULL, count_thread, &run), 0);
    if (_i == 1)
        while (atomic_load(&run.ctl.done) == 0)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    const double asked = now_seconds();
    atomic_store(&run.ctl.cancel, true);
    pthread_join(tid, NULL);
    ck_assert_int_eq(run.err, NQ_E_CANCELED);
    ck_assert_msg(run.finished - asked < 3.0, "stopped %.3f s after cancel", run.finished - asked);
}
END_TEST

START_TEST(precancelled_count_stops)
{
    nq_count_ctl ctl;
    ctl_reset(&ctl);
    atomic_store(&ctl.cancel, true);
    nq_counts got;
    ck_assert_int_eq(nq_count_mitm(16, 2, &ctl, &got), NQ_E_CANCELED);
}
END_TEST

/* Three selections, one ctest entry each: no argument, the fast single-answer cases; "threads",
 * the cases about workers and cancellation (small boards, so ThreadSanitizer can run them);
 * "slow", n = 18. */
static Suite *mitm_suite(const char *which)
{
    Suite *s = suite_create("count_mitm");
    TCase *tc = tcase_create(which);
    tcase_set_timeout(tc, 3600.0); /* the counts bound their own time; Check's 4 s default is no use */
    if (strcmp(which, "slow") == 0) {
        tcase_add_loop_test(tc, counts_match_oeis_slow, FAST_ROWS, (int)(sizeof oeis / sizeof *oeis));
    } else if (strcmp(which, "threads") == 0) {
        tcase_add_test(tc, thread_counts_agree);
        tcase_add_test(tc, null_ctl_is_fine);
        tcase_add_loop_test(tc, cancel_stops_promptly, 0, 2);
        tcase_add_test(tc, precancelled_count_stops);
    } else {
        tcase_add_loop_test(tc, counts_match_oeis, 0, FAST_ROWS);
        tcase_add_test(tc, bad_arguments);
        tcase_add_test(tc, symmetric_counts);
        tcase_add_test(tc, table_holds_every_bottom_placement);
        tcase_add_test(tc, join_kernels_agree);
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
    SRunner *sr = srunner_create(mitm_suite(which));
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
