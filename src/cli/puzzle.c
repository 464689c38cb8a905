/* puzzle.c - `nqueens puzzle`: make a puzzle with one solution, or count, hint and check one.
 *
 * `puzzle N` asks the library's generator (puzzle.h) and prints the puzzle: on a terminal as a board
 * to look at, otherwise (or with --json) as the JSON GET /puzzle answers with. `puzzle solve` reads
 * the JSON POST /puzzle/solve takes (from a file or stdin, whole, up to INPUT_CAP) with cJSON and
 * prints the JSON POST /puzzle/solve answers with; what `puzzle --json` prints is such a body too.
 * The searches run without a node budget: the user's own machine, stopped with Ctrl-C.
 * Single-threaded; every buffer is fixed or capped.
 */
#include "cli.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define INPUT_CAP ((size_t)1 << 20) /* bytes of JSON read at most: a 62 x 62 board with every mark is 40 KB */

/* ---- writing ---------------------------------------------------------------------------------- */

/* A JSON string: quotes, backslashes and control characters escaped. */
static void put_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s != '\0'; s++) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* The squares set in masks, row-major: [[r,c],...]. */
static void put_squares(FILE *out, const uint64_t *masks, int n)
{
    bool first = true;
    fputc('[', out);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++)
            if (masks[r] >> c & 1u) {
                fprintf(out, "%s[%d,%d]", first ? "" : ",", r, c);
                first = false;
            }
    fputc(']', out);
}

static void put_columns(FILE *out, const uint8_t *cols, int n)
{
    for (int r = 0; r < n; r++) fprintf(out, "%c%u", r ? ',' : '[', cols[r]);
    fputc(']', out);
}

static void put_grade(FILE *out, const nq_puzzle_grade *g)
{
    fprintf(out, "{\"difficulty\":\"%s\",\"deductions\":%" PRIu32 ",\"hardest_rule\":\"%s\",\"trials\":%" PRIu32 "}",
            nq_puzzle_difficulty_name(g->difficulty), g->deductions, nq_puzzle_rule_name(g->hardest), g->trials);
}

static void put_hint(FILE *out, const nq_puzzle_hint *h, int n)
{
    if (h->op == NQ_PUZZLE_OP_NONE) {
        fputs("null", out);
        return;
    }
    fprintf(out, "{\"op\":\"%s\",\"square\":[%d,%d],\"rule\":\"%s\",\"why\":", nq_puzzle_op_name(h->op), h->row, h->col,
            nq_puzzle_rule_name(h->rule));
    put_string(out, h->why);
    fputs(",\"because\":", out);
    put_squares(out, h->because, n);
    fputc('}', out);
}

/* The clues of p as row masks. */
static void clue_masks(const nq_puzzle *p, uint64_t *masks)
{
    for (int r = 0; r < p->n; r++) masks[r] = p->clue[r] != NQ_PUZZLE_NONE ? UINT64_C(1) << p->clue[r] : 0;
}

/* Flush and report a write error; returns status, or NQ_CLI_EXIT_FAILURE after a write error. */
static int finish(FILE *out, FILE *err, int status)
{
    if (fflush(out) == 0 && !ferror(out)) return status;
    fputs("nqueens: write error on standard output\n", err);
    return NQ_CLI_EXIT_FAILURE;
}

/* ---- puzzle N ---------------------------------------------------------------------------------- */

