/* test_pinned.c - clients that stop reading hold at most --max-pinned-bytes.
 *
 * Each reader here connects with a 4 KiB receive buffer, sends one request, reads the head of the answer
 * and stops: the server's response (the cache entry it is sent from, or a stream's state) stays alive
 * until the client leaves. On the real nqueensd: distinct large cached answers are pinned once each and
 * refused with 503 (Retry-After, problem "overloaded") when the budget cannot hold another, while a
 * second reader of an entry already pinned costs nothing; a random board too big to cache is refused
 * before its search when its stream's copy of the columns cannot fit; /solve streams count their
 * buffers; nqueensd_pinned_bytes returns to exactly 0 once every reader has gone. Bounds on time are
 * hang guards only.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "check_run.h"
#include "harness.h"

#define RCVBUF 4096          /* a reader's receive buffer: the server keeps the rest of the answer */
#define BOARD_1M 6888943.0   /* the body of /solution?n=1000000&method=random&seed=<1..9> (columns) */
#define COLS_1M 4000000.0    /* a random board's columns: 4 bytes a row */
#define ENTRY_SLACK 2048.0   /* an entry's bookkeeping, key and strings, beside its body */
#define STREAM_SLACK 70000.0 /* a /solution stream's state: its 64 KiB staging buffer and fields */

typedef struct reader {
    int fd;          /* the connection, kept open and unread */
    int status;      /* the answer's status */
    char head[2048]; /* the answer's head, NUL-terminated */
} reader;

/* Connect from 127.0.0.<host> with a small receive buffer, send GET target (with gzip when asked), and
 * read up to the end of the answer's head (a few body bytes may come with it); then stop reading. */
static void stall(uint16_t port, unsigned host, const char *target, reader *r)
{
    memset(r->head, 0, sizeof r->head); /* every byte defined: the status is read at fixed places */
    r->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ck_assert_int_ge(r->fd, 0);
    const int rcv = RCVBUF;
    ck_assert_int_eq(setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv), 0);
    struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = 0};
    src.sin_addr.s_addr = htonl(0x7f000000u | host);
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(port)};
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(r->fd, (const struct sockaddr *)&src, sizeof src), 0);
    ck_assert_int_eq(connect(r->fd, (const struct sockaddr *)&dst, sizeof dst), 0);
    char req[512];
    const int k = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: t\r\n\r\n", target);
    ck_assert_int_eq(send(r->fd, req, (size_t)k, MSG_NOSIGNAL), k);
    size_t len = 0;
    while (len < sizeof r->head - 1 && !strstr(r->head, "\r\n\r\n")) {
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        ck_assert_msg(poll(&p, 1, 120000) == 1, "%s: no answer", target); /* a hang guard */
        const ssize_t got = recv(r->fd, r->head + len, sizeof r->head - 1 - len, 0);
        ck_assert_msg(got > 0, "%s: closed (%s)", target, got < 0 ? strerror(errno) : "eof");
        len += (size_t)got;
        r->head[len] = '\0';
    }
    /* "HTTP/1.1 DDD ": the status is the three digits after the version */
    const bool status_line = strncmp(r->head, "HTTP/1.1 ", 9) == 0 && r->head[9] >= '1' && r->head[9] <= '5' &&
                             r->head[10] >= '0' && r->head[10] <= '9' && r->head[11] >= '0' && r->head[11] <= '9';
    ck_assert_msg(status_line, "%s: %.80s", target, r->head);
    r->status = (r->head[9] - '0') * 100 + (r->head[10] - '0') * 10 + (r->head[11] - '0');
    if (r->status != 200) { /* a problem: its body is short, read it for the failure message */
        struct pollfd p = {.fd = r->fd, .events = POLLIN};
        if (poll(&p, 1, 1000) == 1) {
            const ssize_t got = recv(r->fd, r->head + len, sizeof r->head - 1 - len, 0);
            if (got > 0) r->head[len + (size_t)got] = '\0';
        }
    }
}

static bool head_has(const reader *r, const char *line)
{
    return strstr(r->head, line) != NULL;
}

