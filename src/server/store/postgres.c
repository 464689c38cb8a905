/* postgres.c - the PostgreSQL backend of the store: finished counts, checkpoints and counts in blocks
 * under lease in one database shared by every replica naming it (see store.h for what every backend
 * promises, postgres.h for this one).
 *
 * One connection, guarded by a mutex, made at open and again by the first call after it was lost: a
 * call finds the database gone (a connection error, or the server shutting down) and tries once more
 * on a new connection, so a restarted database is found by the next call and only a database that
 * stays away answers NQ_E_STORE_UNAVAILABLE. The schema is checked (and created or migrated, under
 * pg_advisory_xact_lock so that replicas starting together on an empty database create it once) on
 * every new connection, before its first statement.
 *
 * Each write is one statement (data-modifying WITH clauses: atomic on their own) or one short
 * transaction; none is held while counting. Leases are set and judged by the database's clock
 * (clock_timestamp()); a claim takes its block with SELECT ... FOR UPDATE SKIP LOCKED, so replicas
 * claiming at once never wait on each other nor take one block twice. Finishing a block locks its
 * count's row first, so the two replicas finishing a count's last two blocks see each other's and
 * exactly one writes the finished count.
 *
 * Rows are checked by the database's constraints (ranges, a bitmap of its block's length), not by
 * check values: the server keeps its own page checksums and WAL, and every replica writes through it.
 * Bitmaps travel as hex text (encode/decode), every parameter as text.
 *
 * The password (in the connection string, or from PGPASSWORD or a passfile) is never written
 * anywhere by this file: the location is shown redacted, and libpq's messages are scrubbed of it.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strdup */
#endif
#include "store/postgres.h"

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/errors.h"
#include "store/common.h"

#define CONNECT_TIMEOUT_S "5"  /* a database that does not answer within this is unavailable */
#define SCHEMA_LOCK 1313953093 /* pg_advisory_xact_lock key of schema changes: "NQUE" */
#define SHOWN_MAX 1024         /* the redacted location, NUL included */
#define PARAMS_MAX 8           /* parameters of one statement at most */
#define PARAM_TEXT 32          /* one integer or real as text */
#define SLOW_CONNECT_MS 1000   /* a connection attempt this slow (a host that does not answer) ... */
#define TRANSIENT_TRIES 3      /* a statement the database rolled back for a deadlock is tried again */
#define RETRY_SLOW_MS 5000     /* ... is not tried again sooner than this: calls answer at once meanwhile */

/* The database's clock, Unix ms. */
#define NOW "(extract(epoch from clock_timestamp()) * 1000)::bigint"

/* Migrations of this backend, by version: pg_migration[v - 1] takes the schema to version v. Stores
 * on PostgreSQL begin at version 3 (the first with counts in blocks), so 1 and 2 are empty and a
 * database without the schema gets version 3 whole. Append, never edit. */
static const char *const pg_migration[NQ_STORE_SCHEMA_VERSION] = {
    NULL,
    NULL,
    "CREATE TABLE nq_schema(version integer PRIMARY KEY, applied_at bigint NOT NULL, "
    "oldest_reader integer NOT NULL CHECK (oldest_reader BETWEEN 1 AND version));"
    "CREATE TABLE counts(n integer PRIMARY KEY CHECK (n BETWEEN 1 AND 64), total bigint NOT NULL CHECK (total >= 0), "
    "uniq bigint NOT NULL CHECK (uniq BETWEEN 0 AND total), seconds double precision NOT NULL CHECK (seconds >= 0), "
    "finished_at bigint NOT NULL);"
    "CREATE TABLE checkpoints(n integer PRIMARY KEY CHECK (n BETWEEN 1 AND 64), plan bigint NOT NULL, "
    "tasks bigint NOT NULL CHECK (tasks > 0), done bytea NOT NULL CHECK (octet_length(done) = tasks), "
    "total bigint NOT NULL CHECK (total >= 0), burnside bigint NOT NULL CHECK (burnside >= total), "
    "elapsed_s double precision NOT NULL CHECK (elapsed_s >= 0), started_at bigint NOT NULL, "
    "updated_at bigint NOT NULL);"
    "CREATE TABLE jobs(n integer PRIMARY KEY CHECK (n BETWEEN 1 AND 64), plan bigint NOT NULL, "
    "tasks bigint NOT NULL CHECK (tasks > 0), block_tasks bigint NOT NULL CHECK (block_tasks > 0), "
    "status smallint NOT NULL CHECK (status BETWEEN 0 AND 2), started_at bigint NOT NULL, "
    "base_total bigint NOT NULL CHECK (base_total >= 0), base_burnside bigint NOT NULL CHECK (base_burnside >= "
    "base_total));"
    "CREATE TABLE blocks(n integer NOT NULL, idx bigint NOT NULL CHECK (idx >= 0), first_task bigint NOT NULL, "
    "tasks bigint NOT NULL CHECK (tasks > 0), state smallint NOT NULL CHECK (state BETWEEN 0 AND 1), "
    "token bigint NOT NULL, lease_until bigint NOT NULL, done bytea NOT NULL CHECK (octet_length(done) = tasks), "
    "tasks_done bigint NOT NULL CHECK (tasks_done BETWEEN 0 AND tasks), total bigint NOT NULL CHECK (total >= 0), "
    "burnside bigint NOT NULL CHECK (burnside >= total), PRIMARY KEY (n, idx));"
    "CREATE INDEX blocks_free ON blocks(n, idx) WHERE state = 0;",
};

struct pg_store {
    PGconn *conn;          /* NULL while the database cannot be reached */
    pthread_mutex_t lock;  /* one caller at a time on conn */
    char *conninfo;        /* as given (owned; may hold the password: never shown) */
    char *password;        /* the password it holds, to scrub from messages (owned; may be NULL) */
    char shown[SHOWN_MAX]; /* the location, password redacted */
    char why[256];         /* the database's words on the last failed statement, password scrubbed */
    bool transient;        /* the last failure was a deadlock or a serialization failure: try again */
    int64_t tried_ms;      /* when the last connection was tried (monotonic ms; 0: never) */
    int64_t try_cost_ms;   /* and how long it took */
    uint64_t bytes;        /* nq_store_bytes' last answer, kept while the database is away */
};

