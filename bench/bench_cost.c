/* bench_cost.c - the figures behind nqueensd's parse-time cost estimates (routes/trace_body.h, routes/complete.c).
 *
 *   bench_cost lengths [NMAX]          the whole trace's length for n = 1..NMAX (default 18), counted by
 *                                      the node formula below, each n <= 12 also by walking the library's
 *                                      trace; a mismatch exits 1. Prints the C table of trace_body.c.
 *   bench_cost trace [N ...]           the library's trace skip (nq_trace_skip), steps per CPU second
 *                                      at each N (default 8 12 16), over 2^28 steps or the whole trace
 *   bench_cost complete [N ...]        nq_complete_count on one thread, CPU seconds for k = 0..3 given
 *                                      queens (the natural generator, 5 instances each; default N =
 *                                      12..16; k = 0 is nq_count's count), against the whole tree
 *
 * The trace's length: every column tried in a row is one step (place or reject), every queen placed
 * is removed once, and every solution is one step more. With I the partial boards of fewer than n
 * queens that the search visits (queens in rows 0..r-1 attacking none, the empty board included) and
 * S the solutions, that is n * I + (I - 1 + S) + S: the queens placed are the boards visited but the
 * empty one, solutions included.
 *
 * Timings go to docs/performance.md ("Refusing what cannot finish"); nothing here is an assertion,
 * except that the two ways of measuring a trace's length agree.
 */
#include "givens.h"
#include "nqueens/complete.h"
#include "nqueens/trace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SKIP_STEPS (UINT64_C(1) << 28)
#define INSTANCES 5

/* A board size from the command line: 1..NQ_N_MAX, else 0 (the caller then stops). */
static int board_arg(const char *s)
{
    char *end = NULL;
    const long v = strtol(s, &end, 10);
    return end != s && *end == '\0' && v >= 1 && v <= NQ_N_MAX ? (int)v : 0;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Boards visited below a board of `row` queens (itself included) in the textbook search: nodes[r]
 * counts those of r queens. Bit masks of columns and both diagonals, shifted per row. */
static void visit(int n, int row, uint32_t cols, uint32_t ld, uint32_t rd, uint64_t *nodes)
{
    nodes[row]++;
    if (row == n) return;
    const uint32_t all = (n == 32) ? UINT32_MAX : ((UINT32_C(1) << n) - 1u);
    uint32_t free_sq = all & ~(cols | ld | rd);
    while (free_sq) {
        const uint32_t bit = free_sq & (0u - free_sq); /* the lowest free column */
        free_sq ^= bit;
        visit(n, row + 1, cols | bit, (ld | bit) << 1, (rd | bit) >> 1, nodes);
    }
}

/* The whole trace's length for n, by the formula in the file head. */
static uint64_t length_by_nodes(int n)
{
    /* The board's mirror image halves the work: the subtree under column c of row 0 is the mirror
     * of the one under column n-1-c, so count the left half twice and the middle column once. */
    uint64_t nodes[NQ_N_MAX + 1] = {0}, half[NQ_N_MAX + 1] = {0};
    for (int c = 0; c < n / 2; c++) visit(n, 1, UINT32_C(1) << c, UINT32_C(2) << c, (UINT32_C(1) << c) >> 1, half);
    if (n % 2) visit(n, 1, UINT32_C(1) << (n / 2), UINT32_C(2) << (n / 2), (UINT32_C(1) << (n / 2)) >> 1, nodes);
    nodes[0] = 1;
    for (int r = 1; r <= n; r++) nodes[r] += 2u * half[r];
    uint64_t inner = 0;
    for (int r = 0; r < n; r++) inner += nodes[r];
    const uint64_t solutions = nodes[n];
    return (uint64_t)n * inner + (inner - 1u + solutions) + solutions;
}

static uint64_t length_by_walk(int n)
{
    nq_trace *t = NULL;
    uint64_t skipped = 0;
    if (nq_trace_create(n, &t) != NQ_OK || nq_trace_skip(t, UINT64_MAX, NULL, &skipped) != NQ_OK) {
        nq_trace_destroy(t);
        return 0;
    }
    nq_trace_destroy(t);
    return skipped;
}

static int lengths(int nmax)
{
    int bad = 0;
    printf("static const uint64_t trace_length[] = {\n    0, /* n = 0: no board */\n");
    for (int n = 1; n <= nmax; n++) {
        const double t0 = cpu_s();
        const uint64_t len = length_by_nodes(n);
        const double secs = cpu_s() - t0;
        const uint64_t walked = n <= 12 ? length_by_walk(n) : len;
        if (walked != len) {
            fprintf(stderr, "n = %d: nodes give %" PRIu64 ", the library's trace %" PRIu64 "\n", n, len, walked);
            bad = 1;
        }
        printf("    UINT64_C(%" PRIu64 "), /* n = %d%s; %.2f s */\n", len, n, n <= 12 ? ", walked" : "", secs);
        fflush(stdout);
    }
    printf("};\n");
    return bad;
}

static int trace_rate(int argc, char **argv)
{
    static const int dflt[] = {8, 12, 16};
    const int count = argc > 0 ? argc : 3;
    for (int i = 0; i < count; i++) {
        const int n = argc > 0 ? board_arg(argv[i]) : dflt[i];
        if (n == 0) return 2;
        nq_trace *t = NULL;
        if (nq_trace_create(n, &t) != NQ_OK) return 1;
        uint64_t skipped = 0;
        const double t0 = cpu_s();
        (void)nq_trace_skip(t, SKIP_STEPS, NULL, &skipped);
        const double secs = cpu_s() - t0;
        nq_trace_destroy(t);
        printf("trace n=%d: %" PRIu64 " steps in %.3f CPU s: %.1f M steps/s\n", n, skipped, secs,
               (double)skipped / secs / 1e6);
    }
    return 0;
}

static int complete_rate(int argc, char **argv)
{
    static const int dflt[] = {12, 13, 14, 15, 16};
    const int count = argc > 0 ? argc : 5;
    unsigned seed = 20261205u;
    for (int i = 0; i < count; i++) {
        const int n = argc > 0 ? board_arg(argv[i]) : dflt[i];
        if (n == 0) return 2;
        const double full_nodes = (double)length_by_nodes(n) / (double)(n + 1); /* about I */
        for (int k = 0; k <= 3; k++) {
            double worst = 0, sum = 0;
            for (int rep = 0; rep < INSTANCES; rep++) {
                nq_square g[NQ_N_MAX];
                const size_t got = nq_bench_random_givens(n, k, &seed, g);
                uint64_t completions = 0;
                const double t0 = cpu_s();
                if (nq_complete_count(n, g, got, 1, NULL, &completions) != NQ_OK) return 1;
                const double secs = cpu_s() - t0;
                sum += secs;
                if (secs > worst) worst = secs;
            }
            printf("complete n=%d k=%d: mean %.4f s, worst %.4f s (CPU, 1 thread); whole tree %.3g nodes: "
                   "worst / tree = %.3g ns per node\n",
                   n, k, sum / INSTANCES, worst, full_nodes, worst / full_nodes * 1e9);
            fflush(stdout);
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "lengths") == 0) return lengths(argc > 2 ? board_arg(argv[2]) : 18);
    if (argc >= 2 && strcmp(argv[1], "trace") == 0) return trace_rate(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "complete") == 0) return complete_rate(argc - 2, argv + 2);
    fprintf(stderr, "usage: bench_cost lengths [NMAX] | trace [N ...] | complete [N ...]\n");
    return 2;
}
