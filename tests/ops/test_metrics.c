/* test_metrics.c - unit tests of the metrics registry: exact exposition lines, concurrency, limits.
 *
 * With an argument (a file path) it writes a representative exposition there instead, for the
 * ops_metrics_promtool test, which runs `promtool check metrics` on it.
 */
#include "ops/metrics.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

static char *render(const nq_metrics *m, const nq_metrics_state *st)
{
    char *out = NULL;
    size_t len = 0;
    ck_assert_int_eq(nq_metrics_render(m, st, &out, &len), NQ_OK);
    ck_assert_uint_eq(strlen(out), len);
    return out;
}

static void assert_has(const char *text, const char *line)
{
    char want[512];
    snprintf(want, sizeof want, "\n%s\n", line); /* whole lines only */
    ck_assert_msg(strstr(text, want) != NULL, "missing line: %s", line);
}

static nq_request_record rec(const char *route, unsigned status, double seconds, uint64_t bytes)
{
    return (nq_request_record){.method = "GET",
                               .path = "/x",
                               .route = route,
                               .status = status,
                               .duration_s = seconds,
                               .bytes = bytes,
                               .completed = true};
}

START_TEST(requests_by_route_and_status)
{
    nq_metrics *m = NULL;
    ck_assert_int_eq(nq_metrics_create("1.2.3", &m), NQ_OK);
    static const struct {
        const char *route;
        unsigned status;
        int times;
    } rows[] = {
        {"count", 200, 3},       {"count", 422, 1}, {"solve", 304, 2}, {"healthz", 200, 1},
        {"Not A Label", 200, 1}, {NULL, 400, 1},    {"count", 0, 2},   {"count", 600, 1},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        for (int k = 0; k < rows[i].times; k++) {
            const nq_request_record r = rec(rows[i].route, rows[i].status, 0.001, 10);
            nq_metrics_observe_request(m, &r);
        }
    char *t = render(m, NULL);
    assert_has(t, "nqueensd_http_requests_total{route=\"count\",status=\"200\"} 3");
    assert_has(t, "nqueensd_http_requests_total{route=\"count\",status=\"422\"} 1");
    assert_has(t, "nqueensd_http_requests_total{route=\"solve\",status=\"304\"} 2");
    assert_has(t, "nqueensd_http_requests_total{route=\"healthz\",status=\"200\"} 1");
    assert_has(t, "nqueensd_http_requests_total{route=\"other\",status=\"200\"} 1");
    assert_has(t, "nqueensd_http_requests_total{route=\"none\",status=\"400\"} 1");
    assert_has(t, "nqueensd_http_requests_unanswered_total 3");
    assert_has(t, "nqueensd_http_response_body_bytes_total{route=\"count\"} 40");
    assert_has(t, "nqueensd_build_info{version=\"1.2.3\"} 1");
    assert_has(t, "# TYPE nqueensd_http_requests_total counter");
    ck_assert_ptr_null(strstr(t, "Not A Label"));
    free(t);
    nq_metrics_destroy(m);
}
END_TEST

/* Bucket boundaries are inclusive upper bounds (le), cumulative, and _count equals +Inf. */
START_TEST(latency_histogram_buckets)
{
    nq_metrics *m = NULL;
    ck_assert_int_eq(nq_metrics_create("v", &m), NQ_OK);
    static const double seconds[] = {0.0001, 0.0005, 0.0006, 0.01, 0.3, 29.0, 31.0};
    for (size_t i = 0; i < sizeof seconds / sizeof seconds[0]; i++) {
        const nq_request_record r = rec("solve", 200, seconds[i], 0);
        nq_metrics_observe_request(m, &r);
    }
    char *t = render(m, NULL);
    static const char *const lines[] = {
        "# TYPE nqueensd_http_request_duration_seconds histogram",
        "nqueensd_http_request_duration_seconds_bucket{route=\"solve\",le=\"0.0005\"} 2",
        "nqueensd_http_request_duration_seconds_bucket{route=\"solve\",le=\"0.001\"} 3",
        "nqueensd_http_request_duration_seconds_bucket{route=\"solve\",le=\"0.01\"} 4",
        "nqueensd_http_request_duration_seconds_bucket{route=\"solve\",le=\"0.25\"} 4",
        "nqueensd_http_request_duration_seconds_bucket{route=\"solve\",le=\"0.5\"} 5",
        "nqueensd_http_request_duration_seconds_bucket{route=\"solve\",le=\"30\"} 6",
        "nqueensd_http_request_duration_seconds_bucket{route=\"solve\",le=\"+Inf\"} 7",
        "nqueensd_http_request_duration_seconds_sum{route=\"solve\"} 60.311200",
        "nqueensd_http_request_duration_seconds_count{route=\"solve\"} 7",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) assert_has(t, lines[i]);
    free(t);
    nq_metrics_destroy(m);
}
END_TEST

START_TEST(state_and_solver_figures)
{
    nq_metrics *m = NULL;
    ck_assert_int_eq(nq_metrics_create("v", &m), NQ_OK);
    nq_metrics_observe_solver(m, NQ_METRICS_COUNT, 1.25);
    nq_metrics_observe_solver(m, NQ_METRICS_COUNT, 0.5);
    nq_metrics_observe_solver(m, NQ_METRICS_SOLVE, 0.000002);
    nq_metrics_observe_solver(m, NQ_METRICS_SOLUTION_RANDOM, 0.25);
    nq_metrics_observe_solver(m, NQ_METRICS_KINDS, 1.0);   /* ignored */
    nq_metrics_observe_solver(m, (nq_metrics_kind)7, 1.0); /* ignored */
    const nq_cache_stats cache = {.hits = 5,
                                  .misses = 6,
                                  .inserts = 7,
                                  .evictions = 8,
                                  .refused = 9,
                                  .entries = 10,
                                  .bytes = 11,
                                  .max_bytes = 12};
    const nq_metrics_pool pool = {.running = 1,
                                  .queued = 2,
                                  .waiting = 3,
                                  .started = 4,
                                  .finished = 5,
                                  .cancelled = 6,
                                  .shared = 7,
                                  .rejected = 8,
                                  .deadlines = 9};
    const nq_metrics_conns conns = {
        .open = 42, .accepted = 43, .refused = 47, .head_timeouts = 44, .body_bytes = 45, .body_cap = 46};
    const nq_metrics_state st = {.ready = true, .cache = &cache, .pool = &pool, .conns = &conns};
    char *t = render(m, &st);
    static const char *const lines[] = {
        "nqueensd_solver_runs_total{kind=\"count\"} 2",
        "nqueensd_solver_runs_total{kind=\"solve\"} 1",
        "nqueensd_solver_seconds_total{kind=\"count\"} 1.750000",
        "nqueensd_solver_seconds_total{kind=\"solve\"} 0.000002",
        "nqueensd_solver_runs_total{kind=\"solution\",method=\"construct\"} 0",
        "nqueensd_solver_runs_total{kind=\"solution\",method=\"random\"} 1",
        "nqueensd_solver_seconds_total{kind=\"solution\",method=\"random\"} 0.250000",
        "nqueensd_solver_runs_total{kind=\"trace\"} 0",
        "nqueensd_ready 1",
        "nqueensd_cache_hits_total 5",
        "nqueensd_cache_misses_total 6",
        "nqueensd_cache_evictions_total 8",
        "nqueensd_cache_refused_total 9",
        "nqueensd_cache_entries 10",
        "nqueensd_cache_bytes 11",
        "nqueensd_cache_max_bytes 12",
        "nqueensd_computations_running 1",
        "nqueensd_computations_queued 2",
        "nqueensd_computation_waiters 3",
        "nqueensd_computations_started_total 4",
        "nqueensd_computations_finished_total 5",
        "nqueensd_computations_cancelled_total 6",
        "nqueensd_computation_shared_total 7",
        "nqueensd_computation_rejected_total 8",
        "nqueensd_computation_deadline_total 9",
        "nqueensd_connections_open 42",
        "nqueensd_connections_accepted_total 43",
        "nqueensd_connections_refused_total 47",
        "nqueensd_connections_head_timeout_total 44",
        "nqueensd_request_body_bytes 45",
        "nqueensd_request_body_max_bytes 46",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) assert_has(t, lines[i]);
    free(t);
    /* Without state, none of those families appear. */
    t = render(m, NULL);
    ck_assert_ptr_null(strstr(t, "nqueensd_ready"));
    ck_assert_ptr_null(strstr(t, "nqueensd_cache_"));
    free(t);
    nq_metrics_destroy(m);
}
END_TEST

/* A computation's route and method name its kind; a method only where the route has more than one. */
static const struct {
    const char *route;
    const char *method;
    bool found;
    nq_metrics_kind kind;
} kind_rows[] = {
    {"count", NULL, true, NQ_METRICS_COUNT},
    {"solve", NULL, true, NQ_METRICS_SOLVE},
    {"solution", "construct", true, NQ_METRICS_SOLUTION_CONSTRUCT},
    {"solution", "random", true, NQ_METRICS_SOLUTION_RANDOM},
    {"complete", NULL, true, NQ_METRICS_COMPLETE},
    {"trace", NULL, true, NQ_METRICS_TRACE},
    {"solution", NULL, false, NQ_METRICS_COUNT},
    {"solution", "annealing", false, NQ_METRICS_COUNT},
    {"count", "random", false, NQ_METRICS_COUNT},
    {"healthz", NULL, false, NQ_METRICS_COUNT},
    {NULL, NULL, false, NQ_METRICS_COUNT},
};

START_TEST(kind_of_route_and_method)
{
    nq_metrics_kind k = NQ_METRICS_KINDS;
    ck_assert(nq_metrics_kind_find(kind_rows[_i].route, kind_rows[_i].method, &k) == kind_rows[_i].found);
    ck_assert_int_eq(k, kind_rows[_i].found ? kind_rows[_i].kind : NQ_METRICS_KINDS); /* untouched when not found */
}
END_TEST

/* More distinct routes than slots: the excess is counted under "other", nothing is lost. */
START_TEST(route_slots_overflow_into_other)
{
    nq_metrics *m = NULL;
    ck_assert_int_eq(nq_metrics_create("v", &m), NQ_OK);
    for (unsigned i = 0; i < NQ_METRICS_ROUTES_MAX + 5; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%u", i);
        const nq_request_record r = rec(name, 200, 0, 0);
        nq_metrics_observe_request(m, &r);
    }
    char *t = render(m, NULL);
    assert_has(t, "nqueensd_http_requests_total{route=\"r31\",status=\"200\"} 1");
    assert_has(t, "nqueensd_http_requests_total{route=\"other\",status=\"200\"} 5");
    ck_assert_ptr_null(strstr(t, "route=\"r32\""));
    free(t);
    nq_metrics_destroy(m);
}
END_TEST

#define THREADS 8
#define PER_THREAD 20000

static void *hammer(void *arg)
{
    nq_metrics *m = arg;
    static const char *const routes[] = {"solve", "count", "healthz", "metrics"};
    for (int i = 0; i < PER_THREAD; i++) {
        const nq_request_record r = rec(routes[i % 4], 200, 0.002, 1);
        nq_metrics_observe_request(m, &r);
    }
    return NULL;
}

/* Many threads seeing routes for the first time at once: every request is counted exactly once. */
START_TEST(concurrent_observers_lose_nothing)
{
    nq_metrics *m = NULL;
    ck_assert_int_eq(nq_metrics_create("v", &m), NQ_OK);
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++) ck_assert_int_eq(pthread_create(&th[i], NULL, hammer, m), 0);
    for (int i = 0; i < THREADS; i++) {
        char *t = render(m, NULL); /* scrapes racing the observers must be safe */
        free(t);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    char *t = render(m, NULL);
    char want[128];
    static const char *const routes[] = {"solve", "count", "healthz", "metrics"};
    for (int i = 0; i < 4; i++) {
        snprintf(want, sizeof want, "nqueensd_http_requests_total{route=\"%s\",status=\"200\"} %d", routes[i],
                 THREADS * PER_THREAD / 4);
        assert_has(t, want);
        snprintf(want, sizeof want, "nqueensd_http_request_duration_seconds_count{route=\"%s\"} %d", routes[i],
                 THREADS * PER_THREAD / 4);
        assert_has(t, want);
    }
    free(t);
    nq_metrics_destroy(m);
}
END_TEST

START_TEST(bad_arguments)
{
    nq_metrics *m = NULL;
    char *out = NULL;
    size_t len = 0;
    ck_assert_int_eq(nq_metrics_create(NULL, &m), NQ_E_ARG);
    ck_assert_int_eq(nq_metrics_create("v", NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_metrics_render(NULL, NULL, &out, &len), NQ_E_ARG);
    ck_assert_ptr_null(out);
    nq_metrics_observe_request(NULL, NULL);
    nq_metrics_observe_solver(NULL, NQ_METRICS_COUNT, 1);
    nq_metrics_destroy(NULL);
}
END_TEST

/* A representative exposition with every family, for promtool. */
static int write_sample(const char *path)
{
    nq_metrics *m = NULL;
    if (nq_metrics_create("1.0.0", &m) != NQ_OK) return 1;
    const nq_request_record r1 = rec("count", 200, 0.01, 30), r2 = rec("solve", 422, 0.2, 300);
    nq_metrics_observe_request(m, &r1);
    nq_metrics_observe_request(m, &r2);
    nq_metrics_observe_solver(m, NQ_METRICS_COUNT, 2);
    const nq_cache_stats cache = {.hits = 1, .max_bytes = 1024};
    const nq_metrics_pool pool = {.started = 1};
    const nq_metrics_conns conns = {.open = 1, .accepted = 2};
    const nq_metrics_state st = {.ready = true, .cache = &cache, .pool = &pool, .conns = &conns};
    char *out = NULL;
    size_t len = 0;
    int rc = 1;
    if (nq_metrics_render(m, &st, &out, &len) == NQ_OK) {
        FILE *f = fopen(path, "w");
        rc = f == NULL || fwrite(out, 1, len, f) != len;
        if (f != NULL && fclose(f) != 0) rc = 1;
    }
    free(out);
    nq_metrics_destroy(m);
    return rc;
}

static Suite *metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, requests_by_route_and_status);
    tcase_add_test(tc, latency_histogram_buckets);
    tcase_add_test(tc, state_and_solver_figures);
    tcase_add_loop_test(tc, kind_of_route_and_method, 0, (int)(sizeof kind_rows / sizeof kind_rows[0]));
    tcase_add_test(tc, route_slots_overflow_into_other);
    tcase_add_test(tc, concurrent_observers_lose_nothing);
    tcase_add_test(tc, bad_arguments);
    tcase_set_timeout(tc, 30);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc == 2) return write_sample(argv[1]);
    const int failed = nq_check_run(metrics_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
