/* puzzle_in.c - a puzzle request from a query or a JSON body (see puzzle_in.h). */
#include "routes/puzzle_in.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/json.h"
#include "nqueens/json_scan.h"

static nq_err fail(nq_puzzle_in_error *e, nq_err err, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fill e; the detail is cut to printable ASCII, since parts of it may come from the request. */
static nq_err fail(nq_puzzle_in_error *e, nq_err err, const char *param, const char *fmt, ...)
{
    e->err = err;
    e->param = param;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    for (char *p = e->detail; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f) *p = '?';
    return err;
}

static nq_err over(nq_puzzle_in_error *e, const char *param, uint64_t limit, const char *what)
{
    e->has_limit = true;
    e->limit = limit;
    return fail(e, NQ_E_LIMIT, param, "%s %" PRIu64 " on this server.", what, limit);
}

void nq_puzzle_limits_of(const nq_config *cfg, nq_puzzle_limits *out)
{
    out->max_n_queens = cfg->max_n_puzzle_queens;
    out->max_n_regions = cfg->max_n_puzzle_regions;
    out->max_n_solve = cfg->max_n_puzzle_solve;
    out->max_limit = cfg->max_puzzle_limit;
}

/* ---- the values, whichever form they come in ------------------------------------------------------ */

static nq_err kind_of(const char *v, size_t len, const char *where, nq_puzzle_kind *out, nq_puzzle_in_error *e)
{
    if (nq_puzzle_kind_parse(v, len, out) == NQ_OK) return NQ_OK;
    return fail(e, NQ_E_PARAM_INVALID, "kind", "%s 'kind' must be 'queens' or 'regions'.", where);
}

static nq_err difficulty_of(const char *v, size_t len, const char *where, nq_puzzle_difficulty *out,
                            nq_puzzle_in_error *e)
{
    if (nq_puzzle_difficulty_parse(v, len, out) == NQ_OK) return NQ_OK;
    return fail(e, NQ_E_PARAM_INVALID, "difficulty", "%s 'difficulty' must be 'easy', 'medium', 'hard' or 'expert'.",
                where);
}

static nq_err generator_of(const char *v, size_t len, const char *where, nq_puzzle_in_error *e)
{
    if (len == strlen(NQ_PUZZLE_GENERATOR) && memcmp(v, NQ_PUZZLE_GENERATOR, len) == 0) return NQ_OK;
    char named[33];
    (void)snprintf(named, sizeof named, "%.*s", (int)(len < 32 ? len : 32), v);
    return fail(e, NQ_E_PUZZLE_UNAVAILABLE, "generator",
                "%s 'generator' names a generator this server does not have ('%s'): it makes puzzles with "
                "generator '%s' only.",
                where, named, NQ_PUZZLE_GENERATOR);
}

static nq_err seed_of(uint64_t seed, const char *where, nq_puzzle_spec *s, nq_puzzle_in_error *e)
{
    if (seed > NQ_PUZZLE_SEED_MAX)
        return fail(e, NQ_E_PARAM_INVALID, "seed", "%s 'seed' must be an integer from 0 to %" PRIu64 " (2^53 - 1).",
                    where, NQ_PUZZLE_SEED_MAX);
    s->has_seed = true;
    s->seed = seed;
    return NQ_OK;
}

static nq_err date_of(const char *v, size_t len, const char *where, nq_puzzle_spec *s, nq_puzzle_in_error *e)
{
    if (len != 10 || nq_puzzle_date_seed(v, len, &s->seed) != NQ_OK)
        return fail(e, NQ_E_PARAM_INVALID, "date",
                    "%s 'date' must be a day written YYYY-MM-DD, from 2000-01-01 to 9999-12-31.", where);
    s->has_seed = s->has_date = true;
    memcpy(s->date, v, 10);
    s->date[10] = '\0';
    return NQ_OK;
}

/* n of a generated puzzle of s->kind: below the kind's least n can never be, above the server's 422. */
static nq_err generated_n(uint64_t n, const char *where, const nq_puzzle_limits *lim, nq_puzzle_spec *s,
                          nq_puzzle_in_error *e)
{
    const bool queens = s->kind == NQ_PUZZLE_QUEENS;
    const int min = queens ? NQ_PUZZLE_QUEENS_GEN_N_MIN : NQ_PUZZLE_REGIONS_GEN_N_MIN;
    const int max = queens ? lim->max_n_queens : lim->max_n_regions;
    if (n < (uint64_t)min)
        return fail(e, NQ_E_PARAM_INVALID, "n",
                    "%s 'n' must be at least %d for a %s puzzle (at most %d on this server).", where, min,
                    nq_puzzle_kind_name(s->kind), max);
    if (n > (uint64_t)max) {
        char what[96];
        (void)snprintf(what, sizeof what, "%s 'n' of a %s puzzle must be between %d and", where,
                       nq_puzzle_kind_name(s->kind), min);
        return over(e, "n", (uint64_t)max, what);
    }
    s->n = (int)n;
    return NQ_OK;
}

/* A generated puzzle of a combination the project does not offer (nq_puzzle_offered: none exists, or
 * none is found fast enough) is refused before any work. */
static nq_err offered(const nq_puzzle_spec *s, nq_puzzle_in_error *e)
{
    if (nq_puzzle_offered(s->kind, s->n, s->difficulty)) return NQ_OK;
    return fail(e, NQ_E_PUZZLE_UNAVAILABLE, NULL,
                "This server offers no %s %s puzzle of n = %d: ask for another size or difficulty (the "
                "documentation lists the combinations offered).",
                nq_puzzle_difficulty_name(s->difficulty), nq_puzzle_kind_name(s->kind), s->n);
}

static nq_err limit_of(uint64_t limit, const char *where, const nq_puzzle_limits *lim, nq_puzzle_ask *a,
                       nq_puzzle_in_error *e)
{
    if (limit < 2)
        return fail(e, NQ_E_PARAM_INVALID, "limit",
                    "%s 'limit' must be an integer from 2 (enough to tell a unique puzzle) to %" PRIu64 ".", where,
                    lim->max_limit);
    if (limit > lim->max_limit) {
        char what[64];
        (void)snprintf(what, sizeof what, "%s 'limit' must be between 2 and", where);
        return over(e, "limit", lim->max_limit, what);
    }
    a->limit = limit;
    return NQ_OK;
}

/* Put a queen or a mark of the player on (row, col); param names the list, i the entry. */
static nq_err square_of(nq_puzzle_ask *a, uint64_t row, uint64_t col, bool mark, const char *param, size_t i,
                        nq_puzzle_in_error *e)
{
    const int n = a->spec.n;
    if (row >= (uint64_t)n || col >= (uint64_t)n)
        return fail(e, NQ_E_PLACEMENT, param, "'%s': entry %zu is off the board (rows and columns are 0 to %d).", param,
                    i, n - 1);
    const uint64_t bit = UINT64_C(1) << col;
    if ((a->pos.queens[row] | a->pos.marks[row]) & bit) {
        const bool twice = ((mark ? a->pos.marks[row] : a->pos.queens[row]) & bit) != 0;
        return fail(e, NQ_E_PLACEMENT, param,
                    twice ? "'%s': entry %zu gives square %" PRIu64 ":%" PRIu64 " again; give each square once."
                          : "'%s': entry %zu puts a mark on square %" PRIu64 ":%" PRIu64
                            ", which holds a queen; a square is a queen or a mark, not both.",
                    param, i, row, col);
    }
    (void)nq_puzzle_position_set(&a->pos, n, (int)row, (int)col, mark);
    return NQ_OK;
}

/* The problem of a malformed map or clue list, named after its member or parameter. */
static nq_err puzzle_failed(nq_puzzle_in_error *e, const char *param, const nq_puzzle_error *pe)
{
    char why[200];
    (void)nq_puzzle_error_format(pe, why, sizeof why);
    return fail(e, NQ_E_PUZZLE_INVALID, param, "'%s': %s.", param, why);
}

/* ---- the query ------------------------------------------------------------------------------------ */

nq_err nq_puzzle_in_query(const nq_query *q, const nq_puzzle_limits *lim, bool need_seed, nq_puzzle_spec *s,
                          nq_puzzle_in_error *e)
{
    memset(e, 0, sizeof *e);
    memset(s, 0, sizeof *s);
    s->generated = true;
    s->kind = NQ_PUZZLE_QUEENS;
    s->difficulty = NQ_PUZZLE_EASY;
    const char *where = "Parameter";
    if ((q->present & NQ_QK_KIND) && kind_of(q->kind, strlen(q->kind), where, &s->kind, e) != NQ_OK) return e->err;
    if (!(q->present & NQ_QK_N)) return fail(e, NQ_E_PARAM_MISSING, "n", "Parameter 'n' is required.");
    if (generated_n(q->n, where, lim, s, e) != NQ_OK) return e->err;
    if ((q->present & NQ_QK_DIFFICULTY) &&
        difficulty_of(q->difficulty, strlen(q->difficulty), where, &s->difficulty, e) != NQ_OK)
        return e->err;
    if ((q->present & NQ_QK_SEED) && (q->present & NQ_QK_DATE))
        return fail(e, NQ_E_PARAM_CONFLICT, "date",
                    "Parameters 'seed' and 'date' exclude each other: a date is the seed of its daily puzzle.");
    if ((q->present & NQ_QK_SEED) && seed_of(q->seed, where, s, e) != NQ_OK) return e->err;
    if ((q->present & NQ_QK_DATE) && date_of(q->date, strlen(q->date), where, s, e) != NQ_OK) return e->err;
    if (need_seed && !s->has_seed)
        return fail(e, NQ_E_PARAM_MISSING, "seed",
                    "Parameter 'seed' or 'date' is required: they name the generated puzzle to solve.");
    if ((q->present & NQ_QK_GENERATOR) && generator_of(q->generator, strlen(q->generator), where, e) != NQ_OK)
        return e->err;
    return offered(s, e);
}

/* The squares of a raw "r:c,..." value into a's position. */
static nq_err squares_query(const char *raw, size_t len, bool mark, nq_puzzle_ask *a, nq_puzzle_in_error *e)
{
    const char *param = mark ? "marks" : "queens";
    char *text = NULL;
    size_t tlen = 0;
    nq_query_error qe;
    nq_err rc = nq_query_decode(raw, len, param, &text, &tlen, &qe);
    if (rc != NQ_OK) return fail(e, rc, param, "%s", rc == NQ_E_NOMEM ? "Out of memory." : qe.detail);
    nq_placement *pl = NULL;
    nq_placement_error pe;
    rc = nq_placement_parse_queens((uint32_t)a->spec.n, text, tlen, &pl, &pe);
    free(text);
    if (rc == NQ_E_PLACEMENT) {
        char why[160];
        (void)nq_placement_error_describe(&pe, why, sizeof why);
        return fail(e, NQ_E_PLACEMENT, param, "Parameter '%s': %s.", param, why);
    }
    if (rc != NQ_OK) return fail(e, rc, param, "Parameter '%s' could not be read.", param);
    const nq_square *sq = nq_placement_queens(pl);
    for (size_t i = 0; rc == NQ_OK && i < nq_placement_count(pl); i++)
        rc = square_of(a, sq[i].row, sq[i].col, mark, param, i, e);
    nq_placement_destroy(pl);
    return rc;
}

nq_err nq_puzzle_in_solve_query(const nq_query *q, const nq_puzzle_limits *lim, nq_puzzle_ask *a, nq_puzzle_in_error *e)
{
    memset(a, 0, sizeof *a);
    a->limit = 2;
    a->reveal = q->reveal;
    if (nq_puzzle_in_query(q, lim, true, &a->spec, e) != NQ_OK) return e->err;
    if ((q->present & NQ_QK_LIMIT) && limit_of(q->limit, "Parameter", lim, a, e) != NQ_OK) return e->err;
    if ((q->present & NQ_QK_QUEENS) && squares_query(q->placement, q->placement_len, false, a, e) != NQ_OK)
        return e->err;
    if ((q->present & NQ_QK_MARKS) && squares_query(q->marks, q->marks_len, true, a, e) != NQ_OK) return e->err;
    return NQ_OK;
}

/* ---- the body: a strict look at the text before cJSON reads it ----------------------------------- */

static bool json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* NQ_OK, or the first fault cJSON would let through or recurse into, with *e filled. */
static nq_err scan(const char *text, size_t len, nq_puzzle_in_error *e)
{
    size_t i = 0;
    switch (nq_json_scan(text, len, NQ_PUZZLE_IN_DEPTH_MAX, &i)) {
    case NQ_JSON_FAULT_NONE: return NQ_OK;
    case NQ_JSON_FAULT_STRING_CONTROL:
        return fail(e, NQ_E_BAD_REQUEST, NULL, "Not valid JSON: a control character in a string (byte %zu).", i);
    case NQ_JSON_FAULT_ESCAPE:
    case NQ_JSON_FAULT_NUL:
        return fail(e, NQ_E_BAD_REQUEST, NULL, "Not valid JSON: a bad escape, or \\u0000, in a string (byte %zu).", i);
    case NQ_JSON_FAULT_CONTROL:
        return fail(e, NQ_E_BAD_REQUEST, NULL, "Not valid JSON: a control character (byte %zu).", i);
    case NQ_JSON_FAULT_NUMBER:
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "Not a JSON number (byte %zu): no leading zero, and a digit after '-', '.' and 'e'.", i);
    case NQ_JSON_FAULT_DEEP:
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "Nested deeper than %d levels (at byte %zu): a puzzle is an object holding lists of "
                    "strings or of [row, column] pairs.",
                    NQ_PUZZLE_IN_DEPTH_MAX, i);
    }
    return fail(e, NQ_E_BAD_REQUEST, NULL, "Not valid JSON (byte %zu).", i);
}

