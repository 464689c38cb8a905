/* test_config.c - unit tests of nqueensd's configuration: defaults, flags, environment, validation. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */

#include "base/config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "check_run.h"
#include "nqueens/solver.h"

/* Copy a NULL-terminated list of strings into owned, writable strings (nq_config_load takes char **,
 * as main() has them). Returns the count; the copy is NULL-terminated. */
static int copy_list(const char *const *src, char **dst, int first, int cap)
{
    int n = first;
    for (int i = 0; src != NULL && src[i] != NULL && n < cap - 1; i++) dst[n++] = strdup(src[i]);
    dst[n] = NULL;
    return n;
}

static void free_list(char **list)
{
    for (; *list != NULL; list++) free(*list);
}

/* Load args (NULL-terminated, without the program name) and env on top of the defaults. */
static nq_err load(nq_config *c, const char *const *args, const char *const *env, char *err, size_t errlen)
{
    char *argv[16];
    char *envp[8];
    argv[0] = strdup("nqueensd");
    const int argc = copy_list(args, argv, 1, 16);
    copy_list(env, envp, 0, 8);
    nq_config_defaults(c);
    const nq_err rc = nq_config_load(c, argc, argv, envp, err, errlen);
    free_list(argv);
    free_list(envp);
    return rc;
}

START_TEST(defaults_are_documented_values)
{
    nq_config c;
    nq_config_defaults(&c);
    ck_assert_int_eq(c.action, NQ_ACTION_SERVE);
    ck_assert_str_eq(c.bind_addr, "0.0.0.0");
    ck_assert_uint_eq(c.port, 8080);
    ck_assert_uint_eq(c.http_threads, 4);
    ck_assert_uint_eq(c.solver_workers, 2);
    ck_assert_uint_eq(c.count_threads, 0);
    ck_assert_uint_eq(c.cache_bytes, (size_t)64 << 20);
    ck_assert_int_eq(c.max_n_solve, 20);
    ck_assert_int_eq(c.max_n_count, 19);
    ck_assert_uint_eq(c.max_solutions, 100000);
    ck_assert_uint_eq(c.queue_len, 64);
    ck_assert_uint_eq(c.deadline_ms, 10000);
    ck_assert_str_eq(c.store, "nqueens.db");
    ck_assert_int_eq(c.long_count_n, 17);
    ck_assert_uint_eq(c.long_counts, 1);
    ck_assert_uint_eq(c.long_count_queue, 8);
    ck_assert_uint_eq(c.checkpoint_ms, 5000);
    ck_assert_uint_eq(c.count_task_delay_ms, 0);
    ck_assert_uint_eq(c.budget_ms, 60000);
    ck_assert_str_eq(c.cors_origin, "*");
    ck_assert_int_eq(c.log_format, NQ_LOG_JSON);
    ck_assert_int_eq(c.log_level, NQ_LOG_INFO);
    ck_assert_uint_eq(c.conn_limit, 4096);
    ck_assert_uint_eq(c.per_ip_limit, 0);
    ck_assert_uint_eq(c.idle_timeout_s, 30);
    ck_assert_uint_eq(c.head_timeout_s, 10);
    ck_assert_uint_eq(c.max_uri_bytes, 8192);
    ck_assert_uint_eq(c.max_header_bytes, 16384);
    ck_assert_uint_eq(c.max_body_bytes, 1048576);
    ck_assert_uint_eq(c.max_bodies_bytes, 64u << 20);
    ck_assert_uint_eq(c.grace_s, 8);
    ck_assert_str_eq(c.probe_url, "");
}
END_TEST

/* ---- accepted values: each row sets one option and checks the field --------------------------- */

typedef enum field {
    F_PORT,
    F_BIND,
    F_CACHE,
    F_MAXN_SOLVE,
    F_MAXN_COUNT,
    F_MAXSOL,
    F_DEADLINE,
    F_ORIGIN,
    F_LOGFMT,
    F_LOGLVL,
    F_CONN,
    F_URI,
    F_BODY,
    F_GRACE,
    F_THREADS,
    F_STORE,
    F_LONG_N,
    F_CHECKPOINT
} field;

