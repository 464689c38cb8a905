/* fuzz_trace.c - libFuzzer harness for the trace cursor (nq_trace_resume), the one opaque token the
 * service takes back from clients.
 *
 * Input: byte 0 chooses the board (bits 0-5: n, 0..63, so out-of-range sizes are exercised too); the
 * remaining bytes are the cursor text exactly as it arrives in `cursor=`.
 *
 * Oracles, beyond "no crash, no leak, no out-of-bounds read":
 *  - a rejected cursor leaves the trace where it was (before step 0);
 *  - round trip: an accepted cursor is written back (nq_trace_cursor) as exactly the input bytes,
 *    since a state has one spelling;
 *  - resumption, for n <= RESUME_N_MAX: an accepted cursor names a real position of the search: the
 *    steps after it are the steps a trace run from the start yields at that step number.
 */
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>

#include "nqueens/trace.h"

/* Largest n for which an accepted cursor is checked against a run from the start (17,868 steps). */
#define RESUME_N_MAX 8
#define COMPARE_STEPS 4

static bool same(const nq_trace_step *a, const nq_trace_step *b, int n)
{
    if (a->step != b->step || a->op != b->op || a->by != b->by) return false;
    if (a->op == NQ_TRACE_SOLUTION) return memcmp(a->columns, b->columns, (size_t)n) == 0;
    return a->row == b->row && a->col == b->col;
}

static void check_position(int n, nq_trace *resumed)
{
    nq_trace *fresh = NULL;
    NQ_FUZZ_CHECK(nq_trace_create(n, &fresh) == NQ_OK);
    const uint64_t at = nq_trace_position(resumed);
    uint64_t skipped = 0;
    NQ_FUZZ_CHECK(nq_trace_skip(fresh, at, NULL, &skipped) == NQ_OK);
    nq_trace_step a[COMPARE_STEPS], b[COMPARE_STEPS];
    size_t got_a = 0, got_b = 0;
    NQ_FUZZ_CHECK(nq_trace_next(resumed, a, COMPARE_STEPS, &got_a) == NQ_OK);
    NQ_FUZZ_CHECK(nq_trace_next(fresh, b, COMPARE_STEPS, &got_b) == NQ_OK);
    NQ_FUZZ_CHECK(skipped == at); /* the trace is that long */
    NQ_FUZZ_CHECK(got_a == got_b);
    for (size_t i = 0; i < got_a; i++) NQ_FUZZ_CHECK(same(&a[i], &b[i], n));
    nq_trace_destroy(fresh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const int n = data[0] & 0x3f;
    const size_t len = size - 1;
    char *const text = malloc(len ? len : 1); /* exactly sized, not NUL-terminated */
    NQ_FUZZ_CHECK(text);
    if (len) memcpy(text, data + 1, len);
    nq_trace *t = NULL;
    const nq_err crc = nq_trace_create(n, &t);
    if (n < NQ_N_MIN || n > NQ_N_MAX) {
        NQ_FUZZ_CHECK(crc == NQ_E_RANGE);
        goto end;
    }
    NQ_FUZZ_CHECK(crc == NQ_OK);
    const nq_err rc = nq_trace_resume(t, text, len);
    NQ_FUZZ_CHECK(rc == NQ_OK || rc == NQ_E_CURSOR);
    if (rc != NQ_OK) {
        NQ_FUZZ_CHECK(nq_trace_position(t) == 0 && !nq_trace_done(t));
        goto end;
    }
    char back[NQ_TRACE_CURSOR_MAX];
    size_t blen = 0;
    NQ_FUZZ_CHECK(nq_trace_cursor(t, back, sizeof back, &blen) == NQ_OK);
    NQ_FUZZ_CHECK(blen == len && memcmp(back, text, len) == 0);
    if (n <= RESUME_N_MAX) check_position(n, t);
end:
    nq_trace_destroy(t);
    free(text);
    return 0;
}
