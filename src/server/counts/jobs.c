/* jobs.c - long counts: the interface of the service (see jobs.h) and what it reads and writes in
 * the store for its callers: registration (once for the whole store, bounded), views of a count and
 * of every count, waits, finished counts written after their response, the load at start-up. The
 * threads that count are runner.c's; the state both share is jobs_impl.h's.
 *
 * Views come from the store when there is one: a count in progress is what the store says (status,
 * tasks committed, the database's times), so every replica answers alike; a finished count is kept
 * in memory (a slot per n) and served from there, without the store. Without a store, memory is all.
 *
 * What the store holds is not taken on trust: a finished count must be the known one of its n
 * (OEIS A000170 and A002562) and make whole symmetry classes; one that is not is reported, forgotten
 * in the store and counted again when asked.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#endif
#include "counts/jobs.h"

#include "counts/jobs_impl.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/errors.h"
#include "counts/published.h"

#define WAIT_SLICE_MS 50   /* a waiter looks at its cancel flag this often */
#define WAIT_POLL_S 0.25   /* and reads the store this often */
#define ETA_MIN_RUN_S 0.5  /* an estimate needs this much of the current run... */
#define ETA_MIN_GAIN 0.002 /* ...and this much progress made in it */
#define BLOCK_TASKS_MIN 64 /* tasks in a block at least (each block costs a few round trips) */
#define FORGET_MAX 32      /* rows found unsound at load, forgotten after it */

/* ---- helpers ---------------------------------------------------------------------------------- */

int64_t nq_jobs_wall_s(void)
{
    return (int64_t)time(NULL);
}

/* now + ms as an absolute time on `changed`'s clock, for pthread_cond_timedwait: CLOCK_MONOTONIC
 * (a step of the wall clock must neither stall the keeper nor oversleep a waiter) wherever the
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

/* Wait on `changed` for up to ms unless stopping. Caller holds the lock. */
void nq_jobs_nap(nq_count_jobs *j, uint32_t ms)
{
    if (j->stopping) return;
    const struct timespec t = after_ms(j, ms);
    (void)pthread_cond_timedwait(&j->changed, &j->lock, &t);
}

void nq_jobs_event(const nq_count_jobs *j, nq_event_level level, const char *msg, int n, double progress,
                   double seconds, nq_err err)
{
    if (!j->events.fn) return;
    const nq_event e = {level, msg, n, progress, seconds, err != NQ_OK ? nq_error_name(err) : NULL};
    j->events.fn(j->events.ctx, &e);
}

const char *nq_store_op_label(nq_store_op op)
{
    static const char *const labels[] = {
#define NQ_STORE_OP_LABEL(name, label) [NQ_STORE_OP_##name] = (label),
        NQ_STORE_OPS(NQ_STORE_OP_LABEL)
#undef NQ_STORE_OP_LABEL
    };
    return (unsigned)op < NQ_STORE_OP_COUNT ? labels[op] : "";
}

/* Account for one store call of kind op that began at t0 (nq_clock_s) and returned rc. Takes the
 * lock. */
void nq_jobs_store_note(nq_count_jobs *j, nq_store_op op, double t0, nq_err rc)
{
    assert((unsigned)op < NQ_STORE_OP_COUNT);
    const double took = nq_clock_s() - t0;
    pthread_mutex_lock(&j->lock);
    j->stats.store_calls[op]++;
    j->stats.store_seconds[op] += took;
    if (rc != NQ_OK && rc != NQ_E_STORE_LOST) j->stats.store_errors++;
    /* Any answer, a refusal included, reached the database; only an unreachable one did not. */
    j->stats.store_up = rc != NQ_E_STORE_UNAVAILABLE;
    pthread_mutex_unlock(&j->lock);
}

/* Whether c can be the count of n: the known one (every n this release counts has one), and whole
 * symmetry classes of 1 to 8 solutions (the identity the counter checks on its own sums). */
bool nq_jobs_counts_sound(int n, const nq_counts *c)
{
    nq_counts known = {0, 0};
    if (!nq_count_known(n, &known)) return c->unique <= c->total && c->total <= 8 * c->unique;
    return c->total == known.total && c->unique == known.unique;
}

