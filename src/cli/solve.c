/* solve.c - `nqueens solve`: stream solutions as JSON or NDJSON.
 *
 * The output can be far larger than memory (n = 16 has 14.7 million solutions), so nothing is
 * accumulated: solutions are pulled from the iterator a batch at a time, each one is built as a
 * small cJSON value, printed into a fixed buffer and written out, and the value is freed. Only the
 * document's fixed frame ({"n":..,"solutions":[ ... ],"next":..}) is written directly; it contains
 * nothing but an integer and constant keys, so there is nothing to escape.
 */
#include "cli.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 256         /* solutions pulled from the iterator per call */
#define TEXT_CAP 2048     /* one printed solution: at most 32 rows of 35 bytes, plus cJSON's slack */

typedef struct writer {
    FILE *out;               /* where the text goes */
    FILE *err;               /* where failures are reported */
    const nq_cli_opts *opts; /* n, format, ndjson */
    bool first;              /* no solution written yet (no comma before it) */
    char text[TEXT_CAP];     /* one solution's JSON */
} writer;

/* One solution as a cJSON value: an array of row strings, or of column numbers. NULL when out of
 * memory. The caller owns the result. */
static cJSON *solution_json(const nq_cli_opts *o, const uint8_t *cols) {
    cJSON *arr = cJSON_CreateArray();
    char board[NQ_BOARD_BUFSIZE(NQ_N_MAX)];
    const size_t width = (size_t)o->n + 1;
    if (arr == NULL) return NULL;
    if (o->format == NQ_CLI_BOARD && nq_render_board(o->n, cols, board, sizeof board) != NQ_OK) goto fail;
    for (int r = 0; r < o->n; r++) {
        cJSON *item = o->format == NQ_CLI_BOARD ? cJSON_CreateString(board + (size_t)r * width)
                                                : cJSON_CreateNumber(cols[r]);
        if (item == NULL || !cJSON_AddItemToArray(arr, item)) {
            cJSON_Delete(item);
            goto fail;
        }
    }
    return arr;
fail:
    cJSON_Delete(arr);
    return NULL;
}

/* Writes value (a solution or the next cursor) compactly; false on failure (reported). */
static bool write_json(writer *w, cJSON *value) {
    if (!cJSON_PrintPreallocated(value, w->text, TEXT_CAP, false)) {
        fputs("nqueens: out of memory\n", w->err);
        return false;
    }
    fputs(w->text, w->out);
    return true;
}

static bool write_solution(writer *w, const uint8_t *cols) {
    cJSON *value = solution_json(w->opts, cols);
    if (value == NULL) {
        fputs("nqueens: out of memory\n", w->err);
        return false;
    }
    if (!w->opts->ndjson && !w->first) fputc(',', w->out);
    const bool ok = write_json(w, value);
    if (w->opts->ndjson) fputc('\n', w->out);
    w->first = false;
    cJSON_Delete(value);
    return ok;
}

/* The document's tail: "next" is the cursor of the last solution written when --limit stopped the
 * list and more follow, else null. */
static bool write_tail(writer *w, const uint8_t *last, bool more) {
    char cursor[NQ_COLUMNS_BUFSIZE(NQ_N_MAX)];
    fputs("],\"next\":", w->out);
    if (!more) {
        fputs("null}\n", w->out);
        return true;
    }
    if (nq_render_columns(w->opts->n, last, cursor, sizeof cursor, NULL) != NQ_OK) return false;
    cJSON *value = cJSON_CreateString(cursor);
    const bool ok = value != NULL && write_json(w, value);
    cJSON_Delete(value);
    if (ok) fputs("}\n", w->out);
    return ok;
}

/* Puts the iterator where --after or --offset says. */
static nq_err position(nq_iter *it, const nq_cli_opts *o) {
    if (o->has_after) return nq_iter_seek_after(it, o->after, (size_t)o->n);
    if (o->offset > 0) return nq_iter_skip(it, o->offset, NULL);
    return NQ_OK;
}

/* Writes up to --limit solutions, then the document's tail. */
static int stream(writer *w, nq_iter *it) {
    const nq_cli_opts *o = w->opts;
    uint8_t batch[BATCH * NQ_N_MAX], last[NQ_N_MAX] = {0};
    uint64_t left = o->has_limit ? o->limit : UINT64_MAX;
    size_t got = 0;
    while (left > 0) {
        const size_t want = left < BATCH ? (size_t)left : BATCH;
        if (nq_iter_next(it, batch, want, &got) != NQ_OK || got == 0) break;
        for (size_t i = 0; i < got; i++)
            if (!write_solution(w, batch + i * (size_t)o->n)) return NQ_CLI_EXIT_FAILURE;
        memcpy(last, batch + (got - 1) * (size_t)o->n, (size_t)o->n);
        left -= got;
    }
    /* The limit was reached: peek whether anything follows. */
    const bool more = o->has_limit && left == 0 && nq_iter_next(it, batch, 1, &got) == NQ_OK && got == 1;
    if (!o->ndjson && !write_tail(w, last, more)) return NQ_CLI_EXIT_FAILURE;
    return NQ_CLI_EXIT_OK;
}

int nq_cli_solve(const nq_cli_opts *opts, FILE *out, FILE *err) {
    nq_iter *it = NULL;
    nq_err e = nq_iter_create(opts->n, opts->unique ? NQ_ITER_UNIQUE : 0u, &it);
    if (e == NQ_OK) e = position(it, opts);
    if (e != NQ_OK) {
        fprintf(err, "nqueens: %s\n", nq_err_message(e));
        nq_iter_destroy(it);
        return NQ_CLI_EXIT_FAILURE;
    }
    writer *w = malloc(sizeof *w); /* the text buffer is too big to be polite on the stack */
    int status = NQ_CLI_EXIT_FAILURE;
    if (w == NULL) {
        fputs("nqueens: out of memory\n", err);
        goto end;
    }
    *w = (writer){.out = out, .err = err, .opts = opts, .first = true};
    if (!opts->ndjson) fprintf(out, "{\"n\":%d,\"solutions\":[", opts->n);
    status = stream(w, it);
    if (fflush(out) != 0 || ferror(out)) {
        fputs("nqueens: write error on standard output\n", err);
        status = NQ_CLI_EXIT_FAILURE;
    }
end:
    free(w);
    nq_iter_destroy(it);
    return status;
}
