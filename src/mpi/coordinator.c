/* coordinator.c - rank 0 of nqueens-mpi: the work queue, the exact sums, progress and checkpoints.
 *
 * Scheduling: the plan is cut into blocks of consecutive tasks (nq_count_block: 32 or more a chunk;
 * neighbouring tasks share tables a worker keeps, so a chunk rebuilds them about once a block), and
 * the tasks not done are queued a block at a time in 64 interleaved passes over the blocks (blocks r,
 * r + 64, r + 128, ...), so that any run of the queue samples the whole plan, whose cost drifts along
 * its indices, and equal chunks cost about the same. They are handed out on request in chunks of
 * ceil(tasks / (2 x workers)): every worker takes one, and the second half of the work goes to
 * whichever worker is free first, so a worker up to twice as slow as the others (another job on its
 * node, a slower CPU) does not hold up the end. Each chunk is one nq_count_tasks call, which first
 * builds the method's tables (measured, CPU time on one thread: 0.21 s at n = 18, 0.88 s at n = 19,
 * 2.3 s at n = 20), so more, smaller chunks would spend their time building tables: simulated from
 * measured task times (bench/bench_schedule, docs/performance.md), two chunks per worker give 71%
 * efficiency at n = 20 on 8 workers, where one static shard each gives 84%.
 *
 * Rank 0 waits by polling (MPI_Iprobe, then a 2 ms sleep) rather than in a blocking receive, which
 * in Open MPI spins a core: on a machine where the ranks share cores it would steal a worker's.
 */
#include "mpi_count.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkpoint.h"
#include "nqueens/json.h"

#define POLL_NS 2000000L     /* 2 ms between looks for a message */
#define WATCH_NS 50000000L   /* 50 ms between looks for a stop while rank 0 counts alone */
#define PROGRESS_S 1.0       /* least seconds between two progress lines */
#define CHUNKS_PER_WORKER 2u /* a chunk is ceil(tasks / (CHUNKS_PER_WORKER x workers)) tasks */
#define STRIDE 64u           /* the queue visits the plan's blocks in STRIDE interleaved passes */

/* Everything rank 0 keeps while the count runs. */
typedef struct coordinator {
    const nq_mpi_opts *opts;          /* n, checkpoint path and interval */
    FILE *err;                        /* progress and diagnostics */
    nq_mpi_checkpoint cp;             /* done tasks and their sums: the state that is checkpointed */
    uint32_t *queue;                  /* the tasks not done at the start, blocks in interleaved passes */
    uint32_t queued;                  /* how many */
    uint32_t next;                    /* queue[next..queued) are not handed out yet */
    uint32_t chunk;                   /* tasks per chunk */
    int workers;                      /* ranks 1..workers */
    int active;                       /* workers that owe a last message: not told to stop, or told at a stop */
    uint8_t *told;                    /* per worker 1..workers: it has had its STOP, or left at the start */
    uint8_t *owes;                    /* per worker 1..workers: it owes its last message (in told's block) */
    bool stopping;                    /* the job is stopping (mpi_count.h): nothing more is handed out */
    bool dismissed;                   /* every worker has had its STOP or has left: none waits or counts */
    double t0;                        /* start, seconds on the monotonic clock */
    double last_progress;             /* when the last progress line was written */
    uint32_t shown;                   /* tasks done in the last progress line */
    double last_save;                 /* when the checkpoint was last written */
    bool dirty;                       /* tasks marked since the last write */
    pthread_mutex_t lock;             /* guards cp, dirty and the times when rank 0 counts on threads */
    nq_count_ctl ctl;                 /* rank 0 counting alone: cancelled on a stop or a failed write */
    bool save_failed;                 /* a checkpoint write failed (save said so): not tried again */
    bool worker_failed;               /* a worker's count failed (it said so with FAIL) */
    uint64_t id[NQ_MPI_IDENTITY_LEN]; /* this count's identity, which every worker's must equal */
} coordinator;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Write the checkpoint (when there is one) if forced, or if there is news and it is time. */
static bool save(coordinator *c, bool force)
{
    const double t = now_s();
    if (c->opts->checkpoint == NULL || !c->dirty || (!force && t - c->last_save < c->opts->every_s)) return true;
    char why[256];
    if (!nq_mpi_checkpoint_save(c->opts->checkpoint, &c->cp, why, sizeof why)) {
        fprintf(c->err, "nqueens-mpi: checkpoint %s: %s\n", c->opts->checkpoint, why);
        return false;
    }
    c->dirty = false;
    c->last_save = t;
    return true;
}

