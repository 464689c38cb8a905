/* test_placement.c - Check suite for placements (placement.h): parsers, canonical form, checker.
 *
 * Parsers: a table of inputs with their exact result or their exact error (reason, entry, offset,
 * value). Checker: a brute-force pair lister written here (every pair of queens, O(queens^2)) on
 * random placements of boards up to 12, and crafted worst cases (every queen on one line, past the
 * 255 a byte counter holds, and on a board far larger than the placement) whose counts are known in
 * closed form.
 */
#include "nqueens/placement.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

#define BIG UINT64_MAX /* an overflowed value in an error */

/* ---- parsing ---------------------------------------------------------------------------------- */

typedef enum form { COLUMNS, QUEENS } form;

static nq_err parse(form f, uint32_t n, const char *s, nq_placement **p, nq_placement_error *e)
{
    return f == COLUMNS ? nq_placement_parse_columns(n, s, strlen(s), p, e)
                        : nq_placement_parse_queens(n, s, strlen(s), p, e);
}

/* Parses s and renders its canonical queens form. */
static void check_canonical(form f, uint32_t n, const char *s, const char *want, size_t count)
{
    nq_placement *p = NULL;
    nq_placement_error e;
    ck_assert_msg(parse(f, n, s, &p, &e) == NQ_OK, "'%s' rejected: reason %d entry %llu", s, (int)e.reason,
                  (unsigned long long)e.entry);
    ck_assert_uint_eq(nq_placement_count(p), count);
    ck_assert_uint_eq(nq_placement_n(p), n);
    char text[256];
    size_t len = 0;
    ck_assert_uint_eq(nq_placement_render_size(p), strlen(want) + 1);
    ck_assert_int_eq(nq_placement_render_queens(p, text, sizeof text, &len), NQ_OK);
    ck_assert_str_eq(text, want);
    ck_assert_uint_eq(len, strlen(want));
    nq_placement_destroy(p);
}

static const struct {
    form f;
    uint32_t n;
    const char *text;  /* input */
    const char *canon; /* canonical queens form */
    size_t count;      /* queens */
} good_rows[] = {
    {COLUMNS, 4, "1,3,0,2", "0:1,1:3,2:0,3:2", 4},
    {COLUMNS, 4, "-,-,-,-", "", 0},
    {COLUMNS, 4, "1,-,3,-", "0:1,2:3", 2},
    {COLUMNS, 4, "0,0,0,0", "0:0,1:0,2:0,3:0", 4},
    {COLUMNS, 1, "0", "0:0", 1},
    {COLUMNS, 1, "-", "", 0},
    {COLUMNS, 12, "10,11,0,1,2,3,4,5,6,7,8,9", "0:10,1:11,2:0,3:1,4:2,5:3,6:4,7:5,8:6,9:7,10:8,11:9", 12},
    {QUEENS, 4, "", "", 0},
    {QUEENS, 4, "0:1", "0:1", 1},
    {QUEENS, 4, "3:2,0:1,2:0,1:3", "0:1,1:3,2:0,3:2", 4},
    {QUEENS, 4, "2:3,2:0,0:0", "0:0,2:0,2:3", 3},
    {QUEENS, 1000000000, "999999999:999999999,0:0", "0:0,999999999:999999999", 2},
    {QUEENS, 1000, "10:999,10:0,9:999,0:10", "0:10,9:999,10:0,10:999", 4},
};

START_TEST(parse_good)
{
    check_canonical(good_rows[_i].f, good_rows[_i].n, good_rows[_i].text, good_rows[_i].canon, good_rows[_i].count);
}
END_TEST

