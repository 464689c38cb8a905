/* problem.c - RFC 9457 problem bodies and the descriptions served at each problem type URI. */
#include "problem.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One row per slug of the error table: what a client should understand and do. Several errors may
 * share a slug (and so a type); the status and title here are those of the type. */
typedef struct doc_row {
    const char *slug;        /* as in NQ_ERR_TABLE */
    int status;              /* the HTTP status this type is answered with */
    const char *title;       /* short summary */
    const char *description; /* what it means and what to do */
} doc_row;

static const doc_row docs[] = {
    {"bad-request", 400, "Bad request",
     "The request itself is malformed: a query with an empty parameter or a broken percent-escape "
     "outside any known parameter, or a head that breaks HTTP/1.1 (no Host or more than one, a space "
     "before a colon, a folded line, a method that is not a token, a Content-Length or "
     "Transfer-Encoding that leaves the body's end in doubt). Fix the request; retrying it unchanged "
     "fails again. The server closes the connection after this answer when the request's framing "
     "is in doubt."},
    {"missing-parameter", 400, "Missing parameter",
     "A required query parameter is absent; 'param' names it. Add it and retry."},
    {"duplicate-parameter", 400, "Duplicate parameter",
     "A query parameter appears more than once; 'param' names it. Give each parameter once."},
    {"unknown-parameter", 400, "Unknown parameter",
     "The query names a parameter this resource does not accept (names are case-sensitive); 'param' "
     "names it. Remove it or fix its spelling."},
    {"invalid-parameter", 400, "Invalid parameter",
     "A parameter's value can never be valid: integers are plain ASCII decimal digits within the "
     "range the detail gives, booleans are 'true' or 'false'. 'param' names the parameter."},
    {"invalid-cursor", 400, "Invalid cursor",
     "The 'after' cursor is not n comma-separated column numbers 0..n-1 (as format=columns gives "
     "them). Use the 'next' link of the previous page, or a solution in columns format."},
    {"conflicting-parameters", 400, "Conflicting parameters",
     "Two parameters exclude each other ('after' and 'offset'); 'param' names one. Keep one of them."},
    {"limit-exceeded", 422, "Beyond this server's limits",
     "The value is valid but larger than this server is configured to serve; 'param' names the "
     "parameter and 'limit' gives the largest value accepted."},
    {"result-too-large", 422, "Result too large",
     "The answer would hold more solutions than one response may carry ('limit' gives the cap). Ask "
     "for a page with 'limit' and walk the pages with 'after' (each page's 'next' link does that)."},
    {"not-found", 404, "Not found", "No resource lives at this path. The routes are listed in /openapi.yaml."},
    {"method-not-allowed", 405, "Method not allowed",
     "The resource exists but does not support this method; the 'Allow' header lists those it does."},
    {"uri-too-long", 414, "URI too long", "The request target is longer than this server accepts."},
    {"content-too-large", 413, "Content too large",
     "The request announces a body larger than this resource accepts. Send a smaller one."},
    {"not-implemented", 501, "Not implemented",
     "The request uses a transfer coding this server does not implement; only 'chunked' is."},
    {"headers-too-large", 431, "Request header fields too large",
     "The request's header fields are larger than this server accepts."},
    {"overloaded", 503, "Service overloaded",
     "Too many computations are running or waiting. Retry after the number of seconds in 'Retry-After'."},
    {"deadline-exceeded", 503, "Computation still running",
     "The answer took longer than this request may wait; the computation goes on and its result will "
     "be cached. Retry after the number of seconds in 'Retry-After'."},
    {"shutting-down", 503, "Service shutting down",
     "This instance is draining before it stops. Retry, and another instance will answer."},
    {"computation-cancelled", 503, "Computation cancelled",
     "The computation was stopped before it finished (for instance by a budget). Retry later."},
    {"out-of-memory", 503, "Out of memory", "The server could not allocate memory for this request. Retry later."},
    {"thread-failure", 503, "Could not start a thread", "The server could not start a worker. Retry later."},
    {"not-a-solution", 422, "Not a solution", "The board given is not a solution of the N-Queens problem."},
    {"internal-error", 500, "Internal error",
     "The server failed in a way it did not expect. Retrying may help; the X-Request-Id header "
     "identifies the request in the server's logs."},
};

