/* test_puzzle.c - /puzzle and /puzzle/solve against the real nqueensd: exact bodies for fixed seeds
 * and dates (GET and POST), the headers of the contract, one ETag and a 304 per request whatever its
 * spelling, the permalink of a puzzle whose seed the server chose, every kind of malformed input with
 * its problem (status, type, param, detail), a well-formed puzzle without solution (200, 0), the body
 * cap, methods (405 with Allow) and the node budget (422).
 *
 * The bodies are the generator's (NQ_PUZZLE_GENERATOR "1"): a change to what a seed makes is a change
 * of generator, and these tables say so. */
#define _POSIX_C_SOURCE 200809L /* strdup */
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

#define BODY_CAP 2048 /* the second server's --max-body-bytes */

static const char *const server_args[] = {"--max-n-puzzle-regions", "10", NULL};
/* A server with a small body cap and a node budget too small for most searches. */
static const char *const small_args[] = {"--max-body-bytes", "2048", "--max-puzzle-nodes", "1000", NULL};
static nq_test_server server, small;
static const char *const json[] = {"Content-Type: application/json", NULL};

/* ---- exact answers -------------------------------------------------------------------------------- */

static const struct {
    const char *target;
    const char *body;
} gets[] = {
    {"/puzzle?n=8&seed=42",
     "{\"kind\":\"queens\",\"n\":8,\"difficulty\":\"easy\",\"generator\":\"1\",\"seed\":42,\"regions\":null,\"clues\":["
     "[1,4],[3,5],[7,3]],\"solution\":null,\"grade\":{\"difficulty\":\"easy\",\"deductions\":5,\"hardest_rule\":"
     "\"single-square\",\"trials\":0}}"},
    {"/puzzle?n=8&seed=42&reveal=true",
     "{\"kind\":\"queens\",\"n\":8,\"difficulty\":\"easy\",\"generator\":\"1\",\"seed\":42,\"regions\":null,\"clues\":["
     "[1,4],[3,5],[7,3]],\"solution\":[0,4,7,5,2,6,1,3],\"grade\":{\"difficulty\":\"easy\",\"deductions\":5,\"hardest_"
     "rule\":\"single-square\",\"trials\":0}}"},
    {"/puzzle?kind=regions&n=6&seed=42&reveal=true",
     "{\"kind\":\"regions\",\"n\":6,\"difficulty\":\"easy\",\"generator\":\"1\",\"seed\":42,\"regions\":[\"ABBBBB\","
     "\"ACCCBB\",\"ADCCCC\",\"AAEEEE\",\"AAEEEF\",\"AAFFFF\"],\"clues\":[],\"solution\":[5,3,1,4,0,2],\"grade\":{"
     "\"difficulty\":\"easy\",\"deductions\":6,\"hardest_rule\":\"single-square\",\"trials\":0}}"},
    {"/puzzle?kind=regions&n=8&difficulty=medium&date=2026-12-05",
     "{\"kind\":\"regions\",\"n\":8,\"difficulty\":\"medium\",\"generator\":\"1\",\"date\":\"2026-12-05\",\"seed\":"
     "20261205,\"regions\":[\"AABBBBBB\",\"AAABBBBB\",\"CAAABBBB\",\"CCDDDBBB\",\"CCDDDDDE\",\"FFDFEEEE\",\"FFFFGEEE\","
     "\"FFFFGHHE\"],\"clues\":[],\"solution\":null,\"grade\":{\"difficulty\":\"medium\",\"deductions\":11,\"hardest_"
     "rule\":\"region-in-line\",\"trials\":0}}"},
    {"/puzzle?n=10&difficulty=expert&seed=7",
     "{\"kind\":\"queens\",\"n\":10,\"difficulty\":\"expert\",\"generator\":\"1\",\"seed\":7,\"regions\":null,"
     "\"clues\":[[0,2],[4,0],[6,6]],\"solution\":null,\"grade\":{\"difficulty\":\"expert\",\"deductions\":16,\"hardest_"
     "rule\":\"trial\",\"trials\":4}}"},
    {"/puzzle?kind=queens&n=12&difficulty=hard&seed=9007199254740991",
     "{\"kind\":\"queens\",\"n\":12,\"difficulty\":\"hard\",\"generator\":\"1\",\"seed\":9007199254740991,\"regions\":"
     "null,\"clues\":[[0,3],[2,0],[4,8],[5,11],[8,5]],\"solution\":null,\"grade\":{\"difficulty\":\"hard\","
     "\"deductions\":8,\"hardest_rule\":\"no-room\",\"trials\":0}}"},
    {"/puzzle/solve?n=8&seed=42",
     "{\"kind\":\"queens\",\"n\":8,\"generator\":\"1\",\"solutions\":1,\"unique\":true,\"solution\":null,\"hint\":{"
     "\"op\":\"place\",\"square\":[4,2],\"rule\":\"single-square\",\"why\":\"Row 5 has one square left where a queen "
     "attacks "
     "nothing.\",\"because\":[[1,4],[3,5],[7,3]]},\"mistakes\":{\"queens\":[],\"marks\":[]},\"grade\":{\"difficulty\":"
     "\"easy\",\"deductions\":5,\"hardest_rule\":\"single-square\",\"trials\":0}}"},
    {"/puzzle/solve?n=8&seed=42&queens=4:2&marks=0:0,0:1&reveal=true&limit=3",
     "{\"kind\":\"queens\",\"n\":8,\"generator\":\"1\",\"solutions\":1,\"unique\":true,\"solution\":[0,4,7,5,2,6,1,3],"
     "\"hint\":{\"op\":\"place\",\"square\":[5,6],\"rule\":\"single-square\",\"why\":\"Row 6 has one square left where "
     "a queen attacks "
     "nothing.\",\"because\":[[1,4],[3,5],[4,2]]},\"mistakes\":{\"queens\":[],\"marks\":[[0,0]]},\"grade\":{"
     "\"difficulty\":\"easy\",\"deductions\":5,\"hardest_rule\":\"single-square\",\"trials\":0}}"},
    {"/puzzle/solve?kind=regions&n=6&seed=42&queens=0:0",
     "{\"kind\":\"regions\",\"n\":6,\"generator\":\"1\",\"solutions\":0,\"unique\":false,\"solution\":null,\"hint\":{"
     "\"op\":\"place\",\"square\":[2,1],\"rule\":\"single-square\",\"why\":\"Region D has one square left where a "
     "queen attacks "
     "nothing.\",\"because\":[]},\"mistakes\":{\"queens\":[[0,0]],\"marks\":[]},\"grade\":{\"difficulty\":\"easy\","
     "\"deductions\":6,\"hardest_rule\":\"single-square\",\"trials\":0}}"},
    {"/puzzle/solve?kind=regions&n=8&difficulty=medium&date=2026-12-05&reveal=true",
     "{\"kind\":\"regions\",\"n\":8,\"generator\":\"1\",\"solutions\":1,\"unique\":true,\"solution\":[5,2,0,3,7,1,4,6],"
     "\"hint\":{\"op\":\"exclude\",\"square\":[7,0],\"rule\":\"region-in-line\",\"why\":\"Every free square of region "
     "H is in row 8, so region H's queen takes row 8 and no other square of row 8 can hold a "
     "queen.\",\"because\":[[7,5],[7,6]]},\"mistakes\":{\"queens\":[],\"marks\":[]},\"grade\":{\"difficulty\":"
     "\"medium\",\"deductions\":11,\"hardest_rule\":\"region-in-line\",\"trials\":0}}"},
};

