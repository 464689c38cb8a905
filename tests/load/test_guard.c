/* test_guard.c - unit tests of the connection guard (src/server/http/guard.c) on a minimal libmicrohttpd
 * daemon over loopback: the head deadline closes silent, slowloris and idle keep-alive connections,
 * complete requests are served, the 414 / 431 caps, and a request a closed connection left unfinished
 * is handed back.
 *
 * The daemon here is not nqueensd: it is the smallest server that wires the guard the way server.c
 * does (options, head received, request done), so these tests pin the guard's own behaviour. The
 * real server is exercised by test_load.c. Timing bounds are generous: the head timeout is 1 s and a
 * connection counts as closed in time if that happens within 6 s.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#endif
#include "base/errors.h"
#include "http/guard.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdatomic.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"

#define CLOSE_WITHIN_MS 6000 /* a connection past its 1 s head deadline must be gone by then */

typedef struct server {
    nq_guard *guard;
    struct MHD_Daemon *daemon;
    uint16_t port;
} server;

/* Per-request context, created by the URI log callback. */
typedef struct request {
    size_t uri_len; /* the raw request target's length */
    bool seen;      /* the handler was called once already */
} request;

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    request *const r = calloc(1, sizeof *r);
    if (r != NULL) {
        r->uri_len = strlen(uri);
    }
    return r;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload, size_t *upload_size, void **ctx)
{
    (void)url;
    (void)method;
    (void)version;
    (void)upload;
    (void)upload_size;
    server *const s = cls;
    request *const req = *ctx;
    if (req == NULL) {
        return MHD_NO;
    }
    if (!req->seen) { /* libmicrohttpd keeps the connection alive only if we answer on a later call */
        req->seen = true;
        nq_guard_head_received(c);
        return MHD_YES;
    }
    const nq_err err = nq_guard_check_head(s->guard, c, req->uri_len);
    const unsigned status = err == NQ_OK ? 200u : (unsigned)nq_error_status(err);
    static char body[] = "ok"; /* persistent and writable, as libmicrohttpd's prototype wants */
    struct MHD_Response *const r = MHD_create_response_from_buffer(2, body, MHD_RESPMEM_PERSISTENT);
    const enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_RequestTerminationCode code)
{
    (void)cls;
    (void)code;
    nq_guard_request_done(c);
    free(*ctx);
    *ctx = NULL;
}

/* Head timeout 1 s; keep-alive allowance idle_timeout_s. */
static void server_start(server *s, unsigned idle_timeout_s)
{
    const nq_guard_config cfg = {
        .idle_timeout_s = idle_timeout_s, .head_timeout_s = 1, .max_uri_bytes = 100, .max_header_bytes = 200};
    ck_assert_int_eq(nq_guard_create(&cfg, &s->guard), NQ_OK);
    struct MHD_OptionItem opts[NQ_GUARD_MHD_OPTIONS];
    ck_assert_uint_ge(nq_guard_mhd_options(s->guard, opts, NQ_GUARD_MHD_OPTIONS), 3);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, handler, s,
                                 MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_THREAD_POOL_SIZE, 2u,
                                 MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL, MHD_OPTION_NOTIFY_COMPLETED, completed,
                                 NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    ck_assert_ptr_nonnull(s->daemon);
    const union MHD_DaemonInfo *const info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    ck_assert_ptr_nonnull(info);
    s->port = info->port;
}

static void server_stop(server *s)
{
    MHD_stop_daemon(s->daemon);
    nq_guard_destroy(s->guard);
}

