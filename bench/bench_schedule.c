/* bench_schedule.c - how far a count spreads: per-task times of n's plan, and list scheduling of
 * them over 8..1024 workers (docs/performance.md, "Counts spread over machines").
 *
 *   bench_schedule [--save FILE] [--load FILE] [N ...]      (default N: 17 18)
 *
 * Measuring: one nq_count_tasks call on one thread over the whole plan; the CPU time between two
 * consecutive task reports is the later task's cost (one thread does one task at a time; CPU time,
 * so that other work on the machine does not inflate a task that happened to be preempted). The
 * tables' set-up, paid once per nq_count_tasks call, is timed apart (a call with one task) and
 * taken out of the first report. --save writes "n task seconds" lines (and "n setup seconds"),
 * --load reads such a file instead of measuring: n = 20 takes minutes to measure.
 *
 * Simulating, for W workers:
 *   queue    a work queue handing out one task at a time in plan order to the worker free first,
 *            each worker paying the set-up once: what workers that keep their tables between
 *            tasks reach (nq_count_session; each nq_count_tasks call builds its tables);
 *   lpt      the same, largest task first (the best a list scheduler does without preemption);
 *   mpi      nqueens-mpi (src/mpi/coordinator.c): 2 chunks per worker from the plan's blocks
 *            (nq_count_block) in 64 interleaved passes, each chunk paying the set-up;
 *   shards   W static shards (count --shard I/W: the plan's blocks dealt out in turn), each paying
 *            the set-up once.
 * Tasks are timed in plan order, so a worker's tables (from n = 21) are rebuilt as rarely as in a
 * whole count; schedules that give a worker tasks far apart would pay more than simulated here
 * (nq_count_block, solver.h).
 * Speed-up is the one-worker time (every task plus one set-up) over the makespan; efficiency is
 * speed-up / W. "cap" is the sum over the largest task: no schedule of whole tasks beats it.
 */
#include "nqueens/solver.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N_ARGS_MAX 16
#define WORKERS_MIN 8
#define WORKERS_MAX 1024
#define CHUNKS_PER_WORKER 2u /* as src/mpi/coordinator.c */
#define STRIDE 64u           /* as src/mpi/coordinator.c */

/* calloc that ends the run when memory is short: a figure from half a simulation would mislead. */
static void *zalloc(size_t count, size_t size)
{
    void *p = calloc(count, size);
    if (p == NULL && count != 0) {
        fprintf(stderr, "bench_schedule: out of memory\n");
        exit(1);
    }
    return p;
}

typedef struct plan_times {
    int n;          /* board size */
    uint32_t tasks; /* the plan's */
    double *cost;   /* seconds per task */
    double setup;   /* seconds per nq_count_tasks call before its first task */
} plan_times;

/* CPU seconds of the process: with one counting thread and the main thread blocked in the call,
 * that thread's time, which a loaded machine does not stretch as it stretches the wall clock. */
static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The reports of a one-thread count: each task's cost is the time since the previous report. */
typedef struct stopwatch {
    double last;    /* time of the previous report (or the start) */
    double *cost;   /* per task */
    uint32_t first; /* the task reported first (its time holds the set-up); UINT32_MAX before */
} stopwatch;

static void on_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    (void)sums;
    stopwatch *w = arg;
    const double t = now_s();
    w->cost[task] = t - w->last;
    w->last = t;
    if (w->first == UINT32_MAX) w->first = task;
}

static int by_cost(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, uint32_t len)
{
    double *s = zalloc(len, sizeof *s);
    memcpy(s, v, len * sizeof *s);
    qsort(s, len, sizeof *s, by_cost);
    const double m = s[len / 2];
    free(s);
    return m;
}

/* Times every task of n's plan on one thread. The set-up is a one-task call's time less a median
 * task (tasks cost well under a millisecond, the set-up tens to hundreds), and is taken out of the
 * first report of the full run. */
