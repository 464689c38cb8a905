/* refuse.c - an answer written straight to a connection's socket (see refuse.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#endif
#include "http/refuse.h"

#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

/* The status line, Date, Connection and Content-Length, plus every header a response may carry. */
#define HEAD_MAX (NQ_RESPONSE_ARENA + (size_t)NQ_RESPONSE_HEADERS_MAX * 48 + 256)

/* Append to head[*o..HEAD_MAX) what fmt says; false when it does not fit. */
static bool put(char *head, size_t *o, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool put(char *head, size_t *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int w = vsnprintf(head + *o, HEAD_MAX - *o, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= HEAD_MAX - *o) return false;
    *o += (size_t)w;
    return true;
}

/* The IMF-fixdate of now (RFC 9110 section 5.6.7), as libmicrohttpd writes it: English names
 * whatever the locale. false when the clock says nothing. */
static bool put_date(char *head, size_t *o)
{
    static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    const time_t t = time(NULL);
    struct tm tm;
    if (t == (time_t)-1 || !gmtime_r(&t, &tm)) return true; /* no Date rather than a wrong one */
    return put(head, o, "Date: %s, %02d %s %04d %02d:%02d:%02d GMT\r\n", days[tm.tm_wday % 7], tm.tm_mday,
               months[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

bool nq_refuse_send(int fd, const nq_response *resp, size_t *body_sent)
{
    *body_sent = 0;
    const bool has_body = resp->kind == NQ_BODY_STATIC || resp->kind == NQ_BODY_OWNED;
    const size_t len = has_body ? resp->body_len : 0;
    const char *reason = MHD_get_reason_phrase_for(resp->status);
    char head[HEAD_MAX];
    size_t o = 0;
    bool ok = put(head, &o, "HTTP/1.1 %u %s\r\n", resp->status, reason && *reason ? reason : "Unknown") &&
              put_date(head, &o) && put(head, &o, "Connection: close\r\n");
    for (size_t i = 0; ok && i < resp->nheaders; i++)
        ok = put(head, &o, "%s: %s\r\n", resp->headers[i].name, resp->headers[i].value);
    if (!ok || !put(head, &o, "Content-Length: %zu\r\n\r\n", len)) return false;
    /* libmicrohttpd and sendmsg take non-const buffers they only read: the constness is dropped here,
     * through a union, as server.c does for its responses. */
    const union {
        const char *c;
        char *m;
    } body = {has_body ? resp->body : ""};
    struct iovec iov[2] = {{head, o}, {body.m, len}};
    const struct msghdr msg = {.msg_iov = iov, .msg_iovlen = len > 0 ? 2 : 1};
    const ssize_t w = sendmsg(fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) return false;
    const size_t wrote = (size_t)w;
    *body_sent = wrote > o ? wrote - o : 0;
    return wrote == o + len;
}