/* ---- the body: its members ------------------------------------------------------------------------ */

/* The members a body may hold, by name; each a constant string for errors. */
enum {
    M_KIND,
    M_N,
    M_REGIONS,
    M_CLUES,
    M_DIFFICULTY,
    M_SEED,
    M_DATE,
    M_GENERATOR,
    M_QUEENS,
    M_MARKS,
    M_LIMIT,
    M_REVEAL,
    M_COUNT
};
static const char *const member_names[M_COUNT] = {"kind", "n",         "regions", "clues", "difficulty", "seed",
                                                  "date", "generator", "queens",  "marks", "limit",      "reveal"};

/* A JSON number that is a whole number from 0 on, into *out (UINT64_MAX past NQ_JSON_INT_MAX). */
static bool json_uint(const cJSON *v, uint64_t *out)
{
    return v && cJSON_IsNumber(v) && nq_json_uint(v->valuedouble, out);
}

/* The members of the top-level object into m[], none unknown or twice. */
static nq_err members(const cJSON *root, const cJSON *m[M_COUNT], nq_puzzle_in_error *e)
{
    if (!cJSON_IsObject(root))
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "A puzzle is a JSON object: {\"kind\":\"queens\",\"n\":8,\"clues\":[[0,3]]}.");
    for (const cJSON *v = root->child; v; v = v->next) {
        int k = 0;
        while (k < M_COUNT && strcmp(v->string, member_names[k]) != 0) k++;
        if (k == M_COUNT)
            return fail(e, NQ_E_BAD_REQUEST, NULL,
                        "Unknown member '%.40s': a puzzle holds kind, n, regions or clues (or difficulty with seed "
                        "or date), generator, queens, marks, limit and reveal.",
                        v->string);
        if (m[k])
            return fail(e, NQ_E_BAD_REQUEST, member_names[k], "Member '%s' is given twice: give it once.",
                        member_names[k]);
        m[k] = v;
    }
    return NQ_OK;
}

