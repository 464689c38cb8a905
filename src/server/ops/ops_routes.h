/* ops_routes.h - nqueensd's operations side: /healthz, /readyz, /metrics and the per-request hook that
 * feeds the access log and the metrics.
 *
 * One nq_ops per server bundles what those need: the metrics registry, the log, and borrowed pointers
 * to the modules whose state /metrics samples (cache through the app, worker pool, connection guard).
 * Wiring, in server.c:
 *     nq_ops_create(cfg, &ops);                       before the app, pool and guard exist
 *     nq_ops_attach(ops, pool, guard);                once they do, before serving
 *     nq_app_set_ops(app, ops);                       so the route handlers below can reach it
 *     nq_ops_request_done(ops, &record);              in MHD_OPTION_NOTIFY_COMPLETED, once per request
 *     nq_ops_solver_done(ops, work, seconds);         when a computation ends (once, however many wait)
 * Routes (rows in router.c): "/healthz" -> nq_handle_healthz ("healthz"), "/readyz" ->
 * nq_handle_readyz ("readyz"), "/metrics" -> nq_handle_metrics ("metrics").
 *
 * Responses: /healthz 200 {"status":"ok"}; /readyz 200 {"status":"ready"}, or while the app is
 * draining 503 problem "shutting-down" with Retry-After; /metrics 200 Prometheus text 0.0.4, gzip when
 * the client accepts it. All three are Cache-Control: no-store (they describe the moment).
 * Thread-safety: after nq_ops_attach, everything may be called from any thread at once.
 */
#ifndef NQ_OPS_ROUTES_H
#define NQ_OPS_ROUTES_H

#include "accesslog.h"
#include "app.h"
#include "config.h"
#include "guard.h"
#include "metrics.h"
#include "pool.h"
#include "request_record.h"

typedef struct nq_ops nq_ops; /* opaque */

/* The Content-Type of /metrics (Prometheus text exposition format 0.0.4). */
#define NQ_METRICS_MEDIA_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Create the operations bundle: a metrics registry and a log on stdout/stderr in cfg->log_format.
 * cfg is borrowed and must outlive ops. On success *out owns it (nq_ops_destroy).
 * Errors: NQ_E_ARG (cfg or out NULL), NQ_E_NOMEM (nothing allocated). */
nq_err nq_ops_create(const nq_config *cfg, nq_ops **out);

/* Free ops. NULL is accepted. No request may be in progress. */
void nq_ops_destroy(nq_ops *ops);

/* Borrow the pool and guard whose figures /metrics reports (either may be NULL). Call before
 * serving: not thread-safe against the handlers. */
void nq_ops_attach(nq_ops *ops, nq_pool *pool, nq_guard *guard);

/* The request ended: write its access line and count it. Thread-safe, no allocation. */
void nq_ops_request_done(const nq_ops *ops, const nq_request_record *r);

/* A computation for work ended after seconds in the solver (any outcome). Thread-safe. */
void nq_ops_solver_done(const nq_ops *ops, const nq_app_work *work, double seconds);

/* The log and the metrics, for main (start-up and shutdown lines) and tests. */
const nq_accesslog *nq_ops_log(const nq_ops *ops);
nq_metrics *nq_ops_metrics(const nq_ops *ops);

/* Route handlers (nq_route_fn); they read the bundle with nq_app_ops(app). */
nq_app_step nq_handle_healthz(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);
nq_app_step nq_handle_readyz(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);
nq_app_step nq_handle_metrics(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work);

#endif /* NQ_OPS_ROUTES_H */
