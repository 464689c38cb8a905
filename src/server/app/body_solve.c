/* body_solve.c - the /solve body as a pull stream, rendered in batches (see body_solve.h).
 *
 * Boards are '.', 'Q', digits and commas only, so nothing ever needs JSON escaping: solutions are
 * written with memset/memcpy straight into a batch buffer, which is the whole cost of a cached
 * miss on big n. The batch buffer is sized once at creation; the stream never reallocates.
 */
#include "app/body_solve.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 64       /* solutions rendered per refill: amortises the iterator call, bounds memory */
#define HEAD_MAX 96    /* longest envelope head: {"n":..,"total":<20 digits>,"solutions":[ */
#define TAIL_MAX 256   /* longest tail: ],"next":"/solve?...&after=<32 columns>"} */

typedef enum stage { ST_HEAD, ST_SOLUTIONS, ST_TAIL, ST_DONE } stage;

struct nq_body_solve {
    nq_solve_spec spec;      /* what to render (copied) */
    nq_iter *it;             /* positioned enumerator */
    stage stage;             /* what the next refill produces */
    uint64_t emitted;        /* solutions rendered so far */
    uint8_t last[NQ_N_MAX];  /* the last solution rendered: the next page's cursor */
    uint8_t *cols;           /* BATCH solutions of n columns, from the iterator */
    char *chunk;             /* rendered bytes not yet handed out */
    size_t chunk_cap;        /* its size, fixed at creation */
    size_t chunk_len;        /* bytes rendered into it */
    size_t chunk_pos;        /* bytes of it already handed out */
};

size_t nq_body_solve_solution_size(int n, nq_format format) {
    const size_t un = (size_t)n;
    if (format == NQ_FORMAT_BOARD) return 2 + un * (un + 2) + (un - 1); /* [ "row", ... ] */
    size_t digits = 0;                                                /* a permutation of 0..n-1 */
    for (int c = 0; c < n; c++) digits += c < 10 ? 1 : 2;
    return 2 + digits + (un - 1);
}

static size_t sat_mul(size_t a, uint64_t b) {
    if (a != 0 && b > SIZE_MAX / a) return SIZE_MAX;
    return a * (size_t)b;
}

size_t nq_body_solve_size_max(const nq_solve_spec *spec) {
    uint64_t k = spec->limit;
    if (spec->has_total && !spec->has_after) {
        const uint64_t left = spec->offset < spec->total ? spec->total - spec->offset : 0;
        if (left < k) k = left;
    }
    const size_t per = nq_body_solve_solution_size(spec->n, spec->format) + 1; /* separator */
    const size_t body = sat_mul(per, k);
    return body > SIZE_MAX - HEAD_MAX - TAIL_MAX ? SIZE_MAX : body + HEAD_MAX + TAIL_MAX;
}

/* Render one solution at p (which has room); returns the bytes written. */
static size_t render_solution(const nq_solve_spec *spec, const uint8_t *cols, char *p) {
    const int n = spec->n;
    char *const start = p;
    *p++ = '[';
    for (int r = 0; r < n; r++) {
        if (r) *p++ = ',';
        if (spec->format == NQ_FORMAT_BOARD) {
            *p++ = '"';
            memset(p, '.', (size_t)n);
            p[cols[r]] = 'Q';
            p += n;
            *p++ = '"';
        } else if (cols[r] >= 10) {
            *p++ = (char)('0' + cols[r] / 10);
            *p++ = (char)('0' + cols[r] % 10);
        } else {
            *p++ = (char)('0' + cols[r]);
        }
    }
    *p++ = ']';
    return (size_t)(p - start);
}

static void put_head(nq_body_solve *b) {
    if (b->spec.ndjson) return;
    char total[24] = "null";
    if (b->spec.has_total) (void)snprintf(total, sizeof total, "%" PRIu64, b->spec.total);
    const int w = snprintf(b->chunk, b->chunk_cap, "{\"n\":%d,\"total\":%s,\"solutions\":[", b->spec.n, total);
    b->chunk_len = w > 0 ? (size_t)w : 0;
}

/* The next page's URL: same query, cursor = the last solution sent. Every character is URL- and
 * JSON-safe (commas are allowed in a query), so it is written as is. */
static size_t put_next(const nq_body_solve *b, char *p, size_t cap) {
    const nq_solve_spec *s = &b->spec;
    int w = snprintf(p, cap, "\"/solve?n=%d%s%s&limit=%" PRIu64 "&after=", s->n,
                     s->format == NQ_FORMAT_COLUMNS ? "&format=columns" : "",
                     s->unique ? "&unique=true" : "", s->limit);
    size_t o = w > 0 ? (size_t)w : 0;
    for (int c = 0; c < s->n && o + 4 < cap; c++) {
        w = snprintf(p + o, cap - o, c ? ",%u" : "%u", (unsigned)b->last[c]);
        o += w > 0 ? (size_t)w : 0;
    }
    if (o + 1 < cap) p[o++] = '"';
    return o;
}

