/* test_puzzle.c - Check tests of puzzle.h's common part and its regions kind: names, region maps, dates,
 * counting, mistakes, hints, grades and the generator.
 *
 * Known cases are hand-made boards whose solutions were listed by hand-checked brute force; the
 * property tests check generated puzzles against this file's own brute force (a plain enumeration of
 * permutations, nothing shared with the library's search), for many seeds of the small sizes.
 */
#include "nqueens/puzzle.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

/* ---- helpers ----------------------------------------------------------------------------------- */

/* A regions puzzle from n NUL-terminated rows; fails the test if it does not parse. */
static nq_puzzle regions(int n, const char *const *rows)
{
    nq_puzzle p;
    nq_puzzle_error e;
    const nq_err rc = nq_puzzle_init_regions(&p, n, rows, NULL, (size_t)n, &e);
    char msg[200];
    nq_puzzle_error_format(&e, msg, sizeof msg);
    ck_assert_msg(rc == NQ_OK, "map rejected: %s", msg);
    return p;
}

/* The test's own brute force: every permutation of columns, kept when no two consecutive rows'
 * queens touch and every region is used once. Returns the number of solutions (sol: the last). */
typedef struct brute {
    const nq_puzzle *p;
    int cols[NQ_PUZZLE_N_MAX];
    int used_cols, used_regions; /* bit sets: the puzzles here have n <= 9 */
    long count;
    int sol[NQ_PUZZLE_N_MAX];
} brute;

static void brute_row(brute *b, int r)
{
    const int n = b->p->n;
    if (r == n) {
        b->count++;
        memcpy(b->sol, b->cols, sizeof b->sol);
        return;
    }
    for (int c = 0; c < n; c++) {
        const int region = b->p->region[r * n + c];
        if ((b->used_cols >> c & 1) || (b->used_regions >> region & 1)) continue;
        if (r > 0 && abs(b->cols[r - 1] - c) <= 1) continue;
        b->cols[r] = c;
        b->used_cols |= 1 << c;
        b->used_regions |= 1 << region;
        brute_row(b, r + 1);
        b->used_cols &= ~(1 << c);
        b->used_regions &= ~(1 << region);
    }
}

static long brute_count(const nq_puzzle *p, int *sol)
{
    brute b;
    memset(&b, 0, sizeof b);
    b.p = p;
    brute_row(&b, 0);
    if (sol != NULL) memcpy(sol, b.sol, sizeof b.sol);
    return b.count;
}

/* ---- the hand-made boards ---------------------------------------------------------------------- */

/* One solution: columns 1, 3, 0, 2, 4. */
static const char *const unique5[5] = {"ABBBB", "ABCCB", "ADDCB", "AADCE", "AAEEE"};
static const int unique5_sol[5] = {1, 3, 0, 2, 4};
/* Two solutions: 0, 2, 4, 1, 3 and 2, 0, 3, 1, 4. */
static const char *const two5[5] = {"ABBBB", "ABCCB", "ADDCB", "ADECE", "AAEEE"};

/* ---- names and dates --------------------------------------------------------------------------- */

