/* count_method.h - the Check cases every table counter shares (test_count_quad.c,
 * test_count_mitm.c), written once against the nq_count signature.
 *
 * A suite defines, before including this header:
 *   COUNT_METHOD        the counter under test (nq_count's signature)
 *   COUNT_METHOD_N_MAX  the largest n it accepts
 *   COUNT_METHOD_LONG_N a board it takes seconds or more to count, for the cancel cases
 * and gets: count_method_check (a count against A000170/A002562, progress at 100%), the cases below,
 * count_method_add (adds them to a TCase by selection) and count_method_main (runs one selection:
 * "fast", single-answer cases; "threads", workers and cancellation, small boards so that
 * ThreadSanitizer can run them; "slow", the long counts). Each suite adds its own fast cases through
 * the callback it passes to count_method_main.
 */
#ifndef NQ_TEST_COUNT_METHOD_H
#define NQ_TEST_COUNT_METHOD_H

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_run.h"
#include "count_cases.h"
#include "nqueens/solver.h"

#if !defined(COUNT_METHOD) || !defined(COUNT_METHOD_N_MAX) || !defined(COUNT_METHOD_LONG_N)
#error "define COUNT_METHOD, COUNT_METHOD_N_MAX and COUNT_METHOD_LONG_N first"
#endif

/* CPU time of every thread of this process so far: the work a count did, however long a loaded
 * machine kept its threads waiting for a CPU. */
static double count_method_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Count n on `threads` workers: the known counts, and progress ending at 100%. */
static void count_method_check(int n, int threads)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_counts got = {99, 99};
    ck_assert_int_eq(COUNT_METHOD(n, threads, &ctl, &got), NQ_OK);
    ck_assert_msg(got.total == known_counts[n].total, "n=%d threads=%d total %llu", n, threads,
                  (unsigned long long)got.total);
    ck_assert_msg(got.unique == known_counts[n].unique, "n=%d threads=%d unique %llu", n, threads,
                  (unsigned long long)got.unique);
    ck_assert_uint_eq(atomic_load(&ctl.done), atomic_load(&ctl.total));
}

START_TEST(counts_match_oeis) /* _i = n */
{
    count_method_check(_i, 2);
}
END_TEST

START_TEST(counts_match_oeis_slow) /* _i = n, on every CPU */
{
    count_method_check(_i, 0);
}
END_TEST

/* The same counts whatever the number of workers, including more workers than tasks (n = 5). */
START_TEST(thread_counts_agree)
{
    static const int threads[] = {1, 3, 0, 64};
    static const int boards[] = {5, 12, 14};
    for (size_t t = 0; t < sizeof threads / sizeof *threads; t++)
        for (size_t b = 0; b < sizeof boards / sizeof *boards; b++) count_method_check(boards[b], threads[t]);
}
END_TEST

START_TEST(null_ctl_is_fine)
{
    nq_counts got;
    ck_assert_int_eq(COUNT_METHOD(12, 2, NULL, &got), NQ_OK);
    ck_assert_uint_eq(got.total, 14200);
    ck_assert_uint_eq(got.unique, 1787);
}
END_TEST

START_TEST(bad_count_arguments)
{
    nq_counts got;
    ck_assert_int_eq(COUNT_METHOD(8, 1, NULL, NULL), NQ_E_ARG);
    ck_assert_int_eq(COUNT_METHOD(8, -1, NULL, &got), NQ_E_ARG);
    ck_assert_int_eq(COUNT_METHOD(0, 1, NULL, &got), NQ_E_RANGE);
    ck_assert_int_eq(COUNT_METHOD(-3, 1, NULL, &got), NQ_E_RANGE);
    ck_assert_int_eq(COUNT_METHOD(COUNT_METHOD_N_MAX + 1, 1, NULL, &got), NQ_E_RANGE);
}
END_TEST

typedef struct count_method_run {
    nq_count_ctl ctl;     /* shared with the canceller */
    nq_err err;           /* the count's result */
    double finished;      /* CPU time when it returned (count_method_now) */
    atomic_bool returned; /* set once it has: polled while it runs */
} count_method_run;

static void *count_method_thread(void *arg)
{
    count_method_run *run = arg;
    nq_counts got;
    run->err = COUNT_METHOD(COUNT_METHOD_LONG_N, 2, &run->ctl, &got);
    run->finished = count_method_now();
    atomic_store(&run->returned, true);
    return NULL;
}

/* A cancelled count returns NQ_E_CANCELED promptly: once at once (during the table build), once
 * after progress is seen (among the tasks). The contracts are milliseconds; the bound is 3 s of CPU
 * time after the cancel (so scheduling on a loaded machine does not count) because ThreadSanitizer
 * runs this ten times slower, and it still tells a working cancel from none: COUNT_METHOD_LONG_N
 * takes seconds to minutes of CPU. The test thread only sleeps meanwhile. */
START_TEST(cancel_stops_promptly)
{
    count_method_run run;
    nq_count_ctl_init(&run.ctl);
    atomic_init(&run.returned, false);
    pthread_t tid;
    ck_assert_int_eq(pthread_create(&tid, NULL, count_method_thread, &run), 0);
    if (_i == 1) /* wait for progress, unless the count already ended (it would fail below) */
        while (atomic_load(&run.ctl.done) == 0 && !atomic_load(&run.returned))
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    const double asked = count_method_now();
    nq_count_cancel(&run.ctl);
    pthread_join(tid, NULL);
    ck_assert_int_eq(run.err, NQ_E_CANCELED);
    ck_assert_msg(run.finished - asked < 3.0, "%.3f s of CPU after the cancel", run.finished - asked);
}
END_TEST

START_TEST(precancelled_count_stops)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_count_cancel(&ctl);
    nq_counts got;
    ck_assert_int_eq(COUNT_METHOD(16, 2, &ctl, &got), NQ_E_CANCELED);
}
END_TEST

/* The shared cases of one selection; fast_max: the largest n counted in "fast", the rest up to
 * slow_max in "slow". */
static void count_method_add(TCase *tc, const char *which, int fast_max, int slow_max)
{
    if (strcmp(which, "slow") == 0) {
        tcase_add_loop_test(tc, counts_match_oeis_slow, fast_max + 1, slow_max + 1);
    } else if (strcmp(which, "threads") == 0) {
        tcase_add_test(tc, thread_counts_agree);
        tcase_add_test(tc, null_ctl_is_fine);
        tcase_add_loop_test(tc, cancel_stops_promptly, 0, 2);
        tcase_add_test(tc, precancelled_count_stops);
    } else {
        tcase_add_loop_test(tc, counts_match_oeis, 1, fast_max + 1);
        tcase_add_test(tc, bad_count_arguments);
    }
}

/* main of a counter suite: runs the selection named by argv[1] ("fast" when absent) with the shared
 * cases plus what add_own adds for it. */
static int count_method_main(int argc, char **argv, const char *name, int fast_max, int slow_max,
                             void (*add_own)(TCase *tc, const char *which))
{
    const char *which = argc > 1 ? argv[1] : "fast";
    if (strcmp(which, "fast") != 0 && strcmp(which, "threads") != 0 && strcmp(which, "slow") != 0) {
        fprintf(stderr, "usage: %s [fast|threads|slow]\n", argv[0]);
        return EXIT_FAILURE;
    }
    Suite *s = suite_create(name);
    TCase *tc = tcase_create(which);
    tcase_set_timeout(tc, 3600.0); /* the counts bound their own time; Check's 4 s default is no use */
    count_method_add(tc, which, fast_max, slow_max);
    add_own(tc, which);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* NQ_TEST_COUNT_METHOD_H */
