/* common.h - what both store backends share: lease tokens, task bitmaps, the sum of a finished
 * count, and a location with its password redacted. Internal to store/.
 * Thread-safety: every function is safe from any thread (no shared state). Failure: as stated.
 */
#ifndef NQ_STORE_COMMON_H
#define NQ_STORE_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A fresh lease token: random, in 1..2^63 - 1 (it fits a signed 64-bit column). Never 0. */
uint64_t nq_store_token(void);

/* How many of the len bytes of done are non-zero (tasks done). */
uint32_t nq_store_tasks_done(const uint8_t *done, uint32_t len);

/* location with the password (a URI's user:password@, a password= parameter or keyword) replaced by
 * "***", into out (cap bytes, NUL-terminated; cut short when it does not fit). */
void nq_store_redact(const char *location, char *out, size_t cap);

/* Replace every occurrence of secret (when not empty) in text (NUL-terminated) by "***", in place
 * (the text never grows: a secret shorter than 3 bytes becomes as many '*'). */
void nq_store_scrub(char *text, const char *secret);

#endif /* NQ_STORE_COMMON_H */
