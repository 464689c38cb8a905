/* main.c - nqueensd: configuration, start-up, signals and graceful shutdown; and the one-shot commands
 * --help, --version, --help-markdown and --probe.
 *
 * Signals: SIGTERM and SIGINT are blocked before any thread starts (threads inherit the mask), so no
 * handler ever runs and no thread but this one sees them; this thread takes them synchronously with
 * sigwait. A first signal drains: readiness 503, the listening socket closes, requests in flight get
 * grace_s to finish and their bytes to reach the clients (flush.h). A second one stops waiting.
 * Exit status: 0 after a drain (also when the grace period ran out: the stop was asked for), 1 when
 * the server cannot start, 2 for a bad configuration or a store file it must not use (corrupt,
 * another program's, written by a newer release: nothing started, the file untouched), probe: 0 on
 * 200, else 1.
 * The store is opened before anything else starts and closed after the server is gone, whose last
 * act is to write the checkpoints of the counts still running.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* sigwait, sigtimedwait, getrlimit */
#endif

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "ops/accesslog.h"
#include "base/clock.h"
#include "base/config.h"
#include "ops/flush.h"
#include "ops/ops.h"
#include "base/probe.h"
#include "nqueens/cpus.h"
#include "http/server.h"
#include "store/store.h"

extern char **environ;

/* Descriptors nqueensd needs besides its client connections: listening sockets, libmicrohttpd's
 * inter-thread channels (one per HTTP thread), stdio, the pool and guard threads' needs, headroom. */
#define FD_RESERVE 64u

#define PROBE_TIMEOUT_MS 2000u /* below the HEALTHCHECK's --timeout=3s */
#define DRAIN_TICK_MS 20       /* how often the drain looks whether the server went idle */

/* ---- one-shot commands -------------------------------------------------------------------------- */

/* The URL --probe uses without one: this configuration's /healthz, over loopback when the server
 * listens on every address, else on the address it is bound to. */
static void default_probe_url(const nq_config *cfg, char *out, size_t cap)
{
    const char *host = cfg->bind_addr;
    if (strcmp(host, "0.0.0.0") == 0)
        host = "127.0.0.1";
    else if (strcmp(host, "::") == 0)
        host = "::1";
    const int v6 = strchr(host, ':') != NULL;
    snprintf(out, cap, "http://%s%s%s:%u/healthz", v6 ? "[" : "", host, v6 ? "]" : "", (unsigned)cfg->port);
}

static int run_probe(const nq_config *cfg)
{
    char url[NQ_CONFIG_URL_MAX + 64];
    if (cfg->probe_url[0] != '\0')
        snprintf(url, sizeof url, "%s", cfg->probe_url);
    else
        default_probe_url(cfg, url, sizeof url);
    unsigned status = 0;
    char err[256];
    if (nq_probe_get(url, PROBE_TIMEOUT_MS, &status, err, sizeof err) != NQ_OK) {
        fprintf(stderr, "nqueensd --probe: %s\n", err);
        return 1;
    }
    if (status != 200) {
        fprintf(stderr, "nqueensd --probe: %s answered %u\n", url, status);
        return 1;
    }
    return 0;
}

static int run_command(const nq_config *cfg, const char *prog)
{
    switch (cfg->action) {
    case NQ_ACTION_HELP: nq_config_usage(stdout, prog); return 0;
    case NQ_ACTION_VERSION: printf("nqueensd %s\n", nq_config_version()); return 0;
    case NQ_ACTION_MARKDOWN: nq_config_markdown(stdout); return 0;
    case NQ_ACTION_PROBE: return run_probe(cfg);
    default: return 2;
    }
}

/* ---- start-up ----------------------------------------------------------------------------------- */

/* Raise the soft descriptor limit to the hard one: the default soft limit (1024) would cap the
 * connections well below conn_limit. Warns when even the hard limit is too low. */
