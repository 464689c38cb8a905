/* test_pool.c - unit tests of the solver worker pool (src/server/compute/pool.c): admission, single-flight,
 * deadlines, budget cancel, early release, abort, and a concurrent stress run for ThreadSanitizer.
 *
 * Tasks here are synthetic: a "gate" task blocks until the test opens its gate (or the pool cancels
 * it), so each test decides exactly when computations end. Waiting is always bounded (WAIT_MS) so a
 * bug fails a test instead of hanging it.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep, rand_r */
#endif
#include "base/errors.h"
#include "compute/pool.h"

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_run.h"

#define WAIT_MS 10000u    /* upper bound on any wait; far above what a loaded 2-core box needs */
#define STRESS_ROUNDS 300 /* submits per thread in the stress test */

/* ---- a gate: tasks block on it until the test opens it ------------------------------------------ */

typedef struct gate {
    pthread_mutex_t lock;
    pthread_cond_t cv;
    bool open;
    atomic_int runs;      /* run calls begun */
    atomic_int inside;    /* run calls blocked right now */
    atomic_int ctx_frees; /* ctx_free calls */
} gate;

static void gate_init(gate *g)
{
    pthread_mutex_init(&g->lock, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->open = false;
    atomic_init(&g->runs, 0);
    atomic_init(&g->inside, 0);
    atomic_init(&g->ctx_frees, 0);
}

static void gate_fini(gate *g)
{
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->lock);
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->lock);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->lock);
}

