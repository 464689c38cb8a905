/* test_anyn.c - /solution and /check against the real nqueensd: exact bodies, boards checked by an
 * independent O(n) checker written here, seeds that reproduce, server-chosen seeds with their
 * permalink, streamed answers (plain and gzip) for boards too big for the cache, HEAD, and every kind
 * of bad input with its problem. */
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

/* A small cache (entries up to 64 KiB) so that n = 20000 streams; few conflicts listed. */
static const char *const server_args[] = {"--cache-bytes", "512K", "--max-conflicts", "3", "--max-n-board", "64", NULL};
static nq_test_server server;

static cJSON *get_json(const char *target, long status, nq_http_response *keep)
{
    nq_http_response r;
    ck_assert(nq_http_get(&server, target, &r));
    ck_assert_msg(r.status == status, "%s: %ld %s", target, r.status, r.body);
    cJSON *j = cJSON_ParseWithLength(r.body, r.body_len);
    ck_assert_msg(j != NULL, "%s: not JSON", target);
    if (keep)
        *keep = r;
    else
        nq_http_response_free(&r);
    return j;
}

/* Independent of the library: n columns, each in 0..n-1, every column, diagonal and anti-diagonal
 * used once (three arrays of flags, one pass). */
static bool valid_board(const cJSON *arr, long n)
{
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) != n) return false;
    unsigned char *used = calloc((size_t)(5 * n), 1);
    unsigned char *col = used, *diag = used + n, *anti = used + 3 * n;
    bool ok = true;
    long r = 0;
    for (const cJSON *v = arr->child; v && ok; v = v->next, r++) {
        const long c = cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
        ok = c >= 0 && c < n && !col[c] && !diag[r - c + n] && !anti[r + c];
        if (ok) col[c] = diag[r - c + n] = anti[r + c] = 1;
    }
    free(used);
    return ok;
}

START_TEST(test_construct_exact)
{
    nq_http_response r;
    cJSON *j = get_json("/solution?n=8", 200, &r);
    ck_assert_str_eq(r.body, "{\"n\":8,\"method\":\"construct\",\"seed\":null,\"solution\":[1,3,5,7,2,0,6,4]}");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "public, max-age=31536000, immutable");
    ck_assert_ptr_nonnull(nq_http_header_get(&r, "ETag"));
    ck_assert_ptr_null(nq_http_header_get(&r, "Content-Location"));
    cJSON_Delete(j);
    nq_http_response_free(&r);
    j = get_json("/solution?n=4&format=board", 200, &r);
    ck_assert_str_eq(
        r.body, "{\"n\":4,\"method\":\"construct\",\"seed\":null,\"solution\":[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"]}");
    cJSON_Delete(j);
    nq_http_response_free(&r);
    j = get_json("/solution?n=1", 200, &r);
    ck_assert_str_eq(r.body, "{\"n\":1,\"method\":\"construct\",\"seed\":null,\"solution\":[0]}");
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

/* n = 2 and 3 have no solution: an answer, 200 with null, for both methods. */
START_TEST(test_no_solution)
{
    static const char *const targets[] = {"/solution?n=2", "/solution?n=3", "/solution?n=3&method=random&seed=7"};
    static const char *const bodies[] = {
        "{\"n\":2,\"method\":\"construct\",\"seed\":null,\"solution\":null}",
        "{\"n\":3,\"method\":\"construct\",\"seed\":null,\"solution\":null}",
        "{\"n\":3,\"method\":\"random\",\"seed\":7,\"solution\":null}",
    };
    for (int i = 0; i < 3; i++) {
        nq_http_response r;
        cJSON *j = get_json(targets[i], 200, &r);
        ck_assert_str_eq(r.body, bodies[i]);
        cJSON_Delete(j);
        nq_http_response_free(&r);
    }
}
END_TEST

/* Every constructed board of a range of sizes, and a few large ones (streamed beyond 64 KiB). */
START_TEST(test_construct_valid)
{
    static const long sizes[] = {4,  5,  6,  7,  9,  10, 11, 12,  13,  14,   15,   16,    17,
                                 18, 19, 20, 21, 22, 23, 24, 25,  26,  27,   28,   29,    30,
                                 31, 32, 33, 38, 44, 50, 64, 100, 127, 1000, 5001, 20000, 99998};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char target[64];
        snprintf(target, sizeof target, "/solution?n=%ld", sizes[i]);
        cJSON *j = get_json(target, 200, NULL);
        ck_assert_msg(valid_board(cJSON_GetObjectItemCaseSensitive(j, "solution"), sizes[i]), "n=%ld", sizes[i]);
        cJSON_Delete(j);
    }
}
END_TEST

