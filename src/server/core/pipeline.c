/* pipeline.c - the three calls of the request pipeline (app.h): what every route shares, then the
 * matched route's steps (route.h, work.h).
 *
 * The core does what every route shares (routing, methods, request ids, CORS, negotiation, request
 * bodies' heads) and then runs the matched route's steps; it never looks inside a plan. Everything
 * a response must carry whatever its route is added here (X-Request-Id, CORS) or by the
 * success/problem helpers the routes call (reply.h).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp, strnlen */
#endif
#include "base/errors.h"
#include "core/app.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/body.h"
#include "core/conditional.h"
#include "core/negotiate.h"
#include "core/reply.h"
#include "core/route.h"
#include "core/work.h"

/* Prefer: a long count's wait=S or respond-async (the page sends it). */
#define ALLOW_HEADERS "Accept, Accept-Encoding, If-Match, If-None-Match, Prefer, X-Request-Id"
/* ... and what a browser's POST of a JSON body sends too (application/json is not a "simple" type) */
#define ALLOW_HEADERS_BODY "Accept, Accept-Encoding, Content-Type, If-Match, If-None-Match, Prefer, X-Request-Id"
#define EXPOSE_HEADERS "ETag, Server-Timing, X-Request-Id, Retry-After, Location, Content-Location, Preference-Applied"

/* ---- headers every response carries ---------------------------------------------------------- */

/* An incoming id is echoed when it is short and made of visible ASCII other than quote and
 * backslash (it ends up in JSON log lines); anything else is replaced by a generated one. */
/* s into out[0..cap), cut to cap - 1 bytes and NUL-terminated (what snprintf "%s" does, without
 * its format machinery, on every request). */
static void copy_str(char *out, size_t cap, const char *s)
{
    const size_t len = strnlen(s, cap - 1);
    memcpy(out, s, len);
    out[len] = '\0';
}

static bool request_id_ok(const char *id)
{
    const size_t len = strlen(id);
    if (len == 0 || len > NQ_REQUEST_ID_MAX) return false;
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)id[i];
        if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
    }
    return true;
}

/* splitmix64 of seed + counter: unique per process, unpredictable enough for correlation ids. */
/* The headers every response carries: its request id (resp->request_id) and CORS. */
static void id_and_cors(const nq_app *app, nq_response *resp)
{
    nq_response_add_header(resp, "X-Request-Id", resp->request_id);
    const nq_config *cfg = nq_app_config(app);
    if (cfg->cors_origin[0]) {
        nq_response_add_header(resp, "Access-Control-Allow-Origin", cfg->cors_origin);
        nq_response_add_header(resp, "Access-Control-Expose-Headers", EXPOSE_HEADERS);
    }
}

static void common_headers(nq_app *app, const nq_request *req, nq_response *resp)
{
    const char *id = req->header ? req->header(req->header_ctx, "X-Request-Id") : NULL;
    if (id && request_id_ok(id))
        memcpy(resp->request_id, id, strlen(id) + 1);
    else
        nq_app_request_id(app, resp->request_id, sizeof resp->request_id);
    id_and_cors(app, resp);
}

/* A 2xx or 304 answer whose If-Match failed becomes a 412 (RFC 9110 section 13.1.1): the answer's
 * body and headers go, its request id and CORS headers stay. An error stands: a condition never
 * turns one into a 412 (section 13.2.1). */
/* Replace resp by the problem for err: its body and headers go, its request id, route name and HEAD
 * flag stay, and it gets the headers every response carries again. */
static void replace_by_problem(const nq_app *app, const char *instance, nq_err err, const char *detail,
                               nq_response *resp)
{
    char id[sizeof resp->request_id];
    memcpy(id, resp->request_id, sizeof id);
    const char *route = resp->route;
    const bool head = resp->head;
    nq_response_clear(resp);
    resp->route = route;
    resp->head = head;
    memcpy(resp->request_id, id, sizeof id);
    id_and_cors(app, resp);
    nq_app_problem(resp, instance, err, NULL, detail, false, 0);
}

static void precondition(const nq_app *app, const char *instance, nq_app_if_match im, nq_response *resp)
{
    if (im != NQ_IF_MATCH_FAILS || !((resp->status >= 200 && resp->status < 300) || resp->status == 304)) return;
    replace_by_problem(app, instance, NQ_E_PRECONDITION, NULL, resp);
}

/* A response that lost a header (response.h) is not sent as it is: a 500 goes in its place. One sent
 * from a cache entry pins it (--max-pinned-bytes): when it cannot, a 503 goes in its place. */
static void seal(nq_app *app, const char *instance, nq_response *resp)
{
    if (resp->overflow) {
        replace_by_problem(app, instance, NQ_E_INTERNAL, "The answer's headers did not fit the server's response.",
                           resp);
        return;
    }
    const char *detail = NULL;
    const nq_err rc = nq_app_pin_body(app, resp, &detail);
    if (rc != NQ_OK) replace_by_problem(app, instance, rc, detail, resp);
}

/* ---- the three steps ------------------------------------------------------------------------- */

