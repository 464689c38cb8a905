/* trace.c - the textbook search as a resumable state machine (see trace.h).
 *
 * Not tuned for speed beyond the obvious: one step is a handful of mask tests, and a visualiser
 * reads steps by the thousand. The state is small and explicit (queens placed, next column to try,
 * step number) so that a cursor is that state written out, and resuming is re-deriving the masks.
 *
 * Cursor bytes, before base64url (no padding):
 *   [0] version (1)   [1] n   [2] phase   [3] row   [4] col   [5..12] step, little-endian
 *   [13 .. 13+row) the columns of the queens placed   then 8 bytes: FNV-1a 64 of everything before
 */
#include "nqueens/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CURSOR_VERSION 1u
#define CURSOR_HEAD 13u
#define CURSOR_CHECK 8u
#define CURSOR_BYTES_MAX (CURSOR_HEAD + NQ_N_MAX + CURSOR_CHECK)
#define SKIP_POLL_MASK ((UINT64_C(1) << 20) - 1)

_Static_assert((CURSOR_BYTES_MAX + 2) / 3 * 4 + 1 <= NQ_TRACE_CURSOR_MAX, "a cursor fits its bound");

typedef enum phase {
    PHASE_TRY = 0,     /* try column `col` of row `row`; row == n (col == n): back up from a solution */
    PHASE_SOLUTION = 1 /* every row is placed: report it */
} phase;

struct nq_trace {
    int n;                  /* board size */
    phase phase;            /* what the next step is */
    int row;                /* queens placed (rows 0..row-1) */
    int col;                /* PHASE_TRY: the next column to try in row `row`; n: the row is done */
    uint64_t step;          /* number of the next step */
    uint32_t used_cols;     /* columns in use */
    uint64_t used_diag;     /* diagonals in use, bit row - col + n - 1 */
    uint64_t used_anti;     /* anti-diagonals in use, bit row + col */
    uint8_t cols[NQ_N_MAX]; /* the queens placed */
};

static uint64_t diag_bit(int n, int r, int c)
{
    return UINT64_C(1) << (r - c + n - 1);
}
static uint64_t anti_bit(int r, int c)
{
    return UINT64_C(1) << (r + c);
}

static void reset(nq_trace *t, int n)
{
    memset(t, 0, sizeof *t);
    t->n = n;
}

nq_err nq_trace_create(int n, nq_trace **out)
{
    if (!out) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_N_MAX) return NQ_E_RANGE;
    nq_trace *t = malloc(sizeof *t);
    if (!t) return NQ_E_NOMEM;
    reset(t, n);
    *out = t;
    return NQ_OK;
}

void nq_trace_destroy(nq_trace *t)
{
    free(t);
}

int nq_trace_n(const nq_trace *t)
{
    return t ? t->n : 0;
}

uint64_t nq_trace_position(const nq_trace *t)
{
    return t ? t->step : 0;
}

/* Done: row 0 has no column left to try. */
bool nq_trace_done(const nq_trace *t)
{
    return !t || (t->phase == PHASE_TRY && t->row == 0 && t->col == t->n);
}

static void toggle(nq_trace *t, int r, int c)
{
    t->used_cols ^= 1u << c;
    t->used_diag ^= diag_bit(t->n, r, c);
    t->used_anti ^= anti_bit(r, c);
}

static nq_trace_rule broken(const nq_trace *t, int r, int c)
{
    if (t->used_cols & (1u << c)) return NQ_TRACE_BY_COLUMN;
    if (t->used_diag & diag_bit(t->n, r, c)) return NQ_TRACE_BY_DIAGONAL;
    if (t->used_anti & anti_bit(r, c)) return NQ_TRACE_BY_ANTI_DIAGONAL;
    return NQ_TRACE_BY_NONE;
}

