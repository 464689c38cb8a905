/* negotiate.c - content and coding negotiation (negotiate.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp */
#endif
#include "core/negotiate.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cache/compress.h"

static const char *header(const nq_request *req, const char *name)
{
    return req->header ? req->header(req->header_ctx, name) : NULL;
}

static const char *skip_ows(const char *p)
{
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

/* The q of one Accept element [p, end) ("type/sub;a=b;q=0.5"), 1000 when absent, -1 if malformed. */
static int element_q(const char *p, const char *end)
{
    const char *semi = memchr(p, ';', (size_t)(end - p));
    while (semi) {
        const char *param = skip_ows(semi + 1);
        const char *next = memchr(param, ';', (size_t)(end - param));
        const char *stop = next ? next : end;
        while (stop > param && (stop[-1] == ' ' || stop[-1] == '\t')) stop--;
        if (stop - param >= 2 && (param[0] == 'q' || param[0] == 'Q') && param[1] == '=')
            return nq_compress_qvalue(param + 2, stop);
        semi = next;
    }
    return 1000;
}

/* The weight Accept gives `media` ("application/x-ndjson"): its own element's q, else (when
 * wildcards count) that of "type/ *" or "* / *", else 0. Absent Accept: 1000 for everything. */
static int accept_weight(const char *accept, const char *media, bool wildcards)
{
    if (!accept) return 1000;
    const size_t mlen = strlen(media);
    const char *slash = strchr(media, '/');
    const size_t tlen = (size_t)(slash - media) + 1; /* "application/" */
    int exact = -1, type_any = -1, any = -1;
    for (const char *p = accept; *p;) {
        p = skip_ows(p);
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        const char *semi = memchr(p, ';', (size_t)(end - p));
        const char *range_end = semi ? semi : end;
        while (range_end > p && (range_end[-1] == ' ' || range_end[-1] == '\t')) range_end--;
        const size_t rlen = (size_t)(range_end - p);
        const int q = element_q(p, end);
        if (q >= 0) {
            if (rlen == mlen && strncasecmp(p, media, mlen) == 0)
                exact = q;
            else if (rlen == tlen + 1 && strncasecmp(p, media, tlen) == 0 && p[tlen] == '*')
                type_any = q;
            else if (rlen == 3 && memcmp(p, "*/*", 3) == 0)
                any = q;
        }
        p = comma ? comma + 1 : end;
    }
    if (exact >= 0) return exact;
    if (!wildcards) return 0;
    if (type_any >= 0) return type_any;
    return any >= 0 ? any : 0;
}

void nq_app_negotiate(const nq_request *req, nq_variant *v)
{
    v->head = strcmp(req->method, "HEAD") == 0;
    v->gzip_ok = nq_compress_negotiate(header(req, "Accept-Encoding")) == NQ_ENCODING_GZIP;
    /* NDJSON only when asked for by name (a wildcard means "anything", and JSON is the default) and
     * weighted at least as high as JSON. */
    const char *accept = header(req, "Accept");
    const int nd = accept ? accept_weight(accept, NQ_MEDIA_NDJSON, false) : 0;
    v->ndjson = nd > 0 && nd >= accept_weight(accept, NQ_MEDIA_JSON, true);
}

bool nq_app_posted(const nq_request *req)
{
    return strcmp(req->method, "POST") == 0;
}

/* One parameter of a media type at p (after its ';' and whitespace) up to end: true when it is
 * charset=utf-8 (name and value case-insensitive, the value maybe quoted), the only one JSON allows. */
static bool utf8_charset(const char *p, const char *end)
{
    while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
    static const char name[] = "charset=";
    if ((size_t)(end - p) < sizeof name - 1 || strncasecmp(p, name, sizeof name - 1) != 0) return false;
    p += sizeof name - 1;
    if (end - p >= 2 && *p == '"' && end[-1] == '"') {
        p++;
        end--;
    }
    return end - p == 5 && strncasecmp(p, "utf-8", 5) == 0;
}

bool nq_app_json_content(const nq_request *req)
{
    const char *ct = header(req, "Content-Type");
    if (!ct) return false;
    const char *p = skip_ows(ct);
    static const char json[] = "application/json";
    if (strncasecmp(p, json, sizeof json - 1) != 0) return false;
    p += sizeof json - 1;
    while (*p) { /* parameters: "; charset=utf-8", nothing else */
        p = skip_ows(p);
        if (*p == '\0') break;
        if (*p != ';') return false;
        p = skip_ows(p + 1);
        const char *next = strchr(p, ';');
        const char *end = next ? next : p + strlen(p);
        if (end != p && !utf8_charset(p, end)) return false; /* empty parameters are allowed */
        p = end;
    }
    return true;
}