static struct timespec in_ms(unsigned ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(ms / 1000u);
    ts.tv_nsec += (long)(ms % 1000u) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* Poll cond (a predicate on arg) every millisecond for up to WAIT_MS; true once it holds. */
static bool eventually(bool (*cond)(void *), void *arg)
{
    for (unsigned i = 0; i < WAIT_MS; i++) {
        if (cond(arg)) {
            return true;
        }
        const struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    return cond(arg);
}

/* The task context: which gate, and what value to return as the result. */
typedef struct gate_ctx {
    gate *g;
    int value;
    nq_err fail;       /* returned instead of a result when not NQ_OK */
    unsigned delay_ms; /* the run lasts at least this long (unless cancelled) once the gate is open */
    pthread_t ran_on;  /* the thread the run was called on */
} gate_ctx;

static nq_err gate_run(void *ctx, nq_count_ctl *ctl, void **result)
{
    gate_ctx *const c = ctx;
    gate *const g = c->g;
    c->ran_on = pthread_self();
    atomic_fetch_add(&g->runs, 1);
    atomic_fetch_add(&g->inside, 1);
    pthread_mutex_lock(&g->lock);
    bool cancelled = false;
    while (!g->open && !cancelled) {
        const struct timespec ts = in_ms(2);
        pthread_cond_timedwait(&g->cv, &g->lock, &ts); /* short: polls ctl->cancel like nq_count */
        cancelled = atomic_load(&ctl->cancel);
    }
    pthread_mutex_unlock(&g->lock);
    for (unsigned ms = 0; ms < c->delay_ms && !cancelled; ms++) {
        const struct timespec one = {0, 1000000L};
        nanosleep(&one, NULL);
        cancelled = atomic_load(&ctl->cancel);
    }
    atomic_fetch_sub(&g->inside, 1);
    if (cancelled) {
        return NQ_E_CANCELED;
    }
    if (c->fail != NQ_OK) {
        return c->fail;
    }
    int *const r = malloc(sizeof *r);
    if (r == NULL) {
        return NQ_E_NOMEM;
    }
    *r = c->value;
    *result = r;
    return NQ_OK;
}

static void gate_ctx_free(void *ctx)
{
    gate_ctx *const c = ctx;
    atomic_fetch_add(&c->g->ctx_frees, 1);
    free(c);
}

static nq_pool_task gate_task(gate *g, int value)
{
    gate_ctx *const c = calloc(1, sizeof *c);
    ck_assert_ptr_nonnull(c);
    c->g = g;
    c->value = value;
    c->fail = NQ_OK;
    return (nq_pool_task){.run = gate_run, .ctx_free = gate_ctx_free, .result_free = free, .ctx = c};
}

/* ---- a waiter: counts notifications ------------------------------------------------------------- */

typedef struct waiter {
    atomic_int notified;
} waiter;

static void waiter_notify(void *arg)
{
    waiter *const w = arg;
    atomic_fetch_add(&w->notified, 1);
}

static bool waiter_done(void *arg)
{
    return atomic_load(&((waiter *)arg)->notified) > 0;
}

static bool gate_entered(void *arg)
{
    return atomic_load(&((gate *)arg)->inside) > 0;
}

static bool gate_left(void *arg)
{
    return atomic_load(&((gate *)arg)->inside) == 0 && atomic_load(&((gate *)arg)->runs) > 0;
}

static nq_pool *pool_new(unsigned workers, unsigned queue_len, unsigned deadline_ms, unsigned budget_ms)
{
    const nq_pool_config cfg = {
        .workers = workers, .queue_len = queue_len, .deadline_ms = deadline_ms, .budget_ms = budget_ms};
    nq_pool *p = NULL;
    ck_assert_int_eq(nq_pool_create(&cfg, &p), NQ_OK);
    ck_assert_ptr_nonnull(p);
    return p;
}

static nq_pool_stats stats_of(nq_pool *p)
{
    nq_pool_stats s;
    nq_pool_stats_get(p, &s);
    return s;
}

static bool pool_idle(void *arg)
{
    const nq_pool_stats s = stats_of(arg);
    return s.running == 0 && s.queued == 0;
}

static bool pool_cancelled(void *arg)
{
    return stats_of(arg).cancelled > 0;
}

/* ---- argument checks (tables) ------------------------------------------------------------------- */

static const struct {
    unsigned workers;
    nq_err want;
} create_rows[] = {
    {0, NQ_E_ARG},
    {1, NQ_OK},
    {4, NQ_OK},
    {NQ_POOL_WORKERS_MAX + 1u, NQ_E_ARG},
};

START_TEST(create_args)
{
    const nq_pool_config cfg = {.workers = create_rows[_i].workers, .queue_len = 2};
    nq_pool *p = NULL;
    ck_assert_int_eq(nq_pool_create(&cfg, &p), create_rows[_i].want);
    ck_assert(create_rows[_i].want == NQ_OK ? p != NULL : p == NULL);
    nq_pool_destroy(p);
}
END_TEST

START_TEST(create_null)
{
    nq_pool *p = NULL;
    const nq_pool_config cfg = {.workers = 1};
    ck_assert_int_eq(nq_pool_create(NULL, &p), NQ_E_ARG);
    ck_assert_int_eq(nq_pool_create(&cfg, NULL), NQ_E_ARG);
    nq_pool_destroy(NULL); /* accepted */
    nq_pool_ticket_release(NULL);
}
END_TEST

START_TEST(submit_args)
{
    gate g;
    gate_init(&g);
    nq_pool *const p = pool_new(1, 1, 0, 0);
    waiter w = {0};
    char long_key[NQ_POOL_KEY_MAX + 2u];
    memset(long_key, 'k', sizeof long_key - 1u);
    long_key[sizeof long_key - 1u] = '\0';
    const char *const keys[] = {NULL, "", long_key};
    nq_pool_ticket *t = NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const nq_pool_task task = gate_task(&g, 1);
        ck_assert_int_eq(nq_pool_submit(p, keys[i], &task, waiter_notify, &w, &t), NQ_E_ARG);
    }
    nq_pool_task task = gate_task(&g, 1);
    ck_assert_int_eq(nq_pool_submit(p, "k", &task, NULL, &w, &t), NQ_E_ARG);
    task = gate_task(&g, 1);
    ck_assert_int_eq(nq_pool_submit(p, "k", &task, waiter_notify, &w, NULL), NQ_E_ARG);
    task = gate_task(&g, 1);
    ck_assert_int_eq(nq_pool_submit(NULL, "k", &task, waiter_notify, &w, &t), NQ_E_ARG);
    /* The pool took over every ctx, even though it refused each submit. */
    ck_assert_int_eq(atomic_load(&g.ctx_frees), 6);
    ck_assert_int_eq(atomic_load(&g.runs), 0);
    ck_assert_int_eq(atomic_load(&w.notified), 0);
    nq_pool_destroy(p);
    gate_fini(&g);
}
END_TEST

/* ---- behaviour ---------------------------------------------------------------------------------- */

START_TEST(one_computation)
{
    gate g;
    gate_init(&g);
    gate_open(&g);
    nq_pool *const p = pool_new(2, 2, 0, 0);
    waiter w = {0};
    nq_pool_ticket *t = NULL;
    const nq_pool_task task = gate_task(&g, 92);
    ck_assert_int_eq(nq_pool_submit(p, "count?n=8", &task, waiter_notify, &w, &t), NQ_OK);
    ck_assert(eventually(waiter_done, &w));
    const void *r = NULL;
    ck_assert_int_eq(nq_pool_ticket_result(t, &r), NQ_OK);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(*(const int *)r, 92);
    nq_pool_ticket_release(t);
    const nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.submitted, 1);
    ck_assert_uint_eq(s.started, 1);
    ck_assert_uint_eq(s.finished, 1);
    ck_assert_uint_eq(s.shared, 0);
    ck_assert_uint_eq(s.running + s.queued + s.waiting, 0);
    ck_assert_int_eq(atomic_load(&w.notified), 1);
    ck_assert_int_eq(atomic_load(&g.ctx_frees), 1);
    nq_pool_destroy(p);
    gate_fini(&g);
}
END_TEST

