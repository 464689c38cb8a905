/* puzzle_queens_gen.c - the queens kind's generator (nq__puzzle_queens_generate, puzzle_impl.h).
 *
 * One attempt, from a sub-seed:
 *  1. a random solution of the n x n board (nq_random_solution, solution.h) and a random order of
 *     its rows, both from the sub-seed alone;
 *  2. the shortest prefix of that order whose queens, as clues, make a puzzle that is `good`: one
 *     solution (the exact counter, limit 2) that the rules up to the difficulty asked solve (for
 *     expert: one solution is enough). Both only grow with more clues, so a binary search over the
 *     prefix length finds it;
 *  3. every clue of the prefix, in a second random order, is taken away if the puzzle stays good
 *     without it. Taking clues away never makes a puzzle good again, so one pass leaves every clue
 *     needed: minimal for the difficulty (expert: strictly minimal, no clue can go);
 *  4. the difficulty is measured: the rules of the difficulty below must not solve it (expert: hard
 *     must not, and the rules with TRIAL must); then the exact counter proves uniqueness once more
 *     and the engine grades it step by step.
 * An attempt that fails step 4 is followed by one from the next sub-seed (splitmix64 of the seed),
 * up to ATTEMPTS_MAX; the node budget of the call bounds all of it. Everything random comes from
 * prng.h and solution.h's seeded search, so the puzzle depends on (n, difficulty, seed) alone.
 */
#include "puzzle_queens.h"

#include <string.h>

#include "nqueens/solution.h"
#include "prng.h"

#define ATTEMPTS_MAX 1000 /* sub-seeds tried before a combination is called unavailable */

/* The smallest n with puzzles of each difficulty: below it none exist (every clue set of every
 * solution with one solution, graded, n = 4..8: no medium puzzle below 8, no hard below 5, no
 * expert below 6; test_puzzle_queens.c checks n = 4..7), so those combinations are refused at once. */
static const int n_min[NQ_PUZZLE_DIFFICULTY_COUNT] = {4, 8, 5, 6};

typedef struct attempt {
    int n;                    /* board size */
    nq_puzzle_difficulty d;   /* asked */
    uint32_t cols[NQ_PQ_MAX]; /* the solution */
    int order[NQ_PQ_MAX];     /* rows in the order clues are added */
    bool clue[NQ_PQ_MAX];     /* rows whose queen is a clue */
    nq__puzzle_work *w;       /* the call's budget */
} attempt;

static void shuffle(nq_prng *g, int *a, int len)
{
    for (int i = len - 1; i > 0; i--) {
        const int j = (int)nq_prng_below(g, (uint32_t)i + 1u);
        const int t = a[i];
        a[i] = a[j], a[j] = t;
    }
}

static void state_of(const attempt *t, nq_pq_state *s)
{
    nq_pq_state_init(s, t->n);
    for (int r = 0; r < t->n; r++)
        if (t->clue[r]) nq_pq_place(s, r, (int)t->cols[r]);
}

/* Whether the rules up to max solve the clues of t. */
static nq_err solves(const attempt *t, nq_puzzle_difficulty max, bool *yes)
{
    nq_pq_state s;
    state_of(t, &s);
    nq_pq_outcome outcome = NQ_PQ_STUCK;
    const nq_err rc = nq_pq_close(&s, max, t->w, &outcome);
    *yes = outcome == NQ_PQ_SOLVED;
    return rc;
}

/* Whether the clues of t have exactly one solution, by the exact counter. */
static nq_err unique(const attempt *t, bool *yes)
{
    nq_pq_state s;
    state_of(t, &s);
    nq_pq_count c = {.limit = 2};
    const nq_err rc = nq_pq_count_run(&s, t->w, &c);
    *yes = c.found == 1;
    return rc;
}

/* Step 2's and 3's test: one solution, and (below expert) solved by the rules up to t->d. */
static nq_err good(const attempt *t, bool *yes)
{
    *yes = true;
    if (t->d != NQ_PUZZLE_EXPERT) {
        const nq_err rc = solves(t, t->d, yes);
        if (rc != NQ_OK || !*yes) return rc;
    }
    return unique(t, yes);
}

/* The first `k` rows of t->order as the clues. */
static void take_prefix(attempt *t, int k)
{
    memset(t->clue, 0, sizeof t->clue);
    for (int i = 0; i < k; i++) t->clue[t->order[i]] = true;
}

