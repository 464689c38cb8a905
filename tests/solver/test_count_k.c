/* test_count_k.c - Check suite for k queens (kqueens.h): every k of every n up to 7 against a brute
 * force written here, k = n against OEIS A000170 / A002562, and the closed forms of k = 1 and 2.
 *
 * The brute force walks the squares in row-major order choosing each or not (skipping squares a chosen
 * queen attacks), so it visits every placement of non-attacking queens once; unique is counted as
 * the placements that are the smallest of their 8 images, a board being a bit set of n*n <= 49 bits.
 */
#include "nqueens/kqueens.h"

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

#define BRUTE_N_MAX 7

typedef struct brute {
    int n;
    uint64_t total[BRUTE_N_MAX + 1];  /* by k */
    uint64_t unique[BRUTE_N_MAX + 1]; /* by k */
    int qr[BRUTE_N_MAX * BRUTE_N_MAX], qc[BRUTE_N_MAX * BRUTE_N_MAX];
} brute;

/* Square (r, c) after symmetry g of the 8 (g & 1: transpose first; g >> 1: quarter turns). */
static void image(int n, int g, int r, int c, int *ro, int *co)
{
    if (g & 1) {
        const int t = r;
        r = c, c = t;
    }
    for (int i = 0; i < g >> 1; i++) {
        const int t = r;
        r = c, c = n - 1 - t;
    }
    *ro = r, *co = c;
}

static uint64_t board_of(const brute *b, int k, int g)
{
    uint64_t m = 0;
    for (int i = 0; i < k; i++) {
        int r, c;
        image(b->n, g, b->qr[i], b->qc[i], &r, &c);
        m |= UINT64_C(1) << (r * b->n + c);
    }
    return m;
}

static bool attacks(int r1, int c1, int r2, int c2)
{
    return r1 == r2 || c1 == c2 || r1 - c1 == r2 - c2 || r1 + c1 == r2 + c2;
}

static void walk(brute *b, int sq, int k)
{
    const int n = b->n;
    if (sq == n * n) {
        b->total[k]++;
        const uint64_t me = board_of(b, k, 0);
        bool smallest = true;
        for (int g = 1; g < 8 && smallest; g++) smallest = board_of(b, k, g) >= me;
        b->unique[k] += smallest ? 1u : 0u;
        return;
    }
    walk(b, sq + 1, k); /* without a queen here */
    const int r = sq / n, c = sq % n;
    for (int i = 0; i < k; i++)
        if (attacks(b->qr[i], b->qc[i], r, c)) return;
    b->qr[k] = r, b->qc[k] = c;
    walk(b, sq + 1, k + 1);
}

START_TEST(against_brute_force)
{
    const int n = _i;
    brute *b = calloc(1, sizeof *b);
    b->n = n;
    walk(b, 0, 0);
    for (int k = 0; k <= n; k++) {
        nq_counts c = {0, 0};
        ck_assert_int_eq(nq_count_k(n, k, 1, NULL, &c), NQ_OK);
        ck_assert_msg(c.total == b->total[k] && c.unique == b->unique[k], "n=%d k=%d: %llu/%llu, brute force %llu/%llu",
                      n, k, (unsigned long long)c.total, (unsigned long long)c.unique, (unsigned long long)b->total[k],
                      (unsigned long long)b->unique[k]);
    }
    free(b);
}
END_TEST

/* OEIS A000170 and A002562, n = 1..12. */
static const uint64_t a000170[] = {0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200};
static const uint64_t a002562[] = {0, 1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787};

START_TEST(k_equals_n)
{
    const int n = _i;
    nq_counts c;
    ck_assert_int_eq(nq_count_k(n, n, 1, NULL, &c), NQ_OK);
    ck_assert_uint_eq(c.total, a000170[n]);
    ck_assert_uint_eq(c.unique, a002562[n]);
}
END_TEST

START_TEST(closed_forms)
{
    const uint64_t n = (uint64_t)_i;
    nq_counts c;
    ck_assert_int_eq(nq_count_k((int)n, 0, 1, NULL, &c), NQ_OK);
    ck_assert_uint_eq(c.total, 1);
    ck_assert_uint_eq(c.unique, 1);
    ck_assert_int_eq(nq_count_k((int)n, 1, 1, NULL, &c), NQ_OK);
    ck_assert_uint_eq(c.total, n * n);
    if (n >= 2) {
        ck_assert_int_eq(nq_count_k((int)n, 2, 1, NULL, &c), NQ_OK);
        ck_assert_uint_eq(c.total, n * (n - 1) * (n - 2) * (3 * n - 1) / 6);
    }
}
END_TEST

START_TEST(arguments_and_cancel)
{
    nq_counts c;
    ck_assert_int_eq(nq_count_k(0, 0, 1, NULL, &c), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_k(NQ_COUNT_N_MAX + 1, 1, 1, NULL, &c), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_k(5, 6, 1, NULL, &c), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_k(5, -1, 1, NULL, &c), NQ_E_RANGE);
    ck_assert_int_eq(nq_count_k(5, 2, -1, NULL, &c), NQ_E_ARG);
    ck_assert_int_eq(nq_count_k(5, 2, 1, NULL, NULL), NQ_E_ARG);
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    ck_assert_int_eq(nq_count_k(9, 5, 1, &ctl, &c), NQ_OK);
    ck_assert(nq_count_progress(&ctl) == 1.0);
    nq_count_cancel(&ctl);
    ck_assert_int_eq(nq_count_k(14, 7, 1, &ctl, &c), NQ_E_CANCELED);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("count_k");
    TCase *tc = tcase_create("k");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, against_brute_force, 1, BRUTE_N_MAX + 1);
    tcase_add_loop_test(tc, k_equals_n, 1, 13);
    tcase_add_loop_test(tc, closed_forms, 1, 13);
    tcase_add_test(tc, arguments_and_cancel);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
