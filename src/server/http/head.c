/* head.c - the request head as libmicrohttpd parsed it (see head.h).
 *
 * Several checks read libmicrohttpd's own layout of the request line and header lines in its read
 * buffer (0.9.75); each says what it relies on. The conformance suite (tests/http/test_conformance.c)
 * holds them to the wire, so a libmicrohttpd that lays them out differently fails there first.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strncasecmp */
#endif
#include "http/head.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Most whitespace between a header's colon and its value that folded() walks; more reads as a folded
 * line (a 400), which no client sends by accident. */
#define FOLD_GAP_MAX 256u

/* ---- as the request line is parsed -------------------------------------------------------------- */

/* Keep libmicrohttpd from parsing the query: it would store every parameter in the connection's
 * memory, and a query of a few hundred parameters exhausts it, after which 0.9.75 neither answers
 * nor closes. The server parses the raw query itself (query.h), from its own copy. The request
 * line lives in libmicrohttpd's read buffer, which it passes here as const but cuts in place at the
 * '?' right after this callback: an empty string after the '?' leaves it nothing to parse. */
static void hide_query(const char *uri)
{
    char *const q = uri ? strchr(uri, '?') : NULL; /* strchr's result is writable, as the buffer is */
    if (q) q[1] = '\0';
}

/* The server's own "Content-Length: 0", added before any of the client's header lines: libmicrohttpd
 * delimits a body by the first Content-Length it finds, so it never reads one (nor answers a
 * malformed one with its broken 400) and the first handler call decides from every line
 * (nq_head_check). A Transfer-Encoding of the client's still makes libmicrohttpd expect a body, which
 * nq_head_check then refuses or answers without reading. */
static bool frame_ourselves(struct MHD_Connection *c)
{
    return MHD_set_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH, nq_framing_synthetic) ==
           MHD_YES;
}

/* The request target must be non-empty and hold no SP or control byte (libmicrohttpd takes
 * everything up to the line's last SP as the target). Checked whole, before hide_query cuts it. */
static bool target_ok(const char *uri)
{
    if (!uri || *uri == '\0') return false;
    for (const char *t = uri; *t; t++)
        if ((unsigned char)*t <= 0x20 || (unsigned char)*t == 0x7f) return false;
    return true;
}

unsigned nq_head_begin(struct MHD_Connection *c, const char *uri, bool frame)
{
    const unsigned flags = target_ok(uri) ? NQ_HEAD_TARGET_OK : 0u;
    hide_query(uri);
    if (!frame) return flags | NQ_HEAD_MHD_FRAMES;
    return flags | (frame_ourselves(c) ? NQ_HEAD_FRAMED : 0u);
}

bool nq_head_length_refused(struct MHD_Connection *c)
{
    const char *v = NULL;
    size_t len = 0;
    static const char te[] = MHD_HTTP_HEADER_TRANSFER_ENCODING, cl[] = MHD_HTTP_HEADER_CONTENT_LENGTH;
    /* libmicrohttpd's own order (parse_connection_headers): a Transfer-Encoding hides every length. */
    if (MHD_lookup_connection_value_n(c, MHD_HEADER_KIND, te, sizeof te - 1, &v, &len) == MHD_YES) return false;
    if (MHD_lookup_connection_value_n(c, MHD_HEADER_KIND, cl, sizeof cl - 1, &v, &len) != MHD_YES) return false;
    uint64_t n = 0;
    return !nq_framing_length_value(v, len, &n);
}

bool nq_head_mhd_dechunks(struct MHD_Connection *c)
{
    const char *v = NULL;
    size_t len = 0;
    static const char te[] = MHD_HTTP_HEADER_TRANSFER_ENCODING;
    /* 0.9.75 compares the first Transfer-Encoding line's value, case aside, with "chunked" and
     * nothing else; any other value makes it read the body until the connection closes. */
    if (MHD_lookup_connection_value_n(c, MHD_HEADER_KIND, te, sizeof te - 1, &v, &len) != MHD_YES) return false;
    return len == 7 && strncasecmp(v, "chunked", 7) == 0;
}

/* ---- the first handler call --------------------------------------------------------------------- */

