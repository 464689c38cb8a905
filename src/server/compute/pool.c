/* pool.c - the solver worker pool: workers, bounded queue, single-flight, deadlines, budget cancel.
 *
 * Data structures, all guarded by pool->lock:
 *   - a job per computation in flight, found by key in a small chained hash table (single-flight);
 *     queued jobs also sit on a FIFO, running ones on a list the timer scans for the budget (at most
 *     `workers` long);
 *   - a ticket per waiter, on its job's list of waiters and, when deadlines are on, on one pool-wide
 *     list in submit order. Every ticket gets the same deadline_ms, so submit order is deadline order:
 *     the timer only ever looks at the head of that list (O(1) per expiry, no heap).
 * Threads: `workers` workers run jobs; one timer thread expires deadlines and enforces the budget;
 * one after thread runs the after steps of finished jobs, at a lower CPU priority (AFTER_NICE), so
 * that work which need not delay an answer neither takes a core from the answers being sent nor
 * holds a worker. Each queued step holds its job and so its result (a cached body) alive, so the
 * queue is bounded (NQ_POOL_AFTER_QUEUE_MAX); when it is full a worker runs the step itself.
 * Notifications are collected under the lock and delivered after it is dropped; a ticket is
 * NOTIFYING meanwhile, and nq_pool_ticket_release waits for that to end before freeing it.
 * Lifetime: a job is reference counted (one reference for the pool while the computation is queued
 * or running, one per ticket), so a result outlives the computation until its last reader is done.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* gettid; also clock_gettime, pthread_condattr_setclock, strnlen */
#endif
#include "compute/pool.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/errors.h"
#include "base/hash.h"

/* How much nicer the after thread is than the process: it gets about a tenth of a core's share
 * against the other threads on a busy core, so it still progresses under load, but does not halve the
 * core of a connection that is sending (measured on 2 cores: making the gzip form of a 6.9 MB board
 * at the workers' priority while its first answer went out made that answer 1.5x slower). */
#define AFTER_NICE 10

typedef struct job job;

typedef enum job_state { JOB_QUEUED, JOB_RUNNING, JOB_OVER } job_state;
typedef enum ticket_state { TICKET_WAITING, TICKET_NOTIFYING, TICKET_DONE } ticket_state;

struct nq_pool_ticket {
    job *job;              /* the computation waited for; the ticket holds a reference */
    nq_pool_ticket *jprev; /* neighbours on job->waiters while WAITING */
    nq_pool_ticket *jnext;
    nq_pool_ticket *dprev; /* neighbours on pool's deadline list while WAITING */
    nq_pool_ticket *dnext;
    nq_pool_ticket *nnext;    /* next on a batch being notified */
    bool on_deadline_list;    /* linked through dprev/dnext */
    ticket_state state;       /* see the life of a ticket in pool.h */
    nq_err err;               /* outcome, set when leaving WAITING */
    nq_pool_notify_fn notify; /* owner's callback */
    void *arg;                /* its argument */
    uint64_t submitted_ms;    /* monotonic submit time */
    uint64_t deadline_ms;     /* monotonic time NQ_E_DEADLINE is due (when on the deadline list) */
    uint64_t notified_ms;     /* monotonic time the outcome was set */
};

struct job {
    nq_pool *pool;    /* owner */
    job *bucket_next; /* chain in pool->buckets while in the table */
    job *qnext;       /* next on the queue while QUEUED, on the after queue once OVER */
    job *rprev;       /* neighbours on pool's running list while RUNNING */
    job *rnext;
    void *after_ctx;         /* task.ctx while on the after queue */
    nq_pool_ticket *waiters; /* tickets still WAITING, doubly linked through jprev/jnext */
    size_t nwaiters;         /* length of that list */
    size_t refs;             /* 1 for the pool while not OVER, plus 1 per unreleased ticket */
    job_state state;
    bool in_table;         /* findable by key (false once over or cancelled) */
    bool cancel_requested; /* the pool cancelled it (budget or abort) */
    nq_pool_task task;     /* what to run; task.ctx is freed right after the run */
    nq_count_ctl ctl;      /* passed to the run function; cancelled through it */
    uint64_t started_ms;   /* monotonic start time, when RUNNING */
    uint64_t idle_since;   /* monotonic time the last waiter left (meaningful while nwaiters is 0) */
    uint64_t paid_ms;      /* what the waiters that left waited for it, summed: the abandon grace */
    bool retry_told;       /* a waiter got NQ_E_DEADLINE (a 503 with Retry-After): it may come back */
    nq_err err;            /* outcome, when OVER */
    void *result;          /* the run's result when err is NQ_OK; freed with the last ref */
    size_t hash;           /* of key */
    char key[];            /* NUL-terminated copy */
};

