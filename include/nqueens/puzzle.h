/* puzzle.h - queens puzzles with exactly one solution: parse, count, hint, grade and generate them.
 *
 * Two kinds of puzzle, both on an n x n board, n <= NQ_PUZZLE_N_MAX:
 * - queens: some queens are given (the clues); place the others so that no two share a row, a column
 *   or a diagonal (an N-Queens completion).
 * - regions: the board is cut into n 4-connected regions; place n queens, one in each row, column and
 *   region, no two of them touching (the 8 neighbours of a square).
 * A puzzle is a plain value (nq_puzzle), built by nq_puzzle_init_regions / nq_puzzle_init_queens from
 * untrusted input or by nq_puzzle_generate from a seed. A player's position (nq_puzzle_position) is
 * the queens placed so far and the marks (squares ruled out), one 64-bit mask per row each.
 *
 * How: an exact search counts solutions (bit masks per row, column, region and diagonal; it branches on
 * the row, column or region with the fewest candidates). A deduction engine of named rules
 * (NQ_PUZZLE_RULE_TABLE) solves a puzzle as a person would, always with the easiest rule that says
 * something new; a puzzle's difficulty is the hardest rule the engine needs from the empty board.
 * The generator draws a puzzle from a seed with the library's own PRNG, proves its uniqueness with the
 * exact search (never with the engine alone), grades it, and retries from the next sub-seed until the
 * grade is the one asked: the same (kind, n, difficulty, seed, NQ_PUZZLE_GENERATOR) give the same
 * puzzle on every machine. docs/puzzles.md lists the rules, the combinations offered and their cost.
 *
 * Work: every search takes a node budget (max_nodes; 0 = none) and an nq_count_ctl (may be NULL)
 * that is polled every few thousand nodes for cancellation. A search beyond its budget stops with
 * NQ_E_BUDGET (the generator answers NQ_E_PUZZLE_UNAVAILABLE instead: it found no puzzle within it).
 * Thread-safety: every function is reentrant; puzzles and positions are read-only inputs that any
 * number of threads may share; ctl may be cancelled from another thread as for nq_count.
 * Memory: nothing here allocates; a call keeps its state on the stack: O(n^2) words, about 100 KB at
 * n = 62 and 10 KB at n = 16 (a thread running these needs a stack of a few hundred KB, as usual).
 * Failure: arguments are checked first; a failed call leaves its outputs unspecified but needing no
 * cleanup (nothing is ever owned by the caller except what the caller passed in).
 */
#ifndef NQ_PUZZLE_H
#define NQ_PUZZLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"
#include "nqueens/json.h"
#include "nqueens/placement.h"
#include "nqueens/solver.h"

/* ---- limits and constants --------------------------------------------------------------------- */

#define NQ_PUZZLE_N_MAX 62 /* largest board: one 64-bit mask per row; 62 region labels */
/* The sizes nq_puzzle_generate accepts (a service may offer fewer: docs/puzzles.md lists those). */
#define NQ_PUZZLE_QUEENS_GEN_N_MIN 4
#define NQ_PUZZLE_QUEENS_GEN_N_MAX 32
#define NQ_PUZZLE_REGIONS_GEN_N_MIN 5
#define NQ_PUZZLE_REGIONS_GEN_N_MAX NQ_PUZZLE_N_MAX
#define NQ_PUZZLE_SEED_MAX NQ_JSON_INT_MAX /* seeds are JSON integers: at most 2^53 - 1 */
/* The generator's version: puzzles of one seed are the same for as long as this stays the same. */
#define NQ_PUZZLE_GENERATOR "1"
#define NQ_PUZZLE_NONE 0xFF   /* no queen in this row (clues) */
#define NQ_PUZZLE_WHY_MAX 256 /* a hint's sentence, NUL included */
#define NQ_PUZZLE_LABELS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789" /* region labels */

/* ---- kinds, difficulties and rules ------------------------------------------------------------ */