/* A string member's text, or a 400 naming it. */
static nq_err string_member(const cJSON *v, int k, const char **out, size_t *len, nq_puzzle_in_error *e)
{
    if (!cJSON_IsString(v))
        return fail(e, NQ_E_BAD_REQUEST, member_names[k], "Member '%s' must be a string.", member_names[k]);
    *out = v->valuestring;
    *len = strlen(v->valuestring);
    return NQ_OK;
}

/* Entry i of a list of squares: a pair of integers [row, column]. */
static nq_err pair_of(const cJSON *v, const char *param, size_t i, uint64_t *row, uint64_t *col, nq_puzzle_in_error *e)
{
    const cJSON *r = cJSON_IsArray(v) ? v->child : NULL, *c = r ? r->next : NULL;
    if (!r || !c || c->next || !json_uint(r, row) || !json_uint(c, col))
        return fail(e, NQ_E_BAD_REQUEST, param, "Member '%s': entry %zu must be a pair of integers [row, column].",
                    param, i);
    return NQ_OK;
}

/* The player's queens or marks. */
static nq_err squares_json(const cJSON *list, bool mark, nq_puzzle_ask *a, nq_puzzle_in_error *e)
{
    const char *param = mark ? "marks" : "queens";
    if (!cJSON_IsArray(list))
        return fail(e, NQ_E_BAD_REQUEST, param, "Member '%s' must be a list of [row, column] pairs.", param);
    size_t i = 0;
    for (const cJSON *v = list->child; v; v = v->next, i++) {
        uint64_t row = 0, col = 0;
        if (pair_of(v, param, i, &row, &col, e) != NQ_OK || square_of(a, row, col, mark, param, i, e) != NQ_OK)
            return e->err;
    }
    return NQ_OK;
}

