/* test_prefer.c - the Prefer header (RFC 7240) as /count reads it: one row per header value. */
#include <check.h>
#include <stdlib.h>

#include "core/prefer.h"
#include "check_run.h"

static const struct {
    const char *value; /* the header, NULL: absent */
    bool async;        /* respond-async seen */
    bool has_wait;     /* a valid wait */
    uint64_t wait_s;   /* its seconds */
} rows[] = {
    {NULL, false, false, 0},
    {"", false, false, 0},
    {"respond-async", true, false, 0},
    {"Respond-Async", true, false, 0},
    {"wait=10", false, true, 10},
    {"WAIT=0", false, true, 0},
    {"respond-async, wait=100", true, true, 100},
    {" wait = 5 ; foo=bar , respond-async ", true, true, 5},
    {"wait=\"7\"", false, true, 7},
    {"wait=10, wait=20", false, true, 10}, /* the first counts */
    {"wait=abc", false, false, 0},         /* ignored, not an error */
    {"wait=-1", false, false, 0},
    {"wait=", false, false, 0},
    {"wait", false, false, 0},
    {"wait=99999999999999999999", false, true, UINT32_MAX}, /* saturated */
    {"respond-async=1", false, false, 0},                   /* takes no value */
    {"return=minimal, handling=strict", false, false, 0},
    {"respond-asyncx", false, false, 0},
    {"waiting=5", false, false, 0},
};

START_TEST(prefer_rows)
{
    nq_prefer p;
    nq_prefer_parse(rows[_i].value, &p);
    ck_assert_msg(p.respond_async == rows[_i].async, "row %d async", _i);
    ck_assert_msg(p.has_wait == rows[_i].has_wait, "row %d has_wait", _i);
    if (p.has_wait) ck_assert_uint_eq(p.wait_s, rows[_i].wait_s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("prefer");
    TCase *tc = tcase_create("rows");
    tcase_add_loop_test(tc, prefer_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