START_TEST(test_random_reproducible)
{
    nq_http_response a, b, c;
    cJSON *ja = get_json("/solution?n=1000&method=random&seed=42", 200, &a);
    cJSON *jb = get_json("/solution?n=1000&method=random&seed=42", 200, &b);
    cJSON *jc = get_json("/solution?n=1000&method=random&seed=43", 200, &c);
    ck_assert_str_eq(a.body, b.body); /* the same n and seed give the same board */
    ck_assert_str_ne(a.body, c.body); /* another seed, another board */
    ck_assert_str_eq(nq_http_header_get(&a, "ETag"), nq_http_header_get(&b, "ETag"));
    ck_assert_str_ne(nq_http_header_get(&a, "ETag"), nq_http_header_get(&c, "ETag"));
    ck_assert_str_eq(nq_http_header_get(&a, "Cache-Control"), "public, max-age=31536000, immutable");
    ck_assert(valid_board(cJSON_GetObjectItemCaseSensitive(ja, "solution"), 1000));
    ck_assert(valid_board(cJSON_GetObjectItemCaseSensitive(jc, "solution"), 1000));
    ck_assert_str_eq(nq_check_json_str(ja, "method"), "random");
    ck_assert_int_eq((long)nq_check_json_num(ja, "seed"), 42);
    for (int n = 4; n <= 40; n++) { /* backtracking below the local search's range, and the search */
        char target[80];
        snprintf(target, sizeof target, "/solution?n=%d&method=random&seed=%d", n, n * 7);
        cJSON *j = get_json(target, 200, NULL);
        ck_assert_msg(valid_board(cJSON_GetObjectItemCaseSensitive(j, "solution"), n), "n=%d", n);
        cJSON_Delete(j);
    }
    /* seeds go up to 2^53 - 1, an integer every JSON client holds exactly */
    nq_http_response_free(&c);
    cJSON *top = get_json("/solution?n=50&method=random&seed=9007199254740991", 200, &c);
    ck_assert_ptr_nonnull(strstr(c.body, "\"seed\":9007199254740991,"));
    cJSON_Delete(top);
    cJSON_Delete(ja);
    cJSON_Delete(jb);
    cJSON_Delete(jc);
    nq_http_response_free(&a);
    nq_http_response_free(&b);
    nq_http_response_free(&c);
}
END_TEST

