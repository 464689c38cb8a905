/* table.c - the one route table of nqueensd (table.h). */
#include "routes/table.h"

#include "base/errors.h"
#include "nqueens/error.h"
#include "routes/check.h"
#include "routes/complete.h"
#include "routes/count.h"
#include "routes/counts.h"
#include "routes/docs.h"
#include "routes/limits.h"
#include "routes/ops.h"
#include "routes/page.h"
#include "routes/puzzle.h"
#include "routes/puzzle_solve.h"
#include "routes/solution.h"
#include "routes/solve.h"
#include "routes/trace.h"

#define ALLOW_READ "GET, HEAD, OPTIONS"
#define ALLOW_BODY "GET, HEAD, POST, OPTIONS" /* POST with a JSON body: nq_route_takes_body */

/* Most specific first; the last row is the fallback. A handful of rows: a linear scan is fastest.
 *  path                  prefix name           allow       parse                    answer                       compute                    finish                    late                 exists */
/* clang-format off */
const nq_route nq_routes[] = {
    {"/solve",             false, "solve",       ALLOW_READ, nq_route_solve_parse,    nq_route_solve_answer,       nq_route_solve_compute,    nq_route_solve_finish,    NULL,                NULL},
    {"/count",             false, "count",       ALLOW_READ, nq_route_count_parse,    nq_route_count_answer,       nq_route_count_compute,    nq_route_count_finish,    nq_route_count_late, NULL},
    {"/counts",            false, "counts",      ALLOW_READ, NULL,                    nq_route_counts_answer,      NULL,                      NULL,                     NULL,                NULL},
    {"/solution",          false, "solution",    ALLOW_READ, nq_route_solution_parse, nq_route_solution_answer,    nq_route_solution_compute, nq_route_solution_finish, NULL,                NULL},
    {"/check",             false, "check",       ALLOW_BODY, nq_route_check_parse,    nq_route_check_answer,       NULL,                      NULL,                     NULL,                NULL},
    {"/complete",          false, "complete",    ALLOW_BODY, nq_route_complete_parse, nq_route_complete_answer,    nq_route_complete_compute, nq_route_complete_finish, NULL,                NULL},
    {"/puzzle",            false, "puzzle",      ALLOW_READ, nq_route_puzzle_parse,   nq_route_puzzle_answer,      nq_route_puzzle_compute,   nq_route_puzzle_finish,   NULL,                NULL},
    {"/puzzle/solve",      false, "puzzle_solve", ALLOW_BODY, nq_route_puzzle_solve_parse, nq_route_puzzle_solve_answer, nq_route_puzzle_solve_compute, nq_route_puzzle_solve_finish, NULL, NULL},
    {"/trace",             false, "trace",       ALLOW_READ, nq_route_trace_parse,    nq_route_trace_answer,       nq_route_trace_compute,    nq_route_trace_finish,    NULL,                NULL},
    {"/",                  false, "page",        ALLOW_READ, NULL,                    nq_route_page_answer,        NULL,                      NULL,                     NULL,                NULL},
    {"/assets/",           true,  "asset",       ALLOW_READ, NULL,                    nq_route_page_answer,        NULL,                      NULL,                     NULL,                nq_route_page_exists},
    {"/limits",            false, "limits",      ALLOW_READ, NULL,                    nq_route_limits_answer,      NULL,                      NULL,                     NULL,                NULL},
    {"/openapi.yaml",      false, "openapi",     ALLOW_READ, nq_route_docs_parse,     nq_route_openapi_answer,     NULL,                      NULL,                     NULL,                NULL},
    {"/healthz",           false, "healthz",     ALLOW_READ, NULL,                    nq_route_healthz_answer,     NULL,                      NULL,                     NULL,                NULL},
    {"/readyz",            false, "readyz",      ALLOW_READ, NULL,                    nq_route_readyz_answer,      NULL,                      NULL,                     NULL,                NULL},
    {"/metrics",           false, "metrics",     ALLOW_READ, NULL,                    nq_route_metrics_answer,     NULL,                      NULL,                     NULL,                NULL},
    {NQ_PROBLEM_TYPE_BASE, true,  "problem_doc", ALLOW_READ, NULL,                    nq_route_problem_doc_answer, NULL,                      NULL,                     NULL,                nq_route_problem_doc_exists},
    {NULL,                 false, "not_found",   NULL,       NULL,                    nq_route_not_found_answer,   NULL,                      NULL,                     NULL,                NULL},
};
/* clang-format on */
