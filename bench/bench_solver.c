/* bench_solver.c - how fast is the solver library? Side by side with the plain counter, one run.
 *
 *   bench_solver [--reps R] [--threads T] [N ...]      (defaults: R = 1, T = 0 = every CPU, N = 15 16 17)
 *
 * For each N it times, R times each and interleaved (so load from other processes hits all alike):
 * the plain single-threaded mirror counter (plain_count.c), nq_count (whatever method it picks for
 * N) and the backtracking counter alone, and prints the best times and their ratios to the plain
 * counter. Then it times enumerating every n = 14 solution into one buffer on one thread. Every
 * result is checked (the counts agree, the enumeration finds them all); a mismatch exits 1.
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
    int reps;              /* timings per method and n; the best is reported */
    int threads;           /* passed to nq_count */
    int ns[N_ARGS_MAX];    /* boards to count */
    int count;             /* how many */
} bench_args;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool parse_int(const char *s, long lo, long hi, int *out) {
    char *end = NULL;
    if (s[0] < '0' || s[0] > '9') return false;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static bool parse_args(int argc, char **argv, bench_args *a) {
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
static bool time_counts(const bench_args *a, int n, double best[3]) {
    best[0] = best[1] = best[2] = 1e300;
    for (int rep = 0; rep < a->reps; rep++) {
        nq_counts ours, bt;
        double t0 = now();
        const uint64_t plain = nq_bench_plain_count(n);
        double t1 = now();
        const nq_err e1 = nq_count(n, a->threads, NULL, &ours);
        double t2 = now();
        const nq_err e2 = nq_count_backtrack(n, a->threads, NULL, &bt);
        double t3 = now();
        if (e1 != NQ_OK || e2 != NQ_OK || ours.total != plain || bt.total != plain || bt.unique != ours.unique) {
            fprintf(stderr, "n=%d: counts disagree (plain %" PRIu64 ", nq_count %" PRIu64 ", backtracking %" PRIu64 ")\n",
                    n, plain, ours.total, bt.total);
            return false;
        }
        if (t1 - t0 < best[0]) best[0] = t1 - t0;
        if (t2 - t1 < best[1]) best[1] = t2 - t1;
        if (t3 - t2 < best[2]) best[2] = t3 - t2;
    }
    return true;
}

/* Every n = 14 solution into one buffer, one thread; the best of ENUM_REPS runs. */
static bool time_enumeration(double *best) {
    uint8_t *buf = malloc((size_t)ENUM_SOLUTIONS * ENUM_N);
    bool ok = buf != NULL;
    *best = 1e300;
    for (int rep = 0; ok && rep < ENUM_REPS; rep++) {
        nq_iter *it = NULL;
        size_t got = 0;
        const double t0 = now();
        ok = nq_iter_create(ENUM_N, 0, &it) == NQ_OK && nq_iter_next(it, buf, ENUM_SOLUTIONS, &got) == NQ_OK;
        const double t1 = now();
        ok = ok && got == ENUM_SOLUTIONS;
        nq_iter_destroy(it);
        if (t1 - t0 < *best) *best = t1 - t0;
    }
    free(buf);
    return ok;
}

int main(int argc, char **argv) {
    bench_args a;
    if (!parse_args(argc, argv, &a)) {
        fputs("usage: bench_solver [--reps R] [--threads T] [N ...]   (N = 1..20)\n", stderr);
        return 2;
    }
    printf("threads=%d (0 = one per CPU), best of %d\n", a.threads, a.reps);
    printf("%3s %10s %12s %7s %14s %7s\n", "n", "plain_s", "nq_count_s", "ratio", "backtrack_s", "ratio");
    for (int i = 0; i < a.count; i++) {
        double best[3];
        if (!time_counts(&a, a.ns[i], best)) return 1;
        printf("%3d %10.3f %12.3f %6.2fx %14.3f %6.2fx\n", a.ns[i], best[0], best[1], best[0] / best[1], best[2],
               best[0] / best[2]);
        fflush(stdout);
    }
    double enum_best;
    if (!time_enumeration(&enum_best)) {
        fputs("enumeration of n = 14 failed\n", stderr);
        return 1;
    }
    printf("enumerate all %u solutions of n=%d into a buffer, 1 thread: %.3f s (best of %d)\n", ENUM_SOLUTIONS,
           ENUM_N, enum_best, ENUM_REPS);
    return 0;
}
