/* test_http_ops.c - the operations side of the real nqueensd over loopback: probes, /metrics (content,
 * gzip, promtool), access and life-cycle log lines, graceful shutdown, and the command line (--help,
 * --version, bad values, --probe, a port in use).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET; includes POSIX 2008 */
#endif

#include <arpa/inet.h>
#include <check.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check_json.h"
#include "check_run.h"
#include "harness.h"

#ifndef NQ_TEST_NQUEENSD
#error "NQ_TEST_NQUEENSD must name the nqueensd binary (set by CMake)"
#endif

static void sleep_ms(unsigned ms)
{
    const struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void start(nq_test_server *s, const char *const *args)
{
    ck_assert_msg(nq_harness_start(s, args, NULL), "nqueensd did not start");
}

static void get_ok(const nq_test_server *s, const char *target, const char *const *headers, nq_http_response *r)
{
    ck_assert_msg(nq_http_request(s, "GET", target, headers, r), "GET %s: no response", target);
}

/* ---- probes ------------------------------------------------------------------------------------- */

/* /healthz's body: the release (CMake's project version) beside the status. */
#define HEALTHZ_BODY "{\"status\":\"ok\",\"version\":\"" NQ_TEST_VERSION "\"}"

static const struct probe_row {
    const char *method;
    const char *target;
    long status;
    const char *body; /* exact body, or NULL for none */
} probe_rows[] = {
    {"GET", "/healthz", 200, HEALTHZ_BODY},
    {"GET", "/readyz", 200, "{\"status\":\"ready\"}"},
    {"HEAD", "/healthz", 200, ""},
    {"HEAD", "/readyz", 200, ""},
    {"GET", "/healthz?x=1", 200, HEALTHZ_BODY}, /* probes take no parameters, and mind none */
    {"POST", "/healthz", 405, NULL},
    {"OPTIONS", "/readyz", 204, ""},
};

START_TEST(probes_answer)
{
    nq_test_server s;
    start(&s, NULL);
    for (size_t i = 0; i < sizeof probe_rows / sizeof probe_rows[0]; i++) {
        const struct probe_row *row = &probe_rows[i];
        nq_http_response r;
        ck_assert(nq_http_request(&s, row->method, row->target, NULL, &r));
        ck_assert_msg(r.status == row->status, "%s %s: %ld", row->method, row->target, r.status);
        if (row->body != NULL) ck_assert_str_eq(r.body, row->body);
        if (row->status == 200) {
            ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
            ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
            ck_assert_ptr_null(nq_http_header_get(&r, "ETag"));
        }
        ck_assert_ptr_nonnull(nq_http_header_get(&r, "X-Request-Id"));
        nq_http_response_free(&r);
    }
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
}
END_TEST

/* The description the server serves names the release it describes: openapi.yaml's info.version is
 * CMake's project version, the one /healthz and --version report. */
START_TEST(openapi_version_is_the_release)
{
    nq_test_server s;
    start(&s, NULL);
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/openapi.yaml", &r));
    ck_assert_int_eq(r.status, 200);
    const char *info = strstr(r.body, "\ninfo:\n");
    ck_assert_ptr_nonnull(info);
    const char *version = strstr(info, "\n  version: ");
    ck_assert_ptr_nonnull(version);
    char want[64];
    (void)snprintf(want, sizeof want, "\n  version: %s\n", NQ_TEST_VERSION);
    ck_assert_int_eq(strncmp(version, want, strlen(want)), 0);
    ck_assert(version < strstr(info, "\npaths:")); /* info's own, not a later one */
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
}
END_TEST

/* ---- metrics ------------------------------------------------------------------------------------ */

/* The first of lines[0..n) that body lacks as a whole line, or NULL if it has them all. */
static const char *missing_line(const char *body, const char *const *lines, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char want[256];
        snprintf(want, sizeof want, "\n%s\n", lines[i]);
        if (strstr(body, want) == NULL) return lines[i];
    }
    return NULL;
}

/* /metrics once it shows every one of lines[0..n) (malloc'd). A request is counted when libmicrohttpd
 * reports it complete, which may come a moment after its client has the whole response, on another
 * network thread than the one serving the scrape: so poll, for up to 2 s. */
static char *metrics_with(const nq_test_server *s, const char *const *lines, size_t n)
{
    enum { ATTEMPTS = 600 }; /* 30 s: requests are counted on completion, which a loaded machine delays */
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        nq_http_response r;
        get_ok(s, "/metrics", NULL, &r);
        ck_assert_int_eq(r.status, 200);
        char *body = r.body;
        r.body = NULL;
        nq_http_response_free(&r);
        const char *const missing = missing_line(body, lines, n);
        if (missing == NULL) return body;
        if (attempt == ATTEMPTS - 1) {
            fprintf(stderr, "/metrics:\n%s\n", body); /* too long for a Check message */
            ck_abort_msg("/metrics never showed \"%s\"", missing);
        }
        free(body);
        sleep_ms(50);
    }
    return NULL;
}

