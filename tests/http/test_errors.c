/* test_errors.c - every parameter error, 404 and 405 against the real nqueensd: status, problem type,
 * param, limit, instance and the error headers (application/problem+json, Cache-Control: no-store). */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <check.h>
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_run.h"
#include "harness.h"

/* The limits the server is started with, so the expectations below do not depend on defaults. */
static const char *const server_args[] = {"--max-n-solve", "20", "--max-n-count", "18", "--max-solutions",
                                          "100000",        NULL};
static nq_test_server server;

typedef struct error_row {
    const char *target; /* path and raw query */
    long status;
    const char *slug;  /* problem type after /problems/ */
    const char *param; /* NULL: no param member */
    long limit;        /* -1: no limit member */
} error_row;

static const error_row rows[] = {
    /* missing, unknown, duplicate */
    {"/solve", 400, "missing-parameter", "n", -1},
    {"/solve?format=columns", 400, "missing-parameter", "n", -1},
    {"/count", 400, "missing-parameter", "n", -1},
    {"/solve?N=8", 400, "unknown-parameter", "N", -1},
    {"/solve?n=8&foo=1", 400, "unknown-parameter", "foo", -1},
    {"/count?n=8&limit=1", 400, "unknown-parameter", "limit", -1},
    {"/count?n=8&unique=true", 400, "unknown-parameter", "unique", -1},
    {"/openapi.yaml?v=2", 400, "unknown-parameter", "v", -1},
    {"/solve?n=8&n=8", 400, "duplicate-parameter", "n", -1},
    {"/solve?n=8&N=8&n=9", 400, "unknown-parameter", "N", -1},
    {"/solve?n=8&limit=1&limit=2", 400, "duplicate-parameter", "limit", -1},
    {"/count?n=8&%6E=8", 400, "duplicate-parameter", "n", -1},
    /* integers: plain ASCII digits, no sign, space, 0x, exponent, fraction, overflow */
    {"/solve?n=0", 400, "invalid-parameter", "n", -1},
    {"/solve?n=abc", 400, "invalid-parameter", "n", -1},
    {"/solve?n=", 400, "invalid-parameter", "n", -1},
    {"/solve?n", 400, "invalid-parameter", "n", -1},
    {"/solve?n=-1", 400, "invalid-parameter", "n", -1},
    {"/solve?n=+8", 400, "invalid-parameter", "n", -1},
    {"/solve?n=%2B8", 400, "invalid-parameter", "n", -1},
    {"/solve?n=%208", 400, "invalid-parameter", "n", -1},
    {"/solve?n=8%20", 400, "invalid-parameter", "n", -1},
    {"/solve?n=0x8", 400, "invalid-parameter", "n", -1},
    {"/solve?n=8e0", 400, "invalid-parameter", "n", -1},
    {"/solve?n=8.0", 400, "invalid-parameter", "n", -1},
    {"/solve?n=%D9%A8", 400, "invalid-parameter", "n", -1},
    {"/solve?n=99999999999999999999999", 400, "invalid-parameter", "n", -1},
    {"/count?n=0", 400, "invalid-parameter", "n", -1},
    {"/count?n=8x", 400, "invalid-parameter", "n", -1},
    {"/solve?n=8&limit=0", 400, "invalid-parameter", "limit", -1},
    {"/solve?n=8&limit=-1", 400, "invalid-parameter", "limit", -1},
    {"/solve?n=8&offset=-1", 400, "invalid-parameter", "offset", -1},
    {"/solve?n=8&offset=1.5", 400, "invalid-parameter", "offset", -1},
    {"/solve?n=8&format=grid", 400, "invalid-parameter", "format", -1},
    {"/solve?n=8&format=Board", 400, "invalid-parameter", "format", -1},
    {"/solve?n=8&unique=yes", 400, "invalid-parameter", "unique", -1},
    {"/solve?n=8&unique=1", 400, "invalid-parameter", "unique", -1},
    /* escapes */
    {"/solve?n=8%00", 400, "invalid-parameter", "n", -1},
    {"/solve?n=%008", 400, "invalid-parameter", "n", -1},
    {"/solve?n=%zz", 400, "invalid-parameter", "n", -1},
    {"/solve?n=8%", 400, "invalid-parameter", "n", -1},
    {"/solve?n=8&", 400, "bad-request", NULL, -1},
    {"/solve?n=8&&limit=2", 400, "bad-request", NULL, -1},
    /* cursor */
    {"/solve?n=4&after=1,2", 400, "invalid-cursor", "after", -1},
    {"/solve?n=4&after=1,3,0,4", 400, "invalid-cursor", "after", -1},
    {"/solve?n=4&after=1,3,0,-2", 400, "invalid-cursor", "after", -1},
    {"/solve?n=4&after=a,b,c,d", 400, "invalid-cursor", "after", -1},
    {"/solve?n=4&after=", 400, "invalid-cursor", "after", -1},
    {"/solve?n=4&after=1,3,0,2&offset=1", 400, "conflicting-parameters", "after", -1},
    /* valid, but beyond this server's limits */
    {"/solve?n=21", 422, "limit-exceeded", "n", 20},
    {"/solve?n=1000", 422, "limit-exceeded", "n", 20},
    {"/count?n=19", 422, "limit-exceeded", "n", 18},
    {"/count?n=30", 422, "limit-exceeded", "n", 18},
    {"/solve?n=8&limit=100001", 422, "limit-exceeded", "limit", 100000},
    {"/solve?n=8&offset=100001", 422, "limit-exceeded", "offset", 100000},
    {"/solve?n=14", 422, "result-too-large", "limit", 100000},
    {"/solve?n=17", 422, "result-too-large", "limit", 100000},
    {"/solve?n=20&offset=5", 422, "result-too-large", "limit", 100000},
    /* not found */
    {"/index.html", 404, "not-found", NULL, -1}, /* the page lives at / only */
    {"/solve/", 404, "not-found", NULL, -1},
    {"/SOLVE?n=4", 404, "not-found", NULL, -1},
    {"/solve%2F?n=4", 404, "not-found", NULL, -1}, /* only unreserved characters are unescaped */
    {"/problems/no-such-problem", 404, "not-found", NULL, -1},
};