/* A GET's exact body, with the headers of every result. */
START_TEST(get_exact)
{
    nq_http_response r;
    ck_assert(nq_http_get(&server, gets[_i].target, &r));
    ck_assert_msg(r.status == 200, "%s: %ld %s", gets[_i].target, r.status, r.body);
    ck_assert_str_eq(r.body, gets[_i].body);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "public, max-age=31536000, immutable");
    ck_assert_str_eq(nq_http_header_get(&r, "Vary"), "Accept, Accept-Encoding");
    ck_assert_ptr_nonnull(nq_http_header_get(&r, "ETag"));
    ck_assert_ptr_null(nq_http_header_get(&r, "Content-Location"));
    nq_http_response_free(&r);
}
END_TEST

static const struct {
    const char *body;
    const char *answer;
} posts[] = {
    {"{\"kind\":\"regions\",\"n\":6,\"regions\":[\"AAAABB\",\"CACCBB\",\"CCCDBB\",\"CCCCBB\",\"CCCCCE\",\"CCFEEE\"],"
     "\"reveal\":true}",
     "{\"kind\":\"regions\",\"n\":6,\"generator\":\"1\",\"solutions\":1,\"unique\":true,\"solution\":[4,1,3,0,5,2],"
     "\"hint\":{\"op\":\"place\",\"square\":[2,3],\"rule\":\"single-square\",\"why\":\"Region D has one square left "
     "where a queen attacks "
     "nothing.\",\"because\":[]},\"mistakes\":{\"queens\":[],\"marks\":[]},\"grade\":{\"difficulty\":\"easy\","
     "\"deductions\":6,\"hardest_rule\":\"single-square\",\"trials\":0}}"},
    {"{\"kind\":\"regions\",\"n\":5,\"regions\":[\"AAAAA\",\"BBBBB\",\"CCCCC\",\"DDDDD\",\"EEEEE\"],\"limit\":10}",
     "{\"kind\":\"regions\",\"n\":5,\"generator\":\"1\",\"solutions\":10,\"unique\":false,\"solution\":null,\"hint\":"
     "null,\"mistakes\":{\"queens\":[],\"marks\":[]},\"grade\":null}"},
    {"{\"kind\":\"queens\",\"n\":8,\"clues\":[[7,3],[1,4],[3,5]],\"queens\":[[4,2]],\"marks\":[[0,0]]}",
     "{\"kind\":\"queens\",\"n\":8,\"generator\":\"1\",\"solutions\":1,\"unique\":true,\"solution\":null,\"hint\":{"
     "\"op\":\"place\",\"square\":[5,6],\"rule\":\"single-square\",\"why\":\"Row 6 has one square left where a queen "
     "attacks "
     "nothing.\",\"because\":[[1,4],[3,5],[4,2]]},\"mistakes\":{\"queens\":[],\"marks\":[[0,0]]},\"grade\":{"
     "\"difficulty\":\"easy\",\"deductions\":5,\"hardest_rule\":\"single-square\",\"trials\":0}}"},
    {"{\"kind\":\"queens\",\"n\":4,\"clues\":[[0,0]]}",
     "{\"kind\":\"queens\",\"n\":4,\"generator\":\"1\",\"solutions\":0,\"unique\":false,\"solution\":null,\"hint\":"
     "null,\"mistakes\":{\"queens\":[],\"marks\":[]},\"grade\":null}"},
    {"{\"kind\":\"queens\",\"n\":6,\"clues\":[],\"limit\":10,\"reveal\":true}",
     "{\"kind\":\"queens\",\"n\":6,\"generator\":\"1\",\"solutions\":4,\"unique\":false,\"solution\":[1,3,5,0,2,4],"
     "\"hint\":{\"op\":\"exclude\",\"square\":[0,0],\"rule\":\"search\",\"why\":\"Trying every way to finish the board "
     "shows that row 1, column 1 cannot hold a queen; no shorter argument was "
     "found.\",\"because\":[]},\"mistakes\":{\"queens\":[],\"marks\":[]},\"grade\":null}"},
};

