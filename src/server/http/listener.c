/* listener.c - the accept loop in front of libmicrohttpd (see listener.h for why it exists).
 *
 * The loop runs at the pace of connection arrival, not of requests: keep-alive connections are
 * handed over once. Each accepted socket costs libmicrohttpd one wake-up of the chosen worker (its
 * inter-thread channel) beyond what its own accept would have cost.
 *
 * Counting open connections exactly: a connection handed over sits in its worker's queue until the
 * worker takes it up and reports it (MHD_CONNECTION_NOTIFY_STARTED, counted by the guard as
 * `accepted`; closes as `open` going down). So open connections = the guard's `open` + those handed
 * over and not yet taken up (`handed` - `given_up` - `accepted`). A worker that cannot take one up
 * (no memory for its pool) closes it without any report; such a shortfall is written off once
 * nothing has moved for STALE_MS, so it cannot shrink the limit for good.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include "http/listener.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"

/* How often a loop at the connection limit looks for room: the delay a waiting client may add to
 * its wait for a free slot, against wake-ups while the server is full. */
#define ROOM_POLL_MS 5u
/* The pause after an accept error that is not about one connection (out of descriptors or memory):
 * retrying at once would spin while nothing has changed. */
#define BACKOFF_MS 20u
/* Connections handed over but not reported for this long were dropped by their worker. Workers take
 * up their queue within milliseconds; one stalled longer than this (a stopped process, a machine
 * swapping) makes the count err low until it catches up: a few connections too many, never a hang. */
#define STALE_MS 2000u

/* How long a new connection may wait for its first bytes to tell whether it is a probe; one that
 * says nothing in that time goes to the workers (its head clock starts there). */
#define SORT_MS 100u
/* New connections waiting for their first bytes at once; beyond, they go to the workers unsorted. */
#define SORT_MAX 128u
/* The most of a new connection's head the sorter looks at: a probe's head is a few hundred bytes. */
#define PEEK_BYTES 1024u

/* A connection accepted and not yet handed over, waiting for the bytes that say whether it is a probe. */
typedef struct sorting_conn {
    int fd;                       /* the socket, owned until handed over */
    struct sockaddr_storage addr; /* the peer */
    socklen_t len;                /* its length */
    uint64_t due_ms;              /* when it goes to the workers unsorted */
} sorting_conn;

struct nq_listener {
    int fd;                         /* the listening socket, owned; -1 once stopped */
    struct MHD_Daemon *mhd;         /* borrowed: connections go there */
    struct MHD_Daemon *probes;      /* borrowed, or NULL: connections whose first request is a probe go there */
    sorting_conn sorting[SORT_MAX]; /* connections waiting for their first bytes (loop thread only) */
    unsigned nsorting;              /* how many */
    nq_guard *guard;                /* borrowed: counts the connections workers have taken up */
    unsigned conn_limit;            /* accept while fewer connections are open */
    atomic_bool stopping;           /* set by nq_listener_stop before it shuts the socket down */
    pthread_t thread;               /* runs accept_loop */
    /* The loop thread's own bookkeeping (see the file comment): */
    uint64_t handed;       /* connections MHD_add_connection took */
    uint64_t given_up;     /* of those, written off as dropped before their report */
    uint64_t last_started; /* the guard's `accepted` at the previous look */
    uint64_t moved_ms;     /* when a hand-over or a report last happened */
};

static void pause_ms(unsigned ms)
{
    const struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    (void)nanosleep(&ts, NULL);
}

/* Errors about one connection (it went away before being accepted, a firewall rule refused it, or a
 * network error was pending on it, which accept(2) on Linux reports in its place): take the next
 * one at once. */
static bool about_one_connection(int err)
{
    switch (err) {
    case EINTR:
    case EAGAIN:
    case ECONNABORTED:
    case EPERM:
    case EPROTO:
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH: return true;
    default: return false;
    }
}

static bool stopping(nq_listener *l)
{
    return atomic_load_explicit(&l->stopping, memory_order_acquire);
}

/* Hand fd to daemon. libmicrohttpd owns the socket from here; when it refuses it (per-address limit,
 * no memory) it closes it, and the connection is not counted. */
static void hand_over(nq_listener *l, struct MHD_Daemon *daemon, int fd, const struct sockaddr_storage *addr,
                      socklen_t len)
{
    if (MHD_add_connection(daemon, fd, (const struct sockaddr *)(const void *)addr, len) == MHD_YES) {
        l->handed++;
        l->moved_ms = nq_clock_ms();
    } else {
        nq_guard_refused(l->guard);
    }
}