static void check_problem(const nq_http_response *r, const char *path, long status, const char *slug, const char *param,
                          long limit)
{
    ck_assert_int_eq(r->status, status);
    ck_assert_str_eq(nq_http_header_get(r, "Content-Type"), "application/problem+json");
    ck_assert_str_eq(nq_http_header_get(r, "Cache-Control"), "no-store");
    ck_assert_ptr_nonnull(nq_http_header_get(r, "X-Request-Id"));
    ck_assert_ptr_null(nq_http_header_get(r, "ETag"));
    cJSON *j = cJSON_Parse(r->body);
    ck_assert_msg(j != NULL, "body is not JSON: %s", r->body);
    char type[96];
    snprintf(type, sizeof type, "/problems/%s", slug);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "type")->valuestring, type);
    ck_assert_int_eq((long)cJSON_GetObjectItemCaseSensitive(j, "status")->valuedouble, status);
    ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "instance")->valuestring, path);
    ck_assert_uint_gt(strlen(cJSON_GetObjectItemCaseSensitive(j, "title")->valuestring), 3);
    const char *detail = cJSON_GetObjectItemCaseSensitive(j, "detail")->valuestring;
    ck_assert_uint_gt(strlen(detail), 10);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "param");
    if (param) {
        ck_assert_msg(cJSON_IsString(p), "no param in %s", r->body);
        ck_assert_str_eq(p->valuestring, param);
        ck_assert_msg(strstr(detail, param) != NULL, "detail '%s' does not name '%s'", detail, param);
    } else {
        ck_assert_ptr_null(p);
    }
    const cJSON *l = cJSON_GetObjectItemCaseSensitive(j, "limit");
    if (limit >= 0) {
        ck_assert_msg(cJSON_IsNumber(l), "no limit in %s", r->body);
        ck_assert_int_eq((long)l->valuedouble, limit);
    } else {
        ck_assert_ptr_null(l);
    }
    cJSON_Delete(j);
}

