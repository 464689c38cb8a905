/* puzzle_queens.h - internal: the queens kind's board state, exact counter and deduction engine.
 *
 * A queens puzzle is an n x n board (n <= 62) with some queens given; a position adds the player's
 * queens and excluded squares. Everything here works on one 64-bit mask per row: bit c of a row's
 * mask is column c. The counter (puzzle_queens_search.c) proves uniqueness; the engine
 * (puzzle_queens_rules.c) solves as a person would, one named deduction at a time; the generator
 * (puzzle_queens_gen.c) uses both. puzzle_queens.c puts them behind the functions puzzle.c calls.
 *
 * Thread-safety: every function is reentrant; states are plain values owned by the caller.
 * Memory: nothing is allocated; states live on the caller's stack (about 0.6 KB each; the
 * engine's trials keep a few at once).
 */
#ifndef NQ_PUZZLE_QUEENS_H
#define NQ_PUZZLE_QUEENS_H

#include <stdbool.h>
#include <stdint.h>

#include "puzzle_impl.h"

#define NQ_PQ_MAX 64 /* rows and columns a state has room for (the kind's n is at most 62) */

/* The engine's view of a position: queens placed and the squares still open to a queen. */
typedef struct nq_pq_state {
    int n;                    /* board size */
    uint64_t full;            /* the n low bits */
    int16_t queen[NQ_PQ_MAX]; /* column of each row's queen, -1 for none */
    uint64_t cand[NQ_PQ_MAX]; /* open squares of each row: no queen in its row, column or diagonals,
                                   not excluded; 0 for a row with a queen */
    uint64_t cols_open;       /* columns without a queen */
    uint64_t rows_open;       /* rows without a queen */
    bool broken;              /* two queens attack each other (no solution) */
} nq_pq_state;

/* The squares of row r that a queen on (r0, c0) attacks (r != r0): its column and diagonals. */
static inline uint64_t nq_pq_attacks(int r, int r0, int c0)
{
    const unsigned d = (unsigned)(r > r0 ? r - r0 : r0 - r) & 63u; /* rows < 64: no change */
    const uint64_t q = UINT64_C(1) << ((unsigned)c0 & 63u);
    return q | q << d | q >> d; /* the column; the diagonals, where they stay on a 64-wide row */
}

/* The empty board of size n (2 <= n <= 62): every square open. */
void nq_pq_state_init(nq_pq_state *s, int n);

/* Place a queen on (r, c): its row and column close, and every square it attacks. A queen on a
 * square that is not open (attacked, or its row or column taken) sets s->broken instead, the
 * queen is still recorded when its row is free. */
void nq_pq_place(nq_pq_state *s, int r, int c);

/* Exclude the square (r, c) (a mark or a deduction); nothing when it is not open. */
void nq_pq_exclude(nq_pq_state *s, int r, int c);

/* The open squares of column c, as a mask of rows. */
uint64_t nq_pq_col(const nq_pq_state *s, int c);

/* ---- the exact counter ---------------------------------------------------------------------- */

/* What a count found. */
typedef struct nq_pq_count {
    uint64_t limit;           /* stop at this many solutions (>= 1) */
    uint64_t found;           /* out: solutions found, at most limit */
    int16_t first[NQ_PQ_MAX]; /* out: the first solution found (columns), when found > 0 */
} nq_pq_count;

/* Count the completions of s (its queens kept, its excluded squares closed) up to c->limit. The
 * search places a queen in the row or column with the fewest open squares first, and a line with
 * one open square before any choice; every queen it places is one node of w. A broken state has no
 * completion. Returns NQ_OK, or nq__puzzle_tick's error (c->found then counts those found so far). */
nq_err nq_pq_count_run(const nq_pq_state *s, nq__puzzle_work *w, nq_pq_count *c);

/* ---- the deduction engine (puzzle_queens_rules.c) ------------------------------------------- */

/* One deduction: a queen to place or a square to exclude, the rule, and what its sentence names. */
typedef struct nq_pq_step {
    nq_puzzle_rule rule;         /* SINGLE_SQUARE, PAIR_LINES, LINES_IN_LINES, NO_ROOM or TRIAL */
    bool place;                  /* a queen on (row, col); else (row, col) is excluded */
    int row, col;                /* the square */
    nq__puzzle_why_args why;     /* the sentence's placeholders */
    uint64_t because[NQ_PQ_MAX]; /* the squares it rests on, never (row, col) itself */
} nq_pq_step;

/* How far the rules got. */
typedef enum nq_pq_outcome {
    NQ_PQ_SOLVED = 0, /* every row has a queen */
    NQ_PQ_STUCK = 1,  /* no rule says anything new */
    NQ_PQ_DEAD = 2,   /* a contradiction: some row or column has nowhere left (no solution) */
    NQ_PQ_STEP = 3,   /* nq_pq_next: a deduction was found */
} nq_pq_outcome;

/* The easiest deduction the rules up to `max` make from s (rows before columns, then row-major;
 * LINES_IN_LINES: the one with the shortest sentence): *outcome NQ_PQ_STEP and *out; NQ_PQ_STUCK
 * when there is none, NQ_PQ_SOLVED when s is solved, NQ_PQ_DEAD when s shows a contradiction. Costs
 * w as nq_pq_close's rounds do, and a TRIAL a closure per square it tries.
 * Errors: nq__puzzle_tick's. */
nq_err nq_pq_next(const nq_pq_state *s, nq_puzzle_difficulty max, nq__puzzle_work *w, nq_pq_step *out,
                  nq_pq_outcome *outcome);

/* Apply every deduction of the rules up to `max` to s until none says anything new: the closure,
 * which does not depend on the order (each rule stays true as facts are added), so whether the
 * rules solve a puzzle is decided here far faster than step by step. Each round costs w as many
 * nodes as s has open rows, plus one.
 * Errors: nq__puzzle_tick's (s then holds sound facts, part of the way). */
nq_err nq_pq_close(nq_pq_state *s, nq_puzzle_difficulty max, nq__puzzle_work *w, nq_pq_outcome *outcome);

/* Apply a deduction to s. */
void nq_pq_apply(nq_pq_state *s, const nq_pq_step *step);

/* ---- the kind's glue (puzzle_queens.c) ------------------------------------------------------ */

/* The state of puzzle p with the queens of `queens` placed and the squares of `blocked` excluded
 * (either may be NULL; masks per row). A queen on a clue adds nothing; one on a closed square
 * leaves the state broken. */
void nq_pq_from_puzzle(const nq_puzzle *p, const uint64_t *queens, const uint64_t *blocked, nq_pq_state *s);

/* Run the engine with the rules up to max from s (which it advances) to the end: out as
 * nq_puzzle_grade_of says (stuck or dead: solved false, hardest SEARCH, difficulty EXPERT).
 * Errors: nq__puzzle_tick's. */
nq_err nq_pq_grade_state(nq_pq_state *s, nq_puzzle_difficulty max, nq__puzzle_work *w, nq_puzzle_grade *out);

#endif /* NQ_PUZZLE_QUEENS_H */
