/* test_play.c - /complete, /trace and /count?k= against the real nqueensd: exact bodies, one cache
 * entry and ETag per board whatever its spelling, completions that agree with /solve, traces that
 * join page by page (cached and streamed, plain and gzip, JSON and NDJSON) into the whole, damaged
 * cursors, and every kind of bad input with its problem. */
#define _POSIX_C_SOURCE 200809L /* strdup, rand_r */
#include <check.h>
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_json.h"
#include "check_run.h"
#include "harness.h"

/* A small cache, so that pages of a few thousand steps stream instead. */
static const char *const server_args[] = {"--cache-bytes", "256K", NULL};
static nq_test_server server;

static cJSON *get_json(const char *target, const char *const *headers, long status, nq_http_response *keep)
{
    nq_http_response r;
    ck_assert(nq_http_request(&server, "GET", target, headers, &r));
    ck_assert_msg(r.status == status, "%s: %ld %s", target, r.status, r.body);
    cJSON *j = cJSON_ParseWithLength(r.body, r.body_len);
    ck_assert_msg(j != NULL, "%s: not JSON", target);
    if (keep)
        *keep = r;
    else
        nq_http_response_free(&r);
    return j;
}

static char *get_body(const char *target, const char *const *headers, nq_http_response *keep)
{
    nq_http_response r;
    ck_assert(nq_http_request(&server, "GET", target, headers, &r));
    ck_assert_msg(r.status == 200, "%s: %ld %s", target, r.status, r.body);
    char *body = NULL;
    size_t len = 0;
    const char *enc = nq_http_header_get(&r, "Content-Encoding");
    if (enc && strcmp(enc, "gzip") == 0)
        ck_assert(nq_harness_gunzip(r.body, r.body_len, &body, &len));
    else
        body = strdup(r.body);
    if (keep)
        *keep = r;
    else
        nq_http_response_free(&r);
    return body;
}

/* ---- /complete -------------------------------------------------------------------------------- */

static const struct {
    const char *target;
    const char *body;
} completes[] = {
    {"/complete?n=8&queens=0:0", "{\"n\":8,\"solution\":[0,4,7,5,2,6,1,3],\"hint\":[1,4]}"},
    {"/complete?n=8&queens=0:0&count=true",
     "{\"n\":8,\"solution\":[0,4,7,5,2,6,1,3],\"hint\":[1,4],\"completions\":4}"},
    {"/complete?n=8&queens=1:4,0:0&count=true",
     "{\"n\":8,\"solution\":[0,4,7,5,2,6,1,3],\"hint\":[2,7],\"completions\":1}"},
    {"/complete?n=6&queens=&count=true", "{\"n\":6,\"solution\":[1,3,5,0,2,4],\"hint\":[0,1],\"completions\":4}"},
    {"/complete?n=8&columns=0,4,7,5,2,6,1,3", "{\"n\":8,\"solution\":[0,4,7,5,2,6,1,3],\"hint\":null}"},
    {"/complete?n=1&columns=-", "{\"n\":1,\"solution\":[0],\"hint\":[0,0]}"},
    {"/complete?n=3&queens=&count=true", "{\"n\":3,\"solution\":null,\"hint\":null,\"completions\":0}"},
    /* attacking givens, a dead row, two in one row: answers, not errors */
    {"/complete?n=8&queens=2:3,5:6&count=true", "{\"n\":8,\"solution\":null,\"hint\":null,\"completions\":0}"},
    {"/complete?n=8&queens=0:0,3:2,5:6&count=true", "{\"n\":8,\"solution\":null,\"hint\":null,\"completions\":0}"},
    {"/complete?n=8&queens=3:0,3:7", "{\"n\":8,\"solution\":null,\"hint\":null}"},
    {"/complete?n=4&queens=0:0,0:1,0:2,0:3,1:0,1:1,1:2,1:3,2:0&count=true",
     "{\"n\":4,\"solution\":null,\"hint\":null,\"completions\":0}"},
};

START_TEST(complete_exact)
{
    nq_http_response r;
    cJSON *j = get_json(completes[_i].target, NULL, 200, &r);
    ck_assert_str_eq(r.body, completes[_i].body);
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "public, max-age=31536000, immutable");
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
    ck_assert_ptr_nonnull(nq_http_header_get(&r, "ETag"));
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

