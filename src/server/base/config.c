/* config.c - nqueensd's option table and the parser, validator and help printers it drives.
 *
 * One row per option. Defaults are stored as text and go through the same parser as user input, so a
 * default can never be something a user could not have typed (the unit tests load every default).
 * Numbers are plain ASCII decimal digits, as in the HTTP API: no sign, no spaces, no 0x, no overflow.
 * Byte sizes also take one binary suffix (K, M, G: 1024, 1024^2, 1024^3).
 */
#include "base/config.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/version.h"
#include "base/errors.h"
#include "nqueens/parse.h"
#include "nqueens/puzzle.h"
#include "nqueens/solver.h"
#include "base/probe.h"

typedef enum opt_type {
    T_PORT,   /* uint16_t */
    T_UINT,   /* unsigned */
    T_INT,    /* int (board sizes) */
    T_U64,    /* uint64_t */
    T_SIZE,   /* size_t, with an optional K/M/G suffix */
    T_ADDR,   /* char[], a numeric IPv4 or IPv6 address */
    T_ORIGIN, /* char[], visible ASCII only (it becomes a header value) */
    T_LOGFMT, /* nq_log_format, by name */
    T_LOGLVL, /* nq_log_level, by name */
    T_PATH    /* char[], a file path: no control characters */
} opt_type;

typedef struct opt_row {
    const char *flag; /* without the leading "--" */
    const char *env;  /* environment variable */
    opt_type type;    /* how the value is parsed and stored */
    size_t offset;    /* field in nq_config */
    size_t cap;       /* field size (strings: capacity including the NUL) */
    const char *def;  /* default, as text */
    uint64_t min;     /* numeric range, inclusive */
    uint64_t max;
    const char *meta; /* value placeholder in --help */
    const char *help; /* one line */
} opt_row;

#define FIELD(f) offsetof(nq_config, f), sizeof(((nq_config *)0)->f)
#define KIB ((uint64_t)1 << 10)
#define MIB ((uint64_t)1 << 20)
#define GIB ((uint64_t)1 << 30)

