/* count_mitm.c - meet-in-the-middle N-Queens counter: search the top rows, join the bottom rows.
 *
 * Workload: one count of all solutions of an n x n board, n up to NQ_COUNT_N_MAX, on a few cores.
 * A backtracking counter spends most of its time in the last rows, re-searching the same small
 * bottom placements under every top placement. Here the board is cut after row h = n - k:
 *
 *   - every placement of the k bottom rows is enumerated once into a table (count_mitm_table.c),
 *     bucketed by the columns it uses and reduced to a 64-bit diagonal key;
 *   - the top h rows are searched by bitmask backtracking; a complete top placement names one bucket
 *     (its free columns) and a probe (its attack masks on row h), and completes with every key of
 *     that bucket that shares no bit with the probe.
 *
 * Joining each top placement as it is found would fetch a random bucket per placement, a cache miss
 * that costs more than the join. So each worker collects placements in a fixed batch, sorts it by
 * bucket (counting sort) and then streams the buckets in table order, every bucket tested against all
 * its probes while it sits in L1 (the kernels block four probes per loaded line). Buckets are sliced
 * by the bottom's column on row h, and a probe meets only the slices whose column it leaves free.
 *
 * Memory: the table (at most 1 GiB, about 120 MB at n = 18) and 40 MiB of batches per worker. A batch
 * sort is the longest stretch without a look at the cancel flag: about 20 ms.
 *
 * Work is split into tasks, placements of the first rows (3, from n = 21 on 4), taken by workers from
 * an atomic counter; left-right mirror symmetry halves the tasks. A worker joins its batch at the end
 * of every task, so that each task's sum is known on its own: these tasks, and one more for the
 * boards a turn maps to themselves, are the plan of n (solver.h, "counting in tasks"). The unique
 * count follows from Burnside's lemma with the rotation-symmetric counts of count_sym.c, run on the
 * calling thread meanwhile (count_workers.h).
 */
#include "count_mitm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "count_mitm_table.h"
#include "count_workers.h"

#define BATCH_LEAVES ((size_t)1 << 21) /* top placements per sort: 2 Mi, 40 MiB per worker */
#define PICK_MAX 2048u                 /* probes joined per kernel call: 16 KiB, stays in L1 */
#define CANCEL_STRIDE 4096u            /* top placements between two looks at the cancel flag */
#define JOIN_CANCEL_STRIDE 512u        /* buckets joined between two looks at the cancel flag */

/* Rows in the bottom band, per n (index n). Chosen by measurement (docs/performance.md): each more
 * row shortens the search about n/2-fold but lengthens the buckets and the table build, and the
 * table grows about 6-fold. Memory decides from n = 17: k = 8 would count n = 17 and 18 about 30%
 * faster but hold 360 and 670 MB per count instead of 150 and 210 MB, too much for a service that
 * runs a count per solver worker inside a container's memory limit; from n = 19 the 1 GiB table cap
 * decides as well. */
static const uint8_t bottom_rows_by_n[NQ_COUNT_N_MAX + 1] = {
    0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7, /* n = 0..14 */
    7, 7, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 6,       /* n = 15..27 */
};

/* A task: the board after the first rows are placed (a prefix whose mirror image is skipped). */
typedef struct task {
    uint32_t cols, ld, rd; /* occupied columns and diagonal attacks on the next row */
} task;

typedef struct job {
    const nq_mitm_table *table; /* the bottom band */
    nq_mitm_join_fn join;       /* the SIMD kernel this CPU runs */
    const task *tasks;          /* all tasks */
    uint32_t ntasks;            /* how many */
    int n, h, prefix;           /* board size, rows in the top band, rows fixed per task */
    atomic_uint_fast32_t next;  /* next task to take */
    atomic_uint_fast64_t found; /* solutions found so far, mirror images not yet added */
    atomic_bool stop;           /* cancel or failure: every worker leaves */
    atomic_bool nomem;          /* a worker could not get its batch */
    nq_count_ctl *ctl;          /* caller's control block, may be NULL */
    const uint8_t *todo;        /* the tasks to count (task i is tasks[i]), NULL: all */
    nq_count_task_fn done;      /* told each finished task, may be NULL */
    void *done_arg;             /* its argument */
} job;

/* A worker's batch of top placements awaiting their join. Fixed size, allocated once per worker. */
typedef struct batch {
    uint64_t *probe;  /* probes in the order found */
    uint32_t *bucket; /* their buckets */
    uint64_t *sorted; /* probes grouped by bucket */
    uint64_t *pick;   /* PICK_MAX probes of one bucket that leave one row-h column free */
    uint32_t *offset; /* nsets + 1 bucket offsets into sorted */
    size_t len;       /* placements held */
} batch;

