/* query.c - strict parser for the raw query string (see query.h for the grammar and the errors).
 *
 * Tuned for tiny inputs (a handful of short pairs): one pass, every pair decoded into small stack
 * buffers with hard caps, so hostile input costs O(len) time and no heap at all.
 */
#include "core/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "nqueens/parse.h"

/* Longest decoded key compared against the known ones; longer keys are unknown by definition. */
#define KEY_CAP 64
/* Longest decoded value: the cursor is the longest legitimate one. */
#define VALUE_CAP NQ_QUERY_AFTER_MAX

typedef enum decode_rc { DECODE_OK, DECODE_BAD_ESCAPE, DECODE_NUL, DECODE_TOO_LONG } decode_rc;

typedef struct key_row {
    nq_query_key key; /* the bit */
    const char *name; /* its spelling in the query, case-sensitive */
} key_row;

static const key_row keys[] = {
    {NQ_QK_N, "n"},
    {NQ_QK_FORMAT, "format"},
    {NQ_QK_UNIQUE, "unique"},
    {NQ_QK_LIMIT, "limit"},
    {NQ_QK_OFFSET, "offset"},
    {NQ_QK_AFTER, "after"},
    {NQ_QK_METHOD, "method"},
    {NQ_QK_SEED, "seed"},
    {NQ_QK_COLUMNS, "columns"},
    {NQ_QK_QUEENS, "queens"},
    {NQ_QK_COUNT, "count"},
    {NQ_QK_K, "k"},
    {NQ_QK_FROM, "from"},
    {NQ_QK_CURSOR, "cursor"},
    {NQ_QK_KIND, "kind"},
    {NQ_QK_DIFFICULTY, "difficulty"},
    {NQ_QK_DATE, "date"},
    {NQ_QK_REVEAL, "reveal"},
    {NQ_QK_GENERATOR, "generator"},
    {NQ_QK_MARKS, "marks"},
};

const char *nq_query_key_name(nq_query_key key)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].key == key) return keys[i].name;
    return "";
}

const char *nq_query_method_name(nq_method m)
{
    return m == NQ_METHOD_RANDOM ? "random" : "construct";
}

/* Record code and the parameter at fault in err; the caller then writes the detail (DETAIL below),
 * naming the parameter through err->param. The name may come straight from the request: only
 * printable ASCII is kept, so the problem body stays valid UTF-8 JSON and log lines stay one line. */
static void fail(nq_query_error *err, nq_err code, const char *param)
{
    err->err = code;
    size_t i = 0;
    for (; param && param[i] && i < NQ_QUERY_PARAM_MAX; i++) {
        const unsigned char c = (unsigned char)param[i];
        err->param[i] = (c > 0x20 && c < 0x7f) ? (char)c : '?';
    }
    err->param[i] = '\0';
}

/* Write the detail sentence of a failure. */
#define DETAIL(err, ...) ((void)snprintf((err)->detail, sizeof(err)->detail, __VA_ARGS__))

int nq_query_hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Percent-decode len bytes of src into dst (cap bytes plus a NUL); *out_len gets the length. */
static decode_rc decode(const char *src, size_t len, char *dst, size_t cap, size_t *out_len)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = src[i];
        if (c == '%') {
            if (len - i < 3) return DECODE_BAD_ESCAPE;
            const int hi = nq_query_hex_digit(src[i + 1]), lo = nq_query_hex_digit(src[i + 2]);
            if (hi < 0 || lo < 0) return DECODE_BAD_ESCAPE;
            c = (char)(hi * 16 + lo);
            i += 2;
        }
        if (c == '\0') return DECODE_NUL;
        if (o == cap) return DECODE_TOO_LONG;
        dst[o++] = c;
    }
    dst[o] = '\0';
    *out_len = o;
    return DECODE_OK;
}

typedef enum int_rc { INT_OK, INT_MALFORMED, INT_OVERFLOW } int_rc;

/* Plain ASCII decimal digits, nothing else (nq_parse_u64), told apart from a number too large. */
static int_rc parse_u64(const char *s, size_t len, uint64_t *out)
{
    const nq_err rc = nq_parse_u64(s, len, UINT64_MAX, out);
    return rc == NQ_OK ? INT_OK : rc == NQ_E_OVERFLOW ? INT_OVERFLOW : INT_MALFORMED;
}