START_TEST(metrics_count_requests)
{
    nq_test_server s;
    start(&s, NULL);
    nq_http_response r;
    get_ok(&s, "/count?n=6", NULL, &r);
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    get_ok(&s, "/count?n=6", NULL, &r); /* the same again: a cache hit */
    nq_http_response_free(&r);
    get_ok(&s, "/count?n=0", NULL, &r);
    ck_assert_int_eq(r.status, 400);
    nq_http_response_free(&r);
    get_ok(&s, "/nowhere", NULL, &r);
    nq_http_response_free(&r);

    get_ok(&s, "/metrics", NULL, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    nq_http_response_free(&r);

    static const char *const lines[] = {
        "nqueensd_http_requests_total{route=\"count\",status=\"200\"} 2",
        "nqueensd_http_requests_total{route=\"count\",status=\"400\"} 1",
        "nqueensd_http_requests_total{route=\"not_found\",status=\"404\"} 1",
        "nqueensd_http_request_duration_seconds_count{route=\"count\"} 3",
        "nqueensd_solver_runs_total{kind=\"count\"} 1",
        "nqueensd_cache_hits_total 1",
        "nqueensd_ready 1",
        "# TYPE nqueensd_http_request_duration_seconds histogram",
    };
    char *m = metrics_with(&s, lines, sizeof lines / sizeof lines[0]);
    char build[64];
    snprintf(build, sizeof build, "nqueensd_build_info{version=\"%s\"} 1\n", NQ_TEST_VERSION);
    ck_assert_ptr_nonnull(strstr(m, build));
    free(m);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
}
END_TEST

START_TEST(metrics_gzip)
{
    nq_test_server s;
    start(&s, NULL);
    nq_http_response r;
    const char *const gz[] = {"Accept-Encoding: gzip", NULL};
    get_ok(&s, "/metrics", gz, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Encoding"), "gzip");
    ck_assert_str_eq(nq_http_header_get(&r, "Vary"), "Accept-Encoding");
    char *text = NULL;
    size_t len = 0;
    ck_assert(nq_harness_gunzip(r.body, r.body_len, &text, &len));
    ck_assert_ptr_nonnull(strstr(text, "# TYPE nqueensd_build_info gauge\n"));
    free(text);
    nq_http_response_free(&r);
    const char *const no[] = {"Accept-Encoding: gzip;q=0", NULL};
    get_ok(&s, "/metrics", no, &r);
    ck_assert_ptr_null(nq_http_header_get(&r, "Content-Encoding"));
    ck_assert_ptr_nonnull(strstr(r.body, "# TYPE nqueensd_build_info gauge\n"));
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
}
END_TEST

#ifdef NQ_TEST_PROMTOOL
/* `promtool check metrics < path`; its exit status. */
static int promtool_check(const char *path)
{
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        const int in = open(path, O_RDONLY);
        if (in < 0 || dup2(in, 0) < 0) _exit(127);
        execl(NQ_TEST_PROMTOOL, "promtool", "check", "metrics", (char *)NULL);
        _exit(127);
    }
    int ws = 0;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}
#endif

/* What the live server exposes satisfies Prometheus' own linter. */
START_TEST(metrics_pass_promtool)
{
#ifdef NQ_TEST_PROMTOOL
    nq_test_server s;
    start(&s, NULL);
    nq_http_response r;
    get_ok(&s, "/count?n=5", NULL, &r);
    nq_http_response_free(&r);
    get_ok(&s, "/solve?n=4", NULL, &r);
    nq_http_response_free(&r);
    static const char *const solved[] = {"nqueensd_http_requests_total{route=\"count\",status=\"200\"} 1",
                                         "nqueensd_http_requests_total{route=\"solve\",status=\"200\"} 1"};
    char *m = metrics_with(&s, solved, 2);
    char path[] = "/tmp/nq-metrics-XXXXXX";
    const int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, m, strlen(m)), (ssize_t)strlen(m));
    close(fd);
    const int rc = promtool_check(path);
    unlink(path);
    ck_assert_msg(rc == 0, "promtool check metrics failed on:\n%s", m);
    free(m);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
#endif
}
END_TEST

/* ---- logs --------------------------------------------------------------------------------------- */

/* The JSON object of the first log line with "msg":msg and, when needle is not NULL, containing
 * needle; NULL if none. */
