/* test_semantics.c - HTTP semantics of nqueensd: gzip (q-values, body equal after decoding), ETag and
 * 304, HEAD, CORS and preflight, Vary, Cache-Control, Server-Timing, X-Request-Id, /openapi.yaml. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "harness.h"

static const char *const server_args[] = {"--max-solutions", "100000", "--cors-origin", "https://app.example", NULL};
static nq_test_server server;

static void get(const char *target, const char *const *headers, nq_http_response *r)
{
    ck_assert(nq_http_request(&server, "GET", target, headers, r));
}

static void check_success_headers(const nq_http_response *r)
{
    ck_assert_str_eq(nq_http_header_get(r, "Cache-Control"), "public, max-age=31536000, immutable");
    ck_assert_str_eq(nq_http_header_get(r, "Vary"), "Accept, Accept-Encoding");
    ck_assert_str_eq(nq_http_header_get(r, "Access-Control-Allow-Origin"), "https://app.example");
    const char *etag = nq_http_header_get(r, "ETag");
    ck_assert_ptr_nonnull(etag);
    /* Strong for the identity bytes; weak for a gzip form, whose bytes depend on the compression. */
    const char *enc = nq_http_header_get(r, "Content-Encoding");
    const size_t len = strlen(etag);
    if (enc)
        ck_assert_msg(strncmp(etag, "W/\"", 3) == 0 && len > 9 && strcmp(etag + len - 6, "-gzip\"") == 0,
                      "weak gzip ETag: %s", etag);
    else
        ck_assert_msg(etag[0] == '"' && len == 18 && etag[len - 1] == '"', "strong ETag: %s", etag);
    ck_assert_ptr_nonnull(strstr(nq_http_header_get(r, "Server-Timing"), "solver;dur="));
}

/* A 412 for a failed If-Match: a problem of its type, of the moment, without the answer's tag. */
static void assert_precondition_failed(const nq_http_response *r)
{
    ck_assert_int_eq(r->status, 412);
    ck_assert_str_eq(nq_http_header_get(r, "Content-Type"), "application/problem+json");
    ck_assert_str_eq(nq_http_header_get(r, "Cache-Control"), "no-store");
    ck_assert_ptr_null(nq_http_header_get(r, "ETag"));
    ck_assert_str_eq(nq_http_header_get(r, "Access-Control-Allow-Origin"), "https://app.example");
    ck_assert_ptr_nonnull(strstr(r->body, "\"type\":\"/problems/precondition-failed\""));
}

/* gzip when allowed and the body is over 1 KiB; the decoded body equals the plain one. */
START_TEST(test_gzip)
{
    static const char *const targets[] = {"/solve?n=10", "/solve?n=13&format=columns&limit=5000", "/openapi.yaml"};
    static const char *const gz[] = {"Accept-Encoding: gzip", NULL};
    nq_http_response plain, packed;
    get(targets[_i], NULL, &plain);
    get(targets[_i], gz, &packed);
    ck_assert_int_eq(plain.status, 200);
    ck_assert_int_eq(packed.status, 200);
    ck_assert_ptr_null(nq_http_header_get(&plain, "Content-Encoding"));
    ck_assert_str_eq(nq_http_header_get(&packed, "Content-Encoding"), "gzip");
    check_success_headers(&packed);
    ck_assert_str_ne(nq_http_header_get(&plain, "ETag"), nq_http_header_get(&packed, "ETag"));
    char *decoded = NULL;
    size_t len = 0;
    ck_assert(nq_harness_gunzip(packed.body, packed.body_len, &decoded, &len));
    ck_assert_uint_eq(len, plain.body_len);
    ck_assert(memcmp(decoded, plain.body, len) == 0);
    ck_assert_uint_lt(packed.body_len, plain.body_len / 4);
    free(decoded);
    nq_http_response_free(&plain);
    nq_http_response_free(&packed);
}
END_TEST

