/* store.c - finished counts and checkpoints in one SQLite file (see store.h for the design).
 *
 * Opening is in two phases so that a file we cannot vouch for is never written: first the header is
 * read with plain stdio and the database inspected (application_id, nq_schema, quick_check) through
 * a connection that has issued no write; only then is the journal switched to WAL and the schema
 * created or migrated.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fstat, snprintf */
#endif
#include "store/store.h"

#include "base/errors.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#define BUSY_TIMEOUT_MS 5000     /* another process (a backup with sqlite3 .backup) may hold the lock */
#define HEADER "SQLite format 3" /* the first 16 bytes of every SQLite database, NUL included */

enum stmt_id {
    PUT_COUNT,
    DROP_CHECKPOINT,
    PUT_CHECKPOINT,
    EACH_COUNT,
    EACH_CHECKPOINT,
    BEGIN,
    COMMIT,
    ROLLBACK,
    STMTS
};

static const char *const stmt_sql[STMTS] = {
    [PUT_COUNT] = "INSERT OR REPLACE INTO counts(n, total, uniq, seconds, finished_at) VALUES (?1, ?2, ?3, ?4, ?5)",
    [DROP_CHECKPOINT] = "DELETE FROM checkpoints WHERE n = ?1",
    [PUT_CHECKPOINT] = "INSERT OR REPLACE INTO checkpoints(n, plan, tasks, done, total, burnside, elapsed_s, "
                       "started_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [EACH_COUNT] = "SELECT n, total, uniq, seconds, finished_at FROM counts ORDER BY n",
    [EACH_CHECKPOINT] = "SELECT n, plan, tasks, done, total, burnside, elapsed_s, started_at FROM checkpoints "
                        "ORDER BY n",
    [BEGIN] = "BEGIN IMMEDIATE",
    [COMMIT] = "COMMIT",
    [ROLLBACK] = "ROLLBACK",
};

/* Migrations: migration[v - 1] takes the schema from version v - 1 to v. Append, never edit. */
static const char *const migration[NQ_STORE_SCHEMA_VERSION] = {
    "CREATE TABLE counts(n INTEGER PRIMARY KEY, total INTEGER NOT NULL, uniq INTEGER NOT NULL, "
    "seconds REAL NOT NULL, finished_at INTEGER NOT NULL);"
    "CREATE TABLE checkpoints(n INTEGER PRIMARY KEY, plan INTEGER NOT NULL, tasks INTEGER NOT NULL, "
    "done BLOB NOT NULL, total INTEGER NOT NULL, burnside INTEGER NOT NULL, elapsed_s REAL NOT NULL, "
    "started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);",
};

struct nq_store {
    sqlite3 *db;               /* the one connection */
    sqlite3_stmt *stmt[STMTS]; /* prepared once */
    pthread_mutex_t lock;      /* one caller at a time on db and stmt */
    char *path;                /* as opened (owned) */
    int lock_fd;               /* holds flock(LOCK_EX) on the file: one nqueensd per store */
};

/* The one-line message of a refusal, into the caller's err buffer when there is one. */
#define say(err, errlen, ...)                                                \
    do {                                                                     \
        if ((err) && (errlen)) (void)snprintf((err), (errlen), __VA_ARGS__); \
    } while (0)

/* ---- phase 1: what is this file? --------------------------------------------------------------- */

/* NQ_OK with *fresh true for a missing or empty file, false for one with an SQLite header;
 * NQ_E_STORE_CORRUPT for anything else (garbage, or a header torn off). */
static nq_err sniff(const char *path, bool *fresh, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        *fresh = errno == ENOENT;
        if (*fresh) return NQ_OK;
        say(err, errlen, "store %s: cannot open: %s", path, "check the path and its permissions");
        return NQ_E_STORE_IO;
    }
    char head[16] = {0};
    const size_t got = fread(head, 1, sizeof head, f);
    (void)fclose(f);
    *fresh = got == 0;
    if (*fresh || (got == sizeof head && memcmp(head, HEADER, sizeof head) == 0)) return NQ_OK;
    say(err, errlen,
        "store %s is not an SQLite database (%s); move it away or restore a backup, or start with "
        "--store none",
        path, got < sizeof head ? "truncated header" : "unknown header");
    return NQ_E_STORE_CORRUPT;
}