static int measure(int n, plan_times *p)
{
    p->n = n;
    if (nq_count_plan(n, &p->tasks) != NQ_OK) return -1;
    p->cost = calloc(p->tasks, sizeof *p->cost);
    uint8_t *one = calloc(p->tasks, 1);
    if (!p->cost || !one) {
        free(one);
        return -1;
    }
    one[0] = 1;
    stopwatch w = {now_s(), p->cost, UINT32_MAX};
    const double t0 = w.last;
    const nq_err rc = nq_count_tasks(n, 1, one, NULL, on_task, &w);
    const double t_one = now_s() - t0;
    free(one);
    if (rc != NQ_OK) return -1;
    w = (stopwatch){now_s(), p->cost, UINT32_MAX};
    const double start = w.last;
    if (nq_count_tasks(n, 1, NULL, NULL, on_task, &w) != NQ_OK) return -1;
    const double whole = now_s() - start;
    const double first_report = p->cost[w.first];
    p->cost[w.first] = 0;
    const double typical = median(p->cost, p->tasks);
    p->setup = t_one > typical ? t_one - typical : t_one;
    p->cost[w.first] = first_report > p->setup ? first_report - p->setup : typical;
    fprintf(stderr, "measured n = %d: %u tasks in %.1f CPU s on one thread, set-up %.3f s\n", n, p->tasks, whole,
            p->setup);
    return 0;
}

/* ---- simulation ------------------------------------------------------------------------------ */

