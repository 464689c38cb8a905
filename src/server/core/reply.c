/* reply.c - the answers routes give (reply.h): the contract's headers on every success and
 * problem, cached entries, streams with gzip on the fly, and results published to the cache.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp, strnlen */
#endif
#include "core/reply.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "core/conditional.h"
#include "core/problem.h"

/* s into out[0..cap), cut to cap - 1 bytes and NUL-terminated (what snprintf "%s" does, without
 * its format machinery, on every request). */
static void copy_str(char *out, size_t cap, const char *s)
{
    const size_t len = strnlen(s, cap - 1);
    memcpy(out, s, len);
    out[len] = '\0';
}

/* "solver;dur=<milliseconds with 3 decimals>", by hand: snprintf's %.3f is the dearest call of a
 * cached answer. Rounded to the microsecond; a value past 10^12 ms (or NaN) is written as 0. */
static void server_timing(double seconds, char *out, size_t cap)
{
    static const char head[] = "solver;dur=";
    const double us = seconds * 1e6 + 0.5;
    uint64_t v = us >= 0.0 && us < 1e15 ? (uint64_t)us : 0, ms = v / 1000u;
    char digits[24], *p = digits + sizeof digits;
    for (int i = 0; i < 3; i++, v /= 10u) *--p = (char)('0' + v % 10u);
    *--p = '.';
    do *--p = (char)('0' + ms % 10u);
    while ((ms /= 10u) > 0);
    const size_t len = (size_t)(digits + sizeof digits - p);
    if (cap <= sizeof head - 1 + len) { /* the caller's 48 bytes hold any value */
        if (cap > 0) out[0] = '\0';
        return;
    }
    memcpy(out, head, sizeof head - 1);
    memcpy(out + sizeof head - 1, p, len);
    out[sizeof head - 1 + len] = '\0';
}

void nq_app_success(nq_response *resp, unsigned status, const char *media, const char *etag, bool gzip,
                    double solver_seconds)
{
    assert(resp && etag);
    char timing[48];
    server_timing(solver_seconds, timing, sizeof timing);
    resp->status = status;
    resp->solver_seconds = solver_seconds;
    if (media) nq_response_add_header(resp, "Content-Type", media);
    if (gzip) nq_response_add_header(resp, "Content-Encoding", "gzip");
    nq_response_add_header(resp, "ETag", etag);
    nq_response_add_header(resp, "Cache-Control", NQ_CACHE_CONTROL_IMMUTABLE);
    nq_response_add_header(resp, "Vary", "Accept, Accept-Encoding");
    nq_response_add_header(resp, "Server-Timing", timing);
}

void nq_app_reply_rendered(const nq_app_work *w, size_t cap, nq_app_render_fn render, const void *arg, double seconds,
                           nq_response *resp)
{
    assert(w && render && resp);
    char *body = malloc(cap);
    const size_t len = body ? render(arg, body, cap) : 0;
    if (len == 0) {
        const nq_err err = body ? NQ_E_INTERNAL : NQ_E_NOMEM;
        free(body);
        nq_app_problem(resp, w->instance, err, NULL, NULL, false, 0);
        return;
    }
    char etag[NQ_ETAG_MAX];
    nq_app_etag(w->key, false, etag, sizeof etag);
    nq_app_success(resp, 200, NQ_MEDIA_JSON, etag, false, seconds);
    nq_response_own(resp, body, len);
}

void nq_app_problem(nq_response *resp, const char *instance, nq_err err, const char *param, const char *detail,
                    bool has_limit, uint64_t limit)
{
    assert(resp);
    const nq_problem p = {err, instance, detail, param, limit, has_limit};
    char *body = NULL;
    size_t len = 0;
    resp->status = (unsigned)nq_error_status(err);
    if (nq_problem_render(&p, &body, &len) == NQ_OK) {
        resp->kind = NQ_BODY_OWNED;
        resp->owned = body;
        resp->body = body;
        resp->body_len = len;
        nq_response_add_header(resp, "Content-Type", NQ_PROBLEM_MEDIA_TYPE);
    } /* else: the status alone still says what happened */
    nq_response_add_header(resp, "Cache-Control", "no-store");
    if (resp->status == 503) nq_response_add_header(resp, "Retry-After", "1");
}

void nq_app_query_problem(nq_response *resp, const char *instance, const nq_query_error *qe)
{
    nq_app_problem(resp, instance, qe->err, qe->param, qe->detail, false, 0);
}

