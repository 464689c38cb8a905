/* count.h - the pipeline steps (core/route.h) of /count, named in the route table (table.c).
 *
 * /count: the counts of an n x n board (k queens too); long counts through the long-count service.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_COUNT_H
#define NQ_ROUTES_COUNT_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /count (count.c) */
bool nq_route_count_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_count_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_route_count_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_route_count_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);
void nq_route_count_late(const nq_app_work *w, nq_response *resp);

#endif /* NQ_ROUTES_COUNT_H */
