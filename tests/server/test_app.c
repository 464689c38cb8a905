/* test_app.c - the application driven in-process, without libmicrohttpd (src/server/app/app.h): routing,
 * methods, preflight, bodies, conditional requests, negotiation, the compute split and its errors. */
#include "base/errors.h"
#include "core/app.h"
#include "core/route.h"
#include "routes/service.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/reply.h"
#include "check_run.h"

#define BODY_MAX (1u << 22)

/* Request headers as a NULL-terminated list of name, value pairs. */
static const char *lookup(void *ctx, const char *name)
{
    const char *const *h = ctx;
    for (; h && h[0]; h += 2)
        if (strcasecmp(h[0], name) == 0) return h[1];
    return NULL;
}

static nq_config cfg;
static nq_cache *cache;
static nq_service *svc;
static nq_app *app;

static void setup(void)
{
    nq_config_defaults(&cfg);
    cfg.max_solutions = 100000;
    ck_assert_int_eq(nq_cache_create(1u << 24, &cache), NQ_OK);
    ck_assert_int_eq(nq_service_create(&cfg, cache, NULL, NULL, NULL, &svc), NQ_OK);
    app = nq_service_app(svc);
}

static void teardown(void)
{
    nq_service_destroy(svc);
    nq_cache_destroy(cache);
}

/* Serve method target with headers; the body (NUL-terminated) in a malloc'd buffer. */
static char *serve(const char *method, const char *target, const char **headers, nq_response *resp)
{
    char path[256];
    snprintf(path, sizeof path, "%s", target);
    char *q = strchr(path, '?');
    if (q) *q++ = '\0';
    const nq_request req = {method, path, q, q ? strlen(q) : 0, lookup, headers, NULL, 0, NULL};
    nq_response_init(resp);
    nq_app_serve(app, &req, resp);
    char *body = malloc(BODY_MAX);
    size_t len = 0;
    ck_assert_int_eq(nq_response_read_all(resp, body, BODY_MAX - 1, &len), NQ_OK);
    body[len] = '\0';
    return body;
}

/* Server-Timing's milliseconds, ETags and request ids are written by hand: the same text as printf's
 * "%.3f" (away from ties) and "%016llx". */
START_TEST(test_header_values_by_hand)
{
    static const double seconds[] = {0.0, 0.0000004, 0.0000006, 0.0123456, 0.999, 1.5, 12.0004, 1234.5678, 86400.25};
    for (size_t i = 0; i < sizeof seconds / sizeof seconds[0]; i++) {
        nq_response r;
        nq_response_init(&r);
        nq_app_success(&r, 200, "application/json", "\"x\"", false, seconds[i]);
        char want[48];
        snprintf(want, sizeof want, "solver;dur=%.3f", seconds[i] * 1000.0);
        ck_assert_str_eq(nq_response_header(&r, "Server-Timing"), want);
        nq_response_clear(&r);
    }
    char tag[40], gz[40];
    nq_app_etag("count?n=8", false, tag, sizeof tag);
    nq_app_etag("count?n=8", true, gz, sizeof gz);
    ck_assert_uint_eq(strlen(tag), 18);
    ck_assert_uint_eq(strspn(tag + 1, "0123456789abcdef"), 16);
    ck_assert(tag[0] == '"' && tag[17] == '"');
    ck_assert_int_eq(strncmp(gz, "W/", 2), 0); /* weak: the gzip bytes depend on the compression */
    ck_assert_int_eq(strncmp(gz + 2, tag, 17), 0);
    ck_assert_str_eq(gz + 19, "-gzip\"");
    char small[18];
    nq_app_etag("count?n=8", false, small, sizeof small); /* no room: empty, not cut */
    ck_assert_str_eq(small, "");
    nq_response r;
    char *body = serve("GET", "/healthz", NULL, &r);
    const char *id = nq_response_header(&r, "X-Request-Id");
    ck_assert_uint_eq(strlen(id), 16);
    ck_assert_uint_eq(strspn(id, "0123456789abcdef"), 16);
    nq_response_clear(&r);
    free(body);
}
END_TEST

