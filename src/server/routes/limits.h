/* limits.h - the pipeline step (core/route.h) of GET /limits, named in the route table (table.c).
 *
 * What this replica is configured to accept: the largest n of each route and the other bounds a
 * request meets, so that a client (the page, a form) asks only for what it will be answered instead
 * of learning the bounds from 422s. Settings may differ between replicas, so the answer is not
 * cached (no-store).
 * Thread-safety: as every step (core/work.h); it reads the configuration only.
 */
#ifndef NQ_ROUTES_LIMITS_H
#define NQ_ROUTES_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

#include "base/config.h"
#include "core/app.h"
#include "core/work.h"

#define NQ_LIMITS_BODY_MAX 1024 /* the body, NUL included: 20 members of at most 40 bytes */

/* The body of /limits for cfg into out (cap bytes): its length, 0 if it does not fit. Pure. */
size_t nq_limits_render(const nq_config *cfg, char *out, size_t cap);

/* The step of /limits: no parameters (any is 400 unknown-parameter); the body above, no-store. */
nq_app_step nq_route_limits_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

#endif /* NQ_ROUTES_LIMITS_H */
