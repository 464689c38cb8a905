/* router.h - the route table of nqueensd: one static table, matched in order, ending in a 404 fallback.
 *
 * Every public route answers GET, HEAD and OPTIONS (the preflight is answered by the app before the
 * handler runs); any other method gets 405 with Allow. Routes are matched exactly (or by prefix for
 * the rows that say so), case-sensitively, on the path as nq_router_normalize leaves it.
 * Thread-safety: the table is constant; matching is a pure function.
 */
#ifndef NQ_ROUTER_H
#define NQ_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "app.h"

/* A route handler: answer req (method already checked to be GET or HEAD) into resp, or ask for a
 * computation (see nq_app_handle). */
typedef nq_app_step (*nq_route_fn)(nq_app *app, const nq_request *req, nq_response *resp,
                                   nq_app_work **work);

typedef struct nq_route {
    const char *path;    /* exact path, or prefix when `prefix`; NULL in the fallback row */
    bool prefix;         /* match any path starting with `path` */
    const char *name;    /* short [a-z_] label for logs and metrics */
    const char *allow;   /* the Allow header value */
    nq_route_fn handler; /* what answers it */
} nq_route;

/* The route for path (NUL-terminated): the first row that matches; the 404 fallback row when none
 * does (its path is NULL). Never returns NULL for a non-NULL path. */
const nq_route *nq_router_match(const char *path);

/* Normalise a raw request path (NUL-terminated) into out (cap bytes): percent-escapes of unreserved
 * characters (ALPHA, DIGIT, '-', '.', '_', '~') are decoded, since RFC 3986 section 6.2.2.2 makes
 * "/so%6Cve" and "/solve" the same URI; every other byte, including any other escape ("%2F" stays
 * "%2F", so an encoded slash never becomes a separator) and a malformed one, is kept as received.
 * Returns false, with out unspecified, when the result does not fit (no route is that long). */
bool nq_router_normalize(const char *raw, char *out, size_t cap);

/* The handlers of the routes the server core owns (defined in handle_*.c). */
nq_app_step nq_handle_solve(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);
nq_app_step nq_handle_count(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);
nq_app_step nq_handle_openapi(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);
nq_app_step nq_handle_problem_doc(nq_app *app, const nq_request *req, nq_response *resp,
                                  nq_app_work **work);
nq_app_step nq_handle_not_found(nq_app *app, const nq_request *req, nq_response *resp,
                                nq_app_work **work);

#endif /* NQ_ROUTER_H */
