/* shared.c - what the routes share, from an app's context (shared.h). */
#include "routes/shared.h"

#include <assert.h>

static const nq_shared *of(const nq_app *app)
{
    assert(app && nq_app_context(app));
    return nq_app_context(app);
}

nq_count_jobs *nq_shared_jobs(const nq_app *app)
{
    return of(app)->jobs;
}

const nq_web *nq_shared_web(const nq_app *app)
{
    return of(app)->web;
}

const nq_document *nq_shared_openapi(const nq_app *app)
{
    return &of(app)->openapi;
}
