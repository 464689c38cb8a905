/* stop_signals.h - what the command-line tools (nqueens, nqueens-mpi) share: catching the signals
 * that stop them, so that a long count is cancelled cleanly instead of killed mid-way.
 *
 * nq_stop_signals_catch installs handler for each of the count signals in sigs (sigaction, an empty
 * mask). A signal ignored from the start stays ignored, as whoever started the tool asked (SIGINT
 * in a job a script started with '&'). restart sets SA_RESTART, for a tool whose main thread makes
 * calls that must not fail with EINTR (MPI, stdio) and that polls its flag instead. A sigaction
 * that fails leaves that signal's action as it was: the tool is then killed by it, as without this
 * call. Call it once at start-up, before the count's threads start (the action is the process's,
 * whatever thread sets it); the handler must only set a volatile sig_atomic_t or a lock-free atomic
 * (C11 7.14.1.1).
 */
#ifndef NQ_STOP_SIGNALS_H
#define NQ_STOP_SIGNALS_H

#include <stdbool.h>
#include <stddef.h>

void nq_stop_signals_catch(const int *sigs, size_t count, void (*handler)(int), bool restart);

#endif /* NQ_STOP_SIGNALS_H */
