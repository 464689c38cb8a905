/* puzzle.c - the common part of puzzle.h: names, parsing, positions, mistakes, and dispatch by kind.
 *
 * Everything that does not depend on the kind's rules lives here: the name tables, the region map
 * parser (relabelling, 4-connectivity), clue checks, the date seed, the sentence formatter both kinds
 * use, the player's mistakes (found with the kind's exact search), and the SEARCH fallback of hints.
 * The kinds' searches, engines and generators are in puzzle_regions*.c and puzzle_queens*.c behind
 * puzzle_impl.h. Reentrant; nothing allocates (the largest local is a 62 x 62 board of bytes).
 */
#include "nqueens/puzzle.h"

#include <stdio.h>
#include <string.h>

#include "puzzle_impl.h"

/* ---- names ------------------------------------------------------------------------------------- */

static const char *const kind_names[NQ_PUZZLE_KIND_COUNT] = {"queens", "regions"};
static const char *const difficulty_names[NQ_PUZZLE_DIFFICULTY_COUNT] = {"easy", "medium", "hard", "expert"};

#define KINDS_Q (1u << NQ_PUZZLE_QUEENS)
#define KINDS_R (1u << NQ_PUZZLE_REGIONS)
#define KINDS_QR (KINDS_Q | KINDS_R)

typedef struct rule_row {
    const char *name;                /* wire name */
    unsigned kinds;                  /* bit per kind that uses it */
    nq_puzzle_difficulty difficulty; /* its difficulty */
    const char *why;                 /* sentence pattern */
} rule_row;

static const rule_row rules[NQ_PUZZLE_RULE_COUNT] = {
#define RULE_ROW_(id, name, kinds, difficulty, why) {name, KINDS_##kinds, NQ_PUZZLE_##difficulty, why},
    NQ_PUZZLE_RULE_TABLE(RULE_ROW_)
#undef RULE_ROW_
};

const char *nq_puzzle_kind_name(nq_puzzle_kind kind)
{
    return (unsigned)kind < NQ_PUZZLE_KIND_COUNT ? kind_names[kind] : NULL;
}

const char *nq_puzzle_difficulty_name(nq_puzzle_difficulty difficulty)
{
    return (unsigned)difficulty < NQ_PUZZLE_DIFFICULTY_COUNT ? difficulty_names[difficulty] : NULL;
}

const char *nq_puzzle_rule_name(nq_puzzle_rule rule)
{
    return (unsigned)rule < NQ_PUZZLE_RULE_COUNT ? rules[rule].name : NULL;
}

const char *nq_puzzle_op_name(nq_puzzle_op op)
{
    switch (op) {
    case NQ_PUZZLE_OP_PLACE: return "place";
    case NQ_PUZZLE_OP_EXCLUDE: return "exclude";
    default: return NULL;
    }
}

/* The index of the name equal to s[0..len) among names[0..count), or -1. */
static int find_name(const char *s, size_t len, const char *const *names, size_t stride, int count)
{
    for (int i = 0; i < count; i++) {
        const char *name = *(const char *const *)(const void *)((const char *)names + (size_t)i * stride);
        if (strlen(name) == len && memcmp(name, s, len) == 0) return i;
    }
    return -1;
}

nq_err nq_puzzle_kind_parse(const char *s, size_t len, nq_puzzle_kind *out)
{
    if (s == NULL || out == NULL) return NQ_E_ARG;
    const int i = find_name(s, len, kind_names, sizeof kind_names[0], NQ_PUZZLE_KIND_COUNT);
    if (i < 0) return NQ_E_PARAM_INVALID;
    *out = (nq_puzzle_kind)i;
    return NQ_OK;
}

nq_err nq_puzzle_difficulty_parse(const char *s, size_t len, nq_puzzle_difficulty *out)
{
    if (s == NULL || out == NULL) return NQ_E_ARG;
    const int i = find_name(s, len, difficulty_names, sizeof difficulty_names[0], NQ_PUZZLE_DIFFICULTY_COUNT);
    if (i < 0) return NQ_E_PARAM_INVALID;
    *out = (nq_puzzle_difficulty)i;
    return NQ_OK;
}

