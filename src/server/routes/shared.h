/* shared.h - what the routes share, as a route reaches it: the long-count service (counts/jobs.h),
 * the web page (web.h) and the OpenAPI document, made once by the service (service.h) and given to
 * the pipeline as its routes' context, so a route reaches them through its work's app
 * (nq_shared_jobs(w->app)), never through globals, and the core never learns what they are.
 * Thread-safety: read-only after the service is created; any thread.
 */
#ifndef NQ_ROUTES_SHARED_H
#define NQ_ROUTES_SHARED_H

#include <stddef.h>

#include "core/app.h"
#include "counts/jobs.h"
#include "routes/web.h"

/* A constant document served as it is (the embedded openapi.yaml): its bytes, gzip form and ETags. */
typedef struct nq_document {
    const char *body;    /* the identity bytes */
    size_t body_len;     /* their length */
    const char *gzip;    /* the gzip form */
    size_t gzip_len;     /* its length */
    const char *etag;    /* strong ETag of the identity form */
    const char *etag_gz; /* and of the gzip form */
} nq_document;

/* The routes' context: set up by the service, read by the routes. */
typedef struct nq_shared {
    nq_count_jobs *jobs; /* the long counts */
    const nq_web *web;   /* the web page */
    nq_document openapi; /* the embedded openapi.yaml */
} nq_shared;

/* What the routes share, from the app whose context it is. */
nq_count_jobs *nq_shared_jobs(const nq_app *app);
const nq_web *nq_shared_web(const nq_app *app);
const nq_document *nq_shared_openapi(const nq_app *app);

#endif /* NQ_ROUTES_SHARED_H */
