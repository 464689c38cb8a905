/* trace.h - the steps of the textbook backtracking search, one event at a time, for visualisers.
 *
 * The search: rows top to bottom, the columns of a row in ascending order, one set each for the
 * columns, diagonals (row - col) and anti-diagonals (row + col) in use. Every column tried is one
 * step: PLACE (the queen goes there; after the last row's PLACE comes SOLUTION) or REJECT with the
 * first rule it breaks, checked in the order column, diagonal, anti-diagonal. REMOVE takes a queen
 * off when the search backs up from it (after a SOLUTION, or when its row below is exhausted). Steps
 * are numbered from 0; the whole trace of n = 4 has 78 steps, n = 8 has 17,868.
 *
 * Resuming: a trace is a deterministic state machine whose state is the queens on the board, the
 * next column to try and the step number: O(n). nq_trace_cursor writes that state as an opaque
 * URL-safe text; nq_trace_resume reads it back in O(n) and checks it whole (its form, a check value
 * over its bytes, and that it is a state the search can be in: queens in range, none attacking,
 * consistent position), so a cursor altered in transit is rejected, never followed. The check value
 * is not a secret: it detects damage and casual edits, not a deliberate forgery, which at worst yields
 * a real search state under a wrong step number. Starting at a step number costs O(step)
 * (nq_trace_skip).
 *
 * Thread-safety: reentrant; an nq_trace belongs to one thread at a time.
 * Memory: an nq_trace is about 100 bytes, allocated once by nq_trace_create; nothing else allocates.
 */
#ifndef NQ_TRACE_H
#define NQ_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/solver.h"

typedef enum nq_trace_op {
    NQ_TRACE_PLACE = 0, /* a queen goes on (row, col) */
    NQ_TRACE_REJECT,    /* (row, col) is attacked: `by` says along which line first */
    NQ_TRACE_REMOVE,    /* the queen on (row, col) comes off */
    NQ_TRACE_SOLUTION   /* every row holds a queen: `columns` */
} nq_trace_op;

typedef enum nq_trace_rule {
    NQ_TRACE_BY_NONE = 0,     /* not a REJECT */
    NQ_TRACE_BY_COLUMN,       /* the column is in use */
    NQ_TRACE_BY_DIAGONAL,     /* the diagonal row - col is in use */
    NQ_TRACE_BY_ANTI_DIAGONAL /* the anti-diagonal row + col is in use */
} nq_trace_rule;

typedef struct nq_trace_step {
    uint64_t step;             /* 0-based number of the step in the whole trace */
    nq_trace_op op;            /* what happened */
    nq_trace_rule by;          /* REJECT: the first rule broken */
    uint8_t row, col;          /* PLACE, REJECT, REMOVE: the square */
    uint8_t columns[NQ_N_MAX]; /* SOLUTION: the n columns, row by row */
} nq_trace_step;

typedef struct nq_trace nq_trace; /* opaque: the search's state */

/* Longest cursor text nq_trace_cursor writes, NUL included. */
#define NQ_TRACE_CURSOR_MAX 80

/* Longest JSON text nq_trace_step_render writes, NUL included. */
#define NQ_TRACE_STEP_JSON_MAX (64 + 3 * NQ_N_MAX)

/* Create a trace of the n x n board positioned before step 0. On success *out owns it
 * (nq_trace_destroy). Errors: NQ_E_ARG (out NULL), NQ_E_RANGE (n outside 1..NQ_N_MAX), NQ_E_NOMEM. */
nq_err nq_trace_create(int n, nq_trace **out);

/* Free a trace. NULL is accepted and ignored. */
void nq_trace_destroy(nq_trace *t);

/* The board size (0 for NULL); the number of the next step; whether no step is left. */
int nq_trace_n(const nq_trace *t);
uint64_t nq_trace_position(const nq_trace *t);
bool nq_trace_done(const nq_trace *t);

/* Write up to max next steps to steps[0..max); *got receives how many (0 once the trace is done).
 * No allocation. Errors: NQ_E_ARG (t, steps or got NULL). */
nq_err nq_trace_next(nq_trace *t, nq_trace_step *steps, size_t max, size_t *got);

/* Advance past up to k steps without reporting them, O(k); *skipped (may be NULL) receives how many
 * (fewer than k only at the end of the trace, or when stopped). ctl (may be NULL) is polled every
 * 2^20 steps; once cancelled the call returns NQ_E_CANCELED, the trace consistent where it stopped.
 * Errors: NQ_E_ARG (t NULL), NQ_E_CANCELED. */
nq_err nq_trace_skip(nq_trace *t, uint64_t k, nq_count_ctl *ctl, uint64_t *skipped);

/* The cursor of t's current position: URL-safe text ([A-Za-z0-9_-]), NUL-terminated, at most
 * NQ_TRACE_CURSOR_MAX bytes with the NUL; *len (may be NULL) receives its length.
 * Errors: NQ_E_ARG (t or out NULL), NQ_E_BUFSIZE (cap too small). */
nq_err nq_trace_cursor(const nq_trace *t, char *out, size_t cap, size_t *len);

/* Move t to the position a cursor of the same n names (len bytes of text, need not be
 * NUL-terminated), in O(n). Errors: NQ_E_ARG (t or text NULL), NQ_E_CURSOR (malformed, damaged,
 * another n, or not a state of the search); on error t is unchanged. */
nq_err nq_trace_resume(nq_trace *t, const char *text, size_t len);

/* The step as one compact JSON object, as /trace sends it:
 *   {"step":1,"op":"reject","row":1,"col":0,"by":"column"}   {"step":30,"op":"solution","columns":[1,3,0,2]}
 * NUL-terminated in out (cap >= NQ_TRACE_STEP_JSON_MAX always suffices); returns the length, 0 when
 * it does not fit or n is outside 1..NQ_N_MAX. */
size_t nq_trace_step_render(const nq_trace_step *s, int n, char *out, size_t cap);

#endif /* NQ_TRACE_H */