nq_err nq_puzzle_rule_parse(const char *s, size_t len, nq_puzzle_rule *out)
{
    if (s == NULL || out == NULL) return NQ_E_ARG;
    const int i = find_name(s, len, &rules[0].name, sizeof rules[0], NQ_PUZZLE_RULE_COUNT);
    if (i < 0) return NQ_E_PARAM_INVALID;
    *out = (nq_puzzle_rule)i;
    return NQ_OK;
}

nq_puzzle_difficulty nq_puzzle_rule_difficulty(nq_puzzle_rule rule)
{
    return (unsigned)rule < NQ_PUZZLE_RULE_COUNT ? rules[rule].difficulty : NQ_PUZZLE_EXPERT;
}

const char *nq_puzzle_rule_pattern(nq_puzzle_rule rule)
{
    return (unsigned)rule < NQ_PUZZLE_RULE_COUNT ? rules[rule].why : NULL;
}

bool nq_puzzle_rule_of_kind(nq_puzzle_rule rule, nq_puzzle_kind kind)
{
    if ((unsigned)rule >= NQ_PUZZLE_RULE_COUNT || (unsigned)kind >= NQ_PUZZLE_KIND_COUNT) return false;
    return (rules[rule].kinds & (1u << kind)) != 0;
}

char nq_puzzle_region_label(int id)
{
    return id >= 0 && id < NQ_PUZZLE_N_MAX ? NQ_PUZZLE_LABELS[id] : '?';
}

/* ---- errors ------------------------------------------------------------------------------------ */

size_t nq_puzzle_error_format(const nq_puzzle_error *e, char *buf, size_t cap)
{
    char dummy[1];
    if (buf == NULL || cap == 0) {
        buf = dummy;
        cap = sizeof dummy;
    }
    if (e == NULL) return (size_t)snprintf(buf, cap, "no error");
    int len = 0;
    switch (e->problem) {
    case NQ_PUZZLE_PROBLEM_NONE: len = snprintf(buf, cap, "no error"); break;
    case NQ_PUZZLE_PROBLEM_SIZE: len = snprintf(buf, cap, "n = %d is outside 1..%d", e->n, NQ_PUZZLE_N_MAX); break;
    case NQ_PUZZLE_PROBLEM_ROWS: len = snprintf(buf, cap, "the map has %zu rows, not %d", e->count, e->n); break;
    case NQ_PUZZLE_PROBLEM_RAGGED:
        len = snprintf(buf, cap, "row %d has %zu labels, not %d", e->row, e->count, e->n);
        break;
    case NQ_PUZZLE_PROBLEM_LABEL:
        if (e->label >= 0x21 && e->label < 0x7f)
            len = snprintf(buf, cap, "row %d, column %d: '%c' is not a region label (A-Z, a-z, 0-9)", e->row, e->col,
                           e->label);
        else
            len = snprintf(buf, cap, "row %d, column %d: byte 0x%02x is not a region label (A-Z, a-z, 0-9)", e->row,
                           e->col, (unsigned)(unsigned char)e->label);
        break;
    case NQ_PUZZLE_PROBLEM_LABELS: len = snprintf(buf, cap, "the map has %zu regions, not %d", e->count, e->n); break;
    case NQ_PUZZLE_PROBLEM_CONNECTED:
        len = snprintf(buf, cap, "region '%c' is not connected: row %d, column %d is cut off from its first square",
                       e->label, e->row, e->col);
        break;
    case NQ_PUZZLE_PROBLEM_CLUE_RANGE:
        len = snprintf(buf, cap, "clue %zu is not on the %d x %d board", e->index, e->n, e->n);
        break;
    case NQ_PUZZLE_PROBLEM_CLUE_ATTACK:
        len = snprintf(buf, cap, "clues %zu and %zu share a row, a column or a diagonal", e->other, e->index);
        break;
    default: len = snprintf(buf, cap, "unknown problem"); break;
    }
    return len < 0 ? 0 : (size_t)len;
}

/* Start *err (if any) for a check of size n. */
static void error_reset(nq_puzzle_error *err, int n)
{
    if (err == NULL) return;
    memset(err, 0, sizeof *err);
    err->row = -1;
    err->col = -1;
    err->n = n;
}

static nq_err fail(nq_puzzle_error *err, nq_puzzle_problem problem)
{
    if (err != NULL) err->problem = problem;
    return NQ_E_PUZZLE_INVALID;
}

/* ---- region maps ------------------------------------------------------------------------------- */

/* The index of c in NQ_PUZZLE_LABELS, or -1. */
static int label_index(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
    if (c >= '0' && c <= '9') return 52 + (c - '0');
    return -1;
}

