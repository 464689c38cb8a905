/* placement.c - placements of any size: build, parse (columns and queens forms), sort, render.
 *
 * The input is untrusted (a query string, a request body, a command line) and may describe a huge
 * board in a few bytes, so nothing here is sized by n: a placement's array is sized by its input
 * (one queen per 2 bytes of the columns form, per 4 bytes of the queens form) and the sort that
 * canonicalises it is a radix sort whose scratch is one more array of the same size.
 * Parsing is one left-to-right pass; the first entry at fault is reported, with why and where.
 */
#include "nqueens/placement.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/parse.h"
#include "placement_impl.h"
#include "radix.h"

/* ---- errors ----------------------------------------------------------------------------------- */

static nq_err fail(nq_placement_error *perr, nq_placement_error e)
{
    if (perr != NULL) *perr = e;
    return NQ_E_PLACEMENT;
}

/* "row 9" or, when it overflowed, "a row". */
static void describe_value(char *buf, size_t cap, const char *what, uint64_t value)
{
    if (value == UINT64_MAX)
        snprintf(buf, cap, "a %s too large", what);
    else
        snprintf(buf, cap, "%s %" PRIu64, what, value);
}

static const char *malformed_text(nq_placement_form form)
{
    switch (form) {
    case NQ_PLACEMENT_FORM_COLUMNS: return "is not a column number or '-'";
    case NQ_PLACEMENT_FORM_QUEENS: return "is not row:column (two plain decimal numbers)";
    case NQ_PLACEMENT_FORM_BUILT: break;
    }
    return "is malformed";
}

size_t nq_placement_error_describe(const nq_placement_error *e, char *buf, size_t cap)
{
    char v[48];
    const uint64_t last = e->n > 0 ? e->n - 1u : 0;
    int len = 0;
    if (buf == NULL) cap = 0;
    switch (e->reason) {
    case NQ_PLACEMENT_OK: len = snprintf(buf, cap, "no error"); break;
    case NQ_PLACEMENT_EMPTY: len = snprintf(buf, cap, "entry %" PRIu64 " is empty", e->entry); break;
    case NQ_PLACEMENT_MALFORMED:
        len = snprintf(buf, cap, "entry %" PRIu64 " %s", e->entry, malformed_text(e->form));
        break;
    case NQ_PLACEMENT_LEADING_ZERO:
        len = snprintf(buf, cap, "entry %" PRIu64 " has a number with a leading zero", e->entry);
        break;
    case NQ_PLACEMENT_ROW_RANGE:
    case NQ_PLACEMENT_COL_RANGE:
        describe_value(v, sizeof v, e->reason == NQ_PLACEMENT_ROW_RANGE ? "row" : "column", e->value);
        len = snprintf(buf, cap, "entry %" PRIu64 ": %s is outside 0..%" PRIu64, e->entry, v, last);
        break;
    case NQ_PLACEMENT_DUPLICATE:
        len = snprintf(buf, cap,
                       "entry %" PRIu64 " gives square %" PRIu32 ":%" PRIu32 " again (entry %" PRIu64 " gave it first)",
                       e->entry, e->square.row, e->square.col, e->other);
        break;
    case NQ_PLACEMENT_TOO_FEW:
        len = snprintf(buf, cap, "%" PRIu64 " column entries, not %" PRIu32 " (one per row)", e->entry, e->n);
        break;
    case NQ_PLACEMENT_TOO_MANY:
        len = e->form == NQ_PLACEMENT_FORM_COLUMNS
                  ? snprintf(buf, cap, "more than %" PRIu32 " column entries (one per row)", e->n)
                  : snprintf(buf, cap, "entry %" PRIu64 " is more queens than the placement has room for", e->entry);
        break;
    }
    return len > 0 ? (size_t)len : 0;
}

/* ---- building --------------------------------------------------------------------------------- */

