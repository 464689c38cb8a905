/* test_puzzle_in.c - puzzle requests read from queries and JSON bodies (src/server/routes/puzzle_in.h),
 * table-driven: every accepted request gives its exact canonical text (so every spelling of one
 * request is one cache entry), every malformed one its error and param. The HTTP suite
 * (tests/http/test_puzzle.c) holds the details of the problems the server sends. */
#include "routes/puzzle_in.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

static const nq_puzzle_limits limits = {.max_n_queens = 32, .max_n_regions = 16, .max_n_solve = 32, .max_limit = 1000};

/* ---- bodies --------------------------------------------------------------------------------------- */

static const struct {
    const char *body;
    const char *canonical; /* with the position, limit and reveal */
} good_json[] = {
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCDD\",\"CCDD\"]}",
     "kind=regions&n=4&regions=AABB,AABB,CCDD,CCDD&queens=&marks=&limit=2&reveal=false"},
    /* any labels, relabelled in order of first appearance */
    {"{\"n\":4,\"kind\":\"regions\",\"regions\":[\"zz00\",\"zz00\",\"xxQQ\",\"xxQQ\"],\"clues\":[]}",
     "kind=regions&n=4&regions=AABB,AABB,CCDD,CCDD&queens=&marks=&limit=2&reveal=false"},
    {"{\"kind\":\"queens\",\"n\":8,\"clues\":[[7,3],[1,4],[3,5]],\"regions\":null,\"queens\":[[4,2]],"
     "\"marks\":[[0,1],[0,0]],\"limit\":10,\"reveal\":true}",
     "kind=queens&n=8&clues=1:4,3:5,7:3&queens=4:2&marks=0:0,0:1&limit=10&reveal=true"},
    {"{\"n\":8,\"clues\":[]}", "kind=queens&n=8&clues=&queens=&marks=&limit=2&reveal=false"},
    {"{\"n\":8,\"seed\":42}", "kind=queens&n=8&difficulty=easy&seed=42&queens=&marks=&limit=2&reveal=false"},
    {"{\"kind\":\"regions\",\"n\":9,\"difficulty\":\"hard\",\"date\":\"2026-12-05\",\"generator\":\"1\"}",
     "kind=regions&n=9&difficulty=hard&date=2026-12-05&queens=&marks=&limit=2&reveal=false"},
    {"{\"n\":4.0,\"seed\":9007199254740991}",
     "kind=queens&n=4&difficulty=easy&seed=9007199254740991&queens=&marks=&limit=2&reveal=false"},
};

START_TEST(json_good)
{
    nq_puzzle_ask a;
    nq_puzzle_in_error e;
    const char *body = good_json[_i].body;
    ck_assert_msg(nq_puzzle_in_json(body, strlen(body), &limits, &a, &e) == NQ_OK, "%s: %s", body, e.detail);
    char *text = nq_puzzle_in_canonical(&a.spec, &a);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, good_json[_i].canonical);
    free(text);
}
END_TEST

