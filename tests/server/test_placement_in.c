/* test_placement_in.c - placements read from JSON bodies (src/server/app/placement_in.h), table-driven:
 * every accepted shape gives the exact queen list, every malformed one its error, param and a detail. */
#include "routes/placement_in.h"
#include "nqueens/placement_json.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

typedef struct good_row {
    const char *body;   /* the JSON body */
    const char *queens; /* the canonical queens form of what it describes */
} good_row;

static const good_row good[] = {
    {"{\"n\":4,\"columns\":[1,3,0,2]}", "0:1,1:3,2:0,3:2"},
    {"{\"n\":4,\"columns\":[1,null,3,null]}", "0:1,2:3"},
    {"{\"columns\":[null,null,null,null],\"n\":4}", ""},
    {"{\"n\":8,\"queens\":[[1,4],[0,0]]}", "0:0,1:4"},
    {"{\"n\":8,\"queens\":[]}", ""},
    {" {\"n\":5,\"queens\":[[1,0],[1,4]]} \n", "1:0,1:4"},
    {"{\"n\":4.0,\"columns\":[1e0,3,0,2]}", "0:1,1:3,2:0,3:2"}, /* integral numbers, however written */
    {"{\"n\":40E-1,\"columns\":[0.1e+1,3,-0,2.0]}", "0:1,1:3,2:0,3:2"},
    {"{\"\\u006e\":4,\"q\\u0075eens\":[[0,1]]}", "0:1"}, /* escaped names: "n", "queens" */
};

START_TEST(test_good)
{
    const good_row *row = &good[_i];
    nq_placement *p = NULL;
    nq_placement_in_error e;
    ck_assert_int_eq(nq_placement_from_json(row->body, strlen(row->body), 1000, &p, &e), NQ_OK);
    char text[256];
    ck_assert_int_eq(nq_placement_render_queens(p, text, sizeof text, NULL), NQ_OK);
    ck_assert_str_eq(text, row->queens);
    nq_placement_destroy(p);
}
END_TEST

typedef struct bad_row {
    const char *body;  /* the JSON body */
    nq_err err;        /* the error it gets */
    const char *param; /* the member named, or NULL */
} bad_row;

static const bad_row bad[] = {
    {"", NQ_E_BAD_REQUEST, NULL},
    {"{", NQ_E_BAD_REQUEST, NULL},
    {"[1,2]", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":4,\"columns\":[1,3,0,2]} {}", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":4,\"columns\":[1,3,0,2],\"x\":1}", NQ_E_BAD_REQUEST, NULL},
    {"{\"n\":4,"
     "\"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"
     "\u00e9\u00e9\u00e9x\":1}",
     NQ_E_BAD_REQUEST, NULL}, /* a name echoed as printable ASCII only, never cut inside a character */
    {"{\"n\":4,\"n\":4,\"columns\":[1,3,0,2]}", NQ_E_BAD_REQUEST, "n"},
    {"{\"n\":4,\"columns\":[1,3,0,2],\"queens\":[]}", NQ_E_BAD_REQUEST, "queens"},
    {"{\"columns\":[1,3,0,2]}", NQ_E_PARAM_MISSING, "n"},
    {"{\"n\":4}", NQ_E_PARAM_MISSING, "columns"},
    {"{\"n\":0,\"queens\":[]}", NQ_E_PARAM_INVALID, "n"},
    {"{\"n\":-1,\"queens\":[]}", NQ_E_PARAM_INVALID, "n"},
    {"{\"n\":4.5,\"queens\":[]}", NQ_E_PARAM_INVALID, "n"},
    {"{\"n\":\"4\",\"queens\":[]}", NQ_E_PARAM_INVALID, "n"},
    {"{\"n\":1001,\"queens\":[]}", NQ_E_LIMIT, "n"},
    {"{\"n\":1e300,\"queens\":[]}", NQ_E_LIMIT, "n"},            /* whole, and past the bound */
    {"{\"n\":9007199254740992,\"queens\":[]}", NQ_E_LIMIT, "n"}, /* 2^53: as large, not "not an integer" */
    {"{\"n\":4,\"columns\":[1,3,0,1e300]}", NQ_E_PLACEMENT, "columns"},
    {"{\"n\":4,\"columns\":{}}", NQ_E_BAD_REQUEST, "columns"},
    {"{\"n\":4,\"columns\":[1,3,0]}", NQ_E_PLACEMENT, "columns"},
    {"{\"n\":4,\"columns\":[1,3,0,2,1]}", NQ_E_PLACEMENT, "columns"},
    {"{\"n\":4,\"columns\":[1,3,0,4]}", NQ_E_PLACEMENT, "columns"},
    {"{\"n\":4,\"columns\":[1,\"3\",0,2]}", NQ_E_BAD_REQUEST, "columns"},
    {"{\"n\":4,\"columns\":[1,[3],0,2]}", NQ_E_BAD_REQUEST, "columns"},
    {"{\"n\":4,\"columns\":[1,-3,0,2]}", NQ_E_BAD_REQUEST, "columns"},
    {"{\"n\":4,\"queens\":[[0,1],[0,1]]}", NQ_E_PLACEMENT, "queens"},
    {"{\"n\":4,\"queens\":[[4,1]]}", NQ_E_PLACEMENT, "queens"},
    {"{\"n\":4,\"queens\":[[0,1,2]]}", NQ_E_BAD_REQUEST, "queens"},
    {"{\"n\":4,\"queens\":[[0]]}", NQ_E_BAD_REQUEST, "queens"},
    {"{\"n\":4,\"queens\":[0,1]}", NQ_E_BAD_REQUEST, "queens"},
    {"{\"n\":4,\"queens\":[[0.5,1]]}", NQ_E_BAD_REQUEST, "queens"},
    {"{\"n\":4,\"queens\":null}", NQ_E_BAD_REQUEST, "queens"},
};

