/* parse.c - strict decimal integers (see include/nqueens/parse.h).
 *
 * Written by hand rather than over strtoull: the input is length-delimited (a query value is not
 * NUL-terminated), and strtoull's leniency (spaces, signs, "0x" with base 0, locale digits) would
 * have to be fenced off first anyway. Checking every byte first, then accumulating with an exact
 * overflow test, leaves nothing for errno to report.
 */
#include "nqueens/parse.h"

#include <stdbool.h>

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

size_t nq_parse_digits_len(const char *s, size_t len)
{
    size_t i = 0;
    while (s != NULL && i < len && is_digit(s[i])) i++;
    return i;
}

nq_err nq_parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    if (s == NULL || out == NULL) return NQ_E_ARG;
    if (len == 0 || nq_parse_digits_len(s, len) != len) return NQ_E_PARAM_INVALID;
    size_t i = 0;
    while (i + 1 < len && s[i] == '0') i++; /* leading zeros: the value, not the text, may overflow */
    if (len - i > NQ_PARSE_DIGITS_MAX) return NQ_E_OVERFLOW;
    uint64_t v = 0;
    for (; i < len; i++) {
        const uint64_t d = (uint64_t)(s[i] - '0');
        if (d > max || v > (max - d) / 10u) return NQ_E_OVERFLOW; /* v * 10 + d > max, unwrapped */
        v = v * 10u + d;
    }
    *out = v;
    return NQ_OK;
}
