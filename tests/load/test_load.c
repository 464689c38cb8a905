/* test_load.c - the real nqueensd under load: computations off the network threads, single-flight,
 * admission (queue full -> 503), the per-request deadline (503, then a cache hit), the budget that
 * cancels a computation nobody waits for, the connection limits (per IP, and in total: excess waits in
 * the backlog), draining while connections pour in, and the 414 / 431 caps. Each
 * test starts its own server on port 0 with small settings so it takes a second or two.
 *
 * Figures come from /metrics (nqueensd_computations_*), which is what an operator would look at.
 * No assertion is a latency: that /healthz and a cached answer do not wait for a busy solver is shown
 * by their answers arriving while the count that holds it is still running; how fast they arrive is
 * printed, a figure for docs/performance.md, which a loaded machine would move.
 *
 * No test guesses the machine's speed. Where a computation must still be running when the test looks,
 * it is a count of n = 20 (minutes on any machine, cancelled within milliseconds when the server
 * stops or the budget runs out); where a computation must end, the request waits as long as it takes
 * (--deadline-ms 0), so a slow build (sanitizers), a loaded machine or a CPU without AVX-512 only
 * makes the test slower.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#endif
#include <arpa/inet.h>
#include <check.h>
#include <curl/curl.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
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

/* OEIS A000170 / A002562, the answers the tests ask for. */
#define COUNT_17 "{\"n\":17,\"total\":95815104,\"unique\":11977939}"
/* A count that outlasts any test (about two minutes on two fast cores), for the server's limits below. */
#define LONG_COUNT "/count?n=20"
#define LONG_COUNT_MAX_N "--max-n-count", "20"

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

/* ---- requests in the background ----------------------------------------------------------------- */

typedef struct bg_request {
    const nq_test_server *s;
    const char *target;
    pthread_barrier_t *start; /* wait on it first, when not NULL */
    nq_http_response resp;    /* what came back */
    bool ok;                  /* an HTTP response arrived */
    atomic_bool done;         /* the thread finished */
    pthread_t thread;
} bg_request;

static void *bg_main(void *arg)
{
    bg_request *const b = arg;
    if (b->start != NULL) {
        pthread_barrier_wait(b->start);
    }
    b->ok = nq_http_get(b->s, b->target, &b->resp);
    atomic_store(&b->done, true);
    return NULL;
}

static void bg_start(bg_request *b, const nq_test_server *s, const char *target, pthread_barrier_t *start)
{
    memset(b, 0, sizeof *b);
    b->s = s;
    b->target = target;
    b->start = start;
    atomic_init(&b->done, false);
    ck_assert_int_eq(pthread_create(&b->thread, NULL, bg_main, b), 0);
}

static void bg_join(bg_request *b)
{
    pthread_join(b->thread, NULL);
    nq_http_response_free(&b->resp);
}

static void start_server(nq_test_server *s, const char *const *args)
{
    ck_assert_msg(nq_harness_start(s, args, NULL), "nqueensd did not start");
}

/* SIGTERM with requests still suspended on the pool: the server must still exit 0. */
static void stop_server(nq_test_server *s)
{
    ck_assert_int_eq(nq_harness_stop(s, SIGTERM, 20), 0);
}

static void assert_503_problem(const nq_http_response *r, const char *type)
{
    ck_assert_int_eq(r->status, 503);
    const char *const retry = nq_http_header_get(r, "Retry-After");
    ck_assert_ptr_nonnull(retry);
    char *end = NULL;
    const long seconds = strtol(retry, &end, 10);
    ck_assert(end != retry && *end == '\0' && seconds >= 1); /* delta-seconds */
    ck_assert_str_eq(nq_http_header_get(r, "Content-Type"), "application/problem+json");
    char want[96];
    snprintf(want, sizeof want, "\"type\":\"%s\"", type);
    ck_assert_msg(strstr(r->body, want) != NULL, "body %s lacks %s", r->body, want);
}