static const opt_row opts[] = {
    {"bind", "NQUEENSD_BIND", T_ADDR, FIELD(bind_addr), "0.0.0.0", 0, 0, "ADDR",
     "address to listen on (0.0.0.0 or :: for all)"},
    {"port", "NQUEENSD_PORT", T_PORT, FIELD(port), "8080", 0, 65535, "PORT",
     "TCP port to listen on; 0 lets the kernel pick one (the start-up line reports it)"},
    {"http-threads", "NQUEENSD_HTTP_THREADS", T_UINT, FIELD(http_threads), "4", 1, 256, "N",
     "network threads (they never compute, so a few suffice)"},
    {"solver-workers", "NQUEENSD_SOLVER_WORKERS", T_UINT, FIELD(solver_workers), "2", 1, 256, "N",
     "computations that run at the same time"},
    {"count-threads", "NQUEENSD_COUNT_THREADS", T_UINT, FIELD(count_threads), "0", 0, NQ_COUNT_THREADS_MAX, "N",
     "threads one /count computation uses; 0 = one per CPU this process may use (affinity mask, cgroup CPU quota)"},
    {"cache-bytes", "NQUEENSD_CACHE_BYTES", T_SIZE, FIELD(cache_bytes), "64M", 0, (uint64_t)1 << 40, "BYTES",
     "response cache capacity; 0 disables the cache"},
    {"max-n-solve", "NQUEENSD_MAX_N_SOLVE", T_INT, FIELD(max_n_solve), "20", NQ_N_MIN, NQ_N_MAX, "N",
     "largest board /solve accepts; larger gets 422"},
    {"max-n-count", "NQUEENSD_MAX_N_COUNT", T_INT, FIELD(max_n_count), "19", NQ_N_MIN, NQ_SERVED_COUNT_N_MAX, "N",
     "largest board /count accepts (and so the largest count the server ever starts); larger gets 422"},
    {"long-count-n", "NQUEENSD_LONG_COUNT_N", T_INT, FIELD(long_count_n), "17", NQ_N_MIN, NQ_COUNT_N_MAX + 1, "N",
     "counts of this n and larger run in the background (202 + progress until done, checkpointed, "
     "resumed after a restart); smaller ones are answered within the request"},
    {"long-counts", "NQUEENSD_LONG_COUNTS", T_UINT, FIELD(long_counts), "1", 1, 64, "N",
     "long counts that run at the same time (each takes the memory of its n)"},
    {"long-count-waiters", "NQUEENSD_LONG_COUNT_WAITERS", T_UINT, FIELD(long_count_waiters), "32", 1, 1024, "N",
     "threads that hold requests waiting for a long count (up to their Prefer: wait or --deadline-ms), "
     "apart from the solver workers; identical waits share one; beyond them and --queue-len, 503"},
    {"long-count-queue", "NQUEENSD_LONG_COUNT_QUEUE", T_UINT, FIELD(long_count_queue), "8", 0, 1024, "N",
     "long counts that may wait for one of --long-counts; beyond it 503 + Retry-After"},
    {"store", "NQUEENSD_STORE", T_PATH, FIELD(store), "nqueens.db", 0, 0, "PATH|URI",
     "where finished counts and counts in progress are kept: an SQLite file (created if missing; one "
     "replica), a PostgreSQL database shared by replicas (postgresql://..., postgres://... or libpq's "
     "key=value form; password from PGPASSWORD or a passfile), or none = keep nothing"},
    {"lease-ms", "NQUEENSD_LEASE_MS", T_UINT, FIELD(lease_ms), "15000", 100, 3600000, "MS",
     "a block of a long count's tasks stays a replica's this long unless renewed (every third of it); "
     "then another may take it up"},
    {"checkpoint-ms", "NQUEENSD_CHECKPOINT_MS", T_UINT, FIELD(checkpoint_ms), "5000", 50, 3600000, "MS",
     "a running long count records its finished tasks in the store this often"},
    {"count-task-delay-ms", "NQUEENSD_COUNT_TASK_DELAY_MS", T_UINT, FIELD(count_task_delay_ms), "0", 0, 60000, "MS",
     "for tests only: each task of a long count takes this much longer before it counts as done (makes a "
     "cheap n slow)"},
    {"max-solutions", "NQUEENSD_MAX_SOLUTIONS", T_U64, FIELD(max_solutions), "100000", 1, 100000000, "N",
     "most solutions one /solve response carries; a larger answer needs limit/after"},
    {"max-n-solution", "NQUEENSD_MAX_N_SOLUTION", T_UINT, FIELD(max_n_solution), "1000000", 1, 100000000, "N",
     "largest board /solution and /check accept; larger gets 422"},
    {"max-n-board", "NQUEENSD_MAX_N_BOARD", T_UINT, FIELD(max_n_board), "256", 1, 4096, "N",
     "largest board /solution draws as rows of text (format=board); larger gets 422"},
    {"max-conflicts", "NQUEENSD_MAX_CONFLICTS", T_UINT, FIELD(max_conflicts), "1000", 0, 1000000, "N",
     "most attacking pairs /check lists (conflict_count is always the full number)"},
    {"max-n-complete", "NQUEENSD_MAX_N_COMPLETE", T_INT, FIELD(max_n_complete), "32", NQ_N_MIN, NQ_N_MAX, "N",
     "largest board /complete finishes; larger gets 422"},
    {"max-n-complete-count", "NQUEENSD_MAX_N_COMPLETE_COUNT", T_INT, FIELD(max_n_complete_count), "18", NQ_N_MIN,
     NQ_SERVED_COUNT_N_MAX, "N", "largest board /complete counts the completions of (count=true); larger gets 422"},
    {"max-n-trace", "NQUEENSD_MAX_N_TRACE", T_INT, FIELD(max_n_trace), "16", NQ_N_MIN, NQ_N_MAX, "N",
     "largest board /trace follows the search on; larger gets 422"},
    {"max-trace-limit", "NQUEENSD_MAX_TRACE_LIMIT", T_U64, FIELD(max_trace_limit), "100000", 1, 100000000, "N",
     "most steps one /trace page carries; a larger limit gets 422"},
    {"max-n-count-k", "NQUEENSD_MAX_N_COUNT_K", T_INT, FIELD(max_n_count_k), "11", NQ_N_MIN, NQ_SERVED_COUNT_N_MAX, "N",
     "largest board /count places k < n queens on (k=); larger gets 422"},
    {"max-n-puzzle-queens", "NQUEENSD_MAX_N_PUZZLE_QUEENS", T_INT, FIELD(max_n_puzzle_queens), "32",
     NQ_PUZZLE_QUEENS_GEN_N_MIN, NQ_PUZZLE_QUEENS_GEN_N_MAX, "N",
     "largest board /puzzle makes (and /puzzle/solve remakes) queens puzzles of; larger gets 422"},
    {"max-n-puzzle-regions", "NQUEENSD_MAX_N_PUZZLE_REGIONS", T_INT, FIELD(max_n_puzzle_regions), "16",
     NQ_PUZZLE_REGIONS_GEN_N_MIN, NQ_PUZZLE_REGIONS_GEN_N_MAX, "N",
     "largest board /puzzle makes (and /puzzle/solve remakes) regions puzzles of; larger gets 422"},
    {"max-n-puzzle-solve", "NQUEENSD_MAX_N_PUZZLE_SOLVE", T_INT, FIELD(max_n_puzzle_solve), "32", 1, NQ_PUZZLE_N_MAX,
     "N", "largest board of a puzzle given to /puzzle/solve; larger gets 422"},
    {"max-puzzle-limit", "NQUEENSD_MAX_PUZZLE_LIMIT", T_U64, FIELD(max_puzzle_limit), "1000", 2, 1000000, "N",
     "most solutions of a puzzle /puzzle/solve counts (limit=); a larger limit gets 422"},
    {"max-puzzle-nodes", "NQUEENSD_MAX_PUZZLE_NODES", T_U64, FIELD(max_puzzle_nodes), "10000000", 1000,
     (uint64_t)1 << 40, "N",
     "search nodes one puzzle search may use (making a puzzle, counting, a hint, mistakes, a grade: each; a few "
     "million a second: keep one search within --deadline-ms); "
     "beyond it /puzzle is 422 puzzle-unavailable and /puzzle/solve 422 too-costly"},
    {"queue-len", "NQUEENSD_QUEUE_LEN", T_UINT, FIELD(queue_len), "64", 0, 65536, "N",
     "computations that may wait for a worker; beyond it 503 + Retry-After"},
    {"deadline-ms", "NQUEENSD_DEADLINE_MS", T_UINT, FIELD(deadline_ms), "10000", 0, 3600000, "MS",
     "a request waits this long for its computation, then gets 503 (the result still gets cached; a "
     "long count answers 202 with its progress); also the most a Prefer: wait=S may ask; 0 = wait as "
     "long as it takes"},
    {"budget-ms", "NQUEENSD_BUDGET_MS", T_UINT, FIELD(budget_ms), "60000", 0, 86400000, "MS",
     "the most a computation may run (never a long count); one nobody waits for any more is "
     "cancelled sooner, after twice what its callers waited; 0 = never cancel"},
    {"cors-origin", "NQUEENSD_CORS_ORIGIN", T_ORIGIN, FIELD(cors_origin), "*", 0, 0, "ORIGIN",
     "Access-Control-Allow-Origin value: * or one origin such as https://example.com"},
    {"log-format", "NQUEENSD_LOG_FORMAT", T_LOGFMT, FIELD(log_format), "json", 0, 0, "FORMAT",
     "json (one object per line) or text (key=value) for the access and event log on stdout"},
    {"log-level", "NQUEENSD_LOG_LEVEL", T_LOGLVL, FIELD(log_level), "info", 0, 0, "LEVEL",
     "lowest severity logged: debug (adds a line per checkpoint of a long count), info (requests and "
     "life-cycle events), warn or error"},
    {"conn-limit", "NQUEENSD_CONN_LIMIT", T_UINT, FIELD(conn_limit), "4096", 1, 1000000, "N",
     "open connections at most (the file-descriptor limit is raised to fit)"},
    {"per-ip-limit", "NQUEENSD_PER_IP_LIMIT", T_UINT, FIELD(per_ip_limit), "0", 0, 1000000, "N",
     "open connections per client address; 0 = no fixed per-address limit (--conn-reserve still applies)"},
    {"conn-reserve", "NQUEENSD_CONN_RESERVE", T_UINT, FIELD(conn_reserve), "64", 0, 1000000, "N",
     "connections no single client address can take: one address holds at most conn-limit minus this "
     "(at most a quarter of conn-limit is reserved), so probes and other clients still get in; 0 = none"},
    {"idle-timeout-s", "NQUEENSD_IDLE_TIMEOUT_S", T_UINT, FIELD(idle_timeout_s), "30", 1, 86400, "S",
     "an idle keep-alive connection is closed after this many seconds"},
    {"head-timeout-s", "NQUEENSD_HEAD_TIMEOUT_S", T_UINT, FIELD(head_timeout_s), "10", 1, 3600, "S",
     "the whole request head must arrive within this many seconds (of the connection opening, or of "
     "the previous response on it)"},
    {"max-uri-bytes", "NQUEENSD_MAX_URI_BYTES", T_SIZE, FIELD(max_uri_bytes), "8K", 64, 64 * KIB, "BYTES",
     "longest request target; longer gets 414"},
    {"max-header-bytes", "NQUEENSD_MAX_HEADER_BYTES", T_SIZE, FIELD(max_header_bytes), "16K", 1 * KIB, 1 * MIB, "BYTES",
     "largest request header section; larger gets 431"},
    {"max-body-bytes", "NQUEENSD_MAX_BODY_BYTES", T_SIZE, FIELD(max_body_bytes), "1M", 64, 256 * MIB, "BYTES",
     "largest request body (the JSON of POST /check and /complete); a larger Content-Length gets 413 before "
     "a byte of the body is read, a chunked body 413 once it grows past this"},
    {"max-bodies-bytes", "NQUEENSD_MAX_BODIES_BYTES", T_SIZE, FIELD(max_bodies_bytes), "64M", 64, 64 * GIB, "BYTES",
     "request bodies held in memory at once, all connections together (at least --max-body-bytes); a "
     "body that would take them past this gets 503 with Retry-After and its connection closes"},
    {"max-gzip-streams", "NQUEENSD_MAX_GZIP_STREAMS", T_UINT, FIELD(max_gzip_streams), "64", 0, 65536, "N",
     "streamed responses compressed as they are sent, at once, all connections together (each holds "
     "about 300 KiB of zlib state while its client reads); more are sent uncompressed; 0 = never"},
    {"max-pinned-bytes", "NQUEENSD_MAX_PINNED_BYTES", T_SIZE, FIELD(max_pinned_bytes), "64M", 64 * KIB, 64 * GIB,
     "BYTES",
     "memory that responses hold for clients still reading them, all connections together: the cache "
     "entries they are sent from (once each, even once evicted) and streams' state (a random /solution "
     "too big to cache: 4 bytes a row); a response that would pass it gets 503 with Retry-After (raised "
     "to --cache-bytes / 8 when below, so every cached answer can go out)"},
    {"grace-s", "NQUEENSD_GRACE_S", T_UINT, FIELD(grace_s), "8", 0, 3600, "S",
     "on SIGTERM, requests in flight get this long to finish; keep it below the orchestrator's kill "
     "timeout (docker stop: 10 s)"},
};

