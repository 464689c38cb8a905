/* puzzle_queens_rules.c - the queens kind's deduction engine (puzzle_queens.h).
 *
 * The rules, easiest first (puzzle.h names them; docs/puzzles.md shows each on a board):
 *   SINGLE_SQUARE   a row or column with one open square: a queen goes there.
 *   PAIR_LINES      two rows whose open squares are the same two columns (or two columns with the same
 *                   two rows): those two queens take both columns, so their other squares close.
 *   LINES_IN_LINES  k rows whose open squares lie in k columns (or the other way round): the same,
 *                   for any k. Found through a perfect matching of rows to columns over the open
 *                   squares: a square lies in no perfect matching exactly when some such set of rows
 *                   excludes it (Hall's theorem), and the rows reachable from its column's matched
 *                   row by alternating paths are that set. Of the two ways to say it (k rows, or the
 *                   other m - k columns) the sentence takes the shorter.
 *   NO_ROOM         a square whose queen would attack every open square of some row or column.
 *   TRIAL           a square whose queen leads, by the rules above, to a row or column with nowhere
 *                   to go.
 * Squares attacked by the queens are closed by the state itself (puzzle_queens_search.c): a rule
 * never reports them. Each rule stays true when facts are added (a set of rows confined to k
 * columns stays confined), so the closure under a set of rules does not depend on the order; the
 * generator asks the closure, the grade and the hints go one step at a time.
 */
#include "puzzle_queens.h"

#include <string.h>

#define BIT(i) (UINT64_C(1) << (i))

/* The open squares of every open column, as row masks: the transpose of s->cand. */
typedef struct view {
    uint64_t col[NQ_PQ_MAX];
} view;

static void view_of(const nq_pq_state *s, view *v)
{
    memset(v, 0, sizeof *v);
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        for (uint64_t m = s->cand[r]; m; m &= m - 1) v->col[__builtin_ctzll(m)] |= BIT(r);
    }
}

/* A row or column without a queen and without an open square: *is_row and *line name it. */
static bool empty_line(const nq_pq_state *s, const view *v, bool *is_row, int *line)
{
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1)
        if (s->cand[__builtin_ctzll(rows)] == 0) return *is_row = true, *line = __builtin_ctzll(rows), true;
    for (uint64_t cols = s->cols_open; cols; cols &= cols - 1)
        if (v->col[__builtin_ctzll(cols)] == 0) return *is_row = false, *line = __builtin_ctzll(cols), true;
    return false;
}

/* The open squares of a row or column, as a board. */
static void line_squares(const nq_pq_state *s, const view *v, bool is_row, int line, uint64_t *because)
{
    if (is_row) {
        because[line] |= s->cand[line];
        return;
    }
    for (uint64_t m = v->col[line]; m; m &= m - 1) because[__builtin_ctzll(m)] |= BIT(line);
}

static void step_init(nq_pq_step *o, nq_puzzle_rule rule, bool place, int r, int c)
{
    memset(o, 0, sizeof *o);
    o->rule = rule, o->place = place, o->row = r, o->col = c;
    o->why.row = r, o->why.col = c;
}

/* ---- SINGLE_SQUARE ---------------------------------------------------------------------------- */

/* Why (r, c) is closed: the queen that attacks it or holds its row, else the square itself (a
 * mark, or an earlier exclusion). */
static void add_reason(const nq_pq_state *s, nq_pq_step *o, int r, int c)
{
    for (int q = 0; q < s->n; q++) {
        const int qc = s->queen[q];
        if (qc < 0) continue;
        const int dr = q > r ? q - r : r - q, dc = qc > c ? qc - c : c - qc;
        if (q == r || dc == 0 || dr == dc) {
            o->because[q] |= BIT(qc);
            return;
        }
    }
    o->because[r] |= BIT(c);
}

/* In `lines` (masks over the other direction, indexed by line; `open` the lines without a queen),
 * the first line with one open square: true with the line and the square's place along it. */
static bool single_in(const uint64_t *lines, uint64_t open, int *line, int *at)
{
    for (; open; open &= open - 1) {
        const int x = __builtin_ctzll(open);
        if (__builtin_popcountll(lines[x]) != 1) continue;
        *line = x, *at = __builtin_ctzll(lines[x]);
        return true;
    }
    return false;
}

