/* test_page.c - the web page at / and its assets against the real nqueensd: every file the page
 * names (and those they name) is served under its content-hashed name with the right Content-Type,
 * caching (the page revalidated, the assets immutable), ETags and 304s, gzip, HEAD, the security
 * headers, strict queries and 404s, and /metrics counts the routes. What the page does in a browser
 * is tests/browser's part. */
#define _POSIX_C_SOURCE 200809L /* strdup, strndup */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "harness.h"

static nq_test_server server;

#define ASSETS_MAX 32
#define HASH_HEX 12 /* hex digits of the content hash in an asset's name */

static const char *const gzip_hdr[] = {"Accept-Encoding: gzip", NULL};

static nq_http_response get(const char *method, const char *target, const char *const *headers, long status)
{
    nq_http_response r;
    ck_assert(nq_http_request(&server, method, target, headers, &r));
    ck_assert_msg(r.status == status, "%s %s: %ld", method, target, r.status);
    return r;
}

static void assert_header(const nq_http_response *r, const char *name, const char *want)
{
    const char *v = nq_http_header_get(r, name);
    ck_assert_msg(v != NULL, "no %s", name);
    ck_assert_str_eq(v, want);
}

/* The headers every file carries, whatever its kind. */
static void assert_security(const nq_http_response *r)
{
    const char *csp = nq_http_header_get(r, "Content-Security-Policy");
    ck_assert_msg(csp != NULL, "no Content-Security-Policy");
    ck_assert_msg(strncmp(csp, "default-src 'self'; ", 20) == 0, "CSP: %s", csp);
    ck_assert_msg(strstr(csp, "frame-ancestors 'none'") != NULL, "CSP: %s", csp);
    ck_assert_msg(strstr(csp, "unsafe-inline") == NULL && strstr(csp, "unsafe-eval") == NULL, "CSP: %s", csp);
    assert_header(r, "X-Content-Type-Options", "nosniff");
    assert_header(r, "Referrer-Policy", "no-referrer");
}

static bool hex_run(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f'))) return false;
    return true;
}

/* Every "<name>.<12 hex>.<js|css|svg>" in text, as "/assets/<that>", added to list (no repeats). */
static void find_assets(const char *text, char **list, size_t *count)
{
    static const char *const exts[] = {".js", ".css", ".svg"};
    for (const char *p = text; (p = strchr(p, '.')) != NULL; p++) {
        if (!hex_run(p + 1, HASH_HEX) || p[1 + HASH_HEX] != '.') continue;
        const char *ext = p + 1 + HASH_HEX;
        size_t elen = 0;
        for (size_t e = 0; e < 3; e++)
            if (strncmp(ext, exts[e], strlen(exts[e])) == 0) elen = strlen(exts[e]);
        if (elen == 0) continue;
        const char *start = p;
        while (start > text && start[-1] >= 'a' && start[-1] <= 'z') start--;
        char path[128];
        (void)snprintf(path, sizeof path, "/assets/%.*s", (int)(ext + elen - start), start);
        bool seen = false;
        for (size_t i = 0; i < *count; i++) seen = seen || strcmp(list[i], path) == 0;
        if (!seen && *count < ASSETS_MAX) list[(*count)++] = strdup(path);
    }
}

static const char *media_of(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (strcmp(dot, ".js") == 0) return "text/javascript; charset=utf-8";
    if (strcmp(dot, ".css") == 0) return "text/css; charset=utf-8";
    return "image/svg+xml";
}

