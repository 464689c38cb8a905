/* progress.h - the progress line of a long count on a terminal: a bar, the share done, the time it
 * has taken and an estimate of the time left.
 *
 * Pure formatting: count.c reads the clock and decides when to draw and where. Reentrant.
 */
#ifndef NQ_CLI_PROGRESS_H
#define NQ_CLI_PROGRESS_H

#include <stddef.h>

#define NQ_CLI_PROGRESS_BAR 30  /* characters of the bar itself */
#define NQ_CLI_PROGRESS_MAX 96u /* bytes of the longest line, NUL included */
#define NQ_CLI_DURATION_MAX 16u /* bytes of the longest duration, NUL included */

/* A duration of whole seconds (rounded down) as M:SS under an hour, H:MM:SS from an hour on (the
 * hours as many digits as they take, below 100000); "--:--" for a negative, NaN, infinite or longer
 * one. Writes at most cap bytes, NUL included (NQ_CLI_DURATION_MAX always suffices). */
void nq_cli_duration(double seconds, char *out, size_t cap);

/* The line for a count `fraction` (0..1, clamped) done after `elapsed` seconds:
 *   "[#########.....................]  30%  elapsed 0:12  left 0:28"
 * The bar and the percentage round down. The time left is elapsed * (1 - fraction) / fraction, the
 * rate so far held to the end (the tasks differ in cost, so it is an estimate); "--:--" until the
 * first share is done. No carriage return or newline. Writes at most cap bytes, NUL included
 * (NQ_CLI_PROGRESS_MAX always suffices). */
void nq_cli_progress_line(double fraction, double elapsed, char *out, size_t cap);

#endif /* NQ_CLI_PROGRESS_H */
