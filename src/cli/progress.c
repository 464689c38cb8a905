/* progress.c - the progress line of a long count (see progress.h). */
#include "progress.h"

#include <math.h>
#include <stdio.h>

#define DURATION_S_MAX (99999.0 * 3600.0) /* beyond it, no estimate is worth showing */

void nq_cli_duration(double seconds, char *out, size_t cap)
{
    if (!(seconds >= 0.0 && seconds < DURATION_S_MAX)) { /* NaN fails both comparisons */
        snprintf(out, cap, "--:--");
        return;
    }
    const unsigned long s = (unsigned long)seconds;
    if (s < 3600ul)
        snprintf(out, cap, "%lu:%02lu", s / 60ul, s % 60ul);
    else
        snprintf(out, cap, "%lu:%02lu:%02lu", s / 3600ul, s / 60ul % 60ul, s % 60ul);
}

void nq_cli_progress_line(double fraction, double elapsed, char *out, size_t cap)
{
    char bar[NQ_CLI_PROGRESS_BAR + 1], took[NQ_CLI_DURATION_MAX], left[NQ_CLI_DURATION_MAX];
    const double f = isnan(fraction) ? 0.0 : fraction < 0.0 ? 0.0 : fraction > 1.0 ? 1.0 : fraction;
    const int filled = (int)(f * NQ_CLI_PROGRESS_BAR);
    for (int i = 0; i < NQ_CLI_PROGRESS_BAR; i++) bar[i] = i < filled ? '#' : '.';
    bar[NQ_CLI_PROGRESS_BAR] = '\0';
    nq_cli_duration(elapsed, took, sizeof took);
    nq_cli_duration(f > 0.0 ? elapsed * (1.0 - f) / f : -1.0, left, sizeof left);
    snprintf(out, cap, "[%s] %3d%%  elapsed %s  left %s", bar, (int)(f * 100.0), took, left);
}