START_TEST(single_flight)
{
    enum { N = 20 };
    gate g;
    gate_init(&g);
    nq_pool *const p = pool_new(2, 0, 0, 0); /* queue 0: only sharing can admit the 19 others */
    waiter w[N] = {0};
    nq_pool_ticket *t[N] = {0};
    for (int i = 0; i < N; i++) {
        const nq_pool_task task = gate_task(&g, 14200);
        ck_assert_int_eq(nq_pool_submit(p, "count?n=12", &task, waiter_notify, &w[i], &t[i]), NQ_OK);
    }
    ck_assert(eventually(gate_entered, &g));
    nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.submitted, N);
    ck_assert_uint_eq(s.shared, N - 1);
    ck_assert_uint_eq(s.waiting, N);
    gate_open(&g);
    const void *first = NULL;
    for (int i = 0; i < N; i++) {
        ck_assert(eventually(waiter_done, &w[i]));
        const void *r = NULL;
        ck_assert_int_eq(nq_pool_ticket_result(t[i], &r), NQ_OK);
        ck_assert_int_eq(*(const int *)r, 14200);
        if (i == 0) {
            first = r;
        }
        ck_assert_ptr_eq(r, first); /* one result, shared */
    }
    for (int i = 0; i < N; i++) {
        nq_pool_ticket_release(t[i]);
        ck_assert_int_eq(atomic_load(&w[i].notified), 1);
    }
    s = stats_of(p);
    ck_assert_int_eq(atomic_load(&g.runs), 1);
    ck_assert_uint_eq(s.started, 1);
    ck_assert_uint_eq(s.finished, 1);
    ck_assert_int_eq(atomic_load(&g.ctx_frees), N); /* 1 after the run, N - 1 at submit */
    nq_pool_destroy(p);
    gate_fini(&g);
}
END_TEST

START_TEST(queue_full_is_busy)
{
    gate g;
    gate_init(&g);
    nq_pool *const p = pool_new(1, 2, 0, 0);
    waiter w[5] = {0};
    nq_pool_ticket *t[5] = {0};
    const char *const keys[] = {"a", "b", "c", "d", "b"};
    const nq_err want[] = {NQ_OK, NQ_OK, NQ_OK, NQ_E_BUSY, NQ_OK}; /* "b" again attaches: not refused */
    for (int i = 0; i < 5; i++) {
        const nq_pool_task task = gate_task(&g, i);
        ck_assert_int_eq(nq_pool_submit(p, keys[i], &task, waiter_notify, &w[i], &t[i]), want[i]);
        if (i == 0) {
            ck_assert(eventually(gate_entered, &g)); /* "a" occupies the only worker */
        }
    }
    nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.running, 1);
    ck_assert_uint_eq(s.queued, 2);
    ck_assert_uint_eq(s.rejected, 1);
    ck_assert_uint_eq(s.shared, 1);
    gate_open(&g);
    const int values[] = {0, 1, 2, -1, 1};
    for (int i = 0; i < 5; i++) {
        if (want[i] != NQ_OK) {
            continue;
        }
        ck_assert(eventually(waiter_done, &w[i]));
        const void *r = NULL;
        ck_assert_int_eq(nq_pool_ticket_result(t[i], &r), NQ_OK);
        ck_assert_int_eq(*(const int *)r, values[i]);
        nq_pool_ticket_release(t[i]);
    }
    ck_assert_int_eq(atomic_load(&w[3].notified), 0);
    s = stats_of(p);
    ck_assert_uint_eq(s.started, 3);
    ck_assert_uint_eq(s.finished, 3);
    nq_pool_destroy(p);
    gate_fini(&g);
}
END_TEST

START_TEST(deadline_then_finishes)
{
    gate g;
    gate_init(&g);
    nq_pool *const p = pool_new(1, 1, 50, 0);
    waiter w = {0};
    nq_pool_ticket *t = NULL;
    const nq_pool_task task = gate_task(&g, 7);
    ck_assert_int_eq(nq_pool_submit(p, "slow", &task, waiter_notify, &w, &t), NQ_OK);
    ck_assert(eventually(waiter_done, &w));
    ck_assert_int_eq(nq_pool_ticket_result(t, NULL), NQ_E_DEADLINE);
    ck_assert_uint_ge(nq_pool_ticket_wait_ms(t), 50);
    nq_pool_ticket_release(t);
    nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.deadlines, 1);
    ck_assert_uint_eq(s.running, 1); /* the computation goes on without its waiter */
    ck_assert_uint_eq(s.waiting, 0);
    gate_open(&g);
    ck_assert(eventually(gate_left, &g));
    nq_pool_destroy(p); /* joins the worker: the run has ended */
    gate_fini(&g);
}
END_TEST

/* Budget cases: how the waiter leaves, and whether the budget should fire. */
static const struct {
    const char *name;
    unsigned deadline_ms;
    unsigned budget_ms;
    bool release_early; /* the owner releases right after submit (client gone) */
    bool want_cancel;
} budget_rows[] = {
    {"released, over budget", 0, 30, true, true},
    {"deadline, over budget", 20, 60, false, true},
    {"watched, no deadline", 0, 20, false, false},
};