#define NOPTS (sizeof opts / sizeof opts[0])

static const char *const log_format_names[] = {"json", "text"};
static const char *const log_level_names[] = {"debug", "info", "warn", "error"};

const char *nq_config_version(void)
{
    return nq_version(); /* one version for the library, the tools and the service (CMake's) */
}

const char *nq_config_log_format_name(nq_log_format f)
{
    return (unsigned)f < 2u ? log_format_names[f] : "json";
}

const char *nq_config_log_level_name(nq_log_level l)
{
    return (unsigned)l < 4u ? log_level_names[l] : "info";
}

/* ---- value parsers: each returns true and stores the value, or false and leaves the field ------ */

/* Plain decimal digits (nqueens/parse.h), then possibly a suffix: *end gets the first non-digit. */
static bool parse_digits(const char *s, uint64_t *out, const char **end)
{
    const size_t len = nq_parse_digits_len(s, strlen(s));
    if (nq_parse_u64(s, len, UINT64_MAX, out) != NQ_OK) return false;
    *end = s + len;
    return true;
}

static uint64_t size_multiplier(const char *suffix)
{
    if (suffix[0] == '\0') return 1;
    if (suffix[1] != '\0') return 0;
    switch (suffix[0]) {
    case 'K':
    case 'k': return KIB;
    case 'M':
    case 'm': return MIB;
    case 'G':
    case 'g': return GIB;
    default: return 0;
    }
}

