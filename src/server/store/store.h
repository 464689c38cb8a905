/* store.h - the store of nqueensd: finished counts and the checkpoints of running ones, behind one
 * interface whatever the backend holds them (backend.h). Today's backend is one SQLite file
 * (sqlite.c); what follows describes it, and what any backend must keep: durable writes, one
 * transaction each, rows checked on read, a versioned schema refused when newer.
 *
 * Workload: a handful of rows (one per board size counted, one per count in progress), written every
 * few seconds by the count runner and read in full at start-up. So the design is for safety, not
 * speed: WAL journal (a reader never blocks the writer, a crash mid-write loses at most the
 * transaction in flight), synchronous=FULL (a finished count is on disk when nq_store_put_count
 * returns), prepared statements, a busy timeout, every write one transaction. The store may share a
 * small volume: its log is folded into the file every few pages and stays under 512 KiB, and a
 * write that fails for want of space is retried once after the log is folded and truncated.
 *
 * Every row carries a check value over its fields, verified on read: a row that fails it (a bit
 * flipped on disk, a hand edit, a NULL or negative value) is not passed on but reported as damaged,
 * and the caller counts again. (The check is the store's own business: another backend keeps its
 * own, behind the same interface.)
 *
 * The file says what it is: PRAGMA application_id is NQ_STORE_APPLICATION_ID (sqlite.h), and the table
 * nq_schema lists the schema versions applied (one row per migration). Opening refuses, without
 * writing a byte to the file (nor making its -wal or -shm): anything that is not a regular file (a
 * FIFO would block the open), that is not an SQLite database (garbage, a torn header), a database
 * that fails SQLite's quick_check (truncated, corrupt pages), another program's database (a foreign
 * application_id, or tables without ours), a store whose tables are not those of its schema, and a
 * schema newer than this release knows (written by a later nqueensd: a downgrade must not lose or
 * misread it). An empty or missing file is created; an older schema is migrated forward in one
 * transaction. A store it accepts has taken a write: one it could read but not write (its -wal or
 * -shm left by another user) is refused at the open, not at the first count.
 *
 * Thread-safety: one connection guarded by a mutex, so every function may be called from any thread.
 * Failure: functions return an nq_err (NQ_E_STORE_* for the store's own failures) and, where an err
 * buffer is given, a one-line message saying what to do. A failed write leaves the file as it was
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

/* Open (or create) the store at path. On success *out owns it (nq_store_close).
 * Errors, each with a message in err (errlen bytes, NUL-terminated): NQ_E_ARG (NULL),
 * NQ_E_STORE_CORRUPT (not a database, torn, failed quick_check, tables not its schema's),
 * NQ_E_STORE_FOREIGN (another program's database), NQ_E_STORE_NEWER (schema newer than
 * NQ_STORE_SCHEMA_VERSION), NQ_E_STORE_FULL (its volume has no room for the log, its index or the
 * schema), NQ_E_STORE_IO (not a regular file; cannot open, create or read the file; it, its -wal or
 * its -shm is read-only to this process), NQ_E_NOMEM. On error nothing is open and the file is
 * untouched (a leftover write-ahead log included). Never blocks on the path (a FIFO is refused). */
nq_err nq_store_open(const char *path, nq_store **out, char *err, size_t errlen);

/* Close the store (a final WAL checkpoint folds the log into the file). NULL is accepted. */
void nq_store_close(nq_store *s);

/* Record a finished count and drop its checkpoint, in one transaction, durable on return. A write
 * that fails for want of space is retried once after the log is folded into the file and truncated.
 * Errors: NQ_E_ARG, NQ_E_STORE_FULL (no room even then), NQ_E_STORE_IO (read-only, locked past the
 * busy timeout, ...): nothing was written, and the caller may try again later. */
nq_err nq_store_put_count(nq_store *s, const nq_store_count *c);

/* Replace the checkpoint of cp->n, in one transaction. Errors: as nq_store_put_count. */
nq_err nq_store_put_checkpoint(nq_store *s, const nq_store_checkpoint *cp);

/* Every finished count whose row passes its check, n ascending, to fn (stop early by returning
 * false); every one that fails it to damaged (may be NULL). Errors: NQ_E_ARG, NQ_E_STORE_IO. */
nq_err nq_store_each_count(nq_store *s, nq_store_count_fn fn, nq_store_damaged_fn damaged, void *arg);

/* Every checkpoint, n ascending, to fn (cp and its bytes valid during the call); as
 * nq_store_each_count, a row that fails its check (or whose bitmap does not match its task count)
 * goes to damaged instead. Errors: as nq_store_each_count. */
nq_err nq_store_each_checkpoint(nq_store *s, nq_store_checkpoint_fn fn, nq_store_damaged_fn damaged, void *arg);

/* Bytes the store occupies on disk: the file and its write-ahead log. */
uint64_t nq_store_bytes(nq_store *s);

/* The path it was opened at (owned by the store). */
const char *nq_store_path(const nq_store *s);

#endif /* NQ_STORE_H */
