/* test_enum.c - Check suite for enumeration, cursors, rendering, parsing and checking (solver.h).
 *
 * The oracle is a plain recursive backtracker written here, independently of the library's explicit
 * stack; fixed boards and OEIS counts (A000170, A002562) pin the concrete values.
 */
#include "nqueens/solver.h"

#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"

/* ---- the reference: recursive backtracking into a flat array of solutions ---------------------- */

typedef struct ref_list {
    int n;          /* board size */
    size_t count;   /* solutions stored */
    uint8_t *cols;  /* count * n bytes, in search order */
    uint8_t *canon; /* count flags: solution i is its class's smallest image */
} ref_list;

static int attacked(const uint8_t *cols, int row, int col)
{
    for (int r = 0; r < row; r++) {
        const int d = col - cols[r];
        if (d == 0 || d == row - r || d == r - row) return 1;
    }
    return 0;
}

static void ref_place(ref_list *list, uint8_t *cols, int row)
{
    if (row == list->n) {
        memcpy(list->cols + list->count * (size_t)list->n, cols, (size_t)list->n);
        list->count++;
        return;
    }
    for (int c = 0; c < list->n; c++) {
        if (attacked(cols, row, c)) continue;
        cols[row] = (uint8_t)c;
        ref_place(list, cols, row + 1);
    }
}

static const uint64_t a000170[] = {0, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200};
static const uint64_t a002562[] = {0, 1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787};

static int is_canonical(int n, const uint8_t *cols)
{
    uint8_t canon[NQ_N_MAX];
    ck_assert_int_eq(nq_canonical(n, cols, canon), NQ_OK);
    return memcmp(canon, cols, (size_t)n) == 0;
}

static const uint8_t *ref_at(const ref_list *list, size_t i)
{
    return list->cols + i * (size_t)list->n;
}

static ref_list ref_solve(int n)
{
    ref_list list = {n, 0, malloc(a000170[n] * (size_t)n + 1), malloc(a000170[n] + 1)};
    uint8_t cols[NQ_N_MAX];
    ck_assert_ptr_nonnull(list.cols);
    ck_assert_ptr_nonnull(list.canon);
    ref_place(&list, cols, 0);
    ck_assert_uint_eq(list.count, a000170[n]);
    for (size_t i = 0; i < list.count; i++) list.canon[i] = (uint8_t)is_canonical(n, ref_at(&list, i));
    return list;
}

static void ref_free(ref_list *list)
{
    free(list->cols);
    free(list->canon);
}

/* Index of the first solution of list (only canonical ones if unique) sorting after cursor;
 * list->count if none. */
static size_t ref_first_after(const ref_list *list, const uint8_t *cursor, int unique)
{
    for (size_t i = 0; i < list->count; i++) {
        if (memcmp(ref_at(list, i), cursor, (size_t)list->n) <= 0) continue;
        if (!unique || list->canon[i]) return i;
    }
    return list->count;
}

/* Pulls one solution; returns 0 when exhausted. */
static int pull(nq_iter *it, uint8_t *cols)
{
    size_t got = 99;
    ck_assert_int_eq(nq_iter_next(it, cols, 1, &got), NQ_OK);
    ck_assert_uint_le(got, 1);
    return got == 1;
}

static nq_iter *make_iter(int n, unsigned flags)
{
    nq_iter *it = NULL;
    ck_assert_int_eq(nq_iter_create(n, flags, &it), NQ_OK);
    ck_assert_ptr_nonnull(it);
    return it;
}

/* ---- exact boards ------------------------------------------------------------------------------ */

static const uint8_t n5_all[10][5] = {
    {0, 2, 4, 1, 3}, {0, 3, 1, 4, 2}, {1, 3, 0, 2, 4}, {1, 4, 2, 0, 3}, {2, 0, 3, 1, 4},
    {2, 4, 1, 3, 0}, {3, 0, 2, 4, 1}, {3, 1, 4, 2, 0}, {4, 1, 3, 0, 2}, {4, 2, 0, 3, 1},
};

