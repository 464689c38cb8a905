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
 *             from its Blocked n-Queens and Excluded Diagonals generators, below)
 *   corner    queens on (0,0) and (1,2): no dead row, yet, for every n here, a search that must
 *             refute a large part of the tree under them before it finds the first completion
 *   blocked-f the paper's Blocked n-Queens generator (nq_complete_first_blocked, no queen given): the
 *             n^2 squares in a random order, each taken as blocked unless its row or its column
 *             would keep fewer than MINFREE (4) open squares; the instance blocks the first
 *             round(f * L) of the L squares taken, f = 0.6 .. 1.0
 *   diag-f    the paper's Excluded Diagonals generator the same way: the 2(2n - 1) diagonals of both
 *             directions in a random order, each excluded (all its squares blocked) unless a row or
 *             a column would keep fewer than MINFREE open squares; the first round(f * L) of them,
 *             f = 0.2 .. 0.6
 * For each (N, family) it prints the median and the worst time over R instances, how many had a
 * completion, and how many ran past the cap (cancelled after S seconds through nq_count_ctl).
 * Timings go to docs/play.md; nothing here is an assertion.
 */
#include "givens.h"
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
#define MINFREE 4 /* open squares every row and column keeps in the blocked and diagonal families */

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
static double timed(int n, const nq_square *g, size_t k, const uint32_t *blocked, double cap_s, int *outcome)
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
    const nq_err rc = nq_complete_first_blocked(n, g, k, blocked, &ctl, cols, &found);
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

/* Squares (r, c) as r * n + c; lines of both directions as a sum (r + c) or a difference (r - c + n - 1). */
typedef struct line_set {
    int n;
    uint32_t blocked[NQ_N_MAX]; /* squares taken out so far */
    int row_open[NQ_N_MAX];     /* open squares of each row */
    int col_open[NQ_N_MAX];     /* ... and of each column */
} line_set;

static void line_set_init(line_set *ls, int n)
{
    memset(ls, 0, sizeof *ls);
    ls->n = n;
    for (int i = 0; i < n; i++) ls->row_open[i] = ls->col_open[i] = n;
}

/* Take out the open squares among sq[0..m) when every row and column keeps MINFREE open; else none. */
static bool take_out(line_set *ls, const int *sq, int m)
{
    int rows[NQ_N_MAX] = {0}, cols[NQ_N_MAX] = {0};
    for (int i = 0; i < m; i++) {
        const int r = sq[i] / ls->n, c = sq[i] % ls->n;
        if (ls->blocked[r] >> c & 1u) continue;
        if (ls->row_open[r] - ++rows[r] < MINFREE || ls->col_open[c] - ++cols[c] < MINFREE) return false;
    }
    for (int i = 0; i < m; i++) {
        const int r = sq[i] / ls->n, c = sq[i] % ls->n;
        if (ls->blocked[r] >> c & 1u) continue;
        ls->blocked[r] |= 1u << c;
        ls->row_open[r]--, ls->col_open[c]--;
    }
    return true;
}

static void shuffle(int *a, int m, unsigned *seed)
{
    for (int i = m - 1; i > 0; i--) {
        const int j = (int)((unsigned)rand_r(seed) % (unsigned)(i + 1)), t = a[i];
        a[i] = a[j], a[j] = t;
    }
}

/* The squares of line id (0 .. 2n-2: a sum r + c; 2n-1 .. 4n-3: a difference) into sq; their number. */
static int line_squares(int n, int id, int *sq)
{
    int m = 0;
    for (int r = 0; r < n; r++) {
        const int c = id < 2 * n - 1 ? id - r : r + n - 1 - (id - (2 * n - 1));
        if (c >= 0 && c < n) sq[m++] = r * n + c;
    }
    return m;
}

/* One instance of the blocked (diag false) or diagonal family at fraction f: its masks in out. */
static void blocked_instance(int n, bool diag, double f, unsigned *seed, uint32_t *out)
{
    static int order[4 * NQ_N_MAX * NQ_N_MAX];
    const int items = diag ? 4 * n - 2 : n * n;
    for (int i = 0; i < items; i++) order[i] = i;
    shuffle(order, items, seed);
    line_set ls;
    line_set_init(&ls, n);
    static int taken[4 * NQ_N_MAX * NQ_N_MAX];
    int ntaken = 0;
    for (int i = 0; i < items; i++) { /* the generator's whole list, L items */
        int sq[NQ_N_MAX];
        const int m = diag ? line_squares(n, order[i], sq) : (sq[0] = order[i], 1);
        if (take_out(&ls, sq, m)) taken[ntaken++] = order[i];
    }
    const int cut = (int)(f * ntaken + 0.5), want = cut < ntaken ? cut : ntaken;
    line_set_init(&ls, n); /* the instance: the first `want` of them */
    for (int i = 0; i < want; i++) {
        int sq[NQ_N_MAX];
        const int m = diag ? line_squares(n, taken[i], sq) : (sq[0] = taken[i], 1);
        (void)take_out(&ls, sq, m);
    }
    memcpy(out, ls.blocked, sizeof ls.blocked);
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
        t[0] = timed(n, NULL, 0, NULL, cap, &outcome[0]);
        report(n, "empty", t, outcome, 1, cap);
        const nq_square corner[2] = {{0, 0}, {1, 2}};
        t[0] = timed(n, corner, 2, NULL, cap, &outcome[0]);
        report(n, "corner", t, outcome, 1, cap);
        for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; f++) {
            const int k = (int)(fractions[f] * n + 0.5);
            for (int r = 0; r < reps; r++) {
                nq_square g[NQ_N_MAX];
                const size_t got = nq_bench_random_givens(n, k, &seed, g);
                t[r] = timed(n, g, got, NULL, cap, &outcome[r]);
            }
            char family[32];
            snprintf(family, sizeof family, "random-%.1f (k=%d)", fractions[f], k);
            report(n, family, t, outcome, reps, cap);
        }
        /* Where each family turns from completable to not (the paper's phase transition), finer. */
        static const double cuts[2][5] = {{0.6, 0.7, 0.8, 0.9, 1.0}, {0.2, 0.3, 0.4, 0.5, 0.6}};
        for (int diag = 0; diag < 2; diag++) {
            for (size_t f = 0; f < sizeof cuts[0] / sizeof cuts[0][0]; f++) {
                for (int r = 0; r < reps; r++) {
                    uint32_t blocked[NQ_N_MAX];
                    blocked_instance(n, diag, cuts[diag][f], &seed, blocked);
                    t[r] = timed(n, NULL, 0, blocked, cap, &outcome[r]);
                }
                char family[32];
                snprintf(family, sizeof family, "%s-%.1f", diag ? "diag" : "blocked", cuts[diag][f]);
                report(n, family, t, outcome, reps, cap);
            }
        }
    }
    return 0;
}
