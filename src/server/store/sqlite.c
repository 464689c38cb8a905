/* sqlite.c - the SQLite backend of the store: finished counts, checkpoints and counts in blocks,
 * in one file (see store.h for what every backend promises, sqlite.h for this one).
 *
 * Opening is in two phases so that a file we cannot vouch for is never written: first the file is
 * opened without blocking (a FIFO must not hang the start) and its header read, and the database
 * inspected (quick_check, application_id, nq_schema, the tables of its schema) through a connection
 * that has issued no write; only then is the journal switched to WAL, the schema created or migrated
 * and a write tried. A refusal removes whatever the open made: the file itself when it was missing,
 * and the -wal and -shm that SQLite makes to read a WAL database.
 *
 * Space: the log is folded into the file whenever it holds WAL_AUTOCHECKPOINT_PAGES pages, and cut
 * back to WAL_LIMIT_BYTES when it restarts, so it holds at most that many pages plus one
 * transaction (one checkpoint's bitmap: 26 KB at n = 19, 374 KB at n = 23). A write that fails for
 * want of space folds and truncates the log (TRUNCATE checkpoint) and is tried once more.
 *
 * Check values: nq_check(...), an SQL function of this connection, hashes its arguments' types and
 * values (SipHash-2-4 under a fixed key); every write stores it in the row's chk column from the
 * values bound, every read compares it, so a row changed behind the store's back reads as damaged.
 *
 * Counts in blocks under lease (schema 3, store.h): the same tables and calls as on PostgreSQL, with
 * one claimer (the file has one server), SQLite's own clock (julianday('now')) for every lease, and
 * the leases found at open released. A block that fails its check is counted again from nothing
 * when claimed; a registered count that fails its check is reported damaged and never claimed.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fstat, snprintf */
#endif
#include "store/sqlite.h"

#include "base/errors.h"
#include "base/hash.h"
#include "store/common.h"

#include <errno.h>
#include <stdint.h>
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

#define BUSY_TIMEOUT_MS 5000         /* another process (a backup with sqlite3 .backup) may hold the lock */
#define HEADER "SQLite format 3"     /* the first 16 bytes of every SQLite database, NUL included */
#define WAL_AUTOCHECKPOINT_PAGES 16  /* fold the log into the file once it holds this many pages */
#define WAL_LIMIT_BYTES (512 * 1024) /* and cut it back to this when it restarts (journal_size_limit) */
#define CHECK_ARGS_MAX 8             /* nq_check's arguments at most (a checkpoint's fields) */
#define CHECK_KEY "nqueens store v2" /* nq_check's SipHash key: 16 bytes, fixed, published */

/* The database's clock, Unix ms: every lease is set and judged by it (julianday('now') is one value
 * for the whole of a statement). */
#define NOW_MS "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
/* The check value of a row of jobs (its fields that never change) and of blocks (all but the lease,
 * which changes on every claim and renewal). */
#define JOB_CHECK(p) \
    "nq_check(" p "n, " p "plan, " p "tasks, " p "block_tasks, " p "started_at, " p "base_total, " p "base_burnside)"
#define BLOCK_CHECK "nq_check(n, idx, first_task, tasks, done, total, burnside)"

enum stmt_id {
    PUT_COUNT,
    DROP_CHECKPOINT,
    PUT_CHECKPOINT,
    EACH_COUNT,
    EACH_CHECKPOINT,
    BEGIN,
    COMMIT,
    ROLLBACK,
    JOB_INSERT,
    JOB_CHECK_SET,
    BLOCK_INSERT,
    STATE,
    CLAIM_PICK,
    CLAIM_RESET,
    CLAIM_SET,
    JOB_RUNNING,
    LEASE_HELD,
    RENEW,
    COMMIT_TASKS,
    FINISH,
    REMAINING,
    COUNT_SUM,
    JOB_DONE,
    DROP_BLOCKS,
    RELEASE,
    FORGET_JOB,
    FORGET_COUNT,
    STMTS
};

