/* errors.h - the one error table of nqueensd: its own error codes, and every code (the library's and
 * its own) mapped to an RFC 9457 problem type with its HTTP status.
 *
 * The library (nqueens/error.h) owns its codes and messages and knows nothing of HTTP. This table adds
 * the service's codes at numbers the library leaves free (nq_err is an int), and maps each code to
 * the problem type an HTTP answer with it carries. NQ_PROBLEM_TABLE holds the problem types (slug,
 * status, title, description: everything an error body and the type's page at /problems/{slug}
 * say). So an error is added in one place: a library error in the library's table plus its row in
 * NQ_LIB_ERR_PROBLEMS (a build error says when it is missing), a service error here.
 *
 * Rules: codes are never renumbered or reused; a new service error takes a number neither table uses.
 * All functions here are pure lookups on constant data: thread-safe, never fail, never allocate.
 */
#ifndef NQ_BASE_ERRORS_H
#define NQ_BASE_ERRORS_H

#include <stddef.h>

#include "nqueens/error.h"

/* The problem types: P(ID, slug, http_status, title, description), one row per kind of problem a
 * response can carry. The type URI is NQ_PROBLEM_TYPE_BASE followed by the slug; title and status
 * belong to the type (RFC 9457), so every error of one type shares them; the description is what
 * the server serves at the type URI and the detail of a problem that has no more specific one. */