static void preflight(const nq_route *route, nq_response *resp)
{
    resp->status = 204;
    nq_response_add_header(resp, "Allow", route->allow);
    nq_response_add_header(resp, "Access-Control-Allow-Methods", route->allow);
    nq_response_add_header(resp, "Access-Control-Allow-Headers",
                           nq_route_takes_body(route) ? ALLOW_HEADERS_BODY : ALLOW_HEADERS);
    nq_response_add_header(resp, "Access-Control-Max-Age", "86400");
}

/* The method rules every route shares; true when resp is complete (OPTIONS, 405). */
static bool method_answered(const nq_route *route, const nq_request *req, nq_response *resp)
{
    if (strcmp(req->method, "OPTIONS") == 0) {
        preflight(route, resp);
        return true;
    }
    if (strcmp(req->method, "GET") == 0 || resp->head) return false;
    if (nq_app_posted(req) && nq_route_takes_body(route)) return false;
    char detail[128];
    (void)snprintf(detail, sizeof detail, "This resource supports only %s.", route->allow);
    nq_app_problem(resp, req->path, NQ_E_METHOD, NULL, detail, false, 0);
    nq_response_add_header(resp, "Allow", route->allow);
    return true;
}

void nq_app_match(const nq_app *app, const char *raw_path, nq_match *m)
{
    assert(app && raw_path && m);
    /* One too long for the buffer matches no route either way, and keeps its raw form. */
    m->path = nq_route_normalize(raw_path, m->buf, sizeof m->buf) ? m->buf : raw_path;
    m->route = nq_route_find(nq_app_routes(app), m->path);
}

/* The request as routed: its path normalised and its route, from the match it carries (made once
 * by the transport) or from one made here into *local (a caller without a transport). */
static const nq_route *routed(nq_app *app, const nq_request *raw, nq_match *local, nq_request *req)
{
    const nq_match *m = raw->match;
    if (!m) {
        nq_app_match(app, raw->path, local);
        m = local;
    }
    *req = *raw;
    req->path = m->path;
    return m->route;
}

nq_app_body_step nq_app_body_begin(nq_app *app, const nq_request *raw, bool chunked, uint64_t length, nq_response *resp)
{
    assert(app && raw && raw->method && raw->path && resp);
    if (!nq_app_posted(raw)) return NQ_APP_BODY_NONE;
    nq_match local;
    nq_request req;
    const nq_route *route = routed(app, raw, &local, &req);
    if (!nq_route_takes_body(route)) return NQ_APP_BODY_NONE;
    const nq_err err = nq_body_fault(app, &req, chunked ? 0 : length);
    if (err == NQ_OK) return NQ_APP_BODY_READ;
    resp->route = route->name;
    common_headers(app, &req, resp);
    nq_body_problem(app, &req, err, length, resp);
    seal(app, req.path, resp);
    return NQ_APP_BODY_REFUSED;
}

void nq_app_body_too_large(nq_app *app, const nq_request *raw, nq_response *resp)
{
    nq_match local;
    nq_request req;
    resp->route = routed(app, raw, &local, &req)->name;
    common_headers(app, &req, resp);
    nq_body_problem(app, &req, NQ_E_BODY_TOO_LARGE, 0, resp);
    seal(app, req.path, resp);
}

/* A new work for route, with the variant negotiated once for every step; NULL without memory. */
static nq_app_work *work_new(nq_app *app, const nq_route *route, const nq_request *req)
{
    nq_app_work *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->app = app;
    w->route = route;
    copy_str(w->instance, sizeof w->instance, req->path);
    nq_app_negotiate(req, &w->variant);
    return w;
}

/* Steps 1 and 2 of route; *work keeps w when a computation is asked for, else w is freed. */
static nq_app_step run_route(nq_app *app, const nq_route *route, const nq_request *req, nq_response *resp,
                             nq_app_work **work)
{
    nq_app_work *w = work_new(app, route, req);
    if (!w) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    nq_app_step step = NQ_APP_DONE;
    if (!route->parse || route->parse(w, req, resp)) step = route->answer(w, req, resp);
    if (step != NQ_APP_DONE && route->compute) {
        resp->cache = NQ_CACHE_MISS;
        /* The request is gone when the answer is: hold If-Match now against both tags it may carry,
         * the key's, or none (a 202: only "*" holds, as when it is answered at once). */
        char etag[NQ_ETAG_MAX];
        nq_app_etag(w->key, false, etag, sizeof etag);
        w->if_match = nq_app_if_match_eval(req, etag);
        w->if_match_untagged = nq_app_if_match_eval(req, NULL);
        *work = w;
        return step;
    }
    if (step != NQ_APP_DONE) { /* a route that asks without a compute step: a table bug */
        nq_response_clear(resp);
        nq_app_problem(resp, req->path, NQ_E_INTERNAL, NULL, NULL, false, 0);
    }
    nq_app_work_destroy(w);
    return NQ_APP_DONE;
}