static bool cancelled(job *j)
{
    return nq_count_stopping(&j->stop, j->ctl);
}

/* ---- batches --------------------------------------------------------------------------------------- */

static void batch_free(batch *b)
{
    free(b->probe);
    free(b->bucket);
    free(b->sorted);
    free(b->pick);
    free(b->offset);
}

static bool batch_alloc(batch *b, uint32_t nsets)
{
    b->probe = malloc(BATCH_LEAVES * sizeof *b->probe);
    b->bucket = malloc(BATCH_LEAVES * sizeof *b->bucket);
    /* calloc: 16 MiB come as fresh zero pages at no extra cost, and the static analyzer, which cannot
     * follow the counting sort that fills every slot the join reads, sees them initialised. */
    b->sorted = calloc(BATCH_LEAVES, sizeof *b->sorted);
    b->pick = malloc(PICK_MAX * sizeof *b->pick);
    b->offset = malloc(((size_t)nsets + 1u) * sizeof *b->offset);
    b->len = 0;
    return b->probe != NULL && b->bucket != NULL && b->sorted != NULL && b->pick != NULL && b->offset != NULL;
}

/* Counting sort of the batch by bucket: afterwards bucket r's probes are
 * sorted[offset[r] .. offset[r + 1]). */
static void batch_sort(batch *b, uint32_t nsets)
{
    memset(b->offset, 0, ((size_t)nsets + 1u) * sizeof *b->offset);
    for (size_t i = 0; i < b->len; i++) b->offset[b->bucket[i] + 1u]++;
    for (uint32_t r = 0; r < nsets; r++) b->offset[r + 1u] += b->offset[r];
    for (size_t i = 0; i < b->len; i++) b->sorted[b->offset[b->bucket[i]]++] = b->probe[i];
    /* each offset[r] now ends bucket r; shift them back to starts */
    memmove(b->offset + 1, b->offset, (size_t)nsets * sizeof *b->offset);
    b->offset[0] = 0;
}

/* Join the probes of bucket r, slice by slice: a slice whose row-h column a probe attacks cannot
 * match it, so each slice meets only the probes that leave its column free. */
static uint64_t join_bucket(const job *j, uint32_t r, const uint64_t *probes, size_t m, uint64_t *pick)
{
    const nq_mitm_table *t = j->table;
    const uint32_t *slice = t->start + (size_t)r * (size_t)t->n;
    uint64_t sum = 0;
    for (int c = 0; c < t->n; c++) {
        if (slice[c] == slice[c + 1]) continue;
        const uint64_t *keys = t->keys + slice[c];
        const size_t len = slice[c + 1] - slice[c];
        size_t picked = 0;
        for (size_t i = 0; i < m; i++) {
            const uint32_t attacked = (uint32_t)(probes[i] >> 32) | (uint32_t)probes[i];
            pick[picked] = probes[i];
            picked += (attacked >> c & 1u) == 0; /* branch-free filter */
            if (picked == PICK_MAX) {
                sum += j->join(keys, len, pick, picked);
                picked = 0;
            }
        }
        if (picked != 0) sum += j->join(keys, len, pick, picked);
    }
    return sum;
}

/* Join every placement of the batch and empty it. Returns false when cancelled. */
static bool batch_flush(job *j, batch *b, uint64_t *found)
{
    const uint32_t nsets = j->table->nsets;
    if (b->len == 0) /* nothing to join (the last flush of a worker often is) */
        return !cancelled(j);
    batch_sort(b, nsets);
    uint64_t sum = 0;
    for (uint32_t r = 0; r < nsets; r++) {
        const uint32_t first = b->offset[r], last = b->offset[r + 1u];
        if (first != last) sum += join_bucket(j, r, b->sorted + first, last - first, b->pick);
        if (r % JOIN_CANCEL_STRIDE == 0 && cancelled(j)) return false;
    }
    b->len = 0;
    *found += sum;
    return true;
}

/* ---- the top band -------------------------------------------------------------------------------- */

/* Search the top band below one task's prefix, batching every complete top placement. Iterative
 * bitmask backtracking, one frame per row: avail holds the columns still to try on that row.
 * Returns false when cancelled. */
