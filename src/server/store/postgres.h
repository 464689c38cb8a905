/* postgres.h - the PostgreSQL backend of the store: one database shared by every replica that names
 * it (--store postgresql://..., postgres://... or libpq's key=value form). The only file of the
 * server that includes <libpq-fe.h> is its implementation, postgres.c.
 *
 * What it keeps and how leases work is described in store.h and docs/store.md: the same tables as
 * SQLite's schema 3, constraints in place of check values, the database's clock for every lease, and
 * a connection made again on the next call after the database went away.
 * Thread-safety: one connection guarded by a mutex; every operation may be called from any thread.
 */
#ifndef NQ_STORE_POSTGRES_H
#define NQ_STORE_POSTGRES_H

#include <stddef.h>

#include "store/backend.h"

typedef struct pg_store pg_store; /* opaque: the backend's handle */

/* Open the store in the database conninfo names. A database that cannot be reached is not an
 * error: the handle is made and connects on a later call. Errors and messages: those nq_store_open
 * states for PostgreSQL (never the password). */
nq_err nq_store_postgres_open(const char *conninfo, pg_store **out, char *err, size_t errlen);

/* The operations over a handle nq_store_postgres_open made. */
extern const nq_store_backend nq_store_postgres;

#endif /* NQ_STORE_POSTGRES_H */
