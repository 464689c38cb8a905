/* puzzle.h - the pipeline steps (core/route.h) of /puzzle, named in the route table (table.c).
 *
 * /puzzle: a generated puzzle with exactly one solution, from a seed or a date.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_PUZZLE_H
#define NQ_ROUTES_PUZZLE_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /puzzle (puzzle.c) */
bool nq_route_puzzle_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_puzzle_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_route_puzzle_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_route_puzzle_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

#endif /* NQ_ROUTES_PUZZLE_H */
