/* help.c - the nqueens tool's help table and its printers (see help.h).
 *
 * The parser's table (args.c) says which options a command takes; this one says what they mean.
 * The CLI's tests check that every option shown for a command is one its parser takes, and the man
 * page's test that the manual lists every option --help shows.
 */
#include "help.h"

#include <string.h>

#define TEXT_COLUMN 15 /* where texts start in --help, after the heads and the option names */

const char nq_cli_help_summary[] = "Solves the N-Queens puzzle: place N queens on an N x N board, no two attacking.";

const char nq_cli_help_output[] = "Output: solve, solution and puzzle print boards to read when standard output\n"
                                  "is a terminal, and JSON when it is not (a pipe, a file) or with --json.\n"
                                  "Everything else prints JSON (NDJSON for solve --ndjson and trace) wherever it\n"
                                  "goes. Diagnostics and the progress line of a long count go to standard error.";

const char nq_cli_help_exit[] = "Exit status: 0 success, 1 failure, 2 usage error, 130 interrupted (143 by SIGTERM).";

const char nq_cli_help_environment[] = "Environment: none is read. No colour is used (NO_COLOR changes nothing).";

static const nq_cli_help_option count_options[] = {
    {"threads", "T",
     "worker threads; 0 (the default): the CPUs this process may use,\n"
     "its affinity mask capped by its cgroup CPU quota (taskset,\n"
     "docker --cpus, a Kubernetes CPU limit)."},
    {"verbose", NULL, "say on standard error how many threads the count is given."},
    {"queens", "K",
     "count the ways to place K < N non-attacking queens instead (one thread);\n"
     "prints {\"n\":N,\"k\":K,\"total\":...,\"unique\":...}. K = N is the plain count."},
    {"shard", "I/K",
     "count only shard I (0..K-1) of K: the plan's tasks i with (i / B) % K == I,\n"
     "in blocks of B = max(1, tasks / (32 K)) consecutive tasks;\n"
     "prints {\"n\":N,\"shard\":I,\"shards\":K,\"block\":B,\"method\":..,\"release\":..,\n"
     "\"plan\":..,\"tasks\":..,\"done\":..,\"total\":..,\"burnside\":..,\"check\":..}."},
    {"sum", "F...",
     "add up the K shard files F (-: standard input, one shard a line), checking\n"
     "each one's check value, that they are all K shards of one N, plan and\n"
     "release, and that they add up to N's known counts; print the count."},
    {"accept-unchecked", NULL, "with --sum: take shards without a check value (older releases')."},
};

static const nq_cli_help_option solve_options[] = {
    {"format", "F",
     "'board' (default): rows of '.' and 'Q'; 'columns': each row's column\n"
     "(on a terminal, one line of columns per solution)."},
    {"unique", NULL, "one solution per symmetry class (the smallest of its 8 images)."},
    {"limit", "K", "at most K solutions."},
    {"offset", "K", "skip the first K solutions."},
    {"after", "C", "start after the cursor C (N columns, e.g. 1,3,0,2), need not be a solution."},
    {"ndjson", NULL, "one solution per line instead of one JSON document, on a terminal too."},
    {"json", NULL, "the JSON document on a terminal too."},
};

static const nq_cli_help_option solution_options[] = {
    {"random", NULL, "a random solution by local search (default: the explicit construction)."},
    {"seed", "S",
     "with --random: the seed, 0..2^53-1; the same N and S give the same board.\n"
     "Without it a seed is chosen and printed."},
    {"format", "F",
     "'columns' (default in JSON): each row's column; 'board': rows of\n"
     "'.' and 'Q' (N <= 1024). On a terminal the default is the board\n"
     "up to N = 1024, its columns beyond."},
    {"json", NULL, "the JSON document on a terminal too."},
};

static const nq_cli_help_option check_options[] = {
    {"queens", "R:C,...", "the placement as squares (any, '' for none) instead of COLUMNS."},
    {"limit", "K", "list at most K attacking pairs (default 1000); the count is always exact."},
};

static const nq_cli_help_option complete_options[] = {
    {"queens", "R:C,...", "the partial board as squares instead of COLUMNS."},
    {"count", NULL, "also count the completions (N = 1..27)."},
};

static const nq_cli_help_option trace_options[] = {
    {"limit", "L", "at most L steps."},
    {"from", "K", "start at step K."},
};