/* Relabel the map in order of first appearance into p->region; the number of labels into *count.
 * first[] keeps each new id's first square, for the connectivity check. Rows are already checked. */
static nq_err relabel(nq_puzzle *p, const char *const *rows, int n, int *first, nq_puzzle_error *err)
{
    int id_of[NQ_PUZZLE_N_MAX];
    for (int i = 0; i < NQ_PUZZLE_N_MAX; i++) id_of[i] = -1;
    int ids = 0;
    for (int r = 0; r < n; r++) {
        for (int c = 0; c < n; c++) {
            const int l = label_index(rows[r][c]);
            if (l < 0) {
                if (err != NULL) {
                    err->row = r;
                    err->col = c;
                    err->label = rows[r][c];
                }
                return fail(err, NQ_PUZZLE_PROBLEM_LABEL);
            }
            if (id_of[l] < 0) {
                if (ids < NQ_PUZZLE_N_MAX) first[ids] = r * n + c;
                id_of[l] = ids++;
            }
            p->region[r * n + c] = (uint8_t)id_of[l];
        }
    }
    if (ids != n) {
        if (err != NULL) err->count = (size_t)ids;
        return fail(err, NQ_PUZZLE_PROBLEM_LABELS);
    }
    return NQ_OK;
}

/* Whether every region is one 4-connected piece: a flood fill from each region's first square must
 * reach as many squares as the region has. On failure, the first square (row-major) the fill missed. */
static nq_err check_connected(const nq_puzzle *p, const char *const *rows, const int *first, nq_puzzle_error *err)
{
    const int n = p->n;
    uint8_t seen[NQ_PUZZLE_N_MAX * NQ_PUZZLE_N_MAX];
    uint16_t stack[NQ_PUZZLE_N_MAX * NQ_PUZZLE_N_MAX];
    memset(seen, 0, (size_t)n * (size_t)n);
    for (int id = 0; id < n; id++) {
        int top = 0;
        stack[top++] = (uint16_t)first[id];
        seen[first[id]] = 1;
        while (top > 0) {
            const int s = stack[--top];
            const int r = s / n, c = s % n;
            const int next[4] = {r > 0 ? s - n : -1, r < n - 1 ? s + n : -1, c > 0 ? s - 1 : -1,
                                 c < n - 1 ? s + 1 : -1};
            for (int i = 0; i < 4; i++) {
                if (next[i] < 0 || seen[next[i]] || p->region[next[i]] != id) continue;
                seen[next[i]] = 1;
                stack[top++] = (uint16_t)next[i];
            }
        }
    }
    for (int s = 0; s < n * n; s++) {
        if (seen[s]) continue;
        if (err != NULL) {
            err->row = s / n;
            err->col = s % n;
            err->label = rows[s / n][s % n];
        }
        return fail(err, NQ_PUZZLE_PROBLEM_CONNECTED);
    }
    return NQ_OK;
}

nq_err nq_puzzle_init_regions(nq_puzzle *p, int n, const char *const *rows, const size_t *lens, size_t nrows,
                              nq_puzzle_error *err)
{
    error_reset(err, n);
    if (p == NULL || (rows == NULL && nrows > 0)) return NQ_E_ARG;
    for (size_t i = 0; i < nrows; i++)
        if (rows[i] == NULL) return NQ_E_ARG;
    if (n < 1 || n > NQ_PUZZLE_N_MAX) return fail(err, NQ_PUZZLE_PROBLEM_SIZE);
    if (nrows != (size_t)n) {
        if (err != NULL) err->count = nrows;
        return fail(err, NQ_PUZZLE_PROBLEM_ROWS);
    }
    for (int r = 0; r < n; r++) {
        const size_t len = lens != NULL ? lens[r] : strlen(rows[r]);
        if (len == (size_t)n && memchr(rows[r], 0, len) == NULL) continue;
        if (err != NULL) {
            err->row = r;
            err->count = len;
        }
        return fail(err, NQ_PUZZLE_PROBLEM_RAGGED);
    }
    memset(p, 0, sizeof *p);
    p->kind = NQ_PUZZLE_REGIONS;
    p->n = n;
    memset(p->clue, NQ_PUZZLE_NONE, sizeof p->clue);
    int first[NQ_PUZZLE_N_MAX];
    nq_err rc = relabel(p, rows, n, first, err);
    if (rc == NQ_OK) rc = check_connected(p, rows, first, err);
    return rc;
}