/* The request line as libmicrohttpd split it: the method must be a token followed by exactly one SP
 * (RFC 9112 section 3). libmicrohttpd replaces the first SP with a NUL, skips any further ones and
 * hands uri_log the target, so method, NUL and target are adjacent unless the method held a NUL of
 * its own ("G\0T", which it would shorten to "G") or more than one SP followed it. */
static bool request_line_ok(const char *method, const char *uri, unsigned flags)
{
    const size_t mlen = strlen(method);
    return (flags & NQ_HEAD_TARGET_OK) && uri == method + mlen + 1 && nq_framing_is_token(method, mlen);
}

/* Whether a header line was folded onto the one before (obs-fold). libmicrohttpd 0.9.75 merges a
 * continuation line by copying the name, with the continuation appended to it, to fresh memory
 * after the line, and leaves the value where it was; an unfolded line has its value right after its
 * name, the NUL that replaced the colon and optional whitespace. So a value that is not there, by
 * address (value before the name compares as a huge difference), is a folded line. Only bytes of
 * the line itself are read. */
static bool folded(const char *key, size_t key_size, const char *value)
{
    const uintptr_t gap = (uintptr_t)value - (uintptr_t)key;
    if (gap <= key_size || gap - key_size > FOLD_GAP_MAX || key[key_size] != '\0') return true;
    for (size_t i = key_size + 1; i < gap; i++)
        if (key[i] != ' ' && key[i] != '\t') return true;
    return false;
}

/* Whether [from, to) is a line end as libmicrohttpd leaves it: optional SP and HTAB (a value's
 * trailing whitespace), then between min and max NULs (its CR and LF, and the empty line's). */
static bool line_end(const char *from, const char *to, size_t min, size_t max)
{
    while (from < to && (*from == ' ' || *from == '\t')) from++;
    if ((size_t)(to - from) < min || (size_t)(to - from) > max) return false;
    for (; from < to; from++)
        if (*from != '\0') return false;
    return true;
}

/* The walk of nq_head_check's layout check over the header lines. */
typedef struct layout_walk {
    const char *start; /* the head in libmicrohttpd's buffer: its first byte */
    const char *end;   /* ... and the byte after its last */
    const char *at;    /* where the bytes libmicrohttpd reported so far end */
    bool ok;           /* only line ends so far */
} layout_walk;

static enum MHD_Result walk_layout(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                   const char *value, size_t value_size)
{
    (void)kind;
    (void)key_size;
    layout_walk *w = cls;
    /* Compared as integers: the server's own line is no part of the buffer (C orders pointers into
     * one object only). */
    if ((uintptr_t)key < (uintptr_t)w->start || (uintptr_t)key >= (uintptr_t)w->end)
        return MHD_YES; /* the server's own line, or a folded one (a 400) */
    if (key < w->at || !line_end(w->at, key, 1, 2) || value < key || value_size > (size_t)(w->end - value))
        w->ok = false;
    else
        w->at = value + value_size;
    return w->ok ? MHD_YES : MHD_NO;
}

/* Whether libmicrohttpd reported every byte of the head. It keeps the head in its read buffer,
 * turning the SP after the method and before the version, each header's colon and each line's CR
 * and LF into NULs, and reports the head's size. Two of its lapses drop bytes without a word: a NUL
 * in the target or in a value ends what it reports of them (the rest of the line is ignored), and a
 * header line with an empty name (": x") ends the head, because the NUL that replaces its colon
 * reads as the empty line, so the lines after it are taken for the next request (a smuggled one).
 * So between what it reported there must be line ends only: from the target to the version one
 * NUL, after the version and each value one or two before the next name, and two to four (the
 * last line's end and the empty line) before the end of the head. One form stays out of reach: a
 * line of a bare ":" next to a bare LF ("\n:\r\n", "\r\n:\n", "\n:\n") leaves the NULs of a last
 * line's end and an empty line ("\r\n\r\n", "\n\r\n"), and ends the head at the same byte, so the
 * server reads it as that; only a peer that forwards a header line without a name could read it
 * otherwise. Likewise a NUL right before a line's end reads as a CR: nothing is dropped then. */
static bool head_whole(struct MHD_Connection *c, const char *method, const char *version, const char *uri,
                       size_t uri_len)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    if (!info) return true; /* no size to check against: nothing is read */
    layout_walk w = {.start = method, .end = method + info->header_size, .at = NULL, .ok = true};
    const size_t vlen = strlen(version);
    if (uri + uri_len + 1 != version || version < method || vlen > (size_t)(w.end - version)) return false;
    w.at = version + vlen;
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, walk_layout, &w);
    return w.ok && line_end(w.at, w.end, 2, 4);
}

