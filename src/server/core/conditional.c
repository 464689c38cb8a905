/* conditional.c - ETags, If-None-Match and If-Match (conditional.h).
 *
 * Header values come from the client: every list is walked once, bounded by its NUL, and an
 * element that does not parse matches nothing.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#endif
#include "core/conditional.h"

#include <assert.h>
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

void nq_app_etag(const char *key, bool gzip, char *out, size_t cap)
{
    assert(key && out);
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
    assert(etag && out);
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