/* The clues of a given queens puzzle. */
static nq_err clues_json(const cJSON *list, nq_puzzle_spec *s, nq_puzzle_in_error *e)
{
    if (!cJSON_IsArray(list))
        return fail(e, NQ_E_BAD_REQUEST, "clues", "Member 'clues' must be a list of [row, column] pairs.");
    const size_t count = (size_t)cJSON_GetArraySize(list);
    if (count > (size_t)s->n * (size_t)s->n)
        return fail(e, NQ_E_PUZZLE_INVALID, "clues", "'clues': %zu clues do not fit a board of n = %d.", count, s->n);
    nq_square *sq = count ? malloc(count * sizeof *sq) : NULL;
    if (count && !sq) return fail(e, NQ_E_NOMEM, NULL, "Out of memory.");
    size_t i = 0;
    nq_err rc = NQ_OK;
    for (const cJSON *v = list->child; v && i < count && rc == NQ_OK; v = v->next, i++) {
        uint64_t row = 0, col = 0;
        rc = pair_of(v, "clues", i, &row, &col, e);
        /* Off the board: the library says so (CLUE_RANGE); saturate so nothing wraps on the way. */
        sq[i].row = row > UINT32_MAX ? UINT32_MAX : (uint32_t)row;
        sq[i].col = col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
    }
    nq_puzzle_error pe;
    if (rc == NQ_OK && nq_puzzle_init_queens(&s->given, s->n, sq, count, &pe) != NQ_OK)
        rc = puzzle_failed(e, "clues", &pe);
    free(sq);
    return rc;
}

