/* test_puzzle_queens.c - Check suite for queens puzzles (puzzle.h, the queens kind): a hand-made
 * 4 x 4 puzzle with its exact solution, grade, hint and mistakes; the counter against a brute-force
 * permutation search written here; generated puzzles over many seeds: unique by that brute force,
 * solved by the rules up to their difficulty, the same for the same seed, minimal, and led to their
 * solution by sound hints; each rule on a board made for it; budgets and refused combinations.
 *
 * The reference is deliberately naive: the permutations of columns (n <= 9) row by row, each new
 * queen checked against the clues and pair by pair against the queens above it, with no masks and
 * nothing shared with the library.
 */
#include "nqueens/puzzle.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

#define REF_N_MAX 9 /* the brute force walks up to n! permutations */

/* ---- the reference ---------------------------------------------------------------------------- */

typedef struct ref {
    int n;
    int clue[REF_N_MAX];         /* column given in each row, -1 for none */
    uint64_t blocked[REF_N_MAX]; /* squares no queen may take */
    int perm[REF_N_MAX];         /* the permutation being walked */
    uint64_t found;              /* solutions seen */
    int first[REF_N_MAX];        /* the first one */
} ref;

/* Whether row r may take column c: its clue (if any), not blocked, and no queen above in its
 * column or on a diagonal with it (checked pair by pair). */
static bool ref_allowed(const ref *x, int r, int c)
{
    if ((x->clue[r] >= 0 && c != x->clue[r]) || (x->blocked[r] >> c & 1u)) return false;
    for (int q = 0; q < r; q++)
        if (x->perm[q] == c || abs(x->perm[q] - c) == r - q) return false;
    return true;
}

/* Row by row, every column in turn: the permutations that are solutions, in order. */
static void ref_walk(ref *x, int r)
{
    if (r == x->n) {
        if (x->found++ == 0) memcpy(x->first, x->perm, sizeof x->first);
        return;
    }
    for (int c = 0; c < x->n; c++) {
        if (!ref_allowed(x, r, c)) continue;
        x->perm[r] = c;
        ref_walk(x, r + 1);
    }
}

/* The solutions of p's clues (plus the queens of `queens` and with `blocked` closed; NULL: none). */
static uint64_t ref_count(const nq_puzzle *p, const uint64_t *queens, const uint64_t *blocked, int *first)
{
    ref x = {.n = p->n};
    for (int r = 0; r < p->n; r++) {
        x.clue[r] = p->clue[r] == NQ_PUZZLE_NONE ? -1 : p->clue[r];
        if (queens != NULL && queens[r] != 0) {
            if (__builtin_popcountll(queens[r]) > 1 || (x.clue[r] >= 0 && x.clue[r] != __builtin_ctzll(queens[r])))
                return 0;
            x.clue[r] = __builtin_ctzll(queens[r]);
        }
        x.blocked[r] = blocked != NULL ? blocked[r] : 0;
    }
    ref_walk(&x, 0);
    if (first != NULL && x.found > 0) memcpy(first, x.first, sizeof x.first);
    return x.found;
}

/* ---- helpers ---------------------------------------------------------------------------------- */

static nq_puzzle queens_puzzle(int n, const nq_square *clues, size_t count)
{
    nq_puzzle p;
    ck_assert_int_eq(nq_puzzle_init_queens(&p, n, clues, count, NULL), NQ_OK);
    return p;
}

/* A copy of p without the clue of row r. */
static nq_puzzle without(const nq_puzzle *p, int r)
{
    nq_puzzle q = *p;
    q.clue[r] = NQ_PUZZLE_NONE;
    q.clue_count--;
    return q;
}

static bool attacked(const nq_puzzle *p, const nq_puzzle_position *pos, int r, int c)
{
    for (int q = 0; q < p->n; q++) {
        uint64_t row = pos->queens[q];
        if (p->clue[q] != NQ_PUZZLE_NONE) row |= UINT64_C(1) << p->clue[q];
        for (; row; row &= row - 1) {
            const int qc = __builtin_ctzll(row);
            if (q == r || qc == c || abs(q - r) == abs(qc - c)) return true;
        }
    }
    return false;
}

/* Apply hints from the empty position until none is left: every one sound (against the solution
 * sol, the only one) and new, and the end is the solution. Returns the number of hints. */
