/* test_body_trace.c - unit tests of what /trace knows before it searches (routes/trace_body.h): the
 * table of whole-trace lengths against the library's own trace, and the skip estimate.
 *
 * The table was counted by bench/bench_cost (lengths), by a formula over the boards the search
 * visits; here each n the library can walk in well under a second is walked step by step, and every
 * row up to n = 14 is counted again by that formula (an independent count: masks, not the library).
 */
#include "routes/trace_body.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "check_run.h"
#include "nqueens/trace.h"

#define WALK_N_MAX 12    /* walked through the library's trace (11 million steps at n = 12) */
#define FORMULA_N_MAX 14 /* counted by the formula (27 million boards at n = 14) */

/* Boards of `row` queens and below that the textbook search visits, per number of queens. */
static void visit(int n, int row, uint32_t cols, uint32_t ld, uint32_t rd, uint64_t *nodes)
{
    nodes[row]++;
    if (row == n) return;
    uint32_t free_sq = ((UINT32_C(1) << n) - 1u) & ~(cols | ld | rd);
    while (free_sq) {
        const uint32_t bit = free_sq & (0u - free_sq);
        free_sq ^= bit;
        visit(n, row + 1, cols | bit, (ld | bit) << 1, (rd | bit) >> 1, nodes);
    }
}

/* n * I + (I - 1 + S) + S: a step per column tried, per queen removed, per solution. */
static uint64_t length_by_formula(int n)
{
    uint64_t nodes[NQ_N_MAX + 1] = {0};
    visit(n, 0, 0, 0, 0, nodes);
    uint64_t inner = 0;
    for (int r = 0; r < n; r++) inner += nodes[r];
    return (uint64_t)n * inner + (inner - 1u + nodes[n]) + nodes[n];
}

START_TEST(length_is_the_walk)
{
    const int n = _i;
    nq_trace *t = NULL;
    ck_assert_int_eq(nq_trace_create(n, &t), NQ_OK);
    uint64_t walked = 0;
    ck_assert_int_eq(nq_trace_skip(t, UINT64_MAX, NULL, &walked), NQ_OK);
    ck_assert(nq_trace_done(t));
    nq_trace_destroy(t);
    uint64_t len = 0;
    ck_assert(nq_body_trace_length(n, &len));
    ck_assert_uint_eq(len, walked);
}
END_TEST

START_TEST(length_is_the_formula)
{
    uint64_t len = 0;
    ck_assert(nq_body_trace_length(_i, &len));
    ck_assert_uint_eq(len, length_by_formula(_i));
}
END_TEST

/* Longer for every larger n from 4 on, as the search grows: past the table, a trace is longer than
 * the table's last. */
START_TEST(length_grows_and_ends)
{
    uint64_t prev = 0, len = 0;
    for (int n = 4; n <= NQ_BODY_TRACE_LENGTH_N_MAX; n++) {
        ck_assert(nq_body_trace_length(n, &len));
        ck_assert_uint_gt(len, prev);
        prev = len;
    }
    len = 7;
    ck_assert(!nq_body_trace_length(0, &len));
    ck_assert(!nq_body_trace_length(NQ_BODY_TRACE_LENGTH_N_MAX + 1, &len));
    ck_assert(!nq_body_trace_length(-1, &len));
    ck_assert_uint_eq(len, 7); /* untouched */
}
END_TEST

static const struct {
    uint64_t from;
    uint64_t ms;
} skips[] = {
    {0, 0},
    {1, 1}, /* rounded up */
    {NQ_BODY_TRACE_SKIP_PER_S / 1000u, 1},
    {NQ_BODY_TRACE_SKIP_PER_S / 1000u + 1u, 2},
    {NQ_BODY_TRACE_SKIP_PER_S * 60u, 60000},
    {UINT64_MAX, UINT64_MAX / (NQ_BODY_TRACE_SKIP_PER_S / 1000u) + 1u},
};

START_TEST(skip_estimate)
{
    ck_assert_uint_eq(nq_body_trace_skip_ms(skips[_i].from), skips[_i].ms);
}
END_TEST

/* The largest from within a budget is within it, and one more step is not. */
START_TEST(skip_within)
{
    static const uint64_t budgets[] = {1, 1000, 60000, 86400000};
    for (size_t i = 0; i < sizeof budgets / sizeof budgets[0]; i++) {
        const uint64_t most = nq_body_trace_skip_within(budgets[i]);
        ck_assert_uint_le(nq_body_trace_skip_ms(most), budgets[i]);
        ck_assert_uint_gt(nq_body_trace_skip_ms(most + 1u), budgets[i]);
    }
    ck_assert_uint_eq(nq_body_trace_skip_within(UINT64_MAX), UINT64_MAX);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("body_trace");
    TCase *tc = tcase_create("length");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, length_is_the_walk, 1, WALK_N_MAX + 1);
    tcase_add_loop_test(tc, length_is_the_formula, 1, FORMULA_N_MAX + 1);
    tcase_add_test(tc, length_grows_and_ends);
    suite_add_tcase(s, tc);
    TCase *est = tcase_create("estimate");
    tcase_add_loop_test(est, skip_estimate, 0, (int)(sizeof skips / sizeof skips[0]));
    tcase_add_test(est, skip_within);
    suite_add_tcase(s, est);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
