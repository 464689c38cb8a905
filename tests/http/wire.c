/* wire.c - strict HTTP/1.1 response parser (see wire.h). */
#include "wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A cursor over the bytes of one response. */
typedef struct cur {
    const char *buf; /* start of the response */
    size_t len;      /* bytes available */
    size_t pos;      /* next byte */
    bool eof;        /* no more bytes will come */
    char *why;       /* where a fault is described */
    size_t whylen;
} cur;

/* Record a fault: what is wrong, and the bytes at fault (n of them at at; none when at is NULL). */
static nq_wire_rc bad_at(cur *c, const char *what, const char *at, size_t n)
{
    if (c->why && c->whylen > 0) {
        if (at)
            (void)snprintf(c->why, c->whylen, "%s: '%.*s'", what, (int)(n < 60 ? n : 60), at);
        else
            (void)snprintf(c->why, c->whylen, "%s", what);
    }
    return NQ_WIRE_BAD;
}

static nq_wire_rc bad(cur *c, const char *what)
{
    return bad_at(c, what, NULL, 0);
}

static nq_wire_rc short_of_bytes(cur *c, const char *what)
{
    return c->eof ? bad_at(c, "the stream ends inside", what, strlen(what)) : NQ_WIRE_INCOMPLETE;
}

/* The next line (without its CRLF) into *line / *n. A LF not preceded by CR is a fault. */
static nq_wire_rc next_line(cur *c, const char **line, size_t *n, const char *what)
{
    const char *start = c->buf + c->pos;
    const char *lf = memchr(start, '\n', c->len - c->pos);
    if (!lf) return short_of_bytes(c, what);
    if (lf == start || lf[-1] != '\r') return bad_at(c, "bare LF in", what, strlen(what));
    *line = start;
    *n = (size_t)(lf - 1 - start);
    if (memchr(start, '\r', *n)) return bad_at(c, "bare CR in", what, strlen(what));
    c->pos += *n + 2;
    return NQ_WIRE_OK;
}

static bool tchar(unsigned char ch)
{
    return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
           (ch != '\0' && strchr("!#$%&'*+-.^_`|~", ch) != NULL);
}

static bool text_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const unsigned char ch = (unsigned char)s[i];
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f) return false;
    }
    return true;
}

static nq_wire_rc status_line(cur *c, nq_wire_response *r)
{
    const char *l = NULL;
    size_t n = 0;
    const nq_wire_rc rc = next_line(c, &l, &n, "the status line");
    if (rc != NQ_WIRE_OK) return rc;
    if (n < 13 || memcmp(l, "HTTP/1.1 ", 9) != 0 || l[12] != ' ') return bad_at(c, "malformed status line", l, n);
    unsigned status = 0;
    for (size_t i = 9; i < 12; i++) {
        if (l[i] < '0' || l[i] > '9') return bad(c, "status code is not three digits");
        status = status * 10 + (unsigned)(l[i] - '0');
    }
    if (status < 100) return bad(c, "status code below 100");
    if (!text_ok(l + 13, n - 13)) return bad(c, "control byte in the reason phrase");
    r->status = status;
    return NQ_WIRE_OK;
}

/* One "name: value" line into h. */
static nq_wire_rc field_line(cur *c, const char *l, size_t n, nq_wire_header *h)
{
    if (l[0] == ' ' || l[0] == '\t') return bad(c, "folded header line");
    const char *colon = memchr(l, ':', n);
    if (!colon || colon == l) return bad_at(c, "header line without a name and colon", l, n);
    for (const char *p = l; p < colon; p++)
        if (!tchar((unsigned char)*p)) return bad_at(c, "header name is not a token", l, (size_t)(colon - l));
    const char *v = colon + 1, *end = l + n;
    while (v < end && (*v == ' ' || *v == '\t')) v++;
    while (end > v && (end[-1] == ' ' || end[-1] == '\t')) end--;
    if (!text_ok(v, (size_t)(end - v))) return bad_at(c, "control byte in header", l, (size_t)(colon - l));
    *h = (nq_wire_header){l, (size_t)(colon - l), v, (size_t)(end - v)};
    return NQ_WIRE_OK;
}

static bool name_is(const nq_wire_header *h, const char *name)
{
    return h->name_len == strlen(name) && strncasecmp(h->name, name, h->name_len) == 0;
}

static nq_wire_rc header_section(cur *c, nq_wire_response *r)
{
    for (;;) {
        const char *l = NULL;
        size_t n = 0;
        const nq_wire_rc rc = next_line(c, &l, &n, "the header section");
        if (rc != NQ_WIRE_OK) return rc;
        if (n == 0) return NQ_WIRE_OK;
        if (r->nheaders == NQ_WIRE_HEADERS_MAX) return bad(c, "more header lines than NQ_WIRE_HEADERS_MAX");
        const nq_wire_rc frc = field_line(c, l, n, &r->headers[r->nheaders]);
        if (frc != NQ_WIRE_OK) return frc;
        r->nheaders++;
    }
}

/* Whether the comma-separated value v holds the token t (case-insensitive). */
static bool has_token(const char *v, size_t n, const char *t)
{
    const size_t tl = strlen(t);
    for (size_t i = 0; i < n;) {
        while (i < n && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) i++;
        size_t j = i;
        while (j < n && v[j] != ',' && v[j] != ' ' && v[j] != '\t') j++;
        if (j - i == tl && strncasecmp(v + i, t, tl) == 0) return true;
        i = j;
    }
    return false;
}

