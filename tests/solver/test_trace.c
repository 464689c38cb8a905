/* test_trace.c - Check suite for the search trace (trace.h), against a reference written here.
 *
 * The reference is the textbook recursion itself, emitting each event as it happens; the library's
 * state machine must produce the same sequence for n = 1..8 (and the published step counts), the
 * same when read in pages resumed through cursors or started at any step, and must reject every
 * damaged cursor (each byte changed, truncations, another n, impossible states).
 */
#include "nqueens/trace.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

/* ---- the reference ---------------------------------------------------------------------------- */

typedef struct ref {
    int n;
    nq_trace_step *steps; /* the whole trace */
    size_t len, cap;
    int cols[NQ_N_MAX];
} ref;

static void emit(ref *x, nq_trace_op op, int r, int c, nq_trace_rule by)
{
    if (x->len == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 64;
        x->steps = realloc(x->steps, x->cap * sizeof *x->steps);
        ck_assert_ptr_nonnull(x->steps);
    }
    nq_trace_step *s = &x->steps[x->len];
    memset(s, 0, sizeof *s);
    s->step = x->len++;
    s->op = op, s->by = by, s->row = (uint8_t)r, s->col = (uint8_t)c;
    if (op == NQ_TRACE_SOLUTION) {
        s->row = s->col = 0;
        for (int i = 0; i < x->n; i++) s->columns[i] = (uint8_t)x->cols[i];
    }
}

/* The first rule (r, c) breaks against the queens of rows 0..r-1, looked at one by one. */
static nq_trace_rule first_broken(const ref *x, int r, int c)
{
    for (int i = 0; i < r; i++)
        if (x->cols[i] == c) return NQ_TRACE_BY_COLUMN;
    for (int i = 0; i < r; i++)
        if (i - x->cols[i] == r - c) return NQ_TRACE_BY_DIAGONAL;
    for (int i = 0; i < r; i++)
        if (i + x->cols[i] == r + c) return NQ_TRACE_BY_ANTI_DIAGONAL;
    return NQ_TRACE_BY_NONE;
}

static void ref_row(ref *x, int r)
{
    for (int c = 0; c < x->n; c++) {
        const nq_trace_rule by = first_broken(x, r, c);
        if (by != NQ_TRACE_BY_NONE) {
            emit(x, NQ_TRACE_REJECT, r, c, by);
            continue;
        }
        x->cols[r] = c;
        emit(x, NQ_TRACE_PLACE, r, c, NQ_TRACE_BY_NONE);
        if (r == x->n - 1)
            emit(x, NQ_TRACE_SOLUTION, 0, 0, NQ_TRACE_BY_NONE);
        else
            ref_row(x, r + 1);
        emit(x, NQ_TRACE_REMOVE, r, c, NQ_TRACE_BY_NONE);
    }
}

static ref make_ref(int n)
{
    ref x;
    memset(&x, 0, sizeof x);
    x.n = n;
    ref_row(&x, 0);
    return x;
}

static void same_step(const nq_trace_step *a, const nq_trace_step *b, int n)
{
    ck_assert_uint_eq(a->step, b->step);
    ck_assert_int_eq(a->op, b->op);
    ck_assert_int_eq(a->by, b->by);
    if (a->op == NQ_TRACE_SOLUTION)
        ck_assert_mem_eq(a->columns, b->columns, (size_t)n);
    else {
        ck_assert_uint_eq(a->row, b->row);
        ck_assert_uint_eq(a->col, b->col);
    }
}

/* ---- the cases -------------------------------------------------------------------------------- */

static const size_t trace_lengths[] = {0, 3, 8, 23, 78, 283, 1050, 4175, 17868};

/* The whole trace, in one call and one step at a time. */
START_TEST(whole_trace)
{
    const int n = _i;
    ref x = make_ref(n);
    ck_assert_uint_eq(x.len, trace_lengths[n]);
    nq_trace *t = NULL;
    ck_assert_int_eq(nq_trace_create(n, &t), NQ_OK);
    nq_trace_step *got = calloc(x.len + 1, sizeof *got);
    size_t k = 0;
    ck_assert_int_eq(nq_trace_next(t, got, x.len + 1, &k), NQ_OK);
    ck_assert_uint_eq(k, x.len);
    ck_assert(nq_trace_done(t));
    ck_assert_uint_eq(nq_trace_position(t), x.len);
    for (size_t i = 0; i < k; i++) same_step(&got[i], &x.steps[i], n);
    ck_assert_int_eq(nq_trace_next(t, got, 1, &k), NQ_OK);
    ck_assert_uint_eq(k, 0);
    free(got);
    free(x.steps);
    nq_trace_destroy(t);
}
END_TEST