static cJSON *find_line(const char *log, const char *msg, const char *needle)
{
    char tag[64];
    snprintf(tag, sizeof tag, "\"msg\":\"%s\"", msg);
    for (const char *p = log; p != NULL && *p != '\0';) {
        const char *end = strchr(p, '\n');
        const size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
        char *line = strndup(p, len);
        cJSON *j = NULL;
        if (strstr(line, tag) != NULL && (needle == NULL || strstr(line, needle) != NULL)) {
            j = cJSON_Parse(line);
            ck_assert_msg(j != NULL, "log line is not JSON: %s", line);
        }
        free(line);
        if (j != NULL) return j;
        p = end != NULL ? end + 1 : NULL;
    }
    return NULL;
}

/* Poll the server's output until it contains needle (requests are logged on completion). */
static char *log_with(const nq_test_server *s, const char *needle)
{
    for (int i = 0; i < 1500; i++) { /* up to 30 s: a loaded machine may log late, never early */
        char *log = nq_harness_log(s);
        if (log != NULL && strstr(log, needle) != NULL) return log;
        free(log);
        sleep_ms(20);
    }
    ck_abort_msg("the log never showed %s", needle);
    return NULL;
}

START_TEST(access_log_lines)
{
    nq_test_server s;
    start(&s, NULL);
    nq_http_response r;
    const char *const id1[] = {"X-Request-Id: ops-log-1", NULL};
    const char *const id2[] = {"X-Request-Id: ops-log-2", NULL};
    get_ok(&s, "/count?n=7", id1, &r);
    ck_assert_int_eq(r.status, 200);
    const size_t body_len = r.body_len;
    nq_http_response_free(&r);
    get_ok(&s, "/count?n=7", id2, &r);
    nq_http_response_free(&r);
    /* Each line is written when libmicrohttpd reports its request complete, possibly after the
     * client has the response and on another network thread: the first may come after the second. */
    free(log_with(&s, "\"request_id\":\"ops-log-1\""));
    char *log = log_with(&s, "\"request_id\":\"ops-log-2\"");

    cJSON *up = find_line(log, "listening", NULL);
    ck_assert_ptr_nonnull(up);
    ck_assert_double_eq(nq_check_json_num(up, "port"), s.port);
    ck_assert_str_eq(nq_check_json_str(up, "level"), "info");
    cJSON_Delete(up);

    cJSON *a = find_line(log, "request", "\"request_id\":\"ops-log-1\"");
    ck_assert_ptr_nonnull(a);
    ck_assert_str_eq(nq_check_json_str(a, "method"), "GET");
    ck_assert_str_eq(nq_check_json_str(a, "path"), "/count");
    ck_assert_str_eq(nq_check_json_str(a, "query"), "n=7");
    ck_assert_str_eq(nq_check_json_str(a, "route"), "count");
    ck_assert_str_eq(nq_check_json_str(a, "cache"), "miss");
    ck_assert_str_eq(nq_check_json_str(a, "remote_addr"), "127.0.0.1");
    ck_assert_double_eq(nq_check_json_num(a, "status"), 200);
    ck_assert_double_eq(nq_check_json_num(a, "bytes"), (double)body_len);
    ck_assert(nq_check_json_num(a, "duration_ms") >= 0);
    const char *t = nq_check_json_str(a, "time");
    ck_assert_uint_eq(strlen(t), 24); /* 2026-11-30T11:40:00.123Z */
    ck_assert_int_eq(t[10], 'T');
    ck_assert_int_eq(t[23], 'Z');
    cJSON_Delete(a);

    cJSON *b = find_line(log, "request", "\"request_id\":\"ops-log-2\"");
    ck_assert_str_eq(nq_check_json_str(b, "cache"), "hit");
    cJSON_Delete(b);
    free(log);

    /* stdout carries only JSON lines: every line parses. */
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
}
END_TEST

/* --log-format text: key=value lines, the same events. The harness waits for the JSON start-up line,
 * so this test runs nqueensd itself, its stdout on a pipe. */