static int follow_hints(const nq_puzzle *p, const int *sol)
{
    nq_puzzle_position pos;
    nq_puzzle_position_clear(&pos);
    int steps = 0;
    for (;; steps++) {
        ck_assert_int_lt(steps, p->n * p->n + 1);
        nq_puzzle_hint h;
        ck_assert_int_eq(nq_puzzle_hint_next(p, &pos, 0, NULL, &h), NQ_OK);
        if (h.op == NQ_PUZZLE_OP_NONE) break;
        const uint64_t bit = UINT64_C(1) << h.col;
        ck_assert_msg(!attacked(p, &pos, h.row, h.col) && !(pos.marks[h.row] & bit), "hint repeats a known fact");
        ck_assert_msg(!(h.because[h.row] & bit), "because holds the hint's own square");
        ck_assert_msg(strlen(h.why) > 10, "a sentence");
        if (h.op == NQ_PUZZLE_OP_PLACE) {
            ck_assert_int_eq(h.col, sol[h.row]);
            pos.queens[h.row] |= bit;
        } else {
            ck_assert_int_ne(h.col, sol[h.row]);
            pos.marks[h.row] |= bit;
        }
    }
    for (int r = 0; r < p->n; r++) {
        const uint64_t have = pos.queens[r] | (p->clue[r] != NQ_PUZZLE_NONE ? UINT64_C(1) << p->clue[r] : 0);
        ck_assert_uint_eq(have, UINT64_C(1) << sol[r]);
    }
    return steps;
}

/* ---- the hand-made 4 x 4 ------------------------------------------------------------------------ */

