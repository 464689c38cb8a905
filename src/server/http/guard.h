/* guard.h - connection hardening for nqueensd: a deadline for the whole request head, the per-address
 * connection limit, idle timeout, and caps on the request target and header section (414 / 431).
 *
 * Why a head deadline of our own: libmicrohttpd's MHD_OPTION_CONNECTION_TIMEOUT is an idle timeout
 * that every received byte resets, so a client sending one byte a second (slowloris) holds its
 * connection forever, and a few thousand of them exhaust the connection limit. The guard records when
 * each connection starts waiting for a request head and a sweeper thread closes every connection
 * whose head has not arrived in time: within head_timeout_s of being accepted, and within
 * max(idle_timeout_s, head_timeout_s) of the previous response on a keep-alive connection (the
 * keep-alive allowance: proxies in front keep idle connections in their pools, so the wait between
 * requests follows the idle timeout; bytes trickled in meanwhile do not extend it).
 *
 * How a connection libmicrohttpd owns is closed from another thread: shutdown(2) on its socket, never
 * close(2). The descriptor stays open and owned by libmicrohttpd, whose event loop sees the end of the
 * stream and closes the connection itself through its normal path (callbacks, counters, per-IP
 * accounting). The sweeper only calls shutdown under the guard's lock and only on a connection still
 * registered; libmicrohttpd reports the close (MHD_CONNECTION_NOTIFY_CLOSED, which takes that lock)
 * before it closes the descriptor, so the descriptor cannot have been reused by another connection.
 *
 * The rest are libmicrohttpd options the guard hands to MHD_start_daemon (nq_guard_mhd_options):
 * per-IP limit, idle timeout, and a per-connection memory pool sized so that heads
 * somewhat larger than the caps still reach the server, which then answers 414 / 431 with a problem
 * body (nq_guard_check_head). Heads beyond even that pool get libmicrohttpd's own 414 / 431.
 *
 * Use from server.c:
 *   nq_guard_create(&cfg, &g);  opts += nq_guard_mhd_options(g, opts, cap);  MHD_start_daemon(...);
 *   first handler call of a request:   nq_guard_head_received(conn); nq_guard_check_head(g, conn, uri_len)
 *   request line parsed:               nq_guard_request_begin(conn, request)
 *   NOTIFY_COMPLETED of a request:     nq_guard_request_done(conn)
 *   after MHD_stop_daemon:             nq_guard_destroy(g)
 *
 * Thread-safety: every function but create and destroy may be called from any thread. One mutex
 * guards the two lists of connections waiting for a head; each operation on them is O(1) (each list
 * is in deadline order because all its waits get the same allowance, so the sweeper only looks at
 * their first elements).
 */
#ifndef NQ_GUARD_H
#define NQ_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "base/errors.h"
#include "nqueens/error.h"

/* Options nq_guard_mhd_options may write, MHD_OPTION_END included: size the caller's array with it. */
#define NQ_GUARD_MHD_OPTIONS 5u

/* Seconds an idle keep-alive connection is kept beyond the idle timeout it is announced with
 * ("Keep-Alive: timeout=idle_timeout_s" on every response that keeps the connection): a client that
 * reuses the connection just before the announced time must find it open, not race its close. */
#define NQ_GUARD_IDLE_GRACE_S 2u

typedef struct nq_guard nq_guard; /* opaque */

/* Called from the connection's libmicrohttpd thread when a connection closes while a request begun
 * on it (nq_guard_request_begin) was never reported done (nq_guard_request_done): request is the
 * pointer given to nq_guard_request_begin, now the callee's to finish. */
typedef void (*nq_guard_abandoned_fn)(void *cls, struct MHD_Connection *c, void *request);