/* The rows of a given regions puzzle. */
static nq_err regions_json(const cJSON *list, nq_puzzle_spec *s, nq_puzzle_in_error *e)
{
    if (!cJSON_IsArray(list))
        return fail(e, NQ_E_BAD_REQUEST, "regions", "Member 'regions' must be a list of n strings, one per row.");
    const size_t count = (size_t)cJSON_GetArraySize(list);
    const char **rows = count ? malloc(count * sizeof *rows) : NULL;
    if (count && !rows) return fail(e, NQ_E_NOMEM, NULL, "Out of memory.");
    size_t i = 0;
    nq_err rc = NQ_OK;
    for (const cJSON *v = list->child; v && i < count && rc == NQ_OK; v = v->next, i++) {
        if (!cJSON_IsString(v))
            rc = fail(e, NQ_E_BAD_REQUEST, "regions", "Member 'regions': entry %zu must be a string of labels.", i);
        else
            rows[i] = v->valuestring;
    }
    nq_puzzle_error pe;
    if (rc == NQ_OK && nq_puzzle_init_regions(&s->given, s->n, rows, NULL, count, &pe) != NQ_OK)
        rc = puzzle_failed(e, "regions", &pe);
    free(rows);
    return rc;
}

/* A given puzzle: its map or its clues, and nothing of a generated one. */
static nq_err given_json(const cJSON *m[M_COUNT], const nq_puzzle_limits *lim, uint64_t n, nq_puzzle_spec *s,
                         nq_puzzle_in_error *e)
{
    static const int generated_only[] = {M_DIFFICULTY, M_SEED, M_DATE};
    for (size_t i = 0; i < sizeof generated_only / sizeof generated_only[0]; i++)
        if (m[generated_only[i]])
            return fail(e, NQ_E_PARAM_CONFLICT, member_names[generated_only[i]],
                        "Member '%s' names a generated puzzle, but this body gives its puzzle ('regions' or 'clues'): "
                        "give one or the other.",
                        member_names[generated_only[i]]);
    if (n == 0) return fail(e, NQ_E_PARAM_INVALID, "n", "Member 'n' must be an integer, at least 1.");
    if (n > (uint64_t)lim->max_n_solve)
        return over(e, "n", (uint64_t)lim->max_n_solve, "Member 'n' must be between 1 and");
    s->n = (int)n;
    const bool regions = s->kind == NQ_PUZZLE_REGIONS;
    const cJSON *map = m[M_REGIONS] && !cJSON_IsNull(m[M_REGIONS]) ? m[M_REGIONS] : NULL;
    if (regions) {
        if (m[M_CLUES] && !(cJSON_IsArray(m[M_CLUES]) && cJSON_GetArraySize(m[M_CLUES]) == 0))
            return fail(e, NQ_E_BAD_REQUEST, "clues",
                        "A regions puzzle has no clues: its 'clues' must be [] or absent.");
        if (!map)
            return fail(e, NQ_E_PARAM_MISSING, "regions", "A regions puzzle needs 'regions', its n rows of labels.");
        return regions_json(map, s, e);
    }
    if (map)
        return fail(e, NQ_E_BAD_REQUEST, "regions",
                    "A queens puzzle (the default kind) has no regions: give \"kind\":\"regions\", or no 'regions'.");
    return clues_json(m[M_CLUES], s, e);
}

