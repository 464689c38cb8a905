/* fuzz_placement.c - libFuzzer harness for the placement parsers and the checker (placement.h).
 *
 * Input: byte 0 chooses the form and the board (bit 7: queens form, else columns; bit 6: a board
 * near NQ_PLACEMENT_N_MAX, n = 10^9 - (bits 0-5), else n = 1 + (bits 0-5)); the remaining bytes are
 * the text exactly as it arrives in `columns=` or `queens=`.
 *
 * Oracles, beyond "no crash, no leak, no out-of-bounds read":
 *  - differential: a deliberately naive reference parser, written from the contract in placement.h
 *    (split on ',', then on ':'; duplicates by comparing every pair), must agree on accept/reject and
 *    on the reason; an error's entry, offset and description must make sense;
 *  - canonical form: an accepted placement renders to text that parses, as the queens form, back to
 *    the same text;
 *  - checker, for n <= 12: the count and the full list of attacking pairs equal a brute-force lister.
 */
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>

#include "nqueens/placement.h"

#define REF_MAX 2048 /* queens the reference keeps; longer inputs are checked without it */

typedef struct ref {
    nq_square q[REF_MAX]; /* in input order */
    size_t count;         /* queens */
    bool overflow;        /* more than REF_MAX: no differential on this input */
} ref;

/* One number s[from..to) by the contract: digits only, "0" or no leading zero; saturates. */
static nq_placement_reason ref_number(const char *s, size_t from, size_t to, uint64_t *v)
{
    if (from == to) return NQ_PLACEMENT_MALFORMED;
    uint64_t x = 0;
    for (size_t i = from; i < to; i++) {
        if (s[i] < '0' || s[i] > '9') return NQ_PLACEMENT_MALFORMED;
        x = x > (UINT64_MAX - 9) / 10 ? UINT64_MAX : x * 10 + (uint64_t)(s[i] - '0');
    }
    if (to - from > 1 && s[from] == '0') return NQ_PLACEMENT_LEADING_ZERO;
    *v = x;
    return NQ_PLACEMENT_OK;
}

static void ref_add(ref *r, uint64_t row, uint64_t col)
{
    if (r->count == REF_MAX) {
        r->overflow = true;
        return;
    }
    r->q[r->count++] = (nq_square){(uint32_t)row, (uint32_t)col};
}

/* The columns form, field by field. */
static nq_placement_reason ref_columns(uint32_t n, const char *s, size_t len, ref *r)
{
    size_t from = 0, field = 0;
    for (;;) {
        size_t to = from;
        while (to < len && s[to] != ',') to++;
        if (field == n) return NQ_PLACEMENT_TOO_MANY;
        uint64_t col = 0;
        nq_placement_reason why = NQ_PLACEMENT_OK;
        if (to == from)
            why = NQ_PLACEMENT_EMPTY;
        else if (!(to - from == 1 && s[from] == '-'))
            why = ref_number(s, from, to, &col);
        if (why == NQ_PLACEMENT_OK && to - from == 1 && s[from] == '-') {
            /* an empty row */
        } else if (why == NQ_PLACEMENT_OK && col >= n) {
            why = NQ_PLACEMENT_COL_RANGE;
        } else if (why == NQ_PLACEMENT_OK) {
            ref_add(r, field, col);
        }
        if (why != NQ_PLACEMENT_OK) return why;
        field++;
        if (to == len) break;
        from = to + 1;
    }
    return field < n ? NQ_PLACEMENT_TOO_FEW : NQ_PLACEMENT_OK;
}

/* The queens form, entry by entry, then duplicates by brute force. */
static nq_placement_reason ref_queens(uint32_t n, const char *s, size_t len, ref *r)
{
    for (size_t from = 0; len > 0;) {
        size_t to = from, colon = SIZE_MAX;
        while (to < len && s[to] != ',') {
            if (s[to] == ':' && colon == SIZE_MAX) colon = to;
            to++;
        }
        uint64_t row = 0, col = 0;
        if (to == from) return NQ_PLACEMENT_EMPTY;
        if (colon == SIZE_MAX) return NQ_PLACEMENT_MALFORMED;
        const nq_placement_reason a = ref_number(s, from, colon, &row), b = ref_number(s, colon + 1, to, &col);
        if (a == NQ_PLACEMENT_MALFORMED || b == NQ_PLACEMENT_MALFORMED) return NQ_PLACEMENT_MALFORMED;
        if (a != NQ_PLACEMENT_OK || b != NQ_PLACEMENT_OK) return NQ_PLACEMENT_LEADING_ZERO;
        if (row >= n) return NQ_PLACEMENT_ROW_RANGE;
        if (col >= n) return NQ_PLACEMENT_COL_RANGE;
        ref_add(r, row, col);
        if (to == len) break;
        from = to + 1;
    }
    for (size_t i = 0; i < r->count && !r->overflow; i++)
        for (size_t j = i + 1; j < r->count; j++)
            if (r->q[i].row == r->q[j].row && r->q[i].col == r->q[j].col) return NQ_PLACEMENT_DUPLICATE;
    return NQ_PLACEMENT_OK;
}

