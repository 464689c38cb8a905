/* config.h - nqueensd's configuration: defaults, command-line flags and NQUEENSD_* environment variables.
 *
 * Every option is one row of a table in config.c (flag, environment variable, type, default, range,
 * help text); that table drives parsing, validation, --help and the documented configuration table, so
 * an option cannot be documented in one place and behave differently in another.
 *
 * Precedence: built-in default < environment variable < command-line flag.
 * Life cycle: filled once by main() before any thread starts, then passed down as `const nq_config *`
 * and never written again, so every thread may read it without locking.
 * Failure: nq_config_load never exits or prints; it returns an error code and a one-line message that
 * names the option and its accepted range. The caller (main) prints it and exits with status 2.
 */
#ifndef NQ_CONFIG_H
#define NQ_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/errors.h"
#include "nqueens/error.h"

#define NQ_CONFIG_ADDR_MAX 64    /* bind_addr capacity, NUL included (an IPv6 literal needs 46) */
#define NQ_CONFIG_ORIGIN_MAX 256 /* cors_origin capacity, NUL included */
#define NQ_CONFIG_URL_MAX 512    /* probe_url capacity, NUL included */
#define NQ_CONFIG_PATH_MAX 1024  /* store capacity, NUL included */
#define NQ_COUNT_THREADS_MAX 256 /* --count-threads at most */
/* The largest board whose counts the server answers: A000170(25) = 2 207 893 435 808 352 is below
 * 2^53 - 1, the largest integer every JSON client holds exactly; 26's is not. */
#define NQ_SERVED_COUNT_N_MAX 25

/* What the process was asked to do; everything but NQ_ACTION_SERVE is a one-shot command. */
typedef enum nq_config_action {
    NQ_ACTION_SERVE = 0, /* run the HTTP service (the default) */
    NQ_ACTION_HELP,      /* --help: print usage, exit 0 */
    NQ_ACTION_VERSION,   /* --version: print the version, exit 0 */
    NQ_ACTION_PROBE,     /* --probe [URL]: GET URL (default: this config's /healthz), exit 0 on 200 */
    NQ_ACTION_MARKDOWN   /* --help-markdown: print the options as a Markdown table (docs/operations.md) */
} nq_config_action;

typedef enum nq_log_format {
    NQ_LOG_JSON = 0, /* one JSON object per line (the default; what log shippers parse) */
    NQ_LOG_TEXT      /* key=value pairs, for a person watching a terminal */
} nq_log_format;

/* A log line's severity, lowest first; --log-level drops every line below the one configured. */
typedef enum nq_log_level {
    NQ_LOG_DEBUG = 0, /* detail an operator turns on to follow a long count (each checkpoint) */
    NQ_LOG_INFO,      /* requests and life-cycle events (the default level) */
    NQ_LOG_WARN,      /* something failed and serving goes on */
    NQ_LOG_ERROR      /* something failed and the server cannot go on */
} nq_log_level;

typedef struct nq_config {
    nq_config_action action;                /* what main() should do */
    char bind_addr[NQ_CONFIG_ADDR_MAX];     /* numeric IPv4 or IPv6 address to listen on */
    uint16_t port;                          /* TCP port; 0 = let the kernel pick one */
    unsigned http_threads;                  /* libmicrohttpd worker threads (network I/O only) */
    unsigned solver_workers;                /* computations that run at once */
    unsigned count_threads;                 /* threads one /count computation uses; 0 = one per CPU
                                              (main resolves it with nq_cpus_available) */
    size_t cache_bytes;                     /* response cache capacity in bytes; 0 disables it */
    int max_n_solve;                        /* largest n /solve accepts (422 beyond) */
    int max_n_count;                        /* largest n /count accepts (422 beyond) */
    int long_count_n;                       /* counts from this n on run in the background (202) */
    unsigned long_counts;                   /* long counts that run at once */
    unsigned long_count_queue;              /* long counts that may wait for a runner; excess gets 503 */
    char store[NQ_CONFIG_PATH_MAX];         /* SQLite path, PostgreSQL conninfo; "none" = no store */
    unsigned checkpoint_ms;                 /* a long count's checkpoint interval */
    unsigned lease_ms;                      /* a claimed block's lease (renewed every third of it) */
    unsigned count_task_delay_ms;           /* tests only: sleep after each task of a long count */
    uint64_t max_solutions;                 /* most solutions one /solve response may carry */
    unsigned max_n_solution;                /* largest n /solution and /check accept (422 beyond) */
    unsigned max_n_board;                   /* largest n /solution renders with format=board */
    unsigned max_conflicts;                 /* most attacking pairs one /check lists */
    int max_n_complete;                     /* largest n /complete accepts (422 beyond) */
    int max_n_complete_count;               /* largest n /complete accepts with count=true */
    int max_n_trace;                        /* largest n /trace accepts */
    uint64_t max_trace_limit;               /* most steps one /trace page carries */
    int max_n_count_k;                      /* largest n /count accepts with k < n */
    int max_n_puzzle_queens;                /* largest n /puzzle makes queens puzzles of (422 beyond) */
    int max_n_puzzle_regions;               /* largest n /puzzle makes regions puzzles of (422 beyond) */
    int max_n_puzzle_solve;                 /* largest n of a puzzle given to /puzzle/solve (422 beyond) */
    uint64_t max_puzzle_limit;              /* most solutions /puzzle/solve counts (limit=) */
    uint64_t max_puzzle_nodes;              /* search nodes one puzzle search may use */
    unsigned queue_len;                     /* computations that may wait for a worker; excess gets 503 */
    unsigned long_count_waiters;            /* threads that hold requests waiting for a long count */
    unsigned deadline_ms;                   /* a caller waits this long for its computation; 0: no limit */
    unsigned budget_ms;                     /* an unwatched computation past this is cancelled; 0: never */
    char cors_origin[NQ_CONFIG_ORIGIN_MAX]; /* Access-Control-Allow-Origin value */
    nq_log_format log_format;               /* access and event log format on stdout */
    nq_log_level log_level;                 /* lines below this level are not written */
    unsigned conn_limit;                    /* open connections at most */
    unsigned per_ip_limit;                  /* open connections per client address; 0 = unlimited */
    unsigned conn_reserve;                  /* connections kept out of any one address's reach
                                              (nq_config_per_address_cap) */
    unsigned idle_timeout_s;                /* an idle keep-alive connection is closed after this */
    unsigned head_timeout_s;                /* the whole request head must arrive within this */
    size_t max_uri_bytes;                   /* longer request target: 414 */
    size_t max_header_bytes;                /* larger header section: 431 */
    size_t max_body_bytes;                  /* larger request body: 413 (each body is held in memory) */
    size_t max_bodies_bytes;                /* request bodies held at once, all together: past it 503 */
    unsigned max_gzip_streams;              /* responses gzipped as they are sent, at once; more go identity */
    size_t max_pinned_bytes;                /* bytes responses hold for clients still reading: past it 503 */
    unsigned grace_s;                       /* on SIGTERM, in-flight requests get this long to finish */
    char probe_url[NQ_CONFIG_URL_MAX];      /* --probe target; "" = http://127.0.0.1:<port>/healthz */
} nq_config;

