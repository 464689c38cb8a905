/* app.c - the nqueensd application: the request pipeline's core and the contract's headers.
 *
 * See app.h for the three calls and pipeline.h for the steps a route supplies. The core does what
 * every route shares (routing, methods, request ids, CORS, negotiation) and then runs the matched
 * route's steps; it never looks inside a plan. Everything a response must carry whatever its route
 * is added here (X-Request-Id, CORS) or by the success/problem helpers the routes call.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp */
#endif
#include "app/app.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "app/count_jobs.h"
#include "app/openapi_data.h"
#include "app/pipeline.h"
#include "app/router.h"
#include "app/web.h"
#include "base/clock.h"
#include "base/hash.h"

/* Prefer: a long count's wait=S or respond-async (the page sends it). */
#define ALLOW_HEADERS "Accept, Accept-Encoding, If-Match, If-None-Match, Prefer, X-Request-Id"
/* ... and what a browser's POST of a JSON body sends too (application/json is not a "simple" type) */
#define ALLOW_HEADERS_BODY "Accept, Accept-Encoding, Content-Type, If-Match, If-None-Match, Prefer, X-Request-Id"
#define EXPOSE_HEADERS "ETag, Server-Timing, X-Request-Id, Retry-After, Location, Content-Location, Preference-Applied"
#define PATH_MAX_ROUTED 256 /* longest normalised path kept; every route is far shorter */

struct nq_app {
    const nq_config *cfg;               /* read-only after start-up */
    nq_cache *cache;                    /* shared, internally locked; may be NULL */
    nq_app_hooks hooks;                 /* what the app reads of the server around it */
    atomic_bool draining;               /* readiness */
    atomic_uint_fast64_t next_id;       /* request-id counter */
    uint64_t id_seed;                   /* random per process, so ids differ across restarts */
    char *openapi_gzip;                 /* gzip of the embedded openapi.yaml, made once */
    char openapi_etag[24];              /* strong ETag of the document */
    char openapi_etag_gz[32];           /* and of its gzip form */
    nq_app_document openapi;            /* the document, as route_docs.c serves it */
    nq_count_jobs *jobs;                /* the long counts (count_jobs.h) */
    nq_web *web;                        /* the web page, compressed and tagged once (web.h) */
    atomic_uint gzip_streams;           /* streams compressing now: at most cfg->max_gzip_streams */
    atomic_uint_fast64_t gzip_declined; /* streams sent uncompressed for want of one */
};

nq_err nq_app_create(const nq_config *cfg, nq_cache *cache, const nq_app_hooks *hooks, nq_app **out)
{
    if (!cfg || !out) return NQ_E_ARG;
    nq_app *app = calloc(1, sizeof *app);
    if (!app) return NQ_E_NOMEM;
    app->cfg = cfg;
    app->cache = cache;
    if (hooks) app->hooks = *hooks;
    atomic_init(&app->draining, false);
    atomic_init(&app->next_id, 0);
    atomic_init(&app->gzip_streams, 0);
    atomic_init(&app->gzip_declined, 0);
    /* Request ids only need to differ between processes; a failed getrandom leaves a time seed. */
    if (getrandom(&app->id_seed, sizeof app->id_seed, GRND_NONBLOCK) != (ssize_t)sizeof app->id_seed)
        app->id_seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
    /* The document is constant: compress it once, and derive its ETag from its bytes. */
    size_t gzip_len = 0;
    const nq_err rc =
        nq_compress_buffer(nq_openapi_yaml, nq_openapi_yaml_len, NQ_COMPRESS_LEVEL_ONCE, &app->openapi_gzip, &gzip_len);
    if (rc != NQ_OK) {
        free(app);
        return rc;
    }
    nq_app_etag(nq_openapi_yaml, false, app->openapi_etag, sizeof app->openapi_etag);
    nq_app_etag(nq_openapi_yaml, true, app->openapi_etag_gz, sizeof app->openapi_etag_gz);
    app->openapi = (nq_app_document){nq_openapi_yaml, nq_openapi_yaml_len, app->openapi_gzip,
                                     gzip_len,        app->openapi_etag,   app->openapi_etag_gz};
    const nq_err wrc = nq_web_create(&app->web);
    if (wrc != NQ_OK) {
        nq_app_destroy(app);
        return wrc;
    }
    const nq_err jrc = nq_count_jobs_create(app, app->hooks.store, &app->jobs);
    if (jrc != NQ_OK) {
        nq_app_destroy(app);
        return jrc;
    }
    *out = app;
    return NQ_OK;
}