static const doc_row *find_doc(const char *slug, size_t len) {
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++)
        if (strlen(docs[i].slug) == len && memcmp(docs[i].slug, slug, len) == 0) return &docs[i];
    return NULL;
}

/* Copy a request path for "instance": printable ASCII as is, anything else percent-encoded, so the
 * body is valid JSON text whatever bytes the request carried. */
static void sanitize_instance(const char *in, char *out, size_t cap) {
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 4 <= cap; p++) {
        if (*p > 0x20 && *p < 0x7f) {
            out[o++] = (char)*p;
        } else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    out[o] = '\0';
}

/* NQ_PROBLEM_TYPE_BASE + slug into out (TYPE_MAX bytes); false if it does not fit. */
#define TYPE_MAX (sizeof NQ_PROBLEM_TYPE_BASE + 48)
static bool type_uri(const char *slug, char *out) {
    const int w = snprintf(out, TYPE_MAX, "%s%s", NQ_PROBLEM_TYPE_BASE, slug);
    return w > 0 && (size_t)w < TYPE_MAX;
}

static bool add_string(cJSON *obj, const char *name, const char *value) {
    return cJSON_AddStringToObject(obj, name, value) != NULL;
}

/* Print obj compactly into malloc'd memory owned by the caller. */
static nq_err print_owned(cJSON *obj, char **out, size_t *len) {
    char *text = cJSON_PrintUnformatted(obj);
    if (!text) return NQ_E_NOMEM;
    *out = text;
    *len = strlen(text);
    return NQ_OK;
}

nq_err nq_problem_render(const nq_problem *p, char **out, size_t *len) {
    if (!p || !out || !len) return NQ_E_ARG;
    nq_err rc = NQ_E_NOMEM;
    char type[TYPE_MAX];
    const char *slug = nq_err_problem_slug(p->err);
    if (!type_uri(slug, type)) return NQ_E_ARG;

    cJSON *obj = cJSON_CreateObject();
    if (!obj) goto end;
    /* RFC 9457: the title belongs to the type, so errors sharing a type share its title. */
    const doc_row *d = find_doc(slug, strlen(slug));
    if (!add_string(obj, "type", type) || !add_string(obj, "title", d ? d->title : nq_err_message(p->err)))
        goto end;
    if (!cJSON_AddNumberToObject(obj, "status", nq_err_http_status(p->err))) goto end;
    /* Without a specific detail, the type's description is the sentence a person can act on
     * ("Retry after the number of seconds in 'Retry-After'."), not a repeat of the title. */
    const char *detail = p->detail ? p->detail : d ? d->description : nq_err_message(p->err);
    if (!add_string(obj, "detail", detail)) goto end;
    if (p->instance) {
        char instance[NQ_PROBLEM_INSTANCE_MAX + 4];
        sanitize_instance(p->instance, instance, sizeof instance);
        if (!add_string(obj, "instance", instance)) goto end;
    }
    if (p->param && p->param[0] && !add_string(obj, "param", p->param)) goto end;
    /* Limits are far below 2^53, so a JSON number (a double in cJSON) holds them exactly. */
    if (p->has_limit && !cJSON_AddNumberToObject(obj, "limit", (double)p->limit)) goto end;
    rc = print_owned(obj, out, len);
end:
    cJSON_Delete(obj);
    return rc;
}

nq_err nq_problem_doc(const char *slug, size_t slug_len, char **out, size_t *len) {
    if (!slug || !out || !len) return NQ_E_ARG;
    const doc_row *d = find_doc(slug, slug_len);
    if (!d) return NQ_E_NOT_FOUND;
    nq_err rc = NQ_E_NOMEM;
    char type[TYPE_MAX];
    if (!type_uri(d->slug, type)) return NQ_E_ARG;
    cJSON *obj = cJSON_CreateObject();
    if (!obj) goto end;
    if (!add_string(obj, "type", type) || !add_string(obj, "title", d->title)) goto end;
    if (!cJSON_AddNumberToObject(obj, "status", d->status)) goto end;
    if (!add_string(obj, "description", d->description)) goto end;
    rc = print_owned(obj, out, len);
end:
    cJSON_Delete(obj);
    return rc;
}