START_TEST(text_log_format)
{
    int out[2];
    ck_assert_int_eq(pipe(out), 0);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(out[1], 1);
        close(out[0]);
        execl(NQ_TEST_NQUEENSD, "nqueensd", "--log-format", "text", "--port", "0", "--bind", "127.0.0.1", "--store",
              "none", (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    FILE *log = fdopen(out[0], "r");
    char line[1024];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, log));
    const char *port_at = strstr(line, " port=");
    ck_assert_msg(strstr(line, " level=info msg=listening bind=127.0.0.1 port=") != NULL && port_at != NULL, "%s",
                  line);
    nq_test_server s = {.pid = 0, .port = (uint16_t)strtoul(port_at + 6, NULL, 10)};
    snprintf(s.base, sizeof s.base, "http://127.0.0.1:%u", s.port);
    nq_http_response r;
    const char *const id[] = {"X-Request-Id: text-1", NULL};
    get_ok(&s, "/count?n=4", id, &r);
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    int ws = 0;
    ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
    ck_assert(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    bool request = false, stopped = false;
    while (fgets(line, sizeof line, log) != NULL) {
        ck_assert_int_eq(strncmp(line, "time=", 5), 0); /* every line is key=value, none is JSON */
        static const char want[] = " msg=request method=GET path=/count query=\"n=4\" status=200 ";
        request = request || strstr(line, want) != NULL;
        stopped = stopped || strstr(line, " level=info msg=stopped ") != NULL;
        ck_assert(strstr(line, "text-1") == NULL || strstr(line, " request_id=text-1 ") != NULL);
    }
    fclose(log);
    ck_assert(request);
    ck_assert(stopped);
}
END_TEST

/* ---- shutdown ----------------------------------------------------------------------------------- */

static struct sockaddr_in loopback(uint16_t port)
{
    return (struct sockaddr_in){
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
}

/* A raw response starts with a 200 status line (HTTP/1.0 requests may get either version). */
static bool is_200(const char *resp)
{
    return strncmp(resp, "HTTP/1.0 200 ", 13) == 0 || strncmp(resp, "HTTP/1.1 200 ", 13) == 0;
}

/* A client on its own socket with a tiny receive buffer, so a large response stays in flight for as
 * long as the client takes to read it. */
static int slow_client(uint16_t port, const char *target)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    const int small = 4096;
    ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    const struct sockaddr_in a = loopback(port);
    ck_assert_int_eq(connect(fd, (const struct sockaddr *)&a, sizeof a), 0);
    char req[256];
    /* HTTP/1.0: the streamed body comes without chunk framing, ended by the close. */
    const int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: t\r\n\r\n", target);
    ck_assert_int_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    return fd;
}

/* Read everything until the server closes; returns the bytes read (malloc'd, NUL-terminated). */
static char *read_all(int fd, size_t *total)
{
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    for (;;) {
        if (len + 65536 > cap) {
            char *bigger = realloc(buf, cap * 2);
            ck_assert_ptr_nonnull(bigger);
            buf = bigger;
            cap *= 2;
        }
        const ssize_t r = recv(fd, buf + len, 65536, 0);
        if (r <= 0) break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    *total = len;
    return buf;
}

/* GET /healthz on fd without asking to close, and read the whole answer into buf (cap bytes). */
static void healthz_kept(int fd, char *buf, size_t cap)
{
    static const char req[] = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";
    ck_assert_int_eq(send(fd, req, sizeof req - 1, MSG_NOSIGNAL), (ssize_t)(sizeof req - 1));
    size_t len = 0;
    buf[0] = '\0';
    while (len + 1 < cap && strstr(buf, HEALTHZ_BODY) == NULL) {
        const ssize_t r = recv(fd, buf + len, cap - 1 - len, 0);
        ck_assert_int_gt(r, 0);
        len += (size_t)r;
        buf[len] = '\0';
    }
}

/* A keep-alive connection that has already served one request (so it is not "new" when the drain
 * starts): GET /healthz, read the whole answer, keep the socket. */
static int warm_connection(uint16_t port)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    const struct sockaddr_in a = loopback(port);
    ck_assert_int_eq(connect(fd, (const struct sockaddr *)&a, sizeof a), 0);
    char buf[2048];
    healthz_kept(fd, buf, sizeof buf);
    ck_assert_ptr_null(strstr(buf, "\r\nConnection: close\r\n")); /* not draining yet */
    return fd;
}

/* Send one last request on a warm connection and return the whole answer (malloc'd). */
static char *last_request(int fd, const char *target)
{
    char req[256];
    const int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n", target);
    ck_assert_int_eq(send(fd, req, (size_t)n, MSG_NOSIGNAL), n);
    size_t len = 0;
    return read_all(fd, &len);
}

/* Connect to port and ask for /healthz on the new connection: its fd, kept open, when it is answered;
 * -1 when the server closed it without a byte (refused as it came). */
static int try_connection(uint16_t port)
{
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    const struct sockaddr_in a = loopback(port);
    ck_assert_int_eq(connect(fd, (const struct sockaddr *)&a, sizeof a), 0);
    static const char req[] = "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n";
    (void)send(fd, req, sizeof req - 1, MSG_NOSIGNAL); /* a refused one may already be closed */
    char buf[2048];
    size_t len = 0;
    buf[0] = '\0';
    while (len + 1 < sizeof buf && strstr(buf, HEALTHZ_BODY) == NULL) {
        const ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (r <= 0) {
            ck_assert_uint_eq(len, 0); /* refused whole, never cut mid-answer */
            close(fd);
            return -1;
        }
        len += (size_t)r;
        buf[len] = '\0';
    }
    return fd;
}

/* Connections over the per-address limit are closed as they come, and counted: with two connections
 * per address, new ones are taken until two have been refused, and /metrics, asked on one that was
 * kept, counts them. The listener takes connections in turn, so the second refusal's close means
 * the first one's count is in: at least 1, at most 2. */
START_TEST(refused_connections_are_counted)
{
    static const char *const args[] = {"--per-ip-limit", "2", NULL};
    nq_test_server s;
    start(&s, args);
    int held[2] = {-1, -1}, kept = 0, refused = 0;
    for (int i = 0; i < 6 && refused < 2; i++) {
        const int fd = try_connection(s.port);
        if (fd < 0) {
            refused++;
        } else {
            ck_assert_int_lt(kept, 2); /* the limit is two */
            held[kept++] = fd;
        }
    }
    ck_assert_int_eq(refused, 2);
    ck_assert_int_ge(kept, 1);
    char *metrics = last_request(held[0], "/metrics");
    static const char name[] = "\nnqueensd_connections_refused_total ";
    const char *line = strstr(metrics, name);
    ck_assert_msg(line != NULL, "%s", metrics);
    const long n = strtol(line + sizeof name - 1, NULL, 10);
    ck_assert_msg(n >= 1 && n <= 2, "%ld refused", n);
    free(metrics);
    for (int i = 0; i < kept; i++) close(held[i]);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
}
END_TEST

typedef struct stopper {
    nq_test_server *s;
    int sig;
    int status;
} stopper;

static void *stop_server(void *arg)
{
    stopper *st = arg;
    st->status = nq_harness_stop(st->s, st->sig, 700); /* beyond the tests' grace periods */
    return NULL;
}

/* SIGTERM (or SIGINT) while a 15 MB streamed response (every n=13 board) is being read through a
 * small window: meanwhile new connections are refused and open ones see /readyz 503 and /healthz 200,
 * each answer with Connection: close; the response completes; then exit 0. */
START_TEST(sigterm_lets_the_request_in_flight_finish)
{
    /* A grace far beyond what the response needs on any machine or build: the drain ends when it is
     * delivered, and the test proves it is delivered whole, not how fast. */
    static const char *const args[] = {"--grace-s", "600", NULL};
    nq_test_server s;
    start(&s, args);
    const int fd = slow_client(s.port, "/solve?n=13");
    char head[4096];
    const ssize_t got = recv(fd, head, sizeof head - 1, 0); /* the response has started */
    ck_assert_int_gt(got, 0);
    head[got] = '\0';
    ck_assert_msg(is_200(head), "%s", head);

    const int warm1 = warm_connection(s.port), warm2 = warm_connection(s.port), warm3 = warm_connection(s.port);

    stopper st = {.s = &s, .sig = _i == 0 ? SIGTERM : SIGINT};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, stop_server, &st), 0);
    /* Wait until the signal is in and the server drains (it refuses new connections from then on);
     * the response is still going, held by the client's tiny window. */
    bool refused = false;
    for (int i = 0; i < 3000 && !refused; i++) { /* up to 60 s */
        const int knock = socket(AF_INET, SOCK_STREAM, 0);
        const struct sockaddr_in ka = loopback(s.port);
        ck_assert_int_ge(knock, 0);
        refused = connect(knock, (const struct sockaddr *)&ka, sizeof ka) != 0;
        close(knock);
        if (!refused) sleep_ms(20);
    }
    ck_assert_msg(refused, "the server never started draining");

    /* Connections already open are still served: readiness says 503, liveness still 200. */
    char *ready = last_request(warm1, "/readyz");
    ck_assert_msg(strncmp(ready, "HTTP/1.1 503 ", 13) == 0, "%s", ready);
    ck_assert_ptr_nonnull(strstr(ready, "\r\nRetry-After: "));
    ck_assert_ptr_nonnull(strstr(ready, "/problems/shutting-down"));
    free(ready);
    close(warm1);
    char *live = last_request(warm2, "/healthz");
    ck_assert_msg(strncmp(live, "HTTP/1.1 200 ", 13) == 0, "%s", live);
    free(live);
    close(warm2);
    /* ... and told to leave: a client that would keep its connection (a mesh proxy's pool) is
     * answered with Connection: close, so it opens its next one elsewhere. */
    char kept[2048];
    healthz_kept(warm3, kept, sizeof kept);
    ck_assert_msg(strncmp(kept, "HTTP/1.1 200 ", 13) == 0, "%s", kept);
    ck_assert_msg(strstr(kept, "\r\nConnection: close\r\n") != NULL, "%s", kept);
    close(warm3);

    /* A new connection is refused while draining. */
    const int probe = socket(AF_INET, SOCK_STREAM, 0);
    const struct sockaddr_in a = loopback(s.port);
    ck_assert_int_ne(connect(probe, (const struct sockaddr *)&a, sizeof a), 0);
    close(probe);

    size_t len = 0;
    char *rest = read_all(fd, &len);
    close(fd);
    pthread_join(th, NULL);
    ck_assert_int_eq(st.status, 0);
    /* The body ended properly: all of it, up to the closing of the JSON document. */
    ck_assert_msg(len > 10000000, "only %zu bytes arrived", len);
    static const char end[] = "\"next\":null}";
    ck_assert_msg(strcmp(rest + len - (sizeof end - 1), end) == 0, "body cut short: ...%s", rest + len - 60);
    free(rest);
}
END_TEST

