/* body.c - the request bodies the core admits (body.h): a POST's Content-Type, Content-Encoding and
 * length, judged from the head before a byte of the body is read, and the problems that refuse one.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp, strnlen */
#endif
#include "core/body.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/errors.h"
#include "core/negotiate.h"
#include "core/reply.h"

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

nq_err nq_body_fault(const nq_app *app, const nq_request *req, uint64_t length)
{
    if (!nq_app_json_content(req) || body_coding(req)) return NQ_E_MEDIA_TYPE;
    return length > nq_app_config(app)->max_body_bytes ? NQ_E_BODY_TOO_LARGE : NQ_OK;
}

/* A client's header value as printable ASCII ('?' for any other byte), cut to fit out. */
static void printable(const char *v, char *out, size_t cap)
{
    size_t k = 0;
    for (; v && k < cap - 1 && v[k]; k++) out[k] = v[k] >= 0x20 && v[k] < 0x7f ? v[k] : '?';
    out[k] = '\0';
}

void nq_body_problem(const nq_app *app, const nq_request *req, nq_err err, uint64_t length, nq_response *resp)
{
    const size_t cap = nq_app_config(app)->max_body_bytes;
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