typedef enum nq_puzzle_kind {
    NQ_PUZZLE_QUEENS = 0,  /* "queens": an N-Queens completion */
    NQ_PUZZLE_REGIONS = 1, /* "regions": one queen per row, column and region, none touching */
} nq_puzzle_kind;
#define NQ_PUZZLE_KIND_COUNT 2

typedef enum nq_puzzle_difficulty {
    NQ_PUZZLE_EASY = 0,   /* "easy" */
    NQ_PUZZLE_MEDIUM = 1, /* "medium" */
    NQ_PUZZLE_HARD = 2,   /* "hard" */
    NQ_PUZZLE_EXPERT = 3, /* "expert" */
} nq_puzzle_difficulty;
#define NQ_PUZZLE_DIFFICULTY_COUNT 4

/* The engine's rules: X(ID, name, kinds, difficulty, why). `name` is the stable kebab-case name used
 * on the wire; `kinds` says which kinds use the rule (Q: queens, R: regions, QR: both); `why` is the
 * pattern of the hint's sentence, whose placeholders the engine fills in:
 *   {square}  the hint's square, "row 3, column 5" (rows and columns are counted from 1 in sentences,
 *             as a person reads the board; squares on the wire stay 0-based)
 *   {unit}    a row, a column or a region: "row 3", "column 5", "region C"
 *   {line}    a row or a column; {lines} several ("rows 2 and 4", "columns 1, 3 and 6"); {lines2} a
 *             second set of lines, of the other direction (queens: the columns that rows are confined to)
 *   {region}  "region C"; {regions} several ("regions A, C and F")
 *   {k}       a number of lines or regions, in digits
 * The rows are in order of difficulty; the engine always applies the first that says something new.
 * New rules are added at the end of their difficulty, never renumbered (IDs are not stored anywhere,
 * but names are on the wire). */
#define NQ_PUZZLE_RULE_TABLE(X)                                                                                 \
    X(SINGLE_SQUARE, "single-square", QR, EASY, "{unit} has one square left where a queen attacks nothing.")    \
    X(REGION_IN_LINE, "region-in-line", R, MEDIUM,                                                              \
      "Every free square of {region} is in {line}, so {region}'s queen takes {line} and no other square of "    \
      "{line} can hold a queen.")                                                                               \
    X(LINE_IN_REGION, "line-in-region", R, MEDIUM,                                                              \
      "Every free square of {line} is in {region}, so {line}'s queen is {region}'s and no other square of "     \
      "{region} can hold a queen.")                                                                             \
    X(PAIR_LINES, "pair-lines", Q, MEDIUM,                                                                      \
      "The free squares of {lines} are all in {lines2}, so those two queens take {lines2} and no other square " \
      "there can hold a queen.")                                                                                \
    X(REGIONS_IN_LINES, "regions-in-lines", R, HARD,                                                            \
      "The free squares of {regions} all lie in {lines}: their {k} queens fill those {k} lines, so no other "   \
      "square of them can hold a queen.")                                                                       \
    X(LINES_IN_REGIONS, "lines-in-regions", R, HARD,                                                            \
      "The free squares of {lines} all lie in {regions}: their {k} queens are those regions' queens, so no "    \
      "other square of those regions can hold a queen.")                                                        \
    X(LINES_IN_LINES, "lines-in-lines", Q, HARD,                                                                \
      "The free squares of {lines} all lie in {lines2}: their {k} queens fill those {k} lines, so no other "    \
      "square of them can hold a queen.")                                                                       \
    X(NO_ROOM, "no-room", QR, HARD, "A queen on {square} would leave {unit} with nowhere to go.")               \
    X(TRIAL, "trial", QR, EXPERT,                                                                               \
      "Suppose a queen on {square}: the easier rules then leave {unit} with nowhere to go, so {square} is "     \
      "not a queen.")                                                                                           \
    X(SEARCH, "search", QR, EXPERT,                                                                             \
      "Trying every way to finish the board shows that {square} cannot hold a queen; no shorter argument was "  \
      "found.")

