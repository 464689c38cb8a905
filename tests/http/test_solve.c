/* test_solve.c - /solve and /count results against the real nqueensd: OEIS totals for n = 1..12, the
 * exact n = 4 body, unique=true for n = 8, paging (limit, offset, after, next), NDJSON, a streamed
 * answer too big for the cache. */
#include <check.h>
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_json.h"
#include "check_run.h"
#include "harness.h"

static const char *const server_args[] = {"--max-n-solve", "20", "--max-solutions", "100000", NULL};
static nq_test_server server;

/* OEIS A000170 (all solutions) and A002562 (up to symmetry), n = 1..12 (index 0 unused). */
static const long a000170[] = {0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200};
static const long a002562[] = {0, 1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787};

static cJSON *get_json(const char *target)
{
    nq_http_response r;
    ck_assert(nq_http_get(&server, target, &r));
    ck_assert_msg(r.status == 200, "%s: %ld %s", target, r.status, r.body);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
    cJSON *j = cJSON_ParseWithLength(r.body, r.body_len);
    ck_assert_msg(j != NULL, "%s: not JSON", target);
    nq_http_response_free(&r);
    return j;
}

/* The column of the queen in one row: a board row of n characters with one 'Q', or a number. */
static int row_col(const cJSON *c, int n)
{
    if (cJSON_IsNumber(c)) return (int)c->valuedouble;
    if (!cJSON_IsString(c) || strlen(c->valuestring) != (size_t)n) return -1;
    const char *q = strchr(c->valuestring, 'Q');
    if (!q || strspn(c->valuestring, ".") != (size_t)(q - c->valuestring) || strspn(q + 1, ".") != strlen(q + 1))
        return -1;
    return (int)(q - c->valuestring);
}

/* Whether sol is a solution (n rows, columns 0..n-1, no two queens attacking); its columns in cols.
 * Plain checks in the loop and one assertion per solution: Check reports every assertion to its
 * parent process, which would dominate the run time over thousands of boards. */
static bool valid_solution(const cJSON *sol, int n, int *cols)
{
    if (cJSON_GetArraySize(sol) != n) return false;
    for (int r = 0; r < n; r++) {
        cols[r] = row_col(cJSON_GetArrayItem(sol, r), n);
        if (cols[r] < 0 || cols[r] >= n) return false;
        for (int p = 0; p < r; p++)
            if (cols[p] == cols[r] || abs(cols[p] - cols[r]) == r - p) return false;
    }
    return true;
}

static void to_cols(const cJSON *sol, int n, int *cols)
{
    ck_assert_msg(valid_solution(sol, n, cols), "not a solution of n=%d", n);
}

static int lex_cmp(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Every solution valid, distinct and in increasing lexicographic order; returns how many. */
static int check_solutions(const cJSON *arr, int n)
{
    /* Zeroed: valid_solution stops at the first bad row, leaving the rest of cur unwritten. */
    int prev[32] = {0}, cur[32] = {0}, count = 0;
    bool ok = true;
    ck_assert_int_le(n, 32);
    for (const cJSON *sol = arr ? arr->child : NULL; sol; sol = sol->next) {
        ok = ok && valid_solution(sol, n, cur) && (count == 0 || lex_cmp(prev, cur, n) < 0);
        memcpy(prev, cur, (size_t)n * sizeof cur[0]);
        count++;
    }
    ck_assert_msg(ok, "n=%d: an invalid, repeated or out-of-order solution", n);
    return count;
}

START_TEST(test_totals)
{
    const int n = _i;
    static const char *const formats[] = {"board", "columns"};
    for (int f = 0; f < 2; f++) {
        char target[64];
        snprintf(target, sizeof target, "/solve?n=%d&format=%s", n, formats[f]);
        cJSON *j = get_json(target);
        ck_assert_int_eq((long)nq_check_json_num(j, "n"), n);
        ck_assert_int_eq((long)nq_check_json_num(j, "total"), a000170[n]);
        ck_assert_int_eq(check_solutions(cJSON_GetObjectItemCaseSensitive(j, "solutions"), n), a000170[n]);
        ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "next")));
        cJSON_Delete(j);
    }
    char target[64];
    snprintf(target, sizeof target, "/count?n=%d", n);
    cJSON *j = get_json(target);
    ck_assert_int_eq((long)nq_check_json_num(j, "n"), n);
    ck_assert_int_eq((long)nq_check_json_num(j, "total"), a000170[n]);
    ck_assert_int_eq((long)nq_check_json_num(j, "unique"), a002562[n]);
    cJSON_Delete(j);
}
END_TEST

