/* count_workers.h - internal: what the two table counters (count_quad.c, count_mitm.c) share: their
 * worker threads, the stop test, Burnside's lemma for the unique count, the boards too small to cut
 * and the binomial that sizes their column sets.
 *
 * Both counters find every solution (not one per symmetry class), so the number of classes comes from
 * how many boards each symmetry fixes: only rotations can, for n > 1 no board is its own mirror image
 * or transpose. nq_count_symmetric (count_sym.c) counts the boards a quarter and a half turn fix, a
 * search about the square root of the main count's size; nq_count_workers_run runs it on the calling
 * thread while the workers count, so it costs no wall time.
 *
 * Thread-safety: reentrant. Ownership: nothing allocated survives a call.
 */
#ifndef NQ_COUNT_WORKERS_H
#define NQ_COUNT_WORKERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "nqueens/solver.h"

#define NQ_COUNT_WORKERS_MAX 64 /* hard cap on the workers of one count */

/* Threads for a request of `threads` (0: nq_count_cpus()), clamped to 1..max (max >= 1). Inline,
 * so that callers (and the static analyzer) see it is never below 1. */
static inline int nq_count_workers(int threads, int max)
{
    const long want = threads != 0 ? threads : nq_count_cpus();
    if (want < 1) return 1;
    return want < max ? (int)want : max;
}

/* Boards too small for a table counter to cut (n <= 3): answers *out (1 board for n = 1, which all
 * 8 symmetries fix; none for 2 and 3) and returns true; false for every larger n. */
static inline bool nq_count_too_small(int n, nq_counts *out)
{
    if (n > 3) return false;
    out->total = out->unique = n == 1 ? 1u : 0u;
    return true;
}

/* C(a, b), exact for a <= 32 (column sets of a board; a product never passes 2^40); 0 when
 * b < 0 or b > a. */
static inline uint64_t nq_binomial(int a, int b)
{
    if (b < 0 || a < b) return 0;
    uint64_t r = 1;
    for (int i = 1; i <= b; i++)
        r = r * (uint64_t)(a - b + i) / (uint64_t)i; /* exact: r is C(a-b+i-1, i-1) before the step */
    return r;
}

/* Run fn(arg) on up to `threads` threads (at most NQ_COUNT_WORKERS_MAX), the calling one included,
 * and join them all. A helper that cannot start is no error: fn must take its work from a shared
 * counter, so that the threads that did start take that helper's share. */
void nq_count_helpers_run(void *(*fn)(void *), void *arg, int threads);

/* Should a worker leave? True once *stop is set or the caller cancelled (ctl may be NULL); a cancel
 * seen here sets *stop, so the other workers need not look at ctl. Cheap: relaxed loads. */
static inline bool nq_count_stopping(atomic_bool *stop, nq_count_ctl *ctl)
{
    if (atomic_load_explicit(stop, memory_order_relaxed)) return true;
    if (ctl != NULL && atomic_load_explicit(&ctl->cancel, memory_order_relaxed)) {
        atomic_store_explicit(stop, true, memory_order_relaxed);
        return true;
    }
    return false;
}

/* Start `threads` threads running fn(arg), count the boards of size n a quarter and a half turn fix
 * (*quarter, *half) on the calling thread meanwhile, then join every thread. fn must leave soon
 * after *stop is set (nq_count_stopping), and set *nomem and *stop when it runs out of memory. When a
 * thread cannot be started or the symmetric count is cancelled, *stop is set so the running workers
 * leave. Returns NQ_E_THREAD, NQ_E_NOMEM (*nomem set), NQ_E_CANCELED (cancelled, or *stop set for
 * any other reason), else NQ_OK: every worker finished its share. quarter and half NULL: the
 * symmetric boards are not counted (a tasked count that did them before). */
nq_err nq_count_workers_run(int n, int threads, void *(*fn)(void *), void *arg, atomic_bool *stop, atomic_bool *nomem,
                            nq_count_ctl *ctl, uint64_t *quarter, uint64_t *half);

/* Burnside: classes = (all boards + 2 x those a quarter turn fixes + those a half turn fixes) / 8. */
nq_counts nq_count_burnside(uint64_t total, uint64_t quarter, uint64_t half);

/* Count the solutions of an n x n board that a quarter turn maps to themselves (*quarter) and those
 * a half turn maps to themselves (*half). Single-threaded; looks at ctl's cancel flag (ctl may be
 * NULL) every few thousand search nodes. Errors: NQ_E_ARG (NULL output), NQ_E_RANGE (n outside
 * 1..NQ_COUNT_N_MAX), NQ_E_CANCELED. */
nq_err nq_count_symmetric(int n, nq_count_ctl *ctl, uint64_t *quarter, uint64_t *half);

#endif /* NQ_COUNT_WORKERS_H */
