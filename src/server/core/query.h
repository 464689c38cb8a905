/* query.h - strict parser for the raw query string of a request (everything after the '?').
 *
 * libmicrohttpd's own argument lookup matches keys without regard to case, keeps only the first of
 * repeated keys and truncates values at "%00", so the server parses the raw query itself, here.
 *
 * Grammar: pairs separated by '&'; each pair is key '=' value; both are percent-decoded ('+' is NOT
 * a space: it is kept and then rejected wherever it is not allowed). Rejected with a 400:
 *   - a malformed escape ("%4", "%G1") or an escape for NUL ("%00"): E_BAD_REQUEST / E_PARAM_INVALID;
 *   - an empty pair ("n=8&&limit=2", a trailing '&'), a value without a key ("=8"): E_BAD_REQUEST;
 *   - a key without '=': E_PARAM_INVALID;
 *   - a key not allowed on the route (keys are case-sensitive): E_PARAM_UNKNOWN;
 *   - a key given twice: E_PARAM_DUPLICATE;
 *   - a value that can never be valid: E_PARAM_INVALID (integers are plain ASCII digits only, no
 *     sign, space, "0x", exponent or overflow; n >= 1, limit >= 1; format is board|columns; unique
 *     is true|false; method is construct|random), and a value of one of the keys above, or of
 *     after, longer than NQ_QUERY_AFTER_MAX bytes once decoded (an integer of 97 digits, leading
 *     zeros or not; an after that long is E_CURSOR); reveal is true|false; kind, difficulty, date
 *     and generator are words of at most NQ_QUERY_WORD_MAX bytes, which the route checks;
 *   - offset together with after, columns together with queens, from together with cursor:
 *     E_PARAM_CONFLICT.
 * A missing required key is not checked here (routes differ): see nq_query_require.
 * Values beyond the server's configured limits parse fine here: the caller answers those with 422.
 *
 * Thread-safety: pure functions over caller memory; no allocation, no globals.
 */
#ifndef NQ_QUERY_H
#define NQ_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"
#include "nqueens/json.h"

/* The keys the service knows; a route passes the set it accepts as a bit mask. */
typedef enum nq_query_key {
    NQ_QK_N = 1u << 0,           /* board size */
    NQ_QK_FORMAT = 1u << 1,      /* board | columns */
    NQ_QK_UNIQUE = 1u << 2,      /* true | false */
    NQ_QK_LIMIT = 1u << 3,       /* page size */
    NQ_QK_OFFSET = 1u << 4,      /* solutions to skip */
    NQ_QK_AFTER = 1u << 5,       /* cursor: comma-separated columns */
    NQ_QK_METHOD = 1u << 6,      /* construct | random */
    NQ_QK_SEED = 1u << 7,        /* 0 .. 2^64 - 1 */
    NQ_QK_COLUMNS = 1u << 8,     /* a placement, one entry per row (kept raw: see nq_query.placement) */
    NQ_QK_QUEENS = 1u << 9,      /* a placement, row:column entries (kept raw) */
    NQ_QK_COUNT = 1u << 10,      /* true | false: also count (/complete) */
    NQ_QK_K = 1u << 11,          /* queens on the board, 0 allowed (/count) */
    NQ_QK_FROM = 1u << 12,       /* a step number to start at, 0 allowed (/trace) */
    NQ_QK_CURSOR = 1u << 13,     /* an opaque resume point (/trace), checked by the route */
    NQ_QK_KIND = 1u << 14,       /* a word (/puzzle: queens | regions), checked by the route */
    NQ_QK_DIFFICULTY = 1u << 15, /* a word (/puzzle: easy | medium | hard | expert), checked by the route */
    NQ_QK_DATE = 1u << 16,       /* a word (/puzzle: YYYY-MM-DD), checked by the route */
    NQ_QK_REVEAL = 1u << 17,     /* true | false: include the solution (/puzzle) */
    NQ_QK_GENERATOR = 1u << 18,  /* a word (/puzzle: the generator's version), checked by the route */
    NQ_QK_MARKS = 1u << 19       /* squares ruled out, row:column entries (kept raw, as queens) */
} nq_query_key;

typedef enum nq_method {
    NQ_METHOD_CONSTRUCT = 0, /* the explicit construction */
    NQ_METHOD_RANDOM         /* a random solution by local search */
} nq_method;

typedef enum nq_format {
    NQ_FORMAT_BOARD = 0, /* each solution is n strings of 'Q' and '.' */
    NQ_FORMAT_COLUMNS    /* each solution is n column indices */
} nq_format;

