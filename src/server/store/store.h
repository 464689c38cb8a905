/* store.h - the store of nqueensd: finished counts and the counts in progress, behind one interface
 * whatever the backend holds them (backend.h), chosen by the --store location at open: a file path is
 * an SQLite file (sqlite.c: one replica per file), a PostgreSQL connection string (postgresql://...,
 * postgres://... or libpq's key=value form) a database shared by every replica naming it
 * (postgres.c). Nothing above store/ knows which. What every backend keeps: durable writes, one
 * transaction each, a versioned schema, rows checked on read (check values on SQLite, constraints on
 * PostgreSQL: docs/store.md).
 *
 * Workload: a handful of rows (one per board size counted, one per block of a count in progress),
 * written every few seconds by each counting replica, read on every /count and /counts. So the
 * design is for safety, not speed: every write one short transaction, no transaction or lock held
 * while counting.
 *
 * Counts for the whole store: a long count is registered once (one row per n, whoever asks first:
 * nq_store_register_count); its tasks are split into blocks that replicas claim under a lease
 * (nq_store_claim_block): an expiry set and judged by the database's clock. The claimer commits its
 * finished tasks (nq_store_commit_tasks), renews the lease (nq_store_renew) and finishes the block
 * (nq_store_finish_block), each through an update that matches the claim's token on an unexpired
 * lease: once the lease has lapsed the block is another's, and the write is refused with
 * NQ_E_STORE_LOST (the claimer drops the block, nothing is counted twice). The block that finishes a
 * count writes its finished count in the same transaction. progress = tasks committed / tasks.
 *
 * Schema versions: each records the oldest release (by the schema version it writes) that can use
 * it. Opening migrates an older schema forward in one transaction (on PostgreSQL under an advisory
 * lock, so replicas starting together on an empty database create it once) and refuses one this
 * release cannot use (NQ_E_STORE_NEWER).
 *
 * SQLite (one file, one replica): WAL journal, synchronous=FULL, a bounded log, check values on every
 * row; opening refuses, without writing a byte to the file (nor making its -wal or -shm), anything
 * that is not a regular file, not an SQLite database, a database that fails quick_check, another
 * program's database (a foreign application_id, or tables without ours), tables not those of its
 * schema and a schema it cannot use. Leases found at open are released (the one claimer is gone).
 *
 * PostgreSQL (shared): a database that answers and refuses (credentials, a newer schema, not ours) is
 * refused at open; one that cannot be reached is not: the open succeeds, and every call returns
 * NQ_E_STORE_UNAVAILABLE until a call finds it again (each call reconnects when the connection is
 * gone; the schema is checked and migrated on the first connection). The password never appears in
 * a message nor in nq_store_path (the location with the password redacted).
 *
 * Thread-safety: one connection guarded by a mutex, so every function may be called from any thread.
 * Failure: functions return an nq_err (NQ_E_STORE_* for the store's own failures) and, where an err
 * buffer is given, a one-line message saying what to do. A failed write leaves the data as it was
 * (the transaction is rolled back); the caller may retry later.
 */
#ifndef NQ_STORE_H
#define NQ_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "nqueens/error.h"
#include "store/record.h"

typedef struct nq_store nq_store; /* opaque */

/* Open (or create) the store at path: a file path (SQLite) or a PostgreSQL connection string
 * (nq_store_is_postgres). On success *out owns it (nq_store_close).
 * Errors, each with a message in err (errlen bytes, NUL-terminated; never the password): NQ_E_ARG (NULL),
 * NQ_E_STORE_CORRUPT (not a database, torn, failed quick_check, tables not its schema's),
 * NQ_E_STORE_FOREIGN (another program's database), NQ_E_STORE_NEWER (schema newer than
 * NQ_STORE_SCHEMA_VERSION), NQ_E_STORE_FULL (its volume has no room for the log, its index or the
 * schema), NQ_E_STORE_IO (not a regular file; cannot open, create or read the file; it, its -wal or
 * its -shm is read-only to this process), NQ_E_NOMEM. On error nothing is open and the file is
 * untouched (a leftover write-ahead log included). Never blocks on the path (a FIFO is refused).
 * PostgreSQL: NQ_E_STORE_IO (the server refused the connection: credentials, no such database, a
 * malformed connection string), NQ_E_STORE_FOREIGN, NQ_E_STORE_NEWER, NQ_E_STORE_CORRUPT as above;
 * a server that cannot be reached is NQ_OK (nq_store_connected false until it can), with a message
 * in err saying so (err is "" after any other success). */
