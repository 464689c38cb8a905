/* listener.c - the accept loop in front of libmicrohttpd (see listener.h for why it exists).
 *
 * The loop runs at the pace of connection arrival, not of requests: keep-alive connections are
 * handed over once. Each accepted socket costs libmicrohttpd one wake-up of the chosen worker (its
 * inter-thread channel) beyond what its own accept would have cost.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include "listener.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* How often a loop at the connection limit looks for room: the delay a waiting client may add to
 * its wait for a free slot, against wake-ups while the server is full. */
#define ROOM_POLL_MS 5u
/* The pause after an accept error that is not about one connection (out of descriptors or memory):
 * retrying at once would spin while nothing has changed. */
#define BACKOFF_MS 20u

struct nq_listener {
    int fd;                  /* the listening socket, owned; -1 once stopped */
    struct MHD_Daemon *mhd;  /* borrowed: connections go there */
    unsigned conn_limit;     /* accept while fewer connections are open */
    atomic_bool stopping;    /* set by nq_listener_stop before it shuts the socket down */
    pthread_t thread;        /* runs accept_loop */
};

static void pause_ms(unsigned ms)
{
    const struct timespec ts = {(time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L};
    (void)nanosleep(&ts, NULL);
}

/* Errors about one connection (it went away before being accepted, or a network error was pending
 * on it, which accept(2) on Linux reports in its place): take the next one at once. */
static bool about_one_connection(int err)
{
    switch (err) {
    case EINTR:
    case EAGAIN:
    case ECONNABORTED:
    case EPROTO:
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH:
        return true;
    default:
        return false;
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
         * memory) it closes it. */
        (void)MHD_add_connection(l->mhd, fd, (const struct sockaddr *)(const void *)&addr, len);
        return;
    }
    const int err = errno;
    /* EINVAL once nq_listener_stop has shut the socket down: the loop's condition ends it. */
    if (!about_one_connection(err) && !stopping(l)) {
        pause_ms(BACKOFF_MS);
    }
}

static bool has_room(const nq_listener *l)
{
    const union MHD_DaemonInfo *const info = MHD_get_daemon_info(l->mhd, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL || info->num_connections < l->conn_limit;
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
        } else if (has_room(l)) {
            accept_one(l);
        } else {
            pause_ms(ROOM_POLL_MS);
        }
    }
    return NULL;
}

nq_err nq_listener_start(int fd, struct MHD_Daemon *mhd, unsigned conn_limit, nq_listener **out)
{
    if (fd < 0 || mhd == NULL || conn_limit == 0 || out == NULL) {
        return NQ_E_ARG;
    }
    nq_listener *const l = calloc(1, sizeof *l);
    if (l == NULL) {
        return NQ_E_NOMEM;
    }
    l->fd = fd;
    l->mhd = mhd;
    l->conn_limit = conn_limit;
    atomic_init(&l->stopping, false);
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
    (void)shutdown(l->fd, SHUT_RDWR); /* refuses new connections and wakes the blocked accept4 */
    pthread_join(l->thread, NULL);
    (void)close(l->fd);
    l->fd = -1;
}

void nq_listener_destroy(nq_listener *l)
{
    nq_listener_stop(l);
    free(l);
}