/* Longest decoded cursor accepted: NQ_N_MAX columns of up to 2 digits plus commas. */
#define NQ_QUERY_AFTER_MAX 96

/* Longest decoded word of kind, difficulty, date and generator; a longer one is E_PARAM_INVALID. */
#define NQ_QUERY_WORD_MAX 32

/* The largest seed a query takes: a seed is echoed in JSON answers (NQ_JSON_INT_MAX). */
#define NQ_QUERY_SEED_MAX NQ_JSON_INT_MAX

/* The parsed query. `present` has a bit per key that appeared; absent keys hold their defaults. */
typedef struct nq_query {
    unsigned present;                       /* nq_query_key bits of the keys given */
    uint64_t n;                             /* >= 1 when present */
    nq_format format;                       /* default NQ_FORMAT_BOARD */
    bool unique;                            /* default false */
    uint64_t limit;                         /* >= 1 when present */
    uint64_t offset;                        /* default 0 */
    char after[NQ_QUERY_AFTER_MAX + 1];     /* decoded cursor, NUL-terminated; checked later against n */
    size_t after_len;                       /* its length */
    nq_method method;                       /* default NQ_METHOD_CONSTRUCT */
    uint64_t seed;                          /* 0..NQ_QUERY_SEED_MAX when present */
    const char *placement;                  /* columns or queens: the raw, still escaped value, pointing
                                               into the query (a board of any size does not fit a
                                               fixed buffer); decode with nq_query_decode */
    size_t placement_len;                   /* its length */
    bool count;                             /* default false */
    uint64_t k;                             /* any value when present (the route checks it against n) */
    uint64_t from;                          /* default 0 */
    char cursor[NQ_QUERY_AFTER_MAX + 1];    /* decoded opaque cursor, NUL-terminated */
    size_t cursor_len;                      /* its length */
    bool reveal;                            /* default false */
    char kind[NQ_QUERY_WORD_MAX + 1];       /* decoded word, NUL-terminated ("" when absent) */
    char difficulty[NQ_QUERY_WORD_MAX + 1]; /* decoded word, NUL-terminated ("" when absent) */
    char date[NQ_QUERY_WORD_MAX + 1];       /* decoded word, NUL-terminated ("" when absent) */
    char generator[NQ_QUERY_WORD_MAX + 1];  /* decoded word, NUL-terminated ("" when absent) */
    const char *marks;                      /* marks: the raw, still escaped value, as placement */
    size_t marks_len;                       /* its length */
} nq_query;

/* Longest parameter name reported back in an error (longer names are cut). */
#define NQ_QUERY_PARAM_MAX 32

/* Why a query was rejected: the error code, the parameter at fault (printable ASCII only, cut to
 * NQ_QUERY_PARAM_MAX; "" when none) and a sentence for a person, naming the accepted form. */
typedef struct nq_query_error {
    nq_err err;                         /* NQ_OK when no error */
    char param[NQ_QUERY_PARAM_MAX + 1]; /* parameter at fault, "" if none */
    char detail[192];                   /* human-readable explanation */
} nq_query_error;

/* Parse len bytes of raw (need not be NUL-terminated; NULL with len 0 is an empty query) into *q,
 * accepting only the keys in `allowed`. Returns NQ_OK, or the first error found in query order with
 * *err filled (and *q then unspecified). q and err must not be NULL. */
nq_err nq_query_parse(const char *raw, size_t len, unsigned allowed, nq_query *q, nq_query_error *err);

/* Check that every key in `required` is present in q; on the first missing one returns
 * NQ_E_PARAM_MISSING with *err filled. */
nq_err nq_query_require(const nq_query *q, unsigned required, nq_query_error *err);

/* Percent-decode the raw value [raw, raw + len) of a parameter into a new NUL-terminated buffer
 * (*out, malloc'd, never longer than the input; free with free()) of *out_len bytes. On a malformed
 * escape or an escaped NUL returns NQ_E_PARAM_INVALID with *err filled (naming param); NQ_E_NOMEM. */
nq_err nq_query_decode(const char *raw, size_t len, const char *param, char **out, size_t *out_len,
                       nq_query_error *err);

/* The value of a hexadecimal digit (either case), or -1 when c is not one. Shared with the router's
 * path normalisation, which decodes escapes too. */
int nq_query_hex_digit(char c);

/* The name of a single key bit ("n", "format", ...); "" for anything else. */
const char *nq_query_key_name(nq_query_key key);

/* The name of a method as the query spells it: "construct" or "random". */
const char *nq_query_method_name(nq_method m);

#endif /* NQ_QUERY_H */
