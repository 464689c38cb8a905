/* test_count_mitm.c - Check suite for the meet-in-the-middle counter (count_mitm*.c).
 *
 * The cases every counter shares (count_method.h): counts against OEIS A000170 / A002562 for
 * n = 1..17 (fast) and 18 (argument "slow"; n = 19 takes about eight minutes on 2 cores, and nq_count gives
 * n = 19 and 20 to the half-board counter), argument checks, worker counts, progress and cancellation
 * (argument "threads"). Its own: the rotation-symmetric counts behind the unique count, the bottom
 * table, the SIMD join kernels against their definitions, and its plan: tasks counted in two parts
 * add up to the known counts, each reported once.
 */
#include "count_mitm.h"

#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "count_mitm_table.h"
#include "count_workers.h"

#define COUNT_METHOD nq_count_mitm
#define COUNT_METHOD_N_MAX NQ_COUNT_N_MAX
#define COUNT_METHOD_LONG_N 19 /* minutes */
#include "count_method.h"

enum { FAST_N_MAX = 17, SLOW_N_MAX = 18 };

/* The symmetric count and the bottom table refuse what they cannot do. */
START_TEST(bad_table_arguments)
{
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
        ck_assert_msg(q == rows[i].quarter && h == rows[i].half, "n=%d quarter %llu half %llu", rows[i].n,
                      (unsigned long long)q, (unsigned long long)h);
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

/* ---- the plan ------------------------------------------------------------------------------------- */

/* Sink of nq_count_mitm_tasks: each task once, sums added (tasks finish on several threads). */
typedef struct task_log {
    pthread_mutex_t lock;
    nq_count_sums sum;      /* of the tasks seen */
    uint32_t tasks;         /* the plan's size */
    uint8_t seen[1u << 16]; /* times each task was reported */
    bool stray;             /* a task outside the plan was reported */
} task_log;

static void log_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    task_log *log = arg;
    pthread_mutex_lock(&log->lock);
    if (task < log->tasks)
        log->seen[task]++;
    else
        log->stray = true;
    nq_count_sums_add(&log->sum, sums);
    pthread_mutex_unlock(&log->lock);
}

static task_log *task_log_new(uint32_t tasks)
{
    task_log *log = calloc(1, sizeof *log);
    ck_assert_ptr_nonnull(log);
    ck_assert_uint_le(tasks, sizeof log->seen);
    pthread_mutex_init(&log->lock, NULL);
    log->tasks = tasks;
    return log;
}

static void task_log_free(task_log *log)
{
    pthread_mutex_destroy(&log->lock);
    free(log);
}

/* n = 8..15 (_i): the tasks at even places, then those at odd places, on two workers: each reported
 * once, the sums make the known counts, progress ends at 100% in each part; the plan is the same when
 * asked again, and holds the symmetric boards as its last task (total 0). */
START_TEST(tasks_in_two_parts)
{
    const int n = _i;
    const uint32_t tasks = nq_count_mitm_plan(n);
    ck_assert_uint_gt(tasks, 2);
    ck_assert_uint_eq(nq_count_mitm_plan(n), tasks);
    uint8_t *todo = calloc(tasks, 1);
    task_log *log = task_log_new(tasks);
    ck_assert_ptr_nonnull(todo);
    for (int part = 0; part < 2; part++) {
        for (uint32_t i = 0; i < tasks; i++) todo[i] = (uint8_t)(i % 2 == (uint32_t)part);
        nq_count_ctl ctl;
        nq_count_ctl_init(&ctl);
        ck_assert_int_eq(nq_count_mitm_tasks(n, 2, todo, &ctl, log_task, log), NQ_OK);
        ck_assert_uint_eq(atomic_load(&ctl.done), tasks);
        ck_assert_uint_eq(atomic_load(&ctl.total), tasks);
    }
    ck_assert(!log->stray);
    for (uint32_t i = 0; i < tasks; i++) ck_assert_msg(log->seen[i] == 1, "n=%d task %u seen %u", n, i, log->seen[i]);
    const nq_counts c = nq_count_sums_counts(&log->sum);
    ck_assert_uint_eq(c.total, known_counts[n].total);
    ck_assert_uint_eq(c.unique, known_counts[n].unique);
    task_log_free(log);
    free(todo);
}
END_TEST

/* Only the last task (the boards a turn maps to themselves): reported alone, with no solutions of its
 * own and the rotation counts of nq_count_symmetric; nothing to do reports nothing. n = 21, a board
 * the plan splits for machines: no table is built for this task, so it takes milliseconds. */
START_TEST(tasks_symmetric_only)
{
    for (int n = 12; n <= 21; n += 9) {
        const uint32_t tasks = nq_count_mitm_plan(n);
        uint8_t *todo = calloc(tasks, 1);
        task_log *log = task_log_new(tasks);
        ck_assert_ptr_nonnull(todo);
        ck_assert_int_eq(nq_count_mitm_tasks(n, 1, todo, NULL, log_task, log), NQ_OK);
        ck_assert_uint_eq(log->sum.burnside, 0);
        todo[tasks - 1u] = 1;
        ck_assert_int_eq(nq_count_mitm_tasks(n, 1, todo, NULL, log_task, log), NQ_OK);
        uint64_t quarter = 0, half = 0;
        ck_assert_int_eq(nq_count_symmetric(n, NULL, &quarter, &half), NQ_OK);
        ck_assert(!log->stray);
        ck_assert_uint_eq(log->seen[tasks - 1u], 1);
        ck_assert_uint_eq(log->sum.total, 0);
        ck_assert_uint_eq(log->sum.burnside, 2u * quarter + half);
        task_log_free(log);
        free(todo);
    }
}
END_TEST

START_TEST(tasks_bad_arguments)
{
    ck_assert_uint_eq(nq_count_mitm_plan(3), 1);
    ck_assert_uint_eq(nq_count_mitm_plan(NQ_COUNT_N_MAX + 1), 1);
    ck_assert_int_eq(nq_count_mitm_tasks(8, -1, NULL, NULL, NULL, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_count_mitm_tasks(3, 1, NULL, NULL, NULL, NULL), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_mitm_tasks(NQ_COUNT_N_MAX + 1, 1, NULL, NULL, NULL, NULL), NQ_E_RANGE);
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_count_cancel(&ctl);
    ck_assert_int_eq(nq_count_mitm_tasks(12, 1, NULL, &ctl, NULL, NULL), NQ_E_CANCELED);
}
END_TEST

static void add_own(TCase *tc, const char *which)
{
    if (strcmp(which, "fast") == 0) {
        tcase_add_test(tc, bad_table_arguments);
        tcase_add_test(tc, symmetric_counts);
        tcase_add_test(tc, table_holds_every_bottom_placement);
        tcase_add_test(tc, join_kernels_agree);
        tcase_add_loop_test(tc, tasks_in_two_parts, 8, 16);
        tcase_add_test(tc, tasks_symmetric_only);
        tcase_add_test(tc, tasks_bad_arguments);
    }
}

int main(int argc, char **argv)
{
    return count_method_main(argc, argv, "count_mitm", FAST_N_MAX, SLOW_N_MAX, add_own);
}