typedef enum nq_puzzle_rule {
#define NQ_PUZZLE_RULE_ENUM_(id, name, kinds, difficulty, why) NQ_PUZZLE_RULE_##id,
    NQ_PUZZLE_RULE_TABLE(NQ_PUZZLE_RULE_ENUM_)
#undef NQ_PUZZLE_RULE_ENUM_
        NQ_PUZZLE_RULE_COUNT
} nq_puzzle_rule;

/* Names of kinds, difficulties and rules ("regions", "hard", "no-room"): constant strings, NULL for
 * a value out of range. Thread-safe. */
const char *nq_puzzle_kind_name(nq_puzzle_kind kind);
const char *nq_puzzle_difficulty_name(nq_puzzle_difficulty difficulty);
const char *nq_puzzle_rule_name(nq_puzzle_rule rule);

/* The value named by s (len bytes, need not be NUL-terminated; exact, case-sensitive match) into
 * *out. Errors: NQ_E_ARG (s or out NULL), NQ_E_PARAM_INVALID (no such name; *out untouched). */
nq_err nq_puzzle_kind_parse(const char *s, size_t len, nq_puzzle_kind *out);
nq_err nq_puzzle_difficulty_parse(const char *s, size_t len, nq_puzzle_difficulty *out);
nq_err nq_puzzle_rule_parse(const char *s, size_t len, nq_puzzle_rule *out);

/* A rule's difficulty; its sentence pattern (the `why` column); whether kind uses it. For a rule out
 * of range: NQ_PUZZLE_EXPERT, NULL, false. Thread-safe. */
nq_puzzle_difficulty nq_puzzle_rule_difficulty(nq_puzzle_rule rule);
const char *nq_puzzle_rule_pattern(nq_puzzle_rule rule);
bool nq_puzzle_rule_of_kind(nq_puzzle_rule rule, nq_puzzle_kind kind);

/* ---- puzzles ---------------------------------------------------------------------------------- */

/* A puzzle: a plain value of about 4 KB, copied freely; no allocation, nothing to free. Fill it with
 * nq_puzzle_init_regions, nq_puzzle_init_queens or nq_puzzle_generate, never by hand (the functions
 * below assume what those check). */
typedef struct nq_puzzle {
    nq_puzzle_kind kind;                               /* which rules apply */
    int n;                                             /* board size, 1..NQ_PUZZLE_N_MAX */
    uint8_t region[NQ_PUZZLE_N_MAX * NQ_PUZZLE_N_MAX]; /* regions: region id of square (r, c) at r * n + c;
                                                          ids 0..n-1 in order of first appearance, row-major */
    uint8_t clue[NQ_PUZZLE_N_MAX];                     /* queens: the given queen's column in row r, or
                                                          NQ_PUZZLE_NONE; all NQ_PUZZLE_NONE for regions */
    int clue_count;                                    /* queens: how many rows have a clue */
} nq_puzzle;

/* What is wrong with a region map or a list of clues. The values are stable (they may be logged). */
typedef enum nq_puzzle_problem {
    NQ_PUZZLE_PROBLEM_NONE = 0,        /* nothing */
    NQ_PUZZLE_PROBLEM_SIZE = 1,        /* n outside 1..NQ_PUZZLE_N_MAX (or the kind's range) */
    NQ_PUZZLE_PROBLEM_ROWS = 2,        /* not n rows: `count` says how many were given */
    NQ_PUZZLE_PROBLEM_RAGGED = 3,      /* row `row` is not n labels long: `count` is its length */
    NQ_PUZZLE_PROBLEM_LABEL = 4,       /* the character `label` at (row, col) is not in NQ_PUZZLE_LABELS */
    NQ_PUZZLE_PROBLEM_LABELS = 5,      /* not n distinct labels: `count` were used */
    NQ_PUZZLE_PROBLEM_CONNECTED = 6,   /* region `label` is in several pieces; (row, col) is in a second one */
    NQ_PUZZLE_PROBLEM_CLUE_RANGE = 7,  /* clue `index` has a row or column outside 0..n-1 */
    NQ_PUZZLE_PROBLEM_CLUE_ATTACK = 8, /* clues `index` and `other` share a row, column or diagonal */
} nq_puzzle_problem;