/* Accept-Encoding values that must not give gzip, and small bodies that are never compressed. */
START_TEST(test_no_gzip)
{
    static const char *const values[] = {"Accept-Encoding: gzip;q=0", "Accept-Encoding: identity",
                                         "Accept-Encoding: br", "Accept-Encoding: *;q=0, identity",
                                         "Accept-Encoding: gzip;q=0, *"};
    const char *const h[] = {values[_i], NULL};
    nq_http_response r;
    get("/solve?n=10", h, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_null(nq_http_header_get(&r, "Content-Encoding"));
    ck_assert_uint_gt(r.body_len, 1024);
    ck_assert_int_eq(r.body[0], '{');
    nq_http_response_free(&r);
    static const char *const gz[] = {"Accept-Encoding: gzip", NULL};
    get("/count?n=8", gz, &r); /* 30 bytes: not worth compressing */
    ck_assert_ptr_null(nq_http_header_get(&r, "Content-Encoding"));
    ck_assert_str_eq(r.body, "{\"n\":8,\"total\":92,\"unique\":12}");
    nq_http_response_free(&r);
}
END_TEST

START_TEST(test_etag_304)
{
    static const char *const targets[] = {"/count?n=8", "/solve?n=6", "/solve?n=13&limit=3", "/openapi.yaml",
                                          "/problems/not-found"};
    nq_http_response r, again;
    get(targets[_i], NULL, &r);
    ck_assert_int_eq(r.status, 200);
    check_success_headers(&r);
    const char *etag = nq_http_header_get(&r, "ETag");
    char inm[160], weak[160];
    snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
    snprintf(weak, sizeof weak, "If-None-Match: \"nope\", W/%s", etag);
    const char *const conds[][2] = {{inm, NULL}, {weak, NULL}, {"If-None-Match: *", NULL}};
    for (size_t i = 0; i < 3; i++) {
        get(targets[_i], conds[i], &again);
        ck_assert_int_eq(again.status, 304);
        ck_assert_uint_eq(again.body_len, 0);
        ck_assert_str_eq(nq_http_header_get(&again, "ETag"), etag);
        ck_assert_str_eq(nq_http_header_get(&again, "Cache-Control"), "public, max-age=31536000, immutable");
        /* RFC 9110 section 8.6: a 304's Content-Length, if any, is that of the 200 */
        char len[24];
        snprintf(len, sizeof len, "%zu", r.body_len);
        ck_assert_str_eq(nq_http_header_get(&again, "Content-Length"), len);
        nq_http_response_free(&again);
    }
    static const char *const other[] = {"If-None-Match: \"0000000000000000\"", NULL};
    get(targets[_i], other, &again);
    ck_assert_int_eq(again.status, 200);
    ck_assert_str_eq(nq_http_header_get(&again, "ETag"), etag);
    ck_assert_uint_eq(again.body_len, r.body_len);
    nq_http_response_free(&again);
    nq_http_response_free(&r);
}
END_TEST

/* If-Match (RFC 9110 section 13.1.1), evaluated before If-None-Match: it holds for "*" or the strong
 * tag of the identity form (also when the answer is its gzip form, whose tag is weak); a weak tag or
 * another one turns the 200 or 304 into a 412 problem. */
START_TEST(test_if_match)
{
    static const char *const targets[] = {"/count?n=8", "/solve?n=10", "/openapi.yaml"};
    nq_http_response r, c;
    get(targets[_i], NULL, &r);
    ck_assert_int_eq(r.status, 200);
    const char *etag = nq_http_header_get(&r, "ETag");
    char own[96], weak[96], own_gz[96], both[192];
    snprintf(own, sizeof own, "If-Match: \"nope\", %s", etag);
    snprintf(weak, sizeof weak, "If-Match: W/%s", etag);
    snprintf(own_gz, sizeof own_gz, "If-Match: %s", etag);
    snprintf(both, sizeof both, "If-None-Match: %s", etag);
    const struct {
        const char *h[3];
        long status;
    } cases[] = {
        {{own, NULL}, 200},
        {{"If-Match: *", NULL}, 200},
        {{own_gz, "Accept-Encoding: gzip"}, 200}, /* the gzip form, named by its content's strong tag */
        {{both, own}, 304},
        {{weak, NULL}, 412}, /* strong comparison: a weak tag never matches */
        {{"If-Match: \"0000000000000000\"", NULL}, 412},
        {{both, "If-Match: \"nope\""}, 412}, /* If-Match first: the 304 becomes the 412 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        get(targets[_i], cases[i].h, &c);
        ck_assert_msg(c.status == cases[i].status, "%s with %s: %ld, not %ld", targets[_i], cases[i].h[0], c.status,
                      cases[i].status);
        if (c.status == 412) assert_precondition_failed(&c);
        nq_http_response_free(&c);
    }
    nq_http_response_free(&r);
}
END_TEST

/* After a computation the request is gone: the condition was held when it came, against the tag
 * the answer carries. The tag of a count not computed yet comes from a 304 (If-None-Match: *
 * matches a result that will never change, without computing it). */
START_TEST(test_if_match_after_computing)
{
    static const char *const star[] = {"If-None-Match: *", NULL};
    static const char *const nope[] = {"If-Match: \"nope\"", NULL};
    nq_http_response r;
    get("/count?n=13", star, &r);
    ck_assert_int_eq(r.status, 304);
    char own[96];
    snprintf(own, sizeof own, "If-Match: %s", nq_http_header_get(&r, "ETag"));
    nq_http_response_free(&r);
    const char *const hold[] = {own, NULL};
    get("/count?n=13", hold, &r); /* computed now, on a worker */
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"n\":13,\"total\":73712,\"unique\":9233}");
    nq_http_response_free(&r);
    get("/count?n=12", nope, &r); /* computed now, then refused */
    assert_precondition_failed(&r);
    nq_http_response_free(&r);
    get("/count?n=12", NULL, &r); /* the refusal kept nothing from being cached */
    ck_assert_str_eq(r.body, "{\"n\":12,\"total\":14200,\"unique\":1787}");
    nq_http_response_free(&r);
}
END_TEST

/* A condition never turns an error into a 412, and a probe has no tag: only "*" holds. A POST's
 * target has no representation of its own: any If-Match fails. */
START_TEST(test_if_match_errors_probes_posts)
{
    static const char *const nope[] = {"If-Match: \"nope\"", NULL};
    static const char *const star[] = {"If-Match: *", NULL};
    nq_http_response r;
    get("/count?n=0", nope, &r);
    ck_assert_int_eq(r.status, 400);
    nq_http_response_free(&r);
    get("/solve?n=17", nope, &r);
    ck_assert_int_eq(r.status, 422);
    nq_http_response_free(&r);
    get("/healthz", nope, &r);
    ck_assert_int_eq(r.status, 412);
    nq_http_response_free(&r);
    get("/healthz", star, &r);
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    static const char *const post[] = {"Content-Type: application/json", "If-Match: *", NULL};
    static const char body[] = "{\"n\":4,\"columns\":[1,3,0,2]}";
    ck_assert(nq_http_send(&server, "POST", "/check", post, body, sizeof body - 1, &r));
    ck_assert_int_eq(r.status, 412);
    nq_http_response_free(&r);
}
END_TEST

/* A 304 whose body the server does not hold (never computed, evicted, or served before a restart)
 * cannot state the 200's length: it must state none (RFC 9110 section 8.6), nor carry a chunked body
 * (section 15.4.5: a 304 ends at the end of its header section). Raw socket: the exact bytes count. */
START_TEST(test_304_unknown_length)
{
    static const char *const reqs[] = {
        "GET /count?n=14 HTTP/1.1\r\nHost: t\r\nIf-None-Match: *\r\n\r\n",
        "GET /solve?n=9&limit=7&offset=3 HTTP/1.1\r\nHost: t\r\nIf-None-Match: *\r\n\r\n",
        ("GET /solve?n=15&limit=5&after=0,2,4,1,9,11,13,3,12,8,5,14,6,10,7 HTTP/1.1\r\nHost: t\r\n"
         "If-None-Match: \"x\", *\r\n\r\n"), /* one request in two lines (clang: -Wstring-concatenation) */
    };
    size_t len = 0;
    char *resp = nq_raw_request(server.port, reqs[_i], strlen(reqs[_i]), 5000, &len);
    ck_assert_ptr_nonnull(resp);
    ck_assert_msg(strncmp(resp, "HTTP/1.1 304 ", 13) == 0, "%s", resp);
    ck_assert_ptr_null(strstr(resp, "\r\nContent-Length:"));
    ck_assert_ptr_null(strstr(resp, "\r\nTransfer-Encoding:"));
    ck_assert_ptr_nonnull(strstr(resp, "\r\nETag: \""));
    const char *end = strstr(resp, "\r\n\r\n");
    ck_assert_ptr_nonnull(end);
    ck_assert_uint_eq((size_t)(end + 4 - resp), len); /* nothing after the header section */
    free(resp);
}
END_TEST

/* If-None-Match never turns an error into a 304: "*" matches any current representation, and an
 * answer too big for one response has none (422 whatever the condition). */
START_TEST(test_no_304_for_errors)
{
    static const char *const targets[] = {"/solve?n=17", "/solve?n=15", "/solve?n=0", "/nowhere", "/solve?n=14"};
    static const long status[] = {422, 422, 400, 404, 422};
    static const char *const star[] = {"If-None-Match: *", NULL};
    nq_http_response r;
    if (_i == 1) { /* n = 15 has 2279184 solutions: over this server's cap, known once counted */
        get("/count?n=15", NULL, &r);
        nq_http_response_free(&r);
    }
    get(targets[_i], star, &r);
    ck_assert_int_eq(r.status, status[_i]);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/problem+json");
    nq_http_response_free(&r);
}
END_TEST

/* A full answer (no limit) whose total is not known yet is counted before the 304, which then
 * states the length of the 200 that follows it. */
START_TEST(test_304_after_count)
{
    static const char *const star[] = {"If-None-Match: *", NULL};
    nq_http_response r, full;
    get("/solve?n=11&unique=true&format=columns", star, &r);
    ck_assert_int_eq(r.status, 304);
    ck_assert_uint_eq(r.body_len, 0);
    get("/solve?n=11&unique=true&format=columns", NULL, &full);
    ck_assert_int_eq(full.status, 200);
    ck_assert_str_eq(nq_http_header_get(&r, "ETag"), nq_http_header_get(&full, "ETag"));
    char len[24];
    snprintf(len, sizeof len, "%zu", full.body_len);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Length"), len);
    ck_assert_ptr_nonnull(strstr(full.body, "\"total\":341,"));
    nq_http_response_free(&r);
    nq_http_response_free(&full);
}
END_TEST

/* The same request always gets the same ETag; different requests get different ones. */
START_TEST(test_etag_stable)
{
    nq_http_response a, b, c;
    get("/solve?n=7&limit=5", NULL, &a);
    get("/solve?n=7&limit=5", NULL, &b);
    get("/solve?n=7&limit=6", NULL, &c);
    ck_assert_str_eq(nq_http_header_get(&a, "ETag"), nq_http_header_get(&b, "ETag"));
    ck_assert_str_ne(nq_http_header_get(&a, "ETag"), nq_http_header_get(&c, "ETag"));
    nq_http_response_free(&a);
    nq_http_response_free(&b);
    nq_http_response_free(&c);
}
END_TEST

START_TEST(test_head)
{
    static const char *const targets[] = {"/solve?n=8", "/count?n=8", "/solve?n=13&format=columns", "/openapi.yaml"};
    nq_http_response g, h;
    get(targets[_i], NULL, &g);
    ck_assert(nq_http_request(&server, "HEAD", targets[_i], NULL, &h));
    ck_assert_int_eq(h.status, 200);
    ck_assert_uint_eq(h.body_len, 0);
    ck_assert_str_eq(nq_http_header_get(&h, "Content-Type"), nq_http_header_get(&g, "Content-Type"));
    ck_assert_str_eq(nq_http_header_get(&h, "ETag"), nq_http_header_get(&g, "ETag"));
    const char *hl = nq_http_header_get(&h, "Content-Length"), *gl = nq_http_header_get(&g, "Content-Length");
    if (gl) ck_assert_str_eq(hl, gl); /* for a streamed body neither side states a length */
    nq_http_response_free(&g);
    nq_http_response_free(&h);
}
END_TEST

START_TEST(test_cors_preflight)
{
    static const char *const pre[] = {"Origin: https://app.example", "Access-Control-Request-Method: GET",
                                      "Access-Control-Request-Headers: if-none-match", NULL};
    static const char *const targets[] = {"/solve", "/count", "/openapi.yaml"};
    for (size_t i = 0; i < 3; i++) {
        nq_http_response r;
        ck_assert(nq_http_request(&server, "OPTIONS", targets[i], pre, &r));
        ck_assert_int_eq(r.status, 204);
        ck_assert_uint_eq(r.body_len, 0);
        ck_assert_str_eq(nq_http_header_get(&r, "Access-Control-Allow-Origin"), "https://app.example");
        ck_assert_str_eq(nq_http_header_get(&r, "Access-Control-Allow-Methods"), "GET, HEAD, OPTIONS");
        /* Prefer too: a script on another origin asks for a long count with wait=S or respond-async. */
        ck_assert_str_eq(nq_http_header_get(&r, "Access-Control-Allow-Headers"),
                         "Accept, Accept-Encoding, If-Match, If-None-Match, Prefer, X-Request-Id");
        ck_assert_str_eq(nq_http_header_get(&r, "Allow"), "GET, HEAD, OPTIONS");
        ck_assert_ptr_nonnull(nq_http_header_get(&r, "Access-Control-Max-Age"));
        nq_http_response_free(&r);
    }
    nq_http_response r;
    ck_assert(nq_http_request(&server, "OPTIONS", "/nowhere", pre, &r));
    ck_assert_int_eq(r.status, 404);
    nq_http_response_free(&r);
    static const char *const simple[] = {"Origin: https://app.example", NULL};
    get("/count?n=5", simple, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "Access-Control-Allow-Origin"), "https://app.example");
    /* A script reads the headers a long count, a permalink and a revalidation need. */
    ck_assert_str_eq(nq_http_header_get(&r, "Access-Control-Expose-Headers"),
                     "ETag, Server-Timing, X-Request-Id, Retry-After, Location, Content-Location, Preference-Applied");
    nq_http_response_free(&r);
    get("/count?n=0", simple, &r); /* errors carry CORS too, so a browser can read them */
    ck_assert_str_eq(nq_http_header_get(&r, "Access-Control-Allow-Origin"), "https://app.example");
    nq_http_response_free(&r);
}
END_TEST

/* A browser's POST of JSON is not a "simple" request: its preflight asks for POST and Content-Type,
 * and the routes that read a body allow both (the others still allow neither). */
START_TEST(test_cors_preflight_post)
{
    static const char *const pre[] = {"Origin: https://app.example", "Access-Control-Request-Method: POST",
                                      "Access-Control-Request-Headers: content-type", NULL};
    static const char *const targets[] = {"/check", "/complete", "/count"};
    for (size_t i = 0; i < 3; i++) {
        const bool body = i < 2;
        const char *methods = body ? "GET, HEAD, POST, OPTIONS" : "GET, HEAD, OPTIONS";
        nq_http_response r;
        ck_assert(nq_http_request(&server, "OPTIONS", targets[i], pre, &r));
        ck_assert_int_eq(r.status, 204);
        ck_assert_str_eq(nq_http_header_get(&r, "Access-Control-Allow-Methods"), methods);
        ck_assert_str_eq(nq_http_header_get(&r, "Allow"), methods);
        const char *allowed = nq_http_header_get(&r, "Access-Control-Allow-Headers");
        ck_assert_msg((strstr(allowed, "Content-Type") != NULL) == body, "%s: %s", targets[i], allowed);
        nq_http_response_free(&r);
    }
}
END_TEST

START_TEST(test_request_id)
{
    static const char *const given[] = {"X-Request-Id: trace-42.abc", NULL};
    nq_http_response r;
    get("/count?n=6", given, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "X-Request-Id"), "trace-42.abc");
    nq_http_response_free(&r);
    get("/count?n=0", given, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "X-Request-Id"), "trace-42.abc");
    nq_http_response_free(&r);
    static const char *const bad[] = {"X-Request-Id: has \"quotes\"", NULL};
    get("/count?n=6", bad, &r);
    const char *id = nq_http_header_get(&r, "X-Request-Id");
    ck_assert_uint_eq(strlen(id), 16);
    ck_assert_uint_eq(strspn(id, "0123456789abcdef"), 16);
    char first[17];
    snprintf(first, sizeof first, "%s", id);
    nq_http_response_free(&r);
    get("/count?n=6", NULL, &r);
    ck_assert_uint_eq(strlen(nq_http_header_get(&r, "X-Request-Id")), 16);
    ck_assert_str_ne(nq_http_header_get(&r, "X-Request-Id"), first);
    nq_http_response_free(&r);
    /* up to 64 characters are echoed; a longer id is replaced */
    char line[128], id64[65];
    memset(id64, 'a', 64);
    id64[64] = '\0';
    snprintf(line, sizeof line, "X-Request-Id: %s", id64);
    const char *const longest[] = {line, NULL};
    get("/count?n=6", longest, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "X-Request-Id"), id64);
    nq_http_response_free(&r);
    snprintf(line, sizeof line, "X-Request-Id: %sa", id64);
    get("/count?n=6", longest, &r);
    ck_assert_uint_eq(strlen(nq_http_header_get(&r, "X-Request-Id")), 16);
    nq_http_response_free(&r);
}
END_TEST

