/* check.h - the pipeline steps (core/route.h) of /check, named in the route table (table.c).
 *
 * /check: whether a placement is legal, and which queens attack each other.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_CHECK_H
#define NQ_ROUTES_CHECK_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /check (check.c) */
bool nq_route_check_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_check_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

#endif /* NQ_ROUTES_CHECK_H */
