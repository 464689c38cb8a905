/* parse.h - the one strict parser of untrusted decimal integers in nqueens.
 *
 * Query parameters, configuration values and command-line arguments all take numbers the same way:
 * plain ASCII decimal digits and nothing else. No sign, no spaces, no "0x", no exponent, no
 * non-ASCII digits, not empty, nothing after the digits. Leading zeros are accepted, any number of
 * them ("007" is 7, and so is 007 with 30 zeros).
 * A caller that accepts a suffix (a byte size's "K") splits it off first; see nq_parse_digits_len.
 *
 * Thread-safety: pure functions of their arguments; reentrant, no allocation, no global state.
 */
#ifndef NQ_PARSE_H
#define NQ_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"

/* Most digits a number may have after its leading zeros: UINT64_MAX has 20. */
#define NQ_PARSE_DIGITS_MAX 20

/* Parse the len bytes at s (s need not be NUL-terminated; nothing past s[len - 1] is read) as a
 * decimal integer in 0..max. On success stores it in *out; on error *out is unchanged.
 * Errors: NQ_E_ARG (s or out NULL), NQ_E_PARAM_INVALID (empty, or a byte that is not '0'..'9'),
 * NQ_E_OVERFLOW (well-formed but above max). A malformed
 * string is NQ_E_PARAM_INVALID even when it is also long. */
nq_err nq_parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out);

/* Length of the run of ASCII decimal digits at the start of the len bytes at s (0 for NULL): where
 * a number that is followed by a suffix ends. */
size_t nq_parse_digits_len(const char *s, size_t len);

#endif /* NQ_PARSE_H */
