/* main.c - nqueens-mpi: count the N-Queens solutions of one n across the ranks of an MPI job.
 *
 *   mpirun -np P nqueens-mpi N [--threads T] [--checkpoint FILE [--checkpoint-every S] [--accept-unchecked]]
 *
 * Rank 0 hands the tasks of n's plan out to ranks 1..P-1 (with P = 1 it counts alone), adds their
 * sums exactly and prints {"n":N,"total":..,"unique":..} on its standard output, the bytes
 * `nqueens count N` prints; progress lines go to its standard error. With --checkpoint the done
 * tasks and their sums are written to FILE (atomically, at most every S seconds, default 10, and
 * at the end), and a job started again with the same FILE resumes from it; a FILE of another count
 * is refused and left alone, as is one without its check line unless --accept-unchecked says to take
 * it. SIGTERM, SIGINT or SIGUSR1 stops the job and keeps what it counted (mpi_count.h).
 * Exit status: 0 printed, 1 failure, 2 usage error or foreign checkpoint, 3 stopped by a signal.
 * Every rank parses the same arguments; only rank 0 reports.
 */
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_count.h"
#include "nqueens/cpus.h"
#include "nqueens/parse.h"
#include "nqueens/solver.h"
#include "nqueens/version.h"
#include "stop_signals.h"

#ifndef NQ_RELEASE
#define NQ_RELEASE "unknown" /* the build defines it from the CMake project version */
#endif

#define THREADS_MAX 1024    /* as the nqueens tool's --threads */
#define EVERY_DEFAULT_S 10u /* checkpoint interval without --checkpoint-every */
#define EVERY_MAX_S 86400u  /* a day */

/* Set by SIGTERM, SIGINT or SIGUSR1; the one mutable global, as a signal handler needs (mpi_count.h).
 * A lock-free atomic, which a handler may set and any thread read (C11 7.14.1.1). */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stop flag is lock-free");
static atomic_int stop_signal;

static void on_stop_signal(int sig)
{
    atomic_store_explicit(&stop_signal, sig, memory_order_relaxed);
}

bool nq_mpi_stop_requested(void)
{
    return atomic_load_explicit(&stop_signal, memory_order_relaxed) != 0;
}

/* SIGTERM, SIGINT and SIGUSR1 stop the job keeping its work (mpi_count.h), instead of killing the rank.
 * Restarting: MPI and stdio calls go on; the main thread polls the flag. */
static void catch_stop_signals(void)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGUSR1};
    nq_stop_signals_catch(sigs, sizeof sigs / sizeof sigs[0], on_stop_signal, true);
}

static const char usage[] =
    "Usage: mpirun -np P nqueens-mpi N [--threads T] [--checkpoint FILE [--checkpoint-every S]\n"
    "                                      [--accept-unchecked]]\n"
    "       nqueens-mpi --help | --version\n"
    "Counts the solutions (OEIS A000170) and symmetry classes (A002562) of the N x N board,\n"
    "N = 1..27, across the ranks of an MPI job; prints {\"n\":N,\"total\":..,\"unique\":..}.\n"
    "  --threads T           counting threads per rank, 0 (the default) for one per CPU the rank\n"
    "                        may use (its affinity mask and cgroup CPU quota).\n"
    "  --checkpoint FILE     keep the done tasks in FILE and resume from it when it exists.\n"
    "  --checkpoint-every S  write FILE at most every S seconds (default 10; 0: after every result,\n"
    "                        with -np 1 after every task: for tests, far slower).\n"
    "  --accept-unchecked    resume from a FILE without its check line (an older release's), which\n"
    "                        is otherwise refused: damage in such a file cannot be found.\n"
    "SIGTERM, SIGINT or SIGUSR1 stops the job within about a second, keeping what it counted in FILE.\n"
    "Exit status: 0 counted, 1 failure, 2 usage error or unusable checkpoint, 3 stopped.\n";

__attribute__((format(printf, 2, 3))) static bool fail(bool loud, const char *fmt, ...)
{
    if (!loud) return false;
    va_list ap;
    va_start(ap, fmt);
    fputs("nqueens-mpi: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'nqueens-mpi --help'.\n", stderr);
    return false;
}

static bool number(const char *s, uint64_t max, uint64_t *out)
{
    return nq_parse_u64(s, strlen(s), max, out) == NQ_OK;
}

/* The value of option argv[*i]: the next argument. */
static const char *value_of(int argc, char *argv[], int *i)
{
    return *i + 1 < argc ? argv[++*i] : NULL;
}

