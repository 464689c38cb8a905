/* test_probes.c - the probes are answered while every network worker is busy.
 *
 * The workers produce response bodies as they send them (rendering, gzip of streams); under a mixed
 * load a probe handed to a busy worker waited up to a second. A connection whose request line is a
 * probe's goes to a thread of its own (src/server/http/listener.h). This suite makes "busy" exact:
 * it stops every worker thread of the real nqueensd ("MHD-worker", with ptrace, which stops one
 * thread and leaves the rest of the process running), then sends probes as the kubelet does (one
 * request, "Connection: close"), which must be answered while the workers stay stopped; a request
 * for anything else must not be. The workers are then let
 * go and serve again. Timeouts are hang guards only.
 *
 * Needs ptrace of a child (Linux; allowed to a parent under Yama's default scope 1). Where it is
 * not allowed the suite says so and passes without checking.
 */
#define _GNU_SOURCE /* __WALL */
#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_run.h"
#include "harness.h"

#define HANG_MS 20000  /* silence that means nobody answers */
#define QUIET_MS 300   /* how long a stopped worker is watched for answering anyway */
#define THREADS_MAX 64 /* worker threads stopped at most */

static nq_test_server server;

typedef struct stopped {
    pid_t tids[THREADS_MAX]; /* the worker threads stopped */
    size_t n;                /* how many */
} stopped;

/* Whether task tid of pid is named name. */
static bool task_named(pid_t pid, const char *tid, const char *name)
{
    char path[384];
    (void)snprintf(path, sizeof path, "/proc/%d/task/%.255s/comm", (int)pid, tid);
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char comm[32] = "";
    const bool ok = fgets(comm, sizeof comm, f) != NULL;
    fclose(f);
    comm[strcspn(comm, "\n")] = '\0';
    return ok && strcmp(comm, name) == 0;
}

/* Stop every "MHD-worker" thread of pid. false (nothing left stopped) when ptrace is not allowed. */
static bool stop_workers(pid_t pid, stopped *st)
{
    char path[64];
    (void)snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    ck_assert_ptr_nonnull(d);
    st->n = 0;
    bool allowed = true;
    for (struct dirent *e = readdir(d); e && allowed; e = readdir(d)) {
        if (e->d_name[0] == '.' || !task_named(pid, e->d_name, "MHD-worker")) continue;
        ck_assert_uint_lt(st->n, THREADS_MAX);
        const pid_t tid = (pid_t)strtol(e->d_name, NULL, 10);
        if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
            allowed = false;
            break;
        }
        ck_assert_int_eq(ptrace(PTRACE_INTERRUPT, tid, NULL, NULL), 0);
        int status = 0;
        ck_assert_int_eq(waitpid(tid, &status, __WALL), tid); /* it is stopped from here */
        st->tids[st->n++] = tid;
    }
    closedir(d);
    if (!allowed) {
        for (size_t i = 0; i < st->n; i++) (void)ptrace(PTRACE_DETACH, st->tids[i], NULL, NULL);
        st->n = 0;
    }
    return allowed;
}

static void resume_workers(stopped *st)
{
    for (size_t i = 0; i < st->n; i++) ck_assert_int_eq(ptrace(PTRACE_DETACH, st->tids[i], NULL, NULL), 0);
    st->n = 0;
}

/* Send req on a new connection; the status of the answer, or 0 if none came within wait_ms. */
static unsigned ask(const char *req, int wait_ms)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(server.port)};
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (const struct sockaddr *)&dst, sizeof dst), 0);
    ck_assert_int_eq(send(fd, req, strlen(req), MSG_NOSIGNAL), (ssize_t)strlen(req));
    char buf[64] = "";
    unsigned status = 0;
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, wait_ms) > 0 && recv(fd, buf, sizeof buf - 1, 0) > 12) {
        status = (unsigned)strtoul(buf + 9, NULL, 10); /* "HTTP/1.1 200 ..." */
    }
    close(fd);
    return status;
}

/* Start the suite's server from the test's own process: ptrace needs the tracer to be its parent. */
static void start(void)
{
    static const char *const args[] = {"--http-threads", "2", NULL};
    ck_assert(nq_harness_start(&server, args, NULL));
}

START_TEST(test_probes_while_workers_stopped)
{
    start();
    stopped st;
    if (!stop_workers(server.pid, &st)) {
        fprintf(stderr, "test_probes: ptrace is not allowed here (%s); nothing checked\n", strerror(errno));
        ck_assert_int_eq(nq_harness_stop(&server, SIGTERM, 30), 0);
        return;
    }
    ck_assert_uint_gt(st.n, 0);
    /* As the kubelet and `nqueensd --probe` send them: one request, then the close. */
    static const char *const probes[] = {
        "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        "GET /readyz HTTP/1.1\r\nHost: t\r\nconnection: Close\r\n\r\n",
        "HEAD /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        ("GET /healthz?from=kubelet HTTP/1.1\r\nHost: t\r\nUser-Agent: kube-probe/1.30\r\nAccept: */*\r\n"
         "Connection: close\r\n\r\n"),
    };
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        ck_assert_msg(ask(probes[i], HANG_MS) == 200, "probe %zu unanswered while the workers are busy", i);
    }
    /* The workers are really stopped: other requests wait for them, and so does a probe on a
     * connection the client keeps (anything may follow it there). */
    static const char *const others[] = {
        "GET /count?n=8 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        "GET /healthzz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        ck_assert_msg(ask(others[i], QUIET_MS) == 0, "request %zu answered with the workers stopped", i);
    }
    resume_workers(&st);
    ck_assert_uint_eq(ask("GET /count?n=8 HTTP/1.1\r\nHost: t\r\n\r\n", HANG_MS), 200);
    ck_assert_int_eq(nq_harness_stop(&server, SIGTERM, 30), 0);
}
END_TEST

/* A probe's connection serves the probe only: its answer closes it, so nothing heavy follows on the
 * probes' thread, even when the client sends more after its "Connection: close". */
START_TEST(test_probe_connection_closes)
{
    start();
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(server.port)};
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(connect(fd, (const struct sockaddr *)&dst, sizeof dst), 0);
    static const char req[] =
        "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /count?n=8 HTTP/1.1\r\nHost: t\r\n\r\n";
    ck_assert_int_eq(send(fd, req, sizeof req - 1, MSG_NOSIGNAL), (ssize_t)(sizeof req - 1));
    char buf[4096];
    size_t len = 0;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        ck_assert_msg(poll(&p, 1, HANG_MS) > 0, "the probe's connection stayed open");
        const ssize_t r = recv(fd, buf + len, sizeof buf - 1 - len, 0);
        if (r <= 0) break;
        len += (size_t)r;
    }
    buf[len] = '\0';
    close(fd);
    ck_assert_ptr_nonnull(strstr(buf, "HTTP/1.1 200"));
    ck_assert_ptr_nonnull(strstr(buf, "Connection: close"));
    ck_assert_ptr_null(strstr(buf + 1, "HTTP/1.1")); /* one answer only */
    ck_assert_int_eq(nq_harness_stop(&server, SIGTERM, 30), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("load_probes");
    TCase *tc = tcase_create("probes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_probes_while_workers_stopped);
    tcase_add_test(tc, test_probe_connection_closes);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
