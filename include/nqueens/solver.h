/* solver.h - the N-Queens solver library: enumerate, count, render and check solutions.
 *
 * A solution for an n x n board is a column vector cols[0..n-1]: cols[r] is the 0-based column of the
 * queen in row r. Solutions are ordered lexicographically by that vector, which is the order a textbook
 * backtracking search (row 0's column ascending, then row 1's, ...) finds them.
 *
 * Boards beyond n = 32 have their own headers: solution.h (one solution of any size, constructed or
 * random from a seed) and placement.h (parse and check any placement in O(n + queens)).
 *
 * Thread-safety: every function is reentrant. An nq_iter belongs to one thread at a time; distinct
 * iterators are independent. nq_count may be called from many threads at once; its control block is
 * meant to be shared (cancel from one thread, read progress from another).
 * Failure: every function checks its arguments first and returns an nq_err (include/nqueens/error.h);
 * none aborts on bad input, none leaves a partial result the caller must free.
 */
#ifndef NQ_SOLVER_H
#define NQ_SOLVER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"

#define NQ_N_MIN 1        /* smallest board */
#define NQ_N_MAX 32       /* largest board the enumerator handles (one 32-bit mask per constraint) */
#define NQ_COUNT_N_MAX 27 /* largest n whose counts are known to fit in 64 bits (OEIS A000170) */

/* ---- enumeration ------------------------------------------------------------------------------ */

typedef struct nq_iter nq_iter; /* opaque resumable enumerator, O(n) memory */

enum nq_iter_flags {
    NQ_ITER_UNIQUE = 1u << 0 /* yield only the lexicographically smallest board of each symmetry class */
};

/* Create an iterator positioned before the first solution of an n x n board.
 * flags: 0 or NQ_ITER_UNIQUE. On success *out owns a new iterator (free with nq_iter_destroy).
 * Errors: NQ_E_ARG (out NULL, unknown flag), NQ_E_RANGE (n outside NQ_N_MIN..NQ_N_MAX), NQ_E_NOMEM. */
nq_err nq_iter_create(int n, unsigned flags, nq_iter **out);

/* Free an iterator. NULL is accepted and ignored. */
void nq_iter_destroy(nq_iter *it);

/* Reposition so the next solution yielded is the first one that sorts strictly after cursor.
 * cursor holds len column indices; it need not be a solution (nor, in unique mode, canonical): the
 * iterator resumes exactly where that vector would sit in the order. The seek costs O(n), never an
 * enumeration of what comes before; the next nq_iter_next then searches on from there, which after
 * an unlucky cursor takes long at large n (worst over random cursors, measured: 40 ms at n = 20,
 * 0.3 s at n = 24, 23 s at n = 32).
 * Errors: NQ_E_ARG (it or cursor NULL), NQ_E_CURSOR (len != n, or a column >= n). On error the
 * iterator is unchanged. */
nq_err nq_iter_seek_after(nq_iter *it, const uint8_t *cursor, size_t len);

/* Skip up to k solutions from the current position; *skipped (may be NULL) receives how many were
 * skipped (fewer than k only at the end, or when stopped). Costs O(k) enumeration steps.
 * Errors: NQ_E_ARG (it NULL), NQ_E_CANCELED (stopped through nq_iter_set_stop). */
nq_err nq_iter_skip(nq_iter *it, uint64_t k, uint64_t *skipped);

/* Pull up to max solutions. Solution i is written to cols[i*n .. i*n+n-1]; cols must hold max*n
 * bytes. *got receives how many were written; 0 means the iterator is exhausted (further calls keep
 * returning 0). No allocation. Large batches are cheaper per solution: a batch that holds a whole
 * left-half block of solutions (same row-0 column) fills its mirror block by copying, not searching.
 * Errors: NQ_E_ARG (it, cols or got NULL, or max == 0), NQ_E_CANCELED (stopped through
 * nq_iter_set_stop; *got solutions were still written). */
