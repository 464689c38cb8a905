/* compress.c - gzip over zlib for nqueensd: one-shot buffers, a bounded pull stream, and the
 * Accept-Encoding parser.
 */
#define ZLIB_CONST /* zlib's next_in becomes a pointer to const: it never writes the input */
#include "cache/compress.h"

#include "base/errors.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define GZIP_WINDOW_BITS (15 + 16) /* 32 KiB window; +16 asks zlib for a gzip wrapper, not zlib's */
#define MEM_LEVEL 8                /* zlib's default: ~128 KiB of hash state per stream */
#define STREAM_IN_DEFAULT ((size_t)16 * 1024)
#define BUFFER_SLICE ((size_t)1 << 20) /* input per deflate call of a whole buffer: ~20 ms at level 6 */

static bool level_ok(int level)
{
    return level >= 0 && level <= 9;
}

/* zlib counts in uInt; feed it at most this much at a time. */
static uInt clamp_uint(size_t n)
{
    return n > UINT_MAX ? UINT_MAX : (uInt)n;
}

/* ---- whole buffers ---------------------------------------------------------------------------- */

/* Deflate all of in[0..len), a slice at a time, reading *stop (when not NULL) between slices. len
 * fits a uInt (nq_compress_buffer_until refuses a bound past UINT_MAX, and the bound is at least
 * len), and the output buffer was sized with deflateBound for the whole input, with which zlib
 * guarantees that every slice's output fits and that Z_FINISH completes at once. */
static nq_err deflate_all(z_stream *z, const char *in, size_t len, const atomic_bool *stop)
{
    z->next_in = (const Bytef *)in;
    while (len > BUFFER_SLICE) {
        if (stop && atomic_load_explicit(stop, memory_order_relaxed)) return NQ_E_CANCELED;
        z->avail_in = (uInt)BUFFER_SLICE;
        if (deflate(z, Z_NO_FLUSH) != Z_OK || z->avail_in != 0) return NQ_E_INTERNAL;
        len -= BUFFER_SLICE;
    }
    z->avail_in = (uInt)len;
    return deflate(z, Z_FINISH) == Z_STREAM_END ? NQ_OK : NQ_E_INTERNAL;
}

nq_err nq_compress_buffer(const char *in, size_t len, int level, char **out, size_t *out_len)
{
    return nq_compress_buffer_until(in, len, level, NULL, out, out_len);
}

