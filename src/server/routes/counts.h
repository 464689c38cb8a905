/* counts.h - the pipeline steps (core/route.h) of /counts, named in the route table (table.c).
 *
 * /counts: every count the service knows, finished or running.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_COUNTS_H
#define NQ_ROUTES_COUNTS_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /counts (counts.c) */
nq_app_step nq_route_counts_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

#endif /* NQ_ROUTES_COUNTS_H */
