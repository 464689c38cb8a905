/* ops_routes.c - the probes, /metrics and the request-completion hook (see ops_routes.h).
 *
 * The probes are deliberately trivial: an orchestrator calls them every few seconds on every replica,
 * and /healthz must keep answering while the solver workers are saturated, so neither touches the
 * cache, the pool or anything that can block. /metrics samples the other modules' counters (each a
 * short critical section of theirs) and formats them; it is scraped every few seconds, not per request.
 */
#include "ops_routes.h"

#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "compress.h"

struct nq_ops {
    const nq_config *cfg; /* borrowed, read-only */
    nq_metrics *metrics;  /* owned */
    nq_accesslog *log;    /* owned */
    nq_pool *pool;        /* borrowed; NULL: no pool figures */
    nq_guard *guard;      /* borrowed; NULL: no connection figures */
};

nq_err nq_ops_create(const nq_config *cfg, nq_ops **out)
{
    if (cfg == NULL || out == NULL)
        return NQ_E_ARG;
    nq_ops *ops = calloc(1, sizeof *ops);
    if (ops == NULL)
        return NQ_E_NOMEM;
    ops->cfg = cfg;
    nq_err rc = nq_metrics_create(nq_config_version(), &ops->metrics);
    if (rc == NQ_OK)
        rc = nq_accesslog_create(1, 2, cfg->log_format, &ops->log);
    if (rc != NQ_OK) {
        nq_ops_destroy(ops);
        return rc;
    }
    *out = ops;
    return NQ_OK;
}

void nq_ops_destroy(nq_ops *ops)
{
    if (ops == NULL)
        return;
    nq_metrics_destroy(ops->metrics);
    nq_accesslog_destroy(ops->log);
    free(ops);
}

void nq_ops_attach(nq_ops *ops, nq_pool *pool, nq_guard *guard)
{
    if (ops == NULL)
        return;
    ops->pool = pool;
    ops->guard = guard;
}

void nq_ops_request_done(const nq_ops *ops, const nq_request_record *r)
{
    if (ops == NULL || r == NULL)
        return;
    nq_accesslog_request(ops->log, r);
    nq_metrics_observe_request(ops->metrics, r);
}

void nq_ops_solver_done(const nq_ops *ops, const nq_app_work *work, double seconds)
{
    if (ops == NULL || work == NULL)
        return;
    nq_metrics_observe_solver(ops->metrics, work->kind == NQ_WORK_COUNT ? NQ_METRICS_COUNT : NQ_METRICS_SOLVE,
                              seconds);
}

const nq_accesslog *nq_ops_log(const nq_ops *ops)
{
    return ops != NULL ? ops->log : NULL;
}

nq_metrics *nq_ops_metrics(const nq_ops *ops)
{
    return ops != NULL ? ops->metrics : NULL;
}

/* ---- handlers ----------------------------------------------------------------------------------- */

/* A small constant JSON answer that must never be cached by anyone. */
static void static_json(nq_response *resp, unsigned status, const char *body)
{
    resp->status = status;
    resp->kind = NQ_BODY_STATIC;
    resp->body = body;
    resp->body_len = strlen(body);
    nq_response_add_header(resp, "Content-Type", NQ_MEDIA_JSON);
    nq_response_add_header(resp, "Cache-Control", "no-store");
}

nq_app_step nq_handle_healthz(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work)
{
    (void)app;
    (void)req;
    *work = NULL;
    static_json(resp, 200, "{\"status\":\"ok\"}");
    return NQ_APP_DONE;
}

nq_app_step nq_handle_readyz(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work)
{
    *work = NULL;
    if (nq_app_draining(app))
        nq_app_problem(resp, req->path, NQ_E_DRAINING, NULL,
                       "This instance is shutting down and takes no new work; retry on another one.", false, 0);
    else
        static_json(resp, 200, "{\"status\":\"ready\"}");
    return NQ_APP_DONE;
}

/* Copy the other modules' figures into the shapes metrics.h takes. */
static void sample(const nq_ops *ops, nq_app *app, nq_cache_stats *cache, nq_metrics_pool *pool,
                   nq_metrics_conns *conns, nq_metrics_state *st)
{
    *st = (nq_metrics_state){.ready = !nq_app_draining(app)};
    if (nq_app_cache(app) != NULL) {
        nq_cache_stats_get(nq_app_cache(app), cache);
        st->cache = cache;
    }
    if (ops->pool != NULL) {
        nq_pool_stats ps;
        nq_pool_stats_get(ops->pool, &ps);
        *pool = (nq_metrics_pool){.running = ps.running, .queued = ps.queued, .waiting = ps.waiting,
                                  .started = ps.started, .finished = ps.finished, .cancelled = ps.cancelled,
                                  .shared = ps.shared, .rejected = ps.rejected, .deadlines = ps.deadlines};
        st->pool = pool;
    }
    if (ops->guard != NULL) {
        nq_guard_stats gs;
        nq_guard_stats_get(ops->guard, &gs);
        *conns = (nq_metrics_conns){.open = gs.open, .accepted = gs.accepted,
                                    .head_timeouts = gs.head_timeouts};
        st->conns = conns;
    }
}

/* Hand the rendered text to resp, gzip-compressed when the client takes it and it is worth it. */
static void metrics_body(nq_response *resp, char *text, size_t len, bool gzip_ok)
{
    char *gz = NULL;
    size_t gz_len = 0;
    /* The body changes on every scrape, so it is compressed every time: the streaming level. */
    if (gzip_ok && len >= NQ_COMPRESS_MIN_BYTES &&
        nq_compress_buffer(text, len, NQ_COMPRESS_LEVEL_STREAM, &gz, &gz_len) == NQ_OK) {
        free(text);
        text = gz;
        len = gz_len;
        nq_response_add_header(resp, "Content-Encoding", "gzip");
    } /* on a compression failure the identity body is still a correct answer */
    resp->kind = NQ_BODY_OWNED;
    resp->owned = text;
    resp->body = text;
    resp->body_len = len;
}

static void metrics_failed(nq_response *resp, const nq_request *req, nq_err rc)
{
    nq_app_problem(resp, req->path, rc == NQ_E_NOMEM ? NQ_E_NOMEM : NQ_E_INTERNAL, NULL,
                   "The metrics could not be rendered.", false, 0);
}

nq_app_step nq_handle_metrics(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work)
{
    *work = NULL;
    const nq_ops *ops = nq_app_ops(app);
    if (ops == NULL) { /* a server that never attached its bundle: a wiring bug, not the client's */
        metrics_failed(resp, req, NQ_E_INTERNAL);
        return NQ_APP_DONE;
    }
    nq_cache_stats cache;
    nq_metrics_pool pool;
    nq_metrics_conns conns;
    nq_metrics_state st;
    sample(ops, app, &cache, &pool, &conns, &st);
    char *text = NULL;
    size_t len = 0;
    const nq_err rc = nq_metrics_render(ops->metrics, &st, &text, &len);
    if (rc != NQ_OK) {
        metrics_failed(resp, req, rc);
        return NQ_APP_DONE;
    }
    nq_variant v;
    nq_app_negotiate(req, &v);
    resp->status = 200;
    nq_response_add_header(resp, "Content-Type", NQ_METRICS_MEDIA_TYPE);
    nq_response_add_header(resp, "Cache-Control", "no-store");
    nq_response_add_header(resp, "Vary", "Accept-Encoding");
    metrics_body(resp, text, len, v.gzip_ok);
    return NQ_APP_DONE;
}