/* ---- tests -------------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a;
    const double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Probe target while it runs; returns the seconds it took. Must answer 200 with body want (if not
 * NULL) within a second whatever else happens. */
static double timed_probe(const nq_test_server *s, const char *target, const char *want)
{
    nq_http_response r;
    const double t0 = now_s();
    ck_assert(nq_http_get(s, target, &r));
    const double took = now_s() - t0;
    ck_assert_int_eq(r.status, 200);
    if (want != NULL) {
        ck_assert_str_eq(r.body, want);
    }
    nq_http_response_free(&r);
    return took;
}

/* Probes and cache hits never wait for a solver worker: with the only worker held by a count of
 * minutes, every probe is answered, with its exact body, before that count ends. Their latency is
 * printed, not asserted: a figure, which a loaded machine would move (docs/performance.md). */
START_TEST(probes_and_cached_answers_while_counting)
{
    enum { PROBES = 7 };
    static const char *const args[] = {"--solver-workers",
                                       "1",
                                       "--deadline-ms",
                                       "600000",
                                       "--grace-s",
                                       "0",
                                       LONG_COUNT_MAX_N,
                                       "--long-count-n",
                                       "28",
                                       NULL}; /* every count on the pool */
    static const char count_8[] = "{\"n\":8,\"total\":92,\"unique\":12}";
    nq_test_server s;
    start_server(&s, args);
    (void)timed_probe(&s, "/count?n=8", count_8); /* now cached */
    bg_request count;
    bg_start(&count, &s, LONG_COUNT, NULL); /* cancelled by the stop below */
    ck_assert(metric_reaches(&s, "nqueensd_computations_running", 1));

    double healthz[PROBES];
    double cached[PROBES];
    for (int i = 0; i < PROBES; i++) {
        healthz[i] = timed_probe(&s, "/healthz", NULL);
        cached[i] = timed_probe(&s, "/count?n=8", count_8); /* the only worker is busy: a hit or nothing */
        sleep_ms(30);
    }
    /* The count must still be running, or the probes proved nothing. */
    ck_assert_msg(!atomic_load(&count.done), "/count?n=18 ended before the probes did");
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computations_running"), 1.0);
    qsort(healthz, PROBES, sizeof healthz[0], cmp_double);
    qsort(cached, PROBES, sizeof cached[0], cmp_double);
    fprintf(stderr,
            "while counting, over %d probes: /healthz median %.1f ms (max %.1f), cached /count?n=8 "
            "median %.1f ms (max %.1f)\n",
            PROBES, healthz[PROBES / 2] * 1000.0, healthz[PROBES - 1] * 1000.0, cached[PROBES / 2] * 1000.0,
            cached[PROBES - 1] * 1000.0);
    stop_server(&s);
    bg_join(&count);
}
END_TEST

START_TEST(identical_requests_share_one_computation)
{
    enum { CLIENTS = 20 };
    /* Every count on the pool; no deadline: however long count(17) takes on this machine and build,
     * all 20 wait for it. */
    static const char *const args[] = {
        "--solver-workers", "2", "--http-threads", "4", "--long-count-n", "28", "--deadline-ms", "0", NULL};
    nq_test_server s;
    start_server(&s, args);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, CLIENTS);
    bg_request b[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        bg_start(&b[i], &s, "/count?n=17", &start); /* 0.7 s or more: most of them join it */
    }
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(b[i].thread, NULL);
        ck_assert(b[i].ok);
        ck_assert_int_eq(b[i].resp.status, 200);
        ck_assert_str_eq(b[i].resp.body, COUNT_17);
        nq_http_response_free(&b[i].resp);
    }
    pthread_barrier_destroy(&start);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computations_started_total"), 1.0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computations_finished_total"), 1.0);
    /* The other 19 either joined the computation in flight or arrived after it and hit the cache. */
    const double shared = nq_harness_metric(&s, "nqueensd_computation_shared_total");
    ck_assert_double_ge(shared, 0.0);
    ck_assert_double_le(shared, CLIENTS - 1);
    stop_server(&s);
}
END_TEST

