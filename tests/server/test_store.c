/* test_store.c - the store module: what it writes it reads back, across a reopen; what it must refuse,
 * it refuses; a row changed behind its back is not read as good; its log stays small; and what the
 * long-count service makes of what it reads. (The server around it, restarts and kill -9 are
 * tests/http/test_store.c.) */
#define _GNU_SOURCE /* mkdtemp, unshare */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/config.h"
#include "base/errors.h"
#include "check_run.h"
#include "counts/jobs.h"
#include "store/store.h"

typedef struct tmp_store {
    char dir[64];  /* a fresh directory */
    char path[96]; /* the store in it */
} tmp_store;

static void tmp_make(tmp_store *t)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/nq-store-unit-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/s.db", t->dir);
}

static void tmp_remove(const tmp_store *t)
{
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s%s", t->path, suffixes[i]);
        (void)unlink(p);
    }
    ck_assert_int_eq(rmdir(t->dir), 0);
}

/* A fresh store of this release at t's path, made and closed cleanly (nothing left in a log). */
static void make_closed_store(const tmp_store *t)
{
    nq_store *s = NULL;
    char err[256];
    ck_assert_msg(nq_store_open(t->path, &s, err, sizeof err) == NQ_OK, "%s", err);
    nq_store_close(s);
}

static bool collect_count(void *arg, const nq_store_count *c)
{
    nq_store_count *out = arg;
    out[c->n] = *c;
    return true;
}

static bool collect_checkpoint(void *arg, const nq_store_checkpoint *cp)
{
    uint8_t *done = arg; /* tasks bytes, copied out (cp->done is only valid during the call) */
    ck_assert_int_eq(cp->n, 17);
    ck_assert_uint_eq(cp->plan, NQ_COUNT_PLAN_VERSION);
    ck_assert_uint_eq(cp->tasks, 5);
    ck_assert_uint_eq(cp->sums.total, 1000);
    ck_assert_uint_eq(cp->sums.burnside, 2000);
    ck_assert(cp->elapsed_s == 12.5);
    ck_assert_int_eq(cp->started_at, 1700000000);
    memcpy(done, cp->done, cp->tasks);
    return true;
}

START_TEST(round_trip_across_a_reopen)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    nq_store *s = NULL;
    char err[256];
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_OK);
    const uint8_t done[5] = {1, 0, 1, 1, 0};
    const nq_store_checkpoint cp = {17, NQ_COUNT_PLAN_VERSION, 5, done, {1000, 2000}, 12.5, 1700000000};
    ck_assert_int_eq(nq_store_put_checkpoint(s, &cp), NQ_OK);
    const nq_store_checkpoint cp13 = {13, NQ_COUNT_PLAN_VERSION, 1, done, {1, 1}, 1.0, 1};
    ck_assert_int_eq(nq_store_put_checkpoint(s, &cp13), NQ_OK);
    /* A count that finishes drops its checkpoint in the same transaction. */
    const nq_store_count c13 = {13, {73712, 9233}, 3.25, 1700000100};
    ck_assert_int_eq(nq_store_put_count(s, &c13), NQ_OK);
    const nq_store_count c27 = {27, {234907967154122528ULL, 29363495934315694ULL}, 1e6, 1700000200};
    ck_assert_int_eq(nq_store_put_count(s, &c27), NQ_OK); /* beyond 2^53: kept exactly */
    ck_assert_uint_gt(nq_store_bytes(s), 0);
    nq_store_close(s);

    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_OK);
    nq_store_count got[28];
    memset(got, 0, sizeof got);
    ck_assert_int_eq(nq_store_each_count(s, collect_count, NULL, got), NQ_OK);
    ck_assert_uint_eq(got[13].counts.total, 73712);
    ck_assert_uint_eq(got[13].counts.unique, 9233);
    ck_assert(got[13].seconds == 3.25);
    ck_assert_int_eq(got[13].finished_at, 1700000100);
    ck_assert_uint_eq(got[27].counts.total, 234907967154122528ULL);
    ck_assert_uint_eq(got[27].counts.unique, 29363495934315694ULL);
    uint8_t back[5] = {9, 9, 9, 9, 9};
    ck_assert_int_eq(nq_store_each_checkpoint(s, collect_checkpoint, NULL, back), NQ_OK); /* only n = 17 left */
    ck_assert_mem_eq(back, done, 5);
    nq_store_close(s);
    tmp_remove(&t);
}
END_TEST