#define NQ_PROBLEM_TABLE(P)                                                                                        \
    P(OK, "ok", 200, "OK", "Not a problem: the request succeeded.")                                                \
    P(BAD_REQUEST, "bad-request", 400, "Bad request",                                                              \
      "The request itself is malformed: a query with an empty parameter or a broken percent-escape "               \
      "outside any known parameter, a JSON body that does not parse or is not a placement (a wrong "               \
      "type, an unknown or repeated member, nesting too deep), or a head that breaks HTTP/1.1 (no "                \
      "Host or more than one or one that is not a host, a space before a colon, a header line without a "          \
      "name, a NUL byte, a folded line, a method that is not a token, a "                                          \
      "Content-Length or Transfer-Encoding that leaves the body's end in doubt). Fix the request; "                \
      "retrying it unchanged fails again. The server closes the connection after this answer when the "            \
      "request's framing is in doubt.")                                                                            \
    P(MISSING_PARAMETER, "missing-parameter", 400, "Missing parameter",                                            \
      "A required query parameter is absent; 'param' names it. Add it and retry.")                                 \
    P(DUPLICATE_PARAMETER, "duplicate-parameter", 400, "Duplicate parameter",                                      \
      "A query parameter appears more than once; 'param' names it. Give each parameter once.")                     \
    P(UNKNOWN_PARAMETER, "unknown-parameter", 400, "Unknown parameter",                                            \
      "The query names a parameter this resource does not accept (names are case-sensitive); 'param' "             \
      "names it. Remove it or fix its spelling.")                                                                  \
    P(INVALID_PARAMETER, "invalid-parameter", 400, "Invalid parameter",                                            \
      "A parameter's value can never be valid: integers are plain ASCII decimal digits within the "                \
      "range the detail gives, booleans are 'true' or 'false'. 'param' names the parameter.")                      \
    P(INVALID_CURSOR, "invalid-cursor", 400, "Invalid cursor",                                                     \
      "The cursor does not name a position: on /solve 'after' is not n comma-separated column numbers "            \
      "0..n-1 (as format=columns gives them); on /trace 'cursor' is not one a 'next' link gave for this n. "       \
      "Use the 'next' link of the previous page as it was given.")                                                 \
    P(CONFLICTING_PARAMETERS, "conflicting-parameters", 400, "Conflicting parameters",                             \
      "Two parameters exclude each other ('after' and 'offset'); 'param' names one. Keep one of them.")            \
    P(LIMIT_EXCEEDED, "limit-exceeded", 422, "Beyond this server's limits",                                        \
      "The value is valid but larger than this server is configured to serve; 'param' names the "                  \
      "parameter and 'limit' gives the largest value accepted.")                                                   \
    P(RESULT_TOO_LARGE, "result-too-large", 422, "Result too large",                                               \
      "The answer would hold more solutions than one response may carry ('limit' gives the cap). Ask "             \
      "for a page with 'limit' and walk the pages with 'after' (each page's 'next' link does that).")              \
    P(TOO_COSTLY, "too-costly", 422, "Too costly",                                                                 \
      "By the server's estimate, made before any work, the computation could not finish within its budget "        \
      "(--budget-ms); the detail gives the estimate. Ask for less: an earlier 'from' on /trace (its 'next' "       \
      "links resume in O(n)), more given queens or a smaller board on /complete?count=true.")                      \
    P(NOT_FOUND, "not-found", 404, "Not found",                                                                    \
      "No resource lives at this path. The routes are listed in /openapi.yaml.")                                   \
    P(METHOD_NOT_ALLOWED, "method-not-allowed", 405, "Method not allowed",                                         \
      "The resource exists but does not support this method; the 'Allow' header lists those it does.")             \
    P(URI_TOO_LONG, "uri-too-long", 414, "URI too long", "The request target is longer than this server accepts.") \
    P(HEADERS_TOO_LARGE, "headers-too-large", 431, "Request header fields too large",                              \
      "The request's header fields are larger than this server accepts.")                                          \
    P(OVERLOADED, "overloaded", 503, "Service overloaded",                                                         \
      "Too many computations are running or waiting. Retry after the number of seconds in 'Retry-After'.")         \
    P(DEADLINE_EXCEEDED, "deadline-exceeded", 503, "Computation still running",                                    \
      "The answer took longer than this request may wait; the computation goes on and its result will "            \
      "be cached. Retry after the number of seconds in 'Retry-After'.")                                            \
    P(SHUTTING_DOWN, "shutting-down", 503, "Service shutting down",                                                \
      "This instance is draining before it stops. Retry, and another instance will answer.")                       \
    P(STORE_UNAVAILABLE, "store-unavailable", 503, "Store unavailable",                                            \
      "The database the counts are kept in cannot be reached now; what needs it (a long count, /counts) "          \
      "waits for it, and nothing is lost. Retry after the number of seconds in 'Retry-After'.")                    \
    P(COMPUTATION_CANCELLED, "computation-cancelled", 503, "Computation cancelled",                                \
      "The computation was stopped before it finished (for instance by a budget). Retry later.")                   \
    P(OUT_OF_MEMORY, "out-of-memory", 503, "Out of memory",                                                        \
      "The server could not allocate memory for this request. Retry later.")                                       \
    P(THREAD_FAILURE, "thread-failure", 503, "Could not start a thread",                                           \
      "The server could not start a worker. Retry later.")                                                         \
    P(INVALID_PLACEMENT, "invalid-placement", 400, "Invalid placement",                                            \
      "A placement ('columns' or 'queens') does not parse: the detail names the entry at fault (0-based) "         \
      "and why (malformed, a row or column outside 0..n-1, a square given twice, or not n columns).")              \
    P(CONTENT_TOO_LARGE, "content-too-large", 413, "Content too large",                                            \
      "The request body is larger than this resource accepts ('limit' gives the cap in bytes): its "               \
      "Content-Length says so, or a chunked body grew past it. Send a smaller one.")                               \
    P(UNSUPPORTED_MEDIA_TYPE, "unsupported-media-type", 415, "Unsupported media type",                             \
      "The request body is not of a type this resource reads: a POST to /check, /complete or /puzzle/solve takes " \
      "'Content-Type: application/json' (a charset parameter, if any, must be utf-8).")                            \
    P(PRECONDITION_FAILED, "precondition-failed", 412, "Precondition failed",                                      \
      "The request's If-Match names no current representation of the resource: its strong ETag (of the "           \
      "identity form; gzip forms have weak tags, which If-Match never matches) or '*'. A POST's target has "       \
      "no representation of its own, so any If-Match fails there. Send the request without If-Match, or "          \
      "with the ETag of a response to the same GET.")                                                              \
    P(NOT_IMPLEMENTED, "not-implemented", 501, "Not implemented",                                                  \
      "The request uses a transfer coding this server does not implement; only 'chunked' is.")                     \
    P(PUZZLE_UNAVAILABLE, "puzzle-unavailable", 422, "Puzzle unavailable",                                         \
      "No puzzle of this kind, size and difficulty is offered: none exists, or the generator found none "          \
      "within its node budget (--max-puzzle-nodes), or 'generator' names a generator this server does not "        \
      "have. The combinations offered are listed in the documentation; ask for another size or difficulty.")       \
    P(INTERNAL_ERROR, "internal-error", 500, "Internal error",                                                     \
      "The server failed in a way it did not expect. Retrying may help; the X-Request-Id header "                  \
      "identifies the request in the server's logs.")

