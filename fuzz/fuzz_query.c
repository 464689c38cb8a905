/* fuzz_query.c - libFuzzer harness for the strict query-string parser (src/server/app/query.h).
 *
 * Input: byte 0 is the set of keys the route allows (its low 6 bits, nq_query_key); the remaining
 * bytes are the raw query, everything after '?', exactly as a client may send it.
 *
 * Oracles, beyond "no crash, no leak, no out-of-bounds read":
 *  - differential: a naive reference written from the grammar in query.h must agree with
 *    nq_query_parse on accept/reject and, when accepted, on every parsed field;
 *  - a rejection carries one of the documented 400-class codes, the same code in the error struct,
 *    a parameter name of printable ASCII within NQ_QUERY_PARAM_MAX, and a non-empty detail.
 * Which of several faults a rejection names is left to the parser (the header says "first in query
 * order" and that is not re-derived here), only that it is one of the allowed kinds.
 */
#include "base/errors.h"
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>

#include "core/query.h"

#define ALL_KEYS 0x3fu

/* Percent-decode src[0..len) into dst (at least len+1 bytes); false on a bad escape or a NUL byte. */
static bool ref_decode(const char *src, size_t len, char *dst, size_t *out_len)
{
    static const char hex[] = "0123456789abcdef0123456789ABCDEF";
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)src[i];
        if (c == '%') {
            if (len - i < 3) return false;                            /* '%' needs two more bytes */
            const char *hi = memchr(hex, src[i + 1], sizeof hex - 1); /* -1: never match the NUL */
            const char *lo = memchr(hex, src[i + 2], sizeof hex - 1);
            if (!hi || !lo) return false;
            c = (unsigned char)(((hi - hex) % 16) * 16 + (lo - hex) % 16);
            i += 2;
        }
        if (c == 0) return false;
        dst[o++] = (char)c;
    }
    dst[o] = '\0';
    *out_len = o;
    return true;
}

/* ASCII digits, at least one, whose value fits in 64 bits (leading zeros do not count). */
static bool ref_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        const uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10u) return false;
        v = v * 10u + d;
    }
    *out = v;
    return true;
}

static unsigned ref_key(const char *k)
{
    static const char *const names[] = {"n", "format", "unique", "limit", "offset", "after"};
    for (unsigned i = 0; i < 6; i++)
        if (strcmp(k, names[i]) == 0) return 1u << i;
    return 0;
}

/* Apply one decoded value to q; false if the key's grammar rejects it. */
static bool ref_value(nq_query *q, unsigned key, const char *v, size_t len)
{
    if (len > NQ_QUERY_AFTER_MAX) return false; /* the longest value of any key, decoded */
    switch (key) {
    case NQ_QK_N: return ref_u64(v, len, &q->n) && q->n > 0;
    case NQ_QK_LIMIT: return ref_u64(v, len, &q->limit) && q->limit > 0;
    case NQ_QK_OFFSET: return ref_u64(v, len, &q->offset);
    case NQ_QK_FORMAT:
        q->format = strcmp(v, "columns") == 0 ? NQ_FORMAT_COLUMNS : NQ_FORMAT_BOARD;
        return strcmp(v, "board") == 0 || strcmp(v, "columns") == 0;
    case NQ_QK_UNIQUE: q->unique = strcmp(v, "true") == 0; return q->unique || strcmp(v, "false") == 0;
    case NQ_QK_AFTER:
        memcpy(q->after, v, len + 1);
        q->after_len = len;
        return true;
    default: return false;
    }
}

/* Parse one "key=value" pair; scratch holds at least len+1 bytes. */
static bool ref_pair(const char *p, size_t len, unsigned allowed, nq_query *q, char *scratch)
{
    const char *eq = memchr(p, '=', len);
    if (len == 0 || !eq) return false;
    size_t klen = 0, vlen = 0;
    if (!ref_decode(p, (size_t)(eq - p), scratch, &klen)) return false;
    const unsigned key = ref_key(scratch);
    if (!(key & allowed) || (q->present & key)) return false;
    q->present |= key;
    if (!ref_decode(eq + 1, len - (size_t)(eq - p) - 1, scratch, &vlen)) return false;
    return ref_value(q, key, scratch, vlen);
}

static bool ref_parse(const char *raw, size_t len, unsigned allowed, nq_query *q, char *scratch)
{
    memset(q, 0, sizeof *q);
    if (len == 0) return true;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && raw[i] != '&') continue;
        if (!ref_pair(raw + start, i - start, allowed, q, scratch)) return false;
        start = i + 1;
    }
    return !((q->present & NQ_QK_OFFSET) && (q->present & NQ_QK_AFTER));
}

static void check_rejection(nq_err rc, const nq_query_error *err)
{
    NQ_FUZZ_CHECK(rc == NQ_E_BAD_REQUEST || rc == NQ_E_PARAM_INVALID || rc == NQ_E_PARAM_UNKNOWN ||
                  rc == NQ_E_PARAM_DUPLICATE || rc == NQ_E_PARAM_CONFLICT || rc == NQ_E_CURSOR);
    NQ_FUZZ_CHECK(err->err == rc);
    NQ_FUZZ_CHECK(memchr(err->param, '\0', sizeof err->param) != NULL);
    for (const char *c = err->param; *c; c++) NQ_FUZZ_CHECK(*c > 0x20 && *c < 0x7f);
    NQ_FUZZ_CHECK(memchr(err->detail, '\0', sizeof err->detail) != NULL && err->detail[0] != '\0');
}

static void check_accepted(const nq_query *got, const nq_query *want, unsigned allowed)
{
    NQ_FUZZ_CHECK(got->present == want->present && (got->present & ~allowed) == 0);
    if (want->present & NQ_QK_N) NQ_FUZZ_CHECK(got->n == want->n);
    if (want->present & NQ_QK_LIMIT) NQ_FUZZ_CHECK(got->limit == want->limit);
    NQ_FUZZ_CHECK(got->offset == want->offset);
    NQ_FUZZ_CHECK(got->format == want->format && got->unique == want->unique);
    NQ_FUZZ_CHECK(got->after_len == want->after_len && got->after_len <= NQ_QUERY_AFTER_MAX);
    NQ_FUZZ_CHECK(memcmp(got->after, want->after, want->after_len + 1) == 0);
    nq_query_error err;
    const nq_err rc = nq_query_require(got, NQ_QK_N, &err);
    NQ_FUZZ_CHECK(rc == ((got->present & NQ_QK_N) ? NQ_OK : NQ_E_PARAM_MISSING));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const unsigned allowed = data[0] & ALL_KEYS;
    const size_t len = size - 1;
    char *const raw = malloc(len ? len : 1); /* exactly sized, not NUL-terminated */
    char *const scratch = malloc(len + 1);
    NQ_FUZZ_CHECK(raw && scratch);
    if (len) memcpy(raw, data + 1, len);

    nq_query got, want;
    nq_query_error err;
    const nq_err rc = nq_query_parse(len ? raw : NULL, len, allowed, &got, &err);
    const bool ok = ref_parse(raw, len, allowed, &want, scratch);
    NQ_FUZZ_CHECK((rc == NQ_OK) == ok);
    if (ok)
        check_accepted(&got, &want, allowed);
    else
        check_rejection(rc, &err);
    free(scratch);
    free(raw);
    return 0;
}