/* Tasks per block of n's plan of `tasks` in a shared store. A runner keeps the counter's tables from
 * one block of a count to the next (nq_count_session), so a block costs its tasks and a few store
 * round trips (its claim and its finish; a renew and a commit every few seconds). Replicas take the
 * blocks in plan order as they get free, so many small blocks even out the drift of task costs along
 * the plan (contiguous parts of it differ by up to 65%: docs/performance.md, bench_schedule); each
 * stays long enough that its round trips (about 3 ms) are under 1% of its counting: 8 blocks up to
 * n = 18 (counts of seconds), 32 at n = 19 and 64 at n = 20 (about 0.4 and 1 s of counting a block on
 * one thread), 1024 at n = 21 and 22 (about 1 and 6 s), 4096 at n = 23 (about 25 s). Above 23 the
 * meet-in-the-middle counter keeps nothing between calls (a session there is nq_count_tasks), so
 * every block builds its table again (1 to 2 s): 256 blocks, as before sessions. */
static uint32_t block_tasks_for(int n, uint32_t tasks)
{
    const uint32_t target = n <= 18 ? 8u : n == 19 ? 32u : n == 20 ? 64u : n <= 22 ? 1024u : n == 23 ? 4096u : 256u;
    const uint32_t per = (tasks + target - 1) / target;
    return per > BLOCK_TASKS_MIN ? per : BLOCK_TASKS_MIN;
}

static size_t count_state(const nq_count_jobs *j, nq_job_state st)
{
    size_t c = 0;
    for (int n = 1; n <= NQ_COUNT_N_MAX; n++) c += j->slots[n].state == st;
    return c;
}

static void view_none(int n, nq_job_view *v)
{
    memset(v, 0, sizeof *v);
    v->n = n;
    v->eta_s = -1.0;
}

static void view_done(const slot *s, int n, nq_job_view *v)
{
    view_none(n, v);
    v->state = NQ_JOB_DONE;
    v->progress = 1.0;
    v->counts = s->counts;
    v->seconds = v->elapsed_s = s->seconds;
    v->since = s->finished_at;
    v->eta_s = 0.0;
}

/* The unit counting n, or NULL (without a store, one at most). Caller holds the lock. */
static const unit *unit_of(const nq_count_jobs *j, int n)
{
    for (unsigned i = 0; i < j->nrunners; i++)
        if (j->runners[i].u.active && j->runners[i].u.n == n) return &j->runners[i].u;
    return NULL;
}

/* Without a store: the view memory holds. Caller holds the lock. */
static void view_local(const nq_count_jobs *j, int n, nq_job_view *v)
{
    const slot *s = &j->slots[n];
    if (s->state == NQ_JOB_DONE) {
        view_done(s, n, v);
        return;
    }
    view_none(n, v);
    v->state = s->state;
    v->since = s->started_at;
    if (s->state == NQ_JOB_NONE) return;
    const unit *u = unit_of(j, n);
    double p = 0.0;
    if (u && u->tasks) {
        const double own = (double)u->ndone / (double)u->tasks, ctl = nq_count_progress(&u->ctl);
        p = own > ctl ? own : ctl;
    }
    v->progress = p < 1.0 ? p : 1.0;
    const double run = s->run_t0 > 0 ? nq_clock_s() - s->run_t0 : 0.0;
    v->elapsed_s = run;
    const double gain = v->progress - s->progress_t0;
    if (s->state == NQ_JOB_RUNNING && run >= ETA_MIN_RUN_S && gain >= ETA_MIN_GAIN)
        v->eta_s = (1.0 - v->progress) * run / gain;
}