nq_err nq_store_open(const char *path, nq_store **out, char *err, size_t errlen);

/* Whether location names a PostgreSQL database (postgresql:// or postgres:// URI, or a libpq
 * key=value string: "host=... dbname=..."), not a file. */
bool nq_store_is_postgres(const char *location);

/* Close the store (a final WAL checkpoint folds the log into the file). NULL is accepted. */
void nq_store_close(nq_store *s);

/* Record a finished count and drop its checkpoint (and the blocks of its registered count, which
 * reads as done from then on), in one transaction, durable on return. A write
 * that fails for want of space is retried once after the log is folded into the file and truncated.
 * Errors: NQ_E_ARG, NQ_E_STORE_FULL (no room even then), NQ_E_STORE_IO (read-only, locked past the
 * busy timeout, ...), NQ_E_STORE_UNAVAILABLE (PostgreSQL cannot be reached now): nothing was
 * written, and the caller may try again later. */
nq_err nq_store_put_count(nq_store *s, const nq_store_count *c);

/* Replace the checkpoint of cp->n, in one transaction: the single-replica form of a count in
 * progress, kept for the service that resumes whole counts. Errors: as nq_store_put_count. */
nq_err nq_store_put_checkpoint(nq_store *s, const nq_store_checkpoint *cp);

/* Every finished count whose row passes its check, n ascending, to fn (stop early by returning
 * false); every one that fails it to damaged (may be NULL). Errors: NQ_E_ARG, NQ_E_STORE_IO,
 * NQ_E_STORE_UNAVAILABLE. */
nq_err nq_store_each_count(nq_store *s, nq_store_count_fn fn, nq_store_damaged_fn damaged, void *arg);

/* Every checkpoint, n ascending, to fn (cp and its bytes valid during the call); as
 * nq_store_each_count, a row that fails its check (or whose bitmap does not match its task count)
 * goes to damaged instead. Errors: as nq_store_each_count. */
nq_err nq_store_each_checkpoint(nq_store *s, nq_store_checkpoint_fn fn, nq_store_damaged_fn damaged, void *arg);

/* Bytes the store occupies on disk: the file and its write-ahead log (PostgreSQL: its tables, the
 * last size known while the database cannot be reached; never waits for a connection). */
uint64_t nq_store_bytes(nq_store *s);

/* The location it was opened at, the password redacted ("postgresql://nq:***@db/nq"; owned by the
 * store): what a log line may say. */
const char *nq_store_path(const nq_store *s);

/* location as a log line may show it: the password (of a PostgreSQL URI or key=value string)
 * replaced by "***", into out (cap bytes, NUL-terminated). A file path is shown as it is. */
void nq_store_location_shown(const char *location, char *out, size_t cap);

/* ---- counts registered for the whole store ------------------------------------------------------ *
 * Every call below may also fail with NQ_E_STORE_UNAVAILABLE (PostgreSQL cannot be reached now; the
 * next call tries again), NQ_E_STORE_IO (the database refused the statement) and NQ_E_ARG. */

/* Whether the store is shared by several replicas (PostgreSQL), whose other counters may claim
 * blocks, rather than one file of one replica (SQLite). */
bool nq_store_shared(const nq_store *s);

