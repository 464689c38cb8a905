/* complete.h - the pipeline steps (core/route.h) of /complete, named in the route table (table.c).
 *
 * /complete: the first solution holding given queens, a hint, and how many there are.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_COMPLETE_H
#define NQ_ROUTES_COMPLETE_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /complete (complete.c). For a POST the placement comes from the JSON body (placement_in.h)
 * and the query may hold only count. */
bool nq_route_complete_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_complete_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_err nq_route_complete_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r);
void nq_route_complete_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp);

#endif /* NQ_ROUTES_COMPLETE_H */
