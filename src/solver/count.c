/* count.c - nq_count: the control block and the choice of counting method per n.
 *
 * Three counters sit behind nq_count: the symmetry-aware backtracking counter (count_bt.c), the
 * half-board counter (count_quad.c) and the meet-in-the-middle counter (count_mitm.c). Which one is
 * fastest depends on n; count_quad.h and count_mitm.h say where each wins (measured,
 * docs/performance.md), and everything else goes to backtracking.
 *
 * nq_count is nq_count_tasks over every task of n's plan (solver.h): the half-board counter's column
 * sets and the meet-in-the-middle counter's first-row placements are the tasks, so a count that is
 * checkpointed, resumed or spread over machines runs exactly the code an ordinary count runs.
 * Backtracking (small n) is one task.
 */
#include "nqueens/solver.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "count_bt.h"
#include "count_mitm.h"
#include "count_quad.h"

void nq_count_ctl_init(nq_count_ctl *ctl)
{
    if (ctl == NULL) return;
    atomic_init(&ctl->cancel, false);
    atomic_init(&ctl->done, 0);
    atomic_init(&ctl->total, 0);
}

void nq_count_cancel(nq_count_ctl *ctl)
{
    if (ctl != NULL) atomic_store(&ctl->cancel, true);
}

double nq_count_progress(const nq_count_ctl *ctl)
{
    if (ctl == NULL) return 0.0;
    const uint_fast32_t total = atomic_load(&ctl->total);
    const uint_fast32_t done = atomic_load(&ctl->done);
    if (total == 0) return 0.0;
    if (done >= total) return 1.0;
    return (double)done / (double)total;
}

/* Where nq_count uses the meet-in-the-middle counter: above the half-board range. */
static bool mitm_used(int n)
{
    return !nq_count_quad_preferred(n) && nq_count_mitm_preferred(n);
}

/* Is n counted in more than one task? */
static bool tasked(int n)
{
    return nq_count_quad_preferred(n) || mitm_used(n);
}

nq_err nq_count_plan(int n, uint32_t *tasks)
{
    if (tasks == NULL) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    const uint32_t len = nq_count_quad_preferred(n) ? nq_count_quad_plan(n) : mitm_used(n) ? nq_count_mitm_plan(n) : 1u;
    if (len == 0) return NQ_E_NOMEM;
    *tasks = len;
    return NQ_OK;
}

uint32_t nq_count_block(uint32_t tasks, uint32_t parts)
{
    const uint64_t per = (uint64_t)(parts > 0 ? parts : 1u) * NQ_COUNT_BLOCKS_PER_PART;
    const uint64_t block = tasks / per;
    return block > 0 ? (uint32_t)block : 1u;
}

const char *nq_count_method(int n)
{
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NULL;
    if (nq_count_quad_preferred(n)) return "quad";
    return nq_count_mitm_preferred(n) ? "mitm" : "backtrack";
}

nq_err nq_count_tasks(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done, void *arg)
{
    if (threads < 0) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    if (nq_count_quad_preferred(n)) return nq_count_quad_tasks(n, threads, todo, ctl, done, arg);
    if (mitm_used(n)) return nq_count_mitm_tasks(n, threads, todo, ctl, done, arg);
    if (todo != NULL && todo[0] == 0) return NQ_OK; /* the one task is done already */
    nq_counts c;
    const nq_err err = nq_count_backtrack(n, threads, ctl, &c);
    if (err != NQ_OK) return err;
    const nq_count_sums sums = {c.total, 8u * c.unique};
    if (done != NULL) done(arg, 0, &sums);
    return NQ_OK;
}

/* The half-board counter keeps its tables in a session of its own; the other counters keep nothing
 * between calls, so their sessions only remember n. */
struct nq_count_session {
    int n;                 /* the board */
    nq_quad_session *quad; /* the half-board counter's state, NULL outside its range */
};

nq_err nq_count_session_create(int n, nq_count_session **out)
{
    if (out == NULL) return NQ_E_ARG;
    *out = NULL;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    nq_count_session *s = calloc(1, sizeof *s);
    if (s == NULL) return NQ_E_NOMEM;
    s->n = n;
    if (nq_count_quad_preferred(n)) {
        const nq_err err = nq_count_quad_session_create(n, &s->quad);
        if (err != NQ_OK) {
            free(s);
            return err;
        }
    }
    *out = s;
    return NQ_OK;
}

nq_err nq_count_session_tasks(nq_count_session *s, int threads, const uint8_t *todo, nq_count_ctl *ctl,
                              nq_count_task_fn done, void *arg)
{
    if (s == NULL) return NQ_E_ARG;
    if (s->quad == NULL) return nq_count_tasks(s->n, threads, todo, ctl, done, arg);
    return nq_count_quad_session_tasks(s->quad, threads, todo, ctl, done, arg);
}

int nq_count_session_n(const nq_count_session *s)
{
    assert(s != NULL);
    return s->n;
}

void nq_count_session_destroy(nq_count_session *s)
{
    if (s == NULL) return;
    nq_count_quad_session_destroy(s->quad);
    free(s);
}

void nq_count_sums_add(nq_count_sums *acc, const nq_count_sums *s)
{
    acc->total += s->total;
    acc->burnside += s->burnside;
}

nq_counts nq_count_sums_counts(const nq_count_sums *all)
{
    const nq_counts c = {all->total, all->burnside / 8u};
    return c;
}

nq_sums_fault nq_count_sums_fit(const nq_count_sums *s, uint64_t tasks)
{
    if (tasks == 0 && (s->total != 0 || s->burnside != 0)) return NQ_SUMS_NO_TASKS;
    return s->total > s->burnside ? NQ_SUMS_TOTAL_ABOVE : NQ_SUMS_FIT;
}

nq_sums_fault nq_count_sums_whole(const nq_count_sums *s)
{
    const nq_sums_fault f = nq_count_sums_fit(s, 1);
    if (f != NQ_SUMS_FIT) return f;
    if (s->burnside % 8u != 0) return NQ_SUMS_PART_CLASS;
    return s->burnside / 8u > s->total ? NQ_SUMS_CLASSES_ABOVE : NQ_SUMS_FIT;
}

/* nq_count_tasks_sum's sink for nq_count_tasks: tasks finish on several threads at once. */
typedef struct task_sum {
    atomic_uint_fast64_t total;    /* sum of the tasks' totals */
    atomic_uint_fast64_t burnside; /* and of their Burnside numerators */
} task_sum;

static void add_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    (void)task;
    task_sum *sum = arg;
    atomic_fetch_add_explicit(&sum->total, sums->total, memory_order_relaxed);
    atomic_fetch_add_explicit(&sum->burnside, sums->burnside, memory_order_relaxed);
}

nq_err nq_count_tasks_sum(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_sums *out)
{
    if (out == NULL) return NQ_E_ARG;
    task_sum sum;
    atomic_init(&sum.total, 0);
    atomic_init(&sum.burnside, 0);
    const nq_err err = nq_count_tasks(n, threads, todo, ctl, add_task, &sum);
    *out = (nq_count_sums){atomic_load(&sum.total), atomic_load(&sum.burnside)};
    return err;
}

nq_err nq_count(int n, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    if (out == NULL || threads < 0) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    /* Below the half-board range one task is the whole count: no need to split what is not split. */
    if (!tasked(n)) return nq_count_backtrack(n, threads, ctl, out);
    nq_count_sums all;
    const nq_err err = nq_count_tasks_sum(n, threads, NULL, ctl, &all);
    if (err != NQ_OK) return err;
    *out = nq_count_sums_counts(&all);
    return NQ_OK;
}
