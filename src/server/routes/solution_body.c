/* solution_body.c - the /solution body, rendered row by row (see solution_body.h).
 *
 * The envelope's head, then blocks of rows, then the tail are rendered straight into the reader's
 * buffer when it has room for a whole stage, else into a small staging buffer copied out as the
 * reader asks. Rows are rendered by nq_json_board_rows: the construction a run at a time, a random
 * board from its columns.
 */
#define _DEFAULT_SOURCE /* madvise, posix_memalign */
#include "routes/solution_body.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "nqueens/json.h"
#include "nqueens/solution.h"

#define STAGE_CAP ((size_t)64 * 1024) /* staging buffer; a board row is at most 4096 + 4 bytes */
#define HEAD_MAX 128                  /* {"n":<10>,"method":"construct","seed":<20>,"solution":[ */

struct nq_body_solution {
    nq_solution_spec spec;  /* what is rendered */
    bool none;              /* n = 2, 3: "solution":null */
    nq_construct construct; /* the rows, when cols is NULL */
    uint32_t *cols;         /* owned rows of a random solution, or NULL */
    uint32_t next_row;      /* next row to render */
    bool head_done;         /* envelope head staged */
    bool tail_done;         /* envelope tail staged: the end is near */
    char stage[STAGE_CAP];  /* rendered bytes not yet handed out */
    size_t stage_len;       /* bytes in stage */
    size_t stage_pos;       /* bytes of stage handed out */
};

/* Decimal digits of every number 0..n-1: sum over each power of ten band. */
static size_t digits_below(uint64_t n)
{
    size_t total = 0;
    for (uint64_t lo = 0, hi = 10, d = 1; lo < n; lo = hi, hi *= 10, d++) total += (size_t)((hi < n ? hi : n) - lo) * d;
    return total;
}

static size_t render_head(const nq_solution_spec *s, bool none, char *out, size_t cap)
{
    char seed[24] = "null";
    if (s->has_seed) (void)snprintf(seed, sizeof seed, "%" PRIu64, s->seed);
    const int w = snprintf(out, cap, "{\"n\":%" PRIu32 ",\"method\":\"%s\",\"seed\":%s,\"solution\":%s", s->n,
                           nq_query_method_name(s->method), seed, none ? "null" : "[");
    return w > 0 && (size_t)w < cap ? (size_t)w : 0;
}

size_t nq_body_solution_size(const nq_solution_spec *spec)
{
    char head[HEAD_MAX];
    const bool none = !nq_solution_exists(spec->n);
    const size_t h = render_head(spec, none, head, sizeof head);
    if (none) return h + 1; /* "}" */
    const size_t n = spec->n;
    const size_t rows = spec->format == NQ_FORMAT_BOARD ? n * (n + 2) : digits_below(n);
    return h + rows + (n - 1) + 2; /* commas, "]}" */
}

size_t nq_body_solution_footprint(const nq_solution_spec *spec, bool with_cols)
{
    return sizeof(nq_body_solution) + (with_cols ? (size_t)spec->n * sizeof(uint32_t) : 0);
}

nq_err nq_body_solution_create(const nq_solution_spec *spec, uint32_t *cols, nq_body_solution **out)
{
    if (!spec || !out) {
        free(cols);
        return NQ_E_ARG;
    }
    nq_body_solution *b = calloc(1, sizeof *b);
    if (!b) {
        free(cols);
        return NQ_E_NOMEM;
    }
    b->spec = *spec;
    b->cols = cols;
    b->none = !nq_solution_exists(spec->n);
    if (!cols && !b->none) {
        const nq_err rc = nq_construct_init(&b->construct, spec->n);
        if (rc != NQ_OK) {
            nq_body_solution_destroy(b);
            return rc;
        }
    }
    *out = b;
    return NQ_OK;
}

void nq_body_solution_destroy(nq_body_solution *b)
{
    if (!b) return;
    free(b->cols);
    free(b);
}