/* A generated puzzle: kind, n, difficulty and seed or date. */
static nq_err generated_json(const cJSON *m[M_COUNT], const nq_puzzle_limits *lim, uint64_t n, nq_puzzle_spec *s,
                             nq_puzzle_in_error *e)
{
    const char *where = "Member", *v = NULL;
    size_t len = 0;
    s->generated = true;
    if (generated_n(n, where, lim, s, e) != NQ_OK) return e->err;
    if (m[M_DIFFICULTY] && (string_member(m[M_DIFFICULTY], M_DIFFICULTY, &v, &len, e) != NQ_OK ||
                            difficulty_of(v, len, where, &s->difficulty, e) != NQ_OK))
        return e->err;
    if (m[M_SEED] && m[M_DATE])
        return fail(e, NQ_E_PARAM_CONFLICT, "date",
                    "Members 'seed' and 'date' exclude each other: a date is the seed of its daily puzzle.");
    uint64_t seed = 0;
    if (m[M_SEED] && !json_uint(m[M_SEED], &seed))
        return fail(e, NQ_E_PARAM_INVALID, "seed", "Member 'seed' must be an integer from 0 to %" PRIu64 " (2^53 - 1).",
                    NQ_PUZZLE_SEED_MAX);
    if (m[M_SEED] && seed_of(seed, where, s, e) != NQ_OK) return e->err;
    if (m[M_DATE] && (string_member(m[M_DATE], M_DATE, &v, &len, e) != NQ_OK || date_of(v, len, where, s, e) != NQ_OK))
        return e->err;
    if (!s->has_seed)
        return fail(e, NQ_E_PARAM_MISSING, "seed",
                    "The body names no puzzle: give it ('regions' or 'clues'), or the 'seed' or 'date' of a "
                    "generated one.");
    return offered(s, e);
}