struct nq_pool {
    pthread_mutex_t lock;       /* guards everything below but the immutable config and threads */
    pthread_cond_t work_cv;     /* workers: a job was queued, or stop */
    pthread_cond_t timer_cv;    /* timer: the earliest deadline may have changed, or stop */
    pthread_cond_t notified_cv; /* a batch of notifications ended */
    pthread_cond_t after_cv;    /* the after thread: a step was queued, or after_stopping */
    nq_pool_config cfg;         /* immutable after create */
    job **buckets;              /* single-flight table, nbuckets chains */
    size_t nbuckets;            /* a power of two */
    nq_hash_key hash_key;       /* SipHash key of the table, random per pool; immutable */
    job *qhead;                 /* FIFO of QUEUED jobs */
    job *qtail;
    job *running;          /* RUNNING jobs, doubly linked */
    nq_pool_ticket *dhead; /* WAITING tickets with a deadline, in deadline order */
    nq_pool_ticket *dtail;
    job *ahead; /* over jobs whose after step is due, FIFO through qnext */
    job *atail;
    size_t nafters;      /* length of that queue */
    size_t watched;      /* QUEUED jobs with a waiter: abandoned running ones give way to them */
    size_t pending;      /* jobs QUEUED or RUNNING (what admission bounds) */
    size_t notifying;    /* tickets NOTIFYING */
    size_t tickets;      /* tickets not yet released */
    bool aborted;        /* nq_pool_abort was called: refuse new work */
    atomic_bool leaving; /* the same, for after steps to poll without the lock */
    bool stopping;       /* threads must exit */
    nq_pool_stats stats; /* counters (running/queued/waiting kept current here too) */
    pthread_t timer;     /* the timer thread, valid when timer_started */
    bool timer_started;
    pthread_t after; /* the after thread, valid when after_started */
    bool after_started;
    bool after_stopping; /* the after thread must exit once its queue is empty (after the workers) */
    pthread_t *threads;  /* workers, nthreads of them started */
    unsigned nthreads;
};

/* ---- small helpers ------------------------------------------------------------------------------ */

/* Keys embed client input (cursors), so they are hashed under the pool's random key: a client
 * cannot choose keys that share one chain. */
static size_t key_hash(const nq_pool *p, const char *key)
{
    return (size_t)nq_hash_bytes(&p->hash_key, key, strlen(key));
}

static job **bucket_of(nq_pool *p, size_t hash)
{
    return &p->buckets[hash & (p->nbuckets - 1u)];
}

static job *table_find(nq_pool *p, const char *key, size_t hash)
{
    for (job *j = *bucket_of(p, hash); j != NULL; j = j->bucket_next) {
        if (j->hash == hash && strcmp(j->key, key) == 0) {
            return j;
        }
    }
    return NULL;
}

static void table_insert(nq_pool *p, job *j)
{
    job **b = bucket_of(p, j->hash);
    j->bucket_next = *b;
    *b = j;
    j->in_table = true;
}

static void table_remove(nq_pool *p, job *j)
{
    if (!j->in_table) {
        return;
    }
    for (job **link = bucket_of(p, j->hash); *link != NULL; link = &(*link)->bucket_next) {
        if (*link == j) {
            *link = j->bucket_next;
            break;
        }
    }
    j->bucket_next = NULL;
    j->in_table = false;
}

static void running_link(nq_pool *p, job *j)
{
    j->rprev = NULL;
    j->rnext = p->running;
    if (p->running != NULL) {
        p->running->rprev = j;
    }
    p->running = j;
}

static void running_unlink(nq_pool *p, job *j)
{
    if (j->rprev != NULL) {
        j->rprev->rnext = j->rnext;
    } else {
        p->running = j->rnext;
    }
    if (j->rnext != NULL) {
        j->rnext->rprev = j->rprev;
    }
    j->rprev = j->rnext = NULL;
}

/* Drop one reference; returns j when that was the last, for the caller to free after unlocking. */
static job *job_unref(job *j)
{
    assert(j->refs > 0);
    j->refs--;
    return j->refs == 0 ? j : NULL;
}