static enum MHD_Result check_field(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                   const char *value, size_t value_size)
{
    (void)kind;
    nq_framing *f = cls;
    if (nq_framing_is_synthetic(value)) return MHD_YES;
    if (folded(key, key_size, value)) nq_framing_folded(f);
    nq_framing_field(f, key, key_size, value, value_size);
    return MHD_YES;
}

void nq_head_check(struct MHD_Connection *c, const char *method, const char *version, const char *uri, size_t uri_len,
                   unsigned flags, nq_head_verdict *out)
{
    *out = (nq_head_verdict){NQ_OK, NULL, NQ_FRAMING_NONE, 0};
    if (!(flags & (NQ_HEAD_FRAMED | NQ_HEAD_MHD_FRAMES))) { /* no memory for the server's own Content-Length */
        out->err = NQ_E_NOMEM;
        return;
    }
    if (!request_line_ok(method, uri, flags)) {
        out->err = NQ_E_BAD_REQUEST;
        out->detail = "The request line must be a method (a token), one space, a target without spaces or "
                      "control characters, one space and the HTTP version.";
        return;
    }
    nq_framing f;
    nq_framing_init(&f);
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, check_field, &f);
    /* A fault of a line itself (a folded one, say, whose moved bytes the layout would also miss) is
     * named first; then anything the layout shows libmicrohttpd left out. */
    if (f.err == NQ_OK && !head_whole(c, method, version, uri, uri_len)) {
        out->err = NQ_E_BAD_REQUEST;
        out->detail = "The request head holds a NUL byte in its target or a header value, or a header line "
                      "without a name; neither is HTTP.";
        return;
    }
    /* libmicrohttpd lets only HTTP/1.0 and 1.x through; 1.x above 1.1 is served as 1.1. */
    out->err = nq_framing_finish(&f, strcmp(version, MHD_HTTP_VERSION_1_0) != 0);
    out->detail = f.detail;
    out->body = f.body;
    out->length = f.body == NQ_FRAMING_LENGTH ? f.length : 0;
}

/* ---- header lookups ----------------------------------------------------------------------------- */

/* Repeated header lines combined into one value, kept until the request ends. */
struct nq_head_joined {
    struct nq_head_joined *next; /* older ones */
    char value[];                /* "first, second, ..." */
};

void nq_head_joined_free(nq_head_joined *j)
{
    while (j) {
        nq_head_joined *next = j->next;
        free(j);
        j = next;
    }
}

/* nq_head_lookup's walk over the header lines: counts those called name and, on the second pass,
 * copies them into out joined by ", ". */
typedef struct header_walk {
    const char *name;  /* the field name looked up */
    unsigned count;    /* lines seen */
    size_t bytes;      /* their value bytes */
    const char *first; /* the first one's value */
    char *out;         /* second pass: where the joined value goes, NULL on the first */
    size_t used;       /* bytes of out used */
} header_walk;

static enum MHD_Result walk_header(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                   const char *value, size_t value_size)
{
    (void)kind;
    header_walk *w = cls;
    if (key_size != strlen(w->name) || strncasecmp(key, w->name, key_size) != 0) return MHD_YES;
    if (nq_framing_is_synthetic(value)) return MHD_YES;
    if (w->out) {
        if (w->count > 0) {
            memcpy(w->out + w->used, ", ", 2);
            w->used += 2;
        }
        memcpy(w->out + w->used, value, value_size);
        w->used += value_size;
    } else if (w->count == 0) {
        w->first = value;
    }
    w->count++;
    w->bytes += value_size;
    return MHD_YES;
}

const char *nq_head_lookup(struct MHD_Connection *c, const char *name, nq_head_joined **keep)
{
    header_walk w = {.name = name};
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, walk_header, &w);
    if (w.count <= 1) return w.first;
    nq_head_joined *j = malloc(sizeof *j + w.bytes + (size_t)2 * (w.count - 1) + 1);
    if (!j) return NULL;
    w = (header_walk){.name = name, .out = j->value};
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, walk_header, &w);
    j->value[w.used] = '\0';
    j->next = *keep;
    *keep = j;
    return j->value;
}