/* A count as the store holds it, into *v; false when it is a finished count that is not sound. */
bool nq_jobs_view_of_store(const nq_store_count_view *st, nq_job_view *v)
{
    view_none(st->n, v);
    if (st->status == NQ_STORE_DONE) {
        if (!nq_jobs_counts_sound(st->n, &st->counts)) return false;
        v->state = NQ_JOB_DONE;
        v->progress = 1.0;
        v->counts = st->counts;
        v->seconds = v->elapsed_s = st->elapsed_s;
        v->since = st->finished_at;
        v->eta_s = 0.0;
        return true;
    }
    v->state = st->status == NQ_STORE_QUEUED ? NQ_JOB_QUEUED : NQ_JOB_RUNNING;
    const double p = st->tasks ? (double)st->tasks_done / (double)st->tasks : 0.0;
    v->progress = p < 1.0 ? p : 1.0;
    v->elapsed_s = st->elapsed_s;
    v->since = st->started_at_ms / 1000;
    /* The rate since registration, on every replica alike (queue time included: an estimate). */
    if (v->state == NQ_JOB_RUNNING && st->elapsed_s >= ETA_MIN_RUN_S && v->progress >= ETA_MIN_GAIN)
        v->eta_s = (1.0 - v->progress) * st->elapsed_s / v->progress;
    return true;
}

/* Remember what the store said of n: a finished count is kept (and published), an active one's
 * figures are kept for the log. Takes the lock. */
void nq_jobs_remember(nq_count_jobs *j, const nq_store_count_view *st, const nq_job_view *v)
{
    if (st->n < NQ_N_MIN || st->n > NQ_COUNT_N_MAX) return;
    pthread_mutex_lock(&j->lock);
    slot *s = &j->slots[st->n];
    const bool fresh = v->state == NQ_JOB_DONE && s->state != NQ_JOB_DONE;
    if (fresh) {
        *s = (slot){.state = NQ_JOB_DONE, .counts = v->counts, .seconds = v->seconds, .finished_at = v->since};
        pthread_cond_broadcast(&j->changed);
    } else if (v->state != NQ_JOB_DONE) {
        s->store_tasks = st->tasks;
        s->store_done = st->tasks_done;
    }
    pthread_mutex_unlock(&j->lock);
    if (fresh) nq_counts_publish(j->cache, st->n, &v->counts, v->seconds, NULL);
}

/* ---- reading the store --------------------------------------------------------------------------- */

/* A store file of one replica: its one claimer holds the whole count as one block and commits it
 * every --checkpoint-ms, so the tasks it has counted are the progress and the store's figure lags
 * behind. Both figures only grow, and the larger of the two is taken: adding the claimer's
 * uncommitted tasks to the store's figure instead would count a commit twice, or not at all, when
 * it lands between the store read and this one, and the progress would go back on the next poll.
 * The claimer's unit stays active until its finished count is remembered, so a count that finished
 * since the store was read is seen here as done. Never with a shared store: another replica must
 * not see less than this one said. */
static void add_counted(nq_count_jobs *j, const nq_store_count_view *st, nq_job_view *v)
{
    if (v->state == NQ_JOB_DONE || !st->tasks) return;
    uint32_t counted = st->tasks_done;
    pthread_mutex_lock(&j->lock);
    const slot *s = &j->slots[st->n];
    if (s->state == NQ_JOB_DONE) {
        view_done(s, st->n, v);
        pthread_mutex_unlock(&j->lock);
        return;
    }
    for (unsigned i = 0; i < j->nrunners; i++) {
        const unit *u = &j->runners[i].u;
        const bool whole = u->first == 0 && u->tasks == st->tasks;
        if (u->active && u->n == st->n && !u->lost && whole && u->ndone > counted) counted = u->ndone;
    }
    pthread_mutex_unlock(&j->lock);
    const double p = (double)counted / (double)st->tasks;
    v->progress = p < 1.0 ? p : 1.0;
}

/* n as the store holds it. Memory answers for a count known finished. *unsound (may be NULL) is
 * set when the store holds a finished count of n that is not its known count (read as NONE). */
