/* test_solution.c - Check suite for solutions of any size (solution.h) and the generator behind them.
 *
 * Every board is checked by board_oracle.h, the tests' own checker, never by the library. Fixed
 * vectors pin the construction's boards, the generator's published outputs and a few seeded boards,
 * so a change of algorithm or generator shows up as a failing row, not as a silently different board.
 * Three selections: fast (the default), threads (cancellation and progress from another thread, for
 * TSan) and slow (the construction sampled up to 10^8, larger random boards).
 */
#include "nqueens/solution.h"

#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board_oracle.h"
#include "check_run.h"
#include "prng.h"

/* ---- the generator ---------------------------------------------------------------------------- */

/* splitmix64 from 1234567 (the reference code's test values) and xoshiro256** from state 1, 2, 3, 4. */
START_TEST(prng_reference_outputs)
{
    static const uint64_t splitmix[] = {UINT64_C(6457827717110365317), UINT64_C(3203168211198807973),
                                        UINT64_C(9817491932198370423), UINT64_C(4593380528125082431),
                                        UINT64_C(16408922859458223821)};
    uint64_t x = 1234567;
    for (size_t i = 0; i < sizeof splitmix / sizeof splitmix[0]; i++) ck_assert_uint_eq(nq_splitmix64(&x), splitmix[i]);
    static const uint64_t xoshiro[] = {11520, 0, 1509978240, UINT64_C(1215971899390074240)};
    nq_prng g = {{1, 2, 3, 4}};
    for (size_t i = 0; i < sizeof xoshiro / sizeof xoshiro[0]; i++) ck_assert_uint_eq(nq_prng_next(&g), xoshiro[i]);
}
END_TEST

/* Bounded draws stay in range and hit every value of a small range. */
START_TEST(prng_below_in_range)
{
    nq_prng g;
    nq_prng_seed(&g, 99);
    unsigned seen[7] = {0};
    unsigned outside = 0; /* counted, asserted once: a Check assertion costs a write to its log */
    for (int i = 0; i < 7000; i++) {
        const uint32_t v = nq_prng_below(&g, 7);
        if (v < 7)
            seen[v]++;
        else
            outside++;
        outside += nq_prng_below(&g, 1) != 0;
        outside += nq_prng_below(&g, UINT32_MAX) == UINT32_MAX;
    }
    ck_assert_uint_eq(outside, 0);
    for (int v = 0; v < 7; v++) ck_assert_uint_gt(seen[v], 800); /* about 1000 each */
}
END_TEST

/* ---- the construction ------------------------------------------------------------------------- */

static const struct {
    uint32_t n;        /* board */
    uint32_t cols[16]; /* the construction's board */
} construct_rows[] = {
    {1, {0}},
    {4, {1, 3, 0, 2}},
    {5, {1, 3, 0, 2, 4}},
    {6, {1, 3, 5, 0, 2, 4}},
    {7, {1, 3, 5, 0, 2, 4, 6}},
    {8, {1, 3, 5, 7, 2, 0, 6, 4}},
    {9, {3, 5, 7, 1, 4, 6, 8, 0, 2}},
    {14, {1, 3, 5, 7, 9, 11, 13, 2, 0, 6, 8, 10, 12, 4}},
    {15, {3, 5, 7, 9, 11, 13, 1, 4, 6, 8, 10, 12, 14, 0, 2}},
};

START_TEST(construct_exact_boards)
{
    const uint32_t n = construct_rows[_i].n;
    nq_construct c;
    uint32_t cols[16];
    ck_assert_int_eq(nq_construct_init(&c, n), NQ_OK);
    ck_assert_int_eq(nq_construct_rows(&c, 0, n, cols), NQ_OK);
    for (uint32_t r = 0; r < n; r++) {
        ck_assert_uint_eq(cols[r], construct_rows[_i].cols[r]);
        ck_assert_uint_eq(nq_construct_column(&c, r), construct_rows[_i].cols[r]);
    }
}
END_TEST

