/* problem.h - RFC 9457 problem details built from the one error table (include/nqueens/error.h).
 *
 * Every error the service answers with is rendered here, with cJSON, so all of them share one shape:
 *   {"type":"/problems/<slug>","title":...,"status":...,"detail":...,"instance":<request path>,
 *    "param":<parameter at fault, when one is>,"limit":<configured limit, for 422 limit errors>}
 * and every problem type has a description served at its type URI (nq_problem_doc).
 *
 * Thread-safety: reentrant (cJSON is used without touching its global error pointer).
 * Memory: bodies are returned in malloc'd memory the caller frees with free().
 */
#ifndef NQ_PROBLEM_H
#define NQ_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "nqueens/error.h"

/* Media type of problem bodies. */
#define NQ_PROBLEM_MEDIA_TYPE "application/problem+json"

/* Longest instance (request path) copied into a body; longer paths are cut. */
#define NQ_PROBLEM_INSTANCE_MAX 256

/* What goes into one problem body besides what the error table says. */
typedef struct nq_problem {
    nq_err err;           /* the error: gives type, title and status */
    const char *instance; /* request path (raw, may be hostile: bytes outside printable ASCII are
                             percent-encoded and it is cut to NQ_PROBLEM_INSTANCE_MAX); NULL: omitted */
    const char *detail;   /* a sentence for a person; NULL: the type's description is used */
    const char *param;    /* parameter at fault, or NULL */
    uint64_t limit;       /* the configured limit, emitted when has_limit */
    int has_limit;        /* nonzero: emit "limit" */
} nq_problem;

/* Render p as compact JSON. On success *out owns a NUL-terminated body of *len bytes (free with
 * free()). Errors: NQ_E_ARG (NULL arguments), NQ_E_NOMEM (nothing is allocated then). */
nq_err nq_problem_render(const nq_problem *p, char **out, size_t *len);

/* The description of problem type `slug` (the part after NQ_PROBLEM_TYPE_BASE) as a JSON document:
 * {"type","title","status","description"}. On success *out is malloc'd as above.
 * Errors: NQ_E_NOT_FOUND (no such slug), NQ_E_ARG, NQ_E_NOMEM. */
nq_err nq_problem_doc(const char *slug, size_t slug_len, char **out, size_t *len);

#endif /* NQ_PROBLEM_H */