/* n = 4 has two solutions, 1,3,0,2 and 2,0,3,1; a queen on (0, 1) leaves the first. */
START_TEST(four_by_four)
{
    const nq_square clue = {0, 1};
    const nq_puzzle open = queens_puzzle(4, NULL, 0), p = queens_puzzle(4, &clue, 1);
    nq_puzzle_count_result res;
    ck_assert_int_eq(nq_puzzle_count(&open, NULL, 10, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 2);
    ck_assert_int_eq(nq_puzzle_count(&p, NULL, 2, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 1);
    ck_assert(res.found);
    const uint8_t want[4] = {1, 3, 0, 2};
    ck_assert_mem_eq(res.cols, want, 4);

    /* rows 2, 3 and 4 fall one after another, each with one square left */
    nq_puzzle_grade g;
    ck_assert_int_eq(nq_puzzle_grade_of(&p, 0, NULL, &g), NQ_OK);
    ck_assert(g.solved);
    ck_assert_int_eq(g.difficulty, NQ_PUZZLE_EASY);
    ck_assert_int_eq(g.hardest, NQ_PUZZLE_RULE_SINGLE_SQUARE);
    ck_assert_uint_eq(g.deductions, 3);
    ck_assert_uint_eq(g.trials, 0);

    nq_puzzle_hint h;
    ck_assert_int_eq(nq_puzzle_hint_next(&p, NULL, 0, NULL, &h), NQ_OK);
    ck_assert_int_eq(h.op, NQ_PUZZLE_OP_PLACE);
    ck_assert_int_eq(h.row, 1);
    ck_assert_int_eq(h.col, 3);
    ck_assert_int_eq(h.rule, NQ_PUZZLE_RULE_SINGLE_SQUARE);
    ck_assert_str_eq(h.why, "Row 2 has one square left where a queen attacks nothing.");
    for (int r = 0; r < 4; r++) ck_assert_uint_eq(h.because[r], r == 0 ? UINT64_C(1) << 1 : 0); /* the clue */

    /* a queen off the solution and a mark on it are mistakes; hints reason without them */
    nq_puzzle_position pos, mistakes;
    nq_puzzle_position_clear(&pos);
    ck_assert_int_eq(nq_puzzle_position_set(&pos, 4, 2, 2, false), NQ_OK); /* a wrong queen */
    ck_assert_int_eq(nq_puzzle_position_set(&pos, 4, 1, 3, true), NQ_OK);  /* a mark on the solution */
    ck_assert_int_eq(nq_puzzle_position_set(&pos, 4, 3, 0, true), NQ_OK);  /* a right mark */
    ck_assert_int_eq(nq_puzzle_mistakes(&p, &pos, 0, NULL, &mistakes), NQ_OK);
    ck_assert_uint_eq(mistakes.queens[2], UINT64_C(1) << 2);
    ck_assert_uint_eq(mistakes.marks[1], UINT64_C(1) << 3);
    ck_assert_uint_eq(mistakes.marks[3], 0);
    ck_assert_int_eq(nq_puzzle_hint_next(&p, &pos, 0, NULL, &h), NQ_OK);
    ck_assert_int_eq(h.op, NQ_PUZZLE_OP_PLACE);
    ck_assert_int_eq(h.row, 1);
    ck_assert_int_eq(h.col, 3);

    const int sol[4] = {1, 3, 0, 2};
    ck_assert_int_eq(follow_hints(&p, sol), 3);
}
END_TEST

/* ---- the counter against the brute force -------------------------------------------------------- */

/* A small linear congruential generator: the same boards on every platform. */
static int below(uint32_t *state, int bound)
{
    *state = *state * 1103515245u + 12345u;
    return (int)((*state >> 16) % (uint32_t)bound);
}

START_TEST(count_matches_reference)
{
    uint32_t seed = 7;
    for (int t = 0; t < 400; t++) {
        const int n = 4 + t % 5;
        nq_square clues[3];
        size_t count = 0;
        for (int i = 0; i < 3; i++) {
            const nq_square s = {(uint32_t)below(&seed, n), (uint32_t)below(&seed, n)};
            nq_puzzle probe;
            clues[count] = s;
            if (nq_puzzle_init_queens(&probe, n, clues, count + 1, NULL) == NQ_OK) count++;
        }
        const nq_puzzle p = queens_puzzle(n, clues, count);
        uint64_t queens[NQ_PUZZLE_N_MAX] = {0}, blocked[NQ_PUZZLE_N_MAX] = {0};
        const int qr = below(&seed, n), qc = below(&seed, n);
        queens[qr] |= UINT64_C(1) << qc; /* a player's queen, attacking or not */
        nq_puzzle_position pos;
        nq_puzzle_position_clear(&pos);
        memcpy(pos.queens, queens, sizeof queens);
        nq_puzzle_count_result res;
        ck_assert_int_eq(nq_puzzle_count(&p, &pos, 1000, 0, NULL, &res), NQ_OK);
        int first[REF_N_MAX];
        const uint64_t want = ref_count(&p, queens, blocked, first);
        ck_assert_uint_eq(res.solutions, want);
        ck_assert(res.found == (want > 0));
        if (res.found) {               /* some solution: valid, and holding the clues and the queen */
            int cols[REF_N_MAX] = {0}; /* zeroed: gcc -O3 cannot see that rows >= n go unread */
            for (int r = 0; r < n; r++) cols[r] = res.cols[r];
            nq_puzzle one = p;
            for (int r = 0; r < n; r++) one.clue[r] = (uint8_t)cols[r];
            ck_assert_uint_eq(ref_count(&one, queens, NULL, NULL), 1);
        }
    }
}
END_TEST

/* ---- generated puzzles -------------------------------------------------------------------------- */

#define SEEDS 40

/* Everything the generator promises, for one combination and a run of seeds. */
static void check_generated(int n, nq_puzzle_difficulty d)
{
    for (uint64_t seed = 0; seed < SEEDS; seed++) {
        nq_puzzle p, again;
        nq_puzzle_grade g, g2;
        ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, n, d, seed * 7919u, 0, NULL, &p, &g), NQ_OK);
        ck_assert_int_eq(p.kind, NQ_PUZZLE_QUEENS);
        ck_assert_int_eq(p.n, n);
        /* the same seed gives the same puzzle */
        ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, n, d, seed * 7919u, 0, NULL, &again, &g2), NQ_OK);
        ck_assert_mem_eq(p.clue, again.clue, sizeof p.clue);
        /* one solution, by the brute force */
        int sol[REF_N_MAX];
        ck_assert_uint_eq(ref_count(&p, NULL, NULL, sol), 1);
        /* the rules up to d solve it, and d is needed */
        ck_assert(g.solved);
        ck_assert_int_eq(g.difficulty, d);
        ck_assert_int_eq(nq_puzzle_rule_difficulty(g.hardest), d);
        nq_puzzle_grade regrade;
        ck_assert_int_eq(nq_puzzle_grade_of(&p, 0, NULL, &regrade), NQ_OK);
        ck_assert_int_eq(regrade.difficulty, d);
        ck_assert_uint_eq(regrade.deductions, g.deductions);
        ck_assert_int_ne(g.hardest, NQ_PUZZLE_RULE_SEARCH);
        /* minimal: no clue can go without losing uniqueness or (below expert) raising the difficulty */
        int clues = 0;
        for (int r = 0; r < n; r++) {
            if (p.clue[r] == NQ_PUZZLE_NONE) continue;
            clues++;
            const nq_puzzle less = without(&p, r);
            if (ref_count(&less, NULL, NULL, NULL) == 1) {
                ck_assert_msg(d != NQ_PUZZLE_EXPERT, "expert: clue of row %d can go (seed %llu)", r,
                              (unsigned long long)seed);
                nq_puzzle_grade lg;
                ck_assert_int_eq(nq_puzzle_grade_of(&less, 0, NULL, &lg), NQ_OK);
                ck_assert_msg(!lg.solved || lg.difficulty > d, "clue of row %d can go (n %d, seed %llu)", r, n,
                              (unsigned long long)seed);
            }
        }
        ck_assert_int_eq(clues, p.clue_count);
        /* hints lead to the solution */
        follow_hints(&p, sol);
    }
}