/* The JSON of GET /puzzle. */
static void write_made(FILE *out, const nq_cli_opts *o, const nq_puzzle *p, const nq_puzzle_grade *g,
                       const uint8_t *solution)
{
    fprintf(out, "{\"kind\":\"%s\",\"n\":%d,\"difficulty\":\"%s\",\"generator\":\"%s\"", nq_puzzle_kind_name(p->kind),
            p->n, nq_puzzle_difficulty_name(o->difficulty), NQ_PUZZLE_GENERATOR);
    if (o->has_date) fprintf(out, ",\"date\":\"%s\"", o->date);
    fprintf(out, ",\"seed\":%" PRIu64 ",\"regions\":", o->seed);
    if (p->kind == NQ_PUZZLE_REGIONS) {
        char row[NQ_PUZZLE_N_MAX + 1];
        for (int r = 0; r < p->n; r++)
            if (nq_puzzle_region_row(p, r, row, sizeof row) == NQ_OK) fprintf(out, "%c\"%s\"", r ? ',' : '[', row);
        fputc(']', out);
    } else {
        fputs("null", out);
    }
    uint64_t clues[NQ_PUZZLE_N_MAX];
    clue_masks(p, clues);
    fputs(",\"clues\":", out);
    put_squares(out, clues, p->n);
    fputs(",\"solution\":", out);
    if (solution != NULL)
        put_columns(out, solution, p->n);
    else
        fputs("null", out);
    fputs(",\"grade\":", out);
    put_grade(out, g);
    fputs("}\n", out);
}

/* The board for a terminal: region letters (or '.' for a queens puzzle), 'Q' on the clues; the
 * solution below with --reveal. */
static void write_board(FILE *out, const nq_cli_opts *o, const nq_puzzle *p, const nq_puzzle_grade *g,
                        const uint8_t *solution)
{
    fprintf(out, "%s puzzle, %d x %d, %s, seed %" PRIu64 " (generator %s)\n", nq_puzzle_kind_name(p->kind), p->n, p->n,
            nq_puzzle_difficulty_name(o->difficulty), o->seed, NQ_PUZZLE_GENERATOR);
    char row[NQ_PUZZLE_N_MAX + 1];
    for (int r = 0; r < p->n; r++) {
        if (p->kind != NQ_PUZZLE_REGIONS || nq_puzzle_region_row(p, r, row, sizeof row) != NQ_OK) {
            memset(row, '.', (size_t)p->n);
            row[p->n] = '\0';
        }
        if (p->clue[r] != NQ_PUZZLE_NONE) row[p->clue[r]] = 'Q';
        fprintf(out, "%s\n", row);
    }
    if (solution != NULL) {
        fputs("solution:\n", out);
        for (int r = 0; r < p->n; r++) {
            memset(row, '.', (size_t)p->n);
            row[solution[r]] = 'Q';
            row[p->n] = '\0';
            fprintf(out, "%s\n", row);
        }
    }
    fprintf(out, "grade: %s, %" PRIu32 " deductions, hardest rule %s, %" PRIu32 " trials\n",
            nq_puzzle_difficulty_name(g->difficulty), g->deductions, nq_puzzle_rule_name(g->hardest), g->trials);
}

static int make(const nq_cli_opts *opts, FILE *out, FILE *err)
{
    nq_cli_opts o = *opts;
    if (!o.has_seed) o.seed = nq_cli_pick_seed();
    nq_puzzle p;
    nq_puzzle_grade g;
    nq_err rc = nq_puzzle_generate(o.kind, o.n, o.difficulty, o.seed, 0, NULL, &p, &g);
    if (rc == NQ_E_PUZZLE_UNAVAILABLE) {
        fprintf(err, "nqueens: no %s %s puzzle of size %d is offered (docs/puzzles.md lists them)\n",
                nq_puzzle_difficulty_name(o.difficulty), nq_puzzle_kind_name(o.kind), o.n);
        return NQ_CLI_EXIT_FAILURE;
    }
    nq_puzzle_count_result sol;
    if (rc == NQ_OK && o.reveal) rc = nq_puzzle_count(&p, NULL, 1, 0, NULL, &sol);
    if (rc != NQ_OK) {
        fprintf(err, "nqueens: puzzle failed: %s\n", nq_err_message(rc));
        return NQ_CLI_EXIT_FAILURE;
    }
    const uint8_t *solution = o.reveal ? sol.cols : NULL;
    if (!o.json && isatty(fileno(out)) == 1)
        write_board(out, &o, &p, &g, solution);
    else
        write_made(out, &o, &p, &g, solution);
    return finish(out, err, NQ_CLI_EXIT_OK);
}

