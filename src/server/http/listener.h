/* listener.h - the accept loop in front of libmicrohttpd: takes connections off nqueensd's listening
 * socket and hands them to the daemon, until draining stops it.
 *
 * Why nqueensd accepts connections itself: a drain must stop taking connections while the open ones
 * go on being served. libmicrohttpd's way to do that, MHD_quiesce_daemon, races its own worker
 * threads when they wait with epoll (0.9.75, Debian 12): both the caller and a busy worker take the
 * listening socket out of the worker's epoll set, and the one that comes second gets ENOENT, which
 * libmicrohttpd answers with MHD_PANIC - abort(), on SIGTERM, with requests in flight. (Its poll mode
 * quiesces safely but costs every request a pass over every open connection: 35k instead of 100k
 * requests/s with 3000 idle connections.) So the daemon runs without a listening socket
 * (MHD_USE_NO_LISTEN_SOCKET); one thread here waits for connections (poll), accepts them and passes
 * each on with MHD_add_connection, which queues it for a worker (chosen by socket number) and applies
 * the per-address limit and the connection callbacks (the guard's) as for its own accepts.
 *
 * The connection limit is kept here, exactly, over all workers: at the limit the loop does not
 * accept (it looks again every few milliseconds), so new connections wait in the kernel's backlog
 * until one closes - as they did when libmicrohttpd accepted - instead of being accepted and closed.
 * The count is the guard's (connections its workers have taken up and not closed) plus those handed
 * over and still queued (listener.c). One that a worker drops without a word (no memory for its pool)
 * stays counted until 2 s pass in which no worker takes anything up: under memory exhaustion the
 * limit shrinks by one per such drop until traffic pauses, the safe direction. libmicrohttpd's own limit must never be reached: a worker that
 * finds itself at it when taking up a queued connection leaves a mutex locked (0.9.75) and the
 * server hangs. The server therefore gives libmicrohttpd a limit no process can reach.
 *
 * Probes never queue behind the work they report on. The workers produce response bodies as they
 * send them (rendering, gzip of streams), so a worker can be busy for a long while with the streams
 * of its connections, and a new connection handed to it waits its turn: under a mixed load a probe
 * took up to a second. So a new connection whose head is a probe's ("GET /healthz", "HEAD
 * /readyz?...") that closes the connection after it ("Connection: close", as the kubelet's probes and
 * `nqueensd --probe` send) goes to a daemon of its own: one thread that serves nothing else, and one
 * request a connection (its answers say Connection: close). It is told from the connection's first
 * bytes (up to PEEK_BYTES) without taking them (MSG_PEEK). A probe on a connection the client keeps
 * is served by the workers: anything may follow it. A connection that has sent nothing yet waits up to SORT_MS for them
 * in this loop's poll (at most SORT_MAX at once; the rest go to the workers unsorted), then goes to
 * the workers; a probe that sends its request line slower than that is served by them.
 *
 * Stopping is shutdown(2) on the listening socket: the kernel refuses new connections from then on,
 * resets those still waiting in the backlog (at the limit, say), and the loop's poll wakes
 * (POLLHUP); the thread is joined, then the socket closed. A connection accepted just before is still
 * handed over and served.
 *
 * Thread-safety: start, stop and destroy from one thread (or serialised by the caller); the loop
 * itself runs on the listener's own thread.
 */
#ifndef NQ_LISTENER_H
#define NQ_LISTENER_H

#include <microhttpd.h>

#include "http/guard.h"
#include "nqueens/error.h"

typedef struct nq_listener nq_listener; /* opaque */

/* Start accepting on fd (a non-blocking, listening TCP socket) into mhd (started with an internal
 * polling thread, MHD_USE_NO_LISTEN_SOCKET and an unreachable connection limit; borrowed, must
 * outlive the listener), while fewer than conn_limit connections are open. Connections whose first
 * request is a probe go to probes instead (started the same way; borrowed; NULL: every connection
 * goes to mhd). g is the guard whose
 * callbacks mhd runs (borrowed, must outlive the listener): its counts are the open connections.
 * On success *out owns the listener and the listener owns fd (nq_listener_stop closes it).
 * Errors: NQ_E_ARG (a NULL argument, a negative fd or a zero conn_limit), NQ_E_NOMEM, NQ_E_THREAD; on
 * error fd is left open and still the caller's. */
nq_err nq_listener_start(int fd, struct MHD_Daemon *mhd, struct MHD_Daemon *probes, nq_guard *g, unsigned conn_limit,
                         nq_listener **out);

/* Stop taking connections: shut the socket down (new connections are refused), join the thread,
 * close the socket. Returns within about 20 ms (the loop's longest pause). Idempotent; NULL is
 * accepted and ignored. */
void nq_listener_stop(nq_listener *l);

/* Stop (if not yet stopped) and free. NULL is accepted and ignored. */
void nq_listener_destroy(nq_listener *l);

#endif /* NQ_LISTENER_H */
