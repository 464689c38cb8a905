/* test_replicas.c - several nqueensd on one PostgreSQL database are one long-count service: one count
 * registered once, progress that never falls whichever replica is asked, the same bytes and ETag
 * from each once done, and the exact total (OEIS A000170) after a replica is killed (kill -9) or
 * stalled (SIGSTOP) half way through, and after the database itself was stopped and started.
 *
 * The database: NQ_TEST_PG (a libpq connection string; scripts/test.sh starts a throwaway server
 * with scripts/pg_test_server.sh). Each test makes a database of its own in it, so tests never see
 * each other's counts. The test that stops the database starts a cluster of its own with the same
 * script. Without NQ_TEST_PG (a developer's run) every test says it is skipped.
 *
 * Slowness is made, not hoped for: --count-task-delay-ms with --count-threads 1 makes each task of
 * n = 16 (3 300 tasks, 8 blocks of 413) wait, so a count takes seconds whatever the machine. Leases
 * are short (--lease-ms 1000) so that a take-over comes within seconds. No assertion bounds a
 * duration from above.
 */
#define _GNU_SOURCE /* strdup, kill */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_json.h"
#include "check_run.h"
#include "harness.h"
#include "pg/pg_fixture.h"

#define N 16
#define TARGET "/count?n=16"
#define COUNT_16 "{\"n\":16,\"total\":14772512,\"unique\":1846955}" /* OEIS A000170, A002562 */
#define BLOCKS_16 8.0                                               /* 3 300 tasks in blocks of 413 */
#define REPLICAS_MAX 3

/* ---- the database --------------------------------------------------------------------------------- */

/* ---- replicas --------------------------------------------------------------------------------------- */

static void start_replica_leased(nq_test_server *s, const char *conn, const char *delay_ms, const char *lease_ms)
{
    const char *args[] = {"--store",
                          conn,
                          "--long-count-n",
                          "16",
                          "--count-threads",
                          "1",
                          "--count-task-delay-ms",
                          delay_ms,
                          "--lease-ms",
                          lease_ms,
                          "--checkpoint-ms",
                          "200",
                          "--grace-s",
                          "5",
                          NULL};
    ck_assert_msg(nq_harness_start(s, args, NULL), "nqueensd did not start");
}

static void start_replica(nq_test_server *s, const char *conn, const char *delay_ms)
{
    start_replica_leased(s, conn, delay_ms, "1000");
}

static bool get_with(const nq_test_server *s, const char *target, const char *prefer, nq_http_response *r)
{
    char h[64];
    snprintf(h, sizeof h, "Prefer: %s", prefer);
    const char *const headers[] = {h, NULL};
    return nq_http_request(s, "GET", target, prefer ? headers : NULL, r);
}

/* A 202 for n = 16: its progress (and status in *running). */
static double progress_of(const nq_http_response *r, bool *running)
{
    ck_assert_int_eq(r->status, 202);
    cJSON *j = cJSON_Parse(r->body);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq((int)nq_check_json_num(j, "n"), N);
    const char *st = nq_check_json_str(j, "status");
    ck_assert(strcmp(st, "queued") == 0 || strcmp(st, "running") == 0);
    *running = strcmp(st, "running") == 0;
    const double p = nq_check_json_num(j, "progress");
    ck_assert(p >= 0.0 && p <= 1.0);
    cJSON_Delete(j);
    return p;
}

/* Poll the replicas in turn (respond-async) until every one answers 200: progress never falls from
 * one answer to the next, whichever replica gives it, and `hook` (may be NULL) runs once progress
 * reaches `at`. The 200s are the same bytes and ETag on every replica. */