nq_err nq_placement_create(uint32_t n, size_t capacity, nq_placement **out)
{
    if (out == NULL || capacity > NQ_PLACEMENT_CAPACITY_MAX) return NQ_E_ARG;
    if (n == 0 || n > NQ_PLACEMENT_N_MAX) return NQ_E_RANGE;
    nq_placement *p = calloc(1, sizeof *p);
    if (p == NULL) return NQ_E_NOMEM;
    p->queens = malloc((capacity > 0 ? capacity : 1) * sizeof *p->queens);
    if (p->queens == NULL) {
        free(p);
        return NQ_E_NOMEM;
    }
    p->n = n;
    p->capacity = capacity;
    *out = p;
    return NQ_OK;
}

void nq_placement_destroy(nq_placement *p)
{
    if (p == NULL) return;
    free(p->queens);
    free(p);
}

/* add with the form recorded in an error. */
static nq_err add(nq_placement *p, nq_placement_form form, uint64_t entry, uint64_t row, uint64_t col,
                  nq_placement_error *perr)
{
    const nq_placement_error base = {.form = form, .entry = entry, .n = p->n};
    nq_placement_error e = base;
    if (row >= p->n) {
        e.reason = NQ_PLACEMENT_ROW_RANGE;
        e.value = row;
        return fail(perr, e);
    }
    if (col >= p->n) {
        e.reason = NQ_PLACEMENT_COL_RANGE;
        e.value = col;
        return fail(perr, e);
    }
    if (p->count == p->capacity) {
        e.reason = NQ_PLACEMENT_TOO_MANY;
        return fail(perr, e);
    }
    p->queens[p->count++] = (nq_square){(uint32_t)row, (uint32_t)col};
    return NQ_OK;
}

nq_err nq_placement_add(nq_placement *p, uint64_t entry, uint64_t row, uint64_t col, nq_placement_error *perr)
{
    if (p == NULL || p->finished) return NQ_E_ARG;
    return add(p, NQ_PLACEMENT_FORM_BUILT, entry, row, col, perr);
}

/* True when the queens are strictly increasing in row-major order (so sorted and distinct). */
static bool strictly_sorted(const nq_placement *p)
{
    for (size_t i = 1; i < p->count; i++) {
        const nq_square a = p->queens[i - 1], b = p->queens[i];
        if (a.row > b.row || (a.row == b.row && a.col >= b.col)) return false;
    }
    return true;
}

/* The error for the square given twice at sorted key k: its first two positions in input order. */
static nq_err duplicate(const nq_placement *p, nq_placement_form form, nq_square sq, nq_placement_error *perr)
{
    nq_placement_error e = {.reason = NQ_PLACEMENT_DUPLICATE, .form = form, .square = sq, .n = p->n};
    bool seen = false;
    for (size_t i = 0; i < p->count; i++) {
        if (p->queens[i].row != sq.row || p->queens[i].col != sq.col) continue;
        if (seen) {
            e.entry = i;
            break;
        }
        e.other = i;
        seen = true;
    }
    return fail(perr, e);
}

/* Sort by the key row << b | col (b bits hold any column), then look for equal neighbours. */
static nq_err finish(nq_placement *p, nq_placement_form form, nq_placement_error *perr)
{
    if (strictly_sorted(p)) {
        p->finished = true;
        return NQ_OK;
    }
    const unsigned b = nq_bit_width(p->n - 1u);
    const uint64_t mask = (UINT64_C(1) << b) - 1;
    uint64_t *keys = malloc(2 * p->count * sizeof *keys); /* keys, then the sort's scratch */
    if (keys == NULL) return NQ_E_NOMEM;
    for (size_t i = 0; i < p->count; i++) keys[i] = (uint64_t)p->queens[i].row << b | p->queens[i].col;
    nq_radix_sort_u64(keys, keys + p->count, p->count, 0, 2 * b);
    for (size_t i = 1; i < p->count; i++) {
        if (keys[i] != keys[i - 1]) continue;
        const nq_square sq = {(uint32_t)(keys[i] >> b), (uint32_t)(keys[i] & mask)};
        free(keys);
        return duplicate(p, form, sq, perr);
    }
    for (size_t i = 0; i < p->count; i++)
        p->queens[i] = (nq_square){(uint32_t)(keys[i] >> b), (uint32_t)(keys[i] & mask)};
    free(keys);
    p->finished = true;
    return NQ_OK;
}