/* One integer from a query, or -1 (also on error). */
static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* SQLite's quick_check: NQ_OK when it answers "ok"; NQ_E_STORE_CORRUPT with the first problem it
 * names, or when SQLite finds no database in the file; NQ_E_STORE_IO when the file cannot be read
 * at all (permissions, a read-only directory where the write-ahead log's index must go, an I/O
 * error): that says nothing about its bytes, and calling it damaged would send an operator to move
 * a good store away. why receives SQLite's words. */
static nq_err quick_check(sqlite3 *db, char *why, size_t cap)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    nq_err out;
    if (rc == SQLITE_ROW) {
        const char *r = (const char *)sqlite3_column_text(st, 0);
        (void)snprintf(why, cap, "%s", r ? r : "no answer");
        out = r && strcmp(r, "ok") == 0 ? NQ_OK : NQ_E_STORE_CORRUPT;
    } else {
        (void)snprintf(why, cap, "%s", sqlite3_errmsg(db));
        const int primary = rc & 0xff; /* extended result codes are on */
        out = primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB ? NQ_E_STORE_CORRUPT : NQ_E_STORE_IO;
    }
    sqlite3_finalize(st);
    return out;
}

/* The schema version of an existing file (0: an empty database, ours to initialise), or an error
 * naming what the file is. Reads only. */
static nq_err inspect(sqlite3 *db, const char *path, int64_t *version, char *err, size_t errlen)
{
    char why[160];
    const nq_err qc = quick_check(db, why, sizeof why);
    if (qc == NQ_E_STORE_IO) {
        say(err, errlen,
            "store %s cannot be read (%s); check the permissions of the file and of its directory, "
            "where SQLite keeps its -wal and -shm files",
            path, why);
        return qc;
    }
    if (qc != NQ_OK) {
        say(err, errlen,
            "store %s is damaged (%s); it was left as it is: restore a backup, or move it away to "
            "start afresh",
            path, why);
        return NQ_E_STORE_CORRUPT;
    }
    const int64_t app = query_int(db, "PRAGMA application_id");
    const int64_t tables = query_int(db, "SELECT count(*) FROM sqlite_schema");
    if (app == 0 && tables == 0) {
        *version = 0;
        return NQ_OK;
    }
    if (app != NQ_STORE_APPLICATION_ID) {
        say(err, errlen, "store %s is %s, not an nqueens store; give --store another path", path,
            "another program's database");
        return NQ_E_STORE_FOREIGN;
    }
    *version = query_int(db, "SELECT max(version) FROM nq_schema");
    if (*version < 1) {
        say(err, errlen, "store %s has no schema version (%s); restore a backup or move it away", path, "damaged");
        return NQ_E_STORE_CORRUPT;
    }
    if (*version > NQ_STORE_SCHEMA_VERSION) {
        char have[64];
        (void)snprintf(have, sizeof have, "schema %lld, this release reads up to %d", (long long)*version,
                       NQ_STORE_SCHEMA_VERSION);
        say(err, errlen,
            "store %s was written by a newer nqueensd (%s); run that release, or give --store another path", path,
            have);
        return NQ_E_STORE_NEWER;
    }
    return NQ_OK;
}

/* ---- phase 2: make it ours ----------------------------------------------------------------------- */

static bool exec_ok(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
}

/* Bring the schema from version `from` to this release's in one transaction; on failure why (cap
 * bytes) holds SQLite's reason, taken before the ROLLBACK replaces it with its own ("no transaction
 * is active", when the error ended the transaction itself: a full disk). */
static bool migrate(sqlite3 *db, int64_t from, char *why, size_t cap)
{
    if (from == NQ_STORE_SCHEMA_VERSION) return true;
    if (!exec_ok(db, "BEGIN IMMEDIATE")) return false;
    char app_id[64];
    (void)snprintf(app_id, sizeof app_id, "PRAGMA application_id = %d", NQ_STORE_APPLICATION_ID);
    bool ok = from > 0 || (exec_ok(db, app_id) &&
                           exec_ok(db, "CREATE TABLE nq_schema(version INTEGER PRIMARY KEY, applied_at INTEGER "
                                       "NOT NULL)"));
    for (int64_t i = from; ok && i < NQ_STORE_SCHEMA_VERSION; i++) { /* migration[i]: to version i + 1 */
        char sql[128];
        (void)snprintf(sql, sizeof sql, "INSERT INTO nq_schema VALUES (%lld, %lld)", (long long)(i + 1),
                       (long long)time(NULL));
        ok = exec_ok(db, migration[i]) && exec_ok(db, sql);
    }
    if (ok && exec_ok(db, "COMMIT")) return true;
    (void)snprintf(why, cap, "%s", sqlite3_errmsg(db));
    (void)exec_ok(db, "ROLLBACK");
    return false;
}

