/* probe.c - a tiny HTTP/1.1 GET over a plain socket, bounded by one deadline (see probe.h).
 *
 * Every blocking step (connect, send, receive) runs on a non-blocking socket with poll(2) against the
 * time left, so a server that accepts and then says nothing cannot hang the health check past its
 * timeout (the container runtime would otherwise pile probes up).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "base/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/errors.h"
#include "nqueens/parse.h"

typedef struct url_parts {
    char host[256];   /* without brackets */
    char port[6];     /* decimal */
    const char *path; /* into the URL; "/" when it has none */
} url_parts;

__attribute__((format(printf, 3, 4))) static nq_err fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return NQ_E_INTERNAL;
}

/* ---- URL ---------------------------------------------------------------------------------------- */

static bool visible_ascii(const char *s)
{
    for (; *s != '\0'; s++)
        if (*s < 0x21 || *s > 0x7e) return false;
    return true;
}

/* Port text: 1..5 digits (nqueens/parse.h), 1..65535. */
static bool parse_port(const char *s, size_t len, char out[6])
{
    uint64_t v = 0;
    if (len > 5 || nq_parse_u64(s, len, 65535, &v) != NQ_OK || v == 0) return false;
    snprintf(out, 6, "%u", (unsigned)v);
    return true;
}

bool nq_probe_url_plausible(const char *url)
{
    return strncmp(url, "http://", 7) == 0 && strlen(url) <= NQ_PROBE_URL_MAX && visible_ascii(url);
}

static bool parse_url(const char *url, url_parts *u)
{
    if (!nq_probe_url_plausible(url)) return false;
    const char *auth = url + 7;
    const char *slash = strchr(auth, '/');
    const char *end = slash != NULL ? slash : auth + strlen(auth);
    u->path = slash != NULL ? slash : "/";
    const char *host = auth, *host_end = NULL, *colon = NULL;
    if (*auth == '[') { /* [IPv6]:port */
        host = auth + 1;
        host_end = memchr(host, ']', (size_t)(end - host));
        if (host_end == NULL || (host_end + 1 != end && host_end[1] != ':')) return false;
        colon = host_end + 1 != end ? host_end + 1 : NULL;
    } else {
        colon = memchr(auth, ':', (size_t)(end - auth));
        host_end = colon != NULL ? colon : end;
    }
    const size_t hlen = (size_t)(host_end - host);
    if (hlen == 0 || hlen >= sizeof u->host || memchr(host, '@', hlen) != NULL) return false;
    memcpy(u->host, host, hlen);
    u->host[hlen] = '\0';
    if (colon == NULL) {
        memcpy(u->port, "80", 3);
        return true;
    }
    return parse_port(colon + 1, (size_t)(end - colon - 1), u->port);
}

/* ---- socket steps, each bounded by the deadline -------------------------------------------------- */

/* Wait for events on fd until the deadline: 1 ready, 0 timed out, -1 error (errno set). */
static int wait_fd(int fd, short events, long long deadline)
{
    for (;;) {
        const long long left = deadline - (long long)nq_clock_ms();
        if (left <= 0) return 0;
        struct pollfd p = {.fd = fd, .events = events};
        const int r = poll(&p, 1, left > 60000 ? 60000 : (int)left);
        if (r < 0 && errno == EINTR) continue;
        if (r != 0) return r > 0 ? 1 : -1;
    }
}

static int connect_one(const struct addrinfo *ai, long long deadline)
{
    const int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) return fd;
    int soerr = errno;
    if (soerr == EINPROGRESS && wait_fd(fd, POLLOUT, deadline) == 1) {
        socklen_t len = sizeof soerr;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0)
            soerr = errno;
        else if (soerr == 0)
            return fd;
    } else if (soerr == EINPROGRESS)
        soerr = ETIMEDOUT;
    close(fd);
    errno = soerr;
    return -1;
}

/* Connect to the first address of host:port that answers; -1 with a message otherwise. */
static int dial(const url_parts *u, long long deadline, char *err, size_t errlen)
{
    const struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    const int gai = getaddrinfo(u->host, u->port, &hints, &res);
    if (gai != 0) {
        fail(err, errlen, "cannot resolve %s: %s", u->host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, last = 0;
    for (const struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = connect_one(ai, deadline);
        last = errno;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        char why[128] = "unknown error";
        strerror_r(last, why, sizeof why);
        fail(err, errlen, "cannot connect to %s port %s: %s", u->host, u->port, why);
    }
    return fd;
}

static bool send_all(int fd, const char *p, size_t n, long long deadline)
{
    while (n > 0) {
        const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_fd(fd, POLLOUT, deadline) != 1) return false;
            continue;
        }
        if (w <= 0) return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Read until the status line is complete (or buf is full, or the peer closes). */
static size_t read_status_line(int fd, char *buf, size_t cap, long long deadline)
{
    size_t len = 0;
    buf[0] = '\0';
    while (len + 1 < cap) {
        const ssize_t r = recv(fd, buf + len, cap - 1 - len, 0);
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_fd(fd, POLLIN, deadline) != 1) break;
            continue;
        }
        if (r <= 0) break;
        const char *fresh = buf + len;
        len += (size_t)r;
        buf[len] = '\0';
        if (memchr(fresh, '\n', (size_t)r) != NULL) break;
    }
    return len;
}

/* "HTTP/1.x SSS ..." -> SSS, or 0 if the line is not that. */
static unsigned parse_status(const char *line)
{
    if (strncmp(line, "HTTP/1.", 7) != 0 || line[7] < '0' || line[7] > '9' || line[8] != ' ') return 0;
    unsigned s = 0;
    for (int i = 9; i < 12; i++) {
        if (line[i] < '0' || line[i] > '9') return 0;
        s = s * 10 + (unsigned)(line[i] - '0');
    }
    return (line[12] == ' ' || line[12] == '\r') && s >= 100 ? s : 0;
}

nq_err nq_probe_get(const char *url, unsigned timeout_ms, unsigned *status, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0) err[0] = '\0';
    url_parts u;
    if (url == NULL || status == NULL || !parse_url(url, &u)) {
        fail(err, errlen, "not a URL this probe takes (http://host[:port][/path])");
        return NQ_E_ARG;
    }
    const long long deadline = (long long)nq_clock_ms() + timeout_ms;
    const int fd = dial(&u, deadline, err, errlen);
    if (fd < 0) return NQ_E_INTERNAL;
    char req[NQ_PROBE_URL_MAX + 384];
    const bool v6 = strchr(u.host, ':') != NULL;
    const int n = snprintf(req, sizeof req,
                           "GET %s HTTP/1.1\r\nHost: %s%s%s:%s\r\nUser-Agent: nqueensd-probe\r\n"
                           "Accept: */*\r\nConnection: close\r\n\r\n",
                           u.path, v6 ? "[" : "", u.host, v6 ? "]" : "", u.port);
    nq_err rc = NQ_OK;
    char line[512];
    if (n < 0 || (size_t)n >= sizeof req || !send_all(fd, req, (size_t)n, deadline))
        rc = fail(err, errlen, "cannot send the request to %s", url);
    else if (read_status_line(fd, line, sizeof line, deadline) == 0)
        rc = fail(err, errlen, "no response from %s within %u ms", url, timeout_ms);
    else {
        const unsigned got = parse_status(line);
        if (got == 0)
            rc = fail(err, errlen, "not an HTTP/1.x response from %s", url);
        else
            *status = got;
    }
    close(fd);
    return rc;
}
