/* puzzle_regions_engine.c - the regions kind's deduction engine: hints and grades, as a person solves.
 *
 * The engine's state is the set of squares still free (no queen, not ruled out) per row, and the
 * queens. A queen rules out its row, column, region and neighbours at once (that is implied, never a
 * deduction). The rules, easiest first (puzzle.h, NQ_PUZZLE_RULE_TABLE):
 *   single-square     a row, column or region with one free square: the queen goes there;
 *   region-in-line    a region whose free squares are all in one row (column): the rest of that line
 *                     goes; line-in-region, the same with the roles swapped;
 *   regions-in-lines  k regions whose free squares lie in k rows (columns): the rest of those lines
 *                     goes; lines-in-regions the same with the roles swapped (k = 2..KMAX);
 *   no-room           a square whose queen would rule out every free square of another unit;
 *   trial             a square whose queen makes the rules above (applied to the end) empty a unit.
 * A step finds the easiest rule that says something new; the grade applies every fact of that step,
 * a hint reports its first fact. no-room is found from the units' side: the squares that attack all
 * free squares of a unit are the intersection of those squares' attack sets, n ANDs per square, so a
 * step costs O(n^2) per unit instead of O(n^4) over the board. A trial propagates on a copy of the
 * state, so the cost of a trial step is (free squares) x (propagation); each trial ticks the work's
 * node budget, as do propagation steps.
 * Reentrant; the state is about 1 KB, a deduction about 1.5 KB, both on the stack.
 */
#include "puzzle_regions.h"

#include <string.h>

#define KMAX 4 /* the largest k of regions-in-lines and lines-in-regions */

/* The engine's state. */
typedef struct rstate {
    uint64_t free[RN_MAX]; /* squares that may still hold a queen; 0 in a row with a queen */
    uint64_t rows;         /* rows with a queen */
    uint64_t cols;         /* columns with a queen */
    uint64_t regions;      /* regions with a queen */
    int queens;            /* how many */
} rstate;

/* One step: a rule's facts and what they rest on. */
typedef struct deduction {
    nq_puzzle_rule rule;
    nq_puzzle_op op;          /* PLACE: (row, col); EXCLUDE: the squares of out */
    int row, col;             /* PLACE's square; TRIAL, NO_ROOM: the square excluded */
    uint64_t out[RN_MAX];     /* EXCLUDE: the squares ruled out */
    uint64_t because[RN_MAX]; /* the squares the step rests on */
    nq__puzzle_why_args why;  /* the sentence's values */
} deduction;

typedef enum found {
    FOUND_NONE = 0, /* no rule applies */
    FOUND_STEP = 1, /* a step */
    FOUND_DEAD = 2, /* the state is contradictory: an open unit has no free square (its unit in why) */
} found;

/* ---- units ------------------------------------------------------------------------------------- */

/* The free squares of a unit into set[0..n); their number. */
static int unit_free(const nq__regions_map *m, const rstate *s, nq__puzzle_unit_type type, int u, uint64_t *set)
{
    int k = 0;
    for (int i = 0; i < m->n; i++) {
        uint64_t row;
        if (type == NQ__UNIT_ROW)
            row = i == u ? s->free[i] : 0;
        else if (type == NQ__UNIT_COL)
            row = s->free[i] & UINT64_C(1) << u;
        else
            row = s->free[i] & m->in[u][i];
        set[i] = row;
        k += nq__popcount64(row);
    }
    return k;
}

/* Every square of a unit (free or not) into set. */
static void unit_all(const nq__regions_map *m, nq__puzzle_unit_type type, int u, uint64_t *set)
{
    for (int i = 0; i < m->n; i++) {
        if (type == NQ__UNIT_ROW)
            set[i] = i == u ? m->all : 0;
        else if (type == NQ__UNIT_COL)
            set[i] = UINT64_C(1) << u;
        else
            set[i] = m->in[u][i];
    }
}

