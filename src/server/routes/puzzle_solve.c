/* puzzle_solve.c - GET /puzzle/solve (and the body of POST): count, hint and check a puzzle.
 *
 *   parse    a generated puzzle's parameters and the player's position from the query, or everything
 *            from the JSON body of a POST (whose query must be empty), read by puzzle_in.h into a
 *            plain-data plan (a puzzle is a value of about 4 KB). The key is the canonical request
 *            (every spelling of one puzzle and position shares an entry and an ETag, GET and POST
 *            alike), or, when that is longer than a key (a given map of n = 16 is), two SipHashes
 *            of it under fixed keys: 128 bits, so that two requests never share an answer by chance
 *   answer   a 304 from the key; a cached body; else the computation
 *   compute  on a solver worker, each search under the pool's deadline and the node budget
 *            (--max-puzzle-nodes): the generator (a generated puzzle), the count up to limit, the
 *            mistakes, the hint and the grade; rendered and published. A search past its budget is
 *            an outcome, every time alike: finish answers it 422 too-costly (a generated puzzle not
 *            found, 422 puzzle-unavailable)
 *   finish   the published entry, or the body rendered from the result when the cache refused it
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif

#include "routes/puzzle_solve.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/hash.h"
#include "core/reply.h"
#include "routes/puzzle_body.h"
#include "routes/puzzle_in.h"

typedef struct solve_plan {
    nq_puzzle_ask ask;  /* the puzzle, the position, limit and reveal */
    uint64_t max_nodes; /* --max-puzzle-nodes */
} solve_plan;

typedef struct solve_result {
    nq_err outcome;          /* NQ_OK; NQ_E_BUDGET or NQ_E_PUZZLE_UNAVAILABLE: answered as problems */
    nq_puzzle_solved solved; /* outcome NQ_OK: what was found */
} solve_result;

/* Fixed keys of the two hashes that stand for a key too long to be one: published, as the ETags'
 * key is (hash.h), since they only need to spread, and the same on every replica. */
static const unsigned char long_key_a[16] = "nqueens-puzzle-a";
static const unsigned char long_key_b[16] = "nqueens-puzzle-b";

/* w's key from the canonical text (or its hashes); false without memory. */
static bool set_key(nq_app_work *w, const nq_puzzle_ask *a)
{
    char *canon = nq_puzzle_in_canonical(&a->spec, a);
    if (!canon) return false;
    const int len = snprintf(w->key, sizeof w->key, "puzzle/solve?%s&generator=%s&release=%s", canon,
                             NQ_PUZZLE_GENERATOR, nq_config_version());
    if (len < 0 || (size_t)len >= sizeof w->key) {
        const size_t clen = strlen(canon);
        const nq_hash_key ka = nq_hash_key_from_bytes(long_key_a), kb = nq_hash_key_from_bytes(long_key_b);
        char hex[33];
        nq_hash_hex(nq_hash_bytes(&ka, canon, clen), hex);
        nq_hash_hex(nq_hash_bytes(&kb, canon, clen), hex + 16);
        hex[32] = '\0';
        (void)snprintf(w->key, sizeof w->key, "puzzle/solve#%s&generator=%s&release=%s", hex, NQ_PUZZLE_GENERATOR,
                       nq_config_version());
    }
    free(canon);
    return true;
}

bool nq_route_puzzle_solve_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const bool posted = nq_app_posted(req); /* everything is in the body; the query must be empty */
    nq_query q;
    if (!nq_app_parse_query(req, posted ? 0u : NQ_PUZZLE_SOLVE_KEYS, &q, resp)) return false;
    const nq_config *cfg = nq_app_config(w->app);
    nq_puzzle_limits lim;
    nq_puzzle_limits_of(cfg, &lim);
    solve_plan *p = nq_app_plan_new(w, sizeof *p);
    if (!p) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    nq_puzzle_in_error e;
    const nq_err rc = posted ? nq_puzzle_in_json(req->body, req->body_len, &lim, &p->ask, &e)
                             : nq_puzzle_in_solve_query(&q, &lim, &p->ask, &e);
    if (rc != NQ_OK) {
        nq_puzzle_in_problem(resp, req->path, &e);
        return false;
    }
    p->max_nodes = cfg->max_puzzle_nodes;
    if (!set_key(w, &p->ask)) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    return true;
}

nq_app_step nq_route_puzzle_solve_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    if (nq_app_revalidate(w, req, resp)) return NQ_APP_DONE;
    nq_cache *cache = nq_app_cache(w->app);
    nq_cache_entry *e = nq_cache_get(cache, w->key);
    if (!e) return NQ_APP_COMPUTE;
    nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_HIT);
    return NQ_APP_DONE;
}