static const nq_cli_help_option puzzle_options[] = {
    {"kind", "K", "queens (default) or regions."},
    {"difficulty", "D", "easy (default), medium, hard or expert: the hardest rule it needs."},
    {"seed", "S",
     "0..2^53-1; the same kind, N, difficulty and S give the same puzzle.\n"
     "Without it (or --date) a seed is chosen and printed."},
    {"date", "DAY", "the daily puzzle of DAY (YYYY-MM-DD): the seed YYYYMMDD."},
    {"reveal", NULL, "include the solution."},
    {"json", NULL, "JSON on a terminal too."},
};

static const nq_cli_help_option puzzle_solve_options[] = {
    {"limit", "K", "count solutions up to K, 2..1000000 (default 2)."},
    {"reveal", NULL, "include the solution."},
};

#define OPTIONS(a) (a), sizeof(a) / sizeof((a)[0])

static const nq_cli_help_section sections[] = {
    {"count", "count N",
     "count N [--threads T] [--verbose] [--queens K | --shard I/K]\n"
     "count N --sum FILE... [--accept-unchecked]",
     "count all solutions (OEIS A000170) and symmetry classes (A002562),\n"
     "N = 1..27; prints {\"n\":N,\"total\":...,\"unique\":...}. On a terminal a\n"
     "count longer than a second shows on standard error the share done,\n"
     "the time taken and an estimate of the time left; Ctrl-C cancels it.",
     OPTIONS(count_options), NULL},
    {"solve", "solve N",
     "solve N [--format board|columns] [--unique] [--limit K]\n"
     "        [--offset K | --after C0,C1,...] [--ndjson | --json]",
     "list the solutions, N = 1..32, in lexicographic order of their columns;\n"
     "on a terminal one board after another and how many; else prints\n"
     "{\"n\":N,\"solutions\":[...],\"next\":CURSOR|null}, where next, when --limit\n"
     "cut the list short, is the cursor to pass to --after.",
     OPTIONS(solve_options), NULL},
    {"solution", "solution N", "solution N [--random [--seed S]] [--format columns|board] [--json]",
     "one solution of any board, N = 1..1000000000: on a terminal the board\n"
     "(its columns beyond N = 1024), else streamed as\n"
     "{\"n\":N,\"method\":...,\"seed\":...,\"solution\":[...]} (null for N = 2, 3).",
     OPTIONS(solution_options), NULL},
    {"check", "check N P", "check N COLUMNS | check N --queens R:C,... | check -   [--limit K]",
     "is the placement P a solution? P is COLUMNS (N entries c0,c1,..., '-' for\n"
     "a row without a queen) or --queens R:C,... (any squares, '' for none);\n"
     "'check -' reads {\"n\":N,\"columns\":[c|null,...]} or\n"
     "{\"n\":N,\"queens\":[[r,c],...]} from stdin. Prints {\"n\":N,\"queens\":..,\n"
     "\"valid\":..,\"complete\":..,\"conflict_count\":..,\"conflicts\":[[[r1,c1],[r2,c2]],...]}.",
     OPTIONS(check_options), "check: 0 when P is a solution, 1 when it is not, 2 when it does not parse."},
    {"complete", "complete N P", "complete N COLUMNS|--queens R:C,... [--count]",
     "the first solution (in the order of solve) holding the queens of the\n"
     "partial board P, N = 1..32: COLUMNS or --queens R:C,... as for check;\n"
     "prints {\"n\":N,\"solution\":[...]|null,\"hint\":[R,C]|null}.",
     OPTIONS(complete_options), NULL},
    {"trace", "trace N", "trace N [--limit L] [--from K]",
     "the steps of the textbook backtracking search as NDJSON, N = 1..32.", OPTIONS(trace_options), NULL},
    {"puzzle", "puzzle N",
     "puzzle N [--kind queens|regions] [--difficulty D] [--seed S | --date YYYY-MM-DD]\n"
     "         [--reveal] [--json]",
     "a puzzle with exactly one solution: 'queens' (the default; N = 4..32) gives\n"
     "some queens, place the rest; 'regions' (N = 5..62) cuts the board into N\n"
     "regions, one queen in each row, column and region, no two touching.\n"
     "On a terminal a board (Q: a given queen; regions: their letters); else, or\n"
     "with --json, {\"kind\":..,\"n\":N,\"difficulty\":..,\"generator\":..,\"seed\":..,\n"
     "\"regions\":[...]|null,\"clues\":[[r,c],...],\"solution\":..,\"grade\":{...}}.",
     OPTIONS(puzzle_options), "puzzle: 1 when no such puzzle is offered, 2 for a malformed puzzle."},
    {"puzzle", "puzzle solve", "puzzle solve [FILE] [--limit K] [--reveal]",
     "read a puzzle as JSON from FILE or stdin: {\"kind\":\"queens\",\"n\":N,\n"
     "\"clues\":[[r,c],...]} or {\"kind\":\"regions\",\"n\":N,\"regions\":[\"AAB...\",...]}\n"
     "(or a generated one's kind, n, difficulty and seed or date; what puzzle\n"
     "--json prints will do), with the player's \"queens\" and \"marks\" if any;\n"
     "prints {\"kind\":..,\"n\":N,\"generator\":..,\"solutions\":..,\"unique\":..,\n"
     "\"solution\":..,\"hint\":{...}|null,\"mistakes\":{\"queens\":[..],\"marks\":[..]},\n"
     "\"grade\":{...}|null}.",
     OPTIONS(puzzle_solve_options), NULL},
    {"help", "help [COMMAND]", "help [COMMAND]",
     "this text, or one command's usage and options (as COMMAND --help\n"
     "prints them).",
     NULL, 0, NULL},
};
#define NSECTIONS (sizeof sections / sizeof sections[0])

