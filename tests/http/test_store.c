/* test_store.c - long counts end to end: 202 and progress, Prefer, /counts, the store across
 * restarts, kill -9 and SIGTERM, refused store files, a full disk, the limits.
 *
 * Slowness is made, not hoped for: --long-count-n 13 turns a cheap n into a long count, and
 * --count-task-delay-ms with --count-threads 1 makes its worker wait after each of its tasks (545 at
 * n = 13, 891 at n = 14), so a count takes at least tasks x delay whatever the machine. No assertion
 * bounds a duration from above.
 */
#define _GNU_SOURCE /* unshare, mkdtemp */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_json.h"
#include "check_run.h"
#include "harness.h"
#include "nqueens/solver.h"
#include "store/store.h"

#ifndef NQ_TEST_NQUEENSD
#error "NQ_TEST_NQUEENSD must name the nqueensd binary (set by CMake)"
#endif

/* OEIS A000170 / A002562, as /count renders them. */
#define COUNT_8 "{\"n\":8,\"total\":92,\"unique\":12}"
#define COUNT_13 "{\"n\":13,\"total\":73712,\"unique\":9233}"
#define COUNT_14 "{\"n\":14,\"total\":365596,\"unique\":45752}"
#define COUNT_15 "{\"n\":15,\"total\":2279184,\"unique\":285053}"

/* ---- helpers -------------------------------------------------------------------------------------- */

/* A fresh temporary directory and the store path in it. */
static void temp_store(char *dir, size_t dcap, char *path, size_t pcap)
{
    snprintf(dir, dcap, "/tmp/nq-store-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, pcap, "%s/nqueens.db", dir);
}

/* Remove dir and the files in it (the store, its -wal and -shm, a filler). */
static void rm_dir(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    const struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char path[600]; /* dir (64) + a name (256) */
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ck_assert_int_eq(unlink(path), 0);
    }
    closedir(d);
    ck_assert_int_eq(rmdir(dir), 0);
}

/* Start a server with a long-count set-up (n >= 13 long, slowed by delay_ms per task) on store. */
static void start_long(nq_test_server *s, const char *store, const char *delay_ms, const char *const *extra)
{
    const char *args[32] = {
        "--long-count-n", "13",  "--count-threads", "1", "--count-task-delay-ms", delay_ms, "--checkpoint-ms", "100",
        "--store",        store, "--grace-s",       "5"};
    size_t a = 12;
    for (size_t i = 0; extra && extra[i] && a < 31; i++) args[a++] = extra[i];
    args[a] = NULL;
    ck_assert_msg(nq_harness_start(s, args, NULL), "nqueensd did not start");
}

/* Whether the server's log has a line with message msg about board n. */
static bool logged(const nq_test_server *s, const char *msg, int n)
{
    char want[160];
    snprintf(want, sizeof want, "\"msg\":\"%s\",\"n\":%d,", msg, n);
    char *log = nq_harness_log(s);
    const bool found = log && strstr(log, want) != NULL;
    free(log);
    return found;
}

static bool get_with(const nq_test_server *s, const char *target, const char *prefer, nq_http_response *r)
{
    char h[64];
    snprintf(h, sizeof h, "Prefer: %s", prefer);
    const char *const headers[] = {h, NULL};
    return nq_http_request(s, "GET", target, prefer ? headers : NULL, r);
}

/* A 202 for n: the contract's headers and body; returns its progress. */
static double check_202(const nq_http_response *r, int n)
{
    ck_assert_int_eq(r->status, 202);
    ck_assert_str_eq(nq_http_header_get(r, "Cache-Control"), "no-store");
    char loc[32];
    snprintf(loc, sizeof loc, "/count?n=%d", n);
    ck_assert_str_eq(nq_http_header_get(r, "Location"), loc);
    const char *retry = nq_http_header_get(r, "Retry-After");
    ck_assert_ptr_nonnull(retry);
    const long secs = strtol(retry, NULL, 10);
    ck_assert(secs >= 1 && secs <= 60);
    ck_assert_ptr_null(nq_http_header_get(r, "ETag"));
    cJSON *j = cJSON_Parse(r->body);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq((int)nq_check_json_num(j, "n"), n);
    const char *st = nq_check_json_str(j, "status");
    ck_assert(strcmp(st, "queued") == 0 || strcmp(st, "running") == 0);
    const double p = nq_check_json_num(j, "progress");
    ck_assert(p >= 0.0 && p <= 1.0);
    ck_assert(nq_check_json_num(j, "elapsed_s") >= 0.0);
    const cJSON *eta = cJSON_GetObjectItemCaseSensitive(j, "eta_s");
    ck_assert(eta && (cJSON_IsNull(eta) || (cJSON_IsNumber(eta) && eta->valuedouble >= 0)));
    cJSON_Delete(j);
    return p;
}

/* Start n with respond-async; its progress. */
static double start_async(const nq_test_server *s, int n)
{
    char target[32];
    snprintf(target, sizeof target, "/count?n=%d", n);
    nq_http_response r;
    ck_assert(get_with(s, target, "respond-async", &r));
    const double p = check_202(&r, n);
    ck_assert_str_eq(nq_http_header_get(&r, "Preference-Applied"), "respond-async");
    nq_http_response_free(&r);
    return p;
}