/* Rows: what the file holds before the open, what the open says. */
static const struct {
    const char *sql;   /* run on a fresh SQLite file first; NULL: a store made by nq_store_open */
    const char *extra; /* then this on that store (NULL: nothing) */
    nq_err want;
} refusals[] = {
    {"CREATE TABLE t(x); INSERT INTO t VALUES (1);", NULL, NQ_E_STORE_FOREIGN},
    {"PRAGMA application_id = 1313953093; CREATE TABLE t(x);", NULL, NQ_E_STORE_CORRUPT}, /* ours, no schema */
    {NULL, "INSERT INTO nq_schema VALUES (99, 0)", NQ_E_STORE_NEWER},
    {NULL, "PRAGMA application_id = 7", NQ_E_STORE_FOREIGN},
    {NULL, NULL, NQ_OK},
};

static void run_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

START_TEST(refusals_by_row)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    nq_store *s = NULL;
    char err[256];
    if (refusals[_i].sql) {
        run_sql(t.path, refusals[_i].sql);
    } else {
        make_closed_store(&t);
        if (refusals[_i].extra) run_sql(t.path, refusals[_i].extra);
    }
    const nq_err rc = nq_store_open(t.path, &s, err, sizeof err);
    ck_assert_msg(rc == refusals[_i].want, "row %d: %s (%s)", _i, nq_error_name(rc), err);
    if (rc == NQ_OK)
        nq_store_close(s);
    else
        ck_assert_ptr_nonnull(strstr(err, t.path)); /* the message names the file */
    tmp_remove(&t);
}
END_TEST

/* The bytes of path (at most cap), or -1 when it does not exist. */
static long read_all(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    const size_t len = fread(buf, 1, cap, f);
    fclose(f);
    return (long)len;
}

/* A store refused with a write-ahead log left over (a crash) keeps the log and its main file as they
 * were: closing the inspecting connection must not fold the log in. */
START_TEST(refused_store_keeps_its_log)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    make_closed_store(&t);
    nq_store *s = NULL;
    char err[256];
    sqlite3 *db = NULL; /* a later release's write, left in the log as by a crash */
    ck_assert_int_eq(sqlite3_open(t.path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO nq_schema VALUES (99, 0)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    char wal[128];
    snprintf(wal, sizeof wal, "%s-wal", t.path);
    static char main0[1 << 16], main1[1 << 16], log0[1 << 16], log1[1 << 16];
    const long m0 = read_all(t.path, main0, sizeof main0), l0 = read_all(wal, log0, sizeof log0);
    ck_assert_int_gt(l0, 0);
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_E_STORE_NEWER);
    const long m1 = read_all(t.path, main1, sizeof main1), l1 = read_all(wal, log1, sizeof log1);
    ck_assert_int_eq(m1, m0);
    ck_assert_mem_eq(main1, main0, (size_t)m0);
    ck_assert_int_eq(l1, l0);
    ck_assert_mem_eq(log1, log0, (size_t)l0);
    tmp_remove(&t);
}
END_TEST

/* Run check(path) in a child process that cannot write what root could: as root it becomes nobody
 * (permissions bind only others). Passes when the child does. */
static void as_unprivileged(void (*check)(const char *), const char *path)
{
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(3);
        check(path);
        _exit(0);
    }
    int ws = 0;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "child status %d", ws);
}