START_TEST(post_exact)
{
    nq_http_response r;
    ck_assert(nq_http_send(&server, "POST", "/puzzle/solve", json, posts[_i].body, strlen(posts[_i].body), &r));
    ck_assert_msg(r.status == 200, "%s: %ld %s", posts[_i].body, r.status, r.body);
    ck_assert_str_eq(r.body, posts[_i].answer);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
    ck_assert_ptr_nonnull(nq_http_header_get(&r, "ETag"));
    nq_http_response_free(&r);
}
END_TEST

/* ---- one answer per request, whatever its spelling and method ------------------------------------- */

/* Spellings of one request: each pair must answer the same bytes with the same ETag. */
static const struct {
    const char *a_target, *a_body; /* a_body NULL: GET a_target */
    const char *b_target, *b_body;
} same[] = {
    {"/puzzle?n=8&seed=42", NULL, "/puzzle?seed=42&difficulty=easy&kind=queens&n=8&reveal=false&generator=1", NULL},
    {"/puzzle?n=8&date=2026-12-05", NULL, "/puzzle?date=2026-12-05&n=8&difficulty=easy", NULL},
    {"/puzzle/solve?n=8&seed=42&queens=4:2&marks=0:1,0:0", NULL,
     "/puzzle/solve?marks=0:0,0:1&queens=4:2&seed=42&n=8&limit=2", NULL},
    {"/puzzle/solve?n=8&seed=42&queens=4:2", NULL, "/puzzle/solve",
     "{\"n\":8,\"seed\":42,\"queens\":[[4,2]],\"generator\":\"1\",\"difficulty\":\"easy\"}"},
    {"/puzzle/solve",
     "{\"kind\":\"regions\",\"n\":6,\"regions\":[\"AAAABB\",\"CACCBB\",\"CCCDBB\",\"CCCCBB\",\"CCCCCE\",\"CCFEEE\"]}",
     "/puzzle/solve",
     "{\"regions\":[\"xxxx00\",\"yxyy00\",\"yyyz00\",\"yyyy00\",\"yyyyyQ\",\"yy9QQQ\"],\"n\":6,\"kind\":\"regions\","
     "\"clues\":[]}"},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":8,\"clues\":[[1,4],[3,5],[7,3]]}", "/puzzle/solve",
     "{\"kind\":\"queens\",\"n\":8,\"regions\":null,\"clues\":[[7,3],[3,5],[1,4]],\"limit\":2,\"reveal\":false}"},
};

static void fetch(const char *target, const char *body, nq_http_response *r)
{
    if (body)
        ck_assert(nq_http_send(&server, "POST", target, json, body, strlen(body), r));
    else
        ck_assert(nq_http_get(&server, target, r));
    ck_assert_msg(r->status == 200, "%s %s: %ld %s", target, body ? body : "", r->status, r->body);
}

