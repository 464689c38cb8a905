/* hash.h - the one keyed hash of nqueensd: SipHash-2-4 (Aumasson and Bernstein) under a caller's key.
 *
 * Every hash in the server goes through here: the cache's and the compute pool's tables (each under
 * its own random key, since their keys embed client input and an unkeyed hash would let a client
 * pile entries into one bucket) and ETags (under a fixed key, so that every replica and every
 * restart tags the same body alike). SipHash is a keyed PRF: without the key, outputs cannot be
 * predicted, which is what the tables need; with a published key it is simply a well-spread 64-bit
 * hash, which is all an ETag needs.
 *
 * Thread-safety: every function is reentrant and allocates nothing; a key is read-only once made.
 */
#ifndef NQ_HASH_H
#define NQ_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A 128-bit SipHash key: k0 is key bytes 0..7, k1 bytes 8..15, each read little-endian (the
 * paper's convention, so its test vectors apply as written). */
typedef struct nq_hash_key {
    uint64_t k0; /* key bytes 0..7 */
    uint64_t k1; /* key bytes 8..15 */
} nq_hash_key;

/* The key made of the 16 bytes at bytes (for a fixed, published key, or test vectors). */
nq_hash_key nq_hash_key_from_bytes(const unsigned char bytes[16]);

/* Fill *key from the kernel's random source. It never fails: when the kernel cannot answer (it
 * always can once booted), a mix of the time and key's address (randomised by ASLR) stands in,
 * still far better than a constant. */
void nq_hash_key_random(nq_hash_key *key);

/* SipHash-2-4 of the len bytes at data under key. data may be NULL when len is 0. */
uint64_t nq_hash_bytes(const nq_hash_key *key, const void *data, size_t len);

/* Write h as 16 lowercase hex digits to out (not NUL-terminated): how hashes appear in ETags and
 * request ids. By hand, since it runs several times a request and snprintf costs more than the hash. */
void nq_hash_hex(uint64_t h, char out[16]);

#endif /* NQ_HASH_H */
