/* test_accesslog.c - unit tests of the access/event log: fields, escaping, cuts, formats, streams. */
#define _POSIX_C_SOURCE 200809L /* pipe, read */

#include "ops/accesslog.h"
#include "check_json.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"

/* A log writing into two pipes, and what came out of them. */
typedef struct capture {
    int out[2];
    int err[2];
    nq_accesslog *log;
    char text[65536]; /* what drain last read */
} capture;

static void capture_open_at(capture *c, nq_log_format fmt, nq_log_level min)
{
    ck_assert_int_eq(pipe(c->out), 0);
    ck_assert_int_eq(pipe(c->err), 0);
    ck_assert_int_eq(fcntl(c->out[0], F_SETFL, O_NONBLOCK), 0);
    ck_assert_int_eq(fcntl(c->err[0], F_SETFL, O_NONBLOCK), 0);
    ck_assert_int_eq(nq_accesslog_create(c->out[1], c->err[1], fmt, min, &c->log), NQ_OK);
}

static void capture_open(capture *c, nq_log_format fmt)
{
    capture_open_at(c, fmt, NQ_LOG_INFO);
}

/* Everything written to fd (one of c's pipes) so far, NUL-terminated, in c->text. */
static const char *drain(capture *c, int fd)
{
    const ssize_t n = read(fd, c->text, sizeof c->text - 1);
    c->text[n > 0 ? n : 0] = '\0';
    return c->text;
}

static void capture_close(capture *c)
{
    nq_accesslog_destroy(c->log);
    for (int i = 0; i < 2; i++) {
        close(c->out[i]);
        close(c->err[i]);
    }
}

static cJSON *parse_line(const char *text)
{
    const size_t len = strlen(text);
    ck_assert_uint_gt(len, 0);
    ck_assert_int_eq(text[len - 1], '\n');
    ck_assert_ptr_eq(strchr(text, '\n'), text + len - 1); /* exactly one line */
    cJSON *j = cJSON_ParseWithLength(text, len);
    ck_assert_ptr_nonnull(j);
    return j;
}

/* RFC 3339 UTC with milliseconds: 2026-11-30T11:40:00.123Z (checks the first 24 characters of t) */
static void assert_time(const char *t)
{
    ck_assert_uint_ge(strlen(t), 24);
    static const char pattern[] = "dddd-dd-ddTdd:dd:dd.dddZ";
    for (size_t i = 0; i < 24; i++) {
        if (pattern[i] == 'd')
            ck_assert_msg(t[i] >= '0' && t[i] <= '9', "time %s", t);
        else
            ck_assert_int_eq(t[i], pattern[i]);
    }
}

START_TEST(request_line_has_every_field)
{
    capture c;
    capture_open(&c, NQ_LOG_JSON);
    const nq_request_record r = {.method = "GET",
                                 .path = "/count",
                                 .query = "n=8",
                                 .route = "count",
                                 .request_id = "abc-123",
                                 .remote_addr = "127.0.0.1",
                                 .status = 200,
                                 .bytes = 31,
                                 .duration_s = 0.0042,
                                 .solver_s = 0.004,
                                 .cache = NQ_CACHE_MISS,
                                 .completed = true};
    nq_accesslog_request(c.log, &r);
    cJSON *j = parse_line(drain(&c, c.out[0]));
    assert_time(nq_check_json_str(j, "time"));
    ck_assert_uint_eq(strlen(nq_check_json_str(j, "time")), 24);
    ck_assert_str_eq(nq_check_json_str(j, "level"), "info");
    ck_assert_str_eq(nq_check_json_str(j, "msg"), "request");
    ck_assert_str_eq(nq_check_json_str(j, "method"), "GET");
    ck_assert_str_eq(nq_check_json_str(j, "path"), "/count");
    ck_assert_str_eq(nq_check_json_str(j, "query"), "n=8");
    ck_assert_str_eq(nq_check_json_str(j, "route"), "count");
    ck_assert_str_eq(nq_check_json_str(j, "request_id"), "abc-123");
    ck_assert_str_eq(nq_check_json_str(j, "remote_addr"), "127.0.0.1");
    ck_assert_str_eq(nq_check_json_str(j, "cache"), "miss");
    ck_assert_double_eq(nq_check_json_num(j, "status"), 200);
    ck_assert_double_eq(nq_check_json_num(j, "bytes"), 31);
    ck_assert_double_eq_tol(nq_check_json_num(j, "duration_ms"), 4.2, 1e-9);
    ck_assert_double_eq_tol(nq_check_json_num(j, "solver_ms"), 4.0, 1e-9);
    ck_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "completed")));
    cJSON_Delete(j);
    ck_assert_str_eq(drain(&c, c.err[0]), "");
    capture_close(&c);
}
END_TEST

