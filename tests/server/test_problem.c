/* test_problem.c - Check tests of RFC 9457 problem bodies and type descriptions (src/server/app/problem.h). */
#include "base/errors.h"
#include "core/problem.h"
#include "check_json.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

static cJSON *parse(const char *body, size_t len)
{
    cJSON *j = cJSON_ParseWithLength(body, len);
    ck_assert_ptr_nonnull(j);
    return j;
}

START_TEST(test_limit_problem)
{
    const nq_problem p = {NQ_E_LIMIT, "/count", "Parameter 'n' must be at most 20.", "n", 20, 1};
    char *body = NULL;
    size_t len = 0;
    ck_assert_int_eq(nq_problem_render(&p, &body, &len), NQ_OK);
    ck_assert_str_eq(body, "{\"type\":\"/problems/limit-exceeded\",\"title\":\"Beyond this server's limits\","
                           "\"status\":422,\"detail\":\"Parameter 'n' must be at most 20.\","
                           "\"instance\":\"/count\",\"param\":\"n\",\"limit\":20}");
    ck_assert_uint_eq(len, strlen(body));
    free(body);
}
END_TEST

START_TEST(test_minimal_problem)
{
    const nq_problem p = {NQ_E_NOT_FOUND, NULL, NULL, NULL, 0, 0};
    char *body = NULL;
    size_t len = 0;
    ck_assert_int_eq(nq_problem_render(&p, &body, &len), NQ_OK);
    cJSON *j = parse(body, len);
    ck_assert_str_eq(nq_check_json_str(j, "type"), "/problems/not-found");
    ck_assert_str_eq(nq_check_json_str(j, "detail"),
                     "No resource lives at this path. The routes are listed in /openapi.yaml.");
    ck_assert_int_eq((int)nq_check_json_num(j, "status"), 404);
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(j, "instance"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(j, "param"));
    ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(j, "limit"));
    cJSON_Delete(j);
    free(body);
}
END_TEST

/* A problem without a specific detail tells the person what to do: its type's description. */
typedef struct default_detail_row {
    nq_err err;         /* the error */
    const char *needle; /* what its detail must say */
} default_detail_row;

static const default_detail_row default_details[] = {
    {NQ_E_BUSY, "Retry after the number of seconds in 'Retry-After'."},
    {NQ_E_DEADLINE, "its result will be cached"},
    {NQ_E_DRAINING, "another instance will answer"},
    {NQ_E_URI_TOO_LONG, "The request target is longer than this server accepts."},
    {NQ_E_INTERNAL, "X-Request-Id"},
};

START_TEST(test_default_detail)
{
    const nq_problem p = {default_details[_i].err, "/count", NULL, NULL, 0, 0};
    char *body = NULL;
    size_t len = 0;
    ck_assert_int_eq(nq_problem_render(&p, &body, &len), NQ_OK);
    cJSON *j = parse(body, len);
    ck_assert_msg(strstr(nq_check_json_str(j, "detail"), default_details[_i].needle) != NULL, "%s", body);
    ck_assert_str_ne(nq_check_json_str(j, "detail"), nq_check_json_str(j, "title"));
    cJSON_Delete(j);
    free(body);
}
END_TEST

START_TEST(test_hostile_instance)
{
    /* Bytes outside printable ASCII (here invalid UTF-8, a quote stays as cJSON escapes it) are encoded. */
    const nq_problem p = {NQ_E_NOT_FOUND, "/a\xff b\"\n", "x", NULL, 0, 0};
    char *body = NULL;
    size_t len = 0;
    ck_assert_int_eq(nq_problem_render(&p, &body, &len), NQ_OK);
    cJSON *j = parse(body, len);
    ck_assert_str_eq(nq_check_json_str(j, "instance"), "/a%FF%20b\"%0A");
    cJSON_Delete(j);
    free(body);
}
END_TEST

/* Every error of the error table has its type documented, with the status the error is answered with. */
typedef struct err_case {
    nq_err err;
    int status;
    const char *slug;
} err_case;

/* Every code: the library's and the service's own. */
static const nq_err table[] = {
#define LIB_ROW_(name, code, message) NQ_##name,
    NQ_ERR_TABLE(LIB_ROW_)
#undef LIB_ROW_
#define SERVER_ROW_(name, code, problem, message) NQ_##name,
        NQ_SERVER_ERR_TABLE(SERVER_ROW_)
#undef SERVER_ROW_
};

