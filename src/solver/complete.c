/* complete.c - the first solution containing given queens, and their number (see complete.h).
 *
 * Tuned for boards up to 32 rows with a handful of givens: the givens (and any blocked squares) are
 * folded once into a mask per row of the squares no free queen may take (blocked[]), so the inner loop is the plain three-mask search
 * with one more OR, and a row holding a given offers only that square. The explicit stack lives in
 * a struct on the caller's stack: nothing is allocated in the search. A count on several threads
 * shares out the subtrees below the first two free rows (at most 32 x 32 of them, listed before any
 * thread starts), each worker pulling the next one.
 */
#include "nqueens/complete.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define POLL_MASK ((1u << 14) - 1) /* nodes between looks at ctl->cancel */
#define WORKERS_MAX 256            /* threads one count starts at most */

/* The givens, folded for the search. */
typedef struct board {
    int n;                      /* rows */
    uint32_t full;              /* the n low bits */
    uint32_t blocked[NQ_N_MAX]; /* squares of each row a given queen of another row attacks, or blocked */
    int given[NQ_N_MAX];        /* the given column of each row, -1 for a free row */
    int first_free;             /* the first row without a given, n when every row has one */
} board;

/* The explicit stack of one search. */
typedef struct stack {
    uint32_t untried[NQ_N_MAX + 1]; /* candidates of each row not yet tried */
    uint32_t down[NQ_N_MAX + 1];    /* columns taken above */
    uint32_t left[NQ_N_MAX + 1];    /* squares attacked along one diagonal from above */
    uint32_t right[NQ_N_MAX + 1];   /* ... and along the other */
    uint8_t cols[NQ_N_MAX];         /* the current branch */
} stack;

static int lowest_bit(uint32_t b)
{
    return __builtin_ctz(b);
}

bool nq_complete_consistent(int n, const nq_square *givens, size_t count)
{
    if (n < NQ_N_MIN || n > NQ_N_MAX || (count > 0 && !givens)) return false;
    uint64_t rows = 0, cols = 0, diag = 0, anti = 0; /* diagonals: r - c + n - 1 and r + c, both < 63 */
    for (size_t i = 0; i < count; i++) {
        const uint32_t r = givens[i].row, c = givens[i].col;
        if (r >= (uint32_t)n || c >= (uint32_t)n) return false;
        const uint64_t br = 1ull << r, bc = 1ull << c, bd = 1ull << (r + (uint32_t)n - 1u - c), ba = 1ull << (r + c);
        if ((rows & br) || (cols & bc) || (diag & bd) || (anti & ba)) return false;
        rows |= br, cols |= bc, diag |= bd, anti |= ba;
    }
    return true;
}

/* Block the lines of the given queen at (r0, c0) in every other row. */
static void block_lines(board *b, int r0, int c0)
{
    for (int r = 0; r < b->n; r++) {
        if (r == r0) continue;
        const int d = r > r0 ? r - r0 : r0 - r;
        uint32_t m = 1u << c0;
        if (c0 + d < b->n) m |= 1u << (c0 + d);
        if (c0 - d >= 0) m |= 1u << (c0 - d);
        b->blocked[r] |= m;
    }
}

/* Fold consistent givens (checked by the caller) and the blocked squares (NULL: none) into b. */
static void prepare(int n, const nq_square *givens, size_t count, const uint32_t *blocked, board *b)
{
    memset(b, 0, sizeof *b);
    b->n = n;
    b->full = n == 32 ? UINT32_MAX : (1u << n) - 1u;
    for (int r = 0; r < n; r++) {
        b->given[r] = -1;
        if (blocked) b->blocked[r] = blocked[r] & b->full;
    }
    for (size_t i = 0; i < count; i++) {
        b->given[givens[i].row] = (int)givens[i].col;
        block_lines(b, (int)givens[i].row, (int)givens[i].col);
    }
    b->first_free = n;
    for (int r = n - 1; r >= 0; r--)
        if (b->given[r] < 0) b->first_free = r;
}

/* Candidates of row r below the stack's masks. */
static uint32_t candidates(const board *b, const stack *s, int r)
{
    uint32_t m = b->full & ~(s->down[r] | s->left[r] | s->right[r] | b->blocked[r]);
    if (b->given[r] >= 0) m &= 1u << b->given[r];
    return m;
}

static bool canceled(nq_count_ctl *ctl)
{
    return ctl && atomic_load_explicit(&ctl->cancel, memory_order_relaxed);
}

/* Progress: the candidates of the first free row, one task each. */
static void progress_start(nq_count_ctl *ctl, uint32_t first_row)
{
    if (!ctl) return;
    const unsigned tasks = (unsigned)__builtin_popcount(first_row);
    atomic_store(&ctl->done, 0);
    atomic_store(&ctl->total, tasks ? tasks : 1u);
}

