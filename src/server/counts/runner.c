/* runner.c - the threads of the long-count service (jobs_impl.h): --long-counts runners, each
 * holding one unit of work at a time (a block claimed from the store under a lease, or without a
 * store a whole count queued in memory), and one keeper that renews the held leases every third of
 * --lease-ms, commits each unit's finished tasks every --checkpoint-ms, writes finished counts the
 * store has not taken and refreshes the gauges.
 *
 * A runner counts its unit with one call of the counter (nq_count_session_tasks, on a session it keeps
 * while it takes blocks of one n, so their tables are built once); the solver's workers report each
 * finished task (on_task), marked in the unit's bitmap under the service's lock. No
 * store call runs under the lock: a unit's store I/O belongs to whoever set its `io` flag (the
 * keeper or its runner), so a renew never lands after the finish of the same block (it would find
 * the lease gone and call the block lost). A renew, commit or finish that finds the lease lost
 * cancels the unit's count and drops it, logged once.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#endif
#include "counts/jobs_impl.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "counts/published.h"

/* ---- units: the work of a runner ------------------------------------------------------------------- */

typedef struct task_ctx {
    nq_count_jobs *j;
    unit *u;
} task_ctx;

/* A task of the unit finished: marked in its bitmap, its sums added (solver worker threads). */
static void on_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    const task_ctx *t = arg;
    nq_count_jobs *j = t->j;
    /* Tests only: each worker waits after each of its tasks, so that a count takes tasks x delay at
     * least whatever the machine (a plan of one task waits too). */
    const unsigned delay = j->cfg->count_task_delay_ms;
    if (delay) {
        const struct timespec ts = {(time_t)(delay / 1000u), (long)(delay % 1000u) * 1000000L};
        (void)nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&j->lock);
    unit *u = t->u;
    const uint32_t i = task - u->first;
    if (task >= u->first && i < u->tasks && !u->done[i]) {
        u->done[i] = 1;
        u->ndone++;
        nq_count_sums_add(&u->sums, sums);
    }
    pthread_mutex_unlock(&j->lock);
}

/* Take the unit's store I/O for the caller (waiting for the keeper's call in flight). Caller holds
 * the lock. */
static void io_take(nq_count_jobs *j, unit *u)
{
    while (u->io) pthread_cond_wait(&j->changed, &j->lock);
    u->io = true;
}

static void io_give(nq_count_jobs *j, unit *u)
{
    u->io = false;
    pthread_cond_broadcast(&j->changed);
}

/* The lease of u was found lost: the block is dropped, once. Caller holds the lock. */
static bool mark_lost(nq_count_jobs *j, unit *u)
{
    if (u->lost) return false;
    u->lost = true;
    u->claimed = false;
    nq_count_cancel(&u->ctl);
    j->stats.blocks_lost++;
    return true;
}

static void log_lost(const nq_count_jobs *j, const unit *u)
{
    nq_jobs_event(j, NQ_EVENT_WARN, "lease lost: the block's uncounted work is dropped, another replica counts it",
                  u->n, -1, -1, NQ_E_STORE_LOST);
}