START_TEST(test_count_then_hit)
{
    nq_response r;
    char *body = serve("GET", "/count?n=6", NULL, &r);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(body, "{\"n\":6,\"total\":4,\"unique\":1}");
    ck_assert_str_eq(r.route, "count");
    ck_assert_int_eq(r.cache, NQ_CACHE_MISS);
    ck_assert_str_eq(nq_response_header(&r, "Content-Type"), "application/json");
    ck_assert_str_eq(nq_response_header(&r, "Cache-Control"), "public, max-age=31536000, immutable");
    ck_assert_uint_eq(strlen(nq_response_header(&r, "X-Request-Id")), 16);
    char etag[64];
    snprintf(etag, sizeof etag, "%s", nq_response_header(&r, "ETag"));
    nq_response_clear(&r);
    free(body);
    body = serve("GET", "/count?n=6", NULL, &r);
    ck_assert_int_eq(r.cache, NQ_CACHE_HIT);
    ck_assert_str_eq(nq_response_header(&r, "Server-Timing"), "solver;dur=0.000");
    ck_assert_str_eq(nq_response_header(&r, "ETag"), etag);
    nq_response_clear(&r);
    free(body);
    const char *inm[] = {"If-None-Match", etag, NULL};
    body = serve("GET", "/count?n=6", inm, &r);
    ck_assert_uint_eq(r.status, 304);
    ck_assert_str_eq(body, "");
    nq_response_clear(&r);
    free(body);
}
END_TEST

/* Escaped unreserved characters reach the same route and the same bytes (RFC 3986 6.2.2.2); other
 * escapes do not decode, so "/solve%2F" is no route; the problem names the normalised path. */
START_TEST(test_normalized_path)
{
    nq_response plain, escaped;
    char *want = serve("GET", "/solve?n=4", NULL, &plain);
    char *got = serve("GET", "/so%6Cv%65?n=4", NULL, &escaped);
    ck_assert_uint_eq(escaped.status, 200);
    ck_assert_str_eq(escaped.route, "solve");
    ck_assert_str_eq(got, want);
    ck_assert_str_eq(nq_response_header(&escaped, "ETag"), nq_response_header(&plain, "ETag"));
    nq_response_clear(&plain);
    nq_response_clear(&escaped);
    free(want);
    free(got);
    got = serve("GET", "/c%6Funt?n=0", NULL, &escaped);
    ck_assert_uint_eq(escaped.status, 400);
    ck_assert_ptr_nonnull(strstr(got, "\"instance\":\"/count\""));
    nq_response_clear(&escaped);
    free(got);
    got = serve("GET", "/solve%2F?n=4", NULL, &escaped);
    ck_assert_uint_eq(escaped.status, 404);
    ck_assert_ptr_nonnull(strstr(got, "\"instance\":\"/solve%2F\""));
    nq_response_clear(&escaped);
    free(got);
}
END_TEST

START_TEST(test_methods)
{
    nq_response r;
    char *body = serve("OPTIONS", "/solve", NULL, &r);
    ck_assert_uint_eq(r.status, 204);
    ck_assert_int_eq(r.kind, NQ_BODY_NONE);
    ck_assert_str_eq(nq_response_header(&r, "Allow"), "GET, HEAD, OPTIONS");
    nq_response_clear(&r);
    free(body);
    body = serve("OPTIONS", "*", NULL, &r); /* the server as a whole */
    ck_assert_uint_eq(r.status, 204);
    ck_assert_str_eq(nq_response_header(&r, "Allow"), "GET, HEAD, OPTIONS");
    nq_response_clear(&r);
    free(body);
    /* "*" is for OPTIONS only; nor is a host:port or a bare name a path (no instance: none is ours) */
    static const char *const not_paths[][2] = {{"GET", "*"}, {"CONNECT", "localhost:8080"}, {"GET", "count?n=4"}};
    for (size_t i = 0; i < sizeof not_paths / sizeof not_paths[0]; i++) {
        body = serve(not_paths[i][0], not_paths[i][1], NULL, &r);
        ck_assert_uint_eq(r.status, 400);
        ck_assert_ptr_nonnull(strstr(body, "must be a path"));
        ck_assert_ptr_null(strstr(body, "\"instance\""));
        nq_response_clear(&r);
        free(body);
    }
    body = serve("DELETE", "/count?n=4", NULL, &r);
    ck_assert_uint_eq(r.status, 405);
    ck_assert_str_eq(nq_response_header(&r, "Allow"), "GET, HEAD, OPTIONS");
    ck_assert_ptr_nonnull(strstr(body, "\"type\":\"/problems/method-not-allowed\""));
    nq_response_clear(&r);
    free(body);
    body = serve("GET", "/nowhere?n=4", NULL, &r);
    ck_assert_uint_eq(r.status, 404);
    ck_assert_str_eq(r.route, "not_found");
    ck_assert_str_eq(nq_response_header(&r, "Cache-Control"), "no-store");
    nq_response_clear(&r);
    free(body);
}
END_TEST

