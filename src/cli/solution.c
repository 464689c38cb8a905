/* solution.c - `nqueens solution`: one solution of any board, streamed as JSON.
 *
 * Boards reach 10^9 rows, a 10 GB document, so the text is never built whole: rows are formatted into
 * a fixed buffer, written whenever it fills, the construction a run at a time (O(1) memory); a random
 * board is searched first (it needs its O(n) arrays anyway) and then written from its columns. The
 * library formats the rows (nqueens/json.h): printf would cost more than the solver per row.
 * The random search runs on a helper thread so Ctrl-C can cancel it as it cancels a count.
 * On a terminal (without --json) the board is drawn for a person instead, under a line naming it: rows
 * of '.' and 'Q' up to NQ_CLI_BOARD_N_MAX (or with --format board), else its columns on one line.
 */
#include "cli.h"

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nqueens/json.h"
#include "nqueens/solution.h"

#define TEXT_CAP ((size_t)64 * 1024) /* bytes formatted per write */
_Static_assert(TEXT_CAP >= NQ_CLI_BOARD_N_MAX + 3, "a board row, its quotes and its comma fit");
#define POLL_NS 10000000L /* 10 ms between looks at the stop flag during a search */

/* Writes the n rows of the board, from cols (a random board) or, when cols is NULL, from the
 * construction c: the library's rows, the same bytes as nqueensd's /solution. text holds TEXT_CAP
 * bytes and is written out whenever the next row does not fit. Stops at the first write error (a
 * board of 10^9 rows is gigabytes), which the caller reports from ferror. */
static void write_rows(FILE *out, const nq_cli_opts *o, const nq_construct *c, const uint32_t *cols, char *text)
{
    const nq_json_shape shape = o->format == NQ_CLI_BOARD ? NQ_JSON_BOARD : NQ_JSON_COLUMNS;
    const uint32_t n = (uint32_t)o->n;
    size_t len = 0;
    for (uint32_t r = 0; r < n;) {
        uint32_t done = 0;
        size_t w = 0;
        (void)nq_json_board_rows(n, r, cols, c, shape, text + len, TEXT_CAP - len, &done, &w); /* in range */
        r += done;
        len += w;
        if (done == 0) { /* full: an empty text always takes a row */
            if (fwrite(text, 1, len, out) != len || ferror(out)) return;
            len = 0;
        }
    }
    fwrite(text, 1, len, out);
}

uint64_t nq_cli_pick_seed(void)
{
    uint64_t seed = 0;
    const int fd = open("/dev/urandom", O_RDONLY);
    bool got = false;
    if (fd >= 0) {
        got = read(fd, &seed, sizeof seed) == (ssize_t)sizeof seed;
        close(fd);
    }
    if (!got) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * UINT64_C(1000000007) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 20;
    }
    return seed & NQ_JSON_INT_MAX;
}

typedef struct bg_search {
    uint64_t n, seed; /* the board and its seed */
    uint32_t *cols;   /* the board, n columns */
    nq_count_ctl ctl; /* shared with the search: cancel */
    nq_err err;       /* its answer */
    atomic_bool done; /* set when it returned */
} bg_search;

static void *run_search(void *arg)
{
    bg_search *bg = arg;
    bg->err = nq_random_solution(bg->n, bg->seed, &bg->ctl, bg->cols);
    atomic_store(&bg->done, true);
    return NULL;
}

/* Runs the search on a helper thread, cancelling it if *stop gets set. */
static nq_err search(bg_search *bg, const volatile sig_atomic_t *stop)
{
    pthread_t thread;
    nq_count_ctl_init(&bg->ctl);
    atomic_init(&bg->done, false);
    if (pthread_create(&thread, NULL, run_search, bg) != 0) return NQ_E_THREAD;
    const struct timespec tick = {0, POLL_NS};
    while (!atomic_load(&bg->done)) {
        nanosleep(&tick, NULL);
        if (*stop) nq_count_cancel(&bg->ctl);
    }
    pthread_join(thread, NULL);
    return bg->err;
}

/* The document's head, up to and including the solution's opening bracket (or its null). */
static void write_head(FILE *out, const nq_cli_opts *o, uint64_t seed, bool exists)
{
    fprintf(out, "{\"n\":%d,\"method\":\"%s\",\"seed\":", o->n, o->random ? "random" : "construct");
    if (o->random)
        fprintf(out, "%" PRIu64, seed);
    else
        fputs("null", out);
    fputs(exists ? ",\"solution\":[" : ",\"solution\":null}\n", out);
}

