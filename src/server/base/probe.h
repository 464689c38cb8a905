/* probe.h - a minimal HTTP/1.1 GET client for `nqueensd --probe`, the container's health check.
 *
 * Why not curl: the final image carries only the runtime libraries nqueensd itself needs; a health
 * check that needs curl (and its TLS stack) in the image would double its size. A probe only has to
 * connect over plain HTTP to a local address, send one GET and read the status line.
 *
 * Thread-safety: reentrant (no globals; getaddrinfo is thread-safe). Blocking, bounded by timeout_ms.
 */
#ifndef NQ_PROBE_H
#define NQ_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/errors.h"
#include "nqueens/error.h"

/* Longest URL accepted, without the NUL. */
#define NQ_PROBE_URL_MAX 511u

/* GET url ("http://host[:port][/path]"; host is a name, an IPv4 literal or a bracketed IPv6 literal;
 * port defaults to 80, path to "/") with "Connection: close", and store the response's status code in
 * *status. The whole exchange (resolve excepted, connect, send, status line) is bounded by timeout_ms.
 * Returns NQ_OK when a status line was read, whatever the status. Errors, with a one-line message in
 * err (NUL-terminated when errlen > 0; err may be NULL if errlen is 0):
 * NQ_E_ARG (url or status NULL, or a URL this client does not take: not http://, empty host, bad
 * port, too long, spaces or control characters), NQ_E_INTERNAL (resolution, connection, timeout, a
 * response that is not HTTP/1.x). */
nq_err nq_probe_get(const char *url, unsigned timeout_ms, unsigned *status, char *err, size_t errlen);

/* The first check nq_probe_get makes of a URL: "http://", at most NQ_PROBE_URL_MAX characters, all
 * visible ASCII (no spaces or controls). The configuration checks --probe's value with it, so a bad
 * one is a usage error at start-up. Pure function; url not NULL. */
bool nq_probe_url_plausible(const char *url);

#endif /* NQ_PROBE_H */
