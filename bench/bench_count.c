/* bench_count.c - the counters behind nq_count side by side: the half-board counter ("quad", the
 * default for 13 <= n <= 23), the meet-in-the-middle counter ("mitm", the default for n > 23, and the
 * faster one before the half-board counter) and the backtracking counter ("backtrack", below 13);
 * "quad-avx2" and "quad-portable" are the half-board counter with those kernels instead of the best
 * this CPU runs (on an AVX-512 machine, a look at what an AVX2-only one runs; not its speed).
 *
 *   bench_count [--threads T] [--reps R] [--counters LIST] [--stop-after S] [N ...]
 *   bench_count --sample K [--run B] [--threads T] [N ...]
 *       defaults: T = 0 (every CPU), R = 1, LIST = quad,mitm, N = 16 17 18
 *
 * Each measurement runs in a child process of its own, so its peak memory is the child's
 * getrusage ru_maxrss (read with wait4), not the high-water mark of everything before it. For each N
 * it prints, per counter in LIST, the best wall time of R runs, the CPU time of that run and the
 * peak resident set, then each counter's speed-up over the first. Counts are checked against each
 * other and against OEIS A000170 where given below; a mismatch exits 1. --stop-after S cancels each
 * count after S seconds and reports the peak memory so far and the fraction of tasks done, for
 * boards too large to finish.
 *
 * --sample K counts, through nq_count_tasks (the plan and method nq_count runs, once: --counters,
 * --reps and --stop-after are refused with it), only every K-th task of the
 * plan of each N (tasks 0, K, 2K, ...), taking each task's CPU time as its worker thread's CPU time
 * since that thread's previous report (so a loaded machine does not inflate it), and prints the
 * CPU time outside the tasks (tables, the symmetric boards), the distribution of task times and an
 * extrapolation to the whole plan: outside + the sampled mean x tasks, in CPU seconds, and that
 * divided by the threads as a wall-clock estimate. An estimate, for boards that take hours.
 * --run B takes B consecutive tasks from every K-th on (tasks 0 .. B-1, K .. K+B-1, ...): at n = 21
 * and up the half-board counter's workers rebuild their right-quadrant tables whenever the column set's high
 * bits change, which consecutive tasks mostly share and isolated ones never do, so a sample of
 * single tasks pays a rebuild (about 4 ms) per task that a whole count pays once a few hundred.
 */
#include "nqueens/solver.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "count_bt.h"
#include "count_mitm.h"
#include "count_quad.h"

#define N_ARGS_MAX 16

#define SAMPLE_MAX 65536 /* sampled tasks timed at most */
#define WORKERS_MAX 64   /* worker threads told apart */

/* A000170(n) for n = 16..23, to check the long counts. */
static const uint64_t oeis_total[] = {14772512u,    95815104u,     666090624u,     4968057848u,
                                      39029188884u, 314666222712u, 2691008701644u, 24233937684440u};
#define OEIS_FIRST 16

typedef nq_err (*count_fn)(int n, int threads, nq_count_ctl *ctl, nq_counts *out);

/* The half-board counter with the kernel set called `name`, if this CPU runs it (else NQ_E_RANGE):
 * the AVX2 or portable path measured on a CPU whose best is AVX-512. */
static nq_err quad_kernels(const char *name, int n, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    const nq_quad_simd *sets[4];
    const size_t count = nq_quad_simd_all(sets, 4);
    for (size_t i = 0; i < count; i++) {
        if (strcmp(sets[i]->name, name) == 0) return nq_count_quad_kernels(n, threads, sets[i], ctl, out);
    }
    fprintf(stderr, "this CPU does not run the %s kernels\n", name);
    return NQ_E_RANGE;
}

static nq_err quad_avx2(int n, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    return quad_kernels("avx2", n, threads, ctl, out);
}

static nq_err quad_portable(int n, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    return quad_kernels("portable", n, threads, ctl, out);
}

static const struct {
    const char *name; /* as given to --counters */
    count_fn fn;
} counters[] = {{"quad", nq_count_quad},
                {"quad-avx2", quad_avx2},
                {"quad-portable", quad_portable},
                {"mitm", nq_count_mitm},
                {"backtrack", nq_count_backtrack}};
#define COUNTERS (sizeof counters / sizeof *counters)