/* Poll n (Prefer: wait=1) until its 200; progress must never fall. Returns the 200 in *out. */
static void poll_to_200(const nq_test_server *s, int n, double floor, nq_http_response *out)
{
    char target[32];
    snprintf(target, sizeof target, "/count?n=%d", n);
    for (int i = 0; i < 600; i++) {
        ck_assert(get_with(s, target, "wait=1", out));
        if (out->status == 200) return;
        const double p = check_202(out, n);
        ck_assert_msg(p >= floor, "progress fell from %f to %f", floor, p);
        floor = p;
        nq_http_response_free(out);
    }
    ck_abort_msg("count of %d never finished", n);
}

/* Wait until the metric reaches at least v (or give up after a minute). */
static bool metric_at_least(const nq_test_server *s, const char *name, double v)
{
    for (int i = 0; i < 1200; i++) {
        if (nq_harness_metric(s, name) >= v) return true;
        nq_harness_sleep_ms(50);
    }
    return false;
}

/* ---- the 202 sequence, Prefer, /counts ------------------------------------------------------------ */

START_TEST(accepted_then_progress_then_200)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    start_long(&s, store, "6", NULL);
    const double p0 = start_async(&s, 13);
    nq_http_response r;
    poll_to_200(&s, 13, p0, &r);
    ck_assert_str_eq(r.body, COUNT_13);
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "public, max-age=31536000, immutable");
    char etag[64];
    snprintf(etag, sizeof etag, "%s", nq_http_header_get(&r, "ETag"));
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);

    /* The same bytes and ETag as a count answered within its request. */
    static const char *const quick[] = {"--long-count-n", "28", NULL};
    ck_assert(nq_harness_start(&s, quick, NULL));
    ck_assert(nq_http_get(&s, "/count?n=13", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_13);
    ck_assert_str_eq(nq_http_header_get(&r, "ETag"), etag);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

/* A 202 carries no tag: only If-Match: * holds for it, whether it is answered at once
 * (respond-async) or after a wait on a worker (wait=1), and a failed one is the 412. */
START_TEST(a_202_holds_only_if_match_star)
{
    nq_test_server s;
    start_long(&s, "none", "500", NULL); /* 500 ms a task: n = 13 runs for seconds */
    /* The count's own tag, which its 200 will carry, from a 304 (nothing computed for it). */
    static const char *const inm[] = {"If-None-Match: *", NULL};
    nq_http_response t;
    ck_assert(nq_http_request(&s, "GET", "/count?n=13", inm, &t));
    ck_assert_int_eq(t.status, 304);
    char own[64];
    snprintf(own, sizeof own, "If-Match: %s", nq_http_header_get(&t, "ETag"));
    nq_http_response_free(&t);
    static const char *const prefers[] = {"Prefer: respond-async", "Prefer: wait=1"};
    for (size_t i = 0; i < 2; i++) {
        const char *const tagged[] = {prefers[i], own, NULL};
        const char *const star[] = {prefers[i], "If-Match: *", NULL};
        nq_http_response r;
        ck_assert(nq_http_request(&s, "GET", "/count?n=13", tagged, &r));
        ck_assert_msg(r.status == 412, "%s: %ld", prefers[i], r.status);
        ck_assert_ptr_nonnull(strstr(r.body, "\"type\":\"/problems/precondition-failed\""));
        nq_http_response_free(&r);
        ck_assert(nq_http_request(&s, "GET", "/count?n=13", star, &r));
        check_202(&r, 13);
        nq_http_response_free(&r);
    }
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

START_TEST(prefer_wait_long_enough_gives_200)
{
    nq_test_server s;
    static const char *const extra[] = {"--deadline-ms", "600000", NULL};
    start_long(&s, "none", "3", extra);
    nq_http_response r;
    ck_assert(get_with(&s, "/count?n=13", "wait=600", &r)); /* at least 1.6 s of delays: still one request */
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_13);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

START_TEST(prefer_wait_is_capped_by_the_deadline)
{
    nq_test_server s;
    static const char *const extra[] = {"--deadline-ms", "1000", NULL};
    start_long(&s, "none", "32", extra); /* 545 tasks x 32 ms: over 17 s */
    nq_http_response r;
    ck_assert(get_with(&s, "/count?n=13", "wait=3600", &r));
    check_202(&r, 13);
    ck_assert_str_eq(nq_http_header_get(&r, "Preference-Applied"), "wait=1");
    nq_http_response_free(&r);
    /* Without Prefer the wait is the deadline too: a 202, and no Preference-Applied. */
    ck_assert(nq_http_get(&s, "/count?n=13", &r));
    check_202(&r, 13);
    ck_assert_ptr_null(nq_http_header_get(&r, "Preference-Applied"));
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

/* One request waiting for a long count, on another thread. */
typedef struct waiter {
    const nq_test_server *s;
    nq_http_response r; /* its answer */
    bool ok;            /* it was answered */
    atomic_bool done;   /* it returned */
} waiter;

static void *wait_for_13(void *arg)
{
    waiter *w = arg;
    w->ok = get_with(w->s, "/count?n=13", "wait=600", &w->r);
    atomic_store(&w->done, true);
    return NULL;
}

/* A request waiting for a long count holds no solver worker: with one worker, a short count is
 * answered while the wait goes on, and the wait still ends in the 200. */
START_TEST(a_wait_holds_no_solver_worker)
{
    nq_test_server s;
    static const char *const extra[] = {"--deadline-ms", "600000", "--solver-workers", "1", NULL};
    start_long(&s, "none", "16", extra); /* 545 tasks x 16 ms: 8.7 s at least */
    waiter w = {.s = &s, .ok = false};
    atomic_init(&w.done, false);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, wait_for_13, &w), 0);
    ck_assert(metric_at_least(&s, "nqueensd_count_waits_running", 1));
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=8", &r)); /* short: counted on the only solver worker */
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_8);
    nq_http_response_free(&r);
    ck_assert_msg(!atomic_load(&w.done), "the short count waited for the long count's wait");
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    ck_assert(w.ok);
    ck_assert_int_eq(w.r.status, 200);
    ck_assert_str_eq(w.r.body, COUNT_13);
    nq_http_response_free(&w.r);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_count_waits_running"), 0.0);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

START_TEST(counts_lists_finished_and_running_newest_first)
{
    nq_test_server s;
    start_long(&s, "none", "32", NULL);
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=8", &r)); /* short: answered at once */
    ck_assert_str_eq(r.body, COUNT_8);
    nq_http_response_free(&r);
    nq_harness_sleep_ms(1100); /* the list is ordered by the second things happened in */
    (void)start_async(&s, 13);
    ck_assert(nq_http_get(&s, "/counts", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    cJSON *j = cJSON_Parse(r.body);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "counts");
    ck_assert_int_eq(cJSON_GetArraySize(list), 2);
    const cJSON *first = cJSON_GetArrayItem(list, 0), *second = cJSON_GetArrayItem(list, 1);
    ck_assert_int_eq((int)nq_check_json_num(first, "n"), 13);
    ck_assert(strcmp(nq_check_json_str(first, "status"), "queued") == 0 ||
              strcmp(nq_check_json_str(first, "status"), "running") == 0);
    ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(first, "progress"));
    ck_assert_int_eq((int)nq_check_json_num(second, "n"), 8);
    ck_assert_str_eq(nq_check_json_str(second, "status"), "done");
    ck_assert_int_eq((int)nq_check_json_num(second, "total"), 92);
    ck_assert_int_eq((int)nq_check_json_num(second, "unique"), 12);
    ck_assert(nq_check_json_num(second, "seconds") >= 0);
    ck_assert_uint_eq(strlen(nq_check_json_str(second, "finished_at")), 20); /* 2026-12-01T09:30:00Z */
    cJSON_Delete(j);
    nq_http_response_free(&r);
    ck_assert(nq_http_get(&s, "/counts?x=1", &r));
    ck_assert_int_eq(r.status, 400);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

/* A count of n = 26 that an older release stored (its total is past 2^53) is not listed: a JSON
 * reader would round it. The n = 8 beside it is. */
START_TEST(counts_leaves_out_a_count_past_json_integers)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_store *st = NULL;
    char err[256];
    ck_assert_int_eq(nq_store_open(store, &st, err, sizeof err), NQ_OK);
    nq_store_count c = {.n = 26, .seconds = 1e6, .finished_at = 1700000000};
    ck_assert(nq_count_known(26, &c.counts));
    ck_assert_uint_gt(c.counts.total, UINT64_C(9007199254740991));
    ck_assert_int_eq(nq_store_put_count(st, &c), NQ_OK);
    c = (nq_store_count){.n = 8, .counts = {92, 12}, .seconds = 0.25, .finished_at = 1700000100};
    ck_assert_int_eq(nq_store_put_count(st, &c), NQ_OK);
    nq_store_close(st);
    nq_test_server s;
    const char *a[] = {"--store", store, NULL};
    ck_assert(nq_harness_start(&s, a, NULL));
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/counts", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"counts\":[{\"n\":8,\"status\":\"done\",\"total\":92,\"unique\":12,\"seconds\":0.250,"
                             "\"finished_at\":\"2023-11-14T22:15:00Z\"}]}");
    nq_http_response_free(&r);
    ck_assert(nq_http_get(&s, "/count?n=26", &r));
    ck_assert_int_eq(r.status, 422);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

/* A count made for another route (/solve's total) is a count the server knows: listed and served. */
START_TEST(counts_lists_a_count_made_for_solve)
{
    nq_test_server s;
    start_long(&s, "none", "0", NULL);
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/solve?n=9&limit=1", &r));
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    ck_assert(nq_http_get(&s, "/counts", &r));
    ck_assert_int_eq(r.status, 200);
    cJSON *j = cJSON_Parse(r.body);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "counts");
    ck_assert_int_eq(cJSON_GetArraySize(list), 1);
    const cJSON *only = cJSON_GetArrayItem(list, 0);
    ck_assert_int_eq((int)nq_check_json_num(only, "n"), 9);
    ck_assert_str_eq(nq_check_json_str(only, "status"), "done");
    ck_assert_int_eq((int)nq_check_json_num(only, "total"), 352);
    ck_assert_int_eq((int)nq_check_json_num(only, "unique"), 46);
    cJSON_Delete(j);
    nq_http_response_free(&r);
    ck_assert(nq_http_get(&s, "/count?n=9", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"n\":9,\"total\":352,\"unique\":46}");
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

START_TEST(limits_give_503)
{
    nq_test_server s;
    static const char *const extra[] = {"--long-counts", "1", "--long-count-queue", "1", NULL};
    start_long(&s, "none", "32", extra);
    (void)start_async(&s, 13); /* runs */
    (void)start_async(&s, 14); /* waits */
    nq_http_response r;
    ck_assert(get_with(&s, "/count?n=15", "respond-async", &r));
    ck_assert_int_eq(r.status, 503);
    ck_assert_ptr_nonnull(nq_http_header_get(&r, "Retry-After"));
    ck_assert_ptr_nonnull(strstr(r.body, "/problems/overloaded"));
    nq_http_response_free(&r);
    ck_assert(nq_http_get(&s, "/count?n=15", &r)); /* the same through the worker pool */
    ck_assert_int_eq(r.status, 503);
    nq_http_response_free(&r);
    /* The runner takes n = 13 up in its own time (a loaded machine may not have yet); it then runs
     * for seconds (32 ms a task), n = 14 waiting behind it. */
    ck_assert_double_eq(nq_harness_await_metric(&s, "nqueensd_counts_running", 1.0, 30), 1.0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_queued"), 1.0);
    /* Above --max-n-count nothing is started: 422, as before. */
    ck_assert(get_with(&s, "/count?n=20", "respond-async", &r));
    ck_assert_int_eq(r.status, 422);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

/* ---- restarts ------------------------------------------------------------------------------------ */

START_TEST(finished_count_survives_restarts)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    start_long(&s, store, "1", NULL);
    (void)start_async(&s, 13);
    nq_http_response r;
    poll_to_200(&s, 13, 0.0, &r);
    char etag[64];
    snprintf(etag, sizeof etag, "%s", nq_http_header_get(&r, "ETag"));
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGKILL, 20), 128 + SIGKILL); /* on disk before the 200 */
    for (int round = 0; round < 2; round++) {
        start_long(&s, store, "1", NULL);
        ck_assert(get_with(&s, "/count?n=13", "respond-async", &r)); /* known: a 200, not a 202 */
        ck_assert_int_eq(r.status, 200);
        ck_assert_str_eq(r.body, COUNT_13);
        ck_assert_str_eq(nq_http_header_get(&r, "ETag"), etag);
        nq_http_response_free(&r);
        ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_finished"), 1.0);
        ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    }
    rm_dir(dir);
}
END_TEST

/* Run a count until a checkpoint holds at least some of it; returns the progress seen before the
 * checkpoints that followed it (so the store holds at least that much). */
static double run_until_checkpointed(const nq_test_server *s, int n)
{
    (void)start_async(s, n);
    char target[32];
    snprintf(target, sizeof target, "/count?n=%d", n);
    double p = 0;
    while (p < 0.2) {
        nq_http_response r;
        ck_assert(get_with(s, target, "respond-async", &r));
        p = check_202(&r, n);
        nq_http_response_free(&r);
        nq_harness_sleep_ms(50);
    }
    const double written = nq_harness_metric(s, "nqueensd_checkpoints_total");
    ck_assert(metric_at_least(s, "nqueensd_checkpoints_total", written + 2));
    return p;
}

START_TEST(kill_9_resumes_from_the_last_checkpoint)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    static const char *const debug[] = {"--log-level", "debug", NULL};
    start_long(&s, store, "10", debug); /* 891 tasks x 10 ms: 9 s at least */
    const double before = run_until_checkpointed(&s, 14);
    char *log = nq_harness_log(&s); /* at debug, each checkpoint is a line */
    ck_assert_ptr_nonnull(strstr(log, "\"level\":\"debug\",\"msg\":\"checkpoint written\",\"n\":14,\"progress\":"));
    free(log);
    ck_assert_int_eq(nq_harness_stop(&s, SIGKILL, 20), 128 + SIGKILL);

    start_long(&s, store, "5", NULL); /* what is left still takes seconds: the first answer is a 202 */
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_resumed_total"), 1.0);
    const double after = start_async(&s, 14);
    ck_assert_msg(after >= before, "resumed at %f, below the checkpointed %f", after, before);
    nq_http_response r;
    poll_to_200(&s, 14, after, &r);
    ck_assert_str_eq(r.body, COUNT_14);
    nq_http_response_free(&r);
    ck_assert_double_ge(nq_harness_metric(&s, "nqueensd_checkpoints_total"), 1.0);
    log = nq_harness_log(&s);
    ck_assert_ptr_nonnull(strstr(log, "count resumes from its checkpoint"));
    ck_assert_ptr_null(strstr(log, "checkpoint written")); /* the default level, info, leaves them out */
    free(log);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

START_TEST(sigterm_checkpoints_and_exits_0)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    static const char *const slow_ticks[] = {"--checkpoint-ms", "3600000", NULL}; /* only the last word */
    start_long(&s, store, "10", slow_ticks);
    (void)start_async(&s, 14);
    double p = 0;
    while (p < 0.1) {
        nq_http_response r;
        ck_assert(get_with(&s, "/count?n=14", "respond-async", &r));
        p = check_202(&r, 14);
        nq_http_response_free(&r);
        nq_harness_sleep_ms(50);
    }
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    start_long(&s, store, "5", NULL); /* what is left still takes seconds: the first answer is a 202 */
    const double after = start_async(&s, 14);
    ck_assert_msg(after >= p, "resumed at %f, below the %f seen before SIGTERM", after, p);
    nq_http_response r;
    poll_to_200(&s, 14, after, &r);
    ck_assert_str_eq(r.body, COUNT_14);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

/* Kill s with SIGKILL, start it again on store, and check that `resumed` counts came back from their
 * checkpoints and that n's count then finishes as body says. Stops the server. */
static void kill_9_then_resume(nq_test_server *s, const char *store, double resumed, int n, const char *body)
{
    ck_assert_int_eq(nq_harness_stop(s, SIGKILL, 20), 128 + SIGKILL);
    start_long(s, store, "0", NULL);
    ck_assert_double_eq(nq_harness_metric(s, "nqueensd_counts_resumed_total"), resumed);
    nq_http_response r;
    poll_to_200(s, n, 0.0, &r);
    ck_assert_str_eq(r.body, body);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(s, SIGTERM, 20), 0);
}

