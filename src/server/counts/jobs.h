/* jobs.h - the long-count service of nqueensd: counts that outlive requests, with progress,
 * checkpoints in the store and resumption after a restart.
 *
 * Workload: a count of n >= --long-count-n takes from seconds to hours. It must not depend on a
 * client staying connected, nor die with the process: so it runs on a runner thread of its own
 * (at most --long-counts at once, --long-count-queue more waiting), counts its plan's tasks
 * (nq_count_tasks), and every --checkpoint-ms the tasks finished and their sums go to the store
 * in one transaction. At start-up the finished counts of the store are loaded (and published to
 * the cache) and every checkpoint of a count that is still long (n >= --long-count-n) is queued
 * again: the count resumes where the checkpoint left it. What the store holds is checked: a row
 * that fails the store's check value, a count that is not the known one of its n (OEIS A000170,
 * A002562) or a checkpoint whose sums exceed it is ignored with a warning, and counted when asked.
 *
 * One slot per board size (n <= NQ_COUNT_N_MAX), so the registry is a fixed array: a count is
 * NONE (never asked, or failed), QUEUED, RUNNING or DONE. A DONE count stays known for the life of
 * the process (27 slots at most) and in the store for good; it is on disk before anyone is told it
 * is done. A store that cannot be written (full disk, read-only) is logged and counted, and the
 * write is retried on every checkpoint tick: serving goes on from memory.
 *
 * Thread-safety: every function may be called from any thread; one mutex guards the slots, and no
 * store write or count runs under it. Ownership: the service borrows the configuration, the cache
 * (where it publishes finished counts; may be NULL), the store (may be NULL) and the event sink's
 * context; all must outlive it. It knows nothing of requests: the routes ask it.
 */
#ifndef NQ_COUNTS_JOBS_H
#define NQ_COUNTS_JOBS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/errors.h"
#include "base/event.h"
#include "cache/cache.h"
#include "nqueens/solver.h"
#include "store/store.h"

typedef struct nq_count_jobs nq_count_jobs; /* opaque */

typedef enum nq_job_state {
    NQ_JOB_NONE = 0, /* not known (never asked, or it failed) */
    NQ_JOB_QUEUED,   /* waiting for a runner */
    NQ_JOB_RUNNING,  /* counting */
    NQ_JOB_DONE      /* finished: counts known */
} nq_job_state;

/* A consistent snapshot of one count. */
typedef struct nq_job_view {
    int n;              /* board size */
    nq_job_state state; /* where it is */
    double progress;    /* fraction of its tasks done, 0..1 */
    double elapsed_s;   /* wall time spent on it, over every run */
    double eta_s;       /* estimated seconds to go; < 0 while it cannot be estimated */
    nq_counts counts;   /* DONE: the counts */
    double seconds;     /* DONE: the wall time the count took */
    int64_t since;      /* DONE: when it finished; else when it was first started (Unix s) */
} nq_job_view;

/* Counters for /metrics. */
typedef struct nq_count_jobs_stats {
    size_t queued, running, finished; /* counts in each state now */
    uint64_t completed;               /* long counts finished by this process */
    uint64_t resumed;                 /* counts resumed from a checkpoint at start-up */
    uint64_t checkpoints;             /* checkpoint transactions written */
    uint64_t checkpoint_failures;     /* checkpoint transactions that failed */
    uint64_t store_failures;          /* writes of finished counts that failed (retried) */
    uint64_t store_bytes;             /* the store's size on disk; 0 without one */
} nq_count_jobs_stats;

/* Create the service over a configuration, a cache (may be NULL), a store (may be NULL) and an event
 * sink (copied; NULL: events go nowhere); load what the store holds (publishing its finished counts
 * to the cache) and start the runner and checkpoint threads. On success *out owns it
 * (nq_count_jobs_destroy). Errors: NQ_E_ARG, NQ_E_NOMEM, NQ_E_THREAD, NQ_E_STORE_IO (the store
 * could not be read). */
nq_err nq_count_jobs_create(const nq_config *cfg, nq_cache *cache, nq_store *store, const nq_event_sink *events,
                            nq_count_jobs **out);

/* Stop: running counts are cancelled and their last checkpoint written, threads joined, memory
 * freed. Waiters must be gone. NULL is accepted. */
void nq_count_jobs_destroy(nq_count_jobs *j);

/* Make sure n is counted: a DONE or active count is left as it is; otherwise one is queued, unless
 * --long-counts + --long-count-queue are all taken (NQ_E_BUSY) or the registry stops
 * (NQ_E_DRAINING). *view (may be NULL) receives the count's state. */
nq_err nq_count_jobs_start(nq_count_jobs *j, int n, nq_job_view *view);

/* Wait up to wait_ms (UINT32_MAX: no limit) for n to be DONE, returning early when *cancel (may be
 * NULL) becomes true. NQ_OK with *view, DONE or not; the count's error when it failed meanwhile
 * (NQ_E_NOMEM, NQ_E_THREAD); NQ_E_DRAINING when the registry stops. */
nq_err nq_count_jobs_wait(nq_count_jobs *j, int n, uint32_t wait_ms, const atomic_bool *cancel, nq_job_view *view);

/* The state of n now (state NONE when unknown). */
void nq_count_jobs_view(nq_count_jobs *j, int n, nq_job_view *view);

/* Record a count that finished within a request (any route's: a /count below --long-count-n, a
 * /solve total): kept as DONE at once, and written to the store after this returns, by the
 * checkpoint thread (retried there while the store fails): the request never waits on the store.
 * A long count of n already known (queued, running, done) is left as it is. Never blocks on I/O. */
void nq_count_jobs_record(nq_count_jobs *j, int n, const nq_counts *c, double seconds);

/* Every known count, newest first (running and queued by start, finished by finish time), into
 * out (cap entries). Returns how many were written. */
size_t nq_count_jobs_list(nq_count_jobs *j, nq_job_view *out, size_t cap);

/* Snapshot the counters. */
void nq_count_jobs_stats_get(nq_count_jobs *j, nq_count_jobs_stats *out);

/* Seconds a client should wait before asking again about a count in view's state: from the
 * estimate, within 1..60. */
unsigned nq_count_jobs_retry_after(const nq_job_view *view);

/* What the service was created with: the configuration, and the cache (may be NULL). */
const nq_config *nq_count_jobs_config(const nq_count_jobs *j);
nq_cache *nq_count_jobs_cache(const nq_count_jobs *j);

#endif /* NQ_COUNTS_JOBS_H */