static const struct {
    const char *body;
    nq_err err;
    const char *param; /* NULL: none */
} bad_json[] = {
    {"", NQ_E_BAD_REQUEST, NULL},
    {"[]", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":8,\"seed\":1}x", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":08}", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":8,\"kind\":\"q\\u0000\"}", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":8,\"clues\":[[[[1]]]]}", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":8,\"seed\":1,\"x\":1}", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":8,\"seed\":1,\"seed\":2}", NQ_E_BAD_REQUEST, "seed"},
    {"{\"seed\":1}", NQ_E_PARAM_MISSING, "n"},
    {"{\"n\":8}", NQ_E_PARAM_MISSING, "seed"},
    {"{\"n\":8,\"kind\":8,\"seed\":1}", NQ_E_BAD_REQUEST, "kind"},
    {"{\"n\":8,\"kind\":\"knights\",\"seed\":1}", NQ_E_PARAM_INVALID, "kind"},
    {"{\"n\":8,\"difficulty\":\"easier\",\"seed\":1}", NQ_E_PARAM_INVALID, "difficulty"},
    {"{\"n\":8,\"seed\":9007199254740992}", NQ_E_PARAM_INVALID, "seed"},
    {"{\"n\":1e300,\"seed\":1}", NQ_E_LIMIT, "n"},
    {"{\"n\":8,\"seed\":1,\"limit\":9007199254740993}", NQ_E_LIMIT, "limit"},
    {"{\"n\":8,\"seed\":-1}", NQ_E_PARAM_INVALID, "seed"},
    {"{\"n\":8,\"seed\":1,\"date\":\"2026-12-05\"}", NQ_E_PARAM_CONFLICT, "date"},
    {"{\"n\":8,\"date\":\"2026-13-01\"}", NQ_E_PARAM_INVALID, "date"},
    {"{\"n\":3,\"seed\":1}", NQ_E_PARAM_INVALID, "n"},
    {"{\"n\":33,\"seed\":1}", NQ_E_LIMIT, "n"},
    {"{\"kind\":\"regions\",\"n\":17,\"seed\":1}", NQ_E_LIMIT, "n"},
    {"{\"n\":8,\"seed\":1,\"generator\":\"2\"}", NQ_E_PUZZLE_UNAVAILABLE, "generator"},
    {"{\"n\":7,\"difficulty\":\"medium\",\"seed\":1}", NQ_E_PUZZLE_UNAVAILABLE, NULL},
    {"{\"n\":8,\"seed\":1,\"limit\":1}", NQ_E_PARAM_INVALID, "limit"},
    {"{\"n\":8,\"seed\":1,\"limit\":1001}", NQ_E_LIMIT, "limit"},
    {"{\"n\":8,\"seed\":1,\"reveal\":1}", NQ_E_BAD_REQUEST, "reveal"},
    {"{\"n\":8,\"seed\":1,\"queens\":[[0,8]]}", NQ_E_PLACEMENT, "queens"},
    {"{\"n\":8,\"seed\":1,\"queens\":[[0,1],[0,1]]}", NQ_E_PLACEMENT, "queens"},
    {"{\"n\":8,\"seed\":1,\"queens\":[[0,1]],\"marks\":[[0,1]]}", NQ_E_PLACEMENT, "marks"},
    {"{\"n\":8,\"seed\":1,\"marks\":[0,1]}", NQ_E_BAD_REQUEST, "marks"},
    {"{\"n\":0,\"clues\":[]}", NQ_E_PARAM_INVALID, "n"},
    {"{\"n\":33,\"clues\":[]}", NQ_E_LIMIT, "n"},
    {"{\"n\":8,\"clues\":[],\"difficulty\":\"easy\"}", NQ_E_PARAM_CONFLICT, "difficulty"},
    {"{\"n\":8,\"clues\":[[0,0],[1,1]]}", NQ_E_PUZZLE_INVALID, "clues"},
    {"{\"n\":8,\"clues\":[[0,0],[0,0]]}", NQ_E_PUZZLE_INVALID, "clues"},
    {"{\"n\":8,\"clues\":[[8,0]]}", NQ_E_PUZZLE_INVALID, "clues"},
    {"{\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCDD\",\"CCDD\"]}", NQ_E_BAD_REQUEST, "regions"},
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCDD\"]}", NQ_E_PUZZLE_INVALID, "regions"},
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABBB\",\"CCDD\",\"CCDD\"]}", NQ_E_PUZZLE_INVALID,
     "regions"},
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCDD\",\"CCDE\"]}", NQ_E_PUZZLE_INVALID,
     "regions"},
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCCC\",\"CCCC\"]}", NQ_E_PUZZLE_INVALID,
     "regions"},
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":[\"ABBA\",\"CBBD\",\"CCDD\",\"CCDD\"]}", NQ_E_PUZZLE_INVALID,
     "regions"},
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AA-B\",\"AABB\",\"CCDD\",\"CCDD\"]}", NQ_E_PUZZLE_INVALID,
     "regions"},
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCDD\",\"CCDD\"],\"clues\":[[0,0]]}",
     NQ_E_BAD_REQUEST, "clues"},
    {"{\"kind\":\"regions\",\"n\":4,\"regions\":\"AABB\"}", NQ_E_BAD_REQUEST, "regions"},
};