static const char *const stmt_sql[STMTS] = {
    [PUT_COUNT] = "INSERT OR REPLACE INTO counts(n, total, uniq, seconds, finished_at, chk) VALUES (?1, ?2, ?3, "
                  "?4, ?5, nq_check(?1, ?2, ?3, ?4, ?5))",
    [DROP_CHECKPOINT] = "DELETE FROM checkpoints WHERE n = ?1",
    [PUT_CHECKPOINT] = "INSERT OR REPLACE INTO checkpoints(n, plan, tasks, done, total, burnside, elapsed_s, "
                       "started_at, updated_at, chk) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
                       "nq_check(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))",
    /* The last column says whether the row passes its check. */
    [EACH_COUNT] = "SELECT n, total, uniq, seconds, finished_at, chk IS nq_check(n, total, uniq, seconds, "
                   "finished_at) FROM counts ORDER BY n",
    [EACH_CHECKPOINT] = "SELECT n, plan, tasks, done, total, burnside, elapsed_s, started_at, chk IS nq_check(n, "
                        "plan, tasks, done, total, burnside, elapsed_s, started_at) FROM checkpoints ORDER BY n",
    [BEGIN] = "BEGIN IMMEDIATE",
    [COMMIT] = "COMMIT",
    [ROLLBACK] = "ROLLBACK",
    /* counts registered for the store, their blocks and leases (schema 3) */
    [JOB_INSERT] = "INSERT INTO jobs(n, plan, tasks, block_tasks, status, started_at, base_total, base_burnside) "
                   "SELECT ?1, ?2, ?3, ?4, 0, " NOW_MS ", 0, 0 WHERE NOT EXISTS (SELECT 1 FROM counts WHERE n = ?1) "
                   "ON CONFLICT(n) DO NOTHING",
    [JOB_CHECK_SET] = "UPDATE jobs SET chk = " JOB_CHECK("") " WHERE n = ?1",
    [BLOCK_INSERT] =
        "INSERT INTO blocks(n, idx, first_task, tasks, state, token, lease_until, done, tasks_done, total, "
        "burnside, chk) VALUES (?1, ?2, ?3, ?4, ?5, 0, 0, ?6, ?7, 0, 0, nq_check(?1, ?2, ?3, ?4, ?6, 0, 0))",
    /* Every count (?1 NULL) or one: registered ones, then finished ones registered nowhere. The
     * columns: n, plan, tasks, block_tasks, status, started_at, now, blocks, blocks done, blocks
     * leased, tasks done, row passes its check, and the finished count (total, uniq, seconds,
     * finished_at, passes its check) or NULLs. */
    [STATE] =
        "SELECT j.n, j.plan, j.tasks, j.block_tasks, j.status, j.started_at, " NOW_MS ", "
        "(SELECT count(*) FROM blocks b WHERE b.n = j.n), "
        "(SELECT count(*) FROM blocks b WHERE b.n = j.n AND b.state = 1), "
        "(SELECT count(*) FROM blocks b WHERE b.n = j.n AND b.state = 0 AND b.lease_until > " NOW_MS "), "
        "(SELECT coalesce(sum(b.tasks_done), 0) FROM blocks b WHERE b.n = j.n), "
        "j.chk IS " JOB_CHECK(
            "j.") ", c.total, c.uniq, c.seconds, c.finished_at, "
                  "c.chk IS nq_check(c.n, c.total, c.uniq, c.seconds, c.finished_at) "
                  "FROM jobs j LEFT JOIN counts c ON c.n = j.n WHERE ?1 IS NULL OR j.n = ?1 "
                  "UNION ALL SELECT c.n, 0, 0, 0, 2, CAST((c.finished_at - c.seconds) * 1000 AS INTEGER), " NOW_MS ", "
                  "0, 0, 0, 0, 1, c.total, c.uniq, c.seconds, c.finished_at, "
                  "c.chk IS nq_check(c.n, c.total, c.uniq, c.seconds, c.finished_at) FROM counts c "
                  "WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.n = c.n) AND (?1 IS NULL OR c.n = ?1) ORDER BY 1",
    /* The block to claim: free or its lease lapsed, of a sound count of this plan within max_n,
     * oldest count first. Column 9: the block passes its check; 10: it is taken over (its token
     * is still set: its claimer's lease lapsed, for a release and a finish zero the token). */
    [CLAIM_PICK] =
        "SELECT b.n, b.idx, b.first_task, b.tasks, b.done, b.total, b.burnside, j.plan, j.tasks, "
        "b.chk IS nq_check(b.n, b.idx, b.first_task, b.tasks, b.done, b.total, b.burnside), "
        "b.token <> 0 FROM blocks b JOIN jobs j ON j.n = b.n WHERE b.state = 0 AND b.lease_until <= " NOW_MS " "
        "AND j.status < 2 AND j.n <= ?1 AND j.plan = ?2 AND j.chk IS " JOB_CHECK(
            "j.") " "
                  "ORDER BY j.started_at, j.n, b.idx LIMIT 1",
    /* A block that fails its check starts again from nothing (its tasks are counted again). */
    [CLAIM_RESET] = "UPDATE blocks SET done = zeroblob(tasks), tasks_done = 0, total = 0, burnside = 0, "
                    "chk = nq_check(n, idx, first_task, tasks, zeroblob(tasks), 0, 0) WHERE n = ?1 AND idx = ?2",
    [CLAIM_SET] = "UPDATE blocks SET token = ?3, lease_until = " NOW_MS " + ?4 WHERE n = ?1 AND idx = ?2 "
                  "RETURNING lease_until",
    [JOB_RUNNING] = "UPDATE jobs SET status = 1 WHERE n = ?1 AND status = 0",
    [LEASE_HELD] = "SELECT tasks_done FROM blocks WHERE n = ?1 AND idx = ?2 AND token = ?3 AND state = 0 "
                   "AND lease_until > " NOW_MS,
    [RENEW] = "UPDATE blocks SET lease_until = " NOW_MS " + ?4 WHERE n = ?1 AND idx = ?2 AND token = ?3 AND state = 0 "
              "AND lease_until > " NOW_MS " RETURNING lease_until",
    [COMMIT_TASKS] = "UPDATE blocks SET done = ?4, tasks_done = ?5, total = ?6, burnside = ?7, "
                     "chk = nq_check(n, idx, first_task, tasks, ?4, ?6, ?7) WHERE n = ?1 AND idx = ?2 AND token = ?3",
    [FINISH] = "UPDATE blocks SET state = 1, done = ?4, tasks_done = tasks, total = ?5, burnside = ?6, token = 0, "
               "lease_until = 0, chk = nq_check(n, idx, first_task, tasks, ?4, ?5, ?6) "
               "WHERE n = ?1 AND idx = ?2 AND token = ?3",
    [REMAINING] = "SELECT count(*) FROM blocks WHERE n = ?1 AND state = 0",
    /* The finished count of n: the sum of its blocks and what an upgrade carried over, the seconds
     * since its registration and now (Unix seconds). */
    [COUNT_SUM] = "SELECT j.base_total + coalesce(sum(b.total), 0), j.base_burnside + coalesce(sum(b.burnside), 0), "
                  "(" NOW_MS " - j.started_at) / 1000.0, " NOW_MS " / 1000 FROM jobs j LEFT JOIN blocks b ON b.n = j.n "
                  "WHERE j.n = ?1 GROUP BY j.n",
    [JOB_DONE] = "UPDATE jobs SET status = 2 WHERE n = ?1",
    [DROP_BLOCKS] = "DELETE FROM blocks WHERE n = ?1",
    [RELEASE] = "UPDATE blocks SET token = 0, lease_until = 0 WHERE n = ?1 AND idx = ?2 AND token = ?3 AND state = 0",
    [FORGET_JOB] = "DELETE FROM jobs WHERE n = ?1",
    [FORGET_COUNT] = "DELETE FROM counts WHERE n = ?1",
};

/* Migrations: migration[v - 1] takes the schema from version v - 1 to v. Append, never edit. */
static const char *const migration[NQ_STORE_SCHEMA_VERSION] = {
    "CREATE TABLE counts(n INTEGER PRIMARY KEY, total INTEGER NOT NULL, uniq INTEGER NOT NULL, "
    "seconds REAL NOT NULL, finished_at INTEGER NOT NULL);"
    "CREATE TABLE checkpoints(n INTEGER PRIMARY KEY, plan INTEGER NOT NULL, tasks INTEGER NOT NULL, "
    "done BLOB NOT NULL, total INTEGER NOT NULL, burnside INTEGER NOT NULL, elapsed_s REAL NOT NULL, "
    "started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);",
    /* 2: a check value on every row; the rows an older release wrote get theirs here. */
    "ALTER TABLE counts ADD COLUMN chk INTEGER;"
    "UPDATE counts SET chk = nq_check(n, total, uniq, seconds, finished_at);"
    "ALTER TABLE checkpoints ADD COLUMN chk INTEGER;"
    "UPDATE checkpoints SET chk = nq_check(n, plan, tasks, done, total, burnside, elapsed_s, started_at);",
    /* 3: counts registered once, their tasks in blocks under lease; each version's oldest reader.
     * Expand only: counts and checkpoints stay as they were (an upgrade also copies each checkpoint
     * into a count and its blocks: split_checkpoints). */
    "CREATE TABLE nq_schema_compat(version INTEGER PRIMARY KEY, oldest_reader INTEGER NOT NULL);"
    "INSERT INTO nq_schema_compat VALUES (3, 3);"
    "CREATE TABLE jobs(n INTEGER PRIMARY KEY, plan INTEGER NOT NULL, tasks INTEGER NOT NULL, "
    "block_tasks INTEGER NOT NULL, status INTEGER NOT NULL, started_at INTEGER NOT NULL, "
    "base_total INTEGER NOT NULL, base_burnside INTEGER NOT NULL, chk INTEGER);"
    "CREATE TABLE blocks(n INTEGER NOT NULL, idx INTEGER NOT NULL, first_task INTEGER NOT NULL, "
    "tasks INTEGER NOT NULL, state INTEGER NOT NULL, token INTEGER NOT NULL, lease_until INTEGER NOT NULL, "
    "done BLOB NOT NULL, tasks_done INTEGER NOT NULL, total INTEGER NOT NULL, burnside INTEGER NOT NULL, "
    "chk INTEGER, PRIMARY KEY(n, idx));",
};

/* The tables of each schema version, as a query that prepares only when every column is there
 * (tables_of[v - 1]: version v). Preparing reads the schema and writes nothing. */
static const char *const tables_of[NQ_STORE_SCHEMA_VERSION] = {
    "SELECT c.n, c.total, c.uniq, c.seconds, c.finished_at, k.n, k.plan, k.tasks, k.done, k.total, k.burnside, "
    "k.elapsed_s, k.started_at, k.updated_at FROM counts c, checkpoints k LIMIT 0",
    "SELECT c.chk, k.chk FROM counts c, checkpoints k LIMIT 0",
    "SELECT s.version, s.oldest_reader, j.n, j.plan, j.tasks, j.block_tasks, j.status, j.started_at, j.base_total, "
    "j.base_burnside, j.chk, b.n, b.idx, b.first_task, b.tasks, b.state, b.token, b.lease_until, b.done, "
    "b.tasks_done, b.total, b.burnside, b.chk FROM nq_schema_compat s, jobs j, blocks b LIMIT 0",
};

