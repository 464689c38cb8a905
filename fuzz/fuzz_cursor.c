/* fuzz_cursor.c - libFuzzer harness for the cursor parser (nq_parse_columns) and cursor resumption.
 *
 * Input: byte 0 chooses the board (bits 0-5: n, 0..63, so out-of-range sizes are exercised too;
 * bit 7: unique mode); the remaining bytes are the cursor text exactly as it arrives in `after=`.
 *
 * Oracles, beyond "no crash, no leak, no out-of-bounds read":
 *  - differential: a deliberately naive reference parser, written from the contract in solver.h,
 *    must agree with nq_parse_columns on accept/reject and on every column;
 *  - round trip: an accepted cursor renders back (nq_render_columns) to exactly the input bytes,
 *    since the grammar admits one spelling per vector;
 *  - resumption, for n <= RESUME_N_MAX: after nq_iter_seek_after(cursor) the next solution is the
 *    first one sorting strictly after the cursor in a full enumeration (canonical in unique mode).
 */
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>

#include "nqueens/solver.h"

/* Largest n for which each input is checked against a full enumeration (724 solutions at n=10). */
#define RESUME_N_MAX 10

/* The contract read literally: exactly n fields split on ',', each "0" or a digit 1-9 followed by
 * digits, value < n, nothing else. Written for obviousness, not speed. */
static bool ref_parse(int n, const char *s, size_t len, uint8_t *cols)
{
    size_t pos = 0;
    for (int r = 0; r < n; r++) {
        size_t end = pos;
        while (end < len && s[end] != ',') end++;
        const size_t width = end - pos;
        if (width == 0 || width > 2) return false; /* n <= 32: at most two digits */
        unsigned value = 0;
        for (size_t i = pos; i < end; i++) {
            if (s[i] < '0' || s[i] > '9') return false;
            value = value * 10u + (unsigned)(s[i] - '0');
        }
        if (width == 2 && s[pos] == '0') return false;
        if (value >= (unsigned)n) return false;
        cols[r] = (uint8_t)value;
        const bool last = r == n - 1;
        if (last ? end != len : end == len) return false; /* n fields exactly */
        pos = end + 1;
    }
    return true;
}

/* The first solution sorting strictly after cursor, by enumerating from the start; false if none. */
static bool first_after(int n, unsigned flags, const uint8_t *cursor, uint8_t *sol)
{
    nq_iter *it = NULL;
    NQ_FUZZ_CHECK(nq_iter_create(n, flags, &it) == NQ_OK);
    size_t got = 0;
    bool found = false;
    while (!found && nq_iter_next(it, sol, 1, &got) == NQ_OK && got == 1) found = memcmp(sol, cursor, (size_t)n) > 0;
    nq_iter_destroy(it);
    return found;
}

/* Seek after the cursor and compare the next solution with the brute-force answer. */
static void check_resume(int n, unsigned flags, const uint8_t *cursor)
{
    nq_iter *it = NULL;
    NQ_FUZZ_CHECK(nq_iter_create(n, flags, &it) == NQ_OK);
    NQ_FUZZ_CHECK(nq_iter_seek_after(it, cursor, (size_t)n) == NQ_OK);
    uint8_t got_sol[NQ_N_MAX], want_sol[NQ_N_MAX];
    size_t got = 0;
    NQ_FUZZ_CHECK(nq_iter_next(it, got_sol, 1, &got) == NQ_OK);
    nq_iter_destroy(it);
    const bool want = first_after(n, flags, cursor, want_sol);
    NQ_FUZZ_CHECK(got == (want ? 1u : 0u));
    if (!want) return;
    NQ_FUZZ_CHECK(memcmp(got_sol, want_sol, (size_t)n) == 0);
    NQ_FUZZ_CHECK(nq_check(n, got_sol) == NQ_OK);
    if (flags & NQ_ITER_UNIQUE) {
        uint8_t canon[NQ_N_MAX];
        NQ_FUZZ_CHECK(nq_canonical(n, got_sol, canon) == NQ_OK);
        NQ_FUZZ_CHECK(memcmp(canon, got_sol, (size_t)n) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const int n = data[0] & 0x3f;
    const unsigned flags = (data[0] & 0x80) ? NQ_ITER_UNIQUE : 0u;
    const size_t len = size - 1;
    char *const text = malloc(len ? len : 1); /* exactly sized, not NUL-terminated */
    uint8_t *const cols = malloc(n > 0 ? (size_t)n : 1);
    NQ_FUZZ_CHECK(text && cols);
    if (len) memcpy(text, data + 1, len);

    const nq_err rc = nq_parse_columns(n, text, len, cols);
    if (n < NQ_N_MIN || n > NQ_N_MAX) {
        NQ_FUZZ_CHECK(rc == NQ_E_RANGE);
        goto end;
    }
    uint8_t ref[NQ_N_MAX];
    const bool ok = ref_parse(n, text, len, ref);
    NQ_FUZZ_CHECK(rc == (ok ? NQ_OK : NQ_E_CURSOR));
    if (!ok) goto end;
    NQ_FUZZ_CHECK(memcmp(cols, ref, (size_t)n) == 0);

    char rendered[NQ_COLUMNS_BUFSIZE(NQ_N_MAX)];
    size_t rlen = 0;
    NQ_FUZZ_CHECK(nq_render_columns(n, cols, rendered, sizeof rendered, &rlen) == NQ_OK);
    NQ_FUZZ_CHECK(rlen == len && memcmp(rendered, text, len) == 0);

    if (n <= RESUME_N_MAX) check_resume(n, flags, cols);
end:
    free(cols);
    free(text);
    return 0;
}
