/* stop_signals.c - the command-line tools' stop signals (stop_signals.h). */
#include "stop_signals.h"

#include <signal.h>
#include <string.h>

void nq_stop_signals_catch(const int *sigs, size_t count, void (*handler)(int), bool restart)
{
    for (size_t i = 0; i < count; i++) {
        struct sigaction sa, old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue; /* looked at, not swapped */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = restart ? SA_RESTART : 0;
        sigaction(sigs[i], &sa, NULL);
    }
}