/* "nqueens-mpi: n = 17: 3554 of 7108 tasks (50%), 3.1 s" at most once per PROGRESS_S, and at the end. */
static void progress(coordinator *c, bool force)
{
    const double t = now_s();
    if ((!force && t - c->last_progress < PROGRESS_S) || (force && c->shown == c->cp.ndone)) return;
    c->last_progress = t;
    c->shown = c->cp.ndone;
    fprintf(c->err, "nqueens-mpi: n = %d: %u of %u tasks (%u%%), %.1f s\n", c->opts->n, c->cp.ndone, c->cp.tasks,
            (unsigned)((uint64_t)c->cp.ndone * 100u / c->cp.tasks), t - c->t0);
    fflush(c->err);
}

/* Take in one message's results; false for a malformed one. */
static bool take_results(coordinator *c, const uint64_t *v, int len)
{
    if (len % 3 != 0) return false;
    for (int i = 0; i < len; i += 3) {
        const nq_count_sums sums = {v[i + 1], v[i + 2]};
        if (v[i] >= c->cp.tasks) return false;
        /* A task reported twice (it cannot be, but a duplicate must never be added twice). */
        if (nq_mpi_checkpoint_mark(&c->cp, (uint32_t)v[i], &sums)) c->dirty = true;
    }
    return true;
}

/* Tell worker to stop: the one STOP it gets. */
static void tell_stop(coordinator *c, int worker)
{
    MPI_Send(NULL, 0, MPI_UINT32_T, worker, NQ_MPI_TAG_STOP, MPI_COMM_WORLD);
    c->told[worker] = 1;
}

/* Send worker its next chunk, or STOP; returns false once it has been told to stop. */
static bool hand_out(coordinator *c, int worker)
{
    const uint32_t left = c->queued - c->next;
    if (left == 0) {
        tell_stop(c, worker);
        return false;
    }
    const uint32_t chunk = c->chunk < left ? c->chunk : left;
    MPI_Send(c->queue + c->next, (int)chunk, MPI_UINT32_T, worker, NQ_MPI_TAG_WORK, MPI_COMM_WORLD);
    c->next += chunk;
    return true;
}

/* A worker's first message, its HELLO (len -1: a message of another kind): is it counting this count?
 * Reports why not. */
static bool introduce(coordinator *c, int worker, const uint64_t *id, int len)
{
    if (len == NQ_MPI_IDENTITY_LEN && memcmp(id, c->id, sizeof c->id) == 0) return true;
    if (len != NQ_MPI_IDENTITY_LEN)
        fprintf(c->err, "nqueens-mpi: rank %d did not say which count it runs: another release of nqueens-mpi\n",
                worker);
    else if (id[0] != c->id[0] || id[1] != c->id[1] || id[2] != c->id[2])
        fprintf(c->err,
                "nqueens-mpi: rank %d counts n = %llu with plan %llu (%llu tasks), rank 0 n = %d with plan %u (%u "
                "tasks): every rank must run one build with one N\n",
                worker, (unsigned long long)id[0], (unsigned long long)id[1], (unsigned long long)id[2], c->opts->n,
                (unsigned)NQ_COUNT_PLAN_VERSION, c->cp.tasks);
    else
        fprintf(c->err,
                "nqueens-mpi: rank %d runs another release or method than rank 0: every rank must run one "
                "build\n",
                worker);
    return false;
}

/* Wait for the next message, polling (see the file's head). With watch, give up (false) when this
 * rank is signalled to stop. */
static bool wait_message(int source, MPI_Status *st, bool watch)
{
    const struct timespec pause = {0, POLL_NS};
    int flag = 0;
    for (;;) {
        MPI_Iprobe(source, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, st);
        if (flag) return true;
        if (watch && nq_mpi_stop_requested()) return false;
        nanosleep(&pause, NULL);
    }
}