START_TEST(one_answer)
{
    nq_http_response a, b;
    fetch(same[_i].a_target, same[_i].a_body, &a);
    fetch(same[_i].b_target, same[_i].b_body, &b);
    ck_assert_str_eq(a.body, b.body);
    ck_assert_str_eq(nq_http_header_get(&a, "ETag"), nq_http_header_get(&b, "ETag"));
    nq_http_response_free(&a);
    nq_http_response_free(&b);
}
END_TEST

/* If-None-Match with the ETag: a 304 without a body, on both routes; HEAD: the headers alone. */
START_TEST(etag_304)
{
    static const char *const targets[] = {"/puzzle?kind=regions&n=7&seed=3", "/puzzle/solve?kind=regions&n=7&seed=3"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        nq_http_response r;
        ck_assert(nq_http_get(&server, targets[i], &r));
        ck_assert_int_eq(r.status, 200);
        char inm[96];
        snprintf(inm, sizeof inm, "If-None-Match: %s", nq_http_header_get(&r, "ETag"));
        const size_t len = r.body_len;
        nq_http_response_free(&r);
        const char *const h[] = {inm, NULL};
        ck_assert(nq_http_request(&server, "GET", targets[i], h, &r));
        ck_assert_int_eq(r.status, 304);
        ck_assert_uint_eq(r.body_len, 0);
        nq_http_response_free(&r);
        ck_assert(nq_http_request(&server, "HEAD", targets[i], NULL, &r));
        ck_assert_int_eq(r.status, 200);
        ck_assert_uint_eq(r.body_len, 0);
        char want[32];
        snprintf(want, sizeof want, "%zu", len);
        ck_assert_str_eq(nq_http_header_get(&r, "Content-Length"), want);
        nq_http_response_free(&r);
    }
}
END_TEST

/* No seed: the server picks one, says no-store, and names the puzzle in Content-Location, whose
 * answer is the same body, immutable. */
START_TEST(permalink)
{
    static const char *const targets[] = {"/puzzle?n=9", "/puzzle?kind=regions&n=7&difficulty=medium&reveal=true"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        nq_http_response r, again;
        ck_assert(nq_http_get(&server, targets[i], &r));
        ck_assert_int_eq(r.status, 200);
        ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
        const char *link = nq_http_header_get(&r, "Content-Location");
        ck_assert_ptr_nonnull(link);
        ck_assert_msg(strncmp(link, "/puzzle?kind=", 13) == 0 && strstr(link, "&generator=1"), "%s", link);
        cJSON *j = cJSON_Parse(r.body);
        ck_assert_ptr_nonnull(j);
        const double seed = nq_check_json_num(j, "seed");
        ck_assert(seed >= 0 && seed <= 9007199254740991.0);
        char want[48];
        snprintf(want, sizeof want, "&seed=%.0f&", seed);
        ck_assert_msg(strstr(link, want), "%s has no %s", link, want);
        ck_assert(i == 0 ? cJSON_IsNull(cJSON_GetObjectItem(j, "solution"))
                         : cJSON_IsArray(cJSON_GetObjectItem(j, "solution")));
        cJSON_Delete(j);
        ck_assert(nq_http_get(&server, link, &again));
        ck_assert_int_eq(again.status, 200);
        ck_assert_str_eq(again.body, r.body);
        ck_assert_str_eq(nq_http_header_get(&again, "Cache-Control"), "public, max-age=31536000, immutable");
        ck_assert_ptr_null(nq_http_header_get(&again, "Content-Location"));
        nq_http_response_free(&r);
        nq_http_response_free(&again);
    }
}
END_TEST

/* A puzzle /puzzle makes, posted back as a given puzzle: exactly one solution, the revealed one. */
START_TEST(made_is_unique)
{
    nq_http_response r;
    ck_assert(nq_http_get(&server, "/puzzle?kind=regions&n=9&seed=11&reveal=true", &r));
    ck_assert_int_eq(r.status, 200);
    cJSON *made = cJSON_Parse(r.body);
    nq_http_response_free(&r);
    cJSON *body = cJSON_CreateObject();
    cJSON_AddStringToObject(body, "kind", "regions");
    cJSON_AddNumberToObject(body, "n", 9);
    cJSON_AddItemToObject(body, "regions", cJSON_Duplicate(cJSON_GetObjectItem(made, "regions"), 1));
    cJSON_AddBoolToObject(body, "reveal", 1);
    cJSON_AddNumberToObject(body, "limit", 1000);
    char *text = cJSON_PrintUnformatted(body);
    ck_assert(nq_http_send(&server, "POST", "/puzzle/solve", json, text, strlen(text), &r));
    ck_assert_int_eq(r.status, 200);
    cJSON *solved = cJSON_Parse(r.body);
    ck_assert_int_eq((int)nq_check_json_num(solved, "solutions"), 1);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItem(solved, "unique")));
    char *a = cJSON_PrintUnformatted(cJSON_GetObjectItem(made, "solution"));
    char *b = cJSON_PrintUnformatted(cJSON_GetObjectItem(solved, "solution"));
    ck_assert_str_eq(a, b);
    char *ga = cJSON_PrintUnformatted(cJSON_GetObjectItem(made, "grade"));
    char *gb = cJSON_PrintUnformatted(cJSON_GetObjectItem(solved, "grade"));
    ck_assert_str_eq(ga, gb);
    free(a);
    free(b);
    free(ga);
    free(gb);
    free(text);
    nq_http_response_free(&r);
    cJSON_Delete(body);
    cJSON_Delete(made);
    cJSON_Delete(solved);
}
END_TEST