static const struct ok_row {
    const char *args[4];
    const char *env[3];
    field f;
    uint64_t num;    /* expected numeric value */
    const char *str; /* expected string value (string fields) */
} ok_rows[] = {
    {{"--port", "0"}, {NULL}, F_PORT, 0, NULL},
    {{"--port=65535"}, {NULL}, F_PORT, 65535, NULL},
    {{NULL}, {"NQUEENSD_PORT=9000"}, F_PORT, 9000, NULL},
    {{"--port", "9001"}, {"NQUEENSD_PORT=9000"}, F_PORT, 9001, NULL},              /* flag beats environment */
    {{"--port", "9001"}, {"NQUEENSD_PORT=tcp://10.0.0.1:80"}, F_PORT, 9001, NULL}, /* ... a bad one too */
    {{"--port", "1", "--port", "2"}, {NULL}, F_PORT, 2, NULL},                     /* last flag wins */
    {{NULL}, {"NQUEENSD_PORTX=1", "NQUEENSD_PORT=7"}, F_PORT, 7, NULL},            /* prefix is not a match */
    {{"--bind", "127.0.0.1"}, {NULL}, F_BIND, 0, "127.0.0.1"},
    {{"--bind", "::1"}, {NULL}, F_BIND, 0, "::1"},
    {{NULL}, {"NQUEENSD_BIND=::"}, F_BIND, 0, "::"},
    {{"--cache-bytes", "0"}, {NULL}, F_CACHE, 0, NULL},
    {{"--cache-bytes", "1000"}, {NULL}, F_CACHE, 1000, NULL},
    {{"--cache-bytes", "3K"}, {NULL}, F_CACHE, 3072, NULL},
    {{"--cache-bytes", "2m"}, {NULL}, F_CACHE, 2097152, NULL},
    {{"--cache-bytes", "1G"}, {NULL}, F_CACHE, 1073741824, NULL},
    {{"--cache-bytes", "1024G"}, {NULL}, F_CACHE, (uint64_t)1 << 40, NULL},
    {{"--max-n-solve", "32"}, {NULL}, F_MAXN_SOLVE, 32, NULL},
    {{"--max-n-count", "25"}, {NULL}, F_MAXN_COUNT, 25, NULL},
    {{"--max-n-count", "1"}, {NULL}, F_MAXN_COUNT, 1, NULL},
    {{"--max-solutions", "100000000"}, {NULL}, F_MAXSOL, 100000000, NULL},
    {{"--deadline-ms", "0"}, {NULL}, F_DEADLINE, 0, NULL},
    {{"--cors-origin", "https://example.com"}, {NULL}, F_ORIGIN, 0, "https://example.com"},
    {{"--log-format", "text"}, {NULL}, F_LOGFMT, NQ_LOG_TEXT, NULL},
    {{NULL}, {"NQUEENSD_LOG_FORMAT=json"}, F_LOGFMT, NQ_LOG_JSON, NULL},
    {{"--log-level", "debug"}, {NULL}, F_LOGLVL, NQ_LOG_DEBUG, NULL},
    {{NULL}, {"NQUEENSD_LOG_LEVEL=error"}, F_LOGLVL, NQ_LOG_ERROR, NULL},
    {{"--conn-limit", "1000000"}, {NULL}, F_CONN, 1000000, NULL},
    {{"--max-uri-bytes", "64"}, {NULL}, F_URI, 64, NULL},
    {{"--max-uri-bytes", "64K"}, {NULL}, F_URI, 65536, NULL},
    {{"--max-body-bytes", "4K"}, {NULL}, F_BODY, 4096, NULL},
    {{NULL}, {"NQUEENSD_MAX_BODY_BYTES=64"}, F_BODY, 64, NULL},
    {{"--grace-s", "0"}, {NULL}, F_GRACE, 0, NULL},
    {{"--http-threads", "007"}, {NULL}, F_THREADS, 7, NULL}, /* leading zeros are still decimal */
    {{"--store", "none"}, {NULL}, F_STORE, 0, "none"},
    {{"--store", "/var/lib/nq ueens/ü.db"}, {NULL}, F_STORE, 0, "/var/lib/nq ueens/ü.db"}, /* any bytes but controls */
    {{NULL}, {"NQUEENSD_STORE=data.db"}, F_STORE, 0, "data.db"},
    {{"--long-count-n", "28"}, {NULL}, F_LONG_N, 28, NULL}, /* 28: no count is long */
    {{"--checkpoint-ms", "50"}, {NULL}, F_CHECKPOINT, 50, NULL},
};