/* Parse an integer parameter of at least min (range says so in words); on failure fill err, saying
 * whether the digits overflowed or were no integer at all. */
static nq_err int_value(nq_query_error *err, const char *name, const char *v, size_t len, uint64_t min,
                        const char *range, uint64_t *out)
{
    const int_rc rc = parse_u64(v, len, out);
    if (rc == INT_OK && *out >= min) return NQ_OK;
    fail(err, NQ_E_PARAM_INVALID, name);
    if (rc == INT_OVERFLOW)
        DETAIL(err, "Parameter '%s' overflows: it must be an integer below 2^64 (18446744073709551616), %s.", name,
               range);
    else
        DETAIL(err, "Parameter '%s' must be an integer written in plain decimal digits, %s.", name, range);
    return err->err;
}

/* A seed: an integer from 0 to NQ_QUERY_SEED_MAX. */
static nq_err seed_value(nq_query_error *err, const char *v, size_t len, uint64_t *out)
{
    const nq_err rc = int_value(err, "seed", v, len, 0, "from 0 to 9007199254740991 (2^53 - 1)", out);
    if (rc != NQ_OK || *out <= NQ_QUERY_SEED_MAX) return rc;
    fail(err, NQ_E_PARAM_INVALID, "seed");
    DETAIL(err, "Parameter 'seed' must be an integer from 0 to 9007199254740991 (2^53 - 1).");
    return err->err;
}

/* A boolean parameter: 'true' or 'false'. */
static nq_err bool_value(nq_query_error *err, const char *name, const char *v, bool *out)
{
    if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
        *out = v[0] == 't';
        return NQ_OK;
    }
    fail(err, NQ_E_PARAM_INVALID, name);
    DETAIL(err, "Parameter '%s' must be 'true' or 'false'.", name);
    return err->err;
}

/* A word the route checks (kind, difficulty, date, generator): kept when it fits. */
static nq_err word_value(nq_query_error *err, const char *name, const char *v, size_t len, char *out)
{
    if (len <= NQ_QUERY_WORD_MAX) {
        memcpy(out, v, len + 1);
        return NQ_OK;
    }
    fail(err, NQ_E_PARAM_INVALID, name);
    DETAIL(err, "Parameter '%s' is too long (at most %d characters after decoding).", name, NQ_QUERY_WORD_MAX);
    return err->err;
}

/* Interpret one decoded value for its key. */
static nq_err set_value(nq_query *q, nq_query_key key, const char *v, size_t len, nq_query_error *err)
{
    switch (key) {
    case NQ_QK_N: return int_value(err, "n", v, len, 1, "at least 1", &q->n);
    case NQ_QK_LIMIT: return int_value(err, "limit", v, len, 1, "at least 1", &q->limit);
    case NQ_QK_OFFSET: return int_value(err, "offset", v, len, 0, "0 or more", &q->offset);
    case NQ_QK_FORMAT:
        if (strcmp(v, "board") == 0)
            q->format = NQ_FORMAT_BOARD;
        else if (strcmp(v, "columns") == 0)
            q->format = NQ_FORMAT_COLUMNS;
        else {
            fail(err, NQ_E_PARAM_INVALID, "format");
            DETAIL(err, "Parameter 'format' must be 'board' or 'columns'.");
            return err->err;
        }
        return NQ_OK;
    case NQ_QK_UNIQUE:
        if (strcmp(v, "true") == 0)
            q->unique = true;
        else if (strcmp(v, "false") == 0)
            q->unique = false;
        else {
            fail(err, NQ_E_PARAM_INVALID, "unique");
            DETAIL(err, "Parameter 'unique' must be 'true' or 'false'.");
            return err->err;
        }
        return NQ_OK;
    case NQ_QK_AFTER:
        memcpy(q->after, v, len + 1);
        q->after_len = len;
        return NQ_OK;
    case NQ_QK_METHOD:
        if (strcmp(v, nq_query_method_name(NQ_METHOD_CONSTRUCT)) == 0)
            q->method = NQ_METHOD_CONSTRUCT;
        else if (strcmp(v, nq_query_method_name(NQ_METHOD_RANDOM)) == 0)
            q->method = NQ_METHOD_RANDOM;
        else {
            fail(err, NQ_E_PARAM_INVALID, "method");
            DETAIL(err, "Parameter 'method' must be 'construct' or 'random'.");
            return err->err;
        }
        return NQ_OK;
    case NQ_QK_SEED: return seed_value(err, v, len, &q->seed);
    case NQ_QK_COUNT:
        if (strcmp(v, "true") == 0)
            q->count = true;
        else if (strcmp(v, "false") == 0)
            q->count = false;
        else {
            fail(err, NQ_E_PARAM_INVALID, "count");
            DETAIL(err, "Parameter 'count' must be 'true' or 'false'.");
            return err->err;
        }
        return NQ_OK;
    case NQ_QK_K: return int_value(err, "k", v, len, 0, "from 0 to n", &q->k);
    case NQ_QK_FROM: return int_value(err, "from", v, len, 0, "0 or more", &q->from);
    case NQ_QK_CURSOR:
        memcpy(q->cursor, v, len + 1);
        q->cursor_len = len;
        return NQ_OK;
    case NQ_QK_REVEAL: return bool_value(err, "reveal", v, &q->reveal);
    case NQ_QK_KIND: return word_value(err, "kind", v, len, q->kind);
    case NQ_QK_DIFFICULTY: return word_value(err, "difficulty", v, len, q->difficulty);
    case NQ_QK_DATE: return word_value(err, "date", v, len, q->date);
    case NQ_QK_GENERATOR: return word_value(err, "generator", v, len, q->generator);
    case NQ_QK_COLUMNS:
    case NQ_QK_QUEENS:
    case NQ_QK_MARKS: return NQ_E_INTERNAL; /* kept raw by parse_pair */
    }
    return NQ_E_INTERNAL;
}