START_TEST(exact_n1_n4_n5)
{
    uint8_t buf[16 * 5];
    size_t got = 0;
    nq_iter *it = make_iter(1, 0);
    ck_assert_int_eq(nq_iter_next(it, buf, 16, &got), NQ_OK);
    ck_assert_uint_eq(got, 1);
    ck_assert_uint_eq(buf[0], 0);
    ck_assert_int_eq(nq_iter_next(it, buf, 16, &got), NQ_OK);
    ck_assert_uint_eq(got, 0);
    nq_iter_destroy(it);

    it = make_iter(4, 0);
    ck_assert_int_eq(nq_iter_next(it, buf, 16, &got), NQ_OK);
    ck_assert_uint_eq(got, 2);
    ck_assert_mem_eq(buf, ((const uint8_t[]){1, 3, 0, 2, 2, 0, 3, 1}), 8);
    char board[NQ_BOARD_BUFSIZE(4)];
    ck_assert_int_eq(nq_render_board(4, buf, board, sizeof board), NQ_OK);
    ck_assert_str_eq(board + 0, ".Q..");
    ck_assert_str_eq(board + 5, "...Q");
    ck_assert_str_eq(board + 10, "Q...");
    ck_assert_str_eq(board + 15, "..Q.");
    nq_iter_destroy(it);

    it = make_iter(5, 0);
    ck_assert_int_eq(nq_iter_next(it, buf, 16, &got), NQ_OK);
    ck_assert_uint_eq(got, 10);
    ck_assert_mem_eq(buf, n5_all, sizeof n5_all);
    nq_iter_destroy(it);
}
END_TEST

START_TEST(exact_n8_first_and_last)
{
    static const uint8_t first[8] = {0, 4, 7, 5, 2, 6, 1, 3};
    static const uint8_t last[8] = {7, 3, 0, 2, 5, 1, 6, 4};
    uint8_t cols[8], prev[8];
    size_t count = 0;
    nq_iter *it = make_iter(8, 0);
    ck_assert(pull(it, cols));
    ck_assert_mem_eq(cols, first, 8);
    do {
        memcpy(prev, cols, 8);
        count++;
    } while (pull(it, cols));
    ck_assert_uint_eq(count, 92);
    ck_assert_mem_eq(prev, last, 8);
    nq_iter_destroy(it);
}
END_TEST

/* ---- order, unique mode, cursors, skipping ---------------------------------------------------- */

/* Pulls everything left in batches of `batch` into a fresh buffer; *count receives how many. */
static uint8_t *pull_all(nq_iter *it, size_t batch, size_t cap, size_t *count)
{
    const size_t n = (size_t)nq_iter_n(it);
    uint8_t *buf = malloc((cap + batch) * n);
    size_t total = 0, got = 0;
    ck_assert_ptr_nonnull(buf);
    do {
        ck_assert_int_eq(nq_iter_next(it, buf + total * n, batch, &got), NQ_OK);
        total += got;
        ck_assert_uint_le(total, cap);
    } while (got == batch);
    *count = total;
    return buf;
}

/* Batch sizes for the order tests: 1 and 7 never hold a whole block of solutions, 100 sometimes,
 * and 1e6 always, which lets nq_iter_next fill the right half by mirroring the left. */
static const size_t batches[] = {1, 7, 100, 1000000};

/* For each n, the whole stream equals the reference byte for byte, whatever the batch size. */
START_TEST(order_equals_reference)
{
    const int n = _i;
    ref_list ref = ref_solve(n);
    for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
        nq_iter *it = make_iter(n, 0);
        size_t total = 0;
        uint8_t *buf = pull_all(it, batches[b], ref.count, &total);
        ck_assert_uint_eq(total, a000170[n]);
        if (total > 0) ck_assert_mem_eq(buf, ref.cols, total * (size_t)n);
        nq_iter_destroy(it);
        free(buf);
    }
    ref_free(&ref);
}
END_TEST

/* Resuming in the middle of a block (after a skip, or after a cursor) and then pulling large
 * batches must not mirror a block only part of which is in the batch. */
START_TEST(order_after_resume)
{
    const int n = _i;
    ref_list ref = ref_solve(n);
    static const size_t starts[] = {1, 3, 10, 50, 100, 200};
    for (size_t s = 0; s < sizeof starts / sizeof starts[0] && starts[s] < ref.count; s++) {
        for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
            for (int by_cursor = 0; by_cursor < 2; by_cursor++) {
                nq_iter *it = make_iter(n, 0);
                size_t total = 0;
                if (by_cursor) {
                    ck_assert_int_eq(nq_iter_seek_after(it, ref_at(&ref, starts[s] - 1), (size_t)n), NQ_OK);
                } else {
                    ck_assert_int_eq(nq_iter_skip(it, starts[s], NULL), NQ_OK);
                }
                uint8_t *buf = pull_all(it, batches[b], ref.count, &total);
                ck_assert_uint_eq(total, ref.count - starts[s]);
                ck_assert_mem_eq(buf, ref_at(&ref, starts[s]), total * (size_t)n);
                nq_iter_destroy(it);
                free(buf);
            }
        }
    }
    ref_free(&ref);
}
END_TEST

