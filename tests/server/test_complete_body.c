/* test_complete_body.c - POST /complete's parse step (nq_complete_parse_body), driven in-process until
 * the HTTP layer delivers request bodies: a JSON body must give the GET's cache key, ETag and answer,
 * and a bad body its problem. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/router.h"
#include "check_run.h"

static nq_config cfg;
static nq_cache *cache;
static nq_app *app;

static void setup(void)
{
    nq_config_defaults(&cfg);
    ck_assert_int_eq(nq_cache_create(1u << 22, &cache), NQ_OK);
    ck_assert_int_eq(nq_app_create(&cfg, cache, NULL, &app), NQ_OK);
}

static void teardown(void)
{
    nq_app_destroy(app);
    nq_cache_destroy(cache);
}

/* The GET's answer for query, its body in out (cap bytes) and its ETag in etag. */
static void get(const char *query, char *out, size_t cap, char *etag, size_t etag_cap)
{
    const nq_request req = {"GET", "/complete", query, strlen(query), NULL, NULL};
    nq_response resp;
    nq_response_init(&resp);
    nq_app_serve(app, &req, &resp);
    ck_assert_uint_eq(resp.status, 200);
    size_t len = 0;
    ck_assert_int_eq(nq_response_read_all(&resp, out, cap - 1, &len), NQ_OK);
    out[len] = '\0';
    snprintf(etag, etag_cap, "%s", nq_response_header(&resp, "ETag"));
    nq_response_clear(&resp);
}

/* Run a POST through the route's steps as the core will: parse_body, answer, compute, finish. */
static unsigned post(const char *query, const char *body, char *out, size_t cap, char *etag, size_t etag_cap)
{
    const nq_request req = {"POST", "/complete", query, strlen(query), NULL, NULL};
    nq_app_work w;
    memset(&w, 0, sizeof w);
    w.app = app;
    snprintf(w.instance, sizeof w.instance, "/complete");
    nq_response resp;
    nq_response_init(&resp);
    if (nq_complete_parse_body(&w, &req, body, strlen(body), &resp) &&
        nq_complete_answer(&w, &req, &resp) == NQ_APP_COMPUTE) {
        nq_app_result r;
        memset(&r, 0, sizeof r);
        ck_assert_int_eq(nq_complete_compute(&w, NULL, &r), NQ_OK);
        nq_complete_finish(&w, &r, &resp);
        nq_cache_entry_release(r.entry);
        free(r.data);
    }
    const unsigned status = resp.status;
    size_t len = 0;
    ck_assert_int_eq(nq_response_read_all(&resp, out, cap - 1, &len), NQ_OK);
    out[len] = '\0';
    const char *tag = nq_response_header(&resp, "ETag");
    snprintf(etag, etag_cap, "%s", tag ? tag : "");
    nq_response_clear(&resp);
    free(w.plan);
    return status;
}

static const struct {
    const char *query; /* of the POST */
    const char *body;  /* the JSON */
    const char *get;   /* the equivalent GET's query */
} same[] = {
    {"", "{\"n\":8,\"queens\":[[1,4],[0,0]]}", "n=8&queens=0:0,1:4"},
    {"count=true", "{\"n\":8,\"columns\":[0,null,null,null,null,null,null,null]}",
     "n=8&columns=0,-,-,-,-,-,-,-&count=true"},
    {"", "{\"n\":4,\"columns\":[1,3,null,null]}", "n=4&queens=1:3,0:1"},
    {"count=true", "{\"n\":8,\"queens\":[[2,3],[5,6]]}", "n=8&queens=2:3,5:6&count=true"},
};

START_TEST(body_equals_get)
{
    char a[512], b[512], ta[64], tb[64];
    get(same[_i].get, a, sizeof a, ta, sizeof ta);
    ck_assert_uint_eq(post(same[_i].query, same[_i].body, b, sizeof b, tb, sizeof tb), 200);
    ck_assert_str_eq(b, a);
    ck_assert_str_eq(tb, ta);
}
END_TEST

static const struct {
    const char *query;
    const char *body;
    unsigned status;
    const char *type;
} bad[] = {
    {"", "{\"n\":8", 400, "/problems/bad-request"},
    {"", "{\"n\":8,\"queens\":[[0,0]],\"extra\":1}", 400, "/problems/bad-request"},
    {"", "{\"n\":33,\"queens\":[]}", 422, "/problems/limit-exceeded"},
    {"count=true", "{\"n\":19,\"queens\":[]}", 422, "/problems/limit-exceeded"},
    {"", "{\"n\":8,\"queens\":[[8,0]]}", 400, "/problems/invalid-placement"},
    {"n=8", "{\"n\":8,\"queens\":[]}", 400, "/problems/unknown-parameter"},
};

START_TEST(bad_body)
{
    char out[1024], tag[64];
    ck_assert_uint_eq(post(bad[_i].query, bad[_i].body, out, sizeof out, tag, sizeof tag), bad[_i].status);
    ck_assert_ptr_nonnull(strstr(out, bad[_i].type));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("complete_body");
    TCase *tc = tcase_create("post");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, body_equals_get, 0, (int)(sizeof same / sizeof same[0]));
    tcase_add_loop_test(tc, bad_body, 0, (int)(sizeof bad / sizeof bad[0]));
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