static nq_err read_store_checked(nq_count_jobs *j, int n, nq_job_view *v, bool *unsound)
{
    if (unsound) *unsound = false;
    pthread_mutex_lock(&j->lock);
    const bool known = j->slots[n].state != NQ_JOB_NONE; /* finished, or counted in memory */
    if (known) view_local(j, n, v);
    pthread_mutex_unlock(&j->lock);
    if (known) return NQ_OK;
    view_none(n, v);
    nq_store_count_view st;
    bool found = false;
    const double t0 = nq_clock_s();
    const nq_err rc = nq_store_count_state(j->store, n, &st, &found);
    nq_jobs_store_note(j, NQ_STORE_OP_READ, t0, rc);
    if (rc != NQ_OK || !found) return rc;
    if (!nq_jobs_view_of_store(&st, v)) {
        view_none(n, v); /* counted again when asked: the start forgets it first */
        if (unsound) *unsound = true;
        return NQ_OK;
    }
    nq_jobs_remember(j, &st, v);
    if (!nq_store_shared(j->store)) add_counted(j, &st, v);
    return NQ_OK;
}

static nq_err read_store(nq_count_jobs *j, int n, nq_job_view *v)
{
    return read_store_checked(j, n, v, NULL);
}

typedef struct list_ctx {
    nq_count_jobs *j;
    nq_job_view *out;
    size_t cap, len;
    size_t queued, running; /* active counts seen */
} list_ctx;

static bool list_one(void *arg, const nq_store_count_view *st)
{
    list_ctx *c = arg;
    nq_job_view v;
    if (st->n < NQ_N_MIN || st->n > NQ_COUNT_N_MAX || !nq_jobs_view_of_store(st, &v)) return true;
    nq_jobs_remember(c->j, st, &v);
    if (!nq_store_shared(c->j->store)) add_counted(c->j, st, &v);
    c->queued += v.state == NQ_JOB_QUEUED;
    c->running += v.state == NQ_JOB_RUNNING;
    if (c->out && c->len < c->cap) c->out[c->len++] = v;
    return true;
}

/* Every count of the store into c (c->out may be NULL: only the figures). */
static nq_err list_store(nq_count_jobs *j, list_ctx *c)
{
    const double t0 = nq_clock_s();
    const nq_err rc = nq_store_each_count_state(j->store, list_one, NULL, c);
    nq_jobs_store_note(j, NQ_STORE_OP_READ, t0, rc);
    if (rc == NQ_OK) {
        pthread_mutex_lock(&j->lock);
        j->store_queued = c->queued;
        j->store_running = c->running;
        j->refreshed_at = nq_clock_s();
        pthread_mutex_unlock(&j->lock);
    }
    return rc;
}

nq_err nq_jobs_refresh(nq_count_jobs *j)
{
    list_ctx c = {.j = j};
    return list_store(j, &c);
}

/* ---- the store: finished counts written after the fact ---------------------------------------- */

/* Write the finished count of n; true when stored. A failure is logged unless `quiet` (it was
 * logged already: the keeper retries every tick while the store refuses). Never under the lock. */
bool nq_jobs_save_count(nq_count_jobs *j, int n, const nq_counts *c, double seconds, int64_t at, bool quiet)
{
    const nq_store_count row = {n, *c, seconds, at};
    const double t0 = nq_clock_s();
    const nq_err rc = nq_store_put_count(j->store, &row);
    nq_jobs_store_note(j, NQ_STORE_OP_WRITE, t0, rc);
    if (rc == NQ_OK) return true;
    pthread_mutex_lock(&j->lock);
    j->stats.store_failures++;
    pthread_mutex_unlock(&j->lock);
    if (!quiet)
        nq_jobs_event(j, NQ_EVENT_WARN, "finished count not stored; kept in memory, retried later", n, -1, seconds, rc);
    return false;
}

/* Write every finished count the store has not taken yet (counted within a request, or refused). */
void nq_jobs_retry_unsaved(nq_count_jobs *j)
{
    for (int n = 1; n <= NQ_COUNT_N_MAX; n++) {
        pthread_mutex_lock(&j->lock);
        const slot s = j->slots[n];
        pthread_mutex_unlock(&j->lock);
        if (s.state != NQ_JOB_DONE || !s.unsaved) continue;
        const bool saved = nq_jobs_save_count(j, n, &s.counts, s.seconds, s.finished_at, s.save_failed);
        pthread_mutex_lock(&j->lock);
        const bool failed_before = j->slots[n].save_failed;
        j->slots[n].unsaved = !saved;
        j->slots[n].save_failed = failed_before || !saved;
        pthread_mutex_unlock(&j->lock);
        if (saved && failed_before)
            nq_jobs_event(j, NQ_EVENT_INFO, "finished count stored after a failed write", n, 1.0, s.seconds, NQ_OK);
    }
}

