/* conditional.h - ETags and conditional requests (RFC 9110 section 13): If-None-Match answered
 * with a 304 without computing anything, If-Match held against the answer's tag.
 *
 * A tag is a keyed hash of the canonical request key (every replica and every restart tags an answer
 * alike), so a route can answer a conditional request before it computes.
 * Thread-safety: pure functions of their arguments (nq_app_304_body reads the internally locked cache).
 */
#ifndef NQ_CORE_CONDITIONAL_H
#define NQ_CORE_CONDITIONAL_H

#include <stdbool.h>
#include <stddef.h>

#include "core/app.h"
#include "core/negotiate.h"

/* Cache-Control of every success and its 304: results never change. */
#define NQ_CACHE_CONTROL_IMMUTABLE "public, max-age=31536000, immutable"

/* Room for any tag nq_app_etag makes, with its NUL: W/"<16 hex>-gzip". */
#define NQ_ETAG_MAX 32

/* An If-Match condition (RFC 9110 section 13.1.1), evaluated against a representation's tag. */
typedef enum nq_app_if_match {
    NQ_IF_MATCH_NONE = 0, /* the request has no If-Match */
    NQ_IF_MATCH_HOLDS,    /* it names the representation (or "*") */
    NQ_IF_MATCH_FAILS     /* it does not: a 2xx or 304 answer becomes 412 */
} nq_app_if_match;

/* ETag of a canonical key: strong for the identity bytes, "\"<16 hex>\"", which the key alone
 * decides; weak for the gzip form, "W/\"<16 hex>-gzip\"", whose bytes also depend on how it was
 * compressed (level 6 for the cache, level 1 while streaming) and on the zlib at hand. */
void nq_app_etag(const char *key, bool gzip, char *out, size_t cap);

/* The gzip form of an ETag nq_app_etag made ("\"<16 hex>\"" -> "W/\"<16 hex>-gzip\""): for tags kept
 * with a cached body, whose key is no longer at hand. */
void nq_app_etag_gzip(const char *etag, char *out, size_t cap);

/* If the request's If-None-Match matches etag (or etag_gz, when the client accepts gzip), make resp
 * a 304 naming the tag that matched and return true; else leave resp alone and return false. */
bool nq_app_try_304(const nq_request *req, const char *etag, const char *etag_gz, const nq_variant *v,
                    nq_response *resp);

/* The request's If-Match against a representation whose ETag is etag (NULL: it has none). It holds
 * for "*" or the strong tag of the identity form (a gzip form's weak W/"<hex>-gzip" names the same
 * content, whose strong tag is "<hex>"); weak tags in the list never match (strong comparison,
 * RFC 9110 section 13.1.1). A POST's target has no representation of its own: any If-Match fails. */
nq_app_if_match nq_app_if_match_eval(const nq_request *req, const char *etag);

/* The tag (etag or etag_gz, as nq_app_try_304 would choose) that the request's If-None-Match
 * matches, or NULL; resp is not touched. */
const char *nq_app_inm_match(const nq_request *req, const char *etag, const char *etag_gz, const nq_variant *v);

/* Make resp the 304 naming tag (what nq_app_try_304 does on a match). */
void nq_app_not_modified(nq_response *resp, const char *tag);

/* A 304 is sent like a HEAD response: headers only, with the Content-Length of the body the response
 * holds. Attach the body the 200 would have had when the cache has it (the form named by the 304's
 * ETag), so that Content-Length tells the truth (RFC 9110 section 8.6); without it the server states
 * no length (and closes the connection after the 304: see server.c). Never computes. */
void nq_app_304_body(nq_response *resp, nq_cache *cache, const char *key);

#endif /* NQ_CORE_CONDITIONAL_H */
