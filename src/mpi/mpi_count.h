/* mpi_count.h - internal to nqueens-mpi: its options, the coordinator (rank 0) and the workers.
 *
 * The job is a work queue over the tasks of n's plan (solver.h). Rank 0 holds the queue, the sums
 * and the checkpoint; every other rank asks it for a chunk of task indices, counts them with
 * nq_count_tasks on its own threads, and sends back each task's sums while it counts (when there is
 * a checkpoint to keep them) and with its next request. Only
 * the main thread of each rank calls MPI (MPI_THREAD_FUNNELED); the library's worker threads only
 * count. Sums travel and add as uint64 (MPI_UINT64_T), never through a double.
 */
#ifndef NQ_MPI_COUNT_H
#define NQ_MPI_COUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum {
    NQ_MPI_EXIT_OK = 0,      /* the count was printed */
    NQ_MPI_EXIT_FAILURE = 1, /* a failure while running (memory, threads, the checkpoint's disk, a worker's count) */
    NQ_MPI_EXIT_USAGE = 2,   /* bad arguments, or a checkpoint of another count */
    NQ_MPI_EXIT_STOPPED = 3  /* stopped by SIGTERM, SIGINT or SIGUSR1: what was done is in the checkpoint */
};

/* The messages; every payload is an array of MPI_UINT64_T (results) or MPI_UINT32_T (tasks). */
enum {
    NQ_MPI_TAG_RESULT = 1,  /* worker -> 0: (task, total, burnside) per finished task; also the request */
    NQ_MPI_TAG_WORK = 2,    /* 0 -> worker: the task indices to count next, at least one */
    NQ_MPI_TAG_STOP = 3,    /* 0 -> worker: leave (no work left, or the job stops) */
    NQ_MPI_TAG_FAIL = 4,    /* worker -> 0: its count failed; one value, the nq_err; its last message */
    NQ_MPI_TAG_PARTIAL = 5, /* worker -> 0: results of the chunk it counts (or whose count failed); not a request */
    NQ_MPI_TAG_HELLO = 6,   /* worker -> 0: its first message and request: its count's identity (below) */
    NQ_MPI_TAG_LEAVE = 7    /* worker -> 0: results, as RESULT, of a chunk it stopped: its last message */
};

/* Stopping. SIGTERM, SIGINT or SIGUSR1 on any rank (a batch system's time limit, mpirun passing SIGUSR1 on)
 * stops the whole job, keeping what it counted. A worker that is signalled, or that rank 0 sends a
 * STOP while it counts, cancels its chunk (it looks every 50 ms) and sends the tasks it finished with
 * LEAVE; rank 0, once signalled or told by a LEAVE, hands out nothing more and sends every worker that
 * has not had one a STOP, takes each one's last RESULT or LEAVE, writes the checkpoint and exits
 * NQ_MPI_EXIT_STOPPED. A worker whose count fails sends the tasks it finished (PARTIAL) and a FAIL,
 * its last message, which stops the job the same way, but rank 0 then exits NQ_MPI_EXIT_FAILURE
 * (unless every task was counted all the same once the workers' last messages are in: then the count
 * is whole, and is printed).
 * Each worker that took part gets exactly one STOP and waits for it before it leaves, so no message
 * is left unreceived. True once this rank has been signalled (a lock-free atomic the handler sets;
 * any thread may ask). */
bool nq_mpi_stop_requested(void);

/* A count's identity, which every worker sends first and rank 0 holds to its own, so that ranks of
 * another n or another build (a node left on an older release) cannot add sums of another count:
 * n, the plan version, the plan's tasks, and an FNV-1a hash of the method and the release. */
#define NQ_MPI_IDENTITY_LEN 4
void nq_mpi_identity(int n, uint64_t id[NQ_MPI_IDENTITY_LEN]);

typedef struct nq_mpi_opts {
    int n;                  /* board size, 1..NQ_COUNT_N_MAX */
    int threads;            /* counting threads per rank, 0 = one per CPU */
    const char *checkpoint; /* the checkpoint file, NULL for none */
    double every_s;         /* least seconds between two checkpoint writes (0: after every result) */
    bool accept_unchecked;  /* --accept-unchecked: resume from a checkpoint without its check line */
} nq_mpi_opts;

/* Rank 0: load the checkpoint, hand the tasks out to `workers` ranks 1..workers (counting them
 * itself when there are none), checkpoint, report progress on err, and print the counts to out
 * as `nqueens count N` does. Returns an NQ_MPI_EXIT_* status, and sets *dismissed when every worker
 * has had its STOP or has left, so that the job ends without MPI_Abort: always on NQ_MPI_EXIT_OK,
 * NQ_MPI_EXIT_USAGE (a checkpoint refused at the start) and NQ_MPI_EXIT_STOPPED, and on an
 * NQ_MPI_EXIT_FAILURE that came after the workers were done: a worker's failed count (which stops
 * the job as a signal does, every finished task kept), a worker failing to start, the last
 * checkpoint write or the final sums. When a failure leaves *dismissed false, workers may still be
 * counting or waiting, and the caller aborts the job. */
int nq_mpi_coordinate(const nq_mpi_opts *opts, int workers, FILE *out, FILE *err, bool *dismissed);

/* Ranks 1..: count what rank 0 hands out until it says stop. Returns an NQ_MPI_EXIT_* status (OK
 * also when the job was stopped, or this rank's count failed mid-job: rank 0's status tells;
 * NQ_MPI_EXIT_FAILURE when it could not start). */
int nq_mpi_work(const nq_mpi_opts *opts);

#endif /* NQ_MPI_COUNT_H */