static bool unit_open(const rstate *s, nq__puzzle_unit_type type, int u)
{
    const uint64_t done = type == NQ__UNIT_ROW ? s->rows : type == NQ__UNIT_COL ? s->cols : s->regions;
    return (done >> u & 1) == 0;
}

static bool any(const uint64_t *set, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++) acc |= set[i];
    return acc != 0;
}

/* ---- state ------------------------------------------------------------------------------------- */

static void state_init(const nq__regions_map *m, rstate *s)
{
    memset(s, 0, sizeof *s);
    for (int r = 0; r < m->n; r++) s->free[r] = m->all;
}

static void state_place(const nq__regions_map *m, rstate *s, int r, int c)
{
    uint64_t att[RN_MAX];
    nq__regions_attacks(m, r, c, att);
    for (int i = 0; i < m->n; i++) s->free[i] &= ~att[i];
    s->rows |= UINT64_C(1) << r;
    s->cols |= UINT64_C(1) << c;
    s->regions |= UINT64_C(1) << m->region[r * m->n + c];
    s->queens++;
}

static void apply(const nq__regions_map *m, rstate *s, const deduction *d)
{
    if (d->op == NQ_PUZZLE_OP_PLACE) {
        state_place(m, s, d->row, d->col);
        return;
    }
    for (int i = 0; i < m->n; i++) s->free[i] &= ~d->out[i];
}

static void step_start(deduction *d, nq_puzzle_rule rule, nq_puzzle_op op)
{
    memset(d, 0, sizeof *d);
    d->rule = rule;
    d->op = op;
}

/* ---- the rules --------------------------------------------------------------------------------- */

/* A dead unit (open, no free square), or a unit with one free square. */
static found rule_single(const nq__regions_map *m, const rstate *s, deduction *d)
{
    uint64_t set[RN_MAX];
    for (int type = NQ__UNIT_ROW; type <= NQ__UNIT_REGION; type++) {
        for (int u = 0; u < m->n; u++) {
            if (!unit_open(s, (nq__puzzle_unit_type)type, u)) continue;
            const int k = unit_free(m, s, (nq__puzzle_unit_type)type, u, set);
            if (k > 1) continue;
            step_start(d, NQ_PUZZLE_RULE_SINGLE_SQUARE, NQ_PUZZLE_OP_PLACE);
            d->why.unit_type = (nq__puzzle_unit_type)type;
            d->why.unit = u;
            if (k == 0) return FOUND_DEAD;
            for (int i = 0; i < m->n; i++)
                if (set[i] != 0) d->row = i, d->col = __builtin_ctzll(set[i]);
            unit_all(m, (nq__puzzle_unit_type)type, u, d->because);
            d->because[d->row] &= ~(UINT64_C(1) << d->col);
            d->why.row = d->row;
            d->why.col = d->col;
            return FOUND_STEP;
        }
    }
    return FOUND_NONE;
}

/* The lines (rows, or columns) where region id has free squares. */
static uint64_t region_lines(const nq__regions_map *m, const rstate *s, int id, nq__puzzle_unit_type type)
{
    uint64_t lines = 0;
    for (int i = 0; i < m->n; i++) {
        const uint64_t f = s->free[i] & m->in[id][i];
        if (type == NQ__UNIT_ROW)
            lines |= (f != 0 ? UINT64_C(1) : 0) << i;
        else
            lines |= f;
    }
    return lines;
}

/* The regions with free squares in line u. */
static uint64_t line_regions(const nq__regions_map *m, const rstate *s, nq__puzzle_unit_type type, int u)
{
    uint64_t regions = 0;
    for (int i = 0; i < m->n; i++) {
        uint64_t f = type == NQ__UNIT_ROW ? (i == u ? s->free[i] : 0) : s->free[i] & UINT64_C(1) << u;
        for (; f != 0; f &= f - 1) regions |= UINT64_C(1) << m->region[i * m->n + __builtin_ctzll(f)];
    }
    return regions;
}

/* out = free squares of the lines `lines` outside the regions `regions` (keep = true: inside them
 * but outside the lines; the other rule's direction). Whether any. */
