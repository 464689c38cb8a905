/* puzzle_in.h - a puzzle request read from the query (GET /puzzle, GET /puzzle/solve) or from a JSON
 * body (POST /puzzle/solve), checked against this server's limits.
 *
 * A request names its puzzle one of two ways:
 *   generated  kind, n, difficulty and seed (or date, the seed YYYYMMDD): the generator remakes it
 *              (puzzle.h); n is 4..--max-n-puzzle-queens or 5..--max-n-puzzle-regions;
 *   given      (a body only) the puzzle itself: {"kind":"regions","n":6,"regions":["AAABBB",...]} or
 *              {"kind":"queens","n":8,"clues":[[0,3],[5,1]]}; n is 1..--max-n-puzzle-solve.
 * A solve request adds the player's position (queens and marks: "r:c,..." in the query, [[r,c],...] in
 * a body), limit (2..--max-puzzle-limit, default 2) and reveal. generator, when given, must be this
 * server's (NQ_PUZZLE_GENERATOR). Bodies are read strictly, as placements are (placement_in.h): one
 * object, no member twice or unknown, integers exact (past 2^53 - 1 out of range), nesting at most
 * NQ_PUZZLE_IN_DEPTH_MAX levels, RFC 8259 numbers only, no control character or \u0000.
 * Errors are problems ready to send: 400 naming the parameter or member and what is wrong with it
 * (a ragged or wrong-sized map, n + 1 labels, a region in pieces, clues attacking each other, a
 * square off the board), 422 with the limit for a value beyond this server's configuration, 422
 * puzzle-unavailable for another generator or a generated puzzle of a combination the project does
 * not offer (nq_puzzle_offered), before any work.
 * Memory: cJSON's tree of the body, bounded by --max-body-bytes; everything else is on the caller's
 * structs. Thread-safety: reentrant (cJSON is used without its global error pointer).
 */
#ifndef NQ_ROUTES_PUZZLE_IN_H
#define NQ_ROUTES_PUZZLE_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "core/reply.h"
#include "nqueens/puzzle.h"

/* Deepest nesting a body may have: an object holding lists of [row, column] pairs is 3. */
#define NQ_PUZZLE_IN_DEPTH_MAX 4

/* The query keys of GET /puzzle, and of GET /puzzle/solve. */
#define NQ_PUZZLE_KEYS \
    (NQ_QK_KIND | NQ_QK_N | NQ_QK_DIFFICULTY | NQ_QK_SEED | NQ_QK_DATE | NQ_QK_REVEAL | NQ_QK_GENERATOR)
#define NQ_PUZZLE_SOLVE_KEYS (NQ_PUZZLE_KEYS | NQ_QK_QUEENS | NQ_QK_MARKS | NQ_QK_LIMIT)

/* This server's limits on puzzles, from its configuration. */
typedef struct nq_puzzle_limits {
    int max_n_queens;   /* --max-n-puzzle-queens: largest generated queens puzzle */
    int max_n_regions;  /* --max-n-puzzle-regions: largest generated regions puzzle */
    int max_n_solve;    /* --max-n-puzzle-solve: largest given puzzle */
    uint64_t max_limit; /* --max-puzzle-limit: largest limit */
} nq_puzzle_limits;

/* A puzzle as a request names it. Plain data (a route's plan holds it). */
typedef struct nq_puzzle_spec {
    nq_puzzle_kind kind;             /* queens (default) or regions */
    int n;                           /* board size, within the limits */
    bool generated;                  /* made by the generator; else `given` holds it */
    nq_puzzle_difficulty difficulty; /* generated: the difficulty asked (default easy) */
    bool has_seed;                   /* generated: seed or date given (GET /puzzle may give neither) */
    uint64_t seed;                   /* generated: 0..NQ_PUZZLE_SEED_MAX */
    bool has_date;                   /* generated: the seed came from date */
    char date[11];                   /* has_date: "YYYY-MM-DD" */
    nq_puzzle given;                 /* !generated: the puzzle, in canonical labels */
} nq_puzzle_spec;

/* A /puzzle/solve request. Plain data. */
typedef struct nq_puzzle_ask {
    nq_puzzle_spec spec;    /* the puzzle */
    nq_puzzle_position pos; /* the player's queens and marks (never on one square together) */
    uint64_t limit;         /* count solutions up to this: 2..max_limit, default 2 */
    bool reveal;            /* include a solution */
} nq_puzzle_ask;

/* Why a request could not be read: the error, the parameter or member at fault, a sentence. */
typedef struct nq_puzzle_in_error {
    nq_err err;        /* NQ_E_PARAM_*, NQ_E_BAD_REQUEST, NQ_E_PLACEMENT, NQ_E_LIMIT,
                          NQ_E_PUZZLE_UNAVAILABLE, NQ_E_NOMEM */
    const char *param; /* a constant name ("n", "regions", ...), or NULL */
    bool has_limit;    /* NQ_E_LIMIT: `limit` is the largest value accepted */
    uint64_t limit;    /* see has_limit */
    char detail[256];  /* for the problem body; printable ASCII */
} nq_puzzle_in_error;

/* The limits of a configuration. */
void nq_puzzle_limits_of(const nq_config *cfg, nq_puzzle_limits *out);

/* A generated puzzle from a parsed query (keys within NQ_PUZZLE_KEYS; others are ignored): n is
 * required, and seed or date when need_seed. reveal is the caller's to read. Returns NQ_OK or the
 * error with *e filled. */
nq_err nq_puzzle_in_query(const nq_query *q, const nq_puzzle_limits *lim, bool need_seed, nq_puzzle_spec *s,
                          nq_puzzle_in_error *e);

/* A /puzzle/solve request from a parsed query (keys within NQ_PUZZLE_SOLVE_KEYS): a generated puzzle
 * (seed or date required) and the position, limit and reveal. */
nq_err nq_puzzle_in_solve_query(const nq_query *q, const nq_puzzle_limits *lim, nq_puzzle_ask *a,
                                nq_puzzle_in_error *e);

/* A /puzzle/solve request from a JSON body of len bytes (need not be NUL-terminated). */
nq_err nq_puzzle_in_json(const char *body, size_t len, const nq_puzzle_limits *lim, nq_puzzle_ask *a,
                         nq_puzzle_in_error *e);

/* The canonical text of a spec ("kind=regions&n=6&regions=AAABBB,..." or
 * "kind=queens&n=8&difficulty=easy&seed=42"), and with `ask` (may be NULL) its position, limit and
 * reveal after it: every spelling of one request gives the same text (a cache key, an ETag's source,
 * a permalink's query). Returns a malloc'd NUL-terminated string, or NULL without memory. A generated
 * spec must have its seed. */
char *nq_puzzle_in_canonical(const nq_puzzle_spec *s, const nq_puzzle_ask *ask);

/* Answer resp with the problem e describes. */
void nq_puzzle_in_problem(nq_response *resp, const char *instance, const nq_puzzle_in_error *e);

#endif /* NQ_ROUTES_PUZZLE_IN_H */