/* SIGTERM while a request waits for a count: the answer comes, then exit 0. The count is made slow
 * on purpose (n = 13 as a long count, 16 ms after each of its 545 tasks, on one thread: about 9 s, a
 * floor that load cannot shorten), and the signal goes only once the request is seen waiting, so the
 * drain has it in flight; no deadline, a grace of ten minutes and a long test timeout, so a loaded
 * machine only takes longer. */
START_TEST(sigterm_lets_a_computation_finish)
{
    nq_test_server s;
    const char *const args[] = {"--grace-s",
                                "600",
                                "--deadline-ms",
                                "0",
                                "--long-count-n",
                                "13",
                                "--count-threads",
                                "1",
                                "--count-task-delay-ms",
                                "16",
                                NULL};
    start(&s, args);
    const int fd = slow_client(s.port, "/count?n=13");
    ck_assert_double_eq(nq_harness_await_metric(&s, "nqueensd_count_waits_running", 1.0, 60), 1.0);
    stopper st = {.s = &s, .sig = SIGTERM};
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, stop_server, &st), 0);
    size_t len = 0;
    char *resp = read_all(fd, &len);
    close(fd);
    pthread_join(th, NULL);
    ck_assert_int_eq(st.status, 0);
    ck_assert_msg(is_200(resp), "%s", resp);
    const char *body = strstr(resp, "\r\n\r\n");
    ck_assert_ptr_nonnull(body);
    ck_assert_str_eq(body + 4, "{\"n\":13,\"total\":73712,\"unique\":9233}");
    free(resp);
}
END_TEST