START_TEST(test_names_round_trip)
{
    for (int k = 0; k < NQ_PUZZLE_KIND_COUNT; k++) {
        const char *name = nq_puzzle_kind_name((nq_puzzle_kind)k);
        nq_puzzle_kind back;
        ck_assert_int_eq(nq_puzzle_kind_parse(name, strlen(name), &back), NQ_OK);
        ck_assert_int_eq(back, k);
    }
    for (int d = 0; d < NQ_PUZZLE_DIFFICULTY_COUNT; d++) {
        const char *name = nq_puzzle_difficulty_name((nq_puzzle_difficulty)d);
        nq_puzzle_difficulty back;
        ck_assert_int_eq(nq_puzzle_difficulty_parse(name, strlen(name), &back), NQ_OK);
        ck_assert_int_eq(back, d);
    }
    nq_puzzle_difficulty last = NQ_PUZZLE_EASY;
    for (int r = 0; r < NQ_PUZZLE_RULE_COUNT; r++) {
        const char *name = nq_puzzle_rule_name((nq_puzzle_rule)r);
        nq_puzzle_rule back;
        ck_assert_int_eq(nq_puzzle_rule_parse(name, strlen(name), &back), NQ_OK);
        ck_assert_int_eq(back, r);
        /* the table is in order of difficulty, and every rule belongs to some kind */
        ck_assert_int_ge(nq_puzzle_rule_difficulty((nq_puzzle_rule)r), last);
        last = nq_puzzle_rule_difficulty((nq_puzzle_rule)r);
        ck_assert(nq_puzzle_rule_of_kind((nq_puzzle_rule)r, NQ_PUZZLE_QUEENS) ||
                  nq_puzzle_rule_of_kind((nq_puzzle_rule)r, NQ_PUZZLE_REGIONS));
    }
    ck_assert_str_eq(nq_puzzle_kind_name(NQ_PUZZLE_REGIONS), "regions");
    ck_assert_str_eq(nq_puzzle_difficulty_name(NQ_PUZZLE_EXPERT), "expert");
    ck_assert_str_eq(nq_puzzle_rule_name(NQ_PUZZLE_RULE_SINGLE_SQUARE), "single-square");
    ck_assert_str_eq(nq_puzzle_op_name(NQ_PUZZLE_OP_EXCLUDE), "exclude");
    ck_assert_ptr_null(nq_puzzle_op_name(NQ_PUZZLE_OP_NONE));
    nq_puzzle_kind k;
    ck_assert_int_eq(nq_puzzle_kind_parse("Queens", 6, &k), NQ_E_PARAM_INVALID);
    ck_assert_int_eq(nq_puzzle_kind_parse("queen", 5, &k), NQ_E_PARAM_INVALID);
    ck_assert_int_eq(nq_puzzle_kind_parse("queensx", 6, &k), NQ_OK); /* len counts, not the NUL */
}
END_TEST

static const struct {
    const char *date;
    nq_err rc;
    uint64_t seed;
} dates[] = {
    {"2026-12-05", NQ_OK, 20261205},       {"2000-01-01", NQ_OK, 20000101},       {"9999-12-31", NQ_OK, 99991231},
    {"2024-02-29", NQ_OK, 20240229},       {"2000-02-29", NQ_OK, 20000229},       {"2100-02-29", NQ_E_PARAM_INVALID, 0},
    {"2023-02-29", NQ_E_PARAM_INVALID, 0}, {"1999-12-31", NQ_E_PARAM_INVALID, 0}, {"2026-13-01", NQ_E_PARAM_INVALID, 0},
    {"2026-00-10", NQ_E_PARAM_INVALID, 0}, {"2026-04-31", NQ_E_PARAM_INVALID, 0}, {"2026-1-01", NQ_E_PARAM_INVALID, 0},
    {"2026-01-1x", NQ_E_PARAM_INVALID, 0}, {"2026/01/01", NQ_E_PARAM_INVALID, 0}, {"+026-01-01", NQ_E_PARAM_INVALID, 0},
    {"", NQ_E_PARAM_INVALID, 0},
};

START_TEST(test_date_seed)
{
    uint64_t seed = 7;
    ck_assert_int_eq(nq_puzzle_date_seed(dates[_i].date, strlen(dates[_i].date), &seed), dates[_i].rc);
    ck_assert_uint_eq(seed, dates[_i].rc == NQ_OK ? dates[_i].seed : 7);
}
END_TEST

START_TEST(test_offered)
{
    ck_assert(nq_puzzle_offered(NQ_PUZZLE_QUEENS, 4, NQ_PUZZLE_EASY));
    ck_assert(!nq_puzzle_offered(NQ_PUZZLE_QUEENS, 7, NQ_PUZZLE_MEDIUM));
    ck_assert(nq_puzzle_offered(NQ_PUZZLE_QUEENS, 8, NQ_PUZZLE_MEDIUM));
    ck_assert(!nq_puzzle_offered(NQ_PUZZLE_QUEENS, 33, NQ_PUZZLE_EASY));
    ck_assert(!nq_puzzle_offered(NQ_PUZZLE_REGIONS, 4, NQ_PUZZLE_EASY));
    ck_assert(nq_puzzle_offered(NQ_PUZZLE_REGIONS, 5, NQ_PUZZLE_EXPERT));
    ck_assert(nq_puzzle_offered(NQ_PUZZLE_REGIONS, 15, NQ_PUZZLE_EASY));
    ck_assert(!nq_puzzle_offered(NQ_PUZZLE_REGIONS, 17, NQ_PUZZLE_HARD));
    ck_assert(!nq_puzzle_offered((nq_puzzle_kind)2, 8, NQ_PUZZLE_EASY));
    ck_assert(!nq_puzzle_offered(NQ_PUZZLE_REGIONS, 8, (nq_puzzle_difficulty)4));
}
END_TEST