START_TEST(test_error_row)
{
    const error_row *row = &rows[_i];
    nq_http_response r;
    ck_assert(nq_http_get(&server, row->target, &r));
    char path[256];
    snprintf(path, sizeof path, "%s", row->target);
    char *q = strchr(path, '?');
    if (q) *q = '\0';
    check_problem(&r, path, row->status, row->slug, row->param, row->limit);
    nq_http_response_free(&r);
}
END_TEST

/* Any method but GET, HEAD and OPTIONS (and POST where a route reads a body): 405 with Allow. */
static const char *const methods[] = {"POST", "PUT", "DELETE", "PATCH", "TRACE"};

START_TEST(test_method_not_allowed)
{
    static const char *const targets[] = {"/solve?n=4", "/count?n=4", "/openapi.yaml", "/problems/not-found"};
    for (size_t t = 0; t < sizeof targets / sizeof targets[0]; t++) {
        nq_http_response r;
        ck_assert(nq_http_request(&server, methods[_i], targets[t], NULL, &r));
        char path[64];
        snprintf(path, sizeof path, "%s", targets[t]);
        char *q = strchr(path, '?');
        if (q) *q = '\0';
        check_problem(&r, path, 405, "method-not-allowed", NULL, -1);
        ck_assert_str_eq(nq_http_header_get(&r, "Allow"), "GET, HEAD, OPTIONS");
        nq_http_response_free(&r);
    }
    /* The routes that read a JSON body take POST too, and say so. */
    static const char *const body_targets[] = {"/check", "/complete"};
    for (size_t t = 0; t < 2 && strcmp(methods[_i], "POST") != 0; t++) {
        nq_http_response r;
        ck_assert(nq_http_request(&server, methods[_i], body_targets[t], NULL, &r));
        check_problem(&r, body_targets[t], 405, "method-not-allowed", NULL, -1);
        ck_assert_str_eq(nq_http_header_get(&r, "Allow"), "GET, HEAD, POST, OPTIONS");
        nq_http_response_free(&r);
    }
}
END_TEST

/* Each problem type named in a response is described at its URI. */
START_TEST(test_problem_types_resolve)
{
    static const char *const slugs[] = {"missing-parameter",  "unknown-parameter", "duplicate-parameter",
                                        "invalid-parameter",  "invalid-cursor",    "conflicting-parameters",
                                        "limit-exceeded",     "result-too-large",  "not-found",
                                        "method-not-allowed", "bad-request"};
    for (size_t i = 0; i < sizeof slugs / sizeof slugs[0]; i++) {
        char target[96];
        snprintf(target, sizeof target, "/problems/%s", slugs[i]);
        nq_http_response r;
        ck_assert(nq_http_get(&server, target, &r));
        ck_assert_int_eq(r.status, 200);
        ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/json");
        cJSON *j = cJSON_Parse(r.body);
        ck_assert_ptr_nonnull(j);
        ck_assert_str_eq(cJSON_GetObjectItemCaseSensitive(j, "type")->valuestring, target);
        ck_assert(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "description")));
        cJSON_Delete(j);
        nq_http_response_free(&r);
    }
}
END_TEST

/* The raw query is parsed by the server, not by libmicrohttpd: a raw-socket request proves that
 * what libmicrohttpd would have truncated or merged is rejected. */
START_TEST(test_raw_queries)
{
    static const char *const reqs[] = {
        "GET /solve?n=4%00&n=5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "GET /solve?n=4&n=5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "GET /count?n=4&N=5 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        size_t len = 0;
        char *resp = nq_raw_request(server.port, reqs[i], strlen(reqs[i]), 5000, &len);
        ck_assert_ptr_nonnull(resp);
        ck_assert_msg(strncmp(resp, "HTTP/1.1 400 ", 13) == 0, "got: %.80s", resp);
        free(resp);
    }
}
END_TEST