/* Unique mode yields A002562(n) boards, each valid and canonical, exactly the canonical members of
 * the full stream, in the same order. */
START_TEST(unique_yields_canonical_classes)
{
    const int n = _i;
    ref_list ref = ref_solve(n);
    nq_iter *it = make_iter(n, NQ_ITER_UNIQUE);
    uint8_t cols[NQ_N_MAX];
    size_t yielded = 0, next_ref = 0;
    while (pull(it, cols)) {
        ck_assert_int_eq(nq_check(n, cols), NQ_OK);
        ck_assert(is_canonical(n, cols));
        while (!ref.canon[next_ref]) next_ref++;
        ck_assert_mem_eq(cols, ref_at(&ref, next_ref), (size_t)n);
        next_ref++;
        yielded++;
    }
    ck_assert_uint_eq(yielded, a002562[n]);
    ck_assert_uint_eq(nq_iter_flags(it), NQ_ITER_UNIQUE);
    ck_assert_int_eq(nq_iter_n(it), n);
    nq_iter_destroy(it);
    ref_free(&ref);
}
END_TEST

/* Beyond the reference's reach: unique mode still yields A002562(n) boards for n = 13, 14 (9233 and
 * 45752), each canonical and valid, in strictly increasing order. */
START_TEST(unique_counts_13_14)
{
    const int n = 13 + _i;
    const uint64_t want = n == 13 ? 9233 : 45752; /* A002562(13), A002562(14) */
    nq_iter *it = make_iter(n, NQ_ITER_UNIQUE);
    uint8_t cols[256 * 14], prev[14] = {0};
    size_t got = 0;
    uint64_t yielded = 0;
    do {
        ck_assert_int_eq(nq_iter_next(it, cols, 256, &got), NQ_OK);
        for (size_t i = 0; i < got; i++) {
            const uint8_t *c = cols + i * (size_t)n;
            ck_assert_int_eq(nq_check(n, c), NQ_OK);
            ck_assert(is_canonical(n, c));
            ck_assert(yielded == 0 || memcmp(prev, c, (size_t)n) < 0);
            memcpy(prev, c, (size_t)n);
            yielded++;
        }
    } while (got > 0);
    ck_assert_uint_eq(yielded, want);
    nq_iter_destroy(it);
}
END_TEST

/* Seeks after cursor in a fresh iterator and checks the next solution against the reference. */
static void check_seek(const ref_list *ref, const uint8_t *cursor, unsigned flags)
{
    const int n = ref->n;
    const size_t want = ref_first_after(ref, cursor, flags & NQ_ITER_UNIQUE);
    nq_iter *it = make_iter(n, flags);
    uint8_t cols[NQ_N_MAX];
    ck_assert_int_eq(nq_iter_seek_after(it, cursor, (size_t)n), NQ_OK);
    if (want == ref->count) {
        ck_assert(!pull(it, cols));
        ck_assert(!pull(it, cols)); /* and stays exhausted */
    } else {
        ck_assert(pull(it, cols));
        ck_assert_mem_eq(cols, ref_at(ref, want), (size_t)n);
    }
    nq_iter_destroy(it);
}

/* Every solution as a cursor (the last one leaves the iterator exhausted), in both modes. */
START_TEST(seek_after_solutions)
{
    const int n = _i;
    ref_list ref = ref_solve(n);
    for (size_t i = 0; i < ref.count; i++) {
        check_seek(&ref, ref_at(&ref, i), 0);
        check_seek(&ref, ref_at(&ref, i), NQ_ITER_UNIQUE);
    }
    ref_free(&ref);
}
END_TEST

/* Cursors that are not solutions: every vector for n <= 5, a fixed pseudo-random sample beyond,
 * plus the extremes and vectors whose second queen is attacked. */
