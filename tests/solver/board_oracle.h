/* board_oracle.h - the tests' own checker for solutions of any size, independent of the library.
 *
 * Bitsets of used columns, diagonals and anti-diagonals (5n bits: 63 MB at n = 10^8), filled row by
 * row so a board can be checked as it streams past in blocks. Written for obviousness. Header-only:
 * each suite is one executable.
 */
#ifndef NQ_TEST_BOARD_ORACLE_H
#define NQ_TEST_BOARD_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct oracle {
    uint64_t n;        /* board size */
    uint64_t next_row; /* rows fed so far */
    bool ok;           /* no clash, no column out of range so far */
    uint64_t *bits;    /* columns (n bits), then diagonals r - c + n - 1, then r + c (2n bits each) */
} oracle;

static inline bool oracle_init(oracle *o, uint64_t n)
{
    o->n = n;
    o->next_row = 0;
    o->ok = true;
    o->bits = calloc((5 * n + 63) / 64 + 3, sizeof *o->bits);
    return o->bits != NULL;
}

/* Sets bit i; returns whether it was already set. */
static inline bool oracle_test_and_set(uint64_t *bits, uint64_t i)
{
    const uint64_t mask = UINT64_C(1) << (i % 64);
    const bool was = (bits[i / 64] & mask) != 0;
    bits[i / 64] |= mask;
    return was;
}

/* Feeds the next count rows' columns. */
static inline void oracle_feed(oracle *o, const uint32_t *cols, uint64_t count)
{
    const uint64_t n = o->n;
    for (uint64_t i = 0; i < count && o->ok; i++, o->next_row++) {
        const uint64_t r = o->next_row, c = cols[i];
        if (c >= n || oracle_test_and_set(o->bits, c) || oracle_test_and_set(o->bits, n + r + (n - 1 - c)) ||
            oracle_test_and_set(o->bits, 3 * n + r + c))
            o->ok = false;
    }
}

/* True when exactly n rows were fed and none clashed. Frees the bitsets. */
static inline bool oracle_finish(oracle *o)
{
    free(o->bits);
    o->bits = NULL;
    return o->ok && o->next_row == o->n;
}

/* A whole board at once. */
static inline bool oracle_is_solution(uint64_t n, const uint32_t *cols)
{
    oracle o;
    if (!oracle_init(&o, n)) return false;
    oracle_feed(&o, cols, n);
    return oracle_finish(&o);
}

/* FNV-1a over the columns as little-endian 32-bit words: a platform-independent fingerprint. */
static inline uint64_t oracle_fnv1a(const uint32_t *cols, uint64_t n)
{
    uint64_t h = UINT64_C(14695981039346656037);
    for (uint64_t i = 0; i < n; i++)
        for (int b = 0; b < 4; b++) {
            h ^= (cols[i] >> (8 * b)) & 0xffu;
            h *= UINT64_C(1099511628211);
        }
    return h;
}

#endif /* NQ_TEST_BOARD_ORACLE_H */