/* No route takes a body: a request announcing one is answered at once, without waiting for the body,
 * and the connection closed (a client trickling a body cannot hold it). */
START_TEST(test_body_not_read)
{
    static const char *const reqs[] = {
        "POST /count?n=8 HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n",
        "GET /count?n=8 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
    };
    static const char *const status[] = {"HTTP/1.1 405 ", "HTTP/1.1 200 "};
    for (size_t i = 0; i < 2; i++) {
        size_t len = 0;
        /* 20 s of silence would mean the server waits for the body: the test would fail on time */
        char *resp = nq_raw_request(server.port, reqs[i], strlen(reqs[i]), 20000, &len);
        ck_assert_ptr_nonnull(resp);
        ck_assert_msg(strncmp(resp, status[i], strlen(status[i])) == 0, "got: %.80s", resp);
        ck_assert_ptr_nonnull(strstr(resp, "\r\nConnection: close\r\n"));
        free(resp);
    }
}
END_TEST

/* The absolute form of a request target (RFC 9112 section 3.2.2) is served like the origin form. */
START_TEST(test_absolute_form)
{
    static const char req[] =
        "GET http://example.org/count?n=5 HTTP/1.1\r\nHost: example.org\r\nConnection: close\r\n\r\n";
    size_t len = 0;
    char *resp = nq_raw_request(server.port, req, sizeof req - 1, 5000, &len);
    ck_assert_ptr_nonnull(resp);
    ck_assert_msg(strncmp(resp, "HTTP/1.1 200 ", 13) == 0, "got: %.80s", resp);
    ck_assert_ptr_nonnull(strstr(resp, "\r\n\r\n{\"n\":5,\"total\":10,\"unique\":2}"));
    free(resp);
}
END_TEST

/* A path with escaped unreserved characters is the same URI (RFC 3986 section 6.2.2.2): same route,
 * same bytes, same ETag. Raw socket, so the target goes out exactly as written (and the contract
 * recorder, which matches paths literally, does not see it). */
START_TEST(test_escaped_path)
{
    static const char plain[] = "GET /count?n=5 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    static const char escaped[] = "GET /c%6Fun%74?n=5 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    size_t len = 0;
    char *a = nq_raw_request(server.port, plain, sizeof plain - 1, 5000, &len);
    char *b = nq_raw_request(server.port, escaped, sizeof escaped - 1, 5000, &len);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(strncmp(b, "HTTP/1.1 200 ", 13) == 0, "got: %.80s", b);
    ck_assert_ptr_nonnull(strstr(b, "\r\n\r\n{\"n\":5,\"total\":10,\"unique\":2}"));
    const char *ta = strstr(a, "\r\nETag: "), *tb = strstr(b, "\r\nETag: ");
    ck_assert_ptr_nonnull(ta);
    ck_assert_ptr_nonnull(tb);
    ck_assert(strncmp(ta, tb, strcspn(ta + 2, "\r") + 2) == 0);
    free(a);
    free(b);
}
END_TEST

/* Heads up to the default caps (8 KiB target, 16 KiB of header lines, in up to 100 lines) fit in
 * libmicrohttpd's per-connection memory and are served; just over a cap is the server's own problem.
 * The lines come as a few big ones or many small ones (libmicrohttpd keeps a record per line). */
static const struct {
    size_t target_len; /* length of the request target */
    size_t lines;      /* extra header lines */
    size_t line_len;   /* bytes of each ("X-Pad-NNNN: 000...") */
    long status;
    const char *type; /* problem type, NULL for a 200 */
} head_rows[] = {
    {8100, 0, 0, 200, NULL},
    {8100, 4, 3900, 200, NULL},
    {8100, 100, 158, 200, NULL},
    {8300, 0, 0, 414, "/problems/uri-too-long"},
    {100, 5, 3500, 431, "/problems/headers-too-large"},
    {8100, 100, 170, 431, "/problems/headers-too-large"},
};