static void poll_to_done(nq_test_server *r, size_t replicas, bool *alive, double at,
                         void (*hook)(nq_test_server *, size_t, bool *), char *etag, size_t etag_cap)
{
    double floor = 0.0;
    bool hooked = hook == NULL;
    size_t done = 0;
    etag[0] = '\0';
    for (int i = 0; i < 6000 && done < replicas; i++) {
        const size_t k = (size_t)i % replicas;
        if (!alive[k]) continue;
        nq_http_response resp;
        ck_assert(get_with(&r[k], TARGET, "respond-async", &resp));
        if (resp.status == 200) {
            ck_assert_str_eq(resp.body, COUNT_16);
            const char *tag = nq_http_header_get(&resp, "ETag");
            ck_assert_ptr_nonnull(tag);
            if (!etag[0]) snprintf(etag, etag_cap, "%s", tag);
            ck_assert_str_eq(tag, etag);
            floor = 1.0;
        } else {
            bool running = false;
            const double p = progress_of(&resp, &running);
            ck_assert_msg(p >= floor, "progress fell from %f to %f (replica %zu)", floor, p, k);
            floor = p;
            if (!hooked && p >= at) {
                hooked = true;
                hook(r, replicas, alive);
            }
        }
        nq_http_response_free(&resp);
        /* Done once a round of the live replicas all said 200. */
        if (floor == 1.0) {
            size_t ok = 0, live = 0;
            for (size_t m = 0; m < replicas; m++) {
                if (!alive[m]) continue;
                live++;
                nq_http_response again;
                ck_assert(nq_http_get(&r[m], TARGET, &again));
                const char *tag = nq_http_header_get(&again, "ETag");
                ck_assert_msg(again.status == 200 && strcmp(again.body, COUNT_16) == 0 && tag && strcmp(tag, etag) == 0,
                              "replica %zu: %ld %s (ETag %s, want %s)", m, again.status, again.body, tag ? tag : "none",
                              etag);
                ok++;
                nq_http_response_free(&again);
            }
            ck_assert_uint_eq(ok, live);
            done = replicas;
            break;
        }
        nq_harness_sleep_ms(40);
    }
    ck_assert_msg(done == replicas, "the count never finished");
}

/* /counts of each live replica: the same bytes, and one count of n = 16, done. */
static void counts_agree(nq_test_server *r, size_t replicas, const bool *alive)
{
    char *first = NULL;
    for (size_t k = 0; k < replicas; k++) {
        if (!alive[k]) continue;
        nq_http_response resp;
        ck_assert(nq_http_get(&r[k], "/counts", &resp));
        ck_assert_int_eq(resp.status, 200);
        if (!first) {
            first = strdup(resp.body);
            cJSON *j = cJSON_Parse(resp.body);
            const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "counts");
            ck_assert_int_eq(cJSON_GetArraySize(list), 1);
            const cJSON *only = cJSON_GetArrayItem(list, 0);
            ck_assert_int_eq((int)nq_check_json_num(only, "n"), N);
            ck_assert_str_eq(nq_check_json_str(only, "status"), "done");
            ck_assert(nq_check_json_num(only, "seconds") > 0);
            cJSON_Delete(j);
        } else {
            ck_assert_str_eq(resp.body, first);
        }
        nq_http_response_free(&resp);
    }
    free(first);
}

/* How many lines of replica s's log carry message msg. */
static int logged(const nq_test_server *s, const char *msg)
{
    char want[200];
    snprintf(want, sizeof want, "\"msg\":\"%s\"", msg);
    char *log = nq_harness_log(s);
    int c = 0;
    for (const char *p = log; p && (p = strstr(p, want)) != NULL; p += strlen(want)) c++;
    free(log);
    return c;
}

/* logged(s, msg) once it reaches want, or after timeout_s: a replica counts a lost block under its
 * lock and writes the line after it, so the figure can be read before the line is there. */
static int await_logged(const nq_test_server *s, const char *msg, int want, unsigned timeout_s)
{
    int c = logged(s, msg);
    for (unsigned i = 0; c < want && i < timeout_s * 20; i++) {
        nq_harness_sleep_ms(50);
        c = logged(s, msg);
    }
    return c;
}

static double metric_sum(nq_test_server *r, size_t replicas, const bool *alive, const char *name)
{
    double sum = 0;
    for (size_t k = 0; k < replicas; k++)
        if (alive[k]) sum += nq_harness_metric(&r[k], name);
    return sum;
}

static void stop_all(nq_test_server *r, size_t replicas, const bool *alive)
{
    for (size_t k = 0; k < replicas; k++)
        if (alive[k]) ck_assert_int_eq(nq_harness_stop(&r[k], SIGTERM, 30), 0);
}

