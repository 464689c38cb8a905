/* test_negotiate.c - table-driven Check tests of content negotiation and conditional requests
 * (src/server/app/negotiate.c): Accept -> JSON or NDJSON, Accept-Encoding -> gzip, If-None-Match lists. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/reply.h"
#include "check_run.h"

typedef struct hdrs {
    const char *accept, *accept_encoding, *if_none_match;
} hdrs;

static const char *lookup(void *ctx, const char *name)
{
    const hdrs *h = ctx;
    if (strcasecmp(name, "Accept") == 0) return h->accept;
    if (strcasecmp(name, "Accept-Encoding") == 0) return h->accept_encoding;
    if (strcasecmp(name, "If-None-Match") == 0) return h->if_none_match;
    return NULL;
}

typedef struct accept_row {
    const char *accept; /* NULL: header absent */
    bool ndjson;
} accept_row;

static const accept_row accepts[] = {
    {NULL, false},
    {"application/json", false},
    {"*/*", false},
    {"application/*", false},
    {"application/x-ndjson", true},
    {"APPLICATION/X-NDJSON", true},
    {"application/x-ndjson, application/json", true},
    {"application/json, application/x-ndjson", true},
    {"application/x-ndjson;q=0.5, application/json", false},
    {"application/x-ndjson;q=0.5, application/json;q=0.4", true},
    {"application/x-ndjson; q=0.5 , */*;q=0.6", false},
    {"application/x-ndjson;q=0", false},
    {"application/x-ndjson;q=0.000", false},
    {"application/x-ndjson;q=1.0001", false}, /* malformed q: element ignored */
    {"application/x-ndjson;q=2", false},
    {"text/html, application/x-ndjson;charset=utf-8", true},
    {"application/x-ndjsonx", false},
    {",,;;", false},
};

START_TEST(test_accept)
{
    const accept_row *row = &accepts[_i];
    hdrs h = {row->accept, NULL, NULL};
    const nq_request req = {"GET", "/solve", NULL, 0, lookup, (void *)&h, NULL, 0, NULL};
    nq_variant v;
    nq_app_negotiate(&req, &v);
    ck_assert_msg(v.ndjson == row->ndjson, "Accept: %s", row->accept ? row->accept : "(absent)");
    ck_assert(!v.head);
}
END_TEST

typedef struct inm_row {
    const char *inm;
    bool gzip_ok;
    const char *matched; /* tag the 304 names, NULL: no 304 */
} inm_row;

#define TAG "\"0123456789abcdef\""
#define TAG_GZ "W/\"0123456789abcdef-gzip\"" /* weak: its bytes depend on the compression */

static const inm_row inms[] = {
    {TAG, false, TAG},
    {"W/" TAG, false, TAG},
    {"\"x\", " TAG, false, TAG},
    {"\"x\" ,W/" TAG " , \"y\"", false, TAG},
    {"*", false, TAG},
    {TAG_GZ, true, TAG_GZ},
    {"\"0123456789abcdef-gzip\"", true, TAG_GZ}, /* weak comparison: the W/ makes no difference */
    {"W/" TAG, true, TAG},
    {TAG_GZ, false, NULL}, /* the client holds the gzip form but no longer accepts gzip */
    {"\"0123456789abcdef", false, NULL},
    {"0123456789abcdef", false, NULL},
    {"\"0123456789abcde\"", false, NULL},
    {"\"x\" " TAG, false, NULL}, /* no comma: malformed list, stop */
    {"", false, NULL},
};

START_TEST(test_if_none_match)
{
    const inm_row *row = &inms[_i];
    hdrs h = {NULL, row->gzip_ok ? "gzip" : NULL, row->inm};
    const nq_request req = {"GET", "/count", NULL, 0, lookup, (void *)&h, NULL, 0, NULL};
    nq_variant v;
    nq_app_negotiate(&req, &v);
    ck_assert_int_eq(v.gzip_ok, row->gzip_ok);
    nq_response resp;
    nq_response_init(&resp);
    const bool hit = nq_app_try_304(&req, TAG, TAG_GZ, &v, &resp);
    ck_assert_msg(hit == (row->matched != NULL), "If-None-Match: %s", row->inm);
    if (hit) {
        ck_assert_uint_eq(resp.status, 304);
        ck_assert_str_eq(nq_response_header(&resp, "ETag"), row->matched);
    } else {
        ck_assert_uint_eq(resp.nheaders, 0);
    }
    nq_response_clear(&resp);
}
END_TEST

START_TEST(test_etag_shape)
{
    char a[40], b[40], gz[40];
    nq_app_etag("count?n=8", false, a, sizeof a);
    nq_app_etag("count?n=9", false, b, sizeof b);
    nq_app_etag("count?n=8", true, gz, sizeof gz);
    ck_assert_uint_eq(strlen(a), 18);
    ck_assert_int_eq(a[0], '"');
    ck_assert_int_eq(a[17], '"');
    ck_assert_str_ne(a, b);
    ck_assert_mem_eq(gz, "W/", 2);
    ck_assert_mem_eq(gz + 2, a, 17);
    ck_assert_str_eq(gz + 19, "-gzip\"");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("negotiate");
    TCase *tc = tcase_create("negotiate");
    tcase_add_loop_test(tc, test_accept, 0, (int)(sizeof accepts / sizeof accepts[0]));
    tcase_add_loop_test(tc, test_if_none_match, 0, (int)(sizeof inms / sizeof inms[0]));
    tcase_add_test(tc, test_etag_shape);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