/* A count accepted as queued is kept like a running one: the store has it before its first task, so
 * a crash does not forget it. */
START_TEST(queued_count_survives_kill_9)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    static const char *const one_runner[] = {"--long-counts", "1", NULL};
    start_long(&s, store, "20", one_runner);
    (void)start_async(&s, 14); /* runs: 891 tasks x 20 ms */
    nq_http_response r;
    ck_assert(get_with(&s, "/count?n=15", "respond-async", &r));
    ck_assert_int_eq(r.status, 202);
    ck_assert_ptr_nonnull(strstr(r.body, "\"status\":\"queued\""));
    nq_http_response_free(&r);
    const double written = nq_harness_metric(&s, "nqueensd_checkpoints_total");
    ck_assert(metric_at_least(&s, "nqueensd_checkpoints_total", written + 2)); /* ticks after the 202 */
    kill_9_then_resume(&s, store, 2.0, 15, COUNT_15);                          /* 14 and 15 come back */
    rm_dir(dir);
}
END_TEST

/* A count that starts at once is kept from its start too: its first checkpoint, a plan with no task
 * done (each task here takes a minute), lets it resume after a kill -9. */
START_TEST(started_count_survives_kill_9)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    start_long(&s, store, "60000", NULL);
    (void)start_async(&s, 14);
    ck_assert_double_eq(nq_harness_await_metric(&s, "nqueensd_counts_running", 1.0, 30), 1.0);
    ck_assert(metric_at_least(&s, "nqueensd_checkpoints_total", 1));
    kill_9_then_resume(&s, store, 1.0, 14, COUNT_14);
    rm_dir(dir);
}
END_TEST

