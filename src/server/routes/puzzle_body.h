/* puzzle_body.h - the JSON bodies of /puzzle and /puzzle/solve, byte for byte.
 *
 *   /puzzle        {"kind":"queens","n":8,"difficulty":"easy","generator":"1","seed":42,"regions":null,
 *                   "clues":[[0,3],[5,1]],"solution":null,"grade":{"difficulty":"easy","deductions":14,
 *                   "hardest_rule":"single-square","trials":0}}
 *                  ("date":"YYYY-MM-DD" before "seed" when the request gave one; "regions" the rows
 *                  of labels of a regions puzzle, whose "clues" are []; "solution" the column of each
 *                  row's queen with reveal=true)
 *   /puzzle/solve  {"kind":"regions","n":6,"generator":"1","solutions":1,"unique":true,"solution":null,
 *                   "hint":{"op":"place","square":[2,5],"rule":"single-square","why":"...",
 *                   "because":[[2,4]]},"mistakes":{"queens":[],"marks":[]},"grade":{...}}
 *                  ("hint" null when the position is solved or the puzzle has no solution; "grade"
 *                  null when the engine cannot finish the puzzle: no solution, or several)
 * Squares are [row, column], 0-based; lists of squares are row-major.
 * Thread-safety: pure functions writing into the caller's buffer.
 */
#ifndef NQ_ROUTES_PUZZLE_BODY_H
#define NQ_ROUTES_PUZZLE_BODY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/puzzle.h"
#include "routes/puzzle_in.h"

/* A generated puzzle, as /puzzle answers it. */
typedef struct nq_puzzle_made {
    nq_puzzle puzzle;                  /* the puzzle */
    nq_puzzle_grade grade;             /* its grade */
    bool revealed;                     /* `solution` holds its solution */
    uint8_t solution[NQ_PUZZLE_N_MAX]; /* revealed: the queen's column in each row */
} nq_puzzle_made;

/* What /puzzle/solve found. */
typedef struct nq_puzzle_solved {
    uint64_t solutions;                /* solutions with the player's queens, up to the limit */
    bool found;                        /* `solution` holds one (solutions > 0) */
    uint8_t solution[NQ_PUZZLE_N_MAX]; /* found: the queen's column in each row */
    nq_puzzle_hint hint;               /* the next deduction (op NONE: none) */
    nq_puzzle_position mistakes;       /* queens in no solution, marks on the solution's squares */
    bool graded;                       /* the engine finished the puzzle: `grade` holds its grade */
    nq_puzzle_grade grade;             /* see graded */
} nq_puzzle_solved;

/* The most bytes the bodies below take for a board of n (1..NQ_PUZZLE_N_MAX). */
size_t nq_puzzle_body_made_max(int n);
size_t nq_puzzle_body_solved_max(int n);

/* The body of /puzzle for spec s (generated, seeded) and what was made, into out (cap bytes, at
 * least nq_puzzle_body_made_max(s->n)); returns its length, 0 when it did not fit. */
size_t nq_puzzle_body_made(const nq_puzzle_spec *s, const nq_puzzle_made *m, char *out, size_t cap);

/* The body of /puzzle/solve for request a and what was found, into out (cap bytes, at least
 * nq_puzzle_body_solved_max(a->spec.n)); returns its length, 0 when it did not fit. */
size_t nq_puzzle_body_solved(const nq_puzzle_ask *a, const nq_puzzle_solved *r, char *out, size_t cap);

#endif /* NQ_ROUTES_PUZZLE_BODY_H */
