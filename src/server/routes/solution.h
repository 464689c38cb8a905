/* solution.h - the pipeline steps (core/route.h) of /solution, named in the route table (table.c).
 *
 * /solution: one solution for any n, constructed or random.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_SOLUTION_H
#define NQ_ROUTES_SOLUTION_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /solution (solution.c) */
bool nq_route_solution_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_solution_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_route_solution_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_route_solution_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

#endif /* NQ_ROUTES_SOLUTION_H */
