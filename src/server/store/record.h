/* record.h - what the store keeps, as every backend and every user of the store sees it: a finished
 * count, the checkpoint of a running one (the single-replica form), a count registered for the whole
 * store with its blocks of tasks under lease, and the callbacks that read them back (store.h).
 * Plain values: no backend's types appear here.
 */
#ifndef NQ_STORE_RECORD_H
#define NQ_STORE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "nqueens/solver.h"

/* The schema this release writes, on every backend (2: check values; 3: counts registered once for
 * the whole store, their tasks in blocks under lease). A store at a later version is used only when
 * that version records this one, or an older one, as the oldest that can use it (store.h). */
#define NQ_STORE_SCHEMA_VERSION 3

/* Tasks per block of a checkpoint that an upgrade turns into a registered count (the caller of
 * nq_store_register_count picks its own). */
#define NQ_STORE_MIGRATED_BLOCK_TASKS 64

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

/* A stored row that failed its check: of a finished count (checkpoint false) or a checkpoint or a
 * registered count (true), for board n (-1 when the row's n itself cannot be read). The row stays
 * where it is until a write of the same n replaces it; it is never passed to the row callback. */
typedef void (*nq_store_damaged_fn)(void *arg, int n, bool checkpoint);

/* A row that passes its check, to the reader of finished counts or of checkpoints (store.h); return
 * false to stop. */
typedef bool (*nq_store_count_fn)(void *arg, const nq_store_count *c);
typedef bool (*nq_store_checkpoint_fn)(void *arg, const nq_store_checkpoint *cp);

/* ---- counts registered for the whole store (every replica on it sees the same) ------------------ */

/* Where a registered count is. */
typedef enum nq_store_status {
    NQ_STORE_QUEUED = 0, /* registered, no block claimed yet */
    NQ_STORE_RUNNING,    /* a block was claimed at least once; not every block is done */
    NQ_STORE_DONE        /* every block done: the finished count is in the store */
} nq_store_status;

/* One count as the store holds it when read (nq_store_count_state, nq_store_each_count_state). */
typedef struct nq_store_count_view {
    int n;                  /* board size */
    nq_store_status status; /* queued, running or done */
    uint32_t plan;          /* NQ_COUNT_PLAN_VERSION of its tasks: only that plan claims its blocks */
    uint32_t tasks;         /* tasks in the plan */
    uint32_t tasks_done;    /* tasks whose sums are committed in the store (== tasks when done) */
    uint32_t block_tasks;   /* tasks per block (the last block may have fewer) */
    uint32_t blocks;        /* blocks of the count */
    uint32_t blocks_done;   /* blocks finished */
    uint32_t blocks_leased; /* blocks under an unexpired lease now */
    int64_t started_at_ms;  /* registration, Unix ms by the database's clock */
    double elapsed_s;       /* the database's now - started_at (active); the count's seconds (done) */
    nq_counts counts;       /* done: total and unique (the finished count's row) */
    int64_t finished_at;    /* done: Unix seconds; else 0 */
} nq_store_count_view;

/* A block of tasks claimed under a lease (nq_store_claim_block). The claimer counts the tasks of
 * [first_task, first_task + tasks) not yet done, commits progress and finishes it with its token;
 * once the lease has expired, every such write is refused (NQ_E_STORE_LOST) and the block is
 * someone else's. done is owned by the claim: nq_store_claim_clear frees it. */
typedef struct nq_store_claim {
    int n;                  /* board size */
    uint32_t plan;          /* the count's plan version */
    uint32_t count_tasks;   /* tasks of the whole count */
    uint32_t block;         /* block index, 0-based */
    uint32_t first_task;    /* the block's first task in the plan */
    uint32_t tasks;         /* tasks in the block */
    uint64_t token;         /* this lease's token (random, never 0) */
    int64_t lease_until_ms; /* expiry, Unix ms by the database's clock */
    uint8_t *done;          /* tasks bytes: 1 for a task whose sums are committed already (owned) */
    nq_count_sums sums;     /* sums of those tasks */
    bool taken_over;        /* the block was under an earlier claim whose lease lapsed (neither
                             * released nor finished by it): that claimer is gone or stalled */
} nq_store_claim;

/* A registered count, to the reader of every count (n ascending); return false to stop. */
typedef bool (*nq_store_count_view_fn)(void *arg, const nq_store_count_view *st);

#endif /* NQ_STORE_RECORD_H */
