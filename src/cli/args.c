/* args.c - the nqueens tool's command line: strict parsing into nq_cli_opts, and the usage text.
 *
 * Options may come before or after the command and its N, as `--name value` or `--name=value`; only
 * --sum's files, which run to the next option, must follow the N they are summed for.
 * Every number is parsed whole (digits only, no sign, no trailing bytes, range-checked); an option
 * that does not apply to the command, or is given twice, is an error rather than silently ignored.
 */
#include "cli.h"

#include "nqueens/parse.h"
#include "nqueens/solution.h"

#include <stdarg.h>
#include <string.h>

typedef enum opt_id {
    OPT_THREADS,
    OPT_FORMAT,
    OPT_UNIQUE,
    OPT_LIMIT,
    OPT_OFFSET,
    OPT_AFTER,
    OPT_NDJSON,
    OPT_RANDOM,
    OPT_SEED,
    OPT_QUEENS,
    OPT_COUNT_FLAG,
    OPT_FROM,
    OPT_SHARD,
    OPT_SUM,
    OPT_ACCEPT_UNCHECKED,
    OPT_KIND,
    OPT_DIFFICULTY,
    OPT_DATE,
    OPT_REVEAL,
    OPT_JSON,
    OPT_VERBOSE
} opt_id;

#define FOR_COUNT (1u << NQ_CLI_COUNT)
#define FOR_SOLVE (1u << NQ_CLI_SOLVE)
#define FOR_SOLUTION (1u << NQ_CLI_SOLUTION)
#define FOR_CHECK (1u << NQ_CLI_CHECK)
#define FOR_COMPLETE (1u << NQ_CLI_COMPLETE)
#define FOR_TRACE (1u << NQ_CLI_TRACE)
#define FOR_PUZZLE (1u << NQ_CLI_PUZZLE)
#define THREADS_MAX 1024 /* more workers than this is a typo, not a machine */

static const struct opt_spec {
    const char *name;  /* without the leading "--" */
    opt_id id;         /* which one */
    bool takes_value;  /* needs an argument */
    unsigned commands; /* FOR_* mask of the commands it applies to */
} opt_specs[] = {
    {"threads", OPT_THREADS, true, FOR_COUNT},
    {"format", OPT_FORMAT, true, FOR_SOLVE | FOR_SOLUTION},
    {"unique", OPT_UNIQUE, false, FOR_SOLVE},
    {"limit", OPT_LIMIT, true, FOR_SOLVE | FOR_CHECK | FOR_TRACE | FOR_PUZZLE}, /* puzzle solve only */
    {"offset", OPT_OFFSET, true, FOR_SOLVE},
    {"after", OPT_AFTER, true, FOR_SOLVE},
    {"ndjson", OPT_NDJSON, false, FOR_SOLVE},
    {"random", OPT_RANDOM, false, FOR_SOLUTION},
    {"seed", OPT_SEED, true, FOR_SOLUTION | FOR_PUZZLE},
    {"queens", OPT_QUEENS, true, FOR_CHECK | FOR_COMPLETE | FOR_COUNT}, /* count: K; else R:C,... */
    {"count", OPT_COUNT_FLAG, false, FOR_COMPLETE},
    {"from", OPT_FROM, true, FOR_TRACE},
    {"shard", OPT_SHARD, true, FOR_COUNT},
    {"sum", OPT_SUM, false, FOR_COUNT},                           /* takes the files after it, see take_files */
    {"accept-unchecked", OPT_ACCEPT_UNCHECKED, false, FOR_COUNT}, /* --sum only */
    {"kind", OPT_KIND, true, FOR_PUZZLE},
    {"difficulty", OPT_DIFFICULTY, true, FOR_PUZZLE},
    {"date", OPT_DATE, true, FOR_PUZZLE},
    {"reveal", OPT_REVEAL, false, FOR_PUZZLE},
    {"json", OPT_JSON, false, FOR_PUZZLE | FOR_SOLVE | FOR_SOLUTION},
    {"verbose", OPT_VERBOSE, false, FOR_COUNT},
};
#define OPT_COUNT (sizeof opt_specs / sizeof opt_specs[0])

