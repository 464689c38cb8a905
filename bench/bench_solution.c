/* bench_solution.c - how fast are solutions and checks of any size? One thread, one run.
 *
 *   bench_solution [--reps R]        (default R = 3; the best of R is reported)
 *
 * Side by side: the construction of n = 10^6 and 10^7 written into an array (ns per row), the random
 * solution of n = 10^6 and 10^7 (seconds), and the checks of a full n = 10^6 board (a solution, and
 * the same board with every queen in one column, the worst case for the pair counters), plus
 * rendering and parsing its columns text. Every board is verified (nq_placement_check must call it complete); a
 * failure exits 1. Figures and their machine are in docs/solution.md.
 */
#include "nqueens/json.h"
#include "nqueens/placement.h"
#include "nqueens/solution.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK_N 1000000u

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The columns as a finished placement (rows ascending: no sort). NULL on failure. */
static nq_placement *as_placement(uint32_t n, const uint32_t *cols)
{
    nq_placement *p = NULL;
    if (nq_placement_create(n, n, &p) != NQ_OK) return NULL;
    for (uint32_t r = 0; r < n; r++)
        if (nq_placement_add(p, r, r, cols[r], NULL) != NQ_OK) goto fail;
    if (nq_placement_finish(p, NULL) == NQ_OK) return p;
fail:
    nq_placement_destroy(p);
    return NULL;
}

/* True when cols is a solution by the library's checker. */
static bool is_solution(uint32_t n, const uint32_t *cols)
{
    nq_placement *p = as_placement(n, cols);
    nq_check_report r;
    const bool ok = p != NULL && nq_placement_check(p, NULL, 0, &r) == NQ_OK && r.complete;
    nq_placement_destroy(p);
    return ok;
}

static bool bench_construct(uint32_t n, int reps, uint32_t *cols)
{
    nq_construct c;
    double best = 1e9;
    if (nq_construct_init(&c, n) != NQ_OK) return false;
    for (int i = 0; i < reps; i++) {
        const double t0 = now();
        nq_construct_rows(&c, 0, n, cols);
        const double t = now() - t0;
        if (t < best) best = t;
    }
    printf("construct   n = %-9u %8.2f ms   %5.2f ns/row\n", n, best * 1e3, best * 1e9 / n);
    return is_solution(n, cols);
}

static bool bench_random(uint32_t n, int reps, uint32_t *cols)
{
    double best = 1e9;
    for (int i = 0; i < reps; i++) {
        const double t0 = now();
        if (nq_random_solution(n, (uint64_t)i + 1, NULL, cols) != NQ_OK) return false;
        const double t = now() - t0;
        if (t < best) best = t;
        if (!is_solution(n, cols)) return false;
    }
    printf("random      n = %-9u %8.3f s    (best of %d seeds; %zu MB working memory)\n", n, best, reps,
           nq_random_memory(n) >> 20);
    return true;
}

/* Times nq_placement_check on p; want_conflicts is the count it must report. */
static bool bench_check(const char *what, const nq_placement *p, uint64_t want_conflicts, int reps)
{
    nq_pair pairs[1000];
    double best = 1e9;
    for (int i = 0; i < reps; i++) {
        nq_check_report r;
        const double t0 = now();
        if (nq_placement_check(p, pairs, 1000, &r) != NQ_OK || r.conflicts != want_conflicts) return false;
        const double t = now() - t0;
        if (t < best) best = t;
    }
    printf("check       %-24s %8.2f ms\n", what, best * 1e3);
    return true;
}

#define RENDER_SLICE ((size_t)64 * 1024) /* what the server's /solution stream renders at a time */

/* Render the construction of CHECK_N into out, a slice at a time as the server does
 * (nq_json_board_rows): from its columns cols, or a run at a time from the construction itself when
 * runs is set. Returns the bytes written. */
static size_t render_once(const uint32_t *cols, bool runs, char *out)
{
    nq_construct c;
    if (nq_construct_init(&c, CHECK_N) != NQ_OK) return 0;
    size_t o = 0;
    for (uint32_t r = 0; r < CHECK_N;) {
        uint32_t done = 0;
        size_t w = 0;
        const nq_err rc =
            nq_json_board_rows(CHECK_N, r, runs ? NULL : cols, &c, NQ_JSON_COLUMNS, out + o, RENDER_SLICE, &done, &w);
        if (rc != NQ_OK || done == 0) break;
        r += done;
        o += w;
    }
    return o;
}

