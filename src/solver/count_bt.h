/* count_bt.h - internal: the backtracking counter behind nq_count (not part of the public API).
 *
 * Counts each symmetry class once: it searches only boards in a normal form that every class has
 * at least one member in (the lexicographically smallest one), keeps the smallest, and adds its orbit
 * size (8, 4 or 2) to the total. The search is split into prefix tasks run by worker threads.
 *
 * Ownership: nothing is returned that the caller must free; the task list is allocated inside the
 * call and freed before it returns. Thread-safety: reentrant; ctl may be shared as for nq_count.
 */
#ifndef NQ_COUNT_BT_H
#define NQ_COUNT_BT_H

#include "nqueens/solver.h"

/* Most worker threads one count starts; more are clamped to this (and to the number of tasks). */
#define NQ_COUNT_BT_THREADS_MAX 256

/* Same contract as nq_count (include/nqueens/solver.h), always with the backtracking method.
 * ctl may be NULL. When given, ctl->total is set once the work is split and ctl->done counts
 * finished tasks; the cancel flag is looked at before every task and inside the shallow rows of
 * each task, so a cancel is seen within microseconds of search time.
 * Errors: NQ_E_ARG, NQ_E_RANGE, NQ_E_CANCELED, NQ_E_NOMEM, NQ_E_THREAD (then no thread is left
 * running). */
nq_err nq_count_backtrack(int n, int threads, nq_count_ctl *ctl, nq_counts *out);

#endif /* NQ_COUNT_BT_H */