/* Step 2: the shortest good prefix (all n rows are always good). */
static nq_err shortest_prefix(attempt *t)
{
    int lo = 0, hi = t->n; /* prefix hi is good; lo - 1 is not known to be */
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        take_prefix(t, mid);
        bool ok = false;
        const nq_err rc = good(t, &ok);
        if (rc != NQ_OK) return rc;
        if (ok)
            hi = mid;
        else
            lo = mid + 1;
    }
    take_prefix(t, hi);
    return NQ_OK;
}

/* Step 3: take every clue away that the puzzle does not need, in a random order. */
static nq_err remove_clues(attempt *t, nq_prng *g)
{
    int rows[NQ_PQ_MAX], count = 0;
    for (int r = 0; r < t->n; r++)
        if (t->clue[r]) rows[count++] = r;
    shuffle(g, rows, count);
    for (int i = 0; i < count; i++) {
        t->clue[rows[i]] = false;
        bool ok = false;
        const nq_err rc = good(t, &ok);
        if (rc != NQ_OK) return rc;
        if (!ok) t->clue[rows[i]] = true;
    }
    return NQ_OK;
}

/* Step 4's first half: the rules one difficulty below do not solve it (and for expert, the rules
 * with TRIAL do). */
static nq_err needs_difficulty(const attempt *t, bool *yes)
{
    *yes = true;
    if (t->d == NQ_PUZZLE_EASY) return NQ_OK;
    bool below = false;
    nq_err rc = solves(t, (nq_puzzle_difficulty)(t->d - 1), &below);
    if (rc != NQ_OK || below) return *yes = false, rc;
    if (t->d == NQ_PUZZLE_EXPERT) rc = solves(t, NQ_PUZZLE_EXPERT, yes);
    return rc;
}

/* Step 4's second half: the puzzle, proven unique again, and its grade, which must be t->d. */
static nq_err finish(const attempt *t, nq_puzzle *out, nq_puzzle_grade *grade, bool *ok)
{
    bool one = false;
    nq_err rc = unique(t, &one);
    if (rc != NQ_OK || !one) return *ok = false, rc;
    memset(out, 0, sizeof *out);
    out->kind = NQ_PUZZLE_QUEENS;
    out->n = t->n;
    memset(out->clue, NQ_PUZZLE_NONE, sizeof out->clue);
    for (int r = 0; r < t->n; r++)
        if (t->clue[r]) out->clue[r] = (uint8_t)t->cols[r], out->clue_count++;
    nq_pq_state s;
    state_of(t, &s);
    rc = nq_pq_grade_state(&s, NQ_PUZZLE_EXPERT, t->w, grade);
    *ok = rc == NQ_OK && grade->solved && grade->difficulty == t->d;
    return rc;
}

static nq_err try_seed(attempt *t, uint64_t sub, nq_puzzle *out, nq_puzzle_grade *grade, bool *ok)
{
    *ok = false;
    nq_err rc = nq_random_solution((uint64_t)t->n, sub, NULL, t->cols);
    if (rc != NQ_OK) return rc;
    nq_prng g;
    nq_prng_seed(&g, sub);
    for (int i = 0; i < t->n; i++) t->order[i] = i;
    shuffle(&g, t->order, t->n);
    rc = shortest_prefix(t);
    if (rc == NQ_OK) rc = remove_clues(t, &g);
    bool right = false;
    if (rc == NQ_OK) rc = needs_difficulty(t, &right);
    if (rc != NQ_OK || !right) return rc;
    return finish(t, out, grade, ok);
}

/* Whether puzzles of size n and this difficulty exist (n_min) within the generated sizes. */
static bool offered(int n, nq_puzzle_difficulty difficulty)
{
    return (unsigned)difficulty < NQ_PUZZLE_DIFFICULTY_COUNT && n >= n_min[difficulty] &&
           n <= NQ_PUZZLE_QUEENS_GEN_N_MAX;
}

nq_err nq__puzzle_queens_generate(int n, nq_puzzle_difficulty difficulty, uint64_t seed, nq__puzzle_work *w,
                                  nq_puzzle *out, nq_puzzle_grade *grade)
{
    if (!offered(n, difficulty)) return NQ_E_PUZZLE_UNAVAILABLE;
    attempt t = {.n = n, .d = difficulty, .w = w};
    uint64_t mix = seed;
    for (int i = 0; i < ATTEMPTS_MAX; i++) {
        bool ok = false;
        const nq_err rc = try_seed(&t, nq_splitmix64(&mix), out, grade, &ok);
        if (rc != NQ_OK || ok) return rc;
    }
    return NQ_E_PUZZLE_UNAVAILABLE;
}