struct sqlite_store {
    sqlite3 *db;               /* the one connection */
    sqlite3_stmt *stmt[STMTS]; /* prepared once */
    pthread_mutex_t lock;      /* one caller at a time on db and stmt */
    char *path;                /* as opened (owned) */
    int lock_fd;               /* holds flock(LOCK_EX) on the file: one nqueensd per store */
    bool made_file;            /* the open created the file (removed again when it refuses) */
    bool had_wal, had_shm;     /* its -wal, -shm were there before the open (else removed on refusal) */
};

/* The one-line message of a refusal, into the caller's err buffer when there is one. */
#define say(err, errlen, ...)                                                \
    do {                                                                     \
        if ((err) && (errlen)) (void)snprintf((err), (errlen), __VA_ARGS__); \
    } while (0)

/* ---- phase 1: what is this file? --------------------------------------------------------------- */

/* The check value of a row: nq_check(v1, v2, ...), an SQL function. Each argument adds its type and
 * 8 bytes (an integer's two's complement, a real's bits, a blob's or text's own hash) to what is
 * hashed, so that a flipped bit, a NULL or a value of another type all give another result. */
static void check_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    if (argc > CHECK_ARGS_MAX) {
        sqlite3_result_error(ctx, "nq_check: too many arguments", -1);
        return;
    }
    const nq_hash_key key = nq_hash_key_from_bytes((const unsigned char *)CHECK_KEY);
    unsigned char buf[CHECK_ARGS_MAX * 9];
    size_t len = 0;
    for (int i = 0; i < argc; i++) {
        const int type = sqlite3_value_type(argv[i]);
        uint64_t v = 0;
        if (type == SQLITE_INTEGER) {
            v = (uint64_t)sqlite3_value_int64(argv[i]);
        } else if (type == SQLITE_FLOAT) {
            const double d = sqlite3_value_double(argv[i]);
            memcpy(&v, &d, sizeof v);
        } else if (type != SQLITE_NULL) {
            const void *bytes = sqlite3_value_blob(argv[i]); /* before _bytes: the documented order */
            v = nq_hash_bytes(&key, bytes, (size_t)sqlite3_value_bytes(argv[i]));
        }
        buf[len++] = (unsigned char)type;
        for (int b = 0; b < 8; b++) buf[len++] = (unsigned char)(v >> (8 * b));
    }
    sqlite3_result_int64(ctx, (sqlite3_int64)nq_hash_bytes(&key, buf, len));
}

/* What a file that is not a regular one is, for the message. */
static const char *kind_of(mode_t mode)
{
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

/* Open path without blocking (a FIFO would block an open for reading until a writer came, and the
 * start with it), creating it when missing, into s->lock_fd. NQ_OK with *fresh true for a created or
 * empty file, false for one with an SQLite header; NQ_E_STORE_IO for what is not a regular file or
 * cannot be opened; NQ_E_STORE_CORRUPT for anything else (garbage, or a header torn off). */
static nq_err sniff(sqlite_store *s, bool *fresh, char *err, size_t errlen)
{
    const int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    s->lock_fd = open(s->path, flags);
    if (s->lock_fd < 0 && errno == ENOENT) {
        s->lock_fd = open(s->path, flags | O_CREAT | O_EXCL, 0644);
        s->made_file = s->lock_fd >= 0;
    }
    if (s->lock_fd < 0) {
        char why[128] = "unknown error";
        (void)strerror_r(errno, why, sizeof why);
        say(err, errlen, "store %s: cannot open: %s; check the path and its permissions", s->path, why);
        return NQ_E_STORE_IO;
    }
    struct stat st = {0};
    if (fstat(s->lock_fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        say(err, errlen, "store %s is %s, not a regular file; give --store the path of a file", s->path,
            kind_of(st.st_mode));
        return NQ_E_STORE_IO;
    }
    char head[16] = {0};
    const ssize_t got = pread(s->lock_fd, head, sizeof head, 0);
    *fresh = got == 0;
    if (*fresh || (got == (ssize_t)sizeof head && memcmp(head, HEADER, sizeof head) == 0)) return NQ_OK;
    say(err, errlen,
        "store %s is not an SQLite database (%s); move it away or restore a backup, or start with "
        "--store none",
        s->path, got >= 0 && got < (ssize_t)sizeof head ? "truncated header" : "unknown header");
    return NQ_E_STORE_CORRUPT;
}

/* Whether the last failure on db was for want of space: SQLITE_FULL, or an I/O error (growing the
 * -shm index, writing the log) whose system error was ENOSPC. */
static bool disk_full(sqlite3 *db, int rc)
{
    return (rc & 0xff) == SQLITE_FULL || sqlite3_system_errno(db) == ENOSPC;
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
 * names, or when SQLite finds no database in the file; NQ_E_STORE_FULL when there is no room for
 * the write-ahead log's index; NQ_E_STORE_IO when the file cannot be read at all (permissions, a
 * read-only directory where that index must go, an I/O error): that says nothing about its bytes,
 * and calling it damaged would send an operator to move a good store away. why receives SQLite's
 * words. */
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
        out = primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB ? NQ_E_STORE_CORRUPT
              : disk_full(db, rc)                                   ? NQ_E_STORE_FULL
                                                                    : NQ_E_STORE_IO;
    }
    sqlite3_finalize(st);
    return out;
}

/* Whether a schema newer than this release's (version) records, as the oldest release that can use
 * it, one whose schema is this release's or older (an expand-only change). No record: it cannot. */
static bool usable_later(sqlite3 *db, int64_t version)
{
    char sql[96];
    (void)snprintf(sql, sizeof sql, "SELECT oldest_reader FROM nq_schema_compat WHERE version = %lld",
                   (long long)version);
    const int64_t oldest = query_int(db, sql); /* -1 without the table or its row */
    return oldest >= 1 && oldest <= NQ_STORE_SCHEMA_VERSION;
}

/* The schema version of an existing file (0: an empty database, ours to initialise), or an error
 * naming what the file is. Reads only. */
static nq_err inspect(sqlite3 *db, const char *path, int64_t *version, char *err, size_t errlen)
{
    char why[160];
    const nq_err qc = quick_check(db, why, sizeof why);
    if (qc == NQ_E_STORE_FULL) {
        say(err, errlen,
            "store %s cannot be opened: its disk is full (%s); free some space on its volume (the store "
            "needs room for its -wal and -shm files)",
            path, why);
        return qc;
    }
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
    if (*version > NQ_STORE_SCHEMA_VERSION && !usable_later(db, *version)) {
        char have[96];
        (void)snprintf(have, sizeof have, "schema %lld, this release uses up to %d", (long long)*version,
                       NQ_STORE_SCHEMA_VERSION);
        say(err, errlen,
            "store %s was written by a newer nqueensd (%s); run that release, or give --store another path", path,
            have);
        return NQ_E_STORE_NEWER;
    }
    for (int64_t v = 0; v < *version && v < NQ_STORE_SCHEMA_VERSION; v++) { /* its tables, before any write */
        sqlite3_stmt *st = NULL;
        const bool ok = sqlite3_prepare_v2(db, tables_of[v], -1, &st, NULL) == SQLITE_OK;
        sqlite3_finalize(st);
        if (ok) continue;
        say(err, errlen,
            "store %s is damaged (its tables are not those of schema %lld: %s); it was left as it is: "
            "restore a backup, or move it away to start afresh",
            path, (long long)(v + 1), sqlite3_errmsg(db));
        return NQ_E_STORE_CORRUPT;
    }
    return NQ_OK;
}

/* ---- phase 2: make it ours ----------------------------------------------------------------------- */

static bool exec_ok(sqlite3 *db, const char *sql)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK;
}

