/* error.h - the error codes of the nqueens library, with their messages.
 *
 * Every fallible function of the library returns an nq_err: NQ_OK, or one of the codes below. The
 * table is the single place to add one; it generates the constants, the names and the messages.
 *
 * nq_err is an int, not an enum type, so that a program built on the library can add codes of its
 * own at numbers the library leaves free and pass them through the same channels (the nqueensd
 * service keeps its own errors in its own table). The library never takes a number once it has
 * given it out, and never renumbers one.
 *
 * All functions here are pure lookups on constant data: thread-safe, never fail, never allocate.
 */
#ifndef NQ_ERROR_H
#define NQ_ERROR_H

/* The library's errors: X(NAME, code, message). `message` is a short text for logs and the CLI.
 * Rules: codes are never renumbered or reused; a new error takes a number that no program of this
 * project uses for its own codes (the service's table, src/server/base/errors.h, lists those). */
#define NQ_ERR_TABLE(X)                                                             \
    /* success */                                                                   \
    X(OK, 0, "OK")                                                                  \
    /* misuse and resources */                                                      \
    X(E_ARG, 1, "Invalid argument")                                                 \
    X(E_NOMEM, 4, "Out of memory")                                                  \
    X(E_THREAD, 8, "Could not start a thread")                                      \
    X(E_CANCELED, 5, "Computation cancelled")                                       \
    X(E_BUFSIZE, 7, "Buffer too small")                                             \
    /* boards, cursors and placements */                                            \
    X(E_RANGE, 2, "Board size out of range")                                        \
    X(E_CURSOR, 3, "Invalid cursor")                                                \
    X(E_NOT_SOLUTION, 6, "Not a solution")                                          \
    X(E_PLACEMENT, 38, "Invalid placement")                                         \
    /* an answer, not a failure: n = 2 and 3 have no solution */                    \
    X(NO_SOLUTION, 37, "No solution exists for this board size")                    \
    /* input the library parses (numbers: parse.h; placements: placement_json.h) */ \
    X(E_PARAM_MISSING, 20, "Missing parameter")                                     \
    X(E_PARAM_INVALID, 23, "Invalid parameter")                                     \
    X(E_OVERFLOW, 40, "Number too large")                                           \
    X(E_LIMIT, 25, "Beyond the caller's limit")                                     \
    X(E_BAD_REQUEST, 35, "Malformed input")                                         \
    /* puzzles (puzzle.h) */                                                        \
    X(E_BUDGET, 43, "Node budget exhausted")                                        \
    X(E_PUZZLE_INVALID, 44, "Invalid puzzle")                                       \
    X(E_PUZZLE_UNAVAILABLE, 45, "No puzzle of this kind, size and difficulty")

typedef int nq_err; /* NQ_OK, an NQ_E_* code, or NQ_NO_SOLUTION */

enum nq_err_code {
#define NQ_ERR_ENUM_(name, code, message) NQ_##name = (code),
    NQ_ERR_TABLE(NQ_ERR_ENUM_)
#undef NQ_ERR_ENUM_
};

/* A short human-readable message for err; "Unknown error" for a code the library does not define
 * (a program's own, or none). Never NULL. */
const char *nq_err_message(nq_err err);

/* The stable identifier of err ("E_RANGE"), for logs; "E_UNKNOWN" for a code the library does not
 * define. Never NULL. */
const char *nq_err_name(nq_err err);

#endif /* NQ_ERROR_H */
