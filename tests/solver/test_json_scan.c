/* test_json_scan.c - table-driven Check tests of the strict JSON scan (include/nqueens/json_scan.h):
 * each fault and the byte it names, texts it must let through, and that the bound on nesting is
 * exact. */
#include "nqueens/json_scan.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

#define TEXT(s) (s), sizeof(s) - 1 /* a literal with its length: some hold a NUL */

static const struct {
    const char *text;
    size_t len;
    nq_json_fault fault;
    size_t at; /* the byte named, for a fault */
} cases[] = {
    {TEXT("{\"n\":8,\"columns\":[0,null,-1.5e+3,\"a\\u00e9\\n\"]}"), NQ_JSON_FAULT_NONE, 0},
    {TEXT("  [ true , false , null ]\r\n\t"), NQ_JSON_FAULT_NONE, 0},
    {TEXT("\"\\\"]]]]]]]]]\""), NQ_JSON_FAULT_NONE, 0}, /* brackets in a string are text */
    {TEXT("[0,10,-0,0.5,1E9,2e-3]"), NQ_JSON_FAULT_NONE, 0},
    {TEXT("[[[[1]]]]"), NQ_JSON_FAULT_DEEP, 3},
    {TEXT("{\"a\":[{\"b\":[1]}]}"), NQ_JSON_FAULT_DEEP, 11},
    {TEXT("[1,\f2]"), NQ_JSON_FAULT_CONTROL, 3},
    {TEXT("[1]\0"), NQ_JSON_FAULT_CONTROL, 3},
    {TEXT("[\"a\tb\"]"), NQ_JSON_FAULT_STRING_CONTROL, 3},
    {TEXT("[\"a\0b\"]"), NQ_JSON_FAULT_STRING_CONTROL, 3},
    {TEXT("[\"a\\xb\"]"), NQ_JSON_FAULT_ESCAPE, 3},
    {TEXT("[\"a\\u12g4\"]"), NQ_JSON_FAULT_ESCAPE, 3},
    {TEXT("[\"a\\u12"), NQ_JSON_FAULT_ESCAPE, 3},
    {TEXT("[\"a\\"), NQ_JSON_FAULT_ESCAPE, 3},
    {TEXT("[\"a\\u0000\"]"), NQ_JSON_FAULT_NUL, 3},
    {TEXT("[1,04]"), NQ_JSON_FAULT_NUMBER, 3},
    {TEXT("[1,4.]"), NQ_JSON_FAULT_NUMBER, 3},
    {TEXT("[1,-]"), NQ_JSON_FAULT_NUMBER, 3},
    {TEXT("[1,-a]"), NQ_JSON_FAULT_NUMBER, 3},
    {TEXT("[1,1e]"), NQ_JSON_FAULT_NUMBER, 3},
    {TEXT("[1,1e+]"), NQ_JSON_FAULT_NUMBER, 3},
    {TEXT("[1,.5]"), NQ_JSON_FAULT_NONE, 0}, /* '.' is not a number's start: left to the parser */
};

START_TEST(test_cases)
{
    size_t at = 12345;
    const nq_json_fault f = nq_json_scan(cases[_i].text, cases[_i].len, 3, &at);
    ck_assert_msg(f == cases[_i].fault, "case %d: fault %d, not %d", _i, f, cases[_i].fault);
    ck_assert_uint_eq(at, f == NQ_JSON_FAULT_NONE ? 12345 : cases[_i].at);
}
END_TEST

/* depth_max levels are let through, one more is not; a closing bracket lowers the depth again. */
START_TEST(test_depth_exact)
{
    ck_assert_int_eq(nq_json_scan(TEXT("[[[]]]"), 3, NULL), NQ_JSON_FAULT_NONE);
    ck_assert_int_eq(nq_json_scan(TEXT("[[[[]]]]"), 3, NULL), NQ_JSON_FAULT_DEEP);
    ck_assert_int_eq(nq_json_scan(TEXT("[[[]],[[]],[[]]]"), 3, NULL), NQ_JSON_FAULT_NONE);
    ck_assert_int_eq(nq_json_scan(TEXT("]]]][[[]]]"), 3, NULL), NQ_JSON_FAULT_NONE); /* no depth below 0 */
    ck_assert_int_eq(nq_json_scan(TEXT("{}"), 0, NULL), NQ_JSON_FAULT_DEEP);
    ck_assert_int_eq(nq_json_scan("", 0, 0, NULL), NQ_JSON_FAULT_NONE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json_scan");
    TCase *tc = tcase_create("scan");
    tcase_add_loop_test(tc, test_cases, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, test_depth_exact);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