nq_err nq_puzzle_region_row(const nq_puzzle *p, int r, char *buf, size_t cap)
{
    if (p == NULL || buf == NULL || p->kind != NQ_PUZZLE_REGIONS || r < 0 || r >= p->n) return NQ_E_ARG;
    if (cap < (size_t)p->n + 1) return NQ_E_BUFSIZE;
    for (int c = 0; c < p->n; c++) buf[c] = NQ_PUZZLE_LABELS[p->region[r * p->n + c]];
    buf[p->n] = '\0';
    return NQ_OK;
}

/* ---- queens clues ------------------------------------------------------------------------------ */

/* Whether two squares share a row, a column or a diagonal (or are one square). */
static bool attacks(int r1, int c1, int r2, int c2)
{
    const int dr = r1 - r2, dc = c1 - c2;
    return dr == 0 || dc == 0 || dr == dc || dr == -dc;
}

nq_err nq_puzzle_init_queens(nq_puzzle *p, int n, const nq_square *clues, size_t count, nq_puzzle_error *err)
{
    error_reset(err, n);
    if (p == NULL || (clues == NULL && count > 0)) return NQ_E_ARG;
    if (n < 1 || n > NQ_PUZZLE_N_MAX) return fail(err, NQ_PUZZLE_PROBLEM_SIZE);
    size_t by_row[NQ_PUZZLE_N_MAX] = {0}; /* the clue index in each row, for the attack check */
    memset(p, 0, sizeof *p);
    p->kind = NQ_PUZZLE_QUEENS;
    p->n = n;
    memset(p->clue, NQ_PUZZLE_NONE, sizeof p->clue);
    for (size_t i = 0; i < count; i++) {
        if (clues[i].row >= (uint32_t)n || clues[i].col >= (uint32_t)n) {
            if (err != NULL) err->index = i;
            return fail(err, NQ_PUZZLE_PROBLEM_CLUE_RANGE);
        }
        const int r = (int)clues[i].row, c = (int)clues[i].col;
        for (int q = 0; q < n; q++) {
            if (p->clue[q] == NQ_PUZZLE_NONE || !attacks(q, p->clue[q], r, c)) continue;
            if (err != NULL) {
                err->index = i;
                err->other = by_row[q];
            }
            return fail(err, NQ_PUZZLE_PROBLEM_CLUE_ATTACK);
        }
        p->clue[r] = (uint8_t)c;
        by_row[r] = i;
        p->clue_count++;
    }
    return NQ_OK;
}

/* ---- positions --------------------------------------------------------------------------------- */

void nq_puzzle_position_clear(nq_puzzle_position *pos)
{
    if (pos != NULL) memset(pos, 0, sizeof *pos);
}

nq_err nq_puzzle_position_set(nq_puzzle_position *pos, int n, int row, int col, bool mark)
{
    if (pos == NULL) return NQ_E_ARG;
    if (n < 1 || n > NQ_PUZZLE_N_MAX || row < 0 || row >= n || col < 0 || col >= n) return NQ_E_RANGE;
    uint64_t *rows = mark ? pos->marks : pos->queens;
    rows[row] |= UINT64_C(1) << col;
    return NQ_OK;
}