/* Append the rows from next_row on (with their separators) that fit to out[*o..cap), as the library
 * renders them (nqueens/json.h), advancing *o; false when not even one fits. */
static bool stage_rows(nq_body_solution *b, char *out, size_t cap, size_t *o)
{
    const nq_json_shape shape = b->spec.format == NQ_FORMAT_BOARD ? NQ_JSON_BOARD : NQ_JSON_COLUMNS;
    uint32_t done = 0;
    size_t w = 0;
    const nq_err rc =
        nq_json_board_rows(b->spec.n, b->next_row, b->cols, &b->construct, shape, out + *o, cap - *o, &done, &w);
    assert(rc == NQ_OK); /* the rows of a solution are in range */
    (void)rc;
    b->next_row += done;
    *o += w;
    return done > 0;
}

/* Render what comes next into out[0..cap) (cap >= HEAD_MAX): the envelope's head, as many rows as fit,
 * the tail once the rows are done and it fits. Returns the bytes written; 0 only at the end. */
static size_t render_next(nq_body_solution *b, char *out, size_t cap)
{
    size_t o = 0;
    if (!b->head_done) {
        o = render_head(&b->spec, b->none, out, cap);
        b->head_done = true;
        if (b->none) b->next_row = b->spec.n; /* nothing but the tail follows */
    }
    while (b->next_row < b->spec.n && stage_rows(b, out, cap, &o)) continue;
    if (b->next_row == b->spec.n && !b->tail_done && cap - o >= 2) {
        const char *tail = b->none ? "}" : "]}";
        memcpy(out + o, tail, strlen(tail));
        o += strlen(tail);
        b->tail_done = true;
    }
    return o;
}

nq_err nq_body_solution_read(nq_body_solution *b, char *buf, size_t cap, size_t *len)
{
    if (!b || !buf || !len) return NQ_E_ARG;
    size_t o = 0;
    while (o < cap) {
        if (b->stage_pos == b->stage_len) {
            if (b->tail_done) break;
            if (cap - o >= STAGE_CAP) { /* room for a whole stage: render in place, no copy */
                o += render_next(b, buf + o, cap - o);
                continue;
            }
            b->stage_pos = 0;
            b->stage_len = render_next(b, b->stage, STAGE_CAP);
        }
        const size_t k = b->stage_len - b->stage_pos < cap - o ? b->stage_len - b->stage_pos : cap - o;
        memcpy(buf + o, b->stage + b->stage_pos, k);
        b->stage_pos += k;
        o += k;
    }
    *len = o;
    return NQ_OK;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* Memory for a whole rendered body, freed with free(). A body of megabytes is written front to back
 * right after it is allocated, so the first touches of its pages cost most of what rendering does not:
 * for 6.9 MB (n = 10^6), 3.5 ms of CPU in 4 KiB pages against 0.6 ms in 2 MiB ones (measured, first
 * touch alone). So such a body is aligned to 2 MiB and its whole huge pages are offered to transparent
 * huge pages (madvise; where THP is off, or never takes advice, it changes nothing). */
static char *body_alloc(size_t size)
{
    if (size < HUGE_PAGE) return malloc(size);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, size) != 0) return NULL;
    (void)madvise(p, size & ~(HUGE_PAGE - 1), MADV_HUGEPAGE); /* advice only: a refusal is fine */
    return p;
}

nq_err nq_body_solution_render(const nq_solution_spec *spec, uint32_t *cols, char **out, size_t *len)
{
    nq_body_solution *b = NULL;
    nq_err rc = nq_body_solution_create(spec, cols, &b);
    if (rc != NQ_OK) return rc;
    const size_t size = nq_body_solution_size(spec);
    char *buf = body_alloc(size + 1);
    size_t got = 0;
    if (!buf)
        rc = NQ_E_NOMEM;
    else
        rc = nq_body_solution_read(b, buf, size + 1, &got);
    nq_body_solution_destroy(b);
    if (rc != NQ_OK) {
        free(buf);
        return rc;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    return NQ_OK;
}