/* In the child: the open must fail with NQ_E_STORE_IO saying want. Exits non-zero otherwise. */
static void refused_as_io(const char *path, const char *want)
{
    nq_store *s = NULL;
    char err[512] = "";
    const nq_err rc = nq_store_open(path, &s, err, sizeof err);
    if (rc != NQ_E_STORE_IO || !strstr(err, want) || !strstr(err, path)) {
        fprintf(stderr, "open: %s (%s), wanted NQ_E_STORE_IO saying \"%s\"\n", nq_error_name(rc), err, want);
        _exit(1);
    }
}

static void refused_read_only(const char *path)
{
    refused_as_io(path, "read-only");
}

static void refused_unreadable(const char *path)
{
    refused_as_io(path, "check the permissions");
}

/* A write-protected file: SQLite would open it read-only, and every count's write would then fail
 * until a restart. Refused at the start instead. */
START_TEST(write_protected_store_is_refused)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    make_closed_store(&t);
    ck_assert_int_eq(chmod(t.dir, 0755), 0);
    ck_assert_int_eq(chmod(t.path, 0444), 0);
    as_unprivileged(refused_read_only, t.path);
    tmp_remove(&t);
}
END_TEST

/* A writable store in a directory that is not: its write-ahead log's files cannot be made, so it
 * cannot be read. That is a matter of permissions, not a damaged file. */
START_TEST(store_in_read_only_directory_is_not_called_damaged)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    make_closed_store(&t);
    if (geteuid() == 0) ck_assert_int_eq(chown(t.path, 65534, 65534), 0);
    ck_assert_int_eq(chmod(t.dir, 0555), 0);
    as_unprivileged(refused_unreadable, t.path);
    ck_assert_int_eq(chmod(t.dir, 0700), 0);
    tmp_remove(&t);
}
END_TEST

/* ---- rows changed behind the store's back (a bit flipped on disk, a hand edit) ------------------- */

typedef struct seen {
    int counts[28];      /* rows passed on, by n */
    int checkpoints[28]; /* checkpoint rows passed on, by n */
    int damaged;         /* rows reported damaged */
    int damaged_n;       /* the n of the last one */
} seen;

static bool seen_count(void *arg, const nq_store_count *c)
{
    ((seen *)arg)->counts[c->n]++;
    return true;
}

static bool seen_checkpoint(void *arg, const nq_store_checkpoint *cp)
{
    ((seen *)arg)->checkpoints[cp->n]++;
    return true;
}

static void seen_damaged(void *arg, int n, bool checkpoint)
{
    (void)checkpoint;
    seen *w = arg;
    w->damaged++;
    w->damaged_n = n;
}

/* Rows: an edit of a stored row; every one must read as damaged, never as a row. */
static const char *const edits[] = {
    "UPDATE counts SET total = total + 1 WHERE n = 13", /* one bit: 73712 -> 73713 */
    "UPDATE counts SET finished_at = finished_at + 1 WHERE n = 13",
    "UPDATE counts SET total = -3 WHERE n = 13",
    "UPDATE counts SET uniq = '9233x' WHERE n = 13",
    "UPDATE counts SET seconds = seconds + 1 WHERE n = 13",
    "UPDATE counts SET chk = NULL WHERE n = 13",
    "UPDATE checkpoints SET total = total + 2 WHERE n = 17",
    "UPDATE checkpoints SET done = zeroblob(5) WHERE n = 17",
    "UPDATE checkpoints SET elapsed_s = 0 WHERE n = 17",
};