START_TEST(json_bad)
{
    nq_puzzle_ask a;
    nq_puzzle_in_error e;
    const char *body = bad_json[_i].body;
    const nq_err rc = nq_puzzle_in_json(body, strlen(body), &limits, &a, &e);
    ck_assert_msg(rc == bad_json[_i].err, "%s: %d (%s), not %d", body, rc, e.detail, bad_json[_i].err);
    ck_assert_int_eq(e.err, rc);
    if (bad_json[_i].param)
        ck_assert_str_eq(e.param, bad_json[_i].param);
    else
        ck_assert_ptr_null(e.param);
    ck_assert_msg(e.detail[0] != '\0', "%s: no detail", body);
    ck_assert(e.has_limit == (rc == NQ_E_LIMIT));
}
END_TEST

/* What RFC 8259 forbids and cJSON would take, found by the strict scan before it parses: each
 * fault's words and byte. */
static const struct {
    const char *body;
    const char *detail;
} strict_json[] = {
    {"{\"n\":8,\"kind\":\"q\\u0000\"}", "Not valid JSON: a bad escape, or \\u0000, in a string (byte 16)."},
    {"{\"n\":8,\"kind\":\"q\\x\"}", "Not valid JSON: a bad escape, or \\u0000, in a string (byte 16)."},
    {"{\"n\":8,\"kind\":\"q\t\"}", "Not valid JSON: a control character in a string (byte 16)."},
    {"{\"n\":8,\x01\"seed\":1}", "Not valid JSON: a control character (byte 7)."},
    {"{\"n\":08}", "Not a JSON number (byte 5): no leading zero, and a digit after '-', '.' and 'e'."},
    {"{\"n\":8,\"seed\":1.}", "Not a JSON number (byte 14): no leading zero, and a digit after '-', '.' and 'e'."},
    {"{\"n\":8,\"clues\":[[[[1]]]]}", "Nested deeper than 4 levels (at byte 18): a puzzle is an object holding lists "
                                      "of strings or of [row, column] pairs."},
};

START_TEST(json_strict)
{
    nq_puzzle_ask a;
    nq_puzzle_in_error e;
    const char *body = strict_json[_i].body;
    ck_assert_int_eq(nq_puzzle_in_json(body, strlen(body), &limits, &a, &e), NQ_E_BAD_REQUEST);
    ck_assert_ptr_null(e.param);
    ck_assert_str_eq(e.detail, strict_json[_i].detail);
}
END_TEST

/* ---- queries -------------------------------------------------------------------------------------- */

static const struct {
    const char *query;
    const char *canonical; /* of /puzzle/solve */
} good_query[] = {
    {"n=8&seed=42", "kind=queens&n=8&difficulty=easy&seed=42&queens=&marks=&limit=2&reveal=false"},
    {"reveal=true&limit=3&marks=0:1,0:0&queens=4:2&seed=42&n=8&kind=queens&difficulty=medium&generator=1",
     "kind=queens&n=8&difficulty=medium&seed=42&queens=4:2&marks=0:0,0:1&limit=3&reveal=true"},
    {"kind=regions&n=15&date=2000-01-01&queens=",
     "kind=regions&n=15&difficulty=easy&date=2000-01-01&queens=&marks=&limit=2&reveal=false"},
    {"n=32&difficulty=expert&date=9999-12-31",
     "kind=queens&n=32&difficulty=expert&date=9999-12-31&queens=&marks=&limit=2&reveal=false"},
};

START_TEST(query_good)
{
    const char *raw = good_query[_i].query;
    nq_query q;
    nq_query_error qe;
    ck_assert_msg(nq_query_parse(raw, strlen(raw), NQ_PUZZLE_SOLVE_KEYS, &q, &qe) == NQ_OK, "%s", qe.detail);
    nq_puzzle_ask a;
    nq_puzzle_in_error e;
    ck_assert_msg(nq_puzzle_in_solve_query(&q, &limits, &a, &e) == NQ_OK, "%s: %s", raw, e.detail);
    char *text = nq_puzzle_in_canonical(&a.spec, &a);
    ck_assert_str_eq(text, good_query[_i].canonical);
    free(text);
}
END_TEST