/* ---- puzzle solve: reading ---------------------------------------------------------------------- */

/* All of f, NUL-terminated, into a new buffer; NULL (with *why) on a read error or past INPUT_CAP. */
static char *slurp(FILE *f, size_t *len, const char **why)
{
    char *buf = malloc(INPUT_CAP + 1);
    if (buf == NULL) return *why = "out of memory", NULL;
    const size_t used = fread(buf, 1, INPUT_CAP + 1, f);
    if (ferror(f) || used > INPUT_CAP) {
        *why = ferror(f) ? "cannot read the puzzle" : "the puzzle is larger than 1 MiB";
        free(buf);
        return NULL;
    }
    buf[used] = '\0';
    *len = used;
    return buf;
}

/* What a body asks: the puzzle, the player's position, how far to count. */
typedef struct ask {
    nq_puzzle puzzle;       /* built from the body */
    nq_puzzle_position pos; /* queens and marks */
    uint64_t limit;         /* solutions counted at most */
    bool reveal;            /* include the solution */
} ask;

/* A whole number in lo..hi from a JSON number; false for anything else. */
static bool json_int(const cJSON *v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!cJSON_IsNumber(v)) return false;
    const double d = v->valuedouble;
    if (!(d >= (double)lo && d <= (double)hi) || d != (double)(int64_t)d) return false;
    *out = (int64_t)d;
    return true;
}

/* One square [r, c] on the n x n board. */
static bool json_square(const cJSON *v, int n, int *r, int *c)
{
    int64_t a = 0, b = 0;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 2) return false;
    if (!json_int(cJSON_GetArrayItem(v, 0), 0, n - 1, &a) || !json_int(cJSON_GetArrayItem(v, 1), 0, n - 1, &b))
        return false;
    *r = (int)a, *c = (int)b;
    return true;
}

/* The list `name` of squares (absent or null: none) into masks; false with a reason. */
static bool json_squares(const cJSON *body, const char *name, int n, uint64_t *masks, char *why, size_t cap)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(body, name);
    if (list == NULL || cJSON_IsNull(list)) return true;
    if (!cJSON_IsArray(list)) return snprintf(why, cap, "\"%s\" must be a list of [row, column]", name), false;
    int i = 0;
    for (const cJSON *v = list->child; v != NULL; v = v->next, i++) {
        int r = 0, c = 0;
        if (!json_square(v, n, &r, &c))
            return snprintf(why, cap, "%s[%d] must be [row, column] with both in 0..%d", name, i, n - 1), false;
        masks[r] |= UINT64_C(1) << c;
    }
    return true;
}

/* The clues of a queens body: a list of [row, column]. */
static bool read_clues(const cJSON *body, int n, nq_puzzle *p, char *why, size_t cap)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(body, "clues");
    nq_square clues[NQ_PUZZLE_N_MAX * NQ_PUZZLE_N_MAX];
    size_t count = 0;
    if (list != NULL && !cJSON_IsNull(list)) {
        if (!cJSON_IsArray(list)) return snprintf(why, cap, "\"clues\" must be a list of [row, column]"), false;
        for (const cJSON *v = list->child; v != NULL; v = v->next, count++) {
            int r = 0, c = 0;
            if (count == sizeof clues / sizeof clues[0] || !json_square(v, n, &r, &c))
                return snprintf(why, cap, "clues[%zu] must be [row, column] with both in 0..%d", count, n - 1), false;
            clues[count] = (nq_square){(uint32_t)r, (uint32_t)c};
        }
    }
    nq_puzzle_error e;
    if (nq_puzzle_init_queens(p, n, clues, count, &e) == NQ_OK) return true;
    nq_puzzle_error_format(&e, why, cap);
    return false;
}

