/* jobs.c - long counts: runners, checkpoints, resumption (see jobs.h).
 *
 * Threads: --long-counts runners take the oldest QUEUED slot and count its remaining tasks; the
 * solver's workers report each finished task (on_task), which marks it in the slot's bitmap; one
 * ticker writes the bitmaps that changed every --checkpoint-ms and retries finished counts the
 * store refused. One mutex, `lock`, guards every slot; `changed` is broadcast on every state change
 * (runners wait on it for work, requests for their count to finish). A second, `store_lock`, is held
 * around a count's store writes (never with `lock` held when taken), so a checkpoint written late
 * cannot resurrect a count the store already has as finished.
 *
 * Counts finished within a request (nq_count_jobs_record) are not written by the request's thread:
 * they are marked unsaved and the ticker, woken at once, writes them. A request never waits on the
 * store (another process may hold its write lock for the whole busy timeout).
 *
 * What the store holds is not taken on trust: a row that fails the store's check value is reported
 * (and counted again when asked), and a finished count must equal the known one (OEIS A000170 and
 * A002562), a checkpoint's sums stay within it.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#endif
#include "counts/jobs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "counts/published.h"
#include "base/clock.h"

#define RUNNERS_MAX 64     /* --long-counts at most (config.c) */
#define WAIT_SLICE_MS 50   /* a waiter looks at its cancel flag this often */
#define ETA_MIN_RUN_S 0.5  /* an estimate needs this much of the current run... */
#define ETA_MIN_GAIN 0.002 /* ...and this much progress made in it */

typedef struct slot {
    nq_job_state state;    /* see jobs.h */
    nq_err err;            /* why the last run failed (state NONE), NQ_OK otherwise */
    uint32_t tasks;        /* tasks in n's plan; 0 until planned */
    uint8_t *done;         /* tasks bytes: non-zero once the task is counted (owned) */
    uint32_t ndone;        /* how many are */
    nq_count_sums sums;    /* of the tasks done */
    double elapsed_before; /* seconds spent in earlier runs (other processes) */
    double run_t0;         /* nq_clock_s() when this run started; 0 when not running */
    double progress_t0;    /* progress when this run started */
    int64_t started_at;    /* first start, Unix seconds */
    int64_t finished_at;   /* DONE: Unix seconds */
    nq_counts counts;      /* DONE */
    double seconds;        /* DONE: wall time it took */
    uint64_t seq;          /* queue order (smaller: earlier) */
    bool dirty;            /* tasks done since the last checkpoint written */
    bool unsaved;          /* DONE but not in the store yet (the ticker writes it) */
    bool save_failed;      /* and the store refused it at least once */
    nq_count_ctl ctl;      /* the running count's control block */
} slot;

struct nq_count_jobs {
    const nq_config *cfg;           /* borrowed */
    nq_cache *cache;                /* borrowed, may be NULL: where finished counts are published */
    nq_store *store;                /* borrowed, may be NULL */
    nq_event_sink events;           /* where events go */
    pthread_mutex_t store_lock;     /* orders a count's store writes (taken before lock) */
    pthread_mutex_t lock;           /* guards everything below but the threads */
    pthread_cond_t changed;         /* a slot changed state, or stopping */
    clockid_t clock;                /* the clock of changed's timed waits */
    slot slots[NQ_COUNT_N_MAX + 1]; /* by n */
    uint64_t next_seq;              /* for the next queued slot */
    bool stopping;                  /* destroy began */
    nq_count_jobs_stats stats;      /* counters (the state gauges are computed) */
    pthread_t runners[RUNNERS_MAX]; /* the runner threads */
    unsigned nrunners;              /* started */
    pthread_t ticker;               /* the checkpoint thread */
    bool ticker_started;            /* and whether it runs */
};

/* ---- helpers ---------------------------------------------------------------------------------- */

static int64_t wall_s(void)
{
    return (int64_t)time(NULL);
}

