/* puzzle_queens.c - the queens kind behind puzzle.c: count, hint and grade (puzzle_impl.h).
 *
 * Each call builds the engine's state (puzzle_queens.h) from the puzzle's clues and the position's
 * queens and marks, then asks the counter (puzzle_queens_search.c) or the engine
 * (puzzle_queens_rules.c). The generator is in puzzle_queens_gen.c.
 */
#include "puzzle_queens.h"

#include <string.h>

void nq_pq_from_puzzle(const nq_puzzle *p, const uint64_t *queens, const uint64_t *blocked, nq_pq_state *s)
{
    nq_pq_state_init(s, p->n);
    for (int r = 0; r < p->n; r++)
        if (p->clue[r] != NQ_PUZZLE_NONE) nq_pq_place(s, r, p->clue[r]);
    for (int r = 0; queens != NULL && r < p->n; r++) {
        /* a queen on a clue says nothing new; any other queen must be on an open square */
        const uint64_t clue = p->clue[r] != NQ_PUZZLE_NONE ? UINT64_C(1) << p->clue[r] : 0;
        for (uint64_t q = queens[r] & s->full & ~clue; q; q &= q - 1) nq_pq_place(s, r, __builtin_ctzll(q));
    }
    for (int r = 0; blocked != NULL && r < p->n; r++)
        for (uint64_t m = blocked[r] & s->full; m; m &= m - 1) nq_pq_exclude(s, r, __builtin_ctzll(m));
}

nq_err nq__puzzle_queens_count(const nq_puzzle *p, const uint64_t *queens, const uint64_t *blocked, uint64_t limit,
                               nq__puzzle_work *w, nq_puzzle_count_result *out)
{
    nq_pq_state s;
    nq_pq_from_puzzle(p, queens, blocked, &s);
    /* a blocked clue or queen has no completion: its square is closed for every solution */
    for (int r = 0; blocked != NULL && r < p->n; r++)
        if (s.queen[r] >= 0 && (blocked[r] >> s.queen[r] & 1u)) s.broken = true;
    nq_pq_count c = {.limit = limit};
    const nq_err rc = nq_pq_count_run(&s, w, &c);
    out->solutions = c.found;
    out->found = c.found > 0;
    if (out->found)
        for (int r = 0; r < p->n; r++) out->cols[r] = (uint8_t)c.first[r];
    return rc;
}

/* A deduction as a hint, its sentence filled in. */
static void hint_of(const nq_pq_step *step, nq_puzzle_hint *out)
{
    memset(out, 0, sizeof *out);
    out->op = step->place ? NQ_PUZZLE_OP_PLACE : NQ_PUZZLE_OP_EXCLUDE;
    out->row = step->row;
    out->col = step->col;
    out->rule = step->rule;
    nq__puzzle_why(step->rule, &step->why, out->why, sizeof out->why);
    for (int r = 0; r < NQ_PUZZLE_N_MAX; r++) out->because[r] = step->because[r];
    out->because[step->row] &= ~(UINT64_C(1) << step->col);
}

nq_err nq__puzzle_queens_hint(const nq_puzzle *p, const nq_puzzle_position *pos, nq__puzzle_work *w,
                              nq_puzzle_hint *out)
{
    nq_pq_state s;
    nq_pq_from_puzzle(p, pos->queens, pos->marks, &s);
    nq_pq_step step;
    nq_pq_outcome outcome = NQ_PQ_STUCK;
    memset(out, 0, sizeof *out);
    const nq_err rc = nq_pq_next(&s, NQ_PUZZLE_EXPERT, w, &step, &outcome);
    if (rc == NQ_OK && outcome == NQ_PQ_STEP) hint_of(&step, out);
    return rc;
}

nq_err nq_pq_grade_state(nq_pq_state *s, nq_puzzle_difficulty max, nq__puzzle_work *w, nq_puzzle_grade *out)
{
    memset(out, 0, sizeof *out);
    out->hardest = NQ_PUZZLE_RULE_SINGLE_SQUARE;
    for (;;) {
        nq_pq_step step;
        nq_pq_outcome outcome = NQ_PQ_STUCK;
        const nq_err rc = nq_pq_next(s, max, w, &step, &outcome);
        if (rc != NQ_OK) return rc;
        if (outcome == NQ_PQ_SOLVED) break;
        if (outcome != NQ_PQ_STEP) { /* stuck, or no solution: only a search could go on */
            out->hardest = NQ_PUZZLE_RULE_SEARCH;
            out->difficulty = NQ_PUZZLE_EXPERT;
            return NQ_OK;
        }
        nq_pq_apply(s, &step);
        out->deductions++;
        if (step.rule == NQ_PUZZLE_RULE_TRIAL) out->trials++;
        if (step.rule > out->hardest) out->hardest = step.rule; /* the table is in order of difficulty */
    }
    out->solved = true;
    out->difficulty = nq_puzzle_rule_difficulty(out->hardest);
    return NQ_OK;
}

nq_err nq__puzzle_queens_grade(const nq_puzzle *p, nq__puzzle_work *w, nq_puzzle_grade *out)
{
    nq_pq_state s;
    nq_pq_from_puzzle(p, NULL, NULL, &s);
    return nq_pq_grade_state(&s, NQ_PUZZLE_EXPERT, w, out);
}