/* The bits of a row that are on the board. */
static uint64_t board_mask(int n)
{
    return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

/* ---- dispatch ---------------------------------------------------------------------------------- */

static nq_err kind_count(const nq_puzzle *p, const uint64_t *queens, const uint64_t *blocked, uint64_t limit,
                         nq__puzzle_work *w, nq_puzzle_count_result *out)
{
    memset(out, 0, sizeof *out);
    nq_err rc = NQ_E_PUZZLE_UNAVAILABLE;
    if (p->kind == NQ_PUZZLE_REGIONS) rc = nq__puzzle_regions_count(p, queens, blocked, limit, w, out);
#ifdef NQ_PUZZLE_QUEENS_KIND
    if (p->kind == NQ_PUZZLE_QUEENS) rc = nq__puzzle_queens_count(p, queens, blocked, limit, w, out);
#endif
    out->nodes = w->nodes;
    return rc;
}

static nq_err kind_hint(const nq_puzzle *p, const nq_puzzle_position *pos, nq__puzzle_work *w, nq_puzzle_hint *out)
{
    if (p->kind == NQ_PUZZLE_REGIONS) return nq__puzzle_regions_hint(p, pos, w, out);
#ifdef NQ_PUZZLE_QUEENS_KIND
    if (p->kind == NQ_PUZZLE_QUEENS) return nq__puzzle_queens_hint(p, pos, w, out);
#endif
    return NQ_E_PUZZLE_UNAVAILABLE;
}

static bool puzzle_ok(const nq_puzzle *p)
{
    return p != NULL && (unsigned)p->kind < NQ_PUZZLE_KIND_COUNT && p->n >= 1 && p->n <= NQ_PUZZLE_N_MAX;
}

static void work_init(nq__puzzle_work *w, uint64_t max_nodes, nq_count_ctl *ctl)
{
    w->max_nodes = max_nodes;
    w->nodes = 0;
    w->ctl = ctl;
}

nq_err nq_puzzle_count(const nq_puzzle *p, const nq_puzzle_position *pos, uint64_t limit, uint64_t max_nodes,
                       nq_count_ctl *ctl, nq_puzzle_count_result *out)
{
    if (!puzzle_ok(p) || out == NULL || limit == 0) return NQ_E_ARG;
    nq__puzzle_work w;
    work_init(&w, max_nodes, ctl);
    uint64_t queens[NQ_PUZZLE_N_MAX] = {0};
    if (pos != NULL)
        for (int r = 0; r < p->n; r++) queens[r] = pos->queens[r] & board_mask(p->n);
    return kind_count(p, queens, NULL, limit, &w, out);
}

/* One square as a lone row mask set: only row r holds bit c. */
static void single(uint64_t *rows, int n, int r, int c)
{
    memset(rows, 0, sizeof rows[0] * (size_t)n);
    rows[r] = UINT64_C(1) << c;
}

/* The mistakes of pos (see nq_puzzle_mistakes) into *out, with the first solution found in *first. */
static nq_err find_mistakes(const nq_puzzle *p, const nq_puzzle_position *pos, nq__puzzle_work *w,
                            nq_puzzle_position *out, nq_puzzle_count_result *first)
{
    const int n = p->n;
    const uint64_t mask = board_mask(n);
    nq_puzzle_position_clear(out);
    nq_err rc = kind_count(p, NULL, NULL, 1, w, first);
    if (rc != NQ_OK) return rc;
    uint64_t one[NQ_PUZZLE_N_MAX];
    nq_puzzle_count_result res;
    for (int r = 0; r < n; r++) {
        const uint64_t on_first = first->found ? UINT64_C(1) << first->cols[r] : 0;
        /* a queen off the first solution may still be on another one: ask */
        for (uint64_t q = pos->queens[r] & mask & ~on_first; q != 0; q &= q - 1) {
            const int c = __builtin_ctzll(q);
            if (first->found) {
                single(one, n, r, c);
                rc = kind_count(p, one, NULL, 1, w, &res);
                if (rc != NQ_OK) return rc;
                if (res.found) continue;
            }
            out->queens[r] |= UINT64_C(1) << c;
        }
        /* a mark on the first solution is a mistake unless some solution avoids its square */
        if ((pos->marks[r] & on_first) != 0) {
            single(one, n, r, first->cols[r]);
            rc = kind_count(p, NULL, one, 1, w, &res);
            if (rc != NQ_OK) return rc;
            if (!res.found) out->marks[r] |= on_first;
        }
    }
    return NQ_OK;
}

nq_err nq_puzzle_mistakes(const nq_puzzle *p, const nq_puzzle_position *pos, uint64_t max_nodes, nq_count_ctl *ctl,
                          nq_puzzle_position *out)
{
    if (!puzzle_ok(p) || pos == NULL || out == NULL) return NQ_E_ARG;
    nq__puzzle_work w;
    work_init(&w, max_nodes, ctl);
    nq_puzzle_count_result first;
    return find_mistakes(p, pos, &w, out, &first);
}

/* The squares pos already rules out: its queens' squares, their lines, diagonals (queens kind) or
 * regions and neighbours (regions kind), the clues' likewise, and the marks. */
static void known_out(const nq_puzzle *p, const nq_puzzle_position *pos, uint64_t *out)
{
    const int n = p->n;
    uint64_t queens[NQ_PUZZLE_N_MAX];
    for (int r = 0; r < n; r++) {
        queens[r] = pos->queens[r];
        if (p->clue[r] != NQ_PUZZLE_NONE) queens[r] |= UINT64_C(1) << p->clue[r];
        out[r] = pos->marks[r];
    }
    for (int r = 0; r < n; r++) {
        for (uint64_t q = queens[r]; q != 0; q &= q - 1) {
            const int c = __builtin_ctzll(q);
            for (int s = 0; s < n * n; s++) {
                const int r2 = s / n, c2 = s % n;
                bool hit;
                if (p->kind == NQ_PUZZLE_REGIONS)
                    hit = r2 == r || c2 == c || p->region[s] == p->region[r * n + c] ||
                          (r2 - r <= 1 && r - r2 <= 1 && c2 - c <= 1 && c - c2 <= 1);
                else
                    hit = attacks(r, c, r2, c2);
                if (hit) out[r2] |= UINT64_C(1) << c2;
            }
        }
    }
}

/* The last resort of a hint: the first square (row-major) that is neither known nor free to hold a
 * queen by the exact search: excluded if no solution has a queen there, placed if every one does. */
static nq_err search_hint(const nq_puzzle *p, const nq_puzzle_position *pos, const nq_puzzle_count_result *sol,
                          nq__puzzle_work *w, nq_puzzle_hint *out)
{
    const int n = p->n;
    uint64_t known[NQ_PUZZLE_N_MAX], one[NQ_PUZZLE_N_MAX];
    known_out(p, pos, known);
    nq_puzzle_count_result res;
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < n; r++) {
            const uint64_t on = UINT64_C(1) << sol->cols[r];
            const uint64_t cand = (pass == 0 ? ~on : on) & ~known[r] & board_mask(n);
            for (uint64_t q = cand; q != 0; q &= q - 1) {
                const int c = __builtin_ctzll(q);
                single(one, n, r, c);
                uint64_t queens[NQ_PUZZLE_N_MAX];
                for (int i = 0; i < n; i++) queens[i] = pos->queens[i] | (pass == 0 ? one[i] : 0);
                const nq_err rc = kind_count(p, queens, pass == 0 ? NULL : one, 1, w, &res);
                if (rc != NQ_OK) return rc;
                if (res.found) continue;
                out->op = pass == 0 ? NQ_PUZZLE_OP_EXCLUDE : NQ_PUZZLE_OP_PLACE;
                out->row = r;
                out->col = c;
                out->rule = NQ_PUZZLE_RULE_SEARCH;
                const nq__puzzle_why_args a = {.row = r, .col = c};
                nq__puzzle_why(NQ_PUZZLE_RULE_SEARCH, &a, out->why, sizeof out->why);
                return NQ_OK;
            }
        }
    }
    return NQ_OK; /* several solutions agree with everything known: nothing to say */
}