/* now + ms as an absolute time on `changed`'s clock, for pthread_cond_timedwait: CLOCK_MONOTONIC
 * (a step of the wall clock must neither stall the ticker nor oversleep a waiter) wherever the
 * condition variable takes it, which is everywhere this builds. */
static struct timespec after_ms(const nq_count_jobs *j, uint32_t ms)
{
    struct timespec t;
    clock_gettime(j->clock, &t);
    const uint64_t ns = (uint64_t)t.tv_nsec + (uint64_t)ms * 1000000u;
    t.tv_sec += (time_t)(ns / 1000000000u);
    t.tv_nsec = (long)(ns % 1000000000u);
    return t;
}

static void event(const nq_count_jobs *j, nq_event_level level, const char *msg, int n, double progress, double seconds,
                  nq_err err)
{
    if (!j->events.fn) return;
    const nq_event e = {level, msg, n, progress, seconds, err != NQ_OK ? nq_error_name(err) : NULL};
    j->events.fn(j->events.ctx, &e);
}

/* Fraction done of s: its own bitmap, or the counter's view when that is further (a plan of one task
 * reports progress within it). Caller holds the lock. */
static double progress_of(const slot *s)
{
    if (s->state == NQ_JOB_DONE) return 1.0;
    const double own = s->tasks ? (double)s->ndone / (double)s->tasks : 0.0;
    const double ctl = s->state == NQ_JOB_RUNNING ? nq_count_progress(&s->ctl) : 0.0;
    const double p = own > ctl ? own : ctl;
    return p < 1.0 ? p : 1.0;
}

/* Caller holds the lock. */
static void view_of(const slot *s, int n, nq_job_view *v)
{
    memset(v, 0, sizeof *v);
    v->n = n;
    v->state = s->state;
    v->eta_s = -1.0;
    v->progress = progress_of(s);
    if (s->state == NQ_JOB_DONE) {
        v->counts = s->counts;
        v->seconds = v->elapsed_s = s->seconds;
        v->since = s->finished_at;
        v->eta_s = 0.0;
        return;
    }
    v->since = s->started_at;
    const double run = s->run_t0 > 0 ? nq_clock_s() - s->run_t0 : 0.0;
    v->elapsed_s = s->elapsed_before + run;
    const double gain = v->progress - s->progress_t0;
    /* The rate of this run only: earlier runs may have been on another machine. */
    if (s->state == NQ_JOB_RUNNING && run >= ETA_MIN_RUN_S && gain >= ETA_MIN_GAIN)
        v->eta_s = (1.0 - v->progress) * run / gain;
}

static size_t count_state(const nq_count_jobs *j, nq_job_state st)
{
    size_t c = 0;
    for (int n = 1; n <= NQ_COUNT_N_MAX; n++) c += j->slots[n].state == st;
    return c;
}

/* n's plan as a bitmap of tasks, all to do (*done owned by the caller). */
static nq_err plan_make(int n, uint32_t *tasks, uint8_t **done)
{
    nq_err rc = nq_count_plan(n, tasks);
    if (rc != NQ_OK) return rc;
    *done = calloc(*tasks, 1);
    return *done ? NQ_OK : NQ_E_NOMEM;
}

/* A fresh plan is written at the next checkpoint, with no task done: a count accepted or started is
 * kept even if the process dies before its first task. */
static void plan_install(slot *s, uint32_t tasks, uint8_t *done)
{
    s->done = done;
    s->tasks = tasks;
    s->ndone = 0;
    s->sums = (nq_count_sums){0, 0};
    s->dirty = true;
}

/* Give s its plan unless it has one. Caller holds the lock. */
static nq_err plan_slot(slot *s, int n)
{
    if (s->tasks) return NQ_OK;
    uint32_t tasks = 0;
    uint8_t *done = NULL;
    const nq_err rc = plan_make(n, &tasks, &done);
    if (rc == NQ_OK) plan_install(s, tasks, done);
    return rc;
}