/* With nothing in flight the drain does not sit out the grace period (ten minutes here): it ends at
 * once, and the bound below, far under the grace, is only a guard against sitting it out. */
START_TEST(sigterm_when_idle_exits_at_once)
{
    nq_test_server s;
    const char *const args[] = {"--grace-s", "600", NULL};
    start(&s, args);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    const int status = nq_harness_stop(&s, SIGTERM, 300);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ck_assert_int_eq(status, 0);
    const double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_msg(took < 120.0, "took %.1f s to stop with nothing in flight", took);
}
END_TEST

/* ---- file descriptors --------------------------------------------------------------------------- */

/* "Max open files" soft and hard limits of process pid, from /proc/<pid>/limits. */
static void fd_limits(pid_t pid, unsigned long long *soft, unsigned long long *hard)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/limits", (int)pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    *soft = *hard = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "Max open files", 14) != 0) continue;
        char *end = NULL;
        *soft = strtoull(line + 14, &end, 10);
        *hard = strtoull(end, &end, 10);
    }
    fclose(f);
}

/* Started with a soft limit of 512, nqueensd raises it to the hard limit, so that the default
 * --conn-limit (4096) can be reached. */
START_TEST(raises_the_descriptor_limit)
{
    struct rlimit rl;
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= 512) return; /* nothing to raise on this machine */
    rl.rlim_cur = 512; /* this test runs in its own process (Check forks): the change stays here */
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
    nq_test_server s;
    start(&s, NULL);
    unsigned long long soft = 0, hard = 0;
    fd_limits(s.pid, &soft, &hard);
    ck_assert_uint_eq(soft, hard);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
}
END_TEST

/* The start-up line's count_threads: a count's threads by default follow the CPUs the process may
 * use (pinned to one CPU here: the child inherits the mask), an explicit --count-threads wins. */
