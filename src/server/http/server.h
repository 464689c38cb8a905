/* server.h - nqueensd's HTTP server: libmicrohttpd glue around the application (app.h).
 *
 * The server owns the libmicrohttpd daemon, the response cache, the application, the connection
 * guard and the listener that accepts connections for the daemon (listener.h). Per request it takes the raw request target from MHD_OPTION_URI_LOG_CALLBACK (libmicrohttpd's
 * own argument parsing is not strict enough: see query.h), queues the response on the handler's
 * second call (queuing on the first forces Connection: close), and ends every request in exactly one
 * place, the MHD_OPTION_NOTIFY_COMPLETED callback, which fills an nq_request_record for the access
 * log and the metrics.
 *
 * Thread-safety: create and destroy from one thread; nq_server_port, nq_server_drain and
 * nq_server_idle from any thread at any time between them.
 */
#ifndef NQ_SERVER_H
#define NQ_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/config.h"
#include "base/errors.h"
#include "nqueens/error.h"
#include "ops/ops.h"
#include "store/store.h"

typedef struct nq_server nq_server; /* opaque */

/* Create the server over cfg (borrowed: must outlive the server) and the operations bundle ops
 * (borrowed, may be NULL: no access log, no metrics; else every finished request is reported to it,
 * once, and /metrics renders from it) and the store (borrowed, may be NULL: nothing persists; it
 * must outlive the server, whose destruction writes the last checkpoints), bind cfg->bind_addr:cfg->port (port 0: the kernel picks one,
 * see nq_server_port) and start serving on cfg->http_threads threads.
 * On success *out owns the server (nq_server_destroy).
 * Errors: NQ_E_ARG (NULL, or a bind address that is not a numeric IPv4/IPv6 address), NQ_E_NOMEM,
 * NQ_E_THREAD (libmicrohttpd could not start: port in use, no permission, ...), NQ_E_STORE_IO (the
 * store could not be read). Nothing is left
 * running on error. */
nq_err nq_server_create(const nq_config *cfg, const nq_ops *ops, nq_store *store, nq_server **out);

/* The bound TCP port (the real one when cfg->port was 0). */
uint16_t nq_server_port(const nq_server *s);

/* Start draining: readiness reports 503 and the listening socket is closed (no new connections);
 * connections already open keep being served, each answer from then on with Connection: close.
 * Idempotent. */
void nq_server_drain(nq_server *s);

/* True when no request is in flight (between its first byte and its completion). */
bool nq_server_idle(const nq_server *s);

/* Stop serving (open connections are closed), free everything. NULL is accepted. */
void nq_server_destroy(nq_server *s);

#endif /* NQ_SERVER_H */