/* One step of the machine into *s (may be NULL: skipping); false when the trace is done. */
static bool advance(nq_trace *t, nq_trace_step *s)
{
    if (nq_trace_done(t)) return false;
    nq_trace_step tmp;
    if (!s) s = &tmp;
    s->step = t->step++;
    s->by = NQ_TRACE_BY_NONE;
    if (t->phase == PHASE_SOLUTION) {
        s->op = NQ_TRACE_SOLUTION;
        s->row = s->col = 0;
        memcpy(s->columns, t->cols, (size_t)t->n);
        t->phase = PHASE_TRY; /* row == n, col == n: back up next */
        t->col = t->n;
        return true;
    }
    if (t->col == t->n) { /* the row is exhausted: take the queen above off */
        const int r = --t->row, c = t->cols[r];
        toggle(t, r, c);
        s->op = NQ_TRACE_REMOVE;
        s->row = (uint8_t)r, s->col = (uint8_t)c;
        t->col = c + 1;
        return true;
    }
    const int r = t->row, c = t->col;
    s->row = (uint8_t)r, s->col = (uint8_t)c;
    s->by = broken(t, r, c);
    if (s->by != NQ_TRACE_BY_NONE) {
        s->op = NQ_TRACE_REJECT;
        t->col++;
        return true;
    }
    s->op = NQ_TRACE_PLACE;
    toggle(t, r, c);
    t->cols[r] = (uint8_t)c;
    t->row++;
    t->col = 0;
    if (t->row == t->n) t->phase = PHASE_SOLUTION;
    return true;
}

nq_err nq_trace_next(nq_trace *t, nq_trace_step *steps, size_t max, size_t *got)
{
    if (!t || !steps || !got) return NQ_E_ARG;
    size_t i = 0;
    while (i < max && advance(t, &steps[i])) i++;
    *got = i;
    return NQ_OK;
}

nq_err nq_trace_skip(nq_trace *t, uint64_t k, nq_count_ctl *ctl, uint64_t *skipped)
{
    if (!t) return NQ_E_ARG;
    uint64_t i = 0;
    nq_err rc = NQ_OK;
    for (; i < k; i++) {
        if ((i & SKIP_POLL_MASK) == SKIP_POLL_MASK && ctl && atomic_load_explicit(&ctl->cancel, memory_order_relaxed)) {
            rc = NQ_E_CANCELED;
            break;
        }
        if (!advance(t, NULL)) break;
    }
    if (skipped) *skipped = i;
    return rc;
}

/* ---- cursors ---------------------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static uint64_t fnv1a(const uint8_t *p, size_t len)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* base64url of in[0..len) into out, no padding, NUL-terminated; the length. */
static size_t encode(const uint8_t *in, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        const uint32_t v =
            (uint32_t)in[i] << 16 | (i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0u) | (i + 2 < len ? in[i + 2] : 0u);
        const size_t chars = len - i >= 3 ? 4 : len - i + 1;
        for (size_t j = 0; j < chars; j++) out[o++] = b64[(v >> (18 - 6 * j)) & 63u];
    }
    out[o] = '\0';
    return o;
}

static int b64_value(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

/* Strict base64url: the alphabet only, no padding, no stray bits (so one cursor has one spelling).
 * The byte count, or 0 on malformed text. */
static size_t decode(const char *text, size_t len, uint8_t *out, size_t cap)
{
    if (len % 4 == 1 || (len / 4) * 3 + (len % 4 ? len % 4 - 1 : 0) > cap) return 0;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t v = 0;
        const size_t chars = len - i >= 4 ? 4 : len - i;
        for (size_t j = 0; j < 4; j++) {
            const int d = j < chars ? b64_value(text[i + j]) : 0;
            if (d < 0) return 0;
            v = v << 6 | (uint32_t)d;
        }
        const size_t bytes = chars - 1;
        if (bytes < 3 && (v & ((1u << (8 * (3 - bytes))) - 1u))) return 0; /* stray bits */
        for (size_t j = 0; j < bytes; j++) out[o++] = (uint8_t)(v >> (16 - 8 * j));
    }
    return o;
}