/* ---- files the server must refuse ------------------------------------------------------------------ */

/* Run nqueensd on store until it exits (it must not start); its status, stderr in err. */
static int run_refused(const char *store, char *err, size_t cap)
{
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        alarm(30); /* a start that hangs (a FIFO opened for reading) dies of SIGALRM, not the test */
        execl(NQ_TEST_NQUEENSD, "nqueensd", "--port", "0", "--bind", "127.0.0.1", "--store", store, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t len = 0;
    ssize_t got;
    while ((got = read(fds[0], err + len, cap - 1 - len)) > 0) len += (size_t)got;
    err[len] = '\0';
    close(fds[0]);
    int ws = 0;
    waitpid(pid, &ws, 0);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void sql(const char *path, const char *stmt)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(db, stmt, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* A store with a finished count in it, closed cleanly (everything in the main file). */
static void make_store(const char *path)
{
    nq_test_server s;
    const char *a[] = {"--store", path, NULL};
    ck_assert(nq_harness_start(&s, a, NULL));
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=8", &r));
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}

enum damage { GARBAGE, TRUNCATED, FOREIGN, NEWER, WRONG_TABLES, DAMAGES };

static const struct {
    const char *name; /* for messages */
    const char *says; /* must appear in the error message */
} damage_rows[] = {
    [GARBAGE] = {"garbage", "not an SQLite database"},
    [TRUNCATED] = {"truncated", "damaged"},
    [FOREIGN] = {"foreign", "not an nqueens store"},
    [NEWER] = {"newer", "newer nqueensd"},
    [WRONG_TABLES] = {"wrong tables", "its tables are not those of schema 1"},
};

static void damage(enum damage d, const char *path)
{
    if (d == GARBAGE) {
        FILE *f = fopen(path, "wb");
        for (int i = 0; i < 8192; i++) fputc((i * 7919) & 0xff, f);
        fclose(f);
    } else if (d == TRUNCATED) {
        make_store(path);
        sql(path, "PRAGMA journal_mode=DELETE; CREATE TABLE pad(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL "
                  "SELECT i + 1 FROM c WHERE i < 2000) INSERT INTO pad SELECT randomblob(100) FROM c;");
        struct stat st;
        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_eq(truncate(path, st.st_size / 2), 0);
    } else if (d == WRONG_TABLES) { /* ours by its id and schema row, not by its tables */
        sql(path, "PRAGMA application_id = 1313953093; CREATE TABLE nq_schema(version INTEGER PRIMARY KEY, "
                  "applied_at INTEGER NOT NULL); INSERT INTO nq_schema VALUES (1, 0); CREATE TABLE counts(x);");
    } else if (d == FOREIGN) {
        sql(path, "CREATE TABLE accounts(id INTEGER PRIMARY KEY, name TEXT); INSERT INTO accounts VALUES (1, 'x');");
    } else {
        make_store(path);
        sql(path, "INSERT INTO nq_schema VALUES (99, 0)");
    }
}

START_TEST(damaged_store_is_refused_and_untouched)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    damage((enum damage)_i, store);
    size_t len0 = 0, len1 = 0;
    char *before = slurp(store, &len0);
    char err[2048];
    const int status = run_refused(store, err, sizeof err);
    ck_assert_msg(status == 2, "%s: exit %d, stderr %s", damage_rows[_i].name, status, err);
    ck_assert_msg(strstr(err, damage_rows[_i].says) != NULL, "%s: stderr %s", damage_rows[_i].name, err);
    ck_assert_ptr_nonnull(strstr(err, store));
    char *after = slurp(store, &len1);
    ck_assert_msg(len0 == len1 && memcmp(before, after, len0) == 0, "%s: the file changed", damage_rows[_i].name);
    /* Nor is anything left beside it: the -wal and -shm that reading a WAL database makes are removed. */
    char side[128];
    snprintf(side, sizeof side, "%s-wal", store);
    ck_assert_msg(access(side, F_OK) != 0, "%s: a -wal was left", damage_rows[_i].name);
    snprintf(side, sizeof side, "%s-shm", store);
    ck_assert_msg(access(side, F_OK) != 0, "%s: a -shm was left", damage_rows[_i].name);
    free(before);
    free(after);
    rm_dir(dir);
}
END_TEST

/* Committed sums edited behind the server's back (here: a total above its Burnside sum, which no
 * task's can be) never make a wrong answer: the block's check value gives the row away (or the count
 * they sum to fails its check against A000170), and its tasks are counted again, exactly. */
START_TEST(checkpoint_with_contradicting_sums_is_ignored)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    start_long(&s, store, "10", NULL);
    (void)run_until_checkpointed(&s, 14); /* a fifth of 891 tasks committed */
    ck_assert_int_eq(nq_harness_stop(&s, SIGKILL, 20), 128 + SIGKILL);
    sql(store, "UPDATE blocks SET total = burnside + 1 WHERE n = 14");

    start_long(&s, store, "0", NULL);
    nq_http_response r;
    for (int i = 0; i < 600; i++) { /* no monotone progress here: the count may start again */
        ck_assert(get_with(&s, "/count?n=14", "wait=1", &r));
        if (r.status == 200) break;
        (void)check_202(&r, 14);
        nq_http_response_free(&r);
    }
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_14);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

/* A FIFO as --store: refused at once, exit 2 (the open for reading used to wait for a writer, for
 * ever, and the stop signals were already blocked). */
START_TEST(fifo_store_is_refused)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    ck_assert_int_eq(mkfifo(store, 0644), 0);
    char err[2048];
    const int status = run_refused(store, err, sizeof err);
    ck_assert_msg(status == 2, "exit %d, stderr %s", status, err);
    ck_assert_msg(strstr(err, "not a regular file") != NULL, "%s", err);
    rm_dir(dir);
}
END_TEST