static void raise_fd_limit(const nq_config *cfg, const nq_accesslog *log)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl); /* keep reporting what is really in force */
    }
    const rlim_t need = (rlim_t)cfg->conn_limit + FD_RESERVE;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        const nq_log_field f[] = {NQ_LOG_INT("fd_limit", rl.rlim_cur), NQ_LOG_INT("conn_limit", cfg->conn_limit),
                                  NQ_LOG_INT("needed", need)};
        nq_accesslog_event(log, NQ_LOG_WARN, "file descriptor limit below conn-limit; raise ulimit -n", f, 3);
    }
}

/* A NQUEENSD_* variable that sets no option is most likely a typo: say so rather than ignore it. */
static void warn_unknown_env(const nq_accesslog *log)
{
    for (char **e = environ; *e != NULL; e++) {
        if (strncmp(*e, "NQUEENSD_", 9) != 0 || nq_config_is_option_env(*e)) continue;
        const char *eq = strchr(*e, '=');
        char name[64];
        snprintf(name, sizeof name, "%.*s", eq != NULL ? (int)(eq - *e) : (int)strlen(*e), *e);
        const nq_log_field f[] = {NQ_LOG_STR("variable", name)};
        nq_accesslog_event(log, NQ_LOG_WARN, "unknown NQUEENSD_ variable ignored", f, 1);
    }
}

static void block_stop_signals(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    pthread_sigmask(SIG_BLOCK, set, NULL);
    /* A client or log reader that goes away must not kill the process; nor may a file-size limit
     * reached by the store (the write fails instead, and the store says so). */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
}

static void log_listening(const nq_config *cfg, const nq_server *s, const nq_accesslog *log)
{
    char store[sizeof cfg->store];
    nq_store_location_shown(cfg->store, store, sizeof store); /* never the password */
    const nq_log_field f[] = {
        NQ_LOG_STR("bind", cfg->bind_addr),
        NQ_LOG_INT("port", nq_server_port(s)),
        NQ_LOG_STR("version", nq_config_version()),
        NQ_LOG_INT("pid", getpid()),
        NQ_LOG_INT("http_threads", cfg->http_threads),
        NQ_LOG_INT("solver_workers", cfg->solver_workers),
        NQ_LOG_INT("count_threads", cfg->count_threads),
        NQ_LOG_INT("conn_limit", cfg->conn_limit),
        NQ_LOG_INT("cache_bytes", cfg->cache_bytes),
        NQ_LOG_STR("store", store),
    };
    nq_accesslog_event(log, NQ_LOG_INFO, "listening", f, sizeof f / sizeof f[0]);
}

/* ---- shutdown ----------------------------------------------------------------------------------- */

typedef bool (*drain_done_fn)(const void *arg);

static bool server_idle(const void *s)
{
    return nq_server_idle(s);
}

static bool port_flushed(const void *port)
{
    return nq_flush_pending(*(const uint16_t *)port) == 0;
}

/* Wait until done(arg), the deadline, or a second stop signal. True when done(arg) came true. */
static bool wait_for(drain_done_fn done, const void *arg, const sigset_t *stop, long long deadline)
{
    const struct timespec tick = {0, DRAIN_TICK_MS * 1000000L};
    while (!done(arg)) {
        if ((long long)nq_clock_ms() >= deadline) return false;
        /* The wait doubles as the sleep between two looks. */
        if (sigtimedwait(stop, NULL, &tick) >= 0) return false; /* asked twice: stop now */
    }
    return true;
}

/* The drain, then the stop: no new connections, within grace_s the requests in flight finish and what
 * they sent reaches their clients; then the server is destroyed. */
