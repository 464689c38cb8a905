/* puzzle_solve.h - the pipeline steps (core/route.h) of /puzzle/solve, named in the route table (table.c).
 *
 * /puzzle/solve: count, hint and check a puzzle (generated or given in a POST body) and a position.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_PUZZLE_SOLVE_H
#define NQ_ROUTES_PUZZLE_SOLVE_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /puzzle/solve (puzzle_solve.c) */
bool nq_route_puzzle_solve_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_puzzle_solve_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_route_puzzle_solve_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_route_puzzle_solve_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

#endif /* NQ_ROUTES_PUZZLE_SOLVE_H */
