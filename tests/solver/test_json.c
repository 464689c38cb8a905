/* test_json.c - table-driven Check tests of the JSON renderer (include/nqueens/json.h): exact bytes
 * of solutions, counts and list frames, exact sizes, and that a failed call writes nothing. */
#include "nqueens/json.h"

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

#define BUF 4096
#define FILL 'Z' /* what an untouched buffer holds */

/* Compare a call's result and out[0..len) with want (call first: len is read after it). */
static void expect_text(nq_err rc, const char *out, size_t len, const char *want)
{
    ck_assert_int_eq(rc, NQ_OK);
    ck_assert_uint_eq(len, strlen(want));
    ck_assert_msg(memcmp(out, want, len) == 0, "got %.*s, want %s", (int)len, out, want);
    ck_assert_int_eq(out[len], FILL); /* no NUL, nothing past the piece */
}

/* ---- solutions ---------------------------------------------------------------------------------- */

typedef struct solution_row {
    int n;
    uint8_t cols[NQ_N_MAX];
    nq_json_shape shape;
    const char *want;
} solution_row;

static const solution_row solutions[] = {
    {1, {0}, NQ_JSON_BOARD, "[\"Q\"]"},
    {1, {0}, NQ_JSON_COLUMNS, "[0]"},
    {4, {1, 3, 0, 2}, NQ_JSON_BOARD, "[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"]"},
    {4, {1, 3, 0, 2}, NQ_JSON_COLUMNS, "[1,3,0,2]"},
    {11, {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9}, NQ_JSON_COLUMNS, "[0,2,4,6,8,10,1,3,5,7,9]"},
    {4, {0, 0, 0, 0}, NQ_JSON_COLUMNS, "[0,0,0,0]"}, /* not a solution: still rendered */
    {12, {11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11}, NQ_JSON_COLUMNS, "[11,11,11,11,11,11,11,11,11,11,11,11]"},
};

START_TEST(test_solution_bytes)
{
    const solution_row *r = &solutions[_i];
    char out[BUF];
    size_t len = 0;
    memset(out, FILL, sizeof out);
    const nq_err rc = nq_json_solution(r->n, r->cols, r->shape, out, sizeof out, &len);
    expect_text(rc, out, len, r->want);
}
END_TEST

/* Every n, both shapes: a permutation renders to exactly nq_json_solution_size bytes, within
 * NQ_JSON_SOLUTION_MAX, and one byte less of room is refused without a write. */
START_TEST(test_solution_sizes)
{
    const int n = _i;
    uint8_t cols[NQ_N_MAX];
    for (int r = 0; r < n; r++) cols[r] = (uint8_t)(n - 1 - r);
    for (int shape = NQ_JSON_BOARD; shape <= NQ_JSON_COLUMNS; shape++) {
        char out[BUF];
        size_t len = 0;
        const size_t size = nq_json_solution_size(n, (nq_json_shape)shape);
        ck_assert_uint_le(size, NQ_JSON_SOLUTION_MAX(n));
        ck_assert_int_eq(nq_json_solution(n, cols, (nq_json_shape)shape, out, size, &len), NQ_OK);
        ck_assert_uint_eq(len, size);
        memset(out, FILL, sizeof out);
        len = 7;
        ck_assert_int_eq(nq_json_solution(n, cols, (nq_json_shape)shape, out, size - 1, &len), NQ_E_BUFSIZE);
        ck_assert_uint_eq(len, 7);
        ck_assert_int_eq(out[0], FILL);
    }
}
END_TEST

