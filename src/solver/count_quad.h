/* count_quad.h - internal: the half-board counter (not part of the public API).
 *
 * The fastest of the counters behind nq_count for 13 <= n <= 23. The board is cut into a top and a
 * bottom half; a solution is a top half and a bottom half that use complementary columns and share
 * no diagonal. For each set S of columns the top half uses, the top halves on S and the bottom halves
 * on the other columns are built from precomputed quadrant placements (count_quad_table.h), then the
 * pairs that share no diagonal are counted by a streaming AND or, for long slices, a bit-sliced join,
 * sliced by the queens on the two rows next to the cut so that most incompatible pairs are never
 * tested. count_quad.c has the details.
 *
 * Ownership: nothing is returned that the caller must free but a session (below), which keeps its
 * tables between calls. Otherwise working memory is allocated inside the call and released before it
 * returns: four quadrant tables with their group offsets (9 MB at
 * n = 16, 63 MB at n = 18, 500 MB at n = 20; from n = 21 on only the two left ones, 480 MB at
 * n = 21, 690 MB at n = 22, about 1.3 GB at n = 23, and per worker the right ones of its column set,
 * about 1 MB) and per worker the halves of one column set (a few MB, about 10 at n = 20 and 21, 40 at
 * n = 22). Peak resident memory with 2 threads: 554 MiB at n = 21, 832 MiB at n = 22, 1.5 GiB at
 * n = 23.
 * Thread-safety: reentrant; each call uses only its own memory. ctl may be shared as for nq_count.
 */
#ifndef NQ_COUNT_QUAD_H
#define NQ_COUNT_QUAD_H

#include <stdbool.h>

#include "count_quad_simd.h"
#include "count_quad_table.h"
#include "nqueens/solver.h"

/* Largest n counted this way: a layout has room for eight class bits, which take n = 23's 40 key
 * bits to the 32-bit lanes. */
#define NQ_COUNT_QUAD_N_MAX 23

/* Count all solutions and symmetry classes of an n x n board (1 <= n <= NQ_COUNT_QUAD_N_MAX) with
 * the half-board method, on `threads` worker threads (0: one per online CPU). ctl may be NULL; when
 * given, the count stops soon after nq_count_cancel (one column set's work, milliseconds) and reports
 * progress through ctl->done / ctl->total (column sets).
 * Errors: NQ_E_ARG (out NULL, threads < 0), NQ_E_RANGE (n), NQ_E_CANCELED, NQ_E_NOMEM,
 * NQ_E_THREAD. On error *out is unspecified and nothing is leaked. */
nq_err nq_count_quad(int n, int threads, nq_count_ctl *ctl, nq_counts *out);

/* nq_count_quad with a given key layout (layout->n == n), for tests of layouts nq_count_quad would
 * not pick at that n, such as class bits on a small board. Same contract otherwise. */
nq_err nq_count_quad_with(int n, int threads, const nq_quad_layout *layout, nq_count_ctl *ctl, nq_counts *out);

/* nq_count_quad with the given kernel set (one of nq_quad_simd_all's) instead of the best this CPU
 * runs, so that one machine can measure and test every set it runs. Same contract otherwise;
 * NQ_E_ARG for a NULL set. */
nq_err nq_count_quad_kernels(int n, int threads, const nq_quad_simd *simd, nq_count_ctl *ctl, nq_counts *out);

/* The tasks of the half-board plan of n (solver.h "counting in tasks"): the i-th column set with
 * something of its own to count (count_quad.c, "Symmetry") is task i, in the order the sets are
 * listed, and the boards a symmetry fixes are the last task. 1 for n outside
 * 4..NQ_COUNT_QUAD_N_MAX (no cut), 0 when out of memory. Pure; thread-safe. */
uint32_t nq_count_quad_plan(int n);

/* Count the tasks of n's half-board plan that todo names (NULL: all), 4 <= n <= NQ_COUNT_QUAD_N_MAX,
 * reporting each through done (may be NULL), as nq_count_tasks. Errors: as nq_count_quad. */
nq_err nq_count_quad_tasks(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done,
                           void *arg);

/* A half-board count spread over several calls (solver.h, nq_count_session): the job of
 * nq_count_quad_tasks kept between calls, its quadrant tables built by the first call that counts a
 * column set and kept until destroyed. One call at a time on a session; sessions are independent. */
typedef struct nq_quad_session nq_quad_session;

/* A session for n (4 <= n <= NQ_COUNT_QUAD_N_MAX): the column sets listed, no table built yet.
 * Errors: NQ_E_ARG (out NULL), NQ_E_RANGE, NQ_E_NOMEM; *out is NULL on error. */
nq_err nq_count_quad_session_create(int n, nq_quad_session **out);

/* nq_count_quad_tasks on the session's n, building the tables only when they are not built yet (a
 * failed or cancelled build is dropped whole and done again by the next call). Errors: NQ_E_ARG (s
 * NULL, threads < 0), and those of nq_count_quad_tasks; the session stays usable after any of them. */
nq_err nq_count_quad_session_tasks(nq_quad_session *s, int threads, const uint8_t *todo, nq_count_ctl *ctl,
                                   nq_count_task_fn done, void *arg);

/* How many times the session built its tables so far (for tests: 1 however many calls counted column
 * sets, unless a build failed). s must not be NULL. */
uint32_t nq_count_quad_session_builds(const nq_quad_session *s);

/* Free the session and its tables. NULL is accepted. */
void nq_count_quad_session_destroy(nq_quad_session *s);

/* True where nq_count should use nq_count_quad (measured, docs/performance.md). Pure function of
 * n; thread-safe. */
bool nq_count_quad_preferred(int n);

#endif /* NQ_COUNT_QUAD_H */