/* A finished count whose row was changed on disk (one bit of its total) is not served: the start
 * warns, and /count counts it again, with A000170's total. */
START_TEST(damaged_count_is_not_served)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    start_long(&s, store, "0", NULL);
    nq_http_response r;
    ck_assert(get_with(&s, "/count?n=13", "wait=600", &r));
    ck_assert_str_eq(r.body, COUNT_13);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    sql(store, "UPDATE counts SET total = total + 1 WHERE n = 13"); /* 73712 -> 73713: one bit */

    start_long(&s, store, "0", NULL);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_finished"), 0.0);
    ck_assert(
        logged(&s, "stored count ignored (it fails its check value: damaged or edited); counted again when asked", 13));
    poll_to_200(&s, 13, 0.0, &r);
    ck_assert_str_eq(r.body, COUNT_13);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Another process holds the store's write lock (a backup, an operator's sqlite3): a short count is
 * answered without waiting for it, and stored once the lock is let go. Before, the request wrote
 * the count first, waited out the busy timeout (5 s), failed, and only then answered: so the write
 * had failed by the time the answer came. */
START_TEST(short_count_does_not_wait_for_the_store)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    const char *a[] = {"--store", store, "--checkpoint-ms", "100", NULL};
    ck_assert(nq_harness_start(&s, a, NULL));
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(store, &db), SQLITE_OK);
    ck_assert_int_eq(
        sqlite3_exec(db, "BEGIN IMMEDIATE; UPDATE nq_schema SET applied_at = applied_at", NULL, NULL, NULL), SQLITE_OK);
    const double t0 = now_s();
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=12", &r));
    const double took = now_s() - t0;
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    const double failures = nq_harness_metric(&s, "nqueensd_store_write_failures_total");
    ck_assert_int_eq(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    fprintf(stderr, "short_count_does_not_wait_for_the_store: answered in %.3f s with the lock held\n", took);
    ck_assert_msg(failures == 0.0, "the count was written (and failed) before the answer, after %.1f s", took);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    ck_assert(nq_harness_start(&s, a, NULL));
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_finished"), 1.0); /* stored after the answer */
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

/* The number of counts /counts lists, and whether any of them is queued or running. */
static int counts_listed(const nq_test_server *s, bool *active)
{
    nq_http_response r;
    ck_assert(nq_http_get(s, "/counts", &r));
    ck_assert_int_eq(r.status, 200);
    cJSON *j = cJSON_Parse(r.body);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "counts");
    const int len = cJSON_GetArraySize(list);
    *active = false;
    for (int i = 0; i < len; i++) {
        const char *st = nq_check_json_str(cJSON_GetArrayItem(list, i), "status");
        *active = *active || strcmp(st, "done") != 0;
    }
    cJSON_Delete(j);
    nq_http_response_free(&r);
    return len;
}

