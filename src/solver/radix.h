/* radix.h - internal: the stable LSD radix sort that keeps placements and their checks linear.
 *
 * Placements are sorted by square and queens grouped by line in O(count) time, never O(count log
 * count) and never with memory that grows with n: the keys are at most 62 bits wide, and each pass
 * sorts 11 bits through a 2048-entry histogram on the stack (small enough to stay in L1, which is
 * what makes a pass cost about as much as a copy). A pass whose digit is the same for every key is
 * skipped, so already-narrow keys cost fewer passes.
 * Reentrant; allocates nothing.
 */
#ifndef NQ_RADIX_H
#define NQ_RADIX_H

#include <stddef.h>
#include <stdint.h>

/* Sort a[0..count) stably by the bits lo..hi-1 of each key (lo <= hi <= 64), using tmp[0..count) as
 * scratch; the sorted keys end in a. Bits outside lo..hi-1 ride along untouched. */
void nq_radix_sort_u64(uint64_t *a, uint64_t *tmp, size_t count, unsigned lo, unsigned hi);

/* Bits needed to write x (0 for 0): the width of keys below x + 1. */
static inline unsigned nq_bit_width(uint64_t x)
{
    unsigned b = 0;
    while (x != 0) {
        b++;
        x >>= 1;
    }
    return b;
}

#endif /* NQ_RADIX_H */
