/* test_compress.c - Check unit tests of the gzip helpers (src/server/cache/compress.c): Accept-Encoding
 * negotiation (table-driven), whole-buffer gzip and the pull stream, each checked by inflating the
 * output with zlib and comparing it with the input.
 */
#define ZLIB_CONST /* inflate's next_in points to const */
#include "cache/compress.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check_run.h"

/* Rows in a table, as the int tcase_add_loop_test takes. */
#define ROWS(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* ---- negotiation ------------------------------------------------------------------------------ */

static const struct {
    const char *header; /* Accept-Encoding value; NULL: header absent */
    nq_encoding want;
} negotiate_rows[] = {
    {NULL, NQ_ENCODING_IDENTITY},
    {"", NQ_ENCODING_IDENTITY},
    {"gzip", NQ_ENCODING_GZIP},
    {"GZIP", NQ_ENCODING_GZIP},
    {"x-gzip", NQ_ENCODING_GZIP},
    {"gzip, deflate, br", NQ_ENCODING_GZIP},
    {"deflate, br", NQ_ENCODING_IDENTITY},
    {"br;q=1.0, gzip;q=0.8, *;q=0.1", NQ_ENCODING_GZIP},
    {"  gzip  ;  q=0.5  ", NQ_ENCODING_GZIP},
    {"\tgzip\t;\tq=1", NQ_ENCODING_GZIP},
    {"gzip;Q=0.5", NQ_ENCODING_GZIP},
    {"gzip;q=0", NQ_ENCODING_IDENTITY},
    {"gzip;q=0.0", NQ_ENCODING_IDENTITY},
    {"gzip;q=0.000", NQ_ENCODING_IDENTITY},
    {"gzip;q=0.001", NQ_ENCODING_GZIP},
    {"gzip;q=1.000", NQ_ENCODING_GZIP},
    {"*", NQ_ENCODING_GZIP},
    {"*;q=0", NQ_ENCODING_NONE},
    {"*;q=0, identity", NQ_ENCODING_IDENTITY},
    {"*;q=0, gzip", NQ_ENCODING_GZIP},
    {"gzip;q=0, *", NQ_ENCODING_IDENTITY},
    {"gzip;q=0.5, *", NQ_ENCODING_IDENTITY}, /* "*" weighs identity at 1 */
    {"gzip;q=0.5, *;q=0.2", NQ_ENCODING_GZIP},
    {"identity;q=0", NQ_ENCODING_NONE},
    {"identity;q=0, gzip;q=0", NQ_ENCODING_NONE},
    {"identity;q=0, gzip;q=0.1", NQ_ENCODING_GZIP},
    {"identity", NQ_ENCODING_IDENTITY},
    {"identity;q=1, gzip;q=0.5", NQ_ENCODING_IDENTITY},
    {"identity;q=0.5, gzip;q=0.5", NQ_ENCODING_GZIP},
    {"identity;q=0.5, gzip;q=0.6", NQ_ENCODING_GZIP},
    {"gzip;q=0.3, identity;q=0.4", NQ_ENCODING_IDENTITY},
    {"gzip, gzip;q=0", NQ_ENCODING_GZIP},     /* first weight counts */
    {"gzip;q=0, gzip", NQ_ENCODING_IDENTITY}, /* first weight counts */
    {"gzip;q=2", NQ_ENCODING_IDENTITY},       /* bad q: element ignored */
    {"gzip;q=1.5", NQ_ENCODING_IDENTITY},     /* bad q */
    {"gzip;q=0.1234", NQ_ENCODING_IDENTITY},  /* more than three decimals */
    {"gzip;q=-0", NQ_ENCODING_IDENTITY},      /* sign */
    {"gzip;q=", NQ_ENCODING_IDENTITY},        /* empty q */
    {"gzip;q=abc", NQ_ENCODING_IDENTITY},     /* not a number */
    {"gzip;q", NQ_ENCODING_IDENTITY},         /* parameter without value */
    {"gzip q=1", NQ_ENCODING_IDENTITY},       /* junk after the coding */
    {"gzip;q=2, *", NQ_ENCODING_GZIP},        /* bad element ignored, * still applies */
    {",,gzip,,", NQ_ENCODING_GZIP},           /* empty list elements are allowed */
    {"gzip;level=9;q=0.7", NQ_ENCODING_GZIP}, /* unknown parameters are skipped */
    {"gzipx", NQ_ENCODING_IDENTITY},          /* a different coding */
    {"gzi", NQ_ENCODING_IDENTITY},
    {"identity;q=0, *;q=0.5", NQ_ENCODING_GZIP},
    {"\xc3\xa9gzip", NQ_ENCODING_IDENTITY}, /* non-ASCII: not a token */
};