/* ---- region maps ------------------------------------------------------------------------------- */

static const struct {
    int n;
    const char *rows[7];
    size_t nrows;
    nq_puzzle_problem problem;
    int row, col;
    char label;
    size_t count;
} bad_maps[] = {
    /* a row too long, then one too short */
    {3, {"AAB", "ACBB", "CCB"}, 3, NQ_PUZZLE_PROBLEM_RAGGED, 1, -1, 0, 4},
    {3, {"AAB", "AB", "CCB"}, 3, NQ_PUZZLE_PROBLEM_RAGGED, 1, -1, 0, 2},
    /* wrong number of rows */
    {3, {"AAB", "ACB"}, 2, NQ_PUZZLE_PROBLEM_ROWS, -1, -1, 0, 2},
    {3, {"AAB", "ACB", "CCB", "CCB"}, 4, NQ_PUZZLE_PROBLEM_ROWS, -1, -1, 0, 4},
    /* a label outside the alphabet */
    {3, {"AAB", "A-B", "CCB"}, 3, NQ_PUZZLE_PROBLEM_LABEL, 1, 1, '-', 0},
    /* n + 1 labels, and n - 1 */
    {3, {"AAB", "ACB", "CDB"}, 3, NQ_PUZZLE_PROBLEM_LABELS, -1, -1, 0, 4},
    {3, {"AAB", "AAB", "AAB"}, 3, NQ_PUZZLE_PROBLEM_LABELS, -1, -1, 0, 2},
    /* region x in two pieces (the second piece starts at row 2, column 2) */
    {3, {"xxy", "zzy", "zyx"}, 3, NQ_PUZZLE_PROBLEM_CONNECTED, 2, 1, 'y', 0},
    {3, {"xxy", "zzz", "zyx"}, 3, NQ_PUZZLE_PROBLEM_CONNECTED, 2, 1, 'y', 0},
    /* n out of range */
    {0, {""}, 0, NQ_PUZZLE_PROBLEM_SIZE, -1, -1, 0, 0},
    {63, {""}, 0, NQ_PUZZLE_PROBLEM_SIZE, -1, -1, 0, 0},
};

START_TEST(test_bad_maps)
{
    nq_puzzle p;
    nq_puzzle_error e;
    const nq_err rc = nq_puzzle_init_regions(&p, bad_maps[_i].n, bad_maps[_i].rows, NULL, bad_maps[_i].nrows, &e);
    ck_assert_int_eq(rc, NQ_E_PUZZLE_INVALID);
    ck_assert_int_eq(e.problem, bad_maps[_i].problem);
    ck_assert_int_eq(e.row, bad_maps[_i].row);
    ck_assert_int_eq(e.col, bad_maps[_i].col);
    ck_assert_int_eq(e.label, bad_maps[_i].label);
    ck_assert_uint_eq(e.count, bad_maps[_i].count);
    char msg[200];
    ck_assert_uint_gt(nq_puzzle_error_format(&e, msg, sizeof msg), 0);
}
END_TEST

START_TEST(test_error_messages)
{
    nq_puzzle p;
    nq_puzzle_error e;
    char msg[200];
    const char *const split[3] = {"xxy", "zzy", "zyx"};
    ck_assert_int_eq(nq_puzzle_init_regions(&p, 3, split, NULL, 3, &e), NQ_E_PUZZLE_INVALID);
    nq_puzzle_error_format(&e, msg, sizeof msg);
    ck_assert_str_eq(msg, "region 'y' is not connected: row 2, column 1 is cut off from its first square");
    const char *const ragged[3] = {"AAB", "AB", "CCB"};
    ck_assert_int_eq(nq_puzzle_init_regions(&p, 3, ragged, NULL, 3, &e), NQ_E_PUZZLE_INVALID);
    nq_puzzle_error_format(&e, msg, sizeof msg);
    ck_assert_str_eq(msg, "row 1 has 2 labels, not 3");
    const char *const extra[3] = {"AAB", "ACB", "CDB"};
    ck_assert_int_eq(nq_puzzle_init_regions(&p, 3, extra, NULL, 3, &e), NQ_E_PUZZLE_INVALID);
    nq_puzzle_error_format(&e, msg, sizeof msg);
    ck_assert_str_eq(msg, "the map has 4 regions, not 3");
}
END_TEST

