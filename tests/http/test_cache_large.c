/* test_cache_large.c - large cached answers (n = 12: 2.6 MB, its gzip form 150 kB) arrive as the bytes
 * of the answer, like small ones. Checked on the real nqueensd: the gzip and identity forms agree,
 * bodies just below and just above NQ_APP_GZIP_LATER_BYTES (compressed before the first answer, or
 * after it), a cached answer against the same answer streamed by a server whose cache is too small to
 * hold it, the weak tag both gzip forms share, HEAD and 304 stating the length without a body, and a large body answered before its gzip
 * form is made, under the identity form's ETag.
 */
#include <check.h>
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "harness.h"

#define GZIP_LATER (256L * 1024) /* NQ_APP_GZIP_LATER_BYTES, as a client sees it */
#define LARGE (1024L * 1024)     /* what this suite calls a large body: n = 12's is 2.6 MB */

static const char *const big_cache[] = {"--cache-bytes", "256M", "--max-solutions", "100000", NULL};
/* An entry limit of 128 KiB: n=12's 2.6 MB answer is streamed, never cached. */
static const char *const small_cache[] = {"--cache-bytes", "1M", "--max-solutions", "100000", NULL};
static const char *const gzip_hdr[] = {"Accept-Encoding: gzip", NULL};

/* GET target (gzip or identity): 200, a Content-Length equal to the bytes received when `framed`,
 * and the right Content-Encoding. */
static void get_checked(const nq_test_server *s, const char *target, bool gzip, bool framed, nq_http_response *r)
{
    if (gzip)
        ck_assert(nq_harness_get_gzip(s, target, 60, r)); /* made after the first answer, for large bodies */
    else
        ck_assert(nq_http_request(s, "GET", target, NULL, r));
    ck_assert_msg(r->status == 200, "%s: %ld", target, r->status);
    const char *len = nq_http_header_get(r, "Content-Length");
    if (framed) {
        ck_assert_msg(len != NULL, "%s: no Content-Length", target);
        ck_assert_int_eq(strtol(len, NULL, 10), (long)r->body_len);
    }
    const char *enc = nq_http_header_get(r, "Content-Encoding");
    ck_assert(gzip ? enc && strcmp(enc, "gzip") == 0 : enc == NULL);
}

/* gz's body inflates to exactly plain's bytes (gzip's CRC checks every byte on the way). */
static void assert_gunzips_to(const nq_http_response *gz, const nq_http_response *plain)
{
    char *inflated = NULL;
    size_t inflated_len = 0;
    ck_assert(nq_harness_gunzip(gz->body, gz->body_len, &inflated, &inflated_len));
    ck_assert_uint_eq(inflated_len, plain->body_len);
    ck_assert(memcmp(inflated, plain->body, plain->body_len) == 0);
    free(inflated);
}

/* The identity and gzip forms of a cached target agree (the gzip one's CRC checks every byte). Sets
 * *plain_len to the identity body's size; the second round is a cache hit whatever the first was. */
static void forms_agree(const nq_test_server *s, const char *target, long *plain_len)
{
    for (int round = 0; round < 2; round++) {
        nq_http_response plain, gz;
        get_checked(s, target, false, true, &plain);
        get_checked(s, target, true, true, &gz);
        assert_gunzips_to(&gz, &plain);
        *plain_len = (long)plain.body_len;
        nq_http_response_free(&plain);
        nq_http_response_free(&gz);
    }
}

START_TEST(gzip_and_identity_agree_large_and_small)
{
    nq_test_server s;
    ck_assert(nq_harness_start(&s, big_cache, NULL));
    long len = 0;
    /* n=12: identity (2.6 MB) and gzip (150 KB), the gzip form made after the first answer. */
    forms_agree(&s, "/solve?n=12", &len);
    ck_assert_int_ge(len, LARGE);
    /* n=10: some 30 KB, both forms made before the first answer. */
    forms_agree(&s, "/solve?n=10", &len);
    ck_assert_int_lt(len, GZIP_LATER);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
}
END_TEST

/* The identity body's length for /solve?n=12&limit=limit, asked of s (whose cache is too small to keep
 * it, so the server that is checked later sees the target cold). */
static long body_len_at(const nq_test_server *s, long limit)
{
    char target[64];
    snprintf(target, sizeof target, "/solve?n=12&limit=%ld", limit);
    nq_http_response r;
    get_checked(s, target, false, false, &r);
    const long len = (long)r.body_len;
    nq_http_response_free(&r);
    return len;
}

