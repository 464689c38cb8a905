/* service.c - the pipeline over the route table, with the state the routes share (service.h). */
#include "routes/service.h"

#include <stdlib.h>

#include "cache/compress.h"
#include "core/conditional.h"
#include "routes/openapi_data.h"
#include "routes/shared.h"
#include "routes/table.h"

struct nq_service {
    nq_app *app;                       /* the pipeline, whose routes' context is `shared` */
    nq_shared shared;                  /* what the routes share (borrowing what is below) */
    nq_count_jobs *jobs;               /* the long counts */
    nq_web *web;                       /* the web page, compressed and tagged once */
    char *openapi_gzip;                /* gzip of the embedded openapi.yaml, made once */
    char openapi_etag[NQ_ETAG_MAX];    /* strong ETag of the document */
    char openapi_etag_gz[NQ_ETAG_MAX]; /* and of its gzip form */
};

/* The document is constant: compress it once, and derive its ETags from its bytes. */
static nq_err openapi_prepare(nq_service *s)
{
    size_t gzip_len = 0;
    const nq_err rc =
        nq_compress_buffer(nq_openapi_yaml, nq_openapi_yaml_len, NQ_COMPRESS_LEVEL_ONCE, &s->openapi_gzip, &gzip_len);
    if (rc != NQ_OK) return rc;
    nq_app_etag(nq_openapi_yaml, false, s->openapi_etag, sizeof s->openapi_etag);
    nq_app_etag(nq_openapi_yaml, true, s->openapi_etag_gz, sizeof s->openapi_etag_gz);
    s->shared.openapi = (nq_document){nq_openapi_yaml, nq_openapi_yaml_len, s->openapi_gzip,
                                      gzip_len,        s->openapi_etag,     s->openapi_etag_gz};
    return NQ_OK;
}

nq_err nq_service_create(const nq_config *cfg, nq_cache *cache, nq_store *store, const nq_app_hooks *hooks,
                         const nq_event_sink *events, nq_service **out)
{
    if (!cfg || !out) return NQ_E_ARG;
    nq_service *s = calloc(1, sizeof *s);
    if (!s) return NQ_E_NOMEM;
    nq_err rc = openapi_prepare(s);
    if (rc == NQ_OK) rc = nq_web_create(&s->web);
    if (rc == NQ_OK) rc = nq_count_jobs_create(cfg, cache, store, events, &s->jobs);
    if (rc == NQ_OK) {
        s->shared.jobs = s->jobs;
        s->shared.web = s->web;
        rc = nq_app_create(cfg, cache, hooks, nq_routes, &s->shared, &s->app);
    }
    if (rc != NQ_OK) {
        nq_service_destroy(s);
        return rc;
    }
    *out = s;
    return NQ_OK;
}

void nq_service_destroy(nq_service *s)
{
    if (!s) return;
    nq_count_jobs_destroy(s->jobs); /* its last checkpoints go to the store */
    nq_app_destroy(s->app);
    nq_web_destroy(s->web);
    free(s->openapi_gzip);
    free(s);
}

nq_app *nq_service_app(const nq_service *s)
{
    return s->app;
}
