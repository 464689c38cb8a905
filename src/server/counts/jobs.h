/* jobs.h - the long-count service of nqueensd: counts that outlive requests, with progress, kept
 * in the store and counted by every replica that shares it.
 *
 * Workload: a count of n >= --long-count-n takes from seconds to hours. It must not depend on a
 * client staying connected, nor die with the process, nor with the replica: so it is registered
 * once in the store for the whole service (nq_store_register_count), its plan's tasks split into
 * blocks, and --long-counts runner threads on every replica claim blocks under a lease
 * (nq_store_claim_block), count them (nq_count_tasks), commit the tasks finished every
 * --checkpoint-ms and finish each block, its sums and its done mark in one transaction. A lease
 * keeper renews each held lease every third of --lease-ms; a renew, commit or finish that finds the
 * lease lost drops the block (its uncommitted tasks are counted again by whoever claims it next).
 * The block that finishes a count writes the finished count; the replica that finished it checks
 * it against the known count of its n (OEIS A000170, A002562) and the symmetry identity before it
 * publishes it. The same code runs on SQLite (one replica, one claimer) and PostgreSQL (many).
 *
 * What a caller sees comes from the store: status, progress (tasks committed / tasks; with a
 * store file, the larger of that and the tasks its one claimer has counted),
 * started_at and elapsed time by the database's clock, the finished count and its seconds; so
 * every replica answers alike. Finished counts are also kept in memory (27 slots at most) and
 * served from there without the store. Without a store (--store none) the same runners count whole
 * counts queued in memory, and nothing outlives the process.
 *
 * Store faults: a call that fails (the database unreachable: NQ_E_STORE_UNAVAILABLE) is counted
 * and retried by the threads; a request that needs the store's answer gets the error (503). A
 * count finished within a request (nq_count_jobs_record) is written after the response, by the
 * keeper thread, retried while the store refuses it.
 *
 * Thread-safety: every function may be called from any thread; one mutex guards the memory, and no
 * store call or count runs under it. Ownership: the service borrows the configuration, the cache
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
#include "counts/job_view.h"
#include "nqueens/solver.h"
#include "store/store.h"

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

/* Make sure n is counted: a DONE or active count is left as it is; otherwise one is registered in
 * the store (queued in memory without one), unless --long-counts + --long-count-queue counts are
 * active already in the whole store (NQ_E_BUSY) or the registry stops (NQ_E_DRAINING). Two callers
 * on any replicas asking at once register one count. *view (may be NULL) receives the count's
 * state. Errors also: the store's (NQ_E_STORE_UNAVAILABLE, NQ_E_STORE_IO). */
nq_err nq_count_jobs_start(nq_count_jobs *j, int n, nq_job_view *view);

/* Wait up to wait_ms (UINT32_MAX: no limit) for n to be DONE, returning early when *cancel (may be
 * NULL) becomes true. NQ_OK with *view, DONE or not; the count's error when it failed meanwhile
 * (NQ_E_NOMEM, NQ_E_THREAD); NQ_E_DRAINING when the registry stops; the store's error when it
 * cannot be read. With a store, the store is read every few hundred ms while waiting. */
nq_err nq_count_jobs_wait(nq_count_jobs *j, int n, uint32_t wait_ms, const atomic_bool *cancel, nq_job_view *view);

/* The state of n now (state NONE when unknown): from the store when there is one. NQ_OK, or the
 * store's error (*view then says what memory knows: DONE or NONE). */
nq_err nq_count_jobs_read(nq_count_jobs *j, int n, nq_job_view *view);

/* nq_count_jobs_read without the error. */
void nq_count_jobs_view(nq_count_jobs *j, int n, nq_job_view *view);

/* Record a count that finished within a request (any route's: a /count below --long-count-n, a
 * /solve total): kept as DONE at once, and written to the store after this returns, by the
 * checkpoint thread (retried there while the store fails): the request never waits on the store.
 * A long count of n already known (queued, running, done) is left as it is. Never blocks on I/O. */
void nq_count_jobs_record(nq_count_jobs *j, int n, const nq_counts *c, double seconds);

/* Every known count, newest first (running and queued by start, finished by finish time), into
 * out (cap entries), *len of them: the store's counts (and finished ones not written to it yet).
 * NQ_OK, or the store's error (*len then counts what memory knows). */
nq_err nq_count_jobs_list_all(nq_count_jobs *j, nq_job_view *out, size_t cap, size_t *len);

/* nq_count_jobs_list_all without the error; returns how many were written. */
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
