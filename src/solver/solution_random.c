/* solution_random.c - a random solution of any board from a 64-bit seed, in expected linear time.
 *
 * The local search is Sosic and Gu's QS4 ("3,000,000 queens in less than one minute", ACM SIGART
 * Bulletin 2(2):22-24, 1991; "Efficient local search with conflict minimization: a case study of the
 * n-queens problem", IEEE Trans. Knowledge and Data Engineering 6(5):661-668, 1994). The queens are a
 * permutation throughout (one per row and column), so only diagonals can clash:
 *  1. greedy start: row by row, swap in the queen of a random later row until the row's queen attacks
 *     none above it. It ends at a budget of tries (GREEDY_TRIES_PER_ROW * n), or earlier at a dead
 *     end: the free squares thin out as rows fill, and with a few dozen rows left the queens left
 *     usually fit none of the free squares of the next row (measured at n = 10^6 and 10^7: 20 to 50
 *     rows left);
 *  2. the rows step 1 did not reach are shuffled and placed as they fall;
 *  3. repair: every queen that may be attacked is on a work list; for each one still attacked, swap it
 *     with a random queen when that lowers the number of attacks, and put both back on the list if
 *     still attacked. A list entry whose queen is not attacked is dropped: every diagonal holding two
 *     queens keeps one of them on the list, so an empty list means a solution.
 * Expected work is linear (Sosic and Gu's analysis and measurements; ours are in docs/solution.md).
 * Like any swap descent it can stall in a local minimum (small boards do): a queen that finds no
 * improving swap in STALL_TRIES tries (fewer on small boards) restarts the whole search from step 1
 * with the generator's next outputs, so the result still depends on the seed alone. Below NQ_RANDOM_LOCAL_MIN, where such
 * stalls are common and n is tiny anyway, a randomised backtracking search (columns tried in a random
 * order in every row, restarted with a doubling node budget so one unlucky order cannot run long)
 * answers instead.
 *
 * Memory is what the design is tuned for at n = 10^8: a byte per diagonal and direction (4n bytes)
 * instead of 32-bit counts, which also keeps more of the diagonals in cache. A count never passes
 * 255: after step 1 a diagonal holds at most one queen; step 2 restarts if a diagonal would hold 255
 * (which needs 254 random queens on one line, never seen), and step 3 refuses a swap that would take a
 * count above 253 + 2. Every random number comes from prng.h, so a seed names one board everywhere.
 */
#include "nqueens/solution.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "prng.h"

#define GREEDY_TRIES_PER_ROW 5 /* step 1's budget, in tries per row (QS4 uses 3.08) */
#define STALL_TRIES 20000u     /* at most this many failed tries in a row before a restart: */
#define STALL_PER_ROW 8u       /* fewer on small boards, 8 per row, where restarts are cheap */
#define POLL_MASK 0xfffu       /* look at the cancel flag and publish progress every 4096 steps */
#define COUNT_CAP 253u         /* a swap never takes a diagonal count past this + 2 */

typedef struct search {
    uint32_t n;          /* board size */
    uint32_t *cols;      /* the caller's array: the permutation */
    uint8_t *down;       /* queens per diagonal r - c + n - 1, 2n - 1 of them */
    uint8_t *up;         /* queens per anti-diagonal r + c */
    uint32_t *work;      /* step 3's work list (rows) */
    uint32_t rest_max;   /* most rows step 1 may leave to step 2; sizes the work list */
    uint32_t stall;      /* failed tries in a row that count as a stall */
    nq_prng rng;         /* the only source of randomness */
    nq_count_ctl *ctl;   /* may be NULL */
    uint_fast32_t shown; /* progress last published (never decreases, across restarts) */
} search;

/* ---- shared ----------------------------------------------------------------------------------- */

static bool cancelled(const search *s)
{
    return s->ctl != NULL && atomic_load_explicit(&s->ctl->cancel, memory_order_relaxed);
}

/* Publishes progress in units of the 2n set as ctl->total: rows placed, then attacks removed. */
static void publish(search *s, uint_fast32_t done)
{
    if (s->ctl == NULL || done <= s->shown) return;
    s->shown = done;
    atomic_store_explicit(&s->ctl->done, done, memory_order_relaxed);
}

static uint32_t down_of(const search *s, uint32_t row, uint32_t col)
{
    return row + (s->n - 1 - col);
}