/* Schema 3's upgrade of a running count: each checkpoint that passes its check becomes a registered
 * count (status running, its started_at kept) whose tasks are split into blocks of
 * NQ_STORE_MIGRATED_BLOCK_TASKS. The tasks done stay done in their blocks; their sums, which the
 * checkpoint holds only as a whole, go to the count's base sums, so every block's sums are those of
 * the tasks it counts from now on. A block whose tasks are all done is done. */
static bool split_checkpoints(sqlite3 *db)
{
    sqlite3_stmt *rd = NULL, *job = NULL, *blk = NULL;
    bool ok = sqlite3_prepare_v2(db,
                                 "SELECT n, plan, tasks, done, total, burnside, started_at FROM checkpoints WHERE "
                                 "chk IS nq_check(n, plan, tasks, done, total, burnside, elapsed_s, started_at) "
                                 "AND tasks > 0 AND length(done) = tasks",
                                 -1, &rd, NULL) == SQLITE_OK &&
              sqlite3_prepare_v2(db,
                                 "INSERT INTO jobs VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6, ?7, "
                                 "nq_check(?1, ?2, ?3, ?4, ?5, ?6, ?7))",
                                 -1, &job, NULL) == SQLITE_OK &&
              sqlite3_prepare_v2(db,
                                 "INSERT INTO blocks VALUES (?1, ?2, ?3, ?4, ?5, 0, 0, ?6, ?7, 0, 0, "
                                 "nq_check(?1, ?2, ?3, ?4, ?6, 0, 0))",
                                 -1, &blk, NULL) == SQLITE_OK;
    const uint32_t per = NQ_STORE_MIGRATED_BLOCK_TASKS;
    while (ok && sqlite3_step(rd) == SQLITE_ROW) {
        const uint32_t tasks = (uint32_t)sqlite3_column_int64(rd, 2);
        const uint8_t *done = sqlite3_column_blob(rd, 3);
        sqlite3_bind_int(job, 1, sqlite3_column_int(rd, 0));
        sqlite3_bind_int64(job, 2, sqlite3_column_int64(rd, 1));
        sqlite3_bind_int64(job, 3, tasks);
        sqlite3_bind_int64(job, 4, per);
        sqlite3_bind_int64(job, 5, sqlite3_column_int64(rd, 6) * 1000);
        sqlite3_bind_int64(job, 6, sqlite3_column_int64(rd, 4));
        sqlite3_bind_int64(job, 7, sqlite3_column_int64(rd, 5));
        ok = sqlite3_step(job) == SQLITE_DONE;
        sqlite3_reset(job);
        for (uint32_t first = 0; ok && first < tasks; first += per) {
            const uint32_t k = tasks - first < per ? tasks - first : per;
            const uint32_t got = nq_store_tasks_done(done + first, k);
            sqlite3_bind_int(blk, 1, sqlite3_column_int(rd, 0));
            sqlite3_bind_int64(blk, 2, first / per);
            sqlite3_bind_int64(blk, 3, first);
            sqlite3_bind_int64(blk, 4, k);
            sqlite3_bind_int(blk, 5, got == k);
            sqlite3_bind_blob(blk, 6, done + first, (int)k, SQLITE_TRANSIENT);
            sqlite3_bind_int64(blk, 7, got);
            ok = sqlite3_step(blk) == SQLITE_DONE;
            sqlite3_reset(blk);
        }
    }
    sqlite3_finalize(rd);
    sqlite3_finalize(job);
    sqlite3_finalize(blk);
    return ok;
}

/* Bring the schema from version `from` to this release's in one transaction; on failure why (cap
 * bytes) holds SQLite's reason, taken before the ROLLBACK replaces it with its own ("no transaction
 * is active", when the error ended the transaction itself: a full disk). */
static bool migrate(sqlite3 *db, int64_t from, char *why, size_t cap)
{
    if (from >= NQ_STORE_SCHEMA_VERSION) return true; /* this release's, or a later one it can use */
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
        ok = exec_ok(db, migration[i]) && exec_ok(db, sql) && (i + 1 != 3 || split_checkpoints(db));
    }
    if (ok && exec_ok(db, "COMMIT")) return true;
    (void)snprintf(why, cap, "%s", sqlite3_errmsg(db));
    (void)exec_ok(db, "ROLLBACK");
    return false;
}

static bool prepare_all(sqlite_store *s)
{
    for (int i = 0; i < STMTS; i++)
        if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->stmt[i], NULL) != SQLITE_OK)
            return false;
    return true;
}

/* Take a write, changing nothing that is read (the header's user_version, rewritten as it is): a
 * store SQLite can read but not write (a -wal or -shm left by another user, read-only to this one)
 * is found now, not at the first finished count. On failure why (cap bytes) holds SQLite's reason. */
static int try_write(sqlite3 *db, char *why, size_t cap)
{
    const int64_t v = query_int(db, "PRAGMA user_version");
    char sql[64];
    (void)snprintf(sql, sizeof sql, "PRAGMA user_version = %lld", (long long)(v > 0 ? v : 0));
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_OK) return rc;
    rc = sqlite3_extended_errcode(db);
    (void)snprintf(why, cap, "%s", sqlite3_errmsg(db));
    if (sqlite3_get_autocommit(db) == 0) (void)exec_ok(db, "ROLLBACK");
    return rc;
}

/* WAL, durable commits, a bounded log, this release's schema, a write that went through and the
 * statements: NQ_OK, or the error with its message (the open then removes what it made). */
static nq_err make_ours(sqlite_store *s, int64_t version, char *err, size_t errlen)
{
    char why[160] = "";
    char limit[64];
    (void)snprintf(limit, sizeof limit, "PRAGMA journal_size_limit = %d", WAL_LIMIT_BYTES);
    int rc = SQLITE_OK;
    /* secure_delete off (Debian builds SQLite with it on): dropping a checkpoint then frees its pages
     * without writing each one, zeroed, through the log; the bitmaps hold nothing secret. */
    if (!exec_ok(s->db, "PRAGMA journal_mode=WAL") || !exec_ok(s->db, "PRAGMA synchronous=FULL") ||
        !exec_ok(s->db, "PRAGMA secure_delete=OFF") || !exec_ok(s->db, limit) ||
        sqlite3_wal_autocheckpoint(s->db, WAL_AUTOCHECKPOINT_PAGES) != SQLITE_OK ||
        !migrate(s->db, version, why, sizeof why)) {
        rc = sqlite3_extended_errcode(s->db);
        say(err, errlen, "store %s: cannot write its schema: %s", s->path,
            why[0] != '\0' ? why : sqlite3_errmsg(s->db));
    } else if ((rc = try_write(s->db, why, sizeof why)) != SQLITE_OK) {
        if (disk_full(s->db, rc))
            say(err, errlen, "store %s cannot be written: its disk is full (%s); free some space on its volume",
                s->path, why);
        else
            say(err, errlen,
                "store %s cannot be written (%s); check the permissions of the file, of its -wal and -shm "
                "files (left by a server run as another user?) and of its directory",
                s->path, why);
    } else if (!prepare_all(s)) {
        rc = sqlite3_extended_errcode(s->db);
        say(err, errlen, "store %s: cannot prepare its statements: %s", s->path, sqlite3_errmsg(s->db));
    } else if (!exec_ok(s->db, "UPDATE blocks SET token = 0, lease_until = 0 WHERE token <> 0")) {
        /* The file has one replica, and it is starting: a lease found now is a dead process's. */
        rc = sqlite3_extended_errcode(s->db);
        say(err, errlen, "store %s: cannot release its leases: %s", s->path, sqlite3_errmsg(s->db));
    }
    if (rc == SQLITE_OK) return NQ_OK;
    return disk_full(s->db, rc) ? NQ_E_STORE_FULL : NQ_E_STORE_IO;
}

