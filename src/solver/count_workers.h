/* count_workers.h - internal: what the two table counters (count_mitm.c, count_quad.c) share: their
 * worker threads, and Burnside's lemma for the unique count.
 *
 * Both counters find every solution (not one per symmetry class), so the number of classes comes from
 * how many boards each symmetry fixes: rotations only, for n > 1 no board is its own mirror image or
 * transpose. nq_count_workers_run counts the rotation-symmetric boards (count_mitm_sym.c) on the
 * calling thread while the workers run, so that part costs no wall time.
 *
 * Thread-safety: reentrant. Ownership: nothing allocated survives a call.
 */
#ifndef NQ_COUNT_WORKERS_H
#define NQ_COUNT_WORKERS_H

#include <stdatomic.h>
#include <stdint.h>

#include "nqueens/solver.h"

#define NQ_COUNT_WORKERS_MAX 64 /* hard cap on the workers of one count */

/* Workers for a request of `threads` (0: one per online CPU), clamped to 1..NQ_COUNT_WORKERS_MAX. */
int nq_count_workers(int threads);

/* Start `threads` threads running fn(arg), count the boards of size n a quarter and a half turn fix
 * (*quarter, *half) on the calling thread meanwhile, then join every thread. When a thread cannot be
 * started or the symmetric count fails (cancel), *stop is set first so the running workers leave;
 * fn must watch it. Errors: NQ_E_THREAD, NQ_E_CANCELED; NQ_OK says nothing of how the workers ended:
 * the caller checks its own flags. */
nq_err nq_count_workers_run(int n, int threads, void *(*fn)(void *), void *arg, atomic_bool *stop,
                            nq_count_ctl *ctl, uint64_t *quarter, uint64_t *half);

/* Burnside: classes = (all boards + 2 x those a quarter turn fixes + those a half turn fixes) / 8. */
nq_counts nq_count_burnside(uint64_t total, uint64_t quarter, uint64_t half);

#endif /* NQ_COUNT_WORKERS_H */