START_TEST(generated_small)
{
    static const struct {
        int n;
        nq_puzzle_difficulty d;
    } combos[] = {{4, NQ_PUZZLE_EASY},  {5, NQ_PUZZLE_EASY},   {5, NQ_PUZZLE_HARD},   {6, NQ_PUZZLE_EXPERT},
                  {7, NQ_PUZZLE_HARD},  {7, NQ_PUZZLE_EXPERT}, {8, NQ_PUZZLE_EASY},   {8, NQ_PUZZLE_MEDIUM},
                  {8, NQ_PUZZLE_HARD},  {8, NQ_PUZZLE_EXPERT}, {9, NQ_PUZZLE_MEDIUM}, {9, NQ_PUZZLE_HARD},
                  {9, NQ_PUZZLE_EXPERT}};
    check_generated(combos[_i].n, combos[_i].d);
}
END_TEST

/* Larger boards: unique by the counter (limit 2), graded as asked, hints sound against the counter's
 * solution and leading to it, minimal. */
START_TEST(generated_large)
{
    const int n = 10 + 11 * (_i / 4); /* 10, 21, 32 */
    const nq_puzzle_difficulty d = (nq_puzzle_difficulty)(_i % 4);
    for (uint64_t seed = 0; seed < 8; seed++) {
        nq_puzzle p;
        nq_puzzle_grade g;
        ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, n, d, seed, 0, NULL, &p, &g), NQ_OK);
        ck_assert_int_eq(g.difficulty, d);
        nq_puzzle_count_result res;
        ck_assert_int_eq(nq_puzzle_count(&p, NULL, 2, 0, NULL, &res), NQ_OK);
        ck_assert_uint_eq(res.solutions, 1);
        int sol[NQ_PUZZLE_N_MAX];
        for (int r = 0; r < n; r++) sol[r] = res.cols[r];
        follow_hints(&p, sol);
        /* minimal, by the library's own counter this time */
        for (int r = 0; r < n; r++) {
            if (p.clue[r] == NQ_PUZZLE_NONE) continue;
            const nq_puzzle less = without(&p, r);
            ck_assert_int_eq(nq_puzzle_count(&less, NULL, 2, 0, NULL, &res), NQ_OK);
            if (res.solutions == 1) {
                ck_assert_int_ne(d, NQ_PUZZLE_EXPERT);
                nq_puzzle_grade lg;
                ck_assert_int_eq(nq_puzzle_grade_of(&less, 0, NULL, &lg), NQ_OK);
                ck_assert(!lg.solved || lg.difficulty > d);
            }
        }
    }
}
END_TEST

/* Hints from positions with mistakes in them: sound against the solution, and new for the position
 * without its mistakes (wrong queens, marks on the solution), which they reason from. */