/* path with suffix ("-wal", "-shm") into out; false when it does not fit. */
static bool side_path(const char *path, const char *suffix, char *out, size_t cap)
{
    const int len = snprintf(out, cap, "%s%s", path, suffix);
    return len > 0 && (size_t)len < cap;
}

static bool exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Free s; refused: also remove what the open made (the file when it was missing, a -wal or -shm
 * that was not there), after the connection is closed and before the lock goes. */
static void store_free(sqlite_store *s, bool refused)
{
    if (!s) return;
    for (int i = 0; i < STMTS; i++) sqlite3_finalize(s->stmt[i]);
    if (s->db) sqlite3_close(s->db);
    char side[4096 + 8];
    if (refused && !s->had_wal && side_path(s->path, "-wal", side, sizeof side)) (void)unlink(side);
    if (refused && !s->had_shm && side_path(s->path, "-shm", side, sizeof side)) (void)unlink(side);
    if (refused && s->made_file) (void)unlink(s->path);
    /* After sqlite3_close: closing an fd of the file would drop SQLite's own POSIX locks. */
    if (s->lock_fd >= 0) (void)close(s->lock_fd);
    pthread_mutex_destroy(&s->lock);
    free(s->path);
    free(s);
}

/* Open the connection and inspect what it finds (the rest of phase 1): NQ_OK with *version. */
static nq_err open_db(sqlite_store *s, bool fresh, int64_t *version, char *err, size_t errlen)
{
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(s->path, &s->db, flags, NULL) != SQLITE_OK) {
        say(err, errlen, "store %s: cannot open: %s", s->path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
        return NQ_E_STORE_IO;
    }
    if (sqlite3_db_readonly(s->db, "main") == 1) { /* SQLite opens a write-protected file read-only */
        say(err, errlen, "store %s is read-only; nqueensd writes its counts there: check the file's permissions",
            s->path);
        return NQ_E_STORE_IO;
    }
    (void)sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    (void)sqlite3_extended_result_codes(s->db, 1);
    /* Closing would fold a leftover write-ahead log into the file: not for a file we refuse. */
    (void)sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
    if (sqlite3_create_function_v2(s->db, "nq_check", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, check_fn, NULL,
                                   NULL, NULL) != SQLITE_OK)
        return NQ_E_NOMEM;
    *version = 0;
    return fresh ? NQ_OK : inspect(s->db, s->path, version, err, errlen);
}

nq_err nq_store_sqlite_open(const char *path, sqlite_store **out, char *err, size_t errlen)
{
    if (!path || !out || !path[0]) return NQ_E_ARG;
    sqlite_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return NQ_E_NOMEM;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->lock_fd = -1;
    char side[4096 + 8];
    s->had_wal = !side_path(path, "-wal", side, sizeof side) || exists(side);
    s->had_shm = !side_path(path, "-shm", side, sizeof side) || exists(side);
    bool fresh = false;
    int64_t version = 0;
    nq_err rc = sniff(s, &fresh, err, errlen);
    /* Two servers on one store would both resume its counts: the second is refused. flock, not
     * fcntl: SQLite's POSIX locks and this one do not interact. */
    if (rc == NQ_OK && flock(s->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        say(err, errlen, "store %s is in use by another nqueensd; give each server its own --store", path);
        s->made_file = false; /* the other server's, as are its -wal and -shm */
        s->had_wal = s->had_shm = true;
        rc = NQ_E_STORE_IO;
    }
    if (rc == NQ_OK) rc = open_db(s, fresh, &version, err, errlen);
    if (rc == NQ_OK) rc = make_ours(s, version, err, errlen); /* from here on the file is ours */
    if (rc != NQ_OK) {
        store_free(s, true);
        return rc;
    }
    (void)sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, NULL); /* ours now */
    *out = s;
    return NQ_OK;
}

static void sq_close(void *impl)
{
    sqlite_store *s = impl;
    if (!s) return;
    (void)sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
    store_free(s, false);
}

/* ---- writes: each one transaction -------------------------------------------------------------- */

/* Run a prepared statement that returns no rows, and reset it: its result code (SQLITE_DONE). */
static int step_done(sqlite3_stmt *st)
{
    const int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc;
}

/* One write transaction: BEGIN, the rows of put (true when they went in), COMMIT or ROLLBACK. Its
 * SQLite result: SQLITE_OK when committed, else the extended code of what failed. */
typedef bool (*put_fn)(sqlite_store *s, const void *row);
static int write_once(sqlite_store *s, put_fn put, const void *row)
{
    int rc = step_done(s->stmt[BEGIN]);
    if (rc == SQLITE_DONE) rc = put(s, row) ? step_done(s->stmt[COMMIT]) : sqlite3_extended_errcode(s->db);
    if (rc == SQLITE_DONE) return SQLITE_OK;
    rc = sqlite3_extended_errcode(s->db);
    if (sqlite3_get_autocommit(s->db) == 0) (void)step_done(s->stmt[ROLLBACK]);
    return rc;
}

/* A write, once more after a failure for want of space (or an I/O error) once the log is folded into
 * the file and truncated: the room the log held is what the retry needs. Takes s->lock. */
static nq_err write_retrying(sqlite_store *s, put_fn put, const void *row)
{
    pthread_mutex_lock(&s->lock);
    int rc = write_once(s, put, row);
    const int primary = rc & 0xff;
    if (primary == SQLITE_FULL || primary == SQLITE_IOERR) {
        (void)sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
        rc = write_once(s, put, row);
    }
    const nq_err out = rc == SQLITE_OK ? NQ_OK : disk_full(s->db, rc) ? NQ_E_STORE_FULL : NQ_E_STORE_IO;
    pthread_mutex_unlock(&s->lock);
    return out;
}

static bool put_count(sqlite_store *s, const void *row)
{
    const nq_store_count *c = row;
    sqlite3_stmt *put = s->stmt[PUT_COUNT], *drop = s->stmt[DROP_CHECKPOINT];
    sqlite3_bind_int(put, 1, c->n);
    sqlite3_bind_int64(put, 2, (sqlite3_int64)c->counts.total); /* < 2^63 for every n <= 27 */
    sqlite3_bind_int64(put, 3, (sqlite3_int64)c->counts.unique);
    sqlite3_bind_double(put, 4, c->seconds);
    sqlite3_bind_int64(put, 5, c->finished_at);
    if (step_done(put) != SQLITE_DONE) return false;
    sqlite3_bind_int(drop, 1, c->n);
    if (step_done(drop) != SQLITE_DONE) return false;
    /* A registered count of n is done from now on: its blocks have nothing left to count. */
    sqlite3_stmt *job = s->stmt[JOB_DONE], *blocks = s->stmt[DROP_BLOCKS];
    sqlite3_bind_int(job, 1, c->n);
    sqlite3_bind_int(blocks, 1, c->n);
    return step_done(job) == SQLITE_DONE && step_done(blocks) == SQLITE_DONE;
}

static nq_err sq_put_count(void *impl, const nq_store_count *c)
{
    sqlite_store *s = impl;
    if (!s || !c) return NQ_E_ARG;
    return write_retrying(s, put_count, c);
}

static bool put_checkpoint(sqlite_store *s, const void *row)
{
    const nq_store_checkpoint *cp = row;
    sqlite3_stmt *st = s->stmt[PUT_CHECKPOINT];
    sqlite3_bind_int(st, 1, cp->n);
    sqlite3_bind_int64(st, 2, cp->plan);
    sqlite3_bind_int64(st, 3, cp->tasks);
    sqlite3_bind_blob(st, 4, cp->done, (int)cp->tasks, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)cp->sums.total);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)cp->sums.burnside);
    sqlite3_bind_double(st, 7, cp->elapsed_s);
    sqlite3_bind_int64(st, 8, cp->started_at);
    sqlite3_bind_int64(st, 9, (sqlite3_int64)time(NULL));
    return step_done(st) == SQLITE_DONE;
}

