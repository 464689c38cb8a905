/* solve_body.c - the /solve body as a pull stream, rendered in batches (see solve_body.h).
 *
 * The JSON itself is the solver library's (nqueens/json.h), the same bytes the CLI prints: this
 * file only pulls solutions from the iterator and lays the pieces into a batch buffer, which is
 * sized once at creation; the stream never reallocates. Rendering solutions is the whole cost of a
 * cached miss on big n, and the renderer writes them with memset/memcpy.
 */
#include "routes/solve_body.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "nqueens/json.h"

#define BATCH 64      /* solutions rendered per refill: amortises the iterator call, bounds memory */
#define HEAD_MAX 96   /* room for the envelope head: {"n":..,"total":<20 digits>,"solutions":[ */
#define TAIL_MAX 256  /* room for the tail: ],"next":"/solve?...&after=<32 columns>"} */
#define PREFIX_MAX 80 /* the next link up to its cursor: /solve?n=..&format=..&unique=..&limit=..&after= */

_Static_assert(NQ_JSON_HEAD_MAX <= HEAD_MAX, "the longest head fits");
_Static_assert(NQ_JSON_TAIL_MAX(NQ_N_MAX, PREFIX_MAX) <= TAIL_MAX, "the longest tail fits");

typedef enum stage { ST_HEAD, ST_SOLUTIONS, ST_TAIL, ST_DONE } stage;

struct nq_body_solve {
    nq_solve_spec spec;     /* what to render (copied) */
    nq_iter *it;            /* positioned enumerator */
    stage stage;            /* what the next refill produces */
    uint64_t emitted;       /* solutions rendered so far */
    uint8_t last[NQ_N_MAX]; /* the last solution rendered: the next page's cursor */
    uint8_t *cols;          /* BATCH solutions of n columns, from the iterator */
    char *chunk;            /* rendered bytes not yet handed out */
    size_t chunk_cap;       /* its size, fixed at creation */
    size_t chunk_len;       /* bytes rendered into it */
    size_t chunk_pos;       /* bytes of it already handed out */
};

static nq_json_shape shape_of(nq_format format)
{
    return format == NQ_FORMAT_COLUMNS ? NQ_JSON_COLUMNS : NQ_JSON_BOARD;
}

size_t nq_body_solve_solution_size(int n, nq_format format)
{
    return nq_json_solution_size(n, shape_of(format));
}

static size_t sat_mul(size_t a, uint64_t b)
{
    if (a != 0 && b > SIZE_MAX / a) return SIZE_MAX;
    return a * (size_t)b;
}

size_t nq_body_solve_size_max(const nq_solve_spec *spec)
{
    uint64_t k = spec->limit;
    if (spec->has_total && !spec->has_after) {
        const uint64_t left = spec->offset < spec->total ? spec->total - spec->offset : 0;
        if (left < k) k = left;
    }
    const size_t per = nq_body_solve_solution_size(spec->n, spec->format) + 1; /* separator */
    const size_t body = sat_mul(per, k);
    return body > SIZE_MAX - HEAD_MAX - TAIL_MAX ? SIZE_MAX : body + HEAD_MAX + TAIL_MAX;
}

static nq_err put_head(nq_body_solve *b)
{
    if (b->spec.ndjson) return NQ_OK;
    const nq_json_total mode = b->spec.has_total ? NQ_JSON_TOTAL_VALUE : NQ_JSON_TOTAL_NULL;
    return nq_json_list_head(b->spec.n, mode, b->spec.total, b->chunk, b->chunk_cap, &b->chunk_len);
}

/* The next page's URL up to its cursor: the same query, then after=. Every character is URL- and
 * JSON-safe (commas are allowed in a query), so the renderer copies it as is. */
static void next_prefix(const nq_solve_spec *s, char *p, size_t cap)
{
    (void)snprintf(p, cap, "/solve?n=%d%s%s&limit=%" PRIu64 "&after=", s->n,
                   s->format == NQ_FORMAT_COLUMNS ? "&format=columns" : "", s->unique ? "&unique=true" : "", s->limit);
}