static bool attacked(const search *s, uint32_t row)
{
    const uint32_t col = s->cols[row];
    return s->down[down_of(s, row, col)] > 1 || s->up[row + col] > 1;
}

static void swap_cols(uint32_t *cols, uint32_t a, uint32_t b)
{
    const uint32_t t = cols[a];
    cols[a] = cols[b];
    cols[b] = t;
}

/* ---- step 1 and 2: the start ------------------------------------------------------------------ */

/* Failed tries in a row after which the greedy start gives up with `left` rows to go: the queens
 * left fit none of the free squares of this row (a dead end: with a few dozen rows left it happens
 * on most boards), or so few that the repair is cheaper. */
static uint64_t dead_end(uint32_t left)
{
    return 8 * (uint64_t)left + 100;
}

/* A row of the pool [from, n) for a try two steps ahead; n - 1 when that pool is empty. Either way it
 * lies in the pool the try will have, whatever the two tries before it do (rows only advance). */
static uint32_t draw_ahead(search *s, uint64_t from)
{
    return from < s->n ? (uint32_t)from + nq_prng_below(&s->rng, s->n - (uint32_t)from) : s->n - 1;
}

/* Greedy start; returns the first row it did not place, or UINT32_MAX when cancelled. Runs for its
 * budget, then on while more than `rest_max` rows are left, as long as it keeps placing rows.
 * Each try costs three dependent cache misses at large n (the queen swapped in, then its two
 * diagonals), so the tries are pipelined: the queen of the try after next is drawn now and its
 * column fetched, and the next try's diagonals are fetched while this one is tested. A failed try's
 * queen is thus never drawn again right away, which only skips a useless retry. */
static uint32_t greedy_start(search *s, uint32_t rest_max)
{
    const uint32_t n = s->n;
    const uint64_t budget = (uint64_t)GREEDY_TRIES_PER_ROW * n;
    uint32_t row = 0, fails = 0;
    uint32_t next = draw_ahead(s, 0), after = draw_ahead(s, 1); /* the queens of tries t, t + 1 */
    for (uint64_t t = 0; row < n && (t < budget || n - row > rest_max) && fails < dead_end(n - row); t++) {
        if ((t & POLL_MASK) == 0) {
            if (cancelled(s)) return UINT32_MAX;
            publish(s, row);
        }
        const uint32_t ahead = draw_ahead(s, (uint64_t)row + 2);
        __builtin_prefetch(&s->cols[ahead]);
        const uint32_t guess = s->cols[after]; /* try t + 1's queen, most likely on row + 1 */
        __builtin_prefetch(&s->down[down_of(s, row + 1, guess)]);
        __builtin_prefetch(&s->up[row + 1 + guess]);
        swap_cols(s->cols, row, next);
        next = after;
        after = ahead;
        const uint32_t col = s->cols[row];
        uint8_t *d = &s->down[down_of(s, row, col)], *u = &s->up[row + col];
        if ((*d | *u) != 0) { /* attacked from above: try another queen in this row */
            fails++;
            continue;
        }
        *d = 1;
        *u = 1;
        row++;
        fails = 0;
    }
    return row;
}

/* Shuffles rows first..n-1 and places them; puts each on the work list and adds the attacks each
 * one makes (one per diagonal it joins that already holds a queen) to *attacks. false: a count would
 * reach 255 (restart). */
static bool place_rest(search *s, uint32_t first, uint64_t *attacks)
{
    const uint32_t n = s->n;
    for (uint32_t row = first; row < n; row++) {
        swap_cols(s->cols, row, row + nq_prng_below(&s->rng, n - row));
        const uint32_t col = s->cols[row];
        uint8_t *d = &s->down[down_of(s, row, col)], *u = &s->up[row + col];
        if (*d == UINT8_MAX || *u == UINT8_MAX) return false;
        *attacks += (uint64_t)(*d > 0) + (uint64_t)(*u > 0);
        (*d)++;
        (*u)++;
        s->work[row - first] = row;
    }
    return true;
}

/* ---- step 3: repair --------------------------------------------------------------------------- */

/* Moves the queens of rows a and b off (sign -1) or onto (+1) their diagonals; returns the change in
 * the attack measure, the sum over diagonals of max(0, count - 1): cheaper to keep than the number
 * of attacking pairs (a queen joining a diagonal changes it by 0 or 1) and, like it, zero exactly for
 * a solution. */
