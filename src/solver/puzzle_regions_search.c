/* puzzle_regions_search.c - counting the solutions of a regions puzzle: an exact search on row masks.
 *
 * The workload: proving uniqueness (limit 2) thousands of times while the generator repairs and
 * grades boards of 5..16, and answering /puzzle/solve counts up to a cap of about 1000 on boards up
 * to 32 or more. So the search keeps, per row, the mask of columns still open to a queen, and after
 * each queen clears its column, its region (n ANDs with the region's row masks) and its neighbours.
 * It branches on the unit (row, column or region) with the fewest candidates, so a unit with one
 * candidate is filled at once and a unit with none ends the branch: a human solver's easy steps
 * happen for free, and a unique board is usually proven in a few hundred nodes.
 * From n = 16 a node that is not forced also matches the open units one to one (feasible()): most of
 * the nodes of a board with few solutions lie under such dead ends, and cutting them there makes the
 * generator's searches at n = 16 several times cheaper. The cut only removes subtrees without a
 * solution, so solutions come in the same order; below 16 it is left out so that the node counts,
 * and with them what a node budget allows, stay exactly as they were for the sizes already offered.
 * Reentrant; the state of one level is n words on the stack (depth <= n).
 */
#include "puzzle_regions.h"

#include <string.h>

#define PRUNE_N_MIN 16 /* the smallest n whose search matches units (feasible()) */

void nq__regions_map_init(nq__regions_map *m, const nq_puzzle *p)
{
    const int n = p->n;
    m->n = n;
    m->all = n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
    m->region = p->region;
    for (int id = 0; id < n; id++) memset(m->in[id], 0, sizeof m->in[id][0] * (size_t)n);
    for (int id = 0; id < n; id++) {
        m->lo[id] = n;
        m->hi[id] = -1;
    }
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++) {
            const int id = p->region[r * n + c];
            m->in[id][r] |= UINT64_C(1) << c;
            if (r < m->lo[id]) m->lo[id] = r;
            m->hi[id] = r;
        }
    }
}

/* The square and its left and right neighbours in one row. */
static uint64_t near_mask(const nq__regions_map *m, int c)
{
    const uint64_t bit = UINT64_C(1) << c;
    return (bit | bit << 1 | bit >> 1) & m->all;
}

void nq__regions_attacks(const nq__regions_map *m, int r, int c, uint64_t *att)
{
    const int n = m->n, id = m->region[r * n + c];
    const uint64_t bit = UINT64_C(1) << c;
    for (int i = 0; i < n; i++) att[i] = bit | m->in[id][i];
    att[r] = m->all;
    if (r > 0) att[r - 1] |= near_mask(m, c);
    if (r < n - 1) att[r + 1] |= near_mask(m, c);
}

/* One level of the search: the open squares per row and the units already filled. */
typedef struct level {
    uint64_t cand[RN_MAX];  /* squares where a queen could still go */
    uint64_t rows;          /* rows with a queen */
    uint64_t cols;          /* columns with a queen */
    uint64_t regions;       /* regions with a queen */
    uint8_t col_of[RN_MAX]; /* the queen's column in each filled row */
} level;

typedef struct search {
    const nq__regions_map *m;
    uint64_t limit;              /* stop at this many solutions */
    nq__puzzle_work *w;          /* budget and cancellation */
    nq_puzzle_count_result *out; /* solutions so far, the first one */
    uint8_t *keep;               /* the first keep_count solutions found, RN_MAX bytes each */
    uint64_t keep_count;
} search;

/* Put a queen on (r, c): clear its row, column, region and neighbours. */
static void put_queen(const nq__regions_map *m, level *l, int r, int c)
{
    const int n = m->n, id = m->region[r * n + c];
    const uint64_t bit = UINT64_C(1) << c;
    for (int i = 0; i < n; i++) l->cand[i] &= ~bit;
    for (int i = m->lo[id]; i <= m->hi[id]; i++) l->cand[i] &= ~m->in[id][i];
    l->cand[r] = 0;
    if (r > 0) l->cand[r - 1] &= ~near_mask(m, c);
    if (r < n - 1) l->cand[r + 1] &= ~near_mask(m, c);
    l->rows |= UINT64_C(1) << r;
    l->cols |= bit;
    l->regions |= UINT64_C(1) << id;
    l->col_of[r] = (uint8_t)c;
}

/* The unit to branch on: the open row, column or region with the fewest candidates, as the set of
 * its candidate squares in pick[0..n). Returns that count: 0 means a dead end (some open unit has
 * no candidate left). */