static bool parse_number(const opt_row *o, const char *s, uint64_t *out)
{
    uint64_t v = 0;
    const char *end = NULL;
    if (!parse_digits(s, &v, &end)) return false;
    const uint64_t mult = o->type == T_SIZE ? size_multiplier(end) : (*end == '\0' ? 1 : 0);
    if (mult == 0 || v > UINT64_MAX / mult) return false;
    v *= mult;
    if (v < o->min || v > o->max) return false;
    *out = v;
    return true;
}

static void store_number(const opt_row *o, nq_config *c, uint64_t v)
{
    unsigned char *field = (unsigned char *)c + o->offset;
    /* memcpy, not a cast: the field's type is only known through the row. Ranges were checked. */
    switch (o->type) {
    case T_PORT: {
        const uint16_t x = (uint16_t)v;
        memcpy(field, &x, sizeof x);
        break;
    }
    case T_UINT: {
        const unsigned x = (unsigned)v;
        memcpy(field, &x, sizeof x);
        break;
    }
    case T_INT: {
        const int x = (int)v;
        memcpy(field, &x, sizeof x);
        break;
    }
    case T_U64: memcpy(field, &v, sizeof v); break;
    case T_SIZE: {
        const size_t x = (size_t)v;
        memcpy(field, &x, sizeof x);
        break;
    }
    default: assert(0 && "not a numeric option");
    }
}

