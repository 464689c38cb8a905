/* play.c - `nqueens complete` and `nqueens trace`: a partial board finished, the search's steps.
 *
 * Both print what the HTTP service answers for the same question (GET /complete, GET /trace as
 * NDJSON), so a script can switch between the two. The trace streams: memory stays O(1) whatever
 * the number of steps.
 */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

#include "nqueens/complete.h"
#include "nqueens/trace.h"

#define TRACE_BATCH 256 /* steps pulled from the library at a time */

static int flushed(FILE *out, FILE *err)
{
    if (fflush(out) != 0 || ferror(out)) {
        fputs("nqueens: write error on standard output\n", err);
        return NQ_CLI_EXIT_FAILURE;
    }
    return NQ_CLI_EXIT_OK;
}

/* The placement of opts, or NULL with the reason on err. */
static nq_placement *read_placement(const nq_cli_opts *o, FILE *err)
{
    nq_placement *p = NULL;
    nq_placement_error pe;
    const size_t len = strlen(o->placement);
    const nq_err rc = o->queens_form ? nq_placement_parse_queens((uint32_t)o->n, o->placement, len, &p, &pe)
                                     : nq_placement_parse_columns((uint32_t)o->n, o->placement, len, &p, &pe);
    if (rc == NQ_OK) return p;
    char why[160] = "";
    if (rc == NQ_E_PLACEMENT) (void)nq_placement_error_describe(&pe, why, sizeof why);
    fprintf(err, "nqueens: the board '%.60s' does not parse: %s\n", o->placement,
            rc == NQ_E_PLACEMENT ? why : nq_err_message(rc));
    return NULL;
}

static void print_completion(FILE *out, const nq_cli_opts *o, const nq_placement *p, bool found, const uint8_t *cols,
                             uint64_t completions)
{
    fprintf(out, "{\"n\":%d,\"solution\":", o->n);
    if (!found) {
        fputs("null,\"hint\":null", out);
    } else {
        for (int i = 0; i < o->n; i++) fprintf(out, "%c%u", i ? ',' : '[', cols[i]);
        const nq_square *q = nq_placement_queens(p);
        int row = 0; /* the first row without a given queen (they are row-major, one per row) */
        for (size_t i = 0; i < nq_placement_count(p) && q[i].row == (uint32_t)row; i++) row++;
        if (row < o->n)
            fprintf(out, "],\"hint\":[%d,%u]", row, cols[row]);
        else
            fputs("],\"hint\":null", out);
    }
    if (o->count) fprintf(out, ",\"completions\":%" PRIu64, completions);
    fputs("}\n", out);
}

int nq_cli_complete(const nq_cli_opts *opts, FILE *out, FILE *err)
{
    if (opts->count && opts->n > NQ_COUNT_N_MAX) {
        fprintf(err, "nqueens: --count counts boards up to N = %d\n", NQ_COUNT_N_MAX);
        return NQ_CLI_EXIT_USAGE;
    }
    nq_placement *p = read_placement(opts, err);
    if (!p) return NQ_CLI_EXIT_USAGE;
    uint8_t cols[NQ_N_MAX];
    bool found = false;
    uint64_t completions = 0;
    const nq_square *q = nq_placement_queens(p);
    const size_t count = nq_placement_count(p);
    nq_err rc = nq_complete_first(opts->n, q, count, NULL, cols, &found);
    if (rc == NQ_OK && opts->count && found) rc = nq_complete_count(opts->n, q, count, 0, NULL, &completions);
    int status = NQ_CLI_EXIT_FAILURE;
    if (rc != NQ_OK)
        fprintf(err, "nqueens: complete failed: %s\n", nq_err_message(rc));
    else {
        print_completion(out, opts, p, found, cols, completions);
        status = flushed(out, err);
    }
    nq_placement_destroy(p);
    return status;
}

int nq_cli_trace(const nq_cli_opts *opts, FILE *out, FILE *err)
{
    nq_trace *t = NULL;
    nq_err rc = nq_trace_create(opts->n, &t);
    if (rc == NQ_OK) rc = nq_trace_skip(t, opts->from, NULL, NULL);
    uint64_t left = opts->has_limit ? opts->limit : UINT64_MAX;
    nq_trace_step steps[TRACE_BATCH];
    while (rc == NQ_OK && left > 0 && !ferror(out)) {
        size_t got = 0;
        rc = nq_trace_next(t, steps, left < TRACE_BATCH ? (size_t)left : TRACE_BATCH, &got);
        if (got == 0) break;
        for (size_t i = 0; i < got; i++) {
            char line[NQ_TRACE_STEP_JSON_MAX];
            (void)nq_trace_step_render(&steps[i], opts->n, line, sizeof line);
            fprintf(out, "%s\n", line);
        }
        left -= got;
    }
    nq_trace_destroy(t);
    if (rc != NQ_OK) {
        fprintf(err, "nqueens: trace failed: %s\n", nq_err_message(rc));
        return NQ_CLI_EXIT_FAILURE;
    }
    return flushed(out, err);
}
