/* puzzle_regions_gen.c - the regions kind's generator: a seed to a board with one solution and a grade.
 *
 * One attempt:
 * 1. a random solution S (one queen per row and column, none touching);
 * 2. n regions grown from S's queens (a random frontier square gives a random unclaimed neighbour to
 *    its region), so every region holds exactly one queen of S;
 * 3. repairs until the exact search (limit 2) finds no second solution: a square where a second
 *    solution S2 has a queen and S has none moves to a neighbouring region (with a corridor to the
 *    region's border when it is inside, the region it leaves reconnected), which breaks S2 and keeps
 *    S whole;
 * 4. moves until the engine, with the rules up to the difficulty asked, solves the board: a free
 *    square of its stuck state leaves the open region with the fewest free squares for a
 *    neighbouring region (one that already has its queen when possible);
 * 5. the exact search proves the board has one solution (limit 2), and the engine grades it.
 * An attempt whose grade is not the one asked is dropped, and the next starts from the next sub-seed.
 * Uniqueness is thus proven by the search, and the grade is the engine's own.
 * Determinism: every random choice comes from the library's xoshiro256** seeded from (seed, n,
 * difficulty, attempt) through splitmix64; nothing depends on time, the platform or floating point.
 * Work: attempts stop when the work record's node budget is spent (the caller answers
 * puzzle-unavailable), or after ATTEMPTS_MAX attempts.
 */
#include "puzzle_regions.h"

#include <string.h>

#include "prng.h"

#define ATTEMPTS_MAX 100000            /* a bound for an unbounded budget: no combination needs near this many */
#define MOVES_MAX(n) ((n) * (n))       /* moves per attempt before it is dropped */
#define REPAIRS_MAX(n) (4 * (n) * (n)) /* repairs per attempt before it is dropped */

/* A board being built: region ids (not yet canonical) and the solution it is built around. */
typedef struct board {
    int n;
    uint8_t region[RN_MAX * RN_MAX]; /* region of each square, r * n + c; region r holds row r's queen */
    uint8_t sol[RN_MAX];             /* the queen's column in each row */
} board;

/* A random solution: one queen per row and column, none touching (consecutive rows' columns differ
 * by 2 or more). Random-order backtracking; false if the budget ran out. */
static nq_err random_solution(board *b, nq_prng *g, nq__puzzle_work *w, int r, uint64_t used, bool *ok)
{
    *ok = r == b->n;
    if (*ok) return NQ_OK;
    nq_err rc = nq__puzzle_tick(w);
    if (rc != NQ_OK) return rc;
    int order[RN_MAX] = {0};
    for (int i = 0; i < b->n; i++) order[i] = i;
    for (int i = b->n - 1; i > 0; i--) {
        const int j = (int)nq_prng_below(g, (uint32_t)i + 1);
        const int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < b->n && !*ok && rc == NQ_OK; i++) {
        const int c = order[i];
        if (used >> c & 1) continue;
        if (r > 0 && (c - b->sol[r - 1] <= 1 && b->sol[r - 1] - c <= 1)) continue;
        b->sol[r] = (uint8_t)c;
        rc = random_solution(b, g, w, r + 1, used | UINT64_C(1) << c, ok);
    }
    return rc;
}

/* The 4-neighbours of square s into next[]; how many. */
static int neighbours(int n, int s, int *next)
{
    const int r = s / n, c = s % n;
    int k = 0;
    if (r > 0) next[k++] = s - n;
    if (r < n - 1) next[k++] = s + n;
    if (c > 0) next[k++] = s - 1;
    if (c < n - 1) next[k++] = s + 1;
    return k;
}

/* Grow the regions from the queens: a frontier of claimed squares; each step takes a random one and
 * gives a random unclaimed 4-neighbour of it to its region (a square with none leaves the frontier).
 * Regions with more frontier grow faster, so sizes vary as in hand-made puzzles. */
static void grow_regions(board *b, nq_prng *g)
{
    const int n = b->n, squares = n * n;
    enum { FREE = 0xFF };
    uint16_t frontier[RN_MAX * RN_MAX];
    int size = 0, left = squares - n;
    memset(b->region, FREE, (size_t)squares);
    for (int r = 0; r < n; r++) {
        b->region[r * n + b->sol[r]] = (uint8_t)r;
        frontier[size++] = (uint16_t)(r * n + b->sol[r]);
    }
    while (left > 0 && size > 0) {
        const int i = (int)nq_prng_below(g, (uint32_t)size);
        const int s = frontier[i];
        int next[4], open[4], k = 0;
        const int count = neighbours(n, s, next);
        for (int j = 0; j < count; j++)
            if (b->region[next[j]] == FREE) open[k++] = next[j];
        if (k == 0) {
            frontier[i] = frontier[--size];
            continue;
        }
        const int t = open[nq_prng_below(g, (uint32_t)k)];
        b->region[t] = b->region[s];
        frontier[size++] = (uint16_t)t;
        left--;
    }
}