static const struct {
    const char *query;
    bool solve; /* /puzzle/solve, else /puzzle */
    nq_err err;
    const char *param;
} bad_query[] = {
    {"kind=regions", false, NQ_E_PARAM_MISSING, "n"},
    {"n=8", true, NQ_E_PARAM_MISSING, "seed"},
    {"n=4&kind=regions", false, NQ_E_PARAM_INVALID, "n"},
    {"n=17&kind=regions", false, NQ_E_LIMIT, "n"},
    {"n=8&date=2026-02-29", false, NQ_E_PARAM_INVALID, "date"},
    {"n=8&date=2024-02-29&seed=1", false, NQ_E_PARAM_CONFLICT, "date"},
    {"n=8&generator=", false, NQ_E_PUZZLE_UNAVAILABLE, "generator"},
    {"n=5&difficulty=medium", false, NQ_E_PUZZLE_UNAVAILABLE, NULL}, /* not offered (nq_puzzle_offered) */
    {"n=8&seed=1&limit=1", true, NQ_E_PARAM_INVALID, "limit"},
    {"n=8&seed=1&queens=1:1,8:0", true, NQ_E_PLACEMENT, "queens"},
    {"n=8&seed=1&marks=1:%", true, NQ_E_PARAM_INVALID, "marks"},
};

START_TEST(query_bad)
{
    const char *raw = bad_query[_i].query;
    nq_query q;
    nq_query_error qe;
    ck_assert_msg(nq_query_parse(raw, strlen(raw), NQ_PUZZLE_SOLVE_KEYS, &q, &qe) == NQ_OK, "%s", qe.detail);
    nq_puzzle_ask a;
    nq_puzzle_in_error e;
    const nq_err rc = bad_query[_i].solve ? nq_puzzle_in_solve_query(&q, &limits, &a, &e)
                                          : nq_puzzle_in_query(&q, &limits, false, &a.spec, &e);
    ck_assert_msg(rc == bad_query[_i].err, "%s: %d (%s)", raw, rc, e.detail);
    if (bad_query[_i].param)
        ck_assert_str_eq(e.param, bad_query[_i].param);
    else
        ck_assert_ptr_null(e.param);
}
END_TEST

/* The query keys of the puzzle routes: words, booleans and raw squares, each checked strictly. */
START_TEST(query_keys)
{
    static const char raw[] = "kind=regions&difficulty=hard&date=2026-12-05&reveal=true&generator=1&marks=0:1";
    nq_query q;
    nq_query_error qe;
    ck_assert_int_eq(nq_query_parse(raw, sizeof raw - 1, NQ_PUZZLE_SOLVE_KEYS, &q, &qe), NQ_OK);
    ck_assert_str_eq(q.kind, "regions");
    ck_assert_str_eq(q.difficulty, "hard");
    ck_assert_str_eq(q.date, "2026-12-05");
    ck_assert_str_eq(q.generator, "1");
    ck_assert(q.reveal);
    ck_assert_uint_eq(q.marks_len, 3);
    ck_assert(strncmp(q.marks, "0:1", 3) == 0);
    static const char longer[] = "kind=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; /* 33 letters */
    ck_assert_int_eq(nq_query_parse(longer, sizeof longer - 1, NQ_PUZZLE_SOLVE_KEYS, &q, &qe), NQ_E_PARAM_INVALID);
    ck_assert_str_eq(qe.param, "kind");
    ck_assert_int_eq(nq_query_parse("reveal=yes", 10, NQ_PUZZLE_SOLVE_KEYS, &q, &qe), NQ_E_PARAM_INVALID);
    ck_assert_int_eq(nq_query_parse("marks=0:1", 9, NQ_PUZZLE_KEYS, &q, &qe), NQ_E_PARAM_UNKNOWN);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server_puzzle_in");
    TCase *tc = tcase_create("puzzle_in");
    tcase_add_loop_test(tc, json_good, 0, (int)(sizeof good_json / sizeof good_json[0]));
    tcase_add_loop_test(tc, json_bad, 0, (int)(sizeof bad_json / sizeof bad_json[0]));
    tcase_add_loop_test(tc, json_strict, 0, (int)(sizeof strict_json / sizeof strict_json[0]));
    tcase_add_loop_test(tc, query_good, 0, (int)(sizeof good_query / sizeof good_query[0]));
    tcase_add_loop_test(tc, query_bad, 0, (int)(sizeof bad_query / sizeof bad_query[0]));
    tcase_add_test(tc, query_keys);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
