/* negotiate.c - content and coding negotiation, ETags and If-None-Match for the app (pipeline.h).
 *
 * Header values come from the client: every parser here walks the value once, bounded by its NUL,
 * and ignores what it does not understand instead of failing the request (RFC 9110 lets a server
 * disregard a malformed Accept).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp */
#endif
#include "app/pipeline.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/hash.h"

/* The ETag key: SipHash-2-4 (base/hash.h) under these 16 fixed ASCII bytes, so every replica and
 * every restart tags a response alike. Its last character is the version of the bodies' shape: a
 * release that renders differently bumps it, so it never matches an ETag handed out by an older one. */
#define ETAG_KEY "nqueensd-etag-v1"
_Static_assert(sizeof ETAG_KEY == 16 + 1, "a SipHash key is 16 bytes");

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

void nq_app_etag(const char *key, bool gzip, char *out, size_t cap)
{
    const nq_hash_key k = nq_hash_key_from_bytes((const unsigned char *)ETAG_KEY);
    const uint64_t h = nq_hash_bytes(&k, key, strlen(key));
    /* The gzip form is weak: its bytes depend on how it was compressed (level 6 once for the cache,
     * level 1 while streaming, and the zlib at hand), not on the key alone. */
    const char *const head = gzip ? "W/\"" : "\"";
    const char *const tail = gzip ? "-gzip\"" : "\"";
    const size_t head_len = strlen(head), tail_len = strlen(tail);
    if (cap <= head_len + 16 + tail_len) { /* every caller's buffer holds the longer form */
        if (cap > 0) out[0] = '\0';
        return;
    }
    memcpy(out, head, head_len);
    nq_hash_hex(h, out + head_len);
    memcpy(out + head_len + 16, tail, tail_len + 1);
}

void nq_app_etag_gzip(const char *etag, char *out, size_t cap)
{
    (void)snprintf(out, cap, "W/%.*s-gzip\"", (int)strlen(etag) - 1, etag); /* before the closing quote */
}

/* Whether the If-None-Match list contains tag (weak comparison, RFC 9110 section 13.1.2). Empty
 * elements (",\"a\"", "\"a\",,\"b\"") are skipped, as RFC 9110 section 5.6.1 asks of every list. */
static bool list_has(const char *list, const char *tag)
{
    if (tag[0] == 'W' && tag[1] == '/') tag += 2; /* weak comparison: the opaque tags alone */
    const size_t tlen = strlen(tag);
    for (const char *p = list; *p;) {
        p = skip_ows(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '*') return true;
        if (p[0] == 'W' && p[1] == '/') p += 2;
        if (*p != '"') break; /* malformed: stop, match nothing more */
        const char *close = strchr(p + 1, '"');
        if (!close) break;
        if ((size_t)(close + 1 - p) == tlen && memcmp(p, tag, tlen) == 0) return true;
        p = skip_ows(close + 1);
        if (*p != ',' && *p != '\0') break;
    }
    return false;
}

/* Whether the If-Match list holds "*" or tag by strong comparison (RFC 9110 section 8.8.3.2): an
 * element marked weak never matches. A malformed list matches nothing from where it breaks. */
static bool list_has_strong(const char *list, const char *tag)
{
    const size_t tlen = tag ? strlen(tag) : 0;
    for (const char *p = list; *p;) {
        p = skip_ows(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '*') return true;
        const bool weak = p[0] == 'W' && p[1] == '/';
        if (weak) p += 2;
        if (*p != '"') break;
        const char *close = strchr(p + 1, '"');
        if (!close) break;
        if (!weak && tlen > 0 && (size_t)(close + 1 - p) == tlen && memcmp(p, tag, tlen) == 0) return true;
        p = skip_ows(close + 1);
        if (*p != ',' && *p != '\0') break;
    }
    return false;
}

/* The strong tag of the identity form behind etag into out: etag itself, or "<hex>" for the gzip
 * form's W/"<hex>-gzip"; "" for any other weak tag or none. */
static void identity_tag(const char *etag, char *out, size_t cap)
{
    out[0] = '\0';
    if (!etag) return;
    const size_t len = strlen(etag);
    if (etag[0] != 'W') {
        (void)snprintf(out, cap, "%s", etag);
    } else if (len > 8 && etag[1] == '/' && etag[2] == '"' && strcmp(etag + len - 6, "-gzip\"") == 0) {
        (void)snprintf(out, cap, "%.*s\"", (int)(len - 8), etag + 2);
    }
}

nq_app_if_match nq_app_if_match_eval(const nq_request *req, const char *etag)
{
    const char *im = header(req, "If-Match");
    if (!im) return NQ_IF_MATCH_NONE;
    /* A POST's target (/check, /complete) has no representation of its own: nothing matches. */
    if (nq_app_posted(req)) return NQ_IF_MATCH_FAILS;
    char strong[64]; /* tags are 18 to 25 bytes */
    identity_tag(etag, strong, sizeof strong);
    return list_has_strong(im, strong[0] ? strong : NULL) ? NQ_IF_MATCH_HOLDS : NQ_IF_MATCH_FAILS;
}

const char *nq_app_inm_match(const nq_request *req, const char *etag, const char *etag_gz, const nq_variant *v)
{
    /* Only GET and HEAD are revalidated: a POST's answer is computed from its body, which no tag
     * of the target resource describes (RFC 9110 section 13.1.2 would have a match refuse the POST
     * with a 412; there is no representation of /check itself for it to match). */
    if (nq_app_posted(req)) return NULL;
    const char *inm = header(req, "If-None-Match");
    if (!inm) return NULL;
    return list_has(inm, etag) ? etag : (v->gzip_ok && list_has(inm, etag_gz)) ? etag_gz : NULL;
}

bool nq_app_try_304(const nq_request *req, const char *etag, const char *etag_gz, const nq_variant *v,
                    nq_response *resp)
{
    const char *tag = nq_app_inm_match(req, etag, etag_gz, v);
    if (!tag) return false;
    nq_app_not_modified(resp, tag);
    return true;
}

void nq_app_not_modified(nq_response *resp, const char *tag)
{
    resp->status = 304;
    resp->cache = NQ_CACHE_HIT;
    nq_response_add_header(resp, "ETag", tag);
    nq_response_add_header(resp, "Cache-Control", NQ_CACHE_CONTROL_IMMUTABLE);
    nq_response_add_header(resp, "Vary", "Accept, Accept-Encoding");
    nq_response_add_header(resp, "Server-Timing", "solver;dur=0.000");
}

void nq_app_304_body(nq_response *resp, nq_cache *cache, const char *key)
{
    nq_cache_entry *e = nq_cache_get(cache, key);
    if (!e) return;
    const nq_cache_value *val = nq_cache_entry_value(e);
    const char *tag = nq_response_header(resp, "ETag");
    const size_t tlen = tag ? strlen(tag) : 0;
    const bool gz = tlen > 6 && strcmp(tag + tlen - 6, "-gzip\"") == 0;
    if (gz && !val->gzip) { /* not made yet (nq_app_settle): no length to state */
        nq_cache_entry_release(e);
        return;
    }
    resp->kind = NQ_BODY_CACHED;
    resp->entry = e;
    resp->body = gz ? val->gzip : val->body;
    resp->body_len = gz ? val->gzip_len : val->body_len;
}