/* Whether region id stays 4-connected once square `without` leaves it. */
static bool connected_without(const board *b, int id, int without)
{
    const int n = b->n;
    uint8_t seen[RN_MAX * RN_MAX];
    uint16_t stack[RN_MAX * RN_MAX];
    int top = 0, total = 0, reached = 0;
    memset(seen, 0, (size_t)n * (size_t)n);
    for (int s = 0; s < n * n; s++) {
        if (b->region[s] != id || s == without) continue;
        total++;
        if (top == 0 && reached == 0) {
            stack[top++] = (uint16_t)s;
            seen[s] = 1;
            reached = 1;
        }
    }
    while (top > 0) {
        const int s = stack[--top];
        int next[4];
        const int count = neighbours(n, s, next);
        for (int j = 0; j < count; j++) {
            const int t = next[j];
            if (seen[t] || t == without || b->region[t] != id) continue;
            seen[t] = 1;
            reached++;
            stack[top++] = (uint16_t)t;
        }
    }
    return reached == total;
}

/* A move that takes one free square of the engine's stuck state from its region: a square off the
 * solution, in an open region that stays connected without it, goes to a 4-neighbour's region. The
 * region then has one candidate fewer for the engine; the solution stays a solution (its queens do
 * not move, and every region keeps exactly its one queen). Random among the possible moves; false
 * if there is none. */
static bool move_square(board *b, const uint64_t *free_sq, uint64_t open_regions, nq_prng *g)
{
    const int n = b->n;
    int moves[RN_MAX * RN_MAX][2], count = 0;
    int size[RN_MAX] = {0}; /* free squares per region */
    for (int r = 0; r < n; r++)
        for (uint64_t f = free_sq[r]; f != 0; f &= f - 1) size[b->region[r * n + __builtin_ctzll(f)]]++;
    /* the best moves: from the region with the fewest free squares, into a region that already has
     * its queen in the stuck state (that keeps the square out of the engine's way) */
    int best = 4 * RN_MAX * RN_MAX;
    for (int r = 0; r < n; r++) {
        for (uint64_t f = free_sq[r] & ~(UINT64_C(1) << b->sol[r]); f != 0; f &= f - 1) {
            const int s = r * n + __builtin_ctzll(f);
            const int from = b->region[s];
            if ((open_regions >> from & 1) == 0 || 2 * size[from] > best) continue;
            int next[4], to = -1;
            const int k = neighbours(n, s, next);
            for (int j = 0; j < k; j++) {
                const int t = b->region[next[j]];
                if (t != from && (to < 0 || (open_regions >> to & 1))) to = t;
            }
            if (to < 0) continue;
            const int key = 2 * size[from] + (int)(open_regions >> to & 1);
            if (key > best || !connected_without(b, from, s)) continue;
            if (key < best) count = 0; /* a better kind of move: forget the others */
            best = key;
            moves[count][0] = s;
            moves[count++][1] = to;
        }
    }
    if (count == 0) return false;
    const int pick = (int)nq_prng_below(g, (uint32_t)count);
    b->region[moves[pick][0]] = (uint8_t)moves[pick][1];
    return true;
}

/* Give every piece of region id cut off from its queen's square (row `row`'s queen) to a region next
 * to it, so that id is connected again. The pieces hold no queen of b's solution, so it stays one. */
static void reconnect(board *b, int id, int row)
{
    const int n = b->n;
    uint8_t seen[RN_MAX * RN_MAX];
    uint16_t stack[RN_MAX * RN_MAX];
    int top = 0;
    memset(seen, 0, (size_t)n * (size_t)n);
    stack[top++] = (uint16_t)(row * n + b->sol[row]);
    seen[stack[0]] = 1;
    while (top > 0) {
        const int s = stack[--top];
        int next[4];
        const int k = neighbours(n, s, next);
        for (int j = 0; j < k; j++) {
            if (seen[next[j]] || b->region[next[j]] != id) continue;
            seen[next[j]] = 1;
            stack[top++] = (uint16_t)next[j];
        }
    }
    /* squares of id not reached: hand each, in reading order, to a foreign neighbour's region; a square
     * with none yet is reached again by the next pass (its piece's other squares move first) */
    for (bool moved = true; moved;) {
        moved = false;
        for (int s = 0; s < n * n; s++) {
            if (b->region[s] != id || seen[s]) continue;
            int next[4];
            const int k = neighbours(n, s, next);
            for (int j = 0; j < k; j++) {
                if (b->region[next[j]] == id) continue;
                b->region[s] = b->region[next[j]];
                moved = true;
                break;
            }
        }
    }
}