static void slot_forget_plan(slot *s)
{
    free(s->done);
    s->done = NULL;
    s->tasks = s->ndone = 0;
    s->sums = (nq_count_sums){0, 0};
}

/* ---- the store ------------------------------------------------------------------------------- */

/* Write s's checkpoint from a copy taken under the lock; the write itself runs without it, but
 * under store_lock, so that it cannot land after the finished count's write (which drops it). */
static void checkpoint(nq_count_jobs *j, int n)
{
    pthread_mutex_lock(&j->store_lock);
    pthread_mutex_lock(&j->lock);
    slot *s = &j->slots[n];
    /* A count with every task done is written as finished, not checkpointed. */
    if (!s->dirty || !s->tasks || s->state == NQ_JOB_DONE || s->ndone == s->tasks) {
        pthread_mutex_unlock(&j->lock);
        pthread_mutex_unlock(&j->store_lock);
        return;
    }
    uint8_t *copy = malloc(s->tasks);
    if (!copy) {
        pthread_mutex_unlock(&j->lock);
        pthread_mutex_unlock(&j->store_lock);
        return; /* the next tick tries again */
    }
    memcpy(copy, s->done, s->tasks);
    const double run = s->run_t0 > 0 ? nq_clock_s() - s->run_t0 : 0.0;
    const nq_store_checkpoint cp = {n,       NQ_COUNT_PLAN_VERSION,   s->tasks,     copy,
                                    s->sums, s->elapsed_before + run, s->started_at};
    const double progress = progress_of(s);
    s->dirty = false;
    pthread_mutex_unlock(&j->lock);
    const nq_err rc = nq_store_put_checkpoint(j->store, &cp);
    pthread_mutex_unlock(&j->store_lock);
    free(copy);
    pthread_mutex_lock(&j->lock);
    if (rc == NQ_OK) {
        j->stats.checkpoints++;
    } else {
        j->stats.checkpoint_failures++;
        s->dirty = s->state != NQ_JOB_DONE; /* write it again next time */
    }
    pthread_mutex_unlock(&j->lock);
    if (rc != NQ_OK)
        event(j, NQ_EVENT_WARN, "checkpoint not written; serving goes on", n, -1, -1, rc);
    else
        event(j, NQ_EVENT_DEBUG, "checkpoint written", n, progress, cp.elapsed_s, NQ_OK);
}

/* Store a finished count; false (counted, logged) when the store refused it. */
static bool save_count(nq_count_jobs *j, int n, const nq_counts *c, double seconds, int64_t finished_at)
{
    if (!j->store) return true;
    const nq_store_count sc = {n, *c, seconds, finished_at};
    const nq_err rc = nq_store_put_count(j->store, &sc);
    if (rc == NQ_OK) return true;
    pthread_mutex_lock(&j->lock);
    j->stats.store_failures++;
    pthread_mutex_unlock(&j->lock);
    event(j, NQ_EVENT_WARN, "finished count not stored; kept in memory, retried later", n, -1, seconds, rc);
    return false;
}

/* Write the finished counts not in the store yet: those counted within a request, and those the
 * store refused before (retried). */
static void retry_unsaved(nq_count_jobs *j)
{
    for (int n = 1; n <= NQ_COUNT_N_MAX; n++) {
        pthread_mutex_lock(&j->lock);
        const slot *s = &j->slots[n];
        const bool todo = s->state == NQ_JOB_DONE && s->unsaved;
        const nq_counts c = s->counts;
        const double secs = s->seconds;
        const int64_t at = s->finished_at;
        pthread_mutex_unlock(&j->lock);
        if (!todo) continue;
        const bool saved = save_count(j, n, &c, secs, at);
        pthread_mutex_lock(&j->lock);
        const bool failed_before = j->slots[n].save_failed;
        j->slots[n].unsaved = !saved;
        j->slots[n].save_failed = failed_before || !saved;
        pthread_mutex_unlock(&j->lock);
        if (saved && failed_before)
            event(j, NQ_EVENT_INFO, "finished count stored after a failed write", n, 1.0, secs, NQ_OK);
    }
}