nq_err nq_puzzle_hint_next(const nq_puzzle *p, const nq_puzzle_position *pos, uint64_t max_nodes, nq_count_ctl *ctl,
                           nq_puzzle_hint *out)
{
    if (!puzzle_ok(p) || out == NULL) return NQ_E_ARG;
    memset(out, 0, sizeof *out);
    nq_puzzle_position empty, mistakes, clean;
    nq_puzzle_position_clear(&empty);
    if (pos == NULL) pos = &empty;
    nq__puzzle_work w;
    work_init(&w, max_nodes, ctl);
    nq_puzzle_count_result sol;
    nq_err rc = find_mistakes(p, pos, &w, &mistakes, &sol);
    if (rc != NQ_OK) return rc;
    const int n = p->n;
    nq_puzzle_position_clear(&clean);
    for (int r = 0; r < n; r++) {
        clean.queens[r] = pos->queens[r] & ~mistakes.queens[r] & board_mask(n);
        clean.marks[r] = pos->marks[r] & ~mistakes.marks[r] & board_mask(n);
    }
    /* the solution the hints lead to: one with the player's right queens */
    rc = kind_count(p, clean.queens, NULL, 1, &w, &sol);
    if (rc != NQ_OK || !sol.found) return rc;
    bool solved = true;
    for (int r = 0; r < n && solved; r++) {
        const uint64_t have = clean.queens[r] | (p->clue[r] != NQ_PUZZLE_NONE ? UINT64_C(1) << p->clue[r] : 0);
        solved = have == UINT64_C(1) << sol.cols[r];
    }
    if (solved) return NQ_OK;
    rc = kind_hint(p, &clean, &w, out);
    if (rc != NQ_OK || out->op != NQ_PUZZLE_OP_NONE) return rc;
    return search_hint(p, &clean, &sol, &w, out);
}

