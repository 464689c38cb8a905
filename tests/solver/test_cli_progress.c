/* test_cli_progress.c - Check tests of the CLI's progress line (src/cli/progress.h): durations and
 * whole lines as exact strings, table-driven, out-of-range inputs and short buffers. */
#include "progress.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

static const struct {
    double seconds;   /* in */
    const char *text; /* out */
} durations[] = {
    {0.0, "0:00"},           {0.99, "0:00"},    {59.9, "0:59"},      {60.0, "1:00"},
    {605.0, "10:05"},        {3599.5, "59:59"}, {3600.0, "1:00:00"}, {86399.0, "23:59:59"},
    {360000.0, "100:00:00"}, {-1.0, "--:--"},   {1e12, "--:--"},
};

START_TEST(test_duration)
{
    char out[NQ_CLI_DURATION_MAX];
    nq_cli_duration(durations[_i].seconds, out, sizeof out);
    ck_assert_str_eq(out, durations[_i].text);
}
END_TEST

START_TEST(test_duration_not_a_number)
{
    char out[NQ_CLI_DURATION_MAX];
    nq_cli_duration(NAN, out, sizeof out);
    ck_assert_str_eq(out, "--:--");
    nq_cli_duration(INFINITY, out, sizeof out);
    ck_assert_str_eq(out, "--:--");
}
END_TEST

/* Shares that are exact in binary, so the expected bar, percentage and estimate are exact too. */
static const struct {
    double fraction, elapsed; /* in */
    const char *line;         /* out */
} lines[] = {
    {0.0, 1.5, "[..............................]   0%  elapsed 0:01  left --:--"},
    {0.25, 10.0, "[#######.......................]  25%  elapsed 0:10  left 0:30"},
    {0.5, 3600.0, "[###############...............]  50%  elapsed 1:00:00  left 1:00:00"},
    {0.75, 90.0, "[######################........]  75%  elapsed 1:30  left 0:30"},
    {0.015625, 64.0, "[..............................]   1%  elapsed 1:04  left 1:07:12"},
    {1.0, 75.0, "[##############################] 100%  elapsed 1:15  left 0:00"},
    {1.5, 75.0, "[##############################] 100%  elapsed 1:15  left 0:00"},  /* clamped */
    {-0.5, 2.0, "[..............................]   0%  elapsed 0:02  left --:--"}, /* clamped */
};

START_TEST(test_line)
{
    char out[NQ_CLI_PROGRESS_MAX];
    nq_cli_progress_line(lines[_i].fraction, lines[_i].elapsed, out, sizeof out);
    ck_assert_str_eq(out, lines[_i].line);
}
END_TEST

START_TEST(test_line_not_a_number)
{
    char out[NQ_CLI_PROGRESS_MAX];
    nq_cli_progress_line(NAN, 2.0, out, sizeof out);
    ck_assert_str_eq(out, "[..............................]   0%  elapsed 0:02  left --:--");
}
END_TEST

/* The longest line there can be fits NQ_CLI_PROGRESS_MAX; a short buffer gets a NUL-terminated start. */
START_TEST(test_line_bounds)
{
    char out[NQ_CLI_PROGRESS_MAX];
    nq_cli_progress_line(1e-12, 359000000.0, out, sizeof out);
    ck_assert_str_eq(out, "[..............................]   0%  elapsed 99722:13:20  left --:--");
    nq_cli_progress_line(0.5, 359000000.0, out, sizeof out);
    ck_assert_uint_lt(strlen(out), NQ_CLI_PROGRESS_MAX);
    char small[8];
    nq_cli_progress_line(0.5, 10.0, small, sizeof small);
    ck_assert_str_eq(small, "[######");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli_progress");
    TCase *tc = tcase_create("progress");
    tcase_add_loop_test(tc, test_duration, 0, (int)(sizeof durations / sizeof durations[0]));
    tcase_add_test(tc, test_duration_not_a_number);
    tcase_add_loop_test(tc, test_line, 0, (int)(sizeof lines / sizeof lines[0]));
    tcase_add_test(tc, test_line_not_a_number);
    tcase_add_test(tc, test_line_bounds);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