/* What the first pass collects; checked against the command once it is known. */
typedef struct parse_state {
    bool help;                     /* -h or --help anywhere */
    bool version;                  /* --version anywhere */
    const char *command;           /* first positional argument */
    const char *n_text;            /* second positional argument */
    const char *extra;             /* third positional argument (check's and complete's COLUMNS) */
    const char *values[OPT_COUNT]; /* each option's value ("" for flags), NULL when absent */
    char *const *files;            /* --sum: the arguments after it that are files, a slice of argv */
    size_t nfiles;                 /* how many */
} parse_state;

/* Formats the reason for a usage error into why; always returns false. */
__attribute__((format(printf, 3, 4))) static bool fail(char *why, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

/* A whole decimal number in 0..max, as nqueens/parse.h reads one (digits only, no sign or spaces). */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    return nq_parse_u64(s, strlen(s), max, out) == NQ_OK;
}

static const struct opt_spec *find_opt(const char *name, size_t len)
{
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (strlen(opt_specs[i].name) == len && strncmp(opt_specs[i].name, name, len) == 0) return &opt_specs[i];
    return NULL;
}

/* Whether arg is an option: "-" (standard input) is not, nor is "-" and a digit ("-5", "-1,3,0,2":
 * a negative N or a placement, refused as such), nor "-," (a placement's empty first row). */
static bool is_option(const char *arg)
{
    return arg[0] == '-' && arg[1] != '\0' && arg[1] != ',' && !(arg[1] >= '0' && arg[1] <= '9');
}

/* --sum FILE...: every argument after it up to the next option is a file; "-" is standard input
 * (a file whose name starts with '-' and a letter is given as ./-name). */
static void take_files(int argc, char *const argv[], int *i, parse_state *st)
{
    st->files = &argv[*i + 1];
    while (*i + 1 < argc && !is_option(argv[*i + 1])) {
        ++*i;
        st->nfiles++;
    }
}

/* One "--name[=value]" at argv[*i]; may consume argv[*i + 1] as the value. */
static bool take_option(int argc, char *const argv[], int *i, parse_state *st, char *why, size_t cap)
{
    const char *arg = argv[*i] + 2;
    const char *eq = strchr(arg, '=');
    const size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
    const struct opt_spec *spec = find_opt(arg, len);
    if (spec == NULL) return fail(why, cap, "unknown option '%s'", argv[*i]);
    if (st->values[spec->id] != NULL) return fail(why, cap, "--%s given twice", spec->name);
    if (!spec->takes_value) {
        if (eq != NULL) return fail(why, cap, "--%s takes no value", spec->name);
        st->values[spec->id] = "";
        if (spec->id == OPT_SUM) take_files(argc, argv, i, st);
    } else if (eq != NULL) {
        st->values[spec->id] = eq + 1;
    } else {
        if (*i + 1 >= argc) return fail(why, cap, "--%s needs a value", spec->name);
        st->values[spec->id] = argv[++*i];
    }
    return true;
}

/* First pass: sort argv into the command, N and the options. */
static bool collect(int argc, char *const argv[], parse_state *st, char *why, size_t cap)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            st->help = true;
        } else if (strcmp(arg, "--version") == 0) {
            st->version = true;
        } else if (strncmp(arg, "--", 2) == 0 && arg[2] != '\0') {
            if (!take_option(argc, argv, &i, st, why, cap)) return false;
        } else if (is_option(arg)) {
            return fail(why, cap, "unknown option '%s'", arg);
        } else if (st->command == NULL) {
            st->command = arg;
        } else if (st->n_text == NULL) {
            st->n_text = arg;
        } else if (st->extra == NULL) {
            st->extra = arg;
        } else {
            return fail(why, cap, "unexpected argument '%s'", arg);
        }
    }
    return true;
}