START_TEST(damaged_rows_are_reported_not_read)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    nq_store *s = NULL;
    char err[256];
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_OK);
    const uint8_t done[5] = {1, 0, 1, 1, 0};
    const nq_store_checkpoint cp = {17, NQ_COUNT_PLAN_VERSION, 5, done, {1000, 2000}, 12.5, 1700000000};
    ck_assert_int_eq(nq_store_put_checkpoint(s, &cp), NQ_OK);
    const nq_store_count c13 = {13, {73712, 9233}, 3.25, 1700000100}, c8 = {8, {92, 12}, 0.5, 1700000000};
    ck_assert_int_eq(nq_store_put_count(s, &c13), NQ_OK);
    ck_assert_int_eq(nq_store_put_count(s, &c8), NQ_OK);
    nq_store_close(s);
    run_sql(t.path, edits[_i]);
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_OK);
    seen w;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(nq_store_each_count(s, seen_count, seen_damaged, &w), NQ_OK);
    ck_assert_int_eq(nq_store_each_checkpoint(s, seen_checkpoint, seen_damaged, &w), NQ_OK);
    const bool of_checkpoint = strstr(edits[_i], "checkpoints") != NULL;
    ck_assert_msg(w.damaged == 1, "%s: %d damaged", edits[_i], w.damaged);
    ck_assert_int_eq(w.damaged_n, of_checkpoint ? 17 : 13);
    ck_assert_int_eq(w.counts[13], of_checkpoint ? 1 : 0);
    ck_assert_int_eq(w.checkpoints[17], of_checkpoint ? 0 : 1);
    ck_assert_int_eq(w.counts[8], 1); /* the others are read as ever */
    /* A write of the same n replaces the damaged row with a good one. */
    ck_assert_int_eq(nq_store_put_count(s, &c13), NQ_OK);
    ck_assert_int_eq(nq_store_put_checkpoint(s, &cp), NQ_OK);
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(nq_store_each_count(s, seen_count, seen_damaged, &w), NQ_OK);
    ck_assert_int_eq(nq_store_each_checkpoint(s, seen_checkpoint, seen_damaged, &w), NQ_OK);
    ck_assert_int_eq(w.damaged, 0);
    ck_assert_int_eq(w.counts[13], 1);
    nq_store_close(s);
    tmp_remove(&t);
}
END_TEST

/* ---- upgrades --------------------------------------------------------------------------------------- */

/* A store as the release before check values wrote it (schema 1), with a finished count and a
 * running count's checkpoint: it opens, is migrated to this release's schema in place, and its rows
 * read back good. */
START_TEST(schema_1_store_upgrades_and_reads_back)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    run_sql(t.path,
            "PRAGMA journal_mode=WAL; PRAGMA application_id = 1313953093;"
            "CREATE TABLE nq_schema(version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL);"
            "CREATE TABLE counts(n INTEGER PRIMARY KEY, total INTEGER NOT NULL, uniq INTEGER NOT NULL, "
            "seconds REAL NOT NULL, finished_at INTEGER NOT NULL);"
            "CREATE TABLE checkpoints(n INTEGER PRIMARY KEY, plan INTEGER NOT NULL, tasks INTEGER NOT NULL, "
            "done BLOB NOT NULL, total INTEGER NOT NULL, burnside INTEGER NOT NULL, elapsed_s REAL NOT NULL, "
            "started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);"
            "INSERT INTO nq_schema VALUES (1, 1700000000);"
            "INSERT INTO counts VALUES (13, 73712, 9233, 3.25, 1700000100);"
            "INSERT INTO checkpoints VALUES (17, 5, 5, x'0100010100', 1000, 2000, 12.5, 1700000000, 1700000001);");
    nq_store *s = NULL;
    char err[256];
    ck_assert_msg(nq_store_open(t.path, &s, err, sizeof err) == NQ_OK, "%s", err);
    seen w;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(nq_store_each_count(s, seen_count, seen_damaged, &w), NQ_OK);
    ck_assert_int_eq(nq_store_each_checkpoint(s, seen_checkpoint, seen_damaged, &w), NQ_OK);
    ck_assert_int_eq(w.damaged, 0);
    ck_assert_int_eq(w.counts[13], 1);
    ck_assert_int_eq(w.checkpoints[17], 1);
    nq_store_close(s);
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(t.path, &db), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT max(version) FROM nq_schema", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(st, 0), NQ_STORE_SCHEMA_VERSION);
    sqlite3_finalize(st);
    sqlite3_close(db);
    tmp_remove(&t);
}
END_TEST