START_TEST(budget)
{
    gate g;
    gate_init(&g);
    nq_pool *const p = pool_new(1, 1, budget_rows[_i].deadline_ms, budget_rows[_i].budget_ms);
    waiter w = {0};
    nq_pool_ticket *t = NULL;
    const nq_pool_task task = gate_task(&g, 3);
    ck_assert_int_eq(nq_pool_submit(p, "n20", &task, waiter_notify, &w, &t), NQ_OK);
    ck_assert(eventually(gate_entered, &g));
    if (budget_rows[_i].release_early) {
        nq_pool_ticket_release(t);
        t = NULL;
    }
    if (budget_rows[_i].want_cancel) {
        ck_assert_msg(eventually(pool_cancelled, p), "%s: not cancelled", budget_rows[_i].name);
        ck_assert_int_eq(atomic_load(&g.inside), 0);
        const nq_pool_stats s = stats_of(p);
        ck_assert_uint_eq(s.cancelled, 1);
        ck_assert_uint_eq(s.finished, 0);
    } else {
        const struct timespec pause = {0, 150 * 1000000L}; /* well past the budget */
        nanosleep(&pause, NULL);
        ck_assert_int_eq(atomic_load(&g.inside), 1);
        gate_open(&g);
        ck_assert(eventually(waiter_done, &w));
        ck_assert_int_eq(nq_pool_ticket_result(t, NULL), NQ_OK);
        ck_assert_uint_eq(stats_of(p).cancelled, 0);
    }
    nq_pool_ticket_release(t);
    nq_pool_destroy(p);
    ck_assert_int_eq(atomic_load(&g.ctx_frees), 1);
    gate_fini(&g);
}
END_TEST

/* Abandoned work costs at most NQ_POOL_ABANDON_FACTOR times what its waiters waited, however long
 * the budget: a budget of ten minutes here, which no row may wait for. */
#define LONG_BUDGET_MS 600000u

static const struct {
    const char *name;
    unsigned deadline_ms;
    bool release_at_once; /* the client left at once (else its deadline passed) */
} abandon_rows[] = {
    {"client gone at once", 10000, true},
    {"deadline passed", 50, false},
};

START_TEST(abandoned_is_cancelled)
{
    gate g;
    gate_init(&g);
    nq_pool *const p = pool_new(1, 1, abandon_rows[_i].deadline_ms, LONG_BUDGET_MS);
    waiter w = {0};
    nq_pool_ticket *t = NULL;
    const nq_pool_task task = gate_task(&g, 1);
    ck_assert_int_eq(nq_pool_submit(p, "trace?n=16&from=9000000000", &task, waiter_notify, &w, &t), NQ_OK);
    ck_assert(eventually(gate_entered, &g));
    if (!abandon_rows[_i].release_at_once) {
        ck_assert(eventually(waiter_done, &w));
        ck_assert_int_eq(nq_pool_ticket_result(t, NULL), NQ_E_DEADLINE);
    }
    nq_pool_ticket_release(t);
    ck_assert_msg(eventually(pool_cancelled, p), "%s: still running", abandon_rows[_i].name);
    ck_assert(eventually(gate_left, &g));
    const nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.cancelled, 1);
    ck_assert_uint_eq(s.finished, 0);
    nq_pool_destroy(p);
    gate_fini(&g);
}
END_TEST

/* A computation somebody waits for gets the worker of one nobody waits for any more. */
START_TEST(abandoned_gives_way)
{
    gate stuck, quick;
    gate_init(&stuck);
    gate_init(&quick);
    gate_open(&quick);
    nq_pool *const p = pool_new(1, 1, 0, LONG_BUDGET_MS);
    waiter wa = {0}, wb = {0};
    nq_pool_ticket *ta = NULL, *tb = NULL;
    const nq_pool_task a = gate_task(&stuck, 1);
    ck_assert_int_eq(nq_pool_submit(p, "expensive", &a, waiter_notify, &wa, &ta), NQ_OK);
    ck_assert(eventually(gate_entered, &stuck));
    nq_pool_ticket_release(ta);
    const nq_pool_task b = gate_task(&quick, 2);
    ck_assert_int_eq(nq_pool_submit(p, "cheap", &b, waiter_notify, &wb, &tb), NQ_OK);
    ck_assert(eventually(waiter_done, &wb));
    const void *r = NULL;
    ck_assert_int_eq(nq_pool_ticket_result(tb, &r), NQ_OK);
    ck_assert_int_eq(*(const int *)r, 2);
    nq_pool_ticket_release(tb);
    ck_assert_int_eq(atomic_load(&wa.notified), 0);
    const nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.cancelled, 1);
    ck_assert_uint_eq(s.finished, 1);
    nq_pool_destroy(p);
    gate_fini(&stuck);
    gate_fini(&quick);
}
END_TEST

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* A computation abandoned while it waited for a worker, and whose grace (what its waiter waited) is
 * over when a worker takes it, is not run at all. */