START_TEST(test_solve_bodies)
{
    nq_response r;
    char *body = serve("GET", "/solve?n=5&format=columns&limit=3", NULL, &r);
    ck_assert_uint_eq(r.status, 200);
    ck_assert_str_eq(body, "{\"n\":5,\"total\":10,\"solutions\":[[0,2,4,1,3],[0,3,1,4,2],[1,3,0,2,4]],"
                           "\"next\":\"/solve?n=5&format=columns&limit=3&after=1,3,0,2,4\"}");
    nq_response_clear(&r);
    free(body);
    const char *nd[] = {"Accept", "application/x-ndjson", NULL};
    body = serve("GET", "/solve?n=5&format=columns&after=3,1,4,2,0", nd, &r);
    ck_assert_str_eq(nq_response_header(&r, "Content-Type"), "application/x-ndjson");
    ck_assert_str_eq(body, "[4,1,3,0,2]\n[4,2,0,3,1]\n");
    nq_response_clear(&r);
    free(body);
}
END_TEST

/* Streams (cache too small for the answer) give the same bytes as cached bodies; HEAD reads nothing. */
START_TEST(test_stream_equals_cached)
{
    nq_response r;
    char *cached = serve("GET", "/solve?n=9", NULL, &r);
    ck_assert_int_eq(r.kind, NQ_BODY_CACHED);
    nq_response_clear(&r);
    nq_service_destroy(svc);
    ck_assert_int_eq(nq_service_create(&cfg, NULL, NULL, NULL, NULL, &svc), NQ_OK); /* no cache: everything streams */
    app = nq_service_app(svc);
    char *streamed = serve("GET", "/solve?n=9", NULL, &r);
    ck_assert_int_eq(r.kind, NQ_BODY_STREAM);
    ck_assert_str_eq(streamed, cached);
    nq_response_clear(&r);
    char *head = serve("HEAD", "/solve?n=9", NULL, &r);
    ck_assert_int_eq(r.kind, NQ_BODY_STREAM);
    ck_assert_ptr_null(r.read);
    ck_assert_str_eq(head, "");
    nq_response_clear(&r);
    char *count = serve("GET", "/count?n=9", NULL, &r); /* rendered from the result, not the cache */
    ck_assert_str_eq(count, "{\"n\":9,\"total\":352,\"unique\":46}");
    nq_response_clear(&r);
    free(cached);
    free(streamed);
    free(head);
    free(count);
}
END_TEST

START_TEST(test_gzip_negotiation)
{
    const char *gz[] = {"Accept-Encoding", "deflate, gzip;q=0.5", NULL};
    nq_response r;
    char *body = serve("GET", "/solve?n=10", gz, &r);
    ck_assert_str_eq(nq_response_header(&r, "Content-Encoding"), "gzip");
    const char *tag = nq_response_header(&r, "ETag");
    ck_assert(strncmp(tag, "W/\"", 3) == 0 && strstr(tag, "-gzip\"") != NULL);
    ck_assert_int_eq((unsigned char)body[0], 0x1f);
    ck_assert_int_eq((unsigned char)body[1], 0x8b);
    nq_response_clear(&r);
    free(body);
    const char *no[] = {"Accept-Encoding", "gzip;q=0", NULL};
    body = serve("GET", "/solve?n=10", no, &r);
    ck_assert_ptr_null(nq_response_header(&r, "Content-Encoding"));
    ck_assert_int_eq(body[0], '{');
    nq_response_clear(&r);
    free(body);
}
END_TEST