START_TEST(test_solution_errors)
{
    const uint8_t cols[NQ_N_MAX + 1] = {1, 3, 0, 2};
    char out[BUF];
    size_t len = 0;
    ck_assert_int_eq(nq_json_solution(4, NULL, NQ_JSON_BOARD, out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_solution(4, cols, NQ_JSON_BOARD, NULL, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_solution(4, cols, NQ_JSON_BOARD, out, sizeof out, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_json_solution(4, cols, (nq_json_shape)7, out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_solution(0, cols, NQ_JSON_BOARD, out, sizeof out, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_solution(NQ_N_MAX + 1, cols, NQ_JSON_BOARD, out, sizeof out, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_solution(3, cols, NQ_JSON_COLUMNS, out, sizeof out, &len), NQ_E_CURSOR);
    ck_assert_uint_eq(nq_json_solution_size(0, NQ_JSON_BOARD), 0);
    ck_assert_uint_eq(nq_json_solution_size(4, (nq_json_shape)7), 0);
    ck_assert_uint_eq(nq_json_solution_size(NQ_N_MAX, NQ_JSON_BOARD), NQ_JSON_SOLUTION_MAX(NQ_N_MAX));
}
END_TEST

/* Rows of solutions of any size, streamed one at a time. */
typedef struct row_row {
    uint32_t n, r, col;
    nq_json_shape shape;
    const char *want;
} row_row;

static const row_row rows[] = {
    {4, 0, 1, NQ_JSON_BOARD, "\".Q..\""},
    {4, 3, 2, NQ_JSON_BOARD, ",\"..Q.\""},
    {4, 0, 1, NQ_JSON_COLUMNS, "1"},
    {4, 1, 3, NQ_JSON_COLUMNS, ",3"},
    {1000000, 999999, 999999, NQ_JSON_COLUMNS, ",999999"},
    {4000000000u, 5, 3999999999u, NQ_JSON_COLUMNS, ",3999999999"},
};

START_TEST(test_row_bytes)
{
    const row_row *r = &rows[_i];
    char out[BUF];
    size_t len = 0;
    memset(out, FILL, sizeof out);
    const nq_err rc = nq_json_row(r->n, r->r, r->col, r->shape, out, sizeof out, &len);
    expect_text(rc, out, len, r->want);
}
END_TEST

/* A solution row by row is the same bytes as the solution at once. */
START_TEST(test_rows_make_the_solution)
{
    const uint8_t cols[11] = {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9};
    for (int shape = NQ_JSON_BOARD; shape <= NQ_JSON_COLUMNS; shape++) {
        char whole[BUF], rows_text[BUF];
        size_t len = 0, o = 0, w = 0;
        ck_assert_int_eq(nq_json_solution(11, cols, (nq_json_shape)shape, whole, sizeof whole, &len), NQ_OK);
        rows_text[o++] = '[';
        for (uint32_t r = 0; r < 11; r++) {
            ck_assert_int_eq(nq_json_row(11, r, cols[r], (nq_json_shape)shape, rows_text + o, sizeof rows_text - o, &w),
                             NQ_OK);
            o += w;
        }
        rows_text[o++] = ']';
        ck_assert_uint_eq(o, len);
        ck_assert(memcmp(whole, rows_text, len) == 0);
    }
}
END_TEST

/* Columns of every length, against printf: the edges of each digit count and a spread between. */
START_TEST(test_row_columns_match_printf)
{
    static const uint32_t edges[] = {0u,     9u,        10u,        99u,        100u,        999u,       1000u,
                                     65535u, 99999999u, 100000000u, 999999999u, 1000000000u, 4294967294u};
    char out[16], want[16];
    size_t len = 0;
    for (uint64_t i = 0; i < sizeof edges / sizeof edges[0] + 5000u; i++) {
        const uint32_t col = i < sizeof edges / sizeof edges[0] ? edges[i] : (uint32_t)(i * 2654435761u);
        const uint32_t col_ok = col == UINT32_MAX ? col - 1u : col;
        ck_assert_int_eq(nq_json_row(UINT32_MAX, 1, col_ok, NQ_JSON_COLUMNS, out, sizeof out, &len), NQ_OK);
        const int w = snprintf(want, sizeof want, ",%u", col_ok);
        ck_assert_uint_eq(len, (size_t)w);
        ck_assert(memcmp(out, want, len) == 0);
    }
}
END_TEST

START_TEST(test_row_errors)
{
    char out[BUF];
    size_t len = 9;
    ck_assert_int_eq(nq_json_row(4, 0, 1, NQ_JSON_BOARD, out, 6, &len), NQ_OK);
    ck_assert_int_eq(nq_json_row(4, 1, 1, NQ_JSON_BOARD, out, 6, &len), NQ_E_BUFSIZE); /* the comma too */
    ck_assert_int_eq(nq_json_row(0, 0, 0, NQ_JSON_BOARD, out, sizeof out, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_row(4, 4, 0, NQ_JSON_BOARD, out, sizeof out, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_row(4, 0, 4, NQ_JSON_COLUMNS, out, sizeof out, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_row(4, 0, 0, (nq_json_shape)5, out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_row(4, 0, 0, NQ_JSON_BOARD, NULL, sizeof out, &len), NQ_E_ARG);
    ck_assert_uint_eq(len, 6);
}
END_TEST

/* Many rows at once are the rows one by one, for every cap from nothing to all of it: whole rows
 * only, and the rest follows from where it stopped. */
START_TEST(test_rows_at_once)
{
    const uint32_t cols[11] = {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9};
    const uint32_t wide[6] = {999999, 0, 10, 99, 100000, 123456};
    for (int shape = NQ_JSON_BOARD; shape <= NQ_JSON_COLUMNS; shape++) {
        const bool columns = shape == NQ_JSON_COLUMNS; /* columns of a 10^6 board; an 11 x 11 board */
        const uint32_t n = columns ? 1000000u : 11u;
        const uint32_t *src = columns ? wide : cols;
        const uint32_t count = columns ? 6u : 11u;
        const uint32_t first = columns ? 5u : 0u; /* rows 5..10 (each with its comma); the whole board */
        char want[BUF], got[BUF];
        size_t want_len = 0, w = 0;
        for (uint32_t r = 0; r < count; r++) {
            ck_assert_int_eq(
                nq_json_row(n, first + r, src[r], (nq_json_shape)shape, want + want_len, sizeof want - want_len, &w),
                NQ_OK);
            want_len += w;
        }
        uint32_t done = 0;
        ck_assert_int_eq(nq_json_rows(n, first, src, count, (nq_json_shape)shape, got, 0, &done, &w), NQ_OK);
        ck_assert_uint_eq(done, 0); /* no room: nothing written */
        ck_assert_uint_eq(w, 0);
        for (size_t cap = 1; cap <= want_len; cap++) { /* calls of cap bytes each, one at a time */
            size_t o = 0;
            for (uint32_t r = 0; r < count; r += done, o += w) {
                ck_assert_int_eq(
                    nq_json_rows(n, first + r, src + r, count - r, (nq_json_shape)shape, got + o, cap, &done, &w),
                    NQ_OK);
                if (done > 0) {
                    ck_assert_uint_le(w, cap);
                    continue;
                }
                /* The next row alone is longer than cap: give it room. */
                ck_assert_int_eq(
                    nq_json_rows(n, first + r, src + r, 1, (nq_json_shape)shape, got + o, sizeof got - o, &done, &w),
                    NQ_OK);
                ck_assert_uint_eq(done, 1);
                ck_assert_uint_gt(w, cap);
            }
            ck_assert_uint_eq(o, want_len);
            ck_assert(memcmp(got, want, want_len) == 0);
        }
    }
    /* Row 0 has no comma. */
    char out[BUF];
    size_t len = 0;
    uint32_t done = 0;
    ck_assert_int_eq(nq_json_rows(11, 0, cols, 3, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_OK);
    ck_assert_uint_eq(done, 3);
    ck_assert_uint_eq(len, 5);
    ck_assert(memcmp(out, "0,2,4", 5) == 0);
}
END_TEST

START_TEST(test_rows_errors)
{
    const uint32_t cols[4] = {1, 3, 0, 2};
    const uint32_t bad[3] = {1, 4, 0};
    char out[BUF];
    size_t len = 9;
    uint32_t done = 9;
    ck_assert_int_eq(nq_json_rows(4, 0, cols, 0, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_OK);
    ck_assert_uint_eq(done, 0);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(nq_json_rows(4, 0, bad, 3, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_RANGE);
    ck_assert_uint_eq(done, 0);
    ck_assert_int_eq(nq_json_rows(4, 0, bad, 3, NQ_JSON_BOARD, out, sizeof out, &done, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_rows(4, 2, cols, 3, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_rows(4, 4, cols, 1, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_rows(0, 0, cols, 1, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_rows(4, 0, cols, 4, (nq_json_shape)5, out, sizeof out, &done, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_rows(4, 0, NULL, 4, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_rows(4, 0, cols, 4, NQ_JSON_COLUMNS, NULL, sizeof out, &done, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_rows(4, 0, cols, 4, NQ_JSON_COLUMNS, out, sizeof out, NULL, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_rows(4, 0, cols, 4, NQ_JSON_COLUMNS, out, sizeof out, &done, NULL), NQ_E_ARG);
}
END_TEST

/* A run renders what nq_json_row renders for each of its columns, across every carry and every
 * change of width (9 -> 11, 99 -> 101, ..., 999999998 -> 1000000000), in calls of any size. */
static void check_run(uint32_t n, uint32_t first, uint32_t col, uint32_t count, nq_json_shape shape)
{
    static char want[1 << 16], got[1 << 16];
    size_t want_len = 0, w = 0;
    for (uint32_t i = 0; i < count; i++) {
        ck_assert_int_eq(nq_json_row(n, first + i, col + 2 * i, shape, want + want_len, sizeof want - want_len, &w),
                         NQ_OK);
        want_len += w;
    }
    const size_t caps[] = {1, 2, 3, 7, 11, 15, 16, 17, 31, 64, sizeof got};
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        size_t o = 0;
        uint32_t done = 0;
        for (uint32_t r = 0; r < count; r += done, o += w) {
            const size_t cap = caps[k] < sizeof got - o ? caps[k] : sizeof got - o;
            const bool guarded = o + cap < sizeof got; /* a guard byte just past cap */
            if (guarded) got[o + cap] = FILL;
            ck_assert_int_eq(nq_json_run(n, first + r, col + 2 * r, count - r, shape, got + o, cap, &done, &w), NQ_OK);
            ck_assert_uint_le(w, cap);
            if (guarded) ck_assert_int_eq(got[o + cap], FILL); /* nothing written past cap */
            if (done > 0) continue;
            ck_assert_uint_eq(w, 0); /* the next row alone is longer than cap: give it room */
            ck_assert_int_eq(nq_json_run(n, first + r, col + 2 * r, 1, shape, got + o, sizeof got - o, &done, &w),
                             NQ_OK);
            ck_assert_uint_eq(done, 1);
        }
        ck_assert_uint_eq(o, want_len);
        ck_assert(memcmp(got, want, want_len) == 0);
    }
}

START_TEST(test_run_matches_rows)
{
    check_run(11, 0, 0, 6, NQ_JSON_COLUMNS);    /* row 0: no comma */
    check_run(11, 6, 1, 5, NQ_JSON_COLUMNS);    /* 1, 3, ..., 9 */
    check_run(11, 0, 0, 6, NQ_JSON_BOARD);      /* the board shape, row by row */
    check_run(300, 0, 1, 150, NQ_JSON_COLUMNS); /* 1 .. 299: 9 -> 11 and 99 -> 101 */
    check_run(300, 150, 0, 150, NQ_JSON_COLUMNS);
    for (uint32_t p = 1000u; p <= 1000000000u; p *= 10u) { /* across each width change, both parities */
        check_run(UINT32_MAX, 7, p - 10u, 3000, NQ_JSON_COLUMNS);
        check_run(UINT32_MAX, 7, p - 9u, 3000, NQ_JSON_COLUMNS);
    }
    check_run(UINT32_MAX, 1, UINT32_MAX - 2001u, 1000, NQ_JSON_COLUMNS); /* up to the last column */
    uint32_t done = 0;
    size_t len = 0;
    char out[BUF];
    ck_assert_int_eq(nq_json_run(1000000, 3, 999999, 1, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_OK);
    ck_assert_uint_eq(done, 1);
    ck_assert_uint_eq(len, 7);
    ck_assert(memcmp(out, ",999999", 7) == 0);
}
END_TEST

/* A board's rows from its columns and from its construction are the text of nq_json_row, in calls
 * of any size, crossing the construction's runs (n = 1000: 4 mod 6, two runs; 1004: 2 mod 6, five;
 * 1005: 3 mod 6, five). */
START_TEST(test_board_rows_both_ways)
{
    static const uint32_t ns[] = {1000, 1004, 1005};
    static uint32_t cols[1005];
    static char want[8192], got[8192];
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        const uint32_t n = ns[t];
        nq_construct c;
        ck_assert_int_eq(nq_construct_init(&c, n), NQ_OK);
        ck_assert_int_eq(nq_construct_rows(&c, 0, n, cols), NQ_OK);
        size_t want_len = 0, w = 0;
        for (uint32_t r = 0; r < n; r++) {
            ck_assert_int_eq(nq_json_row(n, r, cols[r], NQ_JSON_COLUMNS, want + want_len, sizeof want - want_len, &w),
                             NQ_OK);
            want_len += w;
        }
        static const size_t caps[] = {5, 17, 100, 2000, sizeof got}; /* 5: ",999" and "1" fit */
        for (int from_cols = 0; from_cols <= 1; from_cols++) {
            for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
                size_t o = 0;
                for (uint32_t r = 0, done = 0; r < n; r += done, o += w) {
                    ck_assert_int_eq(nq_json_board_rows(n, r, from_cols ? cols : NULL, &c, NQ_JSON_COLUMNS, got + o,
                                                        caps[k], &done, &w),
                                     NQ_OK);
                    ck_assert_uint_gt(done, 0); /* every cap here takes a row */
                    ck_assert_uint_le(w, caps[k]);
                }
                ck_assert_uint_eq(o, want_len);
                ck_assert(memcmp(got, want, want_len) == 0);
            }
        }
        uint32_t done = 9;
        size_t len = 9;
        ck_assert_int_eq(nq_json_board_rows(n, n, NULL, &c, NQ_JSON_COLUMNS, got, sizeof got, &done, &len), NQ_E_RANGE);
        ck_assert_uint_eq(done, 0);
        ck_assert_uint_eq(len, 0);
        ck_assert_int_eq(nq_json_board_rows(n + 1, 0, NULL, &c, NQ_JSON_COLUMNS, got, sizeof got, &done, &len),
                         NQ_E_RANGE); /* c is another board's */
        ck_assert_int_eq(nq_json_board_rows(n, 0, NULL, NULL, NQ_JSON_COLUMNS, got, sizeof got, &done, &len), NQ_E_ARG);
        ck_assert_int_eq(nq_json_board_rows(n, 0, cols, &c, (nq_json_shape)5, got, sizeof got, &done, &len), NQ_E_ARG);
    }
}
END_TEST

START_TEST(test_run_errors)
{
    char out[BUF];
    size_t len = 9;
    uint32_t done = 9;
    ck_assert_int_eq(nq_json_run(8, 0, 1, 0, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_OK);
    ck_assert_uint_eq(done, 0);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(nq_json_run(8, 0, 1, 4, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_OK); /* 1,3,5,7 */
    ck_assert_uint_eq(done, 4);
    ck_assert_int_eq(nq_json_run(8, 0, 1, 5, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_RANGE); /* 9 */
    ck_assert_uint_eq(done, 0);
    ck_assert_uint_eq(len, 0);
    ck_assert_int_eq(nq_json_run(8, 0, 8, 1, NQ_JSON_BOARD, out, sizeof out, &done, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_run(8, 5, 0, 4, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_RANGE); /* row 8 */
    ck_assert_int_eq(nq_json_run(8, 8, 0, 1, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_run(0, 0, 0, 1, NQ_JSON_COLUMNS, out, sizeof out, &done, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_run(UINT32_MAX, 0, UINT32_MAX - 3u, 3, NQ_JSON_COLUMNS, out, sizeof out, &done, &len),
                     NQ_E_RANGE); /* the last column would wrap past 2^32 */
    ck_assert_int_eq(nq_json_run(8, 0, 1, 4, (nq_json_shape)5, out, sizeof out, &done, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_run(8, 0, 1, 4, NQ_JSON_COLUMNS, NULL, sizeof out, &done, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_run(8, 0, 1, 4, NQ_JSON_COLUMNS, out, sizeof out, NULL, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_run(8, 0, 1, 4, NQ_JSON_COLUMNS, out, sizeof out, &done, NULL), NQ_E_ARG);
}
END_TEST

/* ---- counts ------------------------------------------------------------------------------------- */

typedef struct counts_row {
    int n;
    nq_counts counts;
    const char *want;
} counts_row;

static const counts_row counts[] = {
    {1, {1, 1}, "{\"n\":1,\"total\":1,\"unique\":1}"},
    {2, {0, 0}, "{\"n\":2,\"total\":0,\"unique\":0}"},
    {8, {92, 12}, "{\"n\":8,\"total\":92,\"unique\":12}"},
    /* A000170(27) and A002562(27): far beyond 2^53, exact */
    {27,
     {234907967154122528u, 29363495934315694u},
     "{\"n\":27,\"total\":234907967154122528,\"unique\":29363495934315694}"},
    {32, {UINT64_MAX, UINT64_MAX}, "{\"n\":32,\"total\":18446744073709551615,\"unique\":18446744073709551615}"},
    {9, {(1ull << 53) + 1u, 0}, "{\"n\":9,\"total\":9007199254740993,\"unique\":0}"},
};

START_TEST(test_counts_bytes)
{
    const counts_row *r = &counts[_i];
    char out[BUF];
    size_t len = 0;
    memset(out, FILL, sizeof out);
    const nq_err rc = nq_json_counts(r->n, &r->counts, out, sizeof out, &len);
    expect_text(rc, out, len, r->want);
    ck_assert_uint_le(len, NQ_JSON_COUNTS_MAX);
}
END_TEST

START_TEST(test_counts_limits)
{
    const nq_counts most = {UINT64_MAX, UINT64_MAX};
    char out[BUF];
    size_t len = 0;
    ck_assert_int_eq(nq_json_counts(32, &most, out, NQ_JSON_COUNTS_MAX, &len), NQ_OK);
    ck_assert_uint_eq(len, NQ_JSON_COUNTS_MAX); /* the bound is tight */
    memset(out, FILL, sizeof out);
    ck_assert_int_eq(nq_json_counts(32, &most, out, NQ_JSON_COUNTS_MAX - 1, &len), NQ_E_BUFSIZE);
    ck_assert_int_eq(out[0], FILL);
    ck_assert_int_eq(nq_json_counts(8, NULL, out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_counts(0, &most, out, sizeof out, &len), NQ_E_RANGE);
}
END_TEST

/* ---- list frames -------------------------------------------------------------------------------- */

typedef struct head_row {
    int n;
    nq_json_total mode;
    uint64_t value;
    const char *want;
} head_row;

static const head_row heads[] = {
    {4, NQ_JSON_TOTAL_OMIT, 99, "{\"n\":4,\"solutions\":["},
    {4, NQ_JSON_TOTAL_NULL, 99, "{\"n\":4,\"total\":null,\"solutions\":["},
    {4, NQ_JSON_TOTAL_VALUE, 2, "{\"n\":4,\"total\":2,\"solutions\":["},
    {3, NQ_JSON_TOTAL_VALUE, 0, "{\"n\":3,\"total\":0,\"solutions\":["},
    {32, NQ_JSON_TOTAL_VALUE, UINT64_MAX, "{\"n\":32,\"total\":18446744073709551615,\"solutions\":["},
};

START_TEST(test_head_bytes)
{
    const head_row *r = &heads[_i];
    char out[BUF];
    size_t len = 0;
    memset(out, FILL, sizeof out);
    const nq_err rc = nq_json_list_head(r->n, r->mode, r->value, out, sizeof out, &len);
    expect_text(rc, out, len, r->want);
    ck_assert_uint_le(len, NQ_JSON_HEAD_MAX);
}
END_TEST

typedef struct tail_row {
    int n;
    bool more;
    uint8_t next[NQ_N_MAX];
    const char *prefix;
    const char *want;
} tail_row;

static const tail_row tails[] = {
    {4, false, {0}, NULL, "],\"next\":null}"},
    {4, false, {0}, "/solve?n=4&after=", "],\"next\":null}"},
    {4, true, {1, 3, 0, 2}, NULL, "],\"next\":\"1,3,0,2\"}"},
    {4, true, {1, 3, 0, 2}, "", "],\"next\":\"1,3,0,2\"}"},
    {4,
     true,
     {1, 3, 0, 2},
     "/solve?n=4&format=columns&limit=1&after=",
     "],\"next\":\"/solve?n=4&format=columns&limit=1&after=1,3,0,2\"}"},
    {11, true, {0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9}, NULL, "],\"next\":\"0,2,4,6,8,10,1,3,5,7,9\"}"},
};

START_TEST(test_tail_bytes)
{
    const tail_row *r = &tails[_i];
    char out[BUF];
    size_t len = 0;
    memset(out, FILL, sizeof out);
    const nq_err rc = nq_json_list_tail(r->n, r->more ? r->next : NULL, r->prefix, out, sizeof out, &len);
    expect_text(rc, out, len, r->want);
    ck_assert_uint_le(len, NQ_JSON_TAIL_MAX(r->n, r->prefix ? strlen(r->prefix) : 0));
}
END_TEST

START_TEST(test_frame_limits)
{
    char out[BUF];
    size_t len = 0;
    ck_assert_int_eq(nq_json_list_head(32, NQ_JSON_TOTAL_VALUE, UINT64_MAX, out, NQ_JSON_HEAD_MAX, &len), NQ_OK);
    ck_assert_uint_eq(len, NQ_JSON_HEAD_MAX); /* tight */
    ck_assert_int_eq(nq_json_list_head(32, NQ_JSON_TOTAL_VALUE, UINT64_MAX, out, NQ_JSON_HEAD_MAX - 1, &len),
                     NQ_E_BUFSIZE);
    /* the longest cursor: every column two digits */
    uint8_t far[NQ_N_MAX];
    memset(far, NQ_N_MAX - 1, sizeof far);
    const char *const prefix = "/p?after=";
    const size_t most = NQ_JSON_TAIL_MAX(NQ_N_MAX, strlen(prefix));
    ck_assert_int_eq(nq_json_list_tail(NQ_N_MAX, far, prefix, out, most, &len), NQ_OK);
    ck_assert_uint_eq(len, most); /* tight */
    memset(out, FILL, sizeof out);
    ck_assert_int_eq(nq_json_list_tail(NQ_N_MAX, far, prefix, out, most - 1, &len), NQ_E_BUFSIZE);
    ck_assert_int_eq(out[0], FILL);
    ck_assert_int_eq(nq_json_list_tail(4, NULL, NULL, out, 13, &len), NQ_E_BUFSIZE);
}
END_TEST

START_TEST(test_frame_errors)
{
    const uint8_t cols[4] = {1, 3, 0, 4};
    char out[BUF];
    size_t len = 0;
    ck_assert_int_eq(nq_json_list_head(4, (nq_json_total)9, 0, out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_list_head(4, NQ_JSON_TOTAL_NULL, 0, NULL, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_list_head(33, NQ_JSON_TOTAL_NULL, 0, out, sizeof out, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_list_tail(4, cols, NULL, out, sizeof out, &len), NQ_E_CURSOR);
    ck_assert_int_eq(nq_json_list_tail(0, NULL, NULL, out, sizeof out, &len), NQ_E_RANGE);
    ck_assert_int_eq(nq_json_list_tail(4, NULL, "a\"b", out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_list_tail(4, NULL, "a\\b", out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_list_tail(4, NULL, "a\nb", out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_list_tail(4, NULL, "\xc3\xa9", out, sizeof out, &len), NQ_E_ARG);
    ck_assert_int_eq(nq_json_list_tail(4, NULL, NULL, out, sizeof out, NULL), NQ_E_ARG);
}
END_TEST

/* ---- shards --------------------------------------------------------------------------------- */

START_TEST(test_shard_bytes)
{
    const nq_json_shard s = {17, 3, 7, 31, "quad", "1.0.0", 1, 7108, 1742, {13688752, 13688000}};
    char out[BUF];
    size_t len = 0;
    ck_assert_int_eq(nq_json_count_shard(&s, out, sizeof out, &len), NQ_OK);
    const char *want =
        "{\"n\":17,\"shard\":3,\"shards\":7,\"block\":31,\"method\":\"quad\",\"release\":\"1.0.0\",\"plan\":1,"
        "\"tasks\":7108,\"done\":1742,\"total\":13688752,\"burnside\":13688000}";
    ck_assert_uint_eq(len, strlen(want));
    ck_assert_int_eq(memcmp(out, want, len), 0);
}
END_TEST

START_TEST(test_shard_limits)
{
    const char *label = "abcdefghijklmnopqrstuvwxyz.+-_09"; /* NQ_JSON_LABEL_MAX bytes */
    nq_json_shard s = {27,    UINT32_MAX - 1, UINT32_MAX, UINT32_MAX, label,
                       label, UINT32_MAX,     UINT32_MAX, UINT32_MAX, {UINT64_MAX, UINT64_MAX}};
    char out[BUF];
    size_t len = 0;
    ck_assert_uint_eq(strlen(label), NQ_JSON_LABEL_MAX);
    ck_assert_int_eq(nq_json_count_shard(&s, out, NQ_JSON_SHARD_MAX, &len), NQ_OK);
    ck_assert_uint_eq(len, NQ_JSON_SHARD_MAX); /* the bound is tight */
    memset(out, FILL, sizeof out);
    ck_assert_int_eq(nq_json_count_shard(&s, out, NQ_JSON_SHARD_MAX - 1, &len), NQ_E_BUFSIZE);
    ck_assert_int_eq(out[0], FILL);
    const char *bad_labels[] = {"", "1 0", "a\"b", "a\\b", "\xc3\xa9", "abcdefghijklmnopqrstuvwxyz.+-_09X"};
    for (size_t i = 0; i < sizeof bad_labels / sizeof bad_labels[0]; i++) {
        s.release = bad_labels[i];
        ck_assert_int_eq(nq_json_count_shard(&s, out, sizeof out, &len), NQ_E_ARG);
    }
    s.release = NULL;
    ck_assert_int_eq(nq_json_count_shard(&s, out, sizeof out, &len), NQ_E_ARG);
    s.release = "1.0.0";
    ck_assert_int_eq(nq_json_count_shard(NULL, out, sizeof out, &len), NQ_E_ARG);
    s.n = 28;
    ck_assert_int_eq(nq_json_count_shard(&s, out, sizeof out, &len), NQ_E_RANGE);
    s.n = 8;
    s.shard = s.shards;
    ck_assert_int_eq(nq_json_count_shard(&s, out, sizeof out, &len), NQ_E_RANGE);
    s.shard = 0;
    s.shards = 0;
    ck_assert_int_eq(nq_json_count_shard(&s, out, sizeof out, &len), NQ_E_RANGE);
    s.shards = 1;
    s.block = 0;
    ck_assert_int_eq(nq_json_count_shard(&s, out, sizeof out, &len), NQ_E_RANGE);
    s.block = 1;
    s.tasks = 3;
    s.done = 4;
    ck_assert_int_eq(nq_json_count_shard(&s, out, sizeof out, &len), NQ_E_RANGE);
}
END_TEST

/* JSON integers read back: exact up to 2^53 - 1, UINT64_MAX beyond; no fraction, sign or NaN. */
START_TEST(test_uint_exact_only)
{
    uint64_t v = 7;
    ck_assert(nq_json_uint(0.0, &v));
    ck_assert_uint_eq(v, 0);
    ck_assert(nq_json_uint(4.0, &v));
    ck_assert_uint_eq(v, 4);
    ck_assert(nq_json_uint(9007199254740991.0, &v));
    ck_assert_uint_eq(v, UINT64_C(9007199254740991));
    ck_assert_uint_eq(NQ_JSON_INT_MAX, UINT64_C(9007199254740991));
    ck_assert(nq_json_uint(9007199254740992.0, &v)); /* what "9007199254740993" reads as */
    ck_assert_uint_eq(v, UINT64_MAX);
    v = 0;
    ck_assert(nq_json_uint(1e300, &v));
    ck_assert_uint_eq(v, UINT64_MAX);
    v = 7;
    ck_assert(!nq_json_uint(1.5, &v));
    ck_assert(!nq_json_uint(4503599627370495.5, &v)); /* 2^52 - 0.5: a double holds it */
    ck_assert(!nq_json_uint(-1.0, &v));
    ck_assert(!nq_json_uint(NAN, &v));
    ck_assert_uint_eq(v, 7); /* untouched when refused */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("render");
    tcase_add_loop_test(tc, test_solution_bytes, 0, (int)(sizeof solutions / sizeof solutions[0]));
    tcase_add_loop_test(tc, test_solution_sizes, NQ_N_MIN, NQ_N_MAX + 1);
    tcase_add_test(tc, test_solution_errors);
    tcase_add_loop_test(tc, test_row_bytes, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, test_rows_make_the_solution);
    tcase_add_test(tc, test_row_columns_match_printf);
    tcase_add_test(tc, test_row_errors);
    tcase_add_test(tc, test_rows_at_once);
    tcase_add_test(tc, test_rows_errors);
    tcase_add_test(tc, test_run_matches_rows);
    tcase_add_test(tc, test_run_errors);
    tcase_add_test(tc, test_board_rows_both_ways);
    tcase_add_loop_test(tc, test_counts_bytes, 0, (int)(sizeof counts / sizeof counts[0]));
    tcase_add_test(tc, test_counts_limits);
    tcase_add_loop_test(tc, test_head_bytes, 0, (int)(sizeof heads / sizeof heads[0]));
    tcase_add_loop_test(tc, test_tail_bytes, 0, (int)(sizeof tails / sizeof tails[0]));
    tcase_add_test(tc, test_frame_limits);
    tcase_add_test(tc, test_frame_errors);
    tcase_add_test(tc, test_shard_bytes);
    tcase_add_test(tc, test_shard_limits);
    tcase_add_test(tc, test_uint_exact_only);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
