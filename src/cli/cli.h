/* cli.h - internal to the nqueens command-line tool: its options and its commands.
 *
 * The tool is a thin shell over libnqueens for people, scripts and benchmarks (help.h has the
 * whole usage, docs/cli.md the reference):
 *   nqueens count N [--threads T] [--verbose] [--queens K | --shard I/K]
 *   nqueens count N --sum FILE... [--accept-unchecked]
 *   nqueens solve N [--format board|columns] [--unique] [--limit K] [--offset K | --after CURSOR]
 *                   [--ndjson | --json]
 *   nqueens solution N [--random [--seed S]] [--format columns|board] [--json]
 *   nqueens check N COLUMNS | nqueens check N --queens R:C,... | nqueens check -   [--limit K]
 *   nqueens complete N COLUMNS|--queens R:C,... [--count]
 *   nqueens trace N [--limit L] [--from K]
 *   nqueens puzzle N [--kind K] [--difficulty D] [--seed S | --date YYYY-MM-DD] [--reveal] [--json]
 *   nqueens puzzle solve [FILE] [--limit K] [--reveal]
 *   nqueens help [COMMAND] | nqueens COMMAND --help | nqueens --version
 * Output is JSON on stdout (NDJSON with --ndjson), except that solve, solution and puzzle N print
 * boards to read when stdout is a terminal and --json is not given; diagnostics go to stderr.
 * Exit status: 0 success, 1 failure while running (out of memory, write error), 2 usage error,
 * 130 interrupted (SIGINT, or SIGTERM: count and solution cancel cleanly, say so, then end by that
 * signal itself, so a shell running them in a loop stops too; as PID 1 of a container, where that
 * cannot kill it, they exit 128 + the signal: 130, or 143 for SIGTERM). check: 0 when the placement is a solution (valid and complete), 1 when
 * it is not (its report still printed), 2 for a malformed placement as for any usage error.
 * puzzle: 1 when no puzzle of that kind, size and difficulty is offered, 2 for a malformed puzzle.
 * Single-threaded except for the count and the random solution, which run on helper threads.
 */
#ifndef NQ_CLI_H
#define NQ_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nqueens/json.h"
#include "nqueens/placement.h"
#include "nqueens/puzzle.h"
#include "nqueens/solver.h"

enum { NQ_CLI_EXIT_OK = 0, NQ_CLI_EXIT_FAILURE = 1, NQ_CLI_EXIT_USAGE = 2, NQ_CLI_EXIT_INTERRUPTED = 130 };

typedef enum nq_cli_command {
    NQ_CLI_HELP,     /* --help, help [COMMAND]: print usage, exit 0 */
    NQ_CLI_COUNT,    /* count N */
    NQ_CLI_SOLVE,    /* solve N */
    NQ_CLI_SOLUTION, /* solution N: one solution of any size */
    NQ_CLI_CHECK,    /* check N PLACEMENT: is it a solution, which queens attack */
    NQ_CLI_COMPLETE, /* complete N PLACEMENT: the first solution holding it, a hint */
    NQ_CLI_TRACE,    /* trace N: the textbook search's steps */
    NQ_CLI_PUZZLE,   /* puzzle N: make a puzzle; puzzle solve: count, hint and check one */
    NQ_CLI_VERSION   /* --version: print the version, exit 0 */
} nq_cli_command;

#define NQ_CLI_BOARD_N_MAX 1024       /* solution --format board: beyond this the rows are unreadable */
#define NQ_CLI_CONFLICTS_DEFAULT 1000 /* check: pairs listed without --limit */
#define NQ_CLI_SHARDS_MAX 1000000u    /* count --shard I/K: K at most this (far more than any plan's tasks) */

#define NQ_CLI_PUZZLE_LIMIT_DEFAULT 2    /* puzzle solve: solutions counted without --limit */
#define NQ_CLI_PUZZLE_LIMIT_MAX 1000000u /* puzzle solve: --limit at most this */

typedef enum nq_cli_format {
    NQ_CLI_BOARD,  /* each solution as n strings of '.' and 'Q' */
    NQ_CLI_COLUMNS /* each solution as n column indices */
} nq_cli_format;

