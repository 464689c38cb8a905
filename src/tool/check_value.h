/* check_value.h - what the command-line tools (nqueens, nqueens-mpi) share: the check value of the
 * files they write for one another to read back (a shard document, an MPI checkpoint).
 *
 * The check value is the CRC-32 of zlib (and of gzip, PNG, Python's zlib.crc32): it finds every
 * change of one to four bytes and every burst of up to 32 bits, which is what a digit edited by hand,
 * a truncated copy or a failing disk does. It is no signature: whoever edits a file on purpose can
 * compute a new one, so it guards against damage, not against forgery. Pure and thread-safe.
 */
#ifndef NQ_CHECK_VALUE_H
#define NQ_CHECK_VALUE_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 (zlib's crc32) of data[0..len); data may be NULL when len is 0. */
uint32_t nq_check_value(const void *data, size_t len);

#endif /* NQ_CHECK_VALUE_H */
