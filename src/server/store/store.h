/* store.h - the store of nqueensd: finished counts and the checkpoints of running ones, in one SQLite
 * file.
 *
 * Workload: a handful of rows (one per board size counted, one per count in progress), written every
 * few seconds by the count runner and read in full at start-up. So the design is for safety, not
 * speed: WAL journal (a reader never blocks the writer, a crash mid-write loses at most the
 * transaction in flight), synchronous=FULL (a finished count is on disk when nq_store_put_count
 * returns), prepared statements, a busy timeout, every write one transaction.
 *
 * The file says what it is: PRAGMA application_id is NQ_STORE_APPLICATION_ID, and the table
 * nq_schema lists the schema versions applied (one row per migration). Opening refuses, without
 * writing a byte to the file: anything that is not an SQLite database (garbage, a torn header),
 * a database that fails SQLite's quick_check (truncated, corrupt pages), another program's database
 * (a foreign application_id, or tables without ours), and a schema newer than this release knows
 * (written by a later nqueensd: a downgrade must not lose or misread it). An empty or missing file
 * is created; an older schema is migrated forward in one transaction.
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
#include "nqueens/solver.h"

#define NQ_STORE_APPLICATION_ID 0x4e515545 /* "NQUE" */
#define NQ_STORE_SCHEMA_VERSION 1          /* the schema this release writes */

typedef struct nq_store nq_store; /* opaque */

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

/* Open (or create) the store at path. On success *out owns it (nq_store_close).
 * Errors, each with a message in err (errlen bytes, NUL-terminated): NQ_E_ARG (NULL),
 * NQ_E_STORE_CORRUPT (not a database, torn, failed quick_check), NQ_E_STORE_FOREIGN (another
 * program's database), NQ_E_STORE_NEWER (schema newer than NQ_STORE_SCHEMA_VERSION),
 * NQ_E_STORE_IO (cannot open, create or read the file, it is read-only to this process, or its
 * schema cannot be written), NQ_E_NOMEM. On error nothing is open and the file is untouched (a
 * leftover write-ahead log included). */
nq_err nq_store_open(const char *path, nq_store **out, char *err, size_t errlen);

/* Close the store (a final WAL checkpoint folds the log into the file). NULL is accepted. */
void nq_store_close(nq_store *s);

/* Record a finished count and drop its checkpoint, in one transaction, durable on return.
 * Errors: NQ_E_ARG, NQ_E_STORE_IO (full disk, read-only file, ...: nothing was written). */
nq_err nq_store_put_count(nq_store *s, const nq_store_count *c);

/* Replace the checkpoint of cp->n, in one transaction. Errors: as nq_store_put_count. */
nq_err nq_store_put_checkpoint(nq_store *s, const nq_store_checkpoint *cp);

/* Every finished count, n ascending, to fn (stop early by returning false). Errors: NQ_E_ARG,
 * NQ_E_STORE_IO. */
typedef bool (*nq_store_count_fn)(void *arg, const nq_store_count *c);
nq_err nq_store_each_count(nq_store *s, nq_store_count_fn fn, void *arg);

/* Every checkpoint, n ascending, to fn (cp and its bytes valid during the call). A row whose bitmap
 * does not match its task count is skipped (it cannot be trusted). Errors: as nq_store_each_count. */
typedef bool (*nq_store_checkpoint_fn)(void *arg, const nq_store_checkpoint *cp);
nq_err nq_store_each_checkpoint(nq_store *s, nq_store_checkpoint_fn fn, void *arg);

/* Bytes the store occupies on disk: the file and its write-ahead log. */
uint64_t nq_store_bytes(nq_store *s);

/* The path it was opened at (owned by the store). */
const char *nq_store_path(const nq_store *s);

#endif /* NQ_STORE_H */