/* Claim a block from the store into u; false when there is none (or the store failed). */
static bool acquire_block(nq_count_jobs *j, unit *u)
{
    nq_store_claim claim;
    memset(&claim, 0, sizeof claim);
    bool got = false;
    const int max_n = j->cfg->max_n_count < NQ_COUNT_N_MAX ? j->cfg->max_n_count : NQ_COUNT_N_MAX;
    const double t0 = nq_clock_s();
    const nq_err rc = nq_store_claim_block(j->store, j->cfg->lease_ms, max_n, NQ_COUNT_PLAN_VERSION, &claim, &got);
    nq_jobs_store_note(j, NQ_STORE_OP_CLAIM, t0, rc);
    if (rc != NQ_OK || !got) return false;
    uint8_t *done = malloc(claim.tasks ? claim.tasks : 1);
    if (!done) {
        (void)nq_store_release(j->store, &claim);
        nq_store_claim_clear(&claim);
        return false;
    }
    uint32_t ndone = 0;
    for (uint32_t i = 0; i < claim.tasks; i++) ndone += (done[i] = claim.done[i] != 0);
    const double now = nq_clock_s();
    pthread_mutex_lock(&j->lock);
    *u = (unit){.j = j,
                .active = true,
                .n = claim.n,
                .first = claim.first_task,
                .tasks = claim.tasks,
                .done = done,
                .ndone = ndone,
                .committed = ndone,
                .sums = claim.sums,
                .claim = claim,
                .claimed = true,
                .renewed_at = now,
                .committed_at = now};
    nq_count_ctl_init(&u->ctl);
    j->stats.blocks_claimed++;
    /* The store says whether an earlier claim's lease lapsed on this block (a replica killed or
     * stalled); a block given up by a stopping replica, or never claimed, is not taken over. */
    const bool taken_over = claim.taken_over;
    j->stats.blocks_taken_over += taken_over;
    pthread_mutex_unlock(&j->lock);
    if (taken_over)
        nq_jobs_event(j, NQ_EVENT_INFO, "block taken over (an earlier claimer's lease lapsed)", claim.n,
                      (double)ndone / (double)(claim.tasks ? claim.tasks : 1), -1, NQ_OK);
    return true;
}

/* Without a store: the oldest queued count, as one unit of every task. Caller holds the lock. */
static bool acquire_local(nq_count_jobs *j, unit *u)
{
    int n = 0;
    for (int k = 1; k <= NQ_COUNT_N_MAX; k++)
        if (j->slots[k].state == NQ_JOB_QUEUED && (!n || j->slots[k].seq < j->slots[n].seq)) n = k;
    if (!n) return false;
    slot *s = &j->slots[n];
    uint32_t tasks = 0;
    nq_err rc = nq_count_plan(n, &tasks);
    uint8_t *done = rc == NQ_OK ? calloc(tasks, 1) : NULL;
    if (rc == NQ_OK && !done) rc = NQ_E_NOMEM;
    if (rc != NQ_OK) {
        s->state = NQ_JOB_NONE;
        s->err = rc;
        pthread_cond_broadcast(&j->changed);
        return false;
    }
    *u = (unit){.j = j, .active = true, .n = n, .tasks = tasks, .done = done};
    nq_count_ctl_init(&u->ctl);
    s->state = NQ_JOB_RUNNING;
    s->run_t0 = nq_clock_s();
    s->progress_t0 = 0.0;
    if (!s->started_at) s->started_at = nq_jobs_wall_s();
    pthread_cond_broadcast(&j->changed);
    return true;
}

/* The runner's session for n: the one it holds when it is for n, else a new one (the old one freed
 * first, so a runner never holds two counts' tables). NULL when out of memory. */
static nq_count_session *session_for(runner *r, int n)
{
    if (r->counts && nq_count_session_n(r->counts) == n) return r->counts;
    nq_count_session_destroy(r->counts);
    r->counts = NULL;
    (void)nq_count_session_create(n, &r->counts);
    return r->counts;
}

/* Count the unit's tasks not done yet, on the runner's session: the blocks of one count that a runner
 * takes one after another build the counter's tables once. Returns nq_count_session_tasks's result. */
static nq_err count_unit(nq_count_jobs *j, runner *r)
{
    unit *u = &r->u;
    /* The claim says how many tasks the plan has: no plan is made per block. */
    const uint32_t plan = u->claim.count_tasks ? u->claim.count_tasks : u->tasks;
    nq_err rc = NQ_OK;
    uint8_t *todo = calloc(plan ? plan : 1, 1);
    if (!todo) return NQ_E_NOMEM;
    bool any = false;
    pthread_mutex_lock(&j->lock);
    for (uint32_t i = 0; i < u->tasks && u->first + i < plan; i++) any |= (todo[u->first + i] = !u->done[i]) != 0;
    pthread_mutex_unlock(&j->lock);
    task_ctx t = {j, u};
    if (any) {
        nq_count_session *counts = session_for(r, u->n);
        rc = counts ? nq_count_session_tasks(counts, (int)j->cfg->count_threads, todo, &u->ctl, on_task, &t)
                    : NQ_E_NOMEM;
    }
    free(todo);
    return rc;
}

