/* json.h - the JSON text of solutions and counts: the one renderer the CLI and the server share,
 * and the bound (NQ_JSON_INT_MAX, nq_json_uint) every JSON integer they write or read keeps to.
 *
 * Everything is compact JSON (no whitespace), byte for byte what `nqueens` prints and what nqueensd
 * serves:
 *   a solution, board shape:   [".Q..","...Q","Q...","..Q."]    (row r has its queen at cols[r])
 *   a solution, columns shape: [1,3,0,2]
 *   one row of a solution:     ",\"..Q.\"" or ",2"             (for boards too large to hold at once)
 *   counts:                    {"n":8,"total":92,"unique":12}
 *   a list of solutions:       head, then solutions separated by ",", then tail:
 *                              {"n":4,"total":2,"solutions":[ ... ],"next":"<prefix>1,3,0,2"}
 *                              ("total" may be absent or null; "next" is null after the last page)
 *   NDJSON:                    each solution followed by "\n", no head or tail.
 * Boards hold only '.', 'Q', digits and commas, so nothing ever needs escaping; numbers are written
 * as exact decimal integers, never through a double (A000170(27) is about 2^58, beyond the 2^53 a
 * double holds exactly).
 *
 * Output is a piece of a stream: each function writes its bytes to out[0..cap), NOT NUL-terminated,
 * and their count to *len. Every piece has a size known in advance (the *_SIZE / *_MAX below), so a
 * caller can size a buffer once and never grow it.
 * Failure: arguments are checked first; on error nothing is written to out and *len is unchanged.
 * Thread-safety: pure functions of their arguments: reentrant, no allocation, no global state.
 */
#ifndef NQ_JSON_H
#define NQ_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"
#include "nqueens/solution.h"
#include "nqueens/solver.h"

/* The largest integer written or read as a JSON number: 2^53 - 1, the largest every JSON reader
 * holds exactly (RFC 8259 section 6; a JavaScript number is a double). */
#define NQ_JSON_INT_MAX ((UINT64_C(1) << 53) - 1)

/* Whether d, a JSON number as a parser holds it, is a whole number from 0 on; then *out is it, exact
 * up to NQ_JSON_INT_MAX, and UINT64_MAX beyond: a double past 2^53 is whole but not necessarily the
 * number written ("9007199254740993" reads as 2^53), so a reader's range check refuses it as too
 * large, never as not an integer. Fractions, negatives and NaN are refused (*out untouched). Unlike
 * the writers above it checks nothing else: out must not be NULL. */
bool nq_json_uint(double d, uint64_t *out);

/* How one solution is written. */
typedef enum nq_json_shape {
    NQ_JSON_BOARD,  /* an array of n strings of n characters, '.' with one 'Q' */
    NQ_JSON_COLUMNS /* an array of n integers, the queen's column in each row */
} nq_json_shape;

/* Bytes of any solution of board size n in either shape: the board shape's n * (n + 3) + 1, which
 * is at least the columns shape's. */
#define NQ_JSON_SOLUTION_MAX(n) ((size_t)(n) * ((size_t)(n) + 3u) + 1u)

/* Exact bytes of a solution of board size n in shape (a solution is a permutation of 0..n-1, so
 * all solutions of one n and shape have the same size). 0 when n is outside NQ_N_MIN..NQ_N_MAX or
 * shape is unknown. */
size_t nq_json_solution_size(int n, nq_json_shape shape);

/* Write the n columns at cols as one solution in shape. cols need not be a solution, only n
 * columns each below n (in the columns shape a vector that is not a permutation may then be
 * shorter or longer than nq_json_solution_size; NQ_JSON_SOLUTION_MAX(n) always suffices).
 * Errors: NQ_E_ARG (NULL, unknown shape), NQ_E_RANGE (n), NQ_E_CURSOR (a column >= n),
 * NQ_E_BUFSIZE (cap too small). */
nq_err nq_json_solution(int n, const uint8_t *cols, nq_json_shape shape, char *out, size_t cap, size_t *len);

