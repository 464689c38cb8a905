/* test_hostile.c - the real nqueensd against clients that hold connections without sending a request:
 * 2000 idle connections and 300 that send one byte a second (slowloris), from 127.0.0.2 and up, so a
 * per-IP limit cannot be what saves the server. They fill its connection limit exactly; a probe from
 * 127.0.0.1 must then be answered soon after the head deadline passes (within PROBE_LATE_S: far less
 * than the idle timeout, so only the head deadline can have let it in; a loaded machine may accept
 * and cut the attackers a little late), and the server's resident memory must stay bounded throughout.
 *
 * The server runs with --conn-limit 2300 (the attack's size: the probe cannot get in until the guard
 * frees slots), --head-timeout-s 2 and --idle-timeout-s 120 (so the idle timeout cannot be what
 * closes anything within the test). Sockets are non-blocking; the test takes about 4 seconds.
 * A second case does the same with request bodies: 200 held one byte short of the cap and 40 that never
 * end, against the server's memory, its probes and its head deadline.
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
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "check_run.h"
#include "harness.h"

enum {
    IDLE = 2000, /* connections that never send a byte */
    SLOW = 300,  /* connections that send one byte a second */
    ATTACK = IDLE + SLOW,
    SOURCES = 200, /* attack source addresses: 127.0.0.2 .. 127.0.0.201 */
    PER_IP = 16,   /* the server's per-IP limit: above ATTACK / SOURCES, so all get in */
    HEAD_TIMEOUT_S = 2,
    PROBE_LATE_S = 5, /* the probe is answered at most this long after the head deadline */
    FDS_NEEDED = ATTACK + 256
};

_Static_assert((ATTACK + SOURCES - 1) / SOURCES < PER_IP, "every attacker must get past the per-IP limit");

