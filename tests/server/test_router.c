/* test_router.c - the route table and path normalisation (src/server/app/router.h), table-driven. */
#include "core/route.h"
#include "routes/table.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

typedef struct match_row {
    const char *path;  /* raw request path */
    const char *route; /* name of the route it must reach */
} match_row;

static const match_row matches[] = {
    {"/solve", "solve"},
    {"/count", "count"},
    {"/openapi.yaml", "openapi"},
    {"/healthz", "healthz"},
    {"/problems/param-invalid", "problem_doc"},
    {"/", "page"},
    {"/assets/app.0123456789ab.js", "asset"}, /* any name: the route answers 404 for one it lacks */
    {"/assets/", "asset"},
    {"/%61ssets/x", "asset"},
    {"//", "not_found"},
    {"/index.html", "not_found"},
    {"/assets", "not_found"},
    {"/so%6Cve", "solve"},          /* an escaped unreserved letter is the letter (RFC 3986 6.2.2.2) */
    {"/%73%6f%6C%76%65", "solve"},  /* every letter escaped, hex digits of either case */
    {"/openapi%2Eyaml", "openapi"}, /* '.' is unreserved */
    {"/problems/not%2Dfound", "problem_doc"},
    {"/Solve", "not_found"}, /* case-sensitive */
    {"/solve/", "not_found"},
    {"/solve%2F", "not_found"}, /* a reserved character stays escaped */
    {"%2Fsolve", "not_found"},
    {"/solve%3Fn=4", "not_found"},
    {"/so%6", "not_found"}, /* malformed escapes are kept as they are */
    {"/so%", "not_found"},
    {"/so%00lve", "not_found"},
    {"/so%%6Clve", "not_found"},
    {"", "not_found"},
    {"*", "not_found"},
};

START_TEST(test_match)
{
    const match_row *row = &matches[_i];
    char path[64];
    ck_assert(nq_route_normalize(row->path, path, sizeof path));
    ck_assert_msg(strcmp(nq_route_find(nq_routes, path)->name, row->route) == 0, "%s -> %s, want %s", row->path,
                  nq_route_find(nq_routes, path)->name, row->route);
}
END_TEST

typedef struct norm_row {
    const char *raw;  /* input */
    size_t cap;       /* output buffer size */
    const char *want; /* result, NULL: does not fit */
} norm_row;

static const norm_row norms[] = {
    {"/a%7Eb%5fc", 64, "/a~b_c"},
    {"/a%20b%2fc%C3%A9", 64, "/a%20b%2fc%C3%A9"}, /* space, slash and UTF-8 bytes stay escaped */
    {"/abc", 5, "/abc"},                          /* exactly fits */
    {"/abcd", 5, NULL},
    {"/%61%62%63", 5, "/abc"}, /* the decoded length counts */
    {"", 1, ""},
    {"", 0, NULL},
};

START_TEST(test_normalize)
{
    const norm_row *row = &norms[_i];
    char out[64];
    memset(out, 'x', sizeof out);
    const bool ok = nq_route_normalize(row->raw, out, row->cap);
    if (!row->want) {
        ck_assert(!ok);
        return;
    }
    ck_assert(ok);
    ck_assert_str_eq(out, row->want);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("router");
    TCase *tc = tcase_create("router");
    tcase_add_loop_test(tc, test_match, 0, (int)(sizeof matches / sizeof matches[0]));
    tcase_add_loop_test(tc, test_normalize, 0, (int)(sizeof norms / sizeof norms[0]));
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