nq_err nq_trace_cursor(const nq_trace *t, char *out, size_t cap, size_t *len)
{
    if (!t || !out) return NQ_E_ARG;
    uint8_t b[CURSOR_BYTES_MAX];
    b[0] = CURSOR_VERSION, b[1] = (uint8_t)t->n, b[2] = (uint8_t)t->phase, b[3] = (uint8_t)t->row,
    b[4] = (uint8_t)t->col;
    put_u64(b + 5, t->step);
    memcpy(b + CURSOR_HEAD, t->cols, (size_t)t->row);
    const size_t body = CURSOR_HEAD + (size_t)t->row;
    put_u64(b + body, fnv1a(b, body));
    const size_t bytes = body + CURSOR_CHECK;
    if (cap < (bytes + 2) / 3 * 4 + 1) return NQ_E_BUFSIZE;
    const size_t l = encode(b, bytes, out);
    if (len) *len = l;
    return NQ_OK;
}

/* The state named by b (already checked for form and check value) into t, if the search can be in
 * it: the queens in range and mutually safe, the position consistent with the phase. */
static bool load_state(nq_trace *t, const uint8_t *b)
{
    const int n = t->n, ph = b[2], row = b[3], col = b[4];
    if (ph == PHASE_SOLUTION ? (row != n || col != 0) : (ph != PHASE_TRY || row > n || col > n)) return false;
    if (ph == PHASE_TRY && row == n && col != n) return false; /* after a solution comes its REMOVE */
    reset(t, n);
    for (int r = 0; r < row; r++) {
        const int c = b[CURSOR_HEAD + (unsigned)r];
        if (c >= n || broken(t, r, c) != NQ_TRACE_BY_NONE) return false;
        toggle(t, r, c);
        t->cols[r] = (uint8_t)c;
    }
    t->phase = (phase)ph, t->row = row, t->col = col;
    t->step = get_u64(b + 5);
    return true;
}

nq_err nq_trace_resume(nq_trace *t, const char *text, size_t len)
{
    if (!t || !text) return NQ_E_ARG;
    uint8_t b[CURSOR_BYTES_MAX];
    const size_t bytes = decode(text, len, b, sizeof b);
    if (bytes < CURSOR_HEAD + CURSOR_CHECK || b[0] != CURSOR_VERSION || b[1] != t->n) return NQ_E_CURSOR;
    const size_t body = bytes - CURSOR_CHECK;
    if (body != CURSOR_HEAD + (size_t)b[3] || get_u64(b + body) != fnv1a(b, body)) return NQ_E_CURSOR;
    nq_trace probe = *t;
    if (!load_state(&probe, b)) return NQ_E_CURSOR;
    *t = probe;
    return NQ_OK;
}

/* ---- rendering -------------------------------------------------------------------------------- */

static const char *const op_names[] = {"place", "reject", "remove", "solution"};
static const char *const rule_names[] = {"", "column", "diagonal", "anti-diagonal"};

size_t nq_trace_step_render(const nq_trace_step *s, int n, char *out, size_t cap)
{
    if (!s || !out || n < NQ_N_MIN || n > NQ_N_MAX || (unsigned)s->op > NQ_TRACE_SOLUTION ||
        (unsigned)s->by > NQ_TRACE_BY_ANTI_DIAGONAL)
        return 0;
    int o = snprintf(out, cap, "{\"step\":%llu,\"op\":\"%s\"", (unsigned long long)s->step, op_names[s->op]);
    if (s->op == NQ_TRACE_SOLUTION) {
        for (int i = 0; i < n && o > 0 && (size_t)o < cap; i++)
            o += snprintf(out + o, cap - (size_t)o, "%s%u", i ? "," : ",\"columns\":[", s->columns[i]);
        if (o > 0 && (size_t)o < cap) o += snprintf(out + o, cap - (size_t)o, "]}");
    } else if (o > 0 && (size_t)o < cap) {
        o += snprintf(out + o, cap - (size_t)o, ",\"row\":%u,\"col\":%u%s%s%s}", s->row, s->col,
                      s->op == NQ_TRACE_REJECT ? ",\"by\":\"" : "", rule_names[s->by],
                      s->op == NQ_TRACE_REJECT ? "\"" : "");
    }
    return o > 0 && (size_t)o < cap ? (size_t)o : 0;
}
