/* test_post.c - POST /check and /complete in-process (app.h, "request bodies"): a JSON body gets the
 * bytes and the ETag of the equivalent GET; the type, size, method and preflight rules of bodies; and
 * each malformed body its problem (status, type, param). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/app.h"
#include "core/route.h"
#include "routes/service.h"
#include "check_json.h"
#include "check_run.h"

#define OUT_MAX 4096
#define BODY_CAP 256 /* --max-body-bytes of the suite's app, small enough to pass in a test */

static nq_config cfg;
static nq_cache *cache;
static nq_service *svc;
static nq_app *app;

static void setup(void)
{
    nq_config_defaults(&cfg);
    cfg.max_body_bytes = BODY_CAP;
    ck_assert_int_eq(nq_cache_create(1u << 22, &cache), NQ_OK);
    ck_assert_int_eq(nq_service_create(&cfg, cache, NULL, NULL, NULL, &svc), NQ_OK);
    app = nq_service_app(svc);
}

/* Whether the route of a raw path reads a body, as the transport asks before the head is in. */
static bool takes_body(const char *raw)
{
    nq_match m;
    nq_app_match(app, raw, &m);
    return nq_route_takes_body(m.route);
}

static void teardown(void)
{
    nq_service_destroy(svc);
    nq_cache_destroy(cache);
}

/* Headers as "Name: value" strings, NULL-terminated; first match wins, case-insensitive. */
static const char *lookup(void *ctx, const char *name)
{
    const char *const *h = ctx;
    const size_t len = strlen(name);
    for (; h && *h; h++)
        if (strncasecmp(*h, name, len) == 0 && (*h)[len] == ':') return *h + len + 2;
    return NULL;
}

static const char *json[] = {"Content-Type: application/json", NULL};

/* A body that must be JSON. */
static cJSON *parse(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    ck_assert_msg(j != NULL, "not JSON: %s", text);
    return j;
}

typedef struct answer {
    unsigned status;
    char body[OUT_MAX];
    char etag[64];  /* "" when none */
    char allow[64]; /* "" when none */
    char acah[128]; /* Access-Control-Allow-Headers, "" when none */
} answer;

/* Serve method path?query with headers and body (NULL: none read); the answer into *a. */
static void serve(const char *method, const char *path, const char *query, const char **headers, const char *body,
                  answer *a)
{
    const nq_request req = {
        method, path, query, query ? strlen(query) : 0, lookup, headers, body, body ? strlen(body) : 0, NULL};
    nq_response resp;
    nq_response_init(&resp);
    nq_app_serve(app, &req, &resp);
    a->status = resp.status;
    size_t len = 0;
    ck_assert_int_eq(nq_response_read_all(&resp, a->body, sizeof a->body - 1, &len), NQ_OK);
    a->body[len] = '\0';
    const char *v = nq_response_header(&resp, "ETag");
    snprintf(a->etag, sizeof a->etag, "%s", v ? v : "");
    v = nq_response_header(&resp, "Allow");
    snprintf(a->allow, sizeof a->allow, "%s", v ? v : "");
    v = nq_response_header(&resp, "Access-Control-Allow-Headers");
    snprintf(a->acah, sizeof a->acah, "%s", v ? v : "");
    nq_response_clear(&resp);
}

/* ---- a body is the GET's placement ---------------------------------------------------------------- */