/* ---- malformed input ------------------------------------------------------------------------------ */

static const struct {
    const char *target;
    const char *body; /* NULL: GET */
    long status;
    const char *slug;
    const char *param;  /* NULL: none */
    const char *detail; /* the whole detail */
} bad[] = {
    {"/puzzle", NULL, 400, "missing-parameter", "n", "Parameter 'n' is required."},
    {"/puzzle?n=3", NULL, 400, "invalid-parameter", "n",
     "Parameter 'n' must be at least 4 for a queens puzzle (at most 32 on this server)."},
    {"/puzzle?kind=regions&n=4", NULL, 400, "invalid-parameter", "n",
     "Parameter 'n' must be at least 5 for a regions puzzle (at most 10 on this server)."},
    {"/puzzle?n=33", NULL, 422, "limit-exceeded", "n",
     "Parameter 'n' of a queens puzzle must be between 4 and 32 on this server."},
    {"/puzzle?kind=regions&n=11", NULL, 422, "limit-exceeded", "n",
     "Parameter 'n' of a regions puzzle must be between 5 and 10 on this server."},
    {"/puzzle?n=8&kind=Queens", NULL, 400, "invalid-parameter", "kind",
     "Parameter 'kind' must be 'queens' or 'regions'."},
    {"/puzzle?n=8&difficulty=easiest", NULL, 400, "invalid-parameter", "difficulty",
     "Parameter 'difficulty' must be 'easy', 'medium', 'hard' or 'expert'."},
    {"/puzzle?n=8&seed=9007199254740992", NULL, 400, "invalid-parameter", "seed",
     "Parameter 'seed' must be an integer from 0 to 9007199254740991 (2^53 - 1)."},
    {"/puzzle?n=8&seed=-1", NULL, 400, "invalid-parameter", "seed",
     "Parameter 'seed' must be an integer written in plain decimal digits, from 0 to 9007199254740991 (2^53 - 1)."},
    {"/puzzle?n=8&date=1999-12-31", NULL, 400, "invalid-parameter", "date",
     "Parameter 'date' must be a day written YYYY-MM-DD, from 2000-01-01 to 9999-12-31."},
    {"/puzzle?n=8&date=2026-02-29", NULL, 400, "invalid-parameter", "date",
     "Parameter 'date' must be a day written YYYY-MM-DD, from 2000-01-01 to 9999-12-31."},
    {"/puzzle?n=8&date=2026-1-05", NULL, 400, "invalid-parameter", "date",
     "Parameter 'date' must be a day written YYYY-MM-DD, from 2000-01-01 to 9999-12-31."},
    {"/puzzle?n=8&seed=1&date=2026-12-05", NULL, 400, "conflicting-parameters", "date",
     "Parameters 'seed' and 'date' exclude each other: a date is the seed of its daily puzzle."},
    {"/puzzle?n=8&reveal=1", NULL, 400, "invalid-parameter", "reveal", "Parameter 'reveal' must be 'true' or 'false'."},
    {"/puzzle?n=8&generator=2", NULL, 422, "puzzle-unavailable", "generator",
     "Parameter 'generator' names a generator this server does not have ('2'): it makes puzzles with generator "
     "'1' only."},
    {"/puzzle?n=8&queens=0:0", NULL, 400, "unknown-parameter", "queens",
     "Unknown parameter 'queens': this resource accepts no parameter of that name (names are case-sensitive)."},
    {"/puzzle?n=4&difficulty=expert&seed=1", NULL, 422, "puzzle-unavailable", NULL,
     "This server offers no expert queens puzzle of n = 4: ask for another size or difficulty (the documentation "
     "lists the combinations offered)."},
    {"/puzzle?n=5&difficulty=medium", NULL, 422, "puzzle-unavailable", NULL,
     "This server offers no medium queens puzzle of n = 5: ask for another size or difficulty (the documentation "
     "lists the combinations offered)."},
    {"/puzzle/solve", "{\"n\":7,\"difficulty\":\"medium\",\"seed\":1}", 422, "puzzle-unavailable", NULL,
     "This server offers no medium queens puzzle of n = 7: ask for another size or difficulty (the documentation "
     "lists the combinations offered)."},
    {"/puzzle/solve?n=8", NULL, 400, "missing-parameter", "seed",
     "Parameter 'seed' or 'date' is required: they name the generated puzzle to solve."},
    {"/puzzle/solve?n=8&seed=42&limit=1", NULL, 400, "invalid-parameter", "limit",
     "Parameter 'limit' must be an integer from 2 (enough to tell a unique puzzle) to 1000."},
    {"/puzzle/solve?n=8&seed=42&limit=1001", NULL, 422, "limit-exceeded", "limit",
     "Parameter 'limit' must be between 2 and 1000 on this server."},
    {"/puzzle/solve?n=8&seed=42&queens=8:0", NULL, 400, "invalid-placement", "queens",
     "Parameter 'queens': entry 0: row 8 is outside 0..7."},
    {"/puzzle/solve?n=8&seed=42&marks=0:0,0:0", NULL, 400, "invalid-placement", "marks",
     "Parameter 'marks': entry 1 gives square 0:0 again (entry 0 gave it first)."},
    {"/puzzle/solve?n=8&seed=42&queens=1:1&marks=1:1", NULL, 400, "invalid-placement", "marks",
     "'marks': entry 0 puts a mark on square 1:1, which holds a queen; a square is a queen or a mark, not both."},
    {"/puzzle/solve?n=8&seed=42&queens=1-1", NULL, 400, "invalid-placement", "queens",
     "Parameter 'queens': entry 0 is not row:column (two plain decimal numbers)."},
    /* bodies */
    {"/puzzle/solve", "{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCDD\"]}", 400,
     "invalid-parameter", "regions", "'regions': the map has 3 rows, not 4."},
    {"/puzzle/solve", "{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AAB\",\"CCDD\",\"CCDD\"]}", 400,
     "invalid-parameter", "regions", "'regions': row 1 has 3 labels, not 4."},
    {"/puzzle/solve", "{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCDD\",\"CCDE\"]}", 400,
     "invalid-parameter", "regions", "'regions': the map has 5 regions, not 4."},
    {"/puzzle/solve", "{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"ABBB\",\"CCDD\",\"CCDA\"]}", 400,
     "invalid-parameter", "regions",
     "'regions': region 'A' is not connected: row 3, column 3 is cut off from its first square."},
    {"/puzzle/solve", "{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CC-D\",\"CCDD\"]}", 400,
     "invalid-parameter", "regions", NULL},
    {"/puzzle/solve", "{\"kind\":\"regions\",\"n\":4,\"regions\":[\"AABB\",\"AABB\",\"CCDD\",4]}", 400, "bad-request",
     "regions", "Member 'regions': entry 3 must be a string of labels."},
    {"/puzzle/solve", "{\"kind\":\"regions\",\"n\":6}", 400, "missing-parameter", "seed",
     "The body names no puzzle: give it ('regions' or 'clues'), or the 'seed' or 'date' of a generated one."},
    {"/puzzle/solve",
     "{\"kind\":\"regions\",\"n\":4,\"clues\":[[0,0]],\"regions\":[\"AABB\",\"AABB\",\"CCDD\",\"CCDD\"]}", 400,
     "bad-request", "clues", "A regions puzzle has no clues: its 'clues' must be [] or absent."},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":8,\"clues\":[[0,0],[2,2]]}", 400, "invalid-parameter", "clues",
     "'clues': clues 0 and 1 share a row, a column or a diagonal."},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":8,\"clues\":[[0,8]]}", 400, "invalid-parameter", "clues", NULL},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":8,\"clues\":[[0,1,2]]}", 400, "bad-request", "clues",
     "Member 'clues': entry 0 must be a pair of integers [row, column]."},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":8,\"clues\":[],\"seed\":1}", 400, "conflicting-parameters", "seed",
     "Member 'seed' names a generated puzzle, but this body gives its puzzle ('regions' or 'clues'): give one or "
     "the other."},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":8,\"clues\":[],\"queens\":[[0,-1]]}", 400, "bad-request", "queens",
     "Member 'queens': entry 0 must be a pair of integers [row, column]."},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":8,\"clues\":[],\"marks\":[[3,9]]}", 400, "invalid-placement", "marks",
     "'marks': entry 0 is off the board (rows and columns are 0 to 7)."},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":33,\"clues\":[]}", 422, "limit-exceeded", "n",
     "Member 'n' must be between 1 and 32 on this server."},
    {"/puzzle/solve", "{\"kind\":\"queens\",\"n\":0,\"clues\":[]}", 400, "invalid-parameter", "n",
     "Member 'n' must be an integer, at least 1."},
    {"/puzzle/solve", "{\"n\":8,\"seed\":1,\"limit\":true}", 400, "invalid-parameter", "limit",
     "Member 'limit' must be an integer from 2 to 1000."},
    {"/puzzle/solve", "{\"n\":8,\"seed\":1,\"reveal\":\"true\"}", 400, "bad-request", "reveal",
     "Member 'reveal' must be true or false."},
    {"/puzzle/solve", "{\"n\":8,\"seed\":1,\"generator\":\"0\"}", 422, "puzzle-unavailable", "generator",
     "Member 'generator' names a generator this server does not have ('0'): it makes puzzles with generator '1' "
     "only."},
    {"/puzzle/solve", "{\"n\":8,\"seed\":1,\"n\":9}", 400, "bad-request", "n",
     "Member 'n' is given twice: give it once."},
    {"/puzzle/solve", "{\"n\":8,\"seed\":1,\"size\":9}", 400, "bad-request", NULL,
     "Unknown member 'size': a puzzle holds kind, n, regions or clues (or difficulty with seed or date), generator, "
     "queens, marks, limit and reveal."},
    {"/puzzle/solve", "{\"n\":8,\"seed\":1.5}", 400, "invalid-parameter", "seed",
     "Member 'seed' must be an integer from 0 to 9007199254740991 (2^53 - 1)."},
    {"/puzzle/solve", "{\"n\":8,\"seed\":01}", 400, "bad-request", NULL,
     "Not a JSON number (byte 14): no leading zero, and a digit after '-', '.' and 'e'."},
    {"/puzzle/solve", "[{\"n\":8}]", 400, "bad-request", NULL,
     "A puzzle is a JSON object: {\"kind\":\"queens\",\"n\":8,\"clues\":[[0,3]]}."},
    {"/puzzle/solve", "{\"n\":8,\"clues\":[[[[0]]]]}", 400, "bad-request", NULL,
     "Nested deeper than 4 levels (at byte 18): a puzzle is an object holding lists of strings or of [row, column] "
     "pairs."},
    {"/puzzle/solve", "{\"n\":8,\"seed\":1} {}", 400, "bad-request", NULL,
     "More than one JSON value: a puzzle is one object."},
    {"/puzzle/solve", "", 400, "bad-request", NULL,
     "The body is empty: a puzzle is one JSON object, {\"kind\":\"queens\",\"n\":8,\"clues\":[...]}."},
    {"/puzzle/solve?n=8", "{\"n\":8,\"seed\":1}", 400, "unknown-parameter", "n",
     "Unknown parameter 'n': this resource accepts no parameter of that name (names are case-sensitive)."},
};

