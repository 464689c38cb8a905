/* placement.h - boards of any size with any queens on them: parse, canonicalise and check.
 *
 * A placement is a set of distinct squares of an n x n board, 1 <= n <= NQ_PLACEMENT_N_MAX: full or
 * partial, legal or not, any number of queens per row. It is what /check reads and what a solution of
 * any size is checked as. Rows and columns are 0-based uint32_t (n reaches 10^9, past uint8_t and
 * past what the n <= 32 enumerator of solver.h handles).
 *
 * Two textual forms, shared by query strings and the CLI (the JSON forms build through
 * nq_placement_add):
 *   columns  "c0,c1,...,c(n-1)": exactly n entries, one per row, each a column 0..n-1 or "-" for a
 *            row without a queen;
 *   queens   "r:c,r:c,...": any squares in any order; "" is the empty board.
 * Numbers are plain ASCII decimal digits: no sign, space, "0x" or leading zero other than "0" itself.
 *
 * Canonical form: a finished placement keeps its queens sorted in row-major order (by row, then
 * column), so two spellings of the same set of squares give the same queen list, and the same text
 * from nq_placement_render_queens (a cache key).
 *
 * Ownership: an nq_placement is created by nq_placement_create or a parser and freed by
 * nq_placement_destroy; nothing else is handed out that the caller must free.
 * Thread-safety: every function is reentrant. A placement is built by one thread; once finished it is
 * read-only, and any number of threads may check or render it at once.
 * Failure: arguments are checked first; a failed call leaves no object the caller must free. Parse
 * failures return NQ_E_PLACEMENT and fill an nq_placement_error naming the entry and the reason.
 */
#ifndef NQ_PLACEMENT_H
#define NQ_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"

/* Largest board: rows, columns and the diagonal indices r + c < 2n stay below 2^31, and n^2 below
 * 2^60 (a square as one 64-bit sort key). */
#define NQ_PLACEMENT_N_MAX 1000000000u

typedef struct nq_square {
    uint32_t row; /* 0..n-1 */
    uint32_t col; /* 0..n-1 */
} nq_square;

typedef struct nq_placement nq_placement; /* opaque: n, a capacity and the queens */

/* ---- errors ----------------------------------------------------------------------------------- */

/* Why an entry was rejected. The values are stable (they may be logged). */
typedef enum nq_placement_reason {
    NQ_PLACEMENT_OK = 0,           /* no error */
    NQ_PLACEMENT_EMPTY = 1,        /* the entry is empty ("1,,2", a trailing comma, "" for columns) */
    NQ_PLACEMENT_MALFORMED = 2,    /* not a number or "-" (columns), not "row:column" (queens) */
    NQ_PLACEMENT_LEADING_ZERO = 3, /* a number with a leading zero ("07") */
    NQ_PLACEMENT_ROW_RANGE = 4,    /* row >= n (value holds it, or UINT64_MAX when it overflowed) */
    NQ_PLACEMENT_COL_RANGE = 5,    /* column >= n (as for rows) */
    NQ_PLACEMENT_DUPLICATE = 6,    /* entry gives `square` again, which entry `other` gave first */
    NQ_PLACEMENT_TOO_FEW = 7,      /* columns: fewer than n entries (entry = how many there were) */
    NQ_PLACEMENT_TOO_MANY = 8      /* columns: more than n entries (entry = n); builder: over capacity */
} nq_placement_reason;

/* Which way the placement came: it changes what "malformed" means in a description. */
typedef enum nq_placement_form {
    NQ_PLACEMENT_FORM_COLUMNS, /* nq_placement_parse_columns */
    NQ_PLACEMENT_FORM_QUEENS,  /* nq_placement_parse_queens */
    NQ_PLACEMENT_FORM_BUILT    /* nq_placement_add / nq_placement_finish */
} nq_placement_form;

typedef struct nq_placement_error {
    nq_placement_reason reason; /* NQ_PLACEMENT_OK when there is no error */
    nq_placement_form form;     /* how the placement was given */
    uint64_t entry;             /* 0-based index of the entry at fault, in the order given */
    uint64_t other;             /* DUPLICATE: the earlier entry with the same square */
    uint64_t value;             /* ROW_RANGE, COL_RANGE: the value (UINT64_MAX: overflowed) */
    nq_square square;           /* DUPLICATE: the square given twice */
    uint32_t n;                 /* the board size */
    size_t offset;              /* string parsers: byte offset where the entry starts */
} nq_placement_error;

/* Write a sentence a person can act on ("entry 3: column 9 is not in 0..7") to buf, NUL-terminated
 * and truncated to cap bytes; returns the length it wanted (as snprintf). Thread-safe. */
size_t nq_placement_error_describe(const nq_placement_error *e, char *buf, size_t cap);

/* ---- building --------------------------------------------------------------------------------- */

/* Create an empty placement on an n x n board with room for `capacity` queens (allocated at once,
 * 8 bytes each; a parser sizes it from its input, a JSON layer from its array length). The placement
 * is open: add queens, then nq_placement_finish. On success *out owns it (nq_placement_destroy).
 * Errors: NQ_E_ARG (out NULL, capacity >= 2^32 - 1), NQ_E_RANGE (n outside 1..NQ_PLACEMENT_N_MAX),
 * NQ_E_NOMEM. */
nq_err nq_placement_create(uint32_t n, size_t capacity, nq_placement **out);

/* Free a placement. NULL is accepted and ignored. */
void nq_placement_destroy(nq_placement *p);

