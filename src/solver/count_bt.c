/* count_bt.c - the backtracking counter: every symmetry class once, on every core.
 *
 * Workload: one count of all solutions of an n x n board (n up to 27), which for n >= 16 means
 * billions of search nodes; the node loop is the only thing that matters for speed, and a count
 * must stop within milliseconds when cancelled.
 *
 * Symmetry. The 8 symmetries permute the four edge queens (the queens in row 0, row n-1, column 0
 * and column n-1). Let d be the smallest distance from an edge queen to the nearest corner along
 * its edge. The lexicographically smallest member of a class has its row-0 queen at column d, so
 * only boards of that normal form are searched:
 *   - d = 0 (a queen in a corner; there can be only one): the queen sits at (0,0). The transposed
 *     board also does, so keep the one whose row-1 queen is left of its column-1 queen's row:
 *     row 1 takes column b1 and column 1 stays empty above row b1. No board here is symmetric
 *     (a diagonal reflection would put two queens on one anti-diagonal), so each leaf is a class
 *     of 8 and needs no check.
 *   - d = b1 >= 1: row 0 at column b1; every other edge queen at distance >= b1, i.e. columns 0 and
 *     n-1 stay empty in rows above b1 and below b2 = n-1-b1 (so both are taken by the end of row
 *     b2), and the last row's queen sits in columns b1 .. b2. A leaf can still have other images in
 *     the same normal form: nq_sym_classify keeps the smallest and tells its orbit size (8, 4, 2).
 * That visits about an eighth of the boards a plain search does, instead of the half that the
 * usual left/right mirror trick visits.
 *
 * Threads. The first SPLIT_ROW rows of every case are expanded into tasks up front; workers take
 * the next task from an atomic index and keep their counters on their own stack, summed after the
 * join. Nothing is locked or allocated while searching.
 */
#include "count_bt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "count_workers.h"
#include "search_frame.h"
#include "symmetry.h"

#define SMALL_N 6            /* below this, count by enumeration: the normal form needs room */
#define SPLIT_ROW 4          /* rows 0 .. SPLIT_ROW-1 are fixed by the task */
#define CANCEL_ROWS_BELOW 12 /* look at the cancel flag on entering the row with this many below */
#define SHAPES_MAX (2 * NQ_COUNT_N_MAX)

/* The constraints of one case of the normal form. */
typedef struct shape {
    int b1;           /* rows above b1 keep out of the side columns */
    int b2;           /* at row b2 the side columns must all be taken; -1: no such rule */
    uint32_t side;    /* the columns rows above b1 keep out of */
    uint32_t last_ok; /* columns the last row may use */
    bool corner;      /* a corner case: each leaf is a class of 8 */
} shape;

/* One unit of work: a prefix of SPLIT_ROW rows of one case. */
typedef struct task {
    uint32_t left, down, right; /* attacks on row SPLIT_ROW from the prefix */
    uint8_t shape;              /* index into job.shapes */
    uint8_t prefix[SPLIT_ROW];  /* the prefix's columns */
} task;

/* The whole count, shared read-only by the workers except for the atomics. */
typedef struct job {
    int n;                    /* board size */
    uint32_t full;            /* the n column bits */
    shape shapes[SHAPES_MAX]; /* the cases */
    int nshapes;              /* how many */
    task *tasks;              /* the task list, owned */
    size_t ntasks;            /* its length */
    atomic_size_t next;       /* index of the next task to hand out */
    atomic_bool abort;        /* set when the count fails to start its threads */
    nq_count_ctl *ctl;        /* the caller's control block (or the count's own) */
} job;

/* One worker's search state; lives on the worker's stack. */
typedef struct search {
    const job *job;             /* the count */
    const task *task;           /* the task being searched */
    bool corner;                /* its case is a corner case */
    int b2;                     /* its case's b2 (-1: none) */
    uint32_t side;              /* its case's side columns */
    uint32_t allowed[NQ_N_MAX]; /* per row: columns its case allows (last row: last_ok) */
    int cancel_row;             /* entering this row looks at the cancel flag */
    bool stopped;               /* saw a cancel: unwind */
    nq_frame stack[NQ_N_MAX];   /* rows SPLIT_ROW .. n-2 (the last row is never pushed) */
    uint64_t by_fixers[5];      /* leaves by nq_sym_classify's answer; [0]: not the representative */
} search;