/* Any labels are renamed in order of first appearance, and written back canonically. */
START_TEST(test_relabel)
{
    const char *const rows[5] = {"z9999", "z9QQ9", "zaaQ9", "zzaQb", "zzbbb"};
    const size_t lens[5] = {5, 5, 5, 5, 5};
    nq_puzzle p, q;
    ck_assert_int_eq(nq_puzzle_init_regions(&p, 5, rows, lens, 5, NULL), NQ_OK);
    char buf[8];
    const char *const *want = unique5;
    for (int r = 0; r < 5; r++) {
        ck_assert_int_eq(nq_puzzle_region_row(&p, r, buf, sizeof buf), NQ_OK);
        ck_assert_str_eq(buf, want[r]);
    }
    ck_assert_int_eq(nq_puzzle_region_row(&p, 0, buf, 5), NQ_E_BUFSIZE);
    q = regions(5, want);
    ck_assert_mem_eq(p.region, q.region, 25);
}
END_TEST

START_TEST(test_queens_clues)
{
    nq_puzzle p;
    nq_puzzle_error e;
    const nq_square ok[2] = {{0, 1}, {2, 0}};
    ck_assert_int_eq(nq_puzzle_init_queens(&p, 4, ok, 2, &e), NQ_OK);
    ck_assert_int_eq(p.clue_count, 2);
    ck_assert_int_eq(p.clue[0], 1);
    ck_assert_int_eq(p.clue[1], NQ_PUZZLE_NONE);
    const nq_square diagonal[3] = {{0, 1}, {3, 3}, {2, 2}};
    ck_assert_int_eq(nq_puzzle_init_queens(&p, 4, diagonal, 3, &e), NQ_E_PUZZLE_INVALID);
    ck_assert_int_eq(e.problem, NQ_PUZZLE_PROBLEM_CLUE_ATTACK);
    ck_assert_uint_eq(e.index, 2);
    ck_assert_uint_eq(e.other, 1);
    const nq_square off[2] = {{0, 1}, {1, 4}};
    ck_assert_int_eq(nq_puzzle_init_queens(&p, 4, off, 2, &e), NQ_E_PUZZLE_INVALID);
    ck_assert_int_eq(e.problem, NQ_PUZZLE_PROBLEM_CLUE_RANGE);
    ck_assert_uint_eq(e.index, 1);
}
END_TEST

/* ---- counting ---------------------------------------------------------------------------------- */

