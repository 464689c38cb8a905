/* test_hangup.c - a client that leaves while its request waits for a computation: the real nqueensd
 * notices it although libmicrohttpd does not watch the suspended connection, withdraws the waiter (so
 * the computation's budget cancels the count at once, with no deadline set), ends the request as
 * incomplete, and drains at once on SIGTERM. A live client that sends more bytes meanwhile (a
 * pipelined request) is not taken as leaving; clients leaving at every moment of short computations
 * leave nothing behind.
 *
 * The count asked for is n=25, which no machine finishes within the test, and the budget is 1 ms:
 * nothing depends on the machine's speed. Waits are polls with a generous hang guard (WAIT_S); the
 * one fixed pause (checking that nothing happens) can only make a broken server pass, never a
 * working one fail.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#endif
#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"
#include "harness.h"

#define WAIT_S 60.0 /* upper bound on waiting for a server-side state */
#define STOP_S 60u  /* SIGTERM to exit; the grace period is far longer, so only an idle server meets it */
#define LONG_COUNT "GET /count?n=25 HTTP/1.1\r\nHost: test\r\n\r\n"

/* No deadline, a 1 ms budget, one worker, and a grace period that outlasts STOP_S: a request left
 * in flight shows as a server that does not exit in time. No count is long (--long-count-n 26), so
 * n = 25 is counted on the solver worker itself, for its request alone. */
static const char *const args[] = {
    "--solver-workers", "1",    "--deadline-ms",  "0",  "--budget-ms", "1", "--max-n-count", "25",
    "--grace-s",        "3600", "--long-count-n", "26", NULL};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    const struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Poll until metric name reaches at least want; true if it did within WAIT_S. */
static bool metric_reaches(const nq_test_server *s, const char *name, double want)
{
    for (const double t0 = now_s(); now_s() - t0 < WAIT_S; sleep_ms(20)) {
        if (nq_harness_metric(s, name) >= want) {
            return true;
        }
    }
    return false;
}

/* A connected socket to the server that has sent req; -1 on failure. */
static int send_request(const nq_test_server *s, const char *req)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(s->port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const size_t len = strlen(req);
    if (connect(fd, (const struct sockaddr *)&a, sizeof a) != 0 || send(fd, req, len, MSG_NOSIGNAL) != (ssize_t)len) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The access log line of the request with query `query`, copied into line (cap bytes); true if it
 * appeared within WAIT_S. */
static bool access_line(const nq_test_server *s, const char *query, char *line, size_t cap)
{
    char want[64];
    snprintf(want, sizeof want, "\"query\":\"%s\"", query);
    for (const double t0 = now_s(); now_s() - t0 < WAIT_S; sleep_ms(20)) {
        char *log = nq_harness_log(s);
        const char *hit = log ? strstr(log, want) : NULL;
        if (hit) {
            const char *start = hit;
            while (start > log && start[-1] != '\n') {
                start--;
            }
            const size_t len = strcspn(start, "\n");
            snprintf(line, cap, "%.*s", (int)len, start);
            free(log);
            return true;
        }
        free(log);
    }
    return false;
}

/* After the client left: the count is cancelled, its request logged as incomplete, the only worker
 * free again, and SIGTERM finds nothing in flight. */
static void assert_left_cleanly(nq_test_server *s)
{
    ck_assert(metric_reaches(s, "nqueensd_computations_cancelled_total", 1));
    ck_assert_double_eq(nq_harness_metric(s, "nqueensd_computations_finished_total"), 0.0);
    ck_assert_double_eq(nq_harness_metric(s, "nqueensd_computation_waiters"), 0.0);
    char line[2048];
    ck_assert_msg(access_line(s, "n=25", line, sizeof line), "no access log line for the request");
    ck_assert_msg(strstr(line, "\"completed\":false") != NULL, "logged as complete: %s", line);
    nq_http_response r;
    ck_assert(nq_http_get(s, "/count?n=8", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"n\":8,\"total\":92,\"unique\":12}");
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(s, SIGTERM, STOP_S), 0);
}

START_TEST(client_leaving_cancels_its_computation)
{
    nq_test_server s;
    ck_assert(nq_harness_start(&s, args, NULL));
    const int fd = send_request(&s, LONG_COUNT);
    ck_assert_int_ge(fd, 0);
    ck_assert(metric_reaches(&s, "nqueensd_computations_running", 1));
    close(fd);
    assert_left_cleanly(&s);
}
END_TEST

START_TEST(pipelined_bytes_are_not_leaving)
{
    nq_test_server s;
    ck_assert(nq_harness_start(&s, args, NULL));
    const int fd = send_request(&s, LONG_COUNT);
    ck_assert_int_ge(fd, 0);
    ck_assert(metric_reaches(&s, "nqueensd_computations_running", 1));
    /* The next request arrives on the suspended connection: the client is still there. */
    static const char next[] = "GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n";
    ck_assert_int_eq(send(fd, next, sizeof next - 1, MSG_NOSIGNAL), (ssize_t)(sizeof next - 1));
    sleep_ms(300); /* a server that took the bytes for a hang-up cancels within the 1 ms budget */
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computations_cancelled_total"), 0.0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computations_running"), 1.0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computation_waiters"), 1.0);
    close(fd);
    assert_left_cleanly(&s);
}
END_TEST

/* Poll until metric name is 0; true if it was within WAIT_S. */
static bool metric_drops_to_zero(const nq_test_server *s, const char *name)
{
    for (const double t0 = now_s(); now_s() - t0 < WAIT_S; sleep_ms(20)) {
        if (nq_harness_metric(s, name) == 0.0) {
            return true;
        }
    }
    return false;
}

START_TEST(clients_leaving_at_any_moment)
{
    /* Short computations, each a different answer, with clients that leave before, while or after
     * it completes: hang-up, the pool's notify and completion race every way they can (TSan runs
     * this). The server must keep serving and end with nothing in flight. */
    static const char *const race_args[] = {
        "--solver-workers", "2", "--deadline-ms", "0", "--budget-ms", "1", "--grace-s", "3600", NULL};
    nq_test_server s;
    ck_assert(nq_harness_start(&s, race_args, NULL));
    for (int i = 0; i < 300; i++) {
        char req[96];
        snprintf(req, sizeof req, "GET /solve?n=10&limit=%d HTTP/1.1\r\nHost: test\r\n\r\n", i + 1);
        const int fd = send_request(&s, req);
        ck_assert_int_ge(fd, 0);
        const struct timespec pause = {0, (i % 8) * 250000L}; /* 0 to 1.75 ms */
        nanosleep(&pause, NULL);
        close(fd);
    }
    ck_assert(metric_drops_to_zero(&s, "nqueensd_computation_waiters"));
    ck_assert(metric_drops_to_zero(&s, "nqueensd_computations_running"));
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=8", &r));
    ck_assert_str_eq(r.body, "{\"n\":8,\"total\":92,\"unique\":12}");
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, STOP_S), 0);
}
END_TEST

static Suite *hangup_suite(void)
{
    Suite *const s = suite_create("hangup");
    TCase *const tc = tcase_create("hangup");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, client_leaving_cancels_its_computation);
    tcase_add_test(tc, pipelined_bytes_are_not_leaving);
    tcase_add_test(tc, clients_leaving_at_any_moment);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    const int failed = nq_check_run(hangup_suite());
    curl_global_cleanup();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