START_TEST(absent_values_are_null)
{
    capture c;
    capture_open(&c, NQ_LOG_JSON);
    const nq_request_record r = {.status = 0, .cache = NQ_CACHE_NONE};
    nq_accesslog_request(c.log, &r);
    cJSON *j = parse_line(drain(&c, c.out[0]));
    static const char *const nulls[] = {"method", "path", "query", "route", "request_id", "remote_addr", "cache"};
    for (size_t i = 0; i < sizeof nulls / sizeof nulls[0]; i++)
        ck_assert_msg(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, nulls[i])), "%s", nulls[i]);
    ck_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j, "completed")));
    cJSON_Delete(j);
    capture_close(&c);
}
END_TEST

/* Hostile input in a path: what the JSON decodes to. */
static const struct escape_row {
    const char *in;
    const char *decoded;
} escape_rows[] = {
    {"/plain", "/plain"},
    {"/a\"b\\c", "/a\"b\\c"},
    {"/line\nbreak\r\t", "/line\nbreak\r\t"},
    {"/\x01\x1f\x7f", "/\x01\x1f\x7f"},
    {"/caf\xc3\xa9", "/caf\xc3\xa9"}, /* valid UTF-8 kept */
    {"/\xe2\x82\xac\xf0\x9f\x98\x80", "/\xe2\x82\xac\xf0\x9f\x98\x80"},
    {"/\xff", "/\xef\xbf\xbd"},                                                 /* invalid byte -> U+FFFD */
    {"/\xc3", "/\xef\xbf\xbd"},                                                 /* truncated sequence */
    {"/\xc0\xaf", "/\xef\xbf\xbd\xef\xbf\xbd"},                                 /* overlong '/' */
    {"/\xed\xa0\x80", "/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},                 /* surrogate */
    {"/\xf4\x90\x80\x80", "/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* > U+10FFFF */
};

START_TEST(strings_are_escaped)
{
    const struct escape_row *row = &escape_rows[_i];
    capture c;
    capture_open(&c, NQ_LOG_JSON);
    const nq_request_record r = {.method = "GET", .path = row->in, .status = 200};
    nq_accesslog_request(c.log, &r);
    cJSON *j = parse_line(drain(&c, c.out[0]));
    ck_assert_str_eq(nq_check_json_str(j, "path"), row->decoded);
    cJSON_Delete(j);
    capture_close(&c);
}
END_TEST

/* Huge strings are cut with "...": a huge path and query (what a client controls) leave the other
 * fields in; even with every string huge the line stays one valid JSON object under the size cap. */
START_TEST(long_strings_are_cut)
{
    char *big = malloc(20000);
    ck_assert_ptr_nonnull(big);
    memset(big, '"', 19999); /* each one escapes to two bytes */
    big[19999] = '\0';
    capture c;
    capture_open(&c, NQ_LOG_JSON);
    const nq_request_record r = {.method = "GET", .path = big, .query = big, .request_id = "id-1", .status = 414};
    nq_accesslog_request(c.log, &r);
    cJSON *j = parse_line(drain(&c, c.out[0]));
    const char *path = nq_check_json_str(j, "path");
    ck_assert_uint_eq(strlen(path), 500 + 3); /* 1000 bytes of escapes, then "..." */
    ck_assert_str_eq(path + 500, "...");
    ck_assert_uint_eq(strlen(nq_check_json_str(j, "query")), 503);
    ck_assert_double_eq(nq_check_json_num(j, "status"), 414);
    ck_assert_str_eq(nq_check_json_str(j, "request_id"), "id-1");
    cJSON_Delete(j);

    /* The same with plain characters, copied in runs: a run longer than the line's room left is cut
     * at the field's cap all the same, and the fields after it stay. */
    char *plain = malloc(5001);
    ck_assert_ptr_nonnull(plain);
    memset(plain, 'b', 5000);
    plain[5000] = '\0';
    const nq_request_record p = {.method = "GET",
                                 .path = plain,
                                 .query = plain,
                                 .request_id = "id-2",
                                 .remote_addr = "192.0.2.1",
                                 .status = 404};
    nq_accesslog_request(c.log, &p);
    j = parse_line(drain(&c, c.out[0]));
    ck_assert_uint_eq(strlen(nq_check_json_str(j, "path")), 1000 + 3);
    ck_assert_uint_eq(strlen(nq_check_json_str(j, "query")), 1000 + 3);
    ck_assert_double_eq(nq_check_json_num(j, "status"), 404);
    ck_assert_str_eq(nq_check_json_str(j, "request_id"), "id-2");
    ck_assert_str_eq(nq_check_json_str(j, "remote_addr"), "192.0.2.1");
    cJSON_Delete(j);
    free(plain);

    const nq_request_record all = {
        .method = big, .path = big, .query = big, .request_id = big, .remote_addr = big, .route = big, .status = 414};
    nq_accesslog_request(c.log, &all);
    const char *line = drain(&c, c.out[0]);
    ck_assert_uint_le(strlen(line), NQ_LOG_LINE_MAX);
    j = parse_line(line);
    ck_assert_str_eq(nq_check_json_str(j, "msg"), "request");
    cJSON_Delete(j);
    capture_close(&c);
    free(big);
}
END_TEST

START_TEST(events_go_to_the_right_stream)
{
    capture c;
    capture_open(&c, NQ_LOG_JSON);
    const nq_log_field f[] = {NQ_LOG_STR("addr", "0.0.0.0"), NQ_LOG_INT("port", 8080), NQ_LOG_REAL("grace_s", 2.5),
                              NQ_LOG_STR("none", NULL)};
    nq_accesslog_event(c.log, NQ_LOG_INFO, "listening", f, 4);
    cJSON *j = parse_line(drain(&c, c.out[0]));
    ck_assert_str_eq(nq_check_json_str(j, "msg"), "listening");
    ck_assert_str_eq(nq_check_json_str(j, "addr"), "0.0.0.0");
    ck_assert_double_eq(nq_check_json_num(j, "port"), 8080);
    ck_assert_double_eq(nq_check_json_num(j, "grace_s"), 2.5);
    ck_assert(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "none")));
    cJSON_Delete(j);
    ck_assert_str_eq(drain(&c, c.err[0]), "");

    nq_accesslog_event(c.log, NQ_LOG_ERROR, "bind failed", NULL, 0);
    ck_assert_str_eq(drain(&c, c.out[0]), "");
    j = parse_line(drain(&c, c.err[0]));
    ck_assert_str_eq(nq_check_json_str(j, "level"), "error");
    ck_assert_str_eq(nq_check_json_str(j, "msg"), "bind failed");
    cJSON_Delete(j);

    nq_accesslog_event(c.log, NQ_LOG_WARN, "slow", NULL, 0);
    j = parse_line(drain(&c, c.err[0]));
    ck_assert_str_eq(nq_check_json_str(j, "level"), "warn");
    cJSON_Delete(j);
    capture_close(&c);
}
END_TEST