void nq_app_destroy(nq_app *app)
{
    if (!app) return;
    nq_count_jobs_destroy(app->jobs); /* its last checkpoints go to the store */
    nq_web_destroy(app->web);
    free(app->openapi_gzip);
    free(app);
}

void nq_app_set_draining(nq_app *app, bool draining)
{
    atomic_store(&app->draining, draining);
}
bool nq_app_draining(const nq_app *app)
{
    return atomic_load(&app->draining);
}
const nq_config *nq_app_config(const nq_app *app)
{
    return app->cfg;
}
nq_cache *nq_app_cache(const nq_app *app)
{
    return app->cache;
}
const nq_app_hooks *nq_app_hooks_of(const nq_app *app)
{
    return &app->hooks;
}
const nq_app_document *nq_app_openapi(const nq_app *app)
{
    return &app->openapi;
}
const nq_web *nq_app_web(const nq_app *app)
{
    return app->web;
}
nq_count_jobs *nq_app_jobs(const nq_app *app)
{
    return app->jobs;
}

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
static void generate_request_id(nq_app *app, char *out, size_t cap)
{
    uint64_t z = app->id_seed + atomic_fetch_add(&app->next_id, 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    if (cap <= 16) { /* the response's id field holds it */
        if (cap > 0) out[0] = '\0';
        return;
    }
    nq_hash_hex(z, out);
    out[16] = '\0';
}

/* The headers every response carries: its request id (resp->request_id) and CORS. */
static void id_and_cors(const nq_app *app, nq_response *resp)
{
    nq_response_add_header(resp, "X-Request-Id", resp->request_id);
    if (app->cfg->cors_origin[0]) {
        nq_response_add_header(resp, "Access-Control-Allow-Origin", app->cfg->cors_origin);
        nq_response_add_header(resp, "Access-Control-Expose-Headers", EXPOSE_HEADERS);
    }
}

static void common_headers(nq_app *app, const nq_request *req, nq_response *resp)
{
    const char *id = req->header ? req->header(req->header_ctx, "X-Request-Id") : NULL;
    if (id && request_id_ok(id))
        memcpy(resp->request_id, id, strlen(id) + 1);
    else
        generate_request_id(app, resp->request_id, sizeof resp->request_id);
    id_and_cors(app, resp);
}

/* A 2xx or 304 answer whose If-Match failed becomes a 412 (RFC 9110 section 13.1.1): the answer's
 * body and headers go, its request id and CORS headers stay. An error stands: a condition never
 * turns one into a 412 (section 13.2.1). */
static void precondition(const nq_app *app, const char *instance, nq_app_if_match im, nq_response *resp)
{
    if (im != NQ_IF_MATCH_FAILS || !((resp->status >= 200 && resp->status < 300) || resp->status == 304)) return;
    char id[sizeof resp->request_id];
    memcpy(id, resp->request_id, sizeof id);
    const char *route = resp->route;
    const bool head = resp->head;
    nq_response_clear(resp);
    resp->route = route;
    resp->head = head;
    memcpy(resp->request_id, id, sizeof id);
    id_and_cors(app, resp);
    nq_app_problem(resp, instance, NQ_E_PRECONDITION, NULL, NULL, false, 0);
}

/* "solver;dur=<milliseconds with 3 decimals>", by hand: snprintf's %.3f is the dearest call of a
 * cached answer. Rounded to the microsecond; a value past 10^12 ms (or NaN) is written as 0. */
static void server_timing(double seconds, char *out, size_t cap)
{
    static const char head[] = "solver;dur=";
    const double us = seconds * 1e6 + 0.5;
    uint64_t v = us >= 0.0 && us < 1e15 ? (uint64_t)us : 0, ms = v / 1000u;
    char digits[24], *p = digits + sizeof digits;
    for (int i = 0; i < 3; i++, v /= 10u) *--p = (char)('0' + v % 10u);
    *--p = '.';
    do *--p = (char)('0' + ms % 10u);
    while ((ms /= 10u) > 0);
    const size_t len = (size_t)(digits + sizeof digits - p);
    if (cap <= sizeof head - 1 + len) { /* the caller's 48 bytes hold any value */
        if (cap > 0) out[0] = '\0';
        return;
    }
    memcpy(out, head, sizeof head - 1);
    memcpy(out + sizeof head - 1, p, len);
    out[sizeof head - 1 + len] = '\0';
}

void nq_app_success(nq_response *resp, unsigned status, const char *media, const char *etag, bool gzip,
                    double solver_seconds)
{
    char timing[48];
    server_timing(solver_seconds, timing, sizeof timing);
    resp->status = status;
    resp->solver_seconds = solver_seconds;
    if (media) nq_response_add_header(resp, "Content-Type", media);
    if (gzip) nq_response_add_header(resp, "Content-Encoding", "gzip");
    nq_response_add_header(resp, "ETag", etag);
    nq_response_add_header(resp, "Cache-Control", NQ_CACHE_CONTROL_IMMUTABLE);
    nq_response_add_header(resp, "Vary", "Accept, Accept-Encoding");
    nq_response_add_header(resp, "Server-Timing", timing);
}

void nq_app_problem(nq_response *resp, const char *instance, nq_err err, const char *param, const char *detail,
                    bool has_limit, uint64_t limit)
{
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

void nq_app_query_problem(nq_response *resp, const char *instance, const nq_query_error *qe)
{
    nq_app_problem(resp, instance, qe->err, qe->param, qe->detail, false, 0);
}

void nq_app_serve_entry(nq_response *resp, nq_cache_entry *entry, const nq_variant *v, double seconds,
                        nq_cache_outcome outcome)
{
    const nq_cache_value *val = nq_cache_entry_value(entry);
    const bool gz = v->gzip_ok && val->gzip != NULL;
    char etag[NQ_CACHE_STR_MAX + 8];
    if (gz)
        nq_app_etag_gzip(val->etag, etag, sizeof etag);
    else
        copy_str(etag, sizeof etag, val->etag);
    nq_app_success(resp, 200, val->content_type, etag, gz, seconds);
    resp->kind = NQ_BODY_CACHED;
    resp->entry = entry;
    resp->body = gz ? val->gzip : val->body;
    resp->body_len = gz ? val->gzip_len : val->body_len;
    resp->cache = outcome;
}

void nq_app_serve_result(nq_response *resp, const nq_app_result *r, const nq_variant *v)
{
    nq_cache_entry_retain(r->entry); /* the result is shared; the response takes its own reference */
    nq_app_serve_entry(resp, r->entry, v, r->seconds, NQ_CACHE_MISS);
}

#define STREAM_IN_CAP ((size_t)32 * 1024) /* identity bytes a gzip stream pulls at a time */

/* A route's body, and gzip over it or NULL: what a streamed response reads. */
typedef struct app_stream {
    nq_app_body body;       /* identity bytes */
    nq_compress_stream *gz; /* gzip over body, or NULL */
    nq_app *app;            /* whose gzip_streams gz holds one of */
} app_stream;

/* One of the --max-gzip-streams: a deflate state lives as long as its slowest client, so their number
 * bounds the memory that clients who read slowly can pin. False when all are taken. */
static bool gzip_stream_take(nq_app *app)
{
    unsigned now = atomic_load(&app->gzip_streams);
    do {
        if (now >= app->cfg->max_gzip_streams) {
            atomic_fetch_add_explicit(&app->gzip_declined, 1, memory_order_relaxed);
            return false;
        }
    } while (!atomic_compare_exchange_weak(&app->gzip_streams, &now, now + 1));
    return true;
}

void nq_app_gzip_streams(const nq_app *app, unsigned *now, uint64_t *declined)
{
    *now = atomic_load(&app->gzip_streams);
    *declined = atomic_load(&app->gzip_declined);
}

static nq_err stream_read(void *src, char *buf, size_t cap, size_t *len)
{
    app_stream *s = src;
    return s->gz ? nq_compress_stream_read(s->gz, buf, cap, len) : s->body.read(s->body.state, buf, cap, len);
}

static void stream_free(void *src)
{
    app_stream *s = src;
    if (!s) return;
    if (s->gz) {
        nq_compress_stream_destroy(s->gz);
        atomic_fetch_sub(&s->app->gzip_streams, 1);
    }
    s->body.destroy(s->body.state);
    free(s);
}

/* The stream over body (taken over), with gzip over it when *gzip and one of the --max-gzip-streams
 * is free; *gzip then says which it got. For HEAD (no body) there is no stream, and *gzip says what
 * GET would get now, without taking a slot that nobody would read. On a failure *out (if set) is
 * for stream_free. */
static nq_err stream_make(nq_app *app, nq_app_body body, bool *gzip, app_stream **out)
{
    *out = NULL;
    if (!body.state) {
        if (*gzip) *gzip = atomic_load(&app->gzip_streams) < app->cfg->max_gzip_streams;
        return NQ_OK;
    }
    if (*gzip) *gzip = gzip_stream_take(app); /* none free: uncompressed, as a client must accept */
    app_stream *s = calloc(1, sizeof *s);
    if (!s) {
        if (*gzip) atomic_fetch_sub(&app->gzip_streams, 1);
        body.destroy(body.state);
        return NQ_E_NOMEM;
    }
    s->body = body;
    s->app = app;
    *out = s;
    if (!*gzip) return NQ_OK;
    const nq_err rc = nq_compress_stream_create(body.read, body.state, NQ_COMPRESS_LEVEL_STREAM, STREAM_IN_CAP, &s->gz);
    if (rc != NQ_OK) atomic_fetch_sub(&app->gzip_streams, 1); /* no gz: stream_free gives nothing back */
    return rc;
}

void nq_app_stream(const nq_app_work *w, nq_app_body body, const char *media, bool gzip, double seconds,
                   nq_response *resp)
{
    app_stream *s = NULL;
    const nq_err rc = stream_make(w->app, body, &gzip, &s);
    if (rc != NQ_OK) {
        stream_free(s);
        nq_app_problem(resp, w->instance, rc, NULL, NULL, false, 0);
        return;
    }
    char etag[40];
    nq_app_etag(w->key, gzip, etag, sizeof etag);
    nq_app_success(resp, 200, media, etag, gzip, seconds);
    resp->kind = NQ_BODY_STREAM; /* for HEAD an empty one: the headers of GET, no body */
    resp->read = s ? stream_read : NULL;
    resp->stream = s;
    resp->stream_free = s ? stream_free : NULL;
    resp->stream_len = gzip ? 0 : body.length; /* a compressed size is known only at the end */
    if (resp->cache == NQ_CACHE_NONE) resp->cache = NQ_CACHE_MISS;
}

nq_err nq_app_publish(const nq_app_work *w, const char *media, char *body, size_t len, const nq_counts *counts,
                      double seconds, nq_cache_entry **entry)
{
    char *gzip = NULL;
    size_t gzip_len = 0;
    *entry = NULL;
    const bool later = len >= NQ_APP_GZIP_LATER_BYTES; /* nq_app_settle makes the gzip form */
    const nq_err rc = len > NQ_COMPRESS_MIN_BYTES && !later
                          ? nq_compress_buffer(body, len, NQ_COMPRESS_LEVEL_ONCE, &gzip, &gzip_len)
                          : NQ_OK;
    if (rc != NQ_OK) {
        free(body);
        return rc;
    }
    char etag[32];
    nq_app_etag(w->key, false, etag, sizeof etag);
    const nq_cache_value v = {.content_type = media,
                              .etag = etag,
                              .body = body,
                              .body_len = len,
                              .gzip = gzip,
                              .gzip_len = gzip_len,
                              .solver_seconds = seconds,
                              .counts = counts ? *counts : (nq_counts){0, 0}};
    /* A refusal is no error: see above. A large body is taken over, not copied: the first answers go
     * out from it at once, and settling publishes a copy of it with its gzip form (nq_app_settle). */
    if (later) {
        (void)nq_cache_put_owned(w->app->cache, w->key, &v, body, entry);
        return NQ_OK;
    }
    (void)nq_cache_put(w->app->cache, w->key, &v, entry);
    free(body);
    free(gzip);
    return NQ_OK;
}

void nq_app_settle(const nq_app_work *work, const nq_app_result *result, const atomic_bool *stop)
{
    if (!result || !result->entry) return;
    const nq_cache_value *val = nq_cache_entry_value(result->entry);
    if (val->gzip || val->body_len <= NQ_COMPRESS_MIN_BYTES) return;
    nq_cache *cache = work->app->cache;
    if (!nq_cache_holds(cache, work->key, result->entry)) return; /* evicted or replaced: nothing to do */
    nq_cache_value both = *val;
    char *gzip = NULL;
    if (nq_compress_buffer_until(val->body, val->body_len, NQ_COMPRESS_LEVEL_ONCE, stop, &gzip, &both.gzip_len) !=
        NQ_OK)
        return;
    both.gzip = gzip;
    (void)nq_cache_put(cache, work->key, &both, NULL); /* readers of the first entry keep it */
    free(gzip);
}

void nq_app_static_json(nq_response *resp, unsigned status, const char *body)
{
    resp->status = status;
    resp->kind = NQ_BODY_STATIC;
    resp->body = body;
    resp->body_len = strlen(body);
    nq_response_add_header(resp, "Content-Type", NQ_MEDIA_JSON);
    nq_response_add_header(resp, "Cache-Control", "no-store");
}

bool nq_app_parse_query(const nq_request *req, unsigned keys, nq_query *q, nq_response *resp)
{
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, keys, q, &qe) == NQ_OK) return true;
    nq_app_query_problem(resp, req->path, &qe);
    return false;
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

/* ---- request bodies (app.h) ------------------------------------------------------------------ */

/* The request's Content-Encoding when it names a coding, anything but "identity"; else NULL. Bodies
 * are read as they come: a gzip body parsed as JSON would only be a puzzling 400. */
static const char *body_coding(const nq_request *req)
{
    const char *ce = req->header ? req->header(req->header_ctx, "Content-Encoding") : NULL;
    if (!ce) return NULL;
    while (*ce == ' ' || *ce == '\t') ce++;
    size_t len = strlen(ce);
    while (len > 0 && (ce[len - 1] == ' ' || ce[len - 1] == '\t')) len--;
    return len == 0 || (len == 8 && strncasecmp(ce, "identity", 8) == 0) ? NULL : ce;
}

/* Why a POST's body is refused, from its head: not JSON or content-coded (NQ_E_MEDIA_TYPE), or
 * longer than the cap (NQ_E_BODY_TOO_LARGE: length is the announced length, or that of the body
 * read); else NQ_OK. */
static nq_err body_fault(const nq_app *app, const nq_request *req, uint64_t length)
{
    if (!nq_app_json_content(req) || body_coding(req)) return NQ_E_MEDIA_TYPE;
    return length > app->cfg->max_body_bytes ? NQ_E_BODY_TOO_LARGE : NQ_OK;
}

/* A client's header value as printable ASCII ('?' for any other byte), cut to fit out. */
static void printable(const char *v, char *out, size_t cap)
{
    size_t k = 0;
    for (; v && k < cap - 1 && v[k]; k++) out[k] = v[k] >= 0x20 && v[k] < 0x7f ? v[k] : '?';
    out[k] = '\0';
}

/* The problem for body_fault's err; length as there, or 0 for a chunked body that grew past the cap. */
static void body_problem(const nq_app *app, const nq_request *req, nq_err err, uint64_t length, nq_response *resp)
{
    const size_t cap = app->cfg->max_body_bytes;
    char detail[200];
    const char *coding = err == NQ_E_MEDIA_TYPE && nq_app_json_content(req) ? body_coding(req) : NULL;
    if (coding) { /* RFC 9110 section 12.5.3: say which codings are accepted */
        char named[64];
        printable(coding, named, sizeof named);
        (void)snprintf(detail, sizeof detail, "The body must be sent as it is, not content-coded ('%s').", named);
        nq_app_problem(resp, req->path, err, NULL, detail, false, 0);
        nq_response_add_header(resp, "Accept-Encoding", "identity");
        return;
    }
    if (err == NQ_E_MEDIA_TYPE) {
        const char *ct = req->header ? req->header(req->header_ctx, "Content-Type") : NULL;
        char named[64];
        printable(ct, named, sizeof named);
        (void)snprintf(detail, sizeof detail, "The body must be 'Content-Type: application/json'%s%s%s.",
                       ct ? ", not '" : " (the request names no type)", named, ct ? "'" : "");
        nq_app_problem(resp, req->path, err, NULL, detail, false, 0);
        return;
    }
    if (length > 0)
        (void)snprintf(detail, sizeof detail, "The request body is %llu bytes long; this resource accepts at most %zu.",
                       (unsigned long long)length, cap);
    else
        (void)snprintf(detail, sizeof detail, "The chunked request body grew past the %zu bytes this resource accepts.",
                       cap);
    nq_app_problem(resp, req->path, NQ_E_BODY_TOO_LARGE, NULL, detail, true, cap);
}

/* The route of a raw path, normalised into buf (cap bytes) as nq_app_handle does (*path is then buf),
 * or kept raw when it does not fit. */
static const nq_route *route_of(const char *raw, char *buf, size_t cap, const char **path)
{
    *path = nq_router_normalize(raw, buf, cap) ? buf : raw;
    return nq_router_match(*path);
}

bool nq_app_body_route(const char *path)
{
    char buf[PATH_MAX_ROUTED];
    const char *routed = NULL;
    return nq_route_takes_body(route_of(path, buf, sizeof buf, &routed));
}

nq_app_body_step nq_app_body_begin(nq_app *app, const nq_request *raw, bool chunked, uint64_t length, nq_response *resp)
{
    if (!nq_app_posted(raw)) return NQ_APP_BODY_NONE;
    char buf[PATH_MAX_ROUTED];
    nq_request req = *raw;
    const nq_route *route = route_of(raw->path, buf, sizeof buf, &req.path);
    if (!nq_route_takes_body(route)) return NQ_APP_BODY_NONE;
    const nq_err err = body_fault(app, &req, chunked ? 0 : length);
    if (err == NQ_OK) return NQ_APP_BODY_READ;
    resp->route = route->name;
    common_headers(app, &req, resp);
    body_problem(app, &req, err, length, resp);
    return NQ_APP_BODY_REFUSED;
}

void nq_app_body_too_large(nq_app *app, const nq_request *raw, nq_response *resp)
{
    char buf[PATH_MAX_ROUTED];
    nq_request req = *raw;
    resp->route = route_of(raw->path, buf, sizeof buf, &req.path)->name;
    common_headers(app, &req, resp);
    body_problem(app, &req, NQ_E_BODY_TOO_LARGE, 0, resp);
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
        char etag[40];
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

nq_app_step nq_app_handle(nq_app *app, const nq_request *raw, nq_response *resp, nq_app_work **work)
{
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
        const nq_err err = body_fault(app, req, req->body_len);
        if (err != NQ_OK) {
            body_problem(app, req, err, req->body_len, resp);
            return NQ_APP_DONE;
        }
    }
    const nq_app_step step = run_route(app, route, req, resp, work);
    if (step == NQ_APP_DONE) /* answered at once: held to If-Match by the tag it carries */
        precondition(app, req->path, nq_app_if_match_eval(req, nq_response_header(resp, "ETag")), resp);
    return step;
}

const char *nq_app_work_key(const nq_app_work *work)
{
    return work->flight[0] ? work->flight : work->key;
}

nq_err nq_app_compute(const nq_app_work *work, nq_count_ctl *ctl, nq_app_result **out)
{
    if (!work || !out || !work->route->compute) return NQ_E_ARG;
    nq_app_result *r = calloc(1, sizeof *r);
    if (!r) return NQ_E_NOMEM;
    const double t0 = nq_clock_s();
    const nq_err rc = work->route->compute(work, ctl, r);
    r->seconds = nq_clock_s() - t0;
    const nq_app_hooks *h = &work->app->hooks;
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
    if (rc == NQ_E_DEADLINE && work->route->late)
        work->route->late(work, resp);
    else if (rc != NQ_OK || !result)
        nq_app_problem(resp, work->instance, rc == NQ_OK ? NQ_E_INTERNAL : rc, NULL, NULL, false, 0);
    else
        work->route->finish(work, result, resp);
    precondition(app, work->instance, nq_response_header(resp, "ETag") ? work->if_match : work->if_match_untagged,
                 resp);
    nq_app_work_destroy(work);
}

static void plan_free(nq_app_work *w)
{
    if (w->plan && w->plan_cleanup) w->plan_cleanup(w->plan);
    free(w->plan);
    w->plan = NULL;
    w->plan_cleanup = NULL;
}

void nq_app_plan_set_cleanup(nq_app_work *w, void (*cleanup)(void *plan))
{
    w->plan_cleanup = cleanup;
}

void *nq_app_plan_new(nq_app_work *w, size_t size)
{
    plan_free(w);
    w->plan = calloc(1, size);
    w->plan_size = w->plan ? size : 0;
    return w->plan;
}

void *nq_app_result_data_new(nq_app_result *r, size_t size)
{
    free(r->data);
    r->data = calloc(1, size);
    return r->data;
}

nq_app_work *nq_app_work_copy(const nq_app_work *work)
{
    if (work->plan_cleanup) return NULL; /* a plan that owns memory cannot be byte-copied */
    nq_app_work *w = malloc(sizeof *w);
    if (!w) return NULL;
    *w = *work;
    w->plan = NULL;
    if (work->plan_size && !(w->plan = malloc(work->plan_size))) {
        free(w);
        return NULL;
    }
    if (w->plan) memcpy(w->plan, work->plan, work->plan_size); /* plans hold no pointers */
    return w;
}

void nq_app_work_destroy(nq_app_work *work)
{
    if (!work) return;
    plan_free(work);
    free(work);
}

void nq_app_result_destroy(nq_app_result *result)
{
    if (!result) return;
    nq_cache_entry_release(result->entry);
    free(result->data);
    free(result);
}

double nq_app_result_seconds(const nq_app_result *result)
{
    return result ? result->seconds : 0.0;
}

void nq_app_reject(nq_app *app, const nq_request *req, nq_err err, const char *detail, nq_response *resp)
{
    resp->route = "rejected";
    resp->head = strcmp(req->method, "HEAD") == 0;
    common_headers(app, req, resp);
    nq_app_problem(resp, req->path, err, NULL, detail, false, 0);
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