nq_err nq_iter_next(nq_iter *it, uint8_t *cols, size_t max, size_t *got);

/* Let another thread interrupt nq_iter_next and nq_iter_skip: while *stop is true they return
 * NQ_E_CANCELED, within about a millisecond of search, with *got (*skipped) saying what they did
 * deliver. The iterator stays consistent: once *stop is false again, the next call continues exactly
 * where the interrupted one left off. This is how a caller bounds the time of one call at large n
 * (see nq_iter_seek_after). *stop is only read, and must outlive its use; NULL (the default) turns
 * the looks off. Errors: NQ_E_ARG (it NULL). */
nq_err nq_iter_set_stop(nq_iter *it, const atomic_bool *stop);

/* The board size and flags the iterator was created with (0 for NULL). */
int nq_iter_n(const nq_iter *it);
unsigned nq_iter_flags(const nq_iter *it);

/* ---- counting --------------------------------------------------------------------------------- */

typedef struct nq_counts {
    uint64_t total;  /* all solutions, OEIS A000170 */
    uint64_t unique; /* symmetry classes (rotations and reflections), OEIS A002562 */
} nq_counts;

/* Shared control of a running count. Initialise with nq_count_ctl_init before passing it to
 * nq_count; any thread may then call nq_count_cancel and nq_count_progress on it concurrently. */
typedef struct nq_count_ctl {
    atomic_bool cancel;         /* set to stop the count early */
    atomic_uint_fast32_t done;  /* search tasks finished */
    atomic_uint_fast32_t total; /* search tasks in all; 0 until the count has split its work */
} nq_count_ctl;

/* Reset ctl to "not cancelled, no progress". Not thread-safe against a count using ctl. */
void nq_count_ctl_init(nq_count_ctl *ctl);

/* Ask the count using ctl to stop; it returns NQ_E_CANCELED within about 50 ms. Thread-safe. */
void nq_count_cancel(nq_count_ctl *ctl);

/* Fraction of the count done, 0.0 .. 1.0 (1.0 once finished). Thread-safe; NULL gives 0. */
double nq_count_progress(const nq_count_ctl *ctl);

/* CPUs this process may run on: the CPUs of its affinity mask (taskset, a cpuset), or the online
 * CPUs when the mask cannot be read; at least 1. What nq_count's `threads` = 0 means. A cgroup CPU
 * quota is not consulted (a service that runs under one, like nqueensd, caps this by it and passes
 * the result). Thread-safe. */
int nq_count_cpus(void);

/* Count all solutions and symmetry classes of an n x n board, on `threads` worker threads
 * (0: one per CPU in the process's affinity mask, as taskset or a cpuset sets it; a cgroup CPU quota
 * is not consulted; more than can help are clamped).
 * ctl may be NULL (no cancel, no progress). Blocks until done.
 * The fastest method for n is chosen internally. Its working memory is allocated inside the call
 * and freed before it returns: almost none below n = 13; from there tables shared by the threads
 * (9 MB at n = 16, 63 MB at 18, 500 MB at 20, 480 MB at 21; from 22 on about 1 GiB at most) plus a
 * few MB per thread (up to about 10 at n = 20 and 21; docs/performance.md); NQ_E_NOMEM if it cannot be
 * had.
 * Errors: NQ_E_ARG (out NULL, threads < 0), NQ_E_RANGE (n outside 1..NQ_COUNT_N_MAX),
 * NQ_E_CANCELED (ctl was cancelled; *out is then unspecified), NQ_E_NOMEM, NQ_E_THREAD. */
nq_err nq_count(int n, int threads, nq_count_ctl *ctl, nq_counts *out);

/* ---- counting in tasks: the unit of checkpoints and of distributed counts ----------------------- */

