/* router.h - the route table of nqueensd: one static table, matched in order, ending in a 404 fallback.
 *
 * Every public route answers GET, HEAD and OPTIONS (the preflight is answered by the app before the
 * handler runs); any other method gets 405 with Allow. Routes are matched on the raw path, exactly
 * (or by prefix for the rows that say so), case-sensitively.
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

/* The handlers of the routes the server core owns (defined in handle_*.c). */
nq_app_step nq_handle_solve(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);
nq_app_step nq_handle_count(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);
nq_app_step nq_handle_openapi(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);
nq_app_step nq_handle_problem_doc(nq_app *app, const nq_request *req, nq_response *resp,
                                  nq_app_work **work);
nq_app_step nq_handle_not_found(nq_app *app, const nq_request *req, nq_response *resp,
                                nq_app_work **work);

#endif /* NQ_ROUTER_H */
