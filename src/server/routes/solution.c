/* solution.c - GET /solution: one solution for any n, constructed or random from a seed.
 *
 *   parse    n (up to --max-n-solution), method, seed (random only; the server picks one when it is
 *            absent), format (board only up to --max-n-board); the key names the release, since a
 *            later release may construct or search differently
 *   answer   a 304 from the key; a cached body; a constructed board too big to cache streams at once
 *            (O(1) memory: rows are made as they are sent); else the computation
 *   compute  the construction rendered once (when it fits the cache), or the local search on a
 *            solver worker, rendered and published when it fits
 *   finish   the published entry, or a stream over a copy of the searched columns
 *
 * A server-chosen seed makes the answer one of many: it is sent with Cache-Control: no-store and a
 * Content-Location naming the same board with its seed, the permalink (whose answer is immutable). The
 * server picks seeds below 2^53, and a client may give seeds up to 2^53 - 1 (the query parser refuses
 * more), so every JSON client holds a seed it is sent exactly.
 */
#include "routes/solution.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "base/errors.h"
#include "core/reply.h"
#include "nqueens/solution.h"
#include "routes/solution_body.h"

#define SOLUTION_KEYS (NQ_QK_N | NQ_QK_METHOD | NQ_QK_SEED | NQ_QK_FORMAT)
#define SEED_CHOSEN_MASK ((UINT64_C(1) << 53) - 1) /* server-chosen seeds fit a JSON number exactly */

typedef struct solution_plan {
    nq_solution_spec spec; /* the board to answer with */
    bool seed_chosen;      /* the server picked the seed: not cacheable by clients, permalink sent */
    bool cacheable;        /* the body fits the response cache */
} solution_plan;

/* A random solution too big to cache: the columns, for the streams of every waiting request. */
typedef struct solution_result {
    uint32_t n;      /* rows in cols; 0 when the board has none */
    uint32_t cols[]; /* the solution */
} solution_result;

static void over_limit(nq_response *resp, const char *path, const char *param, uint64_t limit, const char *detail)
{
    nq_app_problem(resp, path, NQ_E_LIMIT, param, detail, true, limit);
}

/* The configuration's bounds on top of the query's syntax; false with resp the problem. */
static bool validate(const nq_app_work *w, const nq_request *req, const nq_query *q, nq_response *resp)
{
    const nq_config *cfg = nq_app_config(w->app);
    char detail[192];
    if (q->n > cfg->max_n_solution) {
        (void)snprintf(detail, sizeof detail, "Parameter 'n' must be between 1 and %u on this server.",
                       cfg->max_n_solution);
        over_limit(resp, req->path, "n", cfg->max_n_solution, detail);
        return false;
    }
    if ((q->present & NQ_QK_SEED) && q->method != NQ_METHOD_RANDOM) {
        nq_app_problem(resp, req->path, NQ_E_PARAM_CONFLICT, "seed",
                       "Parameter 'seed' applies only with method=random.", false, 0);
        return false;
    }
    if ((q->present & NQ_QK_FORMAT) && q->format == NQ_FORMAT_BOARD && q->n > cfg->max_n_board) {
        (void)snprintf(detail, sizeof detail,
                       "format=board draws boards up to n = %u on this server; ask for format=columns.",
                       cfg->max_n_board);
        over_limit(resp, req->path, "format", cfg->max_n_board, detail);
        return false;
    }
    return true;
}

/* A seed for a request that gave none; a failed getrandom falls back on the request id's counter. */
static uint64_t choose_seed(const nq_response *resp)
{
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed)
        for (const char *p = resp->request_id; *p; p++) seed = seed * 31u + (unsigned char)*p;
    return seed & SEED_CHOSEN_MASK;
}

/* The canonical form of the request: also its permalink, with the release for the key. */
static void permalink(const nq_solution_spec *s, char *out, size_t cap)
{
    char seed[32] = "";
    if (s->has_seed) (void)snprintf(seed, sizeof seed, "&seed=%" PRIu64, s->seed);
    (void)snprintf(out, cap, "/solution?n=%" PRIu32 "&method=%s%s&format=%s", s->n, nq_query_method_name(s->method),
                   seed, s->format == NQ_FORMAT_BOARD ? "board" : "columns");
}