/* Receive the message st announces whole, whatever its length and type, so that MPI never truncates
 * it (a truncated receive aborts the job): whatever a worker of another release, or a broken one,
 * sends is read and then judged. Its first cap values go to v. Returns how many uint64 values it held
 * (more than cap when it was longer), -1 for a length that is no whole number of them, -2 when out
 * of memory, or -3 for a message of 2 GiB or more (these two are left unread: the job ends). */
static int take(const MPI_Status *st, uint64_t *v, size_t cap)
{
    int bytes = 0;
    MPI_Get_count(st, MPI_BYTE, &bytes);
    if (bytes == MPI_UNDEFINED) return -3; /* more bytes than an int counts: no receive takes it whole */
    if (bytes < 0) bytes = 0;
    const size_t values = (size_t)bytes / sizeof *v;
    if ((size_t)bytes <= cap * sizeof *v) {
        MPI_Recv(v, bytes, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        uint8_t *whole = malloc((size_t)bytes);
        if (whole == NULL) return -2;
        MPI_Recv(whole, bytes, MPI_BYTE, st->MPI_SOURCE, st->MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memcpy(v, whole, cap * sizeof *v);
        free(whole);
    }
    return (size_t)bytes % sizeof *v != 0 ? -1 : (int)values;
}

/* Worker w has sent its last message. */
static void settled(coordinator *c, int w)
{
    c->owes[w] = 0;
    c->active--;
}

/* The job stops (mpi_count.h): every worker not told yet gets its STOP, and still owes one last
 * message, a RESULT (crossing the STOP), a LEAVE with what its chunk finished, or a FAIL. */
static void begin_stop(coordinator *c)
{
    if (c->stopping) return;
    c->stopping = true;
    fputs("nqueens-mpi: stopping: waiting for the workers' finished tasks\n", c->err);
    for (int w = 1; w <= c->workers; w++)
        if (!c->told[w]) tell_stop(c, w);
}

/* The queue's loop: until every worker has sent its last message. */
static int serve(coordinator *c)
{
    const size_t cap = (size_t)c->cp.tasks * 3u + 1u; /* every task's triple, or a FAIL's one value */
    uint64_t *buf = malloc(cap * sizeof *buf);
    if (buf == NULL) return NQ_MPI_EXIT_FAILURE;
    int status = NQ_MPI_EXIT_OK;
    while (c->active > 0) {
        MPI_Status st;
        if (!c->stopping && nq_mpi_stop_requested()) begin_stop(c); /* seen even while messages flow */
        if (!wait_message(MPI_ANY_SOURCE, &st, !c->stopping)) {
            begin_stop(c);
            continue;
        }
        const int len = take(&st, buf, cap), w = st.MPI_SOURCE;
        if (len == -2) {
            fputs("nqueens-mpi: out of memory\n", c->err);
            status = NQ_MPI_EXIT_FAILURE;
            break;
        }
        if (!c->owes[w]) { /* the count of those still to come must stay exact: see `dismissed` */
            fprintf(c->err, "nqueens-mpi: rank %d: a message after its last\n", w);
            status = NQ_MPI_EXIT_FAILURE;
            break;
        }
        if (st.MPI_TAG == NQ_MPI_TAG_FAIL && len >= 0) { /* its last message: the job stops as at a signal */
            fprintf(c->err, "nqueens-mpi: rank %d: count failed: %s\n", w,
                    len == 1 ? nq_err_message((nq_err)buf[0]) : "unknown error");
            c->worker_failed = true;
            settled(c, w);
            begin_stop(c); /* the failed worker waits for its STOP too, unless it has had it */
            continue;
        }
        const bool partial = st.MPI_TAG == NQ_MPI_TAG_PARTIAL, last = st.MPI_TAG == NQ_MPI_TAG_LEAVE;
        if ((st.MPI_TAG != NQ_MPI_TAG_RESULT && !partial && !last) || len < 0 || (size_t)len > cap ||
            !take_results(c, buf, len)) {
            fprintf(c->err, "nqueens-mpi: rank %d: malformed message\n", w);
            status = NQ_MPI_EXIT_FAILURE;
            break;
        }
        if (!save(c, false)) {
            c->save_failed = true; /* said once, by save: not tried again at the end */
            status = NQ_MPI_EXIT_FAILURE;
            break;
        }
        progress(c, false);
        if (last) begin_stop(c); /* a worker was signalled: the whole job stops (its STOP is sent here) */
        if (partial) continue;
        if (last || c->stopping || !hand_out(c, w)) settled(c, w); /* a RESULT also asks for more */
    }
    free(buf);
    c->dismissed = c->active == 0;
    if (status != NQ_MPI_EXIT_OK || c->cp.ndone == c->cp.tasks) {
        /* A worker's failure costs nothing when every task was counted all the same, once the
         * workers' last messages are in (by the others, or by itself before it failed): the count
         * is whole, and is printed. */
        if (status == NQ_MPI_EXIT_OK && c->worker_failed)
            fputs("nqueens-mpi: every task was counted all the same: the count is whole\n", c->err);
        return status;
    }
    return c->worker_failed ? NQ_MPI_EXIT_FAILURE : c->stopping ? NQ_MPI_EXIT_STOPPED : status;
}

/* Worker w's first message, waited for by polling: a HELLO, a FAIL (one value), or whatever a build of
 * another release sends first; its first values go to first[0..NQ_MPI_IDENTITY_LEN) and its tag to
 * *tag. Returns as take does. */
static int take_first(int w, uint64_t first[NQ_MPI_IDENTITY_LEN], int *tag)
{
    MPI_Status st;
    (void)wait_message(w, &st, false);
    *tag = st.MPI_TAG;
    return take(&st, first, NQ_MPI_IDENTITY_LEN);
}

/* Before any work is handed out: every worker's first message, its HELLO, must name this count, or
 * no worker gets any (a job whose nodes run different builds or N is refused at the start, cleanly,
 * without MPI_Abort). `status` is how the start went on rank 0: a job refused there already (a foreign
 * checkpoint) only takes the first messages and stops the workers, so that it ends cleanly too, and
 * stays refused (a failure would save over the checkpoint it refused). When all is well, the HELLOs
 * are the first requests: each worker gets its first chunk. */
static int greet(coordinator *c, int status)
{
    const bool refused = status != NQ_MPI_EXIT_OK; /* nothing will run: HELLOs are not checked */
    c->told = calloc(2u * ((size_t)c->workers + 1u), 1);
    if (c->told == NULL) return NQ_MPI_EXIT_FAILURE; /* the workers wait: the job is aborted */
    c->owes = c->told + c->workers + 1;
    bool unheard = false; /* a worker may wait for ever: only an abort ends the job */
    for (int w = 1; w <= c->workers; w++) {
        uint64_t first[NQ_MPI_IDENTITY_LEN] = {0};
        int tag = 0;
        const int len = take_first(w, first, &tag);
        if (len == -2 || len == -3) { /* left unread (take): its sender may wait for ever */
            if (len == -2)
                fputs("nqueens-mpi: out of memory\n", c->err);
            else
                fprintf(c->err, "nqueens-mpi: rank %d: malformed message\n", w);
            c->told[w] = 1;
            unheard = true;
            status = NQ_MPI_EXIT_FAILURE;
        } else if (tag == NQ_MPI_TAG_FAIL) { /* it could not start (memory) and left */
            fprintf(c->err, "nqueens-mpi: rank %d: count failed: %s\n", w,
                    len == 1 ? nq_err_message((nq_err)first[0]) : "unknown error");
            c->told[w] = 1; /* gone: it waits for no STOP */
            if (!refused) status = NQ_MPI_EXIT_FAILURE;
        } else if (!refused && !introduce(c, w, first, tag == NQ_MPI_TAG_HELLO ? len : -1) &&
                   status == NQ_MPI_EXIT_OK) {
            status = NQ_MPI_EXIT_USAGE;
        }
    }
    c->active = 0;
    for (int w = 1; w <= c->workers; w++) {
        if (c->told[w]) continue;
        if (status != NQ_MPI_EXIT_OK) {
            tell_stop(c, w);
        } else if (hand_out(c, w)) {
            c->owes[w] = 1;
            c->active++;
        }
    }
    c->dismissed = status != NQ_MPI_EXIT_OK && !unheard;
    return status;
}

/* ---- no workers: rank 0 counts everything itself -------------------------------------------- */

static void on_local_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    coordinator *c = arg;
    pthread_mutex_lock(&c->lock);
    if (nq_mpi_checkpoint_mark(&c->cp, task, sums)) c->dirty = true;
    /* A checkpoint that cannot be written ends the job, as with workers (serve): counting on for
     * hours that a crash would lose, with an error line a task, helps no one. */
    if (!c->save_failed && !save(c, false)) {
        c->save_failed = true;
        nq_count_cancel(&c->ctl);
    }
    if (!c->save_failed) progress(c, false);
    pthread_mutex_unlock(&c->lock);
}

/* While rank 0 counts alone, a thread of its own watches for a stop, as a worker's main thread does
 * while its chunk counts (worker.c): the count's callbacks come only as tasks end, which at n = 21
 * and up can be seconds apart, and the tables are built before the first. */
typedef struct stop_watch {
    nq_count_ctl *ctl; /* cancelled on a stop */
    atomic_bool done;  /* the count has returned: stop watching */
} stop_watch;

static void *watch_stop(void *arg)
{
    stop_watch *w = arg;
    const struct timespec pause = {0, WATCH_NS};
    while (!atomic_load(&w->done)) {
        if (nq_mpi_stop_requested()) {
            nq_count_cancel(w->ctl);
            break;
        }
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static int count_alone(coordinator *c)
{
    if (c->queued == 0) return NQ_MPI_EXIT_OK; /* a finished checkpoint: nothing to count */
    uint8_t *todo = malloc(c->cp.tasks);
    if (todo == NULL) return NQ_MPI_EXIT_FAILURE;
    for (uint32_t i = 0; i < c->cp.tasks; i++) todo[i] = !c->cp.done[i];
    nq_count_ctl_init(&c->ctl);
    stop_watch w = {.ctl = &c->ctl};
    atomic_init(&w.done, false);
    pthread_t watcher;
    if (pthread_create(&watcher, NULL, watch_stop, &w) != 0) {
        free(todo);
        fputs("nqueens-mpi: cannot start a thread\n", c->err);
        return NQ_MPI_EXIT_FAILURE;
    }
    const nq_err rc = nq_count_tasks(c->opts->n, c->opts->threads, todo, &c->ctl, on_local_task, c);
    atomic_store(&w.done, true);
    pthread_join(watcher, NULL);
    free(todo);
    if (c->save_failed) return NQ_MPI_EXIT_FAILURE; /* said by save */
    if (rc == NQ_OK) return NQ_MPI_EXIT_OK;
    /* Cancelled by a stop: stopped, unless every task was done already (then the count is whole). */
    if (rc == NQ_E_CANCELED) return c->cp.ndone == c->cp.tasks ? NQ_MPI_EXIT_OK : NQ_MPI_EXIT_STOPPED;
    fprintf(c->err, "nqueens-mpi: count failed: %s\n", nq_err_message(rc));
    return NQ_MPI_EXIT_FAILURE;
}

/* ---- start and finish ----------------------------------------------------------------------- */

/* Load the checkpoint, if any, and queue what is left. */
static int start(coordinator *c)
{
    if (c->opts->checkpoint != NULL) {
        char why[512] = "";
        const nq_mpi_load rc =
            nq_mpi_checkpoint_load(c->opts->checkpoint, &c->cp, c->opts->accept_unchecked, why, sizeof why);
        if (rc == NQ_MPI_LOAD_NOMEM) return NQ_MPI_EXIT_FAILURE;
        if (rc == NQ_MPI_LOAD_UNCHECKED) {
            fprintf(c->err,
                    "nqueens-mpi: checkpoint %s: %s; left as it is (--accept-unchecked resumes from it all the "
                    "same)\n",
                    c->opts->checkpoint, why);
            return NQ_MPI_EXIT_USAGE;
        }
        if (rc == NQ_MPI_LOAD_FOREIGN || rc == NQ_MPI_LOAD_BAD) {
            fprintf(c->err, "nqueens-mpi: checkpoint %s: %s; left as it is (remove it or give another path)\n",
                    c->opts->checkpoint, why);
            return NQ_MPI_EXIT_USAGE;
        }
        if (rc == NQ_MPI_LOAD_OK)
            fprintf(c->err, "nqueens-mpi: resuming from %s: %u of %u tasks done%s\n", c->opts->checkpoint, c->cp.ndone,
                    c->cp.tasks, c->cp.unchecked ? " (without a check line, as --accept-unchecked allows)" : "");
        /* A count that could never keep its work is refused now, not after hours of counting; a
         * finished one needs no write. */
        if (c->cp.ndone < c->cp.tasks && !nq_mpi_checkpoint_writable(c->opts->checkpoint, why, sizeof why)) {
            fprintf(c->err, "nqueens-mpi: checkpoint %s: %s: it could not be kept\n", c->opts->checkpoint, why);
            return NQ_MPI_EXIT_USAGE;
        }
    }
    c->queue = malloc((size_t)c->cp.tasks * sizeof *c->queue);
    if (c->queue == NULL) return NQ_MPI_EXIT_FAILURE;
    const uint32_t share = CHUNKS_PER_WORKER * (uint32_t)(c->workers > 0 ? c->workers : 1);
    c->chunk = (c->cp.tasks + share - 1u) / share;
    /* Interleaved: pass r queues the blocks r, r + STRIDE, r + 2 STRIDE, ..., so that any run of the
     * queue, and so any chunk, samples the whole plan, whose cost drifts along its indices. */
    const uint64_t block = nq_count_block(c->cp.tasks, share), tasks = c->cp.tasks;
    for (uint64_t r = 0; r < STRIDE; r++)
        for (uint64_t first = r * block; first < tasks; first += STRIDE * block)
            for (uint64_t i = first; i < first + block && i < tasks; i++)
                if (!c->cp.done[i]) c->queue[c->queued++] = (uint32_t)i;
    return NQ_MPI_EXIT_OK;
}

/* Are counts n's known ones (nq_count_known, solver.h)? A checkpoint edited with its check line recomputed, or
 * a worker whose sums went wrong, still gives sums that fit each other; the known counts catch it.
 * Reports why not. */
static bool as_known(const coordinator *c, const nq_counts *counts)
{
    nq_counts known;
    if (!nq_count_known(c->opts->n, &known) || (counts->total == known.total && counts->unique == known.unique))
        return true;
    fprintf(c->err,
            "nqueens-mpi: the sums of all %u tasks give total %llu and unique %llu, but n = %d has %llu and %llu "
            "(OEIS A000170, A002562): a worker or the checkpoint gave wrong sums; nothing printed%s%s\n",
            c->cp.tasks, (unsigned long long)counts->total, (unsigned long long)counts->unique, c->opts->n,
            (unsigned long long)known.total, (unsigned long long)known.unique,
            c->opts->checkpoint != NULL ? " (remove the checkpoint to count again): " : "",
            c->opts->checkpoint != NULL ? c->opts->checkpoint : "");
    return false;
}

/* Every task done: write the last checkpoint, unless the file holds this state already (it was
 * loaded finished), and print the counts; a rerun then prints at once. */
static int finish(coordinator *c, FILE *out)
{
    if (!save(c, true)) return NQ_MPI_EXIT_FAILURE;
    progress(c, true);
    if (c->cp.ndone != c->cp.tasks) {
        fprintf(c->err, "nqueens-mpi: %u of %u tasks reported: the count is incomplete\n", c->cp.ndone, c->cp.tasks);
        return NQ_MPI_EXIT_FAILURE;
    }
    if (nq_count_sums_whole(&c->cp.sums) != NQ_SUMS_FIT) {
        fprintf(c->err,
                "nqueens-mpi: the sums of all %u tasks do not make whole classes of the solutions: the count "
                "is inconsistent\n",
                c->cp.tasks);
        return NQ_MPI_EXIT_FAILURE;
    }
    const nq_counts counts = nq_count_sums_counts(&c->cp.sums);
    if (!as_known(c, &counts)) return NQ_MPI_EXIT_FAILURE;
    char text[NQ_JSON_COUNTS_MAX];
    size_t len = 0;
    if (nq_json_counts(c->opts->n, &counts, text, sizeof text, &len) != NQ_OK) return NQ_MPI_EXIT_FAILURE;
    fwrite(text, 1, len, out);
    fputc('\n', out);
    return fflush(out) == 0 && !ferror(out) ? NQ_MPI_EXIT_OK : NQ_MPI_EXIT_FAILURE;
}

/* A count that ends unfinished ("stopped", "failed"): write what was done (always, so that the file
 * shows the end and the line below names a file that exists) and say how far it got and where that
 * is kept. False when the write failed (save said so). */
static bool ended(coordinator *c, const char *how)
{
    c->dirty = true;
    if (!save(c, true)) return false;
    progress(c, true);
    if (c->opts->checkpoint != NULL)
        fprintf(c->err, "nqueens-mpi: %s: %u of %u tasks done, kept in %s (the same command resumes)\n", how,
                c->cp.ndone, c->cp.tasks, c->opts->checkpoint);
    else
        fprintf(c->err, "nqueens-mpi: %s: %u of %u tasks done, not kept (no --checkpoint)\n", how, c->cp.ndone,
                c->cp.tasks);
    return true;
}

/* The checkpoint's file (a link's target: checkpoint.h) into file (cap bytes), locked for this job
 * (*lock); NQ_MPI_EXIT_USAGE, said on err, when it cannot be. */
static int hold_checkpoint(const char *path, char *file, size_t cap, int *lock, FILE *err)
{
    char why[256] = "";
    if (nq_mpi_checkpoint_resolve(path, file, cap, why, sizeof why) &&
        (*lock = nq_mpi_checkpoint_lock(file, why, sizeof why)) >= 0)
        return NQ_MPI_EXIT_OK;
    fprintf(err, "nqueens-mpi: checkpoint %s: %s\n", path, why);
    return NQ_MPI_EXIT_USAGE;
}

int nq_mpi_coordinate(const nq_mpi_opts *opts, int workers, FILE *out, FILE *err, bool *dismissed)
{
    nq_mpi_opts own = *opts; /* its checkpoint: the file a link names */
    char file[NQ_MPI_CHECKPOINT_PATH_CAP] = "";
    coordinator c = {.opts = &own, .err = err, .workers = workers};
    c.t0 = c.last_save = c.last_progress = now_s();
    nq_mpi_identity(opts->n, c.id);
    if (nq_mpi_checkpoint_create(opts->n, &c.cp) != NQ_OK) return NQ_MPI_EXIT_FAILURE;
    pthread_mutex_init(&c.lock, NULL);
    int lock = -1, status = NQ_MPI_EXIT_OK;
    if (opts->checkpoint != NULL) {
        status = hold_checkpoint(opts->checkpoint, file, sizeof file, &lock, err);
        own.checkpoint = file;
    }
    if (status == NQ_MPI_EXIT_OK) status = start(&c);
    const bool started = status == NQ_MPI_EXIT_OK; /* the state in c.cp is this count's */
    if (status != NQ_MPI_EXIT_FAILURE && workers > 0) status = greet(&c, status);
    if (status == NQ_MPI_EXIT_OK) status = workers > 0 ? serve(&c) : count_alone(&c);
    if (status == NQ_MPI_EXIT_OK) {
        status = finish(&c, out);
    } else if (status == NQ_MPI_EXIT_STOPPED) {
        status = ended(&c, "stopped") ? NQ_MPI_EXIT_STOPPED : NQ_MPI_EXIT_FAILURE;
    } else if (status == NQ_MPI_EXIT_FAILURE && started && !c.save_failed) {
        (void)ended(&c, "failed"); /* kept for the restart, unless writing it is what failed */
    }
    *dismissed = c.dismissed || workers == 0;
    nq_mpi_checkpoint_unlock(lock);
    free(c.told);
    pthread_mutex_destroy(&c.lock);
    free(c.queue);
    nq_mpi_checkpoint_destroy(&c.cp);
    return status;
}