START_TEST(seek_after_non_solutions)
{
    const int n = _i;
    ref_list ref = ref_solve(n);
    uint8_t cursor[NQ_N_MAX];
    uint32_t state = 12345u;
    const size_t samples = n <= 5 ? 1u : 1000u;
    size_t space = 1;
    for (int r = 0; r < n && n <= 5; r++) space *= (size_t)n;
    for (size_t s = 0; s < (n <= 5 ? space : samples); s++) {
        size_t v = s;
        for (int r = 0; r < n; r++) {
            if (n <= 5) {
                cursor[r] = (uint8_t)(v % (size_t)n);
                v /= (size_t)n;
            } else {
                state = state * 1103515245u + 12345u; /* LCG: reproducible across runs */
                cursor[r] = (uint8_t)((state >> 16) % (uint32_t)n);
            }
        }
        check_seek(&ref, cursor, 0);
        check_seek(&ref, cursor, NQ_ITER_UNIQUE);
    }
    memset(cursor, 0, (size_t)n); /* attacked in row 1: resumes at 0,2,... or later */
    check_seek(&ref, cursor, 0);
    memset(cursor, n - 1, (size_t)n); /* after everything */
    check_seek(&ref, cursor, 0);
    check_seek(&ref, cursor, NQ_ITER_UNIQUE);
    for (int c = 0; c < n; c++) { /* c, c+1, 0, 0...: the queen in row 1 attacks row 0's */
        memset(cursor, 0, (size_t)n);
        cursor[0] = (uint8_t)c;
        cursor[1] = (uint8_t)((c + 1) % n);
        check_seek(&ref, cursor, 0);
    }
    ref_free(&ref);
}
END_TEST

/* seek_after on an iterator already in use behaves as on a fresh one. */
START_TEST(seek_after_reused_iterator)
{
    ref_list ref = ref_solve(8);
    nq_iter *it = make_iter(8, 0);
    uint8_t cols[8];
    ck_assert_int_eq(nq_iter_skip(it, 50, NULL), NQ_OK);
    ck_assert_int_eq(nq_iter_seek_after(it, ref_at(&ref, 3), 8), NQ_OK);
    ck_assert(pull(it, cols));
    ck_assert_mem_eq(cols, ref_at(&ref, 4), 8);
    nq_iter_destroy(it);
    ref_free(&ref);
}
END_TEST

START_TEST(skip_equals_dropping)
{
    const int n = _i;
    ref_list ref = ref_solve(n);
    for (uint64_t k = 0; k <= ref.count + 2; k++) {
        nq_iter *it = make_iter(n, 0);
        uint64_t skipped = 999;
        uint8_t cols[NQ_N_MAX];
        ck_assert_int_eq(nq_iter_skip(it, k, &skipped), NQ_OK);
        ck_assert_uint_eq(skipped, k < ref.count ? k : ref.count);
        if (k < ref.count) {
            ck_assert(pull(it, cols));
            ck_assert_mem_eq(cols, ref_at(&ref, (size_t)k), (size_t)n);
        } else {
            ck_assert(!pull(it, cols));
        }
        nq_iter_destroy(it);
    }
    ref_free(&ref);
}
END_TEST

START_TEST(skip_unique)
{
    nq_iter *it = make_iter(8, NQ_ITER_UNIQUE);
    uint64_t skipped = 0;
    uint8_t cols[8];
    ck_assert_int_eq(nq_iter_skip(it, 11, &skipped), NQ_OK);
    ck_assert_uint_eq(skipped, 11);
    ck_assert(pull(it, cols)); /* the 12th and last class of n = 8 */
    ck_assert(!pull(it, cols));
    ck_assert_int_eq(nq_iter_skip(it, 5, &skipped), NQ_OK);
    ck_assert_uint_eq(skipped, 0);
    nq_iter_destroy(it);
}
END_TEST

/* Boards up to n = 32 (the largest; column 31 is the top bit of the masks): resume after the
 * cursor n-1,0,0,...,0, so the search starts in row 0's last column (the lexicographically first
 * solution of n = 30 or 32 takes seconds to reach from the start), then resume after the solution
 * found and compare with the one that followed it. */
START_TEST(large_boards)
{
    for (int n = 20; n <= NQ_N_MAX; n++) {
        nq_iter *it = make_iter(n, 0);
        uint8_t cursor[NQ_N_MAX] = {0}, cols[NQ_N_MAX], again[NQ_N_MAX];
        cursor[0] = (uint8_t)(n - 1);
        ck_assert_int_eq(nq_iter_seek_after(it, cursor, (size_t)n), NQ_OK);
        ck_assert(pull(it, cols));
        ck_assert_int_eq(nq_check(n, cols), NQ_OK);
        ck_assert_int_eq(cols[0], n - 1);
        ck_assert(pull(it, again));
        ck_assert_int_eq(nq_iter_seek_after(it, cols, (size_t)n), NQ_OK);
        ck_assert(pull(it, cols));
        ck_assert_mem_eq(cols, again, (size_t)n);
        memset(cursor, n - 1, (size_t)n); /* after the very last vector: exhausted */
        ck_assert_int_eq(nq_iter_seek_after(it, cursor, (size_t)n), NQ_OK);
        ck_assert(!pull(it, cols));
        nq_iter_destroy(it);
    }
}
END_TEST