START_TEST(hints_from_positions)
{
    uint32_t state = 11;
    for (uint64_t seed = 0; seed < 200; seed++) {
        const int n = 8 + (int)(seed % 2);
        nq_puzzle p;
        nq_puzzle_grade g;
        const nq_puzzle_difficulty d = (nq_puzzle_difficulty)(seed % 4);
        ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, n, d, seed, 0, NULL, &p, &g), NQ_OK);
        int sol[REF_N_MAX];
        ck_assert_uint_eq(ref_count(&p, NULL, NULL, sol), 1);
        nq_puzzle_position pos, clean;
        nq_puzzle_position_clear(&pos);
        nq_puzzle_position_clear(&clean);
        for (int r = 0; r < n; r++) {
            const int roll = below(&state, 10), wrong = (sol[r] + 1 + below(&state, n - 1)) % n;
            if (roll < 3) pos.queens[r] |= UINT64_C(1) << sol[r], clean.queens[r] |= UINT64_C(1) << sol[r];
            if (roll == 3) pos.queens[r] |= UINT64_C(1) << wrong; /* a mistake */
            for (int c = 0; c < n; c++)
                if (below(&state, 100) < 15) {
                    pos.marks[r] |= UINT64_C(1) << c;
                    if (c != sol[r]) clean.marks[r] |= UINT64_C(1) << c; /* a mark on the solution is a mistake */
                }
        }
        nq_puzzle_hint h;
        ck_assert_int_eq(nq_puzzle_hint_next(&p, &pos, 0, NULL, &h), NQ_OK);
        bool done = true;
        for (int r = 0; r < n; r++) done = done && (clean.queens[r] != 0 || p.clue[r] != NQ_PUZZLE_NONE);
        if (done) {
            ck_assert_int_eq(h.op, NQ_PUZZLE_OP_NONE);
            continue;
        }
        ck_assert_int_ne(h.op, NQ_PUZZLE_OP_NONE);
        ck_assert(h.op == NQ_PUZZLE_OP_PLACE ? h.col == sol[h.row] : h.col != sol[h.row]);
        ck_assert_msg(!attacked(&p, &clean, h.row, h.col), "seed %llu: the hint's square is already known",
                      (unsigned long long)seed);
        ck_assert(!(clean.marks[h.row] >> h.col & 1u));
    }
}
END_TEST

/* ---- the rules, one board each ------------------------------------------------------------------ */

START_TEST(rule_pair_lines)
{
    /* a generated medium puzzle's first non-single step is a pair; its because is four squares in
     * two lines, and the hint's square is outside both */
    nq_puzzle p;
    nq_puzzle_grade g;
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, 8, NQ_PUZZLE_MEDIUM, 1, 0, NULL, &p, &g), NQ_OK);
    nq_puzzle_position pos;
    nq_puzzle_position_clear(&pos);
    for (int steps = 0; steps < 64; steps++) {
        nq_puzzle_hint h;
        ck_assert_int_eq(nq_puzzle_hint_next(&p, &pos, 0, NULL, &h), NQ_OK);
        ck_assert_int_ne(h.op, NQ_PUZZLE_OP_NONE);
        if (h.rule == NQ_PUZZLE_RULE_PAIR_LINES) {
            ck_assert_int_eq(h.op, NQ_PUZZLE_OP_EXCLUDE);
            int squares = 0;
            for (int r = 0; r < 8; r++) squares += __builtin_popcountll(h.because[r]);
            ck_assert_int_eq(squares, 4);
            ck_assert(strstr(h.why, "The free squares of ") == h.why);
            return;
        }
        ck_assert_int_eq(h.rule, NQ_PUZZLE_RULE_SINGLE_SQUARE);
        if (h.op == NQ_PUZZLE_OP_PLACE) pos.queens[h.row] |= UINT64_C(1) << h.col;
    }
    ck_abort_msg("no pair-lines step");
}
END_TEST

/* The hint from a position: the puzzle's clues plus the queens and marks given as "r:c" lists. */
static nq_puzzle_hint hint_at(const nq_puzzle *p, const nq_square *queens, size_t nq, const nq_square *marks, size_t nm)
{
    nq_puzzle_position pos;
    nq_puzzle_position_clear(&pos);
    for (size_t i = 0; i < nq; i++) pos.queens[queens[i].row] |= UINT64_C(1) << queens[i].col;
    for (size_t i = 0; i < nm; i++) pos.marks[marks[i].row] |= UINT64_C(1) << marks[i].col;
    nq_puzzle_hint h;
    ck_assert_int_eq(nq_puzzle_hint_next(p, &pos, 0, NULL, &h), NQ_OK);
    return h;
}

/* The squares of a hint's because, row-major, as "r:c r:c ...". */
static void because_text(const nq_puzzle_hint *h, int n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            if (h->because[r] >> c & 1u) len += (size_t)snprintf(buf + len, cap - len, "%s%d:%d", len ? " " : "", r, c);
}