/* Every search of the answer, in turn, each within the budget. */
static nq_err solve(const solve_plan *p, nq_count_ctl *ctl, nq_puzzle_solved *out)
{
    const nq_puzzle_ask *a = &p->ask;
    const nq_puzzle_spec *s = &a->spec;
    nq_puzzle made;
    const nq_puzzle *pz = &s->given;
    nq_err rc = NQ_OK;
    if (s->generated) {
        rc = nq_puzzle_generate(s->kind, s->n, s->difficulty, s->seed, p->max_nodes, ctl, &made, NULL);
        pz = &made;
    }
    nq_puzzle_count_result cr;
    if (rc == NQ_OK) rc = nq_puzzle_count(pz, &a->pos, a->limit, p->max_nodes, ctl, &cr);
    if (rc == NQ_OK) {
        out->solutions = cr.solutions;
        out->found = cr.found;
        memcpy(out->solution, cr.cols, (size_t)s->n);
        rc = nq_puzzle_mistakes(pz, &a->pos, p->max_nodes, ctl, &out->mistakes);
    }
    if (rc == NQ_OK) rc = nq_puzzle_hint_next(pz, &a->pos, p->max_nodes, ctl, &out->hint);
    if (rc == NQ_OK) rc = nq_puzzle_grade_of(pz, p->max_nodes, ctl, &out->grade);
    out->graded = rc == NQ_OK && out->grade.solved;
    return rc;
}

nq_err nq_route_puzzle_solve_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r)
{
    const solve_plan *p = w->plan;
    r->entry = nq_cache_get(nq_app_cache(w->app), w->key); /* someone else published it meanwhile? */
    if (r->entry) return NQ_OK;
    solve_result *res = nq_app_result_data_new(r, sizeof *res);
    if (!res) return NQ_E_NOMEM;
    const double t0 = nq_clock_s();
    nq_err rc = solve(p, ctl, &res->solved);
    if (rc == NQ_E_BUDGET || rc == NQ_E_PUZZLE_UNAVAILABLE) { /* an answer of its own, every time alike */
        res->outcome = rc;
        return NQ_OK;
    }
    if (rc != NQ_OK) return rc;
    const size_t cap = nq_puzzle_body_solved_max(p->ask.spec.n);
    char *body = malloc(cap);
    if (!body) return NQ_E_NOMEM;
    const size_t len = nq_puzzle_body_solved(&p->ask, &res->solved, body, cap);
    if (len == 0) {
        free(body);
        return NQ_E_INTERNAL;
    }
    /* Refused (no cache, no memory): finish renders the body from the result. */
    rc = nq_app_publish(w, NQ_MEDIA_JSON, body, len, NULL, nq_clock_s() - t0, &r->entry);
    return rc == NQ_E_NOMEM ? NQ_OK : rc;
}

/* The 422 of a search past its budget, or of a generated puzzle not found. */
static void refused(const nq_app_work *w, nq_err outcome, nq_response *resp)
{
    const solve_plan *p = w->plan;
    const nq_puzzle_spec *s = &p->ask.spec;
    char detail[320];
    if (outcome == NQ_E_PUZZLE_UNAVAILABLE) {
        (void)snprintf(detail, sizeof detail,
                       "The generator found no %s %s puzzle of n = %d from seed %" PRIu64
                       " within this server's budget of %" PRIu64 " search nodes.",
                       nq_puzzle_difficulty_name(s->difficulty), nq_puzzle_kind_name(s->kind), s->n, s->seed,
                       p->max_nodes);
        nq_app_problem(resp, w->instance, NQ_E_PUZZLE_UNAVAILABLE, NULL, detail, false, 0);
        return;
    }
    (void)snprintf(detail, sizeof detail,
                   "Solving this %s puzzle of n = %d needs a search of more than %" PRIu64
                   " nodes, this server's budget for one search: give more of the position (queens, marks) or "
                   "ask about a smaller board.",
                   nq_puzzle_kind_name(s->kind), s->n, p->max_nodes);
    nq_app_problem(resp, w->instance, NQ_E_TOO_COSTLY, NULL, detail, false, 0);
}

/* What the body of a solved puzzle is rendered from (nq_app_reply_rendered). */
typedef struct solved_body {
    const nq_puzzle_ask *ask;
    const nq_puzzle_solved *solved;
} solved_body;

static size_t render_solved(const void *arg, char *out, size_t cap)
{
    const solved_body *b = arg;
    return nq_puzzle_body_solved(b->ask, b->solved, out, cap);
}

/* Answer with a body rendered here (the cache refused it). */
static void respond(const nq_app_work *w, const solve_result *res, double seconds, nq_response *resp)
{
    const solve_plan *p = w->plan;
    const solved_body b = {&p->ask, &res->solved};
    nq_app_reply_rendered(w, nq_puzzle_body_solved_max(p->ask.spec.n), render_solved, &b, seconds, resp);
}

void nq_route_puzzle_solve_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp)
{
    const solve_result *res = r->data;
    resp->cache = NQ_CACHE_MISS;
    if (r->entry)
        nq_app_serve_result(resp, r, &w->variant);
    else if (res && res->outcome != NQ_OK)
        refused(w, res->outcome, resp);
    else if (res)
        respond(w, res, r->seconds, resp);
    else
        nq_app_problem(resp, w->instance, NQ_E_INTERNAL, NULL, NULL, false, 0);
}