static uint64_t numeric(const nq_config *c, field f)
{
    switch (f) {
    case F_PORT: return c->port;
    case F_CACHE: return c->cache_bytes;
    case F_MAXN_SOLVE: return (uint64_t)c->max_n_solve;
    case F_MAXN_COUNT: return (uint64_t)c->max_n_count;
    case F_MAXSOL: return c->max_solutions;
    case F_DEADLINE: return c->deadline_ms;
    case F_LOGFMT: return (uint64_t)c->log_format;
    case F_LOGLVL: return (uint64_t)c->log_level;
    case F_CONN: return c->conn_limit;
    case F_URI: return c->max_uri_bytes;
    case F_BODY: return c->max_body_bytes;
    case F_GRACE: return c->grace_s;
    case F_THREADS: return c->http_threads;
    case F_LONG_N: return (uint64_t)c->long_count_n;
    case F_CHECKPOINT: return c->checkpoint_ms;
    default: return UINT64_MAX;
    }
}

START_TEST(accepts_valid_values)
{
    const struct ok_row *row = &ok_rows[_i];
    nq_config c;
    char err[256];
    ck_assert_msg(load(&c, row->args, row->env, err, sizeof err) == NQ_OK, "row %d: %s", _i, err);
    ck_assert_str_eq(err, "");
    if (row->f == F_BIND)
        ck_assert_str_eq(c.bind_addr, row->str);
    else if (row->f == F_ORIGIN)
        ck_assert_str_eq(c.cors_origin, row->str);
    else if (row->f == F_STORE)
        ck_assert_str_eq(c.store, row->str);
    else
        ck_assert_msg(numeric(&c, row->f) == row->num, "row %d: got %llu", _i, (unsigned long long)numeric(&c, row->f));
}
END_TEST

/* ---- rejected input: code and the message's key parts ------------------------------------------ */