/* ---- files refused without a trace ------------------------------------------------------------------ */

/* An nqueens store (its id, its schema row) whose tables are not its schema's is refused as damaged
 * before anything is written: the file keeps its bytes (its journal mode too), no -wal or -shm is
 * left beside it. */
START_TEST(store_with_wrong_tables_is_refused_untouched)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    run_sql(t.path, "PRAGMA application_id = 1313953093;"
                    "CREATE TABLE nq_schema(version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL);"
                    "INSERT INTO nq_schema VALUES (1, 0); CREATE TABLE counts(x);");
    static char before[1 << 16], after[1 << 16];
    const long len0 = read_all(t.path, before, sizeof before);
    nq_store *s = NULL;
    char err[512];
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_E_STORE_CORRUPT);
    ck_assert_msg(strstr(err, "damaged") && strstr(err, t.path), "%s", err);
    ck_assert_int_eq(read_all(t.path, after, sizeof after), len0);
    ck_assert_mem_eq(before, after, (size_t)len0);
    char side[128];
    snprintf(side, sizeof side, "%s-wal", t.path);
    ck_assert_int_eq(access(side, F_OK), -1);
    snprintf(side, sizeof side, "%s-shm", t.path);
    ck_assert_int_eq(access(side, F_OK), -1);
    tmp_remove(&t);
}
END_TEST

/* A FIFO as the store: refused at once (an open for reading would wait for a writer, for ever). */
START_TEST(fifo_is_refused_without_blocking)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    ck_assert_int_eq(mkfifo(t.path, 0644), 0);
    alarm(10); /* the old open hung here: fail rather than hang */
    nq_store *s = NULL;
    char err[512];
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_E_STORE_IO);
    alarm(0);
    ck_assert_msg(strstr(err, "a FIFO, not a regular file"), "%s", err);
    ck_assert_int_eq(nq_store_open(t.dir, &s, err, sizeof err), NQ_E_STORE_IO); /* a directory */
    tmp_remove(&t);
}
END_TEST

/* In the child: the open must fail with NQ_E_STORE_IO naming the -wal and -shm files. */
static void refused_unwritable_log(const char *path)
{
    refused_as_io(path, "-wal and -shm");
}

/* After a kill -9 of a server run as root, the log and its index are root's (0644) while the store is
 * the user's: SQLite reads it, every write would fail. Refused at the open. */
START_TEST(store_with_foreign_log_is_refused)
{
    if (geteuid() != 0) {
        fprintf(stderr, "store_with_foreign_log_is_refused: skipped (needs root to make root's files)\n");
        return;
    }
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    make_closed_store(&t);
    const pid_t pid = fork(); /* a writer that dies without closing: its -wal and -shm stay */
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        sqlite3 *db = NULL;
        if (sqlite3_open(t.path, &db) != SQLITE_OK ||
            sqlite3_exec(db, "INSERT INTO nq_schema VALUES (99, 0); DELETE FROM nq_schema WHERE version = 99", NULL,
                         NULL, NULL) != SQLITE_OK)
            _exit(1);
        _exit(0);
    }
    int ws = 0;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    char side[128];
    snprintf(side, sizeof side, "%s-wal", t.path);
    ck_assert_int_eq(access(side, F_OK), 0);
    ck_assert_int_eq(chmod(side, 0644), 0);
    snprintf(side, sizeof side, "%s-shm", t.path);
    ck_assert_int_eq(chmod(side, 0644), 0);
    ck_assert_int_eq(chown(t.path, 65534, 65534), 0);
    ck_assert_int_eq(chown(t.dir, 65534, 65534), 0);
    as_unprivileged(refused_unwritable_log, t.path);
    tmp_remove(&t);
}
END_TEST