nq_err nq_puzzle_grade_of(const nq_puzzle *p, uint64_t max_nodes, nq_count_ctl *ctl, nq_puzzle_grade *out)
{
    if (!puzzle_ok(p) || out == NULL) return NQ_E_ARG;
    memset(out, 0, sizeof *out);
    nq__puzzle_work w;
    work_init(&w, max_nodes, ctl);
    if (p->kind == NQ_PUZZLE_REGIONS) return nq__puzzle_regions_grade(p, &w, out);
#ifdef NQ_PUZZLE_QUEENS_KIND
    if (p->kind == NQ_PUZZLE_QUEENS) return nq__puzzle_queens_grade(p, &w, out);
#endif
    return NQ_E_PUZZLE_UNAVAILABLE;
}

nq_err nq_puzzle_generate(nq_puzzle_kind kind, int n, nq_puzzle_difficulty difficulty, uint64_t seed,
                          uint64_t max_nodes, nq_count_ctl *ctl, nq_puzzle *out, nq_puzzle_grade *grade)
{
    if (out == NULL || (unsigned)kind >= NQ_PUZZLE_KIND_COUNT || (unsigned)difficulty >= NQ_PUZZLE_DIFFICULTY_COUNT)
        return NQ_E_ARG;
    if (seed > NQ_PUZZLE_SEED_MAX) return NQ_E_RANGE;
    nq_puzzle_grade unused;
    if (grade == NULL) grade = &unused;
    memset(grade, 0, sizeof *grade);
    nq__puzzle_work w;
    work_init(&w, max_nodes, ctl);
    nq_err rc = NQ_E_PUZZLE_UNAVAILABLE;
    if (kind == NQ_PUZZLE_REGIONS) {
        if (n < NQ_PUZZLE_REGIONS_GEN_N_MIN || n > NQ_PUZZLE_REGIONS_GEN_N_MAX) return NQ_E_RANGE;
        rc = nq__puzzle_regions_generate(n, difficulty, seed, &w, out, grade);
    } else {
        if (n < NQ_PUZZLE_QUEENS_GEN_N_MIN || n > NQ_PUZZLE_QUEENS_GEN_N_MAX) return NQ_E_RANGE;
#ifdef NQ_PUZZLE_QUEENS_KIND
        rc = nq__puzzle_queens_generate(n, difficulty, seed, &w, out, grade);
#endif
    }
    return rc == NQ_E_BUDGET ? NQ_E_PUZZLE_UNAVAILABLE : rc;
}

/* The default offer, per kind and difficulty: the smallest and largest n (bench_puzzle's figures in
 * docs/puzzles.md). Queens: no puzzle exists for medium below 8, hard below 5, expert below 6.
 * Regions: every difficulty up to n = 16, the largest size whose generation meets the time goal. */
static const int offer[NQ_PUZZLE_KIND_COUNT][NQ_PUZZLE_DIFFICULTY_COUNT][2] = {
    {{4, 32}, {8, 32}, {5, 32}, {6, 32}},
    {{5, 16}, {5, 16}, {5, 16}, {5, 16}},
};

bool nq_puzzle_offered(nq_puzzle_kind kind, int n, nq_puzzle_difficulty difficulty)
{
    if ((unsigned)kind >= NQ_PUZZLE_KIND_COUNT || (unsigned)difficulty >= NQ_PUZZLE_DIFFICULTY_COUNT) return false;
    return n >= offer[kind][difficulty][0] && n <= offer[kind][difficulty][1];
}

/* ---- daily seeds ------------------------------------------------------------------------------- */