/* Content-Length, Transfer-Encoding and Connection into r; faults in their use. */
static nq_wire_rc framing_headers(cur *c, nq_wire_response *r)
{
    size_t lengths = 0, codings = 0;
    for (size_t i = 0; i < r->nheaders; i++) {
        const nq_wire_header *h = &r->headers[i];
        if (name_is(h, "Connection") && has_token(h->value, h->value_len, "close")) r->closes = true;
        if (name_is(h, "Transfer-Encoding")) {
            codings++;
            if (h->value_len != 7 || strncasecmp(h->value, "chunked", 7) != 0)
                return bad_at(c, "Transfer-Encoding is not exactly chunked", h->value, h->value_len);
            r->chunked = true;
        }
        if (name_is(h, "Content-Length")) {
            lengths++;
            uint64_t v = 0;
            if (h->value_len == 0 || h->value_len > 19) return bad(c, "Content-Length of bad size");
            for (size_t k = 0; k < h->value_len; k++) {
                if (h->value[k] < '0' || h->value[k] > '9') return bad(c, "Content-Length is not digits");
                v = v * 10 + (uint64_t)(h->value[k] - '0');
            }
            r->has_length = true;
            r->length = v;
        }
    }
    if (lengths > 1) return bad(c, "more than one Content-Length");
    if (codings > 1) return bad(c, "more than one Transfer-Encoding");
    if (lengths && codings) return bad(c, "both Content-Length and Transfer-Encoding");
    const unsigned s = r->status;
    if ((s < 200 || s == 204) && (lengths || codings)) return bad(c, "a 1xx or 204 with framing headers");
    if (s == 304 && codings) return bad(c, "a 304 with Transfer-Encoding");
    return NQ_WIRE_OK;
}

static nq_wire_rc take_body(cur *c, nq_wire_response *r, size_t n)
{
    char *grown = realloc(r->body, r->body_len + n + 1);
    if (!grown) return bad(c, "out of memory");
    memcpy(grown + r->body_len, c->buf + c->pos, n);
    r->body = grown;
    r->body_len += n;
    r->body[r->body_len] = '\0';
    c->pos += n;
    return NQ_WIRE_OK;
}

/* chunk = size [ext] CRLF data CRLF; last-chunk = "0" [ext] CRLF; trailers; CRLF. */
static nq_wire_rc chunked_body(cur *c, nq_wire_response *r)
{
    for (;;) {
        const char *l = NULL;
        size_t n = 0;
        nq_wire_rc rc = next_line(c, &l, &n, "a chunk size line");
        if (rc != NQ_WIRE_OK) return rc;
        uint64_t size = 0;
        size_t i = 0;
        for (; i < n && i < 16; i++) {
            const char ch = l[i];
            const int d = ch >= '0' && ch <= '9'   ? ch - '0'
                          : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                          : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                                   : -1;
            if (d < 0) break;
            size = size * 16 + (uint64_t)d;
        }
        if (i == 0 || (i < n && l[i] != ';')) return bad_at(c, "malformed chunk size line", l, n);
        if (size == 0) break;
        if (c->len - c->pos < size + 2) return short_of_bytes(c, "a chunk");
        rc = take_body(c, r, (size_t)size);
        if (rc != NQ_WIRE_OK) return rc;
        if (memcmp(c->buf + c->pos, "\r\n", 2) != 0) return bad(c, "chunk data not followed by CRLF");
        c->pos += 2;
    }
    for (;;) { /* trailer section */
        const char *l = NULL;
        size_t n = 0;
        const nq_wire_rc rc = next_line(c, &l, &n, "the trailer section");
        if (rc != NQ_WIRE_OK) return rc;
        if (n == 0) return NQ_WIRE_OK;
        nq_wire_header h;
        const nq_wire_rc frc = field_line(c, l, n, &h);
        if (frc != NQ_WIRE_OK) return frc;
    }
}

static nq_wire_rc body(cur *c, nq_wire_response *r, bool head)
{
    const unsigned s = r->status;
    if (head || s < 200 || s == 204 || s == 304) return NQ_WIRE_OK;
    if (r->chunked) return chunked_body(c, r);
    if (r->has_length) {
        if (c->len - c->pos < r->length) return short_of_bytes(c, "a Content-Length body");
        return take_body(c, r, (size_t)r->length);
    }
    if (!r->closes) return bad(c, "a body with neither length nor chunking nor Connection: close");
    if (!c->eof) return NQ_WIRE_INCOMPLETE;
    return take_body(c, r, c->len - c->pos);
}

nq_wire_rc nq_wire_parse(const char *buf, size_t len, bool head, bool eof, nq_wire_response *out, size_t *used,
                         char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    if (why && whylen) why[0] = '\0';
    cur c = {buf, len, 0, eof, why, whylen};
    nq_wire_rc rc = status_line(&c, out);
    if (rc == NQ_WIRE_OK) rc = header_section(&c, out);
    if (rc == NQ_WIRE_OK) rc = framing_headers(&c, out);
    if (rc == NQ_WIRE_OK) rc = body(&c, out, head);
    if (rc != NQ_WIRE_OK) {
        nq_wire_response_free(out);
        return rc;
    }
    if (!out->body) out->body = calloc(1, 1);
    *used = c.pos;
    return NQ_WIRE_OK;
}

char *nq_wire_header_dup(const nq_wire_response *r, const char *name)
{
    for (size_t i = 0; i < r->nheaders; i++) {
        if (!name_is(&r->headers[i], name)) continue;
        char *v = malloc(r->headers[i].value_len + 1);
        if (!v) return NULL;
        memcpy(v, r->headers[i].value, r->headers[i].value_len);
        v[r->headers[i].value_len] = '\0';
        return v;
    }
    return NULL;
}

size_t nq_wire_header_count(const nq_wire_response *r, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nheaders; i++) n += name_is(&r->headers[i], name);
    return n;
}

void nq_wire_response_free(nq_wire_response *r)
{
    if (!r) return;
    free(r->body);
    r->body = NULL;
    r->body_len = 0;
}
