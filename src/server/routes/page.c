/* page.c - the web page at "/" and its assets under /assets/ (web.h).
 *
 * Constant files, like /openapi.yaml: no query is accepted, each answer is a 304 or the file in its
 * identity or gzip form. The assets' names change with their bytes, so they are cached for a year;
 * the page itself names them and is revalidated on every load (no-cache, with its strong ETag). Every
 * file carries the headers that keep a page safe to serve from an API's origin: a Content-Security-
 * Policy that allows nothing but this origin's own files (no inline script or style, no framing),
 * nosniff, and no Referer to anyone.
 */
#include "routes/page.h"

#include <string.h>

#include "base/errors.h"
#include "core/reply.h"
#include "routes/shared.h"
#include "routes/web.h"

#define CACHE_CONTROL_PAGE "no-cache" /* store it, but ask each time: the ETag makes that a 304 */
#define CSP                                                                                         \
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " \
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

static void security_headers(nq_response *resp)
{
    nq_response_add_header(resp, "Content-Security-Policy", CSP);
    nq_response_add_header(resp, "X-Content-Type-Options", "nosniff");
    nq_response_add_header(resp, "Referrer-Policy", "no-referrer");
}

bool nq_route_page_exists(const nq_app *app, const char *path)
{
    return nq_web_find(nq_shared_web(app), path) != NULL;
}

nq_app_step nq_route_page_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const nq_web_asset *a = nq_web_find(nq_shared_web(w->app), req->path);
    if (!a) { /* an unknown asset is a 404 before its query counts */
        nq_app_problem(resp, req->path, NQ_E_NOT_FOUND, NULL, "No such asset; the page at / names the current ones.",
                       false, 0);
        return NQ_APP_DONE;
    }
    nq_query q;
    if (!nq_app_parse_query(req, 0, &q, resp)) return NQ_APP_DONE;
    const bool not_modified = nq_app_try_304(req, a->etag, a->etag_gz, &w->variant, resp);
    const bool gz = not_modified ? strcmp(nq_response_header(resp, "ETag"), a->etag_gz) == 0
                                 : w->variant.gzip_ok && a->gzip != NULL;
    if (!not_modified) nq_app_success(resp, 200, a->media, gz ? a->etag_gz : a->etag, gz, 0.0);
    if (!a->immutable) nq_response_set_header(resp, "Cache-Control", CACHE_CONTROL_PAGE);
    security_headers(resp);
    resp->kind = NQ_BODY_STATIC; /* for a 304 it only sizes Content-Length (see nq_app_304_body) */
    resp->body = gz ? a->gzip : a->body;
    resp->body_len = gz ? a->gzip_len : a->body_len;
    return NQ_APP_DONE;
}