typedef struct sample {
    nq_err err;       /* the count's result */
    nq_counts counts; /* its answer */
    double wall;      /* seconds */
    double cpu;       /* user + system seconds of the child */
    long maxrss_kib;  /* peak resident set of the child */
    double progress;  /* fraction of tasks done (1 unless stopped) */
} sample;

/* What the child runs: one count, cancelled after stop_after seconds when that is > 0. */
typedef struct run {
    count_fn fn;       /* the counter */
    int n, threads;    /* its arguments */
    double stop_after; /* seconds, 0 = never */
    nq_count_ctl ctl;  /* shared with the canceller */
} run;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *canceller(void *arg)
{
    run *r = arg;
    const double whole = (double)(long)r->stop_after;
    const struct timespec ts = {(time_t)whole, (long)((r->stop_after - whole) * 1e9)};
    nanosleep(&ts, NULL);
    nq_count_cancel(&r->ctl);
    return NULL;
}

/* The child's side: count, then write the sample to fd. Never returns. */
static void child_main(run *r, int fd)
{
    sample s = {0};
    nq_count_ctl_init(&r->ctl);
    pthread_t tid;
    if (r->stop_after > 0 && pthread_create(&tid, NULL, canceller, r) != 0) _exit(1);
    const double t0 = now();
    s.err = r->fn(r->n, r->threads, &r->ctl, &s.counts);
    s.wall = now() - t0;
    s.progress = s.err == NQ_OK ? 1.0 : nq_count_progress(&r->ctl);
    const ssize_t w = write(fd, &s, sizeof s);
    _exit(w == (ssize_t)sizeof s ? 0 : 1); /* also ends a canceller still asleep */
}

/* Run the count in a child; the child reports its answer and wall time through a pipe. A count
 * stopped by stop_after is a success with progress < 1. */
static bool measure(count_fn fn, int n, int threads, double stop_after, sample *out)
{
    int fds[2];
    if (pipe(fds) != 0) return false;
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        run r = {.fn = fn, .n = n, .threads = threads, .stop_after = stop_after};
        child_main(&r, fds[1]);
    }
    close(fds[1]);
    const ssize_t got = read(fds[0], out, sizeof *out);
    close(fds[0]);
    int status = 0;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid || got != (ssize_t)sizeof *out || status != 0) return false;
    out->cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               (double)ru.ru_stime.tv_usec / 1e6;
    out->maxrss_kib = ru.ru_maxrss;
    return out->err == NQ_OK || (stop_after > 0 && out->err == NQ_E_CANCELED);
}

/* ---- --sample: a few tasks of a long plan ------------------------------------------------------ */

typedef struct task_times {
    pthread_mutex_t lock;
    pthread_t worker[WORKERS_MAX]; /* threads seen reporting */
    double last[WORKERS_MAX];      /* each one's CPU time at its previous report */
    size_t workers;                /* how many */
    double took[SAMPLE_MAX];       /* CPU seconds per task, in report order */
    size_t len;                    /* tasks timed */
    double in_tasks;               /* their sum */
    nq_count_sums sums;            /* of the tasks reported */
} task_times;

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A task's CPU time: its thread's since that thread's previous report (or its start: workers are
 * threads of their own, started after the tables are built). */
static void time_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    (void)task;
    task_times *t = arg;
    const double cpu = thread_cpu();
    const pthread_t self = pthread_self();
    pthread_mutex_lock(&t->lock);
    size_t w = 0;
    while (w < t->workers && !pthread_equal(t->worker[w], self)) w++;
    if (w == t->workers && w < WORKERS_MAX) t->worker[t->workers++] = self;
    if (w < WORKERS_MAX && t->len < SAMPLE_MAX) {
        t->took[t->len++] = cpu - t->last[w];
        t->in_tasks += cpu - t->last[w];
    }
    if (w < WORKERS_MAX) t->last[w] = cpu;
    nq_count_sums_add(&t->sums, sums);
    pthread_mutex_unlock(&t->lock);
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Count `stretch` consecutive tasks from every k-th of n's plan on (the symmetric-board task too when it
 * falls on the grid) in this process and print what they took. */
