/* test_complete.c - Check suite for completion (complete.h): the first solution containing given
 * queens and their number, against a reference search written here.
 *
 * The reference is deliberately naive: a recursive search over rows that checks each candidate
 * against every queen on the board (the givens included) pair by pair, with no masks. It is run on
 * every placement of up to two queens on boards up to 8 (attacking and same-row pairs included) and
 * on random placements up to 12; the first completion must also be the first solution the library's
 * enumerator (the order of /solve) yields whose rows agree with the givens.
 */
#include "nqueens/complete.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

/* ---- the reference ---------------------------------------------------------------------------- */

typedef struct ref {
    int n;
    const nq_square *g; /* the givens */
    size_t count;
    const uint32_t *blocked; /* NULL, or a mask of blocked squares per row */
    int cols[NQ_N_MAX];      /* the branch */
    bool stop_at_first;      /* stop at the first solution */
    uint64_t found;          /* solutions seen */
    int first[NQ_N_MAX];
} ref;

static bool attacks(int r1, int c1, int r2, int c2)
{
    return r1 == r2 || c1 == c2 || r1 - c1 == r2 - c2 || r1 + c1 == r2 + c2;
}

static int given_col(const ref *x, int r)
{
    for (size_t i = 0; i < x->count; i++)
        if ((int)x->g[i].row == r) return (int)x->g[i].col;
    return -1;
}

/* (r, c) is blocked, clashes with a queen above it or with a given queen of another row, or leaves
 * out a given queen of row r. */
static bool allowed(const ref *x, int r, int c)
{
    if (x->blocked && (x->blocked[r] >> c & 1u)) return false;
    for (int i = 0; i < r; i++)
        if (attacks(i, x->cols[i], r, c)) return false;
    for (size_t i = 0; i < x->count; i++) {
        const int gr = (int)x->g[i].row, gc = (int)x->g[i].col;
        if (gr == r ? gc != c : attacks(gr, gc, r, c)) return false;
    }
    return true;
}

static void ref_search(ref *x, int r)
{
    if (x->stop_at_first && x->found) return;
    if (r == x->n) {
        if (x->found++ == 0) memcpy(x->first, x->cols, sizeof x->cols);
        return;
    }
    const int gc = given_col(x, r);
    for (int c = gc >= 0 ? gc : 0; c < (gc >= 0 ? gc + 1 : x->n); c++) {
        if (!allowed(x, r, c)) continue;
        x->cols[r] = c;
        ref_search(x, r + 1);
    }
}

/* Givens that attack each other (or share a row) have no completion: the reference's row-by-row
 * walk would not notice two givens in one row that never meet, so it is told here, pair by pair. */
static bool ref_consistent(const nq_square *g, size_t count)
{
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count; j++)
            if (attacks((int)g[i].row, (int)g[i].col, (int)g[j].row, (int)g[j].col)) return false;
    return true;
}

static ref run_ref_blocked(int n, const nq_square *g, size_t count, const uint32_t *blocked, bool first)
{
    ref x;
    memset(&x, 0, sizeof x);
    x.n = n, x.g = g, x.count = count, x.blocked = blocked, x.stop_at_first = first;
    if (ref_consistent(g, count)) ref_search(&x, 0);
    return x;
}

static ref run_ref(int n, const nq_square *g, size_t count, bool first)
{
    return run_ref_blocked(n, g, count, NULL, first);
}

/* ---- comparing -------------------------------------------------------------------------------- */

/* The first solution of the enumerator whose rows agree with the givens (found = false when none). */
static bool first_by_enumeration(int n, const nq_square *g, size_t count, uint8_t *out)
{
    nq_iter *it = NULL;
    ck_assert_int_eq(nq_iter_create(n, 0, &it), NQ_OK);
    uint8_t cols[NQ_N_MAX];
    size_t got = 0;
    bool found = false;
    while (!found && nq_iter_next(it, cols, 1, &got) == NQ_OK && got == 1) {
        found = true;
        for (size_t i = 0; i < count && found; i++) found = cols[g[i].row] == g[i].col;
    }
    if (found) memcpy(out, cols, (size_t)n);
    nq_iter_destroy(it);
    return found;
}

