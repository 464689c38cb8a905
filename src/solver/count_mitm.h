/* count_mitm.h - internal: the meet-in-the-middle N-Queens counter (not part of the public API).
 *
 * An alternative to the backtracking counter behind nq_count. The board is cut between two row
 * bands; every placement of the bottom band is enumerated once and filed by the set of columns it
 * uses, then each placement of the top band is joined with the bottom placements that use exactly the
 * other columns, and a pair counts when no diagonal is shared. The join is a streaming AND over
 * packed diagonal masks, which is what makes it faster than searching every combination.
 *
 * Ownership: nothing is returned that the caller must free. Working memory is allocated inside the
 * call and released before it returns: the bottom table, capped at 1 GiB (about 120 MB at n = 18 with
 * its 7 bottom rows), and 40 MiB of batches per worker thread (at most 64 workers): 689 MiB peak in
 * all at n = 21 on two workers (docs/performance.md).
 * Thread-safety: reentrant; each call uses only its own memory. ctl may be shared as for nq_count.
 * nq_count_mitm is nq_count_mitm_tasks over every task, summed.
 */
#ifndef NQ_COUNT_MITM_H
#define NQ_COUNT_MITM_H

#include <stdbool.h>

#include "nqueens/solver.h"

/* Count all solutions and symmetry classes of an n x n board with the meet-in-the-middle method,
 * on `threads` worker threads (0: one per online CPU). ctl may be NULL; when given, the count stops
 * within about 50 ms of nq_count_cancel and reports progress through ctl->done / ctl->total.
 * Errors: NQ_E_ARG (out NULL, threads < 0), NQ_E_RANGE (n outside 1..NQ_COUNT_N_MAX),
 * NQ_E_CANCELED, NQ_E_NOMEM, NQ_E_THREAD. On error *out is unspecified and nothing is leaked. */
nq_err nq_count_mitm(int n, int threads, nq_count_ctl *ctl, nq_counts *out);

/* The tasks of the meet-in-the-middle plan of n (solver.h "counting in tasks"): the placements of the
 * first rows (3, from n = 21 on 4), mirror images left out, in the order a row-by-row search lists
 * them, are tasks 0 .. count - 2, and the boards a turn maps to themselves the last task. 1 for
 * n < 4 (no cut). Pure (a search of the first rows, no allocation); thread-safe. */
uint32_t nq_count_mitm_plan(int n);

/* Count the tasks of n's meet-in-the-middle plan that todo names (NULL: all), 4 <= n <=
 * NQ_COUNT_N_MAX, reporting each through done (may be NULL), as nq_count_tasks. Builds the bottom
 * table only when some task other than the symmetric boards is to do. Errors: as nq_count_mitm. */
nq_err nq_count_mitm_tasks(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done,
                           void *arg);

/* True where nq_count_mitm beats the backtracking counter by enough to pay for its table memory
 * (n >= 16, measured on a 2-core x86-64; docs/performance.md). nq_count asks the half-board counter
 * first (count_quad.h), so this one counts n > 23. Pure function of n; thread-safe. */
bool nq_count_mitm_preferred(int n);

#endif /* NQ_COUNT_MITM_H */
