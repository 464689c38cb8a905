/* trace.h - the pipeline steps (core/route.h) of /trace, named in the route table (table.c).
 *
 * /trace: the textbook backtracking search, step by step, paged.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_TRACE_H
#define NQ_ROUTES_TRACE_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /trace (trace.c) */
bool nq_route_trace_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_trace_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_route_trace_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_route_trace_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

#endif /* NQ_ROUTES_TRACE_H */