/* The one-line message of a refusal, into the caller's err buffer when there is one. */
#define say(err, errlen, ...)                                                \
    do {                                                                     \
        if ((err) && (errlen)) (void)snprintf((err), (errlen), __VA_ARGS__); \
    } while (0)

static int64_t now_ms(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- connection ------------------------------------------------------------------------------- */

/* libpq's last message on conn, on one line, without the password, into out. */
static void conn_message(const pg_store *s, PGconn *conn, char *out, size_t cap)
{
    (void)snprintf(out, cap, "%s", conn ? PQerrorMessage(conn) : "out of memory");
    for (char *p = out; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
    for (size_t len = strlen(out); len > 0 && out[len - 1] == ' '; len--) out[len - 1] = '\0';
    nq_store_scrub(out, s->password);
}

/* Connect: NQ_OK (s->conn set), NQ_E_STORE_UNAVAILABLE (nothing answers: down, unreachable, still
 * starting) or NQ_E_STORE_IO (a server answered and refused: credentials, no such database). */
static nq_err connect_db(pg_store *s, char *err, size_t errlen)
{
    /* Defaults first: the connection string (expanded in dbname's place) overrides them. Keepalives
     * and a TCP user timeout make a database that vanished mid-call an error within seconds, not
     * after the kernel's hours. */
    const char *const kw[] = {"connect_timeout",  "application_name", "keepalives_idle", "keepalives_interval",
                              "keepalives_count", "tcp_user_timeout", "dbname",          NULL};
    const char *const val[] = {CONNECT_TIMEOUT_S, "nqueensd", "10", "5", "3", "20000", s->conninfo, NULL};
    const int64_t t0 = now_ms();
    if (s->tried_ms && s->try_cost_ms >= SLOW_CONNECT_MS && t0 - s->tried_ms < RETRY_SLOW_MS) {
        say(err, errlen, "store %s cannot be reached; trying again within %d s", s->shown, RETRY_SLOW_MS / 1000);
        return NQ_E_STORE_UNAVAILABLE;
    }
    PGconn *conn = PQconnectdbParams(kw, val, 1);
    s->tried_ms = t0;
    s->try_cost_ms = now_ms() - t0;
    if (conn && PQstatus(conn) == CONNECTION_OK) {
        s->conn = conn;
        return NQ_OK;
    }
    char why[400];
    conn_message(s, conn, why, sizeof why);
    PQfinish(conn);
    /* A server that answers a ping is up: the refusal is ours to fix (exit 2 at start-up). */
    const PGPing ping = PQpingParams(kw, val, 1);
    if (ping == PQPING_OK || ping == PQPING_NO_ATTEMPT) {
        say(err, errlen,
            "store %s: the database refused the connection (%s); check the user, its password (PGPASSWORD, "
            "a passfile or the URI) and the database name",
            s->shown, why);
        return NQ_E_STORE_IO;
    }
    say(err, errlen, "store %s cannot be reached (%s); serving without it until it can", s->shown, why);
    return NQ_E_STORE_UNAVAILABLE;
}

/* What a failed statement means: the database gone (the connection is dropped, to be made again),
 * its disk full, or a refusal. */
static nq_err failure(pg_store *s, const PGresult *r)
{
    conn_message(s, s->conn, s->why, sizeof s->why);
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    /* 40001 serialization_failure, 40P01 deadlock_detected: the database rolled the statement back
     * because of another transaction, and the same statement again is expected to succeed. */
    s->transient = state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0);
    const bool gone = !state || PQstatus(s->conn) != CONNECTION_OK || strncmp(state, "08", 2) == 0 ||
                      strncmp(state, "57P", 3) == 0; /* connection exception, shutdown, crash recovery */
    if (gone) {
        PQfinish(s->conn);
        s->conn = NULL;
        return NQ_E_STORE_UNAVAILABLE;
    }
    return strcmp(state, "53100") == 0 ? NQ_E_STORE_FULL : NQ_E_STORE_IO;
}

/* Run sql with text parameters (NULL entries are SQL NULLs): the result when it succeeded (PQclear
 * it), else NULL with *rc the failure. */
static PGresult *run(pg_store *s, const char *sql, int nparams, const char *const *params, nq_err *rc)
{
    PGresult *r = PQexecParams(s->conn, sql, nparams, NULL, params, NULL, NULL, 0);
    const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
        *rc = NQ_OK;
        return r;
    }
    *rc = failure(s, r);
    PQclear(r);
    return NULL;
}

/* Run sql and drop its result: NQ_OK or the failure. */
static nq_err exec(pg_store *s, const char *sql, int nparams, const char *const *params)
{
    nq_err rc;
    PQclear(run(s, sql, nparams, params, &rc));
    return rc;
}

/* End the transaction in progress: COMMIT when rc is NQ_OK (its failure then the result), else
 * ROLLBACK (rc kept). */
static nq_err end_tx(pg_store *s, nq_err rc)
{
    if (!s->conn) return rc; /* the connection went with the failure, and the transaction with it */
    if (rc == NQ_OK) return exec(s, "COMMIT", 0, NULL);
    (void)exec(s, "ROLLBACK", 0, NULL);
    return rc;
}

/* One integer of a result (0 for NULL or garbage: the constraints keep rows within range). */
static int64_t int_at(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col)) return 0;
    errno = 0;
    char *end = NULL;
    const long long v = strtoll(PQgetvalue(r, row, col), &end, 10);
    return errno == 0 && end && *end == '\0' ? (int64_t)v : 0;
}

/* An integer of a result that is a sum (numeric, may exceed int64 for nothing we write). */
static uint64_t uint_at(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col)) return 0;
    errno = 0;
    char *end = NULL;
    const unsigned long long v = strtoull(PQgetvalue(r, row, col), &end, 10);
    return errno == 0 && end && (*end == '\0' || *end == '.') ? (uint64_t)v : 0;
}