/* The compute split: handle asks, finish turns the pool's verdicts into 503s with Retry-After. */
typedef struct verdict_row {
    nq_err rc;
    const char *type;
} verdict_row;

static const verdict_row verdicts[] = {
    {NQ_E_BUSY, "/problems/overloaded"},
    {NQ_E_DEADLINE, "/problems/deadline-exceeded"},
    {NQ_E_DRAINING, "/problems/shutting-down"},
    {NQ_E_CANCELED, "/problems/computation-cancelled"},
};

START_TEST(test_compute_split)
{
    const nq_request req = {"GET", "/count", "n=7", 3, NULL, NULL, NULL, 0, NULL};
    nq_response r;
    nq_response_init(&r);
    nq_app_work *w = NULL;
    ck_assert_int_eq(nq_app_handle(app, &req, &r, &w), NQ_APP_COMPUTE);
    ck_assert_str_eq(nq_app_work_key(w), "count?n=7");
    nq_app_finish(app, w, verdicts[_i].rc, NULL, &r);
    ck_assert_uint_eq(r.status, 503);
    ck_assert_str_eq(nq_response_header(&r, "Retry-After"), "1");
    ck_assert_str_eq(nq_response_header(&r, "Cache-Control"), "no-store");
    ck_assert_ptr_nonnull(strstr(r.body, verdicts[_i].type));
    nq_response_clear(&r);
    /* and a real computation, shared by two waiters */
    nq_app_work *w1 = NULL, *w2 = NULL;
    nq_response r1, r2;
    nq_response_init(&r1);
    nq_response_init(&r2);
    ck_assert_int_eq(nq_app_handle(app, &req, &r1, &w1), NQ_APP_COMPUTE);
    ck_assert_int_eq(nq_app_handle(app, &req, &r2, &w2), NQ_APP_COMPUTE);
    nq_app_result *res = NULL;
    ck_assert_int_eq(nq_app_compute(w1, NULL, &res), NQ_OK);
    nq_app_finish(app, w1, NQ_OK, res, &r1);
    nq_app_finish(app, w2, NQ_OK, res, &r2);
    nq_app_result_destroy(res);
    ck_assert_uint_eq(r1.status, 200);
    ck_assert_uint_eq(r2.status, 200);
    ck_assert_mem_eq(r1.body, "{\"n\":7,\"total\":40,\"unique\":6}", r1.body_len);
    ck_assert_mem_eq(r2.body, r1.body, r1.body_len);
    nq_response_clear(&r1);
    nq_response_clear(&r2);
}
END_TEST

/* An offset on a streamed answer is skipped by the computation (the stream resumes after the
 * offset-th solution): the bytes equal those of the same page rendered for the cache. */
static const char *const offset_targets[] = {
    "/solve?n=8&format=columns&offset=1&limit=3",
    "/solve?n=8&offset=45&limit=50",
    "/solve?n=8&format=columns&offset=91&limit=5",
    "/solve?n=8&offset=92&limit=5",
    "/solve?n=8&offset=500&limit=5",
    "/solve?n=8&unique=true&format=columns&offset=11&limit=5",
    "/solve?n=8&unique=true&offset=12&limit=5",
};

START_TEST(test_stream_offset)
{
    nq_response r;
    char *cached = serve("GET", offset_targets[_i], NULL, &r);
    ck_assert_uint_eq(r.status, 200);
    nq_response_clear(&r);
    nq_service_destroy(svc);
    ck_assert_int_eq(nq_service_create(&cfg, NULL, NULL, NULL, NULL, &svc), NQ_OK); /* no cache: everything streams */
    app = nq_service_app(svc);
    const nq_request req = {"GET",
                            "/solve",
                            strchr(offset_targets[_i], '?') + 1,
                            strlen(strchr(offset_targets[_i], '?') + 1),
                            NULL,
                            NULL,
                            NULL,
                            0,
                            NULL};
    nq_app_work *w = NULL;
    nq_response_init(&r);
    ck_assert_int_eq(nq_app_handle(app, &req, &r, &w), NQ_APP_COMPUTE); /* the skip is computation */
    nq_app_result *res = NULL;
    ck_assert_int_eq(nq_app_compute(w, NULL, &res), NQ_OK);
    nq_app_finish(app, w, NQ_OK, res, &r);
    nq_app_result_destroy(res);
    ck_assert_int_eq(r.kind, NQ_BODY_STREAM);
    char *streamed = malloc(BODY_MAX);
    size_t len = 0;
    ck_assert_int_eq(nq_response_read_all(&r, streamed, BODY_MAX - 1, &len), NQ_OK);
    streamed[len] = '\0';
    ck_assert_str_eq(streamed, cached);
    nq_response_clear(&r);
    free(streamed);
    free(cached);
}
END_TEST