bool nq_route_solution_parse(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(req->query, req->query_len, SOLUTION_KEYS, &q, &qe) != NQ_OK ||
        nq_query_require(&q, NQ_QK_N, &qe) != NQ_OK) {
        nq_app_query_problem(resp, req->path, &qe);
        return false;
    }
    if (!validate(w, req, &q, resp)) return false;
    solution_plan *p = nq_app_plan_new(w, sizeof *p);
    if (!p) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return false;
    }
    p->spec = (nq_solution_spec){.n = (uint32_t)q.n,
                                 .method = q.method,
                                 .has_seed = q.method == NQ_METHOD_RANDOM,
                                 .seed = q.seed,
                                 .format = (q.present & NQ_QK_FORMAT) ? q.format : NQ_FORMAT_COLUMNS};
    p->seed_chosen = q.method == NQ_METHOD_RANDOM && !(q.present & NQ_QK_SEED);
    if (p->seed_chosen) p->spec.seed = choose_seed(resp);
    const size_t size = nq_body_solution_size(&p->spec);
    p->cacheable = nq_cache_fits(nq_app_cache(w->app), size, size);
    char link[160];
    permalink(&p->spec, link, sizeof link);
    (void)snprintf(w->key, sizeof w->key, "%s&release=%s", link + 1, nq_config_version());
    return true;
}

/* The headers that differ when the server chose the seed. */
static void seed_headers(const solution_plan *p, nq_response *resp)
{
    if (!p->seed_chosen || resp->status != 200) return;
    char link[160];
    permalink(&p->spec, link, sizeof link);
    nq_response_set_header(resp, "Cache-Control", "no-store");
    nq_response_add_header(resp, "Content-Location", link);
}

static nq_err body_read(void *src, char *buf, size_t cap, size_t *len)
{
    return nq_body_solution_read(src, buf, cap, len);
}

static void body_free(void *src)
{
    nq_body_solution_destroy(src);
}

/* Answer with a stream over cols (taken over; NULL: the construction), gzip when allowed. */
static void respond_stream(const nq_app_work *w, uint32_t *cols, double seconds, nq_response *resp)
{
    const solution_plan *p = w->plan;
    const size_t size = nq_body_solution_size(&p->spec);
    const size_t pinned = nq_body_solution_footprint(&p->spec, cols != NULL);
    const bool gz = w->variant.gzip_ok && size > NQ_COMPRESS_MIN_BYTES;
    nq_body_solution *b = NULL;
    nq_err rc = NQ_OK;
    if (w->variant.head)
        free(cols); /* the headers of GET, no body, no work */
    else
        rc = nq_body_solution_create(&p->spec, cols, &b); /* takes cols over */
    if (rc != NQ_OK) {
        nq_app_problem(resp, w->instance, rc, NULL, NULL, false, 0);
        return;
    }
    const nq_app_body body = {body_read, body_free, b, size};
    /* The stream and its columns live as long as its client reads: they count against --max-pinned-bytes. */
    nq_app_stream_pinned(w, body, pinned, NQ_MEDIA_JSON, gz, seconds, resp);
    seed_headers(p, resp);
}

nq_app_step nq_route_solution_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const solution_plan *p = w->plan;
    /* A seed the server just chose names a board the client has not seen: nothing to revalidate
     * (an "If-None-Match: *" would otherwise get a 304, immutable, for it). */
    if (!p->seed_chosen && nq_app_revalidate(w, req, resp)) return NQ_APP_DONE;
    nq_cache *cache = nq_app_cache(w->app);
    if (p->cacheable) {
        nq_cache_entry *e = nq_cache_get(cache, w->key);
        if (!e) return NQ_APP_COMPUTE; /* rendered once, by compute */
        nq_app_serve_entry(resp, e, &w->variant, 0.0, NQ_CACHE_HIT);
        seed_headers(p, resp);
        return NQ_APP_DONE;
    }
    /* Too big to cache: the construction streams as it is sent; a search must run first (but HEAD
     * says only what GET would, and that needs no board). */
    const bool search = p->spec.method == NQ_METHOD_RANDOM && nq_solution_exists(p->spec.n);
    if (search && !w->variant.head) {
        /* Its stream will hold a copy of the columns: refuse now, before the search, when the
         * pinned budget cannot hold it (finish checks again, and takes it). */
        if (!nq_app_pin_room(w->app, nq_body_solution_footprint(&p->spec, true), w->instance, resp)) return NQ_APP_DONE;
        return NQ_APP_COMPUTE;
    }
    respond_stream(w, NULL, 0.0, resp);
    return NQ_APP_DONE;
}