START_TEST(test_bad)
{
    const bad_row *row = &bad[_i];
    nq_placement *p = NULL;
    nq_placement_in_error e;
    ck_assert_msg(nq_placement_from_json(row->body, strlen(row->body), 1000, &p, &e) == row->err, "%s: %s", row->body,
                  e.detail);
    ck_assert_ptr_null(p);
    if (row->param)
        ck_assert_str_eq(e.param, row->param);
    else
        ck_assert_ptr_null(e.param);
    ck_assert_uint_gt(strlen(e.detail), 10);
    for (const char *c = e.detail; *c; c++) ck_assert_msg(*c >= 0x20 && *c < 0x7f, "%s", e.detail);
    if (row->err == NQ_E_LIMIT) ck_assert_uint_eq(e.limit, 1000);
}
END_TEST

/* Deep nesting is refused before parsing, with a detail that says so and where: up to
 * NQ_PLACEMENT_JSON_DEPTH_MAX levels reach the parser (and get the type error of a pair that is not
 * one), one more is refused for its depth, and so are 100,000 levels (never the stack's problem).
 * Brackets inside strings do not count. */
START_TEST(test_deep_nesting)
{
    static const size_t depths[] = {NQ_PLACEMENT_JSON_DEPTH_MAX - 1, NQ_PLACEMENT_JSON_DEPTH_MAX, 100000};
    for (size_t d = 0; d < sizeof depths / sizeof depths[0]; d++) {
        const size_t depth = depths[d]; /* of the arrays inside the object: the object is one more */
        char *body = malloc(2 * depth + 32);
        ck_assert_ptr_nonnull(body);
        size_t o = (size_t)sprintf(body, "{\"n\":4,\"queens\":");
        const size_t opened = o;
        for (size_t i = 0; i < depth; i++) body[o++] = '[';
        for (size_t i = 0; i < depth; i++) body[o++] = ']';
        body[o++] = '}';
        nq_placement *p = NULL;
        nq_placement_in_error e;
        ck_assert_int_eq(nq_placement_from_json(body, o, 1000, &p, &e), NQ_E_BAD_REQUEST);
        if (depth + 1 > NQ_PLACEMENT_JSON_DEPTH_MAX) {
            char where[32];
            snprintf(where, sizeof where, "at byte %zu", opened + NQ_PLACEMENT_JSON_DEPTH_MAX - 1);
            ck_assert_msg(strstr(e.detail, "Nested deeper than") && strstr(e.detail, where), "%s", e.detail);
        } else {
            ck_assert_str_eq(e.param, "queens");
        }
        free(body);
    }
    static const char strings[] = "{\"n\":4,\"columns\":[1,3,0,2],\"[[[[[[[[[[\":1}";
    nq_placement *p = NULL;
    nq_placement_in_error e;
    ck_assert_int_eq(nq_placement_from_json(strings, sizeof strings - 1, 1000, &p, &e), NQ_E_BAD_REQUEST);
    ck_assert_ptr_nonnull(strstr(e.detail, "Unknown member"));
}
END_TEST