/* The value of the `digits` decimal digits at s, or -1 if one is not a digit. */
static int digits_value(const char *s, int digits)
{
    int v = 0;
    for (int i = 0; i < digits; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

nq_err nq_puzzle_date_seed(const char *s, size_t len, uint64_t *seed)
{
    if (s == NULL || seed == NULL) return NQ_E_ARG;
    if (len != 10 || s[4] != '-' || s[7] != '-') return NQ_E_PARAM_INVALID;
    const int y = digits_value(s, 4), m = digits_value(s + 5, 2), d = digits_value(s + 8, 2);
    if (y < 2000 || m < 1 || m > 12 || d < 1) return NQ_E_PARAM_INVALID;
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (d > days[m - 1] + (m == 2 && leap ? 1 : 0)) return NQ_E_PARAM_INVALID;
    *seed = (uint64_t)y * 10000u + (uint64_t)m * 100u + (uint64_t)d;
    return NQ_OK;
}

/* ---- sentences --------------------------------------------------------------------------------- */

/* A growing sentence: appends stop at the cap, the length keeps counting. */
typedef struct text {
    char *buf;  /* the output */
    size_t cap; /* its size, >= 1 */
    size_t len; /* characters written or wanted */
} text;

static void put(text *t, const char *s)
{
    for (; *s != '\0'; s++, t->len++)
        if (t->len + 1 < t->cap) t->buf[t->len] = *s;
}

static void put_int(text *t, int v)
{
    char num[16];
    snprintf(num, sizeof num, "%d", v);
    put(t, num);
}

static void put_unit(text *t, nq__puzzle_unit_type type, int index)
{
    if (type == NQ__UNIT_REGION) {
        const char label[2] = {nq_puzzle_region_label(index), '\0'};
        put(t, "region ");
        put(t, label);
        return;
    }
    put(t, type == NQ__UNIT_ROW ? "row " : "column ");
    put_int(t, index + 1);
}

/* "rows 2 and 4", "columns 1, 3 and 6", "regions A and C", "row 5". */
static void put_set(text *t, nq__puzzle_unit_type type, uint64_t set)
{
    static const char *const plural[3] = {"rows ", "columns ", "regions "};
    const int count = __builtin_popcountll(set);
    if (count == 1) {
        put_unit(t, type, __builtin_ctzll(set));
        return;
    }
    put(t, plural[type]);
    for (int i = 0; set != 0; set &= set - 1, i++) {
        if (i > 0) put(t, i == count - 1 ? " and " : ", ");
        const int index = __builtin_ctzll(set);
        if (type == NQ__UNIT_REGION) {
            const char label[2] = {nq_puzzle_region_label(index), '\0'};
            put(t, label);
        } else {
            put_int(t, index + 1);
        }
    }
}

/* Write one placeholder's value; an unknown one is written as it stands. */
static void put_field(text *t, const char *name, size_t len, const nq__puzzle_why_args *a)
{
#define IS_(s) (len == sizeof(s) - 1 && memcmp(name, s, len) == 0)
    if (IS_("square")) {
        put_unit(t, NQ__UNIT_ROW, a->row);
        put(t, ", ");
        put_unit(t, NQ__UNIT_COL, a->col);
    } else if (IS_("unit")) {
        put_unit(t, a->unit_type, a->unit);
    } else if (IS_("line")) {
        put_unit(t, a->line_type, a->line);
    } else if (IS_("lines")) {
        put_set(t, a->line_type, a->lines);
    } else if (IS_("lines2")) {
        put_set(t, a->lines2_type, a->lines2);
    } else if (IS_("region")) {
        put_unit(t, NQ__UNIT_REGION, a->region);
    } else if (IS_("regions")) {
        put_set(t, NQ__UNIT_REGION, a->regions);
    } else if (IS_("k")) {
        put_int(t, a->k);
    } else {
        put(t, "?");
    }
#undef IS_
}

void nq__puzzle_why(nq_puzzle_rule rule, const nq__puzzle_why_args *a, char *buf, size_t cap)
{
    if (buf == NULL || cap == 0) return;
    text t = {buf, cap, 0};
    const char *s = nq_puzzle_rule_pattern(rule);
    if (s == NULL) s = "";
    bool start = true; /* capitalise the sentence's first letter */
    while (*s != '\0') {
        const char *close = *s == '{' ? strchr(s, '}') : NULL;
        const size_t before = t.len;
        if (close != NULL) {
            put_field(&t, s + 1, (size_t)(close - s - 1), a);
            s = close + 1;
        } else {
            const char one[2] = {*s++, '\0'};
            put(&t, one);
        }
        if (start && before < t.cap - 1 && t.buf[before] >= 'a' && t.buf[before] <= 'z')
            t.buf[before] = (char)(t.buf[before] - 'a' + 'A');
        start = false;
    }
    t.buf[t.len < t.cap ? t.len : t.cap - 1] = '\0';
}