/* ---- interrupting a search (nq_iter_set_stop) ------------------------------------------------- */

/* A stop flag that is already set: next and skip return at once, having delivered nothing; once it
 * is cleared the iterator carries on from the start. Both modes. */
START_TEST(stop_before_call)
{
    atomic_bool stop;
    atomic_init(&stop, true);
    nq_iter *it = make_iter(8, _i ? NQ_ITER_UNIQUE : 0u);
    uint8_t cols[8 * 4];
    size_t got = 99;
    uint64_t skipped = 99;
    ck_assert_int_eq(nq_iter_set_stop(it, &stop), NQ_OK);
    ck_assert_int_eq(nq_iter_next(it, cols, 4, &got), NQ_E_CANCELED);
    ck_assert_uint_eq(got, 0);
    ck_assert_int_eq(nq_iter_skip(it, 3, &skipped), NQ_E_CANCELED);
    ck_assert_uint_eq(skipped, 0);
    atomic_store(&stop, false);
    ck_assert(pull(it, cols));
    ck_assert_mem_eq(cols, ((const uint8_t[]){0, 4, 7, 5, 2, 6, 1, 3}), 8); /* first of both modes */
    ck_assert_int_eq(nq_iter_set_stop(NULL, &stop), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_set_stop(it, NULL), NQ_OK);
    nq_iter_destroy(it);
}
END_TEST

typedef struct stopper {
    atomic_bool started; /* set by the test once it is pulling */
    atomic_bool stop;    /* the iterator's stop flag */
} stopper;

static void *stop_soon(void *arg)
{
    stopper *st = arg;
    while (!atomic_load(&st->started)) sched_yield();
    atomic_store(&st->stop, true);
    return NULL;
}

/* Enumerates all of n = 14 into buf (cap solutions) in calls as large as the space left, while
 * another thread sets the stop flag as soon as the first call is under way; each stop is cleared
 * and the pulling goes on. Returns how many calls were stopped mid-search; *total gets the
 * solutions pulled. */
static int pull_all_with_stop(uint8_t *buf, size_t cap, size_t *total)
{
    stopper st;
    atomic_init(&st.started, false);
    atomic_init(&st.stop, false);
    nq_iter *it = make_iter(14, 0);
    ck_assert_int_eq(nq_iter_set_stop(it, &st.stop), NQ_OK);
    pthread_t thread;
    ck_assert_int_eq(pthread_create(&thread, NULL, stop_soon, &st), 0);
    int stops = 0;
    size_t got = 0;
    *total = 0;
    atomic_store(&st.started, true);
    for (;;) {
        const nq_err err = nq_iter_next(it, buf + *total * 14, cap - *total, &got);
        ck_assert(err == NQ_OK || err == NQ_E_CANCELED);
        *total += got;
        if (err == NQ_E_CANCELED) {
            /* A stop seen by the look at the call's start delivers nothing; one seen mid-search has
             * delivered the solutions found before it (a look comes every 65536 nodes). */
            if (got > 0) stops++;
            atomic_store(&st.stop, false);
        } else if (got == 0 || *total == cap) {
            break;
        }
    }
    ck_assert_int_eq(pthread_join(thread, NULL), 0);
    nq_iter_destroy(it);
    return stops;
}

/* Stopped by another thread in the middle of a call, the iterator resumes once the flag is
 * cleared, and the whole stream equals an uninterrupted one, byte for byte. Whether the other
 * thread runs during the call is up to the scheduler, so one of up to five tries must see a stop. */