static bool attack(nq_square a, nq_square b)
{
    const int64_t dr = (int64_t)a.row - b.row, dc = (int64_t)a.col - b.col;
    return dr == 0 || dc == 0 || dr == dc || dr == -dc;
}

/* The checker against every pair, for small boards (at most 144 queens). */
static void check_small(const nq_placement *p)
{
    const size_t most = 144 * 143 / 2; /* every pair of a full 12 x 12 board */
    nq_pair *got = malloc(most * sizeof *got);
    const nq_square *q = nq_placement_queens(p);
    const size_t count = nq_placement_count(p);
    nq_check_report r;
    NQ_FUZZ_CHECK(got != NULL);
    NQ_FUZZ_CHECK(nq_placement_check(p, got, most, &r) == NQ_OK);
    NQ_FUZZ_CHECK(r.queens == count);
    size_t k = 0;
    for (size_t i = 0; i < count; i++)
        for (size_t j = i + 1; j < count; j++) {
            if (!attack(q[i], q[j])) continue;
            NQ_FUZZ_CHECK(k < r.listed);
            NQ_FUZZ_CHECK(memcmp(&got[k].first, &q[i], sizeof q[i]) == 0 &&
                          memcmp(&got[k].second, &q[j], sizeof q[j]) == 0);
            k++;
        }
    NQ_FUZZ_CHECK(k == r.conflicts && k == r.listed);
    NQ_FUZZ_CHECK(r.valid == (k == 0) && r.complete == (k == 0 && count == nq_placement_n(p)));
    free(got);
}

/* Render, re-parse as queens, render again: the same text. */
static void check_canonical(const nq_placement *p)
{
    const size_t size = nq_placement_render_size(p);
    char *a = malloc(size), *b = malloc(size);
    size_t alen = 0, blen = 0;
    NQ_FUZZ_CHECK(a && b);
    NQ_FUZZ_CHECK(nq_placement_render_queens(p, a, size, &alen) == NQ_OK && alen + 1 == size);
    nq_placement *again = NULL;
    NQ_FUZZ_CHECK(nq_placement_parse_queens(nq_placement_n(p), a, alen, &again, NULL) == NQ_OK);
    NQ_FUZZ_CHECK(nq_placement_render_queens(again, b, size, &blen) == NQ_OK);
    NQ_FUZZ_CHECK(alen == blen && memcmp(a, b, alen) == 0);
    nq_placement_destroy(again);
    free(b);
    free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const bool queens = (data[0] & 0x80) != 0;
    const uint32_t low = data[0] & 0x3fu;
    const uint32_t n = (data[0] & 0x40) ? NQ_PLACEMENT_N_MAX - low : low + 1;
    const size_t len = size - 1;
    char *const text = calloc(len ? len : 1, 1); /* exactly sized, not NUL-terminated */
    ref *const r = calloc(1, sizeof *r);
    NQ_FUZZ_CHECK(text && r);
    if (len) memcpy(text, data + 1, len);

    nq_placement *p = NULL;
    nq_placement_error e;
    const nq_err rc =
        queens ? nq_placement_parse_queens(n, text, len, &p, &e) : nq_placement_parse_columns(n, text, len, &p, &e);
    const nq_placement_reason want = queens ? ref_queens(n, text, len, r) : ref_columns(n, text, len, r);
    NQ_FUZZ_CHECK(rc == NQ_OK || rc == NQ_E_PLACEMENT);
    if (!r->overflow) NQ_FUZZ_CHECK((rc == NQ_OK) == (want == NQ_PLACEMENT_OK));
    if (rc == NQ_E_PLACEMENT) {
        if (!r->overflow) NQ_FUZZ_CHECK(e.reason == want);
        NQ_FUZZ_CHECK(e.offset <= len && e.n == n);
        char why[160];
        NQ_FUZZ_CHECK(nq_placement_error_describe(&e, why, sizeof why) > 0);
        goto end;
    }
    NQ_FUZZ_CHECK(queens || nq_placement_count(p) <= n);
    if (!r->overflow) NQ_FUZZ_CHECK(nq_placement_count(p) == r->count);
    check_canonical(p);
    if (n <= 12) {
        check_small(p);
    } else { /* no oracle for the count here, but the checker must run clean on anything parsed */
        nq_pair few[8];
        nq_check_report cr;
        NQ_FUZZ_CHECK(nq_placement_check(p, few, 8, &cr) == NQ_OK);
        NQ_FUZZ_CHECK(cr.listed == (cr.conflicts < 8 ? cr.conflicts : 8) && cr.queens == nq_placement_count(p));
    }
    nq_placement_destroy(p);
end:
    free(r);
    free(text);
    return 0;
}