/* Write row r of a solution of any board size n (the library's any-n solutions, nqueens/solution.h,
 * go far beyond NQ_N_MAX and are streamed a row at a time): the element nq_json_solution writes for
 * that row, a string of n characters with 'Q' at col in the board shape or the integer col in the
 * columns shape, preceded by ',' when r > 0. A solution is '[', rows 0..n-1, ']'. It takes
 * n + 2 bytes (+1 for the comma) in the board shape, the digits of col (+1) in the columns shape.
 * Errors: NQ_E_ARG (out or len NULL, unknown shape), NQ_E_RANGE (n == 0, r >= n or col >= n),
 * NQ_E_BUFSIZE (cap too small). */
nq_err nq_json_row(uint32_t n, uint32_t r, uint32_t col, nq_json_shape shape, char *out, size_t cap, size_t *len);

/* Write rows first .. first + count - 1 (cols[i] is the column of row first + i) as nq_json_row
 * would one after the other, as many whole rows as fit in cap: *done receives how many (0 when not
 * even the first fits), *len the bytes written. The loop a streamed board spends its time in.
 * Errors: NQ_E_ARG (cols, out, done or len NULL, unknown shape), NQ_E_RANGE (n == 0, a row >= n, or
 * a column >= n: nothing is reported written, though bytes before it may have been). */
nq_err nq_json_rows(uint32_t n, uint32_t first, const uint32_t *cols, uint32_t count, nq_json_shape shape, char *out,
                    size_t cap, uint32_t *done, size_t *len);

/* Write rows first .. first + count - 1 whose columns are col, col + 2, col + 4, ... (a run of the
 * construction, nq_construct_run) as nq_json_rows would: as many whole rows as fit in cap, *done
 * receiving how many (0 when not even the first fits), *len the bytes written. In the columns shape
 * a row costs two copies and no division: the text of column / 100 stays the same for 50 rows of a
 * run, and the last two digits come from a table. Errors: NQ_E_ARG (out, done or len NULL, unknown shape), NQ_E_RANGE
 * (n == 0, first + count > n, or a column past n - 1); nothing is then reported written. */
nq_err nq_json_run(uint32_t n, uint32_t first, uint32_t col, uint32_t count, nq_json_shape shape, char *out, size_t cap,
                   uint32_t *done, size_t *len);

/* Write rows first .. n - 1 of a solution as nq_json_rows would, as many whole rows as fit in cap:
 * from its columns (cols[r] the column of row r, all n of them) or, when cols is NULL, from the
 * construction c (nq_json_run a run at a time). *done receives how many rows, *len the bytes. What
 * the server's /solution body and the CLI's `nqueens solution` stream through.
 * Errors: NQ_E_ARG (cols and c both NULL, out, done or len NULL, unknown shape), NQ_E_RANGE (first >= n
 * or a column >= n; c describes a board other than n). */
nq_err nq_json_board_rows(uint32_t n, uint32_t first, const uint32_t *cols, const nq_construct *c, nq_json_shape shape,
                          char *out, size_t cap, uint32_t *done, size_t *len);

/* Most bytes of a counts object: {"n":NN,"total":<20 digits>,"unique":<20 digits>}. */
#define NQ_JSON_COUNTS_MAX 67u

/* Write {"n":n,"total":counts->total,"unique":counts->unique}.
 * Errors: NQ_E_ARG (NULL), NQ_E_RANGE (n outside NQ_N_MIN..NQ_N_MAX), NQ_E_BUFSIZE (cap too small;
 * NQ_JSON_COUNTS_MAX always suffices). */
nq_err nq_json_counts(int n, const nq_counts *counts, char *out, size_t cap, size_t *len);

/* Most bytes of a k-queens counts object: NQ_JSON_COUNTS_MAX plus ,"k":NN. */
#define NQ_JSON_COUNTS_K_MAX (NQ_JSON_COUNTS_MAX + 8u)

/* Write {"n":n,"k":k,"total":..,"unique":..}: the counts of k non-attacking queens (0 <= k <= n).
 * Errors: as nq_json_counts, and NQ_E_RANGE for k outside 0..n. */
nq_err nq_json_counts_k(int n, int k, const nq_counts *counts, char *out, size_t cap, size_t *len);

/* What a list's head says about the size of the whole list. */
typedef enum nq_json_total {
    NQ_JSON_TOTAL_OMIT, /* no "total" member */
    NQ_JSON_TOTAL_NULL, /* "total":null (not known) */
    NQ_JSON_TOTAL_VALUE /* "total":<the value given> */
} nq_json_total;

