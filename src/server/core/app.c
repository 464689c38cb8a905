/* app.c - the pipeline's shared state: what it was created with, readiness, request ids and the
 * budget of gzip streams (app.h). The steps themselves are in pipeline.c.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, strcasecmp, strnlen */
#endif
#include "core/app.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>

#include "base/hash.h"

struct nq_app {
    const nq_config *cfg;               /* read-only after start-up */
    nq_cache *cache;                    /* shared, internally locked; may be NULL */
    nq_app_hooks hooks;                 /* what the app reads of the server around it */
    const nq_route *routes;             /* the route table (constant) */
    void *context;                      /* the routes' own state, opaque here */
    atomic_bool draining;               /* readiness */
    atomic_uint_fast64_t next_id;       /* request-id counter */
    uint64_t id_seed;                   /* random per process, so ids differ across restarts */
    atomic_uint gzip_streams;           /* streams compressing now: at most cfg->max_gzip_streams */
    atomic_uint_fast64_t gzip_declined; /* streams sent uncompressed for want of one */
    nq_pin_budget pins;                 /* bytes responses hold for their clients: cfg->max_pinned_bytes */
};

nq_err nq_app_create(const nq_config *cfg, nq_cache *cache, const nq_app_hooks *hooks, const nq_route *routes,
                     void *context, nq_app **out)
{
    if (!cfg || !routes || !out) return NQ_E_ARG;
    nq_app *app = calloc(1, sizeof *app);
    if (!app) return NQ_E_NOMEM;
    app->cfg = cfg;
    app->cache = cache;
    if (hooks) app->hooks = *hooks;
    app->routes = routes;
    app->context = context;
    atomic_init(&app->draining, false);
    atomic_init(&app->next_id, 0);
    atomic_init(&app->gzip_streams, 0);
    atomic_init(&app->gzip_declined, 0);
    /* Every answer the cache admits must be able to go out: the bound is at least one entry's limit. */
    const size_t entry_max = nq_cache_entry_limit(cache);
    nq_pin_budget_init(&app->pins, cfg->max_pinned_bytes > entry_max ? cfg->max_pinned_bytes : entry_max);
    /* Request ids only need to differ between processes; a failed getrandom leaves a time seed. */
    if (getrandom(&app->id_seed, sizeof app->id_seed, GRND_NONBLOCK) != (ssize_t)sizeof app->id_seed)
        app->id_seed = (uint64_t)time(NULL) * 0x9e3779b97f4a7c15ULL;
    *out = app;
    return NQ_OK;
}

void nq_app_destroy(nq_app *app)
{
    free(app);
}

void nq_app_set_draining(nq_app *app, bool draining)
{
    atomic_store(&app->draining, draining);
}
bool nq_app_draining(const nq_app *app)
{
    return atomic_load(&app->draining);
}
const nq_config *nq_app_config(const nq_app *app)
{
    return app->cfg;
}
nq_cache *nq_app_cache(const nq_app *app)
{
    return app->cache;
}
const nq_app_hooks *nq_app_hooks_of(const nq_app *app)
{
    return &app->hooks;
}
void *nq_app_context(const nq_app *app)
{
    return app->context;
}

const nq_route *nq_app_routes(const nq_app *app)
{
    return app->routes;
}

/* splitmix64 of seed + counter: unique per process, unpredictable enough for correlation ids. */
void nq_app_request_id(nq_app *app, char *out, size_t cap)
{
    uint64_t z = app->id_seed + atomic_fetch_add(&app->next_id, 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    if (cap <= 16) { /* the response's id field holds it */
        if (cap > 0) out[0] = '\0';
        return;
    }
    nq_hash_hex(z, out);
    out[16] = '\0';
}

/* One of the --max-gzip-streams: a deflate state lives as long as its slowest client, so their number
 * bounds the memory that clients who read slowly can pin. False when all are taken. */
bool nq_app_gzip_take(nq_app *app)
{
    unsigned now = atomic_load(&app->gzip_streams);
    do {
        if (now >= app->cfg->max_gzip_streams) {
            atomic_fetch_add_explicit(&app->gzip_declined, 1, memory_order_relaxed);
            return false;
        }
    } while (!atomic_compare_exchange_weak(&app->gzip_streams, &now, now + 1));
    return true;
}

void nq_app_gzip_streams(const nq_app *app, unsigned *now, uint64_t *declined)
{
    *now = atomic_load(&app->gzip_streams);
    *declined = atomic_load(&app->gzip_declined);
}

void nq_app_gzip_give(nq_app *app)
{
    atomic_fetch_sub(&app->gzip_streams, 1);
}

bool nq_app_gzip_free(const nq_app *app)
{
    return atomic_load(&app->gzip_streams) < app->cfg->max_gzip_streams;
}

nq_pin_budget *nq_app_pins(nq_app *app)
{
    return &app->pins;
}

void nq_app_pinned(const nq_app *app, size_t *now, size_t *max, uint64_t *refused)
{
    nq_pin_stats(&app->pins, now, refused);
    *max = app->pins.max;
}