/* One option at argv[*i]; seen tells which were given before. */
static bool option(int argc, char *argv[], int *i, nq_mpi_opts *o, unsigned *seen, bool loud)
{
    static const char *const names[] = {"--threads", "--checkpoint", "--checkpoint-every", "--accept-unchecked"};
    unsigned which = 0;
    while (which < 4 && strcmp(argv[*i], names[which]) != 0) which++;
    if (which == 4) return fail(loud, "unknown option '%s'", argv[*i]);
    if (*seen & (1u << which)) return fail(loud, "%s given twice", names[which]);
    *seen |= 1u << which;
    if (which == 3) { /* a flag, the only one */
        o->accept_unchecked = true;
        return true;
    }
    const char *v = value_of(argc, argv, i);
    uint64_t x = 0;
    if (v == NULL) return fail(loud, "%s needs a value", names[which]);
    if (which == 0) {
        if (!number(v, THREADS_MAX, &x))
            return fail(loud, "--threads must be a whole number from 0 to %d, not '%s'", THREADS_MAX, v);
        o->threads = (int)x;
    } else if (which == 1) {
        if (v[0] == '\0') return fail(loud, "--checkpoint needs a file name");
        o->checkpoint = v;
    } else {
        if (!number(v, EVERY_MAX_S, &x))
            return fail(loud, "--checkpoint-every must be a whole number of seconds from 0 to %u, not '%s'",
                        EVERY_MAX_S, v);
        o->every_s = (double)x;
    }
    return true;
}

/* What a rank was asked to do; every rank must agree (main). */
enum { ASK_REFUSED, ASK_HELP, ASK_COUNT, ASK_VERSION };

/* Parse argv; *asked is set to ASK_HELP for --help, ASK_VERSION for --version. loud: report errors
 * (rank 0 only). */
static bool parse(int argc, char *argv[], nq_mpi_opts *o, int *asked, bool loud)
{
    const char *n_text = NULL;
    unsigned seen = 0;
    *o = (nq_mpi_opts){.every_s = EVERY_DEFAULT_S};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            *asked = ASK_HELP;
            return true;
        }
        if (strcmp(argv[i], "--version") == 0) {
            *asked = ASK_VERSION;
            return true;
        }
        if (argv[i][0] == '-') {
            if (!option(argc, argv, &i, o, &seen, loud)) return false;
        } else if (n_text == NULL) {
            n_text = argv[i];
        } else {
            return fail(loud, "unexpected argument '%s'", argv[i]);
        }
    }
    uint64_t n = 0;
    if (n_text == NULL) return fail(loud, "missing the board size N");
    if (!number(n_text, NQ_COUNT_N_MAX, &n) || n < NQ_N_MIN)
        return fail(loud, "N must be a whole number from %d to %d, not '%s'", NQ_N_MIN, NQ_COUNT_N_MAX, n_text);
    if ((seen & 4u) && !(seen & 2u)) return fail(loud, "--checkpoint-every needs --checkpoint");
    if ((seen & 8u) && !(seen & 2u)) return fail(loud, "--accept-unchecked needs --checkpoint");
    o->n = (int)n;
    /* 0: the CPUs this rank may use, as the nqueens tool counts them (a rank in a container with a CPU
     * quota gets that many threads, not one per core of the node). */
    if (o->threads == 0) o->threads = (int)nq_cpus_available();
    *asked = ASK_COUNT;
    return true;
}

int main(int argc, char *argv[])
{
    int provided = 0, rank = 0, size = 1;
    /* Only the main thread of a rank calls MPI; the library's threads only count. */
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    nq_mpi_opts opts;
    int asked = ASK_REFUSED;
    int status = NQ_MPI_EXIT_USAGE;
    /* Every rank parses its own arguments (a launch may give ranks different ones), and all agree on
     * the outcome before any counts: a rank that would not count must not leave the others waiting
     * for it. */
    const bool parsed = parse(argc, argv, &opts, &asked, rank == 0);
    const int mine = parsed ? asked : ASK_REFUSED;
    int least = mine, most = mine;
    MPI_Allreduce(&mine, &least, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (least != most && rank == 0 && parsed)
        fputs("nqueens-mpi: the ranks were given different arguments (another rank's are refused, or ask for "
              "--help or --version): every rank must be given the same\n",
              stderr);
    if (least == most && mine != ASK_REFUSED) {
        if (mine == ASK_HELP || mine == ASK_VERSION) {
            if (rank == 0 && mine == ASK_HELP) fputs(usage, stdout);
            if (rank == 0 && mine == ASK_VERSION) printf("nqueens-mpi %s\n", nq_version());
            status = NQ_MPI_EXIT_OK;
        } else if (provided < MPI_THREAD_FUNNELED) {
            if (rank == 0) fputs("nqueens-mpi: the MPI library does not allow threads\n", stderr);
            status = NQ_MPI_EXIT_FAILURE;
        } else {
            catch_stop_signals();
            bool dismissed = true;
            status = rank == 0 ? nq_mpi_coordinate(&opts, size - 1, stdout, stderr, &dismissed) : nq_mpi_work(&opts);
            /* Rank 0 failing mid-count may leave workers counting or waiting: end the whole job with its
             * status. A worker's failure, a stop and a refusal at the start have dismissed them already. */
            if (status == NQ_MPI_EXIT_FAILURE && rank == 0 && size > 1 && !dismissed) MPI_Abort(MPI_COMM_WORLD, status);
        }
    }
    MPI_Finalize();
    return status;
}
