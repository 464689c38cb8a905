/* handle_static.c - constant documents: /openapi.yaml, /problems/{slug}, and the 404 fallback. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_internal.h"
#include "openapi_data.h"
#include "router.h"

#define MEDIA_YAML "application/yaml" /* RFC 9512 */

/* These documents take no parameters: any query is an unknown parameter (or malformed). */
static bool reject_query(const nq_request *req, nq_response *resp) {
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, 0, &q, &qe) == NQ_OK) return false;
    nq_app_query_problem(resp, req->path, &qe);
    return true;
}

nq_app_step nq_handle_openapi(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work) {
    (void)work;
    if (reject_query(req, resp)) return NQ_APP_DONE;
    nq_variant v;
    nq_app_negotiate(req, &v);
    const char *const etag_gz = app->openapi_etag_gz;
    const bool not_modified = nq_app_try_304(req, app->openapi_etag, etag_gz, &v, resp);
    const bool gz = not_modified ? strcmp(nq_response_header(resp, "ETag"), etag_gz) == 0
                                 : v.gzip_ok && nq_openapi_yaml_len > NQ_COMPRESS_MIN_BYTES;
    if (!not_modified) nq_app_success(resp, 200, MEDIA_YAML, gz ? etag_gz : app->openapi_etag, gz, 0.0);
    resp->kind = NQ_BODY_STATIC; /* for a 304 it only sizes Content-Length (see nq_app_304_body) */
    resp->body = gz ? app->openapi_gzip : nq_openapi_yaml;
    resp->body_len = gz ? app->openapi_gzip_len : nq_openapi_yaml_len;
    return NQ_APP_DONE;
}

nq_app_step nq_handle_problem_doc(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work) {
    (void)app;
    (void)work;
    const char *slug = req->path + strlen(NQ_PROBLEM_TYPE_BASE);
    char *body = NULL;
    size_t len = 0;
    const nq_err rc = nq_problem_doc(slug, strlen(slug), &body, &len);
    if (rc != NQ_OK) {
        nq_app_problem(resp, req->path, rc, NULL, rc == NQ_E_NOT_FOUND ? "No such problem type." : NULL, false, 0);
        return NQ_APP_DONE;
    }
    if (reject_query(req, resp)) {
        free(body);
        return NQ_APP_DONE;
    }
    char key[NQ_APP_KEY_MAX], etag[32], etag_gz[40];
    (void)snprintf(key, sizeof key, "problem:%s", slug);
    nq_app_etag(key, false, etag, sizeof etag);
    nq_app_etag(key, true, etag_gz, sizeof etag_gz);
    nq_variant v;
    nq_app_negotiate(req, &v);
    if (!nq_app_try_304(req, etag, etag_gz, &v, resp)) /* a 304 keeps the body to size Content-Length */
        nq_app_success(resp, 200, NQ_MEDIA_JSON, etag, false, 0.0); /* a few hundred bytes: never gzip */
    resp->kind = NQ_BODY_OWNED;
    resp->owned = body;
    resp->body = body;
    resp->body_len = len;
    return NQ_APP_DONE;
}

nq_app_step nq_handle_not_found(nq_app *app, const nq_request *req, nq_response *resp, nq_app_work **work) {
    (void)app;
    (void)work;
    nq_app_problem(resp, req->path, NQ_E_NOT_FOUND, NULL,
                   "No resource lives at this path; /openapi.yaml lists the routes.", false, 0);
    return NQ_APP_DONE;
}