START_TEST(test_n4_exact)
{
    nq_http_response r;
    ck_assert(nq_http_get(&server, "/solve?n=4", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"n\":4,\"total\":2,\"solutions\":[[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"],"
                             "[\"..Q.\",\"Q...\",\"...Q\",\".Q..\"]],\"next\":null}");
    cJSON *j = cJSON_Parse(r.body);
    const cJSON *sols = cJSON_GetObjectItemCaseSensitive(j, "solutions");
    static const char *const want[2][4] = {{".Q..", "...Q", "Q...", "..Q."}, {"..Q.", "Q...", "...Q", ".Q.."}};
    ck_assert_int_eq(cJSON_GetArraySize(sols), 2);
    for (int s = 0; s < 2; s++)
        for (int row = 0; row < 4; row++)
            ck_assert_str_eq(cJSON_GetArrayItem(cJSON_GetArrayItem(sols, s), row)->valuestring, want[s][row]);
    cJSON_Delete(j);
    nq_http_response_free(&r);
    cJSON *c = get_json("/solve?n=4&format=columns");
    char *text = cJSON_PrintUnformatted(c);
    ck_assert_str_eq(text, "{\"n\":4,\"total\":2,\"solutions\":[[1,3,0,2],[2,0,3,1]],\"next\":null}");
    free(text);
    cJSON_Delete(c);
}
END_TEST

/* The 8 symmetries of a board: the lexicographically smallest image is the class representative. */
static void transform(const int *c, int n, int t, int *out)
{
    for (int r = 0; r < n; r++) {
        int rr = r, cc = c[r];
        if (t & 1) cc = n - 1 - cc; /* mirror */
        if (t & 2) rr = n - 1 - rr; /* flip */
        if (t & 4) {
            const int x = rr;
            rr = cc;
            cc = x;
        } /* transpose */
        out[rr] = cc;
    }
}

START_TEST(test_unique_n8)
{
    cJSON *j = get_json("/solve?n=8&unique=true&format=columns");
    ck_assert_int_eq((long)nq_check_json_num(j, "total"), 12);
    const cJSON *sols = cJSON_GetObjectItemCaseSensitive(j, "solutions");
    ck_assert_int_eq(check_solutions(sols, 8), 12);
    for (const cJSON *sol = sols->child; sol; sol = sol->next) {
        int c[8], img[8];
        to_cols(sol, 8, c);
        for (int t = 1; t < 8; t++) {
            transform(c, 8, t, img);
            ck_assert_int_le(lex_cmp(c, img, 8), 0); /* canonical: no image is smaller */
        }
    }
    /* the first canonical board of n = 8 */
    char *first = cJSON_PrintUnformatted(cJSON_GetArrayItem(sols, 0));
    ck_assert_str_eq(first, "[0,4,7,5,2,6,1,3]");
    free(first);
    cJSON_Delete(j);
}
END_TEST

/* Walk n = 8 in pages of 10 through "next"; the pages concatenated are the full list. */
START_TEST(test_pages_concatenate)
{
    cJSON *full = get_json("/solve?n=8&format=columns");
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(full, "solutions");
    cJSON *joined = cJSON_CreateArray();
    char target[256] = "/solve?n=8&format=columns&limit=10";
    int pages = 0;
    for (;;) {
        cJSON *page = get_json(target);
        ck_assert_int_eq((long)nq_check_json_num(page, "total"), 92);
        const cJSON *sols = cJSON_GetObjectItemCaseSensitive(page, "solutions");
        ck_assert_int_le(cJSON_GetArraySize(sols), 10);
        for (const cJSON *s = sols->child; s; s = s->next) cJSON_AddItemToArray(joined, cJSON_Duplicate(s, true));
        pages++;
        const cJSON *next = cJSON_GetObjectItemCaseSensitive(page, "next");
        if (cJSON_IsNull(next)) {
            cJSON_Delete(page);
            break;
        }
        ck_assert(cJSON_IsString(next));
        ck_assert_int_eq(cJSON_GetArraySize(sols), 10);
        ck_assert_ptr_nonnull(strstr(next->valuestring, "after="));
        ck_assert_ptr_nonnull(strstr(next->valuestring, "limit=10"));
        snprintf(target, sizeof target, "%s", next->valuestring);
        cJSON_Delete(page);
        ck_assert_int_lt(pages, 20);
    }
    ck_assert_int_eq(pages, 10);
    ck_assert(cJSON_Compare(all, joined, true));
    cJSON_Delete(joined);
    cJSON_Delete(full);
}
END_TEST

