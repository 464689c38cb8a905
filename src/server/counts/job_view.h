/* job_view.h - the types of the long-count service's answers (jobs.h): a count's state, the view of
 * one count, the service's counters. Apart from jobs.h so that the service's internals
 * (jobs_impl.h) name them without including the interface they implement.
 * Plain values; no functions.
 */
#ifndef NQ_COUNTS_JOB_VIEW_H
#define NQ_COUNTS_JOB_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "nqueens/solver.h"

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

/* The long-count service's store calls by what they do: the op label of nqueensd_store_call_seconds,
 * so that what a block costs (claim, renew, commit, finish) reads apart from what clients' polling
 * costs (read). X(name, label). */
#define NQ_STORE_OPS(X)                                                                            \
    X(READ, "read")         /* a count's state or the list of them, for a request or the gauges */ \
    X(REGISTER, "register") /* a count registered */                                               \
    X(CLAIM, "claim")       /* a block claimed (or none found) */                                  \
    X(RENEW, "renew")       /* a lease renewed */                                                  \
    X(COMMIT, "commit")     /* a block's finished tasks committed */                               \
    X(FINISH, "finish")     /* a block finished */                                                 \
    X(RELEASE, "release")   /* a block given back */                                               \
    X(WRITE, "write")       /* a finished count written */

typedef enum nq_store_op {
#define NQ_STORE_OP_ENUM(name, label) NQ_STORE_OP_##name,
    NQ_STORE_OPS(NQ_STORE_OP_ENUM)
#undef NQ_STORE_OP_ENUM
        NQ_STORE_OP_COUNT
} nq_store_op;

/* The label of op ("claim"), static; "" for a value outside the enum. */
const char *nq_store_op_label(nq_store_op op);

/* Counters for /metrics. */
typedef struct nq_count_jobs_stats {
    size_t queued, running, finished;        /* counts in each state now */
    uint64_t completed;                      /* long counts finished by this process */
    uint64_t resumed;                        /* counts resumed from a checkpoint at start-up */
    uint64_t checkpoints;                    /* checkpoint transactions written */
    uint64_t checkpoint_failures;            /* checkpoint transactions that failed */
    uint64_t store_failures;                 /* writes of finished counts that failed (retried) */
    uint64_t store_bytes;                    /* the store's size on disk; 0 without one */
    uint64_t blocks_claimed;                 /* blocks this replica claimed */
    uint64_t blocks_finished;                /* blocks this replica finished (sums committed) */
    uint64_t blocks_lost;                    /* blocks dropped: their lease was lost (renew, commit, finish) */
    uint64_t blocks_taken_over;              /* blocks claimed after another claimer's lease lapsed */
    uint64_t store_calls[NQ_STORE_OP_COUNT]; /* calls to the store by the service (round trips), by op */
    double store_seconds[NQ_STORE_OP_COUNT]; /* their total wall time, by op */
    uint64_t store_errors;                   /* calls that failed (a lost lease is not an error) */
    bool store_up;                           /* the last call reached the database (true without a store) */
} nq_count_jobs_stats;

#endif /* NQ_COUNTS_JOB_VIEW_H */