START_TEST(queue_full_gives_503)
{
    static const char *const args[] = {
        "--solver-workers", "1",  "--queue-len", "1", "--deadline-ms", "600000", "--grace-s", "0", LONG_COUNT_MAX_N,
        "--long-count-n",   "28", NULL}; /* every count on the pool */
    nq_test_server s;
    start_server(&s, args);
    bg_request running;
    bg_request queued;
    bg_start(&running, &s, LONG_COUNT, NULL); /* minutes: both outlast the test's requests */
    ck_assert(metric_reaches(&s, "nqueensd_computations_running", 1));
    bg_start(&queued, &s, "/count?n=17", NULL);
    ck_assert(metric_reaches(&s, "nqueensd_computations_queued", 1));

    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=14", &r));
    assert_503_problem(&r, "/problems/overloaded");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    nq_http_response_free(&r);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computation_rejected_total"), 1.0);
    /* Cheap answers are not affected by the full queue. */
    ck_assert(nq_http_get(&s, "/healthz", &r));
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    ck_assert(!atomic_load(&running.done) && !atomic_load(&queued.done));
    stop_server(&s);
    bg_join(&running);
    bg_join(&queued);
}
END_TEST

START_TEST(deadline_gives_503_then_cache_hit)
{
    /* A 1 ms deadline, and a count of about 0.75 s on 2 idle cores (n = 17, on the pool: no long
     * counts): the timer thread may be late on a loaded machine, but not by all of that; slower
     * builds only widen the margin. */
    static const char *const args[] = {"--solver-workers", "1", "--deadline-ms", "1", "--long-count-n", "28", NULL};
    nq_test_server s;
    start_server(&s, args);
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=17", &r));
    assert_503_problem(&r, "/problems/deadline-exceeded");
    nq_http_response_free(&r);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computation_deadline_total"), 1.0);

    /* The computation goes on without its caller for at least the Retry-After (1 s; the pool's
     * NQ_POOL_RETRY_MS), and a caller that comes back within it attaches to it again (each time
     * getting its 503 after 1 ms): it finishes into the cache. Nobody coming back, it would be
     * cancelled (test_pool.c: abandoned_is_cancelled). */
    long status = 503;
    for (int i = 0; i < 3000 && status == 503; i++) { /* up to a few minutes on a loaded machine */
        sleep_ms(100);
        ck_assert(nq_http_get(&s, "/count?n=17", &r));
        status = r.status;
        nq_http_response_free(&r);
    }
    ck_assert_int_eq(status, 200);
    ck_assert(metric_reaches(&s, "nqueensd_computations_finished_total", 1));
    ck_assert(nq_http_get(&s, "/count?n=17", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, COUNT_17);
    ck_assert_str_eq(nq_http_header_get(&r, "Server-Timing"), "solver;dur=0.000"); /* a hit */
    nq_http_response_free(&r);
    stop_server(&s);
}
END_TEST

START_TEST(budget_cancels_unwatched_computation)
{
    /* The caller leaves after 100 ms; 300 ms into the count (of minutes) nobody waits for it any more. */
    static const char *const args[] = {"--solver-workers",
                                       "1",
                                       "--deadline-ms",
                                       "100",
                                       "--budget-ms",
                                       "300",
                                       LONG_COUNT_MAX_N,
                                       "--long-count-n",
                                       "28",
                                       NULL}; /* every count on the pool */
    nq_test_server s;
    start_server(&s, args);
    nq_http_response r;
    ck_assert(nq_http_get(&s, LONG_COUNT, &r));
    assert_503_problem(&r, "/problems/deadline-exceeded");
    nq_http_response_free(&r);
    ck_assert(metric_reaches(&s, "nqueensd_computations_cancelled_total", 1));
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computations_running"), 0.0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computations_finished_total"), 0.0);
    /* The only worker is free again. */
    ck_assert(nq_http_get(&s, "/count?n=8", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"n\":8,\"total\":92,\"unique\":12}");
    nq_http_response_free(&r);
    stop_server(&s);
}
END_TEST

