/* check.c - GET /check (and POST with a JSON body): is this placement legal, and which queens
 * clash?
 *
 *   {"n":4,"queens":3,"valid":false,"complete":false,"conflict_count":1,"conflicts":[[[0,1],[2,3]]]}
 *
 *   parse    n (up to --max-n-solution) and the placement (placement_in.h) from the query, or from
 *            the JSON body of a POST (whose query must then be empty), kept in the plan
 *   answer   a 304 from the canonical placement, else the check itself: O(n + queens)
 *            (nq_placement_check), cheap enough for the request's own thread at any size the URI
 *            and body caps let in, so nothing is computed on the workers and nothing is cached
 * At most --max-conflicts pairs are listed; conflict_count is always the full number.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, for nq_clock_s */
#endif
#include "routes/check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/reply.h"
#include "routes/placement_in.h"

#define CHECK_KEYS (NQ_QK_N | NQ_QK_COLUMNS | NQ_QK_QUEENS)
#define PAIR_TEXT_MAX 56 /* [[<10>,<10>],[<10>,<10>]], */
#define HEAD_TEXT_MAX 160

typedef struct check_plan {
    nq_placement *placement; /* owned (the plan's cleanup frees it) */
} check_plan;

static void plan_cleanup(void *plan)
{
    nq_placement_destroy(((check_plan *)plan)->placement);
}

/* The canonical request as the ETag's source: n, the sorted squares, and the cap on the pairs listed
 * (--max-conflicts): servers with other caps send other bytes for the same placement, so they must
 * not share its tag. NULL without memory. */
static char *canonical(const nq_placement *p, unsigned listed_max)
{
    const size_t cap = nq_placement_render_size(p) + 64;
    char *key = malloc(cap);
    if (!key) return NULL;
    const int w = snprintf(key, cap, "check?n=%" PRIu32 "&listed=%u&queens=", nq_placement_n(p), listed_max);
    size_t len = 0;
    if (w < 0 || nq_placement_render_queens(p, key + w, cap - (size_t)w, &len) != NQ_OK) {
        free(key);
        return NULL;
    }
    return key;
}

bool nq_route_check_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const bool posted = nq_app_posted(req);
    nq_query q;
    if (!nq_app_parse_query(req, posted ? 0u : CHECK_KEYS, &q, resp)) return false;
    check_plan *p = nq_app_plan_new(w, sizeof *p);
    if (!p) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    nq_app_plan_set_cleanup(w, plan_cleanup);
    const uint32_t max_n = nq_app_config(w->app)->max_n_solution;
    nq_placement_in_error e;
    const nq_err rc = posted ? nq_placement_from_json(req->body, req->body_len, max_n, &p->placement, &e)
                             : nq_placement_from_query(&q, max_n, &p->placement, &e);
    if (rc != NQ_OK) {
        nq_placement_in_problem(resp, req->path, &e);
        return false;
    }
    return true;
}

/* The body of a check: exact size bound from the report, written in one pass. */
static char *render(const nq_placement *pl, const nq_check_report *r, const nq_pair *pairs, size_t *len)
{
    const size_t cap = HEAD_TEXT_MAX + r->listed * PAIR_TEXT_MAX + 4;
    char *out = malloc(cap);
    if (!out) return NULL;
    int w = snprintf(out, cap,
                     "{\"n\":%" PRIu32 ",\"queens\":%" PRIu64
                     ",\"valid\":%s,\"complete\":%s,\"conflict_count\":%" PRIu64 ",\"conflicts\":[",
                     nq_placement_n(pl), r->queens, r->valid ? "true" : "false", r->complete ? "true" : "false",
                     r->conflicts);
    size_t o = w > 0 ? (size_t)w : 0;
    for (size_t i = 0; pairs && i < r->listed; i++) { /* listed is 0 when no pairs were asked for */
        const nq_pair *q = &pairs[i];
        w = snprintf(out + o, cap - o, "%s[[%" PRIu32 ",%" PRIu32 "],[%" PRIu32 ",%" PRIu32 "]]", i ? "," : "",
                     q->first.row, q->first.col, q->second.row, q->second.col);
        o += w > 0 ? (size_t)w : 0;
    }
    memcpy(out + o, "]}", 3);
    *len = o + 2;
    return out;
}

nq_app_step nq_route_check_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const check_plan *p = w->plan;
    char *key = canonical(p->placement, nq_app_config(w->app)->max_conflicts);
    if (!key) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    char etag[NQ_ETAG_MAX], etag_gz[NQ_ETAG_MAX];
    nq_app_etag(key, false, etag, sizeof etag);
    nq_app_etag(key, true, etag_gz, sizeof etag_gz);
    free(key);
    if (nq_app_try_304(req, etag, etag_gz, &w->variant, resp)) return NQ_APP_DONE; /* no length: not cached */
    const size_t cap = nq_app_config(w->app)->max_conflicts;
    nq_pair *pairs = cap ? malloc(cap * sizeof *pairs) : NULL;
    nq_check_report r;
    const double t0 = nq_clock_s(); /* checked here, on the request's thread: its own solver time */
    nq_err rc = cap && !pairs ? NQ_E_NOMEM : nq_placement_check(p->placement, pairs, cap, &r);
    const double seconds = nq_clock_s() - t0;
    size_t len = 0;
    char *body = rc == NQ_OK ? render(p->placement, &r, pairs, &len) : NULL;
    free(pairs);
    if (rc == NQ_OK && !body) rc = NQ_E_NOMEM;
    if (rc != NQ_OK) {
        nq_app_problem(resp, req->path, rc, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    char *gz = NULL;
    size_t gz_len = 0;
    const bool zip = w->variant.gzip_ok && len > NQ_COMPRESS_MIN_BYTES &&
                     nq_compress_buffer(body, len, NQ_COMPRESS_LEVEL_STREAM, &gz, &gz_len) == NQ_OK;
    if (zip) {
        free(body);
        body = gz;
        len = gz_len;
    }
    nq_app_success(resp, 200, NQ_MEDIA_JSON, zip ? etag_gz : etag, zip, seconds);
    nq_response_own(resp, body, len);
    return NQ_APP_DONE;
}