/* The service's own errors: X(NAME, code, problem, message). `problem` is the ID of the row of
 * NQ_PROBLEM_TABLE an HTTP answer with this error carries; `message` is the error's own short text,
 * for logs. */
#define NQ_SERVER_ERR_TABLE(X)                                                                   \
    /* requests: what the service answers a malformed or unservable one with */                  \
    X(E_PARAM_DUPLICATE, 21, DUPLICATE_PARAMETER, "Duplicate parameter")                         \
    X(E_PARAM_UNKNOWN, 22, UNKNOWN_PARAMETER, "Unknown parameter")                               \
    X(E_PARAM_CONFLICT, 24, CONFLICTING_PARAMETERS, "Conflicting parameters")                    \
    X(E_TOO_LARGE, 26, RESULT_TOO_LARGE, "Result too large")                                     \
    X(E_NOT_FOUND, 27, NOT_FOUND, "Not found")                                                   \
    X(E_METHOD, 28, METHOD_NOT_ALLOWED, "Method not allowed")                                    \
    X(E_URI_TOO_LONG, 29, URI_TOO_LONG, "URI too long")                                          \
    X(E_HEADERS_TOO_LARGE, 30, HEADERS_TOO_LARGE, "Request header fields too large")             \
    /* the service's own state */                                                                \
    X(E_BUSY, 31, OVERLOADED, "Service overloaded")                                              \
    X(E_DEADLINE, 32, DEADLINE_EXCEEDED, "Computation still running")                            \
    X(E_DRAINING, 33, SHUTTING_DOWN, "Service shutting down")                                    \
    X(E_INTERNAL, 34, INTERNAL_ERROR, "Internal error")                                          \
    X(E_LISTEN, 36, INTERNAL_ERROR, "Cannot listen on the address (in use, or not this host's)") \
    /* request bodies: their framing (the server's own checks of a request head) and type */     \
    X(E_BODY_TOO_LARGE, 39, CONTENT_TOO_LARGE, "Content too large")                              \
    X(E_NOT_IMPLEMENTED, 41, NOT_IMPLEMENTED, "Not implemented")                                 \
    X(E_MEDIA_TYPE, 42, UNSUPPORTED_MEDIA_TYPE, "Unsupported media type")                        \
    /* store errors: start-up refusals and failed writes */                                      \
    X(E_STORE_CORRUPT, 60, INTERNAL_ERROR, "Store file is not a readable nqueens database")      \
    X(E_STORE_FOREIGN, 61, INTERNAL_ERROR, "Store file belongs to another program")              \
    X(E_STORE_NEWER, 62, INTERNAL_ERROR, "Store written by a newer release")                     \
    X(E_STORE_IO, 63, INTERNAL_ERROR, "Store cannot be read or written")                         \
    X(E_STORE_FULL, 66, INTERNAL_ERROR, "Store's disk is full")                                  \
    X(E_STORE_UNAVAILABLE, 68, STORE_UNAVAILABLE, "Store's database cannot be reached")          \
    X(E_STORE_LOST, 69, INTERNAL_ERROR, "Lease on a block of tasks lost")                        \
    /* long counts */                                                                            \
    X(E_PENDING, 64, INTERNAL_ERROR, "Count still running (answered 202, never as a problem)")   \
    /* conditional requests */                                                                   \
    X(E_PRECONDITION, 65, PRECONDITION_FAILED, "Precondition failed")                            \
    /* work refused at parse time */                                                             \
    X(E_TOO_COSTLY, 67, TOO_COSTLY, "Estimated to take longer than the budget")