static void expect_hint(const nq_puzzle_hint *h, int n, nq_puzzle_op op, int row, int col, nq_puzzle_rule rule,
                        const char *why, const char *because)
{
    char text[512];
    ck_assert_int_eq(h->op, op);
    ck_assert_int_eq(h->row, row);
    ck_assert_int_eq(h->col, col);
    ck_assert_str_eq(nq_puzzle_rule_name(h->rule), nq_puzzle_rule_name(rule));
    ck_assert_str_eq(h->why, why);
    because_text(h, n, text, sizeof text);
    ck_assert_str_eq(text, because);
}

/* 6 x 6 with one clue, (0, 1); marks on (3, 3), (4, 3) and (5, 3): every row keeps two squares or
 * more, but column 4 keeps one, (1, 3), the queen attacking (2, 3) and the marks the reasons. */
START_TEST(rule_single_in_a_column)
{
    const nq_square clue = {0, 1}, marks[3] = {{3, 3}, {4, 3}, {5, 3}};
    const nq_puzzle p = queens_puzzle(6, &clue, 1);
    const nq_puzzle_hint h = hint_at(&p, NULL, 0, marks, 3);
    expect_hint(&h, 6, NQ_PUZZLE_OP_PLACE, 1, 3, NQ_PUZZLE_RULE_SINGLE_SQUARE,
                "Column 4 has one square left where a queen attacks nothing.", "0:1 3:3 4:3 5:3");
}
END_TEST

/* 5 x 5, clues (3, 0) and (4, 3): row 3 keeps columns 3 and 5 (1-based), both attacked from (1, 3). */
START_TEST(rule_no_room)
{
    const nq_square clues[2] = {{3, 0}, {4, 3}};
    const nq_puzzle p = queens_puzzle(5, clues, 2);
    const nq_puzzle_hint h = hint_at(&p, NULL, 0, NULL, 0);
    expect_hint(&h, 5, NQ_PUZZLE_OP_EXCLUDE, 0, 2, NQ_PUZZLE_RULE_NO_ROOM,
                "A queen on row 1, column 3 would leave row 3 with nowhere to go.", "2:2 2:4");
    int sol[REF_N_MAX];
    ck_assert_uint_eq(ref_count(&p, NULL, NULL, sol), 1);
    ck_assert_int_ne(sol[0], 2);
    ck_assert_int_eq(follow_hints(&p, sol), 4);
}
END_TEST

/* 8 x 8, no clues; marks leave rows 0, 2 and 4 only columns 0, 2 and 7 (those of the solution
 * 0,4,7,5,2,6,1,3): their three queens take those columns from every other row. */
START_TEST(rule_lines_in_lines)
{
    const nq_puzzle p = queens_puzzle(8, NULL, 0);
    nq_square marks[15];
    size_t nm = 0;
    for (uint32_t r = 0; r <= 4; r += 2)
        for (uint32_t c = 0; c < 8; c++)
            if (c != 0 && c != 2 && c != 7) marks[nm++] = (nq_square){r, c};
    const nq_puzzle_hint h = hint_at(&p, NULL, 0, marks, nm);
    expect_hint(&h, 8, NQ_PUZZLE_OP_EXCLUDE, 1, 0, NQ_PUZZLE_RULE_LINES_IN_LINES,
                "The free squares of rows 1, 3 and 5 all lie in columns 1, 3 and 8: their 3 queens fill those 3 "
                "lines, so no other square of them can hold a queen.",
                "0:0 0:2 0:7 2:0 2:2 2:7 4:0 4:2 4:7");
}
END_TEST

/* 8 x 8, no clues; marks leave rows 3 and 6 only columns 1 and 4: a pair. */
START_TEST(rule_pair_exact)
{
    const nq_puzzle p = queens_puzzle(8, NULL, 0);
    nq_square marks[12];
    size_t nm = 0;
    for (uint32_t r = 3; r <= 6; r += 3)
        for (uint32_t c = 0; c < 8; c++)
            if (c != 1 && c != 4) marks[nm++] = (nq_square){r, c};
    const nq_puzzle_hint h = hint_at(&p, NULL, 0, marks, nm);
    expect_hint(&h, 8, NQ_PUZZLE_OP_EXCLUDE, 0, 1, NQ_PUZZLE_RULE_PAIR_LINES,
                "The free squares of rows 4 and 7 are all in columns 2 and 5, so those two queens take columns 2 "
                "and 5 and no other square there can hold a queen.",
                "3:1 3:4 6:1 6:4");
}
END_TEST

