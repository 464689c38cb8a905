/* rogue_worker.c - a worker rank that breaks nqueens-mpi's protocol on purpose, or fails, or a
 * rank 0 that does, for 35-mpi.sh:
 *
 *   mpirun -np 1 nqueens-mpi N : -np 1 nq-rogue-worker N long|ragged|fail|fail-last
 *   mpirun -np 1 nq-rogue-worker N stop-long|work-long : -np 1 nqueens-mpi N
 *
 * It shows rank 0 the identity of count N (so it is taken as one of the job's workers) and answers
 * its first chunk with a RESULT longer than any count's results (long) or of a length that is no
 * whole number of values (ragged). Rank 0 must read the message, name it malformed and end the
 * job itself, not be ended inside MPI by a truncated receive. This rank then waits for
 * whatever rank 0 sends, which the job's end cuts short.
 *
 * fail is a worker whose count fails after it finished one task, as a real one out of memory: it
 * counts the chunk's first task, reports it (PARTIAL), sends FAIL (out of memory), waits for its
 * STOP and exits 0, as a real worker does (rank 0's status tells). Rank 0 must stop the other
 * workers, keep every finished task and end the job without MPI_Abort.
 *
 * fail-last is the job's only worker, whose count fails once the plan is done: it counts every
 * chunk it is given for real and asks for more (RESULT), but reports the chunk that completes the
 * plan as PARTIAL and sends FAIL instead. Every task is then counted, so rank 0 must print the count
 * and exit 0, naming the failure on its standard error.
 *
 * stop-long and work-long are rank 0, and answer the worker's HELLO with a STOP that carries three
 * values (a STOP has none) or with a chunk of more tasks than the plan has. The worker must take
 * either whole as its STOP and exit 0, not be ended inside MPI by a truncated receive.
 */
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_count.h"
#include "nqueens/solver.h"