static void progress_end(nq_count_ctl *ctl)
{
    if (ctl) atomic_store(&ctl->done, atomic_load(&ctl->total));
}

/* Depth-first over rows r0.. below the masks the stack holds at r0, lowest column first. With
 * `first`, stop at the first solution (left in s->cols) and return 1; else return the number of
 * solutions (the last row is counted by popcount, not walked). With `progress`, the candidates of the
 * first free row are the tasks ctl counts. *rc becomes NQ_E_CANCELED when ctl stops it. */
static uint64_t search_from(const board *b, stack *s, int r0, bool first, bool progress, nq_count_ctl *ctl, nq_err *rc)
{
    const int n = b->n;
    uint64_t found = 0;
    unsigned nodes = 0, taken_first = 0;
    s->untried[r0] = candidates(b, s, r0);
    if (progress) progress_start(ctl, b->first_free < n ? s->untried[b->first_free] : 0u);
    int r = r0;
    while (r >= r0) {
        if (!s->untried[r]) { /* this row is exhausted: back up */
            r--;
            continue;
        }
        if ((++nodes & POLL_MASK) == 0 && canceled(ctl)) {
            *rc = NQ_E_CANCELED;
            return found;
        }
        if (progress && r == b->first_free && ctl)
            atomic_store_explicit(&ctl->done, taken_first++, memory_order_relaxed);
        if (r == n - 1 && !first) { /* every candidate of the last row is a solution */
            found += (uint64_t)__builtin_popcount(s->untried[r]);
            s->untried[r] = 0;
            continue;
        }
        const uint32_t bit = s->untried[r] & (~s->untried[r] + 1u);
        s->untried[r] ^= bit;
        s->cols[r] = (uint8_t)lowest_bit(bit);
        if (r == n - 1) {
            if (progress) progress_end(ctl);
            return 1;
        }
        s->down[r + 1] = s->down[r] | bit;
        s->left[r + 1] = ((s->left[r] | bit) << 1) & b->full;
        s->right[r + 1] = (s->right[r] | bit) >> 1;
        r++;
        s->untried[r] = candidates(b, s, r);
    }
    if (progress) progress_end(ctl);
    return found;
}

static uint64_t search(const board *b, stack *s, bool first, nq_count_ctl *ctl, nq_err *rc)
{
    s->down[0] = s->left[0] = s->right[0] = 0;
    return search_from(b, s, 0, first, true, ctl, rc);
}

/* ---- the count on several threads: the subtrees below the first two free rows ------------------ */

#define TASKS_MAX (NQ_N_MAX * NQ_N_MAX) /* two free rows' worth of placements */

typedef struct task {
    uint32_t down, left, right; /* the masks at the split row */
} task;

typedef struct split {
    const board *b;             /* the givens */
    int row;                    /* tasks start here */
    size_t ntasks;              /* in tasks[] */
    task tasks[TASKS_MAX];      /* the subtrees */
    atomic_size_t next;         /* next task to take */
    atomic_uint_fast64_t total; /* solutions found */
    atomic_bool failed;         /* a worker was cancelled */
    nq_count_ctl *ctl;          /* may be NULL */
} split;

/* Every placement of rows 0..row-1 as a task: the masks it leaves at `row`. */
static void collect(split *sp, int r, uint32_t down, uint32_t left, uint32_t right)
{
    const board *b = sp->b;
    if (r == sp->row) {
        sp->tasks[sp->ntasks++] = (task){down, left, right};
        return;
    }
    uint32_t m = b->full & ~(down | left | right | b->blocked[r]);
    if (b->given[r] >= 0) m &= 1u << b->given[r];
    for (; m; m &= m - 1) {
        const uint32_t bit = m & (~m + 1u);
        collect(sp, r + 1, down | bit, ((left | bit) << 1) & b->full, (right | bit) >> 1);
    }
}

static void *count_worker(void *arg)
{
    split *sp = arg;
    stack s;
    for (size_t i; !atomic_load(&sp->failed) && (i = atomic_fetch_add(&sp->next, 1)) < sp->ntasks;) {
        if (canceled(sp->ctl)) { /* between tasks too: a task may end before its first poll */
            atomic_store(&sp->failed, true);
            break;
        }
        s.down[sp->row] = sp->tasks[i].down, s.left[sp->row] = sp->tasks[i].left, s.right[sp->row] = sp->tasks[i].right;
        nq_err rc = NQ_OK;
        const uint64_t got = search_from(sp->b, &s, sp->row, false, false, sp->ctl, &rc);
        if (rc != NQ_OK) atomic_store(&sp->failed, true);
        atomic_fetch_add(&sp->total, got);
        if (sp->ctl) atomic_fetch_add(&sp->ctl->done, 1);
    }
    return NULL;
}