/* Server-Timing reports the solver's time: 0 on a cache hit. */
START_TEST(test_server_timing)
{
    nq_http_response r;
    get("/count?n=11", NULL, &r); /* computed (or already cached by an earlier test: then 0) */
    ck_assert_ptr_nonnull(strstr(nq_http_header_get(&r, "Server-Timing"), "solver;dur="));
    nq_http_response_free(&r);
    get("/count?n=11", NULL, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "Server-Timing"), "solver;dur=0.000");
    ck_assert_str_eq(r.body, "{\"n\":11,\"total\":2680,\"unique\":341}");
    nq_http_response_free(&r);
    /* A check is computed on the request's thread, never cached: its time is its own. 100 000
     * queens take more than the microsecond Server-Timing rounds to, however fast the machine. */
    enum { QUEENS = 100000 };
    const size_t cap = QUEENS * 8 + 64;
    char *body = malloc(cap);
    ck_assert_ptr_nonnull(body);
    size_t len = (size_t)snprintf(body, cap, "{\"n\":%d,\"columns\":[", QUEENS);
    for (int i = 0; i < QUEENS; i++) len += (size_t)snprintf(body + len, cap - len, "%s%d", i ? "," : "", i);
    len += (size_t)snprintf(body + len, cap - len, "]}");
    ck_assert_uint_lt(len, cap);
    static const char *const json[] = {"Content-Type: application/json", NULL};
    ck_assert(nq_http_send(&server, "POST", "/check", json, body, len, &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"valid\":false"));
    const char *timing = nq_http_header_get(&r, "Server-Timing");
    ck_assert_ptr_nonnull(timing);
    ck_assert_msg(strncmp(timing, "solver;dur=", 11) == 0 && strcmp(timing, "solver;dur=0.000") != 0, "%s", timing);
    nq_http_response_free(&r);
    free(body);
}
END_TEST