/* The region map of a regions body: n strings of labels. */
static bool read_regions(const cJSON *body, int n, nq_puzzle *p, char *why, size_t cap)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(body, "regions");
    if (!cJSON_IsArray(list)) return snprintf(why, cap, "\"regions\" must be a list of %d rows of labels", n), false;
    const char *rows[NQ_PUZZLE_N_MAX + 1];
    size_t count = 0;
    for (const cJSON *v = list->child; v != NULL; v = v->next) {
        if (!cJSON_IsString(v)) return snprintf(why, cap, "regions[%zu] must be a string of labels", count), false;
        if (count <= NQ_PUZZLE_N_MAX) rows[count] = v->valuestring;
        count++;
    }
    nq_puzzle_error e;
    const size_t given = count <= NQ_PUZZLE_N_MAX ? count : NQ_PUZZLE_N_MAX + 1;
    if (nq_puzzle_init_regions(p, n, rows, NULL, given, &e) == NQ_OK) return true;
    nq_puzzle_error_format(&e, why, cap);
    return false;
}

/* A generated puzzle named by kind, n, difficulty and seed or date. *unavailable when the library
 * offers none. */
static bool read_generated(const cJSON *body, nq_puzzle_kind kind, int n, nq_puzzle *p, bool *unavailable, char *why,
                           size_t cap)
{
    const cJSON *d = cJSON_GetObjectItemCaseSensitive(body, "difficulty");
    const cJSON *seed = cJSON_GetObjectItemCaseSensitive(body, "seed");
    const cJSON *date = cJSON_GetObjectItemCaseSensitive(body, "date");
    nq_puzzle_difficulty difficulty = NQ_PUZZLE_EASY;
    if (d != NULL && (!cJSON_IsString(d) ||
                      nq_puzzle_difficulty_parse(d->valuestring, strlen(d->valuestring), &difficulty) != NQ_OK))
        return snprintf(why, cap, "\"difficulty\" must be \"easy\", \"medium\", \"hard\" or \"expert\""), false;
    uint64_t s = 0;
    int64_t v = 0;
    if (seed != NULL && date != NULL) return snprintf(why, cap, "\"seed\" and \"date\" exclude each other"), false;
    if (date != NULL &&
        (!cJSON_IsString(date) || nq_puzzle_date_seed(date->valuestring, strlen(date->valuestring), &s) != NQ_OK))
        return snprintf(why, cap, "\"date\" must be a day from 2000-01-01 to 9999-12-31 as YYYY-MM-DD"), false;
    if (seed != NULL) {
        if (!json_int(seed, 0, (int64_t)NQ_PUZZLE_SEED_MAX, &v))
            return snprintf(why, cap, "\"seed\" must be a whole number from 0 to 2^53 - 1"), false;
        s = (uint64_t)v;
    }
    const nq_err rc = nq_puzzle_generate(kind, n, difficulty, s, 0, NULL, p, NULL);
    if (rc == NQ_OK) return true;
    *unavailable = rc == NQ_E_PUZZLE_UNAVAILABLE || rc == NQ_E_RANGE;
    snprintf(why, cap, "no %s %s puzzle of size %d is offered", nq_puzzle_difficulty_name(difficulty),
             nq_puzzle_kind_name(kind), n);
    return false;
}

/* kind (default queens) and n (1..NQ_PUZZLE_N_MAX) of a body. */
static bool read_kind_n(const cJSON *body, nq_puzzle_kind *kind, int *n, char *why, size_t cap)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(body, "kind");
    *kind = NQ_PUZZLE_QUEENS;
    if (k != NULL &&
        (!cJSON_IsString(k) || nq_puzzle_kind_parse(k->valuestring, strlen(k->valuestring), kind) != NQ_OK))
        return snprintf(why, cap, "\"kind\" must be \"queens\" or \"regions\""), false;
    int64_t v = 0;
    if (!json_int(cJSON_GetObjectItemCaseSensitive(body, "n"), 1, NQ_PUZZLE_N_MAX, &v))
        return snprintf(why, cap, "\"n\" must be a whole number from 1 to %d", NQ_PUZZLE_N_MAX), false;
    *n = (int)v;
    return true;
}