/* The position, limit, reveal and generator: the same for both ways of naming the puzzle. */
static nq_err extras_json(const cJSON *m[M_COUNT], const nq_puzzle_limits *lim, nq_puzzle_ask *a, nq_puzzle_in_error *e)
{
    const char *v = NULL;
    size_t len = 0;
    if (m[M_GENERATOR] && (string_member(m[M_GENERATOR], M_GENERATOR, &v, &len, e) != NQ_OK ||
                           generator_of(v, len, "Member", e) != NQ_OK))
        return e->err;
    uint64_t limit = 0;
    if (m[M_LIMIT] && !json_uint(m[M_LIMIT], &limit))
        return fail(e, NQ_E_PARAM_INVALID, "limit", "Member 'limit' must be an integer from 2 to %" PRIu64 ".",
                    lim->max_limit);
    if (m[M_LIMIT] && limit_of(limit, "Member", lim, a, e) != NQ_OK) return e->err;
    if (m[M_REVEAL] && !cJSON_IsBool(m[M_REVEAL]))
        return fail(e, NQ_E_BAD_REQUEST, "reveal", "Member 'reveal' must be true or false.");
    a->reveal = m[M_REVEAL] && cJSON_IsTrue(m[M_REVEAL]);
    if (m[M_QUEENS] && squares_json(m[M_QUEENS], false, a, e) != NQ_OK) return e->err;
    if (m[M_MARKS] && squares_json(m[M_MARKS], true, a, e) != NQ_OK) return e->err;
    return NQ_OK;
}

static nq_err build(const cJSON *root, const nq_puzzle_limits *lim, nq_puzzle_ask *a, nq_puzzle_in_error *e)
{
    const cJSON *m[M_COUNT] = {NULL};
    if (members(root, m, e) != NQ_OK) return e->err;
    nq_puzzle_spec *s = &a->spec;
    const char *v = NULL;
    size_t len = 0;
    if (m[M_KIND] &&
        (string_member(m[M_KIND], M_KIND, &v, &len, e) != NQ_OK || kind_of(v, len, "Member", &s->kind, e) != NQ_OK))
        return e->err;
    if (!m[M_N]) return fail(e, NQ_E_PARAM_MISSING, "n", "Member 'n' is required.");
    uint64_t n = 0;
    if (!json_uint(m[M_N], &n)) return fail(e, NQ_E_PARAM_INVALID, "n", "Member 'n' must be an integer, at least 1.");
    const bool given = (m[M_REGIONS] && !cJSON_IsNull(m[M_REGIONS])) || m[M_CLUES];
    const nq_err rc = given ? given_json(m, lim, n, s, e) : generated_json(m, lim, n, s, e);
    return rc != NQ_OK ? rc : extras_json(m, lim, a, e);
}