void nq_app_serve_entry(nq_response *resp, nq_cache_entry *entry, const nq_variant *v, double seconds,
                        nq_cache_outcome outcome)
{
    assert(resp && entry && v);
    const nq_cache_value *val = nq_cache_entry_value(entry);
    const bool gz = v->gzip_ok && val->gzip != NULL;
    char etag[NQ_CACHE_STR_MAX + 8];
    if (gz)
        nq_app_etag_gzip(val->etag, etag, sizeof etag);
    else
        copy_str(etag, sizeof etag, val->etag);
    nq_app_success(resp, 200, val->content_type, etag, gz, seconds);
    resp->kind = NQ_BODY_CACHED;
    resp->entry = entry;
    resp->body = gz ? val->gzip : val->body;
    resp->body_len = gz ? val->gzip_len : val->body_len;
    resp->cache = outcome;
}

void nq_app_serve_result(nq_response *resp, const nq_app_result *r, const nq_variant *v)
{
    nq_cache_entry_retain(r->entry); /* the result is shared; the response takes its own reference */
    nq_app_serve_entry(resp, r->entry, v, r->seconds, NQ_CACHE_MISS);
}

#define STREAM_IN_CAP ((size_t)32 * 1024) /* identity bytes a gzip stream pulls at a time */

/* A route's body, and gzip over it or NULL: what a streamed response reads. */
typedef struct app_stream {
    nq_app_body body;       /* identity bytes */
    nq_compress_stream *gz; /* gzip over body, or NULL */
    nq_app *app;            /* whose gzip_streams gz holds one of, and whose pins hold `pinned` */
    size_t pinned;          /* bytes taken from the app's pinned budget for this stream */
} app_stream;

static nq_err stream_read(void *src, char *buf, size_t cap, size_t *len)
{
    app_stream *s = src;
    return s->gz ? nq_compress_stream_read(s->gz, buf, cap, len) : s->body.read(s->body.state, buf, cap, len);
}

static void stream_free(void *src)
{
    app_stream *s = src;
    if (!s) return;
    if (s->gz) {
        nq_compress_stream_destroy(s->gz);
        nq_app_gzip_give(s->app);
    }
    s->body.destroy(s->body.state);
    nq_pin_give(nq_app_pins(s->app), s->pinned);
    free(s);
}

/* The stream over body (taken over), holding `pinned` bytes of the app's budget (NQ_E_BUSY when
 * they do not fit), with gzip over it when *gzip and one of the --max-gzip-streams is free; *gzip
 * then says which it got. For HEAD (no body) there is no stream, and *gzip says what GET would get
 * now, without taking a slot that nobody would read. On a failure *out (if set) is for stream_free. */
static nq_err stream_make(nq_app *app, nq_app_body body, size_t pinned, bool *gzip, app_stream **out)
{
    *out = NULL;
    if (!body.state) {
        if (*gzip) *gzip = nq_app_gzip_free(app);
        return NQ_OK;
    }
    app_stream *s = calloc(1, sizeof *s);
    if (!s || !nq_pin_take(nq_app_pins(app), pinned)) {
        const nq_err rc = s ? NQ_E_BUSY : NQ_E_NOMEM;
        free(s);
        body.destroy(body.state);
        return rc;
    }
    if (*gzip) *gzip = nq_app_gzip_take(app); /* none free: uncompressed, as a client must accept */
    s->body = body;
    s->app = app;
    s->pinned = pinned;
    *out = s;
    if (!*gzip) return NQ_OK;
    const nq_err rc = nq_compress_stream_create(body.read, body.state, NQ_COMPRESS_LEVEL_STREAM, STREAM_IN_CAP, &s->gz);
    if (rc != NQ_OK) nq_app_gzip_give(app); /* no gz: stream_free gives nothing back */
    return rc;
}

/* The detail of a 503 for bytes the pinned budget could not hold. */
#define PINNED_DETAIL                                                                                       \
    "The memory this server lets responses hold for clients still reading them (--max-pinned-bytes) is "    \
    "taken by other responses; an answer already computed stays cached. Retry after the number of seconds " \
    "in 'Retry-After'."

void nq_app_stream(const nq_app_work *w, nq_app_body body, const char *media, bool gzip, double seconds,
                   nq_response *resp)
{
    nq_app_stream_pinned(w, body, 0, media, gzip, seconds, resp);
}

void nq_app_stream_pinned(const nq_app_work *w, nq_app_body body, size_t pinned, const char *media, bool gzip,
                          double seconds, nq_response *resp)
{
    assert(w && resp && body.read && body.destroy);
    app_stream *s = NULL;
    const nq_err rc = stream_make(w->app, body, pinned, &gzip, &s);
    if (rc != NQ_OK) {
        stream_free(s);
        nq_app_problem(resp, w->instance, rc, NULL, rc == NQ_E_BUSY ? PINNED_DETAIL : NULL, false, 0);
        return;
    }
    char etag[NQ_ETAG_MAX];
    nq_app_etag(w->key, gzip, etag, sizeof etag);
    nq_app_success(resp, 200, media, etag, gzip, seconds);
    resp->kind = NQ_BODY_STREAM; /* for HEAD an empty one: the headers of GET, no body */
    resp->read = s ? stream_read : NULL;
    resp->stream = s;
    resp->stream_free = s ? stream_free : NULL;
    resp->stream_len = gzip ? 0 : body.length; /* a compressed size is known only at the end */
    if (resp->cache == NQ_CACHE_NONE) resp->cache = NQ_CACHE_MISS;
}