/* ---- one count, many replicas ----------------------------------------------------------------------- */

/* `replicas` replicas on one database, asked in turn (poll_to_done): one count, progress that never
 * falls, the same 200 bytes and ETag and the same /counts bytes from each. */
static void replicas_count_one_n_together(const char *test, size_t replicas)
{
    char conn[512];
    if (!nq_pg_fresh_database(test, conn, sizeof conn)) return;
    nq_test_server r[REPLICAS_MAX];
    bool alive[REPLICAS_MAX];
    for (size_t k = 0; k < replicas; k++) {
        alive[k] = true;
        start_replica(&r[k], conn, "5");
    }
    char etag[64];
    poll_to_done(r, replicas, alive, 1.0, NULL, etag, sizeof etag);
    counts_agree(r, replicas, alive);
    /* Every block was finished once, by one replica or another (a finish after a lost lease is
     * refused, so even a stall of a loaded machine cannot make it twice). */
    ck_assert_double_eq(metric_sum(r, replicas, alive, "nqueensd_count_blocks_finished_total"), BLOCKS_16);
    /* The store's round trips by op: a finish for every block finished (and one for each refused
     * after a lost lease or tried again after a store error), a claim for every block claimed (and the
     * claims that found none), a registration, and reads. */
    for (size_t k = 0; k < replicas; k++) {
        const double finished = nq_harness_metric(&r[k], "nqueensd_count_blocks_finished_total");
        const double finishes = nq_harness_metric(&r[k], "nqueensd_store_call_seconds_count{op=\"finish\"}");
        ck_assert_double_ge(finishes, finished);
        ck_assert_double_le(finishes, finished + nq_harness_metric(&r[k], "nqueensd_count_blocks_lost_total") +
                                          nq_harness_metric(&r[k], "nqueensd_store_errors_total"));
        ck_assert_double_ge(nq_harness_metric(&r[k], "nqueensd_store_call_seconds_count{op=\"claim\"}"),
                            nq_harness_metric(&r[k], "nqueensd_count_blocks_claimed_total"));
        ck_assert_double_ge(nq_harness_metric(&r[k], "nqueensd_store_call_seconds_count{op=\"read\"}"), 1.0);
    }
    ck_assert_double_ge(metric_sum(r, replicas, alive, "nqueensd_store_call_seconds_count{op=\"register\"}"), 1.0);
    int starts = 0, finishes = 0;
    for (size_t k = 0; k < replicas; k++) {
        starts += logged(&r[k], "count starts");
        finishes += logged(&r[k], "count finished");
    }
    ck_assert_int_eq(starts, 1);
    ck_assert_int_eq(finishes, 1);
    stop_all(r, replicas, alive);
}

START_TEST(two_replicas_count_one_n_together)
{
    replicas_count_one_n_together("together", 2);
}
END_TEST

START_TEST(three_replicas_asked_in_turn_count_one_n_together)
{
    replicas_count_one_n_together("three", 3);
}
END_TEST

typedef struct ask {
    const nq_test_server *s;
    long status;
} ask;

static void *ask_async(void *arg)
{
    ask *a = arg;
    nq_http_response r;
    a->status = get_with(a->s, TARGET, "respond-async", &r) ? r.status : 0;
    nq_http_response_free(&r);
    return NULL;
}