typedef struct nq_guard_config {
    unsigned per_ip_limit;           /* open connections per client address; 0 = no limit */
    unsigned idle_timeout_s;         /* the announced idle timeout (closed NQ_GUARD_IDLE_GRACE_S later); 0 = none */
    unsigned head_timeout_s;         /* the request head must arrive within this, >= 1 */
    size_t max_uri_bytes;            /* longest request target (414 beyond), >= 1 */
    size_t max_header_bytes;         /* largest header section (431 beyond), >= 1 */
    nq_guard_abandoned_fn abandoned; /* requests a closed connection left unfinished; NULL: none */
    void *abandoned_cls;             /* its first argument */
} nq_guard_config;

typedef struct nq_guard_stats {
    uint64_t open;          /* connections open now */
    uint64_t accepted;      /* connections accepted since start */
    uint64_t refused;       /* connections libmicrohttpd refused as they came (nq_guard_refused) */
    uint64_t head_timeouts; /* connections closed because their head (or a body read) did not arrive in time */
} nq_guard_stats;

/* Create a guard and start its sweeper thread. On success *out owns it (nq_guard_destroy).
 * Errors: NQ_E_ARG (NULL, or a zero head_timeout_s, max_uri_bytes or max_header_bytes),
 * NQ_E_NOMEM, NQ_E_THREAD. On error nothing is left running or allocated. */
nq_err nq_guard_create(const nq_guard_config *cfg, nq_guard **out);

/* Stop the sweeper and free the guard. Call it only after MHD_stop_daemon returned (libmicrohttpd
 * then has reported every connection closed). NULL is accepted and ignored. */
void nq_guard_destroy(nq_guard *g);

/* Write the guard's libmicrohttpd options into opts (at most NQ_GUARD_MHD_OPTIONS items, the last
 * one MHD_OPTION_END) and return how many were written before that end marker, so the caller may
 * append its own after them or pass the array with MHD_OPTION_ARRAY. The options register the
 * guard's connection callback (MHD_OPTION_NOTIFY_CONNECTION): the server must not register another.
 * Returns 0 (and writes nothing) if g or opts is NULL or cap is below NQ_GUARD_MHD_OPTIONS. */
size_t nq_guard_mhd_options(nq_guard *g, struct MHD_OptionItem *opts, size_t cap);

/* The request head on c has arrived (call on the first access-handler call of each request, or, for a
 * request whose body is read, once the body is in: the clock then covers the body too): stops its
 * head clock. Harmless on a connection the guard does not know. */
void nq_guard_head_received(struct MHD_Connection *c);

/* A request begins on c (call when its request line is parsed): request (borrowed) is handed to
 * cfg.abandoned if c closes before nq_guard_request_done. Harmless on a connection the guard does
 * not know. */
void nq_guard_request_begin(struct MHD_Connection *c, void *request);

/* The request on c has completed (call from MHD_OPTION_NOTIFY_COMPLETED): the next head on this
 * keep-alive connection must arrive within max(idle_timeout_s + NQ_GUARD_IDLE_GRACE_S, head_timeout_s)
 * from now, and the
 * request is no longer the guard's to report abandoned. */
void nq_guard_request_done(struct MHD_Connection *c);

/* Check a received head against the caps: NQ_E_URI_TOO_LONG if the request target (uri_len bytes,
 * query included) is longer than max_uri_bytes, NQ_E_HEADERS_TOO_LARGE if the header section
 * (counted as "Name: value\r\n" per header; the server's own Content-Length, framing.h, is not
 * counted) is larger than max_header_bytes, else NQ_OK. */
nq_err nq_guard_check_head(const nq_guard *g, struct MHD_Connection *c, size_t uri_len);

/* Snapshot the counters into *out. g and out must not be NULL. */
void nq_guard_stats_get(nq_guard *g, nq_guard_stats *out);

/* Count a connection libmicrohttpd refused as it was handed over (over the per-address limit, or
 * out of memory) and closed at once: it never starts, so the guard sees it only through this. */
void nq_guard_refused(nq_guard *g);

#endif /* NQ_GUARD_H */