/* A binary min-heap of the workers' finishing times. */
static void heap_down(double *h, size_t len, size_t i)
{
    for (;;) {
        size_t m = i;
        const size_t l = 2 * i + 1, r = l + 1;
        if (l < len && h[l] < h[m]) m = l;
        if (r < len && h[r] < h[m]) m = r;
        if (m == i) return;
        const double t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* Makespan of jobs[0..len) handed in order to the first free of w workers. */
static double list_schedule(const double *jobs, size_t len, size_t w)
{
    double *free_at = zalloc(w, sizeof *free_at);
    double end = 0;
    for (size_t i = 0; i < len; i++) {
        free_at[0] += jobs[i];
        if (free_at[0] > end) end = free_at[0];
        heap_down(free_at, w, 0);
    }
    free(free_at);
    return end;
}

static int by_cost_desc(const void *a, const void *b)
{
    return by_cost(b, a);
}

/* nqueens-mpi's chunks for w workers: the plan's blocks (nq_count_block) in STRIDE interleaved
 * passes, cut into chunks of ceil(tasks / (CHUNKS_PER_WORKER x w)), each costing its tasks plus one
 * set-up, list-scheduled. */
static double mpi_schedule(const plan_times *p, size_t w)
{
    double *chunks = zalloc(p->tasks, sizeof *chunks);
    const uint32_t share = CHUNKS_PER_WORKER * (uint32_t)w, size = (p->tasks + share - 1u) / share;
    const uint64_t block = nq_count_block(p->tasks, share), tasks = p->tasks;
    size_t k = 0, in_chunk = 0;
    for (uint64_t r = 0; r < STRIDE; r++) {
        for (uint64_t first = r * block; first < tasks; first += STRIDE * block) {
            for (uint64_t i = first; i < first + block && i < tasks; i++) {
                if (in_chunk == 0) chunks[k++] = p->setup;
                chunks[k - 1] += p->cost[i];
                in_chunk = (in_chunk + 1) % size;
            }
        }
    }
    const double end = list_schedule(chunks, k, w);
    free(chunks);
    return end;
}

/* The slowest of w shards (count --shard I/w: blocks of nq_count_block dealt out in turn), each
 * paying the set-up once (an empty one nothing). */
static double shard_schedule(const plan_times *p, size_t w)
{
    const uint32_t block = nq_count_block(p->tasks, (uint32_t)w);
    double *t = zalloc(w, sizeof *t);
    for (uint32_t i = 0; i < p->tasks; i++) t[(i / block) % w] += p->cost[i];
    double worst = 0;
    for (size_t s = 0; s < w; s++) {
        if (t[s] > 0) t[s] += p->setup;
        if (t[s] > worst) worst = t[s];
    }
    free(t);
    return worst;
}

static void report(const plan_times *p)
{
    double sum = 0, max = 0;
    for (uint32_t i = 0; i < p->tasks; i++) {
        sum += p->cost[i];
        if (p->cost[i] > max) max = p->cost[i];
    }
    double *sorted = zalloc(p->tasks, sizeof *sorted);
    memcpy(sorted, p->cost, p->tasks * sizeof *sorted);
    qsort(sorted, p->tasks, sizeof *sorted, by_cost_desc);
    const double one = sum + p->setup;
    printf("\nn = %d: %u tasks, %.2f s of work on one thread, set-up %.3f s per call; task cost mean %.2f ms,"
           " median %.2f ms, largest %.2f ms; cap (sum / largest) %.0f\n",
           p->n, p->tasks, sum, p->setup, 1e3 * sum / p->tasks, 1e3 * sorted[p->tasks / 2], 1e3 * max, sum / max);
    printf("| workers | queue speed-up | eff. | lpt speed-up | eff. | mpi chunks speed-up | eff. | shards speed-up | "
           "eff. |\n");
    printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t w = WORKERS_MIN; w <= WORKERS_MAX; w *= 2) {
        const double q = one / (list_schedule(p->cost, p->tasks, w) + p->setup);
        const double l = one / (list_schedule(sorted, p->tasks, w) + p->setup);
        /* (each worker's one set-up is taken as simultaneous, at the start) */
        const double m = one / mpi_schedule(p, w), s = one / shard_schedule(p, w);
        const double wd = (double)w;
        printf("| %zu | %.1f | %.0f%% | %.1f | %.0f%% | %.1f | %.0f%% | %.1f | %.0f%% |\n", w, q, 100 * q / wd, l,
               100 * l / wd, m, 100 * m / wd, s, 100 * s / wd);
    }
    free(sorted);
}

/* ---- files ----------------------------------------------------------------------------------- */

static void save(FILE *f, const plan_times *p)
{
    fprintf(f, "%d setup %.9f\n", p->n, p->setup);
    for (uint32_t i = 0; i < p->tasks; i++) fprintf(f, "%d %u %.9f\n", p->n, i, p->cost[i]);
}

/* One "n task seconds" or "n setup seconds" line; false for anything else. */
static bool parse_line(const char *line, long *n, long *task, double *v)
{
    char *end = NULL;
    *n = strtol(line, &end, 10);
    if (end == line || *end != ' ') return false;
    line = end + 1;
    if (strncmp(line, "setup ", 6) == 0) {
        *task = -1;
        line += 6;
    } else {
        *task = strtol(line, &end, 10);
        if (end == line || *end != ' ' || *task < 0) return false;
        line = end + 1;
    }
    *v = strtod(line, &end);
    return end != line;
}

/* Reads n's lines from a --save file. */
static int load(const char *path, int n, plan_times *p)
{
    p->n = n;
    if (nq_count_plan(n, &p->tasks) != NQ_OK) return -1;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    p->cost = calloc(p->tasks, sizeof *p->cost);
    char line[128];
    uint32_t got = 0;
    while (p->cost && fgets(line, sizeof line, f)) {
        long ln = 0, task = 0;
        double v = 0;
        if (!parse_line(line, &ln, &task, &v) || ln != n) continue;
        if (task < 0) {
            p->setup = v;
        } else if ((unsigned long)task < p->tasks) {
            p->cost[task] = v;
            got++;
        }
    }
    fclose(f);
    return got == p->tasks ? 0 : -1;
}

int main(int argc, char **argv)
{
    const char *save_path = NULL, *load_path = NULL;
    int ns[N_ARGS_MAX], count = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--save") == 0 && i + 1 < argc)
            save_path = argv[++i];
        else if (strcmp(argv[i], "--load") == 0 && i + 1 < argc)
            load_path = argv[++i];
        else if (count < N_ARGS_MAX)
            ns[count++] = (int)strtol(argv[i], NULL, 10); /* nq_count_plan refuses what is not a board */
    }
    if (count == 0) {
        ns[count++] = 17;
        ns[count++] = 18;
    }
    FILE *out = save_path ? fopen(save_path, "a") : NULL;
    for (int k = 0; k < count; k++) {
        plan_times p = {0};
        const int rc = load_path ? load(load_path, ns[k], &p) : measure(ns[k], &p);
        if (rc != 0) {
            fprintf(stderr, "bench_schedule: no times for n = %d\n", ns[k]);
            free(p.cost);
            if (out) fclose(out);
            return 1;
        }
        if (out) save(out, &p);
        report(&p);
        free(p.cost);
    }
    if (out) fclose(out);
    return 0;
}
