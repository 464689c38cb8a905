/* clock.h - the monotonic clock every server module reads: durations, deadlines, timeouts. Never the
 * wall clock, which NTP may step. Header-only; thread-safe. */
#ifndef NQ_SERVER_CLOCK_H
#define NQ_SERVER_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Seconds since an arbitrary start, with nanosecond resolution: for durations reported in seconds. */
static inline double nq_clock_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Milliseconds since the same start: for deadlines and timeouts. */
static inline uint64_t nq_clock_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

#endif /* NQ_SERVER_CLOCK_H */