/* Two replicas asked the same n at the same moment: one count, registered once. */
START_TEST(same_n_asked_of_two_replicas_at_once_is_one_count)
{
    char conn[512];
    if (!nq_pg_fresh_database("at_once", conn, sizeof conn)) return;
    nq_test_server r[2];
    bool alive[2] = {true, true};
    for (size_t k = 0; k < 2; k++) start_replica(&r[k], conn, "5");
    pthread_t t[2];
    ask a[2] = {{&r[0], 0}, {&r[1], 0}};
    for (size_t k = 0; k < 2; k++) ck_assert_int_eq(pthread_create(&t[k], NULL, ask_async, &a[k]), 0);
    for (size_t k = 0; k < 2; k++) pthread_join(t[k], NULL);
    ck_assert_int_eq(a[0].status, 202);
    ck_assert_int_eq(a[1].status, 202);
    /* One count: listed once, with one started_at, by both. */
    char started[2][32];
    for (size_t k = 0; k < 2; k++) {
        nq_http_response resp;
        ck_assert(nq_http_get(&r[k], "/counts", &resp));
        cJSON *j = cJSON_Parse(resp.body);
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "counts");
        ck_assert_int_eq(cJSON_GetArraySize(list), 1);
        const cJSON *only = cJSON_GetArrayItem(list, 0);
        const char *at = nq_check_json_str(only, "status");
        ck_assert(strcmp(at, "done") != 0);
        snprintf(started[k], sizeof started[k], "%s", nq_check_json_str(only, "started_at"));
        cJSON_Delete(j);
        nq_http_response_free(&resp);
    }
    ck_assert_str_eq(started[0], started[1]);
    ck_assert_int_eq(logged(&r[0], "count starts") + logged(&r[1], "count starts"), 1);
    char etag[64];
    poll_to_done(r, 2, alive, 1.0, NULL, etag, sizeof etag);
    counts_agree(r, 2, alive);
    stop_all(r, 2, alive);
}
END_TEST

/* ---- faults half way through ------------------------------------------------------------------------- */

/* The live replica holding a block now (claimed, neither finished nor lost), or the first live one. */
static size_t holder(nq_test_server *r, size_t replicas, const bool *alive)
{
    for (size_t k = 0; k < replicas; k++) {
        if (!alive[k]) continue;
        const double held = nq_harness_metric(&r[k], "nqueensd_count_blocks_claimed_total") -
                            nq_harness_metric(&r[k], "nqueensd_count_blocks_finished_total") -
                            nq_harness_metric(&r[k], "nqueensd_count_blocks_lost_total");
        if (held >= 1.0) return k;
    }
    for (size_t k = 0; k < replicas; k++)
        if (alive[k]) return k;
    return 0;
}

static size_t victim = REPLICAS_MAX;

/* Kill -9 the replica holding a block once that block has work committed (a commit after its
 * claim), so that whoever takes it over starts from there and says so. */
static void kill_9_holder(nq_test_server *r, size_t replicas, bool *alive)
{
    for (int i = 0; i < 200; i++) {
        victim = holder(r, replicas, alive);
        const double claimed = nq_harness_metric(&r[victim], "nqueensd_count_blocks_claimed_total");
        const double commits = nq_harness_metric(&r[victim], "nqueensd_checkpoints_total");
        nq_harness_sleep_ms(50);
        if (nq_harness_metric(&r[victim], "nqueensd_checkpoints_total") > commits &&
            nq_harness_metric(&r[victim], "nqueensd_count_blocks_claimed_total") == claimed)
            break;
    }
    ck_assert_int_eq(nq_harness_stop(&r[victim], SIGKILL, 20), 128 + SIGKILL);
    alive[victim] = false;
}

#define TAKEN_OVER "block taken over (an earlier claimer's lease lapsed)"

START_TEST(three_replicas_finish_exactly_after_kill_9_half_way)
{
    char conn[512];
    if (!nq_pg_fresh_database("kill_9", conn, sizeof conn)) return;
    nq_test_server r[3];
    bool alive[3] = {true, true, true};
    for (size_t k = 0; k < 3; k++) start_replica(&r[k], conn, "5");
    char etag[64];
    poll_to_done(r, 3, alive, 0.5, kill_9_holder, etag, sizeof etag);
    counts_agree(r, 3, alive);
    /* The killed replica's block was taken over once its lease lapsed, from its last commit, and
     * whoever took it said so (one line a block). */
    ck_assert(metric_sum(r, 3, alive, "nqueensd_count_blocks_taken_over_total") >= 1.0);
    int lines = 0;
    for (size_t k = 0; k < 3; k++)
        if (alive[k]) lines += logged(&r[k], TAKEN_OVER);
    ck_assert_double_eq(lines, metric_sum(r, 3, alive, "nqueensd_count_blocks_taken_over_total"));
    stop_all(r, 3, alive);
}
END_TEST

/* A replica stopped (SIGTERM) half way commits and gives its block back: the other resumes it from
 * there, and that is no take-over (none counted, none logged). Leases are long here, so that only a
 * block given back can be claimed again before the count ends. */