typedef struct nq_puzzle_error {
    nq_puzzle_problem problem; /* what is wrong; NONE after success */
    int row, col;              /* where (LABEL, CONNECTED: a square; RAGGED: the row); else -1 */
    char label;                /* LABEL: the character at fault; CONNECTED: the region's label as given */
    size_t count;              /* ROWS, RAGGED, LABELS: what was found */
    size_t index, other;       /* CLUE_RANGE, CLUE_ATTACK: 0-based indices of the clues at fault */
    int n;                     /* the board size asked for */
} nq_puzzle_error;

/* A sentence a person can act on ("row 3 has 7 labels, not 6"; "region B is not connected: row 4,
 * column 2 is cut off from the rest"; rows and columns 0-based here, as the input gives them) into
 * buf, NUL-terminated and truncated to cap bytes; returns the length it wanted (as snprintf). */
size_t nq_puzzle_error_format(const nq_puzzle_error *e, char *buf, size_t cap);

/* Build a regions puzzle from `nrows` rows of labels: rows[i] is lens[i] bytes (lens NULL: each row
 * is NUL-terminated). Any characters of NQ_PUZZLE_LABELS may name the regions; they are relabelled in
 * order of first appearance (row-major), so equal maps under another labelling give equal puzzles.
 * The map must have n rows of n labels, exactly n distinct labels, each region 4-connected.
 * Errors: NQ_E_ARG (p NULL, rows NULL with nrows > 0, a row NULL), NQ_E_PUZZLE_INVALID (the map is
 * malformed; *err, if not NULL, says how: the first problem in reading order, checked in the order
 * SIZE, ROWS, RAGGED, LABEL, LABELS, CONNECTED). */
nq_err nq_puzzle_init_regions(nq_puzzle *p, int n, const char *const *rows, const size_t *lens, size_t nrows,
                              nq_puzzle_error *err);

/* Build a queens puzzle of size n with `count` given queens (any order; clues NULL when count is 0).
 * Errors: NQ_E_ARG (p NULL, clues NULL with count > 0), NQ_E_PUZZLE_INVALID (n outside
 * 1..NQ_PUZZLE_N_MAX: SIZE; a clue off the board: CLUE_RANGE; two clues in one row, column or
 * diagonal, or the same square twice: CLUE_ATTACK; *err says which, if not NULL). */
nq_err nq_puzzle_init_queens(nq_puzzle *p, int n, const nq_square *clues, size_t count, nq_puzzle_error *err);

/* The label of region id (0..61), the character NQ_PUZZLE_LABELS[id]; '?' beyond. */
char nq_puzzle_region_label(int id);

/* Row r of a regions puzzle in its canonical labels: n characters and a NUL into buf (cap >= n + 1).
 * Errors: NQ_E_ARG (p or buf NULL, not a regions puzzle, r outside 0..n-1), NQ_E_BUFSIZE. */
nq_err nq_puzzle_region_row(const nq_puzzle *p, int r, char *buf, size_t cap);

/* ---- positions -------------------------------------------------------------------------------- */

/* A player's position: bit c of queens[r] is a queen on (r, c), bit c of marks[r] a square the player
 * has ruled out. Any set of squares is representable (a player's mistakes included); bits at or above
 * n and rows at or above n are ignored. Clues are not part of a position (the puzzle holds them). */
typedef struct nq_puzzle_position {
    uint64_t queens[NQ_PUZZLE_N_MAX]; /* the player's queens */
    uint64_t marks[NQ_PUZZLE_N_MAX];  /* the player's marks */
} nq_puzzle_position;

/* The empty position. */
void nq_puzzle_position_clear(nq_puzzle_position *pos);

