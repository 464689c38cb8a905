/* placement_in.c - a placement from a query or a JSON body (see placement_in.h). */
#include "routes/placement_in.h"

#include "nqueens/placement_json.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static nq_err fail(nq_placement_in_error *e, nq_err err, const char *param, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static nq_err fail(nq_placement_in_error *e, nq_err err, const char *param, const char *fmt, ...)
{
    e->err = err;
    e->param = param;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    return err;
}

static nq_err n_over(nq_placement_in_error *e, uint32_t max_n)
{
    e->limit = max_n;
    return fail(e, NQ_E_LIMIT, "n", "Parameter 'n' must be between 1 and %" PRIu32 " on this server.", max_n);
}

nq_err nq_placement_from_json(const char *body, size_t len, uint32_t max_n, nq_placement **out,
                              nq_placement_in_error *e)
{
    memset(e, 0, sizeof *e);
    nq_placement_json_error je;
    const nq_err rc = nq_placement_parse_json(body, len, max_n, out, &je);
    if (rc == NQ_E_LIMIT) return n_over(e, max_n);
    if (rc != NQ_OK) return fail(e, rc, je.member, "%s", je.detail);
    return NQ_OK;
}

/* The library's verdict on a placement, as a problem naming where it came from. */
static nq_err placement_failed(nq_placement_in_error *e, nq_err rc, const char *param, const nq_placement_error *pe)
{
    if (rc != NQ_E_PLACEMENT) return fail(e, rc, NULL, "The placement could not be read.");
    char why[160];
    (void)nq_placement_error_describe(pe, why, sizeof why);
    return fail(e, NQ_E_PLACEMENT, param, "Parameter '%s': %s.", param, why);
}

nq_err nq_placement_from_query(const nq_query *q, uint32_t max_n, nq_placement **out, nq_placement_in_error *e)
{
    memset(e, 0, sizeof *e);
    if (!(q->present & NQ_QK_N)) return fail(e, NQ_E_PARAM_MISSING, "n", "Parameter 'n' is required.");
    if (!(q->present & (NQ_QK_COLUMNS | NQ_QK_QUEENS)))
        return fail(e, NQ_E_PARAM_MISSING, "columns",
                    "A placement is required: 'columns' (one entry per row) or 'queens' (row:column pairs).");
    if (q->n > max_n) return n_over(e, max_n);
    const bool columns = (q->present & NQ_QK_COLUMNS) != 0;
    const char *param = columns ? "columns" : "queens";
    char *text = NULL;
    size_t len = 0;
    nq_query_error qe;
    nq_err rc = nq_query_decode(q->placement, q->placement_len, param, &text, &len, &qe);
    if (rc != NQ_OK) return fail(e, rc, param, "%s", rc == NQ_E_NOMEM ? "Out of memory." : qe.detail);
    nq_placement_error pe;
    rc = columns ? nq_placement_parse_columns((uint32_t)q->n, text, len, out, &pe)
                 : nq_placement_parse_queens((uint32_t)q->n, text, len, out, &pe);
    free(text);
    return rc == NQ_OK ? NQ_OK : placement_failed(e, rc, param, &pe);
}

void nq_placement_in_problem(nq_response *resp, const char *instance, const nq_placement_in_error *e)
{
    nq_app_problem(resp, instance, e->err, e->param, e->detail[0] ? e->detail : NULL, e->err == NQ_E_LIMIT, e->limit);
}