/* A worker thread and what it found. */
typedef struct worker {
    job *job;              /* the count */
    pthread_t thread;      /* valid when started */
    bool started;          /* thread was created (the worker run by the caller is not) */
    uint64_t by_fixers[5]; /* copied from its search when done */
} worker;

static bool stop_requested(const job *j)
{
    return atomic_load_explicit(&j->ctl->cancel, memory_order_relaxed) ||
           atomic_load_explicit(&j->abort, memory_order_relaxed);
}

/* Columns row y (not the last) may take: free of attacks and allowed by the case. */
static inline uint32_t candidates(const shape *sh, uint32_t full, int y, uint32_t left, uint32_t down, uint32_t right)
{
    const uint32_t avail = full & ~(left | down | right);
    if (y < sh->b1) return avail & ~sh->side;
    if (y == sh->b2) return nq_side_rule(avail, down, sh->side);
    return avail;
}

/* A full board in normal form: row y (= n-2), whose columns-taken-above mask is down_y, just took
 * bit, and the last row takes f. Rebuilds the column vector (row r's queen is the bit that row
 * r+1's `down` adds) and classifies it. Runs for a
 * few percent of the nodes, so the node loop does not keep the columns itself. */
static void leaf(search *s, int y, uint32_t down_y, uint32_t bit, uint32_t f)
{
    uint8_t cols[NQ_N_MAX];
    memcpy(cols, s->task->prefix, SPLIT_ROW);
    for (int r = SPLIT_ROW; r < y; r++) {
        const uint32_t down_below = r + 1 < y ? s->stack[r + 1].down : down_y; /* row y is not pushed */
        cols[r] = (uint8_t)__builtin_ctz(down_below ^ s->stack[r].down);
    }
    cols[y] = (uint8_t)__builtin_ctz(bit);
    cols[y + 1] = (uint8_t)__builtin_ctz(f);
    s->by_fixers[nq_sym_classify(y + 2, cols)]++;
}

/* Loads task t's case into s: the per-row masks the node loop applies without branching. */
static void enter_case(search *s, const task *t)
{
    const job *j = s->job;
    const shape *sh = &j->shapes[t->shape];
    const int last = j->n - 1;
    s->task = t;
    s->corner = sh->corner;
    s->b2 = sh->b2;
    s->side = sh->side;
    for (int y = 0; y < last; y++) s->allowed[y] = y < sh->b1 ? j->full & ~sh->side : j->full;
    s->allowed[last] = sh->last_ok;
}

/* The hot loop: a depth-first search over an explicit stack, from row SPLIT_ROW down.
 *   - Bit c is column c; left/right are the diagonal attacks, shifted one column per row, and
 *     x & -x is the lowest free column, so no scan is needed.
 *   - The current row's frame lives in registers; the stack is touched only to push and pop.
 *   - A child is pushed only if its row and the row below it still have a free square (a cheap
 *     look-ahead that cuts about half of the dead ends).
 *   - The last row is never pushed: its free squares are tested straight from row n-2.
 *   - The case's rules cost one AND per node (per-row masks) plus two compares (row b2, and the
 *     row where the cancel flag is looked at).
 * Corner-case leaves are counted as they are; the others are classified. */