/* The library's errors as the service answers them: M(NAME, problem), one row per row of the
 * library's NQ_ERR_TABLE (errors.c checks at compile time that none is missing). */
#define NQ_LIB_ERR_PROBLEMS(M)             \
    M(OK, OK)                              \
    M(E_ARG, INTERNAL_ERROR)               \
    M(E_NOMEM, OUT_OF_MEMORY)              \
    M(E_THREAD, THREAD_FAILURE)            \
    M(E_CANCELED, COMPUTATION_CANCELLED)   \
    M(E_BUFSIZE, INTERNAL_ERROR)           \
    M(E_RANGE, INVALID_PARAMETER)          \
    M(E_CURSOR, INVALID_CURSOR)            \
    M(E_NOT_SOLUTION, INTERNAL_ERROR)      \
    M(E_PLACEMENT, INVALID_PLACEMENT)      \
    M(NO_SOLUTION, OK)                     \
    M(E_PARAM_MISSING, MISSING_PARAMETER)  \
    M(E_PARAM_INVALID, INVALID_PARAMETER)  \
    M(E_OVERFLOW, INVALID_PARAMETER)       \
    M(E_LIMIT, LIMIT_EXCEEDED)             \
    M(E_BAD_REQUEST, BAD_REQUEST)          \
    M(E_BUDGET, COMPUTATION_CANCELLED)     \
    M(E_PUZZLE_INVALID, INVALID_PARAMETER) \
    M(E_PUZZLE_UNAVAILABLE, PUZZLE_UNAVAILABLE)

enum nq_server_err_code {
#define NQ_SERVER_ERR_ENUM_(name, code, problem, message) NQ_##name = (code),
    NQ_SERVER_ERR_TABLE(NQ_SERVER_ERR_ENUM_)
#undef NQ_SERVER_ERR_ENUM_
};

/* Base of every problem type URI. Relative, so it resolves against the server that answered; the
 * server serves a description of each problem at that path. */
#define NQ_PROBLEM_TYPE_BASE "/problems/"

/* One problem type: what an error body and the type's own page say. Constant data. */
typedef struct nq_problem_type {
    const char *slug;        /* "invalid-parameter"; the type URI is NQ_PROBLEM_TYPE_BASE + slug */
    int status;              /* the HTTP status answers of this type carry */
    const char *title;       /* short summary of the type */
    const char *description; /* what it means and what to do about it */
} nq_problem_type;

/* The problem type an HTTP answer with err carries; "internal-error" for a code in neither table.
 * Never NULL. */
const nq_problem_type *nq_error_problem(nq_err err);

/* The HTTP status err maps to (its problem type's); 500 for a code in neither table. */
int nq_error_status(nq_err err);

/* The stable identifier of err ("E_RANGE", "E_BUSY"), for logs, from either table; "E_UNKNOWN" for
 * a code in neither. */
const char *nq_error_name(nq_err err);

/* A short human-readable message for err, from either table; "Unknown error" for a code in neither. */
const char *nq_error_message(nq_err err);

/* The problem type with this slug (len bytes, need not be NUL-terminated), or NULL. The "ok" row is
 * not a problem: it is never found. */
const nq_problem_type *nq_problem_find(const char *slug, size_t len);

/* The i-th problem type, i < nq_problem_count(), in table order ("ok" excluded): for documents and
 * tests that list them all. */
size_t nq_problem_count(void);
const nq_problem_type *nq_problem_at(size_t i);

#endif /* NQ_BASE_ERRORS_H */