START_TEST(abandoned_in_queue_is_not_run)
{
    gate first, second;
    gate_init(&first);
    gate_init(&second);
    gate_open(&second);
    nq_pool *const p = pool_new(1, 1, 0, LONG_BUDGET_MS);
    waiter wa = {0}, wb = {0};
    nq_pool_ticket *ta = NULL, *tb = NULL;
    const nq_pool_task a = gate_task(&first, 1);
    ck_assert_int_eq(nq_pool_submit(p, "running", &a, waiter_notify, &wa, &ta), NQ_OK);
    ck_assert(eventually(gate_entered, &first));
    const uint64_t t0 = now_ms();
    const nq_pool_task b = gate_task(&second, 2);
    ck_assert_int_eq(nq_pool_submit(p, "queued", &b, waiter_notify, &wb, &tb), NQ_OK);
    nq_pool_ticket_release(tb);
    const uint64_t paid = now_ms() - t0 + 1u; /* at least what the waiter waited: its grace */
    const struct timespec pause = {(time_t)(2u * paid / 1000u), (long)(2u * paid % 1000u) * 1000000L};
    nanosleep(&pause, NULL);
    gate_open(&first);
    ck_assert(eventually(waiter_done, &wa));
    ck_assert_int_eq(nq_pool_ticket_result(ta, NULL), NQ_OK);
    nq_pool_ticket_release(ta);
    ck_assert(eventually(pool_idle, p));
    ck_assert_int_eq(atomic_load(&second.runs), 0);
    const nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.cancelled, 1);
    ck_assert_uint_eq(s.finished, 1);
    nq_pool_destroy(p);
    ck_assert_int_eq(atomic_load(&second.ctx_frees), 1);
    gate_fini(&first);
    gate_fini(&second);
}
END_TEST

/* After a budget cancel, an identical request starts a fresh computation instead of attaching. */
START_TEST(cancelled_not_shared)
{
    gate g;
    gate_init(&g);
    nq_pool *const p = pool_new(2, 0, 0, 10);
    waiter w1 = {0};
    waiter w2 = {0};
    nq_pool_ticket *t = NULL;
    nq_pool_task task = gate_task(&g, 5);
    ck_assert_int_eq(nq_pool_submit(p, "k", &task, waiter_notify, &w1, &t), NQ_OK);
    ck_assert(eventually(gate_entered, &g));
    nq_pool_ticket_release(t);
    ck_assert(eventually(pool_cancelled, p));
    gate_open(&g);
    task = gate_task(&g, 6);
    ck_assert_int_eq(nq_pool_submit(p, "k", &task, waiter_notify, &w2, &t), NQ_OK);
    ck_assert(eventually(waiter_done, &w2));
    const void *r = NULL;
    ck_assert_int_eq(nq_pool_ticket_result(t, &r), NQ_OK);
    ck_assert_int_eq(*(const int *)r, 6);
    nq_pool_ticket_release(t);
    ck_assert_int_eq(atomic_load(&w1.notified), 0);
    const nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.shared, 0);
    ck_assert_uint_eq(s.started, 2);
    ck_assert_uint_eq(s.cancelled, 1);
    ck_assert_uint_eq(s.finished, 1);
    nq_pool_destroy(p);
    gate_fini(&g);
}
END_TEST

START_TEST(task_error_propagates)
{
    gate g;
    gate_init(&g);
    gate_open(&g);
    nq_pool *const p = pool_new(1, 1, 0, 0);
    waiter w = {0};
    nq_pool_ticket *t = NULL;
    nq_pool_task task = gate_task(&g, 0);
    ((gate_ctx *)task.ctx)->fail = NQ_E_NOMEM;
    ck_assert_int_eq(nq_pool_submit(p, "k", &task, waiter_notify, &w, &t), NQ_OK);
    ck_assert(eventually(waiter_done, &w));
    const void *r = &w;
    ck_assert_int_eq(nq_pool_ticket_result(t, &r), NQ_E_NOMEM);
    ck_assert_ptr_null(r);
    nq_pool_ticket_release(t);
    nq_pool_destroy(p);
    gate_fini(&g);
}
END_TEST

/* ---- the after step ---------------------------------------------------------------------------- */

/* What the after step saw: it holds until the test lets it go (or the pool is aborted). */
typedef struct after_probe {
    atomic_int calls;           /* after calls begun */
    atomic_int returned;        /* after calls ended */
    atomic_int value;           /* the result it read */
    atomic_int notified_before; /* the waiter's notifications when it began */
    atomic_int frees_before;    /* ctx frees when it began */
    atomic_bool stopped;        /* it saw *stop turn true */
    atomic_bool release;        /* the test lets it return */
    waiter *w;                  /* the waiter of its computation */
    gate *g;                    /* whose ctx frees to read */
} after_probe;

static after_probe probe; /* the after step takes no argument of its own beyond the task's ctx */