/* max_uri_bytes 1K, max_header_bytes 2K: just over the caps is the server's own problem+json; far
 * over (beyond libmicrohttpd's per-connection memory) libmicrohttpd answers the same status itself. */
static const struct {
    size_t uri_pad;    /* bytes of query appended to /healthz? */
    size_t header_pad; /* bytes of an extra header's value */
    long status;
    const char *type; /* problem type, NULL when libmicrohttpd answers (its body is not ours) */
} cap_rows[] = {
    {900, 0, 200, NULL},  {1100, 0, 414, "/problems/uri-too-long"},      {200000, 0, 414, NULL},
    {0, 1800, 200, NULL}, {0, 2100, 431, "/problems/headers-too-large"}, {0, 200000, 431, NULL},
};

START_TEST(oversized_heads)
{
    static const char *const args[] = {"--max-uri-bytes", "1K", "--max-header-bytes", "2K", NULL};
    nq_test_server s;
    start_server(&s, args);
    const size_t upad = cap_rows[_i].uri_pad;
    const size_t hpad = cap_rows[_i].header_pad;
    char *const target = malloc(upad + 16u);
    char *const header = malloc(hpad + 16u);
    ck_assert(target != NULL && header != NULL);
    /* A too-long target is refused before routing, so its query is never parsed. */
    memcpy(target, "/healthz", 8);
    if (upad > 0) {
        target[8] = '?';
        memset(target + 9, 'a', upad - 1u);
    }
    target[8 + upad] = '\0';
    memcpy(header, "X-Pad: ", 7);
    memset(header + 7, 'b', hpad);
    header[7 + hpad] = '\0';
    const char *const headers[] = {header, NULL};
    nq_http_response r;
    ck_assert(nq_http_request(&s, "GET", target, hpad > 0 ? headers : NULL, &r));
    ck_assert_int_eq(r.status, cap_rows[_i].status);
    if (cap_rows[_i].type != NULL) {
        ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/problem+json");
        ck_assert_ptr_nonnull(strstr(r.body, cap_rows[_i].type));
    }
    nq_http_response_free(&r);
    free(target);
    free(header);
    /* The server is fine afterwards. */
    ck_assert(nq_http_get(&s, "/healthz", &r));
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    stop_server(&s);
}
END_TEST

/* A blocking connection to the server from 127.0.0.<host>. */
static int connect_from(uint16_t port, unsigned host)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = 0};
    src.sin_addr.s_addr = htonl(0x7f000000u | host);
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(port)};
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (const struct sockaddr *)&src, sizeof src), 0);
    ck_assert_int_eq(connect(fd, (const struct sockaddr *)&dst, sizeof dst), 0);
    return fd;
}

/* Send a GET /healthz on fd; 1 if a "200" status line comes back, 0 if the server closed the
 * connection without an answer, -1 if nothing happened within wait_ms. */
static int healthz_within(int fd, int wait_ms)
{
    static const char req[] = "GET /healthz HTTP/1.1\r\nHost: nqueens\r\n\r\n";
    if (send(fd, req, sizeof req - 1u, MSG_NOSIGNAL) != (ssize_t)(sizeof req - 1u)) {
        return 0; /* already closed by the server */
    }
    struct pollfd r = {.fd = fd, .events = POLLIN};
    if (poll(&r, 1, wait_ms) != 1) {
        return -1;
    }
    char buf[16] = {0};
    const ssize_t n = recv(fd, buf, sizeof buf - 1u, 0);
    if (n <= 0) {
        return 0;
    }
    return strncmp(buf, "HTTP/1.1 200", 12) == 0 ? 1 : -1;
}