const nq_cli_help_section *nq_cli_help_sections(size_t *count)
{
    *count = NSECTIONS;
    return sections;
}

bool nq_cli_help_is_command(const char *name)
{
    if (name == NULL) return false;
    for (size_t i = 0; i < NSECTIONS; i++)
        if (strcmp(sections[i].command, name) == 0) return true;
    return false;
}

/* text with each line after the first indented to TEXT_COLUMN, then a newline. */
static void put_indented(FILE *out, const char *text)
{
    for (const char *p = text; *p != '\0'; p++) {
        fputc(*p, out);
        if (*p == '\n') fprintf(out, "%*s", TEXT_COLUMN, "");
    }
    fputc('\n', out);
}

/* head (already written, len columns) then the text from TEXT_COLUMN, or two spaces further when
 * the head reaches it. */
static void put_after_head(FILE *out, int len, const char *text)
{
    fprintf(out, "%*s", len < TEXT_COLUMN ? TEXT_COLUMN - len : 2, "");
    put_indented(out, text);
}

static void put_section(FILE *out, const nq_cli_help_section *s)
{
    put_after_head(out, fprintf(out, "%s", s->head), s->text);
    for (size_t i = 0; i < s->noptions; i++) {
        const nq_cli_help_option *o = &s->options[i];
        const int len = fprintf(out, "  --%s%s%s", o->name, o->meta != NULL ? " " : "", o->meta != NULL ? o->meta : "");
        put_after_head(out, len, o->text);
    }
}

/* The synopsis lines of the sections of command (every section's when command is NULL): a line of a
 * usage starts a synopsis, a line that starts with a space goes on with the one before. */
static void put_usage(FILE *out, const char *command)
{
    const char *lead = "Usage: ";
    for (size_t i = 0; i < NSECTIONS; i++) {
        if (command != NULL && strcmp(sections[i].command, command) != 0) continue;
        for (const char *line = sections[i].usage; *line != '\0';) {
            const size_t len = strcspn(line, "\n");
            if (line[0] == ' ') {
                fprintf(out, "%*s", TEXT_COLUMN, ""); /* under "Usage: nqueens " */
            } else {
                fprintf(out, "%snqueens ", lead);
                lead = "       ";
            }
            fprintf(out, "%.*s\n", (int)len, line);
            line += len + (line[len] == '\n');
        }
    }
    fprintf(out, "%snqueens --help | --version\n", lead);
}

void nq_cli_usage(FILE *out)
{
    put_usage(out, NULL);
    fprintf(out, "\n%s\n\n", nq_cli_help_summary);
    for (size_t i = 0; i < NSECTIONS; i++) put_section(out, &sections[i]);
    fprintf(out, "\n%s\n\n%s\n", nq_cli_help_output, nq_cli_help_exit);
    for (size_t i = 0; i < NSECTIONS; i++)
        if (sections[i].exits != NULL) fprintf(out, "%s\n", sections[i].exits);
    fprintf(out, "%s\n", nq_cli_help_environment);
}

void nq_cli_help_command(FILE *out, const char *command)
{
    if (command == NULL || strcmp(command, "help") == 0 || !nq_cli_help_is_command(command)) {
        nq_cli_usage(out);
        return;
    }
    put_usage(out, command);
    fputc('\n', out);
    for (size_t i = 0; i < NSECTIONS; i++)
        if (strcmp(sections[i].command, command) == 0) put_section(out, &sections[i]);
    fprintf(out, "\n%s\n", nq_cli_help_exit);
    for (size_t i = 0; i < NSECTIONS; i++)
        if (strcmp(sections[i].command, command) == 0 && sections[i].exits != NULL)
            fprintf(out, "%s\n", sections[i].exits);
}
