/* test_query.c - table-driven Check tests of the strict query parser (src/server/app/query.h). */
#include "base/errors.h"
#include "core/query.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

#define SOLVE_KEYS (NQ_QK_N | NQ_QK_FORMAT | NQ_QK_UNIQUE | NQ_QK_LIMIT | NQ_QK_OFFSET | NQ_QK_AFTER)

/* Accepted queries and what they parse to. */
typedef struct accept_row {
    const char *raw;
    unsigned present;
    uint64_t n, limit, offset;
    nq_format format;
    bool unique;
    const char *after;
} accept_row;

static const accept_row accepted[] = {
    {"", 0, 0, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=8", NQ_QK_N, 8, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=1", NQ_QK_N, 1, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=008", NQ_QK_N, 8, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=18446744073709551615", NQ_QK_N, UINT64_MAX, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=%38", NQ_QK_N, 8, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"%6e=8", NQ_QK_N, 8, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=8&format=columns", NQ_QK_N | NQ_QK_FORMAT, 8, 0, 0, NQ_FORMAT_COLUMNS, false, ""},
    {"format=board&n=5", NQ_QK_N | NQ_QK_FORMAT, 5, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=8&unique=true", NQ_QK_N | NQ_QK_UNIQUE, 8, 0, 0, NQ_FORMAT_BOARD, true, ""},
    {"n=8&unique=false", NQ_QK_N | NQ_QK_UNIQUE, 8, 0, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=8&limit=3&offset=0", NQ_QK_N | NQ_QK_LIMIT | NQ_QK_OFFSET, 8, 3, 0, NQ_FORMAT_BOARD, false, ""},
    {"n=8&offset=90", NQ_QK_N | NQ_QK_OFFSET, 8, 0, 90, NQ_FORMAT_BOARD, false, ""},
    {"n=4&after=1,3,0,2", NQ_QK_N | NQ_QK_AFTER, 4, 0, 0, NQ_FORMAT_BOARD, false, "1,3,0,2"},
    {"n=4&after=1%2C3%2c0%2C2", NQ_QK_N | NQ_QK_AFTER, 4, 0, 0, NQ_FORMAT_BOARD, false, "1,3,0,2"},
    {"after=x&n=4", NQ_QK_N | NQ_QK_AFTER, 4, 0, 0, NQ_FORMAT_BOARD, false, "x"}, /* checked later */
    {"after=", NQ_QK_AFTER, 0, 0, 0, NQ_FORMAT_BOARD, false, ""},
};

START_TEST(test_accepted)
{
    const accept_row *r = &accepted[_i];
    nq_query q;
    nq_query_error e;
    ck_assert_msg(nq_query_parse(r->raw, strlen(r->raw), SOLVE_KEYS, &q, &e) == NQ_OK, "%s: %s", r->raw, e.detail);
    ck_assert_int_eq(e.err, NQ_OK);
    ck_assert_uint_eq(q.present, r->present);
    ck_assert_uint_eq(q.n, r->n);
    ck_assert_uint_eq(q.limit, r->limit);
    ck_assert_uint_eq(q.offset, r->offset);
    ck_assert_int_eq(q.format, r->format);
    ck_assert_int_eq(q.unique, r->unique);
    ck_assert_str_eq(q.after, r->after);
    ck_assert_uint_eq(q.after_len, strlen(r->after));
}
END_TEST

/* Rejected queries: the error and the parameter it names. */
typedef struct reject_row {
    const char *raw;
    unsigned allowed;
    nq_err err;
    const char *param;
} reject_row;

static const reject_row rejected[] = {
    /* integers: plain ASCII digits only */
    {"n=0", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=abc", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=-1", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=+8", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=%2B8", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=%208", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=8%20", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=0x8", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=8e0", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=8.0", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=8x", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=%D9%A8", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"}, /* ARABIC-INDIC DIGIT EIGHT */
    {"n=18446744073709551616", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=99999999999999999999999", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=8&limit=0", SOLVE_KEYS, NQ_E_PARAM_INVALID, "limit"},
    {"n=8&limit=-1", SOLVE_KEYS, NQ_E_PARAM_INVALID, "limit"},
    {"n=8&offset=-1", SOLVE_KEYS, NQ_E_PARAM_INVALID, "offset"},
    {"n=8&offset=", SOLVE_KEYS, NQ_E_PARAM_INVALID, "offset"},
    /* enumerations */
    {"n=8&format=Board", SOLVE_KEYS, NQ_E_PARAM_INVALID, "format"},
    {"n=8&format=", SOLVE_KEYS, NQ_E_PARAM_INVALID, "format"},
    {"n=8&unique=1", SOLVE_KEYS, NQ_E_PARAM_INVALID, "unique"},
    {"n=8&unique=TRUE", SOLVE_KEYS, NQ_E_PARAM_INVALID, "unique"},
    {"n=8&unique", SOLVE_KEYS, NQ_E_PARAM_INVALID, "unique"},
    /* keys: known, case-sensitive, once */
    {"n=8&n=8", SOLVE_KEYS, NQ_E_PARAM_DUPLICATE, "n"},
    {"n=8&%6E=9", SOLVE_KEYS, NQ_E_PARAM_DUPLICATE, "n"},
    {"n=8&limit=1&limit=2", SOLVE_KEYS, NQ_E_PARAM_DUPLICATE, "limit"},
    {"N=8", SOLVE_KEYS, NQ_E_PARAM_UNKNOWN, "N"},
    {"n=8&foo=1", SOLVE_KEYS, NQ_E_PARAM_UNKNOWN, "foo"},
    {"n=8&limit=2", NQ_QK_N, NQ_E_PARAM_UNKNOWN, "limit"}, /* /count takes n only */
    {"=8", SOLVE_KEYS, NQ_E_BAD_REQUEST, ""},
    {"n%00=8", SOLVE_KEYS, NQ_E_BAD_REQUEST, ""},
    /* escapes */
    {"n=%00", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=8%00", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=%G8", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=%3", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"n=8%", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
    {"%zz=1", SOLVE_KEYS, NQ_E_BAD_REQUEST, ""},
    /* structure */
    {"n=8&", SOLVE_KEYS, NQ_E_BAD_REQUEST, ""},
    {"&n=8", SOLVE_KEYS, NQ_E_BAD_REQUEST, ""},
    {"n=8&&limit=1", SOLVE_KEYS, NQ_E_BAD_REQUEST, ""},
    {"n=8&offset=1&after=1,3,0,2", SOLVE_KEYS, NQ_E_PARAM_CONFLICT, "after"},
    {"n=4&after=0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
     SOLVE_KEYS, NQ_E_CURSOR, "after"},
    /* the first fault in query order wins */
    {"foo=1&n=0", SOLVE_KEYS, NQ_E_PARAM_UNKNOWN, "foo"},
    {"n=0&foo=1", SOLVE_KEYS, NQ_E_PARAM_INVALID, "n"},
};

START_TEST(test_rejected)
{
    const reject_row *r = &rejected[_i];
    nq_query q;
    nq_query_error e;
    const nq_err rc = nq_query_parse(r->raw, strlen(r->raw), r->allowed, &q, &e);
    ck_assert_msg(rc == r->err, "%s: got %s, want %s", r->raw, nq_error_name(rc), nq_error_name(r->err));
    ck_assert_int_eq(e.err, r->err);
    ck_assert_str_eq(e.param, r->param);
    ck_assert_msg(strlen(e.detail) > 10, "%s: detail '%s'", r->raw, e.detail);
}
END_TEST

START_TEST(test_param_name_is_sanitized)
{
    /* A hostile key comes back printable and cut. */
    const char raw[] = "%01%FF%22abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz=1";
    nq_query q;
    nq_query_error e;
    ck_assert_int_eq(nq_query_parse(raw, sizeof raw - 1, SOLVE_KEYS, &q, &e), NQ_E_PARAM_UNKNOWN);
    ck_assert_uint_eq(strlen(e.param), NQ_QUERY_PARAM_MAX);
    ck_assert_mem_eq(e.param, "??\"abcde", 8);
    /* the detail names it the same way: no raw byte of the request gets into a problem body */
    ck_assert_ptr_nonnull(strstr(e.detail, e.param));
    for (const char *c = e.detail; *c; c++) ck_assert(*c >= 0x20 && *c < 0x7f);
}
END_TEST

START_TEST(test_not_nul_terminated)
{
    /* Only len bytes are read: the '9' past the end must not be seen. */
    const char raw[] = {'n', '=', '8', '9'};
    nq_query q;
    nq_query_error e;
    ck_assert_int_eq(nq_query_parse(raw, 3, SOLVE_KEYS, &q, &e), NQ_OK);
    ck_assert_uint_eq(q.n, 8);
    ck_assert_int_eq(nq_query_parse(NULL, 0, SOLVE_KEYS, &q, &e), NQ_OK);
    ck_assert_uint_eq(q.present, 0);
}
END_TEST

/* Seeds stop at 2^53 - 1, the largest integer every JSON client holds exactly; each edge has its own
 * words. */
START_TEST(test_seed_range)
{
    static const struct {
        const char *raw;
        nq_err rc;
        uint64_t seed;      /* when accepted */
        const char *detail; /* when refused */
    } rows[] = {
        {"seed=0", NQ_OK, 0, NULL},
        {"seed=9007199254740991", NQ_OK, 9007199254740991u, NULL},
        {"seed=9007199254740992", NQ_E_PARAM_INVALID, 0,
         "Parameter 'seed' must be an integer from 0 to 9007199254740991 (2^53 - 1)."},
        {"seed=18446744073709551615", NQ_E_PARAM_INVALID, 0,
         "Parameter 'seed' must be an integer from 0 to 9007199254740991 (2^53 - 1)."},
        {"seed=18446744073709551616", NQ_E_PARAM_INVALID, 0,
         "Parameter 'seed' overflows: it must be an integer below 2^64 (18446744073709551616), from 0 to "
         "9007199254740991 (2^53 - 1)."},
        {"seed=-1", NQ_E_PARAM_INVALID, 0,
         "Parameter 'seed' must be an integer written in plain decimal digits, from 0 to 9007199254740991 (2^53 - "
         "1)."},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        nq_query q;
        nq_query_error e;
        const nq_err rc = nq_query_parse(rows[i].raw, strlen(rows[i].raw), NQ_QK_SEED, &q, &e);
        ck_assert_msg(rc == rows[i].rc, "%s", rows[i].raw);
        if (rc == NQ_OK) {
            ck_assert(q.present & NQ_QK_SEED);
            ck_assert_uint_eq(q.seed, rows[i].seed);
        } else {
            ck_assert_str_eq(e.param, "seed");
            ck_assert_str_eq(e.detail, rows[i].detail);
        }
    }
}
END_TEST

START_TEST(test_require)
{
    nq_query q;
    nq_query_error e;
    ck_assert_int_eq(nq_query_parse("limit=2", 7, SOLVE_KEYS, &q, &e), NQ_OK);
    ck_assert_int_eq(nq_query_require(&q, NQ_QK_N, &e), NQ_E_PARAM_MISSING);
    ck_assert_str_eq(e.param, "n");
    ck_assert_int_eq(nq_query_require(&q, NQ_QK_LIMIT, &e), NQ_OK);
    ck_assert_str_eq(nq_query_key_name(NQ_QK_AFTER), "after");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("query");
    TCase *tc = tcase_create("parse");
    tcase_add_loop_test(tc, test_accepted, 0, (int)(sizeof accepted / sizeof accepted[0]));
    tcase_add_loop_test(tc, test_rejected, 0, (int)(sizeof rejected / sizeof rejected[0]));
    tcase_add_test(tc, test_param_name_is_sanitized);
    tcase_add_test(tc, test_not_nul_terminated);
    tcase_add_test(tc, test_seed_range);
    tcase_add_test(tc, test_require);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
