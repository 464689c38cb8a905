/* app.c - the nqueensd application: dispatch, the three request steps and the contract's headers.
 *
 * See app.h for the request steps. Everything a response must carry whatever its route is added here
 * (X-Request-Id, CORS) or by the success/problem helpers the handlers call, so the handlers only say
 * what is specific to them.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp */
#endif
#include "app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "app_internal.h"
#include "clock.h"
#include "openapi_data.h"
#include "ops_routes.h"
#include "router.h"

#define ALLOW_HEADERS "Accept, Accept-Encoding, If-None-Match, X-Request-Id"
#define EXPOSE_HEADERS "ETag, Server-Timing, X-Request-Id, Retry-After"
#define PATH_MAX_ROUTED 256 /* longest normalised path kept; every route is far shorter */

nq_err nq_app_create(const nq_config *cfg, nq_cache *cache, nq_app **out) {
    if (!cfg || !out) return NQ_E_ARG;
    nq_app *app = calloc(1, sizeof *app);
    if (!app) return NQ_E_NOMEM;
    app->cfg = cfg;
    app->cache = cache;
    atomic_init(&app->draining, false);
    atomic_init(&app->next_id, 0);
    /* Request ids only need to differ between processes; a failed getrandom leaves a time seed. */
    if (getrandom(&app->id_seed, sizeof app->id_seed, GRND_NONBLOCK) != (ssize_t)sizeof app->id_seed)
        app->id_seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
    /* The document is constant: compress it once, and derive its ETag from its bytes. */
    const nq_err rc = nq_compress_buffer(nq_openapi_yaml, nq_openapi_yaml_len, NQ_COMPRESS_LEVEL_ONCE,
                                         &app->openapi_gzip, &app->openapi_gzip_len);
    if (rc != NQ_OK) {
        free(app);
        return rc;
    }
    nq_app_etag(nq_openapi_yaml, false, app->openapi_etag, sizeof app->openapi_etag);
    nq_app_etag(nq_openapi_yaml, true, app->openapi_etag_gz, sizeof app->openapi_etag_gz);
    *out = app;
    return NQ_OK;
}

void nq_app_destroy(nq_app *app) {
    if (!app) return;
    free(app->openapi_gzip);
    free(app);
}

void nq_app_set_draining(nq_app *app, bool draining) { atomic_store(&app->draining, draining); }
bool nq_app_draining(const nq_app *app) { return atomic_load(&app->draining); }
const nq_config *nq_app_config(const nq_app *app) { return app->cfg; }
nq_cache *nq_app_cache(const nq_app *app) { return app->cache; }
void nq_app_set_ops(nq_app *app, nq_ops *ops) { atomic_store_explicit(&app->ops, ops, memory_order_release); }
nq_ops *nq_app_ops(const nq_app *app) { return atomic_load_explicit(&app->ops, memory_order_acquire); }

/* ---- headers every response carries ---------------------------------------------------------- */

/* An incoming id is echoed when it is short and made of visible ASCII other than quote and
 * backslash (it ends up in JSON log lines); anything else is replaced by a generated one. */
static bool request_id_ok(const char *id) {
    const size_t len = strlen(id);
    if (len == 0 || len > NQ_REQUEST_ID_MAX) return false;
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)id[i];
        if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
    }
    return true;
}