static int choose(const nq__regions_map *m, const level *l, uint64_t *pick)
{
    const int n = m->n;
    int best = RN_MAX * RN_MAX + 1;
    int type = -1, unit = -1; /* 0 row, 1 column, 2 region */
    for (int r = 0; r < n; r++) {
        if (l->rows >> r & 1) continue;
        const int k = nq__popcount64(l->cand[r]);
        if (k < best) best = k, type = 0, unit = r;
    }
    if (best > 1) {
        /* the column counts only when no row settles the choice: a row with 0 or 1 candidates wins
         * every tie, so most nodes of a near-unique board never count columns */
        int col_count[RN_MAX] = {0};
        for (int r = 0; r < n; r++)
            for (uint64_t q = l->cand[r]; q != 0; q &= q - 1) col_count[__builtin_ctzll(q)]++;
        for (int c = 0; c < n && best > 1; c++)
            if ((l->cols >> c & 1) == 0 && col_count[c] < best) best = col_count[c], type = 1, unit = c;
    }
    for (int id = 0; id < n && best > 1; id++) {
        if (l->regions >> id & 1) continue;
        int k = 0;
        for (int r = m->lo[id]; r <= m->hi[id] && k < best; r++) k += nq__popcount64(l->cand[r] & m->in[id][r]);
        if (k < best) best = k, type = 2, unit = id;
    }
    for (int r = 0; r < n; r++) {
        if (type == 0)
            pick[r] = r == unit ? l->cand[r] : 0;
        else if (type == 1)
            pick[r] = l->cand[r] & UINT64_C(1) << unit;
        else
            pick[r] = l->cand[r] & m->in[unit][r];
    }
    return best;
}

/* Pointing pairs, cheaply: a region whose candidates lie in one row (column) takes that line, so the
 * line's other candidates go; a row whose candidates lie in one region takes that region's queen, so
 * the region's other candidates go. One pass over the open regions and rows; cuts most dead branches
 * of near-unique boards a level or two earlier than the candidate counts alone. */
static void narrow(const nq__regions_map *m, level *l)
{
    const int n = m->n;
    for (int id = 0; id < n; id++) {
        if (l->regions >> id & 1) continue;
        uint64_t rows = 0, cols = 0;
        for (int r = m->lo[id]; r <= m->hi[id]; r++) {
            const uint64_t f = l->cand[r] & m->in[id][r];
            rows |= (uint64_t)(f != 0) << r;
            cols |= f;
        }
        if (rows != 0 && (rows & (rows - 1)) == 0) {
            const int r = __builtin_ctzll(rows);
            l->cand[r] &= m->in[id][r];
        }
        if (cols != 0 && (cols & (cols - 1)) == 0)
            for (int r = 0; r < n; r++) l->cand[r] &= ~cols | m->in[id][r];
    }
    for (int r = 0; r < n; r++) {
        if ((l->rows >> r & 1) || l->cand[r] == 0) continue;
        const int id = m->region[r * n + __builtin_ctzll(l->cand[r])];
        if ((l->cand[r] & ~m->in[id][r]) != 0) continue;
        for (int i = m->lo[id]; i <= m->hi[id]; i++)
            if (i != r) l->cand[i] &= ~m->in[id][i];
    }
}

/* Kuhn's augmenting path from left vertex u in the bipartite graph adj (adj[u]: u's right vertices
 * as bits); owner[v] is the left vertex matched to right vertex v, or -1. */
static bool augment(const uint64_t *adj, int u, uint64_t *seen, int *owner)
{
    for (uint64_t q = adj[u] & ~*seen; q != 0; q &= q - 1) {
        const int v = __builtin_ctzll(q);
        *seen |= UINT64_C(1) << v;
        if (owner[v] < 0 || augment(adj, owner[v], seen, owner)) {
            owner[v] = u;
            return true;
        }
    }
    return false;
}

/* Whether every left vertex in `left` can be matched to its own right vertex (Hall's condition). */
static bool matchable(const uint64_t *adj, uint64_t left, int n)
{
    int owner[RN_MAX];
    for (int v = 0; v < n; v++) owner[v] = -1;
    for (uint64_t q = left; q != 0; q &= q - 1) {
        uint64_t seen = 0;
        if (!augment(adj, __builtin_ctzll(q), &seen, owner)) return false;
    }
    return true;
}

/* Whether l may still hold a solution as far as the units alone tell: the open rows, columns and
 * regions must match one to one through the candidates (rows to columns, regions to rows, regions to
 * columns). A failed match is a dead end that the candidate counts see only levels later, after a
 * subtree the search would walk for nothing; the test only cuts such subtrees, so the search visits
 * the same solutions in the same order. */