START_TEST(construct_none_for_2_and_3)
{
    nq_construct c;
    ck_assert_int_eq(nq_construct_init(&c, 2), NQ_NO_SOLUTION);
    ck_assert_int_eq(nq_construct_init(&c, 3), NQ_NO_SOLUTION);
    ck_assert_int_eq(nq_construct_init(&c, 0), NQ_E_RANGE);
    ck_assert_int_eq(nq_construct_init(&c, (uint64_t)NQ_SOLUTION_N_MAX + 1), NQ_E_RANGE);
    ck_assert_int_eq(nq_construct_init(NULL, 8), NQ_E_ARG);
    ck_assert_int_eq(nq_construct_init(&c, NQ_SOLUTION_N_MAX), NQ_OK);
    static const struct {
        uint64_t n;
        bool exists;
    } exists[] = {{0, false},
                  {1, true},
                  {2, false},
                  {3, false},
                  {4, true},
                  {NQ_SOLUTION_N_MAX, true},
                  {(uint64_t)NQ_SOLUTION_N_MAX + 1, false}};
    for (size_t i = 0; i < sizeof exists / sizeof exists[0]; i++)
        ck_assert_msg(nq_solution_exists(exists[i].n) == exists[i].exists, "n=%llu", (unsigned long long)exists[i].n);
}
END_TEST