/* Put a queen (mark = false) or a mark (mark = true) on (row, col). Errors: NQ_E_ARG (pos NULL),
 * NQ_E_RANGE (row or col outside 0..n-1, n outside 1..NQ_PUZZLE_N_MAX). */
nq_err nq_puzzle_position_set(nq_puzzle_position *pos, int n, int row, int col, bool mark);

/* ---- counting and checking -------------------------------------------------------------------- */

typedef struct nq_puzzle_count_result {
    uint64_t solutions;            /* solutions found, up to the limit: exact when below it */
    bool found;                    /* whether cols holds a solution (solutions > 0) */
    uint8_t cols[NQ_PUZZLE_N_MAX]; /* found: the queen's column in each row of the first solution found */
    uint64_t nodes;                /* search nodes used */
} nq_puzzle_count_result;

/* Count the solutions of p that contain every queen of pos (pos NULL: none; its marks are not
 * constraints), up to limit (>= 1), and keep the first one found. A player's queens that attack each
 * other or a clue give 0 solutions (not an error). max_nodes bounds the search (0: no bound).
 * Errors: NQ_E_ARG (p or out NULL, limit 0), NQ_E_BUDGET (more than max_nodes nodes), NQ_E_CANCELED. */
nq_err nq_puzzle_count(const nq_puzzle *p, const nq_puzzle_position *pos, uint64_t limit, uint64_t max_nodes,
                       nq_count_ctl *ctl, nq_puzzle_count_result *out);

/* The player's mistakes: bit c of queens[r] set for each queen of pos on no solution of p (ignoring
 * the player's other queens), and of marks[r] for each mark of pos on a square that every solution of
 * p holds a queen on (for a puzzle with one solution: the marks on its squares). A puzzle with no
 * solution makes every queen a mistake and no mark. One search for a first solution, then one per
 * queen off it and one per mark on it, all within max_nodes together.
 * Errors: NQ_E_ARG (p, pos or out NULL), NQ_E_BUDGET, NQ_E_CANCELED. */
nq_err nq_puzzle_mistakes(const nq_puzzle *p, const nq_puzzle_position *pos, uint64_t max_nodes, nq_count_ctl *ctl,
                          nq_puzzle_position *out);

/* ---- hints and grades ------------------------------------------------------------------------- */

typedef enum nq_puzzle_op {
    NQ_PUZZLE_OP_NONE = 0,    /* no hint: the position is solved, or the puzzle has no solution */
    NQ_PUZZLE_OP_PLACE = 1,   /* "place": a queen belongs on the square */
    NQ_PUZZLE_OP_EXCLUDE = 2, /* "exclude": no queen can be on the square */
} nq_puzzle_op;

/* The wire name of op ("place", "exclude"); NULL for NONE or out of range. */
const char *nq_puzzle_op_name(nq_puzzle_op op);

typedef struct nq_puzzle_hint {
    nq_puzzle_op op;                   /* what to do; NONE: nothing (the other fields are then zero) */
    int row, col;                      /* the square, 0-based */
    nq_puzzle_rule rule;               /* the rule that shows it */
    char why[NQ_PUZZLE_WHY_MAX];       /* the rule's sentence filled in, NUL-terminated */
    uint64_t because[NQ_PUZZLE_N_MAX]; /* bit c of because[r]: square (r, c) the deduction rests on (the
                                          free squares of the units it names, queens it follows from);
                                          never the hint's own square */
} nq_puzzle_hint;

/* The next deduction from pos: the easiest rule that says something the position does not already
 * say (a queen of pos, the squares its queens attack or, for regions, touch, and its marks). Mistakes
 * (nq_puzzle_mistakes) are left out first: the hint reasons from the rest. Applying each hint (a
 * queen for PLACE, a mark for EXCLUDE) leads to the solution of a puzzle with one solution. A solved
 * position, or a puzzle without solution, gives op NONE. Each hint is sound: a placed square holds a
 * queen in every solution, an excluded one in none (the SEARCH rule is the last resort that makes
 * this hold for every puzzle with one solution). max_nodes bounds all of it together: the searches for
 * mistakes and for the solution, the engine and the fallback.
 * Errors: NQ_E_ARG (p or out NULL; pos NULL means the empty position), NQ_E_BUDGET, NQ_E_CANCELED. */
