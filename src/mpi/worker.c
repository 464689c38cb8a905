/* worker.c - a rank other than 0 in nqueens-mpi: count the chunks rank 0 hands out.
 *
 * Each chunk is one nq_count_tasks call over a bitmap of the chunk's tasks, so the method's tables
 * are built once per chunk; that is why rank 0 hands out few, large chunks (coordinator.c). The
 * count runs on a thread of its own; the main thread, the only one that calls MPI, reports the
 * tasks finished so far while it runs (PARTIAL) and the rest at its end (RESULT, the next request).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#endif
#include "mpi_count.h"

#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nqueens/solver.h"

#define PARTIAL_MIN_S 1.0 /* least seconds between two partial reports of one chunk */
#define POLL_MS 50L       /* the main thread looks at the counting this often */

/* The results of one chunk, filled by the library's worker threads under lock; the main thread
 * sends triples[0..count) in order (what is below count is written). */
typedef struct chunk_results {
    uint64_t *triples;    /* (task, total, burnside) per finished task */
    uint32_t count;       /* triples filled */
    uint32_t cap;         /* triples there is room for: the chunk's size */
    uint32_t sent;        /* triples already sent to rank 0 */
    pthread_mutex_t lock; /* guards count */
} chunk_results;

static void on_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    chunk_results *r = arg;
    pthread_mutex_lock(&r->lock);
    if (r->count < r->cap) { /* always: each task of the chunk is reported once */
        uint64_t *t = r->triples + (size_t)3 * r->count;
        t[0] = task;
        t[1] = sums->total;
        t[2] = sums->burnside;
        r->count++;
    }
    pthread_mutex_unlock(&r->lock);
}

/* Send rank 0 the triples finished since the last send, with tag (a RESULT or LEAVE even when
 * empty: it is also the request for the next chunk, or the last message). */
static void send_new(chunk_results *r, int tag)
{
    pthread_mutex_lock(&r->lock);
    const uint32_t upto = r->count;
    pthread_mutex_unlock(&r->lock);
    if (upto == r->sent && tag == NQ_MPI_TAG_PARTIAL) return;
    MPI_Send(r->triples + (size_t)3 * r->sent, (int)(3u * (upto - r->sent)), MPI_UINT64_T, 0, tag, MPI_COMM_WORLD);
    r->sent = upto;
}

/* One chunk's count, on a thread of its own while the main thread reports. */
typedef struct chunk_run {
    const nq_mpi_opts *opts; /* n, threads */
    const uint8_t *todo;     /* the chunk's tasks */
    chunk_results *r;        /* where each finished task goes */
    nq_count_ctl ctl;        /* cancelled when the job stops */
    nq_err rc;               /* nq_count_tasks' */
    atomic_bool done;        /* rc is set */
} chunk_run;