static nq_err sq_put_checkpoint(void *impl, const nq_store_checkpoint *cp)
{
    sqlite_store *s = impl;
    if (!s || !cp || !cp->done || cp->tasks == 0) return NQ_E_ARG;
    return write_retrying(s, put_checkpoint, cp);
}

/* ---- reads -------------------------------------------------------------------------------------- */

/* A stored duration as a number of seconds to show: a value no nqueensd writes (negative, NaN, a
 * hand-edited row) reads as 0 rather than reaching a JSON body as "nan". */
static double seconds_of(sqlite3_stmt *st, int col)
{
    const double v = sqlite3_column_double(st, col);
    return isfinite(v) && v >= 0 ? v : 0.0;
}

/* Whether columns [from, to) of st are all integers >= 0 (a NULL, a text, a negative value: no
 * nqueensd wrote that). */
static bool naturals(sqlite3_stmt *st, int from, int to)
{
    for (int c = from; c < to; c++)
        if (sqlite3_column_type(st, c) != SQLITE_INTEGER || sqlite3_column_int64(st, c) < 0) return false;
    return true;
}

/* Column 0 of a row as its n for a damaged-row report: -1 when it is not a plausible board size. */
static int n_of(sqlite3_stmt *st)
{
    const int64_t n = sqlite3_column_int64(st, 0);
    return sqlite3_column_type(st, 0) == SQLITE_INTEGER && n > 0 && n <= 1024 ? (int)n : -1;
}

