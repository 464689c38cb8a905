/* response.c - the nq_response value: headers in a fixed arena, a body of one of a few kinds. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp */
#endif
#include "core/response.h"

#include "base/errors.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void nq_response_init(nq_response *resp)
{
    memset(resp, 0, sizeof *resp);
    resp->status = 500;
}

void nq_response_clear(nq_response *resp)
{
    if (!resp) return;
    switch (resp->kind) {
    case NQ_BODY_OWNED: free(resp->owned); break;
    case NQ_BODY_CACHED: nq_cache_entry_release(resp->entry); break;
    case NQ_BODY_STREAM:
        if (resp->stream_free) resp->stream_free(resp->stream);
        break;
    case NQ_BODY_NONE:
    case NQ_BODY_STATIC: break;
    }
    nq_response_init(resp);
}

void nq_response_add_header(nq_response *resp, const char *name, const char *value)
{
    assert(resp && name && value);
    const size_t len = strlen(value) + 1;
    if (resp->nheaders == NQ_RESPONSE_HEADERS_MAX || len > NQ_RESPONSE_ARENA - resp->arena_used) {
        resp->overflow = true; /* the pipeline answers a 500 instead (pipeline.c) */
        return;
    }
    char *copy = resp->arena + resp->arena_used;
    memcpy(copy, value, len);
    resp->arena_used += len;
    resp->headers[resp->nheaders].name = name;
    resp->headers[resp->nheaders].value = copy;
    resp->nheaders++;
}

void nq_response_set_header(nq_response *resp, const char *name, const char *value)
{
    assert(resp && name && value);
    for (size_t i = 0; i < resp->nheaders; i++) {
        if (strcasecmp(resp->headers[i].name, name) != 0) continue;
        const size_t len = strlen(value) + 1;
        if (len > NQ_RESPONSE_ARENA - resp->arena_used) {
            resp->overflow = true;
            return;
        }
        char *copy = resp->arena + resp->arena_used; /* the old value's bytes stay: the arena only grows */
        memcpy(copy, value, len);
        resp->arena_used += len;
        resp->headers[i].value = copy;
        return;
    }
    nq_response_add_header(resp, name, value);
}

void nq_response_own(nq_response *resp, char *body, size_t len)
{
    assert(resp && body && resp->kind == NQ_BODY_NONE);
    resp->kind = NQ_BODY_OWNED;
    resp->owned = body;
    resp->body = body;
    resp->body_len = len;
}

const char *nq_response_header(const nq_response *resp, const char *name)
{
    assert(resp && name);
    for (size_t i = 0; i < resp->nheaders; i++)
        if (strcasecmp(resp->headers[i].name, name) == 0) return resp->headers[i].value;
    return NULL;
}

bool nq_response_sends_body(const nq_response *resp)
{
    return !resp->head && resp->status != 204 && resp->status != 304;
}

nq_err nq_response_read_all(nq_response *resp, char *buf, size_t cap, size_t *len)
{
    if (!resp || !buf || !len) return NQ_E_ARG;
    *len = 0;
    if (resp->kind == NQ_BODY_NONE || !nq_response_sends_body(resp)) return NQ_OK;
    if (resp->kind != NQ_BODY_STREAM) {
        if (resp->body_len > cap) return NQ_E_TOO_LARGE;
        memcpy(buf, resp->body, resp->body_len);
        *len = resp->body_len;
        return NQ_OK;
    }
    while (resp->read) { /* a HEAD stream has no reader */
        if (*len == cap) return NQ_E_TOO_LARGE;
        size_t got = 0;
        const nq_err rc = resp->read(resp->stream, buf + *len, cap - *len, &got);
        if (rc != NQ_OK) return rc;
        if (got == 0) return NQ_OK;
        *len += got;
    }
    return NQ_OK;
}
