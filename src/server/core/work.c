/* work.c - the life of an nq_app_work and an nq_app_result (work.h): plans, copies for the worker
 * pool, results; and the 304 an answer step opens with.
 */
#include "core/work.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cache.h"

const char *nq_app_work_key(const nq_app_work *work)
{
    return work->flight[0] ? work->flight : work->key;
}

static void plan_free(nq_app_work *w)
{
    if (w->plan && w->plan_cleanup) w->plan_cleanup(w->plan);
    free(w->plan);
    w->plan = NULL;
    w->plan_cleanup = NULL;
}

void nq_app_plan_set_cleanup(nq_app_work *w, void (*cleanup)(void *plan))
{
    w->plan_cleanup = cleanup;
}

void *nq_app_plan_new(nq_app_work *w, size_t size)
{
    assert(w && size > 0);
    plan_free(w);
    w->plan = calloc(1, size);
    w->plan_size = w->plan ? size : 0;
    return w->plan;
}

void *nq_app_result_data_new(nq_app_result *r, size_t size)
{
    assert(r && size > 0);
    free(r->data);
    r->data = calloc(1, size);
    return r->data;
}

nq_app_work *nq_app_work_copy(const nq_app_work *work)
{
    if (work->plan_cleanup) return NULL; /* a plan that owns memory cannot be byte-copied */
    nq_app_work *w = malloc(sizeof *w);
    if (!w) return NULL;
    *w = *work;
    w->plan = NULL;
    if (work->plan_size && !(w->plan = malloc(work->plan_size))) {
        free(w);
        return NULL;
    }
    if (w->plan) memcpy(w->plan, work->plan, work->plan_size); /* plans hold no pointers */
    return w;
}

void nq_app_work_destroy(nq_app_work *work)
{
    if (!work) return;
    plan_free(work);
    free(work);
}

void nq_app_result_destroy(nq_app_result *result)
{
    if (!result) return;
    nq_cache_entry_release(result->entry);
    free(result->data);
    free(result);
}

double nq_app_result_seconds(const nq_app_result *result)
{
    return result ? result->seconds : 0.0;
}

bool nq_app_revalidate(const nq_app_work *w, const nq_request *req, nq_response *resp)
{
    char etag[NQ_ETAG_MAX], etag_gz[NQ_ETAG_MAX];
    nq_app_etag(w->key, false, etag, sizeof etag);
    nq_app_etag(w->key, true, etag_gz, sizeof etag_gz);
    if (!nq_app_try_304(req, etag, etag_gz, &w->variant, resp)) return false;
    nq_app_304_body(resp, nq_app_cache(w->app), w->key);
    return true;
}