static bool is_ip_literal(const char *s)
{
    unsigned char buf[sizeof(struct in6_addr)];
    return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

static bool is_visible_ascii(const char *s)
{
    if (*s == '\0') return false;
    for (; *s != '\0'; s++)
        if (*s < 0x21 || *s > 0x7e)
            return false; /* no spaces, controls or CR/LF: it is echoed into a response header */
    return true;
}

/* A non-empty path without control characters (it is logged and shown in messages). */
static bool is_path(const char *s)
{
    if (*s == '\0') return false;
    for (; *s != '\0'; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return false;
    return true;
}

static bool parse_string(const opt_row *o, nq_config *c, const char *s)
{
    if (strlen(s) >= o->cap) return false;
    if (o->type == T_ADDR ? !is_ip_literal(s) : o->type == T_PATH ? !is_path(s) : !is_visible_ascii(s)) return false;
    memcpy((char *)c + o->offset, s, strlen(s) + 1);
    return true;
}

/* An option whose value is one of a few names (the log format and level): the index of the name. */
static bool parse_name(const opt_row *o, nq_config *c, const char *s)
{
    const bool fmt = o->type == T_LOGFMT;
    const char *const *names = fmt ? log_format_names : log_level_names;
    const size_t count = fmt ? sizeof log_format_names / sizeof *names : sizeof log_level_names / sizeof *names;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(s, names[i]) != 0) continue;
        if (fmt)
            c->log_format = (nq_log_format)i;
        else
            c->log_level = (nq_log_level)i;
        return true;
    }
    return false;
}

