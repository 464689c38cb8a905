/* puzzle.c - GET /puzzle: a generated puzzle with exactly one solution.
 *
 *   parse    kind, n (4..--max-n-puzzle-queens or 5..--max-n-puzzle-regions), difficulty (easy),
 *            seed or date (the server picks a seed when neither is given), reveal, generator
 *            (puzzle_in.h); a combination the project does not offer (nq_puzzle_offered) is 422
 *            puzzle-unavailable at once; the key names the release, since a later one may render or grade
 *            differently (the generator's version is in the key and the answer too)
 *   answer   a 304 from the key; a cached body; else the generator
 *   compute  nq_puzzle_generate on a solver worker, under the pool's deadline and the node budget
 *            (--max-puzzle-nodes), and with reveal=true the search for its solution; rendered and
 *            published. No puzzle within the budget is an outcome, not a failure: finish answers it
 *            422 puzzle-unavailable, naming the combination
 *   finish   the published entry, or the body rendered from the result when the cache refused it
 *
 * A server-chosen seed makes the answer one of many: it is sent with Cache-Control: no-store and a
 * Content-Location naming the same puzzle with its seed and generator, the permalink (whose answer
 * is immutable), as /solution does. Seeds are below 2^53, so every client holds them exactly.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (clock.h) */
#endif

#include "routes/puzzle.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/clock.h"
#include "core/reply.h"
#include "routes/puzzle_body.h"
#include "routes/puzzle_in.h"

typedef struct puzzle_plan {
    nq_puzzle_spec spec; /* the puzzle to make, with its seed */
    bool reveal;         /* include the solution */
    bool seed_chosen;    /* the server picked the seed: not cacheable by clients, permalink sent */
    uint64_t max_nodes;  /* --max-puzzle-nodes */
} puzzle_plan;

typedef struct puzzle_result {
    nq_err outcome;      /* NQ_OK, or NQ_E_PUZZLE_UNAVAILABLE (answered as that problem) */
    nq_puzzle_made made; /* outcome NQ_OK: the puzzle */
} puzzle_result;

/* A seed for a request that gave none; a failed getrandom falls back on the request id. */
static uint64_t choose_seed(const nq_response *resp)
{
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed)
        for (const char *p = resp->request_id; *p; p++) seed = seed * 31u + (unsigned char)*p;
    return seed & NQ_PUZZLE_SEED_MAX;
}

/* The permalink of the plan's puzzle ("/puzzle?kind=...&generator=1"); false when out of memory. */
static bool permalink(const puzzle_plan *p, char *out, size_t cap)
{
    char *canon = nq_puzzle_in_canonical(&p->spec, NULL);
    if (!canon) return false;
    const int w =
        snprintf(out, cap, "/puzzle?%s%s&generator=%s", canon, p->reveal ? "&reveal=true" : "", NQ_PUZZLE_GENERATOR);
    free(canon);
    return w > 0 && (size_t)w < cap;
}

bool nq_route_puzzle_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    nq_query q;
    if (!nq_app_parse_query(req, NQ_PUZZLE_KEYS, &q, resp)) return false;
    const nq_config *cfg = nq_app_config(w->app);
    nq_puzzle_limits lim;
    nq_puzzle_limits_of(cfg, &lim);
    nq_puzzle_in_error e;
    puzzle_plan *p = nq_app_plan_new(w, sizeof *p);
    if (!p) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    if (nq_puzzle_in_query(&q, &lim, false, &p->spec, &e) != NQ_OK) {
        nq_puzzle_in_problem(resp, req->path, &e);
        return false;
    }
    p->reveal = q.reveal;
    p->max_nodes = cfg->max_puzzle_nodes;
    p->seed_chosen = !p->spec.has_seed;
    if (p->seed_chosen) {
        p->spec.seed = choose_seed(resp);
        p->spec.has_seed = true;
    }
    char link[NQ_APP_KEY_MAX];
    const int len = permalink(p, link, sizeof link)
                        ? snprintf(w->key, sizeof w->key, "%s&release=%s", link + 1, nq_config_version())
                        : -1;
    if (len < 0 || (size_t)len >= sizeof w->key) { /* never: a permalink is some 100 bytes */
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    return true;
}

/* The headers that differ when the server chose the seed. */
static void seed_headers(const puzzle_plan *p, nq_response *resp)
{
    char link[NQ_APP_KEY_MAX];
    if (!p->seed_chosen || resp->status != 200 || !permalink(p, link, sizeof link)) return;
    nq_response_set_header(resp, "Cache-Control", "no-store");
    nq_response_add_header(resp, "Content-Location", link);
}

