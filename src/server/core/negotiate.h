/* negotiate.h - what a request wants back: HEAD, gzip, NDJSON (content and coding negotiation),
 * and the facts about its body that the core checks (a POST, a JSON Content-Type).
 *
 * Header values come from the client: every parser walks the value once, bounded by its NUL, and
 * ignores what it does not understand instead of failing the request (RFC 9110 lets a server
 * disregard a malformed Accept).
 * Thread-safety: pure functions of the request.
 */
#ifndef NQ_CORE_NEGOTIATE_H
#define NQ_CORE_NEGOTIATE_H

#include <stdbool.h>

#include "core/app.h"

#define NQ_MEDIA_JSON "application/json"
#define NQ_MEDIA_NDJSON "application/x-ndjson"

/* What a negotiated request wants back. */
typedef struct nq_variant {
    bool head;    /* HEAD: headers only */
    bool gzip_ok; /* Accept-Encoding allows gzip */
    bool ndjson;  /* Accept prefers application/x-ndjson */
} nq_variant;

/* Negotiate the variant of req (HEAD, gzip, NDJSON). */
void nq_app_negotiate(const nq_request *req, nq_variant *v);

/* Whether req is a POST: its placement is req->body, of the type and size the core has checked. */
bool nq_app_posted(const nq_request *req);

/* Whether req's Content-Type is application/json, alone or with charset=utf-8 (case-insensitive,
 * whitespace and a quoted value allowed); any other type or parameter, or none, is false. */
bool nq_app_json_content(const nq_request *req);

#endif /* NQ_CORE_NEGOTIATE_H */
