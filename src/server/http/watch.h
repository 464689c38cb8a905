/* watch.h - hang-up watch for connections nobody else watches: one thread tells its owner when the
 * peer of a registered socket goes away.
 *
 * Why: libmicrohttpd stops watching a connection while it is suspended (a computation runs for it on
 * the worker pool), so a client that leaves is noticed only once the computation ends - with no
 * deadline, never - and the computation goes on for nobody. The server registers each suspended
 * connection's socket here; when its peer closes (or resets) it, the callback withdraws the waiter
 * and resumes the connection, and libmicrohttpd then sees the close and ends the request.
 *
 * What counts as leaving: EPOLLRDHUP (the peer shut its sending side or closed), EPOLLHUP and EPOLLERR.
 * Bytes that arrive (a pipelined next request) do not: the watch never asks for EPOLLIN, so a live
 * client that pipelines is left alone. A client that shuts down only its sending side while still
 * waiting for the answer is taken as gone, as libmicrohttpd itself takes it: it closes such a
 * connection, unanswered, as soon as it reads the end of the stream.
 *
 * Life of a registration: nq_watch_add returns an id; the callback runs at most once, on the watch's
 * thread, if the peer goes away; nq_watch_remove(id) ends the registration and reports whether the
 * callback ran. Once remove returns the callback will not run, and has returned if it ran: remove
 * waits while it is running on the watch's thread. So what the callback touches (its arg) stays alive
 * as long as the owner removes the id before freeing it, and whatever the callback wrote is visible
 * to the owner after remove. Ids are never reused (a generation count per slot), so a late event for
 * a removed registration is recognised and dropped: the thread never dereferences a stale argument.
 *
 * The socket must stay open until remove is called: the epoll registration belongs to the open file,
 * and a closed and reused descriptor number must not be taken for the one registered.
 *
 * Thread-safety: add and remove may be called from any thread, concurrently with the watch's thread.
 * The callback must not call nq_watch_remove or nq_watch_stop, nor wait for a thread that may be
 * inside nq_watch_remove. create, stop and destroy from one thread. One mutex guards the slot table;
 * its critical sections are O(1) apart from growing the table (doubling).
 */
#ifndef NQ_WATCH_H
#define NQ_WATCH_H

#include <stdbool.h>
#include <stdint.h>

#include "base/errors.h"
#include "nqueens/error.h"

typedef struct nq_watch nq_watch; /* opaque */

/* A registration; 0 is never a valid id (the "not watched" value). */
typedef uint64_t nq_watch_id;

/* The peer of a watched socket went away. Called on the watch's thread, without its lock held. */
typedef void (*nq_watch_fn)(void *arg);

/* Create a watch and start its thread. On success *out owns it (nq_watch_destroy).
 * Errors: NQ_E_ARG (out NULL), NQ_E_NOMEM, NQ_E_THREAD (epoll, eventfd or the thread would not start);
 * nothing is left allocated then. */
nq_err nq_watch_create(nq_watch **out);

/* Stop and join the watch's thread (a callback in progress finishes first); no callback runs after
 * this returns. nq_watch_add then fails with NQ_E_DRAINING, while nq_watch_remove keeps working.
 * Idempotent; NULL is accepted. */
void nq_watch_stop(nq_watch *w);

/* nq_watch_stop, then free the watch. Every registration should have been removed (ids of one not
 * removed become invalid). NULL is accepted. */
void nq_watch_destroy(nq_watch *w);

/* Watch fd (a connected stream socket, borrowed: see above) and call fn(arg) once if its peer goes
 * away. On success *id is the registration.
 * Errors (nothing registered, *id 0, fn never called): NQ_E_ARG (w, fn or id NULL, fd negative),
 * NQ_E_DRAINING (after nq_watch_stop), NQ_E_NOMEM, NQ_E_INTERNAL (epoll refused the descriptor). */
nq_err nq_watch_add(nq_watch *w, int fd, nq_watch_fn fn, void *arg, nq_watch_id *id);

/* End registration id and return whether its callback ran (waiting for it to return if it is running
 * now). An id of 0, or one already removed, returns false and does nothing. w may be NULL only with
 * an id of 0. */
bool nq_watch_remove(nq_watch *w, nq_watch_id id);

#endif /* NQ_WATCH_H */