/* A count of n is split into tasks by a plan that depends only on n and NQ_COUNT_PLAN_VERSION: task i
 * of n is the same piece of work in every process and on every machine running the same plan version,
 * so a caller may count some tasks now, the rest later or elsewhere, and add up the sums. A plan
 * version change means old task results must not be mixed with new ones (a store keeps the version
 * beside its checkpoints and starts over on a mismatch).
 * The half-board counter's n (13..23) splits into one task per top-half column set with something
 * of its own to count (even n: one per column-set orbit, about C(n, n/2)/4; odd n: the sets that own
 * at least one orbit of (column set, middle queen), about 0.28 C(n, n/2)) plus one task for the boards
 * a symmetry fixes: 545 at n = 13, 7 108 at n = 17, 26 370 at n = 19, 98 921 at n = 21, 176 871 at
 * n = 22, 374 199 at n = 23; the meet-in-the-middle counter's n (24 and up) into one task per placement
 * of the first four rows, mirror images left out, plus that one (75 517 at n = 24); every other n
 * (1..12) is one task (the whole count), which a resumed count redoes. Version 5 moved n = 22 and 23
 * to the half-board plan; version 4: odd n use the upside-down symmetry too (fewer, different tasks). */
#define NQ_COUNT_PLAN_VERSION 5

/* What one task contributes. Sums of tasks add component-wise (nq_count_sums_add); the counts of n
 * are nq_count_sums_counts of the sum over every task of its plan. */
typedef struct nq_count_sums {
    uint64_t total;    /* solutions this task found, symmetry weights applied */
    uint64_t burnside; /* its share of 8 x the symmetry classes (Burnside's lemma numerator) */
} nq_count_sums;

/* Called once per finished task, from the worker thread that finished it (several at once: the
 * callee synchronises), with the task's index and sums. A task that was cancelled is not reported. */
typedef void (*nq_count_task_fn)(void *arg, uint32_t task, const nq_count_sums *sums);

/* How many tasks the plan of n has (>= 1). Pure, thread-safe.
 * Errors: NQ_E_ARG (tasks NULL), NQ_E_RANGE (n outside 1..NQ_COUNT_N_MAX), NQ_E_NOMEM (the plan,
 * a list of column sets at n >= 13, could not be listed). */
nq_err nq_count_plan(int n, uint32_t *tasks);

/* Tasks next to each other in a plan share work that a worker keeps between them (from n = 21 on,
 * the half-board counter's right-quadrant tables, rebuilt whenever the next task's right columns
 * differ: one shard of 1024 at n = 23 costs 122 CPU s as single tasks far apart, 97 s in blocks),
 * while the cost of tasks drifts along the plan. So a plan dealt out to `parts` parts (shards, a
 * work queue's chunks) is cut into blocks of consecutive tasks, NQ_COUNT_BLOCKS_PER_PART or more
 * blocks a part, dealt out in turn: every part holds blocks from all over the plan and rebuilds at
 * most about once a block. Returns the block length, tasks / (parts x NQ_COUNT_BLOCKS_PER_PART)
 * rounded down, at least 1 (a small plan, or many parts: single tasks, dealt round-robin). parts 0
 * is taken as 1. Pure, thread-safe. */
#define NQ_COUNT_BLOCKS_PER_PART 32u
uint32_t nq_count_block(uint32_t tasks, uint32_t parts);

/* The name of the method behind n's plan: "backtrack", "quad" (the half-board counter) or "mitm"
 * (meet-in-the-middle), as bench/ calls them. A distributed count records it beside its shards'
 * sums so that sums from different methods are never added. NULL for n outside 1..NQ_COUNT_N_MAX.
 * Pure, thread-safe; the string is static. */
const char *nq_count_method(int n);