static bool feasible(const nq__regions_map *m, const level *l)
{
    const int n = m->n;
    const uint64_t open_regions = ~l->regions & m->all;
    uint64_t reg_rows[RN_MAX], reg_cols[RN_MAX];
    for (uint64_t q = open_regions; q != 0; q &= q - 1) {
        const int id = __builtin_ctzll(q);
        uint64_t rows = 0, cols = 0;
        for (int r = m->lo[id]; r <= m->hi[id]; r++) {
            const uint64_t f = l->cand[r] & m->in[id][r];
            rows |= (uint64_t)(f != 0) << r;
            cols |= f;
        }
        reg_rows[id] = rows;
        reg_cols[id] = cols;
    }
    return matchable(l->cand, ~l->rows & m->all, n) && matchable(reg_rows, open_regions, n) &&
           matchable(reg_cols, open_regions, n);
}

static nq_err solve(search *s, level *l, int placed);

/* Try a queen on (r, c) below l. Only the n words in use are copied: the level is sized for the
 * largest board, and a whole copy per node costs more than the rest of a node at n = 16. */
static nq_err branch(search *s, const level *l, int placed, int r, int c)
{
    const int n = s->m->n;
    level next;
    memcpy(next.cand, l->cand, sizeof next.cand[0] * (size_t)n);
    memcpy(next.col_of, l->col_of, (size_t)n);
    next.rows = l->rows;
    next.cols = l->cols;
    next.regions = l->regions;
    put_queen(s->m, &next, r, c);
    return solve(s, &next, placed + 1);
}

/* The search below l, which it narrows in place (the caller's copy is its own). */
static nq_err solve(search *s, level *l, int placed)
{
    nq_err rc = nq__puzzle_tick(s->w);
    if (rc != NQ_OK) return rc;
    const nq__regions_map *m = s->m;
    if (placed == m->n) {
        if (s->out->solutions == 0) {
            memcpy(s->out->cols, l->col_of, (size_t)m->n);
            s->out->found = true;
        }
        if (s->out->solutions < s->keep_count) memcpy(s->keep + s->out->solutions * RN_MAX, l->col_of, (size_t)m->n);
        s->out->solutions++;
        return NQ_OK;
    }
    uint64_t pick[RN_MAX];
    memset(pick, 0, (size_t)m->n * sizeof pick[0]); /* choose() fills it; the analyzer cannot see that */
    narrow(m, l);
    const int best = choose(m, l, pick);
    if (best == 0 || (best > 1 && m->n >= PRUNE_N_MIN && !feasible(m, l))) return NQ_OK;
    for (int r = 0; r < m->n && rc == NQ_OK && s->out->solutions < s->limit; r++)
        for (uint64_t q = pick[r]; q != 0 && rc == NQ_OK && s->out->solutions < s->limit; q &= q - 1)
            rc = branch(s, l, placed, r, __builtin_ctzll(q));
    return rc;
}

/* Place the required queens on the first level; false if one is not open (attacked by another). */
static bool place_required(const nq__regions_map *m, level *l, const uint64_t *queens, int *placed)
{
    for (int r = 0; r < m->n; r++) {
        for (uint64_t q = queens[r] & m->all; q != 0; q &= q - 1) {
            const int c = __builtin_ctzll(q);
            if ((l->cand[r] >> c & 1) == 0) return false;
            put_queen(m, l, r, c);
            ++*placed;
        }
    }
    return true;
}

nq_err nq__regions_search(const nq__regions_map *m, const uint64_t *queens, const uint64_t *blocked, uint64_t limit,
                          nq__puzzle_work *w, nq_puzzle_count_result *out)
{
    return nq__regions_search_keep(m, queens, blocked, limit, w, out, NULL, 0);
}

nq_err nq__regions_search_keep(const nq__regions_map *m, const uint64_t *queens, const uint64_t *blocked,
                               uint64_t limit, nq__puzzle_work *w, nq_puzzle_count_result *out, uint8_t *keep,
                               uint64_t keep_count)
{
    level l;
    memset(&l, 0, sizeof l);
    for (int r = 0; r < m->n; r++) l.cand[r] = m->all & (blocked != NULL ? ~blocked[r] : ~UINT64_C(0));
    int placed = 0;
    out->solutions = 0;
    out->found = false;
    if (queens != NULL && !place_required(m, &l, queens, &placed)) return NQ_OK;
    search s = {m, limit, w, out, keep, keep_count};
    return solve(&s, &l, placed);
}

nq_err nq__puzzle_regions_count(const nq_puzzle *p, const uint64_t *queens, const uint64_t *blocked, uint64_t limit,
                                nq__puzzle_work *w, nq_puzzle_count_result *out)
{
    nq__regions_map m;
    nq__regions_map_init(&m, p);
    return nq__regions_search(&m, queens, blocked, limit, w, out);
}