static bool top_search(job *j, const task *tk, batch *b, uint64_t *found)
{
    const uint32_t full = (uint32_t)((UINT64_C(1) << j->n) - 1u);
    const int depth = j->h - j->prefix; /* rows still to place in the top band, >= 1 */
    uint32_t cols[NQ_COUNT_N_MAX], ld[NQ_COUNT_N_MAX], rd[NQ_COUNT_N_MAX], avail[NQ_COUNT_N_MAX];
    cols[0] = tk->cols;
    ld[0] = tk->ld;
    rd[0] = tk->rd;
    avail[0] = full & ~(tk->cols | tk->ld | tk->rd);
    unsigned budget = CANCEL_STRIDE;
    int d = 0;
    while (d >= 0) {
        if (avail[d] == 0) {
            d--;
            continue;
        }
        const uint32_t bit = avail[d] & (0u - avail[d]);
        avail[d] ^= bit;
        const uint32_t c = cols[d] | bit;
        const uint32_t l = ((ld[d] | bit) << 1) & full;
        const uint32_t r = (rd[d] | bit) >> 1;
        if (d + 1 < depth) {
            d++;
            cols[d] = c;
            ld[d] = l;
            rd[d] = r;
            avail[d] = full & ~(c | l | r);
            continue;
        }
        b->probe[b->len] = ((uint64_t)l << 32) | r | NQ_MITM_PAD_KEY;
        b->bucket[b->len] = nq_mitm_table_bucket(j->table, full & ~c);
        if (++b->len == BATCH_LEAVES && !batch_flush(j, b, found)) return false;
        if (--budget == 0) {
            budget = CANCEL_STRIDE;
            if (cancelled(j)) return false;
        }
    }
    return true;
}