/* A row with one open square, else a column with one; its other squares are the reasons. */
static bool find_single(const nq_pq_state *s, const view *v, nq_pq_step *o)
{
    int line = 0, at = 0;
    const bool in_row = single_in(s->cand, s->rows_open, &line, &at);
    if (!in_row && !single_in(v->col, s->cols_open, &line, &at)) return false;
    const int r = in_row ? line : at, c = in_row ? at : line;
    step_init(o, NQ_PUZZLE_RULE_SINGLE_SQUARE, true, r, c);
    o->why.unit_type = in_row ? NQ__UNIT_ROW : NQ__UNIT_COL, o->why.unit = line;
    for (int x = 0; x < s->n; x++)
        if (x != at) add_reason(s, o, in_row ? r : x, in_row ? x : c);
    return true;
}

/* Every single at once; true when a queen was placed. */
static bool apply_singles(nq_pq_state *s)
{
    bool changed = false;
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        if (s->queen[r] < 0 && __builtin_popcountll(s->cand[r]) == 1) {
            nq_pq_place(s, r, __builtin_ctzll(s->cand[r]));
            changed = true;
        }
    }
    for (uint64_t cols = s->cols_open; cols; cols &= cols - 1) {
        const int c = __builtin_ctzll(cols);
        const uint64_t m = nq_pq_col(s, c);
        if ((s->cols_open & BIT(c)) && __builtin_popcountll(m) == 1) {
            nq_pq_place(s, __builtin_ctzll(m), c);
            changed = true;
        }
    }
    return changed;
}

/* ---- PAIR_LINES ------------------------------------------------------------------------------- */

/* In `lines` (masks over the other direction, indexed by line; `open` the lines without a queen),
 * two lines a < b with the same two open squares, and a third line t crossing them: true with the
 * first such (a, b, t) in order. */
static bool pair_in(const uint64_t *lines, uint64_t open, int *a, int *b, int *t)
{
    for (uint64_t xs = open; xs; xs &= xs - 1) {
        const int x = __builtin_ctzll(xs);
        const uint64_t m = lines[x];
        if (__builtin_popcountll(m) != 2) continue;
        for (uint64_t ys = xs & (xs - 1); ys; ys &= ys - 1) {
            const int y = __builtin_ctzll(ys);
            if (lines[y] != m) continue;
            for (uint64_t zs = open & ~BIT(x) & ~BIT(y); zs; zs &= zs - 1)
                if (lines[__builtin_ctzll(zs)] & m) return *a = x, *b = y, *t = __builtin_ctzll(zs), true;
        }
    }
    return false;
}

static void fill_pair(nq_pq_step *o, bool rows, int a, int b, uint64_t m)
{
    o->why.line_type = rows ? NQ__UNIT_ROW : NQ__UNIT_COL;
    o->why.lines = BIT(a) | BIT(b);
    o->why.lines2_type = rows ? NQ__UNIT_COL : NQ__UNIT_ROW;
    o->why.lines2 = m;
    o->why.k = 2;
    for (uint64_t x = m; x; x &= x - 1) {
        const int i = __builtin_ctzll(x);
        if (rows) {
            o->because[a] |= BIT(i), o->because[b] |= BIT(i);
        } else {
            o->because[i] |= BIT(a) | BIT(b);
        }
    }
}

static bool find_pair(const nq_pq_state *s, const view *v, nq_pq_step *o)
{
    int a = 0, b = 0, t = 0;
    if (pair_in(s->cand, s->rows_open, &a, &b, &t)) {
        const uint64_t m = s->cand[a];
        step_init(o, NQ_PUZZLE_RULE_PAIR_LINES, false, t, __builtin_ctzll(s->cand[t] & m));
        fill_pair(o, true, a, b, m);
        return true;
    }
    if (pair_in(v->col, s->cols_open, &a, &b, &t)) {
        const uint64_t m = v->col[a];
        step_init(o, NQ_PUZZLE_RULE_PAIR_LINES, false, __builtin_ctzll(v->col[t] & m), t);
        fill_pair(o, false, a, b, m);
        return true;
    }
    return false;
}

