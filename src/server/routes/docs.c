/* docs.c - constant documents: /openapi.yaml, /problems/{slug}, and the 404 fallback.
 *
 * Nothing here computes: each route is a parse (no parameters are accepted) and an answer (a 304
 * or the document, whose ETag derives from its bytes or its slug).
 */
#include "routes/docs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "core/reply.h"
#include "routes/shared.h"

#define MEDIA_YAML "application/yaml" /* RFC 9512 */

/* These documents take no parameters: any query is an unknown parameter (or malformed). */
bool nq_route_docs_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    (void)w;
    nq_query q;
    return nq_app_parse_query(req, 0, &q, resp);
}

nq_app_step nq_route_openapi_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const nq_document *d = nq_shared_openapi(w->app);
    const bool not_modified = nq_app_try_304(req, d->etag, d->etag_gz, &w->variant, resp);
    const bool gz = not_modified ? strcmp(nq_response_header(resp, "ETag"), d->etag_gz) == 0
                                 : w->variant.gzip_ok && d->body_len > NQ_COMPRESS_MIN_BYTES;
    if (!not_modified) nq_app_success(resp, 200, MEDIA_YAML, gz ? d->etag_gz : d->etag, gz, 0.0);
    resp->kind = NQ_BODY_STATIC; /* for a 304 it only sizes Content-Length (see nq_app_304_body) */
    resp->body = gz ? d->gzip : d->body;
    resp->body_len = gz ? d->gzip_len : d->body_len;
    return NQ_APP_DONE;
}

bool nq_route_problem_doc_exists(const nq_app *app, const char *path)
{
    (void)app;
    const char *slug = path + strlen(NQ_PROBLEM_TYPE_BASE);
    return nq_problem_find(slug, strlen(slug)) != NULL;
}

nq_app_step nq_route_problem_doc_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const char *slug = req->path + strlen(NQ_PROBLEM_TYPE_BASE);
    char *body = NULL;
    size_t len = 0;
    const nq_err rc = nq_problem_doc(slug, strlen(slug), &body, &len);
    if (rc != NQ_OK) {
        nq_app_problem(resp, req->path, rc, NULL, rc == NQ_E_NOT_FOUND ? "No such problem type." : NULL, false, 0);
        return NQ_APP_DONE;
    }
    nq_query q;
    if (!nq_app_parse_query(req, 0, &q, resp)) { /* an unknown slug is a 404 before the query counts */
        free(body);
        return NQ_APP_DONE;
    }
    char key[NQ_APP_KEY_MAX], etag[NQ_ETAG_MAX], etag_gz[NQ_ETAG_MAX];
    (void)snprintf(key, sizeof key, "problem:%s", slug);
    nq_app_etag(key, false, etag, sizeof etag);
    nq_app_etag(key, true, etag_gz, sizeof etag_gz);
    if (!nq_app_try_304(req, etag, etag_gz, &w->variant, resp))     /* a 304 keeps the body to size Content-Length */
        nq_app_success(resp, 200, NQ_MEDIA_JSON, etag, false, 0.0); /* a few hundred bytes: never gzip */
    nq_response_own(resp, body, len);
    return NQ_APP_DONE;
}

nq_app_step nq_route_not_found_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    (void)w;
    nq_app_problem(resp, req->path, NQ_E_NOT_FOUND, NULL,
                   "No resource lives at this path; /openapi.yaml lists the routes.", false, 0);
    return NQ_APP_DONE;
}
