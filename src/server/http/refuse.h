/* refuse.h - one answer written straight to a connection's socket, for the one refusal libmicrohttpd
 * cannot send: one in the middle of a request body.
 *
 * libmicrohttpd 0.9.75 queues a response only before a body is read (the first handler call) or after
 * all of it has arrived, so a chunked body that grows past its cap, and may never end, would never
 * get its 413 through it. The server writes that answer itself, as libmicrohttpd would have framed
 * it (status line, Date, "Connection: close", the response's headers, Content-Length, the body), and
 * then has libmicrohttpd close the connection. The rest of the body is not read: a client still
 * sending when the connection closes may see it reset, possibly before it reads the answer.
 *
 * The same way, the server answers a chunk-size line libmicrohttpd cannot read (it would send an HTML
 * 500) with a 400 problem, from its error logger (server.c).
 *
 * Thread-safety: call it from the libmicrohttpd thread serving the connection, inside its handler or
 * error logger, while libmicrohttpd is receiving (it writes nothing then).
 */
#ifndef NQ_REFUSE_H
#define NQ_REFUSE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/app.h"

/* Write resp (a complete answer whose body, if any, is in memory: STATIC or OWNED) to the socket fd
 * without blocking, as one HTTP/1.1 response that closes the connection. *body_sent receives the body
 * bytes that went out. Returns false when it did not all go out (the socket's buffer was full, or
 * the client had gone): the connection is to be closed either way. */
bool nq_refuse_send(int fd, const nq_response *resp, size_t *body_sent);

#endif /* NQ_REFUSE_H */