typedef enum sort_verdict { SORT_WAIT, SORT_PROBE, SORT_WORK } sort_verdict;

/* Whether the request line at buf (n bytes) is a probe's ("GET /healthz ", "HEAD /readyz?..."):
 * SORT_PROBE, SORT_WORK, or SORT_WAIT while the bytes are a prefix of one. */
static sort_verdict probe_line(const char *buf, size_t n)
{
    static const char *const probes[] = {"GET /healthz", "GET /readyz", "HEAD /healthz", "HEAD /readyz"};
    bool could = false; /* a probe's line may still follow */
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        const size_t plen = strlen(probes[i]);
        if (memcmp(buf, probes[i], n < plen ? n : plen) != 0) {
            continue;
        }
        if (n <= plen) {
            could = true;
        } else if (buf[plen] == ' ' || buf[plen] == '?') {
            return SORT_PROBE;
        }
    }
    return could ? SORT_WAIT : SORT_WORK;
}

/* Whether the head at buf (n bytes, the request line first) is whole and has a "Connection" line
 * naming "close": SORT_PROBE (whole, closing), SORT_WORK (whole, not closing), SORT_WAIT (not whole). */
static sort_verdict closing_head(const char *buf, size_t n)
{
    static const char name[] = "connection:";
    bool closes = false;
    const char *line = memchr(buf, '\n', n); /* past the request line */
    while (line != NULL) {
        line++;
        const size_t left = n - (size_t)(line - buf);
        const char *const eol = memchr(line, '\n', left);
        if (eol == NULL) {
            return SORT_WAIT;
        }
        const size_t len = (size_t)(eol - line);
        if (len == 0 || (len == 1 && line[0] == '\r')) {
            return closes ? SORT_PROBE : SORT_WORK; /* the empty line: the head is whole */
        }
        if (len > sizeof name - 1 && strncasecmp(line, name, sizeof name - 1) == 0) {
            for (const char *p = line + sizeof name - 1; p + 5 <= eol; p++) {
                closes = closes || strncasecmp(p, "close", 5) == 0;
            }
        }
        line = eol;
    }
    return SORT_WAIT;
}

/* What fd's first bytes say, without taking them: a probe that closes its connection after it (the
 * kubelet's and `nqueensd --probe` say "Connection: close"), something else, or too little yet to
 * tell. Only such one-request connections go to the probes' daemon: a probe on a kept connection may
 * be followed by anything, which the workers must serve. */
static sort_verdict sort_peek(int fd)
{
    char buf[PEEK_BYTES];
    const ssize_t got = recv(fd, buf, sizeof buf, MSG_PEEK | MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
        return SORT_WAIT;
    }
    if (got <= 0) {
        return SORT_WORK; /* closed or failed: the workers see it and close it */
    }
    const size_t n = (size_t)got;
    sort_verdict v = probe_line(buf, n);
    if (v == SORT_PROBE) {
        v = closing_head(buf, n);
    }
    return v == SORT_WAIT && n == sizeof buf ? SORT_WORK : v; /* a head larger than a probe's */
}

/* Take up a connection just accepted: to the probes' daemon or the workers when its first bytes tell,
 * else onto the sorting list (no room there: to the workers). */
static void sort_new(nq_listener *l, int fd, const struct sockaddr_storage *addr, socklen_t len)
{
    const sort_verdict v = l->probes ? sort_peek(fd) : SORT_WORK;
    if (v == SORT_WAIT && l->nsorting < SORT_MAX) {
        l->sorting[l->nsorting++] = (sorting_conn){fd, *addr, len, nq_clock_ms() + SORT_MS};
        return;
    }
    hand_over(l, v == SORT_PROBE ? l->probes : l->mhd, fd, addr, len);
}

/* Hand over every waiting connection whose bytes now tell, whose time is up, or all of them (all:
 * stopping); returns when the next one is due (UINT64_MAX: none waits). */
static uint64_t sort_waiting(nq_listener *l, bool all)
{
    const uint64_t now = nq_clock_ms();
    uint64_t next = UINT64_MAX;
    for (unsigned i = 0; i < l->nsorting;) {
        sorting_conn *const p = &l->sorting[i];
        const sort_verdict v = all || now >= p->due_ms ? SORT_WORK : sort_peek(p->fd);
        if (v == SORT_WAIT) {
            next = p->due_ms < next ? p->due_ms : next;
            i++;
            continue;
        }
        hand_over(l, v == SORT_PROBE ? l->probes : l->mhd, p->fd, &p->addr, p->len);
        /* In accept order: which connections of one address pass its cap must not change. */
        memmove(&l->sorting[i], &l->sorting[i + 1], (l->nsorting - i - 1) * sizeof l->sorting[0]);
        l->nsorting--;
    }
    return next;
}