typedef struct nq_cli_opts {
    nq_cli_command command;  /* what to do */
    int n;                   /* board size */
    int threads;             /* count: worker threads, 0 = the CPUs this process may use (nq_cpus_available) */
    bool verbose;            /* count: say how many threads on err */
    const char *help_topic;  /* help: the command whose usage to print; NULL: the whole usage */
    nq_cli_format format;    /* solve, solution: how a solution is printed */
    bool has_format;         /* solution: --format given (else a board on a terminal, columns in JSON) */
    bool unique;             /* solve: one solution per symmetry class */
    bool ndjson;             /* solve: one solution per line instead of one JSON document */
    bool has_limit;          /* solve: --limit given */
    uint64_t limit;          /* solve: at most this many solutions (>= 1) */
    uint64_t offset;         /* solve: skip this many first */
    bool has_after;          /* solve: --after given */
    uint8_t after[NQ_N_MAX]; /* solve: the cursor, n columns */
    bool random;             /* solution: --random */
    bool has_seed;           /* solution: --seed given */
    uint64_t seed;           /* solution: the seed */
    const char *placement;   /* check, complete: the COLUMNS argument or the --queens value; NULL: stdin */
    bool queens_form;        /* check, complete: placement is the --queens form */
    bool has_k;              /* count: --queens K given */
    int k;                   /* count: queens to place, 0..n */
    bool count;              /* complete: also count the completions */
    uint64_t from;           /* trace: the first step (has_limit/limit bound the steps) */
    bool has_shard;          /* count: --shard I/K given */
    uint32_t shard;          /* count: I, 0 .. shards - 1 */
    uint32_t shards;         /* count: K, 1 .. NQ_CLI_SHARDS_MAX */
    bool sum;                /* count: --sum, add up the shard files instead of counting */
    char *const *files;      /* count --sum: the shard files ("-": standard input), a slice of argv */
    size_t nfiles;           /* count --sum: how many, >= 1 */
    bool accept_unchecked;   /* count --sum: take shard documents without a check value (older releases') */

    bool puzzle_solve;               /* puzzle: `puzzle solve`, read a puzzle (else make one) */
    const char *puzzle_file;         /* puzzle solve: the JSON file; NULL or "-": standard input */
    nq_puzzle_kind kind;             /* puzzle: --kind */
    nq_puzzle_difficulty difficulty; /* puzzle: --difficulty */
    bool has_date;                   /* puzzle: --date given (has_seed too, seed its YYYYMMDD) */
    char date[11];                   /* puzzle: the --date text, YYYY-MM-DD */
    bool reveal;                     /* puzzle: include the solution */
    bool json;                       /* solve, solution, puzzle: JSON on a terminal too */
} nq_cli_opts;

/* A seed nobody chose, 0..NQ_JSON_INT_MAX (so that a JSON reader holds the seed printed exactly):
 * from the kernel's generator, else the clock and the process id. */
uint64_t nq_cli_pick_seed(void);

/* Parse argv into *opts. On a usage error returns false with a one-line reason (no newline) in
 * why[0..why_cap), NUL-terminated; *opts is then unspecified. Never exits or prints. */
bool nq_cli_parse(int argc, char *const argv[], nq_cli_opts *opts, char *why, size_t why_cap);

/* Run `count` on opts->threads threads (0: nq_cpus_available()): prints {"n":..,"total":..,"unique":..}
 * to out (with --shard: the shard's document, nq_cli_shard_render); with opts->verbose first a line on
 * err saying how many threads; a progress line (progress.h) on err when err is a terminal and the
 * count runs for more than a second. *stop (set by a signal handler) is polled every 50 ms: once
 * non-zero the count is cancelled and NQ_CLI_EXIT_INTERRUPTED returned.
 * Returns an NQ_CLI_EXIT_* status; failures are reported on err. */
int nq_cli_count(const nq_cli_opts *opts, FILE *out, FILE *err, const volatile sig_atomic_t *stop);

/* The tasks of shard `shard` of `shards` over a plan of `tasks` tasks: blocks of
 * B = nq_count_block(tasks, shards) consecutive tasks dealt out in turn, task i belongs to shard
 * (i / B) % shards (see shard.c for why). Marks them in todo[0..tasks) (1: this shard's, 0: not),
 * unless todo is NULL (then only counts them, in time proportional to the shard's blocks), and
 * returns how many there are, which may be 0 (a shard may be empty, and shard >= shards has none).
 * Pure. */
uint32_t nq_cli_shard_tasks(uint32_t tasks, uint32_t shard, uint32_t shards, uint8_t *todo);

/* Count the shard opts->shard of opts->shards of opts->n's plan on opts->threads threads, filling
 * *out (its labels are static strings). Runs on the count's helper thread; ctl as for nq_count.
 * Errors: those of nq_count_plan and nq_count_tasks, NQ_E_NOMEM for the plan's bitmap. */
nq_err nq_cli_shard_count(const nq_cli_opts *opts, nq_count_ctl *ctl, nq_json_shard *out);

