/* test_flush.c - unit tests of the drain's last step: unacknowledged bytes on a port, and the wait. */
#define _POSIX_C_SOURCE 200809L

#include "ops/flush.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"

/* A loopback connection whose client does not read: the server side's queue fills up. */
typedef struct conn {
    int listener, client, server;
    uint16_t port;
} conn;

static void conn_open(conn *c)
{
    c->listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    ck_assert_int_eq(bind(c->listener, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(c->listener, 1), 0);
    ck_assert_int_eq(getsockname(c->listener, (struct sockaddr *)&a, &len), 0);
    c->port = ntohs(a.sin_port);
    c->client = socket(AF_INET, SOCK_STREAM, 0);
    const int small = 4096;
    ck_assert_int_eq(setsockopt(c->client, SOL_SOCKET, SO_RCVBUF, &small, sizeof small), 0);
    ck_assert_int_eq(connect(c->client, (struct sockaddr *)&a, sizeof a), 0);
    c->server = accept(c->listener, NULL, NULL);
    ck_assert_int_ge(c->server, 0);
}

/* Fill the server side's send path without blocking; returns the bytes the kernel took. */
static size_t fill(const conn *c)
{
    ck_assert_int_eq(fcntl(c->server, F_SETFL, O_NONBLOCK), 0);
    static const char chunk[65536]; /* zeros: the content does not matter */
    size_t total = 0;
    for (;;) {
        const ssize_t w = send(c->server, chunk, sizeof chunk, MSG_NOSIGNAL);
        if (w <= 0) break;
        total += (size_t)w;
    }
    return total;
}

/* A hang guard, not a speed: loopback acknowledges what the client read at once, but a loaded machine
 * may run the test thread late. */
#define ACKED_MS 30000u

/* Poll until nothing is pending on port, for at most timeout_ms. */
static bool flushed_within(uint16_t port, unsigned timeout_ms)
{
    const struct timespec tick = {0, 10 * 1000000L};
    for (unsigned waited = 0; nq_flush_pending(port) > 0; waited += 10) {
        if (waited >= timeout_ms) return false;
        nanosleep(&tick, NULL);
    }
    return true;
}

static void read_everything(const conn *c, size_t total)
{
    char buf[65536];
    for (size_t got = 0; got < total;) {
        const ssize_t r = recv(c->client, buf, sizeof buf, 0);
        ck_assert_int_gt(r, 0);
        got += (size_t)r;
    }
}

START_TEST(idle_port_has_nothing_pending)
{
    conn c;
    conn_open(&c);
    ck_assert_uint_eq(nq_flush_pending(c.port), 0); /* connected, nothing sent; listener ignored */
    ck_assert(flushed_within(c.port, 0));
    close(c.client);
    close(c.server);
    close(c.listener);
}
END_TEST

START_TEST(unread_data_is_pending_until_read)
{
    conn c;
    conn_open(&c);
    const size_t sent = fill(&c);
    ck_assert_uint_gt(sent, 0);
    ck_assert_uint_gt(nq_flush_pending(c.port), 0);
    ck_assert(!flushed_within(c.port, 60)); /* the client does not read: still pending */
    read_everything(&c, sent);
    ck_assert(flushed_within(c.port, ACKED_MS)); /* acknowledged: done */
    close(c.client);
    close(c.server);
    close(c.listener);
}
END_TEST

/* A socket closed by the server with data still queued is still counted: that is the case the drain
 * exists for (libmicrohttpd closes a Connection: close response's socket once it handed over the
 * last byte). */
START_TEST(closed_socket_with_queued_data_counts)
{
    conn c;
    conn_open(&c);
    const size_t sent = fill(&c);
    close(c.server);
    ck_assert_uint_gt(nq_flush_pending(c.port), 0);
    read_everything(&c, sent);
    ck_assert(flushed_within(c.port, ACKED_MS));
    close(c.client);
    close(c.listener);
}
END_TEST

/* Both ports are this test's own (bound by its listeners), so no other process's sockets can be on
 * the idle one, whatever runs beside it. */
START_TEST(other_ports_do_not_count)
{
    conn full, idle;
    conn_open(&full);
    conn_open(&idle);
    ck_assert_uint_gt(fill(&full), 0);
    ck_assert_uint_gt(nq_flush_pending(full.port), 0);
    ck_assert_uint_eq(nq_flush_pending(idle.port), 0);
    const conn *both[] = {&full, &idle};
    for (size_t i = 0; i < 2; i++) {
        close(both[i]->client);
        close(both[i]->server);
        close(both[i]->listener);
    }
}
END_TEST

static Suite *flush_suite(void)
{
    Suite *s = suite_create("flush");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, idle_port_has_nothing_pending);
    tcase_add_test(tc, unread_data_is_pending_until_read);
    tcase_add_test(tc, closed_socket_with_queued_data_counts);
    tcase_add_test(tc, other_ports_do_not_count);
    tcase_set_timeout(tc, 20);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(flush_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