static nq_err sq_each_count(void *impl, nq_store_count_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    sqlite_store *s = impl;
    if (!s || !fn) return NQ_E_ARG;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->stmt[EACH_COUNT];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        /* Its check (column 5), and values no nqueensd writes: a hand edit may have fixed the check. */
        if (sqlite3_column_int(st, 5) != 1 || !naturals(st, 0, 3) ||
            sqlite3_column_int64(st, 2) > sqlite3_column_int64(st, 1)) {
            if (damaged) damaged(arg, n_of(st), false);
            continue;
        }
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

static nq_err sq_each_checkpoint(void *impl, nq_store_checkpoint_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    sqlite_store *s = impl;
    if (!s || !fn) return NQ_E_ARG;
    pthread_mutex_lock(&s->lock);
    sqlite3_stmt *st = s->stmt[EACH_CHECKPOINT];
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const int64_t tasks = sqlite3_column_int64(st, 2);
        const void *done = sqlite3_column_blob(st, 3);
        if (sqlite3_column_int(st, 8) != 1 || !naturals(st, 0, 3) || !naturals(st, 4, 6) || tasks <= 0 ||
            tasks > UINT32_MAX || !done || sqlite3_column_bytes(st, 3) != tasks) {
            if (damaged) damaged(arg, n_of(st), true);
            continue;
        }
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

static uint64_t sq_bytes(void *impl)
{
    sqlite_store *s = impl;
    if (!s) return 0;
    char wal[4096 + 8];
    (void)snprintf(wal, sizeof wal, "%s-wal", s->path);
    return file_bytes(s->path) + file_bytes(wal);
}

static const char *sq_path(const void *impl)
{
    const sqlite_store *s = impl;
    return s ? s->path : "";
}

/* ---- counts registered for the store: blocks and leases (schema 3) ------------------------------ */

/* What the body of a transaction says: commit, or roll back for one of these reasons. */
typedef enum tx_out { TX_OK, TX_LOST, TX_BAD, TX_FAIL } tx_out;
typedef tx_out (*tx_fn)(sqlite_store *s, void *ctx);

/* One transaction of body: committed on TX_OK, else rolled back. *rc: SQLite's code of a failure. */
static nq_err tx_once(sqlite_store *s, tx_fn body, void *ctx, int *rc)
{
    tx_out out = TX_FAIL;
    if (step_done(s->stmt[BEGIN]) == SQLITE_DONE) {
        out = body(s, ctx);
        if (out == TX_OK && step_done(s->stmt[COMMIT]) == SQLITE_DONE) return NQ_OK;
    }
    *rc = sqlite3_extended_errcode(s->db);
    const bool full = disk_full(s->db, *rc); /* before ROLLBACK replaces the error */
    if (sqlite3_get_autocommit(s->db) == 0) (void)step_done(s->stmt[ROLLBACK]);
    if (out == TX_LOST) return NQ_E_STORE_LOST;
    if (out == TX_BAD) return NQ_E_ARG;
    return full ? NQ_E_STORE_FULL : NQ_E_STORE_IO;
}

/* body in one transaction under s->lock, once more after a failure for want of space (or an I/O
 * error) once the log is folded into the file, as write_retrying does. */
static nq_err run_tx(sqlite_store *s, tx_fn body, void *ctx)
{
    pthread_mutex_lock(&s->lock);
    int rc = SQLITE_OK;
    nq_err e = tx_once(s, body, ctx, &rc);
    if (e == NQ_E_STORE_FULL || (e == NQ_E_STORE_IO && (rc & 0xff) == SQLITE_IOERR)) {
        (void)sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
        e = tx_once(s, body, ctx, &rc);
    }
    pthread_mutex_unlock(&s->lock);
    return e;
}

/* Bind a claim's block and token to ?1 (n), ?2 (index), ?3 (token). */
static void bind_claim(sqlite3_stmt *st, const nq_store_claim *c)
{
    sqlite3_bind_int(st, 1, c->n);
    sqlite3_bind_int64(st, 2, c->block);
    sqlite3_bind_int64(st, 3, (sqlite3_int64)c->token);
}

typedef struct reg_ctx {
    int n;
    uint32_t plan, tasks, block_tasks;
    bool *created;
} reg_ctx;

static tx_out register_body(sqlite_store *s, void *arg)
{
    const reg_ctx *r = arg;
    sqlite3_stmt *ins = s->stmt[JOB_INSERT], *chk = s->stmt[JOB_CHECK_SET], *blk = s->stmt[BLOCK_INSERT];
    sqlite3_bind_int(ins, 1, r->n);
    sqlite3_bind_int64(ins, 2, r->plan);
    sqlite3_bind_int64(ins, 3, r->tasks);
    sqlite3_bind_int64(ins, 4, r->block_tasks);
    if (step_done(ins) != SQLITE_DONE) return TX_FAIL;
    *r->created = sqlite3_changes(s->db) == 1;
    if (!*r->created) return TX_OK; /* registered already, or finished */
    sqlite3_bind_int(chk, 1, r->n);
    if (step_done(chk) != SQLITE_DONE) return TX_FAIL;
    for (uint32_t first = 0; first < r->tasks; first += r->block_tasks) {
        const uint32_t k = r->tasks - first < r->block_tasks ? r->tasks - first : r->block_tasks;
        sqlite3_bind_int(blk, 1, r->n);
        sqlite3_bind_int64(blk, 2, first / r->block_tasks);
        sqlite3_bind_int64(blk, 3, first);
        sqlite3_bind_int64(blk, 4, k);
        sqlite3_bind_int(blk, 5, 0);
        sqlite3_bind_zeroblob(blk, 6, (int)k);
        sqlite3_bind_int(blk, 7, 0);
        if (step_done(blk) != SQLITE_DONE) return TX_FAIL;
    }
    return TX_OK;
}

/* Blocks of tasks, block_tasks to a block (0 when either is 0). */
static uint32_t blocks_of(uint32_t tasks, uint32_t block_tasks)
{
    return block_tasks ? (uint32_t)(((uint64_t)tasks + block_tasks - 1) / block_tasks) : 0;
}

/* A row of STATE into *out: false when the row is not to be passed on (*damaged_job: the registered
 * count fails its check; else its finished count does). */
static bool state_row(sqlite3_stmt *st, nq_store_count_view *out, bool *damaged_job)
{
    memset(out, 0, sizeof *out);
    out->n = sqlite3_column_int(st, 0);
    *damaged_job = sqlite3_column_int(st, 11) != 1 || !naturals(st, 0, 11);
    if (*damaged_job) return false;
    const bool has_count = sqlite3_column_type(st, 12) != SQLITE_NULL;
    const bool count_ok = has_count && sqlite3_column_int(st, 16) == 1 && naturals(st, 12, 14) &&
                          sqlite3_column_int64(st, 13) <= sqlite3_column_int64(st, 12);
    const int status = sqlite3_column_int(st, 4);
    if ((has_count || status >= 2) && !count_ok) return false; /* done, but its count is damaged */
    out->plan = (uint32_t)sqlite3_column_int64(st, 1);
    out->tasks = (uint32_t)sqlite3_column_int64(st, 2);
    out->block_tasks = (uint32_t)sqlite3_column_int64(st, 3);
    out->started_at_ms = sqlite3_column_int64(st, 5);
    if (count_ok) {
        out->status = NQ_STORE_DONE;
        out->blocks = out->blocks_done = blocks_of(out->tasks, out->block_tasks);
        out->tasks_done = out->tasks;
        out->counts.total = (uint64_t)sqlite3_column_int64(st, 12);
        out->counts.unique = (uint64_t)sqlite3_column_int64(st, 13);
        out->elapsed_s = seconds_of(st, 14);
        out->finished_at = sqlite3_column_int64(st, 15);
        return true;
    }
    out->status = status == 0 ? NQ_STORE_QUEUED : NQ_STORE_RUNNING;
    out->blocks = (uint32_t)sqlite3_column_int64(st, 7);
    out->blocks_done = (uint32_t)sqlite3_column_int64(st, 8);
    out->blocks_leased = (uint32_t)sqlite3_column_int64(st, 9);
    const int64_t done = sqlite3_column_int64(st, 10);
    out->tasks_done = done > out->tasks ? out->tasks : (uint32_t)done;
    const int64_t ms = sqlite3_column_int64(st, 6) - out->started_at_ms;
    out->elapsed_s = ms > 0 ? (double)ms / 1000.0 : 0.0;
    return true;
}

/* Every row of STATE (n < 0: all; else only n's) to fn; damaged rows to damaged. Caller holds the
 * lock. */
static nq_err each_state(sqlite_store *s, int n, nq_store_count_view_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    sqlite3_stmt *st = s->stmt[STATE];
    if (n >= 0)
        sqlite3_bind_int(st, 1, n);
    else
        sqlite3_bind_null(st, 1);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        nq_store_count_view row;
        bool damaged_job = false;
        if (!state_row(st, &row, &damaged_job)) {
            if (damaged) damaged(arg, n_of(st), damaged_job);
            continue;
        }
        if (!fn(arg, &row)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? NQ_OK : NQ_E_STORE_IO;
}

static bool state_into(void *arg, const nq_store_count_view *st)
{
    *(nq_store_count_view *)arg = *st;
    return false;
}

static nq_err sq_count_state(void *impl, int n, nq_store_count_view *st, bool *found)
{
    sqlite_store *s = impl;
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&s->lock);
    const nq_err rc = each_state(s, n, state_into, NULL, st);
    pthread_mutex_unlock(&s->lock);
    *found = rc == NQ_OK && st->n == n;
    if (!*found) memset(st, 0, sizeof *st);
    return rc;
}

static nq_err sq_each_count_state(void *impl, nq_store_count_view_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    sqlite_store *s = impl;
    pthread_mutex_lock(&s->lock);
    const nq_err rc = each_state(s, -1, fn, damaged, arg);
    pthread_mutex_unlock(&s->lock);
    return rc;
}

static nq_err sq_register_count(void *impl, int n, uint32_t plan, uint32_t tasks, uint32_t block_tasks, bool *created,
                                nq_store_count_view *st)
{
    reg_ctx r = {n, plan, tasks, block_tasks, created};
    *created = false;
    nq_err rc = run_tx(impl, register_body, &r);
    bool found = false;
    if (rc == NQ_OK) rc = sq_count_state(impl, n, st, &found);
    return rc;
}

typedef struct claim_ctx {
    uint32_t lease_ms;
    int max_n;
    uint32_t plan;
    nq_store_claim *c;
    bool *got;
} claim_ctx;

/* Read the block CLAIM_PICK found into c (its bitmap and sums; none when the row fails its check):
 * false when out of memory. *sound: the row passed its check. */
static bool read_pick(sqlite3_stmt *pick, nq_store_claim *c, bool *sound)
{
    const int64_t tasks = sqlite3_column_int64(pick, 3);
    const void *done = sqlite3_column_blob(pick, 4);
    *sound = sqlite3_column_int(pick, 9) == 1 && naturals(pick, 0, 4) && naturals(pick, 5, 7) && tasks > 0 &&
             tasks <= UINT32_MAX && done && sqlite3_column_bytes(pick, 4) == tasks;
    c->n = sqlite3_column_int(pick, 0);
    c->block = (uint32_t)sqlite3_column_int64(pick, 1);
    c->first_task = (uint32_t)sqlite3_column_int64(pick, 2);
    c->tasks = (uint32_t)(tasks > 0 && tasks <= UINT32_MAX ? tasks : 1);
    c->plan = (uint32_t)sqlite3_column_int64(pick, 7);
    c->count_tasks = (uint32_t)sqlite3_column_int64(pick, 8);
    c->taken_over = sqlite3_column_int(pick, 10) == 1;
    c->done = calloc(c->tasks, 1);
    if (!c->done) return false;
    if (!*sound) return true; /* counted again from nothing */
    for (uint32_t i = 0; i < c->tasks; i++) c->done[i] = ((const uint8_t *)done)[i] != 0;
    c->sums.total = (uint64_t)sqlite3_column_int64(pick, 5);
    c->sums.burnside = (uint64_t)sqlite3_column_int64(pick, 6);
    return true;
}

static tx_out claim_body(sqlite_store *s, void *arg)
{
    const claim_ctx *x = arg;
    nq_store_claim *c = x->c;
    free(c->done); /* a first attempt's, when this is the retry */
    memset(c, 0, sizeof *c);
    *x->got = false;
    sqlite3_stmt *pick = s->stmt[CLAIM_PICK];
    sqlite3_bind_int(pick, 1, x->max_n);
    sqlite3_bind_int64(pick, 2, x->plan);
    const int rc = sqlite3_step(pick);
    bool sound = true;
    const bool read = rc == SQLITE_ROW && read_pick(pick, c, &sound);
    sqlite3_reset(pick);
    if (rc == SQLITE_DONE) return TX_OK; /* nothing to claim */
    if (!read) return TX_FAIL;
    sqlite3_stmt *reset = s->stmt[CLAIM_RESET], *set = s->stmt[CLAIM_SET], *run = s->stmt[JOB_RUNNING];
    if (!sound) {
        sqlite3_bind_int(reset, 1, c->n);
        sqlite3_bind_int64(reset, 2, c->block);
        if (step_done(reset) != SQLITE_DONE) return TX_FAIL;
    }
    c->token = nq_store_token();
    bind_claim(set, c);
    sqlite3_bind_int64(set, 4, x->lease_ms);
    const bool set_ok = sqlite3_step(set) == SQLITE_ROW;
    c->lease_until_ms = set_ok ? sqlite3_column_int64(set, 0) : 0;
    if (!set_ok || step_done(set) != SQLITE_DONE) return TX_FAIL;
    sqlite3_bind_int(run, 1, c->n);
    if (step_done(run) != SQLITE_DONE) return TX_FAIL;
    *x->got = true;
    return TX_OK;
}

static nq_err sq_claim_block(void *impl, uint32_t lease_ms, int max_n, uint32_t plan, nq_store_claim *claim, bool *got)
{
    claim_ctx x = {lease_ms, max_n, plan, claim, got};
    const nq_err rc = run_tx(impl, claim_body, &x);
    if (rc != NQ_OK || !*got) {
        free(claim->done);
        memset(claim, 0, sizeof *claim);
        *got = false;
    }
    return rc;
}

typedef struct lease_ctx {
    nq_store_claim *c;       /* renew: updated */
    const nq_store_claim *k; /* the others */
    uint32_t lease_ms;
    const uint8_t *done;
    const nq_count_sums *sums;
    bool *count_done;
} lease_ctx;

static tx_out renew_body(sqlite_store *s, void *arg)
{
    const lease_ctx *x = arg;
    sqlite3_stmt *st = s->stmt[RENEW];
    bind_claim(st, x->c);
    sqlite3_bind_int64(st, 4, x->lease_ms);
    const int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) x->c->lease_until_ms = sqlite3_column_int64(st, 0);
    const bool finished = step_done(st) == SQLITE_DONE;
    if (rc == SQLITE_DONE) return TX_LOST; /* no row: another token, a lapsed lease, or done */
    return rc == SQLITE_ROW && finished ? TX_OK : TX_FAIL;
}

static nq_err sq_renew(void *impl, nq_store_claim *claim, uint32_t lease_ms)
{
    lease_ctx x = {.c = claim, .k = claim, .lease_ms = lease_ms};
    return run_tx(impl, renew_body, &x);
}

/* Whether the claim still holds its block (token, unexpired lease): TX_OK with *stored (the tasks
 * done the store has), TX_LOST, or TX_FAIL. */
static tx_out held(sqlite_store *s, const nq_store_claim *c, int64_t *stored)
{
    sqlite3_stmt *st = s->stmt[LEASE_HELD];
    bind_claim(st, c);
    const int rc = sqlite3_step(st);
    *stored = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_ROW ? TX_OK : rc == SQLITE_DONE ? TX_LOST : TX_FAIL;
}

static tx_out commit_body(sqlite_store *s, void *arg)
{
    const lease_ctx *x = arg;
    int64_t stored = 0;
    const tx_out h = held(s, x->k, &stored);
    if (h != TX_OK) return h;
    const uint32_t now_done = nq_store_tasks_done(x->done, x->k->tasks);
    if (now_done < stored) return TX_BAD; /* progress never goes back */
    sqlite3_stmt *st = s->stmt[COMMIT_TASKS];
    bind_claim(st, x->k);
    sqlite3_bind_blob(st, 4, x->done, (int)x->k->tasks, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, now_done);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)x->sums->total);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)x->sums->burnside);
    return step_done(st) == SQLITE_DONE && sqlite3_changes(s->db) == 1 ? TX_OK : TX_FAIL;
}