/* Free a dead job (no lock held: result_free may be slow). NULL is ignored. */
static void job_free(job *j)
{
    if (j == NULL) {
        return;
    }
    assert(j->task.ctx == NULL);
    if (j->result != NULL && j->task.result_free != NULL) {
        j->task.result_free(j->result);
    }
    free(j);
}

static void task_ctx_free(const nq_pool_task *task, void *ctx)
{
    if (ctx != NULL && task->ctx_free != NULL) {
        task->ctx_free(ctx);
    }
}

/* ---- waiters and notification ------------------------------------------------------------------ */

static void waiter_link(job *j, nq_pool_ticket *t)
{
    t->jprev = NULL;
    t->jnext = j->waiters;
    if (j->waiters != NULL) {
        j->waiters->jprev = t;
    }
    j->waiters = t;
    j->nwaiters++;
    if (j->nwaiters == 1 && j->state == JOB_QUEUED) {
        j->pool->watched++;
        pthread_cond_signal(&j->pool->timer_cv); /* an abandoned running job may have to give way */
    }
}

static void deadline_link(nq_pool *p, nq_pool_ticket *t)
{
    t->dprev = p->dtail;
    t->dnext = NULL;
    if (p->dtail != NULL) {
        p->dtail->dnext = t;
    } else {
        p->dhead = t;
    }
    p->dtail = t;
    t->on_deadline_list = true;
}

/* Take a WAITING ticket off its job's list and the deadline list. */
static void waiter_unlink(nq_pool *p, nq_pool_ticket *t)
{
    job *j = t->job;
    if (t->jprev != NULL) {
        t->jprev->jnext = t->jnext;
    } else {
        j->waiters = t->jnext;
    }
    if (t->jnext != NULL) {
        t->jnext->jprev = t->jprev;
    }
    j->nwaiters--;
    if (t->on_deadline_list) {
        if (t->dprev != NULL) {
            t->dprev->dnext = t->dnext;
        } else {
            p->dhead = t->dnext;
        }
        if (t->dnext != NULL) {
            t->dnext->dprev = t->dprev;
        } else {
            p->dtail = t->dprev;
        }
        t->on_deadline_list = false;
    }
    t->jprev = t->jnext = t->dprev = t->dnext = NULL;
    p->stats.waiting--;
    if (j->state == JOB_OVER) {
        return; /* settled with the job's outcome: nobody left it */
    }
    const uint64_t now = nq_clock_ms();
    j->paid_ms += now - t->submitted_ms;
    if (j->nwaiters > 0) {
        return;
    }
    j->idle_since = now;
    if (j->state == JOB_QUEUED) {
        p->watched--;
    } else if (p->cfg.budget_ms > 0) {
        pthread_cond_signal(&p->timer_cv); /* running and abandoned: the timer decides when it ends */
    }
}

/* Move a WAITING ticket to NOTIFYING with outcome err and push it on *batch. */
static void waiter_settle(nq_pool *p, nq_pool_ticket *t, nq_err err, uint64_t now, nq_pool_ticket **batch)
{
    waiter_unlink(p, t);
    t->state = TICKET_NOTIFYING;
    t->err = err;
    t->notified_ms = now;
    t->nnext = *batch;
    *batch = t;
    p->notifying++;
}

/* Settle every waiter of j with err. */
static void job_settle_all(nq_pool *p, job *j, nq_err err, uint64_t now, nq_pool_ticket **batch)
{
    while (j->waiters != NULL) {
        waiter_settle(p, j->waiters, err, now, batch);
    }
}

/* Deliver a batch: called with the lock held, drops it around the callbacks, returns with it held.
 * A ticket becomes DONE only after its callback returned; the owner may free it from then on. */
static void deliver(nq_pool *p, nq_pool_ticket *batch)
{
    if (batch == NULL) {
        return;
    }
    pthread_mutex_unlock(&p->lock);
    for (nq_pool_ticket *t = batch; t != NULL; t = t->nnext) {
        t->notify(t->arg);
    }
    pthread_mutex_lock(&p->lock);
    while (batch != NULL) {
        nq_pool_ticket *const next = batch->nnext;
        batch->state = TICKET_DONE;
        batch->nnext = NULL;
        p->notifying--;
        batch = next;
    }
    pthread_cond_broadcast(&p->notified_cv);
}

/* ---- workers ------------------------------------------------------------------------------------ */

/* A FIFO of jobs through qnext: the work queue (QUEUED jobs) and the after queue (OVER ones); a job
 * is never on both. */
static job *fifo_pop(job **head, job **tail)
{
    job *const j = *head;
    *head = j->qnext;
    if (*head == NULL) {
        *tail = NULL;
    }
    j->qnext = NULL;
    return j;
}

