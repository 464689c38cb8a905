/* worker.c - a rank other than 0 in nqueens-mpi: count the chunks rank 0 hands out.
 *
 * Each chunk is one nq_count_tasks call over a bitmap of the chunk's tasks, so the method's tables
 * are built once per chunk; that is why rank 0 hands out few, large chunks (coordinator.c).
 */
#include "mpi_count.h"

#include <mpi.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/solver.h"

/* The results of one chunk, filled by the library's worker threads. */
typedef struct chunk_results {
    uint64_t *triples;          /* (task, total, burnside) per finished task */
    atomic_uint_fast32_t count; /* triples filled */
    uint32_t cap;               /* triples there is room for: the chunk's size */
} chunk_results;

static void on_task(void *arg, uint32_t task, const nq_count_sums *sums)
{
    chunk_results *r = arg;
    const uint_fast32_t k = atomic_fetch_add_explicit(&r->count, 1, memory_order_relaxed);
    if (k >= r->cap) return; /* cannot happen: each task of the chunk is reported once */
    r->triples[3 * k] = task;
    r->triples[3 * k + 1] = sums->total;
    r->triples[3 * k + 2] = sums->burnside;
}

/* Count the chunk's tasks into r; todo (the plan's length) is left all zero again. */
static nq_err count_chunk(const nq_mpi_opts *o, const uint32_t *chunk, int len, uint32_t tasks, uint8_t *todo,
                          chunk_results *r)
{
    for (int i = 0; i < len; i++)
        if (chunk[i] < tasks) todo[chunk[i]] = 1;
    atomic_store(&r->count, 0);
    r->cap = (uint32_t)len;
    const nq_err rc = nq_count_tasks(o->n, o->threads, todo, NULL, on_task, r);
    memset(todo, 0, tasks);
    return rc;
}

static void fail(nq_err rc)
{
    uint64_t code = (uint64_t)rc;
    MPI_Send(&code, 1, MPI_UINT64_T, 0, NQ_MPI_TAG_FAIL, MPI_COMM_WORLD);
}

int nq_mpi_work(const nq_mpi_opts *opts)
{
    uint32_t tasks = 0;
    nq_err rc = nq_count_plan(opts->n, &tasks);
    uint8_t *todo = rc == NQ_OK ? calloc(tasks, 1) : NULL;
    uint32_t *chunk = todo != NULL ? malloc((size_t)tasks * sizeof *chunk) : NULL;
    chunk_results r = {.triples = chunk != NULL ? malloc((size_t)tasks * 3u * sizeof *r.triples) : NULL};
    int status = NQ_MPI_EXIT_FAILURE;
    if (r.triples == NULL) {
        fail(rc != NQ_OK ? rc : NQ_E_NOMEM);
        goto end;
    }
    atomic_init(&r.count, 0);
    MPI_Send(NULL, 0, MPI_UINT64_T, 0, NQ_MPI_TAG_RESULT, MPI_COMM_WORLD); /* the first request */
    for (;;) {
        MPI_Status st;
        int len = 0;
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_UINT32_T, &len);
        if (st.MPI_TAG != NQ_MPI_TAG_WORK || len <= 0 || (uint32_t)len > tasks) {
            MPI_Recv(NULL, 0, MPI_UINT32_T, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            break; /* STOP (anything else from rank 0 means the same) */
        }
        MPI_Recv(chunk, len, MPI_UINT32_T, 0, NQ_MPI_TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        rc = count_chunk(opts, chunk, len, tasks, todo, &r);
        if (rc != NQ_OK) {
            fail(rc);
            goto end;
        }
        const uint_fast32_t done = atomic_load(&r.count);
        MPI_Send(r.triples, (int)(3u * done), MPI_UINT64_T, 0, NQ_MPI_TAG_RESULT, MPI_COMM_WORLD);
    }
    status = NQ_MPI_EXIT_OK;
end:
    free(r.triples);
    free(chunk);
    free(todo);
    return status;
}