static bool sample_plan(int n, uint32_t k, uint32_t stretch, int threads)
{
    uint32_t tasks = 0;
    if (nq_count_plan(n, &tasks) != NQ_OK) return false;
    uint8_t *todo = calloc(tasks, 1);
    task_times *t = calloc(1, sizeof *t);
    if (todo == NULL || t == NULL) {
        free(todo);
        free(t);
        return false;
    }
    uint32_t picked = 0;
    for (uint32_t i = 0; i < tasks; i++) {
        todo[i] = i % k < stretch;
        picked += todo[i];
    }
    pthread_mutex_init(&t->lock, NULL);
    const double start = now();
    const nq_err err = nq_count_tasks(n, threads, todo, NULL, time_task, t);
    const double wall = now() - start;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    const double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                       (double)ru.ru_stime.tv_usec / 1e6;
    const size_t timed = t->len;
    const double mean = timed > 0 ? t->in_tasks / (double)timed : 0, outside = cpu - t->in_tasks;
    qsort(t->took, timed, sizeof *t->took, by_value);
    const int workers = threads > 0 ? threads : nq_count_cpus();
    const double whole = outside + mean * (double)tasks;
    printf("sample    n=%-2d %u of %u tasks (%u from every %u-th): wall %.2f s, cpu %.2f s (%.2f s outside the "
           "tasks), peak %.1f MiB, %" PRIu64 " solutions\n",
           n, picked, tasks, stretch, k, wall, cpu, outside, (double)ru.ru_maxrss / 1024.0, t->sums.total);
    if (timed > 0)
        printf(
            "          task cpu s: min %.5f median %.5f p90 %.5f p99 %.5f max %.5f mean %.5f; whole plan ~%.0f cpu s, "
            "~%.0f s on %d threads\n",
            t->took[0], t->took[timed / 2], t->took[timed * 9 / 10], t->took[timed * 99 / 100], t->took[timed - 1u],
            mean, whole, whole / (double)workers, workers);
    pthread_mutex_destroy(&t->lock);
    free(todo);
    free(t);
    return err == NQ_OK;
}

static bool parse_int(const char *s, int lo, int hi, int *out)
{
    char *end = NULL;
    errno = 0;
    const long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

typedef struct bench_args {
    int threads;          /* passed to every counter */
    int reps;             /* runs per counter and n; the fastest is reported */
    size_t use[COUNTERS]; /* indexes into counters[], in the order given */
    size_t nuse;          /* how many */
    double stop_after;    /* cancel each count after this many seconds; 0 = never */
    int sample;           /* --sample K: every K-th task of each plan only; 0 = whole counts */
    int run;              /* --run B: B consecutive tasks from each sampled one on */
    int ns[N_ARGS_MAX];   /* boards */
    int count;            /* how many */
} bench_args;

/* "quad,mitm": counter names, each at most once. */
static bool parse_counters(const char *list, bench_args *a)
{
    a->nuse = 0;
    for (const char *p = list;;) {
        const size_t len = strcspn(p, ",");
        size_t k = 0;
        while (k < COUNTERS && (strlen(counters[k].name) != len || strncmp(counters[k].name, p, len) != 0)) k++;
        if (k == COUNTERS || a->nuse == COUNTERS) return false;
        for (size_t i = 0; i < a->nuse; i++)
            if (a->use[i] == k) return false;
        a->use[a->nuse++] = k;
        if (p[len] == '\0') return true;
        p += len + 1;
    }
}

static bool parse_args(int argc, char **argv, bench_args *a)
{
    *a = (bench_args){.threads = 0, .reps = 1, .run = 1, .use = {0, 1}, .nuse = 2};
    bool whole = false, runs = false; /* options of whole counts only, of --sample only */
    for (int i = 1; i < argc; i++) {
        int secs = 0;
        if (strcmp(argv[i], "--counters") == 0 && i + 1 < argc) {
            if (!parse_counters(argv[++i], a)) return false;
            whole = true;
        } else if (strcmp(argv[i], "--stop-after") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 86400, &secs)) return false;
            a->stop_after = secs;
            whole = true;
        } else if (strcmp(argv[i], "--sample") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 1 << 20, &a->sample)) return false;
        } else if (strcmp(argv[i], "--run") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 1 << 20, &a->run)) return false;
            runs = true;
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], 0, 256, &a->threads)) return false;
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            if (!parse_int(argv[++i], 1, 100, &a->reps)) return false;
            whole = true;
        } else if (a->count == N_ARGS_MAX || !parse_int(argv[i], 1, NQ_COUNT_N_MAX, &a->ns[a->count++])) {
            return false;
        }
    }
    /* A sample runs the plan's own method once: an option it would ignore is refused, not dropped. */
    if (a->sample > 0 ? whole : runs) return false;
    if (a->count == 0) {
        static const int defaults[] = {16, 17, 18};
        memcpy(a->ns, defaults, sizeof defaults);
        a->count = 3;
    }
    return true;
}