/* The count of n is done in the store (this replica finished its last block): check it, keep it,
 * publish it. */
static void count_completed(nq_count_jobs *j, int n)
{
    nq_store_count_view st;
    bool found = false;
    const double t0 = nq_clock_s();
    const nq_err rc = nq_store_count_state(j->store, n, &st, &found);
    nq_jobs_store_note(j, NQ_STORE_OP_READ, t0, rc);
    if (rc != NQ_OK || !found || st.status != NQ_STORE_DONE) return; /* the next read sees it */
    nq_job_view v;
    if (!nq_jobs_view_of_store(&st, &v)) {
        /* A block's sums damaged in the store: nothing of this count can be trusted, so it is
         * counted again from the start (its waiters see it queued again). */
        nq_jobs_event(j, NQ_EVENT_ERROR, "count failed its check (not the known count of its n); counted again", n, -1,
                      st.elapsed_s, NQ_E_INTERNAL);
        if (nq_store_forget_count(j->store, n) == NQ_OK) (void)nq_jobs_register(j, n, &v);
        return;
    }
    nq_jobs_remember(j, &st, &v);
    pthread_mutex_lock(&j->lock);
    j->stats.completed++;
    pthread_mutex_unlock(&j->lock);
    nq_jobs_event(j, NQ_EVENT_INFO, "count finished", n, 1.0, v.seconds, NQ_OK);
}

/* Write the unit's finished tasks through its claim; the caller holds its io. NQ_E_STORE_LOST when
 * the lease is gone. */
