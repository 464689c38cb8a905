/* puzzle_impl.h - internal: what puzzle.c (the common part of puzzle.h) asks of each kind of puzzle.
 *
 * puzzle.c checks every argument, owns the names, parsing, positions and mistakes, and dispatches by
 * kind to the functions below: puzzle_regions*.c for regions, puzzle_queens*.c for queens (puzzle.c
 * calls the latter when built with NQ_PUZZLE_QUEENS_KIND defined, as src/solver/CMakeLists.txt does;
 * without it the queens kind's calls answer NQ_E_PUZZLE_UNAVAILABLE). A kind's
 * functions may assume what puzzle.c checked (non-NULL pointers, a puzzle built by nq_puzzle_init_* or
 * the generator, n in range, limit >= 1) and are reentrant, allocation-free and bounded by the work
 * record they are handed (nq__puzzle_work): every search node calls nq__puzzle_tick and stops with its
 * error (NQ_E_BUDGET, NQ_E_CANCELED) as soon as it is not NQ_OK.
 *
 * Division of labour for a hint: puzzle.c removes the player's mistakes from the position, answers
 * NONE for a solved or unsolvable position, and calls the kind's hint; the kind's engine answers the
 * easiest rule's first new fact, or op NONE when none of its rules (up to TRIAL) says anything new;
 * puzzle.c then falls back to the SEARCH rule. Sentences are filled in by nq__puzzle_why, so both
 * kinds speak alike.
 */
#ifndef NQ_PUZZLE_IMPL_H
#define NQ_PUZZLE_IMPL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/puzzle.h"

/* The work one public call may do: its node budget and its cancellation. One per call, never shared
 * between threads (ctl is the shared part). */
typedef struct nq__puzzle_work {
    uint64_t max_nodes; /* 0: no bound */
    uint64_t nodes;     /* nodes used so far, by every search of the call */
    nq_count_ctl *ctl;  /* polled every 4096 nodes; may be NULL */
} nq__puzzle_work;

/* One search node: count it, and say whether the work may go on (NQ_OK), is over its budget
 * (NQ_E_BUDGET) or was cancelled (NQ_E_CANCELED). Cheap enough for every node: the atomic load happens
 * once every 4096 nodes. */
static inline nq_err nq__puzzle_tick(nq__puzzle_work *w)
{
    w->nodes++;
    if (w->max_nodes != 0 && w->nodes > w->max_nodes) return NQ_E_BUDGET;
    if ((w->nodes & 4095u) == 0 && w->ctl != NULL && atomic_load_explicit(&w->ctl->cancel, memory_order_relaxed))
        return NQ_E_CANCELED;
    return NQ_OK;
}

/* What a sentence's placeholders name (puzzle.h, NQ_PUZZLE_RULE_TABLE). Unused fields stay zero. */
typedef enum nq__puzzle_unit_type {
    NQ__UNIT_ROW = 0,
    NQ__UNIT_COL = 1,
    NQ__UNIT_REGION = 2,
} nq__puzzle_unit_type;

typedef struct nq__puzzle_why_args {
    int row, col;                     /* {square} */
    nq__puzzle_unit_type unit_type;   /* {unit}: a row, a column or a region ... */
    int unit;                         /* ... and its index (a region's id) */
    nq__puzzle_unit_type line_type;   /* {line} and {lines}: rows or columns */
    int line;                         /* {line} */
    uint64_t lines;                   /* {lines}: bit i = line i */
    nq__puzzle_unit_type lines2_type; /* {lines2}: rows or columns */
    uint64_t lines2;                  /* {lines2}: bit i = line i */
    int region;                       /* {region}: a region's id */
    uint64_t regions;                 /* {regions}: bit i = region i */
    int k;                            /* {k} */
} nq__puzzle_why_args;

/* Fill in rule's sentence pattern with a into buf (cap bytes, NUL-terminated, truncated if need be).
 * Rows and columns are written counted from 1, regions by their labels. */
void nq__puzzle_why(nq_puzzle_rule rule, const nq__puzzle_why_args *a, char *buf, size_t cap);

/* ---- what each kind provides (KIND is regions or queens) ------------------------------------- */

/* Count the solutions of p that have a queen on every square of `queens` (NULL: none; they may attack
 * each other or the clues: then 0) and none on a square of `blocked` (NULL: none), up to limit;
 * out->cols is the first found. out->nodes is left to the caller (it reads w->nodes).
 * Errors: NQ_E_BUDGET, NQ_E_CANCELED (from nq__puzzle_tick). */
nq_err nq__puzzle_regions_count(const nq_puzzle *p, const uint64_t *queens, const uint64_t *blocked, uint64_t limit,
                                nq__puzzle_work *w, nq_puzzle_count_result *out);
nq_err nq__puzzle_queens_count(const nq_puzzle *p, const uint64_t *queens, const uint64_t *blocked, uint64_t limit,
                               nq__puzzle_work *w, nq_puzzle_count_result *out);

/* The engine's next new fact from pos (mistakes already removed; not solved; p has a solution that
 * contains pos's queens), rules SINGLE_SQUARE..TRIAL of the kind, easiest first; op NONE when none
 * applies. Errors: NQ_E_BUDGET, NQ_E_CANCELED. */
nq_err nq__puzzle_regions_hint(const nq_puzzle *p, const nq_puzzle_position *pos, nq__puzzle_work *w,
                               nq_puzzle_hint *out);
nq_err nq__puzzle_queens_hint(const nq_puzzle *p, const nq_puzzle_position *pos, nq__puzzle_work *w,
                              nq_puzzle_hint *out);

/* Run the engine from the empty position (nq_puzzle_grade_of). When its rules get stuck before the
 * board is full: solved = false, hardest = SEARCH, difficulty = EXPERT.
 * Errors: NQ_E_BUDGET, NQ_E_CANCELED. */
nq_err nq__puzzle_regions_grade(const nq_puzzle *p, nq__puzzle_work *w, nq_puzzle_grade *out);
nq_err nq__puzzle_queens_grade(const nq_puzzle *p, nq__puzzle_work *w, nq_puzzle_grade *out);

/* nq_puzzle_generate for the kind (n and seed already checked against the kind's range). Running out
 * of budget may be answered with NQ_E_BUDGET: puzzle.c turns it into NQ_E_PUZZLE_UNAVAILABLE.
 * Errors: NQ_E_PUZZLE_UNAVAILABLE, NQ_E_BUDGET, NQ_E_CANCELED. */
nq_err nq__puzzle_regions_generate(int n, nq_puzzle_difficulty difficulty, uint64_t seed, nq__puzzle_work *w,
                                   nq_puzzle *out, nq_puzzle_grade *grade);
nq_err nq__puzzle_queens_generate(int n, nq_puzzle_difficulty difficulty, uint64_t seed, nq__puzzle_work *w,
                                  nq_puzzle *out, nq_puzzle_grade *grade);

#endif /* NQ_PUZZLE_IMPL_H */
