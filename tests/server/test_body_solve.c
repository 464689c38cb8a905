/* test_body_solve.c - Check tests of the /solve body renderer (src/server/app/body_solve.h): exact bodies,
 * formats, NDJSON, paging and next links, and that streaming in tiny pieces gives the same bytes. */
#include "base/errors.h"
#include "routes/solve_body.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

static nq_solve_spec spec_for(int n)
{
    nq_solve_spec s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.limit = 1000000;
    return s;
}

static char *render(const nq_solve_spec *s)
{
    char *body = NULL;
    size_t len = 0;
    ck_assert_int_eq(nq_body_solve_render(s, 1u << 26, &body, &len), NQ_OK);
    ck_assert_uint_le(len, nq_body_solve_size_max(s));
    char *z = malloc(len + 1);
    memcpy(z, body, len);
    z[len] = '\0';
    free(body);
    return z;
}

/* Bodies given exactly. */
typedef struct body_row {
    int n;
    nq_format format;
    bool unique, ndjson, has_total, limit_given;
    uint64_t total, limit, offset;
    const char *after; /* columns, or NULL */
    const char *body;
} body_row;

static const body_row bodies[] = {
    {4, NQ_FORMAT_BOARD, false, false, true, false, 2, 1000000, 0, NULL,
     "{\"n\":4,\"total\":2,\"solutions\":[[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"],"
     "[\"..Q.\",\"Q...\",\"...Q\",\".Q..\"]],\"next\":null}"},
    {4, NQ_FORMAT_COLUMNS, false, false, false, false, 0, 1000000, 0, NULL,
     "{\"n\":4,\"total\":null,\"solutions\":[[1,3,0,2],[2,0,3,1]],\"next\":null}"},
    {4, NQ_FORMAT_COLUMNS, false, true, true, false, 2, 1000000, 0, NULL, "[1,3,0,2]\n[2,0,3,1]\n"},
    {4, NQ_FORMAT_BOARD, false, true, true, false, 2, 1000000, 0, NULL,
     "[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"]\n[\"..Q.\",\"Q...\",\"...Q\",\".Q..\"]\n"},
    {4, NQ_FORMAT_COLUMNS, false, false, true, true, 2, 1, 0, NULL,
     "{\"n\":4,\"total\":2,\"solutions\":[[1,3,0,2]],\"next\":\"/solve?n=4&format=columns&limit=1&after=1,3,0,2\"}"},
    {4, NQ_FORMAT_COLUMNS, false, false, true, true, 2, 1, 1, NULL,
     "{\"n\":4,\"total\":2,\"solutions\":[[2,0,3,1]],\"next\":null}"},
    {4, NQ_FORMAT_COLUMNS, false, false, true, true, 2, 1, 0, "1,3,0,2",
     "{\"n\":4,\"total\":2,\"solutions\":[[2,0,3,1]],\"next\":null}"},
    {4, NQ_FORMAT_COLUMNS, false, false, true, false, 2, 5, 7, NULL,
     "{\"n\":4,\"total\":2,\"solutions\":[],\"next\":null}"},
    {3, NQ_FORMAT_BOARD, false, false, true, false, 0, 10, 0, NULL,
     "{\"n\":3,\"total\":0,\"solutions\":[],\"next\":null}"},
    {1, NQ_FORMAT_BOARD, false, false, true, false, 1, 10, 0, NULL,
     "{\"n\":1,\"total\":1,\"solutions\":[[\"Q\"]],\"next\":null}"},
    {6, NQ_FORMAT_COLUMNS, true, false, true, true, 1, 1, 0, NULL,
     "{\"n\":6,\"total\":1,\"solutions\":[[1,3,5,0,2,4]],\"next\":null}"},
    {11, NQ_FORMAT_COLUMNS, false, false, false, true, 0, 1, 0, NULL,
     "{\"n\":11,\"total\":null,\"solutions\":[[0,2,4,6,8,10,1,3,5,7,9]],"
     "\"next\":\"/solve?n=11&format=columns&limit=1&after=0,2,4,6,8,10,1,3,5,7,9\"}"},
};

START_TEST(test_exact_bodies)
{
    const body_row *r = &bodies[_i];
    nq_solve_spec s = spec_for(r->n);
    s.format = r->format;
    s.unique = r->unique;
    s.ndjson = r->ndjson;
    s.has_total = r->has_total;
    s.total = r->total;
    s.limit = r->limit;
    s.limit_given = r->limit_given;
    s.offset = r->offset;
    if (r->after) {
        s.has_after = true;
        ck_assert_int_eq(nq_parse_columns(r->n, r->after, strlen(r->after), s.after), NQ_OK);
    }
    char *body = render(&s);
    ck_assert_str_eq(body, r->body);
    free(body);
}
END_TEST