nq_err nq_puzzle_in_json(const char *body, size_t len, const nq_puzzle_limits *lim, nq_puzzle_ask *a,
                         nq_puzzle_in_error *e)
{
    memset(e, 0, sizeof *e);
    memset(a, 0, sizeof *a);
    a->limit = 2;
    a->spec.kind = NQ_PUZZLE_QUEENS;
    a->spec.difficulty = NQ_PUZZLE_EASY;
    size_t blank = 0;
    while (body && blank < len && json_space(body[blank])) blank++;
    if (!body || blank == len)
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "The body is empty: a puzzle is one JSON object, {\"kind\":\"queens\",\"n\":8,\"clues\":[...]}.");
    if (scan(body, len, e) != NQ_OK) return e->err;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, false);
    if (!root)
        return fail(e, NQ_E_BAD_REQUEST, NULL, "Not valid JSON (near byte %zu).",
                    end && end >= body ? (size_t)(end - body) : 0);
    const char *p = end;
    while (p < body + len && json_space(*p)) p++;
    const nq_err rc = p < body + len
                          ? fail(e, NQ_E_BAD_REQUEST, NULL, "More than one JSON value: a puzzle is one object.")
                          : build(root, lim, a, e);
    cJSON_Delete(root);
    return rc;
}

/* ---- canonical text ------------------------------------------------------------------------------- */

/* A bounded writer: appends stop (and *ok turns false) when the text would not fit. */
typedef struct text {
    char *buf;  /* the text */
    size_t cap; /* its capacity */
    size_t len; /* used, without the NUL */
    bool ok;    /* everything fitted */
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(text *t, const char *fmt, ...)
{
    if (!t->ok) return;
    va_list ap;
    va_start(ap, fmt);
    const int w = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= t->cap - t->len) {
        t->ok = false;
        return;
    }
    t->len += (size_t)w;
}

/* "r:c,r:c" of the squares set in masks, row-major; nothing when there are none. */
static void put_squares(text *t, const uint64_t *masks, int n)
{
    bool first = true;
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            if (masks[r] & (UINT64_C(1) << c)) {
                put(t, "%s%d:%d", first ? "" : ",", r, c);
                first = false;
            }
}

char *nq_puzzle_in_canonical(const nq_puzzle_spec *s, const nq_puzzle_ask *ask)
{
    const size_t n = (size_t)s->n;
    const size_t cap = 256 + n * (n + 1) + 16 * n * n + 8 * n; /* labels; queens and marks, "rr:cc," */
    text t = {malloc(cap), cap, 0, true};
    if (!t.buf) return NULL;
    t.buf[0] = '\0';
    put(&t, "kind=%s&n=%d", nq_puzzle_kind_name(s->kind), s->n);
    if (s->generated) {
        put(&t, "&difficulty=%s", nq_puzzle_difficulty_name(s->difficulty));
        if (s->has_date)
            put(&t, "&date=%s", s->date);
        else
            put(&t, "&seed=%" PRIu64, s->seed);
    } else if (s->kind == NQ_PUZZLE_REGIONS) {
        char row[NQ_PUZZLE_N_MAX + 1];
        for (int r = 0; r < s->n; r++)
            if (nq_puzzle_region_row(&s->given, r, row, sizeof row) == NQ_OK)
                put(&t, "%s%s", r ? "," : "&regions=", row);
    } else {
        put(&t, "&clues=");
        bool first = true;
        for (int r = 0; r < s->n; r++)
            if (s->given.clue[r] != NQ_PUZZLE_NONE) {
                put(&t, "%s%d:%u", first ? "" : ",", r, s->given.clue[r]);
                first = false;
            }
    }
    if (ask) {
        put(&t, "&queens=");
        put_squares(&t, ask->pos.queens, s->n);
        put(&t, "&marks=");
        put_squares(&t, ask->pos.marks, s->n);
        put(&t, "&limit=%" PRIu64 "&reveal=%s", ask->limit, ask->reveal ? "true" : "false");
    }
    if (!t.ok) {
        free(t.buf);
        return NULL;
    }
    return t.buf;
}

void nq_puzzle_in_problem(nq_response *resp, const char *instance, const nq_puzzle_in_error *e)
{
    nq_app_problem(resp, instance, e->err, e->param, e->detail[0] ? e->detail : NULL, e->has_limit, e->limit);
}