static void compare(int n, const nq_square *g, size_t count, bool with_enumeration)
{
    const ref want = run_ref(n, g, count, false);
    uint8_t cols[NQ_N_MAX];
    bool found = true;
    ck_assert_int_eq(nq_complete_first(n, g, count, NULL, cols, &found), NQ_OK);
    ck_assert_msg(found == (want.found > 0), "n=%d, %zu givens: found %d, reference %llu", n, count, found,
                  (unsigned long long)want.found);
    for (int r = 0; found && r < n; r++) ck_assert_int_eq(cols[r], want.first[r]);
    if (n <= NQ_COUNT_N_MAX) {
        uint64_t total = 0;
        ck_assert_int_eq(nq_complete_count(n, g, count, 1, NULL, &total), NQ_OK);
        ck_assert_uint_eq(total, want.found);
        ck_assert_int_eq(nq_complete_count(n, g, count, 3, NULL, &total), NQ_OK); /* shared out */
        ck_assert_uint_eq(total, want.found);
    }
    if (with_enumeration) {
        uint8_t e[NQ_N_MAX];
        ck_assert_int_eq(first_by_enumeration(n, g, count, e), found);
        if (found) ck_assert_mem_eq(e, cols, (size_t)n);
    }
    ck_assert_int_eq(nq_complete_consistent(n, g, count), ref_consistent(g, count));
}

/* Every placement of zero, one and two queens on the board of size _i. */
START_TEST(up_to_two_queens)
{
    const int n = _i;
    compare(n, NULL, 0, true);
    for (int a = 0; a < n * n; a++) {
        nq_square g[2] = {{(uint32_t)(a / n), (uint32_t)(a % n)}, {0, 0}};
        compare(n, g, 1, true);
        for (int b = a + 1; b < n * n; b++) {
            g[1] = (nq_square){(uint32_t)(b / n), (uint32_t)(b % n)};
            compare(n, g, 2, n <= 6);
            nq_square swapped[2] = {g[1], g[0]}; /* any order */
            compare(n, swapped, 2, false);
        }
    }
}
END_TEST

/* Random placements: a few queens each, any squares (so some attack, some share a row). */
START_TEST(random_placements)
{
    const int n = _i;
    unsigned seed = 12345u + (unsigned)n;
    for (int trial = 0; trial < 300; trial++) {
        nq_square g[6] = {{0, 0}};
        const size_t want = (size_t)(rand_r(&seed) % 6) + 1;
        size_t m = 0;
        while (m < want) { /* distinct squares, as a placement has them */
            const nq_square q = {(uint32_t)(rand_r(&seed) % n), (uint32_t)(rand_r(&seed) % n)};
            bool dup = false;
            for (size_t j = 0; j < m; j++) dup = dup || (g[j].row == q.row && g[j].col == q.col);
            if (!dup) g[m++] = q;
        }
        compare(n, g, m, n <= 9);
    }
}
END_TEST

/* Blocked n-Queens: two published 4 x 4 examples (the first solution avoiding the blocked squares
 * is [2,0,3,1] and [1,3,0,2]), a given queen on a blocked square, and bits beyond the board. */
START_TEST(blocked_examples)
{
    uint8_t cols[NQ_N_MAX];
    bool found = false;
    const uint32_t a[4] = {1u << 0, 1u << 1, 0, 1u << 2}; /* (0,0) (1,1) (3,2) */
    ck_assert_int_eq(nq_complete_first_blocked(4, NULL, 0, a, NULL, cols, &found), NQ_OK);
    ck_assert(found);
    ck_assert_mem_eq(cols, ((const uint8_t[]){2, 0, 3, 1}), 4);
    const uint32_t b[4] = {0, (1u << 0) | (1u << 1), 0, 1u << 1}; /* (1,0) (1,1) (3,1) */
    ck_assert_int_eq(nq_complete_first_blocked(4, NULL, 0, b, NULL, cols, &found), NQ_OK);
    ck_assert(found);
    ck_assert_mem_eq(cols, ((const uint8_t[]){1, 3, 0, 2}), 4);
    const nq_square on_block = {1, 1};
    ck_assert_int_eq(nq_complete_first_blocked(4, &on_block, 1, a, NULL, cols, &found), NQ_OK);
    ck_assert(!found);
    const uint32_t high[4] = {~0u << 4, ~0u << 4, ~0u << 4, ~0u << 4}; /* nothing on the board */
    ck_assert_int_eq(nq_complete_first_blocked(4, NULL, 0, high, NULL, cols, &found), NQ_OK);
    ck_assert(found);
    ck_assert_mem_eq(cols, ((const uint8_t[]){1, 3, 0, 2}), 4);
    const uint32_t one[4] = {1u << 1, 0, 0, 0}; /* (0,1): only [2,0,3,1] is left */
    ck_assert_int_eq(nq_complete_first_blocked(4, NULL, 0, one, NULL, cols, &found), NQ_OK);
    ck_assert(found);
    ck_assert_mem_eq(cols, ((const uint8_t[]){2, 0, 3, 1}), 4);
    const uint32_t column[4] = {1u << 1, 1u << 1, 1u << 1, 1u << 1}; /* a whole column: no solution */
    ck_assert_int_eq(nq_complete_first_blocked(4, NULL, 0, column, NULL, cols, &found), NQ_OK);
    ck_assert(!found);
    const uint32_t all[4] = {0xF, 0, 0, 0}; /* row 0 fully blocked */
    ck_assert_int_eq(nq_complete_first_blocked(4, NULL, 0, all, NULL, cols, &found), NQ_OK);
    ck_assert(!found);
}
END_TEST