/* ---- a small volume ---------------------------------------------------------------------------------- */

/* The bytes of path's -wal, 0 when there is none. */
static long wal_bytes(const char *path)
{
    char wal[128];
    snprintf(wal, sizeof wal, "%s-wal", path);
    struct stat st;
    return stat(wal, &st) == 0 ? (long)st.st_size : 0;
}

#define WAL_LIMIT (512L * 1024L) /* docs/store.md: the log stays under 512 KiB */

/* n = 19's checkpoint, written 400 times (every 50 ms for 20 s): the log stays under its limit (it
 * grew by 8 pages a write, to 4 MB, before SQLite's default checkpoint at 1000 pages). */
START_TEST(log_stays_bounded)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    nq_store *s = NULL;
    char err[256];
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_OK);
    static uint8_t done[26370];
    long most = 0;
    for (int i = 0; i < 400; i++) {
        done[((size_t)i * 977u) % sizeof done] = 1;
        const nq_store_checkpoint cp = {19, NQ_COUNT_PLAN_VERSION, sizeof done, done, {0, 0}, i, 1700000000};
        ck_assert_int_eq(nq_store_put_checkpoint(s, &cp), NQ_OK);
        const long w = wal_bytes(t.path);
        most = w > most ? w : most;
    }
    fprintf(stderr, "log_stays_bounded: the log reached %ld bytes (limit %ld)\n", most, WAL_LIMIT);
    ck_assert_int_le(most, WAL_LIMIT);
    nq_store_close(s);
    tmp_remove(&t);
}
END_TEST

/* Mount a tmpfs of size on dir, in a mount namespace of this test's own (it runs in a forked child).
 * Needs root (CI runs as root): without it, says test is skipped and returns false. */
static bool small_disk(const char *dir, const char *size, const char *test)
{
    char options[32];
    snprintf(options, sizeof options, "size=%s", size);
    if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
        mount("tmpfs", dir, "tmpfs", 0, options) == 0)
        return true;
    fprintf(stderr, "%s: skipped (no mount namespace: %s)\n", test, strerror(errno));
    return false;
}

/* Fill the file system of dir but `spare` bytes with a filler file (its path into filler). */
static void fill_but(const char *dir, long spare, char *filler, size_t cap)
{
    snprintf(filler, cap, "%s/filler", dir);
    const int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    static char block[4096];
    while (write(fd, block, sizeof block) > 0) {
    }
    ck_assert_int_eq(errno, ENOSPC);
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    ck_assert_int_eq(ftruncate(fd, st.st_size > spare ? st.st_size - spare : 0), 0);
    close(fd);
}

/* Fold the log of path into its file and truncate it to nothing, from a second connection: the
 * state after a write failed for want of space, when the next write needs the most new room. */
static void truncate_log(const char *path)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    ck_assert_int_eq(wal_bytes(path), 0);
}

/* The store alone on a 512 KiB volume (n = 19 checkpointed every 50 ms):
 * 400 checkpoints of n = 19 leave it room. Then, with the volume full but for STORE_SPARE_BYTES
 * (docs/store.md's minimum; 24 KiB was measured to be enough) and the log truncated to nothing (the
 * worst case), two counts finish: both are stored, and read back after a reopen. */