/* Reading in pieces of every small size gives the same bytes as rendering at once. */
START_TEST(test_stream_pieces)
{
    nq_solve_spec s = spec_for(8);
    s.has_total = true;
    s.total = 92;
    char *whole = render(&s);
    const size_t piece = (size_t)_i + 1;
    nq_body_solve *b = NULL;
    ck_assert_int_eq(nq_body_solve_create(&s, &b), NQ_OK);
    char *got = calloc(strlen(whole) + 64, 1);
    size_t used = 0, len = 0;
    do {
        ck_assert_int_eq(nq_body_solve_read(b, got + used, piece, &len), NQ_OK);
        ck_assert_uint_le(len, piece);
        used += len;
        ck_assert_uint_le(used, strlen(whole));
    } while (len > 0);
    ck_assert_str_eq(got, whole);
    nq_body_solve_destroy(b);
    free(got);
    free(whole);
}
END_TEST

/* The solution size is the same for every solution, and the bound holds for every page. */
START_TEST(test_sizes)
{
    ck_assert_uint_eq(nq_body_solve_solution_size(4, NQ_FORMAT_BOARD), strlen("[\".Q..\",\"...Q\",\"Q...\",\"..Q.\"]"));
    ck_assert_uint_eq(nq_body_solve_solution_size(4, NQ_FORMAT_COLUMNS), strlen("[1,3,0,2]"));
    ck_assert_uint_eq(nq_body_solve_solution_size(12, NQ_FORMAT_COLUMNS), strlen("[0,2,4,7,9,11,5,10,1,6,8,3]"));
    nq_solve_spec s = spec_for(12);
    s.has_total = true;
    s.total = 14200;
    char *body = render(&s);
    /* 14200 solutions of 12 rows of 14 bytes plus 11 commas and brackets, 14199 commas. */
    ck_assert_uint_eq(strlen(body), strlen("{\"n\":12,\"total\":14200,\"solutions\":[") + (size_t)14200 * 181 + 14199 +
                                        strlen("],\"next\":null}"));
    free(body);
    s.limit = 10;
    ck_assert_uint_lt(nq_body_solve_size_max(&s), (size_t)10 * 182 + 400);
    char *out = NULL;
    size_t len = 0;
    s.limit = 1000000;
    ck_assert_int_eq(nq_body_solve_render(&s, 1000, &out, &len), NQ_E_TOO_LARGE);
}
END_TEST

/* Walking n=8 in pages of 7 through next links gives the whole list, in order. */
START_TEST(test_pages_concatenate)
{
    nq_solve_spec all = spec_for(8);
    all.format = NQ_FORMAT_COLUMNS;
    all.ndjson = true;
    char *whole = render(&all);
    char joined[8192] = "";
    size_t joined_len = 0;
    nq_solve_spec page = all;
    page.limit = 7;
    page.limit_given = true;
    for (int pages = 0;; pages++) {
        ck_assert_int_lt(pages, 14);
        char *body = render(&page);
        const size_t body_len = strlen(body);
        ck_assert_uint_lt(joined_len + body_len, sizeof joined);
        memcpy(joined + joined_len, body, body_len + 1);
        joined_len += body_len;
        const char *last = body + strlen(body) - 1; /* points at the final '\n' */
        while (last > body && last[-1] != '\n') last--;
        /* the last line "[c0,...]\n" is the next cursor */
        char cursor[64];
        const size_t cl = strlen(last) - 3;
        memcpy(cursor, last + 1, cl);
        free(body);
        if (joined_len == strlen(whole)) break;
        page.has_after = true;
        ck_assert_int_eq(nq_parse_columns(8, cursor, cl, page.after), NQ_OK);
    }
    ck_assert_str_eq(joined, whole);
    free(whole);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("body_solve");
    TCase *tc = tcase_create("render");
    tcase_add_loop_test(tc, test_exact_bodies, 0, (int)(sizeof bodies / sizeof bodies[0]));
    tcase_add_loop_test(tc, test_stream_pieces, 0, 40);
    tcase_add_test(tc, test_sizes);
    tcase_add_test(tc, test_pages_concatenate);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
