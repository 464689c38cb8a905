/* check.c - `nqueens check`: is a placement a solution, and which queens attack each other.
 *
 * The placement comes from the command line (the columns or queens form, parsed by placement.h) or
 * as JSON on stdin, read whole up to STDIN_CAP. The report is the one /check answers with. The pair
 * list is sized by what the board has, not by --limit: a first check counts, a second lists
 * min(limit, count) pairs, so a huge --limit allocates nothing for a valid board.
 */
#include "cli.h"

#include "nqueens/placement_json.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define STDIN_CAP ((size_t)1 << 30) /* 1 GiB of JSON: columns of a board of about 10^8 */
#define STDIN_CHUNK ((size_t)1 << 16)

/* Reads all of in into a new buffer (*len bytes, NUL-terminated); NULL on failure or past the cap. */
static char *slurp(FILE *in, size_t *len, const char **why)
{
    size_t cap = STDIN_CHUNK, used = 0;
    char *buf = malloc(cap + 1);
    *why = "out of memory";
    while (buf != NULL) {
        used += fread(buf + used, 1, cap - used, in);
        if (used < cap) break; /* end of input or an error: told apart below */
        *why = cap < STDIN_CAP ? "out of memory" : "the placement on stdin is larger than 1 GiB";
        char *bigger = cap < STDIN_CAP ? realloc(buf, 2 * cap + 1) : NULL;
        if (bigger == NULL) {
            free(buf);
            return NULL;
        }
        buf = bigger;
        cap *= 2;
    }
    if (buf == NULL) return NULL;
    if (ferror(in)) {
        *why = "cannot read stdin";
        free(buf);
        return NULL;
    }
    buf[used] = '\0';
    *len = used;
    return buf;
}

/* The placement from the arguments or stdin; 0 on success, else the exit status (reported). */
static int get_placement(const nq_cli_opts *o, FILE *in, FILE *err, nq_placement **p)
{
    if (o->placement != NULL) {
        nq_placement_error e;
        const size_t len = strlen(o->placement);
        const nq_err rc = o->queens_form ? nq_placement_parse_queens((uint32_t)o->n, o->placement, len, p, &e)
                                         : nq_placement_parse_columns((uint32_t)o->n, o->placement, len, p, &e);
        if (rc == NQ_OK) return 0;
        if (rc != NQ_E_PLACEMENT) {
            fprintf(err, "nqueens: %s\n", nq_err_message(rc));
            return NQ_CLI_EXIT_FAILURE;
        }
        char text[160];
        nq_placement_error_describe(&e, text, sizeof text);
        fprintf(err, "nqueens: %s: %s\n", o->queens_form ? "--queens" : "COLUMNS", text);
        return NQ_CLI_EXIT_USAGE;
    }
    size_t len = 0;
    const char *why = NULL;
    char *text = slurp(in, &len, &why);
    if (text == NULL) {
        fprintf(err, "nqueens: %s\n", why);
        return NQ_CLI_EXIT_FAILURE;
    }
    nq_placement_json_error e;
    const nq_err rc = nq_placement_parse_json(text, len, NQ_PLACEMENT_N_MAX, p, &e);
    free(text);
    if (rc == NQ_OK) return 0;
    fprintf(err, "nqueens: stdin: %s\n", e.detail);
    return rc == NQ_E_NOMEM ? NQ_CLI_EXIT_FAILURE : NQ_CLI_EXIT_USAGE;
}

/* The report with the first `listed` pairs of pairs (NULL when listed is 0). */
static void write_report(FILE *out, const nq_placement *p, const nq_check_report *r, const nq_pair *pairs,
                         size_t listed)
{
    fprintf(out,
            "{\"n\":%" PRIu32 ",\"queens\":%" PRIu64 ",\"valid\":%s,\"complete\":%s,\"conflict_count\":%" PRIu64
            ",\"conflicts\":[",
            nq_placement_n(p), r->queens, r->valid ? "true" : "false", r->complete ? "true" : "false", r->conflicts);
    for (size_t i = 0; i < listed && pairs != NULL; i++)
        fprintf(out, "%s[[%" PRIu32 ",%" PRIu32 "],[%" PRIu32 ",%" PRIu32 "]]", i > 0 ? "," : "", pairs[i].first.row,
                pairs[i].first.col, pairs[i].second.row, pairs[i].second.col);
    fputs("]}\n", out);
}

/* Counts, then lists min(limit, count) pairs; returns the exit status. */
static int check_and_write(const nq_cli_opts *o, const nq_placement *p, FILE *out, FILE *err)
{
    nq_check_report r;
    nq_pair *pairs = NULL;
    nq_err e = nq_placement_check(p, NULL, 0, &r);
    const size_t want = e != NQ_OK ? 0 : r.conflicts < o->limit ? (size_t)r.conflicts : (size_t)o->limit;
    if (e == NQ_OK && want > 0) {
        pairs = malloc(want * sizeof *pairs);
        e = pairs != NULL ? nq_placement_check(p, pairs, want, &r) : NQ_E_NOMEM;
    }
    if (e != NQ_OK) {
        fprintf(err, "nqueens: check failed: %s\n", nq_err_message(e));
        free(pairs);
        return NQ_CLI_EXIT_FAILURE;
    }
    write_report(out, p, &r, pairs, pairs != NULL ? r.listed : 0);
    free(pairs);
    return r.complete ? NQ_CLI_EXIT_OK : NQ_CLI_EXIT_FAILURE;
}

int nq_cli_check(const nq_cli_opts *opts, FILE *in, FILE *out, FILE *err)
{
    nq_placement *p = NULL;
    int status = get_placement(opts, in, err, &p);
    if (status != 0) return status;
    status = check_and_write(opts, p, out, err);
    nq_placement_destroy(p);
    if (fflush(out) != 0 || ferror(out)) {
        fputs("nqueens: write error on standard output\n", err);
        status = NQ_CLI_EXIT_FAILURE;
    }
    return status;
}