/* Add the queen of entry `entry` (the caller's 0-based index, used only to name it in an error) at
 * row:col. Values arrive as uint64_t so a JSON layer can pass what it read without narrowing first.
 * Errors: NQ_E_ARG (p NULL or finished), NQ_E_PLACEMENT with *perr (may be NULL) filled: ROW_RANGE,
 * COL_RANGE, TOO_MANY (capacity reached). A failed add leaves p as it was. */
nq_err nq_placement_add(nq_placement *p, uint64_t entry, uint64_t row, uint64_t col, nq_placement_error *perr);

/* Close p: sort the queens into row-major order (skipped when they already are, as from the columns
 * form) and reject a square given twice. O(queens) time: an LSD radix sort on the 64-bit square
 * number, about log2(n^2)/11 passes; O(queens) extra memory, freed before it returns.
 * Errors: NQ_E_ARG (p NULL or already finished), NQ_E_NOMEM, NQ_E_PLACEMENT with *perr filled:
 * DUPLICATE, naming the smallest square (row-major) given twice: `entry` is its second occurrence and
 * `other` its first, counted in the order the queens were added. p stays open after an error. */
nq_err nq_placement_finish(nq_placement *p, nq_placement_error *perr);

/* ---- parsing ---------------------------------------------------------------------------------- */

/* Parse the columns form (see the top of this file) of an n x n board from s[0..len) (s need not be
 * NUL-terminated). On success *out owns a new finished placement. Memory: 8 bytes per queen.
 * Errors: NQ_E_ARG (s or out NULL), NQ_E_RANGE (n), NQ_E_NOMEM, NQ_E_PLACEMENT with *perr (may be
 * NULL) naming the first entry at fault, from left to right: EMPTY, MALFORMED, LEADING_ZERO,
 * COL_RANGE, TOO_MANY (an entry after the n-th), TOO_FEW. */
nq_err nq_placement_parse_columns(uint32_t n, const char *s, size_t len, nq_placement **out, nq_placement_error *perr);

/* Parse the queens form. Memory: 2 bytes per byte of input (8 bytes per queen, and each entry takes
 * at least "r:c,"), plus twice that while the queens are sorted.
 * Errors: as nq_placement_parse_columns, with ROW_RANGE and DUPLICATE, without TOO_FEW/TOO_MANY.
 * Syntax and range errors are found first, left to right; DUPLICATE only once everything parsed. */
nq_err nq_placement_parse_queens(uint32_t n, const char *s, size_t len, nq_placement **out, nq_placement_error *perr);

/* ---- reading ---------------------------------------------------------------------------------- */

/* Board size (0 for NULL). */
uint32_t nq_placement_n(const nq_placement *p);

/* Number of queens (0 for NULL). */
size_t nq_placement_count(const nq_placement *p);

/* The queens: nq_placement_count entries, row-major once finished; owned by p, valid until p is
 * destroyed or (while open) added to. NULL for NULL or an empty placement. */
const nq_square *nq_placement_queens(const nq_placement *p);

/* Bytes nq_placement_render_queens needs for p, including the NUL. */
size_t nq_placement_render_size(const nq_placement *p);

/* The canonical queens form of a finished p ("0:1,2:3"; "" when empty), NUL-terminated in out.
 * Equal sets of squares give equal text whatever form or order they were given in, so it serves as a
 * cache key. *len (may be NULL) receives the length without the NUL.
 * Errors: NQ_E_ARG (NULL, or p not finished), NQ_E_BUFSIZE (cap < nq_placement_render_size(p)). */
nq_err nq_placement_render_queens(const nq_placement *p, char *out, size_t cap, size_t *len);

/* ---- checking --------------------------------------------------------------------------------- */

typedef struct nq_pair {
    nq_square first;  /* the earlier square in row-major order */
    nq_square second; /* the later one */
} nq_pair;

typedef struct nq_check_report {
    uint64_t queens;    /* queens on the board */
    uint64_t conflicts; /* attacking pairs, exact (n queens on one line make n(n-1)/2) */
    bool valid;         /* conflicts == 0 */
    bool complete;      /* valid and n queens */
    size_t listed;      /* pairs written to the caller's array: min(conflicts, cap) */
} nq_check_report;

/* Check a finished placement: count the attacking pairs (two queens attack when they share a row, a
 * column, a diagonal or an anti-diagonal, whatever stands between them) and list the first `cap` of
 * them into pairs[0..cap), each pair once, ordered by first square then second, row-major.
 * pairs may be NULL when cap is 0.
 *
 * How: two distinct squares share at most one line, so the count is the sum over all lines of
 * k(k-1)/2 for the k queens on it, with no overlaps to subtract. Lines are counted with one byte per
 * line of a family (the spill past 255 queens on a line sorted and counted apart) when n is at most a
 * few times the number of queens, else by sorting the queens' line numbers, so memory never grows
 * with n for a small placement on a huge board. The list comes from each line's queens in row-major
 * order: a queen's later partners are the entries after it on its four lines, four sorted streams
 * merged until cap pairs are out.
 * Cost: O(n + queens) time, never O(queens^2). Memory O(queens), allocated inside the call and freed
 * before it returns: byte counters (2n bytes, so about 2 bytes per queen of a full board) only while
 * 2n - 1 <= 8 * queens + 65536, else 16 bytes per queen; listing, only when there are conflicts and
 * cap > 0, adds O(queens) time and up to 40 bytes per queen, plus O(cap) to write the pairs.
 * Errors: NQ_E_ARG (p or out NULL, p not finished, pairs NULL with cap > 0), NQ_E_NOMEM.
 * Thread-safe for concurrent checks of the same placement. */
nq_err nq_placement_check(const nq_placement *p, nq_pair *pairs, size_t cap, nq_check_report *out);

#endif /* NQ_PLACEMENT_H */