/* The release a shard records (the project version this tool was built from). */
const char *nq_cli_release(void);

/* A shard document is nq_json_count_shard's object with one member more, last:
 *   {"n":..,...,"burnside":..,"check":"<8 lower-case hex digits>"}
 * check is the CRC-32 (check_value.h) of the document without that member, i.e. of the bytes
 * nq_json_count_shard writes, so that a digit changed on its way to --sum is found, and the sums
 * stay bound to the shard, plan and tasks they were counted for. */
#define NQ_CLI_CHECK_MEMBER ",\"check\":\""                          /* then the digits and a quote */
#define NQ_CLI_CHECK_LEN (sizeof NQ_CLI_CHECK_MEMBER - 1u + 8u + 1u) /* the member's bytes */
#define NQ_CLI_SHARD_MAX (NQ_JSON_SHARD_MAX + NQ_CLI_CHECK_LEN)      /* most bytes of a shard document */

/* Write s as a shard document (above) into out[0..cap), its length to *len (no NUL, no newline).
 * Errors: nq_json_count_shard's (NQ_CLI_SHARD_MAX always suffices). */
nq_err nq_cli_shard_render(const nq_json_shard *s, char *out, size_t cap, size_t *len);

/* Run `count N --sum FILE...`: reads each shard file (at most one "-", standard input: in), checks
 * each one's check value (one without is refused unless opts->accept_unchecked), that together they
 * are every shard of one cut of n's plan as this tool counts it (same n, plan version, tasks, method,
 * one release, one K, each shard once, each with its share of the tasks) and that they add up to
 * n's known counts (nq_count_known, solver.h), and prints the count exactly as `count N` does. Refuses
 * anything else with a reason on err and NQ_CLI_EXIT_USAGE; an unreadable file or a write error is
 * NQ_CLI_EXIT_FAILURE. */
int nq_cli_sum(const nq_cli_opts *opts, FILE *in, FILE *out, FILE *err);

/* Run `solve`: streams the solutions to out as one JSON document, or NDJSON, or when out is a
 * terminal (without --json or --ndjson) as boards to read. Memory does not grow with the number of
 * solutions. Returns an NQ_CLI_EXIT_* status; failures are reported on err. */
int nq_cli_solve(const nq_cli_opts *opts, FILE *out, FILE *err);

/* Run `solution`: streams {"n":..,"method":..,"seed":..,"solution":[..]} to out, row by row for the
 * construction (O(1) memory), after the search for --random (O(n) memory; *stop polled as for count);
 * when out is a terminal (without --json) a line naming the board, then its rows of '.' and 'Q' (or
 * its columns). n = 2, 3: "solution":null, status 0. Returns an NQ_CLI_EXIT_* status; failures are reported on err. */
int nq_cli_solution(const nq_cli_opts *opts, FILE *out, FILE *err, const volatile sig_atomic_t *stop);

/* Run `check` on opts->placement, or on a JSON placement read from in when it is NULL: prints
 * {"n":..,"queens":..,"valid":..,"complete":..,"conflict_count":..,"conflicts":[..]} to out.
 * Returns 0 for a solution, 1 otherwise (or on failure), 2 for a malformed placement (reported). */
int nq_cli_check(const nq_cli_opts *opts, FILE *in, FILE *out, FILE *err);

/* Run `complete`: prints {"n":..,"solution":[..]|null,"hint":[r,c]|null[,"completions":..]}, as
 * GET /complete answers. Returns an NQ_CLI_EXIT_* status (2 for a placement that does not parse). */
int nq_cli_complete(const nq_cli_opts *opts, FILE *out, FILE *err);

/* Run `trace`: the search's steps as NDJSON, as GET /trace with Accept: application/x-ndjson
 * sends them, from step `from`, at most `limit` of them (all when no limit). */
int nq_cli_trace(const nq_cli_opts *opts, FILE *out, FILE *err);

/* Run `puzzle`: make a puzzle (opts->puzzle_solve false) and print it, as a board when out is a
 * terminal and opts->json is not set, else as GET /puzzle answers; or read a puzzle as JSON from
 * opts->puzzle_file or in (the body POST /puzzle/solve takes) and print what POST /puzzle/solve
 * answers. Returns 0, NQ_CLI_EXIT_FAILURE (no such puzzle is offered; a read or write error) or
 * NQ_CLI_EXIT_USAGE (malformed JSON or puzzle, reported on err). */
int nq_cli_puzzle(const nq_cli_opts *opts, FILE *in, FILE *out, FILE *err);

#endif /* NQ_CLI_H */
