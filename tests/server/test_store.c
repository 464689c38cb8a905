/* test_store.c - the store module: what it writes it reads back, across a reopen; what it must refuse,
 * it refuses. (The server around it, restarts and kill -9 are tests/http/test_store.c.) */
#define _GNU_SOURCE /* mkdtemp */
#include <check.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/errors.h"
#include "check_run.h"
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
    ck_assert_int_eq(nq_store_each_count(s, collect_count, got), NQ_OK);
    ck_assert_uint_eq(got[13].counts.total, 73712);
    ck_assert_uint_eq(got[13].counts.unique, 9233);
    ck_assert(got[13].seconds == 3.25);
    ck_assert_int_eq(got[13].finished_at, 1700000100);
    ck_assert_uint_eq(got[27].counts.total, 234907967154122528ULL);
    ck_assert_uint_eq(got[27].counts.unique, 29363495934315694ULL);
    uint8_t back[5] = {9, 9, 9, 9, 9};
    ck_assert_int_eq(nq_store_each_checkpoint(s, collect_checkpoint, back), NQ_OK); /* only n = 17 left */
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
    {NULL, "INSERT INTO nq_schema VALUES (2, 0)", NQ_E_STORE_NEWER},
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
    ck_assert_int_eq(sqlite3_exec(db, "INSERT INTO nq_schema VALUES (2, 0)", NULL, NULL, NULL), SQLITE_OK);
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
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
