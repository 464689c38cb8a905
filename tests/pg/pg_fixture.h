/* pg_fixture.h - a real PostgreSQL for the tests that need one.
 *
 * Two kinds: a database of the test's own in the run's server (NQ_TEST_PG, started for the whole run
 * by scripts/test.sh), for tests that only need an empty database; and a cluster of the test's own
 * (scripts/pg_test_server.sh in a fresh directory), for tests that stop, restart or lock down their
 * database. Without NQ_TEST_PG a test is skipped, with one line saying so.
 *
 * Failure: every step that must work is a Check assertion (the test fails there).
 * Thread-safety: none needed (one test process, one thread driving the fixture).
 */
#ifndef NQ_TEST_PG_FIXTURE_H
#define NQ_TEST_PG_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>

/* Call in main before the suite runs: clusters are named after this process, the runner (Check runs
 * each case in a process of its own, which a failed assertion ends before its cluster is stopped). */
void nq_pg_fixture_begin(void);

/* Call in main after the suite ran: stops and removes every cluster a case of this runner left. */
void nq_pg_fixture_end(void);

/* Whether NQ_TEST_PG names the run's server; when not, one line "<test>: skipped ..." on stderr. */
bool nq_pg_available(const char *test);

/* An empty database named after the test and this process in NQ_TEST_PG's server (dropped first if
 * an earlier run left it), its connection string (NQ_TEST_PG plus dbname=, so NQ_TEST_PG is in libpq's
 * key=value form, as scripts/pg_test_server.sh prints it) into conn; false (the test skipped) without
 * NQ_TEST_PG. The database stays: the run's server is thrown away at the end (scripts/test.sh).
 * test_store_blocks makes its databases through libpq instead, which it links for the store. */
bool nq_pg_fresh_database(const char *test, char *conn, size_t cap);

/* Run one SQL statement on conn through psql; the test fails when it does. */
void nq_pg_sql(const char *conn, const char *stmt);

/* A cluster of the test's own. */
typedef struct nq_pg_cluster {
    char dir[64];       /* its directory (made by nq_pg_cluster_init) */
    char data[80];      /* the cluster's directory in it: dir/db, also its socket directory */
    char conninfo[256]; /* after "start": the connection string (no password) */
} nq_pg_cluster;

/* Make the directory (reachable by the postgres user, who runs the cluster when the tests run as
 * root); no cluster yet: its socket directory is c->data, where nothing listens before "start". */
void nq_pg_cluster_init(nq_pg_cluster *c);

/* scripts/pg_test_server.sh VERB c->data EXTRA: "start" (EXTRA: a password or ""; the connection
 * string into c->conninfo), "stop" (EXTRA: "--keep" keeps the data, "" removes it), "restart". */
void nq_pg_cluster_ctl(nq_pg_cluster *c, const char *verb, const char *extra);

/* Stop the cluster, remove its data and the directory. */
void nq_pg_cluster_remove(nq_pg_cluster *c);

#endif /* NQ_TEST_PG_FIXTURE_H */