/* Both forms, any order: one body, one ETag; a 304 for it from a third spelling. */
START_TEST(complete_one_entry)
{
    static const char *const spellings[] = {"/complete?n=4&queens=1:3,0:1", "/complete?n=4&columns=1,3,-,-",
                                            "/complete?n=4&queens=0:1,1:3"};
    nq_http_response r[3];
    for (int i = 0; i < 3; i++) {
        ck_assert(nq_http_get(&server, spellings[i], &r[i]));
        ck_assert_int_eq(r[i].status, 200);
    }
    ck_assert_str_eq(r[0].body, "{\"n\":4,\"solution\":[1,3,0,2],\"hint\":[2,0]}");
    for (int i = 1; i < 3; i++) {
        ck_assert_str_eq(r[i].body, r[0].body);
        ck_assert_str_eq(nq_http_header_get(&r[i], "ETag"), nq_http_header_get(&r[0], "ETag"));
    }
    char inm[80];
    snprintf(inm, sizeof inm, "If-None-Match: %s", nq_http_header_get(&r[0], "ETag"));
    const char *const hdr[] = {inm, NULL};
    nq_http_response c;
    ck_assert(nq_http_request(&server, "GET", "/complete?n=4&columns=1,3,-,-", hdr, &c));
    ck_assert_int_eq(c.status, 304);
    for (int i = 0; i < 3; i++) nq_http_response_free(&r[i]);
    nq_http_response_free(&c);
}
END_TEST

/* The same completions as JSON bodies (the query holds count only): the GET's bytes and ETag. */
static const struct {
    const char *query; /* of the POST */
    const char *body;
    const char *get; /* the same request as a query */
} posts[] = {
    {NULL, "{\"n\":8,\"queens\":[[0,0]]}", "/complete?n=8&queens=0:0"},
    {"count=true", "{\"n\":8,\"queens\":[[1,4],[0,0]]}", "/complete?n=8&queens=1:4,0:0&count=true"},
    {"count=true", "{\"n\":6,\"columns\":[null,null,null,null,null,null]}", "/complete?n=6&queens=&count=true"},
    {NULL, "{\"n\":8,\"columns\":[0,4,7,5,2,6,1,3]}", "/complete?n=8&columns=0,4,7,5,2,6,1,3"},
    {"count=true", "{\"n\":8,\"queens\":[[2,3],[5,6]]}", "/complete?n=8&queens=2:3,5:6&count=true"},
    {NULL, "{\"n\":8,\"queens\":[[3,0],[3,7]]}", "/complete?n=8&queens=3:0,3:7"},
};

START_TEST(complete_post)
{
    static const char *const h[] = {"Content-Type: application/json", NULL};
    char target[64];
    snprintf(target, sizeof target, "/complete%s%s", posts[_i].query ? "?" : "",
             posts[_i].query ? posts[_i].query : "");
    nq_http_response p, g;
    ck_assert(nq_http_send(&server, "POST", target, h, posts[_i].body, strlen(posts[_i].body), &p));
    ck_assert(nq_http_get(&server, posts[_i].get, &g));
    ck_assert_msg(p.status == 200, "%s: %ld %s", posts[_i].body, p.status, p.body);
    ck_assert_str_eq(p.body, g.body);
    ck_assert_str_eq(nq_http_header_get(&p, "ETag"), nq_http_header_get(&g, "ETag"));
    nq_http_response_free(&p);
    nq_http_response_free(&g);
}
END_TEST