/* The generator, if named, must be this one's; limit and reveal, if given, are taken unless the
 * command line gave them. */
static bool read_extras(const cJSON *body, const nq_cli_opts *o, ask *a, char *why, size_t cap)
{
    const cJSON *gen = cJSON_GetObjectItemCaseSensitive(body, "generator");
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(body, "limit");
    const cJSON *reveal = cJSON_GetObjectItemCaseSensitive(body, "reveal");
    if (gen != NULL && (!cJSON_IsString(gen) || strcmp(gen->valuestring, NQ_PUZZLE_GENERATOR) != 0))
        return snprintf(why, cap, "unknown \"generator\": this one is \"%s\"", NQ_PUZZLE_GENERATOR), false;
    a->limit = o->limit;
    int64_t v = 0;
    if (limit != NULL && !o->has_limit) {
        if (!json_int(limit, 2, NQ_CLI_PUZZLE_LIMIT_MAX, &v))
            return snprintf(why, cap, "\"limit\" must be a whole number from 2 to %u", NQ_CLI_PUZZLE_LIMIT_MAX), false;
        a->limit = (uint64_t)v;
    }
    a->reveal = o->reveal;
    if (reveal != NULL && !o->reveal) {
        if (!cJSON_IsBool(reveal)) return snprintf(why, cap, "\"reveal\" must be true or false"), false;
        a->reveal = cJSON_IsTrue(reveal);
    }
    return true;
}

/* The whole body into *a; false with a reason (and *unavailable for a generated puzzle not offered). */
static bool read_ask(const cJSON *body, const nq_cli_opts *o, ask *a, bool *unavailable, char *why, size_t cap)
{
    nq_puzzle_kind kind = NQ_PUZZLE_QUEENS;
    int n = 0;
    if (!cJSON_IsObject(body)) return snprintf(why, cap, "the puzzle must be a JSON object"), false;
    if (!read_kind_n(body, &kind, &n, why, cap) || !read_extras(body, o, a, why, cap)) return false;
    const bool named = cJSON_GetObjectItemCaseSensitive(body, "seed") != NULL ||
                       cJSON_GetObjectItemCaseSensitive(body, "date") != NULL;
    const cJSON *clues = cJSON_GetObjectItemCaseSensitive(body, "clues");
    const cJSON *regions = cJSON_GetObjectItemCaseSensitive(body, "regions");
    const bool given = clues != NULL || (regions != NULL && !cJSON_IsNull(regions));
    bool ok;
    if (!given && named)
        ok = read_generated(body, kind, n, &a->puzzle, unavailable, why, cap);
    else if (kind == NQ_PUZZLE_QUEENS)
        ok = read_clues(body, n, &a->puzzle, why, cap);
    else
        ok = read_regions(body, n, &a->puzzle, why, cap);
    nq_puzzle_position_clear(&a->pos);
    return ok && json_squares(body, "queens", n, a->pos.queens, why, cap) &&
           json_squares(body, "marks", n, a->pos.marks, why, cap);
}

/* ---- puzzle solve: answering ------------------------------------------------------------------- */