static bool apply_solve_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    const char *format = st->values[OPT_FORMAT], *limit = st->values[OPT_LIMIT];
    const char *offset = st->values[OPT_OFFSET], *after = st->values[OPT_AFTER];
    if (format != NULL) {
        if (strcmp(format, "board") == 0)
            o->format = NQ_CLI_BOARD;
        else if (strcmp(format, "columns") == 0)
            o->format = NQ_CLI_COLUMNS;
        else
            return fail(why, cap, "--format must be 'board' or 'columns', not '%s'", format);
    }
    o->unique = st->values[OPT_UNIQUE] != NULL;
    o->ndjson = st->values[OPT_NDJSON] != NULL;
    o->json = st->values[OPT_JSON] != NULL;
    if (o->ndjson && o->json) return fail(why, cap, "--ndjson and --json exclude each other");
    if (limit != NULL) {
        if (!parse_u64(limit, UINT64_MAX, &o->limit) || o->limit == 0)
            return fail(why, cap, "--limit must be a whole number >= 1, not '%s'", limit);
        o->has_limit = true;
    }
    if (offset != NULL && !parse_u64(offset, UINT64_MAX, &o->offset))
        return fail(why, cap, "--offset must be a whole number >= 0, not '%s'", offset);
    if (after != NULL) {
        if (offset != NULL) return fail(why, cap, "--after and --offset exclude each other");
        if (nq_parse_columns(o->n, after, strlen(after), o->after) != NQ_OK)
            return fail(why, cap, "--after must be %d columns 0..%d separated by commas, not '%s'", o->n, o->n - 1,
                        after);
        o->has_after = true;
    }
    return true;
}

static bool apply_solution_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    const char *format = st->values[OPT_FORMAT], *seed = st->values[OPT_SEED];
    o->format = NQ_CLI_COLUMNS;
    o->has_format = format != NULL;
    o->json = st->values[OPT_JSON] != NULL;
    if (format != NULL) {
        if (strcmp(format, "board") == 0)
            o->format = NQ_CLI_BOARD;
        else if (strcmp(format, "columns") != 0)
            return fail(why, cap, "--format must be 'columns' or 'board', not '%s'", format);
    }
    if (o->format == NQ_CLI_BOARD && o->n > NQ_CLI_BOARD_N_MAX)
        return fail(why, cap, "--format board only up to N = %d; use columns", NQ_CLI_BOARD_N_MAX);
    o->random = st->values[OPT_RANDOM] != NULL;
    if (seed != NULL) {
        if (!o->random) return fail(why, cap, "--seed needs --random");
        if (!parse_u64(seed, NQ_JSON_INT_MAX, &o->seed))
            return fail(why, cap, "--seed must be a whole number from 0 to %llu (2^53 - 1), not '%s'",
                        (unsigned long long)NQ_JSON_INT_MAX, seed);
        o->has_seed = true;
    }
    return true;
}

/* check N COLUMNS, check N --queens LIST, or check - (a JSON placement on stdin). */
static bool apply_check_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    const char *limit = st->values[OPT_LIMIT], *queens = st->values[OPT_QUEENS];
    o->limit = NQ_CLI_CONFLICTS_DEFAULT;
    if (limit != NULL && !parse_u64(limit, SIZE_MAX / sizeof(nq_pair), &o->limit))
        return fail(why, cap, "--limit must be a whole number from 0 to %zu (conflicts listed), not '%s'",
                    SIZE_MAX / sizeof(nq_pair), limit);
    o->has_limit = limit != NULL;
    if (o->n == 0) { /* "-": everything comes from stdin */
        if (st->extra != NULL || queens != NULL) return fail(why, cap, "check - reads the placement from stdin only");
        return true;
    }
    if ((st->extra != NULL) == (queens != NULL))
        return fail(why, cap, "check N needs the placement: COLUMNS (c0,c1,... or - per row) or --queens R:C,...");
    o->placement = queens != NULL ? queens : st->extra;
    o->queens_form = queens != NULL;
    return true;
}

/* --shard I/K: two whole numbers, 0 <= I < K <= NQ_CLI_SHARDS_MAX. */
static bool parse_shard(const char *v, nq_cli_opts *o, char *why, size_t cap)
{
    const char *slash = strchr(v, '/');
    uint64_t i = 0, k = 0;
    if (slash == NULL || nq_parse_u64(v, (size_t)(slash - v), NQ_CLI_SHARDS_MAX, &i) != NQ_OK ||
        !parse_u64(slash + 1, NQ_CLI_SHARDS_MAX, &k) || k == 0 || i >= k)
        return fail(why, cap, "--shard must be I/K with 0 <= I < K <= %u, not '%s'", NQ_CLI_SHARDS_MAX, v);
    o->has_shard = true;
    o->shard = (uint32_t)i;
    o->shards = (uint32_t)k;
    return true;
}

