/* solve_body.h - the /solve body as a pull stream: JSON envelope or NDJSON, rendered in batches.
 *
 * The body is produced on demand into the caller's buffer (libmicrohttpd's content reader pulls it),
 * so memory is O(batch), never O(answer): an iterator of O(n) bytes plus one batch of rendered
 * solutions. The same stream renders bodies that are cached (drained into one buffer) and bodies
 * that are too big to cache (sent as they are made), so both are byte-identical.
 *
 * Shapes (one solution shown; boards are n strings of '.' and 'Q', columns are n integers):
 *   JSON:   {"n":4,"total":2,"solutions":[[".Q..","...Q","Q...","..Q."],...],"next":null}
 *   NDJSON: [".Q..","...Q","Q...","..Q."]\n  (one line per solution; no envelope, no next)
 * Every solution of a given n and format has the same rendered size (a solution is a permutation of
 * the columns), which makes exact size bounds cheap: see nq_body_solve_size_max.
 *
 * Thread-safety: a stream belongs to one thread at a time; distinct streams are independent.
 */
#ifndef NQ_BODY_SOLVE_H
#define NQ_BODY_SOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "nqueens/solver.h"
#include "core/query.h"

/* What to render; fully validated by the caller (n within the enumerator's range, a cursor of n
 * columns each < n, limit >= 1). */
typedef struct nq_solve_spec {
    int n;                   /* board size */
    nq_format format;        /* board or columns */
    bool unique;             /* one solution per symmetry class */
    bool ndjson;             /* NDJSON lines instead of the JSON envelope */
    uint64_t limit;          /* at most this many solutions in the body (>= 1) */
    bool limit_given;        /* the client asked for a page: "next" links repeat limit */
    uint64_t offset;         /* solutions to skip first */
    bool has_after;          /* start after `after` (excludes offset) */
    uint8_t after[NQ_N_MAX]; /* the cursor: n columns */
    bool has_total;          /* total known: rendered as a number, else null */
    uint64_t total;          /* size of the whole set (all, or unique, solutions) */
} nq_solve_spec;

typedef struct nq_body_solve nq_body_solve; /* opaque stream */

/* Rendered size of one solution (without separator) for n and format. */
size_t nq_body_solve_solution_size(int n, nq_format format);

/* An upper bound of the body size for spec: the page's solutions counted exactly when total is
 * known and there is no cursor (else a full page of `limit`), plus the longest envelope. Saturates
 * at SIZE_MAX. */
size_t nq_body_solve_size_max(const nq_solve_spec *spec);

/* The bytes a stream for spec (valid n) holds while it lives: its state, its batch buffers and the
 * library's enumerator (counted as a kilobyte, its bound). What a streamed response pins. */
size_t nq_body_solve_footprint(const nq_solve_spec *spec);

/* Create a stream positioned at the first solution of the page: seeks to the cursor or skips
 * `offset` solutions (O(offset) work, which the caller bounds). On success *out owns the stream.
 * Errors: NQ_E_ARG, NQ_E_RANGE, NQ_E_CURSOR, NQ_E_NOMEM (from the solver or allocation). */
nq_err nq_body_solve_create(const nq_solve_spec *spec, nq_body_solve **out);

/* Copy up to cap bytes of the body into buf; *len receives how many. *len == 0 with NQ_OK means the
 * body is complete. Errors: NQ_E_ARG; solver errors (the body is then truncated). */
nq_err nq_body_solve_read(nq_body_solve *b, char *buf, size_t cap, size_t *len);

/* Render the whole body into one malloc'd buffer of at most cap bytes (free with free()).
 * Errors: NQ_E_TOO_LARGE (more than cap bytes), NQ_E_NOMEM, and those of create and read. */
nq_err nq_body_solve_render(const nq_solve_spec *spec, size_t cap, char **out, size_t *len);

/* Free a stream. NULL is accepted. */
void nq_body_solve_destroy(nq_body_solve *b);

#endif /* NQ_BODY_SOLVE_H */
