/* solve.c - `nqueens solve`: stream solutions as JSON or NDJSON.
 *
 * The output can be far larger than memory (n = 16 has 14.7 million solutions), so nothing is
 * accumulated: solutions are pulled from the iterator a batch at a time and each one is rendered
 * into a fixed buffer and written out. The text is the library's (nqueens/json.h), so a solution
 * reads byte for byte as nqueensd serves it; the document frame differs only in what the CLI
 * knows: no "total" (it does not count), and "next" is the bare cursor that --after takes.
 * On a terminal (without --json or --ndjson) the same stream is drawn for a person instead: each
 * board as rows of '.' and 'Q' (or a line of columns), then how many were shown and the cursor to
 * go on from.
 */
#include "cli.h"

#include <string.h>
#include <unistd.h>

#include "nqueens/json.h"

#define BATCH 256 /* solutions pulled from the iterator per call */

typedef struct writer {
    FILE *out;               /* where the text goes */
    const nq_cli_opts *opts; /* n, format, ndjson */
    bool first;              /* no solution written yet (no comma before it) */
    bool text;               /* for a person on a terminal, not JSON */
    uint64_t written;        /* solutions written */
} writer;

/* A solution for a person: the board's rows (a blank line before every board but the first), or its
 * columns as the cursor --after takes. */
static void write_text(writer *w, const uint8_t *cols)
{
    const int n = w->opts->n;
    if (w->opts->format == NQ_CLI_COLUMNS) {
        for (int r = 0; r < n; r++) fprintf(w->out, "%s%u", r > 0 ? "," : "", cols[r]);
        fputc('\n', w->out);
        return;
    }
    char row[NQ_N_MAX + 2];
    if (!w->first) fputc('\n', w->out);
    for (int r = 0; r < n; r++) {
        memset(row, '.', (size_t)n);
        row[cols[r]] = 'Q';
        row[n] = '\n';
        fwrite(row, 1, (size_t)n + 1u, w->out);
    }
}

static bool write_solution(writer *w, const uint8_t *cols)
{
    w->written++;
    if (w->text) {
        write_text(w, cols);
        w->first = false;
        return true;
    }
    char text[NQ_JSON_SOLUTION_MAX(NQ_N_MAX)];
    size_t len = 0;
    const nq_json_shape shape = w->opts->format == NQ_CLI_COLUMNS ? NQ_JSON_COLUMNS : NQ_JSON_BOARD;
    if (nq_json_solution(w->opts->n, cols, shape, text, sizeof text, &len) != NQ_OK) return false;
    if (!w->opts->ndjson && !w->first) fputc(',', w->out);
    fwrite(text, 1, len, w->out);
    if (w->opts->ndjson) fputc('\n', w->out);
    w->first = false;
    return true;
}

/* The document's head, {"n":N,"solutions":[ (no "total": the CLI does not count). */
static bool write_head(const writer *w)
{
    char text[NQ_JSON_HEAD_MAX];
    size_t len = 0;
    if (nq_json_list_head(w->opts->n, NQ_JSON_TOTAL_OMIT, 0, text, sizeof text, &len) != NQ_OK) return false;
    fwrite(text, 1, len, w->out);
    return true;
}

/* The document's tail: "next" is the cursor of the last solution written when --limit stopped the
 * list and more follow, else null. */
static bool write_tail(const writer *w, const uint8_t *last, bool more)
{
    char text[NQ_JSON_TAIL_MAX(NQ_N_MAX, 0)];
    size_t len = 0;
    if (nq_json_list_tail(w->opts->n, more ? last : NULL, NULL, text, sizeof text, &len) != NQ_OK) return false;
    fwrite(text, 1, len, w->out);
    fputc('\n', w->out);
    return true;
}

/* The end for a person: how many were shown, and where to go on from when --limit stopped them. */
static void write_text_tail(const writer *w, const uint8_t *last, bool more)
{
    if (w->written == 0) { /* more needs a --limit reached, so at least one written */
        fputs("no solutions\n", w->out);
        return;
    }
    if (w->opts->format == NQ_CLI_BOARD) fputc('\n', w->out);
    fprintf(w->out, "%llu solution%s", (unsigned long long)w->written, w->written == 1 ? "" : "s");
    if (more) {
        fputs("; more with --after ", w->out);
        for (int r = 0; r < w->opts->n; r++) fprintf(w->out, "%s%u", r > 0 ? "," : "", last[r]);
    }
    fputc('\n', w->out);
}

/* Puts the iterator where --after or --offset says. */
static nq_err position(nq_iter *it, const nq_cli_opts *o)
{
    if (o->has_after) return nq_iter_seek_after(it, o->after, (size_t)o->n);
    if (o->offset > 0) return nq_iter_skip(it, o->offset, NULL);
    return NQ_OK;
}

/* Writes up to --limit solutions, then the document's tail. */
static int stream(writer *w, nq_iter *it)
{
    const nq_cli_opts *o = w->opts;
    uint8_t batch[BATCH * NQ_N_MAX], last[NQ_N_MAX] = {0};
    uint64_t left = o->has_limit ? o->limit : UINT64_MAX;
    size_t got = 0;
    while (left > 0) {
        const size_t want = left < BATCH ? (size_t)left : BATCH;
        if (nq_iter_next(it, batch, want, &got) != NQ_OK || got == 0) break;
        for (size_t i = 0; i < got; i++) {
            if (!write_solution(w, batch + i * (size_t)o->n)) return NQ_CLI_EXIT_FAILURE; /* not reached */
            /* A full disk or a closed pipe: stop now (n = 32 would enumerate for ever); the caller says so. */
            if (ferror(w->out)) return NQ_CLI_EXIT_OK;
        }
        memcpy(last, batch + (got - 1) * (size_t)o->n, (size_t)o->n);
        left -= got;
    }
    /* The limit was reached: peek whether anything follows. */
    const bool more = o->has_limit && left == 0 && nq_iter_next(it, batch, 1, &got) == NQ_OK && got == 1;
    if (w->text)
        write_text_tail(w, last, more);
    else if (!o->ndjson && !write_tail(w, last, more))
        return NQ_CLI_EXIT_FAILURE;
    return NQ_CLI_EXIT_OK;
}

int nq_cli_solve(const nq_cli_opts *opts, FILE *out, FILE *err)
{
    nq_iter *it = NULL;
    nq_err e = nq_iter_create(opts->n, opts->unique ? NQ_ITER_UNIQUE : 0u, &it);
    if (e == NQ_OK) e = position(it, opts);
    if (e != NQ_OK) {
        fprintf(err, "nqueens: %s\n", nq_err_message(e));
        nq_iter_destroy(it);
        return NQ_CLI_EXIT_FAILURE;
    }
    writer w = {.out = out, .opts = opts, .first = true};
    w.text = !opts->json && !opts->ndjson && isatty(fileno(out)) == 1;
    int status = (opts->ndjson || w.text || write_head(&w)) ? stream(&w, it) : NQ_CLI_EXIT_FAILURE;
    if (status != NQ_CLI_EXIT_OK) fputs("nqueens: cannot render the output\n", err);
    if (fflush(out) != 0 || ferror(out)) {
        fputs("nqueens: write error on standard output\n", err);
        status = NQ_CLI_EXIT_FAILURE;
    }
    nq_iter_destroy(it);
    return status;
}