/* A count registered as long, then --long-count-n raised across a restart: the store's count is the
 * service's, so it is still listed and finished; a request for it is answered within the request
 * (n is short here now), and the store then holds it done, listed once. */
START_TEST(raised_long_count_n_does_not_resume_short_counts)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    start_long(&s, store, "10", NULL);
    (void)run_until_checkpointed(&s, 14);
    ck_assert_int_eq(nq_harness_stop(&s, SIGKILL, 20), 128 + SIGKILL);

    const char *raised[] = {"--store", store, "--long-count-n", "15", "--checkpoint-ms", "100", NULL};
    ck_assert(nq_harness_start(&s, raised, NULL));
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=14", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_14);
    nq_http_response_free(&r);
    bool active = true;
    int listed = 0;
    for (int i = 0; i < 600 && (active || listed != 1); i++) { /* written after the response */
        listed = counts_listed(&s, &active);
        if (active || listed != 1) nq_harness_sleep_ms(50);
    }
    ck_assert_int_eq(listed, 1);
    ck_assert(!active);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    /* After another restart it is simply done. */
    ck_assert(nq_harness_start(&s, raised, NULL));
    ck_assert_int_eq(counts_listed(&s, &active), 1);
    ck_assert(!active);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

/* A store of the release before check values (schema 1) with a finished count and a running one
 * (no task done yet: n = 13's plan has 545 tasks, plan version 5): it upgrades in place, serves the
 * finished count and finishes the running one. */