static const struct {
    const char *path;  /* /check or /complete */
    const char *query; /* of the POST */
    const char *body;  /* the JSON */
    const char *get;   /* the equivalent GET's query */
} same[] = {
    {"/check", NULL, "{\"n\":4,\"columns\":[1,3,0,2]}", "n=4&queens=3:2,2:0,1:3,0:1"},
    {"/check", "", "{\"n\":4,\"queens\":[[2,3],[0,1]]}", "n=4&columns=1,-,3,-"},
    {"/check", NULL, " {\"queens\":[],\"n\":5}\r\n", "n=5&queens="},
    {"/check", NULL, "{\"n\":5,\"columns\":[0,1,2,3,4]}", "n=5&columns=0,1,2,3,4"},
    {"/complete", "", "{\"n\":8,\"queens\":[[1,4],[0,0]]}", "n=8&queens=0:0,1:4"},
    {"/complete", "count=true", "{\"n\":8,\"columns\":[0,null,null,null,null,null,null,null]}",
     "n=8&columns=0,-,-,-,-,-,-,-&count=true"},
    {"/complete", NULL, "{\"n\":4,\"columns\":[1,3,null,null]}", "n=4&queens=1:3,0:1"},
    {"/complete", "count=true", "{\"n\":8,\"queens\":[[2,3],[5,6]]}", "n=8&queens=2:3,5:6&count=true"},
    {"/complete", NULL, "{\"n\":8,\"queens\":[[0,0],[1,1]]}", "n=8&queens=0:0,1:1"}, /* attacking: null */
};

START_TEST(test_post_equals_get)
{
    answer g, p;
    serve("GET", same[_i].path, same[_i].get, NULL, NULL, &g);
    ck_assert_uint_eq(g.status, 200);
    serve("POST", same[_i].path, same[_i].query, json, same[_i].body, &p);
    ck_assert_uint_eq(p.status, 200);
    ck_assert_str_eq(p.body, g.body);
    ck_assert_str_eq(p.etag, g.etag);
    ck_assert_uint_gt(strlen(p.etag), 2);
}
END_TEST

/* A POST is never a 304: its If-None-Match is not evaluated (RFC 9110 section 13.1.2 leaves nothing
 * of /check itself for it to match), and the answer comes whole, with the GET's ETag. */
START_TEST(test_post_ignores_if_none_match)
{
    answer g, p;
    serve("GET", "/check", "n=4&columns=1,3,0,2", NULL, NULL, &g);
    char inm[96];
    snprintf(inm, sizeof inm, "If-None-Match: %s", g.etag);
    const char *h[] = {"Content-Type: application/json", inm, NULL};
    serve("POST", "/check", NULL, h, "{\"n\":4,\"columns\":[1,3,0,2]}", &p);
    ck_assert_uint_eq(p.status, 200);
    ck_assert_str_eq(p.body, g.body);
    ck_assert_str_eq(p.etag, g.etag);
    const char *star[] = {"Content-Type: application/json", "If-None-Match: *", NULL};
    serve("POST", "/complete", NULL, star, "{\"n\":4,\"queens\":[]}", &p);
    ck_assert_uint_eq(p.status, 200);
}
END_TEST

/* ---- what a body must be ----------------------------------------------------------------------- */

static const struct {
    const char *content_type; /* the header line, or NULL: none */
    unsigned status;
} types[] = {
    {"Content-Type: application/json", 200},
    {"Content-Type: Application/JSON", 200},
    {"Content-Type: application/json; charset=utf-8", 200},
    {"Content-Type: application/json;charset=UTF-8", 200},
    {"Content-Type: application/json ; charset=\"utf-8\" ", 200},
    {"Content-Type: application/json;", 200},
    {NULL, 415},
    {"Content-Type: text/plain", 415},
    {"Content-Type: application/x-www-form-urlencoded", 415},
    {"Content-Type: application/jsonx", 415},
    {"Content-Type: application/problem+json", 415},
    {"Content-Type: application/json; charset=iso-8859-1", 415},
    {"Content-Type: application/json; profile=x", 415},
    {"Content-Type: application/json, text/plain", 415}, /* two lines, joined as a list */
    {"Content-Type: ", 415},
    {"Content-Type: text/\xc3\xa9\x01", 415}, /* echoed as printable ASCII only */
};