/* Every pair's exclusions at once (from v, which may be older than s: still sound). */
static bool apply_pairs(nq_pq_state *s, const view *v)
{
    bool changed = false;
    for (int dir = 0; dir < 2; dir++) {
        const uint64_t *lines = dir == 0 ? s->cand : v->col;
        const uint64_t open = dir == 0 ? s->rows_open : s->cols_open;
        uint64_t cut[NQ_PQ_MAX] = {0}; /* squares to close, by line of this direction */
        for (uint64_t xs = open; xs; xs &= xs - 1) {
            const int x = __builtin_ctzll(xs);
            const uint64_t m = lines[x];
            if (__builtin_popcountll(m) != 2) continue;
            for (uint64_t ys = xs & (xs - 1); ys; ys &= ys - 1) {
                const int y = __builtin_ctzll(ys);
                if (lines[y] != m) continue;
                for (uint64_t zs = open & ~BIT(x) & ~BIT(y); zs; zs &= zs - 1) cut[__builtin_ctzll(zs)] |= m;
            }
        }
        for (uint64_t zs = open; zs; zs &= zs - 1) {
            const int z = __builtin_ctzll(zs);
            for (uint64_t m = cut[z] & lines[z]; m; m &= m - 1) {
                const int i = __builtin_ctzll(m);
                const int r = dir == 0 ? z : i, c = dir == 0 ? i : z;
                if (s->cand[r] & BIT(c)) nq_pq_exclude(s, r, c), changed = true;
            }
        }
    }
    return changed;
}

/* ---- LINES_IN_LINES --------------------------------------------------------------------------- */

typedef struct matching {
    int16_t row_of[NQ_PQ_MAX]; /* the row matched to each open column */
    int16_t col_of[NQ_PQ_MAX]; /* the column matched to each open row */
    uint64_t reach[NQ_PQ_MAX]; /* rows reachable from each open row by alternating paths */
    int unmatched;             /* a row left unmatched when there is no perfect matching */
} matching;

/* Kuhn's augmenting path from row r, avoiding the columns in *seen. */
static bool augment(const nq_pq_state *s, matching *mt, int r, uint64_t *seen)
{
    for (uint64_t m = s->cand[r] & ~*seen; m; m &= m - 1) {
        const int c = __builtin_ctzll(m);
        if (*seen & BIT(c)) continue;
        *seen |= BIT(c);
        if (mt->row_of[c] < 0 || augment(s, mt, mt->row_of[c], seen)) {
            mt->row_of[c] = (int16_t)r, mt->col_of[r] = (int16_t)c;
            return true;
        }
    }
    return false;
}

/* A perfect matching of the open rows to the open columns over the open squares, and the
 * alternating reach of every row; false when there is none (a contradiction). */
static bool match(const nq_pq_state *s, matching *mt)
{
    memset(mt->row_of, -1, sizeof mt->row_of);
    memset(mt->col_of, -1, sizeof mt->col_of);
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        uint64_t seen = 0;
        if (!augment(s, mt, r, &seen)) return mt->unmatched = r, false;
    }
    uint64_t adj[NQ_PQ_MAX] = {0}; /* row -> the rows matched to its open squares' columns */
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        for (uint64_t m = s->cand[r]; m; m &= m - 1) {
            const int y = mt->row_of[__builtin_ctzll(m)];
            if (y >= 0) adj[r] |= BIT(y);
        }
    }
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        uint64_t reach = BIT(r), frontier = BIT(r);
        while (frontier) {
            uint64_t next = 0;
            for (uint64_t f = frontier; f; f &= f - 1) next |= adj[__builtin_ctzll(f)];
            frontier = next & ~reach;
            reach |= next;
        }
        mt->reach[r] = reach;
    }
    return true;
}

/* Whether (r, c), an open square, lies in no perfect matching; *set gets the rows confined with
 * the column c (the reach of c's matched row). */
static bool unmatchable(const matching *mt, int r, int c, uint64_t *set)
{
    if (mt->col_of[r] == c) return false;
    *set = mt->reach[mt->row_of[c]];
    return !(*set & BIT(r));
}

