/* rogue_worker.c - a worker rank that breaks nqueens-mpi's protocol on purpose, or fails, for
 * 35-mpi.sh:
 *
 *   mpirun -np 1 nqueens-mpi N : -np 1 nq-rogue-worker N long|ragged|fail
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
 */
#include <mpi.h>
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
 * 0 for fail, which sends no such message. */
static int rogue_bytes(const char *mode, uint32_t tasks)
{
    if (strcmp(mode, "long") == 0) return (int)(((size_t)tasks * 3u + 2u) * sizeof(uint64_t));
    if (strcmp(mode, "ragged") == 0) return 7;
    if (strcmp(mode, "fail") == 0) return 0;
    return -1;
}

static void keep_sums(void *arg, uint32_t task, const nq_count_sums *sums)
{
    uint64_t *triple = arg;
    triple[0] = task;
    triple[1] = sums->total;
    triple[2] = sums->burnside;
}

/* Count task `task` of n's plan (of `tasks`) for real, report it and fail; returns the exit status. */
static int fail_after_one(int n, uint32_t tasks, uint32_t task)
{
    uint8_t *todo = calloc(tasks, 1);
    if (todo == NULL) die(1);
    todo[task] = 1;
    uint64_t triple[3];
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    if (nq_count_tasks(n, 1, todo, &ctl, keep_sums, triple) != NQ_OK) die(1);
    free(todo);
    MPI_Send(triple, 3, MPI_UINT64_T, 0, NQ_MPI_TAG_PARTIAL, MPI_COMM_WORLD);
    const uint64_t code = NQ_E_NOMEM;
    MPI_Send(&code, 1, MPI_UINT64_T, 0, NQ_MPI_TAG_FAIL, MPI_COMM_WORLD);
    MPI_Recv(NULL, 0, MPI_UINT32_T, 0, NQ_MPI_TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return 0;
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
        fputs("usage: nq-rogue-worker N long|ragged|fail\n", stderr);
        die(2);
    }
    uint8_t *junk = calloc((size_t)bytes + 1u, 1); /* + 1: fail sends none */
    if (junk == NULL) die(1);
    const int count = 2; /* src/mpi/main.c: every rank first says that it counts (least and most) */
    int agreed = 0;
    MPI_Allreduce(&count, &agreed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&count, &agreed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Send(id, NQ_MPI_IDENTITY_LEN, MPI_UINT64_T, 0, NQ_MPI_TAG_HELLO, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* the first chunk */
    int len = 0;
    MPI_Get_count(&st, MPI_BYTE, &len);
    void *chunk = malloc(len > 0 ? (size_t)len : 1u);
    if (chunk == NULL) die(1);
    MPI_Recv(chunk, len, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int status = 0;
    if (bytes > 0) {
        MPI_Send(junk, bytes, MPI_BYTE, 0, NQ_MPI_TAG_RESULT, MPI_COMM_WORLD);
        MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);                         /* rank 0 ends the job first */
    } else if (st.MPI_TAG == NQ_MPI_TAG_WORK && len >= (int)sizeof(uint32_t)) { /* fail */
        uint32_t first = 0;
        memcpy(&first, chunk, sizeof first);
        status = fail_after_one((int)n, (uint32_t)id[2], first);
    } /* else a STOP, taken: there is nothing to fail */
    free(chunk);
    free(junk);
    MPI_Finalize();
    return status;
}
