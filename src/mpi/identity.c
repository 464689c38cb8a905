/* identity.c - the identity of a count that every rank of nqueens-mpi shows (mpi_count.h). */
#include "mpi_count.h"

#include "nqueens/solver.h"

void nq_mpi_identity(int n, uint64_t id[NQ_MPI_IDENTITY_LEN])
{
    uint32_t tasks = 0;
    (void)nq_count_plan(n, &tasks); /* 0 when n has none: no rank counts then */
    const char *method = nq_count_method(n);
    uint64_t hash = 14695981039346656037u; /* FNV-1a over method, a NUL, release */
    for (const char *parts[] = {method != NULL ? method : "", NQ_RELEASE}, **p = parts; p < parts + 2; p++)
        for (const char *c = *p;; c++) {
            hash = (hash ^ (uint8_t)*c) * 1099511628211u;
            if (*c == '\0') break;
        }
    id[0] = (uint64_t)n;
    id[1] = NQ_COUNT_PLAN_VERSION;
    id[2] = tasks;
    id[3] = hash;
}