static int answer(const ask *a, FILE *out, FILE *err)
{
    const nq_puzzle *p = &a->puzzle;
    nq_puzzle_count_result count;
    nq_puzzle_position mistakes;
    nq_puzzle_hint hint;
    nq_puzzle_grade grade;
    nq_err rc = nq_puzzle_count(p, &a->pos, a->limit, 0, NULL, &count);
    if (rc == NQ_OK) rc = nq_puzzle_mistakes(p, &a->pos, 0, NULL, &mistakes);
    if (rc == NQ_OK) rc = nq_puzzle_hint_next(p, &a->pos, 0, NULL, &hint);
    nq_puzzle_count_result alone = {0}; /* the puzzle without the player: is it one to grade? */
    if (rc == NQ_OK) rc = nq_puzzle_count(p, NULL, 2, 0, NULL, &alone);
    const bool graded = rc == NQ_OK && alone.solutions == 1;
    if (graded) rc = nq_puzzle_grade_of(p, 0, NULL, &grade);
    if (rc != NQ_OK) {
        fprintf(err, "nqueens: puzzle solve failed: %s\n", nq_err_message(rc));
        return NQ_CLI_EXIT_FAILURE;
    }
    fprintf(out, "{\"kind\":\"%s\",\"n\":%d,\"generator\":\"%s\",\"solutions\":%" PRIu64 ",\"unique\":%s,\"solution\":",
            nq_puzzle_kind_name(p->kind), p->n, NQ_PUZZLE_GENERATOR, count.solutions,
            count.solutions == 1 ? "true" : "false");
    if (a->reveal && count.found)
        put_columns(out, count.cols, p->n);
    else
        fputs("null", out);
    fputs(",\"hint\":", out);
    put_hint(out, &hint, p->n);
    fputs(",\"mistakes\":{\"queens\":", out);
    put_squares(out, mistakes.queens, p->n);
    fputs(",\"marks\":", out);
    put_squares(out, mistakes.marks, p->n);
    fputs("},\"grade\":", out);
    if (graded)
        put_grade(out, &grade);
    else
        fputs("null", out);
    fputs("}\n", out);
    return NQ_CLI_EXIT_OK;
}

/* The body's text from the file named, or from in for NULL or "-"; NULL when reported on err. */
static char *read_input(const nq_cli_opts *o, FILE *in, FILE *err, size_t *len)
{
    const bool std = o->puzzle_file == NULL || strcmp(o->puzzle_file, "-") == 0;
    FILE *f = std ? in : fopen(o->puzzle_file, "rb");
    if (f == NULL) {
        fprintf(err, "nqueens: cannot open '%s'\n", o->puzzle_file);
        return NULL;
    }
    const char *why = NULL;
    char *text = slurp(f, len, &why);
    if (!std) fclose(f);
    if (text == NULL) fprintf(err, "nqueens: %s: %s\n", std ? "stdin" : o->puzzle_file, why);
    return text;
}

static int solve(const nq_cli_opts *o, FILE *in, FILE *out, FILE *err)
{
    size_t len = 0;
    char *text = read_input(o, in, err, &len);
    if (text == NULL) return NQ_CLI_EXIT_FAILURE;
    const char *end = NULL;
    cJSON *body = cJSON_ParseWithLengthOpts(text, len, &end, false);
    while (body != NULL && end < text + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) end++;
    const bool whole = body != NULL && end == text + len; /* one JSON value and nothing after it */
    free(text);
    if (!whole) {
        cJSON_Delete(body);
        fputs("nqueens: the puzzle is not one JSON value\n", err);
        return NQ_CLI_EXIT_USAGE;
    }
    ask a;
    char why[256];
    bool unavailable = false;
    const bool ok = read_ask(body, o, &a, &unavailable, why, sizeof why);
    cJSON_Delete(body);
    if (!ok) {
        fprintf(err, "nqueens: %s\n", why);
        return unavailable ? NQ_CLI_EXIT_FAILURE : NQ_CLI_EXIT_USAGE;
    }
    return finish(out, err, answer(&a, out, err));
}

int nq_cli_puzzle(const nq_cli_opts *opts, FILE *in, FILE *out, FILE *err)
{
    return opts->puzzle_solve ? solve(opts, in, out, err) : make(opts, out, err);
}