nq_err nq_placement_finish(nq_placement *p, nq_placement_error *perr)
{
    if (p == NULL || p->finished) return NQ_E_ARG;
    return finish(p, NQ_PLACEMENT_FORM_BUILT, perr);
}

/* ---- parsing ---------------------------------------------------------------------------------- */

/* A number in s[from..to): plain digits (nqueens/parse.h), no leading zero beyond "0". On success
 * *value holds it, saturated at UINT64_MAX (which is out of every range). Returns the reason it is
 * not one. */
static nq_placement_reason number(const char *s, size_t from, size_t to, uint64_t *value)
{
    uint64_t v = 0;
    const nq_err rc = nq_parse_u64(s + from, to - from, UINT64_MAX, &v);
    if (rc != NQ_OK && rc != NQ_E_OVERFLOW) return NQ_PLACEMENT_MALFORMED;
    if (to - from > 1 && s[from] == '0') return NQ_PLACEMENT_LEADING_ZERO;
    *value = rc == NQ_OK ? v : UINT64_MAX;
    return NQ_PLACEMENT_OK;
}

/* End of the entry starting at from: the next ',' or len. */
static size_t entry_end(const char *s, size_t len, size_t from)
{
    const char *comma = memchr(s + from, ',', len - from);
    return comma != NULL ? (size_t)(comma - s) : len;
}

/* Checks shared by the parsers; creates the placement with room for `capacity` queens. */
static nq_err start_parse(uint32_t n, const char *s, nq_placement **out, size_t capacity, nq_placement **p)
{
    if (s == NULL || out == NULL) return NQ_E_ARG;
    if (n == 0 || n > NQ_PLACEMENT_N_MAX) return NQ_E_RANGE;
    return nq_placement_create(n, capacity < NQ_PLACEMENT_CAPACITY_MAX ? capacity : NQ_PLACEMENT_CAPACITY_MAX, p);
}

/* Hands a parsed placement over, or frees it on error. */
static nq_err end_parse(nq_err err, nq_placement *p, nq_placement **out)
{
    if (err != NQ_OK) {
        nq_placement_destroy(p);
        return err;
    }
    *out = p;
    return NQ_OK;
}

/* One entry of the columns form, s[from..to): "-" (sets *has false) or a column number. */
static nq_placement_reason column_entry(const char *s, size_t from, size_t to, bool *has, uint64_t *col)
{
    *has = false;
    if (from == to) return NQ_PLACEMENT_EMPTY;
    if (to - from == 1 && s[from] == '-') return NQ_PLACEMENT_OK; /* a row without a queen */
    *has = true;
    return number(s, from, to, col);
}

/* Parses the columns form into the open placement p. */
static nq_err parse_columns(nq_placement *p, const char *s, size_t len, nq_placement_error *perr)
{
    nq_placement_error e = {.form = NQ_PLACEMENT_FORM_COLUMNS, .n = p->n};
    size_t pos = 0;
    uint64_t row = 0;
    for (;; row++) {
        const size_t end = entry_end(s, len, pos);
        e.entry = row;
        e.offset = pos;
        if (row == p->n) { /* an entry after the n-th */
            e.reason = NQ_PLACEMENT_TOO_MANY;
            return fail(perr, e);
        }
        bool has = false;
        uint64_t col = 0;
        e.reason = column_entry(s, pos, end, &has, &col);
        if (e.reason != NQ_PLACEMENT_OK) return fail(perr, e);
        if (has && add(p, e.form, row, row, col, perr) != NQ_OK) {
            if (perr != NULL) perr->offset = pos;
            return NQ_E_PLACEMENT;
        }
        if (end == len) break;
        pos = end + 1;
    }
    if (row + 1 < p->n) {
        e.reason = NQ_PLACEMENT_TOO_FEW;
        e.entry = row + 1;
        e.offset = len;
        return fail(perr, e);
    }
    p->finished = true; /* one queen per row at most, rows ascending: already canonical */
    return NQ_OK;
}

nq_err nq_placement_parse_columns(uint32_t n, const char *s, size_t len, nq_placement **out, nq_placement_error *perr)
{
    nq_placement *p = NULL;
    /* at most n queens, and one per 2 bytes ("c,") of input */
    const nq_err err = start_parse(n, s, out, len / 2 + 1 < n ? len / 2 + 1 : n, &p);
    if (err != NQ_OK) return err;
    return end_parse(parse_columns(p, s, len, perr), p, out);
}