/* Render the body of cols (taken over; NULL: the construction), compress it once, publish both. */
static nq_err publish(const nq_app_work *w, uint32_t *cols, nq_app_result *r)
{
    const solution_plan *p = w->plan;
    char *body = NULL;
    size_t len = 0;
    const nq_err rc = nq_body_solution_render(&p->spec, cols, &body, &len);
    if (rc != NQ_OK) return rc;
    /* Refused (no cache, no memory): finish renders the board again, as a stream. */
    return nq_app_publish(w, NQ_MEDIA_JSON, body, len, NULL, 0.0, &r->entry);
}

/* The random solution of the plan into new memory (*cols, n entries; NULL when the board has none). */
static nq_err search(const solution_plan *p, nq_count_ctl *ctl, uint32_t **cols)
{
    *cols = NULL;
    if (!nq_solution_exists(p->spec.n)) return NQ_OK;
    uint32_t *c = malloc((size_t)p->spec.n * sizeof *c);
    if (!c) return NQ_E_NOMEM;
    const nq_err rc = nq_random_solution(p->spec.n, p->spec.seed, ctl, c);
    if (rc != NQ_OK) {
        free(c);
        return rc;
    }
    *cols = c;
    return NQ_OK;
}

nq_err nq_route_solution_compute(const nq_app_work *w, nq_count_ctl *ctl, nq_app_result *r)
{
    const solution_plan *p = w->plan;
    r->method = nq_query_method_name(p->spec.method);
    r->entry = nq_cache_get(nq_app_cache(w->app), w->key); /* someone else published it meanwhile? */
    if (r->entry) return NQ_OK;
    uint32_t *cols = NULL;
    if (p->spec.method == NQ_METHOD_RANDOM) {
        const nq_err rc = search(p, ctl, &cols);
        if (rc != NQ_OK) return rc;
    }
    const uint32_t n = cols ? p->spec.n : 0;
    if (p->cacheable) { /* publish renders a copy: if the cache refuses it, the columns still serve */
        uint32_t *copy = n ? malloc((size_t)n * sizeof *copy) : NULL;
        nq_err rc = n && !copy ? NQ_E_NOMEM : NQ_OK;
        if (copy) memcpy(copy, cols, (size_t)n * sizeof *copy);
        if (rc == NQ_OK) rc = publish(w, copy, r); /* takes copy over */
        if (rc != NQ_OK || r->entry) {
            free(cols);
            return rc;
        }
    }
    solution_result *res = nq_app_result_data_new(r, sizeof *res + (size_t)n * sizeof res->cols[0]);
    if (res) {
        res->n = n;
        if (n) memcpy(res->cols, cols, (size_t)n * sizeof res->cols[0]);
    }
    free(cols);
    return res ? NQ_OK : NQ_E_NOMEM;
}

void nq_route_solution_finish(const nq_app_work *w, const nq_app_result *r, nq_response *resp)
{
    resp->cache = NQ_CACHE_MISS;
    if (r->entry) {
        nq_app_serve_result(resp, r, &w->variant);
        seed_headers(w->plan, resp);
        return;
    }
    /* Each stream reads its own copy: the result is shared by every waiting request. */
    const solution_result *res = r->data;
    uint32_t *cols = NULL;
    if (res && res->n) {
        if (!(cols = malloc((size_t)res->n * sizeof *cols))) {
            nq_app_problem(resp, w->instance, NQ_E_NOMEM, NULL, NULL, false, 0);
            return;
        }
        memcpy(cols, res->cols, (size_t)res->n * sizeof *cols);
    }
    respond_stream(w, cols, r->seconds, resp);
}