/* ---- start-up: what the store holds ------------------------------------------------------------- */

typedef struct load_ctx {
    nq_count_jobs *j;
    int forget[FORGET_MAX]; /* n whose rows are unsound: forgotten after the reading */
    size_t nforget;
} load_ctx;

static void forget_later(load_ctx *c, int n)
{
    if (n >= NQ_N_MIN && n <= NQ_COUNT_N_MAX && c->nforget < FORGET_MAX) c->forget[c->nforget++] = n;
}

/* The store's report of a row that failed its check: ignored, forgotten, counted again when asked. */
static void load_damaged(void *arg, int n, bool checkpoint)
{
    load_ctx *c = arg;
    nq_jobs_event(c->j, NQ_EVENT_WARN,
                  checkpoint
                      ? "checkpoint ignored (it fails its check value: damaged or edited)"
                      : "stored count ignored (it fails its check value: damaged or edited); counted again when asked",
                  n, -1, -1, NQ_E_STORE_CORRUPT);
    forget_later(c, n);
}

static bool load_count(void *arg, const nq_store_count *row)
{
    load_ctx *c = arg;
    nq_count_jobs *j = c->j;
    if (row->n < NQ_N_MIN || row->n > NQ_COUNT_N_MAX) return true; /* not a board this release counts */
    if (!nq_jobs_counts_sound(row->n, &row->counts)) {
        nq_jobs_event(j, NQ_EVENT_WARN, "stored count ignored (not the known count of its n); counted again when asked",
                      row->n, -1, -1, NQ_E_STORE_CORRUPT);
        forget_later(c, row->n);
        return true;
    }
    j->slots[row->n] =
        (slot){.state = NQ_JOB_DONE, .counts = row->counts, .seconds = row->seconds, .finished_at = row->finished_at};
    nq_counts_publish(j->cache, row->n, &row->counts, row->seconds, NULL);
    return true;
}

/* A count registered in the store and not finished: this replica joins it when it can. */
static bool load_state(void *arg, const nq_store_count_view *st)
{
    load_ctx *c = arg;
    nq_count_jobs *j = c->j;
    if (st->status == NQ_STORE_DONE || st->n < NQ_N_MIN || st->n > NQ_COUNT_N_MAX) return true;
    if (st->plan != NQ_COUNT_PLAN_VERSION || st->n > j->cfg->max_n_count) {
        nq_jobs_event(j, NQ_EVENT_INFO, "count left to other replicas (another plan, or n beyond --max-n-count)", st->n,
                      -1, -1, NQ_OK);
        return true;
    }
    j->stats.resumed++;
    const double p = st->tasks ? (double)st->tasks_done / (double)st->tasks : 0.0;
    nq_jobs_event(j, NQ_EVENT_INFO, "count resumes from its checkpoint", st->n, p, -1, NQ_OK);
    return true;
}

/* A checkpoint of the single-replica form (an upgrade made a registered count of it already): one
 * of an n now answered within its request is said so; the finished count made then replaces it. */
static bool load_checkpoint(void *arg, const nq_store_checkpoint *cp)
{
    const load_ctx *c = arg;
    if (cp->n < c->j->cfg->long_count_n)
        nq_jobs_event(c->j, NQ_EVENT_INFO, "checkpoint not resumed (n is below --long-count-n: counted when asked)",
                      cp->n, -1, -1, NQ_OK);
    return true;
}