/* Fastest of reps runs of fn; false on any failure or disagreement between runs. */
static bool best_of(count_fn fn, int n, const bench_args *a, sample *best)
{
    for (int r = 0; r < a->reps; r++) {
        sample s;
        if (!measure(fn, n, a->threads, a->stop_after, &s)) return false;
        if (r > 0 && (s.counts.total != best->counts.total || s.counts.unique != best->counts.unique)) return false;
        if (r == 0 || s.wall < best->wall) *best = s;
    }
    return true;
}

static void print_sample(const char *name, int n, const sample *s)
{
    if (s->err == NQ_E_CANCELED) {
        printf("%-9s n=%-2d stopped after %.1f s at %.1f%% of tasks  cpu=%8.3f s  peak=%7.1f MiB\n", name, n, s->wall,
               100.0 * s->progress, s->cpu, (double)s->maxrss_kib / 1024.0);
        return;
    }
    printf("%-9s n=%-2d total=%-15" PRIu64 " unique=%-14" PRIu64 " wall=%8.3f s  cpu=%8.3f s  "
           "peak=%7.1f MiB\n",
           name, n, s->counts.total, s->counts.unique, s->wall, s->cpu, (double)s->maxrss_kib / 1024.0);
}

static bool matches_oeis(int n, const nq_counts *c)
{
    const size_t row = (size_t)(n - OEIS_FIRST);
    return n < OEIS_FIRST || row >= sizeof oeis_total / sizeof *oeis_total || c->total == oeis_total[row];
}

static bool bench_one(int n, const bench_args *a)
{
    sample s[COUNTERS];
    for (size_t i = 0; i < a->nuse; i++) {
        const char *name = counters[a->use[i]].name;
        if (!best_of(counters[a->use[i]].fn, n, a, &s[i])) {
            fprintf(stderr, "n=%d: %s count failed\n", n, name);
            return false;
        }
        print_sample(name, n, &s[i]);
        if (s[i].err == NQ_E_CANCELED) continue;
        if (!matches_oeis(n, &s[i].counts)) {
            fprintf(stderr, "n=%d: %s total differs from A000170\n", n, name);
            return false;
        }
        if (i > 0 && s[0].err == NQ_OK &&
            (s[i].counts.total != s[0].counts.total || s[i].counts.unique != s[0].counts.unique)) {
            fprintf(stderr, "n=%d: %s and %s disagree\n", n, name, counters[a->use[0]].name);
            return false;
        }
    }
    for (size_t i = 1; i < a->nuse; i++)
        if (s[0].err == NQ_OK && s[i].err == NQ_OK)
            printf("speed-up  n=%-2d %s over %s: wall %.2fx  cpu %.2fx\n", n, counters[a->use[0]].name,
                   counters[a->use[i]].name, s[i].wall / s[0].wall, s[i].cpu / s[0].cpu);
    return true;
}

int main(int argc, char **argv)
{
    bench_args a;
    if (!parse_args(argc, argv, &a)) {
        fprintf(stderr,
                "usage: %s [--threads T] [--reps R] [--counters quad,mitm,backtrack] [--stop-after S] [N ...]\n"
                "       %s --sample K [--run B] [--threads T] [N ...]   (the plan's own method, once)\n",
                argv[0], argv[0]);
        return 2;
    }
    for (int i = 0; i < a.count; i++) {
        if (a.sample > 0 ? !sample_plan(a.ns[i], (uint32_t)a.sample, (uint32_t)a.run, a.threads)
                         : !bench_one(a.ns[i], &a))
            return 1;
        fflush(stdout);
    }
    return 0;
}