/* Whether the last call reached the database (always true on SQLite). */
bool nq_store_connected(nq_store *s);

/* Register the count of n once for the whole store: with no row for n (and no finished count of n),
 * one is made, status queued, started_at the database's now, its tasks split into blocks of
 * block_tasks (>= 1), and *created is true; otherwise nothing is written and *created is false.
 * Either way *st (may be NULL) is the count as the store holds it after the call (status done when
 * n's finished count is there). Two callers registering n at once, on any replicas, make one row. */
nq_err nq_store_register_count(nq_store *s, int n, uint32_t plan, uint32_t tasks, uint32_t block_tasks, bool *created,
                               nq_store_count_view *st);

/* The state of n now into *st; *found false (and *st zeroed) when the store knows no count of n. A
 * finished count without a registered one (a short count) reads as done with tasks 0. */
nq_err nq_store_count_state(nq_store *s, int n, nq_store_count_view *st, bool *found);

/* Every count the store knows, registered or finished, n ascending, to fn; a registered count whose
 * row fails its check goes to damaged (may be NULL) with checkpoint true. */
nq_err nq_store_each_count_state(nq_store *s, nq_store_count_view_fn fn, nq_store_damaged_fn damaged, void *arg);

/* Claim one block for lease_ms (>= 1) among the counts with n <= max_n and this plan version: a
 * block that is neither done nor under an unexpired lease, oldest count first, then lowest index. It
 * gets a fresh token and the expiry the database's now + lease_ms; its count becomes running. *got
 * says whether a block was claimed; with one, *claim holds it (its done bitmap allocated: release it
 * with nq_store_claim_clear). Other replicas' claims are skipped, never waited on. claim->taken_over
 * is true when the block was under an earlier claim whose lease lapsed (neither released nor
 * finished: its claimer was lost or stalled), false for a fresh or released block. */
nq_err nq_store_claim_block(nq_store *s, uint32_t lease_ms, int max_n, uint32_t plan, nq_store_claim *claim, bool *got);

/* Extend the claim's lease to the database's now + lease_ms, only if it still holds the block (token
 * matches, lease unexpired); claim->lease_until_ms is updated. NQ_E_STORE_LOST otherwise: the block
 * may be another's; drop it. */
nq_err nq_store_renew(nq_store *s, nq_store_claim *claim, uint32_t lease_ms);

/* Commit the block's progress: done (claim->tasks bytes, non-zero: done; every task done before
 * still done) and the sums of those tasks, through the claim's token on an unexpired lease. The
 * lease is not extended. NQ_E_STORE_LOST when the lease is not the claim's any more; NQ_E_ARG for a
 * bitmap with fewer tasks done than the store has. */
nq_err nq_store_commit_tasks(nq_store *s, const nq_store_claim *claim, const uint8_t *done, const nq_count_sums *sums);

/* Finish the block: its sums (of every task of the block) written and the block marked done in one
 * transaction, through the claim's token on an unexpired lease; when it was the count's last block,
 * the finished count (the sum of every block) is written and the count marked done in the same
 * transaction, and *count_done (may be NULL) is true. NQ_E_STORE_LOST when the lease is not the
 * claim's any more: nothing was written; the block is thrown away. */
nq_err nq_store_finish_block(nq_store *s, const nq_store_claim *claim, const nq_count_sums *sums, bool *count_done);

/* Give the block up (a replica stopping): its lease ends now if the claim still holds it; committed
 * progress stays. NQ_OK also when the lease was lost already. */
nq_err nq_store_release(nq_store *s, const nq_store_claim *claim);

/* Free what a claim owns and zero it. NULL is accepted. */
void nq_store_claim_clear(nq_store_claim *claim);

/* Forget n: its registered count, blocks, checkpoint and finished count, in one transaction (a row
 * found damaged, or a finished count that is not the known one). */
nq_err nq_store_forget_count(nq_store *s, int n);

#endif /* NQ_STORE_H */