static void *run_chunk(void *arg)
{
    chunk_run *c = arg;
    c->rc = nq_count_tasks(c->opts->n, c->opts->threads, c->todo, &c->ctl, on_task, c->r);
    atomic_store(&c->done, true);
    return NULL;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* How a worker's chunk ended, for the job's stop (mpi_count.h). */
typedef struct stop_state {
    bool stopping; /* signalled, or told by rank 0: the chunk's results go out with LEAVE */
    bool told;     /* rank 0's STOP has been received */
} stop_state;

/* Take rank 0's message st announces, whole, and drop it: anything from rank 0 but a chunk this
 * worker asked for is its STOP, whatever its length. Received whole because a receive shorter than
 * the message ends the job inside MPI (a truncation error); so it still does when there is no
 * memory to take it in, or for a message of 2 GiB or more (MPI_UNDEFINED bytes, negative). */
static void drop(const MPI_Status *st)
{
    int bytes = 0;
    MPI_Get_count(st, MPI_BYTE, &bytes);
    void *junk = bytes > 0 ? malloc((size_t)bytes) : NULL;
    MPI_Recv(junk, junk != NULL ? bytes : 0, MPI_BYTE, 0, st->MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(junk);
}

/* Is the job stopping? This rank's signal, or a message from rank 0 while it counts: rank 0 sends
 * nothing unasked but a STOP, which is taken here. */
static bool stop_seen(stop_state *ss)
{
    if (!ss->told) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        if (flag) {
            drop(&st);
            ss->told = true;
        }
    }
    ss->stopping = ss->stopping || ss->told || nq_mpi_stop_requested();
    return ss->stopping;
}

/* Count the chunk's tasks into r; todo (the plan's length) is left all zero again. While it counts,
 * the tasks finished so far go to rank 0 as PARTIAL results, at rank 0's checkpoint pace (at least
 * PARTIAL_MIN_S apart): a chunk is a large share of the plan when workers are few (hours at n = 23),
 * and its tasks must reach the checkpoint before the chunk ends, or a killed job loses them. When
 * the job stops, the count is cancelled and returns NQ_E_CANCELED with the tasks finished in r. */
static nq_err count_chunk(const nq_mpi_opts *o, const uint32_t *chunk, int len, uint32_t tasks, uint8_t *todo,
                          chunk_results *r, stop_state *ss)
{
    for (int i = 0; i < len; i++)
        if (chunk[i] < tasks) todo[chunk[i]] = 1;
    r->count = r->sent = 0;
    r->cap = (uint32_t)len;
    chunk_run run = {.opts = o, .todo = todo, .r = r, .rc = NQ_OK};
    nq_count_ctl_init(&run.ctl);
    atomic_init(&run.done, false);
    pthread_t th;
    if (pthread_create(&th, NULL, run_chunk, &run) != 0) {
        memset(todo, 0, tasks);
        return NQ_E_THREAD;
    }
    const double every = o->every_s > PARTIAL_MIN_S ? o->every_s : PARTIAL_MIN_S;
    const struct timespec poll = {0, POLL_MS * 1000000L};
    for (double last = now_s(); !atomic_load(&run.done);) {
        nanosleep(&poll, NULL);
        if (stop_seen(ss)) nq_count_cancel(&run.ctl);
        if (o->checkpoint == NULL || now_s() - last < every) continue;
        send_new(r, NQ_MPI_TAG_PARTIAL);
        last = now_s();
    }
    pthread_join(th, NULL);
    memset(todo, 0, tasks);
    return run.rc;
}

static void fail(nq_err rc)
{
    uint64_t code = (uint64_t)rc;
    MPI_Send(&code, 1, MPI_UINT64_T, 0, NQ_MPI_TAG_FAIL, MPI_COMM_WORLD);
}

/* Rank 0's one STOP, unless it has come already (blocking: a worker has nothing else to do). */
static void await_stop(const stop_state *ss)
{
    if (ss->told) return;
    MPI_Status st;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    drop(&st);
}

/* The job stops: send the chunk's unsent results with LEAVE, then wait for rank 0's one STOP. */
static int leave(chunk_results *r, stop_state *ss)
{
    send_new(r, NQ_MPI_TAG_LEAVE);
    await_stop(ss);
    return NQ_MPI_EXIT_OK;
}

/* The chunk's count failed: send the tasks it finished (PARTIAL), then the FAIL, which stops the
 * job, and wait for rank 0's one STOP like a worker that leaves. Rank 0's status tells the job's
 * end: a rank that exits non-zero would have mpirun end the job while rank 0 still writes. */
static int give_up(chunk_results *r, const stop_state *ss, nq_err rc)
{
    send_new(r, NQ_MPI_TAG_PARTIAL);
    fail(rc);
    await_stop(ss);
    return NQ_MPI_EXIT_OK;
}

/* Ask, count and report chunks until rank 0 says stop. chunk and todo hold the plan's length. */
static int serve_chunks(const nq_mpi_opts *opts, uint32_t tasks, uint32_t *chunk, uint8_t *todo, chunk_results *r)
{
    uint64_t id[NQ_MPI_IDENTITY_LEN];
    nq_mpi_identity(opts->n, id);
    MPI_Send(id, NQ_MPI_IDENTITY_LEN, MPI_UINT64_T, 0, NQ_MPI_TAG_HELLO, MPI_COMM_WORLD); /* the first request */
    for (;;) {
        MPI_Status st;
        int len = 0;
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* blocking: a worker has nothing else to do */
        MPI_Get_count(&st, MPI_UINT32_T, &len);         /* MPI_UNDEFINED for a ragged one */
        if (st.MPI_TAG != NQ_MPI_TAG_WORK || len <= 0 || (uint32_t)len > tasks) {
            drop(&st);
            return NQ_MPI_EXIT_OK; /* STOP (anything else from rank 0 means the same) */
        }
        MPI_Recv(chunk, len, MPI_UINT32_T, 0, NQ_MPI_TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        stop_state ss = {.stopping = nq_mpi_stop_requested()};
        if (ss.stopping) return leave(r, &ss); /* signalled while it waited: an empty LEAVE, the chunk undone */
        const nq_err rc = count_chunk(opts, chunk, len, tasks, todo, r, &ss);
        if (rc != NQ_OK && !(rc == NQ_E_CANCELED && ss.stopping)) return give_up(r, &ss, rc);
        if (ss.stopping || stop_seen(&ss)) return leave(r, &ss);
        send_new(r, NQ_MPI_TAG_RESULT); /* the rest of the chunk, and the next request */
    }
}

int nq_mpi_work(const nq_mpi_opts *opts)
{
    uint32_t tasks = 0;
    const nq_err rc = nq_count_plan(opts->n, &tasks);
    uint8_t *todo = rc == NQ_OK ? calloc(tasks, 1) : NULL;
    uint32_t *chunk = todo != NULL ? malloc((size_t)tasks * sizeof *chunk) : NULL;
    uint64_t *triples = chunk != NULL ? malloc((size_t)tasks * 3u * sizeof *triples) : NULL;
    int status = NQ_MPI_EXIT_FAILURE;
    if (triples == NULL) {
        fail(rc != NQ_OK ? rc : NQ_E_NOMEM);
    } else {
        chunk_results r = {.triples = triples};
        pthread_mutex_init(&r.lock, NULL);
        status = serve_chunks(opts, tasks, chunk, todo, &r);
        pthread_mutex_destroy(&r.lock);
    }
    free(triples);
    free(chunk);
    free(todo);
    return status;
}