/* Without a seed the server picks one: no-store, and a Content-Location that reproduces the board. */
START_TEST(test_random_chosen_seed)
{
    nq_http_response r, p;
    cJSON *j = get_json("/solution?n=300&method=random", 200, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    const char *loc = nq_http_header_get(&r, "Content-Location");
    ck_assert_ptr_nonnull(loc);
    const double seed = nq_check_json_num(j, "seed");
    ck_assert(seed >= 0 && seed < 9007199254740992.0); /* below 2^53: exact in any JSON parser */
    char want[128];
    snprintf(want, sizeof want, "/solution?n=300&method=random&seed=%.0f&format=columns", seed);
    ck_assert_str_eq(loc, want);
    cJSON *jp = get_json(loc, 200, &p);
    ck_assert_str_eq(p.body, r.body);
    ck_assert_str_eq(nq_http_header_get(&p, "Cache-Control"), "public, max-age=31536000, immutable");
    ck_assert_ptr_null(nq_http_header_get(&p, "Content-Location"));
    ck_assert(valid_board(cJSON_GetObjectItemCaseSensitive(j, "solution"), 300));
    /* Nothing to revalidate: a board the client never saw is never "not modified". */
    static const char *const any[] = {"If-None-Match: *", NULL};
    nq_http_response star;
    ck_assert(nq_http_request(&server, "GET", "/solution?n=300&method=random", any, &star));
    ck_assert_int_eq(star.status, 200);
    ck_assert_str_eq(nq_http_header_get(&star, "Cache-Control"), "no-store");
    nq_http_response_free(&star);
    cJSON_Delete(j);
    cJSON_Delete(jp);
    nq_http_response_free(&r);
    nq_http_response_free(&p);
}
END_TEST

/* Too big for this server's cache: streamed with its exact Content-Length (a board's text has a size
 * known before it is rendered); gzip on the fly, chunked (no length), the same bytes. */
START_TEST(test_streamed_and_gzip)
{
    static const char *const targets[] = {"/solution?n=60000", "/solution?n=60000&method=random&seed=9"};
    static const char *const gzip[] = {"Accept-Encoding: gzip", NULL};
    for (int i = 0; i < 2; i++) {
        nq_http_response plain, zipped;
        cJSON *j = get_json(targets[i], 200, &plain);
        char length[24];
        snprintf(length, sizeof length, "%zu", plain.body_len);
        ck_assert_str_eq(nq_http_header_get(&plain, "Content-Length"), length);
        ck_assert(valid_board(cJSON_GetObjectItemCaseSensitive(j, "solution"), 60000));
        ck_assert(nq_http_request(&server, "GET", targets[i], gzip, &zipped));
        ck_assert_int_eq(zipped.status, 200);
        ck_assert_str_eq(nq_http_header_get(&zipped, "Content-Encoding"), "gzip");
        ck_assert_ptr_null(nq_http_header_get(&zipped, "Content-Length"));
        ck_assert_str_eq(nq_http_header_get(&zipped, "Transfer-Encoding"), "chunked");
        char *out = NULL;
        size_t out_len = 0;
        ck_assert(nq_harness_gunzip(zipped.body, zipped.body_len, &out, &out_len));
        ck_assert_uint_eq(out_len, plain.body_len);
        ck_assert(memcmp(out, plain.body, out_len) == 0);
        free(out);
        cJSON_Delete(j);
        nq_http_response_free(&plain);
        nq_http_response_free(&zipped);
    }
}
END_TEST

START_TEST(test_head_matches_get)
{
    static const char *const targets[] = {"/solution?n=8", "/solution?n=60000",
                                          "/solution?n=60000&method=random&seed=1"};
    for (int i = 0; i < 3; i++) {
        nq_http_response g, h;
        ck_assert(nq_http_get(&server, targets[i], &g));
        ck_assert(nq_http_request(&server, "HEAD", targets[i], NULL, &h));
        ck_assert_int_eq(h.status, 200);
        ck_assert_uint_eq(h.body_len, 0);
        ck_assert_str_eq(nq_http_header_get(&h, "ETag"), nq_http_header_get(&g, "ETag"));
        ck_assert_str_eq(nq_http_header_get(&h, "Content-Type"), "application/json");
        ck_assert_str_eq(nq_http_header_get(&h, "Content-Length"), nq_http_header_get(&g, "Content-Length"));
        nq_http_response_free(&g);
        nq_http_response_free(&h);
    }
}
END_TEST

/* One problem per row: target, status, type slug, param. */
typedef struct bad_row {
    const char *target;
    long status;
    const char *slug;
    const char *param;
} bad_row;

static const bad_row bad[] = {
    {"/solution", 400, "missing-parameter", "n"},
    {"/solution?n=0", 400, "invalid-parameter", "n"},
    {"/solution?n=-4", 400, "invalid-parameter", "n"},
    {"/solution?n=1000001", 422, "limit-exceeded", "n"},
    {"/solution?n=99999999999999999999", 400, "invalid-parameter", "n"},
    {"/solution?n=8&method=greedy", 400, "invalid-parameter", "method"},
    {"/solution?n=8&seed=1", 400, "conflicting-parameters", "seed"},
    {"/solution?n=8&method=construct&seed=1", 400, "conflicting-parameters", "seed"},
    {"/solution?n=8&method=random&seed=18446744073709551616", 400, "invalid-parameter", "seed"},
    {"/solution?n=8&method=random&seed=9007199254740992", 400, "invalid-parameter", "seed"},
    {"/solution?n=8&method=random&seed=18446744073709551615", 400, "invalid-parameter", "seed"},
    {"/solution?n=8&method=random&seed=0x10", 400, "invalid-parameter", "seed"},
    {"/solution?n=65&format=board", 422, "limit-exceeded", "format"},
    {"/solution?n=8&format=grid", 400, "invalid-parameter", "format"},
    {"/solution?n=8&limit=1", 400, "unknown-parameter", "limit"},
    {"/solution?n=8&n=9", 400, "duplicate-parameter", "n"},
    {"/check?n=4", 400, "missing-parameter", "columns"},
    {"/check?columns=1,3,0,2", 400, "missing-parameter", "n"},
    {"/check?n=4&columns=1,3,0,2&queens=0:1", 400, "conflicting-parameters", "queens"},
    {"/check?n=4&columns=1,3,0", 400, "invalid-placement", "columns"},
    {"/check?n=4&columns=1,3,0,2,1", 400, "invalid-placement", "columns"},
    {"/check?n=4&columns=1,3,0,4", 400, "invalid-placement", "columns"},
    {"/check?n=4&columns=1,,0,2", 400, "invalid-placement", "columns"},
    {"/check?n=4&columns=1,x,0,2", 400, "invalid-placement", "columns"},
    {"/check?n=4&columns=01,3,0,2", 400, "invalid-placement", "columns"},
    {"/check?n=4&queens=0:1,0:1", 400, "invalid-placement", "queens"},
    {"/check?n=4&queens=4:1", 400, "invalid-placement", "queens"},
    {"/check?n=4&queens=0:1,", 400, "invalid-placement", "queens"},
    {"/check?n=4&queens=0-1", 400, "invalid-placement", "queens"},
    {"/check?n=4&queens=0:1%2", 400, "invalid-parameter", "queens"},
    {"/check?n=4&queens=0:1%00", 400, "invalid-parameter", "queens"},
    {"/check?n=1000001&queens=0:0", 422, "limit-exceeded", "n"},
};

START_TEST(test_bad_input)
{
    const bad_row *row = &bad[_i];
    nq_http_response r;
    cJSON *j = get_json(row->target, row->status, &r);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/problem+json");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    char type[64];
    snprintf(type, sizeof type, "/problems/%s", row->slug);
    ck_assert_str_eq(nq_check_json_str(j, "type"), type);
    ck_assert_str_eq(nq_check_json_str(j, "param"), row->param);
    ck_assert_uint_gt(strlen(nq_check_json_str(j, "detail")), 20);
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

/* Exact answers, row: target, body. */
typedef struct check_row {
    const char *target;
    const char *body;
} check_row;

static const check_row checks[] = {
    {"/check?n=4&columns=1,3,0,2",
     "{\"n\":4,\"queens\":4,\"valid\":true,\"complete\":true,\"conflict_count\":0,\"conflicts\":[]}"},
    {"/check?n=4&columns=1,-,3,-",
     "{\"n\":4,\"queens\":2,\"valid\":false,\"complete\":false,\"conflict_count\":1,\"conflicts\":[[[0,1],[2,3]]]}"},
    {"/check?n=4&queens=2:3,0:1,3:0",
     "{\"n\":4,\"queens\":3,\"valid\":false,\"complete\":false,\"conflict_count\":1,\"conflicts\":[[[0,1],[2,3]]]}"},
    {"/check?n=4&queens=",
     "{\"n\":4,\"queens\":0,\"valid\":true,\"complete\":false,\"conflict_count\":0,\"conflicts\":[]}"},
    {"/check?n=4&columns=-,-,-,-",
     "{\"n\":4,\"queens\":0,\"valid\":true,\"complete\":false,\"conflict_count\":0,\"conflicts\":[]}"},
    /* two queens in one row (only the queens form can say that) */
    {"/check?n=5&queens=1:0,1:4",
     "{\"n\":5,\"queens\":2,\"valid\":false,\"complete\":false,\"conflict_count\":1,\"conflicts\":[[[1,0],[1,4]]]}"},
    /* escaped separators, as URLSearchParams writes them */
    {"/check?n=5&queens=0%3A0%2C2%3A1",
     "{\"n\":5,\"queens\":2,\"valid\":true,\"complete\":false,\"conflict_count\":0,\"conflicts\":[]}"},
    /* five queens on one diagonal: 10 pairs, 3 listed (--max-conflicts 3), in row-major order */
    {"/check?n=5&columns=0,1,2,3,4", "{\"n\":5,\"queens\":5,\"valid\":false,\"complete\":false,\"conflict_count\":10,"
                                     "\"conflicts\":[[[0,0],[1,1]],[[0,0],[2,2]],[[0,0],[3,3]]]}"},
    /* a huge board with two queens: memory follows the queens, not n */
    {"/check?n=1000000&queens=999999:0,0:999999", "{\"n\":1000000,\"queens\":2,\"valid\":false,\"complete\":false,"
                                                  "\"conflict_count\":1,\"conflicts\":[[[0,999999],[999999,0]]]}"},
};

START_TEST(test_check_exact)
{
    nq_http_response r;
    cJSON *j = get_json(checks[_i].target, 200, &r);
    ck_assert_str_eq(r.body, checks[_i].body);
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "public, max-age=31536000, immutable");
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

/* The same squares in either form and any order: the same ETag, and a 304 for it. */
START_TEST(test_check_etag)
{
    nq_http_response a, b;
    ck_assert(nq_http_get(&server, "/check?n=4&columns=1,3,-,-", &a));
    ck_assert(nq_http_get(&server, "/check?n=4&queens=1:3,0:1", &b));
    ck_assert_str_eq(a.body, b.body);
    ck_assert_str_eq(nq_http_header_get(&a, "ETag"), nq_http_header_get(&b, "ETag"));
    char inm[80];
    snprintf(inm, sizeof inm, "If-None-Match: %s", nq_http_header_get(&a, "ETag"));
    const char *const hdr[] = {inm, NULL};
    nq_http_response c;
    ck_assert(nq_http_request(&server, "GET", "/check?n=4&queens=0:1,1:3", hdr, &c));
    ck_assert_int_eq(c.status, 304);
    ck_assert_uint_eq(c.body_len, 0);
    nq_http_response_free(&a);
    nq_http_response_free(&b);
    nq_http_response_free(&c);
}
END_TEST

/* A server listing more conflicts sends other bytes for the same check: never under the same tag.
 * With the same cap, a fresh process tags it alike. */
START_TEST(test_check_etag_follows_the_cap)
{
    static const char *const target = "/check?n=5&columns=0,1,2,3,4"; /* 10 pairs: 3 listed here */
    static const char *const more[] = {"--max-conflicts", "20", NULL};
    nq_test_server other, same;
    ck_assert(nq_harness_start(&other, more, NULL));
    ck_assert(nq_harness_start(&same, server_args, NULL));
    nq_http_response a, b, c;
    ck_assert(nq_http_get(&server, target, &a));
    ck_assert(nq_http_get(&other, target, &b));
    ck_assert(nq_http_get(&same, target, &c));
    ck_assert_int_eq(b.status, 200);
    ck_assert_ptr_nonnull(strstr(b.body, "\"conflict_count\":10,"));
    ck_assert_str_ne(a.body, b.body);
    ck_assert_str_ne(nq_http_header_get(&a, "ETag"), nq_http_header_get(&b, "ETag"));
    ck_assert_str_eq(a.body, c.body);
    ck_assert_str_eq(nq_http_header_get(&a, "ETag"), nq_http_header_get(&c, "ETag"));
    nq_http_response_free(&a);
    nq_http_response_free(&b);
    nq_http_response_free(&c);
    ck_assert_int_eq(nq_harness_stop(&other, SIGTERM, 20), 0);
    ck_assert_int_eq(nq_harness_stop(&same, SIGTERM, 20), 0);
}
END_TEST

/* The same checks as JSON bodies: the bytes and ETag of the GET (so the contract stage sees POST
 * answers too). */
static const struct {
    const char *body; /* POST /check */
    const char *get;  /* the same placement as a query */
} posts[] = {
    {"{\"n\":4,\"columns\":[1,3,0,2]}", "/check?n=4&columns=1,3,0,2"},
    {"{\"n\":4,\"columns\":[1,null,3,null]}", "/check?n=4&columns=1,-,3,-"},
    {"{\"n\":4,\"queens\":[[3,0],[2,3],[0,1]]}", "/check?n=4&queens=2:3,0:1,3:0"},
    {"{\"n\":4,\"queens\":[]}", "/check?n=4&queens="},
    {"{\"n\":5,\"queens\":[[1,4],[1,0]]}", "/check?n=5&queens=1:0,1:4"},
    {"{\"n\":5,\"columns\":[0,1,2,3,4]}", "/check?n=5&columns=0,1,2,3,4"},
    {"{\"n\":1000000,\"queens\":[[999999,0],[0,999999]]}", "/check?n=1000000&queens=999999:0,0:999999"},
};

START_TEST(test_check_post)
{
    static const char *const h[] = {"Content-Type: application/json", NULL};
    nq_http_response p, g;
    ck_assert(nq_http_send(&server, "POST", "/check", h, posts[_i].body, strlen(posts[_i].body), &p));
    ck_assert(nq_http_get(&server, posts[_i].get, &g));
    ck_assert_int_eq(p.status, 200);
    ck_assert_str_eq(p.body, g.body);
    ck_assert_str_eq(nq_http_header_get(&p, "ETag"), nq_http_header_get(&g, "ETag"));
    ck_assert_str_eq(nq_http_header_get(&p, "Content-Type"), "application/json");
    nq_http_response_free(&p);
    nq_http_response_free(&g);
}
END_TEST

/* A constructed board checks as complete, through the server, for a large n (GET: the URI cap of
 * 8 KiB bounds the board; n = 1500 needs about 6 KB; larger boards go in a POST body, test_body.c). */
START_TEST(test_check_constructed)
{
    cJSON *j = get_json("/solution?n=1500", 200, NULL);
    const cJSON *sol = cJSON_GetObjectItemCaseSensitive(j, "solution");
    char *target = malloc(16384);
    int o = snprintf(target, 16384, "/check?n=1500&columns=");
    for (const cJSON *v = sol->child; v; v = v->next)
        o += snprintf(target + o, (size_t)(16384 - o), "%s%d", v == sol->child ? "" : ",", (int)v->valuedouble);
    cJSON *c = get_json(target, 200, NULL);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "complete")));
    ck_assert_int_eq((long)nq_check_json_num(c, "conflict_count"), 0);
    free(target);
    cJSON_Delete(c);
    cJSON_Delete(j);
}
END_TEST

