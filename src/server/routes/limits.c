/* limits.c - GET /limits: the bounds this replica's requests meet (limits.h).
 *
 * Each member is named after the flag that sets it (--max-n-solve is max_n_solve), so the
 * configuration table of docs/operations.md says what each one bounds.
 */
#include "routes/limits.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/reply.h"

size_t nq_limits_render(const nq_config *c, char *out, size_t cap)
{
    const int len =
        snprintf(out, cap,
                 "{\"max_n_solve\":%d,\"max_solutions\":%" PRIu64 ",\"max_n_count\":%d,\"long_count_n\":%d,"
                 "\"max_n_count_k\":%d,\"max_n_solution\":%u,\"max_n_board\":%u,\"max_conflicts\":%u,"
                 "\"max_n_complete\":%d,\"max_n_complete_count\":%d,\"max_n_trace\":%d,\"max_trace_limit\":%" PRIu64 ","
                 "\"max_n_puzzle_queens\":%d,\"max_n_puzzle_regions\":%d,\"max_n_puzzle_solve\":%d,"
                 "\"max_puzzle_limit\":%" PRIu64 ",\"max_uri_bytes\":%zu,\"max_body_bytes\":%zu,\"deadline_ms\":%u,"
                 "\"budget_ms\":%u}",
                 c->max_n_solve, c->max_solutions, c->max_n_count, c->long_count_n, c->max_n_count_k, c->max_n_solution,
                 c->max_n_board, c->max_conflicts, c->max_n_complete, c->max_n_complete_count, c->max_n_trace,
                 c->max_trace_limit, c->max_n_puzzle_queens, c->max_n_puzzle_regions, c->max_n_puzzle_solve,
                 c->max_puzzle_limit, c->max_uri_bytes, c->max_body_bytes, c->deadline_ms, c->budget_ms);
    return len > 0 && (size_t)len < cap ? (size_t)len : 0;
}

nq_app_step nq_route_limits_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    nq_query q;
    if (!nq_app_parse_query(req, 0, &q, resp)) return NQ_APP_DONE;
    char *body = malloc(NQ_LIMITS_BODY_MAX);
    const size_t len = body ? nq_limits_render(nq_app_config(w->app), body, NQ_LIMITS_BODY_MAX) : 0;
    if (len == 0) { /* no memory; a body too long for its buffer cannot happen (limits.h) */
        const nq_err err = body ? NQ_E_INTERNAL : NQ_E_NOMEM;
        free(body);
        nq_app_problem(resp, req->path, err, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    resp->status = 200;
    nq_response_own(resp, body, len);
    nq_response_add_header(resp, "Content-Type", NQ_MEDIA_JSON);
    nq_response_add_header(resp, "Cache-Control", "no-store");
    return NQ_APP_DONE;
}