static bool apply(const opt_row *o, nq_config *c, const char *s)
{
    uint64_t v = 0;
    switch (o->type) {
    case T_ADDR:
    case T_ORIGIN:
    case T_PATH: return parse_string(o, c, s);
    case T_LOGFMT:
    case T_LOGLVL: return parse_name(o, c, s);
    default:
        if (!parse_number(o, s, &v)) return false;
        store_number(o, c, v);
        return true;
    }
}

/* ---- messages ---------------------------------------------------------------------------------- */

#define RANGE_TEXT_MAX 128 /* describe_range output, NUL included */

/* A byte count with the largest suffix that divides it exactly ("64K", "1024G", "1000"). */
static void format_size(uint64_t v, char *out, size_t cap)
{
    static const struct {
        uint64_t unit;
        char suffix;
    } units[] = {{GIB, 'G'}, {MIB, 'M'}, {KIB, 'K'}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (v >= units[i].unit && v % units[i].unit == 0) {
            snprintf(out, cap, "%" PRIu64 "%c", v / units[i].unit, units[i].suffix);
            return;
        }
    }
    snprintf(out, cap, "%" PRIu64, v);
}

/* What the option accepts, in words, for --help and error messages. */
static void describe_range(const opt_row *o, char *out, size_t cap)
{
    switch (o->type) {
    case T_ADDR: snprintf(out, cap, "a numeric IPv4 or IPv6 address"); break;
    case T_ORIGIN: snprintf(out, cap, "* or an origin, 1..%zu visible ASCII characters", o->cap - 1); break;
    case T_LOGFMT: snprintf(out, cap, "json or text"); break;
    case T_LOGLVL: snprintf(out, cap, "debug, info, warn or error"); break;
    case T_PATH: snprintf(out, cap, "a file path (1..%zu bytes) or none", o->cap - 1); break;
    case T_SIZE: {
        char lo[24], hi[24];
        format_size(o->min, lo, sizeof lo);
        format_size(o->max, hi, sizeof hi);
        snprintf(out, cap, "a byte count in %s..%s (suffix K, M or G: powers of 1024)", lo, hi);
        break;
    }
    default: snprintf(out, cap, "an integer in %" PRIu64 "..%" PRIu64, o->min, o->max); break;
    }
}

/* Copy at most 40 characters of an untrusted value, replacing anything not printable, so the error
 * message stays one short line whatever was passed. */
