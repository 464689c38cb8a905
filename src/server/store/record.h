/* record.h - what the store keeps, as every backend and every user of the store sees it: a finished
 * count, the checkpoint of a running one, and the callbacks that read them back (store.h).
 * Plain values: no backend's types appear here.
 */
#ifndef NQ_STORE_RECORD_H
#define NQ_STORE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "nqueens/solver.h"

#define NQ_STORE_SCHEMA_VERSION 2 /* the schema this release writes (2: check values), on every backend */

/* A finished count as the store keeps it. */
typedef struct nq_store_count {
    int n;               /* board size */
    nq_counts counts;    /* total and unique */
    double seconds;      /* wall time the count took, over every run it needed */
    int64_t finished_at; /* when it finished, Unix seconds */
} nq_store_count;

/* The checkpoint of a running count: which tasks of its plan are done, and what they sum to. */
typedef struct nq_store_checkpoint {
    int n;               /* board size */
    uint32_t plan;       /* NQ_COUNT_PLAN_VERSION it was made with */
    uint32_t tasks;      /* tasks in the plan */
    const uint8_t *done; /* tasks bytes, non-zero: done (borrowed; valid during the call) */
    nq_count_sums sums;  /* of the tasks done */
    double elapsed_s;    /* wall time spent on it so far, over every run */
    int64_t started_at;  /* when it was first started, Unix seconds */
} nq_store_checkpoint;

/* A stored row that failed its check: of a finished count (checkpoint false) or a checkpoint, for
 * board n (-1 when the row's n itself cannot be read). The row stays where it is until a write of
 * the same n replaces it; it is never passed to the row callback. */
typedef void (*nq_store_damaged_fn)(void *arg, int n, bool checkpoint);

/* A row that passes its check, to the reader of finished counts or of checkpoints (store.h); return
 * false to stop. */
typedef bool (*nq_store_count_fn)(void *arg, const nq_store_count *c);
typedef bool (*nq_store_checkpoint_fn)(void *arg, const nq_store_checkpoint *cp);

#endif /* NQ_STORE_RECORD_H */