START_TEST(test_openapi)
{
    nq_http_response r;
    get("/openapi.yaml", NULL, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/yaml");
    ck_assert_msg(strncmp(r.body, "openapi: 3.1", 12) == 0 || strstr(r.body, "\nopenapi: 3.1") != NULL,
                  "not an OpenAPI 3.1 document");
    ck_assert_ptr_nonnull(strstr(r.body, "/solve"));
    ck_assert_ptr_nonnull(strstr(r.body, "/count"));
    nq_http_response_free(&r);
}
END_TEST

/* /limits: the bounds of this server's configuration, exactly; never cached; no parameters. A second
 * server with other settings answers its own. */
START_TEST(test_limits)
{
    static const char defaults[] =
        "{\"max_n_solve\":20,\"max_solutions\":100000,\"max_n_count\":19,\"long_count_n\":17,\"max_n_count_k\":11,"
        "\"max_n_solution\":1000000,\"max_n_board\":256,\"max_conflicts\":1000,\"max_n_complete\":32,"
        "\"max_n_complete_count\":18,\"max_n_trace\":16,\"max_trace_limit\":100000,\"max_n_puzzle_queens\":32,"
        "\"max_n_puzzle_regions\":16,\"max_n_puzzle_solve\":32,\"max_puzzle_limit\":1000,\"max_uri_bytes\":8192,"
        "\"max_body_bytes\":1048576,\"deadline_ms\":10000,\"budget_ms\":60000}";
    nq_http_response r;
    get("/limits", NULL, &r);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, defaults);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    ck_assert_ptr_null(nq_http_header_get(&r, "ETag"));
    nq_http_response_free(&r);
    get("/limits?n=8", NULL, &r);
    ck_assert_int_eq(r.status, 400);
    ck_assert_ptr_nonnull(strstr(r.body, "\"type\":\"/problems/unknown-parameter\""));
    nq_http_response_free(&r);
    static const char *const other_args[] = {"--max-n-solve", "12", "--max-n-count", "25", "--deadline-ms", "0", NULL};
    nq_test_server other;
    ck_assert(nq_harness_start(&other, other_args, NULL));
    ck_assert(nq_http_get(&other, "/limits", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "{\"max_n_solve\":12,"));
    ck_assert_ptr_nonnull(strstr(r.body, ",\"max_n_count\":25,"));
    ck_assert_ptr_nonnull(strstr(r.body, ",\"deadline_ms\":0,"));
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&other, SIGTERM, 15), 0);
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, server_args, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_semantics");
    TCase *tc = tcase_create("semantics");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_gzip, 0, 3);
    tcase_add_loop_test(tc, test_no_gzip, 0, 5);
    tcase_add_loop_test(tc, test_etag_304, 0, 5);
    tcase_add_loop_test(tc, test_304_unknown_length, 0, 3);
    tcase_add_loop_test(tc, test_if_match, 0, 3);
    tcase_add_test(tc, test_if_match_after_computing);
    tcase_add_test(tc, test_if_match_errors_probes_posts);
    tcase_add_loop_test(tc, test_no_304_for_errors, 0, 5);
    tcase_add_test(tc, test_304_after_count);
    tcase_add_test(tc, test_etag_stable);
    tcase_add_loop_test(tc, test_head, 0, 4);
    tcase_add_test(tc, test_cors_preflight);
    tcase_add_test(tc, test_cors_preflight_post);
    tcase_add_test(tc, test_request_id);
    tcase_add_test(tc, test_server_timing);
    tcase_add_test(tc, test_openapi);
    tcase_add_test(tc, test_limits);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 15);
    return failed == 0 && status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