/* Random blocked squares (0 to 40 % of the board) and up to two givens, against the reference. */
START_TEST(blocked_random)
{
    const int n = _i;
    unsigned seed = 777u + (unsigned)n;
    for (int trial = 0; trial < 200; trial++) {
        uint32_t blocked[NQ_N_MAX] = {0};
        const int percent = trial % 41;
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++)
                if ((unsigned)rand_r(&seed) % 100u < (unsigned)percent) blocked[r] |= 1u << c;
        nq_square g[2] = {{0, 0}, {0, 0}};
        const size_t count = (size_t)(trial % 3);
        for (size_t i = 0; i < count; i++)
            g[i] = (nq_square){(uint32_t)(rand_r(&seed) % n), (uint32_t)(rand_r(&seed) % n)};
        if (count == 2 && g[0].row == g[1].row && g[0].col == g[1].col) g[1].col = (g[1].col + 1) % (uint32_t)n;
        const ref want = run_ref_blocked(n, g, count, blocked, true);
        uint8_t cols[NQ_N_MAX];
        bool found = false;
        ck_assert_int_eq(nq_complete_first_blocked(n, g, count, blocked, NULL, cols, &found), NQ_OK);
        ck_assert_msg(found == (want.found > 0), "n=%d trial %d: found %d", n, trial, found);
        for (int r = 0; found && r < n; r++) ck_assert_int_eq(cols[r], want.first[r]);
    }
}
END_TEST

/* A whole solution given: it is its own only completion; no hint row is left. */
START_TEST(full_solution_given)
{
    static const uint8_t sol[8] = {0, 4, 7, 5, 2, 6, 1, 3};
    nq_square g[8];
    for (uint32_t r = 0; r < 8; r++) g[r] = (nq_square){r, sol[r]};
    uint8_t cols[8];
    bool found = false;
    ck_assert_int_eq(nq_complete_first(8, g, 8, NULL, cols, &found), NQ_OK);
    ck_assert(found);
    ck_assert_mem_eq(cols, sol, 8);
    uint64_t total = 0;
    ck_assert_int_eq(nq_complete_count(8, g, 8, 1, NULL, &total), NQ_OK);
    ck_assert_uint_eq(total, 1);
}
END_TEST

/* Crafted partial boards without a completion, each for a known reason. */
static const struct {
    int n;
    size_t count;
    nq_square g[4];
    bool consistent; /* the givens themselves do not attack each other */
} unsolvable[] = {
    {8, 3, {{0, 0}, {3, 2}, {5, 6}}, true}, /* every square of row 4 is attacked */
    {8, 3, {{0, 0}, {3, 6}, {5, 2}}, true}, /* the same, mirrored in time */
    {8, 2, {{0, 0}, {1, 2}}, true},         /* no dead row, yet no solution holds both */
    {4, 1, {{0, 0}}, true},                 /* no 4-queens solution uses a corner */
    {8, 2, {{2, 3}, {5, 6}}, false},        /* one diagonal */
    {8, 2, {{1, 4}, {4, 1}}, false},        /* one anti-diagonal */
    {8, 2, {{0, 5}, {7, 5}}, false},        /* one column */
    {8, 2, {{3, 0}, {3, 7}}, false},        /* one row: never completable */
    {2, 0, {{0, 0}}, true},                 /* no solution at all */
    {3, 0, {{0, 0}}, true},
};