static int connect_to(uint16_t port)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (const struct sockaddr *)&addr, sizeof addr), 0);
    const struct timeval tv = {.tv_sec = CLOSE_WITHIN_MS / 1000, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void sleep_ms(long ms)
{
    const struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Read until the peer closes; true if it did (EOF or reset) rather than the receive timeout. */
static bool peer_closes(int fd)
{
    char buf[512];
    for (;;) {
        const ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
            return true;
        }
        if (n < 0) {
            return false; /* timed out: still open */
        }
    }
}

/* Send a whole request and return the status of the response (0 if none could be read). */
static unsigned exchange(int fd, const char *req)
{
    ck_assert_int_eq(send(fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    char buf[1024];
    const ssize_t n = recv(fd, buf, sizeof buf - 1u, 0);
    if (n <= 12) {
        return 0;
    }
    buf[n] = '\0';
    static const char version[] = "HTTP/1.1 ";
    if (strncmp(buf, version, sizeof version - 1u) != 0) {
        return 0;
    }
    char *end = NULL;
    const unsigned long status = strtoul(buf + sizeof version - 1u, &end, 10);
    return *end == ' ' && status >= 100 && status <= 599 ? (unsigned)status : 0;
}

/* ---- arguments ---------------------------------------------------------------------------------- */

static const struct {
    nq_guard_config cfg;
    nq_err want;
} create_rows[] = {
    {{.head_timeout_s = 1, .max_uri_bytes = 64, .max_header_bytes = 1024}, NQ_OK},
    {{.head_timeout_s = 0, .max_uri_bytes = 64, .max_header_bytes = 1024}, NQ_E_ARG},
    {{.head_timeout_s = 1, .max_uri_bytes = 0, .max_header_bytes = 1024}, NQ_E_ARG},
    {{.head_timeout_s = 1, .max_uri_bytes = 64, .max_header_bytes = 0}, NQ_E_ARG},
};

START_TEST(create_args)
{
    nq_guard *g = NULL;
    ck_assert_int_eq(nq_guard_create(&create_rows[_i].cfg, &g), create_rows[_i].want);
    ck_assert(create_rows[_i].want == NQ_OK ? g != NULL : g == NULL);
    nq_guard_destroy(g);
}
END_TEST

START_TEST(options)
{
    static const struct {
        unsigned per_ip;
        size_t want;
    } rows[] = {{0, 3}, {3, 4}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const nq_guard_config cfg = {.per_ip_limit = rows[i].per_ip,
                                     .idle_timeout_s = 30,
                                     .head_timeout_s = 1,
                                     .max_uri_bytes = 64,
                                     .max_header_bytes = 1024};
        nq_guard *g = NULL;
        ck_assert_int_eq(nq_guard_create(&cfg, &g), NQ_OK);
        struct MHD_OptionItem opts[NQ_GUARD_MHD_OPTIONS];
        ck_assert_uint_eq(nq_guard_mhd_options(g, opts, NQ_GUARD_MHD_OPTIONS), rows[i].want);
        ck_assert_int_eq(opts[rows[i].want].option, MHD_OPTION_END);
        ck_assert_int_eq(opts[0].option, MHD_OPTION_CONNECTION_TIMEOUT);
        ck_assert_int_eq(opts[0].value, 30 + NQ_GUARD_IDLE_GRACE_S); /* closed the grace after the announced 30 s */
        ck_assert_uint_eq(nq_guard_mhd_options(g, opts, NQ_GUARD_MHD_OPTIONS - 1u), 0); /* too small */
        nq_guard_destroy(g);
    }
    nq_guard_destroy(NULL);
}
END_TEST

/* ---- the head deadline -------------------------------------------------------------------------- */

START_TEST(silent_connection_closed)
{
    server s;
    server_start(&s, 30);
    const int fd = connect_to(s.port);
    const uint64_t t0 = now_ms();
    ck_assert(peer_closes(fd));
    const uint64_t took = now_ms() - t0;
    ck_assert_uint_ge(took, 500); /* not before its deadline (1 s, minus clock granularity) */
    ck_assert_uint_le(took, CLOSE_WITHIN_MS);
    close(fd);
    nq_guard_stats st;
    nq_guard_stats_get(s.guard, &st);
    ck_assert_uint_eq(st.head_timeouts, 1);
    ck_assert_uint_eq(st.accepted, 1);
    server_stop(&s);
}
END_TEST

START_TEST(slowloris_closed)
{
    server s;
    server_start(&s, 30);
    const int fd = connect_to(s.port);
    static const char req[] = "GET /a-rather-long-path-that-takes-a-while HTTP/1.1\r\nHost: x\r\n\r\n";
    const uint64_t t0 = now_ms();
    size_t sent = 0;
    bool refused = false;
    while (sent < sizeof req - 1u && now_ms() - t0 < CLOSE_WITHIN_MS) {
        if (send(fd, req + sent, 1, MSG_NOSIGNAL) != 1) {
            refused = true; /* the server shut the connection down */
            break;
        }
        sent++;
        sleep_ms(100); /* a byte every 100 ms: every byte would reset an idle timeout */
    }
    ck_assert_msg(refused || peer_closes(fd), "slow head still open after %zu bytes", sent);
    ck_assert_uint_lt(sent, sizeof req - 1u); /* cut off before the head was complete */
    close(fd);
    server_stop(&s);
}
END_TEST

START_TEST(keepalive_allowance_then_cut)
{
    server s;
    server_start(&s, 3); /* between requests: max(idle 3 s + the grace, head 1 s) */
    const int fd = connect_to(s.port);
    ck_assert_uint_eq(exchange(fd, "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n"), 200);
    sleep_ms(1300); /* past the head timeout, well within the keep-alive allowance */
    ck_assert_uint_eq(exchange(fd, "GET /again HTTP/1.1\r\nHost: x\r\n\r\n"), 200);
    /* Now trickle the next head: every byte resets libmicrohttpd's idle timeout, not the guard's. */
    static const char next[] = "GET /slow HTTP/1.1\r\nHost: x\r\nX-Trickle: aaaaaaaaaaaaaaaaaaaa\r\n\r\n";
    const uint64_t t0 = now_ms();
    size_t sent = 0;
    while (sent < sizeof next - 1u && send(fd, next + sent, 1, MSG_NOSIGNAL) == 1) {
        sent++;
        sleep_ms(200);
    }
    const uint64_t took = now_ms() - t0;
    ck_assert_uint_lt(sent, sizeof next - 1u); /* cut before the head was complete */
    ck_assert_uint_ge(took, 2500);             /* not before the 3 s allowance */
    ck_assert_uint_le(took, CLOSE_WITHIN_MS + NQ_GUARD_IDLE_GRACE_S * 1000u);
    close(fd);
    nq_guard_stats st;
    nq_guard_stats_get(s.guard, &st);
    ck_assert_uint_eq(st.head_timeouts, 1);
    server_stop(&s);
}
END_TEST

/* ---- caps: 414 and 431 (max_uri_bytes 100, max_header_bytes 200) ------------------------------- */

static const struct {
    size_t uri_len;    /* request target length */
    size_t header_len; /* length of one extra header's value */
    unsigned want;
} cap_rows[] = {
    {100, 0, 200}, {101, 0, 414}, {5000, 0, 414}, {10, 150, 200}, {10, 200, 431}, {10, 4000, 431},
};

START_TEST(caps)
{
    server s;
    server_start(&s, 30);
    char target[8192];
    ck_assert_uint_lt(cap_rows[_i].uri_len, sizeof target);
    target[0] = '/';
    memset(target + 1, 'a', cap_rows[_i].uri_len - 1u);
    target[cap_rows[_i].uri_len] = '\0';
    char value[8192];
    memset(value, 'v', cap_rows[_i].header_len);
    value[cap_rows[_i].header_len] = '\0';
    char req[20000];
    const int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nX-Pad: %s\r\n\r\n", target, value);
    ck_assert(n > 0 && (size_t)n < sizeof req);
    const int fd = connect_to(s.port);
    ck_assert_uint_eq(exchange(fd, req), cap_rows[_i].want);
    close(fd);
    server_stop(&s);
}
/* ---- requests a closed connection leaves unfinished ----------------------------------------------- */

/* A daemon whose requests are begun with the guard (nq_guard_request_begin) and never reported done:
 * each close must hand its request to the abandoned hook, exactly once. */
typedef struct abandon_server {
    nq_guard *guard;
    struct MHD_Daemon *daemon;
    uint16_t port;
    atomic_uint handed; /* requests the hook received */
} abandon_server;

static char abandon_marker; /* the request pointer the hook must get back */

static void *abandon_uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)uri;
    nq_guard_request_begin(c, &abandon_marker);
    return NULL;
}

static void abandoned(void *cls, struct MHD_Connection *c, void *req)
{
    (void)c;
    abandon_server *const s = cls;
    atomic_fetch_add(&s->handed, req == &abandon_marker ? 1u : 1000u); /* checked on the test's thread */
}

START_TEST(abandoned_request_handed_back)
{
    abandon_server s = {0};
    atomic_init(&s.handed, 0u);
    const nq_guard_config cfg = {.idle_timeout_s = 30,
                                 .head_timeout_s = 1,
                                 .max_uri_bytes = 100,
                                 .max_header_bytes = 200,
                                 .abandoned = abandoned,
                                 .abandoned_cls = &s};
    ck_assert_int_eq(nq_guard_create(&cfg, &s.guard), NQ_OK);
    struct MHD_OptionItem opts[NQ_GUARD_MHD_OPTIONS];
    ck_assert_uint_ge(nq_guard_mhd_options(s.guard, opts, NQ_GUARD_MHD_OPTIONS), 3);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    s.daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, handler, NULL,
                                MHD_OPTION_SOCK_ADDR, &addr, MHD_OPTION_URI_LOG_CALLBACK, abandon_uri_log, NULL,
                                MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    ck_assert_ptr_nonnull(s.daemon);
    s.port = MHD_get_daemon_info(s.daemon, MHD_DAEMON_INFO_BIND_PORT)->port;
    const int fd = connect_to(s.port);
    static const char line[] = "GET /left HTTP/1.1\r\n"; /* a request line, then nothing */
    ck_assert_int_eq(send(fd, line, sizeof line - 1u, 0), (ssize_t)(sizeof line - 1u));
    char b;
    ck_assert_int_le(recv(fd, &b, 1, 0), 0); /* the head deadline closes it */
    close(fd);
    for (int i = 0; i < 600 && atomic_load(&s.handed) == 0u; i++) {
        const struct timespec pause = {0, 10L * 1000L * 1000L};
        nanosleep(&pause, NULL);
    }
    MHD_stop_daemon(s.daemon);
    ck_assert_uint_eq(atomic_load(&s.handed), 1u);
    nq_guard_destroy(s.guard);
}
END_TEST

END_TEST

static Suite *guard_suite(void)
{
    Suite *const s = suite_create("guard");
    TCase *const args = tcase_create("args");
    tcase_add_loop_test(args, create_args, 0, (int)(sizeof create_rows / sizeof create_rows[0]));
    tcase_add_test(args, options);
    suite_add_tcase(s, args);

    TCase *const head = tcase_create("head deadline");
    tcase_set_timeout(head, 30);
    tcase_add_test(head, silent_connection_closed);
    tcase_add_test(head, slowloris_closed);
    tcase_add_test(head, keepalive_allowance_then_cut);
    tcase_add_test(head, abandoned_request_handed_back);
    suite_add_tcase(s, head);

    TCase *const caps_tc = tcase_create("caps");
    tcase_add_loop_test(caps_tc, caps, 0, (int)(sizeof cap_rows / sizeof cap_rows[0]));
    suite_add_tcase(s, caps_tc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(guard_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