static void fifo_push(job **head, job **tail, job *j)
{
    j->qnext = NULL;
    if (*tail != NULL) {
        (*tail)->qnext = j;
    } else {
        *head = j;
    }
    *tail = j;
}

static job *queue_pop(nq_pool *p)
{
    p->stats.queued--;
    job *const j = fifo_pop(&p->qhead, &p->qtail);
    if (j->nwaiters > 0) {
        p->watched--;
    }
    return j;
}

/* When j, which nobody waits for, is to be cancelled (lock held, budget on): at once while more jobs
 * that somebody waits for are queued than `idle` workers can take (abandoned work runs only on a
 * worker nobody else needs); else once it
 * has gone unwatched for (factor - 1) times what its waiters waited in all (capped by the deadline,
 * so abandoned work costs at most NQ_POOL_ABANDON_FACTOR times what was waited for it), but at least
 * NQ_POOL_RETRY_MS after a waiter was told to come back, or once it has run budget_ms. */
static uint64_t abandon_due(const nq_pool *p, const job *j, size_t idle)
{
    if (p->watched > idle) {
        return 0;
    }
    uint64_t grace = j->paid_ms * (NQ_POOL_ABANDON_FACTOR - 1u);
    const uint64_t cap = (uint64_t)p->cfg.deadline_ms * (NQ_POOL_ABANDON_FACTOR - 1u);
    if (p->cfg.deadline_ms > 0 && grace > cap) {
        grace = cap;
    }
    if (j->retry_told && grace < NQ_POOL_RETRY_MS) {
        grace = NQ_POOL_RETRY_MS;
    }
    uint64_t due = j->idle_since + grace;
    if (j->state == JOB_RUNNING && j->started_ms + p->cfg.budget_ms < due) {
        due = j->started_ms + p->cfg.budget_ms;
    }
    return due;
}

/* Cancel j, running or about to run, that nobody waits for (lock held). Out of the table, a later
 * identical request starts afresh instead of attaching to a computation that is about to fail. */
static void job_cancel(nq_pool *p, job *j)
{
    j->cancel_requested = true;
    table_remove(p, j);
    nq_count_cancel(&j->ctl);
}

static void queue_push(nq_pool *p, job *j)
{
    fifo_push(&p->qhead, &p->qtail, j);
    p->stats.queued++;
}

static void job_begin(nq_pool *p, job *j)
{
    j->state = JOB_RUNNING;
    j->started_ms = nq_clock_ms();
    running_link(p, j);
    p->stats.running++;
    p->stats.started++;
    if (j->nwaiters == 0 && p->cfg.budget_ms > 0) {
        pthread_cond_signal(&p->timer_cv); /* started with nobody waiting: the budget clock runs */
    }
}

/* Record the end of j's run (lock held); returns the job if the pool's reference was the last. */
static job *job_end(nq_pool *p, job *j, nq_err err, void *result, nq_pool_ticket **batch)
{
    running_unlink(p, j);
    p->stats.running--;
    p->pending--;
    if (j->cancel_requested) {
        p->stats.cancelled++;
    } else {
        p->stats.finished++;
    }
    table_remove(p, j);
    j->state = JOB_OVER;
    j->err = err;
    j->result = err == NQ_OK ? result : NULL;
    job_settle_all(p, j, err, nq_clock_ms(), batch);
    return job_unref(j);
}

/* A successful run's after step, once its waiters are told (lock held on entry and on return). */
static void run_after(nq_pool *p, job *j, void *ctx)
{
    pthread_mutex_unlock(&p->lock);
    j->task.after(ctx, j->result, &p->leaving); /* j->result is immutable once the job is over */
    task_ctx_free(&j->task, ctx);
    pthread_mutex_lock(&p->lock);
    job *const dead = job_unref(j);
    if (dead != NULL) {
        pthread_mutex_unlock(&p->lock);
        job_free(dead);
        pthread_mutex_lock(&p->lock);
    }
}

/* Hand j's after step to the after thread (lock held); false when it is not running or is full. */
static bool after_queue(nq_pool *p, job *j, void *ctx)
{
    if (!p->after_started || p->nafters >= NQ_POOL_AFTER_QUEUE_MAX) return false;
    j->after_ctx = ctx;
    fifo_push(&p->ahead, &p->atail, j);
    p->nafters++;
    pthread_cond_signal(&p->after_cv);
    return true;
}