/* Count the tasks of n's plan whose todo[i] is non-zero (todo holds nq_count_plan's number of bytes;
 * NULL: every task), on `threads` threads as for nq_count, reporting each finished task through
 * done(arg, i, sums) (done may be NULL). ctl as for nq_count: cancel stops it within about 50 ms;
 * progress counts the tasks not in todo as already done. Blocks until every task in todo is reported
 * or the count stops. Memory as nq_count. The tasks reported before an error stay valid.
 * Errors: NQ_E_ARG (threads < 0), NQ_E_RANGE, NQ_E_CANCELED, NQ_E_NOMEM, NQ_E_THREAD. */
nq_err nq_count_tasks(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_task_fn done, void *arg);

/* A count of n's tasks spread over several calls, as a worker that takes blocks of the plan one after
 * another (a replica of nqueensd, a queue's consumer) runs it. nq_count_tasks builds what its counter
 * needs before the first task (the half-board counter's quadrant tables: 0.9 CPU s at n = 19, 2.3 s
 * at n = 20, about 6 s at n = 23) in every call; a session builds it in the first call that needs it
 * and keeps it for the next, so a plan cut into many blocks costs about what it costs whole. For n
 * outside the half-board counter's range (below 13, above 23) each call is nq_count_tasks.
 * Ownership: the session is the caller's (nq_count_session_destroy); from its first call on it holds
 * the memory of a count of n (nq_count), until destroyed.
 * Thread-safety: one call at a time on a session (each call runs its own worker threads, as
 * nq_count_tasks); different sessions are independent. */
typedef struct nq_count_session nq_count_session;

/* A session for n, nothing built yet. Errors: NQ_E_ARG (out NULL), NQ_E_RANGE (n outside
 * 1..NQ_COUNT_N_MAX), NQ_E_NOMEM; *out is NULL on error. */
nq_err nq_count_session_create(int n, nq_count_session **out);

/* nq_count_tasks(n, threads, todo, ctl, done, arg) on the session's n, with what earlier calls built.
 * A call that fails or is cancelled leaves the session usable (a table whose build was cut short is
 * built again by the next call). Errors: NQ_E_ARG (s NULL), and those of nq_count_tasks. */
nq_err nq_count_session_tasks(nq_count_session *s, int threads, const uint8_t *todo, nq_count_ctl *ctl,
                              nq_count_task_fn done, void *arg);

/* The n the session counts. s must not be NULL. */
int nq_count_session_n(const nq_count_session *s);

/* Free the session and what it holds. NULL is accepted. */
void nq_count_session_destroy(nq_count_session *s);

/* nq_count_tasks with no callback of the caller's: the sums of the tasks counted, added up, into
 * *out ({0, 0} first, so a failed or cancelled count leaves the sum of the tasks done before it).
 * Errors: NQ_E_ARG (out NULL), and those of nq_count_tasks. */
nq_err nq_count_tasks_sum(int n, int threads, const uint8_t *todo, nq_count_ctl *ctl, nq_count_sums *out);

/* acc += s, component-wise. */
void nq_count_sums_add(nq_count_sums *acc, const nq_count_sums *s);

/* The counts the sums of every task of a plan make: total, and burnside / 8 classes. */
nq_counts nq_count_sums_counts(const nq_count_sums *all);

/* Why sums cannot be what tasks of a plan add up to. Sums read back from a file, a message or a
 * database row are checked with these before they are added: a hand edit or damage on the way can
 * break them. The verdict of a check, not an error (nq_err): callers word it for their input. */
typedef enum nq_sums_fault {
    NQ_SUMS_FIT = 0,       /* no contradiction found */
    NQ_SUMS_NO_TASKS,      /* no tasks, but sums that are not zero */
    NQ_SUMS_TOTAL_ABOVE,   /* a total above the Burnside sum */
    NQ_SUMS_PART_CLASS,    /* a whole count's Burnside sum is not a multiple of 8 */
    NQ_SUMS_CLASSES_ABOVE, /* a whole count with more classes than solutions */
} nq_sums_fault;