/* The value of nqueensd_solver_runs_total for /solution by method, from a fresh /metrics. */
static long solution_runs(const char *method)
{
    char name[96];
    (void)snprintf(name, sizeof name, "nqueensd_solver_runs_total{kind=\"solution\",method=\"%s\"}", method);
    const double v = nq_harness_metric(&server, name);
    ck_assert_msg(v >= 0, "no %s", name);
    return (long)v;
}

/* Each computation counts once under its method; an answer from the cache counts nothing. */
START_TEST(test_metrics_by_method)
{
    const long random0 = solution_runs("random"), construct0 = solution_runs("construct");
    for (int i = 0; i < 2; i++) { /* the second time from the cache */
        cJSON_Delete(get_json("/solution?n=123&method=random&seed=4242", 200, NULL));
        ck_assert_int_eq(solution_runs("random"), random0 + 1);
        ck_assert_int_eq(solution_runs("construct"), construct0);
    }
    cJSON_Delete(get_json("/solution?n=321", 200, NULL));
    ck_assert_int_eq(solution_runs("construct"), construct0 + 1);
    ck_assert_int_eq(solution_runs("random"), random0 + 1);
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, server_args, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_anyn");
    TCase *tc = tcase_create("anyn");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_construct_exact);
    tcase_add_test(tc, test_no_solution);
    tcase_add_test(tc, test_construct_valid);
    tcase_add_test(tc, test_random_reproducible);
    tcase_add_test(tc, test_random_chosen_seed);
    tcase_add_test(tc, test_streamed_and_gzip);
    tcase_add_test(tc, test_head_matches_get);
    tcase_add_loop_test(tc, test_bad_input, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_loop_test(tc, test_check_exact, 0, (int)(sizeof checks / sizeof checks[0]));
    tcase_add_test(tc, test_check_etag);
    tcase_add_test(tc, test_check_etag_follows_the_cap);
    tcase_add_loop_test(tc, test_check_post, 0, (int)(sizeof posts / sizeof posts[0]));
    tcase_add_test(tc, test_check_constructed);
    tcase_add_test(tc, test_metrics_by_method);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 15);
    return failed == 0 && status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