/* A response holds at most NQ_RESPONSE_HEADERS_MAX headers in NQ_RESPONSE_ARENA bytes: one more is
 * dropped and marks the response, and the pipeline answers such a response with a 500 in its place,
 * whatever route made it. The core runs any table: this one has a route that adds too many. */
static nq_app_step too_many_headers(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    (void)w;
    (void)req;
    nq_app_static_json(resp, 200, "{}");
    for (int i = 0; i < NQ_RESPONSE_HEADERS_MAX; i++) nq_response_add_header(resp, "X-Filler", "x");
    return NQ_APP_DONE;
}

static const nq_route overflow_table[] = {
    {"/many", false, "many", "GET, HEAD, OPTIONS", NULL, too_many_headers, NULL, NULL, NULL, NULL},
    {NULL, false, "not_found", NULL, NULL, too_many_headers, NULL, NULL, NULL, NULL},
};

START_TEST(test_header_overflow)
{
    nq_response r;
    nq_response_init(&r);
    for (int i = 0; i < NQ_RESPONSE_HEADERS_MAX; i++) nq_response_add_header(&r, "X-Filler", "x");
    ck_assert(!r.overflow);
    nq_response_add_header(&r, "X-One-Too-Many", "x");
    ck_assert(r.overflow);
    ck_assert_uint_eq(r.nheaders, NQ_RESPONSE_HEADERS_MAX);
    ck_assert_ptr_null(nq_response_header(&r, "X-One-Too-Many"));
    nq_response_clear(&r);
    static char big[NQ_RESPONSE_ARENA + 1];
    memset(big, 'v', sizeof big - 1);
    nq_response_set_header(&r, "X-Big", big); /* longer than the whole arena */
    ck_assert(r.overflow);
    ck_assert_uint_eq(r.nheaders, 0);
    nq_response_clear(&r);

    nq_app *bare = NULL;
    ck_assert_int_eq(nq_app_create(&cfg, NULL, NULL, overflow_table, NULL, &bare), NQ_OK);
    const nq_request req = {"GET", "/many", NULL, 0, NULL, NULL, NULL, 0, NULL};
    nq_app_serve(bare, &req, &r);
    ck_assert_uint_eq(r.status, 500);
    ck_assert_str_eq(nq_response_header(&r, "Content-Type"), "application/problem+json");
    ck_assert_ptr_nonnull(nq_response_header(&r, "X-Request-Id"));
    ck_assert_ptr_null(nq_response_header(&r, "X-Filler"));
    ck_assert(!r.overflow);
    char body[512];
    size_t len = 0;
    ck_assert_int_eq(nq_response_read_all(&r, body, sizeof body, &len), NQ_OK);
    body[len] = '\0';
    ck_assert_ptr_nonnull(strstr(body, "\"type\":\"/problems/internal-error\""));
    nq_response_clear(&r);
    nq_app_destroy(bare);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("app");
    TCase *tc = tcase_create("app");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_count_then_hit);
    tcase_add_test(tc, test_header_values_by_hand);
    tcase_add_test(tc, test_methods);
    tcase_add_test(tc, test_normalized_path);
    tcase_add_test(tc, test_solve_bodies);
    tcase_add_test(tc, test_stream_equals_cached);
    tcase_add_test(tc, test_gzip_negotiation);
    tcase_add_test(tc, test_header_overflow);
    tcase_add_loop_test(tc, test_stream_offset, 0, (int)(sizeof offset_targets / sizeof offset_targets[0]));
    tcase_add_loop_test(tc, test_compute_split, 0, (int)(sizeof verdicts / sizeof verdicts[0]));
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