static bool cross(const nq__regions_map *m, const rstate *s, nq__puzzle_unit_type type, uint64_t lines,
                  uint64_t regions, bool regions_side, uint64_t *out)
{
    bool some = false;
    for (int i = 0; i < m->n; i++) {
        uint64_t in_regions = 0;
        for (uint64_t g = regions; g != 0; g &= g - 1) in_regions |= m->in[__builtin_ctzll(g)][i];
        uint64_t in_lines = type == NQ__UNIT_ROW ? ((lines >> i & 1) ? m->all : 0) : lines;
        out[i] = s->free[i] & (regions_side ? in_regions & ~in_lines : in_lines & ~in_regions);
        some |= out[i] != 0;
    }
    return some;
}

/* The free squares of the given regions (or lines) into because. */
static void free_of(const nq__regions_map *m, const rstate *s, nq__puzzle_unit_type type, uint64_t units,
                    uint64_t *because)
{
    uint64_t set[RN_MAX];
    for (int i = 0; i < m->n; i++) because[i] = 0;
    for (; units != 0; units &= units - 1) {
        unit_free(m, s, type, __builtin_ctzll(units), set);
        for (int i = 0; i < m->n; i++) because[i] |= set[i];
    }
}

/* region-in-line and line-in-region: k = 1 of the subset rules below. */
static found rule_line(const nq__regions_map *m, const rstate *s, deduction *d)
{
    for (int type = NQ__UNIT_ROW; type <= NQ__UNIT_COL; type++) {
        const nq__puzzle_unit_type t = (nq__puzzle_unit_type)type;
        for (int id = 0; id < m->n; id++) {
            if (!unit_open(s, NQ__UNIT_REGION, id)) continue;
            const uint64_t lines = region_lines(m, s, id, t);
            if (nq__popcount64(lines) != 1) continue;
            step_start(d, NQ_PUZZLE_RULE_REGION_IN_LINE, NQ_PUZZLE_OP_EXCLUDE);
            if (!cross(m, s, t, lines, UINT64_C(1) << id, false, d->out)) continue;
            free_of(m, s, NQ__UNIT_REGION, UINT64_C(1) << id, d->because);
            d->why.region = id;
            d->why.line_type = t;
            d->why.line = __builtin_ctzll(lines);
            return FOUND_STEP;
        }
    }
    for (int type = NQ__UNIT_ROW; type <= NQ__UNIT_COL; type++) {
        const nq__puzzle_unit_type t = (nq__puzzle_unit_type)type;
        for (int u = 0; u < m->n; u++) {
            if (!unit_open(s, t, u)) continue;
            const uint64_t regions = line_regions(m, s, t, u);
            if (nq__popcount64(regions) != 1) continue;
            step_start(d, NQ_PUZZLE_RULE_LINE_IN_REGION, NQ_PUZZLE_OP_EXCLUDE);
            if (!cross(m, s, t, UINT64_C(1) << u, regions, true, d->out)) continue;
            free_of(m, s, t, UINT64_C(1) << u, d->because);
            d->why.region = __builtin_ctzll(regions);
            d->why.line_type = t;
            d->why.line = u;
            return FOUND_STEP;
        }
    }
    return FOUND_NONE;
}

/* The subset rules' search: units a[0..count) with spans span[] (sets of the other kind of unit);
 * a subset of 2..KMAX units whose spans' union has as many members as the subset. */
typedef struct subsets {
    int count;             /* units to choose from */
    int unit[RN_MAX];      /* their indices */
    uint64_t span[RN_MAX]; /* their spans */
    int open_units;        /* open units of this kind in all: a subset of all of them says nothing */
} subsets;

/* Depth-first over subsets in index order, pruned when the union exceeds KMAX. For each subset
 * with |union| == |subset| >= 2, try(...) says whether it gives a step. */
typedef bool (*subset_try)(const nq__regions_map *m, const rstate *s, nq__puzzle_unit_type t, uint64_t chosen,
                           uint64_t uni, deduction *d);