/* 6 x 6 with one clue, (1, 0): its one solution is 3,0,4,1,5,2. With (4, 2) ruled out (no-room),
 * nothing short of a trial goes on: a queen on (0, 2) runs row 6 dry. */
START_TEST(rule_trial)
{
    const nq_square clue = {1, 0}, mark = {4, 2};
    const nq_puzzle p = queens_puzzle(6, &clue, 1);
    const nq_puzzle_hint h = hint_at(&p, NULL, 0, &mark, 1);
    expect_hint(&h, 6, NQ_PUZZLE_OP_EXCLUDE, 0, 2, NQ_PUZZLE_RULE_TRIAL,
                "Suppose a queen on row 1, column 3: the easier rules then leave row 6 with nowhere to go, so row 1, "
                "column 3 is not a queen.",
                "5:1 5:2 5:3 5:5");
    int sol[REF_N_MAX];
    ck_assert_uint_eq(ref_count(&p, NULL, NULL, sol), 1);
    const int want[6] = {3, 0, 4, 1, 5, 2};
    ck_assert_mem_eq(sol, want, sizeof want);
    nq_puzzle_grade g;
    ck_assert_int_eq(nq_puzzle_grade_of(&p, 0, NULL, &g), NQ_OK);
    ck_assert_int_eq(g.difficulty, NQ_PUZZLE_EXPERT);
    ck_assert_int_eq(g.hardest, NQ_PUZZLE_RULE_TRIAL);
    ck_assert_uint_eq(g.trials, 2);
}
END_TEST

/* ---- budgets and refusals ----------------------------------------------------------------------- */

START_TEST(budget_exhausted)
{
    const nq_puzzle open = queens_puzzle(20, NULL, 0);
    nq_puzzle_count_result res;
    ck_assert_int_eq(nq_puzzle_count(&open, NULL, 1000, 100, NULL, &res), NQ_E_BUDGET);
    nq_puzzle_grade g;
    ck_assert_int_eq(nq_puzzle_grade_of(&open, 5, NULL, &g), NQ_E_BUDGET);
    nq_puzzle p;
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, 20, NQ_PUZZLE_HARD, 3, 10, NULL, &p, &g),
                     NQ_E_PUZZLE_UNAVAILABLE);
    /* the same call with room enough succeeds */
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, 20, NQ_PUZZLE_HARD, 3, 0, NULL, &p, &g), NQ_OK);
}
END_TEST

START_TEST(cancelled)
{
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_count_cancel(&ctl);
    const nq_puzzle open = queens_puzzle(24, NULL, 0);
    nq_puzzle_count_result res;
    ck_assert_int_eq(nq_puzzle_count(&open, NULL, 1000000, 0, &ctl, &res), NQ_E_CANCELED);
}
END_TEST

/* Why those are refused: every clue set of every solution with one solution, graded: for n = 4..7
 * none is medium, for n = 4 none hard, for n = 4, 5 none expert; each of those sizes has easy ones. */
typedef struct all_solutions {
    int n;
    int count;
    int cols[64][REF_N_MAX]; /* n <= 7 has at most 40 */
    int branch[REF_N_MAX];
} all_solutions;

/* Every solution of the n x n board, by the textbook recursion. */
static void collect(all_solutions *a, int r)
{
    if (r == a->n) {
        memcpy(a->cols[a->count++], a->branch, sizeof a->branch);
        return;
    }
    for (int c = 0; c < a->n; c++) {
        bool free_square = true;
        for (int q = 0; q < r; q++)
            if (a->branch[q] == c || abs(a->branch[q] - c) == r - q) free_square = false;
        if (!free_square) continue;
        a->branch[r] = c;
        collect(a, r + 1);
    }
}