START_TEST(test_content_type)
{
    const char *h[] = {types[_i].content_type, NULL};
    answer a;
    serve("POST", "/check", NULL, h, "{\"n\":4,\"columns\":[1,3,0,2]}", &a);
    ck_assert_msg(a.status == types[_i].status, "%s: %u", types[_i].content_type, a.status);
    if (a.status == 415) {
        cJSON *j = parse(a.body);
        ck_assert_str_eq(nq_check_json_str(j, "type"), "/problems/unsupported-media-type");
        const char *detail = nq_check_json_str(j, "detail");
        ck_assert_ptr_nonnull(strstr(detail, "application/json"));
        for (const char *c = detail; *c; c++) ck_assert(*c >= 0x20 && *c < 0x7f);
        cJSON_Delete(j);
    }
}
END_TEST

/* The cap: a body of exactly --max-body-bytes is read (padded with JSON whitespace), one byte more
 * is a 413 that gives the cap in 'limit'. */
START_TEST(test_size_cap)
{
    char body[BODY_CAP + 2];
    const char placement[] = "{\"n\":4,\"queens\":[[0,1]]}";
    memset(body, ' ', sizeof body);
    memcpy(body, placement, sizeof placement - 1);
    body[BODY_CAP] = '\0';
    answer a;
    serve("POST", "/check", NULL, json, body, &a);
    ck_assert_uint_eq(a.status, 200);
    body[BODY_CAP] = ' ';
    body[BODY_CAP + 1] = '\0';
    serve("POST", "/complete", NULL, json, body, &a);
    ck_assert_uint_eq(a.status, 413);
    cJSON *j = parse(a.body);
    ck_assert_str_eq(nq_check_json_str(j, "type"), "/problems/content-too-large");
    ck_assert_int_eq((long)nq_check_json_num(j, "limit"), BODY_CAP);
    cJSON_Delete(j);
}
END_TEST

/* The server's first look (nq_app_body_begin): which requests read their body, and what is refused
 * before a byte of it is read. */
