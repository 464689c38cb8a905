/* count.c - nq_count: the control block and the choice of counting method per n.
 *
 * Three counters sit behind nq_count: the symmetry-aware backtracking counter (count_bt.c), the
 * half-board counter (count_quad.c) and the meet-in-the-middle counter (count_mitm.c). Which one is
 * fastest depends on n; count_quad.h and count_mitm.h say where each wins (measured,
 * docs/performance.md), and everything else goes to backtracking.
 */
#include "nqueens/solver.h"

#include "count_bt.h"
#include "count_mitm.h"
#include "count_quad.h"

void nq_count_ctl_init(nq_count_ctl *ctl) {
    if (ctl == NULL) return;
    atomic_init(&ctl->cancel, false);
    atomic_init(&ctl->done, 0);
    atomic_init(&ctl->total, 0);
}

void nq_count_cancel(nq_count_ctl *ctl) {
    if (ctl != NULL) atomic_store(&ctl->cancel, true);
}

double nq_count_progress(const nq_count_ctl *ctl) {
    if (ctl == NULL) return 0.0;
    const uint_fast32_t total = atomic_load(&ctl->total);
    const uint_fast32_t done = atomic_load(&ctl->done);
    if (total == 0) return 0.0;
    if (done >= total) return 1.0;
    return (double)done / (double)total;
}

nq_err nq_count(int n, int threads, nq_count_ctl *ctl, nq_counts *out) {
    if (out == NULL || threads < 0) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX) return NQ_E_RANGE;
    /* In order of speed where each applies: half-board (13..20), meet-in-the-middle, backtracking. */
    if (nq_count_quad_preferred(n)) return nq_count_quad(n, threads, ctl, out);
    if (nq_count_mitm_preferred(n)) return nq_count_mitm(n, threads, ctl, out);
    return nq_count_backtrack(n, threads, ctl, out);
}
