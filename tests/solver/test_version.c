/* test_version.c - Check tests of the library's version (include/nqueens/version.h): nq_version(), the
 * version of the library linked, is NQ_VERSION_STRING, and the three numbers say the same. */
#include "nqueens/version.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "check_run.h"

/* The numbers are plain integers, usable in #if: this fails to compile otherwise. */
#if !(NQ_VERSION_MAJOR >= 0 && NQ_VERSION_MINOR >= 0 && NQ_VERSION_PATCH >= 0)
#error "NQ_VERSION_MAJOR, _MINOR and _PATCH must be non-negative integers"
#endif

/* The library was built from these headers, so what it reports is what they say. */
START_TEST(test_library_is_headers)
{
    const char *v = nq_version();
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v, NQ_VERSION_STRING);
}
END_TEST

/* The string is the numbers joined by dots. */
START_TEST(test_numbers_make_string)
{
    char buf[64];
    const int len = snprintf(buf, sizeof buf, "%d.%d.%d", NQ_VERSION_MAJOR, NQ_VERSION_MINOR, NQ_VERSION_PATCH);
    ck_assert(len > 0 && (size_t)len < sizeof buf);
    ck_assert_str_eq(buf, NQ_VERSION_STRING);
}
END_TEST

/* Read back, the library's string is exactly three decimal numbers, each one the macro of its place. */
static const struct {
    const char *name; /* the macro, for the message */
    long value;       /* its value */
    char after;       /* the character that must follow the number */
} parts[] = {
    {"NQ_VERSION_MAJOR", NQ_VERSION_MAJOR, '.'},
    {"NQ_VERSION_MINOR", NQ_VERSION_MINOR, '.'},
    {"NQ_VERSION_PATCH", NQ_VERSION_PATCH, '\0'},
};

START_TEST(test_string_reads_as_numbers)
{
    const char *p = nq_version();
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        ck_assert_msg(*p >= '0' && *p <= '9', "'%s': no digit where %s starts", nq_version(), parts[i].name);
        char *end = NULL;
        errno = 0;
        const long got = strtol(p, &end, 10);
        ck_assert_int_eq(errno, 0);
        ck_assert_msg(got == parts[i].value, "'%s': %s is %ld, the string says %ld", nq_version(), parts[i].name,
                      parts[i].value, got);
        ck_assert_msg(*end == parts[i].after, "'%s': after %s comes \"%s\"", nq_version(), parts[i].name, end);
        p = end + 1;
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("version");
    TCase *tc = tcase_create("version");
    tcase_add_test(tc, test_library_is_headers);
    tcase_add_test(tc, test_numbers_make_string);
    tcase_add_test(tc, test_string_reads_as_numbers);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