static void quote_value(const char *s, char *out, size_t cap)
{
    size_t i = 0;
    for (; i < 40 && i + 4 < cap && s[i] != '\0'; i++) out[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (s[i] != '\0' && i + 4 <= cap) {
        memcpy(out + i, "...", 3);
        i += 3;
    }
    out[i] = '\0';
}

/* Write a message to err (if there is room) and return code. */
__attribute__((format(printf, 4, 5))) static nq_err fail(char *err, size_t errlen, nq_err code, const char *fmt, ...)
{
    if (err != NULL && errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return code;
}

static nq_err bad_value(const opt_row *o, const char *source, const char *value, char *err, size_t errlen)
{
    char shown[48];
    char range[RANGE_TEXT_MAX];
    /* A store location may hold a password: never echoed. */
    if (o->type == T_PATH && strcmp(o->flag, "store") == 0)
        snprintf(shown, sizeof shown, "(not shown)");
    else
        quote_value(value, shown, sizeof shown);
    describe_range(o, range, sizeof range);
    return fail(err, errlen, NQ_E_PARAM_INVALID, "invalid value \"%s\" for --%s (from %s): expected %s", shown, o->flag,
                source, range);
}

/* ---- loading ------------------------------------------------------------------------------------ */

static const char *env_lookup(char **envp, const char *name)
{
    const size_t len = strlen(name);
    for (; envp != NULL && *envp != NULL; envp++)
        if (strncmp(*envp, name, len) == 0 && (*envp)[len] == '=') return *envp + len + 1;
    return NULL;
}

bool nq_config_is_option_env(const char *entry)
{
    if (entry == NULL) return false;
    for (size_t i = 0; i < NOPTS; i++) {
        const size_t len = strlen(opts[i].env);
        if (strncmp(entry, opts[i].env, len) == 0 && entry[len] == '=') return true;
    }
    return false;
}

/* The environment's values of the options the command line did not give (given[i]): a flag
 * overrides its variable, even one that would be refused (a NQUEENSD_PORT=tcp://... that a
 * platform injects, overridden by --port). */
static nq_err load_env(nq_config *c, char **envp, const bool *given, char *err, size_t errlen)
{
    for (size_t i = 0; i < NOPTS; i++) {
        if (given[i]) continue;
        const char *v = env_lookup(envp, opts[i].env);
        if (v != NULL && !apply(&opts[i], c, v)) return bad_value(&opts[i], opts[i].env, v, err, errlen);
    }
    return NQ_OK;
}

static const opt_row *find_flag(const char *name, size_t len)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (strlen(opts[i].flag) == len && strncmp(opts[i].flag, name, len) == 0) return &opts[i];
    return NULL;
}

/* The commands that take no value; returns false if arg is not one of them. */
static bool command_flag(nq_config *c, const char *arg)
{
    static const struct {
        const char *flag;
        nq_config_action action;
    } cmds[] = {
        {"--help", NQ_ACTION_HELP},
        {"-h", NQ_ACTION_HELP},
        {"--version", NQ_ACTION_VERSION},
        {"--help-markdown", NQ_ACTION_MARKDOWN},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (strcmp(arg, cmds[i].flag) == 0) {
            c->action = cmds[i].action;
            return true;
        }
    }
    return false;
}

/* --probe [URL]: the URL is optional, so only a following argument that is not a flag is taken. */
_Static_assert(NQ_CONFIG_URL_MAX >= NQ_PROBE_URL_MAX + 1, "probe_url holds any URL the probe takes");

static nq_err probe_flag(nq_config *c, int argc, char **argv, int *i, char *err, size_t errlen)
{
    c->action = NQ_ACTION_PROBE;
    if (*i + 1 >= argc || argv[*i + 1][0] == '-') return NQ_OK;
    const char *url = argv[++*i];
    if (!nq_probe_url_plausible(url)) {
        char shown[48];
        quote_value(url, shown, sizeof shown);
        return fail(err, errlen, NQ_E_PARAM_INVALID,
                    "invalid value \"%s\" for --probe: expected an http:// URL of at most %zu visible "
                    "ASCII characters",
                    shown, (size_t)NQ_PROBE_URL_MAX);
    }
    memcpy(c->probe_url, url, strlen(url) + 1);
    return NQ_OK;
}

static nq_err option_flag(nq_config *c, int argc, char **argv, int *i, bool *given, char *err, size_t errlen)
{
    const char *arg = argv[*i];
    const char *name = arg + 2;
    const char *eq = strchr(name, '=');
    const opt_row *o = find_flag(name, eq != NULL ? (size_t)(eq - name) : strlen(name));
    if (o == NULL) {
        char shown[48];
        quote_value(arg, shown, sizeof shown);
        return fail(err, errlen, NQ_E_PARAM_UNKNOWN, "unknown option \"%s\" (try --help)", shown);
    }
    const char *value = eq != NULL ? eq + 1 : NULL;
    if (value == NULL) {
        if (*i + 1 >= argc)
            return fail(err, errlen, NQ_E_PARAM_MISSING, "option --%s needs a value (%s)", o->flag, o->meta);
        value = argv[++*i];
    }
    given[o - opts] = true;
    return apply(o, c, value) ? NQ_OK : bad_value(o, "the command line", value, err, errlen);
}

/* The command line, which the environment fills in after (load_env); given[i]: option i was set. */
static nq_err load_args(nq_config *c, int argc, char **argv, bool *given, char *err, size_t errlen)
{
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        nq_err rc = NQ_OK;
        if (command_flag(c, arg)) continue;
        if (strcmp(arg, "--probe") == 0)
            rc = probe_flag(c, argc, argv, &i, err, errlen);
        else if (strncmp(arg, "--", 2) == 0)
            rc = option_flag(c, argc, argv, &i, given, err, errlen);
        else {
            char shown[48];
            quote_value(arg, shown, sizeof shown);
            rc = fail(err, errlen, NQ_E_PARAM_UNKNOWN, "unexpected argument \"%s\" (try --help)", shown);
        }
        if (rc != NQ_OK) return rc;
    }
    return NQ_OK;
}

