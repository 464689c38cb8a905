/* test_parse.c - table-driven Check tests of the strict integer parser (include/nqueens/parse.h). */
#include "nqueens/parse.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

/* One input, the bound it is read against and the outcome; value only matters when rc is NQ_OK. */
typedef struct parse_row {
    const char *s;
    uint64_t max;
    nq_err rc;
    uint64_t value;
} parse_row;

static const parse_row rows[] = {
    /* accepted */
    {"0", UINT64_MAX, NQ_OK, 0},
    {"7", UINT64_MAX, NQ_OK, 7},
    {"42", UINT64_MAX, NQ_OK, 42},
    {"007", UINT64_MAX, NQ_OK, 7},
    {"00000000000000000000", UINT64_MAX, NQ_OK, 0},  /* 20 digits: still a number */
    {"000000000000000000008", UINT64_MAX, NQ_OK, 8}, /* 21 digits: the value counts, not the text */
    {"000000000000000000000000000000000000000018446744073709551615", UINT64_MAX, NQ_OK, UINT64_MAX},
    {"0000000000000000000000000000000000000000", 0, NQ_OK, 0},
    {"18446744073709551615", UINT64_MAX, NQ_OK, UINT64_MAX},
    {"65535", 65535, NQ_OK, 65535},
    {"5", 5, NQ_OK, 5},
    {"0", 0, NQ_OK, 0},
    /* above max, or beyond 64 bits: overflow */
    {"18446744073709551616", UINT64_MAX, NQ_E_OVERFLOW, 0},
    {"99999999999999999999", UINT64_MAX, NQ_E_OVERFLOW, 0},
    {"99999999999999999999999", UINT64_MAX, NQ_E_OVERFLOW, 0},
    {"000000000000000000018446744073709551616", UINT64_MAX, NQ_E_OVERFLOW, 0},
    {"100000000000000000000", UINT64_MAX, NQ_E_OVERFLOW, 0}, /* 21 digits */
    {"65536", 65535, NQ_E_OVERFLOW, 0},
    {"7", 5, NQ_E_OVERFLOW, 0}, /* one digit above max */
    {"1", 0, NQ_E_OVERFLOW, 0},
    {"33", 32, NQ_E_OVERFLOW, 0},
    /* malformed */
    {"", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"-1", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"+1", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {" 1", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"1 ", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"\t1", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"0x10", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"1e3", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"1.0", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"1,000", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"4x", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"64K", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"x", UINT64_MAX, NQ_E_PARAM_INVALID, 0},
    {"\xd9\xa3", UINT64_MAX, NQ_E_PARAM_INVALID, 0},                 /* ARABIC-INDIC DIGIT THREE */
    {"\xef\xbc\x93", UINT64_MAX, NQ_E_PARAM_INVALID, 0},             /* FULLWIDTH DIGIT THREE */
    {"99999999999999999999999x", UINT64_MAX, NQ_E_PARAM_INVALID, 0}, /* malformed beats long */
    {"-99999999999999999999999", 5, NQ_E_PARAM_INVALID, 0},
};

START_TEST(test_table)
{
    const parse_row *r = &rows[_i];
    uint64_t v = 12345;
    const nq_err rc = nq_parse_u64(r->s, strlen(r->s), r->max, &v);
    ck_assert_msg(rc == r->rc, "'%s' (max %llu): got %s, want %s", r->s, (unsigned long long)r->max, nq_err_name(rc),
                  nq_err_name(r->rc));
    ck_assert_uint_eq(v, rc == NQ_OK ? r->value : 12345); /* untouched on error */
}
END_TEST

/* Length-delimited: the bytes after len are never read, so a query value needs no NUL. */
START_TEST(test_length_delimited)
{
    uint64_t v = 0;
    ck_assert_int_eq(nq_parse_u64("123&n=4", 3, UINT64_MAX, &v), NQ_OK);
    ck_assert_uint_eq(v, 123);
    ck_assert_int_eq(nq_parse_u64("12x", 2, UINT64_MAX, &v), NQ_OK);
    ck_assert_uint_eq(v, 12);
    const char digits[3] = {'9', '8', '7'}; /* no NUL anywhere */
    ck_assert_int_eq(nq_parse_u64(digits, sizeof digits, UINT64_MAX, &v), NQ_OK);
    ck_assert_uint_eq(v, 987);
    ck_assert_int_eq(nq_parse_u64("1\0002", 3, UINT64_MAX, &v), NQ_E_PARAM_INVALID);
}
END_TEST

START_TEST(test_arguments)
{
    uint64_t v = 0;
    ck_assert_int_eq(nq_parse_u64(NULL, 0, UINT64_MAX, &v), NQ_E_ARG);
    ck_assert_int_eq(nq_parse_u64("1", 1, UINT64_MAX, NULL), NQ_E_ARG);
    ck_assert_str_eq(nq_err_name(NQ_E_OVERFLOW), "E_OVERFLOW");
}
END_TEST

/* Where the digits of "64M" end, so a suffix can be read after them. */
typedef struct digits_row {
    const char *s;
    size_t len;
} digits_row;

static const digits_row digit_rows[] = {
    {"", 0}, {"K", 0}, {"64K", 2}, {"8", 1}, {"0x1", 1}, {"123456", 6}, {" 1", 0}, {"-1", 0},
};

START_TEST(test_digits_len)
{
    const digits_row *r = &digit_rows[_i];
    ck_assert_uint_eq(nq_parse_digits_len(r->s, strlen(r->s)), r->len);
    ck_assert_uint_eq(nq_parse_digits_len("123", 2), 2);
    ck_assert_uint_eq(nq_parse_digits_len(NULL, 5), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("parse");
    TCase *tc = tcase_create("u64");
    tcase_add_loop_test(tc, test_table, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, test_length_delimited);
    tcase_add_test(tc, test_arguments);
    tcase_add_loop_test(tc, test_digits_len, 0, (int)(sizeof digit_rows / sizeof digit_rows[0]));
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