START_TEST(bodies_just_below_and_above_the_gzip_threshold)
{
    nq_test_server s, probe;
    ck_assert(nq_harness_start(&s, big_cache, NULL));
    ck_assert(nq_harness_start(&probe, small_cache, NULL));
    /* The largest limit whose body is under GZIP_LATER: bodies grow with limit, by one board each. */
    long lo = 1, hi = 14200;
    ck_assert_int_lt(body_len_at(&probe, lo), GZIP_LATER);
    ck_assert_int_ge(body_len_at(&probe, hi), GZIP_LATER);
    while (hi - lo > 1) {
        const long mid = lo + (hi - lo) / 2;
        *(body_len_at(&probe, mid) < GZIP_LATER ? &lo : &hi) = mid;
    }
    ck_assert_int_eq(nq_harness_stop(&probe, SIGTERM, 30), 0);
    for (long limit = lo; limit <= hi; limit++) {
        char target[64];
        snprintf(target, sizeof target, "/solve?n=12&limit=%ld", limit);
        /* Cold, to a client that takes gzip: below, gzip at once; from the threshold on, identity. */
        nq_http_response first;
        ck_assert(nq_http_request(&s, "GET", target, gzip_hdr, &first));
        ck_assert_int_eq(first.status, 200);
        const char *enc = nq_http_header_get(&first, "Content-Encoding");
        ck_assert(limit == lo ? enc && strcmp(enc, "gzip") == 0 : enc == NULL);
        nq_http_response_free(&first);
        long len = 0;
        forms_agree(&s, target, &len);
        ck_assert(limit == lo ? len < GZIP_LATER : len >= GZIP_LATER);
        nq_http_response r;
        get_checked(&s, target, false, true, &r);
        cJSON *j = cJSON_ParseWithLength(r.body, r.body_len);
        ck_assert_ptr_nonnull(j);
        ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "solutions")), (int)limit);
        cJSON_Delete(j);
        nq_http_response_free(&r);
    }
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
}
END_TEST

START_TEST(cached_answer_equals_streamed_one)
{
    nq_test_server big, small;
    ck_assert(nq_harness_start(&big, big_cache, NULL));
    ck_assert(nq_harness_start(&small, small_cache, NULL));
    nq_http_response cached, again, streamed;
    get_checked(&big, "/solve?n=12", false, true, &cached);
    get_checked(&big, "/solve?n=12", false, true, &again); /* a hit, from the cached bytes */
    get_checked(&small, "/solve?n=12", false, false, &streamed);
    ck_assert_ptr_null(nq_http_header_get(&streamed, "Content-Length")); /* it really was streamed */
    ck_assert_uint_eq(cached.body_len, streamed.body_len);
    ck_assert(memcmp(cached.body, streamed.body, streamed.body_len) == 0);
    ck_assert_uint_eq(again.body_len, streamed.body_len);
    ck_assert(memcmp(again.body, streamed.body, streamed.body_len) == 0);
    nq_http_response_free(&cached);
    nq_http_response_free(&again);
    nq_http_response_free(&streamed);
    ck_assert_int_eq(nq_harness_stop(&small, SIGTERM, 30), 0);
    ck_assert_int_eq(nq_harness_stop(&big, SIGTERM, 30), 0);
}
END_TEST

/* The gzip form cached at level 6 and the same answer compressed at level 1 as it streams are
 * different bytes of one content: they share a weak tag, W/"<16 hex>-gzip", so a client holding
 * either revalidates against either server with a 304 (If-None-Match compares weakly), and no strong
 * tag ever names two byte sequences. */
START_TEST(gzip_forms_share_a_weak_tag)
{
    nq_test_server big, small;
    ck_assert(nq_harness_start(&big, big_cache, NULL));
    ck_assert(nq_harness_start(&small, small_cache, NULL));
    nq_http_response plain, cached, streamed, nm;
    get_checked(&big, "/solve?n=12", false, true, &plain);
    get_checked(&big, "/solve?n=12", true, true, &cached);
    get_checked(&small, "/solve?n=12", true, false, &streamed);
    ck_assert_ptr_null(nq_http_header_get(&streamed, "Content-Length")); /* compressed as it streamed */
    const char *tag = nq_http_header_get(&cached, "ETag");
    char want[40];
    snprintf(want, sizeof want, "W/%.17s-gzip\"", nq_http_header_get(&plain, "ETag"));
    ck_assert_str_eq(tag, want);
    ck_assert_str_eq(nq_http_header_get(&streamed, "ETag"), want);
    ck_assert(cached.body_len != streamed.body_len || memcmp(cached.body, streamed.body, cached.body_len) != 0);
    assert_gunzips_to(&cached, &plain);
    assert_gunzips_to(&streamed, &plain);
    char inm[80];
    snprintf(inm, sizeof inm, "If-None-Match: %s", tag);
    const char *const hdrs[] = {inm, gzip_hdr[0], NULL};
    const nq_test_server *const servers[] = {&big, &small};
    for (int i = 0; i < 2; i++) {
        ck_assert(nq_http_request(servers[i], "GET", "/solve?n=12", hdrs, &nm));
        ck_assert_int_eq(nm.status, 304);
        ck_assert_str_eq(nq_http_header_get(&nm, "ETag"), want);
        nq_http_response_free(&nm);
    }
    nq_http_response_free(&plain);
    nq_http_response_free(&cached);
    nq_http_response_free(&streamed);
    ck_assert_int_eq(nq_harness_stop(&small, SIGTERM, 30), 0);
    ck_assert_int_eq(nq_harness_stop(&big, SIGTERM, 30), 0);
}
END_TEST

