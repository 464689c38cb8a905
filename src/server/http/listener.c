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

struct nq_listener {
    int fd;                 /* the listening socket, owned; -1 once stopped */
    struct MHD_Daemon *mhd; /* borrowed: connections go there */
    nq_guard *guard;        /* borrowed: counts the connections workers have taken up */
    unsigned conn_limit;    /* accept while fewer connections are open */
    atomic_bool stopping;   /* set by nq_listener_stop before it shuts the socket down */
    pthread_t thread;       /* runs accept_loop */
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

static void accept_one(nq_listener *l)
{
    struct sockaddr_storage addr;
    socklen_t len = sizeof addr;
    const int fd = accept4(l->fd, (struct sockaddr *)(void *)&addr, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) {
        /* libmicrohttpd owns the socket from here; when it refuses it (per-address limit, no
         * memory) it closes it, and the connection is not counted. */
        if (MHD_add_connection(l->mhd, fd, (const struct sockaddr *)(const void *)&addr, len) == MHD_YES) {
            l->handed++;
            l->moved_ms = nq_clock_ms();
        } else {
            nq_guard_refused(l->guard);
        }
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
    return st.open + pending;
}

/* Wait for a connection first and only then look for room: a look taken before a long wait would be
 * stale by the time a connection came. nq_listener_stop's shutdown wakes the poll (POLLHUP). */
static void *accept_loop(void *arg)
{
    nq_listener *const l = arg;
    struct pollfd ready = {.fd = l->fd, .events = POLLIN, .revents = 0};
    while (!stopping(l)) {
        if (poll(&ready, 1, -1) < 0 && errno != EINTR) {
            pause_ms(BACKOFF_MS); /* ENOMEM: the kernel could not set the wait up */
        } else if (stopping(l)) {
            break;
        } else if (in_use(l) < l->conn_limit) {
            accept_one(l);
        } else {
            pause_ms(ROOM_POLL_MS);
        }
    }
    return NULL;
}

nq_err nq_listener_start(int fd, struct MHD_Daemon *mhd, nq_guard *g, unsigned conn_limit, nq_listener **out)
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