/* Parses one "r:c" entry s[from..to) into p. */
static nq_err parse_square(nq_placement *p, const char *s, size_t from, size_t to, uint64_t entry,
                           nq_placement_error *perr)
{
    nq_placement_error e = {.form = NQ_PLACEMENT_FORM_QUEENS, .entry = entry, .n = p->n, .offset = from};
    uint64_t row = 0, col = 0;
    const char *colon = memchr(s + from, ':', to - from);
    if (from == to)
        e.reason = NQ_PLACEMENT_EMPTY;
    else if (colon == NULL)
        e.reason = NQ_PLACEMENT_MALFORMED;
    else {
        const size_t mid = (size_t)(colon - s);
        e.reason = number(s, from, mid, &row);
        const nq_placement_reason second = number(s, mid + 1, to, &col);
        /* a malformed column outranks a leading zero in the row: the entry's shape is wrong */
        if (e.reason == NQ_PLACEMENT_OK || second == NQ_PLACEMENT_MALFORMED) e.reason = second;
    }
    if (e.reason != NQ_PLACEMENT_OK) return fail(perr, e);
    const nq_err err = add(p, e.form, entry, row, col, perr);
    if (err != NQ_OK && perr != NULL) perr->offset = from;
    return err;
}

static nq_err parse_queens(nq_placement *p, const char *s, size_t len, nq_placement_error *perr)
{
    if (len > 0) {
        size_t pos = 0;
        for (uint64_t entry = 0;; entry++) {
            const size_t end = entry_end(s, len, pos);
            const nq_err err = parse_square(p, s, pos, end, entry, perr);
            if (err != NQ_OK) return err;
            if (end == len) break;
            pos = end + 1;
        }
    }
    return finish(p, NQ_PLACEMENT_FORM_QUEENS, perr);
}

nq_err nq_placement_parse_queens(uint32_t n, const char *s, size_t len, nq_placement **out, nq_placement_error *perr)
{
    nq_placement *p = NULL;
    const nq_err err = start_parse(n, s, out, len / 4 + 1, &p); /* each entry but the last is >= "r:c," */
    if (err != NQ_OK) return err;
    return end_parse(parse_queens(p, s, len, perr), p, out);
}

/* ---- reading ---------------------------------------------------------------------------------- */

uint32_t nq_placement_n(const nq_placement *p)
{
    return p != NULL ? p->n : 0;
}

size_t nq_placement_count(const nq_placement *p)
{
    return p != NULL ? p->count : 0;
}

const nq_square *nq_placement_queens(const nq_placement *p)
{
    return p != NULL && p->count > 0 ? p->queens : NULL;
}

/* Decimal digits of v. */
static size_t digits(uint32_t v)
{
    size_t d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

size_t nq_placement_render_size(const nq_placement *p)
{
    if (p == NULL) return 1;
    size_t need = 1; /* the NUL */
    for (size_t i = 0; i < p->count; i++)
        need += digits(p->queens[i].row) + digits(p->queens[i].col) + (i > 0 ? 2u : 1u); /* ':' and ',' */
    return need;
}

/* Writes v in decimal at out; returns the bytes written. */
static size_t put_u32(char *out, uint32_t v)
{
    char tmp[10];
    size_t k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (size_t i = 0; i < k; i++) out[i] = tmp[k - 1 - i];
    return k;
}

nq_err nq_placement_render_queens(const nq_placement *p, char *out, size_t cap, size_t *len)
{
    if (p == NULL || out == NULL || !p->finished) return NQ_E_ARG;
    if (cap < nq_placement_render_size(p)) return NQ_E_BUFSIZE;
    size_t o = 0;
    for (size_t i = 0; i < p->count; i++) {
        if (i > 0) out[o++] = ',';
        o += put_u32(out + o, p->queens[i].row);
        out[o++] = ':';
        o += put_u32(out + o, p->queens[i].col);
    }
    out[o] = '\0';
    if (len != NULL) *len = o;
    return NQ_OK;
}