static void *ticker_main(void *arg)
{
    nq_count_jobs *j = arg;
    pthread_mutex_lock(&j->lock);
    while (!j->stopping) {
        const struct timespec until = after_ms(j, j->cfg->checkpoint_ms);
        (void)pthread_cond_timedwait(&j->changed, &j->lock, &until);
        if (j->stopping) break;
        pthread_mutex_unlock(&j->lock);
        for (int n = 1; n <= NQ_COUNT_N_MAX; n++) checkpoint(j, n);
        retry_unsaved(j);
        pthread_mutex_lock(&j->lock);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* ---- running a count ----------------------------------------------------------------------------- */

typedef struct task_ctx {
    nq_count_jobs *j; /* the registry */
    int n;            /* whose tasks these are */
} task_ctx;

/* nq_count_tasks' report, on a solver worker thread. */
static void on_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    const task_ctx *t = arg;
    nq_count_jobs *j = t->j;
    /* Tests: a cheap n made slow, each task taking this long before it counts as done (the first
     * one too, so a test can stop a count that has not finished a task). */
    const unsigned delay = j->cfg->count_task_delay_ms;
    if (delay) {
        const struct timespec ts = {(time_t)(delay / 1000u), (long)(delay % 1000u) * 1000000L};
        (void)nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&j->lock);
    slot *s = &j->slots[t->n];
    if (task < s->tasks && !s->done[task]) {
        s->done[task] = 1;
        s->ndone++;
        nq_count_sums_add(&s->sums, sums);
        s->dirty = true;
    }
    pthread_mutex_unlock(&j->lock);
}

/* A run ended with rc. Caller holds the lock; it is released and taken again around the store write. */
static void run_ended(nq_count_jobs *j, int n, nq_err rc)
{
    slot *s = &j->slots[n];
    const double run = nq_clock_s() - s->run_t0;
    s->run_t0 = 0;
    /* Every task counted is a finished count, even when a cancel (a drain) came after the last one:
     * dropping it would redo work that is done. */
    if (s->tasks && s->ndone == s->tasks) {
        const nq_counts c = nq_count_sums_counts(&s->sums);
        const double secs = s->elapsed_before + run;
        const int64_t at = wall_s();
        s->dirty = false;
        pthread_mutex_unlock(&j->lock);
        pthread_mutex_lock(&j->store_lock);                /* after any checkpoint of n in flight */
        const bool saved = save_count(j, n, &c, secs, at); /* on disk before anyone hears of it */
        pthread_mutex_unlock(&j->store_lock);
        nq_counts_publish(j->cache, n, &c, secs, NULL);
        event(j, NQ_EVENT_INFO, "count finished", n, 1.0, secs, NQ_OK);
        pthread_mutex_lock(&j->lock);
        *s = (slot){.state = NQ_JOB_DONE,
                    .counts = c,
                    .seconds = secs,
                    .finished_at = at,
                    .unsaved = !saved,
                    .save_failed = !saved,
                    .started_at = s->started_at,
                    .done = s->done};
        slot_forget_plan(s);
        j->stats.completed++;
    } else if (j->stopping) {
        s->elapsed_before += run; /* stays QUEUED in the store's eyes: the checkpoint resumes it */
        s->state = NQ_JOB_QUEUED;
        s->dirty = true;
    } else {
        const nq_err err = rc == NQ_OK ? NQ_E_INTERNAL : rc;
        s->state = NQ_JOB_NONE; /* the next request starts it again, from the tasks it did finish */
        s->err = err;
        s->elapsed_before += run;
        pthread_mutex_unlock(&j->lock);
        event(j, NQ_EVENT_ERROR, "count failed", n, -1, run, err);
        pthread_mutex_lock(&j->lock);
    }
    pthread_cond_broadcast(&j->changed);
}

/* The oldest queued slot, or 0. Caller holds the lock. */
static int next_queued(const nq_count_jobs *j)
{
    int best = 0;
    for (int n = 1; n <= NQ_COUNT_N_MAX; n++)
        if (j->slots[n].state == NQ_JOB_QUEUED && (!best || j->slots[n].seq < j->slots[best].seq)) best = n;
    return best;
}

/* Count n's remaining tasks. Caller holds the lock, which is released while counting. */
static void run_one(nq_count_jobs *j, int n)
{
    slot *s = &j->slots[n];
    nq_err rc = plan_slot(s, n);
    uint8_t *todo = rc == NQ_OK ? malloc(s->tasks) : NULL;
    if (rc == NQ_OK && !todo) rc = NQ_E_NOMEM;
    s->state = NQ_JOB_RUNNING;
    s->run_t0 = nq_clock_s();
    if (rc != NQ_OK) {
        run_ended(j, n, rc);
        return;
    }
    for (uint32_t i = 0; i < s->tasks; i++) todo[i] = !s->done[i];
    nq_count_ctl_init(&s->ctl); /* before progress_of reads it: not the last run's figure */
    s->progress_t0 = progress_of(s);
    if (!s->started_at) s->started_at = wall_s();
    const bool resumed = s->ndone > 0;
    const double progress = s->progress_t0;
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    event(j, NQ_EVENT_INFO, resumed ? "count resumes from its checkpoint" : "count starts", n, progress, -1, NQ_OK);
    task_ctx t = {j, n};
    rc = nq_count_tasks(n, (int)j->cfg->count_threads, todo, &s->ctl, on_task, &t);
    free(todo);
    pthread_mutex_lock(&j->lock);
    run_ended(j, n, rc);
}

static void *runner_main(void *arg)
{
    nq_count_jobs *j = arg;
    pthread_mutex_lock(&j->lock);
    while (!j->stopping) {
        const int n = next_queued(j);
        if (n)
            run_one(j, n);
        else
            pthread_cond_wait(&j->changed, &j->lock);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* ---- start-up: what the store holds ------------------------------------------------------------- */

/* The store's report of a row that failed its check: ignored, and counted again when asked. */
static void load_damaged(void *arg, int n, bool checkpoint)
{
    const nq_count_jobs *j = arg;
    event(j, NQ_EVENT_WARN,
          checkpoint ? "checkpoint ignored (it fails its check value: damaged or edited)"
                     : "stored count ignored (it fails its check value: damaged or edited); counted again when asked",
          n, -1, -1, NQ_E_STORE_CORRUPT);
}

static bool load_count(void *arg, const nq_store_count *c)
{
    nq_count_jobs *j = arg;
    if (c->n < NQ_N_MIN || c->n > NQ_COUNT_N_MAX) return true; /* not a board this release counts */
    nq_counts known = {0, 0};
    if (!nq_count_known(c->n, &known) || c->counts.total != known.total || c->counts.unique != known.unique) {
        event(j, NQ_EVENT_WARN, "stored count ignored (not the known count of its n); counted again when asked", c->n,
              -1, -1, NQ_E_STORE_CORRUPT);
        return true;
    }
    j->slots[c->n] =
        (slot){.state = NQ_JOB_DONE, .counts = c->counts, .seconds = c->seconds, .finished_at = c->finished_at};
    nq_counts_publish(j->cache, c->n, &c->counts, c->seconds, NULL);
    return true;
}

static bool load_checkpoint(void *arg, const nq_store_checkpoint *cp)
{
    nq_count_jobs *j = arg;
    uint32_t tasks = 0;
    /* Only a checkpoint of this plan, for a count this server would start, can be resumed. */
    if (cp->n < NQ_N_MIN || cp->n > j->cfg->max_n_count || cp->n > NQ_COUNT_N_MAX ||
        j->slots[cp->n].state == NQ_JOB_DONE || cp->plan != NQ_COUNT_PLAN_VERSION ||
        nq_count_plan(cp->n, &tasks) != NQ_OK || tasks == 0 || tasks != cp->tasks) {
        event(j, NQ_EVENT_WARN, "checkpoint ignored (another plan, or n beyond --max-n-count)", cp->n, -1, -1, NQ_OK);
        return true;
    }
    /* A count below --long-count-n is answered within its request now (a setting raised across a
     * restart): resumed as a long count it would run twice, and /counts would call it running while
     * /count answers 200. Left in place: a lower setting later resumes it, a finished count drops it. */
    if (cp->n < j->cfg->long_count_n) {
        event(j, NQ_EVENT_INFO, "checkpoint not resumed (n is below --long-count-n: counted when asked)", cp->n, -1, -1,
              NQ_OK);
        return true;
    }
    uint32_t ndone = 0;
    for (uint32_t i = 0; i < tasks; i++) ndone += cp->done[i] != 0;
    /* Sums of some tasks stay within the whole count's (its Burnside sum is at most 8 x unique). */
    nq_counts known = {0, 0};
    const bool within =
        nq_count_known(cp->n, &known) && cp->sums.total <= known.total && cp->sums.burnside <= 8 * known.unique;
    if (nq_count_sums_fit(&cp->sums, ndone) != NQ_SUMS_FIT || !within) { /* damaged or edited: start afresh */
        event(j, NQ_EVENT_WARN, "checkpoint ignored (its sums contradict each other)", cp->n, -1, -1, NQ_OK);
        return true;
    }
    slot *s = &j->slots[cp->n];
    s->done = malloc(tasks);
    if (!s->done) return true; /* it starts afresh when asked */
    memcpy(s->done, cp->done, tasks);
    s->tasks = tasks;
    s->ndone = ndone;
    s->sums = cp->sums;
    s->elapsed_before = cp->elapsed_s;
    s->started_at = cp->started_at;
    s->state = NQ_JOB_QUEUED;
    s->seq = j->next_seq++;
    j->stats.resumed++;
    return true;
}

static nq_err load_store(nq_count_jobs *j)
{
    if (!j->store) return NQ_OK;
    nq_err rc = nq_store_each_count(j->store, load_count, load_damaged, j);
    if (rc == NQ_OK) rc = nq_store_each_checkpoint(j->store, load_checkpoint, load_damaged, j);
    return rc;
}

/* ---- the interface -------------------------------------------------------------------------------- */

nq_err nq_count_jobs_create(const nq_config *cfg, nq_cache *cache, nq_store *store, const nq_event_sink *events,
                            nq_count_jobs **out)
{
    if (!cfg || !out) return NQ_E_ARG;
    nq_count_jobs *j = calloc(1, sizeof *j);
    if (!j) return NQ_E_NOMEM;
    j->cfg = cfg;
    j->cache = cache;
    j->store = store;
    if (events) j->events = *events;
    pthread_mutex_init(&j->store_lock, NULL);
    pthread_mutex_init(&j->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    j->clock = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    pthread_cond_init(&j->changed, &attr);
    pthread_condattr_destroy(&attr);
    nq_err rc = load_store(j);
    const unsigned want = j->cfg->long_counts < RUNNERS_MAX ? j->cfg->long_counts : RUNNERS_MAX;
    while (rc == NQ_OK && j->nrunners < (want ? want : 1)) {
        if (pthread_create(&j->runners[j->nrunners], NULL, runner_main, j) != 0)
            rc = NQ_E_THREAD;
        else
            j->nrunners++; /* only started threads are joined */
    }
    if (rc == NQ_OK && store) {
        j->ticker_started = pthread_create(&j->ticker, NULL, ticker_main, j) == 0;
        if (!j->ticker_started) rc = NQ_E_THREAD;
    }
    if (rc != NQ_OK) {
        nq_count_jobs_destroy(j);
        return rc;
    }
    *out = j;
    return NQ_OK;
}

void nq_count_jobs_destroy(nq_count_jobs *j)
{
    if (!j) return;
    pthread_mutex_lock(&j->lock);
    j->stopping = true;
    for (int n = 1; n <= NQ_COUNT_N_MAX; n++)
        if (j->slots[n].state == NQ_JOB_RUNNING) nq_count_cancel(&j->slots[n].ctl);
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    for (unsigned i = 0; i < j->nrunners; i++) pthread_join(j->runners[i], NULL);
    if (j->ticker_started) pthread_join(j->ticker, NULL);
    /* The last word of every count still going or queued: what it finished goes to the store, and
     * so does a finished count the store refused before (one more try). */
    for (int n = 1; j->store && n <= NQ_COUNT_N_MAX; n++) checkpoint(j, n);
    if (j->store) retry_unsaved(j);
    for (int n = 1; n <= NQ_COUNT_N_MAX; n++) free(j->slots[n].done);
    pthread_cond_destroy(&j->changed);
    pthread_mutex_destroy(&j->lock);
    pthread_mutex_destroy(&j->store_lock);
    free(j);
}

/* Whether a start of n would queue a count without a plan: then it is planned before, outside the
 * lock (a tenth of a second at n = 23), so that the runner need not plan under it. */
static bool needs_plan(nq_count_jobs *j, int n)
{
    pthread_mutex_lock(&j->lock);
    const bool need = !j->stopping && j->slots[n].state == NQ_JOB_NONE && j->slots[n].tasks == 0;
    pthread_mutex_unlock(&j->lock);
    return need;
}

nq_err nq_count_jobs_start(nq_count_jobs *j, int n, nq_job_view *view)
{
    if (!j || n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_ARG;
    uint32_t tasks = 0;
    uint8_t *plan = NULL;
    if (needs_plan(j, n) && plan_make(n, &tasks, &plan) != NQ_OK) plan = NULL; /* the runner tries again */
    pthread_mutex_lock(&j->lock);
    slot *s = &j->slots[n];
    nq_err rc = NQ_OK;
    if (j->stopping) {
        rc = NQ_E_DRAINING;
    } else if (s->state == NQ_JOB_NONE) {
        const size_t active = count_state(j, NQ_JOB_QUEUED) + count_state(j, NQ_JOB_RUNNING);
        if (active >= (size_t)j->cfg->long_counts + j->cfg->long_count_queue) {
            rc = NQ_E_BUSY;
        } else {
            s->state = NQ_JOB_QUEUED;
            s->err = NQ_OK;
            s->seq = j->next_seq++;
            if (!s->started_at) s->started_at = wall_s();
            if (!s->tasks && plan) {
                plan_install(s, tasks, plan);
                plan = NULL;
            }
            pthread_cond_broadcast(&j->changed);
        }
    }
    if (view) view_of(s, n, view);
    pthread_mutex_unlock(&j->lock);
    free(plan); /* not needed after all (another request queued it first) */
    return rc;
}

nq_err nq_count_jobs_wait(nq_count_jobs *j, int n, uint32_t wait_ms, const atomic_bool *cancel, nq_job_view *view)
{
    if (!j || !view || n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_ARG;
    const double until = nq_clock_s() + (double)wait_ms / 1000.0;
    pthread_mutex_lock(&j->lock);
    const slot *s = &j->slots[n];
    nq_err rc = NQ_OK;
    for (;;) {
        if (s->state == NQ_JOB_DONE) break;
        if (s->state == NQ_JOB_NONE) {
            rc = s->err != NQ_OK ? s->err : NQ_E_INTERNAL;
            break;
        }
        if (j->stopping) {
            rc = NQ_E_DRAINING;
            break;
        }
        const double left = until - nq_clock_s();
        if ((wait_ms != UINT32_MAX && left <= 0) || (cancel && atomic_load(cancel))) break;
        const double slice = wait_ms == UINT32_MAX || left * 1000.0 > WAIT_SLICE_MS ? WAIT_SLICE_MS : left * 1000.0;
        const struct timespec t = after_ms(j, (uint32_t)slice + 1u); /* rounded up: never a busy loop */
        (void)pthread_cond_timedwait(&j->changed, &j->lock, &t);
    }
    view_of(s, n, view);
    pthread_mutex_unlock(&j->lock);
    return rc;
}

void nq_count_jobs_view(nq_count_jobs *j, int n, nq_job_view *view)
{
    if (!j || n < NQ_N_MIN || n > NQ_COUNT_N_MAX) {
        memset(view, 0, sizeof *view);
        view->n = n;
        view->eta_s = -1;
        return;
    }
    pthread_mutex_lock(&j->lock);
    view_of(&j->slots[n], n, view);
    pthread_mutex_unlock(&j->lock);
}

void nq_count_jobs_record(nq_count_jobs *j, int n, const nq_counts *c, double seconds)
{
    if (!j || n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return;
    const int64_t at = wall_s();
    pthread_mutex_lock(&j->lock);
    slot *s = &j->slots[n];
    if (s->state == NQ_JOB_NONE) { /* else a long count of the same n, or already recorded */
        slot_forget_plan(s);       /* a long count of n that failed earlier may have left one */
        /* Its checkpoint, if any, is dropped by the write of the finished count (on the ticker, after
         * any checkpoint of n it is writing: it never writes one of a DONE slot). */
        *s = (slot){.state = NQ_JOB_DONE,
                    .counts = *c,
                    .seconds = seconds,
                    .finished_at = at,
                    .started_at = at,
                    .unsaved = j->store != NULL};
        pthread_cond_broadcast(&j->changed); /* wakes the ticker too: it writes the count */
    }
    pthread_mutex_unlock(&j->lock);
}

static int newest_first(const void *a, const void *b)
{
    const nq_job_view *x = a, *y = b;
    if (x->since != y->since) return x->since > y->since ? -1 : 1;
    return x->n > y->n ? -1 : x->n < y->n; /* same second: the larger board first */
}

size_t nq_count_jobs_list(nq_count_jobs *j, nq_job_view *out, size_t cap)
{
    if (!j || !out) return 0;
    size_t len = 0;
    pthread_mutex_lock(&j->lock);
    for (int n = 1; n <= NQ_COUNT_N_MAX && len < cap; n++)
        if (j->slots[n].state != NQ_JOB_NONE) view_of(&j->slots[n], n, &out[len++]);
    pthread_mutex_unlock(&j->lock);
    qsort(out, len, sizeof *out, newest_first);
    return len;
}

void nq_count_jobs_stats_get(nq_count_jobs *j, nq_count_jobs_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!j) return;
    pthread_mutex_lock(&j->lock);
    *out = j->stats;
    out->queued = count_state(j, NQ_JOB_QUEUED);
    out->running = count_state(j, NQ_JOB_RUNNING);
    out->finished = count_state(j, NQ_JOB_DONE);
    pthread_mutex_unlock(&j->lock);
    out->store_bytes = nq_store_bytes(j->store);
}

unsigned nq_count_jobs_retry_after(const nq_job_view *view)
{
    /* Ask again when it should be done, but at least every minute (the estimate may be wrong), and
     * not more than once a second. Without an estimate: soon, while one forms. */
    if (view->eta_s < 0) return 2;
    if (view->eta_s >= 60) return 60;
    const unsigned s = (unsigned)view->eta_s + 1u; /* rounded up */
    return s < 1 ? 1u : s;
}

const nq_config *nq_count_jobs_config(const nq_count_jobs *j)
{
    return j->cfg;
}

nq_cache *nq_count_jobs_cache(const nq_count_jobs *j)
{
    return j->cache;
}
