/* radix.c - stable LSD radix sort of 64-bit keys by a bit range (see radix.h). */
#include "radix.h"

#include <string.h>

#define DIGIT_BITS 11u
#define BUCKETS (1u << DIGIT_BITS)

/* One stable counting-sort pass of src into dst by the `bits`-wide digit at `shift`. Returns 0 when
 * every key has the same digit (dst is then not written), 1 otherwise. */
static int pass(const uint64_t *src, uint64_t *dst, size_t count, unsigned shift, unsigned bits)
{
    size_t start[BUCKETS];
    const uint64_t mask = (UINT64_C(1) << bits) - 1;
    memset(start, 0, sizeof start);
    for (size_t i = 0; i < count; i++) start[(src[i] >> shift) & mask]++;
    if (start[(src[0] >> shift) & mask] == count) return 0;
    size_t sum = 0;
    for (size_t d = 0; d <= mask; d++) {
        const size_t c = start[d];
        start[d] = sum;
        sum += c;
    }
    for (size_t i = 0; i < count; i++) dst[start[(src[i] >> shift) & mask]++] = src[i];
    return 1;
}

void nq_radix_sort_u64(uint64_t *a, uint64_t *tmp, size_t count, unsigned lo, unsigned hi)
{
    if (count < 2) return;
    uint64_t *src = a, *dst = tmp;
    for (unsigned shift = lo; shift < hi; shift += DIGIT_BITS) {
        const unsigned bits = hi - shift < DIGIT_BITS ? hi - shift : DIGIT_BITS;
        if (pass(src, dst, count, shift, bits)) {
            uint64_t *t = src;
            src = dst;
            dst = t;
        }
    }
    if (src != a) memcpy(a, src, count * sizeof *a);
}
