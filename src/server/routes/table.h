/* table.h - the route table of nqueensd: one row per route naming its pipeline steps (core/route.h),
 * most specific first, ending in the 404 fallback row. Given to the pipeline at creation
 * (service.c); a route is one file of steps plus one row here.
 * Thread-safety: constant data.
 */
#ifndef NQ_ROUTES_TABLE_H
#define NQ_ROUTES_TABLE_H

#include "core/route.h"

extern const nq_route nq_routes[];

#endif /* NQ_ROUTES_TABLE_H */