/* The first completion is the first /solve solution whose rows agree with the givens. */
START_TEST(complete_agrees_with_solve)
{
    const int n = _i;
    char target[256];
    snprintf(target, sizeof target, "/solve?n=%d&format=columns", n);
    cJSON *all = get_json(target, NULL, 200, NULL);
    const cJSON *sols = cJSON_GetObjectItemCaseSensitive(all, "solutions");
    unsigned seed = 7u * (unsigned)n;
    for (int trial = 0; trial < 40; trial++) {
        int rows[3], cols[3];
        const int k = 1 + trial % 3;
        int o = snprintf(target, sizeof target, "/complete?n=%d&queens=", n);
        for (int i = 0; i < k; i++) {
            rows[i] = rand_r(&seed) % n, cols[i] = rand_r(&seed) % n;
            for (int j = 0; j < i; j++)
                if (rows[j] == rows[i] && cols[j] == cols[i]) cols[i] = (cols[i] + 1) % n;
            o += snprintf(target + o, sizeof target - (size_t)o, "%s%d:%d", i ? "," : "", rows[i], cols[i]);
        }
        /* the first solution holding every given queen; a second given queen in a row never agrees */
        const cJSON *want = NULL;
        for (const cJSON *s = sols->child; s && !want; s = s->next) {
            bool agree = true;
            for (int i = 0; i < k && agree; i++) agree = (int)cJSON_GetArrayItem(s, rows[i])->valuedouble == cols[i];
            if (agree) want = s;
        }
        cJSON *j = get_json(target, NULL, 200, NULL);
        const cJSON *got = cJSON_GetObjectItemCaseSensitive(j, "solution");
        if (!want)
            ck_assert_msg(cJSON_IsNull(got), "%s", target);
        else
            ck_assert_msg(cJSON_Compare(got, want, true), "%s", target);
        cJSON_Delete(j);
    }
    cJSON_Delete(all);
}
END_TEST

/* ---- /trace ----------------------------------------------------------------------------------- */

static const long trace_lengths[] = {0, 3, 8, 23, 78, 283, 1050, 4175, 17868};

/* The steps of one page (a JSON array, owned by the returned document) and its next link. */
static cJSON *trace_page(const char *target, const cJSON **steps, char *next, size_t cap)
{
    cJSON *j = get_json(target, NULL, 200, NULL);
    *steps = cJSON_GetObjectItemCaseSensitive(j, "steps");
    ck_assert(cJSON_IsArray(*steps));
    const cJSON *nx = cJSON_GetObjectItemCaseSensitive(j, "next");
    next[0] = '\0';
    if (cJSON_IsString(nx))
        snprintf(next, cap, "%s", nx->valuestring);
    else
        ck_assert(cJSON_IsNull(nx));
    return j;
}

/* Pages joined by next equal the whole trace, for page sizes that do and do not divide it. */
START_TEST(trace_pages_join)
{
    const int n = _i;
    char target[256], next[256];
    snprintf(target, sizeof target, "/trace?n=%d&limit=100000", n);
    const cJSON *whole = NULL;
    cJSON *wj = trace_page(target, &whole, next, sizeof next);
    ck_assert_int_eq(cJSON_GetArraySize(whole), trace_lengths[n]);
    ck_assert_str_eq(next, "");
    const int limits[3][3] = {{1, 7, 78}, {7, 78, 1000}, {78, 1000, 4096}}; /* a few hundred pages at most */
    const int *row = limits[n <= 5 ? 0 : n == 6 ? 1 : 2];
    for (size_t l = 0; l < 3; l++) {
        snprintf(target, sizeof target, "/trace?n=%d&limit=%d", n, row[l]);
        const cJSON *w = whole->child;
        long seen = 0;
        for (;;) {
            const cJSON *steps = NULL;
            cJSON *pj = trace_page(target, &steps, next, sizeof next);
            for (const cJSON *s = steps->child; s; s = s->next, w = w->next, seen++) {
                ck_assert_ptr_nonnull(w);
                ck_assert(cJSON_Compare(s, w, true));
            }
            cJSON_Delete(pj);
            if (!next[0]) break;
            snprintf(target, sizeof target, "%s", next);
        }
        ck_assert_int_eq(seen, trace_lengths[n]);
    }
    cJSON_Delete(wj);
}
END_TEST

