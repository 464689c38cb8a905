/* bench_complete.c - time to the first completion (nq_complete_first) of partial boards, n = 20..32.
 *
 *   bench_complete [--reps R] [--cap S] [--seed X] [N ...]        defaults: R = 10, S = 2, N = 20 24 28 32
 *
 * Families, each at every N:
 *   empty     no queen given: the textbook search's own first solution, whose cost swings by orders
 *             of magnitude from one n to the next
 *   random-f  the natural generator of Gent, Jefferson and Nightingale (JAIR 2017, "Complexity of
 *             n-Queens Completion"): queens put one by one on squares chosen uniformly among those no
 *             queen attacks yet, until round(f * n) are placed; f = 0.1 .. 0.6. The paper
 *             finds that this generator does not give consistently hard instances (the hard ones come
 *             from its Blocked n-Queens and Excluded Diagonals generators, which need blocked squares
 *             or a reduction to a larger board, neither of which a placement can state)
 *   corner    queens on (0,0) and (1,2): no dead row, yet, for every n here, a search that must
 *             refute a large part of the tree under them before it finds the first completion
 * For each (N, family) it prints the median and the worst time over R instances, how many had a
 * completion, and how many ran past the cap (cancelled after S seconds through nq_count_ctl).
 * Timings go to docs/play.md; nothing here is an assertion.
 */
#include "nqueens/complete.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS_MAX 1000
#define SIZES_MAX 32

typedef struct watchdog {
    nq_count_ctl *ctl;    /* cancelled when the cap passes */
    double cap_s;         /* seconds */
    pthread_mutex_t lock; /* guards done */
    pthread_cond_t cond;  /* signalled when the search ends */
    int done;             /* the search ended */
} watchdog;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *watch(void *arg)
{
    watchdog *w = arg;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    const double end = (double)until.tv_sec + (double)until.tv_nsec / 1e9 + w->cap_s;
    until.tv_sec = (time_t)end;
    until.tv_nsec = (long)((end - (double)until.tv_sec) * 1e9);
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        if (pthread_cond_timedwait(&w->cond, &w->lock, &until) == ETIMEDOUT) break;
    if (!w->done) nq_count_cancel(w->ctl);
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* One timed search; *outcome: 1 found, 0 none, -1 past the cap. */
static double timed(int n, const nq_square *g, size_t k, double cap_s, int *outcome)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    watchdog w = {.ctl = &ctl, .cap_s = cap_s, .done = 0};
    pthread_mutex_init(&w.lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&w.cond, &attr);
    pthread_condattr_destroy(&attr);
    pthread_t th;
    pthread_create(&th, NULL, watch, &w);
    uint8_t cols[NQ_N_MAX];
    bool found = false;
    const double t0 = now_s();
    const nq_err rc = nq_complete_first(n, g, k, &ctl, cols, &found);
    const double t = now_s() - t0;
    pthread_mutex_lock(&w.lock);
    w.done = 1;
    pthread_cond_signal(&w.cond);
    pthread_mutex_unlock(&w.lock);
    pthread_join(th, NULL);
    pthread_cond_destroy(&w.cond);
    pthread_mutex_destroy(&w.lock);
    *outcome = rc == NQ_E_CANCELED ? -1 : found ? 1 : 0;
    return t;
}

/* The natural generator: queens on uniformly chosen unattacked squares, k of them. */
static size_t random_instance(int n, int k, unsigned *seed, nq_square *g)
{
    size_t count = 0;
    while ((int)count < k) {
        nq_square free_sq[NQ_N_MAX * NQ_N_MAX];
        size_t m = 0;
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
                bool ok = true;
                for (size_t i = 0; i < count && ok; i++) {
                    const int gr = (int)g[i].row, gc = (int)g[i].col;
                    ok = gr != r && gc != c && gr - gc != r - c && gr + gc != r + c;
                }
                if (ok) free_sq[m++] = (nq_square){(uint32_t)r, (uint32_t)c};
            }
        if (m == 0) break; /* nowhere left: fewer queens than asked */
        g[count++] = free_sq[(size_t)rand_r(seed) % m];
    }
    return count;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(int n, const char *family, double *t, const int *outcome, int reps, double cap)
{
    int found = 0, capped = 0;
    for (int i = 0; i < reps; i++) found += outcome[i] == 1, capped += outcome[i] == -1;
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    printf("| %d | %s | %.4f | %.4f%s | %d/%d | %d |\n", n, family, t[reps / 2], t[reps - 1], capped ? " (cap)" : "",
           found, reps, capped);
    (void)cap;
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int reps = 10, sizes[SIZES_MAX], nsizes = 0;
    double cap = 2.0;
    unsigned seed = 20170817u;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc)
            reps = (int)strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--cap") == 0 && i + 1 < argc)
            cap = strtod(argv[++i], NULL);
        else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (nsizes < SIZES_MAX)
            sizes[nsizes++] = (int)strtol(argv[i], NULL, 10); /* out of range: skipped */
    }
    if (reps < 1 || reps > REPS_MAX) reps = 10;
    if (nsizes == 0) {
        static const int defaults[] = {20, 24, 28, 32};
        for (int i = 0; i < 4; i++) sizes[nsizes++] = defaults[i];
    }
    static const double fractions[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
    double t[REPS_MAX];
    int outcome[REPS_MAX];
    printf("| n | family | median s | worst s | completable | past cap |\n|---|---|---|---|---|---|\n");
    for (int s = 0; s < nsizes; s++) {
        const int n = sizes[s];
        if (n < NQ_N_MIN || n > NQ_N_MAX) continue;
        t[0] = timed(n, NULL, 0, cap, &outcome[0]);
        report(n, "empty", t, outcome, 1, cap);
        const nq_square corner[2] = {{0, 0}, {1, 2}};
        t[0] = timed(n, corner, 2, cap, &outcome[0]);
        report(n, "corner", t, outcome, 1, cap);
        for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; f++) {
            const int k = (int)(fractions[f] * n + 0.5);
            for (int r = 0; r < reps; r++) {
                nq_square g[NQ_N_MAX];
                const size_t got = random_instance(n, k, &seed, g);
                t[r] = timed(n, g, got, cap, &outcome[r]);
            }
            char family[32];
            snprintf(family, sizeof family, "random-%.1f (k=%d)", fractions[f], k);
            report(n, family, t, outcome, reps, cap);
        }
    }
    return 0;
}