START_TEST(construct_rows_arguments)
{
    nq_construct c;
    uint32_t cols[8];
    ck_assert_int_eq(nq_construct_init(&c, 8), NQ_OK);
    ck_assert_int_eq(nq_construct_rows(&c, 0, 9, cols), NQ_E_ARG);
    ck_assert_int_eq(nq_construct_rows(&c, 9, 0, cols), NQ_E_ARG);
    ck_assert_int_eq(nq_construct_rows(&c, UINT32_MAX, 2, cols), NQ_E_ARG); /* first + count wraps */
    ck_assert_int_eq(nq_construct_rows(&c, 0, 1, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_construct_rows(NULL, 0, 1, cols), NQ_E_ARG);
    ck_assert_int_eq(nq_construct_rows(&c, 8, 0, NULL), NQ_OK);
    ck_assert_int_eq(nq_construct_rows(&c, 5, 3, cols), NQ_OK); /* a block from the middle */
    ck_assert_uint_eq(cols[0], 0);
    ck_assert_uint_eq(cols[1], 6);
    ck_assert_uint_eq(cols[2], 4);
}
END_TEST

/* Every n from 1 to 20,000 (n = 2, 3 have none), in blocks of a size that splits runs unevenly;
 * the per-row function and the runs agree with the blocks up to n = 2,000. */
START_TEST(construct_every_n_to_20000)
{
    uint32_t *cols = malloc(20000 * sizeof *cols);
    ck_assert_ptr_nonnull(cols);
    for (uint32_t n = 1; n <= 20000; n++) {
        nq_construct c;
        const nq_err err = nq_construct_init(&c, n);
        if (n == 2 || n == 3) {
            ck_assert_int_eq(err, NQ_NO_SOLUTION);
            continue;
        }
        ck_assert_int_eq(err, NQ_OK);
        int bad = 0;
        for (uint32_t first = 0; first < n; first += 777) {
            const uint32_t count = n - first < 777 ? n - first : 777;
            bad += nq_construct_rows(&c, first, count, cols + first) != NQ_OK;
        }
        ck_assert_int_eq(bad, 0);
        ck_assert_msg(oracle_is_solution(n, cols), "construction n=%u", n);
        uint32_t differ = 0; /* counted, asserted once: a Check assertion costs a write to its log */
        for (uint32_t r = 0; r < n && n <= 2000; r++) differ += nq_construct_column(&c, r) != cols[r];
        ck_assert_msg(differ == 0, "n=%u: %u rows differ", n, differ);
        uint32_t runs = 0; /* the runs, walked from row 0 and from a row inside one, give the same rows */
        for (uint32_t r = n <= 2000 ? 0 : n; r < n; runs++) {
            uint32_t col = 0, mid = 0;
            const uint32_t len = nq_construct_run(&c, r, &col);
            for (uint32_t i = 0; i < len; i++) differ += col + 2 * i != cols[r + i];
            differ += nq_construct_run(&c, r + len / 2, &mid) != len - len / 2 || mid != cols[r + len / 2];
            r += len;
        }
        ck_assert_msg(differ == 0 && runs <= 5, "n=%u: %u rows differ in %u runs", n, differ, runs);
    }
    free(cols);
}
END_TEST

/* Streams the construction of n through the oracle in blocks; spot-checks the per-row function. */
static void check_construct_streamed(uint64_t n)
{
    enum { BLOCK = 1 << 16 };
    static uint32_t block[BLOCK];
    nq_construct c;
    oracle o;
    ck_assert_int_eq(nq_construct_init(&c, n), NQ_OK);
    ck_assert(oracle_init(&o, n));
    for (uint32_t first = 0; first < n; first += BLOCK) {
        const uint32_t count = n - first < BLOCK ? (uint32_t)(n - first) : BLOCK;
        ck_assert_int_eq(nq_construct_rows(&c, first, count, block), NQ_OK);
        ck_assert_uint_eq(nq_construct_column(&c, first + count - 1), block[count - 1]);
        oracle_feed(&o, block, count);
    }
    ck_assert_msg(oracle_finish(&o), "construction n=%llu", (unsigned long long)n);
}

/* Every residue mod 6 around 10^5 and 10^6 (fast), 10^7 and 10^8 (slow). */
static const uint64_t sample_bases[] = {100000, 1000000, 10000000, 100000000};

START_TEST(construct_samples_fast)
{
    for (uint64_t k = 0; k < 6; k++) check_construct_streamed(sample_bases[_i] + k);
}
END_TEST

START_TEST(construct_largest_rows)
{
    nq_construct c;
    ck_assert_int_eq(nq_construct_init(&c, NQ_SOLUTION_N_MAX), NQ_OK); /* 10^9 = 4 mod 6 */
    ck_assert_uint_eq(nq_construct_column(&c, 0), 1);
    ck_assert_uint_eq(nq_construct_column(&c, NQ_SOLUTION_N_MAX / 2 - 1), NQ_SOLUTION_N_MAX - 1);
    ck_assert_uint_eq(nq_construct_column(&c, NQ_SOLUTION_N_MAX / 2), 0);
    ck_assert_uint_eq(nq_construct_column(&c, NQ_SOLUTION_N_MAX - 1), NQ_SOLUTION_N_MAX - 2);
}
END_TEST

/* ---- the random solution ---------------------------------------------------------------------- */

static uint32_t *random_board(uint64_t n, uint64_t seed)
{
    uint32_t *cols = malloc(n * sizeof *cols);
    ck_assert_ptr_nonnull(cols);
    ck_assert_int_eq(nq_random_solution(n, seed, NULL, cols), NQ_OK);
    ck_assert_msg(oracle_is_solution(n, cols), "random n=%llu seed=%llu", (unsigned long long)n,
                  (unsigned long long)seed);
    return cols;
}

/* n = 4..160 (both methods and the boundary between them) with 12 seeds each; equal seeds give equal
 * boards; from n = 12 on, the 12 seeds give 12 different boards. */
START_TEST(random_valid_equal_different)
{
    for (uint32_t n = 4; n <= 160; n++) {
        uint32_t *boards[12];
        for (uint64_t seed = 0; seed < 12; seed++) boards[seed] = random_board(n, seed * UINT64_C(0x9e3779b97f4a7c15));
        uint32_t *again = random_board(n, 5 * UINT64_C(0x9e3779b97f4a7c15));
        ck_assert_msg(memcmp(again, boards[5], n * sizeof *again) == 0, "n=%u not reproducible", n);
        free(again);
        for (int a = 0; a < 12 && n >= 12; a++)
            for (int b = a + 1; b < 12; b++)
                ck_assert_msg(memcmp(boards[a], boards[b], n * sizeof *boards[a]) != 0, "n=%u seeds %d %d", n, a, b);
        for (int s = 0; s < 12; s++) free(boards[s]);
    }
}
END_TEST

START_TEST(random_larger_boards)
{
    static const uint64_t ns[] = {1000, 4096, 10007, 65536, 200000};
    for (uint64_t seed = 0; seed < 3; seed++) free(random_board(ns[_i], seed));
}
END_TEST

/* Fixed vectors: the exact boards of a few (n, seed), and a fingerprint of a larger one. A change here
 * changes what every /solution?method=random&seed=... permalink returns. */
static const struct {
    uint32_t n;
    uint64_t seed;
    uint32_t cols[40];
} random_rows[] = {
    {4, 0, {2, 0, 3, 1}},
    {8, 1, {5, 2, 4, 6, 0, 3, 1, 7}},
    {12, 42, {1, 6, 9, 11, 8, 4, 0, 3, 10, 7, 5, 2}},
    {32, 7, {22, 31, 0,  7, 25, 30, 11, 21, 8,  24, 4,  23, 19, 26, 13, 5,
             9,  20, 28, 2, 6,  3,  1,  15, 12, 16, 27, 29, 17, 14, 10, 18}},
    {40, UINT64_MAX, {22, 30, 21, 37, 24, 32, 27, 6,  16, 10, 4,  25, 14, 28, 7,  0,  13, 26, 31, 11,
                      38, 33, 3,  19, 8,  2,  12, 34, 18, 39, 17, 36, 23, 15, 29, 35, 9,  20, 1,  5}},
};

START_TEST(random_fixed_vectors)
{
    uint32_t *cols = random_board(random_rows[_i].n, random_rows[_i].seed);
    for (uint32_t r = 0; r < random_rows[_i].n; r++)
        ck_assert_msg(cols[r] == random_rows[_i].cols[r], "n=%u seed=%llu row %u: %u", random_rows[_i].n,
                      (unsigned long long)random_rows[_i].seed, r, cols[r]);
    free(cols);
}
END_TEST

static const struct {
    uint64_t n, seed, fnv;
} random_hashes[] = {
    {1000, 1, UINT64_C(3230869879199841597)},
    {100000, 12345, UINT64_C(1424134018534494385)},
};

START_TEST(random_fixed_hashes)
{
    uint32_t *cols = random_board(random_hashes[_i].n, random_hashes[_i].seed);
    const uint64_t h = oracle_fnv1a(cols, random_hashes[_i].n);
    ck_assert_msg(h == random_hashes[_i].fnv, "n=%llu: fnv %llu", (unsigned long long)random_hashes[_i].n,
                  (unsigned long long)h);
    free(cols);
}
END_TEST

START_TEST(random_arguments)
{
    uint32_t cols[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    ck_assert_int_eq(nq_random_solution(2, 0, NULL, cols), NQ_NO_SOLUTION);
    ck_assert_int_eq(nq_random_solution(3, 0, NULL, cols), NQ_NO_SOLUTION);
    ck_assert_uint_eq(cols[0], 9); /* untouched */
    ck_assert_int_eq(nq_random_solution(0, 0, NULL, cols), NQ_E_RANGE);
    ck_assert_int_eq(nq_random_solution((uint64_t)NQ_SOLUTION_N_MAX + 1, 0, NULL, cols), NQ_E_RANGE);
    ck_assert_int_eq(nq_random_solution(8, 0, NULL, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_random_solution(1, 0, NULL, cols), NQ_OK);
    ck_assert_uint_eq(cols[0], 0);
    ck_assert_uint_eq(nq_random_memory(3), 0);
    ck_assert_uint_eq(nq_random_memory(8), 0); /* backtracking: no heap */
    ck_assert_uint_ge(nq_random_memory(1000000), 4000000);
    ck_assert_uint_le(nq_random_memory(1000000), 6000000);
}
END_TEST

START_TEST(random_progress_reaches_one)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    uint32_t *cols = malloc(50000 * sizeof *cols);
    ck_assert_ptr_nonnull(cols);
    ck_assert_int_eq(nq_random_solution(50000, 3, &ctl, cols), NQ_OK);
    ck_assert(nq_count_progress(&ctl) == 1.0);
    ck_assert(oracle_is_solution(50000, cols));
    nq_count_ctl_init(&ctl);
    ck_assert_int_eq(nq_random_solution(12, 3, &ctl, cols), NQ_OK); /* the small-board path too */
    ck_assert(nq_count_progress(&ctl) == 1.0);
    free(cols);
}
END_TEST

START_TEST(random_cancel_before)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_count_cancel(&ctl);
    uint32_t *cols = malloc(1000000 * sizeof *cols);
    ck_assert_ptr_nonnull(cols);
    ck_assert_int_eq(nq_random_solution(1000000, 1, &ctl, cols), NQ_E_CANCELED);
    free(cols);
}
END_TEST

typedef struct bg_random {
    nq_count_ctl ctl; /* shared */
    uint32_t *cols;   /* the board */
    nq_err err;       /* the search's answer */
} bg_random;

/* The board of the cancelled search: 2 s or more of search on any machine, so that the cancel, sent
 * as soon as progress shows, always finds it running. */
#define CANCEL_N 10000000u

static void *run_random(void *arg)
{
    bg_random *bg = arg;
    bg->err = nq_random_solution(CANCEL_N, 11, &bg->ctl, bg->cols);
    return NULL;
}

/* Cancelled once progress shows: the search has published progress before it could finish. */
START_TEST(random_cancel_midway)
{
    bg_random bg = {.cols = malloc(CANCEL_N * sizeof(uint32_t))};
    ck_assert_ptr_nonnull(bg.cols);
    nq_count_ctl_init(&bg.ctl);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, run_random, &bg), 0);
    double seen = 0.0;
    while ((seen = nq_count_progress(&bg.ctl)) == 0.0) sched_yield();
    nq_count_cancel(&bg.ctl);
    pthread_join(t, NULL);
    ck_assert(seen > 0.0 && seen < 1.0);
    ck_assert_int_eq(bg.err, NQ_E_CANCELED);
    free(bg.cols);
}
END_TEST