/* from=k is the trace without its first k steps; NDJSON holds the same steps, one a line. */
START_TEST(trace_from_and_ndjson)
{
    const cJSON *whole = NULL;
    char next[256], target[128];
    cJSON *wj = trace_page("/trace?n=6&limit=2000", &whole, next, sizeof next);
    static const int froms[] = {0, 1, 29, 500, 1049, 1050}; /* 1050: the end, an empty page */
    for (size_t i = 0; i < sizeof froms / sizeof froms[0]; i++) {
        snprintf(target, sizeof target, "/trace?n=6&limit=3&from=%d", froms[i]);
        const cJSON *steps = NULL;
        cJSON *pj = trace_page(target, &steps, next, sizeof next);
        const int want = froms[i] + 3 <= 1050 ? 3 : (froms[i] < 1050 ? 1050 - froms[i] : 0);
        ck_assert_int_eq(cJSON_GetArraySize(steps), want);
        for (int s = 0; s < want; s++)
            ck_assert(cJSON_Compare(cJSON_GetArrayItem(steps, s), cJSON_GetArrayItem(whole, froms[i] + s), true));
        ck_assert_int_eq(next[0] != '\0', froms[i] + 3 < 1050);
        cJSON_Delete(pj);
    }
    const char *const nd[] = {"Accept: application/x-ndjson", NULL};
    nq_http_response r;
    char *body = get_body("/trace?n=6&limit=2000", nd, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/x-ndjson");
    int line = 0;
    for (char *p = body, *eol; (eol = strchr(p, '\n')); p = eol + 1, line++) {
        cJSON *s = cJSON_ParseWithLength(p, (size_t)(eol - p));
        ck_assert(cJSON_Compare(s, cJSON_GetArrayItem(whole, line), true));
        cJSON_Delete(s);
    }
    ck_assert_int_eq(line, 1050);
    free(body);
    nq_http_response_free(&r);
    cJSON_Delete(wj);
}
END_TEST

/* Pages too big for this server's cache stream: the same bytes as cached ones would be, gzip too;
 * a large from is skipped on a worker and streamed after. */
START_TEST(trace_streamed)
{
    const char *const gz[] = {"Accept-Encoding: gzip", NULL};
    nq_http_response a, b;
    char *plain = get_body("/trace?n=8&limit=20000", NULL, &a);
    char *zipped = get_body("/trace?n=8&limit=20000", gz, &b);
    ck_assert_str_eq(plain, zipped);
    ck_assert_str_eq(nq_http_header_get(&b, "Content-Encoding"), "gzip");
    cJSON *j = cJSON_Parse(plain);
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "steps")), 17868);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "next")));
    cJSON_Delete(j);
    free(plain);
    free(zipped);
    nq_http_response_free(&a);
    nq_http_response_free(&b);
    /* streamed from a skip: step 1000000 of n = 12, and the page after it through its cursor */
    const cJSON *steps = NULL;
    char next[256];
    cJSON *pj = trace_page("/trace?n=12&limit=5000&from=1000000", &steps, next, sizeof next);
    ck_assert_int_eq((long)nq_check_json_num(steps->child, "step"), 1000000);
    ck_assert_int_eq(cJSON_GetArraySize(steps), 5000);
    ck_assert_ptr_nonnull(strstr(next, "/trace?n=12&limit=5000&cursor="));
    const cJSON *more = NULL;
    char next2[256];
    cJSON *mj = trace_page(next, &more, next2, sizeof next2);
    ck_assert_int_eq((long)nq_check_json_num(more->child, "step"), 1005000);
    cJSON *fj = trace_page("/trace?n=12&limit=1&from=1005000", &steps, next2, sizeof next2);
    ck_assert(cJSON_Compare(steps->child, more->child, true));
    cJSON_Delete(pj);
    cJSON_Delete(mj);
    cJSON_Delete(fj);
}
END_TEST

/* Every single-character change of a cursor is a 400 invalid-cursor, never a page. */
START_TEST(trace_tampered_cursor)
{
    const cJSON *steps = NULL;
    char next[256];
    cJSON *pj = trace_page("/trace?n=8&limit=100", &steps, next, sizeof next);
    const char *cursor = strstr(next, "cursor=") + 7;
    const size_t at = (size_t)(cursor - next), len = strlen(cursor);
    static const char swaps[] = "AQg_-z9";
    for (size_t i = 0; i < len; i++) {
        for (const char *c = swaps; *c; c++) {
            if (*c == next[at + i]) continue;
            char bad[256];
            memcpy(bad, next, strlen(next) + 1);
            bad[at + i] = *c;
            cJSON *j = get_json(bad, NULL, 400, NULL);
            ck_assert_str_eq(nq_check_json_str(j, "type"), "/problems/invalid-cursor");
            ck_assert_str_eq(nq_check_json_str(j, "param"), "cursor");
            cJSON_Delete(j);
        }
    }
    char other[256]; /* a good cursor of another n */
    snprintf(other, sizeof other, "/trace?n=9&limit=100&cursor=%s", cursor);
    cJSON_Delete(get_json(other, NULL, 400, NULL));
    cJSON_Delete(pj);
}
END_TEST

