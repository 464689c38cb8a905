/* main.c - nqueensd: load the configuration, start the server, serve until SIGTERM/SIGINT, drain, exit.
 *
 * Signals are blocked in every thread (the mask is set before any thread starts) and taken
 * synchronously with sigwait here, so no handler runs in an arbitrary thread and no global flag is
 * needed.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* sigwait, nanosleep */
#endif
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "accesslog.h"
#include "config.h"
#include "server.h"

extern char **environ;

static void log_request(void *ctx, const nq_request_record *rec) { nq_accesslog_request(ctx, rec); }

/* Wait until no request is in flight, or grace_s passed. */
static void drain(nq_server *s, unsigned grace_s) {
    const struct timespec tick = {0, 20L * 1000 * 1000};
    for (unsigned waited_ms = 0; !nq_server_idle(s) && waited_ms < grace_s * 1000u; waited_ms += 20)
        nanosleep(&tick, NULL);
}

int main(int argc, char **argv) {
    nq_config cfg;
    char err[256];
    nq_config_defaults(&cfg);
    if (nq_config_load(&cfg, argc, argv, environ, err, sizeof err) != NQ_OK) {
        fprintf(stderr, "nqueensd: %s\n", err);
        return 2;
    }
    if (cfg.action == NQ_ACTION_HELP) {
        nq_config_usage(stdout, argv[0]);
        return 0;
    }
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    nq_accesslog *log = NULL;
    if (nq_accesslog_create(STDOUT_FILENO, STDERR_FILENO, cfg.log_format, &log) != NQ_OK) return 1;
    nq_server *s = NULL;
    const nq_err rc = nq_server_create(&cfg, &s);
    if (rc != NQ_OK) {
        const nq_log_field f[] = {NQ_LOG_STR("error", nq_err_name(rc)), NQ_LOG_STR("bind", cfg.bind_addr),
                                  NQ_LOG_INT("port", cfg.port)};
        nq_accesslog_event(log, NQ_LOG_ERROR, "cannot start", f, 3);
        nq_accesslog_destroy(log);
        return 1;
    }
    nq_server_set_observer(s, log_request, log);
    const nq_log_field f[] = {NQ_LOG_STR("bind", cfg.bind_addr), NQ_LOG_INT("port", nq_server_port(s))};
    nq_accesslog_event(log, NQ_LOG_INFO, "listening", f, 2);

    int sig = 0;
    sigwait(&stop, &sig);
    nq_server_drain(s);
    drain(s, cfg.grace_s);
    nq_server_destroy(s);
    nq_accesslog_event(log, NQ_LOG_INFO, "stopped", NULL, 0);
    nq_accesslog_destroy(log);
    return 0;
}