nq_app_step nq_route_puzzle_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const puzzle_plan *p = w->plan;
    /* A seed the server just chose names a puzzle the client has not seen: nothing to revalidate. */
    if (!p->seed_chosen && nq_app_revalidate(w, req, resp)) return NQ_APP_DONE;
    nq_cache *cache = nq_app_cache(w->app);
    nq_cache_entry *e = nq_cache_get(cache, w->key);
    if (!e) return NQ_APP_COMPUTE;
    nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_HIT);
    seed_headers(p, resp);
    return NQ_APP_DONE;
}

/* The puzzle (and with reveal its solution) into m. */
static nq_err make(const puzzle_plan *p, nq_count_ctl *ctl, nq_puzzle_made *m)
{
    const nq_puzzle_spec *s = &p->spec;
    nq_err rc = nq_puzzle_generate(s->kind, s->n, s->difficulty, s->seed, p->max_nodes, ctl, &m->puzzle, &m->grade);
    if (rc != NQ_OK || !p->reveal) return rc;
    nq_puzzle_count_result cr;
    rc = nq_puzzle_count(&m->puzzle, NULL, 1, p->max_nodes, ctl, &cr);
    if (rc == NQ_OK && !cr.found) rc = NQ_E_INTERNAL; /* a generated puzzle always has its solution */
    if (rc == NQ_OK) {
        memcpy(m->solution, cr.cols, (size_t)s->n);
        m->revealed = true;
    }
    return rc;
}

nq_err nq_route_puzzle_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r)
{
    const puzzle_plan *p = w->plan;
    r->entry = nq_cache_get(nq_app_cache(w->app), w->key); /* someone else published it meanwhile? */
    if (r->entry) return NQ_OK;
    puzzle_result *res = nq_app_result_data_new(r, sizeof *res);
    if (!res) return NQ_E_NOMEM;
    const double t0 = nq_clock_s();
    nq_err rc = make(p, ctl, &res->made);
    if (rc == NQ_E_PUZZLE_UNAVAILABLE || rc == NQ_E_BUDGET) { /* an answer of its own, every time alike */
        res->outcome = NQ_E_PUZZLE_UNAVAILABLE;
        return NQ_OK;
    }
    if (rc != NQ_OK) return rc;
    const size_t cap = nq_puzzle_body_made_max(p->spec.n);
    char *body = malloc(cap);
    if (!body) return NQ_E_NOMEM;
    const size_t len = nq_puzzle_body_made(&p->spec, &res->made, body, cap);
    if (len == 0) {
        free(body);
        return NQ_E_INTERNAL;
    }
    /* Refused (no cache, no memory): finish renders the body from the result. */
    rc = nq_app_publish(w, NQ_MEDIA_JSON, body, len, NULL, nq_clock_s() - t0, &r->entry);
    return rc == NQ_E_NOMEM ? NQ_OK : rc;
}

/* The 422 of a combination the generator found no puzzle for. */
static void unavailable(const nq_app_work *w, nq_response *resp)
{
    const puzzle_plan *p = w->plan;
    char detail[320];
    (void)snprintf(detail, sizeof detail,
                   "The generator found no %s %s puzzle of n = %d from seed %" PRIu64
                   " within this server's budget of %" PRIu64
                   " search nodes: ask for another size or difficulty (the documentation lists those offered).",
                   nq_puzzle_difficulty_name(p->spec.difficulty), nq_puzzle_kind_name(p->spec.kind), p->spec.n,
                   p->spec.seed, p->max_nodes);
    nq_app_problem(resp, w->instance, NQ_E_PUZZLE_UNAVAILABLE, NULL, detail, false, 0);
}

/* What the body of a made puzzle is rendered from (nq_app_reply_rendered). */
typedef struct made_body {
    const nq_puzzle_spec *spec;
    const nq_puzzle_made *made;
} made_body;

static size_t render_made(const void *arg, char *out, size_t cap)
{
    const made_body *m = arg;
    return nq_puzzle_body_made(m->spec, m->made, out, cap);
}

/* Answer with a body rendered here (the cache refused it). */
static void respond(const nq_app_work *w, const puzzle_result *res, double seconds, nq_response *resp)
{
    const puzzle_plan *p = w->plan;
    const made_body m = {&p->spec, &res->made};
    nq_app_reply_rendered(w, nq_puzzle_body_made_max(p->spec.n), render_made, &m, seconds, resp);
}

void nq_route_puzzle_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp)
{
    const puzzle_result *res = r->data;
    resp->cache = NQ_CACHE_MISS;
    if (r->entry)
        nq_app_serve_result(resp, r, &w->variant);
    else if (res && res->outcome != NQ_OK)
        unavailable(w, resp);
    else if (res)
        respond(w, res, r->seconds, resp);
    else
        nq_app_problem(resp, w->instance, NQ_E_INTERNAL, NULL, NULL, false, 0);
    seed_headers(w->plan, resp);
}