nq_err nq_puzzle_hint_next(const nq_puzzle *p, const nq_puzzle_position *pos, uint64_t max_nodes, nq_count_ctl *ctl,
                           nq_puzzle_hint *out);

typedef struct nq_puzzle_grade {
    nq_puzzle_difficulty difficulty; /* the hardest rule's difficulty */
    nq_puzzle_rule hardest;          /* the hardest rule the engine needed (SINGLE_SQUARE if none) */
    uint32_t deductions;             /* rule applications from the empty board to the solution */
    uint32_t trials;                 /* of those, TRIAL and SEARCH applications */
    bool solved;                     /* whether the engine reached a full board (false: no solution) */
} nq_puzzle_grade;

/* Run the engine from the empty position to the end and say what it needed. For a puzzle with one
 * solution `solved` is true. max_nodes bounds the work of the whole run (the engine's trials count
 * nodes as the search does). Errors: NQ_E_ARG (p or out NULL), NQ_E_BUDGET, NQ_E_CANCELED. */
nq_err nq_puzzle_grade_of(const nq_puzzle *p, uint64_t max_nodes, nq_count_ctl *ctl, nq_puzzle_grade *out);

/* ---- generating ------------------------------------------------------------------------------- */

/* A puzzle of the kind, size and difficulty from seed (0..NQ_PUZZLE_SEED_MAX) into *out, its grade into
 * *grade (may be NULL). The puzzle has exactly one solution, proven by the exact search; its grade's
 * difficulty is the one asked; the engine's rules up to that difficulty solve it (never SEARCH).
 * Queens puzzles: no clue can be removed without losing uniqueness or raising the difficulty (expert:
 * no clue can be removed at all). Deterministic: the same arguments give the same puzzle on every
 * machine for one NQ_PUZZLE_GENERATOR. max_nodes (0: no bound) bounds the whole generation.
 * Errors: NQ_E_ARG (out NULL, kind or difficulty out of range), NQ_E_RANGE (n outside the kind's
 * NQ_PUZZLE_*_GEN_N_MIN..MAX, seed > NQ_PUZZLE_SEED_MAX), NQ_E_PUZZLE_UNAVAILABLE (no such puzzle
 * exists, or none was found within max_nodes), NQ_E_CANCELED. */
nq_err nq_puzzle_generate(nq_puzzle_kind kind, int n, nq_puzzle_difficulty difficulty, uint64_t seed,
                          uint64_t max_nodes, nq_count_ctl *ctl, nq_puzzle *out, nq_puzzle_grade *grade);

/* Whether the combination is one the project offers by default (docs/puzzles.md, "Combinations
 * offered"): one that exists and that bench/bench_puzzle generates within a median of 0.5 s and a 99th
 * percentile of 3 s on one thread, over seeds 0..99. A service answers the others puzzle-unavailable
 * before generating. false for arguments out of range. Thread-safe. */
bool nq_puzzle_offered(nq_puzzle_kind kind, int n, nq_puzzle_difficulty difficulty);

/* The seed of the daily puzzle of a date "YYYY-MM-DD" (len bytes, exactly 10, need not be
 * NUL-terminated), 2000-01-01..9999-12-31, a real calendar day (leap years Gregorian): YYYYMMDD as a
 * number (2026-12-05 -> 20261205). Errors: NQ_E_ARG (s or seed NULL), NQ_E_PARAM_INVALID (not such
 * a date; *seed untouched). */
nq_err nq_puzzle_date_seed(const char *s, size_t len, uint64_t *seed);

#endif /* NQ_PUZZLE_H */