static void probe_after(void *ctx, const void *result, const atomic_bool *stop)
{
    (void)ctx;
    atomic_store(&probe.notified_before, atomic_load(&probe.w->notified));
    atomic_store(&probe.frees_before, atomic_load(&probe.g->ctx_frees));
    atomic_fetch_add(&probe.calls, 1);
    for (unsigned i = 0; i < WAIT_MS && !atomic_load(&probe.release); i++) {
        if (atomic_load(stop)) {
            atomic_store(&probe.stopped, true);
            break;
        }
        const struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    atomic_store(&probe.value, *(const int *)result); /* still valid: the waiter released it long ago */
    atomic_fetch_add(&probe.returned, 1);
}

static bool after_began(void *arg)
{
    (void)arg;
    return atomic_load(&probe.calls) > 0;
}

static bool after_ended(void *arg)
{
    (void)arg;
    return atomic_load(&probe.returned) > 0;
}

static void probe_reset(waiter *w, gate *g)
{
    atomic_init(&probe.calls, 0);
    atomic_init(&probe.returned, 0);
    atomic_init(&probe.value, 0);
    atomic_init(&probe.notified_before, 0);
    atomic_init(&probe.frees_before, 0);
    atomic_init(&probe.stopped, false);
    atomic_init(&probe.release, false);
    probe.w = w;
    probe.g = g;
}

START_TEST(after_step_follows_the_answer)
{
    gate g;
    gate_init(&g);
    gate_open(&g);
    nq_pool *const p = pool_new(1, 2, 0, 0);
    waiter w = {0}, w2 = {0};
    probe_reset(&w, &g);
    nq_pool_ticket *t = NULL, *t2 = NULL;
    nq_pool_task task = gate_task(&g, 41);
    task.after = probe_after;
    ck_assert_int_eq(nq_pool_submit(p, "k", &task, waiter_notify, &w, &t), NQ_OK);
    ck_assert(eventually(waiter_done, &w));
    ck_assert(eventually(after_began, NULL));
    nq_pool_ticket_release(t); /* the after step keeps the result alive on its own */
    ck_assert_int_eq(atomic_load(&probe.notified_before), 1);
    ck_assert_int_eq(atomic_load(&probe.frees_before), 0); /* ctx is freed after it, not before */
    /* The computation is over and its worker free (the step runs on the after thread): the same key
     * starts a new computation, which ends while the step still holds. */
    nq_pool_task again = gate_task(&g, 42);
    ck_assert_int_eq(nq_pool_submit(p, "k", &again, waiter_notify, &w2, &t2), NQ_OK);
    ck_assert(eventually(waiter_done, &w2));
    ck_assert_int_eq(atomic_load(&probe.returned), 0);
    nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.shared, 0);
    ck_assert_uint_eq(s.finished, 2);
    ck_assert_uint_eq(s.running, 0);
    atomic_store(&probe.release, true);
    ck_assert(eventually(after_ended, NULL));
    ck_assert_int_eq(atomic_load(&probe.value), 41);
    ck_assert(!atomic_load(&probe.stopped));
    const void *r = NULL;
    ck_assert_int_eq(nq_pool_ticket_result(t2, &r), NQ_OK);
    ck_assert_int_eq(*(const int *)r, 42);
    nq_pool_ticket_release(t2);
    ck_assert_int_eq(atomic_load(&probe.calls), 1); /* the second task had no after step */
    nq_pool_destroy(p);
    ck_assert_int_eq(atomic_load(&g.ctx_frees), 2);
    gate_fini(&g);
}
END_TEST

/* After steps that hold until the pool is destroyed, noting whether they ran on their run's thread. */
typedef struct holder {
    atomic_int began;
    atomic_int returned;
    atomic_int on_worker; /* steps called on the thread their computation ran on */
    atomic_int stopped;   /* steps that saw *stop */
} holder;

static holder hold;

static void hold_after(void *ctx, const void *result, const atomic_bool *stop)
{
    (void)result;
    const gate_ctx *const c = ctx;
    if (pthread_equal(c->ran_on, pthread_self())) atomic_fetch_add(&hold.on_worker, 1);
    atomic_fetch_add(&hold.began, 1);
    for (unsigned i = 0; i < WAIT_MS && !atomic_load(stop); i++) {
        const struct timespec ms = {0, 1000000L};
        nanosleep(&ms, NULL);
    }
    if (atomic_load(stop)) atomic_fetch_add(&hold.stopped, 1);
    atomic_fetch_add(&hold.returned, 1);
}

static bool hold_began(void *arg)
{
    return atomic_load(&hold.began) >= *(const int *)arg;
}

/* One step on the after thread, NQ_POOL_AFTER_QUEUE_MAX queued behind it: the next runs on its worker.
 * Destroying the pool stops the two running and runs the queued ones. */