static nq_err decode_error(nq_query_error *err, decode_rc rc, const char *param, bool is_after)
{
    switch (rc) {
    case DECODE_BAD_ESCAPE:
        fail(err, param ? NQ_E_PARAM_INVALID : NQ_E_BAD_REQUEST, param);
        DETAIL(err,
               "The query has a malformed percent-escape%s%s%s: each '%%' must be followed by two "
               "hexadecimal digits.",
               param ? " in parameter '" : "", err->param, param ? "'" : "");
        break;
    case DECODE_NUL:
        fail(err, param ? NQ_E_PARAM_INVALID : NQ_E_BAD_REQUEST, param);
        DETAIL(err, "The query contains an encoded NUL byte (%%00)%s%s%s, which no parameter accepts.",
               param ? " in parameter '" : "", err->param, param ? "'" : "");
        break;
    default:
        fail(err, is_after ? NQ_E_CURSOR : NQ_E_PARAM_INVALID, param);
        DETAIL(err, "Parameter '%s' is too long (at most %d characters after decoding).", err->param, VALUE_CAP);
        break;
    }
    return err->err;
}

/* Decode the klen bytes of a key at p and find its row among the allowed keys; NULL with err filled
 * when it is malformed or not allowed. */
static const key_row *find_key(const char *p, size_t klen, unsigned allowed, nq_query_error *err)
{
    char key[KEY_CAP + 1];
    size_t key_len = 0;
    const decode_rc krc = decode(p, klen, key, KEY_CAP, &key_len);
    if (krc == DECODE_TOO_LONG) {
        memcpy(key, p, KEY_CAP); /* cut raw, only to name it in the error: no key is that long */
        key[KEY_CAP] = '\0';
    } else if (krc != DECODE_OK) {
        (void)decode_error(err, krc, NULL, false);
        return NULL;
    }
    for (size_t i = 0; krc == DECODE_OK && i < sizeof keys / sizeof keys[0]; i++)
        if ((allowed & keys[i].key) && strcmp(key, keys[i].name) == 0) return &keys[i];
    fail(err, NQ_E_PARAM_UNKNOWN, key);
    DETAIL(err,
           "Unknown parameter '%s': this resource accepts no parameter of that name (names are "
           "case-sensitive).",
           err->param);
    return NULL;
}