START_TEST(count_threads_follow_the_cpus)
{
    cpu_set_t mask;
    ck_assert_int_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    const int cpu = sched_getcpu();
    CPU_SET(cpu >= 0 ? (size_t)cpu : 0u, &one);
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0); /* restored below */
    static const char *const rows[][3] = {{NULL}, {"--count-threads", "3", NULL}};
    static const double want[] = {1, 3};
    for (size_t i = 0; i < 2; i++) {
        nq_test_server s;
        start(&s, rows[i][0] != NULL ? rows[i] : NULL);
        char *log = log_with(&s, "\"msg\":\"listening\"");
        cJSON *up = find_line(log, "listening", NULL);
        ck_assert_ptr_nonnull(up);
        ck_assert_double_eq(nq_check_json_num(up, "count_threads"), want[i]);
        cJSON_Delete(up);
        free(log);
        nq_http_response r;
        get_ok(&s, "/count?n=13", NULL, &r); /* the half-board counter, on those threads */
        ck_assert_int_eq(r.status, 200);
        cJSON *body = cJSON_Parse(r.body);
        ck_assert_double_eq(nq_check_json_num(body, "total"), 73712);
        ck_assert_double_eq(nq_check_json_num(body, "unique"), 9233);
        cJSON_Delete(body);
        nq_http_response_free(&r);
        ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
    }
    ck_assert_int_eq(sched_setaffinity(0, sizeof mask, &mask), 0);
}
END_TEST

/* ---- command line ------------------------------------------------------------------------------- */

typedef struct run_result {
    int status; /* exit status, or 128 + signal */
    char out[16384];
    char err[4096];
} run_result;

static void drain_fd(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    ssize_t r;
    while (len + 1 < cap && (r = read(fd, buf + len, cap - 1 - len)) > 0) len += (size_t)r;
    buf[len] = '\0';
}

/* Run nqueensd with args (NULL-terminated) and extra env entries; capture stdout and stderr (small
 * outputs: read after exit is fine, the pipes hold them). */
static void run(const char *const *args, const char *const *env, run_result *res)
{
    int out[2], err[2];
    ck_assert_int_eq(pipe(out), 0);
    ck_assert_int_eq(pipe(err), 0);
    const pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        /* Writable copies: execv takes char *const[] (the child exits or execs, nothing leaks). */
        char *argv[16] = {strdup(NQ_TEST_NQUEENSD)};
        for (int i = 0; i < 14 && args[i] != NULL; i++) argv[i + 1] = strdup(args[i]);
        setenv("NQUEENSD_STORE", "none", 0); /* no file in the working directory; a test's own wins */
        for (int i = 0; env != NULL && env[i] != NULL; i++) {
            const char *eq = strchr(env[i], '=');
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
            setenv(name, eq + 1, 1);
        }
        execv(NQ_TEST_NQUEENSD, argv);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    int ws = 0;
    for (int i = 0; i < 500 && waitpid(pid, &ws, WNOHANG) == 0; i++) sleep_ms(20);
    if (waitpid(pid, &ws, WNOHANG) == 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &ws, 0);
    }
    drain_fd(out[0], res->out, sizeof res->out);
    drain_fd(err[0], res->err, sizeof res->err);
    close(out[0]);
    close(err[0]);
    res->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

static const struct cli_row {
    const char *args[4];
    const char *env[2];
    int status;
    const char *out; /* must appear on stdout (NULL: stdout empty) */
    const char *err; /* must appear on stderr (NULL: stderr empty) */
} cli_rows[] = {
    {{"--help"}, {NULL}, 0, "--max-n-count N  (NQUEENSD_MAX_N_COUNT, default 19)", NULL},
    {{"-h"}, {NULL}, 0, "Usage: ", NULL},
    {{"--version"}, {NULL}, 0, "nqueensd " NQ_TEST_VERSION "\n", NULL},
    {{"--help-markdown"}, {NULL}, 0, "| `--grace-s` | `NQUEENSD_GRACE_S` | `8` |", NULL},
    {{"--port", "65536"},
     {NULL},
     2,
     NULL,
     "nqueensd: invalid value \"65536\" for --port (from the command line): expected an integer in 0..65535\n"},
    {{"--max-n-count", "26"}, {NULL}, 2, NULL, "expected an integer in 1..25"},
    {{"--log-format", "xml"}, {NULL}, 2, NULL, "expected json or text"},
    {{"--bogus"}, {NULL}, 2, NULL, "nqueensd: unknown option \"--bogus\" (try --help)\n"},
    {{"--port"}, {NULL}, 2, NULL, "option --port needs a value"},
    {{"--help"}, {"NQUEENSD_PORT=tcp://10.0.0.7:8080"}, 2, NULL, "--port (from NQUEENSD_PORT)"},
    {{"--probe", "ftp://x/"}, {NULL}, 2, NULL, "expected an http:// URL"},
};