static bool subset_dfs(const nq__regions_map *m, const rstate *s, nq__puzzle_unit_type t, const subsets *ss, int from,
                       uint64_t chosen, uint64_t uni, int size, subset_try try_fn, deduction *d)
{
    for (int i = from; i < ss->count; i++) {
        const uint64_t u2 = uni | ss->span[i];
        const int k = nq__popcount64(u2);
        if (k > KMAX) continue;
        const uint64_t c2 = chosen | UINT64_C(1) << ss->unit[i];
        if (size + 1 >= 2 && k == size + 1 && size + 1 < ss->open_units && try_fn(m, s, t, c2, u2, d)) return true;
        if (size + 1 < KMAX && subset_dfs(m, s, t, ss, i + 1, c2, u2, size + 1, try_fn, d)) return true;
    }
    return false;
}

/* k regions (chosen) in k lines (uni): the rest of those lines goes. */
static bool try_regions(const nq__regions_map *m, const rstate *s, nq__puzzle_unit_type t, uint64_t chosen,
                        uint64_t uni, deduction *d)
{
    step_start(d, NQ_PUZZLE_RULE_REGIONS_IN_LINES, NQ_PUZZLE_OP_EXCLUDE);
    if (!cross(m, s, t, uni, chosen, false, d->out)) return false;
    free_of(m, s, NQ__UNIT_REGION, chosen, d->because);
    d->why.regions = chosen;
    d->why.line_type = t;
    d->why.lines = uni;
    d->why.k = nq__popcount64(chosen);
    return true;
}

/* k lines (chosen) in k regions (uni): the rest of those regions goes. */
static bool try_lines(const nq__regions_map *m, const rstate *s, nq__puzzle_unit_type t, uint64_t chosen, uint64_t uni,
                      deduction *d)
{
    step_start(d, NQ_PUZZLE_RULE_LINES_IN_REGIONS, NQ_PUZZLE_OP_EXCLUDE);
    if (!cross(m, s, t, chosen, uni, true, d->out)) return false;
    free_of(m, s, t, chosen, d->because);
    d->why.lines = chosen;
    d->why.line_type = t;
    d->why.regions = uni;
    d->why.k = nq__popcount64(chosen);
    return true;
}

static found rule_subsets(const nq__regions_map *m, const rstate *s, deduction *d)
{
    subsets ss;
    for (int type = NQ__UNIT_ROW; type <= NQ__UNIT_COL; type++) {
        const nq__puzzle_unit_type t = (nq__puzzle_unit_type)type;
        ss.count = 0;
        ss.open_units = 0;
        for (int id = 0; id < m->n; id++) {
            if (!unit_open(s, NQ__UNIT_REGION, id)) continue;
            ss.open_units++;
            ss.unit[ss.count] = id;
            ss.span[ss.count++] = region_lines(m, s, id, t);
        }
        if (subset_dfs(m, s, t, &ss, 0, 0, 0, 0, try_regions, d)) return FOUND_STEP;
    }
    for (int type = NQ__UNIT_ROW; type <= NQ__UNIT_COL; type++) {
        const nq__puzzle_unit_type t = (nq__puzzle_unit_type)type;
        ss.count = 0;
        ss.open_units = 0;
        for (int u = 0; u < m->n; u++) {
            if (!unit_open(s, t, u)) continue;
            ss.open_units++;
            ss.unit[ss.count] = u;
            ss.span[ss.count++] = line_regions(m, s, t, u);
        }
        if (subset_dfs(m, s, t, &ss, 0, 0, 0, 0, try_lines, d)) return FOUND_STEP;
    }
    return FOUND_NONE;
}

/* no-room: a free square outside unit U that attacks every free square of U. The squares attacking
 * all of U's free squares are the intersection of their attack sets. */