/* ---- /count?k= -------------------------------------------------------------------------------- */

static const struct {
    const char *target;
    const char *body;
} counts_k[] = {
    {"/count?n=8&k=4", "{\"n\":8,\"k\":4,\"total\":34568,\"unique\":4338}"},
    {"/count?n=8&k=0", "{\"n\":8,\"k\":0,\"total\":1,\"unique\":1}"},
    {"/count?n=8&k=1", "{\"n\":8,\"k\":1,\"total\":64,\"unique\":10}"},
    {"/count?n=8&k=2", "{\"n\":8,\"k\":2,\"total\":1288,\"unique\":164}"},
    {"/count?n=8&k=8", "{\"n\":8,\"total\":92,\"unique\":12}"}, /* k = n: the N-Queens count */
};

START_TEST(count_k_exact)
{
    nq_http_response r;
    cJSON *j = get_json(counts_k[_i].target, NULL, 200, &r);
    ck_assert_str_eq(r.body, counts_k[_i].body);
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "public, max-age=31536000, immutable");
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

/* ---- bad input -------------------------------------------------------------------------------- */

static const struct {
    const char *target;
    long status;
    const char *slug;
    const char *param;
} bad[] = {
    {"/complete?n=8", 400, "missing-parameter", "columns"},
    {"/complete?queens=0:0", 400, "missing-parameter", "n"},
    {"/complete?n=33&queens=", 422, "limit-exceeded", "n"},
    {"/complete?n=19&queens=&count=true", 422, "limit-exceeded", "n"},
    {"/complete?n=8&queens=&count=yes", 400, "invalid-parameter", "count"},
    {"/complete?n=8&queens=8:0", 400, "invalid-placement", "queens"},
    {"/complete?n=8&columns=1,2", 400, "invalid-placement", "columns"},
    {"/complete?n=8&queens=0:0&columns=0,-,-,-,-,-,-,-", 400, "conflicting-parameters", "queens"},
    {"/complete?n=8&queens=&limit=3", 400, "unknown-parameter", "limit"},
    {"/trace", 400, "missing-parameter", "n"},
    {"/trace?n=0", 400, "invalid-parameter", "n"},
    {"/trace?n=17", 422, "limit-exceeded", "n"},
    {"/trace?n=8&limit=0", 400, "invalid-parameter", "limit"},
    {"/trace?n=8&limit=100001", 422, "limit-exceeded", "limit"},
    {"/trace?n=8&from=-1", 400, "invalid-parameter", "from"},
    {"/trace?n=8&from=1&cursor=AQ", 400, "conflicting-parameters", "cursor"},
    {"/trace?n=8&cursor=", 400, "invalid-cursor", "cursor"},
    {"/trace?n=8&cursor=AQgAAAAAAAAAAAAAAAA", 400, "invalid-cursor", "cursor"},
    {"/trace?n=8&cursor=%3D%3D", 400, "invalid-cursor", "cursor"},
    {"/trace?n=8&offset=3", 400, "unknown-parameter", "offset"},
    {"/trace?n=6&from=1051", 422, "limit-exceeded", "from"},
    {"/trace?n=6&from=5000&cursor=AQ", 400, "conflicting-parameters", "cursor"},
    {"/trace?n=16&from=9000000001", 422, "too-costly", "from"},
    {"/count?n=8&k=9", 400, "invalid-parameter", "k"},
    {"/count?n=8&k=x", 400, "invalid-parameter", "k"},
    {"/count?n=12&k=3", 422, "limit-exceeded", "n"},
};