static void fill_hall(const nq_pq_state *s, nq_pq_step *o, uint64_t set)
{
    uint64_t cols = 0; /* the columns the rows of set are confined to */
    for (uint64_t x = set; x; x &= x - 1) cols |= s->cand[__builtin_ctzll(x)];
    const int k = __builtin_popcountll(set), m = __builtin_popcountll(s->rows_open);
    if (k <= m - k) {
        o->why.line_type = NQ__UNIT_ROW, o->why.lines = set;
        o->why.lines2_type = NQ__UNIT_COL, o->why.lines2 = cols;
        o->why.k = k;
        for (uint64_t x = set; x; x &= x - 1) o->because[__builtin_ctzll(x)] |= s->cand[__builtin_ctzll(x)];
        return;
    }
    const uint64_t other_cols = s->cols_open & ~cols, other_rows = s->rows_open & ~set;
    o->why.line_type = NQ__UNIT_COL, o->why.lines = other_cols;
    o->why.lines2_type = NQ__UNIT_ROW, o->why.lines2 = other_rows;
    o->why.k = m - k;
    for (uint64_t x = other_rows; x; x &= x - 1)
        o->because[__builtin_ctzll(x)] |= s->cand[__builtin_ctzll(x)] & other_cols;
}

/* The exclusion with the shortest sentence (fewest lines named), the first in row-major order
 * among those. *dead when there is no perfect matching at all. */
static bool find_hall(const nq_pq_state *s, nq_pq_step *o, bool *dead, int *dead_row)
{
    matching mt;
    *dead = !match(s, &mt);
    if (*dead) return *dead_row = mt.unmatched, false;
    const int m = __builtin_popcountll(s->rows_open);
    int best = m + 1, br = -1, bc = -1;
    uint64_t bset = 0;
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        for (uint64_t cs = s->cand[r]; cs; cs &= cs - 1) {
            const int c = __builtin_ctzll(cs);
            uint64_t set = 0;
            if (!unmatchable(&mt, r, c, &set)) continue;
            const int k = __builtin_popcountll(set), size = k <= m - k ? k : m - k;
            if (size < best) best = size, br = r, bc = c, bset = set;
        }
    }
    if (br < 0) return false;
    step_init(o, NQ_PUZZLE_RULE_LINES_IN_LINES, false, br, bc);
    fill_hall(s, o, bset);
    return true;
}

/* Every square in no perfect matching, closed at once; *dead when there is no perfect matching. */
static bool apply_hall(nq_pq_state *s, bool *dead, int *dead_row)
{
    matching mt;
    *dead = !match(s, &mt);
    if (*dead) return *dead_row = mt.unmatched, false;
    nq_pq_state before = *s;
    bool changed = false;
    for (uint64_t rows = before.rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        for (uint64_t cs = before.cand[r]; cs; cs &= cs - 1) {
            uint64_t set = 0;
            if (unmatchable(&mt, r, __builtin_ctzll(cs), &set))
                nq_pq_exclude(s, r, __builtin_ctzll(cs)), changed = true;
        }
    }
    return changed;
}

/* ---- NO_ROOM ---------------------------------------------------------------------------------- */

/* Whether a queen on the open square (r, c) would attack every open square of some other row or
 * column; *is_row and *line name the first such. */
static bool no_room_at(const nq_pq_state *s, const view *v, int r, int c, bool *is_row, int *line)
{
    for (uint64_t rows = s->rows_open & ~BIT(r); rows; rows &= rows - 1) {
        const int y = __builtin_ctzll(rows);
        if ((s->cand[y] & ~nq_pq_attacks(y, r, c)) == 0) return *is_row = true, *line = y, true;
    }
    for (uint64_t cols = s->cols_open & ~BIT(c); cols; cols &= cols - 1) {
        const int x = __builtin_ctzll(cols);
        /* the column's squares the queen attacks: its own row, and the two diagonals' crossings */
        if ((v->col[x] & ~nq_pq_attacks(x, c, r)) == 0) return *is_row = false, *line = x, true;
    }
    return false;
}