static nq_err commit_unit(nq_count_jobs *j, unit *u, bool *wrote)
{
    *wrote = false;
    pthread_mutex_lock(&j->lock);
    const uint32_t ndone = u->ndone;
    const bool dirty = ndone > u->committed;
    const nq_count_sums sums = u->sums;
    uint8_t *copy = dirty ? malloc(u->tasks) : NULL;
    if (copy) memcpy(copy, u->done, u->tasks);
    const nq_store_claim claim = u->claim;
    pthread_mutex_unlock(&j->lock);
    if (!copy) return dirty ? NQ_E_NOMEM : NQ_OK;
    const double t0 = nq_clock_s();
    const nq_err rc = nq_store_commit_tasks(j->store, &claim, copy, &sums);
    nq_jobs_store_note(j, NQ_STORE_OP_COMMIT, t0, rc);
    free(copy);
    pthread_mutex_lock(&j->lock);
    if (rc == NQ_OK) {
        u->committed = ndone;
        u->committed_at = nq_clock_s();
        j->stats.checkpoints++;
        *wrote = true;
    } else if (rc != NQ_E_STORE_LOST) {
        j->stats.checkpoint_failures++;
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

/* Finish the block: retried while the store cannot be reached (the keeper renews the lease
 * meanwhile), given up when it is lost or the service stops. */
static void finish_block(nq_count_jobs *j, unit *u)
{
    for (;;) {
        pthread_mutex_lock(&j->lock);
        io_take(j, u);
        const nq_count_sums sums = u->sums;
        const bool stopping = j->stopping;
        pthread_mutex_unlock(&j->lock);
        bool count_done = false;
        const double t0 = nq_clock_s();
        const nq_err rc = nq_store_finish_block(j->store, &u->claim, &sums, &count_done);
        nq_jobs_store_note(j, NQ_STORE_OP_FINISH, t0, rc);
        pthread_mutex_lock(&j->lock);
        bool lost = false;
        if (rc == NQ_OK) {
            u->claimed = false;
            j->stats.blocks_finished++;
        } else if (rc == NQ_E_STORE_LOST) {
            lost = mark_lost(j, u);
        }
        io_give(j, u);
        const bool again = rc != NQ_OK && rc != NQ_E_STORE_LOST && !stopping;
        if (again) nq_jobs_nap(j, RETRY_MS);
        pthread_mutex_unlock(&j->lock);
        if (lost) log_lost(j, u);
        if (rc == NQ_OK && count_done) count_completed(j, u->n);
        if (!again) return;
    }
}

/* A block not counted to the end (the service stops, or the count failed): what it finished is
 * committed, and the lease given up so that another replica takes it at once. */
static void give_up_block(nq_count_jobs *j, unit *u)
{
    pthread_mutex_lock(&j->lock);
    io_take(j, u);
    pthread_mutex_unlock(&j->lock);
    bool wrote = false;
    nq_err rc = commit_unit(j, u, &wrote);
    if (rc == NQ_OK) {
        const double t0 = nq_clock_s();
        rc = nq_store_release(j->store, &u->claim);
        nq_jobs_store_note(j, NQ_STORE_OP_RELEASE, t0, rc);
    }
    pthread_mutex_lock(&j->lock);
    const bool lost = rc == NQ_E_STORE_LOST && mark_lost(j, u);
    u->claimed = false;
    io_give(j, u);
    pthread_mutex_unlock(&j->lock);
    if (lost) log_lost(j, u);
}

/* The runner's block is counted, cancelled or failed: settle it with the store. */
static void settle_block(nq_count_jobs *j, unit *u, nq_err rc)
{
    pthread_mutex_lock(&j->lock);
    u->finishing = true;
    const bool lost = u->lost, complete = u->ndone == u->tasks;
    pthread_mutex_unlock(&j->lock);
    if (lost) {
        /* Logged where it was found; nothing of it is written any more. */
    } else if (complete) {
        finish_block(j, u);
    } else {
        if (rc != NQ_OK && rc != NQ_E_CANCELED) nq_jobs_event(j, NQ_EVENT_ERROR, "count failed", u->n, -1, -1, rc);
        give_up_block(j, u);
    }
}

/* Without a store: the count ended with rc. */
static void settle_local(nq_count_jobs *j, unit *u, nq_err rc)
{
    pthread_mutex_lock(&j->lock);
    slot *s = &j->slots[u->n];
    const double run = nq_clock_s() - s->run_t0;
    s->run_t0 = 0;
    const nq_counts c = nq_count_sums_counts(&u->sums);
    /* Every task counted is a finished count, even when a cancel came after the last one. */
    if (u->ndone == u->tasks && nq_jobs_counts_sound(u->n, &c)) {
        const int64_t at = nq_jobs_wall_s();
        pthread_mutex_unlock(&j->lock);
        const bool saved = !j->store || nq_jobs_save_count(j, u->n, &c, run, at, false); /* before anyone hears of it */
        pthread_mutex_lock(&j->lock);
        *s = (slot){.state = NQ_JOB_DONE,
                    .counts = c,
                    .seconds = run,
                    .finished_at = at,
                    .started_at = s->started_at,
                    .unsaved = !saved,
                    .save_failed = !saved};
        j->stats.completed++;
        pthread_mutex_unlock(&j->lock);
        nq_counts_publish(j->cache, u->n, &c, run, NULL);
        nq_jobs_event(j, NQ_EVENT_INFO, "count finished", u->n, 1.0, run, NQ_OK);
        pthread_mutex_lock(&j->lock);
    } else if (j->stopping) {
        s->state = NQ_JOB_QUEUED;
    } else {
        const nq_err err = rc == NQ_OK ? NQ_E_INTERNAL : rc;
        s->state = NQ_JOB_NONE; /* the next request starts it again */
        s->err = err;
        pthread_mutex_unlock(&j->lock);
        nq_jobs_event(j, NQ_EVENT_ERROR, "count failed", u->n, -1, run, err);
        pthread_mutex_lock(&j->lock);
    }
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
}

static void unit_clear(nq_count_jobs *j, unit *u)
{
    pthread_mutex_lock(&j->lock);
    while (u->io) pthread_cond_wait(&j->changed, &j->lock);
    free(u->done);
    nq_store_claim_clear(&u->claim);
    *u = (unit){.j = j};
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
}

/* An idle runner with a store: wait IDLE_POLL_MS, or less when a count is registered or queued
 * here, or the service stops (not on every other broadcast: each wake-up is a claim, a round trip).
 * Caller holds the lock. */
static void idle(nq_count_jobs *j)
{
    const uint64_t seq = j->next_seq;
    const double until = nq_clock_s() + IDLE_POLL_MS / 1000.0;
    while (!j->stopping && j->next_seq == seq) {
        const double left = until - nq_clock_s();
        if (left <= 0) break;
        nq_jobs_nap(j, (uint32_t)(left * 1000.0) + 1u);
    }
}

static void *runner_main(void *arg)
{
    runner *r = arg;
    nq_count_jobs *j = r->j;
    unit *u = &r->u;
    pthread_mutex_lock(&j->lock);
    while (!j->stopping) {
        bool got = acquire_local(j, u);
        if (!got && j->store) {
            const bool loaded = j->loaded;
            pthread_mutex_unlock(&j->lock);
            got = loaded && acquire_block(j, u);
            pthread_mutex_lock(&j->lock);
        }
        if (!got) {
            /* Idle: the tables go (a count's working memory is held only while there is work), freed
             * outside the lock: hundreds of megabytes from n = 20 on. */
            if (r->counts) {
                nq_count_session *counts = r->counts;
                r->counts = NULL;
                pthread_mutex_unlock(&j->lock);
                nq_count_session_destroy(counts);
                pthread_mutex_lock(&j->lock);
                continue; /* the state may have changed meanwhile: look again before idling */
            }
            if (j->store)
                idle(j); /* other replicas' counts are found by asking; ours wake it */
            else if (!j->stopping)
                pthread_cond_wait(&j->changed, &j->lock);
            continue;
        }
        if (j->stopping) nq_count_cancel(&u->ctl);
        const bool block = u->claimed;
        pthread_mutex_unlock(&j->lock);
        const nq_err rc = count_unit(j, r);
        if (block)
            settle_block(j, u, rc);
        else
            settle_local(j, u, rc);
        unit_clear(j, u);
        pthread_mutex_lock(&j->lock);
    }
    pthread_mutex_unlock(&j->lock);
    nq_count_session_destroy(r->counts);
    r->counts = NULL;
    return NULL;
}

/* ---- the keeper: leases, commits, late writes, gauges ---------------------------------------------- */

/* Renew u's lease and commit its tasks when they are due. */
static void keep_unit(nq_count_jobs *j, unit *u, double now)
{
    pthread_mutex_lock(&j->lock);
    const double renew_every = (double)j->cfg->lease_ms / 3000.0, commit_every = (double)j->cfg->checkpoint_ms / 1000.0;
    const bool renew = now - u->renewed_at >= renew_every;
    const bool commit = !u->finishing && u->ndone > u->committed && now - u->committed_at >= commit_every;
    if (!u->active || !u->claimed || u->lost || u->io || (!renew && !commit)) {
        pthread_mutex_unlock(&j->lock);
        return;
    }
    u->io = true;
    nq_store_claim claim = u->claim;
    const int n = u->n;
    pthread_mutex_unlock(&j->lock);
    nq_err rc = NQ_OK;
    if (renew) {
        const double t0 = nq_clock_s();
        rc = nq_store_renew(j->store, &claim, j->cfg->lease_ms);
        nq_jobs_store_note(j, NQ_STORE_OP_RENEW, t0, rc);
    }
    bool wrote = false;
    if (rc == NQ_OK && commit) rc = commit_unit(j, u, &wrote);
    pthread_mutex_lock(&j->lock);
    if (renew && rc == NQ_OK) {
        u->renewed_at = now;
        u->claim.lease_until_ms = claim.lease_until_ms;
    }
    const bool lost = rc == NQ_E_STORE_LOST && mark_lost(j, u);
    /* The log line's progress: the store's figure when last read, or this block's committed tasks
     * when they are more (a store file's one block is the whole count); a floor, never a sum that
     * could count this block's commits twice. */
    const slot *s = &j->slots[n];
    const uint32_t done = s->store_done > u->committed ? s->store_done : u->committed;
    const double p = s->store_tasks ? (double)done / (double)s->store_tasks : 0.0;
    io_give(j, u);
    pthread_mutex_unlock(&j->lock);
    if (lost) log_lost(j, u);
    if (wrote) nq_jobs_event(j, NQ_EVENT_DEBUG, "checkpoint written", n, p < 1.0 ? p : 1.0, -1, NQ_OK);
}

/* The keeper's period: a third of the lease, or the checkpoint interval when shorter. */
static uint32_t tick_ms(const nq_config *cfg)
{
    uint32_t t = cfg->lease_ms / 3u;
    if (cfg->checkpoint_ms < t) t = cfg->checkpoint_ms;
    return t < 10u ? 10u : t > 1000u ? 1000u : t;
}

static void *keeper_main(void *arg)
{
    nq_count_jobs *j = arg;
    pthread_mutex_lock(&j->lock);
    while (!j->stopping) {
        nq_jobs_nap(j, tick_ms(j->cfg));
        if (j->stopping) break;
        const bool loaded = j->loaded, stale = nq_clock_s() - j->refreshed_at >= REFRESH_S;
        pthread_mutex_unlock(&j->lock);
        if (!loaded && nq_jobs_load(j) == NQ_OK) {
            pthread_mutex_lock(&j->lock);
            j->loaded = true;
            pthread_cond_broadcast(&j->changed);
            pthread_mutex_unlock(&j->lock);
        }
        const double now = nq_clock_s();
        for (unsigned i = 0; i < j->nrunners; i++) keep_unit(j, &j->runners[i].u, now);
        nq_jobs_retry_unsaved(j);
        if (stale) {
            (void)nq_jobs_refresh(j);
        }
        pthread_mutex_lock(&j->lock);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* ---- starting and stopping the threads ------------------------------------------------------------ */

nq_err nq_jobs_threads_start(nq_count_jobs *j)
{
    const unsigned want = j->cfg->long_counts < RUNNERS_MAX ? j->cfg->long_counts : RUNNERS_MAX;
    for (unsigned i = 0; i < RUNNERS_MAX; i++) j->runners[i] = (runner){.j = j, .u = {.j = j}};
    while (j->nrunners < (want ? want : 1)) {
        runner *r = &j->runners[j->nrunners];
        if (pthread_create(&r->thread, NULL, runner_main, r) != 0) return NQ_E_THREAD;
        j->nrunners++; /* only started threads are joined */
    }
    if (j->store) {
        j->keeper_started = pthread_create(&j->keeper, NULL, keeper_main, j) == 0;
        if (!j->keeper_started) return NQ_E_THREAD;
    }
    return NQ_OK;
}

void nq_jobs_threads_stop(nq_count_jobs *j)
{
    pthread_mutex_lock(&j->lock);
    j->stopping = true;
    /* Each runner commits what its block finished and gives the lease up (a block whose last task
     * is counted is finished): the next claimer starts where it stopped. */
    for (unsigned i = 0; i < j->nrunners; i++)
        if (j->runners[i].u.active) nq_count_cancel(&j->runners[i].u.ctl);
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    for (unsigned i = 0; i < j->nrunners; i++) pthread_join(j->runners[i].thread, NULL);
    if (j->keeper_started) pthread_join(j->keeper, NULL);
}