/* Pages of every size up to 40, each resumed from the previous page's cursor in a fresh trace. */
START_TEST(pages_by_cursor)
{
    const int n = _i;
    ref x = make_ref(n);
    for (size_t limit = 1; limit <= 40; limit++) {
        char cursor[NQ_TRACE_CURSOR_MAX] = "";
        size_t at = 0;
        for (bool first = true; first || cursor[0]; first = false) {
            nq_trace *t = NULL;
            ck_assert_int_eq(nq_trace_create(n, &t), NQ_OK);
            if (!first) ck_assert_int_eq(nq_trace_resume(t, cursor, strlen(cursor)), NQ_OK);
            nq_trace_step page[40];
            size_t k = 0;
            ck_assert_int_eq(nq_trace_next(t, page, limit, &k), NQ_OK);
            for (size_t i = 0; i < k; i++) same_step(&page[i], &x.steps[at + i], n);
            at += k;
            cursor[0] = '\0';
            if (!nq_trace_done(t)) {
                size_t len = 0;
                ck_assert_int_eq(nq_trace_cursor(t, cursor, sizeof cursor, &len), NQ_OK);
                ck_assert_uint_eq(len, strlen(cursor));
                ck_assert_uint_eq(strspn(cursor, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"),
                                  len);
            }
            nq_trace_destroy(t);
        }
        ck_assert_uint_eq(at, x.len);
    }
    free(x.steps);
}
END_TEST

/* Starting at step k gives the trace without its first k steps, for every k. */
START_TEST(from_step)
{
    const int n = _i;
    ref x = make_ref(n);
    for (size_t k = 0; k <= x.len + 2; k++) {
        nq_trace *t = NULL;
        ck_assert_int_eq(nq_trace_create(n, &t), NQ_OK);
        uint64_t skipped = 0;
        ck_assert_int_eq(nq_trace_skip(t, k, NULL, &skipped), NQ_OK);
        ck_assert_uint_eq(skipped, k < x.len ? k : x.len);
        nq_trace_step s;
        size_t got = 0;
        ck_assert_int_eq(nq_trace_next(t, &s, 1, &got), NQ_OK);
        ck_assert_uint_eq(got, k < x.len ? 1 : 0);
        if (got) same_step(&s, &x.steps[k], n);
        nq_trace_destroy(t);
    }
    free(x.steps);
}
END_TEST

/* Every single-character change of every cursor of n = 5 is rejected or names a real position
 * (then it must be exactly that position's continuation: checked against the reference). */
START_TEST(tampered_cursors)
{
    const int n = 5;
    ref x = make_ref(n);
    static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ .%";
    size_t accepted = 0;
    for (size_t at = 0; at < x.len; at += 7) {
        nq_trace *t = NULL;
        ck_assert_int_eq(nq_trace_create(n, &t), NQ_OK);
        ck_assert_int_eq(nq_trace_skip(t, at, NULL, NULL), NQ_OK);
        char good[NQ_TRACE_CURSOR_MAX];
        size_t len = 0;
        ck_assert_int_eq(nq_trace_cursor(t, good, sizeof good, &len), NQ_OK);
        for (size_t i = 0; i < len; i++) {
            for (const char *a = alphabet; *a; a++) {
                if (*a == good[i]) continue;
                char bad[NQ_TRACE_CURSOR_MAX];
                memcpy(bad, good, len + 1);
                bad[i] = *a;
                nq_trace *u = NULL;
                ck_assert_int_eq(nq_trace_create(n, &u), NQ_OK);
                const nq_err rc = nq_trace_resume(u, bad, len);
                ck_assert_msg(rc == NQ_E_CURSOR, "cursor %s (from %s) accepted", bad, good);
                ck_assert_uint_eq(nq_trace_position(u), 0); /* unchanged */
                accepted += rc == NQ_OK;
                nq_trace_destroy(u);
            }
        }
        for (size_t cut = 0; cut < len; cut++) { /* truncations */
            nq_trace *u = NULL;
            ck_assert_int_eq(nq_trace_create(n, &u), NQ_OK);
            ck_assert_int_eq(nq_trace_resume(u, good, cut), NQ_E_CURSOR);
            nq_trace_destroy(u);
        }
        nq_trace *other = NULL; /* another board size */
        ck_assert_int_eq(nq_trace_create(6, &other), NQ_OK);
        ck_assert_int_eq(nq_trace_resume(other, good, len), NQ_E_CURSOR);
        nq_trace_destroy(other);
        nq_trace_destroy(t);
    }
    ck_assert_uint_eq(accepted, 0);
    free(x.steps);
}
END_TEST

/* The JSON of each kind of step, as the contract writes it. */
START_TEST(render)
{
    ref x = make_ref(4);
    static const struct {
        size_t step;
        const char *json;
    } rows[] = {
        {0, "{\"step\":0,\"op\":\"place\",\"row\":0,\"col\":0}"},
        {1, "{\"step\":1,\"op\":\"reject\",\"row\":1,\"col\":0,\"by\":\"column\"}"},
        {2, "{\"step\":2,\"op\":\"reject\",\"row\":1,\"col\":1,\"by\":\"diagonal\"}"},
        {3, "{\"step\":3,\"op\":\"place\",\"row\":1,\"col\":2}"},
        {29, "{\"step\":29,\"op\":\"place\",\"row\":3,\"col\":2}"},
        {30, "{\"step\":30,\"op\":\"solution\",\"columns\":[1,3,0,2]}"},
        {31, "{\"step\":31,\"op\":\"remove\",\"row\":3,\"col\":2}"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char out[NQ_TRACE_STEP_JSON_MAX];
        const size_t len = nq_trace_step_render(&x.steps[rows[i].step], 4, out, sizeof out);
        ck_assert_str_eq(out, rows[i].json);
        ck_assert_uint_eq(len, strlen(rows[i].json));
    }
    nq_trace_step big = {.step = UINT64_MAX, .op = NQ_TRACE_SOLUTION};
    memset(big.columns, 31, sizeof big.columns);
    char out[NQ_TRACE_STEP_JSON_MAX];
    ck_assert_uint_gt(nq_trace_step_render(&big, NQ_N_MAX, out, sizeof out), 0);
    ck_assert_uint_eq(nq_trace_step_render(&big, NQ_N_MAX, out, 20), 0);
    free(x.steps);
}
END_TEST

START_TEST(arguments)
{
    nq_trace *t = NULL;
    ck_assert_int_eq(nq_trace_create(0, &t), NQ_E_RANGE);
    ck_assert_int_eq(nq_trace_create(33, &t), NQ_E_RANGE);
    ck_assert_int_eq(nq_trace_create(4, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_trace_create(NQ_N_MAX, &t), NQ_OK);
    char c[NQ_TRACE_CURSOR_MAX];
    ck_assert_int_eq(nq_trace_skip(t, 100000, NULL, NULL), NQ_OK);
    ck_assert_int_eq(nq_trace_cursor(t, c, 8, NULL), NQ_E_BUFSIZE);
    ck_assert_int_eq(nq_trace_cursor(t, c, sizeof c, NULL), NQ_OK);
    ck_assert_int_eq(nq_trace_resume(t, c, strlen(c)), NQ_OK);
    ck_assert_uint_eq(nq_trace_position(t), 100000);
    ck_assert_int_eq(nq_trace_resume(t, "", 0), NQ_E_CURSOR);
    ck_assert_int_eq(nq_trace_resume(t, NULL, 0), NQ_E_ARG);
    nq_count_ctl ctl;
    nq_count_ctl_init(&ctl);
    nq_count_cancel(&ctl);
    uint64_t skipped = 0;
    ck_assert_int_eq(nq_trace_skip(t, UINT64_MAX, &ctl, &skipped), NQ_E_CANCELED);
    ck_assert_uint_lt(skipped, 1u << 21);
    nq_trace_destroy(t);
    nq_trace_destroy(NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("reference");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, whole_trace, 1, 9);
    tcase_add_loop_test(tc, pages_by_cursor, 1, 7);
    tcase_add_loop_test(tc, from_step, 1, 8);
    tcase_add_test(tc, tampered_cursors);
    tcase_add_test(tc, render);
    tcase_add_test(tc, arguments);
    suite_add_tcase(s, tc);
    return nq_check_run(s) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