START_TEST(test_count_known)
{
    nq_puzzle p = regions(5, unique5);
    nq_puzzle_count_result res;
    ck_assert_int_eq(nq_puzzle_count(&p, NULL, 2, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 1);
    ck_assert(res.found);
    for (int r = 0; r < 5; r++) ck_assert_int_eq(res.cols[r], unique5_sol[r]);
    ck_assert_int_eq(brute_count(&p, NULL), 1);

    nq_puzzle two = regions(5, two5);
    ck_assert_int_eq(nq_puzzle_count(&two, NULL, 1000, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 2);
    ck_assert_int_eq(nq_puzzle_count(&two, NULL, 1, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 1);
    /* with a player's queen on (0, 2), only 2, 0, 3, 1, 4 is left */
    nq_puzzle_position pos;
    nq_puzzle_position_clear(&pos);
    ck_assert_int_eq(nq_puzzle_position_set(&pos, 5, 0, 2, false), NQ_OK);
    ck_assert_int_eq(nq_puzzle_count(&two, &pos, 1000, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 1);
    ck_assert_int_eq(res.cols[2], 3);
    /* queens that touch: no solution, not an error */
    ck_assert_int_eq(nq_puzzle_position_set(&pos, 5, 1, 3, false), NQ_OK);
    ck_assert_int_eq(nq_puzzle_count(&two, &pos, 2, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 0);
    ck_assert(!res.found);
    ck_assert_int_eq(nq_puzzle_position_set(&pos, 5, 5, 0, false), NQ_E_RANGE);
    ck_assert_int_eq(nq_puzzle_count(&two, NULL, 0, 0, NULL, &res), NQ_E_ARG);
}
END_TEST

/* An 18 x 18 board of one region per row: far more than 1000 solutions, counted to the limit. */
START_TEST(test_count_large_limit)
{
    char rows[18][19];
    const char *ptr[18];
    for (int r = 0; r < 18; r++) {
        memset(rows[r], NQ_PUZZLE_LABELS[r], 18);
        rows[r][18] = '\0';
        ptr[r] = rows[r];
    }
    nq_puzzle p = regions(18, ptr);
    nq_puzzle_count_result res;
    ck_assert_int_eq(nq_puzzle_count(&p, NULL, 1000, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 1000);
    for (int r = 1; r < 18; r++) ck_assert_int_gt(abs(res.cols[r] - res.cols[r - 1]), 1);
}
END_TEST

START_TEST(test_budget)
{
    nq_puzzle p = regions(5, two5);
    nq_puzzle_count_result res;
    ck_assert_int_eq(nq_puzzle_count(&p, NULL, 1000, 2, NULL, &res), NQ_E_BUDGET);
    nq_puzzle_hint h;
    ck_assert_int_eq(nq_puzzle_hint_next(&p, NULL, 1, NULL, &h), NQ_E_BUDGET);
    nq_puzzle_grade g;
    ck_assert_int_eq(nq_puzzle_grade_of(&p, 1, NULL, &g), NQ_E_BUDGET);
    nq_puzzle out;
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_REGIONS, 8, NQ_PUZZLE_EASY, 1, 10, NULL, &out, NULL),
                     NQ_E_PUZZLE_UNAVAILABLE);
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_REGIONS, 4, NQ_PUZZLE_EASY, 1, 0, NULL, &out, NULL), NQ_E_RANGE);
    ck_assert_int_eq(
        nq_puzzle_generate(NQ_PUZZLE_REGIONS, 8, NQ_PUZZLE_EASY, NQ_PUZZLE_SEED_MAX + 1, 0, NULL, &out, NULL),
        NQ_E_RANGE);
}
END_TEST

/* ---- mistakes and hints ------------------------------------------------------------------------ */

START_TEST(test_mistakes)
{
    nq_puzzle p = regions(5, unique5);
    nq_puzzle_position pos, m;
    nq_puzzle_position_clear(&pos);
    nq_puzzle_position_set(&pos, 5, 0, 1, false); /* right */
    nq_puzzle_position_set(&pos, 5, 4, 0, false); /* wrong */
    nq_puzzle_position_set(&pos, 5, 2, 0, true);  /* a mark on the solution: wrong */
    nq_puzzle_position_set(&pos, 5, 2, 1, true);  /* right */
    ck_assert_int_eq(nq_puzzle_mistakes(&p, &pos, 0, NULL, &m), NQ_OK);
    for (int r = 0; r < 5; r++) {
        ck_assert_uint_eq(m.queens[r], r == 4 ? 1u : 0u);
        ck_assert_uint_eq(m.marks[r], r == 2 ? 1u : 0u);
    }
    /* the hint reasons without the mistakes: sound for the solution, whatever they say */
    nq_puzzle_hint h;
    ck_assert_int_eq(nq_puzzle_hint_next(&p, &pos, 0, NULL, &h), NQ_OK);
    ck_assert_int_ne(h.op, NQ_PUZZLE_OP_NONE);
    if (h.op == NQ_PUZZLE_OP_PLACE)
        ck_assert_int_eq(unique5_sol[h.row], h.col);
    else
        ck_assert_int_ne(unique5_sol[h.row], h.col);
    /* on a board with two solutions, a mark on one of them is no mistake */
    nq_puzzle two = regions(5, two5);
    nq_puzzle_position_clear(&pos);
    nq_puzzle_position_set(&pos, 5, 0, 0, true);
    nq_puzzle_position_set(&pos, 5, 3, 1, true); /* on both solutions: a mistake */
    ck_assert_int_eq(nq_puzzle_mistakes(&two, &pos, 0, NULL, &m), NQ_OK);
    ck_assert_uint_eq(m.marks[0], 0);
    ck_assert_uint_eq(m.marks[3], 2);
}
END_TEST

/* Apply hints from pos until none is left: each sound for the unique solution sol, never its own
 * square in `because`, never a square the position already decides; the end is the solution. */
static void play_hints(const nq_puzzle *p, const int *sol, nq_puzzle_position pos)
{
    const int n = p->n;
    for (int step = 0; step <= n * n; step++) {
        nq_puzzle_hint h;
        ck_assert_int_eq(nq_puzzle_hint_next(p, &pos, 0, NULL, &h), NQ_OK);
        if (h.op == NQ_PUZZLE_OP_NONE) break;
        const uint64_t bit = UINT64_C(1) << h.col;
        ck_assert_msg((h.because[h.row] & bit) == 0, "because holds the hint's own square");
        ck_assert_msg(((pos.queens[h.row] | pos.marks[h.row]) & bit) == 0, "hint repeats the position");
        ck_assert_uint_gt(strlen(h.why), 10);
        ck_assert(nq_puzzle_rule_of_kind(h.rule, p->kind));
        if (h.op == NQ_PUZZLE_OP_PLACE) {
            ck_assert_msg(sol[h.row] == h.col, "placed (%d,%d) off the solution (%s)", h.row, h.col, h.why);
            pos.queens[h.row] |= bit;
        } else {
            ck_assert_msg(sol[h.row] != h.col, "excluded (%d,%d) of the solution (%s)", h.row, h.col, h.why);
            pos.marks[h.row] |= bit;
        }
    }
    for (int r = 0; r < n; r++) ck_assert_uint_eq(pos.queens[r], UINT64_C(1) << sol[r]);
}

START_TEST(test_hints_known)
{
    nq_puzzle p = regions(5, unique5);
    nq_puzzle_position pos;
    nq_puzzle_position_clear(&pos);
    play_hints(&p, unique5_sol, pos);
    nq_puzzle_hint h;
    /* a solved position has no hint */
    for (int r = 0; r < 5; r++) nq_puzzle_position_set(&pos, 5, r, unique5_sol[r], false);
    ck_assert_int_eq(nq_puzzle_hint_next(&p, &pos, 0, NULL, &h), NQ_OK);
    ck_assert_int_eq(h.op, NQ_PUZZLE_OP_NONE);
}
END_TEST

START_TEST(test_why_sentence)
{
    /* region E of this board has one square left once the others are marked */
    nq_puzzle p = regions(5, unique5);
    nq_puzzle_position pos;
    nq_puzzle_position_clear(&pos);
    pos.marks[3] = 1u << 4; /* (3,4): E's only square outside row 4 */
    pos.marks[4] = 0x1cu & ~(1u << 4);
    nq_puzzle_hint h;
    ck_assert_int_eq(nq_puzzle_hint_next(&p, &pos, 0, NULL, &h), NQ_OK);
    ck_assert_int_eq(h.op, NQ_PUZZLE_OP_PLACE);
    ck_assert_int_eq(h.rule, NQ_PUZZLE_RULE_SINGLE_SQUARE);
    ck_assert_int_eq(h.row, 4);
    ck_assert_int_eq(h.col, 4);
    ck_assert_str_eq(h.why, "Region E has one square left where a queen attacks nothing.");
    ck_assert_uint_eq(h.because[3], 1u << 4);
    ck_assert_uint_eq(h.because[4], 0x0cu);
}
END_TEST

/* ---- the generator ----------------------------------------------------------------------------- */

/* Generated puzzles of n = 5..8, every difficulty, seeds 0..SEEDS-1: exactly one solution by the
 * brute force, graded as asked, solved by the rules up to that difficulty, the same twice, and the
 * hints lead to the solution. */
#define SEEDS 12

START_TEST(test_generated)
{
    const int n = 5 + _i / NQ_PUZZLE_DIFFICULTY_COUNT;
    const nq_puzzle_difficulty d = (nq_puzzle_difficulty)(_i % NQ_PUZZLE_DIFFICULTY_COUNT);
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        nq_puzzle p, again;
        nq_puzzle_grade g, g2;
        ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_REGIONS, n, d, seed, 0, NULL, &p, &g), NQ_OK);
        ck_assert_int_eq(p.kind, NQ_PUZZLE_REGIONS);
        ck_assert_int_eq(p.n, n);
        int sol[NQ_PUZZLE_N_MAX];
        ck_assert_int_eq(brute_count(&p, sol), 1);
        ck_assert_int_eq(g.difficulty, d);
        ck_assert(g.solved);
        ck_assert_int_ne(g.hardest, NQ_PUZZLE_RULE_SEARCH);
        ck_assert_int_eq(nq_puzzle_rule_difficulty(g.hardest), d);
        ck_assert_int_eq(g.trials > 0, d == NQ_PUZZLE_EXPERT);
        /* the grade is the engine's: grading again says the same */
        ck_assert_int_eq(nq_puzzle_grade_of(&p, 0, NULL, &g2), NQ_OK);
        ck_assert_mem_eq(&g, &g2, sizeof g);
        /* the map is canonical: it reads back as itself */
        char rows[NQ_PUZZLE_N_MAX][NQ_PUZZLE_N_MAX + 1];
        const char *ptr[NQ_PUZZLE_N_MAX];
        for (int r = 0; r < n; r++) {
            ck_assert_int_eq(nq_puzzle_region_row(&p, r, rows[r], sizeof rows[r]), NQ_OK);
            ptr[r] = rows[r];
        }
        ck_assert_int_eq(nq_puzzle_init_regions(&again, n, ptr, NULL, (size_t)n, NULL), NQ_OK);
        ck_assert_mem_eq(again.region, p.region, (size_t)(n * n));
        /* deterministic */
        ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_REGIONS, n, d, seed, 0, NULL, &again, NULL), NQ_OK);
        ck_assert_mem_eq(again.region, p.region, (size_t)(n * n));
        nq_puzzle_position pos;
        nq_puzzle_position_clear(&pos);
        play_hints(&p, sol, pos);
    }
}
END_TEST