static bool prepare_all(nq_store *s)
{
    for (int i = 0; i < STMTS; i++)
        if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[i], NULL) != SQLITE_OK)
            return false;
    return true;
}

static void store_free(nq_store *s)
{
    if (!s) return;
    for (int i = 0; i < STMTS; i++) sqlite3_finalize(s->stmt[i]);
    if (s->db) sqlite3_close(s->db);
    if (s->lock_fd >= 0)
        (void)close(s->lock_fd); /* after sqlite3_close: closing an fd of the file
                                                     would drop SQLite's own POSIX locks */
    pthread_mutex_destroy(&s->lock);
    free(s->path);
    free(s);
}

/* Two servers on one store would both resume its counts: the second is refused. flock, not fcntl:
 * SQLite's POSIX locks and this one do not interact. Creates the file (empty) when missing. */
static bool take_lock(nq_store *s, char *err, size_t errlen)
{
    s->lock_fd = open(s->path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
    if (s->lock_fd < 0) {
        char why[128] = "unknown error";
        (void)strerror_r(errno, why, sizeof why);
        say(err, errlen, "store %s: cannot open: %s", s->path, why);
        return false;
    }
    if (flock(s->lock_fd, LOCK_EX | LOCK_NB) == 0) return true;
    say(err, errlen, "store %s is in use by another nqueensd; give each server its own --store", s->path);
    return false;
}

nq_err nq_store_open(const char *path, nq_store **out, char *err, size_t errlen)
{
    if (!path || !out || !path[0]) return NQ_E_ARG;
    bool fresh = false;
    nq_err rc = sniff(path, &fresh, err, errlen);
    if (rc != NQ_OK) return rc;
    nq_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return NQ_E_NOMEM;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->lock_fd = -1;
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    int64_t version = 0;
    if (!take_lock(s, err, errlen)) {
        rc = NQ_E_STORE_IO;
    } else if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        say(err, errlen, "store %s: cannot open: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
        rc = NQ_E_STORE_IO;
    } else if (sqlite3_db_readonly(s->db, "main") == 1) { /* SQLite opens a write-protected file read-only */
        say(err, errlen, "store %s is read-only; nqueensd writes its counts there: check the file's permissions", path);
        rc = NQ_E_STORE_IO;
    } else {
        (void)sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
        (void)sqlite3_extended_result_codes(s->db, 1);
        /* Closing would fold a leftover write-ahead log into the file: not for a file we refuse. */
        (void)sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
        if (!fresh) rc = inspect(s->db, path, &version, err, errlen);
    }
    /* From here on the file is ours: WAL, durable commits, the schema of this release. */
    char why[160] = "";
    if (rc == NQ_OK && (!exec_ok(s->db, "PRAGMA journal_mode=WAL") || !exec_ok(s->db, "PRAGMA synchronous=FULL") ||
                        !migrate(s->db, version, why, sizeof why) || !prepare_all(s))) {
        say(err, errlen, "store %s: cannot write its schema: %s", path, why[0] != '\0' ? why : sqlite3_errmsg(s->db));
        rc = NQ_E_STORE_IO;
    }
    if (rc != NQ_OK) {
        store_free(s);
        return rc;
    }
    (void)sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL); /* ours now */
    *out = s;
    return NQ_OK;
}

void nq_store_close(nq_store *s)
{
    if (!s) return;
    (void)sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    store_free(s);
}

/* ---- writes: each one transaction -------------------------------------------------------------- */

/* Run a prepared statement that returns no rows, and reset it. */
static bool step_done(sqlite3_stmt *st)
{
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE;
}

static bool begin(nq_store *s)
{
    return step_done(s->stmt[BEGIN]);
}

/* Commit when ok, else roll back; NQ_OK only when the commit went through. */
static nq_err end(nq_store *s, bool ok)
{
    if (ok && step_done(s->stmt[COMMIT])) return NQ_OK;
    if (sqlite3_get_autocommit(s->db) == 0) (void)step_done(s->stmt[ROLLBACK]);
    return NQ_E_STORE_IO;
}