static void run_task(search *s, const task *t)
{
    enter_case(s, t);
    const int base = SPLIT_ROW, last = s->job->n - 1, b2 = s->b2, cancel_row = s->cancel_row;
    const uint32_t full = s->job->full, side = s->side, last_ok = s->allowed[last];
    const bool corner = s->corner;
    int y = base;
    nq_frame cur = {~(t->left | t->down | t->right) & s->allowed[y], t->down, t->left, t->right};
    if (y == b2) cur.untried = nq_side_rule(cur.untried, t->down, side);
    for (;;) {
        if (cur.untried == 0) {
            if (y == base) return;
            cur = s->stack[--y];
            continue;
        }
        const uint32_t bit = cur.untried & (0u - cur.untried);
        cur.untried ^= bit;
        const uint32_t l = (cur.left | bit) << 1, d = cur.down | bit, r = (cur.right | bit) >> 1;
        if (y + 1 == last) {
            const uint32_t f = ~(l | d | r) & last_ok;
            if (f == 0) continue;
            if (corner)
                s->by_fixers[1]++;
            else
                leaf(s, y, cur.down, bit, f);
            continue;
        }
        uint32_t next = ~(l | d | r) & s->allowed[y + 1];
        if (y + 1 == b2) next = nq_side_rule(next, d, side);
        if (next == 0 || (full & ~(d | (l << 1) | (r >> 1))) == 0) continue;
        if (y + 1 == cancel_row && stop_requested(s->job)) {
            s->stopped = true;
            return;
        }
        s->stack[y++] = cur;
        cur = (nq_frame){next, d, l, r};
    }
}

/* ---- splitting the work ---------------------------------------------------------------------- */

static void add_shape(job *j, int b1, int b2, uint32_t side, uint32_t last_ok, bool corner)
{
    j->shapes[j->nshapes++] = (shape){b1, b2, side, last_ok, corner};
}

/* Extends prefix (rows start .. y-1 placed) to SPLIT_ROW rows; stores the tasks when j->tasks is
 * set, else only counts them. */