static nq_err put_tail(nq_body_solve *b) {
    if (b->spec.ndjson) return NQ_OK;
    bool more = false;
    if (b->emitted == b->spec.limit) { /* a full page: is there anything after it? */
        size_t got = 0;
        const nq_err rc = nq_iter_next(b->it, b->cols, 1, &got);
        if (rc != NQ_OK) return rc;
        more = got > 0;
    }
    char *p = b->chunk;
    memcpy(p, "],\"next\":", 9);
    size_t o = 9;
    if (more) {
        o += put_next(b, p + o, b->chunk_cap - o - 2);
    } else {
        memcpy(p + o, "null", 4);
        o += 4;
    }
    p[o++] = '}';
    b->chunk_len = o;
    return NQ_OK;
}

static nq_err put_batch(nq_body_solve *b) {
    const uint64_t left = b->spec.limit - b->emitted;
    const size_t want = left < BATCH ? (size_t)left : BATCH;
    size_t got = 0;
    if (want > 0) {
        const nq_err rc = nq_iter_next(b->it, b->cols, want, &got);
        if (rc != NQ_OK) return rc;
    }
    if (got == 0) {
        b->stage = ST_TAIL;
        return NQ_OK;
    }
    const size_t n = (size_t)b->spec.n;
    char *p = b->chunk;
    for (size_t i = 0; i < got; i++) {
        if (!b->spec.ndjson && b->emitted + i > 0) *p++ = ',';
        p += render_solution(&b->spec, b->cols + i * n, p);
        if (b->spec.ndjson) *p++ = '\n';
    }
    memcpy(b->last, b->cols + (got - 1) * n, n);
    b->emitted += got;
    b->chunk_len = (size_t)(p - b->chunk);
    return NQ_OK;
}

/* Render the next piece into the (empty) chunk buffer. */
static nq_err refill(nq_body_solve *b) {
    b->chunk_len = b->chunk_pos = 0;
    switch (b->stage) {
    case ST_HEAD:
        put_head(b);
        b->stage = ST_SOLUTIONS;
        return NQ_OK;
    case ST_SOLUTIONS:
        return put_batch(b);
    case ST_TAIL:
        b->stage = ST_DONE;
        return put_tail(b);
    case ST_DONE:
        return NQ_OK;
    }
    return NQ_E_INTERNAL;
}

nq_err nq_body_solve_create(const nq_solve_spec *spec, nq_body_solve **out) {
    if (!spec || !out || spec->limit == 0) return NQ_E_ARG;
    if (spec->n < NQ_N_MIN || spec->n > NQ_N_MAX) return NQ_E_RANGE;
    nq_err rc = NQ_E_NOMEM;
    nq_body_solve *b = calloc(1, sizeof *b);
    if (!b) return NQ_E_NOMEM;
    b->spec = *spec;
    b->chunk_cap = BATCH * (nq_body_solve_solution_size(spec->n, spec->format) + 1) + HEAD_MAX + TAIL_MAX;
    b->chunk = malloc(b->chunk_cap);
    b->cols = malloc(BATCH * (size_t)spec->n);
    if (!b->chunk || !b->cols) goto fail;
    rc = nq_iter_create(spec->n, spec->unique ? NQ_ITER_UNIQUE : 0u, &b->it);
    if (rc != NQ_OK) goto fail;
    if (spec->has_after) rc = nq_iter_seek_after(b->it, spec->after, (size_t)spec->n);
    else if (spec->offset > 0) rc = nq_iter_skip(b->it, spec->offset, NULL);
    if (rc != NQ_OK) goto fail;
    *out = b;
    return NQ_OK;
fail:
    nq_body_solve_destroy(b);
    return rc;
}

nq_err nq_body_solve_read(nq_body_solve *b, char *buf, size_t cap, size_t *len) {
    if (!b || !buf || !len) return NQ_E_ARG;
    size_t o = 0;
    while (o < cap) {
        if (b->chunk_pos == b->chunk_len) {
            if (b->stage == ST_DONE) break;
            const nq_err rc = refill(b);
            if (rc != NQ_OK) {
                *len = o;
                return rc;
            }
            continue;
        }
        size_t k = b->chunk_len - b->chunk_pos;
        if (k > cap - o) k = cap - o;
        memcpy(buf + o, b->chunk + b->chunk_pos, k);
        b->chunk_pos += k;
        o += k;
    }
    *len = o;
    return NQ_OK;
}

nq_err nq_body_solve_render(const nq_solve_spec *spec, size_t cap, char **out, size_t *len) {
    if (!spec || !out || !len) return NQ_E_ARG;
    const size_t max = nq_body_solve_size_max(spec);
    if (max > cap) return NQ_E_TOO_LARGE;
    nq_body_solve *b = NULL;
    nq_err rc = nq_body_solve_create(spec, &b);
    if (rc != NQ_OK) return rc;
    char *buf = malloc(max);
    size_t used = 0, got = 0;
    rc = buf ? NQ_OK : NQ_E_NOMEM;
    while (rc == NQ_OK) {
        rc = nq_body_solve_read(b, buf + used, max - used, &got);
        if (rc != NQ_OK || got == 0) break;
        used += got;
    }
    /* max is a bound by construction; a stream not finished here would be a bug in it. */
    if (rc == NQ_OK && (b->stage != ST_DONE || b->chunk_pos != b->chunk_len)) rc = NQ_E_INTERNAL;
    nq_body_solve_destroy(b);
    if (rc != NQ_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    *len = used;
    return NQ_OK;
}

void nq_body_solve_destroy(nq_body_solve *b) {
    if (!b) return;
    nq_iter_destroy(b->it);
    free(b->cols);
    free(b->chunk);
    free(b);
}
