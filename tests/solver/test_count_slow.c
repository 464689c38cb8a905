/* test_count_slow.c - the long counts (label "slow": CI may skip them): n = 17 and 18 through
 * nq_count on every CPU, and the backtracking counter's own n = 16 and 17, against OEIS. */
#include "nqueens/solver.h"

#include <check.h>
#include <stdlib.h>

#include "check_run.h"
#include "count_bt.h"
#include "count_cases.h"

static const struct {
    int n;       /* board */
    int threads; /* 0: one per CPU */
    int direct;  /* 1: call the backtracking counter rather than the dispatcher */
} slow_cases[] = {{17, 0, 0}, {18, 0, 0}, {16, 1, 1}, {17, 2, 1}};

START_TEST(slow_counts_match_oeis)
{
    const int n = slow_cases[_i].n;
    nq_counts got = {0, 0};
    const nq_err err = slow_cases[_i].direct ? nq_count_backtrack(n, slow_cases[_i].threads, NULL, &got)
                                             : nq_count(n, slow_cases[_i].threads, NULL, &got);
    ck_assert_int_eq(err, NQ_OK);
    ck_assert_uint_eq(got.total, known_counts[n].total);
    ck_assert_uint_eq(got.unique, known_counts[n].unique);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("count_slow");
    TCase *tc = tcase_create("oeis");
    tcase_set_timeout(tc, 1800); /* minutes on a loaded 2-core machine; the ctest timeout is the same */
    tcase_add_loop_test(tc, slow_counts_match_oeis, 0, (int)(sizeof slow_cases / sizeof slow_cases[0]));
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
