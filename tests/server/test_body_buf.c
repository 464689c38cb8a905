/* test_body_buf.c - a request body as it arrives (src/server/http/body_buf.h): it holds every byte up to
 * its cap and refuses the first byte past it, whole appends only; it allocates nothing before the
 * first byte, never more than the cap, and never more than an announced length; buffers sharing a
 * budget hold no more than it together. */
#include "base/errors.h"
#include "http/body_buf.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

/* Appends of these sizes, in order, against a cap and an announced length (0: chunked). */
static const struct {
    size_t cap;
    uint64_t expect;
    size_t pieces[4]; /* 0 ends the list */
    size_t held;      /* bytes held at the end */
    size_t refused;   /* index of the piece refused as too large, or 4 when none is */
    size_t alloc_max; /* the allocation may never exceed this */
} rows[] = {
    {1u << 20, 0, {1, 0}, 1, 4, 4096},                               /* one byte: the first block */
    {1u << 20, 0, {5000, 5000, 0}, 10000, 4, 16384},                 /* doubling */
    {1u << 20, 0, {1u << 20, 0}, 1u << 20, 4, 1u << 20},             /* exactly the cap, at once */
    {1u << 20, 0, {(1u << 20) - 1, 1, 1, 0}, 1u << 20, 2, 1u << 20}, /* the byte past the cap */
    {1u << 20, 0, {(1u << 20) + 1, 0}, 0, 0, 0},                     /* too large at once: nothing held */
    {1u << 20, 27, {27, 0}, 27, 4, 27},                              /* an announced length bounds it */
    {1u << 20, 100000, {4096, 4096, 4096, 0}, 12288, 4, 100000},     /* ... while it trickles too */
    {64, 0, {32, 32, 1, 0}, 64, 2, 64},                              /* a cap below the first block */
    {1u << 20, 0, {0, 0}, 0, 4, 0},                                  /* nothing, nothing allocated */
};

START_TEST(test_rows)
{
    nq_body_buf b;
    nq_body_budget budget;
    nq_body_budget_init(&budget, (size_t)1 << 30);
    nq_body_buf_init(&b, &budget, rows[_i].cap, rows[_i].expect);
    ck_assert_ptr_null(b.data);
    size_t held = 0;
    for (size_t i = 0; i < 4 && (rows[_i].pieces[i] > 0 || i == 0); i++) {
        const size_t n = rows[_i].pieces[i];
        char *piece = malloc(n + 1);
        ck_assert_ptr_nonnull(piece);
        memset(piece, 'a' + (int)i, n);
        const nq_err rc = nq_body_buf_append(&b, piece, n);
        if (i == rows[_i].refused) {
            ck_assert_int_eq(rc, NQ_E_BODY_TOO_LARGE);
            ck_assert_uint_eq(b.len, held); /* nothing of it was kept */
        } else {
            ck_assert_int_eq(rc, NQ_OK);
            if (n > 0) ck_assert_mem_eq(b.data + held, piece, n);
            held += n;
        }
        free(piece);
        ck_assert_uint_le(b.alloc, rows[_i].alloc_max);
        ck_assert_uint_le(b.alloc, rows[_i].cap);
        ck_assert_uint_eq(nq_body_budget_used(&budget), b.alloc); /* charged exactly what it holds */
        if (n == 0) break;
    }
    ck_assert_uint_eq(b.len, rows[_i].held);
    nq_body_buf_free(&b);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.len, 0);
    ck_assert_int_eq(nq_body_buf_append(&b, "x", 1), NQ_OK); /* usable again after a free */
    nq_body_buf_free(&b);
    nq_body_buf_free(NULL);
    ck_assert_uint_eq(nq_body_budget_used(&budget), 0);
}
END_TEST

/* Buffers share a budget: growth past it is refused (NQ_E_BUSY, nothing kept) while others hold it,
 * and freeing one gives its bytes back. */
START_TEST(test_budget_shared)
{
    nq_body_budget budget;
    nq_body_budget_init(&budget, 20000);
    nq_body_buf a, b, c;
    nq_body_buf_init(&a, &budget, 1u << 20, 8192);
    nq_body_buf_init(&b, &budget, 1u << 20, 8192);
    nq_body_buf_init(&c, &budget, 1u << 20, 0);
    char piece[8192];
    memset(piece, 'p', sizeof piece);
    ck_assert_int_eq(nq_body_buf_append(&a, piece, sizeof piece), NQ_OK);
    ck_assert_int_eq(nq_body_buf_append(&b, piece, sizeof piece), NQ_OK);
    ck_assert_uint_eq(nq_body_budget_used(&budget), 16384);
    ck_assert_int_eq(nq_body_buf_append(&c, piece, 1), NQ_E_BUSY); /* its first block, 4096, would pass it */
    ck_assert_uint_eq(c.len, 0);
    ck_assert_ptr_null(c.data);
    ck_assert_uint_eq(nq_body_budget_used(&budget), 16384);
    nq_body_buf_free(&a);
    ck_assert_uint_eq(nq_body_budget_used(&budget), 8192);
    ck_assert_int_eq(nq_body_buf_append(&c, piece, 4097), NQ_OK);
    ck_assert_uint_eq(nq_body_budget_used(&budget), 16384);
    nq_body_buf_free(&b);
    nq_body_buf_free(&c);
    ck_assert_uint_eq(nq_body_budget_used(&budget), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("body_buf");
    TCase *tc = tcase_create("body_buf");
    tcase_add_loop_test(tc, test_rows, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, test_budget_shared);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