/* Lower the calling thread's priority by AFTER_NICE, relative to what the process was started with.
 * On Linux a nice value belongs to a thread (gettid names it), so this lowers only the after thread;
 * an unprivileged thread cannot raise it again, hence a thread of its own. On failure the steps run
 * unlowered. */
static void lower_priority(void)
{
    const id_t self = (id_t)gettid();
    errno = 0;
    const int now = getpriority(PRIO_PROCESS, self); /* -1 is a valid nice value: errno tells */
    if (errno != 0) return;
    (void)setpriority(PRIO_PROCESS, self, now + AFTER_NICE < 19 ? now + AFTER_NICE : 19);
}

static void *after_main(void *arg)
{
    nq_pool *const p = arg;
    lower_priority();
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->ahead == NULL && !p->after_stopping) {
            pthread_cond_wait(&p->after_cv, &p->lock);
        }
        if (p->ahead == NULL) {
            break; /* stopping, and nothing left to run */
        }
        job *const j = fifo_pop(&p->ahead, &p->atail);
        p->nafters--;
        void *const ctx = j->after_ctx;
        j->after_ctx = NULL;
        run_after(p, j, ctx);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void *worker_main(void *arg)
{
    nq_pool *const p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (p->qhead == NULL && !p->stopping) {
            pthread_cond_wait(&p->work_cv, &p->lock);
        }
        if (p->qhead == NULL) {
            break; /* stopping, and nothing left to run */
        }
        job *const j = queue_pop(p);
        /* This worker is not running j yet: the idle workers but this one could take the others. */
        const size_t others_idle = p->cfg.workers - p->stats.running - 1u;
        if (j->nwaiters == 0 && p->cfg.budget_ms > 0 && abandon_due(p, j, others_idle) <= nq_clock_ms()) {
            job_cancel(p, j); /* abandoned while queued, and its grace is over: not run at all */
        }
        job_begin(p, j);
        void *const ctx = j->task.ctx;
        j->task.ctx = NULL;
        const bool skip = j->cancel_requested;
        pthread_mutex_unlock(&p->lock);

        void *result = NULL;
        const nq_err err = skip ? NQ_E_CANCELED : j->task.run(ctx, &j->ctl, &result);
        const bool after = err == NQ_OK && j->task.after != NULL;
        if (!after) {
            task_ctx_free(&j->task, ctx);
        }
        if (err != NQ_OK && result != NULL && j->task.result_free != NULL) {
            j->task.result_free(result); /* a run that failed yet left a result: do not leak it */
        }

        pthread_mutex_lock(&p->lock);
        if (after) {
            j->refs++; /* the after step reads the result: it outlives the waiters' releases */
        }
        nq_pool_ticket *batch = NULL;
        job *const dead = job_end(p, j, err, result, &batch);
        deliver(p, batch);
        if (after) {
            assert(dead == NULL); /* the after step's reference */
            if (!after_queue(p, j, ctx)) run_after(p, j, ctx);
        } else if (dead != NULL) {
            pthread_mutex_unlock(&p->lock);
            job_free(dead);
            pthread_mutex_lock(&p->lock);
        }
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* ---- timer: deadlines and budget ---------------------------------------------------------------- */

static void expire_deadlines(nq_pool *p, uint64_t now, nq_pool_ticket **batch)
{
    while (p->dhead != NULL && p->dhead->deadline_ms <= now) {
        p->stats.deadlines++;
        p->dhead->job->retry_told = true;
        waiter_settle(p, p->dhead, NQ_E_DEADLINE, now, batch);
    }
}

/* Cancel running jobs nobody waits for whose time is up (abandon_due); returns the earliest time
 * another one will be due (UINT64_MAX: none). */
static uint64_t enforce_budget(nq_pool *p, uint64_t now)
{
    uint64_t next = UINT64_MAX;
    if (p->cfg.budget_ms == 0) {
        return next;
    }
    for (job *j = p->running; j != NULL; j = j->rnext) {
        if (j->nwaiters > 0 || j->cancel_requested) {
            continue;
        }
        const uint64_t due = abandon_due(p, j, p->cfg.workers - p->stats.running);
        if (due <= now) {
            job_cancel(p, j);
        } else if (due < next) {
            next = due;
        }
    }
    return next;
}

static void timed_wait(nq_pool *p, uint64_t until_ms)
{
    if (until_ms == UINT64_MAX) {
        pthread_cond_wait(&p->timer_cv, &p->lock);
        return;
    }
    const struct timespec ts = {.tv_sec = (time_t)(until_ms / 1000u), .tv_nsec = (long)(until_ms % 1000u) * 1000000L};
    const int rc = pthread_cond_timedwait(&p->timer_cv, &p->lock, &ts);
    assert(rc == 0 || rc == ETIMEDOUT);
    (void)rc;
}

static void *timer_main(void *arg)
{
    nq_pool *const p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->stopping) {
        const uint64_t now = nq_clock_ms();
        nq_pool_ticket *batch = NULL;
        expire_deadlines(p, now, &batch);
        uint64_t next = enforce_budget(p, now);
        if (batch != NULL) {
            deliver(p, batch);
            continue; /* time moved while the lock was dropped: look again */
        }
        if (p->dhead != NULL && p->dhead->deadline_ms < next) {
            next = p->dhead->deadline_ms;
        }
        timed_wait(p, next);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* ---- create / destroy --------------------------------------------------------------------------- */

/* Buckets for the single-flight table: twice the computations that can be in flight, a power of two
 * between 16 and 4096 (a huge queue_len gets longer chains rather than megabytes of buckets). */
static size_t table_size(const nq_pool_config *cfg)
{
    const size_t want = 2u * ((size_t)cfg->workers + cfg->queue_len);
    size_t n = 16;
    while (n < want && n < 4096u) {
        n *= 2;
    }
    return n;
}

static nq_err sync_init(nq_pool *p)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0) {
        return NQ_E_NOMEM;
    }
    /* The timer computes absolute deadlines on the monotonic clock; wall-clock steps must not matter. */
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0) {
        rc = pthread_cond_init(&p->timer_cv, &attr);
    }
    pthread_condattr_destroy(&attr);
    if (rc != 0) {
        return NQ_E_NOMEM;
    }
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        pthread_cond_destroy(&p->timer_cv);
        return NQ_E_NOMEM;
    }
    if (pthread_cond_init(&p->work_cv, NULL) != 0) {
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->timer_cv);
        return NQ_E_NOMEM;
    }
    if (pthread_cond_init(&p->notified_cv, NULL) != 0) {
        pthread_cond_destroy(&p->work_cv);
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->timer_cv);
        return NQ_E_NOMEM;
    }
    if (pthread_cond_init(&p->after_cv, NULL) != 0) {
        pthread_cond_destroy(&p->notified_cv);
        pthread_cond_destroy(&p->work_cv);
        pthread_mutex_destroy(&p->lock);
        pthread_cond_destroy(&p->timer_cv);
        return NQ_E_NOMEM;
    }
    return NQ_OK;
}