START_TEST(schema_1_store_with_a_running_count_upgrades_and_finishes)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    sql(store, "PRAGMA journal_mode=WAL; PRAGMA application_id = 1313953093;"
               "CREATE TABLE nq_schema(version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL);"
               "CREATE TABLE counts(n INTEGER PRIMARY KEY, total INTEGER NOT NULL, uniq INTEGER NOT NULL, "
               "seconds REAL NOT NULL, finished_at INTEGER NOT NULL);"
               "CREATE TABLE checkpoints(n INTEGER PRIMARY KEY, plan INTEGER NOT NULL, tasks INTEGER NOT NULL, "
               "done BLOB NOT NULL, total INTEGER NOT NULL, burnside INTEGER NOT NULL, elapsed_s REAL NOT NULL, "
               "started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);"
               "INSERT INTO nq_schema VALUES (1, 1700000000);"
               "INSERT INTO counts VALUES (8, 92, 12, 0.25, 1700000100);"
               "INSERT INTO checkpoints VALUES (13, 5, 545, zeroblob(545), 0, 0, 1.5, 1700000000, 1700000001);");
    nq_test_server s;
    start_long(&s, store, "0", NULL);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_resumed_total"), 1.0);
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=8", &r));
    ck_assert_str_eq(r.body, COUNT_8);
    nq_http_response_free(&r);
    poll_to_200(&s, 13, 0.0, &r);
    ck_assert_str_eq(r.body, COUNT_13);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    start_long(&s, store, "0", NULL);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_finished"), 2.0);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

START_TEST(one_server_per_store)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    nq_test_server s;
    start_long(&s, store, "0", NULL);
    char err[2048];
    ck_assert_int_eq(run_refused(store, err, sizeof err), 2);
    ck_assert_ptr_nonnull(strstr(err, "in use by another nqueensd"));
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    rm_dir(dir);
}
END_TEST

/* ---- a store that fills up ------------------------------------------------------------------------- */

/* Fill the file system of dir (a small tmpfs) with a filler file; true when it is full. */
static bool fill(const char *dir)
{
    char path[128];
    snprintf(path, sizeof path, "%s/filler", dir);
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) return false;
    char block[4096] = {0};
    while (write(fd, block, sizeof block) > 0) {
    }
    const bool full = errno == ENOSPC;
    close(fd);
    return full;
}

/* Mount a tmpfs of `size` on dir in a private mount namespace (this test's process only). Needs root
 * (CI runs as root); without it, says that `test` is skipped, removes dir and returns false. */
static bool small_disk(const char *dir, const char *size, const char *test)
{
    char options[32];
    snprintf(options, sizeof options, "size=%s", size);
    if (unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
        mount("tmpfs", dir, "tmpfs", 0, options) == 0)
        return true;
    fprintf(stderr, "%s: skipped (no mount namespace: %s)\n", test, strerror(errno));
    rm_dir(dir);
    return false;
}

/* A disk too full to take the schema refuses the start (exit 2) and says so, not what the rollback
 * after the failure said ("no transaction is active"). A 40 KB tmpfs: the file and its log are
 * made, the schema's transaction is not. */
START_TEST(full_disk_at_start_says_so)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    if (!small_disk(dir, "40k", "full_disk_at_start_says_so")) return;
    char err[2048];
    ck_assert_int_eq(run_refused(store, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "database or disk is full") != NULL, "%s", err);
    ck_assert_int_eq(umount(dir), 0);
    rm_dir(dir);
}
END_TEST

