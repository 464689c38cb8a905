/* trace_body.c - the /trace body as a pull stream (see trace_body.h).
 *
 * A small state machine: the envelope's head, then one item (a step, with its separator) at a time
 * into `item`, copied out as the caller's buffer allows, then the tail with the next link. Nothing
 * grows with the page.
 */
#include "routes/trace_body.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ITEM_MAX ((size_t)400) /* a step, or the tail */
_Static_assert(400 >= NQ_TRACE_STEP_JSON_MAX + 2 * NQ_TRACE_CURSOR_MAX + 64, "an item holds a step or the tail");
#define STEP_TEXT_MAX(n) ((size_t)(n)*3u + 60u) /* a solution step: 20 digits of step, n columns */
#define OTHER_TEXT_MAX 90u                      /* the longest other step ("anti-diagonal") */

typedef enum part { PART_HEAD, PART_STEPS, PART_TAIL, PART_END } part;

struct nq_body_trace {
    nq_trace_spec spec;  /* the page */
    nq_trace *trace;     /* positioned at the next step to render */
    uint64_t sent;       /* steps rendered so far */
    part part;           /* what comes next */
    char item[ITEM_MAX]; /* the text being copied out */
    size_t item_len;     /* its length */
    size_t item_off;     /* bytes of it already copied */
};

size_t nq_body_trace_size_max(const nq_trace_spec *spec)
{
    const size_t step = (STEP_TEXT_MAX(spec->n) > OTHER_TEXT_MAX ? STEP_TEXT_MAX(spec->n) : OTHER_TEXT_MAX) + 1;
    if (spec->limit > (SIZE_MAX - ITEM_MAX * 2u) / step) return SIZE_MAX;
    return (size_t)spec->limit * step + ITEM_MAX * 2u;
}

/* The whole trace's length per n, from bench_cost lengths: n * I + (I - 1 + S) + S steps, with I the
 * boards of fewer than n queens the search visits and S the solutions (every column tried is a step,
 * every queen placed is removed once, every solution is a step). */
static const uint64_t trace_length[NQ_BODY_TRACE_LENGTH_N_MAX + 1] = {
    0, /* no board */
    UINT64_C(3),
    UINT64_C(8),
    UINT64_C(23),
    UINT64_C(78),
    UINT64_C(283),
    UINT64_C(1050),
    UINT64_C(4175),
    UINT64_C(17868),
    UINT64_C(81123),
    UINT64_C(384412),
    UINT64_C(1976311),
    UINT64_C(10974256),
    UINT64_C(64563915),
    UINT64_C(405625546),
    UINT64_C(2706156575),
    UINT64_C(19178647470),
    UINT64_C(142773353111),
    UINT64_C(1116627504720),
};

bool nq_body_trace_length(int n, uint64_t *len)
{
    if (n < 1 || n > NQ_BODY_TRACE_LENGTH_N_MAX) return false;
    *len = trace_length[n];
    return true;
}

uint64_t nq_body_trace_skip_ms(uint64_t from)
{
    const uint64_t per_ms = NQ_BODY_TRACE_SKIP_PER_S / 1000u;
    return from / per_ms + (from % per_ms != 0); /* rounded up: any skip costs something */
}

uint64_t nq_body_trace_skip_within(uint64_t ms)
{
    const uint64_t per_ms = NQ_BODY_TRACE_SKIP_PER_S / 1000u;
    return ms > UINT64_MAX / per_ms ? UINT64_MAX : ms * per_ms;
}

void nq_body_trace_destroy(nq_body_trace *b)
{
    if (!b) return;
    nq_trace_destroy(b->trace);
    free(b);
}