/* The 503 of a response whose bytes did not fit: Retry-After, no-store, a problem body "overloaded". */
static void assert_refused(const reader *r)
{
    ck_assert_msg(r->status == 503, "%.200s", r->head);
    ck_assert(head_has(r, "\r\nRetry-After: 1\r\n"));
    ck_assert(head_has(r, "\r\nCache-Control: no-store\r\n"));
    ck_assert(head_has(r, "\r\nContent-Type: application/problem+json\r\n"));
}

static double pinned(const nq_test_server *s)
{
    return nq_harness_metric(s, "nqueensd_pinned_bytes");
}

static void random_board(unsigned seed, char *out, size_t cap)
{
    (void)snprintf(out, cap, "/solution?n=1000000&method=random&seed=%u", seed);
}

/* GET target until its gzip form is made (the entry is then settled: identity and gzip forms in one
 * entry that stays as it is); returns the gzip form's length. */
static double settled(const nq_test_server *s, const char *target)
{
    nq_http_response gz;
    ck_assert(nq_harness_get_gzip(s, target, 60, &gz));
    const double len = (double)gz.body_len;
    nq_http_response_free(&gz);
    return len;
}

START_TEST(distinct_cached_answers_are_pinned_once_each_then_refused)
{
    /* Entries up to 16 MiB are cached (a 10^6 board's 6.9 MB with its gzip form is); two of them fit
     * 24 MiB, three do not. */
    static const char *const args[] = {"--cache-bytes", "128M", "--max-pinned-bytes", "24M", "--idle-timeout-s",
                                       "300",           NULL};
    nq_test_server s;
    ck_assert(nq_harness_start(&s, args, NULL));
    ck_assert_double_eq(pinned(&s), 0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_pinned_bytes_max"), 24.0 * 1024 * 1024);
    char target[96];
    double gz[4] = {0};
    for (unsigned seed = 1; seed <= 3; seed++) {
        random_board(seed, target, sizeof target);
        gz[seed] = settled(&s, target);
    }
    /* Every answer was read whole: nothing is held once the server has seen each one out. */
    ck_assert_double_eq(nq_harness_await_metric(&s, "nqueensd_pinned_bytes", 0, 60), 0);
    reader r[4];
    double g[3] = {0};
    for (unsigned i = 0; i < 2; i++) {
        random_board(i + 1, target, sizeof target);
        stall(s.port, 2, target, &r[i]);
        ck_assert_msg(r[i].status == 200, "%.200s", r[i].head);
        ck_assert(head_has(&r[i], "\r\nContent-Length: 6888943\r\n"));
        g[i + 1] = pinned(&s);
        const double charge = g[i + 1] - g[i]; /* the entry's body, gzip form and bookkeeping */
        ck_assert_double_ge(charge, BOARD_1M + gz[i + 1]);
        ck_assert_double_le(charge, BOARD_1M + gz[i + 1] + ENTRY_SLACK);
    }
    /* A second reader of an entry already pinned shares its bytes: nothing more is taken. */
    random_board(1, target, sizeof target);
    stall(s.port, 3, target, &r[2]);
    ck_assert_int_eq(r[2].status, 200);
    ck_assert_double_eq(pinned(&s), g[2]);
    /* A third board does not fit: 503, counted, nothing taken; its answer stays cached. */
    random_board(3, target, sizeof target);
    stall(s.port, 4, target, &r[3]);
    assert_refused(&r[3]);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_pinned_refused_total"), 1);
    ck_assert_double_eq(pinned(&s), g[2]);
    close(r[3].fd);
    /* What sends no body holds nothing for a reader: while the budget is full, a HEAD of board 3 and a
     * GET of it that its ETag turns into a 304 are answered, and take nothing. */
    nq_http_response head;
    ck_assert(nq_http_request(&s, "HEAD", target, NULL, &head));
    ck_assert_int_eq(head.status, 200);
    ck_assert_str_eq(nq_http_header_get(&head, "Content-Length"), "6888943");
    char inm[160];
    (void)snprintf(inm, sizeof inm, "If-None-Match: %s", nq_http_header_get(&head, "ETag"));
    const char *const cond_headers[] = {inm, NULL};
    nq_http_response cond;
    ck_assert(nq_http_request(&s, "GET", target, cond_headers, &cond));
    ck_assert_int_eq(cond.status, 304);
    nq_http_response_free(&cond);
    nq_http_response_free(&head);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_pinned_refused_total"), 1);
    ck_assert_double_eq(pinned(&s), g[2]);
    /* Both readers of board 1 leave: its bytes come back (the server notices each close) ... */
    close(r[0].fd);
    close(r[2].fd);
    ck_assert_double_eq(nq_harness_await_metric(&s, "nqueensd_pinned_bytes", g[2] - g[1], 60), g[2] - g[1]);
    /* ... and board 3, refused before, is served now, from the cache. */
    stall(s.port, 4, target, &r[3]);
    ck_assert_msg(r[3].status == 200, "%.200s", r[3].head);
    close(r[1].fd);
    close(r[3].fd);
    ck_assert_double_eq(nq_harness_await_metric(&s, "nqueensd_pinned_bytes", 0, 60), 0);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_pinned_refused_total"), 1);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
}
END_TEST

START_TEST(streams_count_their_state_and_a_search_is_refused_before_it_runs)
{
    /* Nothing large is cached (entries of at most 128 KiB): every answer below streams. 6 MiB hold
     * one random board's columns (4 MB) beside a few streams' buffers, not two boards. */
    static const char *const args[] = {"--cache-bytes",
                                       "1M",
                                       "--max-pinned-bytes",
                                       "6M",
                                       "--idle-timeout-s",
                                       "300",
                                       "--max-solutions",
                                       "100000",
                                       "--deadline-ms",
                                       "120000",
                                       NULL};
    nq_test_server s;
    ck_assert(nq_harness_start(&s, args, NULL));
    nq_http_response resp;
    ck_assert(nq_http_get(&s, "/count?n=14", &resp)); /* the total the /solve page needs */
    ck_assert_int_eq(resp.status, 200);
    nq_http_response_free(&resp);
    reader r[5];
    char target[96];
    random_board(7, target, sizeof target);
    stall(s.port, 2, target, &r[0]);
    ck_assert_msg(r[0].status == 200, "%.200s", r[0].head);
    const double board = pinned(&s);
    ck_assert_double_ge(board, COLS_1M);
    ck_assert_double_le(board, COLS_1M + STREAM_SLACK);
    /* A second random board would need 4 MB more: refused before its search (no solver run). */
    const double runs = nq_harness_metric(&s, "nqueensd_computations_started_total");
    random_board(8, target, sizeof target);
    stall(s.port, 3, target, &r[1]);
    assert_refused(&r[1]);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_computations_started_total"), runs);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_pinned_refused_total"), 1);
    close(r[1].fd);
    /* The construction streams from O(1) state: its staging buffer is all it pins. */
    stall(s.port, 4, "/solution?n=1000000&method=construct", &r[2]);
    ck_assert_msg(r[2].status == 200, "%.200s", r[2].head);
    const double construct = pinned(&s) - board;
    ck_assert_double_gt(construct, 0);
    ck_assert_double_le(construct, STREAM_SLACK);
    /* A /solve page of 24 MB streams with its batch buffers pinned. */
    stall(s.port, 5, "/solve?n=14&limit=100000&format=board", &r[3]);
    ck_assert_msg(r[3].status == 200, "%.200s", r[3].head);
    ck_assert_double_gt(pinned(&s), board + construct);
    for (int i = 0; i < 4; i++)
        if (i != 1) close(r[i].fd);
    ck_assert_double_eq(nq_harness_await_metric(&s, "nqueensd_pinned_bytes", 0, 60), 0);
    /* With the budget back, the board refused before is served. */
    random_board(8, target, sizeof target);
    stall(s.port, 3, target, &r[4]);
    ck_assert_msg(r[4].status == 200, "%.200s", r[4].head);
    close(r[4].fd);
    ck_assert_double_eq(nq_harness_await_metric(&s, "nqueensd_pinned_bytes", 0, 60), 0);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
}
END_TEST

static Suite *pinned_suite(void)
{
    Suite *const s = suite_create("pinned");
    TCase *const tc = tcase_create("pinned");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, distinct_cached_answers_are_pinned_once_each_then_refused);
    tcase_add_test(tc, streams_count_their_state_and_a_search_is_refused_before_it_runs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return nq_check_run(pinned_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