/* Most bytes of a list's head: {"n":NN,"total":<20 digits>,"solutions":[ */
#define NQ_JSON_HEAD_MAX 50u

/* Write a list's head, {"n":n,["total":...,]"solutions":[ with total written as mode says (value is
 * read only for NQ_JSON_TOTAL_VALUE).
 * Errors: NQ_E_ARG (NULL, unknown mode), NQ_E_RANGE (n), NQ_E_BUFSIZE (NQ_JSON_HEAD_MAX suffices). */
nq_err nq_json_list_head(int n, nq_json_total mode, uint64_t value, char *out, size_t cap, size_t *len);

/* Most bytes of a list's tail for board size n and a prefix of prefix_len bytes:
 * ],"next":"<prefix><up to 2 digits and a comma per column>"} */
#define NQ_JSON_TAIL_MAX(n, prefix_len) ((size_t)(prefix_len) + 3u * (size_t)(n) + 11u)

/* Write a list's tail: ],"next":null} when next is NULL (the list is complete), else
 * ],"next":"<prefix>c0,c1,...,c(n-1)"} with the n columns at next as the cursor that resumes the
 * list after them. prefix (NULL for none) is copied as is, so it must need no escaping: printable
 * ASCII other than '"' and '\\'. The CLI passes none (next is the bare cursor), the server the
 * URL of the next page up to its cursor.
 * Errors: NQ_E_ARG (out or len NULL, a prefix byte that would need escaping), NQ_E_RANGE (n),
 * NQ_E_CURSOR (a column >= n), NQ_E_BUFSIZE (NQ_JSON_TAIL_MAX(n, strlen(prefix)) suffices). */
nq_err nq_json_list_tail(int n, const uint8_t *next, const char *prefix, char *out, size_t cap, size_t *len);

/* One shard of a count spread over machines (`nqueens count N --shard I/K`): which part of which plan
 * it is, and the sums of its tasks. method and release are labels of at most NQ_JSON_LABEL_MAX bytes
 * of letters, digits and ".+-_", so they never need escaping. */
typedef struct nq_json_shard {
    int n;               /* board size */
    uint32_t shard;      /* this shard's number, 0 .. shards - 1 */
    uint32_t shards;     /* how many shards the plan was cut into (>= 1) */
    uint32_t block;      /* dealt to them in blocks of this many consecutive tasks (>= 1, nq_count_block) */
    const char *method;  /* the counting method (nq_count_method) */
    const char *release; /* the release that counted it */
    uint32_t plan;       /* NQ_COUNT_PLAN_VERSION of the plan */
    uint32_t tasks;      /* tasks in the whole plan */
    uint32_t done;       /* tasks of the plan in this shard, every one counted */
    nq_count_sums sums;  /* their sums */
} nq_json_shard;

#define NQ_JSON_LABEL_MAX 32u /* bytes of a shard's method or release */

/* Most bytes of a shard object:
 * {"n":NN,"shard":<10>,"shards":<10>,"block":<10>,"method":"<label>","release":"<label>",
 *  "plan":<10>,"tasks":<10>,"done":<10>,"total":<20>,"burnside":<20>} */
#define NQ_JSON_SHARD_MAX (207u + 2u * NQ_JSON_LABEL_MAX)

/* Write s as {"n":..,"shard":..,"shards":..,"block":..,"method":"..","release":"..","plan":..,
 * "tasks":..,"done":..,"total":..,"burnside":..}, members in that order (total and burnside are
 * exact: the Burnside numerator is 8 x the classes' share, so shards add up before the division
 * by 8). Errors: NQ_E_ARG (NULL, a label that is empty, too long or holds another byte), NQ_E_RANGE
 * (n outside NQ_N_MIN..NQ_COUNT_N_MAX, shards == 0, shard >= shards, block == 0, done > tasks),
 * NQ_E_BUFSIZE (NQ_JSON_SHARD_MAX always suffices). */
nq_err nq_json_count_shard(const nq_json_shard *s, char *out, size_t cap, size_t *len);

#endif /* NQ_JSON_H */
