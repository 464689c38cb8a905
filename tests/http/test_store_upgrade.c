/* test_store_upgrade.c - a store file of the release before counts in blocks (schema 2: check values)
 * holding a running count's checkpoint, opened by nqueensd as a process: it upgrades the file in
 * place (schema 3), resumes the count with the tasks the checkpoint had done (its progress starts
 * there, never below) and finishes it with the exact total (OEIS A000170, A002562).
 *
 * The file is made here with the statements that release ran: its schema 1 tables, its migration to
 * 2 (a check value column filled by nq_check, an SQL function of its connection, registered here as
 * it did: SipHash-2-4 under its fixed key over each argument's type and value), its schema rows and
 * its checkpoint insert. The done tasks' sums are counted here by the library, so the sums it holds
 * are the true ones: a total off by one task would fail the count's check and be counted again.
 *
 * The schema text repeats store/sqlite.c's older statements on purpose: it is what files written by
 * that release hold, so it must stay as that release wrote it even when sqlite.c's own text changes.
 */
#define _GNU_SOURCE /* mkdtemp */
#include <check.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hash.h"
#include "check_json.h"
#include "check_run.h"
#include "harness.h"
#include "nqueens/solver.h"

#define N 13
#define TARGET "/count?n=13"
#define COUNT_13 "{\"n\":13,\"total\":73712,\"unique\":9233}" /* OEIS A000170, A002562 */
#define COUNT_8 "{\"n\":8,\"total\":92,\"unique\":12}"
#define APPLICATION_ID 1313953093    /* the store's PRAGMA application_id */
#define CHECK_KEY "nqueens store v2" /* schema 2's nq_check key (16 bytes) */
#define CHECK_ARGS_MAX 8

/* Schema 2's nq_check(v1, ...): each argument's SQLite type and 8 bytes (an integer's two's
 * complement, a real's bits, a blob's or text's own hash), hashed. */
static void check_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    ck_assert_int_le(argc, CHECK_ARGS_MAX);
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
            const void *bytes = sqlite3_value_blob(argv[i]);
            v = nq_hash_bytes(&key, bytes, (size_t)sqlite3_value_bytes(argv[i]));
        }
        buf[len++] = (unsigned char)type;
        for (int b = 0; b < 8; b++) buf[len++] = (unsigned char)(v >> (8 * b));
    }
    sqlite3_result_int64(ctx, (sqlite3_int64)nq_hash_bytes(&key, buf, len));
}

static void exec_sql(sqlite3 *db, const char *sql)
{
    char *why = NULL;
    ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &why) == SQLITE_OK, "%s: %s", sql, why ? why : "");
}

/* The schema 2 store at path: n = 8 finished, n = 13 running with its first `done` tasks counted. */
static void make_schema_2_store(const char *path, uint32_t tasks, uint32_t done)
{
    uint8_t *bits = calloc(tasks, 1);
    ck_assert_ptr_nonnull(bits);
    memset(bits, 1, done);
    nq_count_sums sums = {0, 0};
    ck_assert_int_eq(nq_count_tasks_sum(N, 1, bits, NULL, &sums), NQ_OK);
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_create_function_v2(db, "nq_check", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, check_fn,
                                                NULL, NULL, NULL),
                     SQLITE_OK);
    char sql[256];
    snprintf(sql, sizeof sql, "PRAGMA journal_mode=WAL; PRAGMA application_id = %d;", APPLICATION_ID);
    exec_sql(db, sql);
    exec_sql(db, "BEGIN IMMEDIATE;"
                 "CREATE TABLE nq_schema(version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL);"
                 /* migration 1 */
                 "CREATE TABLE counts(n INTEGER PRIMARY KEY, total INTEGER NOT NULL, uniq INTEGER NOT NULL, "
                 "seconds REAL NOT NULL, finished_at INTEGER NOT NULL);"
                 "CREATE TABLE checkpoints(n INTEGER PRIMARY KEY, plan INTEGER NOT NULL, tasks INTEGER NOT NULL, "
                 "done BLOB NOT NULL, total INTEGER NOT NULL, burnside INTEGER NOT NULL, elapsed_s REAL NOT NULL, "
                 "started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);"
                 "INSERT INTO nq_schema VALUES (1, 1700000000);"
                 /* migration 2 */
                 "ALTER TABLE counts ADD COLUMN chk INTEGER;"
                 "UPDATE counts SET chk = nq_check(n, total, uniq, seconds, finished_at);"
                 "ALTER TABLE checkpoints ADD COLUMN chk INTEGER;"
                 "UPDATE checkpoints SET chk = nq_check(n, plan, tasks, done, total, burnside, elapsed_s, started_at);"
                 "INSERT INTO nq_schema VALUES (2, 1700000000);"
                 "COMMIT;");
    /* its PUT_COUNT and PUT_CHECKPOINT */
    exec_sql(db, "INSERT OR REPLACE INTO counts(n, total, uniq, seconds, finished_at, chk) VALUES (8, 92, 12, 0.25, "
                 "1700000100, nq_check(8, 92, 12, 0.25, 1700000100))");
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db,
                                        "INSERT OR REPLACE INTO checkpoints(n, plan, tasks, done, total, burnside, "
                                        "elapsed_s, started_at, updated_at, chk) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, "
                                        "?8, ?9, nq_check(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8))",
                                        -1, &st, NULL),
                     SQLITE_OK);
    sqlite3_bind_int(st, 1, N);
    sqlite3_bind_int64(st, 2, NQ_COUNT_PLAN_VERSION);
    sqlite3_bind_int64(st, 3, tasks);
    sqlite3_bind_blob(st, 4, bits, (int)tasks, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 5, (sqlite3_int64)sums.total);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)sums.burnside);
    sqlite3_bind_double(st, 7, 1.5);
    sqlite3_bind_int64(st, 8, 1700000000);
    sqlite3_bind_int64(st, 9, 1700000001);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    ck_assert_int_eq(sqlite3_close(db), SQLITE_OK);
    free(bits);
}