static const struct bad_row {
    const char *args[4];
    const char *env[2];
    nq_err code;
    const char *msg; /* must appear in the message */
} bad_rows[] = {
    {{"--port", "65536"},
     {NULL},
     NQ_E_PARAM_INVALID,
     "--port (from the command line): expected an integer in 0..65535"},
    {{"--port", "-1"}, {NULL}, NQ_E_PARAM_INVALID, "invalid value \"-1\" for --port"},
    {{"--port", "+80"}, {NULL}, NQ_E_PARAM_INVALID, "\"+80\""},
    {{"--port", " 80"}, {NULL}, NQ_E_PARAM_INVALID, "\" 80\""},
    {{"--port", "80 "}, {NULL}, NQ_E_PARAM_INVALID, "\"80 \""},
    {{"--port", "0x50"}, {NULL}, NQ_E_PARAM_INVALID, "0..65535"},
    {{"--port", ""}, {NULL}, NQ_E_PARAM_INVALID, "\"\" for --port"},
    {{"--port="}, {NULL}, NQ_E_PARAM_INVALID, "\"\" for --port"},
    {{"--port", "1e3"}, {NULL}, NQ_E_PARAM_INVALID, "--port"},
    {{"--port", "99999999999999999999999"}, {NULL}, NQ_E_PARAM_INVALID, "0..65535"},
    {{NULL}, {"NQUEENSD_PORT=tcp://10.0.0.1:8080"}, NQ_E_PARAM_INVALID, "--port (from NQUEENSD_PORT)"},
    {{"--port"}, {NULL}, NQ_E_PARAM_MISSING, "option --port needs a value"},
    {{"--http-threads", "0"}, {NULL}, NQ_E_PARAM_INVALID, "1..256"},
    {{"--max-n-solve", "33"},
     {NULL},
     NQ_E_PARAM_INVALID,
     "--max-n-solve (from the command line): expected an integer in 1..32"},
    {{"--max-n-count", "26"}, {NULL}, NQ_E_PARAM_INVALID, "1..25"}, /* A000170(26) is beyond 2^53 - 1 */
    {{"--max-n-count", "0"}, {NULL}, NQ_E_PARAM_INVALID, "1..25"},
    {{"--max-n-complete-count", "26"}, {NULL}, NQ_E_PARAM_INVALID, "1..25"},
    {{"--max-n-count-k", "26"}, {NULL}, NQ_E_PARAM_INVALID, "1..25"},
    {{"--cache-bytes", "1025G"},
     {NULL},
     NQ_E_PARAM_INVALID,
     "a byte count in 0..1024G (suffix K, M or G: powers of 1024)"},
    {{"--cache-bytes", "1T"}, {NULL}, NQ_E_PARAM_INVALID, "suffix K, M or G"},
    {{"--max-header-bytes", "1023"}, {NULL}, NQ_E_PARAM_INVALID, "a byte count in 1K..1M"},
    {{"--cache-bytes", "1KB"}, {NULL}, NQ_E_PARAM_INVALID, "--cache-bytes"},
    {{"--cache-bytes", "K"}, {NULL}, NQ_E_PARAM_INVALID, "--cache-bytes"},
    {{"--cache-bytes", "18446744073709551615G"}, {NULL}, NQ_E_PARAM_INVALID, "--cache-bytes"},
    {{"--max-uri-bytes", "63"}, {NULL}, NQ_E_PARAM_INVALID, "in 64..64K"},
    {{"--max-body-bytes", "257M"}, {NULL}, NQ_E_PARAM_INVALID, "a byte count in 64..256M"},
    {{"--max-bodies-bytes", "65G"}, {NULL}, NQ_E_PARAM_INVALID, "a byte count in 64..64G"},
    {{"--max-bodies-bytes", "512K"},
     {NULL},
     NQ_E_PARAM_INVALID,
     "--max-bodies-bytes (524288) must be at least --max-body-bytes (1048576)"},
    {{"--max-body-bytes", "128M"}, {NULL}, NQ_E_PARAM_INVALID, "must be at least --max-body-bytes (134217728)"},
    {{"--bind", "localhost"}, {NULL}, NQ_E_PARAM_INVALID, "expected a numeric IPv4 or IPv6 address"},
    {{"--bind", "1.2.3.4.5"}, {NULL}, NQ_E_PARAM_INVALID, "--bind"},
    {{"--cors-origin", "a b"}, {NULL}, NQ_E_PARAM_INVALID, "--cors-origin"},
    {{"--cors-origin", "x\r\nSet-Cookie: a=b"}, {NULL}, NQ_E_PARAM_INVALID, "\"x??Set-Cookie: a=b\""},
    {{"--cors-origin", ""}, {NULL}, NQ_E_PARAM_INVALID, "--cors-origin"},
    {{"--log-format", "JSON"}, {NULL}, NQ_E_PARAM_INVALID, "expected json or text"},
    {{"--log-level", "trace"}, {NULL}, NQ_E_PARAM_INVALID, "expected debug, info, warn or error"},
    {{"--store", ""}, {NULL}, NQ_E_PARAM_INVALID, "expected a file path"},
    {{"--store", "a\nb"}, {NULL}, NQ_E_PARAM_INVALID, "--store"},
    {{"--long-count-n", "29"}, {NULL}, NQ_E_PARAM_INVALID, "1..28"},
    {{"--long-counts", "0"}, {NULL}, NQ_E_PARAM_INVALID, "1..64"},
    {{"--checkpoint-ms", "49"}, {NULL}, NQ_E_PARAM_INVALID, "50..3600000"},
    {{"--bogus"}, {NULL}, NQ_E_PARAM_UNKNOWN, "unknown option \"--bogus\""},
    {{"--port8080"}, {NULL}, NQ_E_PARAM_UNKNOWN, "unknown option"},
    {{"8080"}, {NULL}, NQ_E_PARAM_UNKNOWN, "unexpected argument \"8080\""},
    {{"-p", "8080"}, {NULL}, NQ_E_PARAM_UNKNOWN, "unexpected argument \"-p\""},
    {{"--probe", "https://x/"}, {NULL}, NQ_E_PARAM_INVALID, "expected an http:// URL"},
    {{"--help", "--port", "x"}, {NULL}, NQ_E_PARAM_INVALID, "--port"}, /* still validated */
};

START_TEST(rejects_bad_values)
{
    const struct bad_row *row = &bad_rows[_i];
    nq_config c;
    char err[256];
    ck_assert_int_eq(load(&c, row->args, row->env, err, sizeof err), row->code);
    ck_assert_msg(strstr(err, row->msg) != NULL, "row %d: message \"%s\" lacks \"%s\"", _i, err, row->msg);
    ck_assert_ptr_null(strchr(err, '\n'));
}
END_TEST