static nq_app_step handle(nq_app *app, const nq_request *raw, nq_response *resp, nq_app_work **work)
{
    *work = NULL;
    /* Route (and name in problems) the normalised path. */
    nq_match local;
    nq_request normalized;
    const nq_route *route = routed(app, raw, &local, &normalized);
    const nq_request *req = &normalized;
    resp->route = route->name;
    resp->head = strcmp(req->method, "HEAD") == 0;
    common_headers(app, req, resp);
    if (strcmp(req->method, "OPTIONS") == 0 && strcmp(req->path, "*") == 0) {
        /* "OPTIONS *": the server as a whole (RFC 9110 section 9.3.7) */
        resp->route = "options";
        resp->status = 204;
        nq_response_add_header(resp, "Allow", "GET, HEAD, OPTIONS");
        return NQ_APP_DONE;
    }
    if (raw->path[0] != '/') {
        /* Not a path: "*" for another method than OPTIONS, CONNECT's host:port, or a bare "count"
         * (RFC 9112 section 3.2: the absolute form reaches here as its path). No instance: the
         * target is no URI reference of this server ("localhost:8080" would read as a scheme). */
        resp->route = "bad_target";
        nq_app_problem(resp, NULL, NQ_E_BAD_REQUEST, NULL,
                       "The request target must be a path such as /count?n=8 (RFC 9112 section 3.2.1); "
                       "this server is no proxy.",
                       false, 0);
        return NQ_APP_DONE;
    }
    /* An unknown path is a 404 whatever the method: the fallback row, or a prefix row's answer for a
     * name it does not know. */
    const bool known = route->path && (!route->exists || route->exists(app, req->path));
    if (known && method_answered(route, req, resp)) return NQ_APP_DONE;
    /* A POST reaches its route only with a JSON body within the cap (the server checked its head
     * before reading it; a caller without a server may not have). */
    if (nq_app_posted(req) && nq_route_takes_body(route)) {
        if (!req->body) normalized.body = ""; /* none read: an empty one */
        const nq_err err = nq_body_fault(app, req, req->body_len);
        if (err != NQ_OK) {
            nq_body_problem(app, req, err, req->body_len, resp);
            return NQ_APP_DONE;
        }
    }
    const nq_app_step step = run_route(app, route, req, resp, work);
    if (step == NQ_APP_DONE) /* answered at once: held to If-Match by the tag it carries */
        precondition(app, req->path, nq_app_if_match_eval(req, nq_response_header(resp, "ETag")), resp);
    return step;
}

nq_app_step nq_app_handle(nq_app *app, const nq_request *raw, nq_response *resp, nq_app_work **work)
{
    assert(app && raw && raw->method && raw->path && resp && work);
    const nq_app_step step = handle(app, raw, resp, work);
    if (step == NQ_APP_DONE) seal(app, raw->path, resp);
    return step;
}

nq_err nq_app_compute(const nq_app_work *work, nq_count_ctl *ctl, nq_app_result **out)
{
    assert(!work || work->route);
    if (!work || !out || !work->route->compute) return NQ_E_ARG;
    nq_app_result *r = calloc(1, sizeof *r);
    if (!r) return NQ_E_NOMEM;
    const double t0 = nq_clock_s();
    const nq_err rc = work->route->compute(work, ctl, r);
    r->seconds = nq_clock_s() - t0;
    const nq_app_hooks *h = nq_app_hooks_of(work->app);
    if (h->solver_done) h->solver_done(h->ctx, work->route->name, r->method, r->seconds); /* once per computation */
    if (rc != NQ_OK) {
        nq_app_result_destroy(r);
        return rc;
    }
    *out = r;
    return NQ_OK;
}

void nq_app_finish(nq_app *app, nq_app_work *work, nq_err rc, const nq_app_result *result, nq_response *resp)
{
    assert(app && work && resp);
    if (rc == NQ_E_DEADLINE && work->route->late)
        work->route->late(work, resp);
    else if (rc != NQ_OK || !result)
        nq_app_problem(resp, work->instance, rc == NQ_OK ? NQ_E_INTERNAL : rc, NULL, NULL, false, 0);
    else
        work->route->finish(work, result, resp);
    precondition(app, work->instance, nq_response_header(resp, "ETag") ? work->if_match : work->if_match_untagged,
                 resp);
    seal(app, work->instance, resp);
    nq_app_work_destroy(work);
}

void nq_app_reject(nq_app *app, const nq_request *req, nq_err err, const char *detail, nq_response *resp)
{
    assert(app && req && req->method && resp);
    resp->route = "rejected";
    resp->head = strcmp(req->method, "HEAD") == 0;
    common_headers(app, req, resp);
    nq_app_problem(resp, req->path, err, NULL, detail, false, 0);
    seal(app, req->path, resp);
}

void nq_app_serve(nq_app *app, const nq_request *req, nq_response *resp)
{
    nq_app_work *work = NULL;
    if (nq_app_handle(app, req, resp, &work) == NQ_APP_DONE) return;
    nq_app_result *result = NULL;
    const nq_err rc = nq_app_compute(work, NULL, &result);
    if (rc == NQ_OK) nq_app_settle(work, result, NULL); /* inline: before finish consumes work */
    nq_app_finish(app, work, rc, result, resp);
    nq_app_result_destroy(result);
}
