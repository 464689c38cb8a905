/* plain_count.c - the classic bitmask N-Queens counter, kept plain on purpose (see plain_count.h). */
#include "plain_count.h"

#include <assert.h>

/* Solutions below a partial board: bit c is column c, left/right the diagonal attacks on this row. */
static uint64_t below(uint32_t full, uint32_t left, uint32_t down, uint32_t right)
{
    if (down == full) return 1;
    uint64_t found = 0;
    uint32_t avail = full & ~(left | down | right);
    while (avail != 0) {
        const uint32_t bit = avail & (0u - avail);
        avail ^= bit;
        found += below(full, (left | bit) << 1, down | bit, (right | bit) >> 1);
    }
    return found;
}

uint64_t nq_bench_plain_count(int n)
{
    assert(n >= 1 && n <= 32);
    const uint32_t full = (uint32_t)((UINT64_C(1) << n) - 1u);
    uint64_t found = 0;
    for (int c = 0; c < n / 2; c++) {
        const uint32_t bit = UINT32_C(1) << c;
        found += 2 * below(full, bit << 1, bit, bit >> 1);
    }
    if (n % 2 == 1) {
        const uint32_t bit = UINT32_C(1) << (n / 2);
        found += below(full, bit << 1, bit, bit >> 1);
    }
    return found;
}
