/* router.c - the one route table of nqueensd (see router.h). */
#include "router.h"

#include <string.h>

#include "ops_routes.h"

#define ALLOW_READ "GET, HEAD, OPTIONS"

/* Most specific first; the last row is the fallback. A handful of rows: a linear scan is fastest. */
static const nq_route routes[] = {
    {"/solve", false, "solve", ALLOW_READ, nq_handle_solve},
    {"/count", false, "count", ALLOW_READ, nq_handle_count},
    {"/openapi.yaml", false, "openapi", ALLOW_READ, nq_handle_openapi},
    {"/healthz", false, "healthz", ALLOW_READ, nq_handle_healthz},
    {"/readyz", false, "readyz", ALLOW_READ, nq_handle_readyz},
    {"/metrics", false, "metrics", ALLOW_READ, nq_handle_metrics},
    {NQ_PROBLEM_TYPE_BASE, true, "problem_doc", ALLOW_READ, nq_handle_problem_doc},
    {NULL, false, "not_found", NULL, nq_handle_not_found},
};

const nq_route *nq_router_match(const char *path) {
    const nq_route *r = routes;
    for (; r->path; r++) {
        const size_t len = strlen(r->path);
        if (r->prefix ? strncmp(path, r->path, len) == 0 : strcmp(path, r->path) == 0) break;
    }
    return r;
}