START_TEST(stop_mid_search_resumes)
{
    const size_t cap = 365596 + 1; /* A000170(14), plus room to see the end */
    uint8_t *mine = malloc(cap * 14), *theirs = malloc(cap * 14);
    ck_assert(mine != NULL && theirs != NULL);
    nq_iter *ref = make_iter(14, 0);
    size_t want = 0, total = 0;
    ck_assert_int_eq(nq_iter_next(ref, theirs, cap, &want), NQ_OK);
    ck_assert_uint_eq(want, 365596);
    nq_iter_destroy(ref);
    int stops = 0;
    for (int attempt = 0; attempt < 5 && stops == 0; attempt++) {
        stops = pull_all_with_stop(mine, cap, &total);
        ck_assert_uint_eq(total, want);
        ck_assert_mem_eq(mine, theirs, want * 14);
    }
    ck_assert_int_eq(stops, 1);
    free(mine);
    free(theirs);
}
END_TEST

/* ---- rendering, parsing, checking, canonical form --------------------------------------------- */

START_TEST(render_columns)
{
    static const uint8_t c12[12] = {0, 2, 4, 7, 9, 11, 5, 10, 1, 6, 8, 3};
    char buf[NQ_COLUMNS_BUFSIZE(12)];
    size_t len = 0;
    ck_assert_int_eq(nq_render_columns(4, (const uint8_t[]){1, 3, 0, 2}, buf, sizeof buf, &len), NQ_OK);
    ck_assert_str_eq(buf, "1,3,0,2");
    ck_assert_uint_eq(len, 7);
    ck_assert_int_eq(nq_render_columns(12, c12, buf, sizeof buf, &len), NQ_OK);
    ck_assert_str_eq(buf, "0,2,4,7,9,11,5,10,1,6,8,3");
    ck_assert_uint_eq(len, 25);
    ck_assert_int_eq(nq_render_columns(12, c12, buf, 26, NULL), NQ_OK); /* exact fit */
    ck_assert_int_eq(nq_render_columns(12, c12, buf, 25, NULL), NQ_E_BUFSIZE);
    ck_assert_int_eq(nq_render_columns(1, (const uint8_t[]){0}, buf, 2, &len), NQ_OK);
    ck_assert_str_eq(buf, "0");
}
END_TEST

typedef struct parse_row {
    int n;            /* board size */
    const char *text; /* input (its strlen is passed as len) */
    nq_err want;      /* expected result */
    uint8_t cols[12]; /* expected columns on success */
} parse_row;

static const parse_row parse_rows[] = {
    {4, "1,3,0,2", NQ_OK, {1, 3, 0, 2}},
    {4, "0,0,0,0", NQ_OK, {0, 0, 0, 0}}, /* need not be a solution */
    {1, "0", NQ_OK, {0}},
    {12, "0,2,4,7,9,11,5,10,1,6,8,3", NQ_OK, {0, 2, 4, 7, 9, 11, 5, 10, 1, 6, 8, 3}},
    {4, "", NQ_E_CURSOR, {0}},
    {4, "1,3,0", NQ_E_CURSOR, {0}},
    {4, "1,3,0,2,", NQ_E_CURSOR, {0}},
    {4, "1,3,0,2,1", NQ_E_CURSOR, {0}},
    {4, ",1,3,0,2", NQ_E_CURSOR, {0}},
    {4, "1,,3,0", NQ_E_CURSOR, {0}},
    {4, "1,3,0,4", NQ_E_CURSOR, {0}},
    {4, "01,3,0,2", NQ_E_CURSOR, {0}},
    {4, "+1,3,0,2", NQ_E_CURSOR, {0}},
    {4, "-1,3,0,2", NQ_E_CURSOR, {0}},
    {4, " 1,3,0,2", NQ_E_CURSOR, {0}},
    {4, "1,3,0,2 ", NQ_E_CURSOR, {0}},
    {4, "1;3;0;2", NQ_E_CURSOR, {0}},
    {4, "0x1,3,0,2", NQ_E_CURSOR, {0}},
    {12, "0,2,4,7,9,011,5,10,1,6,8,3", NQ_E_CURSOR, {0}},
    {12, "0,2,4,7,9,12,5,10,1,6,8,3", NQ_E_CURSOR, {0}},
    {12, "0,2,4,7,9,100,5,10,1,6,8,3", NQ_E_CURSOR, {0}},
    {0, "0", NQ_E_RANGE, {0}},
    {33, "0", NQ_E_RANGE, {0}},
};

START_TEST(parse_table)
{
    const parse_row *row = &parse_rows[_i];
    uint8_t cols[NQ_N_MAX];
    memset(cols, 0xAA, sizeof cols);
    const size_t len = strlen(row->text);
    /* An exact-size heap copy without a NUL, so ASan catches any read past len. */
    char *copy = malloc(len + 1);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, row->text, len);
    ck_assert_msg(nq_parse_columns(row->n, copy, len, cols) == row->want, "input '%s'", row->text);
    if (row->want == NQ_OK)
        ck_assert_mem_eq(cols, row->cols, (size_t)row->n);
    else
        ck_assert_uint_eq(cols[0], 0xAA); /* untouched on error */
    free(copy);
}
END_TEST