bool nq_app_pin_room(nq_app *app, size_t bytes, const char *instance, nq_response *resp)
{
    if (nq_pin_room(nq_app_pins(app), bytes)) return true;
    nq_app_problem(resp, instance, NQ_E_BUSY, NULL, PINNED_DETAIL, false, 0);
    return false;
}

nq_err nq_app_pin_body(nq_app *app, nq_response *resp, const char **detail)
{
    assert(app && resp && detail);
    *detail = NULL;
    /* A HEAD or 304 keeps its entry only while its head is queued, whoever reads it: no pin, no 503. */
    if (resp->kind != NQ_BODY_CACHED || !nq_response_sends_body(resp)) return NQ_OK;
    nq_cache_entry *pinned = NULL;
    const nq_err rc = nq_cache_entry_pin(resp->entry, nq_app_pins(app), &pinned);
    if (rc != NQ_OK) { /* resp still holds its plain reference: the caller replaces resp */
        *detail = rc == NQ_E_BUSY ? PINNED_DETAIL : NULL;
        return rc;
    }
    resp->entry = pinned; /* the same bytes: body and body_len stay as they are */
    return NQ_OK;
}

nq_err nq_app_publish(const nq_app_work *w, const char *media, char *body, size_t len, const nq_counts *counts,
                      double seconds, nq_cache_entry **entry)
{
    assert(w && media && body && entry);
    char *gzip = NULL;
    size_t gzip_len = 0;
    *entry = NULL;
    const bool later = len >= NQ_APP_GZIP_LATER_BYTES; /* nq_app_settle makes the gzip form */
    const nq_err rc = len > NQ_COMPRESS_MIN_BYTES && !later
                          ? nq_compress_buffer(body, len, NQ_COMPRESS_LEVEL_ONCE, &gzip, &gzip_len)
                          : NQ_OK;
    if (rc != NQ_OK) {
        free(body);
        return rc;
    }
    char etag[NQ_ETAG_MAX];
    nq_app_etag(w->key, false, etag, sizeof etag);
    const nq_cache_value v = {.content_type = media,
                              .etag = etag,
                              .body = body,
                              .body_len = len,
                              .gzip = gzip,
                              .gzip_len = gzip_len,
                              .solver_seconds = seconds,
                              .counts = counts ? *counts : (nq_counts){0, 0}};
    /* A refusal is no error: see above. A large body is taken over, not copied: the first answers go
     * out from it at once, and settling publishes a copy of it with its gzip form (nq_app_settle). */
    if (later) {
        (void)nq_cache_put_owned(nq_app_cache(w->app), w->key, &v, body, entry);
        return NQ_OK;
    }
    (void)nq_cache_put(nq_app_cache(w->app), w->key, &v, entry);
    free(body);
    free(gzip);
    return NQ_OK;
}

void nq_app_settle(const nq_app_work *work, const nq_app_result *result, const atomic_bool *stop)
{
    if (!result || !result->entry) return;
    const nq_cache_value *val = nq_cache_entry_value(result->entry);
    if (val->gzip || val->body_len <= NQ_COMPRESS_MIN_BYTES) return;
    nq_cache *cache = nq_app_cache(work->app);
    if (!nq_cache_holds(cache, work->key, result->entry)) return; /* evicted or replaced: nothing to do */
    nq_cache_value both = *val;
    char *gzip = NULL;
    if (nq_compress_buffer_until(val->body, val->body_len, NQ_COMPRESS_LEVEL_ONCE, stop, &gzip, &both.gzip_len) !=
        NQ_OK)
        return;
    both.gzip = gzip;
    (void)nq_cache_put(cache, work->key, &both, NULL); /* readers of the first entry keep it */
    free(gzip);
}

void nq_app_static_json(nq_response *resp, unsigned status, const char *body)
{
    assert(resp && body);
    resp->status = status;
    resp->kind = NQ_BODY_STATIC;
    resp->body = body;
    resp->body_len = strlen(body);
    nq_response_add_header(resp, "Content-Type", NQ_MEDIA_JSON);
    nq_response_add_header(resp, "Cache-Control", "no-store");
}

bool nq_app_parse_query(const nq_request *req, unsigned keys, nq_query *q, nq_response *resp)
{
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, keys, q, &qe) == NQ_OK) return true;
    nq_app_query_problem(resp, req->path, &qe);
    return false;
}
