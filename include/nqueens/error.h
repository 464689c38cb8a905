/* error.h - the one error table of nqueens: codes, messages, HTTP statuses, problem types.
 *
 * Every fallible function in the library and the server returns an nq_err. The table below is the
 * single place to add an error: it generates the enum, the messages, the HTTP status each maps to and
 * the RFC 9457 problem type and title the server puts in its error bodies.
 *
 * Rules: codes are never renumbered or reused; a new error is appended with the next free number.
 * All functions here are pure lookups on constant data: thread-safe, never fail, never allocate.
 */
#ifndef NQ_ERROR_H
#define NQ_ERROR_H

/* X(NAME, code, http_status, problem_slug, title)
 * The problem type URI is NQ_PROBLEM_TYPE_BASE followed by the slug; the server documents each one. */
#define NQ_ERR_TABLE(X)                                                                          \
    /* success */                                                                                \
    X(OK, 0, 200, "ok", "OK")                                                                    \
    /* library errors: what a caller of libnqueens can see */                                    \
    X(E_ARG, 1, 500, "internal-error", "Invalid argument")                                       \
    X(E_RANGE, 2, 400, "invalid-parameter", "Board size out of range")                           \
    X(E_CURSOR, 3, 400, "invalid-cursor", "Invalid cursor")                                      \
    X(E_NOMEM, 4, 503, "out-of-memory", "Out of memory")                                         \
    X(E_CANCELED, 5, 503, "computation-cancelled", "Computation cancelled")                      \
    X(E_NOT_SOLUTION, 6, 422, "not-a-solution", "Not a solution")                                \
    X(E_BUFSIZE, 7, 500, "internal-error", "Buffer too small")                                   \
    X(E_THREAD, 8, 503, "thread-failure", "Could not start a thread")                            \
    /* request errors: what the HTTP service answers with */                                     \
    X(E_PARAM_MISSING, 20, 400, "missing-parameter", "Missing parameter")                        \
    X(E_PARAM_DUPLICATE, 21, 400, "duplicate-parameter", "Duplicate parameter")                  \
    X(E_PARAM_UNKNOWN, 22, 400, "unknown-parameter", "Unknown parameter")                        \
    X(E_PARAM_INVALID, 23, 400, "invalid-parameter", "Invalid parameter")                        \
    X(E_PARAM_CONFLICT, 24, 400, "conflicting-parameters", "Conflicting parameters")             \
    X(E_LIMIT, 25, 422, "limit-exceeded", "Beyond this server's limits")                         \
    X(E_TOO_LARGE, 26, 422, "result-too-large", "Result too large")                              \
    X(E_NOT_FOUND, 27, 404, "not-found", "Not found")                                            \
    X(E_METHOD, 28, 405, "method-not-allowed", "Method not allowed")                             \
    X(E_URI_TOO_LONG, 29, 414, "uri-too-long", "URI too long")                                   \
    X(E_HEADERS_TOO_LARGE, 30, 431, "headers-too-large", "Request header fields too large")      \
    X(E_BUSY, 31, 503, "overloaded", "Service overloaded")                                       \
    X(E_DEADLINE, 32, 503, "deadline-exceeded", "Computation still running")                     \
    X(E_DRAINING, 33, 503, "shutting-down", "Service shutting down")                             \
    X(E_INTERNAL, 34, 500, "internal-error", "Internal error")                                   \
    X(E_BAD_REQUEST, 35, 400, "bad-request", "Bad request")                                      \
    X(E_LISTEN, 36, 500, "internal-error", "Cannot listen on the address (in use, or not this host's)") \
    X(E_BODY_TOO_LARGE, 37, 413, "content-too-large", "Content too large")                      \
    X(E_NOT_IMPLEMENTED, 38, 501, "not-implemented", "Not implemented")

/* Base of every problem type URI. Relative, so it resolves against the server that answered; the
 * server serves a description of each problem at that path. */
#define NQ_PROBLEM_TYPE_BASE "/problems/"

typedef enum nq_err {
#define NQ_ERR_ENUM_(name, code, status, slug, title) NQ_##name = (code),
    NQ_ERR_TABLE(NQ_ERR_ENUM_)
#undef NQ_ERR_ENUM_
} nq_err;

/* A short human-readable message (the title) for err; "Unknown error" for a value not in the table. */
const char *nq_err_message(nq_err err);

/* The stable identifier of err ("E_RANGE"), for logs; "E_UNKNOWN" for a value not in the table. */
const char *nq_err_name(nq_err err);

/* The HTTP status err maps to; 500 for a value not in the table. */
int nq_err_http_status(nq_err err);

/* The problem slug ("invalid-parameter"); the full type URI is NQ_PROBLEM_TYPE_BASE + slug.
 * "internal-error" for a value not in the table. */
const char *nq_err_problem_slug(nq_err err);

#endif /* NQ_ERROR_H */