START_TEST(full_disk_keeps_serving)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    if (!small_disk(dir, "256k", "full_disk_keeps_serving")) return;
    nq_test_server s;
    start_long(&s, store, "0", NULL);
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=8", &r));
    ck_assert_str_eq(r.body, COUNT_8);
    nq_http_response_free(&r);
    ck_assert(fill(dir));
    /* A short count and a long one: both answered from memory, the failures counted. */
    ck_assert(nq_http_get(&s, "/count?n=9", &r));
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    ck_assert(get_with(&s, "/count?n=13", "wait=600", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_13);
    nq_http_response_free(&r);
    ck_assert(nq_harness_metric(&s, "nqueensd_store_write_failures_total") >= 1.0);
    ck_assert(logged(&s, "finished count not stored; kept in memory, retried later", 9));
    ck_assert(logged(&s, "finished count not stored; kept in memory, retried later", 13));
    ck_assert(nq_http_get(&s, "/readyz", &r));
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    /* Room again: the refused writes go through on a later tick. */
    char filler[128];
    snprintf(filler, sizeof filler, "%s/filler", dir);
    ck_assert_int_eq(unlink(filler), 0);
    /* Both, 9 and 13: a tick that began before the unlink may have stored one and not yet the other. */
    bool stored = false;
    for (int i = 0; i < 600 && !stored; i++) {
        stored = logged(&s, "finished count stored after a failed write", 9) &&
                 logged(&s, "finished count stored after a failed write", 13);
        if (!stored) nq_harness_sleep_ms(50);
    }
    ck_assert(stored);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    start_long(&s, store, "0", NULL);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_finished"), 3.0); /* 8, 9 and 13 */
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    ck_assert_int_eq(umount(dir), 0);
    rm_dir(dir);
}
END_TEST

/* An existing store on a volume that has filled up since: refused (exit 2) as a full disk, not as a
 * matter of permissions (reading a WAL store needs room for its -shm). */
START_TEST(full_disk_with_existing_store_says_so)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    if (!small_disk(dir, "256k", "full_disk_with_existing_store_says_so")) return;
    make_store(store);
    ck_assert(fill(dir));
    char err[2048];
    ck_assert_int_eq(run_refused(store, err, sizeof err), 2);
    ck_assert_msg(strstr(err, "disk is full") != NULL && strstr(err, "permissions") == NULL, "%s", err);
    ck_assert_int_eq(umount(dir), 0);
    rm_dir(dir);
}
END_TEST

/* The store alone on a small volume, checkpointed every 50 ms (an unbounded log grew to fill a 3 MiB
 * volume at n = 19 and the finished count was lost; here 256 KiB, which an unbounded log fills within
 * about 60 checkpoints): the log stays bounded, no write fails, and the finished count is
 * there after a restart. */
START_TEST(store_alone_on_a_small_volume_keeps_its_count)
{
    char dir[64], store[96];
    temp_store(dir, sizeof dir, store, sizeof store);
    if (!small_disk(dir, "256k", "store_alone_on_a_small_volume_keeps_its_count")) return;
    nq_test_server s;
    static const char *const often[] = {"--checkpoint-ms", "50", NULL};
    start_long(&s, store, "8", often); /* 891 tasks x 8 ms: over a hundred checkpoints */
    (void)start_async(&s, 14);
    nq_http_response r;
    poll_to_200(&s, 14, 0.0, &r);
    ck_assert_str_eq(r.body, COUNT_14);
    nq_http_response_free(&r);
    const double checkpoints = nq_harness_metric(&s, "nqueensd_checkpoints_total");
    fprintf(stderr, "store_alone_on_a_small_volume_keeps_its_count: %.0f checkpoints, store %.0f bytes\n", checkpoints,
            nq_harness_metric(&s, "nqueensd_store_bytes"));
    ck_assert(checkpoints >= 50.0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_checkpoint_failures_total"), 0.0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_store_write_failures_total"), 0.0);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    start_long(&s, store, "0", NULL);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_counts_finished"), 1.0);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
    ck_assert_int_eq(umount(dir), 0);
    rm_dir(dir);
}
END_TEST

static Suite *store_suite(void)
{
    Suite *s = suite_create("store");
    TCase *tc = tcase_create("accepted");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, accepted_then_progress_then_200);
    tcase_add_test(tc, a_202_holds_only_if_match_star);
    tcase_add_test(tc, prefer_wait_long_enough_gives_200);
    tcase_add_test(tc, prefer_wait_is_capped_by_the_deadline);
    tcase_add_test(tc, a_wait_holds_no_solver_worker);
    tcase_add_test(tc, counts_lists_finished_and_running_newest_first);
    tcase_add_test(tc, counts_lists_a_count_made_for_solve);
    tcase_add_test(tc, counts_leaves_out_a_count_past_json_integers);
    tcase_add_test(tc, limits_give_503);
    suite_add_tcase(s, tc);
    tc = tcase_create("restarts");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, finished_count_survives_restarts);
    tcase_add_test(tc, kill_9_resumes_from_the_last_checkpoint);
    tcase_add_test(tc, checkpoint_with_contradicting_sums_is_ignored);
    tcase_add_test(tc, damaged_count_is_not_served);
    tcase_add_test(tc, raised_long_count_n_does_not_resume_short_counts);
    tcase_add_test(tc, schema_1_store_with_a_running_count_upgrades_and_finishes);
    tcase_add_test(tc, sigterm_checkpoints_and_exits_0);
    tcase_add_test(tc, queued_count_survives_kill_9);
    tcase_add_test(tc, started_count_survives_kill_9);
    suite_add_tcase(s, tc);
    tc = tcase_create("files");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, damaged_store_is_refused_and_untouched, 0, DAMAGES);
    tcase_add_test(tc, one_server_per_store);
    tcase_add_test(tc, fifo_store_is_refused);
    tcase_add_test(tc, short_count_does_not_wait_for_the_store);
    tcase_add_test(tc, full_disk_with_existing_store_says_so);
    tcase_add_test(tc, store_alone_on_a_small_volume_keeps_its_count);
    tcase_add_test(tc, full_disk_at_start_says_so);
    tcase_add_test(tc, full_disk_keeps_serving);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(store_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