/* splitmix64 of seed + counter: unique per process, unpredictable enough for correlation ids. */
static void generate_request_id(nq_app *app, char *out, size_t cap) {
    uint64_t z = app->id_seed + atomic_fetch_add(&app->next_id, 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    (void)snprintf(out, cap, "%016llx", (unsigned long long)z);
}

static void common_headers(nq_app *app, const nq_request *req, nq_response *resp) {
    const char *id = req->header ? req->header(req->header_ctx, "X-Request-Id") : NULL;
    if (id && request_id_ok(id)) memcpy(resp->request_id, id, strlen(id) + 1);
    else generate_request_id(app, resp->request_id, sizeof resp->request_id);
    nq_response_add_header(resp, "X-Request-Id", resp->request_id);
    if (app->cfg->cors_origin[0]) {
        nq_response_add_header(resp, "Access-Control-Allow-Origin", app->cfg->cors_origin);
        nq_response_add_header(resp, "Access-Control-Expose-Headers", EXPOSE_HEADERS);
    }
}

void nq_app_success(nq_response *resp, unsigned status, const char *media, const char *etag, bool gzip,
                    double solver_seconds) {
    char timing[48];
    (void)snprintf(timing, sizeof timing, "solver;dur=%.3f", solver_seconds * 1000.0);
    resp->status = status;
    resp->solver_seconds = solver_seconds;
    if (media) nq_response_add_header(resp, "Content-Type", media);
    if (gzip) nq_response_add_header(resp, "Content-Encoding", "gzip");
    nq_response_add_header(resp, "ETag", etag);
    nq_response_add_header(resp, "Cache-Control", NQ_CACHE_CONTROL_IMMUTABLE);
    nq_response_add_header(resp, "Vary", "Accept, Accept-Encoding");
    nq_response_add_header(resp, "Server-Timing", timing);
}

void nq_app_problem(nq_response *resp, const char *instance, nq_err err, const char *param,
                    const char *detail, bool has_limit, uint64_t limit) {
    const nq_problem p = {err, instance, detail, param, limit, has_limit};
    char *body = NULL;
    size_t len = 0;
    resp->status = (unsigned)nq_err_http_status(err);
    if (nq_problem_render(&p, &body, &len) == NQ_OK) {
        resp->kind = NQ_BODY_OWNED;
        resp->owned = body;
        resp->body = body;
        resp->body_len = len;
        nq_response_add_header(resp, "Content-Type", NQ_PROBLEM_MEDIA_TYPE);
    } /* else: the status alone still says what happened */
    nq_response_add_header(resp, "Cache-Control", "no-store");
    if (resp->status == 503) nq_response_add_header(resp, "Retry-After", "1");
}

void nq_app_query_problem(nq_response *resp, const char *instance, const nq_query_error *qe) {
    nq_app_problem(resp, instance, qe->err, qe->param, qe->detail, false, 0);
}

void nq_app_serve_entry(nq_response *resp, nq_cache_entry *entry, const nq_variant *v, double seconds,
                        nq_cache_outcome outcome) {
    const nq_cache_value *val = nq_cache_entry_value(entry);
    const bool gz = v->gzip_ok && val->gzip != NULL;
    char etag[NQ_CACHE_STR_MAX + 8];
    if (gz) nq_app_etag_gzip(val->etag, etag, sizeof etag);
    else (void)snprintf(etag, sizeof etag, "%s", val->etag);
    nq_app_success(resp, 200, val->content_type, etag, gz, seconds);
    resp->kind = NQ_BODY_CACHED;
    resp->entry = entry;
    resp->body = gz ? val->gzip : val->body;
    resp->body_len = gz ? val->gzip_len : val->body_len;
    resp->cache = outcome;
}

void nq_app_count_key(int n, char *out, size_t cap) { (void)snprintf(out, cap, "count?n=%d", n); }

bool nq_app_cached_counts(nq_app *app, int n, nq_counts *out) {
    char key[32];
    nq_app_count_key(n, key, sizeof key);
    nq_cache_entry *e = nq_cache_get(app->cache, key);
    if (!e) return false;
    *out = nq_cache_entry_value(e)->counts;
    nq_cache_entry_release(e);
    return true;
}

nq_app_work *nq_app_work_new(nq_app *app, nq_work_kind kind, int n, const char *key,
                             const nq_request *req, const nq_variant *variant) {
    nq_app_work *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->app = app;
    w->kind = kind;
    w->n = n;
    (void)snprintf(w->key, sizeof w->key, "%s", key);
    (void)snprintf(w->instance, sizeof w->instance, "%s", req->path);
    w->variant = *variant;
    return w;
}

/* ---- the three steps ------------------------------------------------------------------------- */

static void preflight(const nq_route *route, nq_response *resp) {
    resp->status = 204;
    nq_response_add_header(resp, "Allow", route->allow);
    nq_response_add_header(resp, "Access-Control-Allow-Methods", route->allow);
    nq_response_add_header(resp, "Access-Control-Allow-Headers", ALLOW_HEADERS);
    nq_response_add_header(resp, "Access-Control-Max-Age", "86400");
}

nq_app_step nq_app_handle(nq_app *app, const nq_request *raw, nq_response *resp, nq_app_work **work) {
    *work = NULL;
    /* Route (and name in problems) the normalised path; one too long for the buffer matches no route
     * either way, and keeps its raw form. */
    char path[PATH_MAX_ROUTED];
    nq_request normalized = *raw;
    if (nq_router_normalize(raw->path, path, sizeof path)) normalized.path = path;
    const nq_request *req = &normalized;
    const nq_route *route = nq_router_match(req->path);
    resp->route = route->name;
    resp->head = strcmp(req->method, "HEAD") == 0;
    common_headers(app, req, resp);
    const bool options = strcmp(req->method, "OPTIONS") == 0;
    if (options && strcmp(req->path, "*") == 0) { /* "OPTIONS *": the server as a whole (RFC 9110 9.3.7) */
        resp->route = "options";
        resp->status = 204;
        nq_response_add_header(resp, "Allow", "GET, HEAD, OPTIONS");
        return NQ_APP_DONE;
    }
    if (!route->path) return route->handler(app, req, resp, work); /* 404 whatever the method */
    if (options) {
        preflight(route, resp);
        return NQ_APP_DONE;
    }
    if (strcmp(req->method, "GET") != 0 && !resp->head) {
        char detail[128];
        (void)snprintf(detail, sizeof detail, "This resource supports only %s.", route->allow);
        nq_app_problem(resp, req->path, NQ_E_METHOD, NULL, detail, false, 0);
        nq_response_add_header(resp, "Allow", route->allow);
        return NQ_APP_DONE;
    }
    return route->handler(app, req, resp, work);
}

const char *nq_app_work_key(const nq_app_work *work) { return work->key; }

nq_err nq_app_compute(const nq_app_work *work, nq_count_ctl *ctl, nq_app_result **out) {
    if (!work || !out) return NQ_E_ARG;
    nq_app_result *r = calloc(1, sizeof *r);
    if (!r) return NQ_E_NOMEM;
    const double t0 = nq_clock_s();
    const nq_err rc = work->kind == NQ_WORK_COUNT ? nq_count_compute(work, ctl, r) : nq_solve_compute(work, ctl, r);
    r->seconds = nq_clock_s() - t0;
    nq_ops_solver_done(nq_app_ops(work->app), work, r->seconds); /* once per computation */
    if (rc != NQ_OK) {
        nq_app_result_destroy(r);
        return rc;
    }
    *out = r;
    return NQ_OK;
}

void nq_app_finish(nq_app *app, nq_app_work *work, nq_err rc, const nq_app_result *result, nq_response *resp) {
    (void)app;
    if (rc != NQ_OK || !result) {
        nq_app_problem(resp, work->instance, rc == NQ_OK ? NQ_E_INTERNAL : rc, NULL, NULL, false, 0);
    } else if (work->kind == NQ_WORK_COUNT) {
        nq_count_finish(work, result, resp);
    } else if (nq_solve_continue(work, &result->counts, result, resp) != NQ_APP_DONE) {
        nq_response_clear(resp); /* cannot happen: a result always lets /solve answer */
        nq_app_problem(resp, work->instance, NQ_E_INTERNAL, NULL, NULL, false, 0);
    }
    nq_app_work_destroy(work);
}

nq_app_work *nq_app_work_copy(const nq_app_work *work) {
    nq_app_work *w = malloc(sizeof *w);
    if (w) *w = *work; /* plain data: no pointer in it is owned */
    return w;
}

void nq_app_work_destroy(nq_app_work *work) { free(work); }

void nq_app_result_destroy(nq_app_result *result) {
    if (!result) return;
    nq_cache_entry_release(result->entry);
    free(result);
}

double nq_app_result_seconds(const nq_app_result *result) { return result ? result->seconds : 0.0; }

void nq_app_reject(nq_app *app, const nq_request *req, nq_err err, const char *detail, nq_response *resp) {
    resp->route = "rejected";
    resp->head = strcmp(req->method, "HEAD") == 0;
    common_headers(app, req, resp);
    nq_app_problem(resp, req->path, err, NULL, detail, false, 0);
}

void nq_app_serve(nq_app *app, const nq_request *req, nq_response *resp) {
    nq_app_work *work = NULL;
    if (nq_app_handle(app, req, resp, &work) == NQ_APP_DONE) return;
    nq_app_result *result = NULL;
    const nq_err rc = nq_app_compute(work, NULL, &result);
    nq_app_finish(app, work, rc, result, resp);
    nq_app_result_destroy(result);
}