static void drain_and_stop(nq_server *s, const nq_config *cfg, const nq_accesslog *log, const sigset_t *stop, int sig)
{
    const nq_log_field f[] = {NQ_LOG_STR("signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"),
                              NQ_LOG_INT("grace_s", cfg->grace_s)};
    nq_accesslog_event(log, NQ_LOG_INFO, "draining", f, 2);
    const long long t0 = (long long)nq_clock_ms();
    const long long deadline = t0 + (long long)cfg->grace_s * 1000;
    const uint16_t port = nq_server_port(s);
    nq_server_drain(s);
    const bool idle = wait_for(server_idle, s, stop, deadline);
    const bool flushed = idle && wait_for(port_flushed, &port, stop, deadline);
    const nq_log_field g[] = {NQ_LOG_INT("drain_ms", (long long)nq_clock_ms() - t0)};
    if (!idle)
        nq_accesslog_event(log, NQ_LOG_WARN, "requests still in flight at the end of the grace period", g, 1);
    else if (!flushed)
        nq_accesslog_event(log, NQ_LOG_WARN, "responses still undelivered at the end of the grace period", g, 1);
    nq_server_destroy(s);
    nq_accesslog_event(log, NQ_LOG_INFO, "stopped", g, 1);
}

/* Open the configured store ("none": none). False, with the reason on stderr, when the file must
 * not be used; *store stays NULL for "none". */
static bool open_store(const nq_config *cfg, nq_store **store)
{
    *store = NULL;
    if (strcmp(cfg->store, "none") == 0) return true;
    char err[512] = "";
    if (nq_store_open(cfg->store, store, err, sizeof err) == NQ_OK) {
        if (err[0]) fprintf(stderr, "nqueensd: %s\n", err); /* a database not reachable yet: not fatal */
        return true;
    }
    fprintf(stderr, "nqueensd: %s\n", err);
    return false;
}

static int serve(const nq_config *cfg)
{
    sigset_t stop;
    block_stop_signals(&stop); /* before nq_server_create starts any thread */
    nq_ops *ops = NULL;
    nq_server *s = NULL;
    nq_store *store = NULL;
    if (!open_store(cfg, &store)) return 2;
    nq_err rc = nq_ops_create(cfg, &ops);
    if (rc != NQ_OK) {
        fprintf(stderr, "nqueensd: cannot start: %s\n", nq_error_message(rc));
        nq_store_close(store);
        return 1;
    }
    const nq_accesslog *log = nq_ops_log(ops);
    raise_fd_limit(cfg, log);
    warn_unknown_env(log);
    rc = nq_server_create(cfg, ops, store, &s);
    if (rc != NQ_OK) {
        const nq_log_field f[] = {NQ_LOG_STR("error", nq_error_name(rc)), NQ_LOG_STR("detail", nq_error_message(rc)),
                                  NQ_LOG_STR("bind", cfg->bind_addr), NQ_LOG_INT("port", cfg->port)};
        nq_accesslog_event(log, NQ_LOG_ERROR, "cannot start", f, 4);
        nq_ops_destroy(ops);
        nq_store_close(store);
        return 1;
    }
    log_listening(cfg, s, log);

    int sig = 0;
    while (sigwait(&stop, &sig) != 0)
        ;
    drain_and_stop(s, cfg, log, &stop, sig);
    nq_ops_destroy(ops);
    nq_store_close(store);
    return 0;
}

int main(int argc, char **argv)
{
    nq_config cfg;
    char err[320];
    nq_config_defaults(&cfg);
    if (nq_config_load(&cfg, argc, argv, environ, err, sizeof err) != NQ_OK) {
        fprintf(stderr, "nqueensd: %s\n", err);
        return 2;
    }
    if (cfg.action != NQ_ACTION_SERVE) return run_command(&cfg, argc > 0 ? argv[0] : "nqueensd");
    if (cfg.count_threads == 0) { /* the container's CPUs, not the host's: cpus.h */
        const unsigned cpus = nq_cpus_available();
        cfg.count_threads = cpus < NQ_COUNT_THREADS_MAX ? cpus : NQ_COUNT_THREADS_MAX;
    }
    return serve(&cfg);
}