static const struct {
    form f;
    uint32_t n;
    const char *text;
    nq_placement_reason reason;
    uint64_t entry; /* entry at fault */
    size_t offset;  /* where it starts */
    uint64_t value; /* ROW_RANGE / COL_RANGE: the value; DUPLICATE: the first entry */
} bad_rows[] = {
    /* columns */
    {COLUMNS, 4, "", NQ_PLACEMENT_EMPTY, 0, 0, 0},
    {COLUMNS, 4, "1,,0,2", NQ_PLACEMENT_EMPTY, 1, 2, 0},
    {COLUMNS, 4, "1,3,0,", NQ_PLACEMENT_EMPTY, 3, 6, 0},
    {COLUMNS, 4, ",1,3,0", NQ_PLACEMENT_EMPTY, 0, 0, 0},
    {COLUMNS, 4, "1,3,0", NQ_PLACEMENT_TOO_FEW, 3, 5, 0},
    {COLUMNS, 4, "1", NQ_PLACEMENT_TOO_FEW, 1, 1, 0},
    {COLUMNS, 4, "1,3,0,2,1", NQ_PLACEMENT_TOO_MANY, 4, 8, 0},
    {COLUMNS, 4, "1,3,0,2,", NQ_PLACEMENT_TOO_MANY, 4, 8, 0},
    {COLUMNS, 4, "1,3,0,4", NQ_PLACEMENT_COL_RANGE, 3, 6, 4},
    {COLUMNS, 4, "1,3,0,99999999999999999999999", NQ_PLACEMENT_COL_RANGE, 3, 6, BIG},
    {COLUMNS, 4, "1,3,0,4294967296", NQ_PLACEMENT_COL_RANGE, 3, 6, 4294967296},
    {COLUMNS, 4, "01,3,0,2", NQ_PLACEMENT_LEADING_ZERO, 0, 0, 0},
    {COLUMNS, 4, "1,00,0,2", NQ_PLACEMENT_LEADING_ZERO, 1, 2, 0},
    {COLUMNS, 4, "+1,3,0,2", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {COLUMNS, 4, " 1,3,0,2", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {COLUMNS, 4, "1 ,3,0,2", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {COLUMNS, 4, "1,0x3,0,2", NQ_PLACEMENT_MALFORMED, 1, 2, 0},
    {COLUMNS, 4, "1,3e0,0,2", NQ_PLACEMENT_MALFORMED, 1, 2, 0},
    {COLUMNS, 4, "1,--,0,2", NQ_PLACEMENT_MALFORMED, 1, 2, 0},
    {COLUMNS, 4, "1,-1,0,2", NQ_PLACEMENT_MALFORMED, 1, 2, 0},
    {COLUMNS, 4, "1,\xd9\xa3,0,2", NQ_PLACEMENT_MALFORMED, 1, 2, 0}, /* ARABIC-INDIC DIGIT THREE */
    {COLUMNS, 4, "1;3;0;2", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {COLUMNS, 4, "1:3,0,2,1", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {COLUMNS, 4, "1,x,5,1", NQ_PLACEMENT_MALFORMED, 1, 2, 0}, /* the first fault, left to right */
    {COLUMNS, 4, "1,5,x,1", NQ_PLACEMENT_COL_RANGE, 1, 2, 5},
    /* queens */
    {QUEENS, 4, ",", NQ_PLACEMENT_EMPTY, 0, 0, 0},
    {QUEENS, 4, "0:0,", NQ_PLACEMENT_EMPTY, 1, 4, 0},
    {QUEENS, 4, "0:0,,1:2", NQ_PLACEMENT_EMPTY, 1, 4, 0},
    {QUEENS, 4, "0", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {QUEENS, 4, "0:", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {QUEENS, 4, ":0", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {QUEENS, 4, "0:0:0", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {QUEENS, 4, "1:1,a:1", NQ_PLACEMENT_MALFORMED, 1, 4, 0},
    {QUEENS, 4, "0:-1", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {QUEENS, 4, "0;1", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {QUEENS, 4, "0:1 ", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {QUEENS, 4, "0-1", NQ_PLACEMENT_MALFORMED, 0, 0, 0},
    {QUEENS, 4, "01:x", NQ_PLACEMENT_MALFORMED, 0, 0, 0}, /* the shape first, then the zeros */
    {QUEENS, 4, "00:1", NQ_PLACEMENT_LEADING_ZERO, 0, 0, 0},
    {QUEENS, 4, "0:01", NQ_PLACEMENT_LEADING_ZERO, 0, 0, 0},
    {QUEENS, 4, "4:0", NQ_PLACEMENT_ROW_RANGE, 0, 0, 4},
    {QUEENS, 4, "0:0,0:4", NQ_PLACEMENT_COL_RANGE, 1, 4, 4},
    {QUEENS, 4, "4:4", NQ_PLACEMENT_ROW_RANGE, 0, 0, 4}, /* the row is looked at first */
    {QUEENS, 4, "0:0,18446744073709551616:0", NQ_PLACEMENT_ROW_RANGE, 1, 4, BIG},
    {QUEENS, 4, "0:0,0:0", NQ_PLACEMENT_DUPLICATE, 1, 0, 0},
    {QUEENS, 4, "3:3,1:2,0:1,1:2", NQ_PLACEMENT_DUPLICATE, 3, 0, 1},
    {QUEENS, 4, "1:1,0:0,1:1,0:0", NQ_PLACEMENT_DUPLICATE, 3, 0, 1}, /* the smallest square: 0:0 */
    {QUEENS, 4, "0:0,0:0,x", NQ_PLACEMENT_MALFORMED, 2, 8, 0},       /* syntax before duplicates */
};

START_TEST(parse_bad)
{
    nq_placement *p = (nq_placement *)&p; /* must stay as it is */
    nq_placement *const before = p;
    nq_placement_error e;
    memset(&e, 0xff, sizeof e);
    const nq_err err = parse(bad_rows[_i].f, bad_rows[_i].n, bad_rows[_i].text, &p, &e);
    ck_assert_msg(err == NQ_E_PLACEMENT, "'%s' accepted", bad_rows[_i].text);
    ck_assert_ptr_eq(p, before);
    ck_assert_msg(e.reason == bad_rows[_i].reason, "'%s': reason %d", bad_rows[_i].text, (int)e.reason);
    ck_assert_msg(e.entry == bad_rows[_i].entry, "'%s': entry %llu", bad_rows[_i].text, (unsigned long long)e.entry);
    ck_assert_uint_eq(e.n, bad_rows[_i].n);
    ck_assert_int_eq(e.form, bad_rows[_i].f == COLUMNS ? NQ_PLACEMENT_FORM_COLUMNS : NQ_PLACEMENT_FORM_QUEENS);
    if (e.reason == NQ_PLACEMENT_DUPLICATE) {
        ck_assert_uint_eq(e.other, bad_rows[_i].value);
    } else {
        ck_assert_msg(e.offset == bad_rows[_i].offset, "'%s': offset %zu", bad_rows[_i].text, e.offset);
    }
    if (e.reason == NQ_PLACEMENT_ROW_RANGE || e.reason == NQ_PLACEMENT_COL_RANGE)
        ck_assert_uint_eq(e.value, bad_rows[_i].value);
}
END_TEST

/* The parsers read len bytes, not up to a NUL; a NUL inside is just a bad byte. */
START_TEST(parse_reads_only_len)
{
    nq_placement *p = NULL;
    nq_placement_error e;
    ck_assert_int_eq(nq_placement_parse_columns(4, "1,3,0,2,9", 7, &p, &e), NQ_OK);
    nq_placement_destroy(p);
    ck_assert_int_eq(nq_placement_parse_queens(4, "0:1,9", 3, &p, &e), NQ_OK);
    ck_assert_uint_eq(nq_placement_count(p), 1);
    nq_placement_destroy(p);
    ck_assert_int_eq(nq_placement_parse_columns(4, "1,3\0,0,2", 8, &p, &e), NQ_E_PLACEMENT);
    ck_assert_int_eq(e.reason, NQ_PLACEMENT_MALFORMED);
    ck_assert_uint_eq(e.entry, 1);
    ck_assert_int_eq(nq_placement_parse_queens(4, "", 0, &p, NULL), NQ_OK); /* perr may be NULL */
    nq_placement_destroy(p);
    ck_assert_int_eq(nq_placement_parse_queens(4, "x", 1, &p, NULL), NQ_E_PLACEMENT);
}
END_TEST

START_TEST(parse_arguments)
{
    nq_placement *p = NULL;
    nq_placement_error e;
    ck_assert_int_eq(nq_placement_parse_columns(0, "", 0, &p, &e), NQ_E_RANGE);
    ck_assert_int_eq(nq_placement_parse_queens(NQ_PLACEMENT_N_MAX + 1, "", 0, &p, &e), NQ_E_RANGE);
    ck_assert_int_eq(nq_placement_parse_columns(4, NULL, 0, &p, &e), NQ_E_ARG);
    ck_assert_int_eq(nq_placement_parse_queens(4, "", 0, NULL, &e), NQ_E_ARG);
    ck_assert_int_eq(nq_placement_create(4, 1, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_placement_create(0, 1, &p), NQ_E_RANGE);
    ck_assert_int_eq(nq_placement_create(4, (size_t)UINT32_MAX, &p), NQ_E_ARG);
    ck_assert_uint_eq(nq_placement_n(NULL), 0);
    ck_assert_uint_eq(nq_placement_count(NULL), 0);
    ck_assert_ptr_null(nq_placement_queens(NULL));
    nq_placement_destroy(NULL);
}
END_TEST

/* A huge board with a tiny input allocates by the input, not by n (ASan would see 8 GB otherwise). */
START_TEST(parse_huge_board_small_input)
{
    nq_placement *p = NULL;
    nq_placement_error e;
    ck_assert_int_eq(nq_placement_parse_columns(NQ_PLACEMENT_N_MAX, "5,7", 3, &p, &e), NQ_E_PLACEMENT);
    ck_assert_int_eq(e.reason, NQ_PLACEMENT_TOO_FEW);
    ck_assert_uint_eq(e.entry, 2);
    ck_assert_int_eq(nq_placement_parse_queens(NQ_PLACEMENT_N_MAX, "5:7", 3, &p, &e), NQ_OK);
    nq_check_report r;
    ck_assert_int_eq(nq_placement_check(p, NULL, 0, &r), NQ_OK);
    ck_assert(r.valid && !r.complete);
    nq_placement_destroy(p);
}
END_TEST

/* ---- building and describing ------------------------------------------------------------------ */

START_TEST(builder)
{
    nq_placement *p = NULL;
    nq_placement_error e;
    ck_assert_int_eq(nq_placement_create(8, 3, &p), NQ_OK);
    ck_assert_int_eq(nq_placement_add(p, 0, 7, 7, &e), NQ_OK);
    ck_assert_int_eq(nq_placement_add(p, 1, 8, 0, &e), NQ_E_PLACEMENT);
    ck_assert_int_eq(e.reason, NQ_PLACEMENT_ROW_RANGE);
    ck_assert_uint_eq(e.value, 8);
    ck_assert_int_eq(e.form, NQ_PLACEMENT_FORM_BUILT);
    ck_assert_int_eq(nq_placement_add(p, 1, 0, UINT64_MAX, &e), NQ_E_PLACEMENT);
    ck_assert_int_eq(e.reason, NQ_PLACEMENT_COL_RANGE);
    ck_assert_int_eq(nq_placement_add(p, 2, 0, 3, NULL), NQ_OK);
    ck_assert_int_eq(nq_placement_add(p, 3, 0, 3, NULL), NQ_OK);
    ck_assert_int_eq(nq_placement_add(p, 4, 1, 1, &e), NQ_E_PLACEMENT);
    ck_assert_int_eq(e.reason, NQ_PLACEMENT_TOO_MANY);
    ck_assert_uint_eq(e.entry, 4);
    ck_assert_uint_eq(nq_placement_count(p), 3);
    nq_check_report r;
    ck_assert_int_eq(nq_placement_check(p, NULL, 0, &r), NQ_E_ARG); /* not finished */
    ck_assert_int_eq(nq_placement_finish(p, &e), NQ_E_PLACEMENT);
    ck_assert_int_eq(e.reason, NQ_PLACEMENT_DUPLICATE);
    ck_assert_uint_eq(e.entry, 2);
    ck_assert_uint_eq(e.other, 1);
    ck_assert_uint_eq(e.square.row, 0);
    ck_assert_uint_eq(e.square.col, 3);
    nq_placement_destroy(p);

    ck_assert_int_eq(nq_placement_create(8, 2, &p), NQ_OK);
    ck_assert_int_eq(nq_placement_add(p, 0, 7, 7, NULL), NQ_OK);
    ck_assert_int_eq(nq_placement_add(p, 1, 0, 3, NULL), NQ_OK);
    ck_assert_int_eq(nq_placement_finish(p, &e), NQ_OK);
    ck_assert_int_eq(nq_placement_finish(p, &e), NQ_E_ARG);
    ck_assert_int_eq(nq_placement_add(p, 2, 1, 1, &e), NQ_E_ARG);
    const nq_square *q = nq_placement_queens(p);
    ck_assert_uint_eq(q[0].row, 0);
    ck_assert_uint_eq(q[0].col, 3);
    ck_assert_uint_eq(q[1].row, 7);
    char small[4];
    ck_assert_int_eq(nq_placement_render_queens(p, small, sizeof small, NULL), NQ_E_BUFSIZE);
    nq_placement_destroy(p);
}
END_TEST

static const struct {
    form f;
    uint32_t n;
    const char *text;
    const char *want;
} describe_rows[] = {
    {COLUMNS, 8, "1,,0", "entry 1 is empty"},
    {COLUMNS, 8, "1,x", "entry 1 is not a column number or '-'"},
    {QUEENS, 8, "1:1,x", "entry 1 is not row:column (two plain decimal numbers)"},
    {QUEENS, 8, "01:1", "entry 0 has a number with a leading zero"},
    {COLUMNS, 8, "1,9", "entry 1: column 9 is outside 0..7"},
    {QUEENS, 8, "1:1,99999999999999999999:0", "entry 1: a row too large is outside 0..7"},
    {QUEENS, 8, "2:3,1:1,2:3", "entry 2 gives square 2:3 again (entry 0 gave it first)"},
    {COLUMNS, 8, "1,2,3", "3 column entries, not 8 (one per row)"},
    {COLUMNS, 2, "1,0,1", "more than 2 column entries (one per row)"},
};

START_TEST(describe_errors)
{
    nq_placement *p = NULL;
    nq_placement_error e;
    ck_assert_int_eq(parse(describe_rows[_i].f, describe_rows[_i].n, describe_rows[_i].text, &p, &e), NQ_E_PLACEMENT);
    char text[128];
    const size_t len = nq_placement_error_describe(&e, text, sizeof text);
    ck_assert_str_eq(text, describe_rows[_i].want);
    ck_assert_uint_eq(len, strlen(describe_rows[_i].want));
    char tiny[6];
    ck_assert_uint_eq(nq_placement_error_describe(&e, tiny, sizeof tiny), len); /* truncated, as snprintf */
    ck_assert_uint_eq(strlen(tiny), 5);
}
END_TEST

/* ---- checking against brute force ------------------------------------------------------------- */

static bool attack(nq_square a, nq_square b)
{
    const int64_t dr = (int64_t)a.row - b.row, dc = (int64_t)a.col - b.col;
    return dr == 0 || dc == 0 || dr == dc || dr == -dc;
}

/* Every attacking pair of qs[0..q) (row-major), in order; returns how many, writes at most cap. */
static uint64_t brute_pairs(const nq_square *qs, size_t q, nq_pair *out, size_t cap)
{
    uint64_t count = 0;
    for (size_t i = 0; i < q; i++)
        for (size_t j = i + 1; j < q; j++)
            if (attack(qs[i], qs[j])) {
                if (count < cap) out[count] = (nq_pair){qs[i], qs[j]};
                count++;
            }
    return count;
}

/* The tests' own generator (not the library's): a 64-bit LCG, high bits. */
static uint32_t lcg(uint64_t *x, uint32_t bound)
{
    *x = *x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
    return (uint32_t)((*x >> 33) % bound);
}

static bool same_square(nq_square a, nq_square b)
{
    return a.row == b.row && a.col == b.col;
}

static bool same_pair(nq_pair a, nq_pair b)
{
    return same_square(a.first, b.first) && same_square(a.second, b.second);
}

/* Checks p with cap and compares with brute force. */
static void compare_with_brute(const nq_placement *p, size_t cap)
{
    const size_t q = nq_placement_count(p);
    nq_pair *got = calloc(cap + 1, sizeof *got), *want = calloc(cap + 1, sizeof *want);
    ck_assert(got && want);
    nq_check_report r;
    ck_assert_int_eq(nq_placement_check(p, got, cap, &r), NQ_OK);
    const uint64_t count = brute_pairs(nq_placement_queens(p), q, want, cap);
    ck_assert_uint_eq(r.queens, q);
    ck_assert_uint_eq(r.conflicts, count);
    ck_assert(r.valid == (count == 0));
    ck_assert(r.complete == (count == 0 && q == nq_placement_n(p)));
    ck_assert_uint_eq(r.listed, count < cap ? count : cap);
    /* compared in plain C, asserted once: every Check assertion costs a write to its log */
    size_t same = 0;
    while (same < r.listed && same_pair(got[same], want[same])) same++;
    ck_assert_msg(same == r.listed, "pair %zu differs", same);
    free(got);
    free(want);
}

/* 300 random placements per n (1..12), of random density, added in random order; every list in
 * full and cut at a few caps. */
START_TEST(check_random_placements)
{
    const uint32_t n = (uint32_t)_i;
    uint64_t x = n * UINT64_C(1000003);
    for (int round = 0; round < 300; round++) {
        bool used[12 * 12] = {false};
        const uint32_t want = lcg(&x, n * n + 1);
        nq_placement *p = NULL;
        ck_assert_int_eq(nq_placement_create(n, want, &p), NQ_OK);
        int added = 0;
        for (uint32_t k = 0; k < want; k++) {
            uint32_t sq = lcg(&x, n * n);
            while (used[sq]) sq = (sq + 1) % (n * n);
            used[sq] = true;
            added += nq_placement_add(p, k, sq / n, sq % n, NULL) == NQ_OK;
        }
        ck_assert_int_eq(added, (int)want);
        ck_assert_int_eq(nq_placement_finish(p, NULL), NQ_OK);
        static const size_t caps[] = {0, 1, 7, 100000};
        for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) compare_with_brute(p, caps[c]);
        nq_placement_destroy(p);
    }
}
END_TEST

/* The contract's example: n = 4, three queens, one pair. */
START_TEST(check_contract_example)
{
    nq_placement *p = NULL;
    ck_assert_int_eq(nq_placement_parse_columns(4, "1,-,3,0", 7, &p, NULL), NQ_OK);
    nq_pair pairs[4];
    nq_check_report r;
    ck_assert_int_eq(nq_placement_check(p, pairs, 4, &r), NQ_OK);
    ck_assert_uint_eq(r.queens, 3);
    ck_assert(!r.valid && !r.complete);
    ck_assert_uint_eq(r.conflicts, 1);
    ck_assert_uint_eq(r.listed, 1);
    ck_assert_uint_eq(pairs[0].first.row, 0);
    ck_assert_uint_eq(pairs[0].first.col, 1);
    ck_assert_uint_eq(pairs[0].second.row, 2);
    ck_assert_uint_eq(pairs[0].second.col, 3);
    nq_placement_destroy(p);

    ck_assert_int_eq(nq_placement_parse_columns(4, "1,3,0,2", 7, &p, NULL), NQ_OK);
    ck_assert_int_eq(nq_placement_check(p, NULL, 0, &r), NQ_OK);
    ck_assert(r.valid && r.complete);
    ck_assert_uint_eq(r.conflicts, 0);
    nq_placement_destroy(p);
    ck_assert_int_eq(nq_placement_parse_queens(4, "", 0, &p, NULL), NQ_OK);
    ck_assert_int_eq(nq_placement_check(p, pairs, 4, &r), NQ_OK);
    ck_assert(r.valid && !r.complete);
    ck_assert_uint_eq(r.queens, 0);
    ck_assert_int_eq(nq_placement_check(p, NULL, 1, &r), NQ_E_ARG);
    ck_assert_int_eq(nq_placement_check(NULL, NULL, 0, &r), NQ_E_ARG);
    ck_assert_int_eq(nq_placement_check(p, NULL, 0, NULL), NQ_E_ARG);
    nq_placement_destroy(p);
}
END_TEST

/* Crafted lines of k queens on an n board: the count is k(k-1)/2 and the first pairs are the first
 * queen with each of the others, in order. k > 255 goes through the byte counters' spill. */
typedef enum shape { ROW, COLUMN, DIAGONAL, ANTI } shape;

static nq_square on_line(shape s, uint32_t n, uint32_t i)
{
    switch (s) {
    case ROW: return (nq_square){3 % n, i};
    case COLUMN: return (nq_square){i, 5 % n};
    case DIAGONAL: return (nq_square){i, i};
    case ANTI: return (nq_square){i, n - 1 - i};
    }
    return (nq_square){0, 0};
}

static const struct {
    shape s;
    uint32_t n; /* board */
    uint32_t k; /* queens on the line, the first k along it */
} line_rows[] = {
    {ROW, 2000, 2000},        {COLUMN, 2000, 2000}, {DIAGONAL, 2000, 2000}, {ANTI, 2000, 2000},
    {DIAGONAL, 300, 256},     {COLUMN, 600, 511},   {ANTI, 12, 12},         {DIAGONAL, 100000000, 300},
    {COLUMN, 1000000000, 40}, /* sparse counting: the board is far larger than the placement */
};

START_TEST(check_one_line)
{
    const shape s = line_rows[_i].s;
    const uint32_t n = line_rows[_i].n, k = line_rows[_i].k;
    nq_placement *p = NULL;
    ck_assert_int_eq(nq_placement_create(n, k, &p), NQ_OK);
    uint32_t added = 0;
    for (uint32_t i = k; i-- > 0;) { /* added backwards: the sort puts them right */
        const nq_square sq = on_line(s, n, i);
        added += nq_placement_add(p, k - 1 - i, sq.row, sq.col, NULL) == NQ_OK;
    }
    ck_assert_uint_eq(added, k);
    ck_assert_int_eq(nq_placement_finish(p, NULL), NQ_OK);
    enum { CAP = 1000 };
    static nq_pair pairs[CAP];
    nq_check_report r;
    ck_assert_int_eq(nq_placement_check(p, pairs, CAP, &r), NQ_OK);
    ck_assert_uint_eq(r.conflicts, (uint64_t)k * (k - 1) / 2);
    ck_assert_uint_eq(r.listed, r.conflicts < CAP ? r.conflicts : CAP);
    /* row-major order along the line: the anti-diagonal runs from the top right corner down */
    const nq_square *q = nq_placement_queens(p);
    size_t at = 0, wrong = 0;
    for (uint32_t a = 0; a < k && at < r.listed; a++)
        for (uint32_t b = a + 1; b < k && at < r.listed; b++, at++)
            wrong += !same_pair(pairs[at], (nq_pair){q[a], q[b]});
    ck_assert_uint_eq(wrong, 0);
    nq_placement_destroy(p);
}
END_TEST

/* A full n x n board of queens: every square attacked along every line. Count in closed form: rows
 * and columns n * C(n,2) each, each diagonal family sum of C(len,2) over its 2n - 1 lines. */
START_TEST(check_full_board)
{
    const uint32_t n = 40;
    nq_placement *p = NULL;
    ck_assert_int_eq(nq_placement_create(n, (size_t)n * n, &p), NQ_OK);
    uint32_t added = 0;
    for (uint32_t i = 0; i < n * n; i++) added += nq_placement_add(p, i, i / n, i % n, NULL) == NQ_OK;
    ck_assert_uint_eq(added, (uint64_t)n * n);
    ck_assert_int_eq(nq_placement_finish(p, NULL), NQ_OK);
    uint64_t want = 2 * (uint64_t)n * n * (n - 1) / 2;
    for (uint32_t len = 1; len <= n; len++) want += 2 * (uint64_t)(len < n ? 2 : 1) * len * (len - 1) / 2;
    compare_with_brute(p, 5000);
    nq_check_report r;
    ck_assert_int_eq(nq_placement_check(p, NULL, 0, &r), NQ_OK);
    ck_assert_uint_eq(r.conflicts, want);
    nq_placement_destroy(p);
}
END_TEST

/* n queens in one row of a large board: the count is exact past 2^32. */
START_TEST(check_count_is_64_bit)
{
    const uint32_t n = 100000;
    nq_placement *p = NULL;
    ck_assert_int_eq(nq_placement_create(n, n, &p), NQ_OK);
    uint32_t added = 0;
    for (uint32_t c = 0; c < n; c++) added += nq_placement_add(p, c, 0, c, NULL) == NQ_OK;
    ck_assert_uint_eq(added, n);
    ck_assert_int_eq(nq_placement_finish(p, NULL), NQ_OK);
    nq_pair pairs[3];
    nq_check_report r;
    ck_assert_int_eq(nq_placement_check(p, pairs, 3, &r), NQ_OK);
    ck_assert_uint_eq(r.conflicts, UINT64_C(4999950000));
    ck_assert_uint_eq(r.listed, 3);
    ck_assert_uint_eq(pairs[2].second.col, 3);
    nq_placement_destroy(p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("placement");
    TCase *tc = tcase_create("parse");
    tcase_add_loop_test(tc, parse_good, 0, (int)(sizeof good_rows / sizeof good_rows[0]));
    tcase_add_loop_test(tc, parse_bad, 0, (int)(sizeof bad_rows / sizeof bad_rows[0]));
    tcase_add_test(tc, parse_reads_only_len);
    tcase_add_test(tc, parse_arguments);
    tcase_add_test(tc, parse_huge_board_small_input);
    tcase_add_test(tc, builder);
    tcase_add_loop_test(tc, describe_errors, 0, (int)(sizeof describe_rows / sizeof describe_rows[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("check");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, check_random_placements, 1, 13);
    tcase_add_test(tc, check_contract_example);
    tcase_add_loop_test(tc, check_one_line, 0, (int)(sizeof line_rows / sizeof line_rows[0]));
    tcase_add_test(tc, check_full_board);
    tcase_add_test(tc, check_count_is_64_bit);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