START_TEST(test_offset_and_after)
{
    cJSON *full = get_json("/solve?n=8&format=columns");
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(full, "solutions");
    /* offset: the last two */
    cJSON *tail = get_json("/solve?n=8&format=columns&offset=90&limit=5");
    const cJSON *ts = cJSON_GetObjectItemCaseSensitive(tail, "solutions");
    ck_assert_int_eq(cJSON_GetArraySize(ts), 2);
    ck_assert(cJSON_Compare(cJSON_GetArrayItem(ts, 0), cJSON_GetArrayItem(all, 90), true));
    ck_assert(cJSON_Compare(cJSON_GetArrayItem(ts, 1), cJSON_GetArrayItem(all, 91), true));
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(tail, "next")));
    cJSON_Delete(tail);
    /* after: the three following solution 10 */
    char target[128] = "/solve?n=8&format=columns&limit=3&after=";
    const cJSON *sol10 = cJSON_GetArrayItem(all, 10);
    for (int i = 0; i < 8; i++)
        snprintf(target + strlen(target), sizeof target - strlen(target), i ? ",%d" : "%d",
                 (int)cJSON_GetArrayItem(sol10, i)->valuedouble);
    cJSON *page = get_json(target);
    const cJSON *ps = cJSON_GetObjectItemCaseSensitive(page, "solutions");
    ck_assert_int_eq(cJSON_GetArraySize(ps), 3);
    for (int i = 0; i < 3; i++)
        ck_assert(cJSON_Compare(cJSON_GetArrayItem(ps, i), cJSON_GetArrayItem(all, 11 + i), true));
    /* after a vector that is not a solution: resumes where it would sort */
    cJSON *gap = get_json("/solve?n=4&format=columns&after=2,0,0,0");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(gap, "solutions")), 1);
    cJSON_Delete(gap);
    cJSON *past = get_json("/solve?n=4&after=3,3,3,3");
    ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(past, "solutions")), 0);
    cJSON_Delete(past);
    cJSON_Delete(page);
    cJSON_Delete(full);
}
END_TEST

START_TEST(test_ndjson)
{
    static const char *const accept[] = {"Accept: application/x-ndjson", NULL};
    nq_http_response r;
    ck_assert(nq_http_request(&server, "GET", "/solve?n=6&format=columns", accept, &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/x-ndjson");
    ck_assert_str_eq(r.body, "[1,3,5,0,2,4]\n[2,5,1,4,0,3]\n[3,0,4,1,5,2]\n[4,2,0,5,3,1]\n");
    nq_http_response_free(&r);
    ck_assert(nq_http_request(&server, "GET", "/solve?n=4&limit=1", accept, &r));
    ck_assert_str_eq(r.body, "[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"]\n");
    ck_assert_str_ne(nq_http_header_get(&r, "ETag"), "");
    nq_http_response_free(&r);
    /* JSON wins when weighted higher, or when only wildcards are given */
    static const char *const prefer_json[] = {"Accept: application/x-ndjson;q=0.5, application/json", NULL};
    ck_assert(nq_http_request(&server, "GET", "/solve?n=4", prefer_json, &r));
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
    nq_http_response_free(&r);
    static const char *const any[] = {"Accept: */*", NULL};
    ck_assert(nq_http_request(&server, "GET", "/solve?n=4", any, &r));
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
    nq_http_response_free(&r);
}
END_TEST

/* n = 13 boards (73712 solutions, about 15 MB) are over the cache's entry bound (64 MiB / 8): the
 * body streams, chunked, with no Content-Length. */
START_TEST(test_streamed)
{
    nq_http_response r;
    ck_assert(nq_http_get(&server, "/solve?n=13", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_null(nq_http_header_get(&r, "Content-Length"));
    cJSON *j = cJSON_ParseWithLength(r.body, r.body_len);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq((long)nq_check_json_num(j, "total"), 73712);
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(j, "solutions");
    ck_assert_int_eq(cJSON_GetArraySize(all), 73712);
    nq_http_response_free(&r);
    /* a streamed page with an offset (the server skips it as a computation, then resumes after the
     * offset-th solution): solutions 20000.. to the end (53712 of them, too many to cache), no next */
    ck_assert(nq_http_get(&server, "/solve?n=13&offset=20000&limit=60000", &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_null(nq_http_header_get(&r, "Content-Length"));
    cJSON *page = cJSON_ParseWithLength(r.body, r.body_len);
    ck_assert_ptr_nonnull(page);
    const cJSON *sols = cJSON_GetObjectItemCaseSensitive(page, "solutions");
    ck_assert_int_eq(cJSON_GetArraySize(sols), 53712);
    const cJSON *want = cJSON_GetArrayItem(all, 20000);
    bool same = true;
    for (const cJSON *s = sols->child; s && want; s = s->next, want = want->next)
        same = same && cJSON_Compare(s, want, true);
    ck_assert(same);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(page, "next")));
    cJSON_Delete(page);
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, server_args, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_solve");
    TCase *tc = tcase_create("solve");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_totals, 1, 13);
    tcase_add_test(tc, test_n4_exact);
    tcase_add_test(tc, test_unique_n8);
    tcase_add_test(tc, test_pages_concatenate);
    tcase_add_test(tc, test_offset_and_after);
    tcase_add_test(tc, test_ndjson);
    tcase_add_test(tc, test_streamed);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 15);
    return failed == 0 && status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