/* len bounds the read: a valid prefix followed by more bytes parses as the prefix. */
START_TEST(parse_reads_only_len)
{
    uint8_t cols[4];
    ck_assert_int_eq(nq_parse_columns(4, "1,3,0,2,9,9", 7, cols), NQ_OK);
    ck_assert_mem_eq(cols, ((const uint8_t[]){1, 3, 0, 2}), 4);
    ck_assert_int_eq(nq_parse_columns(4, "1,3,0,2", 5, cols), NQ_E_CURSOR);
    ck_assert_int_eq(nq_parse_columns(4, "1,3,0,2", 0, cols), NQ_E_CURSOR);
}
END_TEST

typedef struct check_row {
    int n;           /* board size */
    uint8_t cols[8]; /* candidate */
    nq_err want;     /* nq_check's answer */
} check_row;

static const check_row check_rows[] = {
    {1, {0}, NQ_OK},
    {4, {1, 3, 0, 2}, NQ_OK},
    {8, {0, 4, 7, 5, 2, 6, 1, 3}, NQ_OK},
    {4, {1, 3, 0, 3}, NQ_E_NOT_SOLUTION},   /* same column */
    {4, {0, 1, 3, 2}, NQ_E_NOT_SOLUTION},   /* diagonal, rows 0 and 1 */
    {4, {1, 3, 2, 0}, NQ_E_NOT_SOLUTION},   /* anti-diagonal, rows 1 and 2 */
    {4, {1, 3, 0, 4}, NQ_E_NOT_SOLUTION},   /* column out of range */
    {4, {1, 3, 0, 255}, NQ_E_NOT_SOLUTION}, /* far out of range */
    {8, {0, 4, 7, 5, 2, 6, 3, 1}, NQ_E_NOT_SOLUTION},
    {2, {0, 1}, NQ_E_NOT_SOLUTION},
    {0, {0}, NQ_E_RANGE},
    {33, {0}, NQ_E_RANGE},
};

START_TEST(check_table)
{
    const check_row *row = &check_rows[_i];
    ck_assert_int_eq(nq_check(row->n, row->cols), row->want);
}
END_TEST

START_TEST(canonical_forms)
{
    uint8_t out[8];
    /* The last n = 8 solution's mirror image is the first solution, the smallest of all. */
    ck_assert_int_eq(nq_canonical(8, (const uint8_t[]){7, 3, 0, 2, 5, 1, 6, 4}, out), NQ_OK);
    ck_assert_mem_eq(out, ((const uint8_t[]){0, 4, 7, 5, 2, 6, 1, 3}), 8);
    /* Both n = 4 solutions are one class (each is the other's mirror image). */
    ck_assert_int_eq(nq_canonical(4, (const uint8_t[]){2, 0, 3, 1}, out), NQ_OK);
    ck_assert_mem_eq(out, ((const uint8_t[]){1, 3, 0, 2}), 4);
    /* In place. */
    uint8_t inplace[5] = {4, 2, 0, 3, 1};
    ck_assert_int_eq(nq_canonical(5, inplace, inplace), NQ_OK);
    ck_assert_mem_eq(inplace, ((const uint8_t[]){0, 2, 4, 1, 3}), 5);
    ck_assert_int_eq(nq_canonical(4, (const uint8_t[]){0, 1, 2, 3}, out), NQ_E_NOT_SOLUTION);
}
END_TEST

/* ---- bad arguments ---------------------------------------------------------------------------- */