void nq_config_defaults(nq_config *c)
{
    assert(c != NULL);
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < NOPTS; i++) {
        const bool ok = apply(&opts[i], c, opts[i].def);
        assert(ok && "a built-in default is outside its own range");
        (void)ok;
    }
}

nq_err nq_config_load(nq_config *c, int argc, char **argv, char **envp, char *err, size_t errlen)
{
    if (err != NULL && errlen > 0) err[0] = '\0';
    if (c == NULL || argv == NULL || argc < 0) return NQ_E_ARG;
    bool given[NOPTS] = {false};
    nq_err rc = load_args(c, argc, argv, given, err, errlen);
    if (rc == NQ_OK) rc = load_env(c, envp, given, err, errlen);
    if (rc == NQ_OK && c->max_bodies_bytes < c->max_body_bytes)
        rc = fail(err, errlen, NQ_E_PARAM_INVALID, "--max-bodies-bytes (%zu) must be at least --max-body-bytes (%zu)",
                  c->max_bodies_bytes, c->max_body_bytes);
    return rc;
}

unsigned nq_config_per_address_cap(const nq_config *c)
{
    const unsigned quarter = c->conn_limit / 4u;
    const unsigned reserve = c->conn_reserve < quarter ? c->conn_reserve : quarter;
    const unsigned cap = reserve > 0 ? c->conn_limit - reserve : 0;
    if (c->per_ip_limit > 0 && (cap == 0 || c->per_ip_limit < cap)) return c->per_ip_limit;
    return cap;
}

/* ---- help --------------------------------------------------------------------------------------- */

void nq_config_usage(FILE *out, const char *prog)
{
    fprintf(out,
            "Usage: %s [OPTION...]\n"
            "       %s --probe [URL]   GET URL (default http://127.0.0.1:PORT/healthz), exit 0 on 200\n"
            "       %s --help | --version\n\n"
            "N-Queens HTTP service. Every option can also be set by the environment variable shown;\n"
            "a flag overrides the variable. Options take --name VALUE or --name=VALUE.\n\n",
            prog, prog, prog);
    for (size_t i = 0; i < NOPTS; i++) {
        char range[RANGE_TEXT_MAX];
        describe_range(&opts[i], range, sizeof range);
        fprintf(out, "  --%s %s  (%s, default %s)\n      %s\n      accepts %s\n", opts[i].flag, opts[i].meta,
                opts[i].env, opts[i].def, opts[i].help, range);
    }
}

_Static_assert(RANGE_TEXT_MAX <= NQ_CONFIG_ACCEPTS_MAX, "describe_range fits an option's documentation");

bool nq_config_option_doc_get(size_t i, nq_config_option_doc *out)
{
    if (i >= NOPTS || out == NULL) return false;
    out->flag = opts[i].flag;
    out->env = opts[i].env;
    out->def = opts[i].def;
    out->meta = opts[i].meta;
    out->help = opts[i].help;
    describe_range(&opts[i], out->accepts, sizeof out->accepts);
    return true;
}

void nq_config_markdown(FILE *out)
{
    fputs("| Flag | Environment variable | Default | Accepted | Meaning |\n"
          "|---|---|---|---|---|\n",
          out);
    for (size_t i = 0; i < NOPTS; i++) {
        char range[RANGE_TEXT_MAX];
        describe_range(&opts[i], range, sizeof range);
        fprintf(out, "| `--%s` | `%s` | `%s` | %s | %s |\n", opts[i].flag, opts[i].env, opts[i].def, range,
                opts[i].help);
    }
}