nq_err nq_compress_buffer_until(const char *in, size_t len, int level, const atomic_bool *stop, char **out,
                                size_t *out_len)
{
    if (!out || !out_len || (!in && len > 0) || !level_ok(level)) {
        return NQ_E_ARG;
    }
    z_stream z = {0};
    if (deflateInit2(&z, level, Z_DEFLATED, GZIP_WINDOW_BITS, MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK) {
        return NQ_E_NOMEM;
    }
    nq_err err = NQ_OK;
    char *buf = NULL;
    const uLong bound = deflateBound(&z, (uLong)len);
    if (bound > UINT_MAX) { /* only for inputs of ~4 GiB, far beyond any response */
        err = NQ_E_ARG;
        goto end;
    }
    buf = malloc(bound);
    if (!buf) {
        err = NQ_E_NOMEM;
        goto end;
    }
    z.next_out = (Bytef *)buf;
    z.avail_out = (uInt)bound;
    err = deflate_all(&z, in, len, stop);
    if (err != NQ_OK) {
        goto end;
    }
    /* Give back deflateBound's slack: the buffer usually lives on in the cache. */
    char *const fitted = realloc(buf, z.total_out > 0 ? z.total_out : 1u);
    *out = fitted ? fitted : buf;
    *out_len = z.total_out;
    buf = NULL;
end:
    free(buf);
    deflateEnd(&z);
    return err;
}

/* ---- streaming -------------------------------------------------------------------------------- */

struct nq_compress_stream {
    z_stream z;                 /* deflate state; next_in points into in */
    nq_compress_source_fn read; /* the identity body */
    void *src;                  /* its state, not owned */
    char *in;                   /* input buffer of in_cap bytes */
    size_t in_cap;
    size_t in_total; /* identity bytes pulled so far */
    bool src_done;   /* the source reported its end */
    bool finished;   /* deflate wrote the gzip trailer */
    nq_err failed;   /* sticky error, NQ_OK while healthy */
};

nq_err nq_compress_stream_create(nq_compress_source_fn read, void *src, int level, size_t in_cap,
                                 nq_compress_stream **out)
{
    if (!read || !out || !level_ok(level)) {
        return NQ_E_ARG;
    }
    nq_compress_stream *const s = calloc(1, sizeof *s);
    if (!s) {
        return NQ_E_NOMEM;
    }
    s->in_cap = in_cap > 0 ? clamp_uint(in_cap) : STREAM_IN_DEFAULT;
    s->in = malloc(s->in_cap);
    if (!s->in || deflateInit2(&s->z, level, Z_DEFLATED, GZIP_WINDOW_BITS, MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(s->in);
        free(s);
        return NQ_E_NOMEM;
    }
    s->read = read;
    s->src = src;
    *out = s;
    return NQ_OK;
}

void nq_compress_stream_destroy(nq_compress_stream *s)
{
    if (!s) {
        return;
    }
    deflateEnd(&s->z);
    free(s->in);
    free(s);
}

size_t nq_compress_stream_in_bytes(const nq_compress_stream *s)
{
    return s ? s->in_total : 0;
}

/* Refill the input buffer from the source once it has been consumed. */
static nq_err refill(nq_compress_stream *s)
{
    if (s->z.avail_in > 0 || s->src_done) {
        return NQ_OK;
    }
    size_t got = 0;
    const nq_err err = s->read(s->src, s->in, s->in_cap, &got);
    if (err != NQ_OK) {
        return err;
    }
    if (got > s->in_cap) { /* a source that breaks its contract must not make us read past in */
        return NQ_E_INTERNAL;
    }
    s->src_done = got == 0;
    s->z.next_in = (Bytef *)s->in;
    s->z.avail_in = (uInt)got;
    s->in_total += got;
    return NQ_OK;
}

nq_err nq_compress_stream_read(nq_compress_stream *s, char *buf, size_t cap, size_t *len)
{
    if (!s || !buf || !len || cap == 0) {
        return NQ_E_ARG;
    }
    *len = 0;
    if (s->failed != NQ_OK) {
        return s->failed;
    }
    s->z.next_out = (Bytef *)buf;
    s->z.avail_out = clamp_uint(cap);
    const uInt room = s->z.avail_out;
    /* Fill buf as far as possible: fewer, fuller chunks are cheaper to send. */
    while (s->z.avail_out > 0 && !s->finished) {
        const nq_err err = refill(s);
        if (err != NQ_OK) {
            s->failed = err;
            break;
        }
        const int rc = deflate(&s->z, s->src_done ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            s->finished = true;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            s->failed = NQ_E_INTERNAL;
            break;
        }
    }
    *len = room - s->z.avail_out;
    /* Hand over what was produced before a failure; report the failure on the next call. */
    return *len > 0 ? NQ_OK : s->failed;
}

/* ---- negotiation ------------------------------------------------------------------------------ */

#define Q_UNSET (-1) /* weight not given */
#define Q_ONE 1000   /* weights are kept in thousandths */

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

static const char *skip_ows(const char *p)
{
    while (is_ows(*p)) {
        p++;
    }
    return p;
}

/* RFC 9110 tchar. */
static bool is_tchar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static const char *skip_token(const char *p)
{
    while (is_tchar(*p)) {
        p++;
    }
    return p;
}

/* Whether [p, end) equals the lowercase word w, ignoring ASCII case. */
static bool token_is(const char *p, const char *end, const char *w)
{
    const size_t n = strlen(w);
    if ((size_t)(end - p) != n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        const char c = (p[i] >= 'A' && p[i] <= 'Z') ? (char)(p[i] - 'A' + 'a') : p[i];
        if (c != w[i]) {
            return false;
        }
    }
    return true;
}

int nq_compress_qvalue(const char *p, const char *end)
{
    if (p == end || (*p != '0' && *p != '1')) {
        return -1;
    }
    const int whole = *p++ - '0';
    int frac = 0;
    int digits = 0;
    if (p < end && *p == '.') {
        for (p++; p < end && digits < 3 && *p >= '0' && *p <= '9'; p++, digits++) {
            frac = frac * 10 + (*p - '0');
        }
    }
    for (int d = digits; d < 3; d++) {
        frac *= 10;
    }
    if (p != end || (whole == 1 && frac != 0)) {
        return -1;
    }
    return whole * Q_ONE + frac;
}

/* Parse the parameters that follow a coding, up to the next ',' or the end, into *q (Q_ONE when
 * there is no q parameter). False if the element is malformed. */
static bool parse_weight(const char *p, int *q)
{
    *q = Q_ONE;
    for (p = skip_ows(p); *p == ';'; p = skip_ows(p)) {
        const char *const name = skip_ows(p + 1);
        const char *const name_end = skip_token(name);
        if (name_end == name || *name_end != '=') {
            return false;
        }
        const char *const value = name_end + 1;
        p = skip_token(value);
        if (token_is(name, name_end, "q")) {
            *q = nq_compress_qvalue(value, p);
            if (*q < 0) {
                return false;
            }
        }
    }
    return *p == ',' || *p == '\0';
}

/* Where the weight of the coding [p, end) is kept, or NULL for a coding we do not offer. */
static int *weight_slot(const char *p, const char *end, int *gzip, int *identity, int *star)
{
    if (token_is(p, end, "gzip") || token_is(p, end, "x-gzip")) {
        return gzip;
    }
    if (token_is(p, end, "identity")) {
        return identity;
    }
    return token_is(p, end, "*") ? star : NULL;
}

/* Skip to just past the next ',' (or to the end). */
static const char *next_element(const char *p)
{
    const char *const comma = strchr(p, ',');
    return comma ? comma + 1 : p + strlen(p);
}

nq_encoding nq_compress_negotiate(const char *accept_encoding)
{
    if (!accept_encoding) {
        return NQ_ENCODING_IDENTITY;
    }
    int q_gzip = Q_UNSET;
    int q_identity = Q_UNSET;
    int q_star = Q_UNSET;
    for (const char *p = accept_encoding; *p != '\0';) {
        const char *const coding = skip_ows(p);
        const char *const coding_end = skip_token(coding);
        int q = Q_UNSET;
        /* Malformed and empty elements are ignored; the first weight given for a coding counts. */
        if (coding_end > coding && parse_weight(coding_end, &q)) {
            int *const slot = weight_slot(coding, coding_end, &q_gzip, &q_identity, &q_star);
            if (slot && *slot == Q_UNSET) {
                *slot = q;
            }
        }
        p = next_element(coding);
    }
    const int gzip = q_gzip != Q_UNSET ? q_gzip : (q_star != Q_UNSET ? q_star : 0);
    /* Identity is acceptable unless excluded, but only a weight the client gave (directly or
     * through "*") can make it preferred over gzip. */
    const int identity = q_identity != Q_UNSET ? q_identity : q_star;
    if (gzip > 0 && gzip >= identity) {
        return NQ_ENCODING_GZIP;
    }
    return identity != 0 ? NQ_ENCODING_IDENTITY : NQ_ENCODING_NONE;
}