/* Can s be the sums of `tasks` tasks of a plan? Every task's Burnside sum holds its solutions once
 * for the identity and more for the symmetries that fix them, so it is never below the task's total;
 * no tasks sum to nothing. NQ_SUMS_FIT, NQ_SUMS_NO_TASKS or NQ_SUMS_TOTAL_ABOVE. Pure. */
nq_sums_fault nq_count_sums_fit(const nq_count_sums *s, uint64_t tasks);

/* Can s be the sums of every task of a plan (at least one task)? As nq_count_sums_fit, and they make
 * whole classes of 1 to 8 solutions each: the Burnside sum is a multiple of 8 and total <= burnside
 * <= 8 x total. NQ_SUMS_FIT or the first rule broken, in the order of nq_sums_fault. Pure. */
nq_sums_fault nq_count_sums_whole(const nq_count_sums *s);

/* ---- rendering, parsing and checking ---------------------------------------------------------- */

/* Size of the buffer nq_render_board needs: n rows of n characters, each row NUL-terminated. */
#define NQ_BOARD_BUFSIZE(n) ((size_t)(n) * ((size_t)(n) + 1u))

/* Size of the buffer nq_render_columns needs: up to 2 digits and a separator per column, plus NUL. */
#define NQ_COLUMNS_BUFSIZE(n) ((size_t)(n)*3u + 1u)

/* Render cols as a board: row r is the NUL-terminated string at out + r*(n+1), n characters of '.'
 * with a 'Q' at column cols[r]. cap must be >= NQ_BOARD_BUFSIZE(n).
 * Errors: NQ_E_ARG (NULL), NQ_E_RANGE (n), NQ_E_CURSOR (a column >= n), NQ_E_BUFSIZE. */
nq_err nq_render_board(int n, const uint8_t *cols, char *out, size_t cap);

/* Render cols as decimal column indices separated by commas ("1,3,0,2"), NUL-terminated.
 * *len (may be NULL) receives the length without the NUL. cap >= NQ_COLUMNS_BUFSIZE(n) always suffices.
 * Errors: as nq_render_board. */
nq_err nq_render_columns(int n, const uint8_t *cols, char *out, size_t cap, size_t *len);

/* Parse a cursor "c0,c1,...,c(n-1)": exactly n plain ASCII decimal numbers in 0..n-1 separated by
 * single commas, nothing else (no spaces, signs, empty fields or leading zeros beyond "0"). Reads at
 * most len bytes of s (s need not be NUL-terminated). On success writes n bytes to cols.
 * Errors: NQ_E_ARG (NULL), NQ_E_RANGE (n), NQ_E_CURSOR (anything malformed). */
nq_err nq_parse_columns(int n, const char *s, size_t len, uint8_t *cols);

/* NQ_OK if cols is a valid solution of the n x n board (one queen per row, no two attacking).
 * Errors: NQ_E_ARG (NULL), NQ_E_RANGE (n), NQ_E_NOT_SOLUTION (a column >= n, or an attack). */
nq_err nq_check(int n, const uint8_t *cols);

/* Write to out the lexicographically smallest of the 8 symmetric images of solution cols (the
 * representative unique mode yields). out may equal cols.
 * Errors: NQ_E_ARG (NULL), NQ_E_RANGE (n), NQ_E_NOT_SOLUTION (cols is not a solution). */
nq_err nq_canonical(int n, const uint8_t *cols, uint8_t *out);

/* The known counts of n, OEIS A000170 (total) and A002562 (unique), into *out: true for
 * n = 1..NQ_COUNT_N_MAX, false (nothing written) for any other n. For holding a count assembled
 * from parts that travelled through files, networks or stores (shards, checkpoints, stored rows)
 * against the truth: parts damaged in a way their own checks cannot see make the whole wrong, and
 * are refused rather than printed or served. Pure and thread-safe (a constant table). */
bool nq_count_known(int n, nq_counts *out);

#endif /* NQ_SOLVER_H */
