/* solution.c - `nqueens solution`: one solution of any board, streamed as JSON.
 *
 * Boards reach 10^9 rows, a 10 GB document, so the text is never built whole: the construction is
 * asked for a block of rows at a time (O(1) memory) and the block is formatted into a fixed buffer and
 * written; a random board is searched first (it needs its O(n) arrays anyway) and then written the
 * same way. Numbers are formatted by hand: printf would cost more than the solver per row.
 * The random search runs on a helper thread so Ctrl-C can cancel it as it cancels a count.
 */
#include "cli.h"

#include <errno.h>
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

#define BLOCK_ROWS 4096                 /* rows formatted per write */
#define TEXT_CAP (BLOCK_ROWS * 11 + 64) /* a column is at most 10 digits, plus its comma */
_Static_assert(TEXT_CAP >= NQ_CLI_BOARD_N_MAX + 3, "a board row, its quotes and its comma fit");
#define POLL_NS 10000000L /* 10 ms between looks at the stop flag during a search */

/* Writes rows [first, first + count) whose columns are cols, as numbers or board strings: the
 * library's rows (nqueens/json.h), the same bytes as nqueensd's /solution. text holds TEXT_CAP
 * bytes, which is flushed whenever the longest row might not fit. */
static void write_rows(FILE *out, const nq_cli_opts *o, uint32_t first, const uint32_t *cols, uint32_t count,
                       char *text)
{
    const nq_json_shape shape = o->format == NQ_CLI_BOARD ? NQ_JSON_BOARD : NQ_JSON_COLUMNS;
    const size_t row_max = shape == NQ_JSON_BOARD ? (size_t)o->n + 3u : 11u; /* comma, quotes or digits */
    size_t len = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (TEXT_CAP - len < row_max) {
            fwrite(text, 1, len, out);
            len = 0;
        }
        size_t w = 0;
        (void)nq_json_row((uint32_t)o->n, first + i, cols[i], shape, text + len, TEXT_CAP - len, &w); /* fits */
        len += w;
    }
    fwrite(text, 1, len, out);
}

/* The construction, block by block. */
static void stream_construction(FILE *out, const nq_cli_opts *o, const nq_construct *c, uint32_t *block, char *text)
{
    const uint32_t n = (uint32_t)o->n;
    for (uint32_t first = 0; first < n; first += BLOCK_ROWS) {
        const uint32_t count = n - first < BLOCK_ROWS ? n - first : BLOCK_ROWS;
        nq_construct_rows(c, first, count, block); /* cannot fail: the range is inside the board */
        write_rows(out, o, first, block, count, text);
    }
}

/* A seed nobody chose: from the kernel's generator, else the clock and the process id. */
static uint64_t pick_seed(void)
{
    uint64_t seed = 0;
    const int fd = open("/dev/urandom", O_RDONLY);
    if (fd >= 0) {
        const ssize_t got = read(fd, &seed, sizeof seed);
        close(fd);
        if (got == (ssize_t)sizeof seed) return seed;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000007) ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
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

/* Finds and writes the board; returns an NQ_CLI_EXIT_* status. */
static int solve_and_write(const nq_cli_opts *o, FILE *out, FILE *err, const volatile sig_atomic_t *stop,
                           uint32_t *block, char *text)
{
    const uint64_t seed = !o->random ? 0 : o->has_seed ? o->seed : pick_seed();
    const bool exists = nq_solution_exists((uint64_t)o->n);
    if (!exists || !o->random) {
        nq_construct c;
        write_head(out, o, seed, exists);
        if (!exists || nq_construct_init(&c, (uint64_t)o->n) != NQ_OK) return NQ_CLI_EXIT_OK;
        stream_construction(out, o, &c, block, text);
        fputs("]}\n", out);
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
        write_head(out, o, seed, true);
        for (uint32_t first = 0; first < (uint32_t)o->n; first += BLOCK_ROWS) {
            const uint32_t left = (uint32_t)o->n - first;
            write_rows(out, o, first, bg.cols + first, left < BLOCK_ROWS ? left : BLOCK_ROWS, text);
        }
        fputs("]}\n", out);
    }
    free(bg.cols);
    return status;
}

int nq_cli_solution(const nq_cli_opts *opts, FILE *out, FILE *err, const volatile sig_atomic_t *stop)
{
    uint32_t *block = malloc(BLOCK_ROWS * sizeof *block);
    char *text = malloc(TEXT_CAP);
    int status = NQ_CLI_EXIT_FAILURE;
    if (block == NULL || text == NULL) {
        fputs("nqueens: out of memory\n", err);
        goto end;
    }
    status = solve_and_write(opts, out, err, stop, block, text);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(err, "nqueens: write error on standard output: %s\n", errno == EPIPE ? "broken pipe" : "failed");
        status = NQ_CLI_EXIT_FAILURE;
    }
end:
    free(text);
    free(block);
    return status;
}
