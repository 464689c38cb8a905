/* main.c - the nqueens command-line tool: parse, then count, solve, find a solution, check one or
 * make and solve puzzles (see cli.h), or print its help or version. */
#include "cli.h"

#include <signal.h>
#include <string.h>

#include "help.h"
#include "nqueens/version.h"
#include "stop_signals.h"

/* The signal (SIGINT or SIGTERM) that cancelled a count or a random search, 0 while none has; the one
 * mutable global, as a signal handler needs. */
static volatile sig_atomic_t interrupted = 0;

static void on_interrupt(int sig)
{
    interrupted = sig;
}

/* Ctrl-C (SIGINT) or a stop (SIGTERM: kill, a container's runtime, a batch system) during a count or
 * a random search cancels it cleanly (the library stops its workers) instead of killing the process
 * mid-way. solve and check keep the default actions: nothing to clean up. */
static void catch_interrupt(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    nq_stop_signals_catch(sigs, sizeof sigs / sizeof sigs[0], on_interrupt, false);
}

/* After a cancelled count or search has said so, end the way the uncaught signal would: a shell
 * running the CLI in a loop (one shard after another) sees its command killed by SIGINT and stops
 * the loop too, where an exit with status 130 would let it start the next one. */
static int end_by_interrupt(int status)
{
    if (status != NQ_CLI_EXIT_INTERRUPTED) return status;
    const int sig = interrupted != 0 ? (int)interrupted : SIGINT;
    fflush(stdout);
    fflush(stderr);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    raise(sig);
    /* Still here: the kernel drops a signal whose action is the default when the process is PID 1
     * of its namespace (the CLI as a container's entry point). Exit 128 + the signal, as a shell
     * reports it: 130 for SIGINT, 143 for SIGTERM. */
    return 128 + sig;
}

/* --help, help [COMMAND] and --version: on stdout, status 0 unless the writing fails. */
static int print_info(const nq_cli_opts *opts)
{
    if (opts->command == NQ_CLI_VERSION)
        printf("nqueens %s\n", nq_version()); /* as nqueensd --version: the project's one version */
    else
        nq_cli_help_command(stdout, opts->help_topic);
    if (fflush(stdout) == 0 && !ferror(stdout)) return NQ_CLI_EXIT_OK;
    fputs("nqueens: write error on standard output\n", stderr);
    return NQ_CLI_EXIT_FAILURE;
}

int main(int argc, char *argv[])
{
    nq_cli_opts opts;
    char why[256];
    if (!nq_cli_parse(argc, argv, &opts, why, sizeof why)) {
        fprintf(stderr, "nqueens: %s (try 'nqueens help')\n", why); /* one line, for logs and scripts */
        return NQ_CLI_EXIT_USAGE;
    }
    switch (opts.command) {
    case NQ_CLI_COUNT:
        if (opts.sum) return nq_cli_sum(&opts, stdin, stdout, stderr);
        catch_interrupt();
        return end_by_interrupt(nq_cli_count(&opts, stdout, stderr, &interrupted));
    case NQ_CLI_SOLVE: return nq_cli_solve(&opts, stdout, stderr);
    case NQ_CLI_SOLUTION:
        catch_interrupt();
        return end_by_interrupt(nq_cli_solution(&opts, stdout, stderr, &interrupted));
    case NQ_CLI_CHECK: return nq_cli_check(&opts, stdin, stdout, stderr);
    case NQ_CLI_COMPLETE: return nq_cli_complete(&opts, stdout, stderr);
    case NQ_CLI_TRACE: return nq_cli_trace(&opts, stdout, stderr);
    case NQ_CLI_PUZZLE: return nq_cli_puzzle(&opts, stdin, stdout, stderr);
    case NQ_CLI_HELP:
    case NQ_CLI_VERSION: break;
    }
    return print_info(&opts);
}