static void sync_fini(nq_pool *p)
{
    pthread_cond_destroy(&p->after_cv);
    pthread_cond_destroy(&p->notified_cv);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->timer_cv);
    pthread_mutex_destroy(&p->lock);
}

/* Tell every thread to stop and join those started. The after thread goes last: until the workers
 * are joined they may still queue steps for it, and it runs every queued one before it exits. */
static void threads_stop(nq_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->stopping = true;
    pthread_cond_broadcast(&p->work_cv);
    pthread_cond_broadcast(&p->timer_cv);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->nthreads; i++) {
        pthread_join(p->threads[i], NULL);
    }
    p->nthreads = 0;
    if (p->after_started) {
        pthread_mutex_lock(&p->lock);
        p->after_stopping = true;
        pthread_cond_signal(&p->after_cv);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->after, NULL);
        p->after_started = false;
    }
    if (p->timer_started) {
        pthread_join(p->timer, NULL);
        p->timer_started = false;
    }
}

static nq_err threads_start(nq_pool *p)
{
    if (pthread_create(&p->timer, NULL, timer_main, p) != 0) {
        return NQ_E_THREAD;
    }
    p->timer_started = true;
    if (pthread_create(&p->after, NULL, after_main, p) != 0) {
        return NQ_E_THREAD;
    }
    p->after_started = true;
    for (unsigned i = 0; i < p->cfg.workers; i++) {
        if (pthread_create(&p->threads[i], NULL, worker_main, p) != 0) {
            return NQ_E_THREAD;
        }
        p->nthreads++;
    }
    return NQ_OK;
}