nq_err nq_jobs_load(nq_count_jobs *j)
{
    load_ctx c = {.j = j};
    pthread_mutex_lock(&j->lock);
    for (int n = 1; n <= NQ_COUNT_N_MAX; n++)
        if (!j->slots[n].unsaved) j->slots[n] = (slot){0}; /* a retry after a failed read starts clean */
    j->stats.resumed = 0;
    pthread_mutex_unlock(&j->lock);
    nq_err rc = nq_store_each_count(j->store, load_count, load_damaged, &c);
    if (rc == NQ_OK) rc = nq_store_each_count_state(j->store, load_state, load_damaged, &c);
    if (rc == NQ_OK) rc = nq_store_each_checkpoint(j->store, load_checkpoint, NULL, &c);
    for (size_t i = 0; rc == NQ_OK && i < c.nforget; i++) rc = nq_store_forget_count(j->store, c.forget[i]);
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
    pthread_mutex_init(&j->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    j->clock = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 ? CLOCK_MONOTONIC : CLOCK_REALTIME;
    pthread_cond_init(&j->changed, &attr);
    pthread_condattr_destroy(&attr);
    nq_err rc = NQ_OK;
    j->stats.store_up = true;
    if (store) {
        rc = nq_jobs_load(j);
        j->stats.store_up = rc != NQ_E_STORE_UNAVAILABLE;
        /* A database that cannot be reached now is not fatal: the keeper reads it once it can. */
        if (rc == NQ_E_STORE_UNAVAILABLE)
            rc = NQ_OK;
        else if (rc == NQ_OK)
            j->loaded = true;
        if (j->loaded) (void)nq_jobs_refresh(j);
    }
    if (rc == NQ_OK) rc = nq_jobs_threads_start(j);
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
    nq_jobs_threads_stop(j);
    if (j->store) nq_jobs_retry_unsaved(j); /* one more try for a finished count the store refused */
    pthread_cond_destroy(&j->changed);
    pthread_mutex_destroy(&j->lock);
    free(j);
}

/* The active counts of the whole store (queued or running) into *active. */
static nq_err store_active(nq_count_jobs *j, size_t *active)
{
    list_ctx c = {.j = j};
    const nq_err rc = list_store(j, &c);
    *active = c.queued + c.running;
    return rc;
}

/* Queue n in memory (no store, or a store file that cannot take the registration): bounded by
 * `active` counts already going elsewhere. Caller holds the lock. */
static nq_err queue_local(nq_count_jobs *j, int n, size_t active)
{
    slot *s = &j->slots[n];
    if (s->state != NQ_JOB_NONE) return NQ_OK;
    active += count_state(j, NQ_JOB_QUEUED) + count_state(j, NQ_JOB_RUNNING);
    if (active >= (size_t)j->cfg->long_counts + j->cfg->long_count_queue) return NQ_E_BUSY;
    s->state = NQ_JOB_QUEUED;
    s->err = NQ_OK;
    s->seq = j->next_seq++;
    if (!s->started_at) s->started_at = nq_jobs_wall_s();
    pthread_cond_broadcast(&j->changed);
    return NQ_OK;
}

/* Register n in the store: *v its state after. */
nq_err nq_jobs_register(nq_count_jobs *j, int n, nq_job_view *v)
{
    uint32_t tasks = 0;
    nq_err rc = nq_count_plan(n, &tasks);
    if (rc != NQ_OK) return rc;
    bool created = false;
    nq_store_count_view st;
    const double t0 = nq_clock_s();
    /* One claimer (a store file): one block, one call of the counter, as a count in memory. */
    const uint32_t per = nq_store_shared(j->store) ? block_tasks_for(n, tasks) : tasks;
    rc = nq_store_register_count(j->store, n, NQ_COUNT_PLAN_VERSION, tasks, per, &created, &st);
    nq_jobs_store_note(j, NQ_STORE_OP_REGISTER, t0, rc);
    if (rc != NQ_OK) return rc;
    if (!nq_jobs_view_of_store(&st, v)) view_none(n, v);
    nq_jobs_remember(j, &st, v);
    pthread_mutex_lock(&j->lock);
    if (created) j->stats.checkpoints++; /* the count is in the store before its first task */
    j->next_seq++;                       /* a runner here claims its first block at once */
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    if (created) nq_jobs_event(j, NQ_EVENT_INFO, "count starts", n, 0.0, -1, NQ_OK);
    return NQ_OK;
}

/* With a store: register n unless the store knows it; bounded for the whole store. */
static nq_err start_store(nq_count_jobs *j, int n, nq_job_view *v)
{
    bool unsound = false;
    nq_err rc = read_store_checked(j, n, v, &unsound);
    if (rc != NQ_OK || v->state != NQ_JOB_NONE) return rc;
    size_t active = 0;
    rc = store_active(j, &active);
    if (rc != NQ_OK) return rc;
    /* A finished count that is not the known one is forgotten first, or the registration would
     * skip n (never anything else: another replica may be registering n now). */
    if (unsound) {
        nq_jobs_event(j, NQ_EVENT_WARN, "stored count ignored (not the known count of its n); counted again when asked",
                      n, -1, -1, NQ_E_STORE_CORRUPT);
        (void)nq_store_forget_count(j->store, n);
    }
    pthread_mutex_lock(&j->lock);
    const bool busy = active + count_state(j, NQ_JOB_QUEUED) + count_state(j, NQ_JOB_RUNNING) >=
                      (size_t)j->cfg->long_counts + j->cfg->long_count_queue;
    pthread_mutex_unlock(&j->lock);
    if (busy) return NQ_E_BUSY;
    rc = nq_jobs_register(j, n, v);
    /* A file that cannot be written (full disk, read-only) does not stop the count of its one
     * replica: it runs in memory, as without a store, and its result is written when it can be. */
    if ((rc == NQ_E_STORE_FULL || rc == NQ_E_STORE_IO) && !nq_store_shared(j->store)) {
        nq_jobs_event(j, NQ_EVENT_WARN, "count not registered in the store; counted in memory", n, -1, -1, rc);
        pthread_mutex_lock(&j->lock);
        rc = queue_local(j, n, active);
        view_local(j, n, v);
        pthread_mutex_unlock(&j->lock);
    }
    return rc;
}

nq_err nq_count_jobs_start(nq_count_jobs *j, int n, nq_job_view *view)
{
    if (!j || n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_ARG;
    nq_job_view v;
    nq_err rc = NQ_OK;
    pthread_mutex_lock(&j->lock);
    const bool stopping = j->stopping;
    pthread_mutex_unlock(&j->lock);
    if (stopping) {
        rc = NQ_E_DRAINING;
        nq_count_jobs_view(j, n, &v);
    } else if (j->store) {
        rc = start_store(j, n, &v);
    } else {
        pthread_mutex_lock(&j->lock);
        rc = queue_local(j, n, 0);
        view_local(j, n, &v);
        pthread_mutex_unlock(&j->lock);
    }
    if (view) *view = v;
    return rc;
}

nq_err nq_count_jobs_wait(nq_count_jobs *j, int n, uint32_t wait_ms, const atomic_bool *cancel, nq_job_view *view)
{
    if (!j || !view || n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_ARG;
    const double until = nq_clock_s() + (double)wait_ms / 1000.0;
    double read_at = 0.0;
    nq_err rc = NQ_OK;
    pthread_mutex_lock(&j->lock);
    for (;;) {
        const slot *s = &j->slots[n];
        if (s->state == NQ_JOB_DONE) break;
        /* In memory: without a store, or counted there because the store file refused it. */
        const bool local = !j->store || s->state != NQ_JOB_NONE;
        if (local && s->state == NQ_JOB_NONE) {
            rc = s->err != NQ_OK ? s->err : NQ_E_INTERNAL;
            break;
        }
        if (j->stopping) {
            rc = NQ_E_DRAINING;
            break;
        }
        if (!local && nq_clock_s() - read_at >= WAIT_POLL_S) {
            pthread_mutex_unlock(&j->lock);
            rc = read_store(j, n, view);
            read_at = nq_clock_s();
            pthread_mutex_lock(&j->lock);
            /* NONE is waited out too: a count that failed its check is registered again. */
            if (rc != NQ_OK || view->state == NQ_JOB_DONE) break;
        }
        const double left = until - nq_clock_s();
        if ((wait_ms != UINT32_MAX && left <= 0) || (cancel && atomic_load(cancel))) break;
        const double slice = wait_ms == UINT32_MAX || left * 1000.0 > WAIT_SLICE_MS ? WAIT_SLICE_MS : left * 1000.0;
        const struct timespec t = after_ms(j, (uint32_t)slice + 1u); /* rounded up: never a busy loop */
        (void)pthread_cond_timedwait(&j->changed, &j->lock, &t);
    }
    const bool local = !j->store || j->slots[n].state != NQ_JOB_NONE;
    if (local) view_local(j, n, view);
    pthread_mutex_unlock(&j->lock);
    if (!local && rc == NQ_OK && read_at == 0.0) rc = read_store(j, n, view);
    return rc;
}

nq_err nq_count_jobs_read(nq_count_jobs *j, int n, nq_job_view *view)
{
    if (!j || n < NQ_N_MIN || n > NQ_COUNT_N_MAX) {
        view_none(n, view);
        return NQ_E_ARG;
    }
    if (j->store) return read_store(j, n, view);
    pthread_mutex_lock(&j->lock);
    view_local(j, n, view);
    pthread_mutex_unlock(&j->lock);
    return NQ_OK;
}

void nq_count_jobs_view(nq_count_jobs *j, int n, nq_job_view *view)
{
    (void)nq_count_jobs_read(j, n, view);
}

void nq_count_jobs_record(nq_count_jobs *j, int n, const nq_counts *c, double seconds)
{
    if (!j || n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return;
    const int64_t at = nq_jobs_wall_s();
    pthread_mutex_lock(&j->lock);
    slot *s = &j->slots[n];
    if (s->state == NQ_JOB_NONE) { /* else a long count of the same n, or already recorded */
        *s = (slot){.state = NQ_JOB_DONE,
                    .counts = *c,
                    .seconds = seconds,
                    .finished_at = at,
                    .started_at = at,
                    .unsaved = j->store != NULL};
        pthread_cond_broadcast(&j->changed); /* wakes the keeper too: it writes the count */
    }
    pthread_mutex_unlock(&j->lock);
}

static int newest_first(const void *a, const void *b)
{
    const nq_job_view *x = a, *y = b;
    if (x->since != y->since) return x->since > y->since ? -1 : 1;
    return x->n > y->n ? -1 : x->n < y->n; /* same second: the larger board first */
}

nq_err nq_count_jobs_list_all(nq_count_jobs *j, nq_job_view *out, size_t cap, size_t *len)
{
    *len = 0;
    if (!j || !out) return NQ_E_ARG;
    nq_err rc = NQ_OK;
    bool listed[NQ_COUNT_N_MAX + 1] = {false};
    if (j->store) {
        list_ctx c = {.j = j, .out = out, .cap = cap};
        rc = list_store(j, &c);
        *len = rc == NQ_OK ? c.len : 0;
        for (size_t i = 0; i < *len; i++) listed[out[i].n] = true;
    }
    pthread_mutex_lock(&j->lock);
    /* Without a store, memory is the list; with one, what the store has not taken yet is added (a
     * count answered within its request is written after its response), and on a failed read the
     * finished counts memory holds are all there is. */
    for (int n = 1; n <= NQ_COUNT_N_MAX && *len < cap; n++) {
        const slot *s = &j->slots[n];
        const bool active = s->state == NQ_JOB_QUEUED || s->state == NQ_JOB_RUNNING; /* in memory */
        const bool add = !j->store ? s->state != NQ_JOB_NONE
                                   : !listed[n] && (active || (s->state == NQ_JOB_DONE && (s->unsaved || rc != NQ_OK)));
        if (add) view_local(j, n, &out[(*len)++]);
    }
    pthread_mutex_unlock(&j->lock);
    qsort(out, *len, sizeof *out, newest_first);
    return rc;
}

size_t nq_count_jobs_list(nq_count_jobs *j, nq_job_view *out, size_t cap)
{
    size_t len = 0;
    (void)nq_count_jobs_list_all(j, out, cap, &len);
    return len;
}

void nq_count_jobs_stats_get(nq_count_jobs *j, nq_count_jobs_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!j) return;
    pthread_mutex_lock(&j->lock);
    *out = j->stats;
    out->finished = count_state(j, NQ_JOB_DONE);
    if (j->store) {
        out->queued = j->store_queued;
        out->running = j->store_running;
    } else {
        out->queued = count_state(j, NQ_JOB_QUEUED);
        out->running = count_state(j, NQ_JOB_RUNNING);
    }
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
