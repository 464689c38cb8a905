/* test_framing.c - unit tests of the request head checks (src/server/http/framing.c): rows of header
 * lines, the HTTP version, and the verdict (error, body kind, length). The same cases on the wire,
 * through libmicrohttpd, are in tests/http/test_conformance.c. */
#include "base/errors.h"
#include "http/framing.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

#define LINES_MAX 4

typedef struct row {
    const char *lines[LINES_MAX]; /* "Name: value" (split at the first ':' and the spaces after it) */
    bool http11;
    nq_err err;
    nq_framing_body body;
    uint64_t length;
} row;

static const row rows[] = {
    {{"Host: t"}, true, NQ_OK, NQ_FRAMING_NONE, 0},
    {{NULL}, false, NQ_OK, NQ_FRAMING_NONE, 0},           /* HTTP/1.0 without Host */
    {{NULL}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0}, /* HTTP/1.1 without Host */
    {{"Host: t", "host: u"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Host: t"}, false, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host : t"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    /* Host = uri-host [":" port] (RFC 9112 section 3.2): a name, an IPv4 or bracketed IPv6 address */
    {{"Host: "}, true, NQ_OK, NQ_FRAMING_NONE, 0}, /* an empty reg-name */
    {{"Host: nq.example.com:8080"}, true, NQ_OK, NQ_FRAMING_NONE, 0},
    {{"Host: 10.0.0.1:"}, true, NQ_OK, NQ_FRAMING_NONE, 0}, /* port = *DIGIT: may be empty */
    {{"Host: [::1]:80"}, true, NQ_OK, NQ_FRAMING_NONE, 0},
    {{"Host: xn--e1afmkfd.example%2D1"}, true, NQ_OK, NQ_FRAMING_NONE, 0},
    {{"Host: a b/c@d"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: x:abc"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: user@x"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: [::1"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: [::1]x"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: []"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: [1.2]"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},   /* IPv6 has two colons at least */
    {{"Host: [v.:::]"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0}, /* IPvFuture: "v" 1*HEXDIG "." ... */
    {{"Host: [v1.x:y]:8"}, true, NQ_OK, NQ_FRAMING_NONE, 0},
    {{"Host: x%2"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: x/"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", ": x"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "X-A: a\rb"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "X-A: a\tb \xff"}, true, NQ_OK, NQ_FRAMING_NONE, 0}, /* HTAB and obs-text are fine */
    {{"Host: t", "Content-Length: 0"}, true, NQ_OK, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Content-Length: 37"}, true, NQ_OK, NQ_FRAMING_LENGTH, 37},
    {{"Host: t", "content-length: 5  "}, true, NQ_OK, NQ_FRAMING_LENGTH, 5}, /* trailing OWS is no part of it */
    {{"Host: t", "Content-Length: 18446744073709551615"}, true, NQ_OK, NQ_FRAMING_LENGTH, UINT64_MAX},
    {{"Host: t", "Content-Length: 18446744073709551616"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Content-Length: 0, 37"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Content-Length: -1"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Content-Length: +1"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Content-Length: "}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Content-Length: 0", "Content-Length: 37"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Content-Length: 5", "Content-Length: 5"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Transfer-Encoding: chunked"}, true, NQ_OK, NQ_FRAMING_CHUNKED, 0},
    {{"Host: t", "Transfer-Encoding: CHUNKED"}, true, NQ_OK, NQ_FRAMING_CHUNKED, 0},
    {{"Host: t", "Transfer-Encoding: , chunked ,"}, true, NQ_OK, NQ_FRAMING_CHUNKED, 0},
    {{"Host: t", "Transfer-Encoding: chunked;x=1"}, true, NQ_OK, NQ_FRAMING_CHUNKED, 0},
    {{"Host: t", "Transfer-Encoding: chunked", "Content-Length: 5"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Transfer-Encoding: chunked, gzip"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Transfer-Encoding: gzip"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Transfer-Encoding: chunked, chunked"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Transfer-Encoding: chunked", "Transfer-Encoding: chunked"},
     true,
     NQ_E_BAD_REQUEST,
     NQ_FRAMING_NONE,
     0},
    {{"Host: t", "Transfer-Encoding: gzip, chunked"}, true, NQ_E_NOT_IMPLEMENTED, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Transfer-Encoding: gzip", "Transfer-Encoding: chunked"},
     true,
     NQ_E_NOT_IMPLEMENTED,
     NQ_FRAMING_NONE,
     0},
    {{"Host: t", "Transfer-Encoding: chunked x"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Host: t", "Transfer-Encoding: @"}, true, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
    {{"Transfer-Encoding: chunked"}, false, NQ_E_BAD_REQUEST, NQ_FRAMING_NONE, 0},
};

START_TEST(verdicts)
{
    const row *r = &rows[_i];
    nq_framing f;
    nq_framing_init(&f);
    for (size_t i = 0; i < LINES_MAX && r->lines[i]; i++) {
        const char *line = r->lines[i];
        const char *colon = strchr(line, ':');
        const char *value = colon + 1;
        while (*value == ' ') value++;
        nq_framing_field(&f, line, (size_t)(colon - line), value, strlen(value));
    }
    ck_assert_int_eq(nq_framing_finish(&f, r->http11), r->err);
    ck_assert_int_eq(f.body, r->body);
    if (r->body == NQ_FRAMING_LENGTH) ck_assert_uint_eq(f.length, r->length);
    if (r->err != NQ_OK)
        ck_assert_ptr_nonnull(f.detail);
    else
        ck_assert_ptr_null(f.detail);
}
END_TEST

/* A fold or a later fault never replaces the first one's sentence. */
START_TEST(first_fault_wins)
{
    nq_framing f;
    nq_framing_init(&f);
    nq_framing_folded(&f);
    const char *first = f.detail;
    nq_framing_field(&f, "Host ", 5, "t", 1);
    ck_assert_int_eq(nq_framing_finish(&f, true), NQ_E_BAD_REQUEST);
    ck_assert_ptr_eq(f.detail, first);
}
END_TEST

/* The server's own value is known by its address, not its text. */
START_TEST(synthetic_by_address)
{
    static const char zero[] = "0";
    ck_assert(nq_framing_is_synthetic(nq_framing_synthetic));
    ck_assert(!nq_framing_is_synthetic(zero));
    ck_assert(nq_framing_is_token("GET", 3));
    ck_assert(!nq_framing_is_token("G T", 3));
    ck_assert(!nq_framing_is_token("", 0));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("framing");
    TCase *tc = tcase_create("framing");
    tcase_add_loop_test(tc, verdicts, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, first_fault_wins);
    tcase_add_test(tc, synthetic_by_address);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
