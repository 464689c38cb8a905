/* accesslog.c - request and event lines on stdout/stderr, as JSON or key=value text.
 *
 * Every line is built in a fixed buffer on the caller's stack and leaves in one write(2): no lock, no
 * allocation, and on a pipe (what container runtimes give us) lines from concurrent requests never
 * interleave, because a write of at most PIPE_BUF bytes is atomic there.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "ops/accesslog.h"

#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FIELD_MAX 1000u /* most bytes one escaped string may take: the request line's strings all fit */
#define RESERVE 8u      /* room always kept for "...", a closing quote and "}\n" */
#define VALUE_MIN 48u   /* room a field needs besides its key: any number, or "null", fits */

struct nq_accesslog {
    int out_fd;           /* requests and info events */
    int err_fd;           /* warnings and errors */
    nq_log_format format; /* json or text */
    nq_log_level min;     /* lines below this level are dropped */
};

typedef struct line {
    char buf[NQ_LOG_LINE_MAX]; /* the line being built */
    size_t len;                /* bytes used */
    unsigned fields;           /* fields written so far */
    bool json;                 /* format: JSON object or key=value text */
    bool full;                 /* a string was cut for room: leave later fields out */
} line;

nq_err nq_accesslog_create(int out_fd, int err_fd, nq_log_format format, nq_log_level min, nq_accesslog **out)
{
    if (out == NULL || out_fd < 0 || err_fd < 0 || (format != NQ_LOG_JSON && format != NQ_LOG_TEXT) ||
        (unsigned)min > NQ_LOG_ERROR)
        return NQ_E_ARG;
    nq_accesslog *l = malloc(sizeof *l);
    if (l == NULL) return NQ_E_NOMEM;
    *l = (nq_accesslog){.out_fd = out_fd, .err_fd = err_fd, .format = format, .min = min};
    *out = l;
    return NQ_OK;
}

void nq_accesslog_destroy(nq_accesslog *l)
{
    free(l);
}

/* Write v as `width` decimal digits (zero-padded) at p. */
static void digits(char *p, unsigned v, int width)
{
    for (int i = width - 1; i >= 0; i--, v /= 10) p[i] = (char)('0' + v % 10);
}

void nq_accesslog_time(char *out, size_t cap)
{
    struct timespec now;
    struct tm tm;
    char t[] = "0000-00-00T00:00:00.000Z";
    clock_gettime(CLOCK_REALTIME, &now);
    if (cap == 0) return;
    if (gmtime_r(&now.tv_sec, &tm) != NULL) {
        /* By hand rather than strftime + snprintf: this runs once per request. */
        digits(t, (unsigned)(tm.tm_year + 1900) % 10000u, 4);
        digits(t + 5, (unsigned)tm.tm_mon + 1u, 2);
        digits(t + 8, (unsigned)tm.tm_mday, 2);
        digits(t + 11, (unsigned)tm.tm_hour, 2);
        digits(t + 14, (unsigned)tm.tm_min, 2);
        digits(t + 17, (unsigned)tm.tm_sec, 2);
        digits(t + 20, (unsigned)(now.tv_nsec / 1000000L), 3);
    }
    const size_t n = sizeof t - 1 < cap - 1 ? sizeof t - 1 : cap - 1;
    memcpy(out, t, n);
    out[n] = '\0';
}

/* ---- escaping ----------------------------------------------------------------------------------- */

/* Length of the well-formed UTF-8 sequence at s (n bytes available), or 0 if it is not one: rejects
 * overlong forms, surrogates and code points above U+10FFFF, as RFC 3629 requires. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    const unsigned c = s[0];
    size_t len = 0;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    }
    if (len == 0 || n < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; i++)
        if (s[i] < 0x80 || s[i] > 0xBF) return 0;
    return len;
}

/* Encode the character at s as JSON string content into esc; returns the input bytes consumed. */
static size_t escape_one(const unsigned char *s, size_t n, char esc[8], size_t *elen)
{
    const unsigned c = s[0];
    if (c == '"' || c == '\\') {
        esc[0] = '\\';
        esc[1] = (char)c;
        *elen = 2;
        return 1;
    }
    if (c < 0x20 || c == 0x7f) {
        *elen = (size_t)snprintf(esc, 8, "\\u%04x", c);
        return 1;
    }
    if (c < 0x80) {
        esc[0] = (char)c;
        *elen = 1;
        return 1;
    }
    const size_t len = utf8_len(s, n);
    if (len == 0) {
        memcpy(esc, "\\ufffd", 6); /* a byte that is not UTF-8: the replacement character */
        *elen = 6;
        return 1;
    }
    memcpy(esc, s, len);
    *elen = len;
    return len;
}