nq_err nq_store_put_count(nq_store *s, const nq_store_count *c)
{
    if (!s || !c) return NQ_E_ARG;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *put = s->stmt[PUT_COUNT], *drop = s->stmt[DROP_CHECKPOINT];
    bool ok = begin(s);
    if (ok) {
        sqlite3_bind_int(put, 1, c->n);
        sqlite3_bind_int64(put, 2, (sqlite3_int64)c->counts.total); /* < 2^63 for every n <= 27 */
        sqlite3_bind_int64(put, 3, (sqlite3_int64)c->counts.unique);
        sqlite3_bind_double(put, 4, c->seconds);
        sqlite3_bind_int64(put, 5, c->finished_at);
        ok = step_done(put);
    }
    if (ok) {
        sqlite3_bind_int(drop, 1, c->n);
        ok = step_done(drop);
    }
    const nq_err rc = end(s, ok);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

nq_err nq_store_put_checkpoint(nq_store *s, const nq_store_checkpoint *cp)
{
    if (!s || !cp || !cp->done || cp->tasks == 0) return NQ_E_ARG;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->stmt[PUT_CHECKPOINT];
    bool ok = begin(s);
    if (ok) {
        sqlite3_bind_int(st, 1, cp->n);
        sqlite3_bind_int64(st, 2, cp->plan);
        sqlite3_bind_int64(st, 3, cp->tasks);
        sqlite3_bind_blob(st, 4, cp->done, (int)cp->tasks, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, (sqlite3_int64)cp->sums.total);
        sqlite3_bind_int64(st, 6, (sqlite3_int64)cp->sums.burnside);
        sqlite3_bind_double(st, 7, cp->elapsed_s);
        sqlite3_bind_int64(st, 8, cp->started_at);
        sqlite3_bind_int64(st, 9, (sqlite3_int64)time(NULL));
        ok = step_done(st);
    }
    const nq_err rc = end(s, ok);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

/* ---- reads -------------------------------------------------------------------------------------- */

/* A stored duration as a number of seconds to show: a value no nqueensd writes (negative, NaN, a
 * hand-edited row) reads as 0 rather than reaching a JSON body as "nan". */
static double seconds_of(sqlite3_stmt *st, int col)
{
    const double v = sqlite3_column_double(st, col);
    return isfinite(v) && v >= 0 ? v : 0.0;
}

nq_err nq_store_each_count(nq_store *s, nq_store_count_fn fn, void *arg)
{
    if (!s || !fn) return NQ_E_ARG;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->stmt[EACH_COUNT];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const nq_store_count c = {sqlite3_column_int(st, 0),
                                  {(uint64_t)sqlite3_column_int64(st, 1), (uint64_t)sqlite3_column_int64(st, 2)},
                                  seconds_of(st, 3),
                                  sqlite3_column_int64(st, 4)};
        if (!fn(arg, &c)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_reset(st);
    pthread_mutex_unlock(&s->lock);
    return rc == SQLITE_DONE ? NQ_OK : NQ_E_STORE_IO;
}

nq_err nq_store_each_checkpoint(nq_store *s, nq_store_checkpoint_fn fn, void *arg)
{
    if (!s || !fn) return NQ_E_ARG;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->stmt[EACH_CHECKPOINT];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const int64_t tasks = sqlite3_column_int64(st, 2);
        const void *done = sqlite3_column_blob(st, 3);
        if (tasks <= 0 || tasks > UINT32_MAX || !done || sqlite3_column_bytes(st, 3) != tasks) continue;
        const nq_store_checkpoint cp = {
            .n = sqlite3_column_int(st, 0),
            .plan = (uint32_t)sqlite3_column_int64(st, 1),
            .tasks = (uint32_t)tasks,
            .done = done,
            .sums = {(uint64_t)sqlite3_column_int64(st, 4), (uint64_t)sqlite3_column_int64(st, 5)},
            .elapsed_s = seconds_of(st, 6),
            .started_at = sqlite3_column_int64(st, 7),
        };
        if (!fn(arg, &cp)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_reset(st);
    pthread_mutex_unlock(&s->lock);
    return rc == SQLITE_DONE ? NQ_OK : NQ_E_STORE_IO;
}

static uint64_t file_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
}

uint64_t nq_store_bytes(nq_store *s)
{
    if (!s) return 0;
    char wal[4096 + 8];
    (void)snprintf(wal, sizeof wal, "%s-wal", s->path);
    return file_bytes(s->path) + file_bytes(wal);
}

const char *nq_store_path(const nq_store *s)
{
    return s ? s->path : "";
}