/* The default level drops debug lines; debug writes them to out; warn drops info and requests. */
START_TEST(levels_filter_lines)
{
    const nq_request_record r = {.method = "GET", .path = "/healthz", .status = 200};
    const nq_log_field f[] = {NQ_LOG_INT("n", 19), NQ_LOG_REAL("progress", 0.25)};
    capture c;
    capture_open(&c, NQ_LOG_JSON);
    nq_accesslog_event(c.log, NQ_LOG_DEBUG, "checkpoint written", f, 2);
    ck_assert_str_eq(drain(&c, c.out[0]), "");
    ck_assert_str_eq(drain(&c, c.err[0]), "");
    capture_close(&c);

    capture_open_at(&c, NQ_LOG_JSON, NQ_LOG_DEBUG);
    nq_accesslog_event(c.log, NQ_LOG_DEBUG, "checkpoint written", f, 2);
    cJSON *j = parse_line(drain(&c, c.out[0]));
    ck_assert_str_eq(nq_check_json_str(j, "level"), "debug");
    ck_assert_str_eq(nq_check_json_str(j, "msg"), "checkpoint written");
    ck_assert_double_eq(nq_check_json_num(j, "n"), 19);
    ck_assert_double_eq(nq_check_json_num(j, "progress"), 0.25);
    cJSON_Delete(j);
    ck_assert_str_eq(drain(&c, c.err[0]), "");
    capture_close(&c);

    capture_open_at(&c, NQ_LOG_JSON, NQ_LOG_WARN);
    nq_accesslog_event(c.log, NQ_LOG_INFO, "listening", NULL, 0);
    nq_accesslog_request(c.log, &r);
    ck_assert_str_eq(drain(&c, c.out[0]), "");
    nq_accesslog_event(c.log, NQ_LOG_WARN, "slow", NULL, 0);
    j = parse_line(drain(&c, c.err[0]));
    ck_assert_str_eq(nq_check_json_str(j, "level"), "warn");
    cJSON_Delete(j);
    capture_close(&c);
}
END_TEST