/* The split row: just below the second free row; 0 when the board has fewer than two free rows
 * left above its last row (nothing worth sharing out). */
static int split_row(const board *b)
{
    int seen = 0;
    for (int r = 0; r < b->n - 1; r++)
        if (b->given[r] < 0 && ++seen == 2) return r + 1;
    return 0;
}

/* Count on `threads` threads (>= 2); falls back on one when a thread cannot start. */
static nq_err count_parallel(const board *b, int threads, nq_count_ctl *ctl, uint64_t *out)
{
    split *sp = malloc(sizeof *sp); /* before the search, not in it: the task list is 12 KB */
    if (!sp) return NQ_E_NOMEM;
    sp->b = b, sp->row = split_row(b), sp->ntasks = 0, sp->ctl = ctl;
    atomic_init(&sp->next, 0);
    atomic_init(&sp->total, 0);
    atomic_init(&sp->failed, false);
    collect(sp, 0, 0, 0, 0);
    if (ctl) {
        atomic_store(&ctl->done, 0);
        atomic_store(&ctl->total, sp->ntasks ? (uint_fast32_t)sp->ntasks : 1u);
    }
    pthread_t th[WORKERS_MAX];
    int started = 0;
    for (; started < threads - 1 && started < WORKERS_MAX; started++)
        if (pthread_create(&th[started], NULL, count_worker, sp) != 0) break;
    (void)count_worker(sp); /* the calling thread works too */
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    const bool failed = atomic_load(&sp->failed);
    *out = atomic_load(&sp->total);
    free(sp);
    if (failed) return NQ_E_CANCELED;
    progress_end(ctl);
    return NQ_OK;
}

/* The checks both entry points share; *ok says whether the givens can be completed at all. */
static nq_err check_args(int n, const nq_square *givens, size_t count, bool *ok)
{
    if (count > 0 && !givens) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_N_MAX) return NQ_E_RANGE;
    for (size_t i = 0; i < count; i++)
        if (givens[i].row >= (uint32_t)n || givens[i].col >= (uint32_t)n) return NQ_E_RANGE;
    *ok = nq_complete_consistent(n, givens, count);
    return NQ_OK;
}

/* Whether a given queen stands on a blocked square (such a board has no completion). */
static bool given_blocked(const nq_square *givens, size_t count, const uint32_t *blocked)
{
    for (size_t i = 0; blocked && i < count; i++)
        if (blocked[givens[i].row] >> givens[i].col & 1u) return true;
    return false;
}

nq_err nq_complete_first(int n, const nq_square *givens, size_t count, nq_count_ctl *ctl, uint8_t *cols, bool *found)
{
    return nq_complete_first_blocked(n, givens, count, NULL, ctl, cols, found);
}

nq_err nq_complete_first_blocked(int n, const nq_square *givens, size_t count, const uint32_t *blocked,
                                 nq_count_ctl *ctl, uint8_t *cols, bool *found)
{
    if (!cols || !found) return NQ_E_ARG;
    *found = false;
    bool ok = false;
    const nq_err arc = check_args(n, givens, count, &ok);
    if (arc != NQ_OK) return arc;
    if (!ok || given_blocked(givens, count, blocked)) {
        progress_start(ctl, 0);
        progress_end(ctl);
        return NQ_OK;
    }
    board b;
    stack s;
    prepare(n, givens, count, blocked, &b);
    nq_err rc = NQ_OK;
    const uint64_t got = search(&b, &s, true, ctl, &rc);
    if (rc != NQ_OK) return rc;
    if (got) memcpy(cols, s.cols, (size_t)n);
    *found = got != 0;
    return NQ_OK;
}

nq_err nq_complete_count(int n, const nq_square *givens, size_t count, int threads, nq_count_ctl *ctl, uint64_t *out)
{
    if (!out || threads < 0) return NQ_E_ARG;
    bool ok = false;
    const nq_err arc = check_args(n, givens, count, &ok);
    if (arc != NQ_OK) return arc;
    if (n > NQ_COUNT_N_MAX) return NQ_E_RANGE; /* counts beyond it need not fit in 64 bits */
    if (count == 0) {
        nq_counts c;
        const nq_err rc = nq_count(n, threads, ctl, &c);
        if (rc == NQ_OK) *out = c.total;
        return rc;
    }
    *out = 0;
    if (!ok) {
        progress_start(ctl, 0);
        progress_end(ctl);
        return NQ_OK;
    }
    board b;
    prepare(n, givens, count, NULL, &b);
    if (threads == 0) threads = nq_count_cpus();
    if (threads > 1 && split_row(&b) > 0) return count_parallel(&b, threads, ctl, out);
    stack s;
    nq_err rc = NQ_OK;
    const uint64_t got = search(&b, &s, false, ctl, &rc);
    if (rc == NQ_OK) *out = got;
    return rc;
}