static found rule_no_room(const nq__regions_map *m, const rstate *s, deduction *d)
{
    uint64_t set[RN_MAX], inter[RN_MAX], att[RN_MAX], own[RN_MAX];
    const int n = m->n;
    for (int type = NQ__UNIT_ROW; type <= NQ__UNIT_REGION; type++) {
        const nq__puzzle_unit_type t = (nq__puzzle_unit_type)type;
        for (int u = 0; u < n; u++) {
            if (!unit_open(s, t, u)) continue;
            const int k = unit_free(m, s, t, u, set);
            if (k < 2 || k > n) continue;
            unit_all(m, t, u, own);
            for (int i = 0; i < n; i++) inter[i] = s->free[i] & ~own[i];
            for (int i = 0; i < n && any(inter, n); i++) {
                for (uint64_t f = set[i]; f != 0; f &= f - 1) {
                    nq__regions_attacks(m, i, __builtin_ctzll(f), att);
                    for (int j = 0; j < n; j++) inter[j] &= att[j];
                }
            }
            for (int i = 0; i < n; i++) {
                if (inter[i] == 0) continue;
                step_start(d, NQ_PUZZLE_RULE_NO_ROOM, NQ_PUZZLE_OP_EXCLUDE);
                d->row = i;
                d->col = __builtin_ctzll(inter[i]);
                d->out[i] = UINT64_C(1) << d->col;
                memcpy(d->because, set, sizeof set[0] * (size_t)n);
                d->why.row = d->row;
                d->why.col = d->col;
                d->why.unit_type = t;
                d->why.unit = u;
                return FOUND_STEP;
            }
        }
    }
    return FOUND_NONE;
}

/* The easiest step up to rule `max` (a rule of this kind), or a dead unit. */
static found find_step(const nq__regions_map *m, const rstate *s, nq_puzzle_rule max, nq__puzzle_work *w, deduction *d,
                       nq_err *rc);

/* Apply steps up to `max` until none applies, the board is full, or a unit dies (returns DEAD, the
 * unit in d->why). */
static found propagate(const nq__regions_map *m, rstate *s, nq_puzzle_rule max, nq__puzzle_work *w, deduction *d,
                       nq_err *rc)
{
    for (;;) {
        const found f = find_step(m, s, max, w, d, rc);
        if (f != FOUND_STEP || *rc != NQ_OK) return f;
        apply(m, s, d);
        if (s->queens == m->n) return FOUND_NONE;
    }
}

/* trial: a free square whose queen, followed by the rules up to no-room, empties a unit. */
static found rule_trial(const nq__regions_map *m, const rstate *s, nq__puzzle_work *w, deduction *d, nq_err *rc)
{
    deduction inner;
    for (int r = 0; r < m->n; r++) {
        for (uint64_t f = s->free[r]; f != 0; f &= f - 1) {
            *rc = nq__puzzle_tick(w);
            if (*rc != NQ_OK) return FOUND_NONE;
            const int c = __builtin_ctzll(f);
            rstate t = *s;
            state_place(m, &t, r, c);
            if (propagate(m, &t, NQ_PUZZLE_RULE_NO_ROOM, w, &inner, rc) != FOUND_DEAD || *rc != NQ_OK) {
                if (*rc != NQ_OK) return FOUND_NONE;
                continue;
            }
            step_start(d, NQ_PUZZLE_RULE_TRIAL, NQ_PUZZLE_OP_EXCLUDE);
            d->row = r;
            d->col = c;
            d->out[r] = UINT64_C(1) << c;
            unit_all(m, inner.why.unit_type, inner.why.unit, d->because);
            d->because[r] &= ~(UINT64_C(1) << c);
            d->why.row = r;
            d->why.col = c;
            d->why.unit_type = inner.why.unit_type;
            d->why.unit = inner.why.unit;
            return FOUND_STEP;
        }
    }
    return FOUND_NONE;
}

static found find_step(const nq__regions_map *m, const rstate *s, nq_puzzle_rule max, nq__puzzle_work *w, deduction *d,
                       nq_err *rc)
{
    *rc = nq__puzzle_tick(w);
    if (*rc != NQ_OK) return FOUND_NONE;
    found f = rule_single(m, s, d);
    if (f != FOUND_NONE) return f;
    if (max >= NQ_PUZZLE_RULE_REGION_IN_LINE && (f = rule_line(m, s, d)) != FOUND_NONE) return f;
    if (max >= NQ_PUZZLE_RULE_REGIONS_IN_LINES && (f = rule_subsets(m, s, d)) != FOUND_NONE) return f;
    if (max >= NQ_PUZZLE_RULE_NO_ROOM && (f = rule_no_room(m, s, d)) != FOUND_NONE) return f;
    if (max >= NQ_PUZZLE_RULE_TRIAL) return rule_trial(m, s, w, d, rc);
    return FOUND_NONE;
}