START_TEST(a_block_given_back_at_stop_is_resumed_not_taken_over)
{
    char conn[512];
    if (!nq_pg_fresh_database("given_back", conn, sizeof conn)) return;
    nq_test_server r[2];
    bool alive[2] = {true, true};
    for (size_t k = 0; k < 2; k++) start_replica_leased(&r[k], conn, "5", "60000");
    double floor = 0.0;
    for (int i = 0; i < 6000 && floor < 0.3; i++) {
        nq_http_response resp;
        ck_assert(get_with(&r[(size_t)i % 2], TARGET, "respond-async", &resp));
        bool running = false;
        const double p = progress_of(&resp, &running);
        nq_http_response_free(&resp);
        ck_assert_msg(p >= floor, "progress fell from %f to %f", floor, p);
        floor = p;
        nq_harness_sleep_ms(40);
    }
    const size_t stopped = holder(r, 2, alive);
    ck_assert_int_eq(nq_harness_stop(&r[stopped], SIGTERM, 30), 0);
    alive[stopped] = false;
    char etag[64];
    poll_to_done(r, 2, alive, 1.0, NULL, etag, sizeof etag);
    const size_t other = 1 - stopped;
    ck_assert_double_eq(nq_harness_metric(&r[other], "nqueensd_count_blocks_taken_over_total"), 0.0);
    ck_assert_int_eq(logged(&r[other], TAKEN_OVER), 0);
    stop_all(r, 2, alive);
}
END_TEST

static void sigstop_holder(nq_test_server *r, size_t replicas, bool *alive)
{
    (void)alive;
    victim = holder(r, replicas, alive);
    ck_assert_int_eq(kill(r[victim].pid, SIGSTOP), 0);
}

/* A replica stalled half way (SIGSTOP) loses its block to the other; woken again, it finds its
 * lease lost, drops the block (one log line) and answers the same 200 as the others. */
START_TEST(stalled_replica_loses_its_block_and_the_total_is_exact)
{
    char conn[512];
    if (!nq_pg_fresh_database("sigstop", conn, sizeof conn)) return;
    nq_test_server r[2];
    bool alive[2] = {true, true};
    for (size_t k = 0; k < 2; k++) start_replica(&r[k], conn, "5");
    bool only_other[2] = {true, true};
    char etag[64];
    /* Polled: the replica that is not stopped (a stopped one would not answer). */
    double floor = 0.0;
    bool stopped = false;
    for (int i = 0; i < 6000; i++) {
        const size_t k = stopped ? 1 - victim : (size_t)i % 2;
        nq_http_response resp;
        ck_assert(get_with(&r[k], TARGET, "respond-async", &resp));
        if (resp.status == 200) {
            nq_http_response_free(&resp);
            break;
        }
        bool running = false;
        const double p = progress_of(&resp, &running);
        nq_http_response_free(&resp);
        ck_assert_msg(p >= floor, "progress fell from %f to %f", floor, p);
        floor = p;
        if (!stopped && p >= 0.5) {
            sigstop_holder(r, 2, alive);
            stopped = true;
        }
        nq_harness_sleep_ms(40);
    }
    ck_assert(stopped);
    only_other[victim] = false;
    poll_to_done(r, 2, only_other, 1.0, NULL, etag, sizeof etag);
    ck_assert_int_eq(kill(r[victim].pid, SIGCONT), 0);
    /* Woken, it renews or finishes what it held: the lease is gone, the block dropped, and said so
     * once a block (a loaded machine may have cost it a lease before, too: counted the same way). */
    const double lost = nq_harness_await_metric(&r[victim], "nqueensd_count_blocks_lost_total", 1.0, 60);
    ck_assert(lost >= 1.0);
    const int lines = await_logged(
        &r[victim], "lease lost: the block's uncounted work is dropped, another replica counts it", (int)lost, 60);
    ck_assert_double_eq(lines, nq_harness_metric(&r[victim], "nqueensd_count_blocks_lost_total"));
    poll_to_done(r, 2, alive, 1.0, NULL, etag, sizeof etag); /* both: the same 200 */
    counts_agree(r, 2, alive);
    stop_all(r, 2, alive);
}
END_TEST