/* ---- line building ------------------------------------------------------------------------------
 * Room is checked once per field (key plus a short value) and once per escaped character; RESERVE
 * bytes stay free for what closes a cut string and the line ("...", a quote, "}\n"). Once a string
 * had to be cut, the line is full and later fields are left out, so the line stays well-formed. */

static bool room(const line *l, size_t n)
{
    return l->len + n + RESERVE <= sizeof l->buf;
}

/* Structural bytes; callers have made sure of the room (directly or through RESERVE). */
static void put_raw(line *l, const char *s, size_t n)
{
    assert(l->len + n <= sizeof l->buf);
    memcpy(l->buf + l->len, s, n);
    l->len += n;
}

/* Bytes at the start of s (n available) that JSON takes as they are: printable ASCII but '"' and '\\'. */
static size_t plain_run(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n && s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\') i++;
    return i;
}

/* Escaped string content, cut (with "...") at FIELD_MAX output bytes or when the line is nearly full.
 * Runs of plain characters (nearly everything in practice) are copied whole. */
static void put_escaped(line *l, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    const size_t n = strlen(str);
    const size_t start = l->len;
    for (size_t i = 0; i < n;) {
        const size_t field_left = FIELD_MAX - (l->len - start);
        const size_t line_left = sizeof l->buf - RESERVE - l->len;
        const size_t run = plain_run(s + i, n - i);
        char esc[8];
        size_t elen = run;
        const size_t used = run > 0 ? run : escape_one(s + i, n - i, esc, &elen);
        if (elen > field_left || elen > line_left) {
            /* Cut: keep what fits of a plain run (an escape is never split), then mark the cut. */
            const size_t keep = run > 0 ? (field_left < line_left ? field_left : line_left) : 0;
            put_raw(l, (const char *)s + i, keep);
            l->full = l->full || line_left <= field_left; /* cut for the line's room, not the field's */
            put_raw(l, "...", 3);
            return;
        }
        put_raw(l, run > 0 ? (const char *)s + i : esc, elen);
        i += used;
    }
}

/* In text format a value made only of these characters is written bare, anything else quoted. */
static bool is_bare(const char *s)
{
    if (*s == '\0') return false;
    for (; *s != '\0'; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("./_:-+", *s) != NULL))
            return false;
    return true;
}

/* Start a field; false (and nothing written) when the line has no room left for it. Keys are short
 * [a-z_] constants, so they need no escaping. */
static bool put_key(line *l, const char *key)
{
    const size_t klen = strlen(key);
    if (l->full || !room(l, klen + VALUE_MIN)) {
        l->full = true;
        return false;
    }
    if (l->json) {
        put_raw(l, l->fields > 0 ? ",\"" : "\"", l->fields > 0 ? 2 : 1);
        put_raw(l, key, klen);
        put_raw(l, "\":", 2);
    } else {
        if (l->fields > 0) put_raw(l, " ", 1);
        put_raw(l, key, klen);
        put_raw(l, "=", 1);
    }
    l->fields++;
    return true;
}

static void put_str(line *l, const char *key, const char *v)
{
    if (!put_key(l, key)) return;
    if (v == NULL)
        put_raw(l, "null", 4);
    else if (!l->json && is_bare(v))
        put_escaped(l, v);
    else {
        put_raw(l, "\"", 1);
        put_escaped(l, v);
        put_raw(l, "\"", 1);
    }
}

__attribute__((format(printf, 3, 4))) static void put_num(line *l, const char *key, const char *fmt, ...)
{
    char tmp[VALUE_MIN];
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0 && (size_t)n < sizeof tmp && put_key(l, key)) put_raw(l, tmp, (size_t)n);
}