/* healthz_within with a hang guard, for connections that must be answered (or closed). */
static int healthz_on(int fd)
{
    return healthz_within(fd, 30000);
}

/* Network threads: one (libmicrohttpd without a thread pool) and three (with one). */
static const char *const thread_rows[] = {"1", "3"};

START_TEST(per_ip_limit)
{
    const char *const args[] = {"--per-ip-limit", "2", "--http-threads", thread_rows[_i], NULL};
    nq_test_server s;
    start_server(&s, args);
    const int a = connect_from(s.port, 7);
    const int b = connect_from(s.port, 7);
    ck_assert_int_eq(healthz_on(a), 1); /* both served: the server has them */
    ck_assert_int_eq(healthz_on(b), 1);
    const int c = connect_from(s.port, 7); /* a third from the same address: closed unanswered */
    ck_assert_int_eq(healthz_on(c), 0);
    const int d = connect_from(s.port, 8); /* another address is not affected */
    ck_assert_int_eq(healthz_on(d), 1);
    close(a);
    close(b);
    close(c);
    close(d);
    stop_server(&s);
}
END_TEST

/* True if none of the connections in fds[0..n) still waiting (>= 0) gets data or an end of stream
 * within ms: they are all open and unanswered. */
static bool all_silent_for(const int *fds, size_t n, int ms)
{
    struct pollfd r[8];
    ck_assert_uint_le(n, 8);
    for (size_t i = 0; i < n; i++) {
        r[i] = (struct pollfd){.fd = fds[i], .events = POLLIN}; /* a negative fd is ignored */
    }
    return poll(r, (nfds_t)n, ms) == 0;
}

/* Of the connections in fds[0..n) not yet answered (>= 0), the one that got an answer within 30 s:
 * its index, after checking it is a 200; it stays open (it holds a slot), moved to *kept
 * (fds[i] = -1). -1 if none was answered. */
static int answered_one(int *fds, size_t n, int *kept)
{
    struct pollfd r[8];
    ck_assert_uint_le(n, 8);
    for (size_t i = 0; i < n; i++) {
        r[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
    }
    if (poll(r, (nfds_t)n, 30000) < 1) {
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (fds[i] >= 0 && (r[i].revents & POLLIN) != 0) {
            char buf[16] = {0};
            ck_assert_int_gt(recv(fds[i], buf, sizeof buf - 1u, 0), 0);
            ck_assert_msg(strncmp(buf, "HTTP/1.1 200", 12) == 0, "answer: %s", buf);
            *kept = fds[i];
            fds[i] = -1;
            return (int)i;
        }
    }
    return -1;
}

/* At --conn-limit new connections are neither served nor closed: they wait in the kernel's backlog,
 * and each slot that frees lets exactly one of them in. The limit is the total over all network
 * threads. (Counting by libmicrohttpd's own figure let several in per slot and, at its own limit,
 * hung the server: listener.h.) */
START_TEST(conn_limit_waits_in_backlog)
{
    const char *const args[] = {"--conn-limit", "3", "--http-threads", thread_rows[_i], NULL};
    nq_test_server s;
    start_server(&s, args);
    int held[3];
    for (size_t i = 0; i < 3; i++) {
        held[i] = connect_from(s.port, 9);
        ck_assert_int_eq(healthz_on(held[i]), 1); /* each one open and served: the limit is reached */
    }
    int waiting[3];
    static const char req[] = "GET /healthz HTTP/1.1\r\nHost: nqueens\r\n\r\n";
    for (size_t i = 0; i < 3; i++) {
        waiting[i] = connect_from(s.port, 10); /* the kernel completes it from the backlog */
        ck_assert_int_eq(send(waiting[i], req, sizeof req - 1u, MSG_NOSIGNAL), (ssize_t)(sizeof req - 1u));
    }
    ck_assert_msg(all_silent_for(waiting, 3, 500), "a connection beyond the limit was answered or closed");
    for (size_t freed = 0; freed < 2; freed++) {
        close(held[freed]);
        ck_assert_int_ge(answered_one(waiting, 3, &held[freed]), 0);
        ck_assert_msg(all_silent_for(waiting, 3, 500), "one freed slot let more than one waiting connection in");
    }
    stop_server(&s); /* the last waiting one is reset with the backlog */
    for (size_t i = 0; i < 3; i++) {
        close(held[i]);
        if (waiting[i] >= 0) {
            close(waiting[i]);
        }
    }
}
END_TEST

/* Clients that connect, ask and hang up, as fast as they can, until stop is set. */
typedef struct storm {
    uint16_t port;
    atomic_bool stop;
    atomic_uint answered; /* requests that got a 200 */
} storm;

static void *storm_main(void *arg)
{
    storm *const st = arg;
    while (!atomic_load(&st->stop)) {
        const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(st->port)};
        dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (fd >= 0 && connect(fd, (const struct sockaddr *)&dst, sizeof dst) == 0) {
            if (healthz_within(fd, 5000) == 1) { /* short: the storm must notice its stop */
                atomic_fetch_add(&st->answered, 1u);
            }
        } else {
            sleep_ms(1); /* refused while draining: do not spin against the server on two cores */
        }
        if (fd >= 0) {
            close(fd);
        }
    }
    return NULL;
}