START_TEST(head_and_304_state_the_length_without_a_body)
{
    nq_test_server s;
    ck_assert(nq_harness_start(&s, big_cache, NULL));
    for (int gzip = 0; gzip < 2; gzip++) {
        nq_http_response get, head, nm;
        get_checked(&s, "/solve?n=12", gzip, true, &get);
        ck_assert(gzip || (long)get.body_len >= LARGE);
        ck_assert(nq_http_request(&s, "HEAD", "/solve?n=12", gzip ? gzip_hdr : NULL, &head));
        ck_assert_int_eq(head.status, 200);
        ck_assert_uint_eq(head.body_len, 0);
        ck_assert_str_eq(nq_http_header_get(&head, "Content-Length"), nq_http_header_get(&get, "Content-Length"));
        char inm[160];
        snprintf(inm, sizeof inm, "If-None-Match: %s", nq_http_header_get(&get, "ETag"));
        const char *const hdrs[] = {inm, gzip ? gzip_hdr[0] : NULL, NULL};
        ck_assert(nq_http_request(&s, "GET", "/solve?n=12", hdrs, &nm));
        ck_assert_int_eq(nm.status, 304);
        ck_assert_uint_eq(nm.body_len, 0);
        const char *len = nq_http_header_get(&nm, "Content-Length");
        ck_assert(len == NULL || strcmp(len, nq_http_header_get(&get, "Content-Length")) == 0);
        nq_http_response_free(&get);
        nq_http_response_free(&head);
        nq_http_response_free(&nm);
    }
    /* The connection is still good after all that. */
    nq_http_response r;
    ck_assert(nq_http_get(&s, "/count?n=8", &r));
    ck_assert_str_eq(r.body, "{\"n\":8,\"total\":92,\"unique\":12}");
    nq_http_response_free(&r);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
}
END_TEST

/* A cold body of NQ_APP_GZIP_LATER_BYTES (256 KiB) or more is answered at once in identity form, also
 * to a client that takes gzip; its gzip form follows, the same bytes compressed. A smaller body's
 * first answer is already gzip. */
START_TEST(large_bodies_answer_before_their_gzip_form_is_made)
{
    nq_test_server s;
    ck_assert(nq_harness_start(&s, big_cache, NULL));
    nq_http_response cold, gz, small;
    ck_assert(nq_http_request(&s, "GET", "/solve?n=12", gzip_hdr, &cold));
    ck_assert_int_eq(cold.status, 200);
    ck_assert_ptr_null(nq_http_header_get(&cold, "Content-Encoding"));
    ck_assert_str_eq(nq_http_header_get(&cold, "Vary"), "Accept, Accept-Encoding");
    ck_assert_int_eq(strtol(nq_http_header_get(&cold, "Content-Length"), NULL, 10), (long)cold.body_len);
    ck_assert_int_ge((long)cold.body_len, LARGE);
    const char *tag = nq_http_header_get(&cold, "ETag");
    ck_assert_uint_eq(strlen(tag), 18); /* "<16 hex>": the identity form's */
    ck_assert(nq_harness_get_gzip(&s, "/solve?n=12", 60, &gz));
    char want[40];
    snprintf(want, sizeof want, "W/%.17s-gzip\"", tag);
    ck_assert_str_eq(nq_http_header_get(&gz, "ETag"), want);
    assert_gunzips_to(&gz, &cold);
    char *inflated = NULL;
    size_t inflated_len = 0;
    /* n = 10: 724 boards, some 30 KB, compressed before its first answer. */
    ck_assert(nq_http_request(&s, "GET", "/solve?n=10", gzip_hdr, &small));
    ck_assert_int_eq(small.status, 200);
    ck_assert_str_eq(nq_http_header_get(&small, "Content-Encoding"), "gzip");
    ck_assert(nq_harness_gunzip(small.body, small.body_len, &inflated, &inflated_len));
    cJSON *j = cJSON_ParseWithLength(inflated, inflated_len);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(cJSON_GetObjectItemCaseSensitive(j, "total")->valueint, 724);
    cJSON_Delete(j);
    free(inflated);
    nq_http_response_free(&cold);
    nq_http_response_free(&gz);
    nq_http_response_free(&small);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
}
END_TEST

static Suite *cache_large_suite(void)
{
    Suite *const s = suite_create("cache_large");
    TCase *const tc = tcase_create("cache_large");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, gzip_and_identity_agree_large_and_small);
    tcase_add_test(tc, bodies_just_below_and_above_the_gzip_threshold);
    tcase_add_test(tc, cached_answer_equals_streamed_one);
    tcase_add_test(tc, gzip_forms_share_a_weak_tag);
    tcase_add_test(tc, head_and_304_state_the_length_without_a_body);
    tcase_add_test(tc, large_bodies_answer_before_their_gzip_form_is_made);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return nq_check_run(cache_large_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