static void split(job *j, uint8_t sh, uint8_t *prefix, int y, uint32_t left, uint32_t down, uint32_t right)
{
    if (y == SPLIT_ROW) {
        if (j->tasks != NULL) {
            task *t = &j->tasks[j->ntasks];
            *t = (task){left, down, right, sh, {0}};
            memcpy(t->prefix, prefix, SPLIT_ROW);
        }
        j->ntasks++;
        return;
    }
    uint32_t avail = candidates(&j->shapes[sh], j->full, y, left, down, right);
    while (avail != 0) {
        const uint32_t bit = avail & (0u - avail);
        avail ^= bit;
        prefix[y] = (uint8_t)__builtin_ctz(bit);
        split(j, sh, prefix, y + 1, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
}

/* Runs split over every case: the corner cases (rows 0 and 1 fixed) then the others (row 0). */
static void split_all(job *j)
{
    uint8_t prefix[SPLIT_ROW];
    j->ntasks = 0;
    for (int i = 0; i < j->nshapes; i++) {
        const shape *sh = &j->shapes[i];
        const uint8_t idx = (uint8_t)i;
        if (sh->corner) {
            const uint32_t b = UINT32_C(1) << sh->b1;
            prefix[0] = 0;
            prefix[1] = (uint8_t)sh->b1;
            split(j, idx, prefix, 2, (2u | b) << 1, 1u | b, b >> 1);
        } else {
            const uint32_t b = UINT32_C(1) << sh->b1;
            prefix[0] = (uint8_t)sh->b1;
            split(j, idx, prefix, 1, b << 1, b, b >> 1);
        }
    }
}

/* The cases for n >= SMALL_N, then the task list. */
static nq_err plan(job *j, int n)
{
    j->n = n;
    j->full = (uint32_t)((UINT64_C(1) << n) - 1u);
    const uint32_t sides = 1u | (UINT32_C(1) << (n - 1));
    for (int b1 = 2; b1 <= n - 2; b1++) add_shape(j, b1, -1, 2u, j->full, true);
    uint32_t last_ok = j->full & ~sides; /* distance >= 1 from the corners */
    for (int b1 = 1; b1 < n - 1 - b1; b1++) {
        add_shape(j, b1, n - 1 - b1, sides, last_ok, false);
        last_ok &= ~((UINT32_C(1) << b1) | (UINT32_C(1) << (n - 1 - b1)));
    }
    j->tasks = NULL;
    split_all(j); /* counting pass */
    j->tasks = malloc((j->ntasks > 0 ? j->ntasks : 1) * sizeof *j->tasks);
    if (j->tasks == NULL) return NQ_E_NOMEM;
    split_all(j); /* filling pass */
    return NQ_OK;
}

/* ---- running it ------------------------------------------------------------------------------ */

static void *work(void *arg)
{
    worker *w = arg;
    job *j = w->job;
    search s = {.job = j, .cancel_row = j->n - CANCEL_ROWS_BELOW};
    if (s.cancel_row <= SPLIT_ROW) s.cancel_row = SPLIT_ROW + 1; /* small n: look once per row-5 subtree */
    while (!stop_requested(j)) {
        const size_t i = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (i >= j->ntasks) break;
        run_task(&s, &j->tasks[i]);
        if (s.stopped) break;
        atomic_fetch_add_explicit(&j->ctl->done, 1, memory_order_release);
    }
    memcpy(w->by_fixers, s.by_fixers, sizeof w->by_fixers);
    return NULL;
}

static size_t resolve_threads(int threads, size_t ntasks)
{
    const size_t want = (size_t)nq_count_workers(threads, NQ_COUNT_BT_THREADS_MAX);
    return want < ntasks ? want : (ntasks > 0 ? ntasks : 1);
}

/* Runs the job on nthreads workers, the calling thread being worker 0. */
static nq_err run(job *j, worker *workers, size_t nthreads)
{
    nq_err err = NQ_OK;
    for (size_t i = 0; i < nthreads; i++) workers[i].job = j;
    for (size_t i = 1; i < nthreads; i++) {
        if (pthread_create(&workers[i].thread, NULL, work, &workers[i]) != 0) {
            atomic_store(&j->abort, true); /* the started ones stop at their next look */
            err = NQ_E_THREAD;
            break;
        }
        workers[i].started = true;
    }
    if (err == NQ_OK) work(&workers[0]);
    for (size_t i = 1; i < nthreads; i++)
        if (workers[i].started) pthread_join(workers[i].thread, NULL);
    return err;
}

static void sum(const worker *workers, size_t nthreads, nq_counts *out)
{
    uint64_t f[5] = {0};
    for (size_t i = 0; i < nthreads; i++)
        for (size_t k = 1; k < 5; k++) f[k] += workers[i].by_fixers[k];
    out->unique = f[1] + f[2] + f[4];
    out->total = 8 * f[1] + 4 * f[2] + 2 * f[4];
}

/* n < SMALL_N: enumerate and classify every solution; a few hundred nodes at most. */
static nq_err count_small(int n, nq_count_ctl *ctl, nq_counts *out)
{
    if (atomic_load(&ctl->cancel)) return NQ_E_CANCELED;
    nq_iter *it = NULL;
    uint8_t cols[SMALL_N];
    size_t got = 0;
    nq_err err = nq_iter_create(n, 0, &it);
    if (err != NQ_OK) return err;
    *out = (nq_counts){0, 0};
    for (;;) {
        err = nq_iter_next(it, cols, 1, &got);
        if (err != NQ_OK || got == 0) break;
        out->total++;
        if (nq_sym_classify(n, cols) != 0) out->unique++;
    }
    nq_iter_destroy(it);
    atomic_store(&ctl->total, 1);
    atomic_store(&ctl->done, 1);
    return err;
}

nq_err nq_count_backtrack(int n, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    if (out == NULL || threads < 0) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    nq_count_ctl own;
    if (ctl == NULL) {
        nq_count_ctl_init(&own);
        ctl = &own;
    }
    if (n < SMALL_N) return count_small(n, ctl, out);

    nq_err err = NQ_OK;
    worker *workers = NULL;
    job *j = calloc(1, sizeof *j);
    if (j == NULL) return NQ_E_NOMEM;
    j->ctl = ctl;
    atomic_init(&j->next, 0);
    atomic_init(&j->abort, false);
    err = plan(j, n);
    if (err != NQ_OK) goto end;
    atomic_store(&ctl->done, 0);
    atomic_store(&ctl->total, (uint_fast32_t)j->ntasks);

    const size_t nthreads = resolve_threads(threads, j->ntasks);
    workers = calloc(nthreads, sizeof *workers);
    if (workers == NULL) {
        err = NQ_E_NOMEM;
        goto end;
    }
    err = run(j, workers, nthreads);
    if (err != NQ_OK) goto end;
    if (atomic_load(&ctl->done) < j->ntasks) {
        err = NQ_E_CANCELED;
        goto end;
    }
    sum(workers, nthreads, out);
end:
    free(workers);
    free(j->tasks);
    free(j);
    return err;
}