START_TEST(after_steps_past_the_queue_run_on_the_worker)
{
    gate g;
    gate_init(&g);
    gate_open(&g);
    atomic_init(&hold.began, 0);
    atomic_init(&hold.returned, 0);
    atomic_init(&hold.on_worker, 0);
    atomic_init(&hold.stopped, 0);
    nq_pool *const p = pool_new(1, 1, 0, 0);
    const int total = NQ_POOL_AFTER_QUEUE_MAX + 2;
    for (int i = 0; i < total; i++) {
        waiter w = {0};
        nq_pool_ticket *t = NULL;
        nq_pool_task task = gate_task(&g, i);
        task.after = hold_after;
        char key[16];
        (void)snprintf(key, sizeof key, "k%d", i);
        ck_assert_int_eq(nq_pool_submit(p, key, &task, waiter_notify, &w, &t), NQ_OK);
        ck_assert(eventually(waiter_done, &w)); /* one worker: the next run waits for this one's step */
        nq_pool_ticket_release(t);
        int one = 1;
        if (i == 0) ck_assert(eventually(hold_began, &one)); /* the after thread holds it */
    }
    int two = 2;
    ck_assert(eventually(hold_began, &two));
    ck_assert_int_eq(atomic_load(&hold.on_worker), 1); /* the last one, the queue being full */
    ck_assert_int_eq(atomic_load(&hold.returned), 0);
    ck_assert_uint_eq(stats_of(p).finished, (unsigned)total);
    nq_pool_destroy(p);
    ck_assert_int_eq(atomic_load(&hold.began), total);
    ck_assert_int_eq(atomic_load(&hold.returned), total);
    ck_assert_int_eq(atomic_load(&hold.stopped), total);
    ck_assert_int_eq(atomic_load(&hold.on_worker), 1);
    ck_assert_int_eq(atomic_load(&g.ctx_frees), total);
    gate_fini(&g);
}
END_TEST

START_TEST(after_step_skipped_on_failure_and_stopped_by_abort)
{
    gate g;
    gate_init(&g);
    gate_open(&g);
    nq_pool *const p = pool_new(1, 1, 0, 0);
    waiter w = {0}, w2 = {0};
    probe_reset(&w, &g);
    nq_pool_ticket *t = NULL;
    nq_pool_task task = gate_task(&g, 0);
    ((gate_ctx *)task.ctx)->fail = NQ_E_NOMEM;
    task.after = probe_after;
    ck_assert_int_eq(nq_pool_submit(p, "fails", &task, waiter_notify, &w2, &t), NQ_OK);
    ck_assert(eventually(waiter_done, &w2));
    ck_assert_int_eq(nq_pool_ticket_result(t, NULL), NQ_E_NOMEM);
    nq_pool_ticket_release(t);
    ck_assert(eventually(pool_idle, p));
    ck_assert_int_eq(atomic_load(&g.ctx_frees), 1);
    ck_assert_int_eq(atomic_load(&probe.calls), 0);
    /* A successful one holds in its after step until the abort tells it to stop. */
    task = gate_task(&g, 7);
    task.after = probe_after;
    ck_assert_int_eq(nq_pool_submit(p, "ok", &task, waiter_notify, &w, &t), NQ_OK);
    ck_assert(eventually(after_began, NULL));
    nq_pool_ticket_release(t);
    nq_pool_abort(p);
    ck_assert(eventually(after_ended, NULL));
    ck_assert(atomic_load(&probe.stopped));
    ck_assert_int_eq(atomic_load(&probe.value), 7);
    nq_pool_destroy(p);
    ck_assert_int_eq(atomic_load(&g.ctx_frees), 2);
    gate_fini(&g);
}
END_TEST

START_TEST(abort_notifies_everyone)
{
    gate g;
    gate_init(&g);
    nq_pool *const p = pool_new(1, 2, 0, 0);
    waiter w[3] = {0};
    nq_pool_ticket *t[3] = {0};
    const char *const keys[] = {"run", "q1", "q2"};
    for (int i = 0; i < 3; i++) {
        const nq_pool_task task = gate_task(&g, i);
        ck_assert_int_eq(nq_pool_submit(p, keys[i], &task, waiter_notify, &w[i], &t[i]), NQ_OK);
        if (i == 0) {
            ck_assert(eventually(gate_entered, &g));
        }
    }
    nq_pool_abort(p);
    for (int i = 0; i < 3; i++) { /* abort returns after every notify returned */
        ck_assert_int_eq(atomic_load(&w[i].notified), 1);
        ck_assert_int_eq(nq_pool_ticket_result(t[i], NULL), NQ_E_DRAINING);
        nq_pool_ticket_release(t[i]);
    }
    waiter late = {0};
    nq_pool_ticket *lt = NULL;
    const nq_pool_task task = gate_task(&g, 9);
    ck_assert_int_eq(nq_pool_submit(p, "late", &task, waiter_notify, &late, &lt), NQ_E_DRAINING);
    ck_assert(eventually(gate_left, &g)); /* the running one was cancelled */
    nq_pool_abort(p);                     /* idempotent */
    nq_pool_destroy(p);
    ck_assert_int_eq(atomic_load(&g.runs), 1); /* queued ones never ran */
    ck_assert_int_eq(atomic_load(&g.ctx_frees), 4);
    gate_fini(&g);
}
END_TEST

/* ---- concurrency: many submitters, few keys, random early releases ------------------------------ */

