/* rogue_worker.c - a worker rank that breaks nqueens-mpi's protocol on purpose, for 35-mpi.sh:
 *
 *   mpirun -np 1 nqueens-mpi N : -np 1 nq-rogue-worker N long|ragged
 *
 * It shows rank 0 the identity of count N (so it is taken as one of the job's workers) and answers
 * its first chunk with a RESULT longer than any count's results (long) or of a length that is no
 * whole number of values (ragged). Rank 0 must read the message, name it malformed and end the
 * job itself, not be ended inside MPI by a truncated receive. This rank then waits for
 * whatever rank 0 sends, which the job's end cuts short.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_count.h"

/* The message's length in bytes: one value more than rank 0 keeps for every task's triple, or 7. */
static int rogue_bytes(const char *mode, uint32_t tasks)
{
    if (strcmp(mode, "long") == 0) return (int)(((size_t)tasks * 3u + 2u) * sizeof(uint64_t));
    if (strcmp(mode, "ragged") == 0) return 7;
    return -1;
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
        fputs("usage: nq-rogue-worker N long|ragged\n", stderr);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    uint8_t *junk = calloc((size_t)bytes, 1);
    if (junk == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
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
    if (chunk == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Recv(chunk, len, MPI_BYTE, 0, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(junk, bytes, MPI_BYTE, 0, NQ_MPI_TAG_RESULT, MPI_COMM_WORLD);
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* rank 0 ends the job first */
    free(chunk);
    free(junk);
    MPI_Finalize();
    return 0;
}
