/* router.c - the one route table of nqueensd, and the path normalisation it matches on (see router.h). */
#include "app/router.h"

#include <string.h>

#include "app/query.h"

#define ALLOW_READ "GET, HEAD, OPTIONS"
#define ALLOW_BODY "GET, HEAD, POST, OPTIONS" /* POST with a JSON body: nq_route_takes_body */

/* Most specific first; the last row is the fallback. A handful of rows: a linear scan is fastest.
 *  path                 prefix  name           allow       parse           answer                 compute            finish           late  exists */
/* clang-format off */
static const nq_route routes[] = {
    {"/solve",             false, "solve",       ALLOW_READ, nq_solve_parse, nq_solve_answer,       nq_solve_compute,  nq_solve_finish, NULL, NULL},
    {"/count",             false, "count",       ALLOW_READ, nq_count_parse, nq_count_answer,       nq_count_compute,  nq_count_finish, nq_count_late, NULL},
    {"/counts",            false, "counts",      ALLOW_READ, NULL,           nq_counts_answer,      NULL,              NULL, NULL, NULL},
    {"/solution",          false, "solution",    ALLOW_READ, nq_solution_parse, nq_solution_answer, nq_solution_compute, nq_solution_finish, NULL, NULL},
    {"/check",             false, "check",       ALLOW_BODY, nq_check_parse, nq_check_answer,       NULL,              NULL, NULL, NULL},
    {"/complete",          false, "complete",    ALLOW_BODY, nq_complete_parse, nq_complete_answer, nq_complete_compute, nq_complete_finish, NULL, NULL},
    {"/trace",             false, "trace",       ALLOW_READ, nq_trace_parse, nq_trace_answer,       nq_trace_compute,  nq_trace_finish, NULL, NULL},
    {"/",                  false, "page",        ALLOW_READ, NULL,           nq_page_answer,        NULL,              NULL, NULL, NULL},
    {"/assets/",           true,  "asset",       ALLOW_READ, NULL,           nq_page_answer,        NULL,              NULL, NULL, nq_page_exists},
    {"/openapi.yaml",      false, "openapi",     ALLOW_READ, nq_docs_parse,  nq_openapi_answer,     NULL,              NULL, NULL, NULL},
    {"/healthz",           false, "healthz",     ALLOW_READ, NULL,           nq_healthz_answer,     NULL,              NULL, NULL, NULL},
    {"/readyz",            false, "readyz",      ALLOW_READ, NULL,           nq_readyz_answer,      NULL,              NULL, NULL, NULL},
    {"/metrics",           false, "metrics",     ALLOW_READ, NULL,           nq_metrics_answer,     NULL,              NULL, NULL, NULL},
    {NQ_PROBLEM_TYPE_BASE, true,  "problem_doc", ALLOW_READ, NULL,           nq_problem_doc_answer, NULL,              NULL, NULL, nq_problem_doc_exists},
    {NULL,                 false, "not_found",   NULL,       NULL,           nq_not_found_answer,   NULL,              NULL, NULL, NULL},
};
/* clang-format on */

const nq_route *nq_router_match(const char *path)
{
    const nq_route *r = routes;
    for (; r->path; r++) {
        const size_t len = strlen(r->path);
        if (r->prefix ? strncmp(path, r->path, len) == 0 : strcmp(path, r->path) == 0) break;
    }
    return r;
}

bool nq_route_takes_body(const nq_route *route)
{
    return route->allow && strstr(route->allow, "POST") != NULL;
}

static bool unreserved(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

/* The byte an escape at p ("%6C") stands for when it is an unreserved character, else -1. */
static int unreserved_escape(const char *p)
{
    if (p[0] != '%') return -1;
    const int hi = nq_query_hex_digit(p[1]);
    const int lo = hi < 0 ? -1 : nq_query_hex_digit(p[2]); /* p[1] is not NUL here, so p[2] is readable */
    const int c = lo < 0 ? -1 : hi * 16 + lo;
    return unreserved(c) ? c : -1;
}

bool nq_router_normalize(const char *raw, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = raw; *p; p++) {
        if (o + 1 >= cap) return false;
        const int c = unreserved_escape(p);
        if (c < 0) {
            out[o++] = *p;
            continue;
        }
        out[o++] = (char)c;
        p += 2;
    }
    if (o >= cap) return false;
    out[o] = '\0';
    return true;
}