/* End the job (MPI_Abort does not return, but is not declared so). */
static _Noreturn void die(int code)
{
    MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

/* The message's length in bytes: one value more than rank 0 keeps for every task's triple, or 7;
 * 0 for the other modes, which send no such message. */
static int rogue_bytes(const char *mode, uint32_t tasks)
{
    static const char *const others[] = {"fail", "fail-last", "stop-long", "work-long"};
    if (strcmp(mode, "long") == 0) return (int)(((size_t)tasks * 3u + 2u) * sizeof(uint64_t));
    if (strcmp(mode, "ragged") == 0) return 7;
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        if (strcmp(mode, others[i]) == 0) return 0;
    return -1;
}

/* stop-long or work-long (work): rank 0 of a job with one worker, rank 1. */
static int as_rank_zero(uint32_t tasks, bool work)
{
    uint64_t hello[NQ_MPI_IDENTITY_LEN];
    MPI_Recv(hello, NQ_MPI_IDENTITY_LEN, MPI_UINT64_T, 1, NQ_MPI_TAG_HELLO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    const uint32_t len = work ? tasks + 1u : 3u;
    uint32_t *v = calloc(len, sizeof *v); /* task 0, again and again */
    if (v == NULL) die(1);
    MPI_Send(v, (int)len, MPI_UINT32_T, 1, work ? NQ_MPI_TAG_WORK : NQ_MPI_TAG_STOP, MPI_COMM_WORLD);
    free(v);
    return 0;
}

/* Triples (task, total, burnside) of the tasks counted, in the order they end. */
typedef struct triples {
    uint64_t *v;    /* 3 x count values filled, room for every task of the plan */
    uint32_t count; /* triples filled */
} triples;

static void keep_sums(void *arg, uint32_t task, const nq_count_sums *sums)
{
    triples *t = arg; /* nq_count_tasks on one thread: no lock */
    uint64_t *triple = t->v + (size_t)3 * t->count++;
    triple[0] = task;
    triple[1] = sums->total;
    triple[2] = sums->burnside;
}

/* Count the chunk's tasks of n's plan (of `tasks`) for real into t; t->v holds a triple per task. */
static void count_chunk(int n, uint32_t tasks, const uint32_t *chunk, int len, triples *t)
{
    uint8_t *todo = calloc(tasks, 1);
    if (todo == NULL) die(1);
    for (int i = 0; i < len; i++)
        if (chunk[i] < tasks) todo[chunk[i]] = 1;
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    t->count = 0;
    if (nq_count_tasks(n, 1, todo, &ctl, keep_sums, t) != NQ_OK) die(1);
    free(todo);
}

/* Report t as PARTIAL, fail (out of memory) and wait for the one STOP; returns the exit status. */
static int fail_with(const triples *t)
{
    MPI_Send(t->v, (int)(3u * t->count), MPI_UINT64_T, 0, NQ_MPI_TAG_PARTIAL, MPI_COMM_WORLD);
    const uint64_t code = NQ_E_NOMEM;
    MPI_Send(&code, 1, MPI_UINT64_T, 0, NQ_MPI_TAG_FAIL, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_UINT32_T, 0, NQ_MPI_TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return 0;
}

/* fail or fail-last, from the first chunk (len tasks, the plan's length of room) on. */
static int count_then_fail(int n, uint32_t tasks, uint32_t *chunk, int len, bool last)
{
    triples t = {.v = malloc((size_t)tasks * 3u * sizeof *t.v)};
    if (t.v == NULL) die(1);
    uint32_t counted = 0;
    int status = 0;
    for (;;) {
        count_chunk(n, tasks, chunk, last ? len : 1, &t);
        counted += t.count;
        if (!last || counted >= tasks) {
            status = fail_with(&t);
            break;
        }
        MPI_Send(t.v, (int)(3u * t.count), MPI_UINT64_T, 0, NQ_MPI_TAG_RESULT, MPI_COMM_WORLD);
        MPI_Status st;
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_UINT32_T, &len);
        if (st.MPI_TAG != NQ_MPI_TAG_WORK || len <= 0 || (uint32_t)len > tasks) die(1); /* the plan is not done */
        MPI_Recv(chunk, len, MPI_UINT32_T, 0, NQ_MPI_TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    free(t.v);
    return status;
}

int main(int argc, char *argv[])
{
    MPI_Init(&argc, &argv);
    char *end = NULL;
    const long n = argc == 3 ? strtol(argv[1], &end, 10) : 0;
    uint64_t id[NQ_MPI_IDENTITY_LEN];
    nq_mpi_identity(n > 0 && n < 64 && *end == '\0' ? (int)n : 0, id);
    const int bytes = argc == 3 ? rogue_bytes(argv[2], (uint32_t)id[2]) : -1;
    if (id[0] == 0 || bytes < 0) {
        fputs("usage: nq-rogue-worker N long|ragged|fail|fail-last|stop-long|work-long\n", stderr);
        die(2);
    }
    uint8_t *junk = calloc((size_t)bytes + 1u, 1); /* + 1: the modes but long and ragged send none */
    if (junk == NULL) die(1);
    const int count = 2; /* src/mpi/main.c: every rank first says that it counts (least and most) */
    int agreed = 0;
    MPI_Allreduce(&count, &agreed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&count, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (strcmp(argv[2], "stop-long") == 0 || strcmp(argv[2], "work-long") == 0) {
        const int status = as_rank_zero((uint32_t)id[2], argv[2][0] == 'w');
        free(junk);
        MPI_Finalize();
        return status;
    }
    MPI_Send(id, NQ_MPI_IDENTITY_LEN, MPI_UINT64_T, 0, NQ_MPI_TAG_HELLO, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* the first chunk */
    int len = 0;
    MPI_Get_count(&st, MPI_BYTE, &len);
    /* Room for the message, and for every task of the plan: fail-last takes its later chunks here. */
    size_t room = (size_t)id[2] * sizeof(uint32_t);
    if (len > 0 && (size_t)len > room) room = (size_t)len;
    void *chunk = malloc(room + 1u);
    if (chunk == NULL) die(1);
    MPI_Recv(chunk, len, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int status = 0;
    if (bytes > 0) {
        MPI_Send(junk, bytes, MPI_BYTE, 0, NQ_MPI_TAG_RESULT, MPI_COMM_WORLD);
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);                         /* rank 0 ends the job first */
    } else if (st.MPI_TAG == NQ_MPI_TAG_WORK && len >= (int)sizeof(uint32_t)) { /* fail, fail-last */
        status = count_then_fail((int)n, (uint32_t)id[2], chunk, len / (int)sizeof(uint32_t),
                                 strcmp(argv[2], "fail-last") == 0);
    } /* else a STOP, taken: there is nothing to fail */
    free(chunk);
    free(junk);
    MPI_Finalize();
    return status;
}
