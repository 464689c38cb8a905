/* prng.h - internal: the library's own pseudo-random generator, xoshiro256** seeded by splitmix64.
 *
 * Seeded searches must give the same board for the same seed on every platform, compiler and build,
 * so nothing here comes from the C library (rand() differs between libcs) and nothing depends on the
 * width of long or on floating point. Both generators are by Blackman and Vigna ("Scrambled linear
 * pseudorandom number generators", ACM TOMS 47(4), 2021; reference code at prng.di.unimi.it),
 * transcribed from the reference code; the test suite holds their published first outputs.
 * Bounded integers use Lemire's multiply-and-reject method ("Fast random integer generation in an
 * interval", ACM TOMACS 29(1), 2019) on 32-bit halves, which needs only a 64-bit product and is
 * exactly uniform.
 * Not cryptographic. A generator is a plain value: one per search, never shared between threads.
 */
#ifndef NQ_PRNG_H
#define NQ_PRNG_H

#include <stdint.h>

typedef struct nq_prng {
    uint64_t s[4]; /* xoshiro256** state; never all zero (splitmix64 seeding guarantees it) */
} nq_prng;

/* splitmix64: advances *x and returns the next output. Used to spread a 64-bit seed over the state. */
static inline uint64_t nq_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* The state for seed: four consecutive splitmix64 outputs, as the xoshiro authors recommend. */
static inline void nq_prng_seed(nq_prng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++) g->s[i] = nq_splitmix64(&seed);
}

static inline uint64_t nq_rotl64(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* The next 64 random bits (xoshiro256**). */
static inline uint64_t nq_prng_next(nq_prng *g)
{
    uint64_t *s = g->s;
    const uint64_t result = nq_rotl64(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = nq_rotl64(s[3], 45);
    return result;
}

/* A uniform integer in 0..bound-1, bound >= 1. The high 32 bits of one output scaled by bound; the
 * rare draws that would make some values likelier are rejected (Lemire). */
static inline uint32_t nq_prng_below(nq_prng *g, uint32_t bound)
{
    uint64_t m = (nq_prng_next(g) >> 32) * bound;
    uint32_t low = (uint32_t)m;
    if (low < bound) {
        const uint32_t threshold = (uint32_t)(-bound) % bound; /* 2^32 mod bound */
        while (low < threshold) {
            m = (nq_prng_next(g) >> 32) * bound;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

#endif /* NQ_PRNG_H */