nq_err nq_body_trace_create(const nq_trace_spec *spec, nq_count_ctl *ctl, nq_body_trace **out)
{
    nq_body_trace *b = calloc(1, sizeof *b);
    if (!b) return NQ_E_NOMEM;
    b->spec = *spec;
    b->part = spec->ndjson ? PART_STEPS : PART_HEAD;
    nq_err rc = nq_trace_create(spec->n, &b->trace);
    if (rc == NQ_OK)
        rc = spec->has_cursor ? nq_trace_resume(b->trace, spec->cursor, strlen(spec->cursor))
                              : nq_trace_skip(b->trace, spec->from, ctl, NULL);
    if (rc != NQ_OK) {
        nq_body_trace_destroy(b);
        return rc;
    }
    *out = b;
    return NQ_OK;
}

nq_err nq_body_trace_cursor(const nq_body_trace *b, char *out, size_t cap)
{
    if (!b || !out || cap == 0) return NQ_E_ARG;
    return nq_trace_cursor(b->trace, out, cap, NULL);
}

/* The tail of the envelope: the next link, or null once the trace is done. */
static void make_tail(nq_body_trace *b)
{
    char cursor[NQ_TRACE_CURSOR_MAX] = "";
    const bool more = !nq_trace_done(b->trace) && nq_trace_cursor(b->trace, cursor, sizeof cursor, NULL) == NQ_OK;
    const int w = more ? snprintf(b->item, sizeof b->item, "],\"next\":\"/trace?n=%d&limit=%" PRIu64 "&cursor=%s\"}",
                                  b->spec.n, b->spec.limit, cursor)
                       : snprintf(b->item, sizeof b->item, "],\"next\":null}");
    b->item_len = w > 0 ? (size_t)w : 0;
}

/* Fill b->item with the next piece of the body; false when the body is complete. */
static bool next_item(nq_body_trace *b)
{
    b->item_off = 0;
    b->item_len = 0;
    switch (b->part) {
    case PART_HEAD: {
        const int w = snprintf(b->item, sizeof b->item, "{\"n\":%d,\"steps\":[", b->spec.n);
        b->item_len = w > 0 ? (size_t)w : 0;
        b->part = PART_STEPS;
        return true;
    }
    case PART_STEPS: {
        nq_trace_step s;
        size_t got = 0;
        if (b->sent < b->spec.limit) (void)nq_trace_next(b->trace, &s, 1, &got);
        if (got == 0) {
            b->part = b->spec.ndjson ? PART_END : PART_TAIL;
            return next_item(b);
        }
        const bool comma = !b->spec.ndjson && b->sent > 0;
        if (comma) b->item[0] = ',';
        size_t len = nq_trace_step_render(&s, b->spec.n, b->item + comma, sizeof b->item - 2) + comma;
        if (b->spec.ndjson) b->item[len++] = '\n';
        b->item_len = len;
        b->sent++;
        return true;
    }
    case PART_TAIL:
        make_tail(b);
        b->part = PART_END;
        return true;
    case PART_END: break;
    }
    return false;
}

nq_err nq_body_trace_read(nq_body_trace *b, char *buf, size_t cap, size_t *len)
{
    if (!b || !buf || !len) return NQ_E_ARG;
    size_t o = 0;
    while (o < cap) {
        if (b->item_off == b->item_len && !next_item(b)) break;
        const size_t take = b->item_len - b->item_off < cap - o ? b->item_len - b->item_off : cap - o;
        memcpy(buf + o, b->item + b->item_off, take);
        b->item_off += take;
        o += take;
    }
    *len = o;
    return NQ_OK;
}

nq_err nq_body_trace_render(const nq_trace_spec *spec, nq_count_ctl *ctl, char **out, size_t *len)
{
    nq_body_trace *b = NULL;
    nq_err rc = nq_body_trace_create(spec, ctl, &b);
    if (rc != NQ_OK) return rc;
    const size_t cap = nq_body_trace_size_max(spec);
    char *buf = cap < SIZE_MAX ? malloc(cap) : NULL;
    size_t got = 0;
    rc = buf ? nq_body_trace_read(b, buf, cap, &got) : NQ_E_NOMEM;
    nq_body_trace_destroy(b);
    if (rc != NQ_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    *len = got;
    return NQ_OK;
}