/* The board for a person: a line naming it, then its rows of '.' and 'Q', or its columns on one
 * line (the columns shape of write_rows, which is the same text). From cols, or c when cols is NULL. */
static void write_text(FILE *out, const nq_cli_opts *o, uint64_t seed, const nq_construct *c, const uint32_t *cols,
                       char *text)
{
    const uint32_t n = (uint32_t)o->n;
    if (o->random)
        fprintf(out, "%u x %u, random, seed %" PRIu64 "\n", n, n, seed);
    else
        fprintf(out, "%u x %u, construction\n", n, n);
    const bool board = o->has_format ? o->format == NQ_CLI_BOARD : n <= NQ_CLI_BOARD_N_MAX;
    if (!board) {
        const nq_cli_opts columns = {.n = o->n, .format = NQ_CLI_COLUMNS};
        write_rows(out, &columns, c, cols, text);
        fputc('\n', out);
        return;
    }
    for (uint32_t r = 0; r < n && !ferror(out); r++) { /* n <= NQ_CLI_BOARD_N_MAX < TEXT_CAP */
        memset(text, '.', n);
        text[cols != NULL ? cols[r] : nq_construct_column(c, r)] = 'Q';
        text[n] = '\n';
        fwrite(text, 1, (size_t)n + 1u, out);
    }
}

/* Writes the board found, as JSON or for a person. */
static void write_board(FILE *out, const nq_cli_opts *o, uint64_t seed, const nq_construct *c, const uint32_t *cols,
                        char *text)
{
    if (o->json || isatty(fileno(out)) != 1) {
        write_head(out, o, seed, true);
        write_rows(out, o, c, cols, text);
        fputs("]}\n", out);
    } else {
        write_text(out, o, seed, c, cols, text);
    }
}

/* Finds and writes the board; returns an NQ_CLI_EXIT_* status. */
static int solve_and_write(const nq_cli_opts *o, FILE *out, FILE *err, const volatile sig_atomic_t *stop, char *text)
{
    const uint64_t seed = !o->random ? 0 : o->has_seed ? o->seed : nq_cli_pick_seed();
    const bool exists = nq_solution_exists((uint64_t)o->n);
    if (!exists) {
        if (o->json || isatty(fileno(out)) != 1)
            write_head(out, o, seed, false);
        else
            fprintf(out, "%d x %d: no solution\n", o->n, o->n);
        return NQ_CLI_EXIT_OK;
    }
    if (!o->random) {
        nq_construct c;
        if (nq_construct_init(&c, (uint64_t)o->n) == NQ_OK) write_board(out, o, seed, &c, NULL, text);
        return NQ_CLI_EXIT_OK;
    }
    bg_search bg = {.n = (uint64_t)o->n, .seed = seed, .cols = malloc((size_t)o->n * sizeof(uint32_t))};
    if (bg.cols == NULL) {
        fputs("nqueens: out of memory\n", err);
        return NQ_CLI_EXIT_FAILURE;
    }
    const nq_err e = search(&bg, stop);
    int status = NQ_CLI_EXIT_OK;
    if (e == NQ_E_CANCELED && *stop) {
        fputs("nqueens: interrupted\n", err);
        status = NQ_CLI_EXIT_INTERRUPTED;
    } else if (e != NQ_OK) {
        fprintf(err, "nqueens: random solution failed: %s\n", nq_err_message(e));
        status = NQ_CLI_EXIT_FAILURE;
    } else {
        write_board(out, o, seed, NULL, bg.cols, text);
    }
    free(bg.cols);
    return status;
}

int nq_cli_solution(const nq_cli_opts *opts, FILE *out, FILE *err, const volatile sig_atomic_t *stop)
{
    char *text = malloc(TEXT_CAP);
    int status = NQ_CLI_EXIT_FAILURE;
    if (text == NULL) {
        fputs("nqueens: out of memory\n", err);
        goto end;
    }
    status = solve_and_write(opts, out, err, stop, text);
    if (fflush(out) != 0 || ferror(out)) {
        fputs("nqueens: write error on standard output\n", err);
        status = NQ_CLI_EXIT_FAILURE;
    }
end:
    free(text);
    return status;
}
