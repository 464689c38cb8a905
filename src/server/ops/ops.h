/* ops.h - nqueensd's operations bundle: the metrics registry and the log, and the two events that feed
 * them (a request ended, a computation ended).
 *
 * main creates one bundle before the server and hands it to nq_server_create; the server reports
 * every finished request to it and renders /metrics from it, with the figures of the layers it owns
 * (cache, worker pool, connections) sampled into an nq_metrics_state. The bundle knows none of those
 * layers: it only takes their figures.
 * Thread-safety: everything but create and destroy may be called from any thread at once.
 */
#ifndef NQ_OPS_H
#define NQ_OPS_H

#include "base/config.h"
#include "base/request_record.h"
#include "ops/accesslog.h"
#include "ops/metrics.h"

typedef struct nq_ops nq_ops; /* opaque */

/* Create the operations bundle: a metrics registry and a log on stdout/stderr in cfg->log_format.
 * cfg is borrowed and must outlive ops. On success *out owns it (nq_ops_destroy).
 * Errors: NQ_E_ARG (cfg or out NULL), NQ_E_NOMEM (nothing allocated). */
nq_err nq_ops_create(const nq_config *cfg, nq_ops **out);

/* Free ops. NULL is accepted. No request may be in progress. */
void nq_ops_destroy(nq_ops *ops);

/* The request ended: write its access line and count it. Thread-safe, no allocation. ops NULL: no-op. */
void nq_ops_request_done(const nq_ops *ops, const nq_request_record *r);

/* A computation of the route named `route` by `method` (NULL for a route with one) ended after
 * seconds in the solver (any outcome); pairs without a metrics kind (metrics.h) are not counted.
 * Thread-safe. ops NULL: no-op. */
void nq_ops_solver_done(const nq_ops *ops, const char *route, const char *method, double seconds);

/* Render /metrics with the sampled state st (may be NULL) into *text (malloc'd, *len bytes).
 * Errors: those of nq_metrics_render. */
nq_err nq_ops_render_metrics(const nq_ops *ops, const nq_metrics_state *st, char **text, size_t *len);

/* The log and the metrics, for main (start-up and shutdown lines) and tests. */
const nq_accesslog *nq_ops_log(const nq_ops *ops);
nq_metrics *nq_ops_metrics(const nq_ops *ops);

#endif /* NQ_OPS_H */