static nq_err put_tail(nq_body_solve *b)
{
    if (b->spec.ndjson) return NQ_OK;
    bool more = false;
    if (b->emitted == b->spec.limit) { /* a full page: is there anything after it? */
        size_t got = 0;
        const nq_err rc = nq_iter_next(b->it, b->cols, 1, &got);
        if (rc != NQ_OK) return rc;
        more = got > 0;
    }
    char prefix[PREFIX_MAX + 1];
    next_prefix(&b->spec, prefix, sizeof prefix);
    return nq_json_list_tail(b->spec.n, more ? b->last : NULL, prefix, b->chunk, b->chunk_cap, &b->chunk_len);
}

static nq_err put_batch(nq_body_solve *b)
{
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
    const nq_json_shape shape = shape_of(b->spec.format);
    size_t o = 0, w = 0;
    for (size_t i = 0; i < got; i++) {
        if (!b->spec.ndjson && b->emitted + i > 0) b->chunk[o++] = ',';
        const nq_err rc = nq_json_solution(b->spec.n, b->cols + i * n, shape, b->chunk + o, b->chunk_cap - o, &w);
        if (rc != NQ_OK) return rc; /* the chunk is sized for a full batch: not reached */
        o += w;
        if (b->spec.ndjson) b->chunk[o++] = '\n';
    }
    memcpy(b->last, b->cols + (got - 1) * n, n);
    b->emitted += got;
    b->chunk_len = o;
    return NQ_OK;
}

/* Render the next piece into the (empty) chunk buffer. */
static nq_err refill(nq_body_solve *b)
{
    b->chunk_len = b->chunk_pos = 0;
    switch (b->stage) {
    case ST_HEAD: b->stage = ST_SOLUTIONS; return put_head(b);
    case ST_SOLUTIONS: return put_batch(b);
    case ST_TAIL: b->stage = ST_DONE; return put_tail(b);
    case ST_DONE: return NQ_OK;
    }
    return NQ_E_INTERNAL;
}

#define ITER_BYTES ((size_t)1024) /* the library's enumerator: O(n), under a kilobyte (design.md) */

static size_t chunk_cap_of(const nq_solve_spec *spec)
{
    return BATCH * (nq_body_solve_solution_size(spec->n, spec->format) + 1) + HEAD_MAX + TAIL_MAX;
}

size_t nq_body_solve_footprint(const nq_solve_spec *spec)
{
    return sizeof(nq_body_solve) + chunk_cap_of(spec) + BATCH * (size_t)spec->n + ITER_BYTES;
}

nq_err nq_body_solve_create(const nq_solve_spec *spec, nq_body_solve **out)
{
    if (!spec || !out || spec->limit == 0) return NQ_E_ARG;
    if (spec->n < NQ_N_MIN || spec->n > NQ_N_MAX) return NQ_E_RANGE;
    nq_err rc = NQ_E_NOMEM;
    nq_body_solve *b = calloc(1, sizeof *b);
    if (!b) return NQ_E_NOMEM;
    b->spec = *spec;
    b->chunk_cap = chunk_cap_of(spec);
    b->chunk = malloc(b->chunk_cap);
    b->cols = malloc(BATCH * (size_t)spec->n);
    if (!b->chunk || !b->cols) goto fail;
    rc = nq_iter_create(spec->n, spec->unique ? NQ_ITER_UNIQUE : 0u, &b->it);
    if (rc != NQ_OK) goto fail;
    if (spec->has_after)
        rc = nq_iter_seek_after(b->it, spec->after, (size_t)spec->n);
    else if (spec->offset > 0)
        rc = nq_iter_skip(b->it, spec->offset, NULL);
    if (rc != NQ_OK) goto fail;
    *out = b;
    return NQ_OK;
fail:
    nq_body_solve_destroy(b);
    return rc;
}

nq_err nq_body_solve_read(nq_body_solve *b, char *buf, size_t cap, size_t *len)
{
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

nq_err nq_body_solve_render(const nq_solve_spec *spec, size_t cap, char **out, size_t *len)
{
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

void nq_body_solve_destroy(nq_body_solve *b)
{
    if (!b) return;
    nq_iter_destroy(b->it);
    free(b->cols);
    free(b->chunk);
    free(b);
}