#define STORE_SPARE_BYTES (32L * 1024)
START_TEST(small_volume_keeps_every_finished_count)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    if (!small_disk(t.dir, "512k", "small_volume_keeps_every_finished_count")) {
        tmp_remove(&t);
        return;
    }
    nq_store *s = NULL;
    char err[256];
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_OK);
    static uint8_t done[26370];
    for (int i = 0; i < 400; i++) {
        done[((size_t)i * 977u) % sizeof done] = 1;
        const nq_store_checkpoint cp = {19, NQ_COUNT_PLAN_VERSION, sizeof done, done, {0, 0}, i, 1700000000};
        ck_assert_msg(nq_store_put_checkpoint(s, &cp) == NQ_OK, "checkpoint %d failed", i);
    }
    const nq_store_checkpoint cp18 = {18, NQ_COUNT_PLAN_VERSION, 16000, done, {0, 0}, 1, 1700000000};
    ck_assert_int_eq(nq_store_put_checkpoint(s, &cp18), NQ_OK);
    truncate_log(t.path);
    char filler[128];
    fill_but(t.dir, STORE_SPARE_BYTES, filler, sizeof filler);
    const nq_store_count c19 = {19, {4968057848, 621012754}, 8.0, 1700000100};
    ck_assert_int_eq(nq_store_put_count(s, &c19), NQ_OK);
    const nq_store_count c18 = {18, {666090624, 83263591}, 2.0, 1700000200};
    ck_assert_int_eq(nq_store_put_count(s, &c18), NQ_OK);
    nq_store_close(s);
    ck_assert_int_eq(unlink(filler), 0);
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_OK);
    seen w;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(nq_store_each_count(s, seen_count, seen_damaged, &w), NQ_OK);
    ck_assert_int_eq(nq_store_each_checkpoint(s, seen_checkpoint, seen_damaged, &w), NQ_OK);
    ck_assert_int_eq(w.counts[19] + w.counts[18], 2);
    ck_assert_int_eq(w.checkpoints[19] + w.checkpoints[18] + w.damaged, 0);
    nq_store_close(s);
    ck_assert_int_eq(umount(t.dir), 0);
    tmp_remove(&t);
}
END_TEST

/* An existing store on a volume that has filled up since is refused as full, not as a matter of
 * permissions: reading it needs room for its -wal and -shm. */
START_TEST(full_volume_is_named_at_open)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    if (!small_disk(t.dir, "256k", "full_volume_is_named_at_open")) {
        tmp_remove(&t);
        return;
    }
    make_closed_store(&t);
    char filler[128];
    fill_but(t.dir, 0, filler, sizeof filler);
    nq_store *s = NULL;
    char err[512];
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_E_STORE_FULL);
    ck_assert_msg(strstr(err, "disk is full") && !strstr(err, "permissions"), "%s", err);
    ck_assert_int_eq(unlink(filler), 0);
    ck_assert_int_eq(umount(t.dir), 0);
    tmp_remove(&t);
}
END_TEST

/* ---- what the long-count service makes of what it reads ---------------------------------------------- */

typedef struct events {
    char log[4096]; /* "msg/n;" for each event */
} events;

static void keep_event(void *ctx, const nq_event *e)
{
    events *ev = ctx;
    const size_t len = strlen(ev->log);
    snprintf(ev->log + len, sizeof ev->log - len, "%s/%d;", e->msg, e->n);
}

/* A store whose rows pass their check but hold what cannot be: a count that is not A000170's (a row
 * an older release stored damaged, blessed by the upgrade), and a checkpoint of an n this server now
 * answers within a request (--long-count-n raised across a restart). Neither is served nor resumed:
 * n = 13 is counted again when asked, and n = 14 is not listed as running. */