START_TEST(text_format)
{
    capture c;
    capture_open(&c, NQ_LOG_TEXT);
    const nq_request_record r = {.method = "GET",
                                 .path = "/solve",
                                 .query = "n=4&format=columns",
                                 .route = "solve",
                                 .request_id = "r1",
                                 .status = 200,
                                 .bytes = 5,
                                 .duration_s = 0.001,
                                 .cache = NQ_CACHE_HIT,
                                 .completed = true};
    nq_accesslog_request(c.log, &r);
    const char *line = drain(&c, c.out[0]);
    ck_assert_str_eq(line + 30, /* after "time=2026-11-30T11:40:00.123Z " */
                     "level=info msg=request method=GET path=/solve query=\"n=4&format=columns\" status=200 "
                     "bytes=5 duration_ms=1.000 cache=hit request_id=r1 route=solve solver_ms=0.000 "
                     "remote_addr=null completed=true\n");
    ck_assert_int_eq(strncmp(line, "time=", 5), 0);
    assert_time(line + 5);
    capture_close(&c);
}
END_TEST

START_TEST(bad_arguments)
{
    nq_accesslog *l = NULL;
    ck_assert_int_eq(nq_accesslog_create(1, 2, NQ_LOG_JSON, NQ_LOG_INFO, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_accesslog_create(-1, 2, NQ_LOG_JSON, NQ_LOG_INFO, &l), NQ_E_ARG);
    ck_assert_int_eq(nq_accesslog_create(1, 2, (nq_log_format)9, NQ_LOG_INFO, &l), NQ_E_ARG);
    ck_assert_int_eq(nq_accesslog_create(1, 2, NQ_LOG_JSON, (nq_log_level)9, &l), NQ_E_ARG);
    ck_assert_ptr_null(l);
    nq_accesslog_request(NULL, NULL);
    nq_accesslog_event(NULL, NQ_LOG_INFO, "x", NULL, 0);
    nq_accesslog_destroy(NULL);
}
END_TEST

static Suite *accesslog_suite(void)
{
    Suite *s = suite_create("accesslog");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, request_line_has_every_field);
    tcase_add_test(tc, absent_values_are_null);
    tcase_add_loop_test(tc, strings_are_escaped, 0, (int)(sizeof escape_rows / sizeof escape_rows[0]));
    tcase_add_test(tc, long_strings_are_cut);
    tcase_add_test(tc, events_go_to_the_right_stream);
    tcase_add_test(tc, levels_filter_lines);
    tcase_add_test(tc, text_format);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(accesslog_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
