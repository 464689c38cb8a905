/* json.c - JSON text of solutions, counts and solution lists (see include/nqueens/json.h).
 *
 * The server renders every solution of a /solve body through nq_json_solution, so that is the hot
 * path: the size is known before a byte is written (one check against cap), rows are a memset and
 * one 'Q', and nothing is formatted through printf. Counts and list frames are written once per
 * document; they are built in a small local buffer first, so a failed call writes nothing.
 */
#include "nqueens/json.h"

#include <stdbool.h>
#include <string.h>

#define U64_DIGITS_MAX 20 /* UINT64_MAX = 18446744073709551615 */

static bool n_ok(int n)
{
    return n >= NQ_N_MIN && n <= NQ_N_MAX;
}

/* Copy len bytes of s to p; returns the position after them. */
static char *put(char *p, const char *s, size_t len)
{
    memcpy(p, s, len);
    return p + len;
}

/* v in decimal at p; returns the position after it. */
static char *put_u64(char *p, uint64_t v)
{
    char digits[U64_DIGITS_MAX];
    size_t k = 0;
    do {
        digits[k++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0);
    while (k > 0) *p++ = digits[--k];
    return p;
}

/* A column (< NQ_N_MAX, so at most 2 digits) in decimal at p. */
static char *put_col(char *p, unsigned c)
{
    if (c >= 10) *p++ = (char)('0' + c / 10);
    *p++ = (char)('0' + c % 10);
    return p;
}

static bool cols_ok(int n, const uint8_t *cols)
{
    for (int r = 0; r < n; r++)
        if (cols[r] >= n) return false;
    return true;
}

/* "c0,c1,...": digits plus n - 1 commas. */
static size_t cursor_size(int n, const uint8_t *cols)
{
    size_t s = (size_t)n - 1u;
    for (int r = 0; r < n; r++) s += cols[r] >= 10 ? 2u : 1u;
    return s;
}

static char *put_cursor(char *p, int n, const uint8_t *cols)
{
    for (int r = 0; r < n; r++) {
        if (r > 0) *p++ = ',';
        p = put_col(p, cols[r]);
    }
    return p;
}

size_t nq_json_solution_size(int n, nq_json_shape shape)
{
    if (!n_ok(n)) return 0;
    if (shape == NQ_JSON_BOARD) return NQ_JSON_SOLUTION_MAX(n);
    if (shape != NQ_JSON_COLUMNS) return 0;
    const size_t digits = n <= 10 ? (size_t)n : 10u + 2u * (size_t)(n - 10); /* 0..9, then 10..n-1 */
    return 2u + digits + (size_t)n - 1u;
}

/* One board row at p: n '.' with a 'Q' at col, quoted; returns the position after it. */
static char *put_board_row(char *p, size_t n, size_t col)
{
    *p++ = '"';
    memset(p, '.', n);
    p[col] = 'Q';
    p += n;
    *p++ = '"';
    return p;
}

/* [".Q..",...]: row r has its 'Q' at cols[r]. */
static void put_board(char *p, int n, const uint8_t *cols)
{
    *p++ = '[';
    for (int r = 0; r < n; r++) {
        if (r > 0) *p++ = ',';
        p = put_board_row(p, (size_t)n, cols[r]);
    }
    *p = ']';
}

/* "00".."99": two digits a step, so a column of a 10^6 board is three stores, not six divisions. */
static const char digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

static size_t u32_digits(uint32_t v)
{
    size_t d = 1;
    for (uint32_t limit = 10; d < 10 && v >= limit; limit *= 10u) d++;
    return d;
}

/* v in exactly d decimal digits (d = u32_digits(v)) at p, written from the last digit back. */
static void put_u32(char *p, uint32_t v, size_t d)
{
    p += d;
    for (; v >= 100u; v /= 100u) {
        const unsigned i = (unsigned)(v % 100u) * 2u;
        *--p = digit_pairs[i + 1];
        *--p = digit_pairs[i];
    }
    if (v >= 10u) {
        const size_t i = (size_t)v * 2u;
        *--p = digit_pairs[i + 1];
        *--p = digit_pairs[i];
    } else {
        *--p = (char)('0' + v);
    }
}

nq_err nq_json_row(uint32_t n, uint32_t r, uint32_t col, nq_json_shape shape, char *out, size_t cap, size_t *len)
{
    if (!out || !len || (shape != NQ_JSON_BOARD && shape != NQ_JSON_COLUMNS)) return NQ_E_ARG;
    if (n == 0 || r >= n || col >= n) return NQ_E_RANGE;
    const size_t digits = shape == NQ_JSON_BOARD ? 0 : u32_digits(col);
    const size_t need = (r > 0 ? 1u : 0u) + (shape == NQ_JSON_BOARD ? (size_t)n + 2u : digits);
    if (need > cap) return NQ_E_BUFSIZE;
    char *p = out;
    if (r > 0) *p++ = ',';
    if (shape == NQ_JSON_BOARD)
        put_board_row(p, n, col);
    else
        put_u32(p, col, digits);
    *len = need;
    return NQ_OK;
}

/* The columns shape of nq_json_rows: a row needs at most 11 bytes (a comma and 10 digits), so while
 * that much room is left per row the loop checks nothing but the columns. */
static uint32_t put_column_rows(uint32_t n, uint32_t first, const uint32_t *cols, uint32_t count, char *out, size_t cap,
                                size_t *len, bool *bad)
{
    char *p = out;
    const char *const end = out + cap;
    uint32_t i = 0;
    for (; i < count; i++) {
        const uint32_t c = cols[i];
        if (c >= n) {
            *bad = true;
            break;
        }
        const size_t d = u32_digits(c);
        const size_t comma = first + i > 0 ? 1u : 0u;
        if ((size_t)(end - p) < comma + d) break;
        *p = ',';
        p += comma;
        put_u32(p, c, d);
        p += d;
    }
    *len = (size_t)(p - out);
    return i;
}

nq_err nq_json_rows(uint32_t n, uint32_t first, const uint32_t *cols, uint32_t count, nq_json_shape shape, char *out,
                    size_t cap, uint32_t *done, size_t *len)
{
    if (!cols || !out || !done || !len || (shape != NQ_JSON_BOARD && shape != NQ_JSON_COLUMNS)) return NQ_E_ARG;
    *done = 0;
    *len = 0;
    if (n == 0) return NQ_E_RANGE;
    if (count == 0) return NQ_OK;
    if (first >= n || count > n - first) return NQ_E_RANGE;
    bool bad = false;
    if (shape == NQ_JSON_COLUMNS) {
        size_t w = 0;
        const uint32_t k = put_column_rows(n, first, cols, count, out, cap, &w, &bad);
        if (bad) return NQ_E_RANGE;
        *done = k;
        *len = w;
        return NQ_OK;
    }
    size_t o = 0;
    uint32_t i = 0;
    for (; i < count; i++) {
        size_t w = 0;
        const nq_err rc = nq_json_row(n, first + i, cols[i], shape, out + o, cap - o, &w);
        if (rc == NQ_E_BUFSIZE) break;
        if (rc != NQ_OK) return rc;
        o += w;
    }
    *done = i;
    *len = o;
    return NQ_OK;
}

/* The columns shape of nq_json_run. A column c >= 100 is written as the text of c / 100 (its prefix,
 * with the comma before it) and the two digits of c % 100: within a run the prefix stays for 50 rows,
 * so a row costs one 16-byte copy of the prefix (the bytes past the row are overwritten by the next)
 * and one 2-byte copy from digit_pairs. The copy's size must be a constant: one the compiler cannot
 * see becomes a loop (measured 3x slower), so only the rows within 16 bytes of the end of out are
 * copied exactly. Keeping the prefix unchanged for those rows matters too: editing a digit in place
 * and copying the text out again stalls every row on store forwarding (measured 1.7x slower than
 * nq_json_rows). Columns below 100 and row 0 (no comma) go one by one. */
static uint32_t put_column_run(uint32_t first, uint32_t col, uint32_t count, char *out, size_t cap, size_t *len)
{
    char *p = out;
    const char *const end = out + cap;
    uint32_t i = 0;
    for (; i < count && (col + 2 * i < 100 || first + i == 0); i++) {
        const uint32_t c = col + 2 * i;
        const size_t d = u32_digits(c), comma = first + i > 0 ? 1u : 0u;
        if ((size_t)(end - p) < comma + d) goto full;
        *p = ',';
        put_u32(p + comma, c, d);
        p += comma + d;
    }
    while (i < count) {
        const uint32_t c = col + 2 * i, hi = c / 100;
        uint32_t lo = c % 100;
        char prefix[16] = {','};
        const size_t hd = u32_digits(hi), w = hd + 3; /* comma, prefix, two digits */
        put_u32(prefix + 1, hi, hd);
        const uint32_t rows = (99 - lo) / 2 + 1 < count - i ? (99 - lo) / 2 + 1 : count - i; /* until lo wraps */
        uint32_t k = 0;
        for (; k < rows && (size_t)(end - p) >= sizeof prefix; k++, lo += 2) { /* a constant-size copy */
            memcpy(p, prefix, sizeof prefix);
            memcpy(p + w - 2, digit_pairs + (size_t)lo * 2u, 2);
            p += w;
        }
        for (; k < rows; k++, lo += 2) { /* the last rows before the end of out: exact copies */
            if ((size_t)(end - p) < w) {
                i += k;
                goto full;
            }
            memcpy(p, prefix, w - 2);
            memcpy(p + w - 2, digit_pairs + (size_t)lo * 2u, 2);
            p += w;
        }
        i += rows;
    }
full:
    *len = (size_t)(p - out);
    return i;
}

nq_err nq_json_run(uint32_t n, uint32_t first, uint32_t col, uint32_t count, nq_json_shape shape, char *out, size_t cap,
                   uint32_t *done, size_t *len)
{
    if (!out || !done || !len || (shape != NQ_JSON_BOARD && shape != NQ_JSON_COLUMNS)) return NQ_E_ARG;
    *done = 0;
    *len = 0;
    if (n == 0) return NQ_E_RANGE;
    if (count == 0) return NQ_OK;
    if (first >= n || count > n - first || col >= n || (uint64_t)col + 2u * ((uint64_t)count - 1u) >= n)
        return NQ_E_RANGE;
    if (shape == NQ_JSON_COLUMNS) {
        *done = put_column_run(first, col, count, out, cap, len);
        return NQ_OK;
    }
    size_t o = 0;
    uint32_t i = 0;
    for (; i < count; i++) {
        size_t w = 0;
        if (nq_json_row(n, first + i, col + 2u * i, shape, out + o, cap - o, &w) != NQ_OK) break; /* full */
        o += w;
    }
    *done = i;
    *len = o;
    return NQ_OK;
}

nq_err nq_json_board_rows(uint32_t n, uint32_t first, const uint32_t *cols, const nq_construct *c, nq_json_shape shape,
                          char *out, size_t cap, uint32_t *done, size_t *len)
{
    if ((!cols && !c) || !out || !done || !len || (shape != NQ_JSON_BOARD && shape != NQ_JSON_COLUMNS)) return NQ_E_ARG;
    *done = 0;
    *len = 0;
    if (first >= n) return NQ_E_RANGE;
    if (cols) return nq_json_rows(n, first, cols + first, n - first, shape, out, cap, done, len);
    if (c->n != n) return NQ_E_RANGE;
    uint32_t r = first;
    size_t o = 0;
    while (r < n) { /* run after run, until one does not fit whole */
        uint32_t col = 0, k = 0;
        size_t w = 0;
        const uint32_t run = nq_construct_run(c, r, &col);
        const nq_err rc = nq_json_run(n, r, col, run, shape, out + o, cap - o, &k, &w);
        if (rc != NQ_OK) return rc;
        r += k;
        o += w;
        if (k < run) break;
    }
    *done = r - first;
    *len = o;
    return NQ_OK;
}

nq_err nq_json_solution(int n, const uint8_t *cols, nq_json_shape shape, char *out, size_t cap, size_t *len)
{
    if (!cols || !out || !len || (shape != NQ_JSON_BOARD && shape != NQ_JSON_COLUMNS)) return NQ_E_ARG;
    if (!n_ok(n)) return NQ_E_RANGE;
    if (!cols_ok(n, cols)) return NQ_E_CURSOR;
    const size_t need = shape == NQ_JSON_BOARD ? NQ_JSON_SOLUTION_MAX(n) : cursor_size(n, cols) + 2u;
    if (need > cap) return NQ_E_BUFSIZE;
    if (shape == NQ_JSON_BOARD) {
        put_board(out, n, cols);
    } else {
        out[0] = '[';
        *put_cursor(out + 1, n, cols) = ']';
    }
    *len = need;
    return NQ_OK;
}

/* Hand the size bytes built at buf to out[0..cap), or fail without writing. */
static nq_err deliver(const char *buf, size_t size, char *out, size_t cap, size_t *len)
{
    if (size > cap) return NQ_E_BUFSIZE;
    memcpy(out, buf, size);
    *len = size;
    return NQ_OK;
}

nq_err nq_json_counts(int n, const nq_counts *counts, char *out, size_t cap, size_t *len)
{
    if (!counts || !out || !len) return NQ_E_ARG;
    if (!n_ok(n)) return NQ_E_RANGE;
    char buf[NQ_JSON_COUNTS_MAX];
    char *p = put(buf, "{\"n\":", 5);
    p = put_u64(p, (uint64_t)n);
    p = put(p, ",\"total\":", 9);
    p = put_u64(p, counts->total);
    p = put(p, ",\"unique\":", 10);
    p = put_u64(p, counts->unique);
    *p++ = '}';
    return deliver(buf, (size_t)(p - buf), out, cap, len);
}

nq_err nq_json_counts_k(int n, int k, const nq_counts *counts, char *out, size_t cap, size_t *len)
{
    if (!counts || !out || !len) return NQ_E_ARG;
    if (!n_ok(n) || k < 0 || k > n) return NQ_E_RANGE;
    char buf[NQ_JSON_COUNTS_K_MAX];
    char *p = put(buf, "{\"n\":", 5);
    p = put_u64(p, (uint64_t)n);
    p = put(p, ",\"k\":", 5);
    p = put_u64(p, (uint64_t)k);
    p = put(p, ",\"total\":", 9);
    p = put_u64(p, counts->total);
    p = put(p, ",\"unique\":", 10);
    p = put_u64(p, counts->unique);
    *p++ = '}';
    return deliver(buf, (size_t)(p - buf), out, cap, len);
}

nq_err nq_json_list_head(int n, nq_json_total mode, uint64_t value, char *out, size_t cap, size_t *len)
{
    if (!out || !len || (mode != NQ_JSON_TOTAL_OMIT && mode != NQ_JSON_TOTAL_NULL && mode != NQ_JSON_TOTAL_VALUE))
        return NQ_E_ARG;
    if (!n_ok(n)) return NQ_E_RANGE;
    char buf[NQ_JSON_HEAD_MAX];
    char *p = put(buf, "{\"n\":", 5);
    p = put_u64(p, (uint64_t)n);
    if (mode != NQ_JSON_TOTAL_OMIT) {
        p = put(p, ",\"total\":", 9);
        p = mode == NQ_JSON_TOTAL_VALUE ? put_u64(p, value) : put(p, "null", 4);
    }
    p = put(p, ",\"solutions\":[", 14);
    return deliver(buf, (size_t)(p - buf), out, cap, len);
}

/* Printable ASCII that a JSON string holds as is. */
static bool json_safe(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (s[i] < 0x20 || s[i] > 0x7e || s[i] == '"' || s[i] == '\\') return false;
    return true;
}

nq_err nq_json_list_tail(int n, const uint8_t *next, const char *prefix, char *out, size_t cap, size_t *len)
{
    const size_t plen = prefix ? strlen(prefix) : 0;
    if (!out || !len || !json_safe(prefix, plen)) return NQ_E_ARG;
    if (!n_ok(n)) return NQ_E_RANGE;
    if (!next) return deliver("],\"next\":null}", 14, out, cap, len);
    if (!cols_ok(n, next)) return NQ_E_CURSOR;
    const size_t need = 10u + plen + cursor_size(n, next) + 2u;
    if (need > cap) return NQ_E_BUFSIZE;
    char *p = put(out, "],\"next\":\"", 10);
    p = put(p, prefix ? prefix : "", plen);
    p = put_cursor(p, n, next);
    put(p, "\"}", 2);
    *len = need;
    return NQ_OK;
}

/* A shard's label: 1..NQ_JSON_LABEL_MAX bytes of letters, digits and ".+-_" (nothing to escape). */
static bool label_ok(const char *s)
{
    size_t k = 0;
    for (; s[k] != '\0'; k++) {
        const char c = s[k];
        const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (k >= NQ_JSON_LABEL_MAX || !(alnum || c == '.' || c == '+' || c == '-' || c == '_')) return false;
    }
    return k > 0;
}

/* ,"<name>":"<label>" at p. */
static char *put_label(char *p, const char *name, const char *label)
{
    p = put(p, ",\"", 2);
    p = put(p, name, strlen(name));
    p = put(p, "\":\"", 3);
    p = put(p, label, strlen(label));
    *p++ = '"';
    return p;
}

/* ,"<name>":<v> at p. */
static char *put_member(char *p, const char *name, uint64_t v)
{
    p = put(p, ",\"", 2);
    p = put(p, name, strlen(name));
    p = put(p, "\":", 2);
    return put_u64(p, v);
}

nq_err nq_json_count_shard(const nq_json_shard *s, char *out, size_t cap, size_t *len)
{
    if (!s || !out || !len || !s->method || !s->release) return NQ_E_ARG;
    if (!label_ok(s->method) || !label_ok(s->release)) return NQ_E_ARG;
    if (s->n < NQ_N_MIN || s->n > NQ_COUNT_N_MAX || s->shards == 0 || s->shard >= s->shards || s->block == 0 ||
        s->done > s->tasks)
        return NQ_E_RANGE;
    char buf[NQ_JSON_SHARD_MAX];
    char *p = put(buf, "{\"n\":", 5);
    p = put_u64(p, (uint64_t)s->n);
    p = put_member(p, "shard", s->shard);
    p = put_member(p, "shards", s->shards);
    p = put_member(p, "block", s->block);
    p = put_label(p, "method", s->method);
    p = put_label(p, "release", s->release);
    p = put_member(p, "plan", s->plan);
    p = put_member(p, "tasks", s->tasks);
    p = put_member(p, "done", s->done);
    p = put_member(p, "total", s->sums.total);
    p = put_member(p, "burnside", s->sums.burnside);
    *p++ = '}';
    return deliver(buf, (size_t)(p - buf), out, cap, len);
}

bool nq_json_uint(double d, uint64_t *out)
{
    if (!(d >= 0.0)) return false; /* negative, or NaN */
    if (d > (double)NQ_JSON_INT_MAX) {
        *out = UINT64_MAX; /* whole (every double past 2^52 is), and past every bound */
        return true;
    }
    if (d != (double)(uint64_t)d) return false; /* a fraction */
    *out = (uint64_t)d;
    return true;
}