static nq_err sq_commit_tasks(void *impl, const nq_store_claim *claim, const uint8_t *done, const nq_count_sums *sums)
{
    lease_ctx x = {.k = claim, .done = done, .sums = sums};
    return run_tx(impl, commit_body, &x);
}

/* The last block of n is done: its finished count (the sum of its blocks) goes in, in the same
 * transaction. */
static tx_out complete(sqlite_store *s, int n)
{
    sqlite3_stmt *st = s->stmt[COUNT_SUM];
    sqlite3_bind_int(st, 1, n);
    nq_count_sums all = {0, 0};
    nq_store_count c = {.n = n};
    const int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        all.total = (uint64_t)sqlite3_column_int64(st, 0);
        all.burnside = (uint64_t)sqlite3_column_int64(st, 1);
        c.seconds = seconds_of(st, 2);
        c.finished_at = sqlite3_column_int64(st, 3);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (rc != SQLITE_ROW) return TX_FAIL;
    c.counts = nq_count_sums_counts(&all);
    return put_count(s, &c) ? TX_OK : TX_FAIL;
}

static tx_out finish_body(sqlite_store *s, void *arg)
{
    const lease_ctx *x = arg;
    int64_t stored = 0;
    const tx_out h = held(s, x->k, &stored);
    if (h != TX_OK) return h;
    uint8_t *ones = malloc(x->k->tasks);
    if (!ones) return TX_FAIL;
    memset(ones, 1, x->k->tasks);
    sqlite3_stmt *st = s->stmt[FINISH], *left = s->stmt[REMAINING];
    bind_claim(st, x->k);
    sqlite3_bind_blob(st, 4, ones, (int)x->k->tasks, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)x->sums->total);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)x->sums->burnside);
    const bool ok = step_done(st) == SQLITE_DONE;
    free(ones);
    if (!ok) return TX_FAIL;
    sqlite3_bind_int(left, 1, x->k->n);
    const int rc = sqlite3_step(left);
    const int64_t remaining = rc == SQLITE_ROW ? sqlite3_column_int64(left, 0) : -1;
    sqlite3_reset(left);
    sqlite3_clear_bindings(left);
    *x->count_done = remaining == 0;
    if (remaining < 0) return TX_FAIL;
    return remaining == 0 ? complete(s, x->k->n) : TX_OK;
}

static nq_err sq_finish_block(void *impl, const nq_store_claim *claim, const nq_count_sums *sums, bool *count_done)
{
    lease_ctx x = {.k = claim, .sums = sums, .count_done = count_done};
    *count_done = false;
    const nq_err rc = run_tx(impl, finish_body, &x);
    if (rc != NQ_OK) *count_done = false;
    return rc;
}

static tx_out release_body(sqlite_store *s, void *arg)
{
    const lease_ctx *x = arg;
    sqlite3_stmt *st = s->stmt[RELEASE];
    bind_claim(st, x->k);
    return step_done(st) == SQLITE_DONE ? TX_OK : TX_FAIL;
}

static nq_err sq_release(void *impl, const nq_store_claim *claim)
{
    lease_ctx x = {.k = claim};
    return run_tx(impl, release_body, &x);
}

static tx_out forget_body(sqlite_store *s, void *arg)
{
    const int n = *(const int *)arg;
    const enum stmt_id drops[] = {DROP_BLOCKS, FORGET_JOB, DROP_CHECKPOINT, FORGET_COUNT};
    for (size_t i = 0; i < sizeof drops / sizeof *drops; i++) {
        sqlite3_bind_int(s->stmt[drops[i]], 1, n);
        if (step_done(s->stmt[drops[i]]) != SQLITE_DONE) return TX_FAIL;
    }
    return TX_OK;
}

static nq_err sq_forget_count(void *impl, int n)
{
    return run_tx(impl, forget_body, &n);
}

static bool sq_connected(void *impl)
{
    return impl != NULL;
}

const nq_store_backend nq_store_sqlite = {
    .name = "sqlite",
    .close = sq_close,
    .put_count = sq_put_count,
    .put_checkpoint = sq_put_checkpoint,
    .each_count = sq_each_count,
    .each_checkpoint = sq_each_checkpoint,
    .bytes = sq_bytes,
    .path = sq_path,
    .shared = false,
    .connected = sq_connected,
    .register_count = sq_register_count,
    .count_state = sq_count_state,
    .each_count_state = sq_each_count_state,
    .claim_block = sq_claim_block,
    .renew = sq_renew,
    .commit_tasks = sq_commit_tasks,
    .finish_block = sq_finish_block,
    .release = sq_release,
    .forget_count = sq_forget_count,
};
