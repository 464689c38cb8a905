/* ops.h - the pipeline steps (core/route.h) of the probes, named in the route table (table.c).
 *
 * /healthz, /readyz and /metrics.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_OPS_H
#define NQ_ROUTES_OPS_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /healthz, /readyz and /metrics (ops.c) */
nq_app_step nq_route_healthz_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_readyz_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_metrics_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

#endif /* NQ_ROUTES_OPS_H */