START_TEST(test_heads_at_the_caps)
{
    const size_t tlen = head_rows[_i].target_len, lines = head_rows[_i].lines, llen = head_rows[_i].line_len;
    char *target = malloc(tlen + 1);
    char *block = malloc(lines * llen + 1);
    const char **headers = calloc(lines + 1, sizeof *headers);
    ck_assert(target && block && headers);
    memcpy(target, "/healthz?", 9); /* /healthz ignores its query */
    memset(target + 9, 'a', tlen - 9);
    target[tlen] = '\0';
    for (size_t i = 0; i < lines; i++) {
        char *line = block + i * llen;
        snprintf(line, llen, "X-Pad-%04zu: %0*d", i, (int)(llen - 14), 0);
        headers[i] = line;
    }
    nq_http_response r;
    ck_assert(nq_http_request(&server, "GET", target, headers, &r));
    ck_assert_int_eq(r.status, head_rows[_i].status);
    if (head_rows[_i].type) {
        ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/problem+json");
        ck_assert_ptr_nonnull(strstr(r.body, head_rows[_i].type));
    }
    nq_http_response_free(&r);
    free(headers);
    free(block);
    free(target);
}
END_TEST

/* A head libmicrohttpd rejects itself (too many lines for its per-connection memory) is logged with
 * the status it sent, not 0. */
START_TEST(test_mhd_rejection_logged)
{
    static const char line[] = "X-Line-0000: 0000000000\r\n";
    const size_t lines = 600, head = 64 + lines * (sizeof line - 1);
    char *req = malloc(head);
    ck_assert_ptr_nonnull(req);
    size_t len = (size_t)snprintf(req, head, "GET /mhd-rejected-head HTTP/1.1\r\nHost: t\r\n");
    for (size_t i = 0; i < lines; i++)
        len += (size_t)snprintf(req + len, head - len, "X-Line-%04zu: 0000000000\r\n", i);
    len += (size_t)snprintf(req + len, head - len, "\r\n");
    size_t got = 0;
    char *resp = nq_raw_request(server.port, req, len, 5000, &got);
    ck_assert_ptr_nonnull(resp);
    ck_assert_msg(strncmp(resp, "HTTP/1.1 431 ", 13) == 0, "got: %.80s", resp);
    free(resp);
    free(req);
    bool logged = false;
    for (int tries = 0; tries < 300 && !logged; tries++) { /* written as the request ends; up to 30 s */
        char *log = nq_harness_log(&server);
        const char *at = log ? strstr(log, "\"path\":\"/mhd-rejected-head\"") : NULL;
        const char *eol = at ? strchr(at, '\n') : NULL;
        const char *bol = at;
        while (bol && bol > log && bol[-1] != '\n') bol--;
        if (at && eol) {
            const char *status = strstr(bol, "\"status\":");
            ck_assert_msg(status && status < eol && strncmp(status, "\"status\":431,", 13) == 0, "%.*s",
                          (int)(eol - bol), bol);
            const char *addr = strstr(bol, "\"remote_addr\":\"127.0.0.1\""); /* the client, as the log writes it */
            ck_assert_msg(addr && addr < eol, "%.*s", (int)(eol - bol), bol);
            logged = true;
        }
        free(log);
        const struct timespec pause = {0, 100L * 1000L * 1000L};
        if (!logged) nanosleep(&pause, NULL);
    }
    ck_assert_msg(logged, "no access log line for the rejected head");
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, server_args, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_errors");
    TCase *tc = tcase_create("errors");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, test_error_row, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_loop_test(tc, test_method_not_allowed, 0, (int)(sizeof methods / sizeof methods[0]));
    tcase_add_test(tc, test_problem_types_resolve);
    tcase_add_test(tc, test_raw_queries);
    tcase_add_test(tc, test_body_not_read);
    tcase_add_test(tc, test_absolute_form);
    tcase_add_test(tc, test_escaped_path);
    tcase_add_test(tc, test_mhd_rejection_logged);
    tcase_add_loop_test(tc, test_heads_at_the_caps, 0, (int)(sizeof head_rows / sizeof head_rows[0]));
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 15);
    return failed == 0 && status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