static double real_at(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col)) return 0.0;
    char *end = NULL;
    const double v = strtod(PQgetvalue(r, row, col), &end);
    return end && *end == '\0' && isfinite(v) && v >= 0 ? v : 0.0;
}

/* Parameters as text: p.v[i] points into p.text[i] (or elsewhere, set by the caller). */
typedef struct params {
    const char *v[PARAMS_MAX];
    char text[PARAMS_MAX][PARAM_TEXT];
} params;

static void p_int(params *p, int i, int64_t v)
{
    (void)snprintf(p->text[i], PARAM_TEXT, "%" PRId64, v);
    p->v[i] = p->text[i];
}

static void p_real(params *p, int i, double v)
{
    (void)snprintf(p->text[i], PARAM_TEXT, "%.17g", v);
    p->v[i] = p->text[i];
}

/* ---- schema ------------------------------------------------------------------------------------ */

/* Apply the migrations after version from, each recording its version. */
static nq_err migrate(pg_store *s, int64_t from)
{
    nq_err rc = NQ_OK;
    for (int64_t v = (from > 0 ? from : 0) + 1; rc == NQ_OK && v <= NQ_STORE_SCHEMA_VERSION; v++) {
        if (pg_migration[v - 1]) { /* several statements: PQexec, which takes no parameters */
            PGresult *r = PQexec(s->conn, pg_migration[v - 1]);
            rc = r && PQresultStatus(r) == PGRES_COMMAND_OK ? NQ_OK : failure(s, r);
            PQclear(r);
        }
        params p = {0};
        p_int(&p, 0, v);
        p_int(&p, 1, v); /* oldest reader: every version so far needs its own release */
        if (rc == NQ_OK && pg_migration[v - 1])
            rc = exec(s,
                      "INSERT INTO nq_schema VALUES ($1::int, extract(epoch from clock_timestamp())::bigint, $2::int)",
                      2, p.v);
    }
    return rc;
}

/* Check the schema of a new connection and bring it to this release's, in one transaction under the
 * schema lock: NQ_OK, NQ_E_STORE_FOREIGN (our table names without our schema), NQ_E_STORE_NEWER (a
 * version this release cannot use), NQ_E_STORE_CORRUPT (a version with no record), or a failure. */
static nq_err ensure_schema(pg_store *s, char *err, size_t errlen)
{
    nq_err rc = exec(s, "BEGIN", 0, NULL);
    params p = {0};
    p_int(&p, 0, SCHEMA_LOCK);
    if (rc == NQ_OK) rc = exec(s, "SELECT pg_advisory_xact_lock($1::bigint)", 1, p.v);
    PGresult *r = rc == NQ_OK ? run(s,
                                    "SELECT to_regclass('nq_schema') IS NOT NULL, to_regclass('counts') IS NOT NULL "
                                    "OR to_regclass('jobs') IS NOT NULL OR to_regclass('blocks') IS NOT NULL",
                                    0, NULL, &rc)
                              : NULL;
    const bool ours = r && strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    const bool taken = r && strcmp(PQgetvalue(r, 0, 1), "t") == 0;
    PQclear(r);
    int64_t version = 0, oldest = 0;
    if (rc == NQ_OK && ours) {
        r = run(s,
                "SELECT v.version, coalesce(v.oldest_reader, 0) FROM (SELECT max(version) AS version FROM nq_schema) m "
                "LEFT JOIN nq_schema v ON v.version = m.version",
                0, NULL, &rc);
        version = r && PQntuples(r) == 1 ? int_at(r, 0, 0) : 0;
        oldest = r && PQntuples(r) == 1 ? int_at(r, 0, 1) : 0;
        PQclear(r);
    }
    if (rc != NQ_OK) {
        say(err, errlen, "store %s: cannot read its schema (%s)", s->shown, s->why);
    } else if (!ours && taken) {
        say(err, errlen,
            "store %s holds another program's tables (counts, jobs or blocks); give --store another database",
            s->shown);
        rc = NQ_E_STORE_FOREIGN;
    } else if (ours && version < 1) {
        say(err, errlen, "store %s has no schema version; restore a backup or give --store another database", s->shown);
        rc = NQ_E_STORE_CORRUPT;
    } else if (version > NQ_STORE_SCHEMA_VERSION && (oldest < 1 || oldest > NQ_STORE_SCHEMA_VERSION)) {
        say(err, errlen,
            "store %s was written by a newer nqueensd (schema %lld, usable from schema %lld on; this release uses "
            "up to %d); run that release, or give --store another database",
            s->shown, (long long)version, (long long)oldest, NQ_STORE_SCHEMA_VERSION);
        rc = NQ_E_STORE_NEWER;
    } else if (version < NQ_STORE_SCHEMA_VERSION) {
        rc = migrate(s, version);
        if (rc != NQ_OK) say(err, errlen, "store %s: cannot write its schema (%s)", s->shown, s->why);
    }
    return end_tx(s, rc);
}

/* Make sure there is a connection with a checked schema: NQ_OK, or why not (message in err). */
static nq_err ready(pg_store *s, char *err, size_t errlen)
{
    if (s->conn && PQstatus(s->conn) == CONNECTION_OK) return NQ_OK;
    PQfinish(s->conn);
    s->conn = NULL;
    nq_err rc = connect_db(s, err, errlen);
    if (rc == NQ_OK) rc = ensure_schema(s, err, errlen);
    if (rc != NQ_OK && s->conn) {
        PQfinish(s->conn);
        s->conn = NULL;
    }
    return rc;
}

/* One call of the store: op over a ready connection under the lock, once more on a new connection
 * when the database went away during it (a restart between two calls is found here). */