/* ---- hints and grades -------------------------------------------------------------------------- */

nq_err nq__puzzle_regions_hint(const nq_puzzle *p, const nq_puzzle_position *pos, nq__puzzle_work *w,
                               nq_puzzle_hint *out)
{
    nq__regions_map m;
    nq__regions_map_init(&m, p);
    rstate s;
    state_init(&m, &s);
    for (int r = 0; r < m.n; r++)
        for (uint64_t q = pos->queens[r] & m.all; q != 0; q &= q - 1) state_place(&m, &s, r, __builtin_ctzll(q));
    for (int r = 0; r < m.n; r++) s.free[r] &= ~pos->marks[r];
    deduction d;
    nq_err rc = NQ_OK;
    memset(out, 0, sizeof *out);
    if (find_step(&m, &s, NQ_PUZZLE_RULE_TRIAL, w, &d, &rc) != FOUND_STEP || rc != NQ_OK) return rc;
    out->op = d.op;
    out->rule = d.rule;
    if (d.op == NQ_PUZZLE_OP_PLACE) {
        out->row = d.row;
        out->col = d.col;
    } else {
        for (int r = 0; r < m.n; r++) {
            if (d.out[r] == 0) continue;
            out->row = r;
            out->col = __builtin_ctzll(d.out[r]);
            break;
        }
    }
    d.why.row = out->row;
    d.why.col = out->col;
    memcpy(out->because, d.because, sizeof d.because[0] * (size_t)m.n);
    out->because[out->row] &= ~(UINT64_C(1) << out->col);
    nq__puzzle_why(d.rule, &d.why, out->why, sizeof out->why);
    return NQ_OK;
}

nq_err nq__regions_run(const nq__regions_map *m, nq_puzzle_rule max, nq__puzzle_work *w, uint64_t *free_out,
                       uint64_t *open_regions, bool *solved)
{
    rstate s;
    state_init(m, &s);
    deduction d;
    nq_err rc = NQ_OK;
    const found f = propagate(m, &s, max, w, &d, &rc);
    if (rc != NQ_OK) return rc;
    *solved = f != FOUND_DEAD && s.queens == m->n;
    memcpy(free_out, s.free, sizeof s.free[0] * (size_t)m->n);
    *open_regions = ~s.regions & m->all;
    return NQ_OK;
}

nq_err nq__regions_grade(const nq__regions_map *m, nq__puzzle_work *w, nq_puzzle_grade *out)
{
    rstate s;
    state_init(m, &s);
    memset(out, 0, sizeof *out);
    deduction d;
    nq_err rc = NQ_OK;
    while (s.queens < m->n) {
        if (find_step(m, &s, NQ_PUZZLE_RULE_TRIAL, w, &d, &rc) != FOUND_STEP || rc != NQ_OK) break;
        apply(m, &s, &d);
        out->deductions++;
        if (d.rule == NQ_PUZZLE_RULE_TRIAL) out->trials++;
        if (d.rule > out->hardest) out->hardest = d.rule;
    }
    if (rc != NQ_OK) return rc;
    out->solved = s.queens == m->n;
    if (!out->solved) out->hardest = NQ_PUZZLE_RULE_SEARCH;
    out->difficulty = nq_puzzle_rule_difficulty(out->hardest);
    return NQ_OK;
}

nq_err nq__puzzle_regions_grade(const nq_puzzle *p, nq__puzzle_work *w, nq_puzzle_grade *out)
{
    nq__regions_map m;
    nq__regions_map_init(&m, p);
    return nq__regions_grade(&m, w, out);
}