/* Decimal digits of v into the end of buf[0..24); returns where they start. */
static char *decimal(uint64_t v, char buf[24])
{
    char *p = buf + 24;
    do *--p = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    return p;
}

/* The per-request numbers, without printf: this runs once per request on a network thread. */
static void put_uint(line *l, const char *key, uint64_t v)
{
    char buf[24];
    const char *p = decimal(v, buf);
    if (put_key(l, key)) put_raw(l, p, (size_t)(buf + 24 - p));
}

/* seconds as milliseconds with three decimals ("1.234"), rounded to the microsecond. */
static void put_millis(line *l, const char *key, double seconds)
{
    const uint64_t us = seconds > 0 ? (uint64_t)(seconds * 1e6 + 0.5) : 0;
    char buf[24];
    const char *p = decimal(us / 1000, buf);
    const char frac[4] = {'.', (char)('0' + us / 100 % 10), (char)('0' + us / 10 % 10), (char)('0' + us % 10)};
    if (put_key(l, key)) {
        put_raw(l, p, (size_t)(buf + 24 - p));
        put_raw(l, frac, sizeof frac);
    }
}

static void put_bool(line *l, const char *key, bool v)
{
    if (put_key(l, key)) put_raw(l, v ? "true" : "false", v ? 4 : 5);
}

static void begin(line *l, const nq_accesslog *log, nq_log_level level, const char *msg)
{
    char t[32];
    l->json = log->format == NQ_LOG_JSON;
    l->len = 0;
    l->fields = 0;
    l->full = false;
    if (l->json) put_raw(l, "{", 1);
    nq_accesslog_time(t, sizeof t);
    put_str(l, "time", t);
    put_str(l, "level", nq_config_log_level_name(level));
    put_str(l, "msg", msg);
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        const ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return; /* the log is gone or full: drop the line rather than fail a request */
        p += w;
        n -= (size_t)w;
    }
}

static void finish(line *l, int fd)
{
    /* RESERVE guarantees room for these two bytes. */
    if (l->json) l->buf[l->len++] = '}';
    l->buf[l->len++] = '\n';
    write_all(fd, l->buf, l->len);
}

/* ---- public ------------------------------------------------------------------------------------- */

static const char *cache_name(nq_cache_outcome c)
{
    return c == NQ_CACHE_HIT ? "hit" : c == NQ_CACHE_MISS ? "miss" : NULL;
}

void nq_accesslog_request(const nq_accesslog *log, const nq_request_record *r)
{
    if (log == NULL || r == NULL || log->min > NQ_LOG_INFO) return;
    line l;
    begin(&l, log, NQ_LOG_INFO, "request");
    put_str(&l, "method", r->method);
    put_str(&l, "path", r->path);
    put_str(&l, "query", r->query);
    put_uint(&l, "status", r->status);
    put_uint(&l, "bytes", r->bytes);
    put_millis(&l, "duration_ms", r->duration_s);
    put_str(&l, "cache", cache_name(r->cache));
    put_str(&l, "request_id", r->request_id);
    put_str(&l, "route", r->route);
    put_millis(&l, "solver_ms", r->solver_s);
    put_str(&l, "remote_addr", r->remote_addr);
    put_bool(&l, "completed", r->completed);
    finish(&l, log->out_fd);
}

void nq_accesslog_event(const nq_accesslog *log, nq_log_level level, const char *msg, const nq_log_field *fields,
                        size_t n)
{
    if (log == NULL || msg == NULL || (unsigned)level > NQ_LOG_ERROR || level < log->min) return;
    line l;
    begin(&l, log, level, msg);
    for (size_t i = 0; fields != NULL && i < n; i++) {
        const nq_log_field *f = &fields[i];
        if (f->type == NQ_LOG_FIELD_INT)
            put_num(&l, f->key, "%" PRId64, f->i);
        else if (f->type == NQ_LOG_FIELD_REAL)
            put_num(&l, f->key, "%.3f", f->d);
        else
            put_str(&l, f->key, f->str);
    }
    finish(&l, level <= NQ_LOG_INFO ? log->out_fd : log->err_fd);
}