/* count N --sum FILE...: nothing else applies. */
static bool apply_sum_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    if (st->values[OPT_THREADS] != NULL || st->values[OPT_QUEENS] != NULL || st->values[OPT_SHARD] != NULL ||
        st->values[OPT_VERBOSE] != NULL)
        return fail(why, cap, "--sum takes only shard files, no --threads, --verbose, --queens or --shard");
    if (st->nfiles == 0) return fail(why, cap, "--sum needs the shard files (- for standard input)");
    size_t stdin_uses = 0;
    for (size_t f = 0; f < st->nfiles; f++) stdin_uses += strcmp(st->files[f], "-") == 0;
    if (stdin_uses > 1) return fail(why, cap, "--sum reads standard input (-) once at most");
    o->sum = true;
    o->files = st->files;
    o->nfiles = st->nfiles;
    o->accept_unchecked = st->values[OPT_ACCEPT_UNCHECKED] != NULL;
    return true;
}

static bool apply_count_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    if (st->values[OPT_SUM] != NULL) return apply_sum_options(st, o, why, cap);
    if (st->values[OPT_ACCEPT_UNCHECKED] != NULL) return fail(why, cap, "--accept-unchecked applies only to --sum");
    uint64_t threads = 0, k = 0;
    const char *v = st->values[OPT_THREADS], *q = st->values[OPT_QUEENS];
    if (v != NULL && !parse_u64(v, THREADS_MAX, &threads))
        return fail(why, cap, "--threads must be a whole number from 0 (the CPUs this process may use) to %d, not '%s'",
                    THREADS_MAX, v);
    o->threads = (int)threads;
    o->verbose = st->values[OPT_VERBOSE] != NULL;
    if (q != NULL) {
        if (!parse_u64(q, (uint64_t)o->n, &k))
            return fail(why, cap, "--queens must be a whole number from 0 to N (%d), not '%s'", o->n, q);
        o->has_k = true;
        o->k = (int)k;
    }
    if (st->values[OPT_SHARD] != NULL) {
        if (q != NULL) return fail(why, cap, "--shard and --queens exclude each other");
        return parse_shard(st->values[OPT_SHARD], o, why, cap);
    }
    return true;
}

static bool apply_complete_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    const char *q = st->values[OPT_QUEENS];
    if ((q == NULL) == (st->extra == NULL))
        return fail(why, cap, "complete needs the board once: COLUMNS (e.g. 0,-,-,-) or --queens R:C,...");
    o->placement = q != NULL ? q : st->extra;
    o->queens_form = q != NULL;
    o->count = st->values[OPT_COUNT_FLAG] != NULL;
    return true;
}

static bool apply_trace_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    const char *limit = st->values[OPT_LIMIT], *from = st->values[OPT_FROM];
    if (limit != NULL) {
        if (!parse_u64(limit, UINT64_MAX, &o->limit) || o->limit == 0)
            return fail(why, cap, "--limit must be a whole number >= 1, not '%s'", limit);
        o->has_limit = true;
    }
    if (from != NULL && !parse_u64(from, UINT64_MAX, &o->from))
        return fail(why, cap, "--from must be a whole number >= 0, not '%s'", from);
    return true;
}

/* puzzle solve [FILE] [--limit K] [--reveal]: the puzzle comes as JSON, nothing else applies. */
static bool apply_puzzle_solve_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    static const opt_id makers[] = {OPT_KIND, OPT_DIFFICULTY, OPT_SEED, OPT_DATE, OPT_JSON};
    for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++)
        if (st->values[makers[i]] != NULL)
            return fail(why, cap,
                        "puzzle solve takes the puzzle as JSON (FILE or stdin), with --limit and --reveal only");
    const char *limit = st->values[OPT_LIMIT];
    o->puzzle_solve = true;
    o->puzzle_file = st->extra; /* NULL or "-": stdin */
    o->limit = NQ_CLI_PUZZLE_LIMIT_DEFAULT;
    if (limit != NULL && (!parse_u64(limit, NQ_CLI_PUZZLE_LIMIT_MAX, &o->limit) || o->limit < 2))
        return fail(why, cap, "--limit must be a whole number from 2 to %u, not '%s'", NQ_CLI_PUZZLE_LIMIT_MAX, limit);
    o->has_limit = limit != NULL;
    o->reveal = st->values[OPT_REVEAL] != NULL;
    return true;
}