/* Fill c with the built-in defaults (action NQ_ACTION_SERVE). Never fails. Thread-safe on distinct c. */
void nq_config_defaults(nq_config *c);

/* Apply the command-line flags argv[1..argc-1], then the environment variables from envp (a
 * NULL-terminated "NAME=value" array, NULL = none) of the options no flag gave (a flag overrides
 * its variable, which is then not read at all), on top of what c already holds (normally
 * nq_config_defaults).
 * Flags take "--name value" or "--name=value". --help, --version, --help-markdown and --probe [URL]
 * set c->action; a later option still gets validated.
 * Returns NQ_OK, or on a bad input NQ_E_PARAM_UNKNOWN (unknown flag), NQ_E_PARAM_MISSING (flag without
 * its value) or NQ_E_PARAM_INVALID (a value that does not parse or is out of range), with a one-line
 * message naming the option and the accepted values written to err (always NUL-terminated when
 * errlen > 0; err may be NULL if errlen is 0). NQ_E_ARG if c or argv is NULL.
 * On error c may be partly updated: the caller is expected to exit. Thread-safe on distinct c. */
nq_err nq_config_load(nq_config *c, int argc, char **argv, char **envp, char *err, size_t errlen);

/* Whether entry ("NAME=value", as in envp) sets one of the options. main() warns about NQUEENSD_*
 * variables that do not (a typo would otherwise be silently ignored). NULL gives false. */
bool nq_config_is_option_env(const char *entry);

/* Print the usage text (every option with its flag, variable, default and range) to out. */
void nq_config_usage(FILE *out, const char *prog);

/* Print the options as a Markdown table (docs/operations.md, "Configuration") to out. */
void nq_config_markdown(FILE *out);

#define NQ_CONFIG_ACCEPTS_MAX 128 /* nq_config_option_doc's accepts, NUL included */

/* One option of the table as its documentation shows it (the man page's generator reads them). The
 * strings are the table's own, static: never freed. */
typedef struct nq_config_option_doc {
    const char *flag;                    /* without the leading "--" */
    const char *env;                     /* its environment variable */
    const char *def;                     /* the default, as text */
    const char *meta;                    /* the value's placeholder */
    const char *help;                    /* what it does, one line */
    char accepts[NQ_CONFIG_ACCEPTS_MAX]; /* what it accepts, in words (as --help says) */
} nq_config_option_doc;

/* Option i of the table (0 first, in --help's order) into *out; false, *out untouched, past the
 * last. Reads the table only; thread-safe. */
bool nq_config_option_doc_get(size_t i, nq_config_option_doc *out);

/* The most connections one client address may hold: per_ip_limit when set, and in any case
 * conn_limit minus conn_reserve (the reserve held to at most a quarter of conn_limit, so a small
 * limit is not eaten by it). 0: no per-address cap. Pure; thread-safe. */
unsigned nq_config_per_address_cap(const nq_config *c);

/* The build's version ("1.0.0"), for --version, logs and metrics. */
const char *nq_config_version(void);

/* "json" or "text". */
const char *nq_config_log_format_name(nq_log_format f);

/* "debug", "info", "warn" or "error"; "info" for a value out of range. */
const char *nq_config_log_level_name(nq_log_level l);

#endif /* NQ_CONFIG_H */