static int64_t query_int(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    const int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void start(nq_test_server *s, const char *store)
{
    const char *const args[] = {"--store",
                                store,
                                "--long-count-n",
                                "13",
                                "--count-threads",
                                "1",
                                "--count-task-delay-ms",
                                "5",
                                "--checkpoint-ms",
                                "100",
                                "--grace-s",
                                "5",
                                NULL};
    ck_assert_msg(nq_harness_start(s, args, NULL), "nqueensd did not start");
}

START_TEST(a_schema_2_store_with_a_running_count_upgrades_resumes_and_finishes)
{
    char dir[64] = "/tmp/nq-upgrade-XXXXXX", store[96];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(store, sizeof store, "%s/store.db", dir);
    uint32_t tasks = 0;
    ck_assert_int_eq(nq_count_plan(N, &tasks), NQ_OK);
    ck_assert_uint_eq(tasks, 545);
    const uint32_t done = 300; /* of 545: the checkpoint's progress is 0.55 */
    make_schema_2_store(store, tasks, done);
    nq_test_server s;
    start(&s, store);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_resumed_total"), 1.0);
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=8", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_8);
    nq_http_response_free(&r);
    /* Resumed from the checkpoint's tasks: its progress never below what they make. */
    const double floor0 = (double)done / (double)tasks;
    double floor = floor0;
    const char *const async[] = {"Prefer: respond-async", NULL};
    bool finished = false;
    for (int i = 0; i < 6000 && !finished; i++) {
        ck_assert(nq_http_request(&s, "GET", TARGET, async, &r));
        if (r.status == 200) {
            ck_assert_str_eq(r.body, COUNT_13);
            finished = true;
        } else {
            ck_assert_int_eq(r.status, 202);
            cJSON *j = cJSON_Parse(r.body);
            ck_assert_ptr_nonnull(j);
            const double p = nq_check_json_num(j, "progress");
            cJSON_Delete(j);
            ck_assert_msg(p >= floor - 1e-9, "progress %f below %f", p, floor);
            floor = p;
            nq_harness_sleep_ms(40);
        }
        nq_http_response_free(&r);
    }
    ck_assert(finished);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
    /* The file is at this release's schema, the checkpoint gone into the finished count. */
    ck_assert_int_eq(query_int(store, "SELECT max(version) FROM nq_schema"), 3);
    ck_assert_int_eq(query_int(store, "SELECT count(*) FROM checkpoints"), 0);
    ck_assert_int_eq(query_int(store, "SELECT total FROM counts WHERE n = 13"), 73712);
    /* Started again: both counts served from the store, nothing to resume. */
    start(&s, store);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_finished"), 2.0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_resumed_total"), 0.0);
    ck_assert(nq_http_get(&s, TARGET, &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_13);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *upgrade_suite(void)
{
    Suite *s = suite_create("store_upgrade");
    TCase *tc = tcase_create("store_upgrade");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, a_schema_2_store_with_a_running_count_upgrades_resumes_and_finishes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(upgrade_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