START_TEST(test_page)
{
    nq_http_response r = get("GET", "/", NULL, 200);
    assert_header(&r, "Content-Type", "text/html; charset=utf-8");
    assert_header(&r, "Cache-Control", "no-cache");
    assert_security(&r);
    const char *etag = nq_http_header_get(&r, "ETag");
    ck_assert_msg(etag && etag[0] == '"', "a strong ETag: %s", etag ? etag : "(none)");
    ck_assert(strncmp(r.body, "<!doctype html>", 15) == 0);
    ck_assert_msg(strstr(r.body, "<script>") == NULL && strstr(r.body, "style=") == NULL, "nothing inline");
    ck_assert_msg(strstr(r.body, "\"/") == NULL, "every URL in the page is relative (a path prefix works)");
    ck_assert_uint_eq(r.body_len, (size_t)strtoull(nq_http_header_get(&r, "Content-Length"), NULL, 10));
    nq_http_response_free(&r);
}
END_TEST

/* From the page, every asset it names and every asset those name: each served, typed and immutable. */
START_TEST(test_assets)
{
    nq_http_response page = get("GET", "/", NULL, 200);
    char *list[ASSETS_MAX];
    size_t count = 0;
    find_assets(page.body, list, &count);
    nq_http_response_free(&page);
    ck_assert_uint_ge(count, 3); /* the style sheet, the entry module, the icon */
    for (size_t i = 0; i < count; i++) {
        nq_http_response r = get("GET", list[i], NULL, 200);
        assert_header(&r, "Content-Type", media_of(list[i]));
        assert_header(&r, "Cache-Control", "public, max-age=31536000, immutable");
        assert_security(&r);
        ck_assert_uint_gt(r.body_len, 0);
        find_assets(r.body, list, &count); /* the modules' imports, the style sheet's url()s */
        char inm[96];
        (void)snprintf(inm, sizeof inm, "If-None-Match: %s", nq_http_header_get(&r, "ETag"));
        const char *const h[] = {inm, NULL};
        nq_http_response nm = get("GET", list[i], h, 304);
        assert_header(&nm, "Cache-Control", "public, max-age=31536000, immutable");
        nq_http_response_free(&nm);
        nq_http_response head = get("HEAD", list[i], NULL, 200);
        assert_header(&head, "Content-Length", nq_http_header_get(&r, "Content-Length"));
        nq_http_response_free(&head);
        nq_http_response del = get("DELETE", list[i], NULL, 405); /* a real asset: only the method is wrong */
        assert_header(&del, "Allow", "GET, HEAD, OPTIONS");
        nq_http_response_free(&del);
        nq_http_response_free(&r);
    }
    ck_assert_uint_ge(count, 9); /* every module is reachable from the page */
    for (size_t i = 0; i < count; i++) free(list[i]);
}
END_TEST

START_TEST(test_revalidate)
{
    nq_http_response r = get("GET", "/", NULL, 200);
    char inm[96];
    (void)snprintf(inm, sizeof inm, "If-None-Match: %s", nq_http_header_get(&r, "ETag"));
    const char *const h[] = {inm, NULL};
    nq_http_response nm = get("GET", "/", h, 304);
    ck_assert_uint_eq(nm.body_len, 0);
    assert_header(&nm, "ETag", nq_http_header_get(&r, "ETag"));
    assert_header(&nm, "Cache-Control", "no-cache");
    assert_security(&nm);
    nq_http_response_free(&nm);
    nq_http_response_free(&r);
}
END_TEST

START_TEST(test_gzip)
{
    nq_http_response plain = get("GET", "/", NULL, 200);
    nq_http_response gz = get("GET", "/", gzip_hdr, 200);
    assert_header(&gz, "Content-Encoding", "gzip");
    assert_header(&gz, "Vary", "Accept, Accept-Encoding");
    const char *etag = nq_http_header_get(&gz, "ETag");
    ck_assert_msg(strncmp(etag, "W/\"", 3) == 0 && strstr(etag, "-gzip\"") != NULL,
                  "the gzip form has its own weak tag: %s", etag);
    char *body = NULL;
    size_t len = 0;
    ck_assert(nq_harness_gunzip(gz.body, gz.body_len, &body, &len));
    ck_assert_uint_eq(len, plain.body_len);
    ck_assert(memcmp(body, plain.body, len) == 0);
    /* its own 304 */
    char inm[96];
    (void)snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
    const char *const h[] = {inm, "Accept-Encoding: gzip", NULL};
    nq_http_response nm = get("GET", "/", h, 304);
    assert_header(&nm, "ETag", etag);
    nq_http_response_free(&nm);
    free(body);
    nq_http_response_free(&gz);
    nq_http_response_free(&plain);
}
END_TEST

