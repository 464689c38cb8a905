/* sqlite.h - the SQLite backend of the store: one file on a local disk, for a single replica. The
 * only file of the server that includes <sqlite3.h> is its implementation, sqlite.c.
 *
 * Workload, safety and what opening refuses are described in store.h and docs/store.md: WAL journal
 * with a bounded log, synchronous=FULL, a versioned schema with check values on every row, and a
 * file that is refused untouched when it cannot be vouched for.
 * Thread-safety: one connection guarded by a mutex; every operation may be called from any thread.
 */
#ifndef NQ_STORE_SQLITE_H
#define NQ_STORE_SQLITE_H

#include <stddef.h>

#include "store/backend.h"

#define NQ_STORE_APPLICATION_ID 0x4e515545 /* "NQUE": PRAGMA application_id of our files */

typedef struct sqlite_store sqlite_store; /* opaque: the backend's handle */

/* Open (or create) the store file at path. On success *out is the handle for nq_store_sqlite's
 * operations (closed with its close). Errors and messages: those nq_store_open states. */
nq_err nq_store_sqlite_open(const char *path, sqlite_store **out, char *err, size_t errlen);

/* The operations over a handle nq_store_sqlite_open made. */
extern const nq_store_backend nq_store_sqlite;

#endif /* NQ_STORE_SQLITE_H */