START_TEST(crafted_unsolvable)
{
    const int n = unsolvable[_i].n;
    const nq_square *g = unsolvable[_i].g;
    const size_t count = unsolvable[_i].count;
    ck_assert_uint_eq(run_ref(n, g, count, true).found, 0);
    ck_assert_int_eq(nq_complete_consistent(n, g, count), unsolvable[_i].consistent);
    uint8_t cols[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    bool found = true;
    ck_assert_int_eq(nq_complete_first(n, g, count, NULL, cols, &found), NQ_OK);
    ck_assert(!found);
    ck_assert_uint_eq(cols[0], 9); /* untouched */
    uint64_t total = 7;
    ck_assert_int_eq(nq_complete_count(n, g, count, 1, NULL, &total), NQ_OK);
    ck_assert_uint_eq(total, 0);
}
END_TEST

/* The contract's example, and boards beyond what the reference can walk: n = 32 with givens. */
START_TEST(large_boards)
{
    const nq_square g8[1] = {{0, 0}};
    uint8_t cols[NQ_N_MAX];
    bool found = false;
    uint64_t total = 0;
    ck_assert_int_eq(nq_complete_first(8, g8, 1, NULL, cols, &found), NQ_OK);
    ck_assert(found);
    ck_assert_mem_eq(cols, ((const uint8_t[]){0, 4, 7, 5, 2, 6, 1, 3}), 8);
    ck_assert_int_eq(nq_complete_count(8, g8, 1, 1, NULL, &total), NQ_OK);
    ck_assert_uint_eq(total, 4);
    ck_assert_int_eq(nq_complete_count(10, NULL, 0, 1, NULL, &total), NQ_OK); /* nq_count's */
    ck_assert_uint_eq(total, 724);
    const nq_square g32[3] = {{31, 1}, {0, 30}, {16, 15}};
    ck_assert_int_eq(nq_complete_first(32, g32, 3, NULL, cols, &found), NQ_OK);
    ck_assert(found);
    ck_assert_int_eq(nq_check(32, cols), NQ_OK);
    for (size_t i = 0; i < 3; i++) ck_assert_uint_eq(cols[g32[i].row], g32[i].col);
}
END_TEST

START_TEST(arguments)
{
    uint8_t cols[NQ_N_MAX];
    bool found = false;
    uint64_t total = 0;
    const nq_square off[1] = {{8, 0}};
    ck_assert_int_eq(nq_complete_first(8, NULL, 1, NULL, cols, &found), NQ_E_ARG);
    ck_assert_int_eq(nq_complete_first(8, NULL, 0, NULL, NULL, &found), NQ_E_ARG);
    ck_assert_int_eq(nq_complete_first(8, NULL, 0, NULL, cols, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_complete_first(0, NULL, 0, NULL, cols, &found), NQ_E_RANGE);
    ck_assert_int_eq(nq_complete_first(33, NULL, 0, NULL, cols, &found), NQ_E_RANGE);
    ck_assert_int_eq(nq_complete_first(8, off, 1, NULL, cols, &found), NQ_E_RANGE);
    ck_assert_int_eq(nq_complete_count(8, off, 1, 1, NULL, &total), NQ_E_RANGE);
    ck_assert_int_eq(nq_complete_count(28, NULL, 0, 1, NULL, &total), NQ_E_RANGE);
    ck_assert_int_eq(nq_complete_count(8, NULL, 0, -1, NULL, &total), NQ_E_ARG);
    ck_assert_int_eq(nq_complete_count(8, NULL, 0, 1, NULL, NULL), NQ_E_ARG);
}
END_TEST

/* A cancelled control stops a long count, and the progress of a finished one is 1. */
START_TEST(cancel_and_progress)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    const nq_square g[1] = {{8, 3}};
    uint64_t total = 0;
    ck_assert_int_eq(nq_complete_count(12, g, 1, 1, &ctl, &total), NQ_OK);
    ck_assert(nq_count_progress(&ctl) == 1.0);
    nq_count_ctl_init(&ctl);
    nq_count_cancel(&ctl);
    ck_assert_int_eq(nq_complete_count(16, g, 1, 1, &ctl, &total), NQ_E_CANCELED);
    ck_assert_int_eq(nq_complete_count(16, g, 1, 2, &ctl, &total), NQ_E_CANCELED);
    nq_count_ctl_init(&ctl);
    ck_assert_int_eq(nq_complete_count(12, g, 1, 2, &ctl, &total), NQ_OK);
    ck_assert(nq_count_progress(&ctl) == 1.0);
    nq_count_cancel(&ctl);
    uint8_t cols[NQ_N_MAX];
    bool found = true;
    const nq_square hard[2] = {{0, 0}, {1, 2}}; /* n = 20: a long way to the first completion */
    ck_assert_int_eq(nq_complete_first(20, hard, 2, &ctl, cols, &found), NQ_E_CANCELED);
    ck_assert(!found);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("complete");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, up_to_two_queens, 1, 9);
    tcase_add_loop_test(tc, random_placements, 4, 13);
    tcase_add_test(tc, full_solution_given);
    tcase_add_test(tc, blocked_examples);
    tcase_add_loop_test(tc, blocked_random, 4, 11);
    tcase_add_loop_test(tc, crafted_unsolvable, 0, (int)(sizeof unsolvable / sizeof unsolvable[0]));
    tcase_add_test(tc, large_boards);
    tcase_add_test(tc, arguments);
    tcase_add_test(tc, cancel_and_progress);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
