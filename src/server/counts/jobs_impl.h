/* jobs_impl.h - internal to counts/: the long-count service's state, shared by jobs.c (the
 * interface: what callers ask and see, the store read and written for them) and runner.c (the
 * threads that count: runners claiming blocks, the keeper renewing and committing). Nothing outside
 * counts/ includes it.
 *
 * Thread-safety: as jobs.h says; every field of nq_count_jobs below `lock` is read and written with
 * it held, and a unit's store I/O belongs to whoever set its `io` flag (runner.c).
 */
#ifndef NQ_COUNTS_JOBS_IMPL_H
#define NQ_COUNTS_JOBS_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "base/config.h"
#include "base/errors.h"
#include "base/event.h"
#include "cache/cache.h"
#include "counts/job_view.h"
#include "nqueens/solver.h"
#include "store/store.h"

#define RUNNERS_MAX 64 /* --long-counts at most (config.c) */
/* An idle runner asks the store for a block this often: a count registered on another replica is
 * joined within it (a second would be 4% of a two-replica n = 19). One indexed query each; 64 idle
 * replicas make 256 a second. */
#define IDLE_POLL_MS 250
#define RETRY_MS 1000 /* after a failed store call, a thread tries again this much later */
#define REFRESH_S 1.0 /* the keeper reads the gauges' figures from the store this often */

/* What this process knows of n without asking the store: finished counts (from the store, or
 * made here), and counts in memory: every count without a store, and with a store file only one it
 * could not register (a full disk). The store holds every other count in progress. */
typedef struct slot {
    nq_job_state state;   /* see jobs.h */
    nq_err err;           /* why the last run failed (state NONE), NQ_OK otherwise */
    nq_counts counts;     /* DONE */
    double seconds;       /* DONE: wall time it took */
    int64_t finished_at;  /* DONE: Unix seconds */
    int64_t started_at;   /* first start, Unix seconds */
    uint64_t seq;         /* queue order without a store (smaller: earlier) */
    bool unsaved;         /* DONE but not in the store yet (the keeper writes it) */
    bool save_failed;     /* and the store refused it at least once */
    double run_t0;        /* without a store: nq_clock_s() when the run started; 0 when not running */
    double progress_t0;   /* the progress it started from (0: a count in memory starts afresh) */
    uint32_t store_tasks; /* with a store: the count's tasks when last read */
    uint32_t store_done;  /* and the tasks committed then */
} slot;

/* A runner's work: a block claimed from the store, or a whole count without one. */
typedef struct unit {
    struct nq_count_jobs *j; /* the service (for on_task) */
    bool active;             /* holds work */
    int n;                   /* board size */
    uint32_t first;          /* the first task of the plan in it */
    uint32_t tasks;          /* tasks in it */
    uint8_t *done;           /* tasks bytes, non-zero: counted (owned) */
    uint32_t ndone;          /* how many are */
    uint32_t committed;      /* ndone when last committed */
    nq_count_sums sums;      /* of the tasks done */
    nq_store_claim claim;    /* the block's claim (store) */
    bool claimed;            /* and whether the lease is held, as far as this process knows */
    bool lost;               /* the lease was found lost: the block is dropped */
    bool io;                 /* a store call on the claim is in flight (keeper or runner) */
    bool finishing;          /* the runner settles it: the keeper commits no more */
    double renewed_at;       /* nq_clock_s() of the last renew (or the claim) */
    double committed_at;     /* of the last commit (or the claim) */
    nq_count_ctl ctl;        /* the running count's control block */
} unit;

typedef struct runner {
    struct nq_count_jobs *j;  /* the service */
    unit u;                   /* its work */
    nq_count_session *counts; /* the counter's tables kept from one block of an n to the next (owned, runner
                                 thread only; NULL while idle) */
    pthread_t thread;         /* the thread */
} runner;

struct nq_count_jobs {
    const nq_config *cfg;           /* borrowed */
    nq_cache *cache;                /* borrowed, may be NULL: where finished counts are published */
    nq_store *store;                /* borrowed, may be NULL */
    nq_event_sink events;           /* where events go */
    pthread_mutex_t lock;           /* guards everything below but the threads */
    pthread_cond_t changed;         /* a slot or unit changed state, or stopping */
    clockid_t clock;                /* the clock of changed's timed waits */
    slot slots[NQ_COUNT_N_MAX + 1]; /* by n */
    uint64_t next_seq;              /* for the next queued slot; moves on every registration too */
    bool stopping;                  /* destroy began */
    bool loaded;                    /* what the store holds was read */
    size_t store_queued;            /* gauges from the store, when last read */
    size_t store_running;
    double refreshed_at;         /* nq_clock_s() of that read */
    nq_count_jobs_stats stats;   /* counters (the state gauges are computed) */
    runner runners[RUNNERS_MAX]; /* the runner threads */
    unsigned nrunners;           /* started */
    pthread_t keeper;            /* the lease and checkpoint thread */
    bool keeper_started;         /* and whether it runs */
};

/* ---- jobs.c, for runner.c ------------------------------------------------------------------------- */

int64_t nq_jobs_wall_s(void);
/* Wait on `changed` for up to ms unless stopping. Caller holds the lock. */
void nq_jobs_nap(nq_count_jobs *j, uint32_t ms);
void nq_jobs_event(const nq_count_jobs *j, nq_event_level level, const char *msg, int n, double progress,
                   double seconds, nq_err err);
/* Account for one store call of kind op that began at t0 (nq_clock_s) and returned rc. Takes the lock. */
void nq_jobs_store_note(nq_count_jobs *j, nq_store_op op, double t0, nq_err rc);
/* Whether c can be the count of n: the known one, in whole symmetry classes. */
bool nq_jobs_counts_sound(int n, const nq_counts *c);
/* A count as the store holds it, into *v; false when it is a finished count that is not sound. */
bool nq_jobs_view_of_store(const nq_store_count_view *st, nq_job_view *v);
/* Remember what the store said of n (a finished count kept and published). Takes the lock. */
void nq_jobs_remember(nq_count_jobs *j, const nq_store_count_view *st, const nq_job_view *v);
/* Register n in the store: *v its state after. */
nq_err nq_jobs_register(nq_count_jobs *j, int n, nq_job_view *v);
/* Write the finished count of n; true when stored (a failure logged unless quiet). */
bool nq_jobs_save_count(nq_count_jobs *j, int n, const nq_counts *c, double seconds, int64_t at, bool quiet);
/* Write every finished count the store has not taken yet. */
void nq_jobs_retry_unsaved(nq_count_jobs *j);
/* Read what the store holds at start-up (finished counts, counts to join). */
nq_err nq_jobs_load(nq_count_jobs *j);
/* Read every count of the store for the gauges. */
nq_err nq_jobs_refresh(nq_count_jobs *j);

/* ---- runner.c, for jobs.c ------------------------------------------------------------------------- */

/* Start the --long-counts runners and, with a store, the keeper. NQ_E_THREAD when one could not be
 * started (those started are stopped by nq_jobs_threads_stop). */
nq_err nq_jobs_threads_start(nq_count_jobs *j);
/* Stop and join them: running blocks are committed and given up, or finished. */
void nq_jobs_threads_stop(nq_count_jobs *j);

#endif /* NQ_COUNTS_JOBS_IMPL_H */
