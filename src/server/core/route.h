/* route.h - what a route is to the pipeline: one row of a route table naming its steps (work.h),
 * matched in order, the table ending in a fallback row. The table itself is the routes' own
 * (routes/table.c); the core is given it at creation and never names a route.
 *
 * Every public route answers GET, HEAD and OPTIONS (the preflight is answered by the core before
 * any step runs), and POST when its Allow lists it: the core then hands parse a request whose body is
 * a JSON placement of the right type and size (app.h, "request bodies"), and parse reads it instead
 * of the query. Any other method gets 405 with Allow. Routes are matched exactly (or by prefix for
 * the rows that say so), case-sensitively, on the path as nq_route_normalize leaves it.
 * Adding a route: a file routes/<name>.c with its steps, declared in routes/<name>.h, and one row in
 * routes/table.c.
 * Thread-safety: the table is constant; matching is a pure function.
 */
#ifndef NQ_CORE_ROUTE_H
#define NQ_CORE_ROUTE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/app.h"
#include "core/work.h"

/* parse: fill w->plan (and w->key, when the answer is cacheable) from req; false with resp complete
 * (a problem) when the request cannot be served. NULL: nothing to parse. */
typedef bool (*nq_route_parse_fn)(nq_app_work *w, const nq_request *req, nq_response *resp);

/* answer: complete resp without computing (NQ_APP_DONE), or ask for the computation. */
typedef nq_app_step (*nq_route_answer_fn)(nq_app_work *w, const nq_request *req, nq_response *resp);

/* compute: run the plan's computation into r (zeroed by the core); any thread, w only read.
 * ctl (may be NULL) lets the pool cancel it. NULL for routes that never compute. */
typedef nq_err (*nq_route_compute_fn)(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);

/* finish: complete resp from a computation's result (borrowed, shared by every identical request). */
typedef void (*nq_route_finish_fn)(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

/* late: complete resp for a request whose wait ended before its computation did. */
typedef void (*nq_route_late_fn)(const nq_app_work *w, nq_response *resp);

/* exists: for a prefix row, whether path names one of its resources. When it does not, the method
 * rules are skipped and the answer step says 404, so an unknown name is a 404 whatever the method. */
typedef bool (*nq_route_exists_fn)(const nq_app *app, const char *path);

struct nq_route {
    const char *path;            /* exact path, or prefix when `prefix`; NULL in the fallback row */
    bool prefix;                 /* match any path starting with `path` */
    const char *name;            /* short [a-z_] label for logs and metrics */
    const char *allow;           /* the Allow header value */
    nq_route_parse_fn parse;     /* step 1 */
    nq_route_answer_fn answer;   /* step 2 (never NULL) */
    nq_route_compute_fn compute; /* step 3 */
    nq_route_finish_fn finish;   /* step 4 (set when compute is) */
    nq_route_late_fn late;       /* instead of step 4 when the wait ran out; NULL: a 503 */
    nq_route_exists_fn exists;   /* prefix rows: does the path name a resource; NULL: it does */
};

/* The route of table for path (NUL-terminated): the first row that matches; the fallback row when
 * none does (its path is NULL). Never returns NULL for a non-NULL path. */
const nq_route *nq_route_find(const nq_route *table, const char *path);

/* Whether route answers POST with a JSON body: its Allow lists POST (/check, /complete, /puzzle/solve). */
bool nq_route_takes_body(const nq_route *route);

/* Normalise a raw request path (NUL-terminated) into out (cap bytes): percent-escapes of unreserved
 * characters (ALPHA, DIGIT, '-', '.', '_', '~') are decoded, since RFC 3986 section 6.2.2.2 makes
 * "/so%6Cve" and "/solve" the same URI; every other byte, including any other escape ("%2F" stays
 * "%2F", so an encoded slash never becomes a separator) and a malformed one, is kept as received.
 * Returns false, with out unspecified, when the result does not fit (no route is that long). */
bool nq_route_normalize(const char *raw, char *out, size_t cap);

#endif /* NQ_CORE_ROUTE_H */