START_TEST(test_negotiate)
{
    const nq_encoding got = nq_compress_negotiate(negotiate_rows[_i].header);
    ck_assert_msg(got == negotiate_rows[_i].want, "Accept-Encoding \"%s\": got %d, want %d",
                  negotiate_rows[_i].header ? negotiate_rows[_i].header : "(absent)", (int)got,
                  (int)negotiate_rows[_i].want);
}
END_TEST

/* ---- helpers ---------------------------------------------------------------------------------- */

/* Grow *buf to cap bytes; the test fails (and ends) if memory runs out. */
static void grow(char **buf, size_t cap)
{
    char *const grown = realloc(*buf, cap);
    ck_assert_ptr_nonnull(grown);
    *buf = grown;
}

/* Inflate a complete gzip member; returns a malloc'd buffer of *out_len bytes, or NULL if the data is
 * not exactly one valid gzip member (CRC and length are checked by zlib). */
static char *gunzip(const char *in, size_t len, size_t *out_len)
{
    z_stream z = {0};
    ck_assert_int_eq(inflateInit2(&z, 15 + 16), Z_OK);
    size_t cap = len * 4u + 64u;
    char *out = NULL;
    grow(&out, cap);
    z.next_in = (const Bytef *)in;
    z.avail_in = (uInt)len;
    int rc = Z_OK;
    while (rc == Z_OK) {
        if (z.total_out == cap) {
            cap *= 2u;
            grow(&out, cap);
        }
        z.next_out = (Bytef *)out + z.total_out;
        z.avail_out = (uInt)(cap - z.total_out);
        rc = inflate(&z, Z_NO_FLUSH);
    }
    const bool ok = rc == Z_STREAM_END && z.avail_in == 0;
    *out_len = z.total_out;
    inflateEnd(&z);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* A JSON-like, compressible test body of len bytes, the same for the same len. */
static char *make_body(size_t len)
{
    char *const b = malloc(len > 0 ? len : 1u);
    ck_assert_ptr_nonnull(b);
    uint32_t x = 12345u;
    for (size_t i = 0; i < len; i++) {
        x = x * 1664525u + 1013904223u;
        b[i] = ".Q.,[]\""[(x >> 24) % 7u];
    }
    return b;
}

/* ---- whole buffers ---------------------------------------------------------------------------- */

static const struct {
    size_t len;
    int level;
} buffer_rows[] = {
    {0, 6}, {1, 6}, {1023, 1}, {1024, 6}, {65536, 0}, {65536, 1}, {65536, 9}, {3u << 20, 6},
};

START_TEST(test_buffer_roundtrip)
{
    const size_t len = buffer_rows[_i].len;
    char *const body = make_body(len);
    char *gz = NULL;
    size_t gz_len = 0;
    ck_assert_int_eq(nq_compress_buffer(body, len, buffer_rows[_i].level, &gz, &gz_len), NQ_OK);
    ck_assert_uint_ge(gz_len, 18); /* 10-byte header + 8-byte trailer at least */
    ck_assert_uint_eq((unsigned char)gz[0], 0x1f);
    ck_assert_uint_eq((unsigned char)gz[1], 0x8b);
    if (len >= 65536 && buffer_rows[_i].level > 0) {
        ck_assert_uint_lt(gz_len, len / 2u); /* the body is compressible */
    }
    size_t plain_len = 0;
    char *const plain = gunzip(gz, gz_len, &plain_len);
    ck_assert_ptr_nonnull(plain);
    ck_assert_uint_eq(plain_len, len);
    ck_assert(len == 0 || memcmp(plain, body, len) == 0);
    free(plain);
    free(gz);
    free(body);
}
END_TEST

START_TEST(test_buffer_arguments)
{
    char *gz = NULL;
    size_t gz_len = 0;
    ck_assert_int_eq(nq_compress_buffer(NULL, 1, 6, &gz, &gz_len), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_buffer("x", 1, 10, &gz, &gz_len), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_buffer("x", 1, -1, &gz, &gz_len), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_buffer("x", 1, 6, NULL, &gz_len), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_buffer("x", 1, 6, &gz, NULL), NQ_E_ARG);
    ck_assert_ptr_null(gz);
    ck_assert_int_eq(nq_compress_buffer(NULL, 0, 6, &gz, &gz_len), NQ_OK); /* empty body */
    free(gz);
}
END_TEST

/* ---- streaming -------------------------------------------------------------------------------- */

/* A source handing out body[0..len) in pieces of at most `piece` bytes, failing at fail_at if set. */
typedef struct source {
    const char *body;
    size_t len;
    size_t pos;
    size_t piece;
    size_t fail_at; /* SIZE_MAX: never fail */
    unsigned calls; /* calls after the end was reported */
} source;

static nq_err source_read(void *p, char *buf, size_t cap, size_t *len)
{
    source *const s = p;
    if (s->pos >= s->fail_at) {
        return NQ_E_CANCELED;
    }
    if (s->pos == s->len) {
        s->calls++;
    }
    size_t n = s->len - s->pos;
    n = n < cap ? n : cap;
    n = n < s->piece ? n : s->piece;
    memcpy(buf, s->body + s->pos, n);
    s->pos += n;
    *len = n;
    return NQ_OK;
}

/* Drain a stream with reads of `cap` bytes into one buffer; returns the stream's final status. */
static nq_err drain(nq_compress_stream *st, size_t cap, char **out, size_t *out_len)
{
    size_t room = (size_t)1 << 16;
    size_t used = 0;
    char *acc = NULL;
    grow(&acc, room);
    char *const chunk = malloc(cap);
    ck_assert_ptr_nonnull(chunk);
    nq_err err = NQ_OK;
    for (;;) {
        size_t got = 0;
        err = nq_compress_stream_read(st, chunk, cap, &got);
        if (err != NQ_OK || got == 0) {
            break;
        }
        ck_assert_uint_le(got, cap);
        if (used + got > room) {
            room = (used + got) * 2u;
            grow(&acc, room);
        }
        memcpy(acc + used, chunk, got);
        used += got;
    }
    free(chunk);
    *out = acc;
    *out_len = used;
    return err;
}

static const struct {
    size_t len;    /* body length */
    size_t piece;  /* the source's largest piece */
    size_t in_cap; /* the stream's input buffer (0: default) */
    size_t cap;    /* the reader's buffer */
    int level;
} stream_rows[] = {
    {0, 100, 0, 4096, 1}, /* empty body: still a valid gzip member */
    {10, 3, 4, 1, 1},     /* one output byte at a time */
    {100000, 7, 0, 7, 1}, /* tiny pieces in, tiny chunks out */
    {100000, 1u << 20, 1024, 32768, 6},
    {1u << 20, 65536, 0, 65536, 1}, /* MHD-sized chunks */
    {3u << 20, 4096, 0, 16384, 1},
};

START_TEST(test_stream_roundtrip)
{
    const size_t len = stream_rows[_i].len;
    char *const body = make_body(len);
    source src = {.body = body, .len = len, .piece = stream_rows[_i].piece, .fail_at = SIZE_MAX};
    nq_compress_stream *st = NULL;
    ck_assert_int_eq(nq_compress_stream_create(source_read, &src, stream_rows[_i].level, stream_rows[_i].in_cap, &st),
                     NQ_OK);
    char *gz = NULL;
    size_t gz_len = 0;
    ck_assert_int_eq(drain(st, stream_rows[_i].cap, &gz, &gz_len), NQ_OK);
    ck_assert_uint_eq(nq_compress_stream_in_bytes(st), len);
    /* Once complete, it stays complete without asking the source again. */
    const unsigned calls = src.calls;
    char byte;
    size_t got = 99;
    ck_assert_int_eq(nq_compress_stream_read(st, &byte, 1, &got), NQ_OK);
    ck_assert_uint_eq(got, 0);
    ck_assert_uint_eq(src.calls, calls);
    nq_compress_stream_destroy(st);

    size_t plain_len = 0;
    char *const plain = gunzip(gz, gz_len, &plain_len);
    ck_assert_ptr_nonnull(plain);
    ck_assert_uint_eq(plain_len, len);
    ck_assert(len == 0 || memcmp(plain, body, len) == 0);
    free(plain);
    free(gz);
    free(body);
}
END_TEST

START_TEST(test_stream_matches_buffer_decoding)
{
    /* The streamed and the one-shot forms differ in bytes but decode to the same body. */
    const size_t len = 200000;
    char *const body = make_body(len);
    source src = {.body = body, .len = len, .piece = 5000, .fail_at = SIZE_MAX};
    nq_compress_stream *st = NULL;
    ck_assert_int_eq(nq_compress_stream_create(source_read, &src, NQ_COMPRESS_LEVEL_STREAM, 0, &st), NQ_OK);
    char *streamed = NULL;
    size_t streamed_len = 0;
    ck_assert_int_eq(drain(st, 8192, &streamed, &streamed_len), NQ_OK);
    nq_compress_stream_destroy(st);
    char *once = NULL;
    size_t once_len = 0;
    ck_assert_int_eq(nq_compress_buffer(body, len, NQ_COMPRESS_LEVEL_ONCE, &once, &once_len), NQ_OK);
    size_t a_len = 0;
    size_t b_len = 0;
    char *const a = gunzip(streamed, streamed_len, &a_len);
    char *const b = gunzip(once, once_len, &b_len);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(a_len, b_len);
    ck_assert_mem_eq(a, b, a_len);
    free(a);
    free(b);
    free(once);
    free(streamed);
    free(body);
}
END_TEST

START_TEST(test_stream_source_error)
{
    const size_t len = 500000;
    char *const body = make_body(len);
    source src = {.body = body, .len = len, .piece = 1000, .fail_at = 300000};
    nq_compress_stream *st = NULL;
    ck_assert_int_eq(nq_compress_stream_create(source_read, &src, 1, 0, &st), NQ_OK);
    char *gz = NULL;
    size_t gz_len = 0;
    ck_assert_int_eq(drain(st, 4096, &gz, &gz_len), NQ_E_CANCELED);
    /* The error is sticky. */
    char buf[16];
    size_t got = 99;
    ck_assert_int_eq(nq_compress_stream_read(st, buf, sizeof buf, &got), NQ_E_CANCELED);
    ck_assert_uint_eq(got, 0);
    ck_assert_uint_le(nq_compress_stream_in_bytes(st), 300000);
    nq_compress_stream_destroy(st);
    size_t plain_len = 0;
    ck_assert_ptr_null(gunzip(gz, gz_len, &plain_len)); /* truncated: no valid trailer */
    free(gz);
    free(body);
}
END_TEST

START_TEST(test_stream_arguments)
{
    source src = {.fail_at = SIZE_MAX, .piece = 1};
    nq_compress_stream *st = NULL;
    ck_assert_int_eq(nq_compress_stream_create(NULL, &src, 1, 0, &st), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_stream_create(source_read, &src, 1, 0, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_stream_create(source_read, &src, 10, 0, &st), NQ_E_ARG);
    ck_assert_ptr_null(st);
    ck_assert_int_eq(nq_compress_stream_create(source_read, &src, 1, 0, &st), NQ_OK);
    char buf[4];
    size_t got = 0;
    ck_assert_int_eq(nq_compress_stream_read(st, buf, 0, &got), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_stream_read(st, NULL, 4, &got), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_stream_read(st, buf, 4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_compress_stream_read(NULL, buf, 4, &got), NQ_E_ARG);
    ck_assert_uint_eq(nq_compress_stream_in_bytes(NULL), 0);
    nq_compress_stream_destroy(st);
    nq_compress_stream_destroy(NULL);
}
END_TEST

static Suite *compress_suite(void)
{
    Suite *const s = suite_create("compress");
    TCase *const tc = tcase_create("unit");
    tcase_set_timeout(tc, 30);
    tcase_add_loop_test(tc, test_negotiate, 0, ROWS(negotiate_rows));
    tcase_add_loop_test(tc, test_buffer_roundtrip, 0, ROWS(buffer_rows));
    tcase_add_test(tc, test_buffer_arguments);
    tcase_add_loop_test(tc, test_stream_roundtrip, 0, ROWS(stream_rows));
    tcase_add_test(tc, test_stream_matches_buffer_decoding);
    tcase_add_test(tc, test_stream_source_error);
    tcase_add_test(tc, test_stream_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(compress_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
