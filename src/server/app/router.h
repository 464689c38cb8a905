/* router.h - the route table of nqueensd: one row per route naming its pipeline steps (pipeline.h),
 * matched in order, ending in a 404 fallback.
 *
 * Every public route answers GET, HEAD and OPTIONS (the preflight is answered by the core before
 * any step runs), and POST when its Allow lists it: the core then hands parse a request whose body is
 * a JSON placement of the right type and size (app.h, "request bodies"), and parse reads it instead
 * of the query. Any other method gets 405 with Allow. Routes are matched exactly (or by prefix for
 * the rows that say so), case-sensitively, on the path as nq_router_normalize leaves it.
 * Adding a route: a file route_<name>.c with its steps, their declarations below, one row in
 * router.c.
 * Thread-safety: the table is constant; matching is a pure function.
 */
#ifndef NQ_ROUTER_H
#define NQ_ROUTER_H

#include <stdbool.h>
#include <stddef.h>

#include "app/pipeline.h"

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

/* The route for path (NUL-terminated): the first row that matches; the 404 fallback row when none
 * does (its path is NULL). Never returns NULL for a non-NULL path. */
const nq_route *nq_router_match(const char *path);

/* Whether route answers POST with a JSON body: its Allow lists POST (/check and /complete). */
bool nq_route_takes_body(const nq_route *route);

/* Normalise a raw request path (NUL-terminated) into out (cap bytes): percent-escapes of unreserved
 * characters (ALPHA, DIGIT, '-', '.', '_', '~') are decoded, since RFC 3986 section 6.2.2.2 makes
 * "/so%6Cve" and "/solve" the same URI; every other byte, including any other escape ("%2F" stays
 * "%2F", so an encoded slash never becomes a separator) and a malformed one, is kept as received.
 * Returns false, with out unspecified, when the result does not fit (no route is that long). */
bool nq_router_normalize(const char *raw, char *out, size_t cap);

/* ---- the steps of each route (route_<name>.c) ------------------------------------------------ */

/* /solve (route_solve.c) */
bool nq_solve_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_solve_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_solve_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_solve_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

/* /count (route_count.c) */
bool nq_count_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_count_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_count_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_count_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);
void nq_count_late(const nq_app_work *w, nq_response *resp);

/* /counts (route_counts.c) */
nq_app_step nq_counts_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

/* /solution (route_solution.c) */
bool nq_solution_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_solution_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_solution_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_solution_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

/* /check (route_check.c) */
bool nq_check_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_check_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

/* /complete (route_complete.c). For a POST the placement comes from the JSON body (placement_in.h)
 * and the query may hold only count. */
bool nq_complete_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_complete_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_complete_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_complete_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

/* /trace (route_trace.c) */
bool nq_trace_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_trace_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_trace_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_trace_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

/* /openapi.yaml, /problems/{slug} and the 404 fallback (route_docs.c) */
bool nq_docs_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_openapi_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_problem_doc_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
bool nq_problem_doc_exists(const nq_app *app, const char *path);
nq_app_step nq_not_found_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

/* the web page at / and its assets under /assets/ (route_page.c) */
nq_app_step nq_page_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
bool nq_page_exists(const nq_app *app, const char *path);

/* /healthz, /readyz, /metrics (route_ops.c) */
nq_app_step nq_healthz_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_readyz_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_metrics_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

#endif /* NQ_ROUTER_H */