#define RSS_GROWTH_MAX_KB (64L * 1024L) /* the whole attack may cost the server at most this much */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* VmRSS of pid in KiB, or -1. */
static long rss_kb(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    FILE *const f = fopen(path, "r");
    if (f == NULL) {
        return -1;
    }
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            char *end = NULL;
            kb = strtol(line + 6, &end, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

/* A non-blocking connection to 127.0.0.1:port from 127.0.0.<host>; -1 on failure. */
static int connect_from(uint16_t port, unsigned host)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = 0};
    src.sin_addr.s_addr = htonl(0x7f000000u | host);
    struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(port)};
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (const struct sockaddr *)&src, sizeof src) != 0 ||
        (connect(fd, (const struct sockaddr *)&dst, sizeof dst) != 0 && errno != EINPROGRESS)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Wait until every connection in fds[0..n) has completed its handshake (the kernel holds it in the
 * server's backlog, ahead of any later one), for at most timeout_s; true if all did, without error.
 * A loaded machine may drop a burst of SYNs and complete those connections a second or more later:
 * the attack is only in place once they are all there. */
static bool all_connected(const int *fds, size_t n, double timeout_s)
{
    static struct pollfd w[ATTACK];
    ck_assert_uint_le(n, ATTACK);
    size_t left = 0;
    for (size_t i = 0; i < n; i++) {
        w[left++] = (struct pollfd){.fd = fds[i], .events = POLLOUT};
    }
    for (const double t0 = now_s(); left > 0 && now_s() - t0 < timeout_s;) {
        if (poll(w, (nfds_t)left, 100) < 0 && errno != EINTR) {
            return false;
        }
        size_t kept = 0;
        for (size_t i = 0; i < left; i++) {
            if ((w[i].revents & (POLLOUT | POLLERR | POLLHUP)) == 0) {
                w[kept++] = (struct pollfd){.fd = w[i].fd, .events = POLLOUT};
                continue;
            }
            int err = 0;
            socklen_t len = sizeof err;
            if (getsockopt(w[i].fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0) {
                return false;
            }
        }
        left = kept;
    }
    return left == 0;
}

/* One more byte of a request head that never ends, on each slow connection still open. */
static void slowloris_tick(const int *fds, size_t n, size_t pos)
{
    static const char head[] = "GET /healthz HTTP/1.1\r\nHost: nqueens\r\nUser-Agent: one-byte-a-second\r\n";
    for (size_t i = 0; i < n; i++) {
        if (fds[i] >= 0) {
            (void)send(fds[i], &head[pos % (sizeof head - 1u)], 1, MSG_NOSIGNAL); /* fails once cut */
        }
    }
}

/* What the probe saw. */
typedef struct probe {
    int fd;
    double sent;     /* when its request was written */
    double answered; /* when the first response byte arrived; 0 if none */
    char head[64];   /* the start of the response */
} probe;

static void probe_send(probe *p, uint16_t port)
{
    static const char req[] = "GET /healthz HTTP/1.1\r\nHost: nqueens\r\nConnection: close\r\n\r\n";
    memset(p, 0, sizeof *p);
    p->fd = connect_from(port, 1);
    ck_assert_int_ge(p->fd, 0);
    struct pollfd w = {.fd = p->fd, .events = POLLOUT};
    ck_assert_int_eq(poll(&w, 1, 5000), 1); /* connected: the kernel completes it from the backlog */
    ck_assert_int_eq(send(p->fd, req, sizeof req - 1u, MSG_NOSIGNAL), (ssize_t)(sizeof req - 1u));
    p->sent = now_s();
}

/* Wait up to ms for the probe's answer; true once it has one. */
static bool probe_poll(probe *p, int ms)
{
    struct pollfd r = {.fd = p->fd, .events = POLLIN};
    if (poll(&r, 1, ms) != 1) {
        return false;
    }
    const ssize_t n = recv(p->fd, p->head, sizeof p->head - 1u, 0);
    p->answered = now_s();
    p->head[n > 0 ? n : 0] = '\0';
    return true;
}

START_TEST(idle_and_slow_clients_do_not_lock_out_a_probe)
{
    static const char *const args[] = {"--conn-limit",
                                       "2300",
                                       "--per-ip-limit",
                                       "16",
                                       "--head-timeout-s",
                                       "2",
                                       "--idle-timeout-s",
                                       "120",
                                       "--http-threads",
                                       "2",
                                       NULL};
    nq_test_server s;
    ck_assert(nq_harness_start(&s, args, NULL));
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/healthz", &r)); /* warm: the baseline includes a served request */
    nq_http_response_free(&r);
    const long rss_before = rss_kb(s.pid);
    ck_assert_int_gt(rss_before, 0);

    static int fds[ATTACK];
    const double attack_start = now_s(); /* no attacker's head deadline can fall before this + 2 s */
    for (int i = 0; i < ATTACK; i++) {
        fds[i] = connect_from(s.port, 2u + (unsigned)i % SOURCES);
        ck_assert_msg(fds[i] >= 0, "attack connection %d: %s", i, strerror(errno));
    }
    ck_assert_msg(all_connected(fds, ATTACK, 60.0), "the attack's connections did not all complete");
    const double opened = now_s();
    const double deadline = opened + HEAD_TIMEOUT_S; /* when the last attacker's head is due */
    int *const slow = fds + IDLE;
    slowloris_tick(slow, SLOW, 0);

    const struct timespec settle = {0, 300 * 1000000L}; /* let the server take the attack up first */
    nanosleep(&settle, NULL);
    probe p;
    probe_send(&p, s.port);
    long rss_peak = rss_kb(s.pid);
    size_t ticks = 1;
    while (!probe_poll(&p, 100) && now_s() < deadline + PROBE_LATE_S + 5.0) {
        if (now_s() >= opened + (double)ticks) {
            slowloris_tick(slow, SLOW, ticks++);
            const long rss = rss_kb(s.pid);
            rss_peak = rss > rss_peak ? rss : rss_peak;
        }
    }
    ck_assert_msg(p.answered > 0, "the probe got no answer %.1f s after the head deadline", now_s() - deadline);
    ck_assert_msg(strncmp(p.head, "HTTP/1.1 200", 12) == 0, "probe answer: %s", p.head);
    fprintf(stderr,
            "probe: sent %.2f s after the attack opened, answered %.2f s after the head deadline; "
            "RSS %ld KiB before, %ld KiB at peak\n",
            p.sent - opened, p.answered - deadline, rss_before, rss_peak);
    /* The premise: the attack had filled the server, so the probe waited for the guard: it was not
     * answered before the first attacker's head deadline could possibly have passed. */
    ck_assert_double_ge(p.answered - attack_start, (double)HEAD_TIMEOUT_S - 0.01);
    ck_assert_double_le(p.answered - deadline, (double)PROBE_LATE_S);
    close(p.fd);

    /* Every attacker is cut by the head deadline (the idle timeout is 120 s); the last ones within
     * moments of the probe, as they were accepted a little later than the first. */
    double cut = 0.0;
    for (const double t0 = now_s(); now_s() - t0 < 10.0; nanosleep(&settle, NULL)) {
        cut = nq_harness_metric(&s, "nqueensd_connections_head_timeout_total");
        if (cut >= ATTACK) {
            break;
        }
    }
    ck_assert_double_eq(cut, ATTACK);
#ifndef NQ_TEST_SANITIZED /* sanitizers' shadow memory makes the server's RSS meaningless */
    ck_assert_int_le(rss_peak - rss_before, RSS_GROWTH_MAX_KB);
#endif
    for (int i = 0; i < ATTACK; i++) {
        close(fds[i]);
    }
    ck_assert(nq_http_get(&s, "/count?n=8", &r));
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

/* ---- bodies ---------------------------------------------------------------------------------- */

enum {
    STALLED = 200, /* POST bodies sent but for their last byte, then held */
    ENDLESS = 40,  /* chunked bodies that never end */
    BODY_ATTACK = STALLED + ENDLESS,
    BODY_CAP = 64 * 1024, /* the server's --max-body-bytes */
    CHUNK = 4096          /* the endless bodies' chunks */
};

/* An endless body gives up after this much: far more than the kernel's socket buffers take in, so a
 * body that gets this far was read by the server past its cap. */
#define ENDLESS_MAX ((size_t)64 << 20)

/* Send what is left of buf[*sent..len) on a non-blocking socket; false once the server has closed it. */
static bool pump(int fd, const char *buf, size_t len, size_t *sent)
{
    while (*sent < len) {
        const ssize_t w = send(fd, buf + *sent, len - *sent, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        if (w <= 0) return false;
        *sent += (size_t)w;
    }
    return true;
}

/* An endless chunked body: what is left of its head, then chunk (chunk_len > 0 bytes) over and over,
 * up to ENDLESS_MAX bytes in all (*sent); false once the server has closed the connection. */
static bool pump_endless(int fd, const char *head, size_t head_len, const char *chunk, size_t chunk_len, size_t *sent)
{
    if (*sent < head_len) {
        if (!pump(fd, head, head_len, sent)) return false;
        if (*sent < head_len) return true; /* the socket's buffer is full: next round */
    }
    while (*sent < ENDLESS_MAX) {
        const size_t from = (*sent - head_len) % chunk_len;
        size_t off = from;
        const bool open = pump(fd, chunk, chunk_len, &off);
        *sent += off - from;
        if (!open) return false;
        if (off < chunk_len) return true; /* the socket's buffer is full: next round */
    }
    return true;
}

/* Whether fd has something to read: an answer or the close. */
static bool readable(int fd)
{
    struct pollfd r = {.fd = fd, .events = POLLIN};
    return poll(&r, 1, 0) == 1;
}

/* Bodies hold memory only up to their cap: 200 clients each send all of a 64 KiB body but its last
 * byte and wait, 40 send chunked bodies that never end. The server's resident memory grows by at most
 * the stalled bodies' caps (12.5 MiB) and the slack of the other test; every endless body is refused
 * (a 413, then the close) long before ENDLESS_MAX; a probe is answered meanwhile; and every stalled
 * body is cut at the head deadline, unanswered. */
START_TEST(bodies_hold_memory_to_their_caps)
{
    static const char *const args[] = {"--max-body-bytes",
                                       "64K",
                                       "--head-timeout-s",
                                       "4",
                                       "--per-ip-limit",
                                       "16",
                                       "--idle-timeout-s",
                                       "120",
                                       "--http-threads",
                                       "2",
                                       NULL};
    nq_test_server s;
    ck_assert(nq_harness_start(&s, args, NULL));
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/healthz", &r));
    nq_http_response_free(&r);
    const long rss_before = rss_kb(s.pid);
    ck_assert_int_gt(rss_before, 0);

    static char stalled_req[BODY_CAP + 256];
    int k = snprintf(stalled_req, 256,
                     "POST /check HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                     "Content-Length: %d\r\n\r\n",
                     BODY_CAP);
    memset(stalled_req + k, ' ', BODY_CAP - 1); /* all but the last byte */
    const size_t stalled_len = (size_t)k + BODY_CAP - 1;
    static const char endless_head[] = "POST /complete HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
                                       "Transfer-Encoding: chunked\r\n\r\n";
    static char chunk[CHUNK + 16];
    k = snprintf(chunk, 16, "%x\r\n", CHUNK);
    memset(chunk + k, ' ', CHUNK);
    memcpy(chunk + k + CHUNK, "\r\n", 2);
    const size_t chunk_len = (size_t)k + CHUNK + 2;

    static int fds[BODY_ATTACK];
    static size_t sent[BODY_ATTACK];
    static bool done[BODY_ATTACK];
    for (int i = 0; i < BODY_ATTACK; i++) {
        fds[i] = connect_from(s.port, 2u + (unsigned)i % SOURCES);
        ck_assert_msg(fds[i] >= 0, "attack connection %d: %s", i, strerror(errno));
    }
    ck_assert_msg(all_connected(fds, BODY_ATTACK, 60.0), "the attack's connections did not all complete");
    const double opened = now_s();
    long rss_peak = rss_before;
    size_t refused = 0, stalled = 0;
    /* Pump every body until each stalled one is in place (but its last byte) and each endless one is
     * refused; the hang guard is far beyond the head deadline. */
    while ((refused < ENDLESS || stalled < STALLED) && now_s() - opened < 60.0) {
        for (int i = 0; i < BODY_ATTACK; i++) {
            if (done[i]) continue;
            if (i >= STALLED) {
                if (readable(fds[i])) { /* the 413, then the close */
                    char head[16] = {0};
                    (void)recv(fds[i], head, sizeof head - 1, 0);
                    ck_assert_msg(strncmp(head, "HTTP/1.1 413", 12) == 0, "endless body %d: %s", i, head);
                    done[i] = true;
                    refused++;
                    continue;
                }
                (void)pump_endless(fds[i], endless_head, sizeof endless_head - 1, chunk, chunk_len, &sent[i]);
                ck_assert_msg(sent[i] < ENDLESS_MAX, "endless body %d: %zu bytes taken", i, sent[i]);
            } else if (pump(fds[i], stalled_req, stalled_len, &sent[i]) && sent[i] == stalled_len) {
                done[i] = true; /* in place: it waits for the head deadline now */
                stalled++;
            }
        }
        const long rss = rss_kb(s.pid);
        rss_peak = rss > rss_peak ? rss : rss_peak;
    }
    ck_assert_uint_eq(refused, ENDLESS);
    ck_assert_uint_eq(stalled, STALLED);

    probe p; /* while the stalled bodies wait for their deadline */
    probe_send(&p, s.port);
    while (!probe_poll(&p, 100) && now_s() - p.sent < 20.0) {
        const long rss = rss_kb(s.pid);
        rss_peak = rss > rss_peak ? rss : rss_peak;
    }
    ck_assert_msg(p.answered > 0, "the probe got no answer while bodies were pending");
    ck_assert_msg(strncmp(p.head, "HTTP/1.1 200", 12) == 0, "probe answer: %s", p.head);
    close(p.fd);
    fprintf(stderr, "bodies: probe answered in %.3f s; RSS %ld KiB before, %ld KiB at peak\n", p.answered - p.sent,
            rss_before, rss_peak);

    /* Each stalled body is cut at the head deadline: its socket reads the close, nothing else. */
    size_t cut = 0;
    for (int i = 0; i < STALLED; i++) {
        struct pollfd rd = {.fd = fds[i], .events = POLLIN};
        char b;
        if (poll(&rd, 1, 30000) == 1 && recv(fds[i], &b, 1, 0) <= 0) cut++;
    }
    ck_assert_uint_eq(cut, STALLED);
#ifndef NQ_TEST_SANITIZED /* sanitizers' shadow memory makes the server's RSS meaningless */
    ck_assert_int_le(rss_peak - rss_before, RSS_GROWTH_MAX_KB + (long)STALLED * BODY_CAP / 1024);
#endif
    for (int i = 0; i < BODY_ATTACK; i++) close(fds[i]);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

/* Streams hold memory only up to their cap: READERS clients each ask for a long /solve with gzip and
 * read nothing past the head. Only --max-gzip-streams of them get a deflate state (about 300 KiB
 * each, as long as their client dawdles); the rest are sent uncompressed, which a client that accepts
 * gzip must also accept. Once the readers leave, the next stream is compressed again. */
enum {
    READERS = 400,
    GZIP_STREAMS = 4,               /* the server's --max-gzip-streams */
    READERS_RSS_MAX_KB = 40 * 1024, /* 400 deflate states alone would take about 100 MiB */
};

/* Read the head of the response on fd (waiting up to 30 s); whether it is a 200, and in *gzip whether
 * it is compressed. */
static bool head_of(int fd, bool *gzip)
{
    char head[2048];
    size_t len = 0;
    for (const double t0 = now_s(); now_s() - t0 < 30.0 && len < sizeof head - 1;) {
        struct pollfd r = {.fd = fd, .events = POLLIN};
        if (poll(&r, 1, 100) != 1) continue;
        const ssize_t got = recv(fd, head + len, sizeof head - 1 - len, 0);
        if (got <= 0) break;
        len += (size_t)got;
        head[len] = '\0';
        if (strstr(head, "\r\n\r\n")) break;
    }
    head[len] = '\0';
    char *end = strstr(head, "\r\n\r\n");
    if (!end) {
        fprintf(stderr, "no head in %zu bytes: %.200s\n", len, head);
        return false;
    }
    *end = '\0';
    *gzip = strstr(head, "\r\nContent-Encoding: gzip") != NULL;
    if (strncmp(head, "HTTP/1.1 200", 12) == 0) return true;
    fprintf(stderr, "not a 200: %.200s\n", head);
    return false;
}

static void send_solve(int fd, int offset)
{
    char req[160];
    const int k =
        snprintf(req, sizeof req,
                 "GET /solve?n=14&limit=365596&offset=%d HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n\r\n", offset);
    ck_assert_int_eq(send(fd, req, (size_t)k, MSG_NOSIGNAL), k);
}

START_TEST(slow_readers_hold_at_most_the_gzip_streams)
{
    /* Every request is queued for a worker before its stream starts: room for all of them. */
    static const char *const args[] = {"--max-gzip-streams",
                                       "4",
                                       "--cache-bytes",
                                       "1M",
                                       "--max-solutions",
                                       "1000000",
                                       "--idle-timeout-s",
                                       "120",
                                       "--queue-len",
                                       "1024",
                                       "--deadline-ms",
                                       "60000",
                                       NULL};
    nq_test_server s;
    ck_assert(nq_harness_start(&s, args, NULL));
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=14", &r)); /* the totals the streams need, counted once */
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    const long rss_before = rss_kb(s.pid);
    static int fds[READERS];
    for (int i = 0; i < READERS; i++) {
        fds[i] = connect_from(s.port, 2u + (unsigned)i % SOURCES);
        ck_assert_msg(fds[i] >= 0, "reader %d: %s", i, strerror(errno));
    }
    ck_assert_msg(all_connected(fds, READERS, 60.0), "the readers' connections did not all complete");
    for (int i = 0; i < READERS; i++) send_solve(fds[i], i);
    int gzipped = 0;
    for (int i = 0; i < READERS; i++) {
        bool gz = false;
        ck_assert_msg(head_of(fds[i], &gz), "reader %d got no 200", i);
        gzipped += gz;
    }
    const long rss_peak = rss_kb(s.pid);
    fprintf(stderr, "slow readers: %d of %d compressed; RSS %ld KiB before, %ld KiB with them\n", gzipped, READERS,
            rss_before, rss_peak);
    ck_assert_int_eq(gzipped, GZIP_STREAMS); /* none of them can have finished: megabytes each */
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_gzip_streams"), GZIP_STREAMS);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_gzip_streams_max"), GZIP_STREAMS);
    ck_assert_double_eq(nq_harness_metric(&s, "nqueensd_gzip_streams_declined_total"), READERS - GZIP_STREAMS);
    /* HEAD says what GET would get now: uncompressed while every gzip stream is taken. */
    static const char *const gz[] = {"Accept-Encoding: gzip", NULL};
    ck_assert(nq_http_request(&s, "HEAD", "/solve?n=14&limit=365596&offset=999", gz, &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_null(nq_http_header_get(&r, "Content-Encoding"));
    nq_http_response_free(&r);
#ifndef NQ_TEST_SANITIZED
    ck_assert_int_le(rss_peak - rss_before, READERS_RSS_MAX_KB);
#endif
    for (int i = 0; i < READERS; i++) close(fds[i]);
    /* The server frees a stream when it notices its client gone: the next one is compressed again. */
    bool again = false;
    for (const double t0 = now_s(); !again && now_s() - t0 < 30.0;) {
        const int fd = connect_from(s.port, 1);
        ck_assert(fd >= 0 && all_connected(&fd, 1, 10.0));
        send_solve(fd, 0);
        ck_assert(head_of(fd, &again));
        close(fd);
        if (!again) nq_harness_sleep_ms(100);
    }
    ck_assert_msg(again, "no compressed stream after the readers left");
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 20), 0);
}
END_TEST

/* The attack needs about FDS_NEEDED descriptors here and in the server (which inherits the limit). */
static bool raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        return false;
    }
    if (rl.rlim_cur < FDS_NEEDED) {
        rl.rlim_cur = rl.rlim_max < 16384 ? rl.rlim_max : 16384;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            return false;
        }
    }
    return rl.rlim_cur >= FDS_NEEDED;
}

int main(void)
{
    if (!raise_fd_limit()) {
        fprintf(stderr, "test_hostile: needs %d file descriptors (ulimit -n)\n", FDS_NEEDED);
        return EXIT_FAILURE;
    }
    curl_global_init(CURL_GLOBAL_ALL);
    Suite *const suite = suite_create("hostile");
    TCase *const tc = tcase_create("connections");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, idle_and_slow_clients_do_not_lock_out_a_probe);
    tcase_add_test(tc, bodies_hold_memory_to_their_caps);
    tcase_add_test(tc, slow_readers_hold_at_most_the_gzip_streams);
    suite_add_tcase(suite, tc);
    const int failed = nq_check_run(suite);
    curl_global_cleanup();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