/* ---- the database stopped and started ----------------------------------------------------------- */

START_TEST(database_stopped_mid_count_then_exact)
{
    if (!nq_pg_available("database_stopped_mid_count_then_exact")) return;
    nq_pg_cluster db; /* a cluster of its own: stopped below */
    nq_pg_cluster_init(&db);
    nq_pg_cluster_ctl(&db, "start", "");
    const char *conn = db.conninfo;
    nq_test_server r[2];
    bool alive[2] = {true, true};
    for (size_t k = 0; k < 2; k++) start_replica(&r[k], conn, "5");
    nq_http_response resp;
    ck_assert(get_with(&r[0], TARGET, "respond-async", &resp));
    ck_assert_int_eq(resp.status, 202);
    nq_http_response_free(&resp);
    bool running = false;
    double p = 0;
    for (int i = 0; i < 3000 && p < 0.3; i++) {
        ck_assert(get_with(&r[i % 2], TARGET, "respond-async", &resp));
        p = progress_of(&resp, &running);
        nq_http_response_free(&resp);
        nq_harness_sleep_ms(50);
    }
    for (size_t k = 0; k < 2; k++) ck_assert_double_eq(nq_harness_metric(&r[k], "nqueensd_store_up"), 1.0);
    nq_pg_cluster_ctl(&db, "stop", "--keep");
    /* What needs the database: 503 store-unavailable with Retry-After, on both replicas. */
    for (size_t k = 0; k < 2; k++) {
        const char *const needs[] = {TARGET, "/counts"};
        for (size_t t = 0; t < 2; t++) {
            ck_assert(get_with(&r[k], needs[t], "respond-async", &resp));
            ck_assert_int_eq(resp.status, 503);
            ck_assert_ptr_nonnull(nq_http_header_get(&resp, "Retry-After"));
            ck_assert_ptr_nonnull(strstr(resp.body, "/problems/store-unavailable"));
            nq_http_response_free(&resp);
        }
        /* What does not: served as before. */
        ck_assert(nq_http_get(&r[k], "/count?n=8", &resp));
        ck_assert_int_eq(resp.status, 200);
        ck_assert_str_eq(resp.body, "{\"n\":8,\"total\":92,\"unique\":12}");
        nq_http_response_free(&resp);
        ck_assert(nq_http_get(&r[k], "/readyz", &resp));
        ck_assert_int_eq(resp.status, 200);
        nq_http_response_free(&resp);
        /* the 503 above came from a store call that could not reach the database */
        ck_assert_double_eq(nq_harness_metric(&r[k], "nqueensd_store_up"), 0.0);
    }
    nq_harness_sleep_ms(1500); /* longer than a lease: every block's lease lapses meanwhile */
    nq_pg_cluster_ctl(&db, "restart", "");
    /* Back: the count goes on where its commits left it, and ends exact. */
    char etag[64];
    poll_to_done(r, 2, alive, 1.0, NULL, etag, sizeof etag);
    for (size_t k = 0; k < 2; k++) ck_assert_double_eq(nq_harness_metric(&r[k], "nqueensd_store_up"), 1.0);
    stop_all(r, 2, alive);
    nq_pg_cluster_remove(&db);
}
END_TEST

static Suite *replicas_suite(void)
{
    Suite *s = suite_create("replicas");
    TCase *tc = tcase_create("replicas");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, two_replicas_count_one_n_together);
    tcase_add_test(tc, three_replicas_asked_in_turn_count_one_n_together);
    tcase_add_test(tc, same_n_asked_of_two_replicas_at_once_is_one_count);
    tcase_add_test(tc, three_replicas_finish_exactly_after_kill_9_half_way);
    tcase_add_test(tc, a_block_given_back_at_stop_is_resumed_not_taken_over);
    tcase_add_test(tc, stalled_replica_loses_its_block_and_the_total_is_exact);
    tcase_add_test(tc, database_stopped_mid_count_then_exact);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    nq_pg_fixture_begin();
    const int failed = nq_check_run(replicas_suite());
    nq_pg_fixture_end();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