/* ---- slow ------------------------------------------------------------------------------------- */

START_TEST(construct_samples_slow)
{
    for (uint64_t k = 0; k < 6; k++) check_construct_streamed(sample_bases[_i] + k);
}
END_TEST

START_TEST(random_slow_boards)
{
    static const uint64_t ns[] = {1000000, 3000000};
    free(random_board(ns[_i], 2));
}
END_TEST

static Suite *fast_suite(void)
{
    Suite *s = suite_create("solution");
    TCase *tc = tcase_create("generator");
    tcase_add_test(tc, prng_reference_outputs);
    tcase_add_test(tc, prng_below_in_range);
    suite_add_tcase(s, tc);

    tc = tcase_create("construct");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, construct_exact_boards, 0, (int)(sizeof construct_rows / sizeof construct_rows[0]));
    tcase_add_test(tc, construct_none_for_2_and_3);
    tcase_add_test(tc, construct_rows_arguments);
    tcase_add_test(tc, construct_every_n_to_20000);
    tcase_add_loop_test(tc, construct_samples_fast, 0, 2);
    tcase_add_test(tc, construct_largest_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("random");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_valid_equal_different);
    tcase_add_loop_test(tc, random_larger_boards, 0, 5);
    tcase_add_loop_test(tc, random_fixed_vectors, 0, (int)(sizeof random_rows / sizeof random_rows[0]));
    tcase_add_loop_test(tc, random_fixed_hashes, 0, (int)(sizeof random_hashes / sizeof random_hashes[0]));
    tcase_add_test(tc, random_arguments);
    suite_add_tcase(s, tc);
    return s;
}

/* The control block shared with other threads: small enough for TSan (label concurrency). */
static Suite *threads_suite(void)
{
    Suite *s = suite_create("solution_threads");
    TCase *tc = tcase_create("control");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, random_progress_reaches_one);
    tcase_add_test(tc, random_cancel_before);
    tcase_add_test(tc, random_cancel_midway);
    suite_add_tcase(s, tc);
    return s;
}

static Suite *slow_suite(void)
{
    Suite *s = suite_create("solution_slow");
    TCase *tc = tcase_create("large");
    tcase_set_timeout(tc, 1200);
    tcase_add_loop_test(tc, construct_samples_slow, 2, 4);
    tcase_add_loop_test(tc, random_slow_boards, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

/* test_solution [fast|threads|slow]: the selection to run (default fast). */
int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "fast";
    Suite *s = NULL;
    if (strcmp(which, "fast") == 0)
        s = fast_suite();
    else if (strcmp(which, "threads") == 0)
        s = threads_suite();
    else if (strcmp(which, "slow") == 0)
        s = slow_suite();
    if (s == NULL) {
        fprintf(stderr, "usage: test_solution [fast|threads|slow]\n");
        return EXIT_FAILURE;
    }
    const int failed = nq_check_run(s);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