/* The kind and difficulty names; defaults queens and easy. */
static bool parse_puzzle_names(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    const char *kind = st->values[OPT_KIND], *difficulty = st->values[OPT_DIFFICULTY];
    o->kind = NQ_PUZZLE_QUEENS;
    o->difficulty = NQ_PUZZLE_EASY;
    if (kind != NULL && nq_puzzle_kind_parse(kind, strlen(kind), &o->kind) != NQ_OK)
        return fail(why, cap, "--kind must be 'queens' or 'regions', not '%s'", kind);
    if (difficulty != NULL && nq_puzzle_difficulty_parse(difficulty, strlen(difficulty), &o->difficulty) != NQ_OK)
        return fail(why, cap, "--difficulty must be 'easy', 'medium', 'hard' or 'expert', not '%s'", difficulty);
    return true;
}

/* puzzle N [--kind K] [--difficulty D] [--seed S | --date YYYY-MM-DD] [--reveal] [--json]. */
static bool apply_puzzle_options(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    if (st->n_text != NULL && strcmp(st->n_text, "solve") == 0) return apply_puzzle_solve_options(st, o, why, cap);
    if (!parse_puzzle_names(st, o, why, cap)) return false;
    const bool queens = o->kind == NQ_PUZZLE_QUEENS;
    const int n_min = queens ? NQ_PUZZLE_QUEENS_GEN_N_MIN : NQ_PUZZLE_REGIONS_GEN_N_MIN;
    const int n_max = queens ? NQ_PUZZLE_QUEENS_GEN_N_MAX : NQ_PUZZLE_REGIONS_GEN_N_MAX;
    uint64_t n = 0;
    if (st->n_text == NULL) return fail(why, cap, "puzzle needs a board size N (or 'solve')");
    if (!parse_u64(st->n_text, (uint64_t)n_max, &n) || n < (uint64_t)n_min)
        return fail(why, cap, "N must be a whole number from %d to %d for %s puzzles, not '%s'", n_min, n_max,
                    nq_puzzle_kind_name(o->kind), st->n_text);
    o->n = (int)n;
    if (st->extra != NULL) return fail(why, cap, "unexpected argument '%s'", st->extra);
    if (st->values[OPT_LIMIT] != NULL) return fail(why, cap, "--limit applies to puzzle solve only");
    const char *seed = st->values[OPT_SEED], *date = st->values[OPT_DATE];
    if (seed != NULL && date != NULL) return fail(why, cap, "--seed and --date exclude each other");
    if (seed != NULL && !parse_u64(seed, NQ_PUZZLE_SEED_MAX, &o->seed))
        return fail(why, cap, "--seed must be a whole number from 0 to %llu, not '%s'",
                    (unsigned long long)NQ_PUZZLE_SEED_MAX, seed);
    if (date != NULL) {
        if (nq_puzzle_date_seed(date, strlen(date), &o->seed) != NQ_OK)
            return fail(why, cap, "--date must be a day from 2000-01-01 to 9999-12-31 as YYYY-MM-DD, not '%s'", date);
        memcpy(o->date, date, sizeof o->date - 1);
        o->has_date = true;
    }
    o->has_seed = seed != NULL || date != NULL;
    o->reveal = st->values[OPT_REVEAL] != NULL;
    o->json = st->values[OPT_JSON] != NULL;
    return true;
}

/* N for the command: 1..its maximum; check also takes "-" (0: N comes with the JSON on stdin). */
static bool parse_n(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    uint64_t n_max = NQ_N_MAX, n = 0;
    if (o->command == NQ_CLI_COUNT) n_max = NQ_COUNT_N_MAX;
    if (o->command == NQ_CLI_SOLUTION || o->command == NQ_CLI_CHECK) n_max = NQ_SOLUTION_N_MAX;
    if (st->n_text == NULL && o->command == NQ_CLI_COUNT && st->nfiles > 0)
        return fail(why, cap,
                    "count needs a board size N before --sum (every argument after --sum up to the "
                    "next option is a shard file)");
    if (st->n_text == NULL) return fail(why, cap, "%s needs a board size N", st->command);
    if (o->command == NQ_CLI_CHECK && strcmp(st->n_text, "-") == 0) {
        o->n = 0;
        return true;
    }
    if (!parse_u64(st->n_text, n_max, &n) || n < NQ_N_MIN)
        return fail(why, cap, "N must be a whole number from %d to %llu, not '%s'", NQ_N_MIN, (unsigned long long)n_max,
                    st->n_text);
    o->n = (int)n;
    if (st->extra != NULL && o->command != NQ_CLI_CHECK && o->command != NQ_CLI_COMPLETE)
        return fail(why, cap, "unexpected argument '%s'", st->extra);
    return true;
}

