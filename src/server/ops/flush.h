/* flush.h - wait until the kernel has delivered what nqueensd sent on its port (the last step of a drain).
 *
 * Why: a request is complete for libmicrohttpd once its last byte is in the socket's send buffer, which
 * on a fast server and a slow client can be megabytes ahead of what the client has received. A plain
 * process would exit and let the kernel finish sending; a container would not: the runtime tears the
 * network namespace down as soon as the process exits, and whatever was still queued is lost. So after
 * the server went idle, main() waits, within the grace period, until no TCP socket on the server's
 * port has unacknowledged data (the tx_queue of /proc/net/tcp and /proc/net/tcp6; closed sockets whose
 * data is still in flight are listed there too, while no descriptor refers to them any more).
 *
 * main() polls nq_flush_pending between its checks for a second stop signal.
 * Thread-safety: reentrant. Failure: when /proc cannot be read it reports 0 (nothing known to wait
 * for), so a drain never waits on what it cannot see.
 */
#ifndef NQ_FLUSH_H
#define NQ_FLUSH_H

#include <stdint.h>

/* Bytes queued but not yet acknowledged on TCP sockets whose local port is port (listening sockets
 * excluded), summed over IPv4 and IPv6 in this network namespace; 0 when /proc cannot be read. */
uint64_t nq_flush_pending(uint16_t port);

#endif /* NQ_FLUSH_H */
