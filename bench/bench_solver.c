/* bench_solver.c - how fast is the solver library? Side by side with the plain counter, one run.
 *
 *   bench_solver [--reps R] [--threads T] [N ...]      (defaults: R = 1, T = 0 = every CPU, N = 15 16 17)
 *
 * For each N it times, R times each and interleaved (so load from other processes hits all alike):
 * the plain single-threaded mirror counter (plain_count.c), nq_count (whatever method it picks for
 * N) and the backtracking counter alone, and prints the best wall-clock times, their ratios to the
 * plain counter, and the CPU time each used (all threads). On a shared machine the wall ratio
 * depends on how much of the second core the multi-threaded counters get; the CPU times show the
 * work each method does regardless. Then it times enumerating every n = 14 solution into one
 * buffer on one thread. Every result is checked (the counts agree, the enumeration finds them
 * all); a mismatch exits 1.
 */
#include "nqueens/solver.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "count_bt.h"
#include "plain_count.h"

#define N_ARGS_MAX 16
#define ENUM_N 14
#define ENUM_SOLUTIONS 365596u /* A000170(14) */
#define ENUM_REPS 5

typedef struct bench_args {
    int reps;           /* timings per method and n; the best is reported */
    int threads;        /* passed to nq_count */
    int ns[N_ARGS_MAX]; /* boards to count */
    int count;          /* how many */
} bench_args;

/* A moment on the wall clock and on the process's CPU clock (all threads). */
typedef struct stamp {
    double wall; /* seconds, CLOCK_MONOTONIC */
    double cpu;  /* seconds, CLOCK_PROCESS_CPUTIME_ID */
} stamp;

/* Best (smallest) wall and CPU times seen for one method. */
typedef struct best_time {
    double wall; /* seconds */
    double cpu;  /* seconds */
} best_time;

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static stamp now(void)
{
    return (stamp){seconds(CLOCK_MONOTONIC), seconds(CLOCK_PROCESS_CPUTIME_ID)};
}

static void keep_best(best_time *b, stamp from, stamp to)
{
    if (to.wall - from.wall < b->wall) b->wall = to.wall - from.wall;
    if (to.cpu - from.cpu < b->cpu) b->cpu = to.cpu - from.cpu;
}

static bool parse_int(const char *s, long lo, long hi, int *out)
{
    char *end = NULL;
    if (s[0] < '0' || s[0] > '9') return false;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static bool parse_args(int argc, char **argv, bench_args *a)
{
    *a = (bench_args){.reps = 1, .threads = 0};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 100, &a->reps)) return false;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], 0, NQ_COUNT_BT_THREADS_MAX, &a->threads)) return false;
        } else if (a->count < N_ARGS_MAX && parse_int(argv[i], NQ_N_MIN, 20, &a->ns[a->count])) {
            a->count++;
        } else {
            return false;
        }
    }
    if (a->count == 0) {
        a->ns[0] = 15, a->ns[1] = 16, a->ns[2] = 17;
        a->count = 3;
    }
    return true;
}

/* Best-of-reps times for one n: [0] plain, [1] nq_count, [2] backtracking. */
static bool time_counts(const bench_args *a, int n, best_time best[3])
{
    for (int m = 0; m < 3; m++) best[m] = (best_time){1e300, 1e300};
    for (int rep = 0; rep < a->reps; rep++) {
        nq_counts ours, bt;
        const stamp t0 = now();
        const uint64_t plain = nq_bench_plain_count(n);
        const stamp t1 = now();
        const nq_err e1 = nq_count(n, a->threads, NULL, &ours);
        const stamp t2 = now();
        const nq_err e2 = nq_count_backtrack(n, a->threads, NULL, &bt);
        const stamp t3 = now();
        if (e1 != NQ_OK || e2 != NQ_OK || ours.total != plain || bt.total != plain || bt.unique != ours.unique) {
            fprintf(stderr,
                    "n=%d: counts disagree (plain %" PRIu64 ", nq_count %" PRIu64 ", backtracking %" PRIu64 ")\n", n,
                    plain, ours.total, bt.total);
            return false;
        }
        keep_best(&best[0], t0, t1);
        keep_best(&best[1], t1, t2);
        keep_best(&best[2], t2, t3);
    }
    return true;
}

/* Every n = 14 solution into one buffer, one thread; the best of ENUM_REPS runs. */
static bool time_enumeration(best_time *best)
{
    uint8_t *buf = malloc((size_t)ENUM_SOLUTIONS * ENUM_N);
    bool ok = buf != NULL;
    *best = (best_time){1e300, 1e300};
    for (int rep = 0; ok && rep < ENUM_REPS; rep++) {
        nq_iter *it = NULL;
        size_t got = 0;
        const stamp t0 = now();
        ok = nq_iter_create(ENUM_N, 0, &it) == NQ_OK && nq_iter_next(it, buf, ENUM_SOLUTIONS, &got) == NQ_OK;
        const stamp t1 = now();
        ok = ok && got == ENUM_SOLUTIONS;
        nq_iter_destroy(it);
        keep_best(best, t0, t1);
    }
    free(buf);
    return ok;
}

static void print_row(int n, const char *method, best_time t, double plain_wall)
{
    printf("%3d  %-20s %10.3f %10.3f %8.2fx\n", n, method, t.wall, t.cpu, plain_wall / t.wall);
}

int main(int argc, char **argv)
{
    bench_args a;
    if (!parse_args(argc, argv, &a)) {
        fputs("usage: bench_solver [--reps R] [--threads T] [N ...]   (N = 1..20)\n", stderr);
        return 2;
    }
    printf("threads=%d (0 = one per CPU), best of %d; cpu = CPU time of all threads\n", a.threads, a.reps);
    printf("%3s  %-20s %10s %10s %9s\n", "n", "method", "wall_s", "cpu_s", "vs plain");
    for (int i = 0; i < a.count; i++) {
        best_time best[3];
        if (!time_counts(&a, a.ns[i], best)) return 1;
        print_row(a.ns[i], "plain (1 thread)", best[0], best[0].wall);
        print_row(a.ns[i], "nq_count", best[1], best[0].wall);
        print_row(a.ns[i], "nq_count_backtrack", best[2], best[0].wall);
        fflush(stdout);
    }
    best_time enum_best;
    if (!time_enumeration(&enum_best)) {
        fputs("enumeration of n = 14 failed\n", stderr);
        return 1;
    }
    printf("enumerate all %u solutions of n=%d into a buffer, 1 thread: %.3f s wall, %.3f s cpu (best of %d)\n",
           ENUM_SOLUTIONS, ENUM_N, enum_best.wall, enum_best.cpu, ENUM_REPS);
    return 0;
}