START_TEST(long_values_are_cut_in_messages)
{
    char big[300];
    memset(big, '9', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    const char *args[] = {"--port", big, NULL};
    nq_config c;
    char err[256];
    ck_assert_int_eq(load(&c, args, NULL, err, sizeof err), NQ_E_PARAM_INVALID);
    ck_assert_ptr_nonnull(strstr(err, "999...\" for --port"));
}
END_TEST

START_TEST(tiny_error_buffer_is_terminated)
{
    const char *args[] = {"--port", "x", NULL};
    nq_config c;
    char err[8];
    ck_assert_int_eq(load(&c, args, NULL, err, sizeof err), NQ_E_PARAM_INVALID);
    ck_assert_uint_eq(strlen(err), sizeof err - 1);
    ck_assert_int_eq(load(&c, args, NULL, NULL, 0), NQ_E_PARAM_INVALID);
}
END_TEST

/* ---- commands ------------------------------------------------------------------------------------ */

static const struct action_row {
    const char *args[4];
    nq_config_action action;
    const char *probe_url;
} action_rows[] = {
    {{NULL}, NQ_ACTION_SERVE, ""},
    {{"--help"}, NQ_ACTION_HELP, ""},
    {{"-h"}, NQ_ACTION_HELP, ""},
    {{"--version"}, NQ_ACTION_VERSION, ""},
    {{"--help-markdown"}, NQ_ACTION_MARKDOWN, ""},
    {{"--probe"}, NQ_ACTION_PROBE, ""},
    {{"--probe", "--port", "9"}, NQ_ACTION_PROBE, ""},
    {{"--probe", "http://127.0.0.1:9/readyz"}, NQ_ACTION_PROBE, "http://127.0.0.1:9/readyz"},
};

START_TEST(commands_set_the_action)
{
    const struct action_row *row = &action_rows[_i];
    nq_config c;
    char err[256];
    ck_assert_int_eq(load(&c, row->args, NULL, err, sizeof err), NQ_OK);
    ck_assert_int_eq(c.action, row->action);
    ck_assert_str_eq(c.probe_url, row->probe_url);
}
END_TEST

START_TEST(bad_arguments_to_load)
{
    nq_config c;
    char prog[] = "nqueensd";
    char *argv[] = {prog, NULL};
    char err[16] = "junk";
    ck_assert_int_eq(nq_config_load(NULL, 1, argv, NULL, err, sizeof err), NQ_E_ARG);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(nq_config_load(&c, 1, NULL, NULL, err, sizeof err), NQ_E_ARG);
}
END_TEST

/* Every option appears in --help and in the Markdown table, with its variable. */
START_TEST(help_lists_every_option)
{
    char *usage = NULL, *md = NULL;
    size_t ulen = 0, mlen = 0;
    FILE *u = open_memstream(&usage, &ulen);
    FILE *m = open_memstream(&md, &mlen);
    nq_config_usage(u, "nqueensd");
    nq_config_markdown(m);
    fclose(u);
    fclose(m);
    static const char *const flags[] = {"bind",
                                        "port",
                                        "http-threads",
                                        "solver-workers",
                                        "count-threads",
                                        "cache-bytes",
                                        "max-n-solve",
                                        "max-n-count",
                                        "max-solutions",
                                        "queue-len",
                                        "deadline-ms",
                                        "budget-ms",
                                        "cors-origin",
                                        "log-format",
                                        "log-level",
                                        "conn-limit",
                                        "per-ip-limit",
                                        "idle-timeout-s",
                                        "head-timeout-s",
                                        "max-uri-bytes",
                                        "max-header-bytes",
                                        "grace-s",
                                        "long-count-n",
                                        "long-counts",
                                        "long-count-queue",
                                        "long-count-waiters",
                                        "store",
                                        "checkpoint-ms",
                                        "count-task-delay-ms",
                                        "max-body-bytes",
                                        "max-bodies-bytes"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        char want[64];
        snprintf(want, sizeof want, "--%s ", flags[i]);
        ck_assert_msg(strstr(usage, want) != NULL, "usage lacks %s", want);
        snprintf(want, sizeof want, "| `--%s` | `NQUEENSD_", flags[i]);
        ck_assert_msg(strstr(md, want) != NULL, "markdown lacks %s", want);
    }
    ck_assert_ptr_nonnull(strstr(md, "| `--port` | `NQUEENSD_PORT` | `8080` | an integer in 0..65535 |"));
    free(usage);
    free(md);
}
END_TEST

static const struct env_row {
    const char *entry;
    bool option;
} env_rows[] = {
    {"NQUEENSD_PORT=1", true},   {"NQUEENSD_PORT=", true}, {"NQUEENSD_GRACE_S=3", true},
    {"NQUEENSD_PORTS=1", false}, {"NQUEENSD_PORT", false}, {"NQUEENSD_CACHE_BYTE=1", false},
    {"nqueensd_port=1", false},  {"PATH=/bin", false},     {"", false},
};

START_TEST(recognises_option_variables)
{
    ck_assert_msg(nq_config_is_option_env(env_rows[_i].entry) == env_rows[_i].option, "%s", env_rows[_i].entry);
    ck_assert(!nq_config_is_option_env(NULL));
}
END_TEST

START_TEST(version_comes_from_the_build)
{
    ck_assert_str_eq(nq_config_version(), NQ_TEST_VERSION);
}
END_TEST

/* One address's share: per-ip-limit when lower, else conn-limit less a reserve of at most a quarter. */
static const struct {
    unsigned conn_limit, per_ip, reserve, want;
} cap_rows[] = {
    {4096, 0, 64, 4032}, {4096, 16, 64, 16}, {4096, 5000, 64, 4032}, {4096, 0, 0, 0},    {4096, 7, 0, 7},
    {3, 0, 64, 0},       {10, 0, 64, 8},     {40, 0, 8, 32},         {100, 0, 1000, 75},
};

/* The largest count the server may be configured to answer is the last whose totals a JSON client
 * holds exactly: A000170(25) is at most 2^53 - 1, A000170(26) above it. */
START_TEST(served_counts_fit_json)
{
    nq_counts c25, c26;
    ck_assert(nq_count_known(NQ_SERVED_COUNT_N_MAX, &c25));
    ck_assert(nq_count_known(NQ_SERVED_COUNT_N_MAX + 1, &c26));
    ck_assert_uint_le(c25.total, (UINT64_C(1) << 53) - 1);
    ck_assert_uint_gt(c26.total, (UINT64_C(1) << 53) - 1);
}
END_TEST

START_TEST(per_address_cap)
{
    nq_config c;
    nq_config_defaults(&c);
    ck_assert_uint_eq(c.conn_reserve, 64);
    c.conn_limit = cap_rows[_i].conn_limit;
    c.per_ip_limit = cap_rows[_i].per_ip;
    c.conn_reserve = cap_rows[_i].reserve;
    ck_assert_uint_eq(nq_config_per_address_cap(&c), cap_rows[_i].want);
}
END_TEST

static Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, defaults_are_documented_values);
    tcase_add_loop_test(tc, accepts_valid_values, 0, (int)(sizeof ok_rows / sizeof ok_rows[0]));
    tcase_add_loop_test(tc, rejects_bad_values, 0, (int)(sizeof bad_rows / sizeof bad_rows[0]));
    tcase_add_test(tc, long_values_are_cut_in_messages);
    tcase_add_test(tc, tiny_error_buffer_is_terminated);
    tcase_add_loop_test(tc, commands_set_the_action, 0, (int)(sizeof action_rows / sizeof action_rows[0]));
    tcase_add_test(tc, bad_arguments_to_load);
    tcase_add_test(tc, help_lists_every_option);
    tcase_add_test(tc, version_comes_from_the_build);
    tcase_add_test(tc, served_counts_fit_json);
    tcase_add_loop_test(tc, per_address_cap, 0, (int)(sizeof cap_rows / sizeof cap_rows[0]));
    tcase_add_loop_test(tc, recognises_option_variables, 0, (int)(sizeof env_rows / sizeof env_rows[0]));
    suite_add_tcase(s, tc);
    return s;
}

/* With --markdown, print the configuration table of docs/operations.md instead (for ops_config_table). */
int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--markdown") == 0) {
        nq_config_markdown(stdout);
        return EXIT_SUCCESS;
    }
    const int failed = nq_check_run(config_suite());
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
