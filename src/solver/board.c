/* board.c - one solution at a time: render it, parse a cursor, check it, find its canonical image.
 *
 * None of this is on a hot path (the server calls it once per solution it sends, next to JSON
 * encoding that costs far more), so it is written to be read and to distrust its input: every column
 * is range-checked before it is used as a shift count or an index.
 */
#include "nqueens/solver.h"

#include <stdbool.h>
#include <string.h>

#include "symmetry.h"

static bool n_in_range(int n)
{
    return n >= NQ_N_MIN && n <= NQ_N_MAX;
}

/* True if every column of cols is < n. */
static bool columns_in_range(int n, const uint8_t *cols)
{
    for (int r = 0; r < n; r++)
        if (cols[r] >= n) return false;
    return true;
}

/* Checks shared by the renderers: NULLs, n, the columns. */
static nq_err check_render_args(int n, const uint8_t *cols, const char *out)
{
    if (cols == NULL || out == NULL) return NQ_E_ARG;
    if (!n_in_range(n)) return NQ_E_RANGE;
    if (!columns_in_range(n, cols)) return NQ_E_CURSOR;
    return NQ_OK;
}

nq_err nq_render_board(int n, const uint8_t *cols, char *out, size_t cap)
{
    const nq_err err = check_render_args(n, cols, out);
    if (err != NQ_OK) return err;
    if (cap < NQ_BOARD_BUFSIZE(n)) return NQ_E_BUFSIZE;
    const size_t width = (size_t)n;
    for (size_t r = 0; r < width; r++) {
        char *row = out + r * (width + 1);
        memset(row, '.', width);
        row[cols[r]] = 'Q';
        row[width] = '\0';
    }
    return NQ_OK;
}

/* Digits of a column index (< 32, so one or two). */
static size_t digits(uint8_t c)
{
    return c >= 10 ? 2u : 1u;
}

nq_err nq_render_columns(int n, const uint8_t *cols, char *out, size_t cap, size_t *len)
{
    const nq_err err = check_render_args(n, cols, out);
    if (err != NQ_OK) return err;
    size_t need = (size_t)n - 1; /* the commas */
    for (int r = 0; r < n; r++) need += digits(cols[r]);
    if (cap < need + 1) return NQ_E_BUFSIZE;

    char *p = out;
    for (int r = 0; r < n; r++) {
        if (r > 0) *p++ = ',';
        if (cols[r] >= 10) *p++ = (char)('0' + cols[r] / 10);
        *p++ = (char)('0' + cols[r] % 10);
    }
    *p = '\0';
    if (len != NULL) *len = need;
    return NQ_OK;
}

/* Parses one field at s[*pos .. len): a plain decimal number without leading zeros, below n.
 * Hand-rolled rather than strtol because s need not be NUL-terminated and strtol would accept
 * signs, spaces and leading zeros. A column is < 32, so more than two digits is already an error. */
static bool parse_field(int n, const char *s, size_t len, size_t *pos, uint8_t *col)
{
    size_t i = *pos;
    unsigned value = 0;
    size_t ndigits = 0;
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        if (ndigits == 2) return false;
        value = value * 10u + (unsigned)(s[i] - '0');
        ndigits++;
        i++;
    }
    if (ndigits == 0) return false;
    if (ndigits == 2 && s[*pos] == '0') return false; /* "07" */
    if (value >= (unsigned)n) return false;
    *col = (uint8_t)value;
    *pos = i;
    return true;
}

nq_err nq_parse_columns(int n, const char *s, size_t len, uint8_t *cols)
{
    if (s == NULL || cols == NULL) return NQ_E_ARG;
    if (!n_in_range(n)) return NQ_E_RANGE;
    uint8_t parsed[NQ_N_MAX]; /* cols is written only once the whole string has parsed */
    size_t pos = 0;
    for (int r = 0; r < n; r++) {
        if (r > 0) {
            if (pos >= len || s[pos] != ',') return NQ_E_CURSOR;
            pos++;
        }
        if (!parse_field(n, s, len, &pos, &parsed[r])) return NQ_E_CURSOR;
    }
    if (pos != len) return NQ_E_CURSOR; /* trailing bytes: more fields, or garbage */
    memcpy(cols, parsed, (size_t)n);
    return NQ_OK;
}

nq_err nq_check(int n, const uint8_t *cols)
{
    if (cols == NULL) return NQ_E_ARG;
    if (!n_in_range(n)) return NQ_E_RANGE;
    uint32_t down = 0, left = 0, right = 0; /* attacked from the rows above, as in the search */
    for (int r = 0; r < n; r++) {
        if (cols[r] >= n) return NQ_E_NOT_SOLUTION;
        const uint32_t bit = UINT32_C(1) << cols[r];
        if ((down | left | right) & bit) return NQ_E_NOT_SOLUTION;
        down |= bit;
        left = (left | bit) << 1;
        right = (right | bit) >> 1;
    }
    return NQ_OK;
}

nq_err nq_canonical(int n, const uint8_t *cols, uint8_t *out)
{
    if (out == NULL) return NQ_E_ARG;
    const nq_err err = nq_check(n, cols);
    if (err != NQ_OK) return err;
    uint8_t best[NQ_N_MAX], image[NQ_N_MAX]; /* local copies: out may alias cols */
    memcpy(best, cols, (size_t)n);
    for (unsigned g = 1; g < NQ_SYM_COUNT; g++) {
        nq_sym_image(n, cols, g, image);
        if (memcmp(image, best, (size_t)n) < 0) memcpy(best, image, (size_t)n);
    }
    memcpy(out, best, (size_t)n);
    return NQ_OK;
}