/* Fixed outputs: the generator's version (NQ_PUZZLE_GENERATOR) must change when these do. */
#define GENERATED_6_EASY_42 "ABBBBB,ACCCBB,ADCCCC,AAEEEE,AAEEEF,AAFFFF"
START_TEST(test_generated_fixed)
{
    nq_puzzle p;
    nq_puzzle_grade g;
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_REGIONS, 6, NQ_PUZZLE_EASY, 42, 0, NULL, &p, &g), NQ_OK);
    char got[7 * 6 + 1] = "";
    size_t len = 0;
    for (int r = 0; r < 6; r++) {
        char row[8];
        nq_puzzle_region_row(&p, r, row, sizeof row);
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%s", row, r < 5 ? "," : "");
        ck_assert_uint_lt(len, sizeof got);
    }
    ck_assert_str_eq(got, GENERATED_6_EASY_42);
}
END_TEST

static Suite *puzzle_suite(void)
{
    Suite *s = suite_create("puzzle");
    TCase *tc = tcase_create("common");
    tcase_add_test(tc, test_names_round_trip);
    tcase_add_test(tc, test_offered);
    tcase_add_loop_test(tc, test_date_seed, 0, (int)(sizeof dates / sizeof dates[0]));
    tcase_add_loop_test(tc, test_bad_maps, 0, (int)(sizeof bad_maps / sizeof bad_maps[0]));
    tcase_add_test(tc, test_error_messages);
    tcase_add_test(tc, test_relabel);
    tcase_add_test(tc, test_queens_clues);
    suite_add_tcase(s, tc);
    tc = tcase_create("regions");
    tcase_add_test(tc, test_count_known);
    tcase_add_test(tc, test_count_large_limit);
    tcase_add_test(tc, test_budget);
    tcase_add_test(tc, test_mistakes);
    tcase_add_test(tc, test_hints_known);
    tcase_add_test(tc, test_why_sentence);
    tcase_add_loop_test(tc, test_generated, 0, 4 * NQ_PUZZLE_DIFFICULTY_COUNT);
    tcase_add_test(tc, test_generated_fixed);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return nq_check_run(puzzle_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