START_TEST(command_line)
{
    const struct cli_row *row = &cli_rows[_i];
    run_result res;
    run(row->args, row->env, &res);
    ck_assert_msg(res.status == row->status, "exit %d, stderr: %s", res.status, res.err);
    if (row->out != NULL)
        ck_assert_msg(strstr(res.out, row->out) != NULL, "stdout lacks \"%s\":\n%s", row->out, res.out);
    else
        ck_assert_str_eq(res.out, "");
    if (row->err != NULL)
        ck_assert_msg(strstr(res.err, row->err) != NULL, "stderr lacks \"%s\":\n%s", row->err, res.err);
    else
        ck_assert_str_eq(res.err, "");
}
END_TEST

START_TEST(probe_command)
{
    nq_test_server s;
    start(&s, NULL);
    char port[16], url[96];
    snprintf(port, sizeof port, "%u", s.port);
    run_result res;
    /* Default URL: http://127.0.0.1:<port>/healthz from the same configuration as the server. */
    const char *const by_port[] = {"--probe", "--port", port, NULL};
    run(by_port, NULL, &res);
    ck_assert_msg(res.status == 0, "probe exit %d: %s", res.status, res.err);
    char env_port[32];
    snprintf(env_port, sizeof env_port, "NQUEENSD_PORT=%u", s.port);
    const char *const env[] = {env_port, NULL};
    const char *const bare[] = {"--probe", NULL};
    run(bare, env, &res);
    ck_assert_int_eq(res.status, 0);
    snprintf(url, sizeof url, "%s/readyz", s.base);
    const char *const ready[] = {"--probe", url, NULL};
    run(ready, NULL, &res);
    ck_assert_int_eq(res.status, 0);
    snprintf(url, sizeof url, "%s/nowhere", s.base);
    const char *const missing[] = {"--probe", url, NULL};
    run(missing, NULL, &res);
    ck_assert_int_eq(res.status, 1);
    ck_assert_ptr_nonnull(strstr(res.err, "answered 404"));

    /* A server that cannot bind (an address this host does not have) exits 1 with a JSON error line
     * on stderr. */
    const char *const clash[] = {"--bind", "192.0.2.1", "--port", "0", NULL};
    run(clash, NULL, &res);
    ck_assert_int_eq(res.status, 1);
    ck_assert_ptr_nonnull(strstr(res.err, "\"level\":\"error\""));
    ck_assert_ptr_nonnull(strstr(res.err, "\"msg\":\"cannot start\""));
    ck_assert_ptr_nonnull(strstr(res.err, "\"error\":\"E_LISTEN\""));

    /* A second server on a port in use does not share it (no SO_REUSEPORT): it exits 1. */
    const char *const taken[] = {"--bind", "127.0.0.1", "--port", port, NULL};
    run(taken, NULL, &res);
    ck_assert_int_eq(res.status, 1);
    ck_assert_ptr_nonnull(strstr(res.err, "\"error\":\"E_LISTEN\""));

    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 10), 0);
    /* Nothing listens any more: the probe fails. */
    run(by_port, NULL, &res);
    ck_assert_int_eq(res.status, 1);
    ck_assert_ptr_nonnull(strstr(res.err, "cannot connect"));
}
END_TEST

static Suite *ops_http_suite(void)
{
    Suite *s = suite_create("ops_http");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, probes_answer);
    tcase_add_test(tc, openapi_version_is_the_release);
    tcase_add_test(tc, metrics_count_requests);
    tcase_add_test(tc, metrics_gzip);
    tcase_add_test(tc, metrics_pass_promtool);
    tcase_add_test(tc, access_log_lines);
    tcase_add_test(tc, text_log_format);
    tcase_add_test(tc, raises_the_descriptor_limit);
    tcase_add_test(tc, count_threads_follow_the_cpus);
    tcase_add_loop_test(tc, command_line, 0, (int)(sizeof cli_rows / sizeof cli_rows[0]));
    tcase_add_test(tc, probe_command);
    tcase_add_test(tc, refused_connections_are_counted);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    /* Drains: work in flight takes what the machine gives it, the tests wait for it. */
    TCase *const drain = tcase_create("drain");
    tcase_add_loop_test(drain, sigterm_lets_the_request_in_flight_finish, 0, 2); /* SIGTERM, SIGINT */
    tcase_add_test(drain, sigterm_lets_a_computation_finish);
    tcase_add_test(drain, sigterm_when_idle_exits_at_once);
    tcase_set_timeout(drain, 720);
    suite_add_tcase(s, drain);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(ops_http_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