START_TEST(bad_arguments)
{
    nq_iter *it = NULL;
    uint8_t cols[8] = {0, 4, 7, 5, 2, 6, 1, 3};
    char text[80];
    size_t got = 0;
    ck_assert_int_eq(nq_iter_create(8, 0, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_create(8, 2u, &it), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_create(0, 0, &it), NQ_E_RANGE);
    ck_assert_int_eq(nq_iter_create(-1, 0, &it), NQ_E_RANGE);
    ck_assert_int_eq(nq_iter_create(33, 0, &it), NQ_E_RANGE);
    ck_assert_ptr_null(it);
    nq_iter_destroy(NULL);
    ck_assert_int_eq(nq_iter_n(NULL), 0);
    ck_assert_uint_eq(nq_iter_flags(NULL), 0);

    it = make_iter(8, 0);
    ck_assert_int_eq(nq_iter_seek_after(NULL, cols, 8), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_seek_after(it, NULL, 8), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_seek_after(it, cols, 7), NQ_E_CURSOR);
    ck_assert_int_eq(nq_iter_seek_after(it, (const uint8_t[]){0, 4, 7, 5, 2, 6, 1, 8}, 8), NQ_E_CURSOR);
    ck_assert_int_eq(nq_iter_skip(NULL, 1, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_next(NULL, cols, 1, &got), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_next(it, NULL, 1, &got), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_next(it, cols, 1, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_iter_next(it, cols, 0, &got), NQ_E_ARG);
    /* The failed seeks left the iterator where it was: at the start. */
    ck_assert(pull(it, cols));
    ck_assert_mem_eq(cols, ((const uint8_t[]){0, 4, 7, 5, 2, 6, 1, 3}), 8);
    nq_iter_destroy(it);

    ck_assert_int_eq(nq_render_board(8, NULL, text, sizeof text), NQ_E_ARG);
    ck_assert_int_eq(nq_render_board(8, cols, NULL, sizeof text), NQ_E_ARG);
    ck_assert_int_eq(nq_render_board(0, cols, text, sizeof text), NQ_E_RANGE);
    ck_assert_int_eq(nq_render_board(33, cols, text, sizeof text), NQ_E_RANGE);
    ck_assert_int_eq(nq_render_board(4, cols, text, sizeof text), NQ_E_CURSOR); /* 4,7 >= 4 */
    ck_assert_int_eq(nq_render_board(8, cols, text, NQ_BOARD_BUFSIZE(8) - 1), NQ_E_BUFSIZE);
    ck_assert_int_eq(nq_render_columns(8, NULL, text, sizeof text, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_render_columns(8, cols, NULL, sizeof text, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_render_columns(0, cols, text, sizeof text, NULL), NQ_E_RANGE);
    ck_assert_int_eq(nq_render_columns(4, cols, text, sizeof text, NULL), NQ_E_CURSOR);
    ck_assert_int_eq(nq_render_columns(8, cols, text, 15, NULL), NQ_E_BUFSIZE);
    ck_assert_int_eq(nq_parse_columns(4, NULL, 0, cols), NQ_E_ARG);
    ck_assert_int_eq(nq_parse_columns(4, "1,3,0,2", 7, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_check(8, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_canonical(8, NULL, cols), NQ_E_ARG);
    ck_assert_int_eq(nq_canonical(8, cols, NULL), NQ_E_ARG);
    ck_assert_int_eq(nq_canonical(0, cols, cols), NQ_E_RANGE);
}
END_TEST

static Suite *enum_suite(void)
{
    Suite *s = suite_create("enumeration");
    TCase *tc = tcase_create("boards");
    tcase_add_test(tc, exact_n1_n4_n5);
    tcase_add_test(tc, exact_n8_first_and_last);
    tcase_add_loop_test(tc, order_equals_reference, 1, 13);
    tcase_add_loop_test(tc, order_after_resume, 4, 11);
    tcase_add_loop_test(tc, unique_yields_canonical_classes, 1, 13);
    tcase_add_loop_test(tc, unique_counts_13_14, 0, 2);
    suite_add_tcase(s, tc);

    tc = tcase_create("cursors");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, seek_after_solutions, 1, 10);
    tcase_add_loop_test(tc, seek_after_non_solutions, 1, 10);
    tcase_add_test(tc, seek_after_reused_iterator);
    tcase_add_loop_test(tc, skip_equals_dropping, 1, 9);
    tcase_add_test(tc, skip_unique);
    tcase_add_test(tc, large_boards);
    tcase_add_loop_test(tc, stop_before_call, 0, 2);
    tcase_add_test(tc, stop_mid_search_resumes);
    suite_add_tcase(s, tc);

    tc = tcase_create("text");
    tcase_add_test(tc, render_columns);
    tcase_add_loop_test(tc, parse_table, 0, (int)(sizeof parse_rows / sizeof parse_rows[0]));
    tcase_add_test(tc, parse_reads_only_len);
    tcase_add_loop_test(tc, check_table, 0, (int)(sizeof check_rows / sizeof check_rows[0]));
    tcase_add_test(tc, canonical_forms);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const int failed = nq_check_run(enum_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