static bool find_no_room(const nq_pq_state *s, const view *v, nq_pq_step *o)
{
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        for (uint64_t cs = s->cand[r]; cs; cs &= cs - 1) {
            const int c = __builtin_ctzll(cs);
            bool is_row = false;
            int line = 0;
            if (!no_room_at(s, v, r, c, &is_row, &line)) continue;
            step_init(o, NQ_PUZZLE_RULE_NO_ROOM, false, r, c);
            o->why.unit_type = is_row ? NQ__UNIT_ROW : NQ__UNIT_COL, o->why.unit = line;
            line_squares(s, v, is_row, line, o->because);
            return true;
        }
    }
    return false;
}

static bool apply_no_room(nq_pq_state *s, const view *v)
{
    const nq_pq_state before = *s;
    bool changed = false;
    for (uint64_t rows = before.rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        for (uint64_t cs = before.cand[r]; cs; cs &= cs - 1) {
            bool is_row = false;
            int line = 0;
            if (no_room_at(&before, v, r, __builtin_ctzll(cs), &is_row, &line))
                nq_pq_exclude(s, r, __builtin_ctzll(cs)), changed = true;
        }
    }
    return changed;
}

/* ---- the closure and TRIAL -------------------------------------------------------------------- */

/* nq_pq_close, also naming the line found empty when the outcome is NQ_PQ_DEAD. */
static nq_err close_state(nq_pq_state *s, nq_puzzle_difficulty max, nq__puzzle_work *w, nq_pq_outcome *outcome,
                          bool *dead_is_row, int *dead_line);

/* Whether a queen on (r, c) leads by the rules below TRIAL to a contradiction; its line. */
static nq_err trial_at(const nq_pq_state *s, int r, int c, nq__puzzle_work *w, bool *dead, bool *is_row, int *line)
{
    nq_pq_state t = *s;
    nq_pq_place(&t, r, c);
    nq_pq_outcome outcome = NQ_PQ_STUCK;
    const nq_err rc = close_state(&t, NQ_PUZZLE_HARD, w, &outcome, is_row, line);
    *dead = outcome == NQ_PQ_DEAD;
    return rc;
}

static nq_err find_trial(const nq_pq_state *s, const view *v, nq__puzzle_work *w, nq_pq_step *o, bool *found)
{
    *found = false;
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        for (uint64_t cs = s->cand[r]; cs; cs &= cs - 1) {
            const int c = __builtin_ctzll(cs);
            bool dead = false, is_row = false;
            int line = 0;
            const nq_err rc = trial_at(s, r, c, w, &dead, &is_row, &line);
            if (rc != NQ_OK) return rc;
            if (!dead) continue;
            step_init(o, NQ_PUZZLE_RULE_TRIAL, false, r, c);
            o->why.unit_type = is_row ? NQ__UNIT_ROW : NQ__UNIT_COL, o->why.unit = line;
            line_squares(s, v, is_row, line, o->because);
            o->because[r] &= ~BIT(c);
            *found = true;
            return NQ_OK;
        }
    }
    return NQ_OK;
}

/* Every square whose trial fails, closed; later trials see the earlier exclusions. */
static nq_err apply_trials(nq_pq_state *s, nq__puzzle_work *w, bool *changed)
{
    *changed = false;
    for (uint64_t rows = s->rows_open; rows; rows &= rows - 1) {
        const int r = __builtin_ctzll(rows);
        for (uint64_t cs = s->cand[r]; cs; cs &= cs - 1) {
            const int c = __builtin_ctzll(cs);
            bool dead = false, is_row = false;
            int line = 0;
            const nq_err rc = trial_at(s, r, c, w, &dead, &is_row, &line);
            if (rc != NQ_OK) return rc;
            if (dead) nq_pq_exclude(s, r, c), *changed = true;
        }
    }
    return NQ_OK;
}

/* The outcome before any rule: solved, or a contradiction already visible. */
static bool settled(const nq_pq_state *s, const view *v, nq_pq_outcome *outcome, bool *is_row, int *line)
{
    if (s->broken) return *outcome = NQ_PQ_DEAD, *is_row = true, *line = 0, true;
    if (s->rows_open == 0) return *outcome = NQ_PQ_SOLVED, true;
    if (empty_line(s, v, is_row, line)) return *outcome = NQ_PQ_DEAD, true;
    return false;
}