/* Rendering the columns text of the constructed board of CHECK_N (cols), both ways, checked against
 * printf's text (len bytes). */
static bool bench_render(const uint32_t *cols, const char *text, size_t len, int reps)
{
    char *out = malloc(len + RENDER_SLICE);
    if (out == NULL) return false;
    bool ok = true;
    for (int runs = 0; runs <= 1 && ok; runs++) {
        double best = 1e9;
        for (int i = 0; i < reps && ok; i++) {
            memset(out, 0, len);
            const double t0 = now();
            const size_t o = render_once(cols, runs, out);
            const double t = now() - t0;
            if (t < best) best = t;
            ok = o == len && memcmp(out, text, len) == 0;
        }
        if (ok)
            printf("render      %-24s %8.2f ms   %5.2f ns/row\n", runs ? "runs of n = 10^6" : "columns of n = 10^6",
                   best * 1e3, best * 1e9 / CHECK_N);
    }
    free(out);
    return ok;
}

/* Parsing the columns text of a full board of CHECK_N (and rendering it: bench_render). */
static bool bench_parse(const uint32_t *cols, int reps)
{
    char *text = malloc((size_t)CHECK_N * 8);
    if (text == NULL) return false;
    size_t len = 0;
    for (uint32_t r = 0; r < CHECK_N; r++) len += (size_t)sprintf(text + len, r > 0 ? ",%u" : "%u", cols[r]);
    if (!bench_render(cols, text, len, reps)) {
        free(text);
        return false;
    }
    double best = 1e9;
    bool ok = true;
    for (int i = 0; i < reps && ok; i++) {
        nq_placement *p = NULL;
        const double t0 = now();
        ok = nq_placement_parse_columns(CHECK_N, text, len, &p, NULL) == NQ_OK;
        const double t = now() - t0;
        if (t < best) best = t;
        nq_placement_destroy(p);
    }
    free(text);
    if (ok) printf("parse       columns of n = %-9u %6.2f ms (%zu bytes)\n", CHECK_N, best * 1e3, len);
    return ok;
}

static bool bench_checks(int reps, uint32_t *cols)
{
    nq_construct c;
    if (nq_construct_init(&c, CHECK_N) != NQ_OK || nq_construct_rows(&c, 0, CHECK_N, cols) != NQ_OK) return false;
    nq_placement *p = as_placement(CHECK_N, cols);
    bool ok = p != NULL && bench_check("full 10^6, a solution", p, 0, reps);
    nq_placement_destroy(p);
    for (uint32_t r = 0; ok && r < CHECK_N; r++) cols[r] = 7; /* every queen in column 7 */
    p = ok ? as_placement(CHECK_N, cols) : NULL;
    ok = p != NULL && bench_check("full 10^6, one column", p, (uint64_t)CHECK_N * (CHECK_N - 1) / 2, reps);
    nq_placement_destroy(p);
    if (ok && nq_construct_rows(&c, 0, CHECK_N, cols) == NQ_OK) ok = bench_parse(cols, reps);
    return ok;
}

int main(int argc, char **argv)
{
    int reps = 3;
    if (argc == 3 && strcmp(argv[1], "--reps") == 0) {
        char *end = NULL;
        errno = 0;
        const long v = strtol(argv[2], &end, 10);
        if (errno != 0 || *end != '\0' || v < 1 || v > 100) {
            fputs("bench_solution: --reps takes 1..100\n", stderr);
            return 2;
        }
        reps = (int)v;
    } else if (argc != 1) {
        fputs("usage: bench_solution [--reps R]\n", stderr);
        return 2;
    }
    uint32_t *cols = malloc(10000000u * sizeof *cols);
    bool ok = cols != NULL;
    ok = ok && bench_construct(1000000, reps, cols) && bench_construct(10000000, reps, cols);
    ok = ok && bench_random(1000000, reps, cols) && bench_random(10000000, reps, cols);
    ok = ok && bench_checks(reps, cols);
    free(cols);
    if (!ok) fputs("bench_solution: a result was wrong or a call failed\n", stderr);
    return ok ? 0 : 1;
}