static void accept_one(nq_listener *l)
{
    struct sockaddr_storage addr;
    socklen_t len = sizeof addr;
    const int fd = accept4(l->fd, (struct sockaddr *)(void *)&addr, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
        sort_new(l, fd, &addr, len);
        return;
    }
    const int err = errno;
    /* EINVAL once nq_listener_stop has shut the socket down: the loop's condition ends it. */
    if (!about_one_connection(err) && !stopping(l)) {
        pause_ms(BACKOFF_MS);
    }
}

/* Connections open, or handed over and not yet taken up (the file comment says how). */
static uint64_t in_use(nq_listener *l)
{
    nq_guard_stats st;
    nq_guard_stats_get(l->guard, &st);
    const uint64_t now = nq_clock_ms();
    if (st.accepted != l->last_started) {
        l->last_started = st.accepted;
        l->moved_ms = now;
    }
    if (st.accepted > l->handed - l->given_up) {
        l->given_up = l->handed - st.accepted; /* one written off was taken up after all */
    }
    uint64_t pending = l->handed - l->given_up - st.accepted;
    if (pending > 0 && now - l->moved_ms >= STALE_MS) {
        l->given_up += pending; /* dropped by their workers without a report */
        pending = 0;
    }
    return st.open + pending + l->nsorting;
}

/* Wait for a connection first and only then look for room: a look taken before a long wait would be
 * stale by the time a connection came. nq_listener_stop's shutdown wakes the poll (POLLHUP). */
static void *accept_loop(void *arg)
{
    nq_listener *const l = arg;
    struct pollfd ready[1 + SORT_MAX];
    uint64_t due = UINT64_MAX; /* when the next connection waiting to be sorted goes unsorted */
    while (!stopping(l)) {
        ready[0] = (struct pollfd){.fd = l->fd, .events = POLLIN, .revents = 0};
        for (unsigned i = 0; i < l->nsorting; i++) {
            ready[1 + i] = (struct pollfd){.fd = l->sorting[i].fd, .events = POLLIN, .revents = 0};
        }
        const uint64_t now = nq_clock_ms();
        const int wait_ms = due == UINT64_MAX ? -1 : due > now ? (int)(due - now) : 0;
        const int rc = poll(ready, 1 + l->nsorting, wait_ms);
        if (rc < 0 && errno != EINTR) {
            pause_ms(BACKOFF_MS); /* ENOMEM: the kernel could not set the wait up */
        } else if (stopping(l)) {
            break;
        } else if (ready[0].revents == 0) {
            due = sort_waiting(l, false);
        } else if (in_use(l) < l->conn_limit) {
            accept_one(l);
            due = sort_waiting(l, false);
        } else {
            due = sort_waiting(l, false);
            pause_ms(ROOM_POLL_MS);
        }
    }
    (void)sort_waiting(l, true); /* accepted before the stop: served, unsorted */
    return NULL;
}

nq_err nq_listener_start(int fd, struct MHD_Daemon *mhd, struct MHD_Daemon *probes, nq_guard *g, unsigned conn_limit,
                         nq_listener **out)
{
    if (fd < 0 || mhd == NULL || g == NULL || conn_limit == 0 || out == NULL) {
        return NQ_E_ARG;
    }
    nq_listener *const l = calloc(1, sizeof *l);
    if (l == NULL) {
        return NQ_E_NOMEM;
    }
    l->fd = fd;
    l->mhd = mhd;
    l->probes = probes;
    l->guard = g;
    l->conn_limit = conn_limit;
    atomic_init(&l->stopping, false);
    nq_guard_stats st;
    nq_guard_stats_get(g, &st);
    l->last_started = st.accepted;
    l->given_up = 0;
    l->handed = st.accepted; /* a guard that already counted connections: none pending */
    l->moved_ms = nq_clock_ms();
    if (pthread_create(&l->thread, NULL, accept_loop, l) != 0) {
        free(l);
        return NQ_E_THREAD;
    }
    *out = l;
    return NQ_OK;
}

void nq_listener_stop(nq_listener *l)
{
    if (l == NULL || l->fd < 0) {
        return;
    }
    atomic_store_explicit(&l->stopping, true, memory_order_release);
    (void)shutdown(l->fd, SHUT_RDWR); /* refuses new connections and wakes the loop's poll */
    pthread_join(l->thread, NULL);
    (void)close(l->fd);
    l->fd = -1;
}

void nq_listener_destroy(nq_listener *l)
{
    nq_listener_stop(l);
    free(l);
}
