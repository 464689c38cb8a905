/* ops.c - the operations bundle (see ops.h). */
#include "ops/ops.h"

#include <stdlib.h>

struct nq_ops {
    const nq_config *cfg; /* borrowed, read-only */
    nq_metrics *metrics;  /* owned */
    nq_accesslog *log;    /* owned */
};

nq_err nq_ops_create(const nq_config *cfg, nq_ops **out)
{
    if (cfg == NULL || out == NULL) return NQ_E_ARG;
    nq_ops *ops = calloc(1, sizeof *ops);
    if (ops == NULL) return NQ_E_NOMEM;
    ops->cfg = cfg;
    nq_err rc = nq_metrics_create(nq_config_version(), &ops->metrics);
    if (rc == NQ_OK) rc = nq_accesslog_create(1, 2, cfg->log_format, cfg->log_level, &ops->log);
    if (rc != NQ_OK) {
        nq_ops_destroy(ops);
        return rc;
    }
    *out = ops;
    return NQ_OK;
}

void nq_ops_destroy(nq_ops *ops)
{
    if (ops == NULL) return;
    nq_metrics_destroy(ops->metrics);
    nq_accesslog_destroy(ops->log);
    free(ops);
}

void nq_ops_request_done(const nq_ops *ops, const nq_request_record *r)
{
    if (ops == NULL || r == NULL) return;
    nq_accesslog_request(ops->log, r);
    nq_metrics_observe_request(ops->metrics, r);
}

void nq_ops_solver_done(const nq_ops *ops, const char *route, const char *method, double seconds)
{
    nq_metrics_kind kind;
    if (ops != NULL && nq_metrics_kind_find(route, method, &kind))
        nq_metrics_observe_solver(ops->metrics, kind, seconds);
}

nq_err nq_ops_render_metrics(const nq_ops *ops, const nq_metrics_state *st, char **text, size_t *len)
{
    return nq_metrics_render(ops != NULL ? ops->metrics : NULL, st, text, len);
}

const nq_accesslog *nq_ops_log(const nq_ops *ops)
{
    return ops != NULL ? ops->log : NULL;
}

nq_metrics *nq_ops_metrics(const nq_ops *ops)
{
    return ops != NULL ? ops->metrics : NULL;
}