START_TEST(bad_input)
{
    nq_http_response r;
    cJSON *j = get_json(bad[_i].target, NULL, bad[_i].status, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/problem+json");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    char type[64];
    snprintf(type, sizeof type, "/problems/%s", bad[_i].slug);
    ck_assert_str_eq(nq_check_json_str(j, "type"), type);
    ck_assert_str_eq(nq_check_json_str(j, "param"), bad[_i].param);
    ck_assert_uint_gt(strlen(nq_check_json_str(j, "detail")), 20);
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

/* Refused before any work, with the exact problem: a /trace `from` past the trace's end (the trace's
 * length in `limit`), one whose skip the estimate puts past --budget-ms (the largest `from` within it
 * in `limit`), and a count of completions the estimate puts past it. Before these were refused, the
 * first two held a solver worker for the whole budget (a minute) after their 503. The second server
 * has a budget of 1 s and counts on one thread, so the estimates are the same on any machine. */
static const char *const frugal_args[] = {"--budget-ms", "1000", "--count-threads", "1", "--max-n-complete-count",
                                          "20",          NULL};

static const struct {
    bool frugal; /* on the server with frugal_args */
    const char *target;
    const char *body;
} refused[] = {
    {false, "/trace?n=16&limit=1&from=18446744073709551615",
     "{\"type\":\"/problems/limit-exceeded\",\"title\":\"Beyond this server's limits\",\"status\":422,"
     "\"detail\":\"Parameter 'from' must be between 0 and 19178647470: the trace of n = 16 has 19178647470 "
     "steps.\",\"instance\":\"/trace\",\"param\":\"from\",\"limit\":19178647470}"},
    {false, "/trace?n=4&from=79",
     "{\"type\":\"/problems/limit-exceeded\",\"title\":\"Beyond this server's limits\",\"status\":422,"
     "\"detail\":\"Parameter 'from' must be between 0 and 78: the trace of n = 4 has 78 steps.\","
     "\"instance\":\"/trace\",\"param\":\"from\",\"limit\":78}"},
    {false, "/trace?n=16&limit=1&from=19178647470",
     "{\"type\":\"/problems/too-costly\",\"title\":\"Too costly\",\"status\":422,"
     "\"detail\":\"Starting at step 19178647470 takes about 128 s of search by this server's estimate, more "
     "than its budget of 60 s: 'from' may be at most 9000000000 here; page on with the 'next' links, which "
     "resume at once.\",\"instance\":\"/trace\",\"param\":\"from\",\"limit\":9000000000}"},
    {true, "/trace?n=14&from=150000001",
     "{\"type\":\"/problems/too-costly\",\"title\":\"Too costly\",\"status\":422,"
     "\"detail\":\"Starting at step 150000001 takes about 2 s of search by this server's estimate, more than "
     "its budget of 1 s: 'from' may be at most 150000000 here; page on with the 'next' links, which resume at "
     "once.\",\"instance\":\"/trace\",\"param\":\"from\",\"limit\":150000000}"},
    {true, "/complete?n=17&count=true&queens=0:3",
     "{\"type\":\"/problems/too-costly\",\"title\":\"Too costly\",\"status\":422,"
     "\"detail\":\"Counting the completions of 1 given queen on a board of n = 17 takes about 8 s by this "
     "server's estimate (1 thread), more than its budget of 1 s: give more queens or ask for a smaller "
     "board.\",\"instance\":\"/complete\"}"},
    {true, "/complete?n=20&count=true&queens=",
     "{\"type\":\"/problems/too-costly\",\"title\":\"Too costly\",\"status\":422,"
     "\"detail\":\"Counting the completions of 0 given queens on a board of n = 20 takes about 83 s by this "
     "server's estimate (1 thread), more than its budget of 1 s: give more queens or ask for a smaller "
     "board.\",\"instance\":\"/complete\"}"},
};

static nq_test_server frugal;

START_TEST(refused_before_any_work)
{
    nq_http_response r;
    ck_assert(nq_http_get(refused[_i].frugal ? &frugal : &server, refused[_i].target, &r));
    ck_assert_int_eq(r.status, 422);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/problem+json");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    ck_assert_str_eq(r.body, refused[_i].body);
    nq_http_response_free(&r);
}
END_TEST

/* The same board as a POST body is refused alike; boards the estimate admits are counted. */
START_TEST(count_estimate_admits)
{
    static const char *const h[] = {"Content-Type: application/json", NULL};
    static const char body[] = "{\"n\":17,\"queens\":[[0,3]]}";
    nq_http_response r;
    ck_assert(nq_http_send(&frugal, "POST", "/complete?count=true", h, body, sizeof body - 1, &r));
    ck_assert_int_eq(r.status, 422);
    ck_assert_str_eq(r.body, refused[4].body);
    nq_http_response_free(&r);
    /* about 37 ms by the estimate (8 s / 6^3), and a few on any machine */
    ck_assert(nq_http_get(&frugal, "/complete?n=14&count=true&queens=0:3", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"completions\":"));
    nq_http_response_free(&r);
    /* without count the first completion is not estimated (NP-complete): abandoned, it is cancelled */
    ck_assert(nq_http_get(&frugal, "/complete?n=17&queens=0:3", &r));
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    /* the end of a trace is a page, empty */
    ck_assert(nq_http_get(&server, "/trace?n=4&from=78", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"n\":4,\"steps\":[],\"next\":null}");
    nq_http_response_free(&r);
}
END_TEST

/* A search that outlives the request's deadline is a 503 with Retry-After, and goes on into the
 * cache: the same request then gets the answer, in either form (a POST of the same board shares the
 * computation and the entry). (The first completion of the empty 32 x 32 board takes about a second,
 * a thousand times the deadline; a slower machine only widens the gap.) */
START_TEST(complete_deadline_then_cached)
{
    static const char *const args[] = {"--deadline-ms", "1", NULL};
    static const char *const h[] = {"Content-Type: application/json", NULL};
    static const char body[] = "{\"n\":32,\"columns\":[]}"; /* 0 of 32 columns: a 400 */
    static const char empty[] = "{\"n\":32,\"queens\":[]}";
    nq_test_server slow;
    ck_assert(nq_harness_start(&slow, args, NULL));
    nq_http_response r;
    ck_assert(nq_http_send(&slow, "POST", "/complete", h, body, sizeof body - 1, &r));
    ck_assert_int_eq(r.status, 400);
    nq_http_response_free(&r);
    ck_assert(nq_http_send(&slow, "POST", "/complete", h, empty, sizeof empty - 1, &r));
    ck_assert_int_eq(r.status, 503);
    ck_assert_ptr_nonnull(nq_http_header_get(&r, "Retry-After"));
    nq_http_response_free(&r);
    ck_assert(nq_http_get(&slow, "/complete?n=32&queens=", &r));
    ck_assert_int_eq(r.status, 503);
    ck_assert_ptr_nonnull(nq_http_header_get(&r, "Retry-After"));
    nq_http_response_free(&r);
    long status = 503;
    for (int i = 0; i < 600 && status == 503; i++) { /* up to a minute of polling */
        nq_harness_sleep_ms(100);
        ck_assert(nq_http_get(&slow, "/complete?n=32&queens=", &r));
        status = r.status;
        if (status == 200)
            ck_assert_ptr_nonnull(strstr(r.body, "\"solution\":[0,2,4,1,3,8,10,12,14,5,17,23,25,29,24,30,27,31,26,28,"
                                                 "15,18,9,7,16,11,20,6,13,22,19,21]"));
        nq_http_response_free(&r);
    }
    ck_assert_int_eq(status, 200);
    ck_assert(nq_http_send(&slow, "POST", "/complete", h, empty, sizeof empty - 1, &r));
    ck_assert_int_eq(r.status, 200); /* from the GET's entry */
    ck_assert_ptr_nonnull(strstr(r.body, "\"solution\":[0,2,4,1,3,8,"));
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&slow, SIGTERM, 15), 0);
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, server_args, NULL)) return EXIT_FAILURE;
    if (!nq_harness_start(&frugal, frugal_args, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_play");
    TCase *tc = tcase_create("play");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, complete_exact, 0, (int)(sizeof completes / sizeof completes[0]));
    tcase_add_test(tc, complete_one_entry);
    tcase_add_loop_test(tc, complete_post, 0, (int)(sizeof posts / sizeof posts[0]));
    tcase_add_loop_test(tc, complete_agrees_with_solve, 4, 10);
    tcase_add_loop_test(tc, trace_pages_join, 1, 9);
    tcase_add_test(tc, trace_from_and_ndjson);
    tcase_add_test(tc, trace_streamed);
    tcase_add_test(tc, trace_tampered_cursor);
    tcase_add_loop_test(tc, count_k_exact, 0, (int)(sizeof counts_k / sizeof counts_k[0]));
    tcase_add_loop_test(tc, bad_input, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, complete_deadline_then_cached);
    tcase_add_loop_test(tc, refused_before_any_work, 0, (int)(sizeof refused / sizeof refused[0]));
    tcase_add_test(tc, count_estimate_admits);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 15);
    const int frugal_status = nq_harness_stop(&frugal, SIGTERM, 15);
    return failed == 0 && status == 0 && frugal_status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