typedef struct stress_arg {
    nq_pool *pool;
    gate *g;
    unsigned seed;
    atomic_int *busy; /* NQ_E_BUSY answers seen */
} stress_arg;

static void *stress_thread(void *arg)
{
    stress_arg *const a = arg;
    for (int i = 0; i < STRESS_ROUNDS; i++) {
        char key[8];
        const unsigned r = (unsigned)rand_r(&a->seed);
        snprintf(key, sizeof key, "k%u", r % 5u);
        waiter w = {0};
        nq_pool_ticket *t = NULL;
        const nq_pool_task task = gate_task(a->g, (int)(r % 5u));
        ((gate_ctx *)task.ctx)->delay_ms = (r >> 8) % 12u; /* around the 5 ms deadline */
        const nq_err err = nq_pool_submit(a->pool, key, &task, waiter_notify, &w, &t);
        if (err == NQ_E_BUSY) {
            atomic_fetch_add(a->busy, 1);
            continue;
        }
        ck_assert_int_eq(err, NQ_OK);
        if (r % 3u != 0) { /* two in three wait for the outcome, one in three leaves at once */
            ck_assert(eventually(waiter_done, &w));
            const void *res = NULL;
            const nq_err got = nq_pool_ticket_result(t, &res);
            ck_assert(got == NQ_OK || got == NQ_E_DEADLINE || got == NQ_E_CANCELED);
            if (got == NQ_OK) {
                ck_assert_int_eq(*(const int *)res, (int)(r % 5u)); /* same key, same value */
            }
        }
        nq_pool_ticket_release(t);
        ck_assert_int_le(atomic_load(&w.notified), 1);
    }
    return NULL;
}

START_TEST(stress)
{
    enum { THREADS = 6 };
    const uint64_t submits = (uint64_t)THREADS * STRESS_ROUNDS;
    gate g;
    gate_init(&g);
    gate_open(&g);
    nq_pool *const p = pool_new(2, 1, 5, 1);
    atomic_int busy;
    atomic_init(&busy, 0);
    pthread_t th[THREADS];
    stress_arg args[THREADS];
    for (unsigned i = 0; i < THREADS; i++) {
        args[i] = (stress_arg){.pool = p, .g = &g, .seed = 12345u + i, .busy = &busy};
        ck_assert_int_eq(pthread_create(&th[i], NULL, stress_thread, &args[i]), 0);
    }
    for (unsigned i = 0; i < THREADS; i++) {
        pthread_join(th[i], NULL);
    }
    ck_assert(eventually(pool_idle, p));
    const nq_pool_stats s = stats_of(p);
    ck_assert_uint_eq(s.submitted + s.rejected, submits);
    ck_assert_uint_eq(s.rejected, (uint64_t)atomic_load(&busy));
    ck_assert_uint_eq(s.started, s.finished + s.cancelled);
    ck_assert_uint_eq(s.waiting, 0);
    ck_assert_uint_gt(s.shared, 0); /* the run met every path it is meant to race */
    ck_assert_uint_gt(s.deadlines, 0);
    ck_assert_uint_gt(s.cancelled, 0);
    ck_assert_uint_gt(s.finished, 0);
    nq_pool_destroy(p);
    ck_assert_uint_eq((uint64_t)atomic_load(&g.ctx_frees), submits); /* every ctx freed exactly once */
    gate_fini(&g);
}
END_TEST

static Suite *pool_suite(void)
{
    Suite *const s = suite_create("pool");
    TCase *const args = tcase_create("args");
    tcase_add_loop_test(args, create_args, 0, (int)(sizeof create_rows / sizeof create_rows[0]));
    tcase_add_test(args, create_null);
    tcase_add_test(args, submit_args);
    suite_add_tcase(s, args);

    TCase *const beh = tcase_create("behaviour");
    tcase_set_timeout(beh, 30);
    tcase_add_test(beh, one_computation);
    tcase_add_test(beh, single_flight);
    tcase_add_test(beh, queue_full_is_busy);
    tcase_add_test(beh, deadline_then_finishes);
    tcase_add_loop_test(beh, budget, 0, (int)(sizeof budget_rows / sizeof budget_rows[0]));
    tcase_add_test(beh, cancelled_not_shared);
    tcase_add_loop_test(beh, abandoned_is_cancelled, 0, (int)(sizeof abandon_rows / sizeof abandon_rows[0]));
    tcase_add_test(beh, abandoned_gives_way);
    tcase_add_test(beh, abandoned_in_queue_is_not_run);
    tcase_add_test(beh, task_error_propagates);
    tcase_add_test(beh, abort_notifies_everyone);
    tcase_add_test(beh, after_step_follows_the_answer);
    tcase_add_test(beh, after_steps_past_the_queue_run_on_the_worker);
    tcase_add_test(beh, after_step_skipped_on_failure_and_stopped_by_abort);
    suite_add_tcase(s, beh);

    TCase *const conc = tcase_create("concurrency");
    tcase_set_timeout(conc, 60);
    tcase_add_test(conc, stress);
    suite_add_tcase(s, conc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(pool_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