/* Parse one "key=value" pair of len bytes. */
static nq_err parse_pair(const char *p, size_t len, unsigned allowed, nq_query *q, nq_query_error *err)
{
    if (len == 0) {
        fail(err, NQ_E_BAD_REQUEST, NULL);
        DETAIL(err, "The query has an empty parameter: remove the stray '&'.");
        return err->err;
    }
    const char *eq = memchr(p, '=', len);
    const size_t klen = eq ? (size_t)(eq - p) : len;
    if (klen == 0) { /* "=8": a value without a name, as malformed as an empty pair */
        fail(err, NQ_E_BAD_REQUEST, NULL);
        DETAIL(err, "The query has a value without a parameter name ('=...'): write name=value.");
        return err->err;
    }
    const key_row *row = find_key(p, klen, allowed, err);
    if (!row) return err->err;
    if (q->present & row->key) {
        fail(err, NQ_E_PARAM_DUPLICATE, row->name);
        DETAIL(err, "Parameter '%s' is given more than once; give it once.", row->name);
        return err->err;
    }
    q->present |= row->key;
    if (!eq) {
        fail(err, NQ_E_PARAM_INVALID, row->name);
        DETAIL(err, "Parameter '%s' needs a value ('%s=...').", row->name, row->name);
        return err->err;
    }
    if (row->key == NQ_QK_COLUMNS || row->key == NQ_QK_QUEENS) { /* any length: decoded by the route */
        q->placement = eq + 1;
        q->placement_len = len - klen - 1;
        return NQ_OK;
    }
    if (row->key == NQ_QK_MARKS) { /* as a placement: any length, decoded by the route */
        q->marks = eq + 1;
        q->marks_len = len - klen - 1;
        return NQ_OK;
    }
    char value[VALUE_CAP + 1];
    size_t vlen = 0;
    const decode_rc vrc = decode(eq + 1, len - klen - 1, value, VALUE_CAP, &vlen);
    if (vrc != DECODE_OK) return decode_error(err, vrc, row->name, row->key == NQ_QK_AFTER || row->key == NQ_QK_CURSOR);
    return set_value(q, row->key, value, vlen, err);
}

nq_err nq_query_parse(const char *raw, size_t len, unsigned allowed, nq_query *q, nq_query_error *err)
{
    memset(q, 0, sizeof *q);
    q->format = NQ_FORMAT_BOARD;
    memset(err, 0, sizeof *err);
    if (!raw || len == 0) return NQ_OK;
    const char *p = raw, *const end = raw + len;
    for (;;) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        const nq_err rc = parse_pair(p, (size_t)(stop - p), allowed, q, err);
        if (rc != NQ_OK) return rc;
        if (!amp) break;
        p = amp + 1;
    }
    if ((q->present & NQ_QK_OFFSET) && (q->present & NQ_QK_AFTER)) {
        fail(err, NQ_E_PARAM_CONFLICT, "after");
        DETAIL(err, "Parameters 'after' and 'offset' exclude each other: page with 'after' alone.");
        return err->err;
    }
    if ((q->present & NQ_QK_FROM) && (q->present & NQ_QK_CURSOR)) {
        fail(err, NQ_E_PARAM_CONFLICT, "cursor");
        DETAIL(err, "Parameters 'from' and 'cursor' exclude each other: start at a step or resume at a cursor.");
        return err->err;
    }
    if ((q->present & NQ_QK_COLUMNS) && (q->present & NQ_QK_QUEENS)) {
        fail(err, NQ_E_PARAM_CONFLICT, "queens");
        DETAIL(err, "Parameters 'columns' and 'queens' exclude each other: give the placement once.");
        return err->err;
    }
    return NQ_OK;
}

nq_err nq_query_decode(const char *raw, size_t len, const char *param, char **out, size_t *out_len, nq_query_error *err)
{
    memset(err, 0, sizeof *err);
    char *buf = malloc(len + 1);
    if (!buf) return NQ_E_NOMEM;
    const decode_rc rc = decode(raw, len, buf, len, out_len);
    if (rc != DECODE_OK) {
        free(buf);
        return decode_error(err, rc, param, false);
    }
    *out = buf;
    return NQ_OK;
}

nq_err nq_query_require(const nq_query *q, unsigned required, nq_query_error *err)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if ((required & keys[i].key) && !(q->present & keys[i].key)) {
            fail(err, NQ_E_PARAM_MISSING, keys[i].name);
            DETAIL(err, "Parameter '%s' is required.", keys[i].name);
            return err->err;
        }
    }
    return NQ_OK;
}
