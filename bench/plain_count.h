/* plain_count.h - the benchmark's yardstick: the classic single-threaded bitmask counter.
 *
 * Not part of the library: it exists so the benchmark can report nq_count's speed as a ratio to a
 * well-known baseline that any reader can check by eye. Thread-safe (no shared state).
 */
#ifndef NQ_BENCH_PLAIN_COUNT_H
#define NQ_BENCH_PLAIN_COUNT_H

#include <stdint.h>

/* Number of solutions of an n x n board, 1 <= n <= 32 (the caller's duty; asserted). One thread;
 * the only symmetry used is the left/right mirror: row 0 takes the left half of the columns and
 * each solution found there is counted twice, plus the middle column once when n is odd. */
uint64_t nq_bench_plain_count(int n);

#endif /* NQ_BENCH_PLAIN_COUNT_H */