START_TEST(jobs_hold_the_store_against_what_is_known)
{
    tmp_store t = {{0}, {0}};
    tmp_make(&t);
    nq_store *s = NULL;
    char err[256];
    ck_assert_int_eq(nq_store_open(t.path, &s, err, sizeof err), NQ_OK);
    const nq_store_count bad13 = {13, {73713, 9233}, 3.0, 1700000100}, good8 = {8, {92, 12}, 0.1, 1700000000};
    ck_assert_int_eq(nq_store_put_count(s, &bad13), NQ_OK);
    ck_assert_int_eq(nq_store_put_count(s, &good8), NQ_OK);
    uint32_t tasks = 0;
    ck_assert_int_eq(nq_count_plan(14, &tasks), NQ_OK);
    uint8_t *done = calloc(tasks, 1);
    const nq_store_checkpoint cp14 = {14, NQ_COUNT_PLAN_VERSION, tasks, done, {0, 0}, 1.0, 1700000000};
    ck_assert_int_eq(nq_store_put_checkpoint(s, &cp14), NQ_OK);
    free(done);
    nq_config cfg;
    nq_config_defaults(&cfg);
    cfg.long_count_n = 15; /* was 13 or 14 when 14's checkpoint was made */
    events ev = {{0}};
    const nq_event_sink sink = {keep_event, &ev};
    nq_count_jobs *j = NULL;
    ck_assert_int_eq(nq_count_jobs_create(&cfg, NULL, s, &sink, &j), NQ_OK);
    nq_job_view v;
    nq_count_jobs_view(j, 13, &v);
    ck_assert_int_eq(v.state, NQ_JOB_NONE);
    nq_count_jobs_view(j, 14, &v);
    ck_assert_int_eq(v.state, NQ_JOB_NONE);
    nq_count_jobs_view(j, 8, &v);
    ck_assert_int_eq(v.state, NQ_JOB_DONE);
    nq_job_view list[28];
    ck_assert_uint_eq(nq_count_jobs_list(j, list, 28), 1);
    nq_count_jobs_stats st;
    nq_count_jobs_stats_get(j, &st);
    ck_assert_uint_eq(st.resumed, 0);
    ck_assert_msg(strstr(ev.log, "stored count ignored (not the known count of its n); counted again when asked/13;"),
                  "%s", ev.log);
    ck_assert_msg(strstr(ev.log, "checkpoint not resumed (n is below --long-count-n: counted when asked)/14;"), "%s",
                  ev.log);
    nq_count_jobs_destroy(j);
    nq_store_close(s);
    tmp_remove(&t);
}
END_TEST

START_TEST(bad_arguments)
{
    nq_store *s = NULL;
    ck_assert_int_eq(nq_store_open(NULL, &s, NULL, 0), NQ_E_ARG);
    ck_assert_int_eq(nq_store_open("", &s, NULL, 0), NQ_E_ARG);
    ck_assert_int_eq(nq_store_put_count(NULL, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_store_put_checkpoint(NULL, NULL), NQ_E_ARG);
    char err[256];
    ck_assert_int_eq(nq_store_open("/nonexistent-dir/s.db", &s, err, sizeof err), NQ_E_STORE_IO);
    ck_assert_uint_eq(nq_store_bytes(NULL), 0);
    nq_store_close(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, round_trip_across_a_reopen);
    tcase_add_loop_test(tc, refusals_by_row, 0, (int)(sizeof refusals / sizeof refusals[0]));
    tcase_add_test(tc, refused_store_keeps_its_log);
    tcase_add_test(tc, write_protected_store_is_refused);
    tcase_add_test(tc, store_in_read_only_directory_is_not_called_damaged);
    tcase_add_test(tc, bad_arguments);
    tcase_add_loop_test(tc, damaged_rows_are_reported_not_read, 0, (int)(sizeof edits / sizeof edits[0]));
    tcase_add_test(tc, schema_1_store_upgrades_and_reads_back);
    tcase_add_test(tc, store_with_wrong_tables_is_refused_untouched);
    tcase_add_test(tc, fifo_is_refused_without_blocking);
    tcase_add_test(tc, store_with_foreign_log_is_refused);
    tcase_add_test(tc, jobs_hold_the_store_against_what_is_known);
    suite_add_tcase(s, tc);
    tc = tcase_create("volume"); /* seconds of fsync on a loaded machine */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, log_stays_bounded);
    tcase_add_test(tc, small_volume_keeps_every_finished_count);
    tcase_add_test(tc, full_volume_is_named_at_open);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