static int shift(search *s, uint32_t a, uint32_t b, int sign)
{
    const uint32_t rows[2] = {a, b};
    int delta = 0;
    for (int i = 0; i < 2; i++) {
        const uint32_t r = rows[i], c = s->cols[r];
        uint8_t *d = &s->down[down_of(s, r, c)], *u = &s->up[r + c];
        if (sign < 0) {
            delta -= (*d > 1) + (*u > 1);
            (*d)--;
            (*u)--;
        } else {
            delta += (*d > 0) + (*u > 0);
            (*d)++;
            (*u)++;
        }
    }
    return delta;
}

/* True if exchanging the columns of rows a and b could push a count past COUNT_CAP + 2. */
static bool would_saturate(const search *s, uint32_t a, uint32_t b)
{
    const uint32_t ca = s->cols[a], cb = s->cols[b];
    return s->down[down_of(s, a, cb)] > COUNT_CAP || s->up[a + cb] > COUNT_CAP ||
           s->down[down_of(s, b, ca)] > COUNT_CAP || s->up[b + ca] > COUNT_CAP;
}

/* Swaps the columns of a and b if that lowers the attacks; returns whether it did. */
static bool try_swap(search *s, uint32_t a, uint32_t b, uint64_t *attacks)
{
    if (would_saturate(s, a, b)) return false;
    int delta = shift(s, a, b, -1);
    swap_cols(s->cols, a, b);
    delta += shift(s, a, b, +1);
    if (delta < 0) {
        *attacks -= (uint64_t)-delta;
        return true;
    }
    shift(s, a, b, -1); /* undo, in reverse */
    swap_cols(s->cols, a, b);
    shift(s, a, b, +1);
    return false;
}

/* Runs the work list dry; top is its length, attacks the sum over diagonals of max(0, count - 1)
 * (zero exactly for a solution). NQ_OK (solved), NQ_E_CANCELED, or NQ_E_BUFSIZE for a stall (the
 * caller restarts). */
static nq_err repair(search *s, size_t top, uint64_t attacks)
{
    const uint32_t n = s->n;
    const uint64_t initial = attacks > 0 ? attacks : 1;
    uint64_t steps = 0;
    while (top > 0) {
        const uint32_t row = s->work[--top];
        uint32_t fails = 0;
        while (attacked(s, row)) {
            if ((++steps & POLL_MASK) == 0) {
                if (cancelled(s)) return NQ_E_CANCELED;
                publish(s, (uint_fast32_t)(n + (uint64_t)n * (initial - attacks) / initial));
            }
            const uint32_t other = nq_prng_below(&s->rng, n);
            if (other == row || !try_swap(s, row, other, &attacks)) {
                if (++fails == s->stall) return NQ_E_BUFSIZE;
                continue;
            }
            fails = 0;
            /* one push per swap, and each swap lowers the measure: work_capacity allows for it */
            if (attacked(s, other)) s->work[top++] = other;
        }
    }
    return NQ_OK;
}

/* ---- the local search ------------------------------------------------------------------------- */

/* One attempt from the identity permutation. NQ_E_BUFSIZE means "stalled or saturated: restart". */
static nq_err attempt(search *s)
{
    const uint32_t n = s->n;
    for (uint32_t r = 0; r < n; r++) s->cols[r] = r;
    memset(s->down, 0, 2 * (size_t)n - 1);
    memset(s->up, 0, 2 * (size_t)n - 1);
    const uint32_t placed = greedy_start(s, s->rest_max);
    if (placed == UINT32_MAX) return NQ_E_CANCELED;
    if (n - placed > s->rest_max) return NQ_E_BUFSIZE; /* the greedy start got stuck */
    uint64_t attacks = 0;
    if (!place_rest(s, placed, &attacks)) return NQ_E_BUFSIZE;
    return repair(s, n - placed, attacks);
}

/* Work list capacity for `rest` rows left to step 2: rest entries, plus two per swap, of which there
 * are at most as many as the initial attacks (2 per placed row). */
static size_t work_capacity(size_t rest)
{
    return 5 * rest + 1;
}

