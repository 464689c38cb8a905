/* solve.h - the pipeline steps (core/route.h) of /solve, named in the route table (table.c).
 *
 * /solve: the solutions of an n x n board, paged, streamed, cached.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_SOLVE_H
#define NQ_ROUTES_SOLVE_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /solve (solve.c) */
bool nq_route_solve_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_solve_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_route_solve_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_route_solve_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

#endif /* NQ_ROUTES_SOLVE_H */
