/* test_probe.c - unit tests of the --probe HTTP client against a scripted loopback peer. */
#define _POSIX_C_SOURCE 200809L

#include "base/errors.h"
#include "base/probe.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_run.h"

/* A peer that accepts one connection, records the request head, sends `reply` (NULL: stays silent
 * until the client leaves) and closes. */
typedef struct peer {
    int listen_fd;
    unsigned short port;
    const char *reply;
    char request[2048];
    pthread_t thread;
} peer;

static void *peer_main(void *arg)
{
    peer *p = arg;
    const int c = accept(p->listen_fd, NULL, NULL);
    if (c < 0) return NULL;
    size_t len = 0;
    while (len + 1 < sizeof p->request && strstr(p->request, "\r\n\r\n") == NULL) {
        const ssize_t r = recv(c, p->request + len, sizeof p->request - 1 - len, 0);
        if (r <= 0) break;
        len += (size_t)r;
        p->request[len] = '\0';
    }
    if (p->reply != NULL)
        (void)!send(c, p->reply, strlen(p->reply), MSG_NOSIGNAL);
    else {
        char sink[64];
        while (recv(c, sink, sizeof sink, 0) > 0) /* silent: wait for the client to give up */
            ;
    }
    close(c);
    return NULL;
}

static void peer_start(peer *p, const char *reply)
{
    memset(p, 0, sizeof *p);
    p->reply = reply;
    p->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(p->listen_fd, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ck_assert_int_eq(bind(p->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(p->listen_fd, 4), 0);
    socklen_t len = sizeof a;
    ck_assert_int_eq(getsockname(p->listen_fd, (struct sockaddr *)&a, &len), 0);
    p->port = ntohs(a.sin_port);
    ck_assert_int_eq(pthread_create(&p->thread, NULL, peer_main, p), 0);
}

static void peer_stop(peer *p)
{
    pthread_join(p->thread, NULL);
    close(p->listen_fd);
}

static const struct reply_row {
    const char *reply;
    nq_err rc;
    unsigned status;
} reply_rows[] = {
    {"HTTP/1.1 200 OK\r\nContent-Length: 15\r\n\r\n{\"status\":\"ok\"}", NQ_OK, 200},
    {"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", NQ_OK, 503},
    {"HTTP/1.0 404 Not Found\r\n\r\n", NQ_OK, 404},
    {"HTTP/1.1 204\r\n\r\n", NQ_OK, 204}, /* reason phrase is optional */
    {"SSH-2.0-OpenSSH_9.2\r\n", NQ_E_INTERNAL, 0},
    {"HTTP/1.1 20 OK\r\n\r\n", NQ_E_INTERNAL, 0},
    {"HTTP/2 200\r\n\r\n", NQ_E_INTERNAL, 0},
    {"", NQ_E_INTERNAL, 0}, /* closed without a word */
};

START_TEST(reads_the_status)
{
    const struct reply_row *row = &reply_rows[_i];
    peer p;
    peer_start(&p, row->reply);
    char url[64], err[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/healthz", p.port);
    unsigned status = 0;
    ck_assert_int_eq(nq_probe_get(url, 2000, &status, err, sizeof err), row->rc);
    if (row->rc == NQ_OK) {
        ck_assert_uint_eq(status, row->status);
        ck_assert_str_eq(err, "");
    } else
        ck_assert_str_ne(err, "");
    peer_stop(&p);
    char want[128];
    snprintf(want, sizeof want, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n", p.port);
    ck_assert_msg(strncmp(p.request, want, strlen(want)) == 0, "request: %s", p.request);
    ck_assert_ptr_nonnull(strstr(p.request, "\r\nConnection: close\r\n"));
}
END_TEST

START_TEST(default_path_is_root)
{
    peer p;
    peer_start(&p, "HTTP/1.1 200 OK\r\n\r\n");
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", p.port);
    unsigned status = 0;
    ck_assert_int_eq(nq_probe_get(url, 2000, &status, NULL, 0), NQ_OK);
    peer_stop(&p);
    ck_assert_int_eq(strncmp(p.request, "GET / HTTP/1.1\r\n", 16), 0);
}
END_TEST

/* A peer that accepts and never answers: the probe gives up at its timeout, not later. */
START_TEST(silent_peer_times_out)
{
    peer p;
    peer_start(&p, NULL);
    char url[64], err[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/healthz", p.port);
    unsigned status = 0;
    ck_assert_int_eq(nq_probe_get(url, 200, &status, err, sizeof err), NQ_E_INTERNAL);
    ck_assert_ptr_nonnull(strstr(err, "no response"));
    peer_stop(&p);
}
END_TEST

START_TEST(refused_connection)
{
    /* A port bound but not listening refuses connections; holding it bound for the whole test keeps
     * any other process (a test beside this one) from listening there meanwhile. */
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    char url[64], err[256];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/healthz", ntohs(a.sin_port));
    unsigned status = 0;
    ck_assert_int_eq(nq_probe_get(url, 2000, &status, err, sizeof err), NQ_E_INTERNAL);
    ck_assert_ptr_nonnull(strstr(err, "cannot connect"));
    close(fd);
}
END_TEST

static const char *const bad_urls[] = {
    "https://127.0.0.1/", "127.0.0.1:8080",  "http://",      "http:///x",     "http://:80/",
    "http://h:0/",        "http://h:65536/", "http://h:x/",  "http://h:/",    "http://[::1/",
    "http://[::1]x/",     "http://u@h/",     "http://h/a b", "http://h/\r\n",
};

START_TEST(rejects_bad_urls)
{
    unsigned status = 0;
    char err[128];
    ck_assert_int_eq(nq_probe_get(bad_urls[_i], 100, &status, err, sizeof err), NQ_E_ARG);
    ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(rejects_null_arguments)
{
    unsigned status = 0;
    ck_assert_int_eq(nq_probe_get(NULL, 100, &status, NULL, 0), NQ_E_ARG);
    ck_assert_int_eq(nq_probe_get("http://127.0.0.1/", 100, NULL, NULL, 0), NQ_E_ARG);
}
END_TEST

static Suite *probe_suite(void)
{
    Suite *s = suite_create("probe");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, reads_the_status, 0, (int)(sizeof reply_rows / sizeof reply_rows[0]));
    tcase_add_test(tc, default_path_is_root);
    tcase_add_test(tc, silent_peer_times_out);
    tcase_add_test(tc, refused_connection);
    tcase_add_loop_test(tc, rejects_bad_urls, 0, (int)(sizeof bad_urls / sizeof bad_urls[0]));
    tcase_add_test(tc, rejects_null_arguments);
    tcase_set_timeout(tc, 20);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(probe_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
