/* solution_body.h - the /solution body as a pull stream: one board of any size, row by row.
 *
 *   {"n":8,"method":"construct","seed":null,"solution":[1,3,5,7,2,0,6,4]}
 *   {"n":4,"method":"construct","seed":null,"solution":[".Q..","...Q","Q...","..Q."]}   (format=board)
 *   {"n":3,"method":"construct","seed":null,"solution":null}
 *
 * The rows come from the explicit construction (O(1) each, nothing held: memory O(1) whatever n) or
 * from a column array the caller hands over (a random solution: 4n bytes). The same stream renders
 * bodies that are cached (drained into one buffer) and bodies too big to cache (sent as they are
 * made), so both are byte-identical. Since a solution is a permutation of 0..n-1, the body's size is
 * known exactly in advance (nq_body_solution_size).
 * Thread-safety: a stream belongs to one thread at a time.
 */
#ifndef NQ_BODY_SOLUTION_H
#define NQ_BODY_SOLUTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/query.h"
#include "nqueens/error.h"

/* What to render; validated by the caller (1 <= n <= NQ_SOLUTION_N_MAX; board only for small n). */
typedef struct nq_solution_spec {
    uint32_t n;       /* board size */
    nq_method method; /* construct or random (names the method in the body) */
    bool has_seed;    /* random: the seed, rendered as a number; else "seed":null */
    uint64_t seed;    /* the seed */
    nq_format format; /* columns (numbers) or board (strings of '.' and 'Q') */
} nq_solution_spec;

typedef struct nq_body_solution nq_body_solution; /* opaque stream */

/* The exact size of the body for spec (the "solution":null body for n = 2, 3). */
size_t nq_body_solution_size(const nq_solution_spec *spec);

/* The bytes a stream for spec holds while it lives: its state (with a staging buffer) and, with_cols,
 * the n columns it was handed. What a streamed response pins. */
size_t nq_body_solution_footprint(const nq_solution_spec *spec, bool with_cols);

/* Create a stream. cols NULL: rows from the construction (n = 2, 3 render null); else cols[0..n) is
 * the solution and the stream takes it over (freed with free() by nq_body_solution_destroy, also
 * when create fails). On success *out owns the stream.
 * Errors: NQ_E_ARG, NQ_E_RANGE (n), NQ_E_NOMEM. */
nq_err nq_body_solution_create(const nq_solution_spec *spec, uint32_t *cols, nq_body_solution **out);

/* Copy up to cap bytes of the body into buf; *len receives how many; *len == 0 with NQ_OK ends it.
 * Errors: NQ_E_ARG. */
nq_err nq_body_solution_read(nq_body_solution *b, char *buf, size_t cap, size_t *len);

/* Render the whole body into one malloc'd buffer (free with free()); cols as for create.
 * Errors: those of create, NQ_E_NOMEM. */
nq_err nq_body_solution_render(const nq_solution_spec *spec, uint32_t *cols, char **out, size_t *len);

/* Free a stream. NULL is accepted. */
void nq_body_solution_destroy(nq_body_solution *b);

#endif /* NQ_BODY_SOLUTION_H */
