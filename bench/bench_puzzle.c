/* bench_puzzle.c - how long the puzzle generator takes, per kind, size and difficulty (docs/puzzles.md,
 * docs/performance.md "Puzzles").
 *
 *   bench_puzzle [--kind queens|regions] [--seeds S] [--budget NODES] [--from N] [--to N]
 *
 * For each kind (both unless --kind), each n of the kind's default range (regions 5..16, queens
 * 4..32; --from/--to narrow it) and each difficulty, nq_puzzle_generate runs for seeds 0..S-1
 * (default 100) on one thread, each with a node budget (default 200 000 000; the generator answers
 * puzzle-unavailable beyond it). Printed per row: how many seeds gave a puzzle, how many were
 * unavailable, and the median, 99th percentile and largest wall time of the calls (unavailable ones
 * included: they are what a caller waits for). The median is the middle value of the sorted times
 * (the upper one of an even count), p99 the value at rank ceil(0.99 S).
 * Then one count: a 18 x 18 regions board of one region per row, to 1000 solutions (the limit a
 * service caps /puzzle/solve counts at by default).
 */
#include "nqueens/puzzle.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEEDS_MAX 100000

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* A whole number argument in lo..hi, or exit with a message. */
static long long number(const char *s, long long lo, long long hi)
{
    char *end;
    const long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "bench_puzzle: '%s' is not a number in %lld..%lld\n", s, lo, hi);
        exit(2);
    }
    return v;
}

/* One row of the table: kind, n and difficulty over `seeds` seeds. */
static void bench_row(nq_puzzle_kind kind, int n, nq_puzzle_difficulty d, int seeds, uint64_t budget, double *times)
{
    int ok = 0, unavailable = 0, other = 0;
    for (int s = 0; s < seeds; s++) {
        nq_puzzle p;
        nq_puzzle_grade g;
        const double t0 = now();
        const nq_err rc = nq_puzzle_generate(kind, n, d, (uint64_t)s, budget, NULL, &p, &g);
        times[s] = now() - t0;
        if (rc == NQ_OK)
            ok++;
        else if (rc == NQ_E_PUZZLE_UNAVAILABLE)
            unavailable++;
        else
            other++;
    }
    qsort(times, (size_t)seeds, sizeof times[0], by_value);
    const int p99 = (99 * seeds + 99) / 100 - 1;
    printf("%-8s %3d %-7s %6d %6d %6d %10.4f %10.4f %10.4f\n", nq_puzzle_kind_name(kind), n,
           nq_puzzle_difficulty_name(d), ok, unavailable, other, times[seeds / 2], times[p99], times[seeds - 1]);
    fflush(stdout);
}

static void bench_count(void)
{
    char rows[18][19];
    const char *ptr[18];
    for (int r = 0; r < 18; r++) {
        memset(rows[r], NQ_PUZZLE_LABELS[r], 18);
        rows[r][18] = '\0';
        ptr[r] = rows[r];
    }
    nq_puzzle p;
    if (nq_puzzle_init_regions(&p, 18, ptr, NULL, 18, NULL) != NQ_OK) return;
    nq_puzzle_count_result res;
    const double t0 = now();
    const nq_err rc = nq_puzzle_count(&p, NULL, 1000, 0, NULL, &res);
    printf("\ncount: 18 x 18 regions, one region per row, limit 1000: %s, %" PRIu64 " solutions, %" PRIu64
           " nodes, %.4f s\n",
           nq_err_name(rc), res.solutions, res.nodes, now() - t0);
}

int main(int argc, char **argv)
{
    int kinds = 3, seeds = 100, from = 0, to = NQ_PUZZLE_N_MAX;
    uint64_t budget = 200000000;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc) {
            fprintf(stderr, "usage: bench_puzzle [--kind queens|regions] [--seeds S] [--budget NODES] "
                            "[--from N] [--to N]\n");
            return 2;
        }
        if (strcmp(argv[i], "--kind") == 0) {
            nq_puzzle_kind k;
            if (nq_puzzle_kind_parse(argv[i + 1], strlen(argv[i + 1]), &k) != NQ_OK) {
                fprintf(stderr, "bench_puzzle: unknown kind '%s'\n", argv[i + 1]);
                return 2;
            }
            kinds = 1 << k;
        } else if (strcmp(argv[i], "--seeds") == 0) {
            seeds = (int)number(argv[i + 1], 1, SEEDS_MAX);
        } else if (strcmp(argv[i], "--budget") == 0) {
            budget = (uint64_t)number(argv[i + 1], 0, INT64_MAX);
        } else if (strcmp(argv[i], "--from") == 0) {
            from = (int)number(argv[i + 1], 1, NQ_PUZZLE_N_MAX);
        } else if (strcmp(argv[i], "--to") == 0) {
            to = (int)number(argv[i + 1], 1, NQ_PUZZLE_N_MAX);
        } else {
            fprintf(stderr, "bench_puzzle: unknown option '%s'\n", argv[i]);
            return 2;
        }
    }
    double *times = malloc(sizeof(double) * (size_t)seeds);
    if (times == NULL) return 1;
    printf("seeds 0..%d per row, node budget %" PRIu64 ", one thread; times in seconds\n", seeds - 1, budget);
    printf("%-8s %3s %-7s %6s %6s %6s %10s %10s %10s\n", "kind", "n", "diff", "ok", "unav", "error", "median", "p99",
           "max");
    static const int range[NQ_PUZZLE_KIND_COUNT][2] = {{4, 32}, {5, 16}}; /* the default offers */
    for (int k = 0; k < NQ_PUZZLE_KIND_COUNT; k++) {
        if ((kinds >> k & 1) == 0) continue;
        const int lo = range[k][0] > from ? range[k][0] : from, hi = range[k][1] < to ? range[k][1] : to;
        for (int n = lo; n <= hi; n++)
            for (int d = 0; d < NQ_PUZZLE_DIFFICULTY_COUNT; d++)
                bench_row((nq_puzzle_kind)k, n, (nq_puzzle_difficulty)d, seeds, budget, times);
    }
    free(times);
    bench_count();
    return 0;
}
