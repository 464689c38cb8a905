/* puzzle_body.c - the JSON bodies of /puzzle and /puzzle/solve (see puzzle_body.h).
 *
 * Written by hand into one buffer of a size known in advance: every value is a number, a name from
 * the library's tables, a label row or the hint's sentence (escaped), so the bound is simple.
 */
#include "routes/puzzle_body.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A bounded writer: once something does not fit, nothing more is written and ok turns false. */
typedef struct out {
    char *buf;  /* the body */
    size_t cap; /* its capacity */
    size_t len; /* used */
    bool ok;    /* everything fitted */
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(out *o, const char *fmt, ...)
{
    if (!o->ok) return;
    va_list ap;
    va_start(ap, fmt);
    const int w = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= o->cap - o->len) {
        o->ok = false;
        return;
    }
    o->len += (size_t)w;
}

/* A JSON string of s: quotes, backslashes and control characters escaped (at most 6 bytes each). */
static void put_string(out *o, const char *s)
{
    put(o, "\"");
    for (; *s && o->ok; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            put(o, "\\%c", c);
        else if (c < 0x20)
            put(o, "\\u%04x", c);
        else
            put(o, "%c", c);
    }
    put(o, "\"");
}

/* A list of the squares set in masks, row-major: [[r,c],...]. */
static void put_squares(out *o, const uint64_t *masks, int n)
{
    bool first = true;
    put(o, "[");
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            if (masks[r] & (UINT64_C(1) << c)) {
                put(o, "%s[%d,%d]", first ? "" : ",", r, c);
                first = false;
            }
    put(o, "]");
}

static void put_columns(out *o, const uint8_t *cols, int n)
{
    for (int r = 0; r < n; r++) put(o, "%c%u", r ? ',' : '[', cols[r]);
    put(o, "]");
}

static void put_grade(out *o, const nq_puzzle_grade *g)
{
    put(o, "{\"difficulty\":\"%s\",\"deductions\":%" PRIu32 ",\"hardest_rule\":\"%s\",\"trials\":%" PRIu32 "}",
        nq_puzzle_difficulty_name(g->difficulty), g->deductions, nq_puzzle_rule_name(g->hardest), g->trials);
}

/* Each bound: 160 bytes of names and keys, and per row what the row can hold at most. */
size_t nq_puzzle_body_made_max(int n)
{
    const size_t k = (size_t)n;
    return 320 + k * (k + 3) /* regions */ + k * 8 /* clues */ + k * 3 /* solution */;
}

size_t nq_puzzle_body_solved_max(int n)
{
    const size_t k = (size_t)n;
    return 512 + k * 3 /* solution */ + (size_t)6 * NQ_PUZZLE_WHY_MAX /* why, escaped */ +
           3 * k * k * 8 /* three lists */;
}

size_t nq_puzzle_body_made(const nq_puzzle_spec *s, const nq_puzzle_made *m, char *buf, size_t cap)
{
    out o = {buf, cap, 0, cap > 0};
    const nq_puzzle *p = &m->puzzle;
    put(&o, "{\"kind\":\"%s\",\"n\":%d,\"difficulty\":\"%s\",\"generator\":\"%s\"", nq_puzzle_kind_name(s->kind), s->n,
        nq_puzzle_difficulty_name(s->difficulty), NQ_PUZZLE_GENERATOR);
    if (s->has_date) put(&o, ",\"date\":\"%s\"", s->date);
    put(&o, ",\"seed\":%" PRIu64 ",\"regions\":", s->seed);
    if (p->kind == NQ_PUZZLE_REGIONS) {
        char row[NQ_PUZZLE_N_MAX + 1];
        for (int r = 0; r < p->n; r++)
            if (nq_puzzle_region_row(p, r, row, sizeof row) == NQ_OK) put(&o, "%c\"%s\"", r ? ',' : '[', row);
        put(&o, "]");
    } else {
        put(&o, "null");
    }
    put(&o, ",\"clues\":[");
    bool first = true;
    for (int r = 0; r < p->n; r++)
        if (p->clue[r] != NQ_PUZZLE_NONE) {
            put(&o, "%s[%d,%u]", first ? "" : ",", r, p->clue[r]);
            first = false;
        }
    put(&o, "],\"solution\":");
    if (m->revealed)
        put_columns(&o, m->solution, p->n);
    else
        put(&o, "null");
    put(&o, ",\"grade\":");
    put_grade(&o, &m->grade);
    put(&o, "}");
    return o.ok ? o.len : 0;
}

static void put_hint(out *o, const nq_puzzle_hint *h, int n)
{
    if (h->op == NQ_PUZZLE_OP_NONE) {
        put(o, "null");
        return;
    }
    put(o, "{\"op\":\"%s\",\"square\":[%d,%d],\"rule\":\"%s\",\"why\":", nq_puzzle_op_name(h->op), h->row, h->col,
        nq_puzzle_rule_name(h->rule));
    put_string(o, h->why);
    put(o, ",\"because\":");
    put_squares(o, h->because, n);
    put(o, "}");
}

size_t nq_puzzle_body_solved(const nq_puzzle_ask *a, const nq_puzzle_solved *r, char *buf, size_t cap)
{
    out o = {buf, cap, 0, cap > 0};
    const int n = a->spec.n;
    put(&o, "{\"kind\":\"%s\",\"n\":%d,\"generator\":\"%s\",\"solutions\":%" PRIu64 ",\"unique\":%s,\"solution\":",
        nq_puzzle_kind_name(a->spec.kind), n, NQ_PUZZLE_GENERATOR, r->solutions, r->solutions == 1 ? "true" : "false");
    if (a->reveal && r->found)
        put_columns(&o, r->solution, n);
    else
        put(&o, "null");
    put(&o, ",\"hint\":");
    put_hint(&o, &r->hint, n);
    put(&o, ",\"mistakes\":{\"queens\":");
    put_squares(&o, r->mistakes.queens, n);
    put(&o, ",\"marks\":");
    put_squares(&o, r->mistakes.marks, n);
    put(&o, "},\"grade\":");
    if (r->graded)
        put_grade(&o, &r->grade);
    else
        put(&o, "null");
    put(&o, "}");
    return o.ok ? o.len : 0;
}