/* When no square of `other` can move without cutting its region: take the square of `other` in a
 * random row off b's solution, and hand it, with the shortest path inside its region to a square that
 * borders another region (avoiding the region's queen), to that other region; then reconnect the
 * region it leaves. */
static bool repair_split(board *b, const uint8_t *other, nq_prng *g)
{
    const int n = b->n;
    int r = (int)nq_prng_below(g, (uint32_t)n);
    for (int i = 0; i < n && other[r] == b->sol[r]; i++) r = (r + 1) % n;
    if (other[r] == b->sol[r]) return false;
    const int x = r * n + other[r], from = b->region[x];
    int row = 0; /* the row of from's queen */
    while (row < n && b->region[row * n + b->sol[row]] != from) row++;
    if (row == n) return false; /* every region has its queen: not reached */
    const int queen = row * n + b->sol[row];
    int16_t parent[RN_MAX * RN_MAX];
    uint16_t queue[RN_MAX * RN_MAX];
    int head = 0, tail = 0;
    for (int s = 0; s < n * n; s++) parent[s] = -2;
    queue[tail++] = (uint16_t)x;
    parent[x] = -1;
    while (head < tail) {
        const int s = queue[head++];
        int next[4];
        const int k = neighbours(n, s, next);
        for (int j = 0; j < k; j++) {
            const int t = next[j];
            if (b->region[t] != from) {
                for (int p = s; p >= 0; p = parent[p]) b->region[p] = b->region[t]; /* the corridor */
                reconnect(b, from, row);
                return true;
            }
            if (parent[t] != -2 || t == queen) continue;
            parent[t] = (int16_t)s;
            queue[tail++] = (uint16_t)t;
        }
    }
    return false;
}

/* A repair that breaks solution `other`: a square of it off b's solution moves to a neighbouring
 * region. Random among the possible ones; false if there is none. */
static bool repair(board *b, const uint8_t *other, nq_prng *g)
{
    const int n = b->n;
    int moves[RN_MAX * 4][2], count = 0;
    for (int r = 0; r < n; r++) {
        if (other[r] == b->sol[r]) continue;
        const int s = r * n + other[r];
        const int from = b->region[s];
        if (!connected_without(b, from, s)) continue;
        int next[4];
        const int k = neighbours(n, s, next);
        for (int j = 0; j < k; j++) {
            const int to = b->region[next[j]];
            if (to == from) continue;
            moves[count][0] = s;
            moves[count++][1] = to;
        }
    }
    if (count == 0) return repair_split(b, other, g);
    const int pick = (int)nq_prng_below(g, (uint32_t)count);
    b->region[moves[pick][0]] = (uint8_t)moves[pick][1];
    return true;
}

/* The board as a puzzle, its regions relabelled in order of first appearance. */
static void to_puzzle(const board *b, nq_puzzle *p)
{
    const int n = b->n;
    int id_of[RN_MAX];
    for (int i = 0; i < n; i++) id_of[i] = -1;
    int ids = 0;
    memset(p, 0, sizeof *p);
    p->kind = NQ_PUZZLE_REGIONS;
    p->n = n;
    memset(p->clue, NQ_PUZZLE_NONE, sizeof p->clue);
    for (int s = 0; s < n * n; s++) {
        if (id_of[b->region[s]] < 0) id_of[b->region[s]] = ids++;
        p->region[s] = (uint8_t)id_of[b->region[s]];
    }
}

#define KEEP 16 /* solutions one search of the repair loop collects */

/* Whether cols is still a solution of b's regions (one queen per region; rows, columns and touching
 * do not depend on the regions). */
static bool still_solution(const board *b, const uint8_t *cols)
{
    uint64_t seen = 0;
    for (int r = 0; r < b->n; r++) seen |= UINT64_C(1) << b->region[r * b->n + cols[r]];
    return nq__popcount64(seen) == b->n;
}

/* Repairs until b has one solution; *ok false if none was possible. One search collects up to KEEP
 * solutions, and each of them that the repairs so far left standing gets a repair of its own, so a
 * board with many solutions needs far fewer searches than repairs. */