START_TEST(bad_input)
{
    nq_http_response r;
    if (bad[_i].body)
        ck_assert(nq_http_send(&server, "POST", bad[_i].target, json, bad[_i].body, strlen(bad[_i].body), &r));
    else
        ck_assert(nq_http_get(&server, bad[_i].target, &r));
    ck_assert_msg(r.status == bad[_i].status, "%s %s: %ld %s", bad[_i].target, bad[_i].body ? bad[_i].body : "",
                  r.status, r.body);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/problem+json");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    cJSON *j = cJSON_Parse(r.body);
    ck_assert_ptr_nonnull(j);
    char type[64];
    snprintf(type, sizeof type, "/problems/%s", bad[_i].slug);
    ck_assert_str_eq(nq_check_json_str(j, "type"), type);
    const char *q = strchr(bad[_i].target, '?');
    const size_t path_len = q ? (size_t)(q - bad[_i].target) : strlen(bad[_i].target);
    ck_assert_int_eq((int)strlen(nq_check_json_str(j, "instance")), (int)path_len);
    ck_assert(strncmp(nq_check_json_str(j, "instance"), bad[_i].target, path_len) == 0);
    const cJSON *param = cJSON_GetObjectItem(j, "param");
    if (bad[_i].param)
        ck_assert_str_eq(nq_check_json_str(j, "param"), bad[_i].param);
    else
        ck_assert_ptr_null(param);
    if (bad[_i].detail) ck_assert_str_eq(nq_check_json_str(j, "detail"), bad[_i].detail);
    if (bad[_i].status == 422 && strcmp(bad[_i].slug, "limit-exceeded") == 0)
        ck_assert(cJSON_IsNumber(cJSON_GetObjectItem(j, "limit")));
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

/* ---- methods, bodies, budget ---------------------------------------------------------------------- */

START_TEST(methods)
{
    static const struct {
        const char *method, *target, *allow;
    } rows[] = {
        {"PUT", "/puzzle/solve", "GET, HEAD, POST, OPTIONS"},
        {"DELETE", "/puzzle/solve", "GET, HEAD, POST, OPTIONS"},
        {"POST", "/puzzle", "GET, HEAD, OPTIONS"},
        {"PATCH", "/puzzle", "GET, HEAD, OPTIONS"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        nq_http_response r;
        ck_assert(nq_http_send(&server, rows[i].method, rows[i].target, json, "{}", 2, &r));
        ck_assert_int_eq(r.status, 405);
        ck_assert_str_eq(nq_http_header_get(&r, "Allow"), rows[i].allow);
        ck_assert_ptr_nonnull(strstr(r.body, "/problems/method-not-allowed"));
        nq_http_response_free(&r);
    }
    const char *const preflight[] = {"Origin: https://example.com", "Access-Control-Request-Method: POST",
                                     "Access-Control-Request-Headers: content-type", NULL};
    nq_http_response r;
    ck_assert(nq_http_request(&server, "OPTIONS", "/puzzle/solve", preflight, &r));
    ck_assert_int_eq(r.status, 204);
    ck_assert_str_eq(nq_http_header_get(&r, "Access-Control-Allow-Methods"), "GET, HEAD, POST, OPTIONS");
    nq_http_response_free(&r);
}
END_TEST

/* A body of exactly --max-body-bytes is read; one byte more is a 413 with the cap; not JSON, a 415. */
START_TEST(body_limits)
{
    static const char head[] = "{\"n\":8,\"seed\":42}";
    char *body = malloc(BODY_CAP + 2);
    memset(body, ' ', BODY_CAP + 1);
    memcpy(body, head, sizeof head - 1);
    body[BODY_CAP + 1] = '\0';
    nq_http_response r;
    ck_assert(nq_http_send(&small, "POST", "/puzzle/solve", json, body, BODY_CAP, &r));
    ck_assert_msg(r.status == 200, "%ld %s", r.status, r.body);
    ck_assert_ptr_nonnull(strstr(r.body, "\"solutions\":1,\"unique\":true"));
    nq_http_response_free(&r);
    ck_assert(nq_http_send(&small, "POST", "/puzzle/solve", json, body, BODY_CAP + 1, &r));
    ck_assert_int_eq(r.status, 413);
    cJSON *j = cJSON_Parse(r.body);
    ck_assert_str_eq(nq_check_json_str(j, "type"), "/problems/content-too-large");
    ck_assert_int_eq((int)nq_check_json_num(j, "limit"), BODY_CAP);
    cJSON_Delete(j);
    nq_http_response_free(&r);
    const char *const text[] = {"Content-Type: text/plain", NULL};
    ck_assert(nq_http_send(&small, "POST", "/puzzle/solve", text, head, sizeof head - 1, &r));
    ck_assert_int_eq(r.status, 415);
    nq_http_response_free(&r);
    free(body);
}
END_TEST

/* Past --max-puzzle-nodes: no puzzle is made (422 puzzle-unavailable), a search is too costly (422). */
START_TEST(node_budget)
{
    nq_http_response r;
    ck_assert(nq_http_get(&small, "/puzzle?kind=regions&n=15&difficulty=expert&seed=1", &r));
    ck_assert_int_eq(r.status, 422);
    cJSON *j = cJSON_Parse(r.body);
    ck_assert_str_eq(nq_check_json_str(j, "type"), "/problems/puzzle-unavailable");
    ck_assert_str_eq(
        nq_check_json_str(j, "detail"),
        "The generator found no expert regions puzzle of n = 15 from seed 1 within this server's budget of "
        "1000 search nodes: ask for another size or difficulty (the documentation lists those offered).");
    cJSON_Delete(j);
    nq_http_response_free(&r);
    static const char empty[] = "{\"kind\":\"queens\",\"n\":24,\"clues\":[]}";
    ck_assert(nq_http_send(&small, "POST", "/puzzle/solve", json, empty, sizeof empty - 1, &r));
    ck_assert_int_eq(r.status, 422);
    j = cJSON_Parse(r.body);
    ck_assert_str_eq(nq_check_json_str(j, "type"), "/problems/too-costly");
    ck_assert_str_eq(nq_check_json_str(j, "detail"),
                     "Solving this queens puzzle of n = 24 needs a search of more than 1000 nodes, this server's "
                     "budget for one search: give more of the position (queens, marks) or ask about a smaller board.");
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, server_args, NULL)) return EXIT_FAILURE;
    if (!nq_harness_start(&small, small_args, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_puzzle");
    TCase *tc = tcase_create("puzzle");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, get_exact, 0, (int)(sizeof gets / sizeof gets[0]));
    tcase_add_loop_test(tc, post_exact, 0, (int)(sizeof posts / sizeof posts[0]));
    tcase_add_loop_test(tc, one_answer, 0, (int)(sizeof same / sizeof same[0]));
    tcase_add_test(tc, etag_304);
    tcase_add_test(tc, permalink);
    tcase_add_test(tc, made_is_unique);
    tcase_add_loop_test(tc, bad_input, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, methods);
    tcase_add_test(tc, body_limits);
    tcase_add_test(tc, node_budget);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 15);
    const int small_status = nq_harness_stop(&small, SIGTERM, 15);
    return failed == 0 && status == 0 && small_status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