nq_err nq_pool_create(const nq_pool_config *cfg, nq_pool **out)
{
    if (cfg == NULL || out == NULL || cfg->workers == 0 || cfg->workers > NQ_POOL_WORKERS_MAX) {
        return NQ_E_ARG;
    }
    nq_pool *const p = calloc(1, sizeof *p);
    if (p == NULL) {
        return NQ_E_NOMEM;
    }
    p->cfg = *cfg;
    atomic_init(&p->leaving, false);
    p->stats.workers = cfg->workers;
    p->stats.queue_len = cfg->queue_len;
    p->nbuckets = table_size(cfg);
    nq_hash_key_random(&p->hash_key);
    p->buckets = calloc(p->nbuckets, sizeof *p->buckets);
    p->threads = calloc(cfg->workers, sizeof *p->threads);
    if (p->buckets == NULL || p->threads == NULL) {
        free(p->buckets);
        free(p->threads);
        free(p);
        return NQ_E_NOMEM;
    }
    nq_err err = sync_init(p);
    if (err != NQ_OK) {
        goto fail_alloc;
    }
    err = threads_start(p);
    if (err != NQ_OK) {
        goto fail_threads;
    }
    *out = p;
    return NQ_OK;

fail_threads:
    threads_stop(p);
    sync_fini(p);
fail_alloc:
    free(p->threads);
    free(p->buckets);
    free(p);
    return err;
}

void nq_pool_destroy(nq_pool *p)
{
    if (p == NULL) {
        return;
    }
    nq_pool_abort(p);
    threads_stop(p);
    assert(p->tickets == 0 && p->pending == 0 && p->qhead == NULL && p->running == NULL && p->ahead == NULL);
    sync_fini(p);
    free(p->threads);
    free(p->buckets);
    free(p);
}

/* ---- submit, results, release ------------------------------------------------------------------- */

static job *job_new(nq_pool *p, const char *key, size_t keylen, const nq_pool_task *task)
{
    job *const j = calloc(1, sizeof *j + keylen + 1u);
    if (j == NULL) {
        return NULL;
    }
    j->pool = p;
    j->task = *task;
    j->state = JOB_QUEUED;
    j->refs = 1; /* the pool's, until the computation is over */
    nq_count_ctl_init(&j->ctl);
    memcpy(j->key, key, keylen + 1u);
    j->hash = key_hash(p, key);
    return j;
}

static void ticket_init(nq_pool_ticket *t, nq_pool_notify_fn notify, void *arg)
{
    t->notify = notify;
    t->arg = arg;
    t->state = TICKET_WAITING;
    t->err = NQ_E_ARG; /* "not notified yet", as nq_pool_ticket_result documents */
}

/* Under the lock: attach t to the job for fresh->key, queueing fresh when none is in flight.
 * Returns NQ_OK (fresh consumed or not: *used says), or NQ_E_BUSY / NQ_E_DRAINING. */
static nq_err admit(nq_pool *p, job *fresh, nq_pool_ticket *t, bool *used)
{
    *used = false;
    if (p->aborted) {
        return NQ_E_DRAINING;
    }
    job *j = table_find(p, fresh->key, fresh->hash);
    if (j != NULL) {
        p->stats.shared++;
    } else if (p->pending >= (size_t)p->cfg.workers + p->cfg.queue_len) {
        p->stats.rejected++;
        return NQ_E_BUSY;
    } else {
        j = fresh;
        *used = true;
        table_insert(p, j);
        queue_push(p, j);
        p->pending++;
        pthread_cond_signal(&p->work_cv);
    }
    t->job = j;
    j->refs++;
    waiter_link(j, t);
    t->submitted_ms = nq_clock_ms();
    if (p->cfg.deadline_ms > 0) {
        /* nq_clock_ms() is read under the lock, so appending keeps the list in deadline order. */
        t->deadline_ms = t->submitted_ms + p->cfg.deadline_ms;
        if (p->dhead == NULL) {
            pthread_cond_signal(&p->timer_cv);
        }
        deadline_link(p, t);
    }
    p->tickets++;
    p->stats.waiting++;
    p->stats.submitted++;
    return NQ_OK;
}