static void *worker(void *arg)
{
    job *j = arg;
    batch b;
    uint64_t found = 0;
    if (!batch_alloc(&b, j->table->nsets)) {
        atomic_store(&j->nomem, true);
        atomic_store(&j->stop, true);
        goto end;
    }
    while (!cancelled(j)) {
        const uint32_t i = (uint32_t)atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (i >= j->ntasks) break;
        if (j->todo != NULL && j->todo[i] == 0) continue; /* counted before (resume) or elsewhere */
        uint64_t mine = 0;                                /* this task's placements, mirror images not yet added */
        if (!top_search(j, &j->tasks[i], &b, &mine) || !batch_flush(j, &b, &mine)) break;
        found += mine;
        if (j->done != NULL) {
            const nq_count_sums sums = {2u * mine, 2u * mine}; /* 2: mirror images */
            j->done(j->done_arg, i, &sums);
        }
        if (j->ctl != NULL) atomic_fetch_add_explicit(&j->ctl->done, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&j->found, found, memory_order_relaxed);
end:
    batch_free(&b);
    return NULL;
}

/* ---- tasks ------------------------------------------------------------------------------------------ */

typedef struct task_list {
    task *items;   /* capacity n^prefix; NULL: only count them */
    uint32_t len;  /* filled */
    int n, prefix; /* board size, rows per prefix */
} task_list;

/* Mirror symmetry: a board's left-right mirror image is a distinct solution, so keep only prefixes
 * whose row-0 queen is left of centre. With n odd and the row-0 queen in the centre column, the
 * row-1 queen (never central then) decides instead. */
static bool mirror_kept(int n, int row, uint32_t first_col, uint32_t col)
{
    const uint32_t half = (uint32_t)n / 2u;
    if (row == 0) return col < half || (n % 2 == 1 && col == half);
    if (row == 1 && n % 2 == 1 && first_col == half) return col < half;
    return true;
}

static void tasks_collect(task_list *tl, int row, uint32_t first_col, task state)
{
    if (row == tl->prefix) {
        if (tl->items != NULL) tl->items[tl->len] = state;
        tl->len++;
        return;
    }
    const uint32_t full = (uint32_t)((UINT64_C(1) << tl->n) - 1u);
    uint32_t avail = full & ~(state.cols | state.ld | state.rd);
    while (avail != 0) {
        const uint32_t bit = avail & (0u - avail);
        avail ^= bit;
        const uint32_t col = (uint32_t)__builtin_ctz(bit);
        const uint32_t first = row == 0 ? col : first_col;
        if (!mirror_kept(tl->n, row, first, col)) continue;
        const task next = {state.cols | bit, ((state.ld | bit) << 1) & full, (state.rd | bit) >> 1};
        tasks_collect(tl, row + 1, first, next);
    }
}

/* ---- the count ---------------------------------------------------------------------------------- */

/* Rows fixed per task. From n = 21 on, 4: tens of thousands of tasks (about 64 000 at n = 23), so that
 * a count spread over a thousand workers keeps them all busy; the table's rows leave at least one row
 * to search (n >= 4). */
static int task_prefix(int n)
{
    const int h = n - bottom_rows_by_n[n], prefix = n >= 21 ? 4 : n >= 10 ? 3 : 2;
    return prefix < h ? prefix : h - 1;
}

/* The task list of n (n >= 4): items NULL only counts them, else room for n^prefix tasks. */
static task_list tasks_of(int n, task *items)
{
    task_list tl = {items, 0, n, task_prefix(n)};
    const task empty = {0, 0, 0};
    tasks_collect(&tl, 0, 0, empty);
    return tl;
}

uint32_t nq_count_mitm_plan(int n)
{
    if (n < 4 || n > NQ_COUNT_N_MAX) return 1;
    return tasks_of(n, NULL).len + 1u;
}

/* The tasked count once the table is built (n >= 4), on threads >= 1 workers: the tasks j->todo
 * names (NULL: all) into j->found (mirror images not yet added), and the symmetric boards into
 * *quarter and *half unless they are NULL. */
static nq_err count_with_table(const nq_mitm_table *table, int threads, job *j, uint64_t *quarter, uint64_t *half)
{
    const int n = table->n;
    task_list tl = {NULL, 0, n, task_prefix(n)};
    size_t cap = 1;
    for (int i = 0; i < tl.prefix; i++) cap *= (size_t)n;
    tl.items = malloc(cap * sizeof *tl.items);
    if (tl.items == NULL) return NQ_E_NOMEM;
    tl = tasks_of(n, tl.items);
    j->table = table;
    j->join = nq_mitm_join_pick();
    j->tasks = tl.items;
    j->ntasks = tl.len;
    j->n = n;
    j->h = n - table->k;
    j->prefix = tl.prefix;
    const nq_err err = nq_count_workers_run(n, threads, worker, j, &j->stop, &j->nomem, j->ctl, quarter, half);
    free(tl.items);
    return err;
}

/* The tasked count behind both entry points: n >= 4 checked; *sums receives what the counted tasks
 * add up to. Progress: tasks, those not in todo counted as done. */
static nq_err mitm_tasks(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done, void *arg,
                         nq_count_sums *sums)
{
    const uint32_t ntasks = nq_count_mitm_plan(n) - 1u;
    const bool symmetric = todo == NULL || todo[ntasks] != 0;
    uint32_t skipped = 0;
    for (uint32_t i = 0; todo != NULL && i <= ntasks; i++) skipped += todo[i] == 0;
    if (ctl != NULL) {
        atomic_store(&ctl->done, skipped);
        atomic_store(&ctl->total, ntasks + 1u);
    }
    uint64_t quarter = 0, half = 0;
    nq_err err = NQ_OK;
    job j = {.ctl = ctl, .todo = todo, .done = done, .done_arg = arg};
    atomic_init(&j.next, 0);
    atomic_init(&j.found, 0);
    atomic_init(&j.stop, false);
    atomic_init(&j.nomem, false);
    if (skipped + (symmetric ? 1u : 0u) == ntasks + 1u) { /* only the symmetric boards: no table */
        if (symmetric) err = nq_count_symmetric(n, ctl, &quarter, &half);
    } else {
        threads = nq_count_workers(threads, NQ_COUNT_WORKERS_MAX);
        nq_mitm_table *table = NULL;
        err = nq_mitm_table_create(n, bottom_rows_by_n[n], threads, ctl, &table);
        if (err == NQ_OK)
            err = count_with_table(table, threads, &j, symmetric ? &quarter : NULL, symmetric ? &half : NULL);
        nq_mitm_table_destroy(table);
    }
    if (err != NQ_OK) return err;
    const uint64_t found = 2u * atomic_load(&j.found); /* 2: mirror images */
    *sums = (nq_count_sums){found, found + 2u * quarter + half};
    if (symmetric) {
        const nq_count_sums sym = {0, 2u * quarter + half};
        if (done != NULL) done(arg, ntasks, &sym);
        if (ctl != NULL) atomic_fetch_add(&ctl->done, 1);
    }
    return NQ_OK;
}

nq_err nq_count_mitm_tasks(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done, void *arg)
{
    if (threads < 0) return NQ_E_ARG;
    if (n < 4 || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    if (ctl != NULL && atomic_load(&ctl->cancel)) return NQ_E_CANCELED;
    nq_count_sums sums;
    return mitm_tasks(n, threads, todo, ctl, done, arg, &sums);
}

nq_err nq_count_mitm(int n, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    if (out == NULL || threads < 0) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    if (nq_count_too_small(n, out)) return NQ_OK;
    nq_count_sums sums;
    const nq_err err = mitm_tasks(n, threads, NULL, ctl, NULL, NULL, &sums);
    if (err == NQ_OK) *out = nq_count_sums_counts(&sums);
    return err;
}

bool nq_count_mitm_preferred(int n)
{
    /* 2-2.5x faster than backtracking from n = 16 (docs/performance.md), in a bounded table; below,
     * backtracking takes a few hundred milliseconds in O(n) memory. */
    return n >= 16 && n <= NQ_COUNT_N_MAX;
}