START_TEST(test_body_begin)
{
    static const struct {
        const char *method, *path;
        const char **headers;
        bool chunked;
        uint64_t length;
        nq_app_body_step step;
        unsigned status; /* of a refusal */
    } rows[] = {
        {"POST", "/check", json, false, 40, NQ_APP_BODY_READ, 0},
        {"POST", "/co%6Dplete", json, true, 0, NQ_APP_BODY_READ, 0}, /* routed as /complete */
        {"POST", "/check", json, false, BODY_CAP, NQ_APP_BODY_READ, 0},
        {"POST", "/check", json, false, BODY_CAP + 1, NQ_APP_BODY_REFUSED, 413},
        {"POST", "/complete", json, false, 1000000000, NQ_APP_BODY_REFUSED, 413},
        {"POST", "/check", NULL, false, 40, NQ_APP_BODY_REFUSED, 415},
        {"POST", "/check", NULL, true, 0, NQ_APP_BODY_REFUSED, 415},
        {"POST", "/count", json, false, 40, NQ_APP_BODY_NONE, 0},
        {"GET", "/check", json, false, 40, NQ_APP_BODY_NONE, 0},
        {"PUT", "/check", json, false, 40, NQ_APP_BODY_NONE, 0},
        {"POST", "/nope", json, false, 40, NQ_APP_BODY_NONE, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const nq_request req = {rows[i].method, rows[i].path, NULL, 0, lookup, rows[i].headers, NULL, 0, NULL};
        nq_response resp;
        nq_response_init(&resp);
        resp.status = 0;
        const nq_app_body_step step = nq_app_body_begin(app, &req, rows[i].chunked, rows[i].length, &resp);
        ck_assert_msg(step == rows[i].step, "row %zu: %d", i, step);
        ck_assert_uint_eq(resp.status, rows[i].status); /* untouched unless refused */
        if (step == NQ_APP_BODY_REFUSED) {
            ck_assert_ptr_nonnull(nq_response_header(&resp, "X-Request-Id"));
            ck_assert_str_eq(nq_response_header(&resp, "Cache-Control"), "no-store");
        }
        nq_response_clear(&resp);
    }
    ck_assert(takes_body("/check"));
    answer a; /* a POST to no route is a 404, whatever its body */
    serve("POST", "/nope", NULL, NULL, "x", &a);
    ck_assert_uint_eq(a.status, 404);
    ck_assert(takes_body("/%63omplete"));
    ck_assert(!takes_body("/count"));
    ck_assert(!takes_body("/check/"));
}
END_TEST

/* A chunked body that grew past the cap gets the same problem as an announced one, for its route. */
START_TEST(test_too_large_mid_body)
{
    const nq_request req = {"POST", "/check", NULL, 0, lookup, json, NULL, 0, NULL};
    nq_response resp;
    nq_response_init(&resp);
    nq_app_body_too_large(app, &req, &resp);
    ck_assert_uint_eq(resp.status, 413);
    ck_assert_str_eq(resp.route, "check");
    char out[1024];
    size_t len = 0;
    ck_assert_int_eq(nq_response_read_all(&resp, out, sizeof out - 1, &len), NQ_OK);
    out[len] = '\0';
    cJSON *j = parse(out);
    ck_assert_str_eq(nq_check_json_str(j, "type"), "/problems/content-too-large");
    ck_assert_int_eq((long)nq_check_json_num(j, "limit"), BODY_CAP);
    ck_assert_ptr_nonnull(strstr(nq_check_json_str(j, "detail"), "chunked"));
    cJSON_Delete(j);
    nq_response_clear(&resp);
}
END_TEST

/* ---- methods and preflight ----------------------------------------------------------------------- */

START_TEST(test_methods)
{
    answer a;
    static const char *const body_routes[] = {"/check", "/complete"};
    for (size_t i = 0; i < 2; i++) {
        serve("PUT", body_routes[i], NULL, json, NULL, &a);
        ck_assert_uint_eq(a.status, 405);
        ck_assert_str_eq(a.allow, "GET, HEAD, POST, OPTIONS");
        serve("OPTIONS", body_routes[i], NULL, NULL, NULL, &a);
        ck_assert_uint_eq(a.status, 204);
        ck_assert_str_eq(a.allow, "GET, HEAD, POST, OPTIONS");
        ck_assert_ptr_nonnull(strstr(a.acah, "Content-Type"));
    }
    serve("POST", "/count", "n=8", json, "{}", &a); /* every other route still refuses POST */
    ck_assert_uint_eq(a.status, 405);
    ck_assert_str_eq(a.allow, "GET, HEAD, OPTIONS");
    serve("OPTIONS", "/count", NULL, NULL, NULL, &a);
    ck_assert_ptr_null(strstr(a.acah, "Content-Type"));
}
END_TEST

/* ---- every malformed body its problem ---------------------------------------------------------- */

static const struct {
    const char *path;
    const char *query;
    const char *body;
    unsigned status;
    const char *type;
    const char *param;  /* NULL: none */
    const char *detail; /* a phrase the detail holds */
} bad[] = {
    {"/check", NULL, "", 400, "bad-request", NULL, "The body is empty"},
    {"/check", NULL, "{\"n\":4", 400, "bad-request", NULL, "Not valid JSON"},
    {"/check", NULL, "[1,2]", 400, "bad-request", NULL, "a JSON object"},
    {"/check", NULL, "{\"n\":4,\"columns\":[1,3,0,2]} {}", 400, "bad-request", NULL, "More than one JSON value"},
    {"/check", NULL, "{\"n\":4,\"columns\":[1,3,0,2],\"x\":1}", 400, "bad-request", NULL, "Unknown member 'x'"},
    {"/check", NULL, "{\"n\":4,\"n\":4,\"columns\":[1,3,0,2]}", 400, "bad-request", "n", "given twice"},
    {"/check", NULL, "{\"n\":4,\"columns\":[],\"queens\":[]}", 400, "bad-request", "queens", "not both"},
    {"/check", NULL, "{\"n\":\"4\",\"queens\":[]}", 400, "invalid-parameter", "n", "must be an integer"},
    {"/check", NULL, "{\"n\":0,\"queens\":[]}", 400, "invalid-parameter", "n", "at least 1"},
    {"/check", NULL, "{\"queens\":[]}", 400, "missing-parameter", "n", "required"},
    {"/check", NULL, "{\"n\":4}", 400, "missing-parameter", "columns", "required"},
    {"/check", NULL, "{\"n\":4,\"columns\":[1,\"3\",0,2]}", 400, "bad-request", "columns", "entry 1"},
    {"/check", NULL, "{\"n\":4,\"columns\":[1,3,0]}", 400, "invalid-placement", "columns", "exactly 4 entries"},
    {"/check", NULL, "{\"n\":4,\"queens\":[[0,4]]}", 400, "invalid-placement", "queens", "entry 0"},
    {"/check", NULL, "{\"n\":4,\"queens\":[[0,1],[0,1]]}", 400, "invalid-placement", "queens", "entry 1"},
    {"/check", NULL, "{\"n\":4,\"queens\":[[0]]}", 400, "bad-request", "queens", "pair of integers"},
    {"/check", NULL, "{\"n\":4,\"queens\":[[[[[[[[[0]]]]]]]]]}", 400, "bad-request", NULL, "Nested deeper"},
    {"/check", NULL, "{\"n\":1000001,\"queens\":[]}", 422, "limit-exceeded", "n", "between 1 and"},
    {"/check", "n=4", "{\"n\":4,\"queens\":[]}", 400, "unknown-parameter", "n", NULL},
    {"/complete", NULL, "{\"n\":33,\"queens\":[]}", 422, "limit-exceeded", "n", NULL},
    {"/complete", "count=true", "{\"n\":19,\"queens\":[]}", 422, "limit-exceeded", "n", NULL},
    {"/complete", NULL, "{\"n\":8,\"queens\":[[8,0]]}", 400, "invalid-placement", "queens", NULL},
    {"/complete", "n=8", "{\"n\":8,\"queens\":[]}", 400, "unknown-parameter", "n", NULL},
    {"/complete", "count=maybe", "{\"n\":8,\"queens\":[]}", 400, "invalid-parameter", "count", NULL},
    {"/complete", NULL, "{\"n\":8,\"queens\":[[0,0]],\"count\":true}", 400, "bad-request", NULL, "Unknown member"},
};

START_TEST(test_bad_body)
{
    answer a;
    serve("POST", bad[_i].path, bad[_i].query, json, bad[_i].body, &a);
    ck_assert_msg(a.status == bad[_i].status, "%s: %u %s", bad[_i].body, a.status, a.body);
    cJSON *j = parse(a.body);
    char type[64];
    snprintf(type, sizeof type, "/problems/%s", bad[_i].type);
    ck_assert_str_eq(nq_check_json_str(j, "type"), type);
    ck_assert_str_eq(nq_check_json_str(j, "instance"), bad[_i].path);
    const cJSON *param = cJSON_GetObjectItemCaseSensitive(j, "param");
    if (bad[_i].param)
        ck_assert_str_eq(nq_check_json_str(j, "param"), bad[_i].param);
    else
        ck_assert_ptr_null(param);
    if (bad[_i].detail)
        ck_assert_msg(strstr(nq_check_json_str(j, "detail"), bad[_i].detail), "%s: %s", bad[_i].body, a.body);
    cJSON_Delete(j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("post");
    TCase *tc = tcase_create("post");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_post_equals_get, 0, (int)(sizeof same / sizeof same[0]));
    tcase_add_test(tc, test_post_ignores_if_none_match);
    tcase_add_loop_test(tc, test_content_type, 0, (int)(sizeof types / sizeof types[0]));
    tcase_add_test(tc, test_size_cap);
    tcase_add_test(tc, test_body_begin);
    tcase_add_test(tc, test_too_large_mid_body);
    tcase_add_test(tc, test_methods);
    tcase_add_loop_test(tc, test_bad_body, 0, (int)(sizeof bad / sizeof bad[0]));
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