nq_err nq_pool_submit(nq_pool *p, const char *key, const nq_pool_task *task, nq_pool_notify_fn notify, void *arg,
                      nq_pool_ticket **out)
{
    if (task == NULL) {
        return NQ_E_ARG;
    }
    const size_t keylen = key != NULL ? strnlen(key, NQ_POOL_KEY_MAX + 1u) : 0;
    if (p == NULL || task->run == NULL || notify == NULL || out == NULL || keylen == 0 || keylen > NQ_POOL_KEY_MAX) {
        task_ctx_free(task, task->ctx);
        return NQ_E_ARG;
    }
    /* Allocate before locking; the job is thrown away if an identical one is already in flight. */
    nq_pool_ticket *const t = calloc(1, sizeof *t);
    job *const fresh = job_new(p, key, keylen, task);
    if (t == NULL || fresh == NULL) {
        free(t);
        free(fresh);
        task_ctx_free(task, task->ctx);
        return NQ_E_NOMEM;
    }
    ticket_init(t, notify, arg);
    bool used = false;
    pthread_mutex_lock(&p->lock);
    const nq_err err = admit(p, fresh, t, &used);
    pthread_mutex_unlock(&p->lock);
    if (!used) {
        task_ctx_free(task, task->ctx);
        free(fresh);
    }
    if (err != NQ_OK) {
        free(t);
        return err;
    }
    *out = t;
    return NQ_OK;
}

nq_err nq_pool_ticket_result(const nq_pool_ticket *t, const void **result)
{
    assert(t != NULL);
    nq_pool *const p = t->job->pool;
    pthread_mutex_lock(&p->lock);
    const nq_err err = t->state == TICKET_WAITING ? NQ_E_ARG : t->err;
    const void *const r = err == NQ_OK ? t->job->result : NULL;
    pthread_mutex_unlock(&p->lock);
    if (result != NULL) {
        *result = r;
    }
    return err;
}

uint64_t nq_pool_ticket_wait_ms(const nq_pool_ticket *t)
{
    assert(t != NULL);
    nq_pool *const p = t->job->pool;
    pthread_mutex_lock(&p->lock);
    const uint64_t ms = t->state == TICKET_WAITING ? 0 : t->notified_ms - t->submitted_ms;
    pthread_mutex_unlock(&p->lock);
    return ms;
}

void nq_pool_ticket_release(nq_pool_ticket *t)
{
    if (t == NULL) {
        return;
    }
    nq_pool *const p = t->job->pool;
    pthread_mutex_lock(&p->lock);
    while (t->state == TICKET_NOTIFYING) {
        pthread_cond_wait(&p->notified_cv, &p->lock); /* its notify callback is running right now */
    }
    if (t->state == TICKET_WAITING) {
        waiter_unlink(p, t);
    }
    p->tickets--;
    job *const dead = job_unref(t->job);
    pthread_mutex_unlock(&p->lock);
    job_free(dead);
    free(t);
}

/* ---- abort and stats ---------------------------------------------------------------------------- */

/* Under the lock: empty the queue, notifying waiters; returns the dropped jobs chained by qnext. */
static job *drop_queue(nq_pool *p, uint64_t now, nq_pool_ticket **batch)
{
    job *dropped = NULL;
    while (p->qhead != NULL) {
        job *const j = queue_pop(p);
        table_remove(p, j);
        j->state = JOB_OVER; /* before settling: its waiters are told, they did not leave */
        job_settle_all(p, j, NQ_E_DRAINING, now, batch);
        j->err = NQ_E_DRAINING;
        p->pending--;
        p->stats.cancelled++;
        j->qnext = dropped;
        dropped = j;
    }
    return dropped;
}

static void cancel_running(nq_pool *p, uint64_t now, nq_pool_ticket **batch)
{
    for (job *j = p->running; j != NULL; j = j->rnext) {
        job_cancel(p, j);
        job_settle_all(p, j, NQ_E_DRAINING, now, batch);
    }
}

void nq_pool_abort(nq_pool *p)
{
    if (p == NULL) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->aborted = true;
    atomic_store(&p->leaving, true);
    const uint64_t now = nq_clock_ms();
    nq_pool_ticket *batch = NULL;
    job *dropped = drop_queue(p, now, &batch);
    cancel_running(p, now, &batch);
    deliver(p, batch);
    while (p->notifying > 0) {
        pthread_cond_wait(&p->notified_cv, &p->lock); /* batches other threads are delivering */
    }
    pthread_mutex_unlock(&p->lock);

    while (dropped != NULL) {
        job *const j = dropped;
        dropped = j->qnext;
        task_ctx_free(&j->task, j->task.ctx);
        j->task.ctx = NULL;
        pthread_mutex_lock(&p->lock);
        job *const dead = job_unref(j);
        pthread_mutex_unlock(&p->lock);
        job_free(dead);
    }
}

void nq_pool_stats_get(nq_pool *p, nq_pool_stats *out)
{
    assert(p != NULL && out != NULL);
    pthread_mutex_lock(&p->lock);
    *out = p->stats;
    pthread_mutex_unlock(&p->lock);
}