/* The map from codes to problems, a row per kind: library codes (named by the library), the
 * service's own, and a code in neither table. */
typedef struct map_case {
    nq_err err;          /* the code */
    int status;          /* its HTTP status */
    const char *slug;    /* its problem type */
    const char *name;    /* its name in logs */
    const char *message; /* its message */
} map_case;

static const map_case maps[] = {
    {NQ_OK, 200, "ok", "OK", "OK"},
    {NQ_NO_SOLUTION, 200, "ok", "NO_SOLUTION", "No solution exists for this board size"},
    {NQ_E_RANGE, 400, "invalid-parameter", "E_RANGE", "Board size out of range"},
    {NQ_E_OVERFLOW, 400, "invalid-parameter", "E_OVERFLOW", "Number too large"},
    {NQ_E_PARAM_MISSING, 400, "missing-parameter", "E_PARAM_MISSING", "Missing parameter"},
    {NQ_E_LIMIT, 422, "limit-exceeded", "E_LIMIT", "Beyond the caller's limit"},
    {NQ_E_NOMEM, 503, "out-of-memory", "E_NOMEM", "Out of memory"},
    {NQ_E_ARG, 500, "internal-error", "E_ARG", "Invalid argument"},
    {NQ_E_PARAM_DUPLICATE, 400, "duplicate-parameter", "E_PARAM_DUPLICATE", "Duplicate parameter"},
    {NQ_E_BUSY, 503, "overloaded", "E_BUSY", "Service overloaded"},
    {NQ_E_MEDIA_TYPE, 415, "unsupported-media-type", "E_MEDIA_TYPE", "Unsupported media type"},
    {NQ_E_STORE_IO, 500, "internal-error", "E_STORE_IO", "Store cannot be read or written"},
    {NQ_E_PRECONDITION, 412, "precondition-failed", "E_PRECONDITION", "Precondition failed"},
    {999, 500, "internal-error", "E_UNKNOWN", "Unknown error"},
};

START_TEST(test_map)
{
    const map_case *c = &maps[_i];
    ck_assert_int_eq(nq_error_status(c->err), c->status);
    ck_assert_str_eq(nq_error_problem(c->err)->slug, c->slug);
    ck_assert_str_eq(nq_error_name(c->err), c->name);
    ck_assert_str_eq(nq_error_message(c->err), c->message);
}
END_TEST

START_TEST(test_every_type_documented)
{
    const err_case row = {table[_i], nq_error_status(table[_i]), nq_error_problem(table[_i])->slug};
    const err_case *c = &row;
    if (c->status < 400) return; /* NQ_OK and the other answers that are no problem (NQ_NO_SOLUTION) */
    char *body = NULL;
    size_t len = 0;
    ck_assert_msg(nq_problem_doc(c->slug, strlen(c->slug), &body, &len) == NQ_OK, "slug %s", c->slug);
    cJSON *j = parse(body, len);
    char type[64];
    snprintf(type, sizeof type, "%s%s", NQ_PROBLEM_TYPE_BASE, c->slug);
    ck_assert_str_eq(nq_check_json_str(j, "type"), type);
    ck_assert_msg((int)nq_check_json_num(j, "status") == c->status, "slug %s status", c->slug);
    ck_assert_uint_gt(strlen(nq_check_json_str(j, "description")), 20);
    cJSON_Delete(j);
    free(body);
}
END_TEST

START_TEST(test_unknown_slug)
{
    char *body = NULL;
    size_t len = 0;
    ck_assert_int_eq(nq_problem_doc("nope", 4, &body, &len), NQ_E_NOT_FOUND);
    ck_assert_int_eq(nq_problem_doc("not-found-x", 11, &body, &len), NQ_E_NOT_FOUND);
    ck_assert_int_eq(nq_problem_doc("not-found-x", 9, &body, &len), NQ_OK); /* length-delimited */
    free(body);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("problem");
    TCase *tc = tcase_create("problem");
    tcase_add_test(tc, test_limit_problem);
    tcase_add_test(tc, test_minimal_problem);
    tcase_add_test(tc, test_hostile_instance);
    tcase_add_loop_test(tc, test_every_type_documented, 0, (int)(sizeof table / sizeof table[0]));
    tcase_add_loop_test(tc, test_map, 0, (int)(sizeof maps / sizeof maps[0]));
    tcase_add_test(tc, test_unknown_slug);
    tcase_add_loop_test(tc, test_default_detail, 0, (int)(sizeof default_details / sizeof default_details[0]));
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