/* One round of the closure: the easiest rule that changes anything, applied everywhere. */
static nq_err close_round(nq_pq_state *s, const view *v, nq_puzzle_difficulty max, nq__puzzle_work *w, bool *changed,
                          bool *dead, int *dead_row)
{
    *dead = false;
    *changed = apply_singles(s);
    if (*changed) return NQ_OK;
    if (max >= NQ_PUZZLE_MEDIUM && (*changed = apply_pairs(s, v))) return NQ_OK;
    if (max >= NQ_PUZZLE_HARD) {
        if ((*changed = apply_hall(s, dead, dead_row)) || *dead) return NQ_OK;
        if ((*changed = apply_no_room(s, v))) return NQ_OK;
    }
    if (max >= NQ_PUZZLE_EXPERT) return apply_trials(s, w, changed);
    return NQ_OK;
}

/* A round of the rules costs about as much as n search nodes: charge w that many, so that a node
 * budget bounds the engine's time as it bounds the search's. */
static nq_err charge_round(const nq_pq_state *s, nq__puzzle_work *w)
{
    for (int i = __builtin_popcountll(s->rows_open); i >= 0; i--) {
        const nq_err rc = nq__puzzle_tick(w);
        if (rc != NQ_OK) return rc;
    }
    return NQ_OK;
}

static nq_err close_state(nq_pq_state *s, nq_puzzle_difficulty max, nq__puzzle_work *w, nq_pq_outcome *outcome,
                          bool *dead_is_row, int *dead_line)
{
    for (;;) {
        const nq_err rc = charge_round(s, w);
        if (rc != NQ_OK) return rc;
        view v;
        view_of(s, &v);
        if (settled(s, &v, outcome, dead_is_row, dead_line)) return NQ_OK;
        bool changed = false, dead = false;
        int dead_row = 0;
        const nq_err rrc = close_round(s, &v, max, w, &changed, &dead, &dead_row);
        if (rrc != NQ_OK) return rrc;
        if (dead) return *outcome = NQ_PQ_DEAD, *dead_is_row = true, *dead_line = dead_row, NQ_OK;
        if (!changed) return *outcome = NQ_PQ_STUCK, NQ_OK;
    }
}

nq_err nq_pq_close(nq_pq_state *s, nq_puzzle_difficulty max, nq__puzzle_work *w, nq_pq_outcome *outcome)
{
    bool is_row = false;
    int line = 0;
    return close_state(s, max, w, outcome, &is_row, &line);
}

/* ---- one step --------------------------------------------------------------------------------- */

nq_err nq_pq_next(const nq_pq_state *s, nq_puzzle_difficulty max, nq__puzzle_work *w, nq_pq_step *out,
                  nq_pq_outcome *outcome)
{
    const nq_err rc = charge_round(s, w);
    if (rc != NQ_OK) return rc;
    view v;
    view_of(s, &v);
    bool is_row = false, dead = false, found = false;
    int line = 0;
    if (settled(s, &v, outcome, &is_row, &line)) return NQ_OK;
    *outcome = NQ_PQ_STEP;
    if (find_single(s, &v, out)) return NQ_OK;
    if (max >= NQ_PUZZLE_MEDIUM && find_pair(s, &v, out)) return NQ_OK;
    if (max >= NQ_PUZZLE_HARD) {
        if (find_hall(s, out, &dead, &line)) return NQ_OK;
        if (dead) return *outcome = NQ_PQ_DEAD, NQ_OK;
        if (find_no_room(s, &v, out)) return NQ_OK;
    }
    if (max >= NQ_PUZZLE_EXPERT) {
        const nq_err trc = find_trial(s, &v, w, out, &found);
        if (trc != NQ_OK || found) return trc;
    }
    *outcome = NQ_PQ_STUCK;
    return NQ_OK;
}

void nq_pq_apply(nq_pq_state *s, const nq_pq_step *step)
{
    if (step->place)
        nq_pq_place(s, step->row, step->col);
    else
        nq_pq_exclude(s, step->row, step->col);
}