/* SIGTERM while connections keep arriving on many network threads: the server drains and exits 0.
 * (Drained through libmicrohttpd's MHD_quiesce_daemon, it aborted now and then: listener.h.) */
START_TEST(sigterm_during_connection_storm)
{
    static const char *const args[] = {"--http-threads", "8", NULL};
    for (int round = 0; round < 5; round++) {
        nq_test_server s;
        start_server(&s, args);
        storm st = {.port = s.port};
        atomic_init(&st.stop, false);
        atomic_init(&st.answered, 0u);
        pthread_t clients[3];
        for (size_t i = 0; i < 3; i++) {
            ck_assert_int_eq(pthread_create(&clients[i], NULL, storm_main, &st), 0);
        }
        for (const double t0 = now_s(); atomic_load(&st.answered) < 50u && now_s() - t0 < WAIT_S;) {
            sleep_ms(5);
        }
        ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
        atomic_store(&st.stop, true);
        for (size_t i = 0; i < 3; i++) {
            pthread_join(clients[i], NULL);
        }
        ck_assert_uint_ge(atomic_load(&st.answered), 50u);
    }
}
END_TEST

static Suite *load_suite(void)
{
    Suite *const s = suite_create("load");
    TCase *const pool = tcase_create("pool");
    tcase_set_timeout(pool, 120);
    tcase_add_test(pool, probes_and_cached_answers_while_counting);
    tcase_add_test(pool, identical_requests_share_one_computation);
    tcase_add_test(pool, queue_full_gives_503);
    tcase_add_test(pool, deadline_gives_503_then_cache_hit);
    tcase_add_test(pool, budget_cancels_unwatched_computation);
    suite_add_tcase(s, pool);

    TCase *const conns = tcase_create("connections");
    tcase_set_timeout(conns, 60);
    tcase_add_loop_test(conns, per_ip_limit, 0, 2);
    tcase_add_loop_test(conns, conn_limit_waits_in_backlog, 0, 2);
    tcase_add_test(conns, sigterm_during_connection_storm);
    suite_add_tcase(s, conns);

    TCase *const caps = tcase_create("caps");
    tcase_set_timeout(caps, 60);
    tcase_add_loop_test(caps, oversized_heads, 0, (int)(sizeof cap_rows / sizeof cap_rows[0]));
    suite_add_tcase(s, caps);
    return s;
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL); /* once, before any thread: the harness's easy handles rely on it */
    const int failed = nq_check_run(load_suite());
    curl_global_cleanup();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