/* Rows step 1 may leave to step 2 (measured: a few dozen; step 1 goes on past its budget to get
 * below this, and a search that cannot restarts). */
static uint32_t rest_bound(uint32_t n)
{
    return n / 32 + 64;
}

static nq_err local_search(search *s)
{
    nq_err err;
    do {
        err = attempt(s);
        if (err == NQ_E_NOMEM) return err;
    } while (err == NQ_E_BUFSIZE);
    return err;
}

/* ---- small boards: randomised backtracking ---------------------------------------------------- */

/* The k-th (0-based) set bit of m. */
static unsigned nth_bit(uint32_t m, uint32_t k)
{
    for (; k > 0; k--) m &= m - 1;
    unsigned b = 0;
    while (!(m & 1u)) {
        m >>= 1;
        b++;
    }
    return b;
}

/* Depth-first search with columns in random order; false when `budget` nodes ran out first. */
static bool backtrack(uint32_t n, nq_prng *g, uint64_t budget, uint32_t *cols)
{
    uint32_t left[NQ_RANDOM_LOCAL_MIN], down[NQ_RANDOM_LOCAL_MIN], right[NQ_RANDOM_LOCAL_MIN];
    uint32_t avail[NQ_RANDOM_LOCAL_MIN]; /* columns not yet tried in each row */
    const uint32_t all = (uint32_t)((UINT64_C(1) << n) - 1);
    int r = 0;
    left[0] = down[0] = right[0] = 0;
    avail[0] = all;
    while (r >= 0) {
        if (budget-- == 0) return false;
        if (avail[r] == 0) {
            r--;
            continue;
        }
        const uint32_t pick = (uint32_t)__builtin_popcount(avail[r]);
        const unsigned col = nth_bit(avail[r], nq_prng_below(g, pick));
        const uint32_t bit = UINT32_C(1) << col;
        avail[r] &= ~bit;
        cols[r] = col;
        if ((uint32_t)r + 1 == n) return true;
        left[r + 1] = ((left[r] | bit) << 1) & all;
        down[r + 1] = down[r] | bit;
        right[r + 1] = (right[r] | bit) >> 1;
        avail[r + 1] = all & ~(left[r + 1] | down[r + 1] | right[r + 1]);
        r++;
    }
    return false; /* not reached for n >= 4: a solution exists */
}

static void small_search(uint32_t n, nq_prng *g, uint32_t *cols)
{
    for (uint64_t budget = 1000; !backtrack(n, g, budget, cols); budget *= 2) {
    }
}

/* ---- entry point ------------------------------------------------------------------------------ */

size_t nq_random_memory(uint64_t n)
{
    if (!nq_solution_exists(n) || n < NQ_RANDOM_LOCAL_MIN) return 0;
    return 2 * (2 * (size_t)n - 1) + work_capacity(rest_bound((uint32_t)n)) * sizeof(uint32_t);
}

nq_err nq_random_solution(uint64_t n, uint64_t seed, nq_count_ctl *ctl, uint32_t *cols)
{
    if (cols == NULL) return NQ_E_ARG;
    if (n == 0 || n > NQ_SOLUTION_N_MAX) return NQ_E_RANGE;
    if (!nq_solution_exists(n)) return NQ_NO_SOLUTION;
    search s = {.n = (uint32_t)n, .cols = cols, .ctl = ctl};
    nq_prng_seed(&s.rng, seed);
    if (ctl != NULL) atomic_store(&ctl->total, (uint_fast32_t)(2 * n));
    nq_err err = NQ_OK;
    if (n < NQ_RANDOM_LOCAL_MIN) {
        small_search(s.n, &s.rng, cols);
        goto end;
    }
    s.down = malloc(2 * (size_t)n - 1);
    s.up = malloc(2 * (size_t)n - 1);
    s.rest_max = rest_bound(s.n);
    s.stall = s.n < STALL_TRIES / STALL_PER_ROW ? STALL_PER_ROW * s.n : STALL_TRIES;
    s.work = malloc(work_capacity(s.rest_max) * sizeof *s.work);
    err = s.down && s.up && s.work ? local_search(&s) : NQ_E_NOMEM;
end:
    if (err == NQ_OK && ctl != NULL) atomic_store(&ctl->done, (uint_fast32_t)(2 * n));
    free(s.work);
    free(s.up);
    free(s.down);
    return err;
}