START_TEST(test_head)
{
    nq_http_response g = get("GET", "/", NULL, 200);
    nq_http_response h = get("HEAD", "/", NULL, 200);
    ck_assert_uint_eq(h.body_len, 0);
    assert_header(&h, "Content-Length", nq_http_header_get(&g, "Content-Length"));
    assert_header(&h, "ETag", nq_http_header_get(&g, "ETag"));
    assert_header(&h, "Content-Type", "text/html; charset=utf-8");
    assert_security(&h);
    char inm[96];
    (void)snprintf(inm, sizeof inm, "If-None-Match: %s", nq_http_header_get(&g, "ETag"));
    const char *const hdr[] = {inm, NULL};
    nq_http_response nm = get("HEAD", "/", hdr, 304);
    assert_header(&nm, "Cache-Control", "no-cache");
    nq_http_response_free(&nm);
    nq_http_response pre = get("OPTIONS", "/", NULL, 204);
    assert_header(&pre, "Allow", "GET, HEAD, OPTIONS");
    nq_http_response_free(&pre);
    nq_http_response_free(&h);
    nq_http_response_free(&g);
}
END_TEST

typedef struct bad_row {
    const char *method, *target;
    long status;
} bad_row;

static const bad_row bad[] = {
    {"GET", "/?n=8", 400},          /* the page takes no query: its state is in the fragment */
    {"GET", "/assets/", 404},       /* no listing */
    {"GET", "/assets/app.js", 404}, /* only hashed names are served */
    {"GET", "/assets/../openapi.yaml", 404},
    {"HEAD", "/assets/nope.0123456789ab.js", 404},
    {"POST", "/", 405},
    {"DELETE", "/assets/x", 404}, /* an unknown name is a 404 whatever the method */
    {"PUT", "/assets/x", 404},
    {"OPTIONS", "/assets/x", 404},
    {"DELETE", "/problems/no-such-problem", 404},
};

START_TEST(test_bad)
{
    const bad_row *b = &bad[_i];
    nq_http_response r = get(b->method, b->target, NULL, b->status);
    if (strcmp(b->method, "HEAD") != 0) assert_header(&r, "Content-Type", "application/problem+json");
    assert_header(&r, "Cache-Control", "no-store");
    if (b->status == 405) assert_header(&r, "Allow", "GET, HEAD, OPTIONS");
    nq_http_response_free(&r);
}
END_TEST

START_TEST(test_metrics)
{
    const double before = nq_harness_metric(&server, "nqueensd_http_requests_total{route=\"page\",status=\"200\"}");
    nq_http_response r = get("GET", "/", NULL, 200);
    nq_http_response_free(&r);
    /* A request is counted once its connection is done with it, which may be after the client has
     * read the answer: wait for the count (a hang guard, not a speed). */
    const double want = (before < 0 ? 0 : before) + 1;
    const double after =
        nq_harness_await_metric(&server, "nqueensd_http_requests_total{route=\"page\",status=\"200\"}", want, 30);
    ck_assert_msg(after == want, "page 200s: %g then %g", before, after);
    ck_assert(nq_harness_metric(&server, "nqueensd_http_requests_total{route=\"asset\",status=\"404\"}") >= 1);
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, NULL, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_page");
    TCase *tc = tcase_create("page");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_page);
    tcase_add_test(tc, test_assets);
    tcase_add_test(tc, test_revalidate);
    tcase_add_test(tc, test_gzip);
    tcase_add_test(tc, test_head);
    tcase_add_loop_test(tc, test_bad, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, test_metrics);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 15);
    return failed == 0 && status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