static void grades_of_all(int n, int *per_difficulty)
{
    all_solutions a = {.n = n};
    collect(&a, 0);
    for (int s = 0; s < a.count; s++)
        for (unsigned m = 0; m < (1u << n); m++) {
            nq_square clues[REF_N_MAX];
            size_t k = 0;
            for (int r = 0; r < n; r++)
                if (m >> r & 1u) clues[k++] = (nq_square){(uint32_t)r, (uint32_t)a.cols[s][r]};
            const nq_puzzle p = queens_puzzle(n, clues, k);
            if (ref_count(&p, NULL, NULL, NULL) != 1) continue;
            nq_puzzle_grade g;
            ck_assert_int_eq(nq_puzzle_grade_of(&p, 0, NULL, &g), NQ_OK);
            ck_assert(g.solved);
            per_difficulty[g.difficulty]++;
        }
}

START_TEST(refused_do_not_exist)
{
    for (int n = 4; n <= 7; n++) {
        int found[NQ_PUZZLE_DIFFICULTY_COUNT] = {0};
        grades_of_all(n, found);
        ck_assert_int_gt(found[NQ_PUZZLE_EASY], 0);
        ck_assert_int_eq(found[NQ_PUZZLE_MEDIUM], 0);
        if (n < 5) ck_assert_int_eq(found[NQ_PUZZLE_HARD], 0);
        if (n < 6) ck_assert_int_eq(found[NQ_PUZZLE_EXPERT], 0);
        if (n >= 6) ck_assert_int_gt(found[NQ_PUZZLE_EXPERT], 0);
    }
}
END_TEST

START_TEST(refused)
{
    nq_puzzle p;
    nq_puzzle_grade g;
    /* no medium puzzle exists below n = 8, no hard below 5, no expert below 6 */
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, 7, NQ_PUZZLE_MEDIUM, 1, 0, NULL, &p, &g),
                     NQ_E_PUZZLE_UNAVAILABLE);
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, 4, NQ_PUZZLE_HARD, 1, 0, NULL, &p, &g),
                     NQ_E_PUZZLE_UNAVAILABLE);
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, 5, NQ_PUZZLE_EXPERT, 1, 0, NULL, &p, &g),
                     NQ_E_PUZZLE_UNAVAILABLE);
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, 3, NQ_PUZZLE_EASY, 1, 0, NULL, &p, &g), NQ_E_RANGE);
    ck_assert_int_eq(nq_puzzle_generate(NQ_PUZZLE_QUEENS, 33, NQ_PUZZLE_EASY, 1, 0, NULL, &p, &g), NQ_E_RANGE);
}
END_TEST

/* A puzzle with no solution: counted 0, no hint, graded unsolved. */
START_TEST(no_solution)
{
    const nq_square clues[2] = {{0, 0}, {1, 2}}; /* on 4 x 4: nothing completes it */
    const nq_puzzle p = queens_puzzle(4, clues, 2);
    nq_puzzle_count_result res;
    ck_assert_int_eq(nq_puzzle_count(&p, NULL, 2, 0, NULL, &res), NQ_OK);
    ck_assert_uint_eq(res.solutions, 0);
    ck_assert_uint_eq(ref_count(&p, NULL, NULL, NULL), 0);
    nq_puzzle_hint h;
    ck_assert_int_eq(nq_puzzle_hint_next(&p, NULL, 0, NULL, &h), NQ_OK);
    ck_assert_int_eq(h.op, NQ_PUZZLE_OP_NONE);
    nq_puzzle_grade g;
    ck_assert_int_eq(nq_puzzle_grade_of(&p, 0, NULL, &g), NQ_OK);
    ck_assert(!g.solved);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("puzzle_queens");
    TCase *tc = tcase_create("hand-made");
    tcase_add_test(tc, four_by_four);
    tcase_add_test(tc, no_solution);
    tcase_add_test(tc, rule_pair_lines);
    tcase_add_test(tc, rule_single_in_a_column);
    tcase_add_test(tc, rule_no_room);
    tcase_add_test(tc, rule_lines_in_lines);
    tcase_add_test(tc, rule_pair_exact);
    tcase_add_test(tc, rule_trial);
    suite_add_tcase(s, tc);
    tc = tcase_create("counter");
    tcase_add_test(tc, count_matches_reference);
    tcase_add_test(tc, budget_exhausted);
    tcase_add_test(tc, cancelled);
    suite_add_tcase(s, tc);
    tc = tcase_create("generator");
    tcase_add_loop_test(tc, generated_small, 0, 13);
    tcase_add_loop_test(tc, generated_large, 0, 12);
    tcase_add_test(tc, hints_from_positions);
    tcase_add_test(tc, refused);
    tcase_add_test(tc, refused_do_not_exist);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return nq_check_run(suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
