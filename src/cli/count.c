/* count.c - `nqueens count`: run nq_count (or one shard of the plan, shard.c), with a progress line
 * on a terminal (progress.h) and Ctrl-C to stop.
 *
 * --threads 0 means the CPUs this process may use (cpus.h: affinity mask and cgroup CPU quota), as
 * nqueensd's --count-threads 0 does: in a container limited to 2 CPUs on a 64-CPU node, 2 threads,
 * not 64 throttled to 2 CPUs' worth.
 *
 * The count runs on a helper thread (and the library's workers) while the main thread waits on a
 * condition variable in 50 ms steps: often enough to redraw the bar and to notice an interrupt,
 * and a quick count wakes it at once instead of at the next step.
 */
#include "cli.h"

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nqueens/cpus.h"
#include "nqueens/json.h"
#include "nqueens/kqueens.h"
#include "progress.h"

#define TICK_NS 50000000L /* 50 ms between looks at the stop flag and the line */
#define BAR_AFTER_S 1.0   /* counts shorter than this never show a progress line */

typedef struct bg_count {
    const nq_cli_opts *opts; /* n, threads */
    nq_count_ctl ctl;        /* shared with the library's workers */
    nq_counts counts;        /* the result */
    nq_json_shard shard;     /* the result with --shard */
    nq_err err;              /* nq_count's answer */
    bool finished;           /* guarded by lock */
    pthread_mutex_t lock;    /* guards finished */
    pthread_cond_t done;     /* signalled when finished becomes true */
} bg_count;

static void *run_count(void *arg)
{
    bg_count *bg = arg;
    const nq_cli_opts *o = bg->opts;
    if (o->has_shard)
        bg->err = nq_cli_shard_count(o, &bg->ctl, &bg->shard);
    else
        bg->err = o->has_k ? nq_count_k(o->n, o->k, o->threads, &bg->ctl, &bg->counts)
                           : nq_count(o->n, o->threads, &bg->ctl, &bg->counts);
    pthread_mutex_lock(&bg->lock);
    bg->finished = true;
    pthread_cond_signal(&bg->done);
    pthread_mutex_unlock(&bg->lock);
    return NULL;
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Redraws the progress line when its text changes (each second, as the times tick); shown holds
 * the line on screen, "" for none. The rest of the terminal's line is cleared: a shorter line (an
 * estimate from 10:00 down to 9:59) leaves nothing of the longer one. */
static void draw_line(FILE *err, double fraction, double elapsed, char *shown)
{
    char line[NQ_CLI_PROGRESS_MAX];
    nq_cli_progress_line(fraction, elapsed, line, sizeof line);
    if (strcmp(line, shown) == 0) return;
    memcpy(shown, line, sizeof line);
    fprintf(err, "\r%s\033[K", line);
    fflush(err);
}

/* Waits for the count, cancelling it if *stop gets set; draws the progress line when asked to. */
static void wait_for(bg_count *bg, FILE *err, bool bar, const volatile sig_atomic_t *stop)
{
    struct timespec start;
    char shown[NQ_CLI_PROGRESS_MAX] = ""; /* the line on screen; "": none drawn */
    clock_gettime(CLOCK_MONOTONIC, &start);
    pthread_mutex_lock(&bg->lock);
    while (!bg->finished) {
        struct timespec until; /* absolute, on the clock the condition variable was set up with */
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += TICK_NS;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&bg->done, &bg->lock, &until);
        if (*stop) nq_count_cancel(&bg->ctl);
        const double elapsed = seconds_since(&start);
        if (bar && !bg->finished && elapsed > BAR_AFTER_S) draw_line(err, nq_count_progress(&bg->ctl), elapsed, shown);
    }
    pthread_mutex_unlock(&bg->lock);
    if (shown[0] != '\0') fputs("\r\033[K", err); /* erase the progress line */
}

/* {"n":..,"total":..,"unique":..}, the library's counts object (nqueens/json.h): exact integers, the
 * same bytes nqueensd serves, then a newline. With --shard the shard document instead (cli.h). */
static int print_counts(const bg_count *bg, FILE *out, FILE *err)
{
    char text[NQ_CLI_SHARD_MAX];
    size_t len = 0;
    const bool with_k = bg->opts->has_k && bg->opts->k < bg->opts->n; /* k = n is the plain count */
    nq_err rc;
    if (bg->opts->has_shard)
        rc = nq_cli_shard_render(&bg->shard, text, sizeof text, &len);
    else if (with_k)
        rc = nq_json_counts_k(bg->opts->n, bg->opts->k, &bg->counts, text, sizeof text, &len);
    else
        rc = nq_json_counts(bg->opts->n, &bg->counts, text, sizeof text, &len);
    if (rc != NQ_OK) {
        fputs("nqueens: cannot render the counts\n", err);
        return NQ_CLI_EXIT_FAILURE;
    }
    fwrite(text, 1, len, out);
    fputc('\n', out);
    if (fflush(out) != 0 || ferror(out)) {
        fputs("nqueens: write error on standard output\n", err);
        return NQ_CLI_EXIT_FAILURE;
    }
    return NQ_CLI_EXIT_OK;
}

/* The threads the count runs on: --threads, or for 0 the CPUs this process may use. With --queens K
 * < N the library counts on the calling thread alone. */
static int resolve_threads(const nq_cli_opts *opts)
{
    if (opts->has_k && opts->k < opts->n) return 1;
    return opts->threads != 0 ? opts->threads : (int)nq_cpus_available();
}

int nq_cli_count(const nq_cli_opts *given, FILE *out, FILE *err, const volatile sig_atomic_t *stop)
{
    nq_cli_opts resolved = *given;
    const nq_cli_opts *opts = &resolved;
    resolved.threads = resolve_threads(given);
    if (opts->verbose)
        fprintf(err, "nqueens: counting on %d thread%s%s\n", opts->threads, opts->threads == 1 ? "" : "s",
                given->threads == 0 && !(opts->has_k && opts->k < opts->n) ? " (the CPUs this process may use)" : "");
    bg_count bg = {.opts = opts};
    pthread_t thread;
    pthread_condattr_t attr;
    nq_count_ctl_init(&bg.ctl);
    pthread_mutex_init(&bg.lock, NULL);
    /* Timed waits on the monotonic clock, so setting the wall clock cannot stall the bar. */
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&bg.done, &attr);
    pthread_condattr_destroy(&attr);
    int status = NQ_CLI_EXIT_FAILURE;
    if (pthread_create(&thread, NULL, run_count, &bg) != 0) {
        fprintf(err, "nqueens: %s\n", nq_err_message(NQ_E_THREAD));
        goto end;
    }
    wait_for(&bg, err, isatty(fileno(err)) == 1, stop);
    pthread_join(thread, NULL);
    if (bg.err == NQ_E_CANCELED && *stop) {
        fputs("nqueens: interrupted\n", err);
        status = NQ_CLI_EXIT_INTERRUPTED;
    } else if (bg.err != NQ_OK) {
        fprintf(err, "nqueens: count failed: %s\n", nq_err_message(bg.err));
    } else {
        status = print_counts(&bg, out, err);
    }
end:
    pthread_cond_destroy(&bg.done);
    pthread_mutex_destroy(&bg.lock);
    return status;
}
