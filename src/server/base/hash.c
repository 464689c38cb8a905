/* hash.c - SipHash-2-4 (see hash.h), after the reference description in the SipHash paper.
 *
 * The inputs are short (cache keys, a few dozen bytes) except for one ETag of the embedded OpenAPI
 * document, hashed once at start-up; a plain word-at-a-time loop is all either needs.
 */
#include "base/hash.h"

#include <sys/random.h>
#include <time.h>

static uint64_t rotl(uint64_t x, unsigned b)
{
    return (x << b) | (x >> (64u - b));
}

/* One SipRound over the state v[0..3]. */
static void sip_round(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = rotl(v[1], 13) ^ v[0];
    v[0] = rotl(v[0], 32);
    v[2] += v[3];
    v[3] = rotl(v[3], 16) ^ v[2];
    v[0] += v[3];
    v[3] = rotl(v[3], 21) ^ v[0];
    v[2] += v[1];
    v[1] = rotl(v[1], 17) ^ v[2];
    v[2] = rotl(v[2], 32);
}

/* Mix one message word m into v with two SipRounds (the "2" of SipHash-2-4). */
static void sip_compress(uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
}

/* The len (at most 8) bytes at p as a little-endian word: SipHash is defined on little-endian words,
 * and reading byte by byte makes that true on any host and for any alignment. */
static uint64_t load_le64(const unsigned char *p, size_t len)
{
    uint64_t w = 0;
    for (size_t i = len; i-- > 0;) w = (w << 8) | p[i];
    return w;
}

nq_hash_key nq_hash_key_from_bytes(const unsigned char bytes[16])
{
    return (nq_hash_key){.k0 = load_le64(bytes, 8), .k1 = load_le64(bytes + 8, 8)};
}

void nq_hash_key_random(nq_hash_key *key)
{
    uint64_t w[2];
    if (getrandom(w, sizeof w, GRND_NONBLOCK) == (ssize_t)sizeof w) {
        *key = (nq_hash_key){.k0 = w[0], .k1 = w[1]};
        return;
    }
    *key = (nq_hash_key){.k0 = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15u,
                         .k1 = (uint64_t)(uintptr_t)key * 0xbf58476d1ce4e5b9u};
}

uint64_t nq_hash_bytes(const nq_hash_key *key, const void *data, size_t len)
{
    /* The initial state: the key xor "somepseudorandomlygeneratedbytes", as the paper fixes it. */
    uint64_t v[4] = {key->k0 ^ 0x736f6d6570736575u, key->k1 ^ 0x646f72616e646f6du, key->k0 ^ 0x6c7967656e657261u,
                     key->k1 ^ 0x7465646279746573u};
    const unsigned char *const p = data;
    const size_t whole = len & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8) sip_compress(v, load_le64(p + i, 8));
    /* The last word holds the remaining bytes and the length's low byte in its top byte. */
    const uint64_t rest = len > whole ? load_le64(p + whole, len - whole) : 0; /* p may be NULL */
    sip_compress(v, ((uint64_t)len << 56) | rest);
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++) sip_round(v); /* the "4" of SipHash-2-4 */
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

void nq_hash_hex(uint64_t h, char out[16])
{
    static const char digits[16] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--, h >>= 4) out[i] = digits[h & 15u];
}