static const struct {
    const char *name;
    nq_cli_command command;
} commands[] = {{"count", NQ_CLI_COUNT},   {"solve", NQ_CLI_SOLVE},       {"solution", NQ_CLI_SOLUTION},
                {"check", NQ_CLI_CHECK},   {"complete", NQ_CLI_COMPLETE}, {"trace", NQ_CLI_TRACE},
                {"puzzle", NQ_CLI_PUZZLE}, {"help", NQ_CLI_HELP}};

#define NCOMMANDS (sizeof commands / sizeof commands[0])
#define COMMAND_NAMES_MAX 128 /* room for the names, quoted and separated */

/* The table's names for a message: 'count', 'solve', ... or 'help'. */
static void command_names(char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t c = 0; c < NCOMMANDS; c++) {
        const char *sep = c == 0 ? "" : c + 1 < NCOMMANDS ? ", " : " or ";
        const int w = snprintf(out + len, cap - len, "%s'%s'", sep, commands[c].name);
        if (w < 0 || (size_t)w >= cap - len) return;
        len += (size_t)w;
    }
}

/* The command named, or false with the reason. */
static bool find_command(const char *name, nq_cli_command *out, char *why, size_t cap)
{
    for (size_t c = 0; c < NCOMMANDS; c++) {
        if (strcmp(name, commands[c].name) == 0) {
            *out = commands[c].command;
            return true;
        }
    }
    char names[COMMAND_NAMES_MAX];
    command_names(names, sizeof names);
    return fail(why, cap, "unknown command '%s': %s", name, names);
}

/* --help (with or without a command) and `help [COMMAND]`: which help to print. */
static bool apply_help(const parse_state *st, nq_cli_opts *o, char *why, size_t cap)
{
    nq_cli_command c = NQ_CLI_HELP;
    o->command = NQ_CLI_HELP;
    if (st->command == NULL) return true;
    if (!find_command(st->command, &c, why, cap)) return false;
    if (c != NQ_CLI_HELP) { /* COMMAND --help: its arguments do not matter */
        o->help_topic = st->command;
        return true;
    }
    if (st->extra != NULL) return fail(why, cap, "unexpected argument '%s'", st->extra);
    nq_cli_command topic = NQ_CLI_HELP;
    if (st->n_text != NULL && !find_command(st->n_text, &topic, why, cap)) return false;
    o->help_topic = st->n_text;
    return true;
}

bool nq_cli_parse(int argc, char *const argv[], nq_cli_opts *opts, char *why, size_t cap)
{
    parse_state st = {0};
    *opts = (nq_cli_opts){.command = NQ_CLI_HELP, .format = NQ_CLI_BOARD};
    if (!collect(argc, argv, &st, why, cap)) return false;
    if (st.help) return apply_help(&st, opts, why, cap);
    if (st.version) {
        opts->command = NQ_CLI_VERSION;
        return true;
    }
    if (st.command == NULL) {
        char names[COMMAND_NAMES_MAX];
        command_names(names, sizeof names);
        return fail(why, cap, "missing command: %s", names);
    }
    if (!find_command(st.command, &opts->command, why, cap)) return false;
    /* An option of another command is named first: it is the mistake, not the missing N. */
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (st.values[opt_specs[i].id] != NULL && !(opt_specs[i].commands & (1u << opts->command)))
            return fail(why, cap, "--%s does not apply to %s", opt_specs[i].name, st.command);
    if (opts->command == NQ_CLI_HELP) return apply_help(&st, opts, why, cap);
    if (opts->command == NQ_CLI_PUZZLE) return apply_puzzle_options(&st, opts, why, cap);
    if (!parse_n(&st, opts, why, cap)) return false;
    if (opts->command == NQ_CLI_SOLVE) return apply_solve_options(&st, opts, why, cap);
    if (opts->command == NQ_CLI_SOLUTION) return apply_solution_options(&st, opts, why, cap);
    if (opts->command == NQ_CLI_CHECK) return apply_check_options(&st, opts, why, cap);
    if (opts->command == NQ_CLI_COMPLETE) return apply_complete_options(&st, opts, why, cap);
    if (opts->command == NQ_CLI_TRACE) return apply_trace_options(&st, opts, why, cap);
    return apply_count_options(&st, opts, why, cap);
}