/* What RFC 8259 forbids and cJSON would take is refused by the scan before it, naming the byte:
 * a NUL escaped or raw, or another control character, in a string (cJSON's strings end at a NUL, so
 * "n\u0000x" is read as the member "n"), a control character between tokens (cJSON skips them as
 * whitespace), a bad escape, and numbers with a leading zero or nothing after '-', '.' or 'e'. */
typedef struct not_json_row {
    const char *body; /* the JSON body */
    size_t len;       /* its length: raw NULs inside */
    const char *says; /* in the detail, with the byte */
} not_json_row;

#define ROW(text, says)                  \
    {                                    \
        (text), sizeof(text) - 1, (says) \
    }
static const not_json_row not_json[] = {
    ROW("{\"n\\u0000evil\":4,\"queens\":[]}", "The escape \\u0000 in a string (byte 3)"),
    ROW("{\"n\":4,\"queens\\u0000x\":[[0,0]]}", "The escape \\u0000 in a string (byte 14)"),
    ROW("{\"n\":4,\"columns\\u0000\":[0,null,null,null]}", "The escape \\u0000 in a string (byte 15)"),
    ROW("{\"n\0\":4,\"queens\":[]}", "a control character (byte 3)"),
    ROW("{\"n\n\":4,\"queens\":[]}", "a control character (byte 3)"),
    ROW("\f{\"n\":4,\"queens\":[]}", "a control character (byte 0)"),
    ROW("{\"n\":4,\x01\"queens\":[]}", "a control character (byte 7)"),
    ROW("{\"n\":4\0,\"queens\":[]}", "a control character (byte 6)"),
    ROW("{\"n\\x\":4,\"queens\":[]}", "a bad escape in a string (byte 3)"),
    ROW("{\"n\\u00g0\":4,\"queens\":[]}", "a bad escape in a string (byte 3)"),
    ROW("{\"n\":04,\"queens\":[]}", "Not a JSON number (byte 5)"),
    ROW("{\"n\":4.,\"queens\":[]}", "Not a JSON number (byte 5)"),
    ROW("{\"n\":4,\"queens\":[[0,01]]}", "Not a JSON number (byte 20)"),
    ROW("{\"n\":4,\"queens\":[[0,1e]]}", "Not a JSON number (byte 20)"),
    ROW("{\"n\":4,\"queens\":[[0,-]]}", "Not a JSON number (byte 20)"),
    ROW("{\"n\":4,\"queens\":[[0,1e+]]}", "Not a JSON number (byte 20)"),
    ROW("{\"n\":-04,\"queens\":[]}", "Not a JSON number (byte 5)"),
};
#undef ROW

START_TEST(test_not_json)
{
    const not_json_row *row = &not_json[_i];
    nq_placement *p = NULL;
    nq_placement_in_error e;
    ck_assert_int_eq(nq_placement_from_json(row->body, row->len, 1000, &p, &e), NQ_E_BAD_REQUEST);
    ck_assert_ptr_null(p);
    ck_assert_ptr_null(e.param);
    ck_assert_msg(strstr(e.detail, row->says) != NULL, "%s: %s", row->body, e.detail);
}
END_TEST

/* An empty body, or one of whitespace only, says so. */
START_TEST(test_empty)
{
    static const char *const bodies[] = {"", " \r\n\t "};
    for (size_t i = 0; i < 2; i++) {
        nq_placement *p = NULL;
        nq_placement_in_error e;
        ck_assert_int_eq(nq_placement_from_json(bodies[i], strlen(bodies[i]), 1000, &p, &e), NQ_E_BAD_REQUEST);
        ck_assert_ptr_nonnull(strstr(e.detail, "The body is empty"));
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("placement_in");
    TCase *tc = tcase_create("placement_in");
    tcase_add_loop_test(tc, test_good, 0, (int)(sizeof good / sizeof good[0]));
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_loop_test(tc, test_not_json, 0, (int)(sizeof not_json / sizeof not_json[0]));
    tcase_add_test(tc, test_deep_nesting);
    tcase_add_test(tc, test_empty);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