typedef nq_err (*op_fn)(pg_store *s, const void *ctx);
static nq_err call(pg_store *s, op_fn op, const void *ctx)
{
    pthread_mutex_lock(&s->lock);
    nq_err rc = ready(s, NULL, 0);
    s->transient = false;
    if (rc == NQ_OK) rc = op(s, ctx);
    for (int again = 0; again < TRANSIENT_TRIES && rc != NQ_OK && s->transient; again++) {
        s->transient = false;
        rc = op(s, ctx); /* each op is one statement or one transaction, rolled back whole */
    }
    if (rc == NQ_E_STORE_UNAVAILABLE) {
        rc = ready(s, NULL, 0);
        if (rc == NQ_OK) rc = op(s, ctx);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---- open and close ---------------------------------------------------------------------------- */

static void store_free(pg_store *s)
{
    if (!s) return;
    PQfinish(s->conn);
    pthread_mutex_destroy(&s->lock);
    if (s->password) memset(s->password, 0, strlen(s->password));
    free(s->password);
    if (s->conninfo) memset(s->conninfo, 0, strlen(s->conninfo));
    free(s->conninfo);
    free(s);
}

/* The password conninfo holds (NULL when none), or false when it does not parse. */
static bool parse_conninfo(pg_store *s)
{
    char *why = NULL;
    PQconninfoOption *opts = PQconninfoParse(s->conninfo, &why);
    PQfreemem(why); /* may quote the string: never shown */
    if (!opts) return false;
    for (const PQconninfoOption *o = opts; o->keyword; o++)
        if (strcmp(o->keyword, "password") == 0 && o->val && o->val[0]) s->password = strdup(o->val);
    PQconninfoFree(opts);
    return true;
}

nq_err nq_store_postgres_open(const char *conninfo, pg_store **out, char *err, size_t errlen)
{
    if (!conninfo || !out || !conninfo[0]) return NQ_E_ARG;
    pg_store *s = calloc(1, sizeof *s);
    if (!s || !(s->conninfo = strdup(conninfo))) {
        free(s);
        return NQ_E_NOMEM;
    }
    pthread_mutex_init(&s->lock, NULL);
    nq_store_redact(conninfo, s->shown, sizeof s->shown);
    if (!parse_conninfo(s)) {
        say(err, errlen, "store %s is not a PostgreSQL connection string (a postgresql:// URI or key=value pairs)",
            s->shown);
        store_free(s);
        return NQ_E_STORE_IO;
    }
    const nq_err rc = ready(s, err, errlen);
    if (rc != NQ_OK && rc != NQ_E_STORE_UNAVAILABLE) { /* it answered and refused */
        store_free(s);
        return rc;
    }
    if (err && errlen && rc == NQ_OK) err[0] = '\0';
    *out = s;
    return NQ_OK;
}

static void pg_close(void *impl)
{
    store_free(impl);
}

static bool pg_connected(void *impl)
{
    pg_store *s = impl;
    pthread_mutex_lock(&s->lock);
    const bool up = s->conn && PQstatus(s->conn) == CONNECTION_OK;
    pthread_mutex_unlock(&s->lock);
    return up;
}

static const char *pg_path(const void *impl)
{
    const pg_store *s = impl;
    return s ? s->shown : "";
}

typedef struct bytes_ctx {
    uint64_t *bytes; /* out */
} bytes_ctx;

static nq_err bytes_op(pg_store *s, const void *arg)
{
    nq_err rc;
    PGresult *r = run(s,
                      "SELECT pg_total_relation_size('counts') + pg_total_relation_size('checkpoints') + "
                      "pg_total_relation_size('jobs') + pg_total_relation_size('blocks')",
                      0, NULL, &rc);
    if (r) *((const bytes_ctx *)arg)->bytes = uint_at(r, 0, 0);
    PQclear(r);
    return rc;
}

/* Asked for /metrics: never waits for a connection (the last answer while the database is away). */
static uint64_t pg_bytes(void *impl)
{
    pg_store *s = impl;
    uint64_t bytes = 0;
    const bytes_ctx b = {&bytes};
    pthread_mutex_lock(&s->lock);
    if (s->conn && PQstatus(s->conn) == CONNECTION_OK && bytes_op(s, &b) == NQ_OK) s->bytes = bytes;
    const uint64_t out = s->bytes;
    pthread_mutex_unlock(&s->lock);
    return out;
}

/* ---- finished counts and checkpoints ------------------------------------------------------------ */

/* A finished count in, its checkpoint out, its registered count done (its blocks dropped): one
 * statement. */
#define PUT_COUNT_SQL                                                                                          \
    "WITH c AS (INSERT INTO counts VALUES ($1::int, $2::bigint, $3::bigint, $4::float8, $5::bigint) "          \
    "ON CONFLICT (n) DO UPDATE SET total = EXCLUDED.total, uniq = EXCLUDED.uniq, seconds = EXCLUDED.seconds, " \
    "finished_at = EXCLUDED.finished_at RETURNING n), "                                                        \
    "k AS (DELETE FROM checkpoints WHERE n = $1::int RETURNING n), "                                           \
    "j AS (UPDATE jobs SET status = 2 WHERE n = $1::int RETURNING n), "                                        \
    "b AS (DELETE FROM blocks WHERE n = $1::int RETURNING n) SELECT count(*) FROM c"

static nq_err put_count_op(pg_store *s, const void *arg)
{
    const nq_store_count *c = arg;
    params p = {0};
    p_int(&p, 0, c->n);
    p_int(&p, 1, (int64_t)c->counts.total); /* < 2^63 for every n <= 27 */
    p_int(&p, 2, (int64_t)c->counts.unique);
    p_real(&p, 3, c->seconds);
    p_int(&p, 4, c->finished_at);
    return exec(s, PUT_COUNT_SQL, 5, p.v);
}

static nq_err pg_put_count(void *impl, const nq_store_count *c)
{
    return call(impl, put_count_op, c);
}

/* bytes as hex text (2 * len + 1 bytes, malloc'd; NULL when out of memory). */
static char *hex_of(const uint8_t *bytes, uint32_t len, bool as_flags)
{
    static const char digits[] = "0123456789abcdef";
    char *h = malloc((size_t)len * 2 + 1);
    if (!h) return NULL;
    for (uint32_t i = 0; i < len; i++) {
        const uint8_t b = as_flags ? bytes[i] != 0 : bytes[i];
        h[2 * (size_t)i] = digits[b >> 4];
        h[2 * (size_t)i + 1] = digits[b & 15];
    }
    h[(size_t)len * 2] = '\0';
    return h;
}

/* Hex text into len bytes at out: false when it is not exactly that. */
static bool bytes_of(const char *hex, uint8_t *out, uint32_t len)
{
    if (strlen(hex) != (size_t)len * 2) return false;
    for (uint32_t i = 0; i < len; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            const char ch = hex[2 * i + (uint32_t)k];
            const int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
            if (d < 0) return false;
            v = v * 16 + (unsigned)d;
        }
        out[i] = (uint8_t)v;
    }
    return true;
}

static nq_err put_checkpoint_op(pg_store *s, const void *arg)
{
    const nq_store_checkpoint *cp = arg;
    char *hex = hex_of(cp->done, cp->tasks, false);
    if (!hex) return NQ_E_NOMEM;
    params p = {0};
    p_int(&p, 0, cp->n);
    p_int(&p, 1, cp->plan);
    p_int(&p, 2, cp->tasks);
    p.v[3] = hex;
    p_int(&p, 4, (int64_t)cp->sums.total);
    p_int(&p, 5, (int64_t)cp->sums.burnside);
    p_real(&p, 6, cp->elapsed_s);
    p_int(&p, 7, cp->started_at);
    const nq_err rc =
        exec(s,
             "INSERT INTO checkpoints VALUES ($1::int, $2::bigint, $3::bigint, decode($4, 'hex'), $5::bigint, "
             "$6::bigint, $7::float8, $8::bigint, extract(epoch from clock_timestamp())::bigint) "
             "ON CONFLICT (n) DO UPDATE SET plan = EXCLUDED.plan, tasks = EXCLUDED.tasks, "
             "done = EXCLUDED.done, total = EXCLUDED.total, burnside = EXCLUDED.burnside, "
             "elapsed_s = EXCLUDED.elapsed_s, started_at = EXCLUDED.started_at, "
             "updated_at = EXCLUDED.updated_at",
             8, p.v);
    free(hex);
    return rc;
}

static nq_err pg_put_checkpoint(void *impl, const nq_store_checkpoint *cp)
{
    if (!cp->done || cp->tasks == 0) return NQ_E_ARG;
    return call(impl, put_checkpoint_op, cp);
}

/* A reader's callbacks, for the ops that pass rows on. */
typedef struct reader {
    nq_store_count_fn count;
    nq_store_checkpoint_fn checkpoint;
    nq_store_count_view_fn view;
    nq_store_damaged_fn damaged;
    void *arg;
    int n; /* count_state: the one n (else -1) */
} reader;

static nq_err each_count_op(pg_store *s, const void *arg)
{
    const reader *rd = arg;
    nq_err rc;
    PGresult *r = run(s, "SELECT n, total, uniq, seconds, finished_at FROM counts ORDER BY n", 0, NULL, &rc);
    for (int i = 0; r && i < PQntuples(r); i++) {
        const nq_store_count c = {(int)int_at(r, i, 0),
                                  {(uint64_t)int_at(r, i, 1), (uint64_t)int_at(r, i, 2)},
                                  real_at(r, i, 3),
                                  int_at(r, i, 4)};
        if (!rd->count(rd->arg, &c)) break;
    }
    PQclear(r);
    return rc;
}

static nq_err pg_each_count(void *impl, nq_store_count_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    reader rd = {.count = fn, .damaged = damaged, .arg = arg, .n = -1};
    return call(impl, each_count_op, &rd);
}

static nq_err each_checkpoint_op(pg_store *s, const void *arg)
{
    const reader *rd = arg;
    nq_err rc;
    PGresult *r = run(s,
                      "SELECT n, plan, tasks, encode(done, 'hex'), total, burnside, elapsed_s, started_at FROM "
                      "checkpoints ORDER BY n",
                      0, NULL, &rc);
    for (int i = 0; r && i < PQntuples(r); i++) {
        const int64_t tasks = int_at(r, i, 2);
        uint8_t *done = tasks > 0 && tasks <= UINT32_MAX ? malloc((size_t)tasks) : NULL;
        if (!done || !bytes_of(PQgetvalue(r, i, 3), done, (uint32_t)tasks)) {
            free(done);
            if (rd->damaged) rd->damaged(rd->arg, (int)int_at(r, i, 0), true);
            continue;
        }
        const nq_store_checkpoint cp = {
            .n = (int)int_at(r, i, 0),
            .plan = (uint32_t)int_at(r, i, 1),
            .tasks = (uint32_t)tasks,
            .done = done,
            .sums = {(uint64_t)int_at(r, i, 4), (uint64_t)int_at(r, i, 5)},
            .elapsed_s = real_at(r, i, 6),
            .started_at = int_at(r, i, 7),
        };
        const bool more = rd->checkpoint(rd->arg, &cp);
        free(done);
        if (!more) break;
    }
    PQclear(r);
    return rc;
}

static nq_err pg_each_checkpoint(void *impl, nq_store_checkpoint_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    reader rd = {.checkpoint = fn, .damaged = damaged, .arg = arg, .n = -1};
    return call(impl, each_checkpoint_op, &rd);
}

/* ---- counts registered for the store ------------------------------------------------------------ */

/* Every count ($1 NULL) or one: registered ones, then finished ones registered nowhere. Columns: n,
 * plan, tasks, block_tasks, status, started_at, now, blocks, blocks done, blocks leased, tasks done,
 * and the finished count (total, uniq, seconds, finished_at) or NULLs. */
static const char state_sql[] =
    "SELECT j.n, j.plan, j.tasks, j.block_tasks, j.status, j.started_at, " NOW ", "
    "(SELECT count(*) FROM blocks b WHERE b.n = j.n), "
    "(SELECT count(*) FROM blocks b WHERE b.n = j.n AND b.state = 1), "
    "(SELECT count(*) FROM blocks b WHERE b.n = j.n AND b.state = 0 AND b.lease_until > " NOW "), "
    "(SELECT coalesce(sum(b.tasks_done), 0) FROM blocks b WHERE b.n = j.n), "
    "c.total, c.uniq, c.seconds, c.finished_at FROM jobs j LEFT JOIN counts c ON c.n = j.n "
    "WHERE $1::int IS NULL OR j.n = $1::int "
    "UNION ALL SELECT c.n, 0, 0, 0, 2, ((c.finished_at - c.seconds) * 1000)::bigint, " NOW ", 0, 0, 0, 0, "
    "c.total, c.uniq, c.seconds, c.finished_at FROM counts c "
    "WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.n = c.n) AND ($1::int IS NULL OR c.n = $1::int) ORDER BY 1";

static uint32_t blocks_of(uint32_t tasks, uint32_t block_tasks)
{
    return block_tasks ? (uint32_t)(((uint64_t)tasks + block_tasks - 1) / block_tasks) : 0;
}

/* Row i of state_sql into *out. */
static void state_row(const PGresult *r, int i, nq_store_count_view *out)
{
    memset(out, 0, sizeof *out);
    out->n = (int)int_at(r, i, 0);
    out->plan = (uint32_t)int_at(r, i, 1);
    out->tasks = (uint32_t)int_at(r, i, 2);
    out->block_tasks = (uint32_t)int_at(r, i, 3);
    out->started_at_ms = int_at(r, i, 5);
    if (!PQgetisnull(r, i, 11)) { /* a finished count: done, whatever the registered row says */
        out->status = NQ_STORE_DONE;
        out->blocks = out->blocks_done = blocks_of(out->tasks, out->block_tasks);
        out->tasks_done = out->tasks;
        out->counts.total = (uint64_t)int_at(r, i, 11);
        out->counts.unique = (uint64_t)int_at(r, i, 12);
        out->elapsed_s = real_at(r, i, 13);
        out->finished_at = int_at(r, i, 14);
        return;
    }
    out->status = int_at(r, i, 4) == 0 ? NQ_STORE_QUEUED : NQ_STORE_RUNNING;
    out->blocks = (uint32_t)int_at(r, i, 7);
    out->blocks_done = (uint32_t)int_at(r, i, 8);
    out->blocks_leased = (uint32_t)int_at(r, i, 9);
    const int64_t done = int_at(r, i, 10);
    out->tasks_done = done > out->tasks ? out->tasks : (uint32_t)done;
    const int64_t ms = int_at(r, i, 6) - out->started_at_ms;
    out->elapsed_s = ms > 0 ? (double)ms / 1000.0 : 0.0;
}

static nq_err each_state_op(pg_store *s, const void *arg)
{
    const reader *rd = arg;
    params p = {0};
    p.v[0] = NULL;
    if (rd->n >= 0) p_int(&p, 0, rd->n);
    nq_err rc;
    PGresult *r = run(s, state_sql, 1, p.v, &rc);
    for (int i = 0; r && i < PQntuples(r); i++) {
        nq_store_count_view v;
        state_row(r, i, &v);
        if (!rd->view(rd->arg, &v)) break;
    }
    PQclear(r);
    return rc;
}

static nq_err pg_each_count_state(void *impl, nq_store_count_view_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    reader rd = {.view = fn, .damaged = damaged, .arg = arg, .n = -1};
    return call(impl, each_state_op, &rd);
}

static bool view_into(void *arg, const nq_store_count_view *v)
{
    *(nq_store_count_view *)arg = *v;
    return false;
}

static nq_err pg_count_state(void *impl, int n, nq_store_count_view *st, bool *found)
{
    memset(st, 0, sizeof *st);
    reader rd = {.view = view_into, .arg = st, .n = n};
    const nq_err rc = call(impl, each_state_op, &rd);
    *found = rc == NQ_OK && st->n == n;
    if (!*found) memset(st, 0, sizeof *st);
    return rc;
}

typedef struct reg_ctx {
    int n;
    uint32_t plan, tasks, block_tasks;
    bool *created;
} reg_ctx;

/* The row of n and its blocks, unless n has one or is finished: one statement, so two replicas
 * registering n at once make one row (the second waits on the first's key, then does nothing). */
static nq_err register_op(pg_store *s, const void *arg)
{
    const reg_ctx *x = arg;
    params p = {0};
    p_int(&p, 0, x->n);
    p_int(&p, 1, x->plan);
    p_int(&p, 2, x->tasks);
    p_int(&p, 3, x->block_tasks);
    nq_err rc;
    PGresult *r =
        run(s,
            "WITH ins AS (INSERT INTO jobs SELECT $1::int, $2::bigint, $3::bigint, $4::bigint, 0, " NOW ", 0, 0 "
            "WHERE NOT EXISTS (SELECT 1 FROM counts WHERE n = $1::int) ON CONFLICT (n) DO NOTHING RETURNING n), "
            "blk AS (INSERT INTO blocks SELECT ins.n, i, i * $4::bigint, least($4::bigint, $3::bigint - i * "
            "$4::bigint), 0, 0, 0, decode(repeat('00', least($4::bigint, $3::bigint - i * $4::bigint)::int), "
            "'hex'), 0, 0, 0 FROM ins, generate_series(0, ($3::bigint - 1) / $4::bigint) AS i RETURNING 1) "
            "SELECT (SELECT count(*) FROM ins), (SELECT count(*) FROM blk)",
            4, p.v, &rc);
    *x->created = r && int_at(r, 0, 0) == 1;
    PQclear(r);
    return rc;
}

static nq_err pg_register_count(void *impl, int n, uint32_t plan, uint32_t tasks, uint32_t block_tasks, bool *created,
                                nq_store_count_view *st)
{
    reg_ctx x = {n, plan, tasks, block_tasks, created};
    *created = false;
    nq_err rc = call(impl, register_op, &x);
    bool found = false;
    if (rc == NQ_OK) rc = pg_count_state(impl, n, st, &found);
    return rc;
}

/* ---- blocks and leases -------------------------------------------------------------------------- */

typedef struct claim_ctx {
    uint32_t lease_ms;
    int max_n;
    uint32_t plan;
    nq_store_claim *c;
    bool *got;
} claim_ctx;

/* Take a block: free, or its lease lapsed, of a count of this plan within max_n, oldest count first;
 * rows other replicas are claiming are skipped, never waited on. One statement: pick, lease, and the
 * count marked running. taken: the block's token is still set, so it is taken over from a claimer
 * whose lease lapsed (a release and a finish zero the token; a fresh block has none). */
static const char claim_sql[] =
    "WITH pick AS (SELECT b.n, b.idx, b.token <> 0 AS taken FROM blocks b JOIN jobs j ON j.n = b.n WHERE b.state = 0 "
    "AND b.lease_until <= " NOW
    " AND j.status < 2 AND j.n <= $1::int AND j.plan = $2::bigint ORDER BY j.started_at, b.n, b.idx LIMIT 1 "
    "FOR UPDATE OF b SKIP LOCKED), "
    "upd AS (UPDATE blocks b SET token = $3::bigint, lease_until = " NOW " + $4::bigint FROM pick "
    "WHERE b.n = pick.n AND b.idx = pick.idx RETURNING b.n, b.idx, b.first_task, b.tasks, b.lease_until, "
    "encode(b.done, 'hex') AS done, b.total, b.burnside, pick.taken), "
    "run AS (UPDATE jobs SET status = 1 FROM upd WHERE jobs.n = upd.n AND jobs.status = 0 RETURNING 1) "
    "SELECT upd.n, upd.idx, upd.first_task, upd.tasks, upd.lease_until, upd.done, upd.total, upd.burnside, j.plan, "
    "j.tasks, upd.taken FROM upd JOIN jobs j ON j.n = upd.n";

static nq_err claim_op(pg_store *s, const void *arg)
{
    const claim_ctx *x = arg;
    nq_store_claim *c = x->c;
    free(c->done); /* a first attempt's */
    memset(c, 0, sizeof *c);
    *x->got = false;
    const uint64_t token = nq_store_token();
    params p = {0};
    p_int(&p, 0, x->max_n);
    p_int(&p, 1, x->plan);
    p_int(&p, 2, (int64_t)token);
    p_int(&p, 3, x->lease_ms);
    nq_err rc;
    PGresult *r = run(s, claim_sql, 4, p.v, &rc);
    if (!r || PQntuples(r) != 1) {
        PQclear(r);
        return rc;
    }
    const int64_t tasks = int_at(r, 0, 3);
    c->n = (int)int_at(r, 0, 0);
    c->block = (uint32_t)int_at(r, 0, 1);
    c->first_task = (uint32_t)int_at(r, 0, 2);
    c->tasks = (uint32_t)tasks;
    c->token = token;
    c->lease_until_ms = int_at(r, 0, 4);
    c->sums.total = (uint64_t)int_at(r, 0, 6);
    c->sums.burnside = (uint64_t)int_at(r, 0, 7);
    c->plan = (uint32_t)int_at(r, 0, 8);
    c->count_tasks = (uint32_t)int_at(r, 0, 9);
    c->taken_over = strcmp(PQgetvalue(r, 0, 10), "t") == 0;
    c->done = tasks > 0 && tasks <= UINT32_MAX ? malloc((size_t)tasks) : NULL;
    const bool ok = c->done && bytes_of(PQgetvalue(r, 0, 5), c->done, c->tasks);
    PQclear(r);
    if (!ok) return NQ_E_NOMEM; /* the lease lapses by itself */
    for (uint32_t i = 0; i < c->tasks; i++) c->done[i] = c->done[i] != 0;
    *x->got = true;
    return NQ_OK;
}

static nq_err pg_claim_block(void *impl, uint32_t lease_ms, int max_n, uint32_t plan, nq_store_claim *claim, bool *got)
{
    claim_ctx x = {lease_ms, max_n, plan, claim, got};
    const nq_err rc = call(impl, claim_op, &x);
    if (rc != NQ_OK || !*got) {
        free(claim->done);
        memset(claim, 0, sizeof *claim);
        *got = false;
    }
    return rc;
}

/* A claim's block and token as $1..$3. */
static void p_claim(params *p, const nq_store_claim *c)
{
    p_int(p, 0, c->n);
    p_int(p, 1, c->block);
    p_int(p, 2, (int64_t)c->token);
}

/* The claim still holds its block: token and unexpired lease. */
#define HELD "n = $1::int AND idx = $2::bigint AND token = $3::bigint AND state = 0 AND lease_until > " NOW

typedef struct lease_ctx {
    nq_store_claim *c; /* renew: updated */
    const nq_store_claim *k;
    uint32_t lease_ms;
    const uint8_t *done;
    const nq_count_sums *sums;
    bool *count_done;
} lease_ctx;

static nq_err renew_op(pg_store *s, const void *arg)
{
    const lease_ctx *x = arg;
    params p = {0};
    p_claim(&p, x->k);
    p_int(&p, 3, x->lease_ms);
    nq_err rc;
    PGresult *r = run(s, "UPDATE blocks SET lease_until = " NOW " + $4::bigint WHERE " HELD " RETURNING lease_until", 4,
                      p.v, &rc);
    if (r && PQntuples(r) == 1) x->c->lease_until_ms = int_at(r, 0, 0);
    if (r && PQntuples(r) != 1) rc = NQ_E_STORE_LOST;
    PQclear(r);
    return rc;
}

static nq_err pg_renew(void *impl, nq_store_claim *claim, uint32_t lease_ms)
{
    lease_ctx x = {.c = claim, .k = claim, .lease_ms = lease_ms};
    return call(impl, renew_op, &x);
}

static nq_err commit_op(pg_store *s, const void *arg)
{
    const lease_ctx *x = arg;
    char *hex = hex_of(x->done, x->k->tasks, true);
    if (!hex) return NQ_E_NOMEM;
    params p = {0};
    p_claim(&p, x->k);
    p.v[3] = hex;
    p_int(&p, 4, nq_store_tasks_done(x->done, x->k->tasks));
    p_int(&p, 5, (int64_t)x->sums->total);
    p_int(&p, 6, (int64_t)x->sums->burnside);
    nq_err rc;
    PGresult *r = run(s,
                      "UPDATE blocks SET done = decode($4, 'hex'), tasks_done = $5::bigint, total = $6::bigint, "
                      "burnside = $7::bigint WHERE " HELD " AND tasks_done <= $5::bigint RETURNING 1",
                      7, p.v, &rc);
    free(hex);
    const bool wrote = r && PQntuples(r) == 1;
    PQclear(r);
    if (rc != NQ_OK || wrote) return rc;
    /* Nothing written: the lease is gone, or the bitmap would take progress back. */
    r = run(s, "SELECT 1 FROM blocks WHERE " HELD, 3, p.v, &rc);
    const bool still = r && PQntuples(r) == 1;
    PQclear(r);
    return rc != NQ_OK ? rc : still ? NQ_E_ARG : NQ_E_STORE_LOST;
}

static nq_err pg_commit_tasks(void *impl, const nq_store_claim *claim, const uint8_t *done, const nq_count_sums *sums)
{
    lease_ctx x = {.k = claim, .done = done, .sums = sums};
    return call(impl, commit_op, &x);
}

/* The last block of n is done: write its finished count, the sum of its blocks (and what an
 * upgrade carried over), within the transaction in progress. */
static nq_err complete(pg_store *s, int n)
{
    params p = {0};
    p_int(&p, 0, n);
    nq_err rc;
    PGresult *r =
        run(s,
            "SELECT j.base_total + coalesce(sum(b.total), 0), j.base_burnside + coalesce(sum(b.burnside), 0), "
            "(" NOW " - j.started_at) / 1000.0, " NOW " / 1000 FROM jobs j LEFT JOIN blocks b ON b.n = j.n "
            "WHERE j.n = $1::int GROUP BY j.n",
            1, p.v, &rc);
    if (!r || PQntuples(r) != 1) {
        PQclear(r);
        return rc != NQ_OK ? rc : NQ_E_STORE_IO;
    }
    const nq_count_sums all = {uint_at(r, 0, 0), uint_at(r, 0, 1)};
    nq_store_count c = {.n = n, .counts = nq_count_sums_counts(&all)};
    c.seconds = real_at(r, 0, 2);
    c.finished_at = int_at(r, 0, 3);
    PQclear(r);
    return put_count_op(s, &c);
}

static nq_err finish_op(pg_store *s, const void *arg)
{
    const lease_ctx *x = arg;
    params p = {0};
    p_claim(&p, x->k);
    p_int(&p, 3, (int64_t)x->sums->total);
    p_int(&p, 4, (int64_t)x->sums->burnside);
    nq_err rc = exec(s, "BEGIN", 0, NULL);
    /* The count's row first: two replicas finishing its last two blocks take turns here, and the
     * second sees the first's block done. */
    if (rc == NQ_OK) rc = exec(s, "SELECT 1 FROM jobs WHERE n = $1::int FOR UPDATE", 1, p.v);
    PGresult *r = rc == NQ_OK ? run(s,
                                    "UPDATE blocks SET state = 1, done = decode(repeat('01', tasks::int), 'hex'), "
                                    "tasks_done = tasks, total = $4::bigint, burnside = $5::bigint, token = 0, "
                                    "lease_until = 0 WHERE " HELD " RETURNING 1",
                                    5, p.v, &rc)
                              : NULL;
    if (r && PQntuples(r) != 1) rc = NQ_E_STORE_LOST;
    PQclear(r);
    r = rc == NQ_OK ? run(s, "SELECT count(*) FROM blocks WHERE n = $1::int AND state = 0", 1, p.v, &rc) : NULL;
    *x->count_done = r && PQntuples(r) == 1 && int_at(r, 0, 0) == 0;
    PQclear(r);
    if (rc == NQ_OK && *x->count_done) rc = complete(s, x->k->n);
    rc = end_tx(s, rc);
    if (rc != NQ_OK) *x->count_done = false;
    return rc;
}

static nq_err pg_finish_block(void *impl, const nq_store_claim *claim, const nq_count_sums *sums, bool *count_done)
{
    lease_ctx x = {.k = claim, .sums = sums, .count_done = count_done};
    *count_done = false;
    return call(impl, finish_op, &x);
}

static nq_err release_op(pg_store *s, const void *arg)
{
    const lease_ctx *x = arg;
    params p = {0};
    p_claim(&p, x->k);
    return exec(s,
                "UPDATE blocks SET token = 0, lease_until = 0 WHERE n = $1::int AND idx = $2::bigint AND token = "
                "$3::bigint AND state = 0",
                3, p.v);
}

static nq_err pg_release(void *impl, const nq_store_claim *claim)
{
    lease_ctx x = {.k = claim};
    return call(impl, release_op, &x);
}

static nq_err forget_op(pg_store *s, const void *arg)
{
    params p = {0};
    p_int(&p, 0, *(const int *)arg);
    return exec(
        s,
        "WITH b AS (DELETE FROM blocks WHERE n = $1::int RETURNING 1), j AS (DELETE FROM jobs WHERE n = $1::int "
        "RETURNING 1), k AS (DELETE FROM checkpoints WHERE n = $1::int RETURNING 1), c AS (DELETE FROM counts "
        "WHERE n = $1::int RETURNING 1) SELECT 1",
        1, p.v);
}

static nq_err pg_forget_count(void *impl, int n)
{
    return call(impl, forget_op, &n);
}

const nq_store_backend nq_store_postgres = {
    .name = "postgresql",
    .close = pg_close,
    .put_count = pg_put_count,
    .put_checkpoint = pg_put_checkpoint,
    .each_count = pg_each_count,
    .each_checkpoint = pg_each_checkpoint,
    .bytes = pg_bytes,
    .path = pg_path,
    .shared = true,
    .connected = pg_connected,
    .register_count = pg_register_count,
    .count_state = pg_count_state,
    .each_count_state = pg_each_count_state,
    .claim_block = pg_claim_block,
    .renew = pg_renew,
    .commit_tasks = pg_commit_tasks,
    .finish_block = pg_finish_block,
    .release = pg_release,
    .forget_count = pg_forget_count,
};