static nq_err make_unique(board *b, nq_puzzle *p, nq__puzzle_work *w, nq_prng *g, bool *ok)
{
    static const uint64_t keep_count = KEEP;
    uint8_t keep[KEEP * RN_MAX];
    *ok = false;
    for (int i = 0; i < REPAIRS_MAX(b->n);) {
        to_puzzle(b, p);
        nq__regions_map m;
        nq__regions_map_init(&m, p);
        /* a board the engine's sound rules solve has one solution: no need to search for another
         * (finish proves it with the search all the same) */
        uint64_t free_sq[RN_MAX], open_regions;
        bool solved;
        nq_err rc = nq__regions_run(&m, NQ_PUZZLE_RULE_NO_ROOM, w, free_sq, &open_regions, &solved);
        if (rc != NQ_OK) return rc;
        if (solved) {
            *ok = true;
            return NQ_OK;
        }
        nq_puzzle_count_result res;
        rc = nq__regions_search_keep(&m, NULL, NULL, keep_count + 1, w, &res, keep, keep_count);
        if (rc != NQ_OK) return rc;
        if (res.solutions <= 1) {
            *ok = res.solutions == 1;
            return NQ_OK;
        }
        const uint64_t kept = res.solutions < keep_count ? res.solutions : keep_count;
        for (uint64_t k = 0; k < kept; k++, i++) {
            const uint8_t *other = keep + k * RN_MAX;
            if (memcmp(other, b->sol, (size_t)b->n) == 0 || !still_solution(b, other)) continue;
            if (!repair(b, other, g)) return NQ_OK;
        }
    }
    return NQ_OK;
}

/* The hardest rule each difficulty's engine may use. */
static const nq_puzzle_rule max_rule[NQ_PUZZLE_DIFFICULTY_COUNT] = {
    NQ_PUZZLE_RULE_SINGLE_SQUARE, NQ_PUZZLE_RULE_LINE_IN_REGION, NQ_PUZZLE_RULE_NO_ROOM, NQ_PUZZLE_RULE_TRIAL};

/* The board is done: prove that it has one solution with the exact search (the engine's sound rules
 * already imply it; the search is the proof that does not depend on them), then grade it. */
static nq_err finish(const nq_puzzle *p, nq__puzzle_work *w, nq_puzzle_grade *grade, bool *ok)
{
    nq__regions_map m;
    nq__regions_map_init(&m, p);
    nq_puzzle_count_result res;
    nq_err rc = nq__regions_search(&m, NULL, NULL, 2, w, &res);
    *ok = rc == NQ_OK && res.solutions == 1;
    if (!*ok) return rc;
    return nq__regions_grade(&m, w, grade);
}

/* One attempt from generator g: a random board, then moves until the engine with the rules up to
 * the difficulty solves it; *ok when that happened, the board in *p and its grade in *grade. */
static nq_err attempt(int n, nq_puzzle_difficulty difficulty, nq_prng *g, nq__puzzle_work *w, nq_puzzle *p,
                      nq_puzzle_grade *grade, bool *ok)
{
    board b;
    b.n = n;
    nq_err rc = random_solution(&b, g, w, 0, 0, ok);
    if (rc != NQ_OK || !*ok) return rc;
    grow_regions(&b, g);
    rc = make_unique(&b, p, w, g, ok);
    if (rc != NQ_OK || !*ok) return rc;
    *ok = false;
    for (int i = 0; i < MOVES_MAX(n); i++) {
        to_puzzle(&b, p);
        nq__regions_map m;
        nq__regions_map_init(&m, p);
        uint64_t free_sq[RN_MAX], open_regions;
        bool solved;
        rc = nq__regions_run(&m, max_rule[difficulty], w, free_sq, &open_regions, &solved);
        if (rc != NQ_OK) return rc;
        if (solved) return finish(p, w, grade, ok);
        if (!move_square(&b, free_sq, open_regions, g)) return NQ_OK;
    }
    return NQ_OK;
}

nq_err nq__puzzle_regions_generate(int n, nq_puzzle_difficulty difficulty, uint64_t seed, nq__puzzle_work *w,
                                   nq_puzzle *out, nq_puzzle_grade *grade)
{
    for (uint64_t i = 0; i < ATTEMPTS_MAX; i++) {
        /* the sub-seed of attempt i: the inputs spread by splitmix64, so neighbouring seeds differ */
        uint64_t x = seed;
        uint64_t sub = nq_splitmix64(&x) ^ ((uint64_t)n << 56) ^ ((uint64_t)difficulty << 48) ^ i;
        nq_prng g;
        nq_prng_seed(&g, nq_splitmix64(&sub));
        bool ok;
        const nq_err rc = attempt(n, difficulty, &g, w, out, grade, &ok);
        if (rc != NQ_OK) return rc;
        if (ok && grade->solved && grade->difficulty == difficulty && grade->hardest != NQ_PUZZLE_RULE_SEARCH)
            return NQ_OK;
    }
    return NQ_E_PUZZLE_UNAVAILABLE;
}
