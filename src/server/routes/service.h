/* service.h - nqueensd's service as the transport sees it: the request pipeline (core/app.h) over the
 * route table (table.h), with what the routes share (shared.h): the long-count service
 * (counts/jobs.h), the web page (web.h) and the OpenAPI document, each made once at creation.
 *
 * Thread-safety: create and destroy are not (start-up and exit); the accessors read what does not
 * change after creation and may be called from any thread.
 */
#ifndef NQ_ROUTES_SERVICE_H
#define NQ_ROUTES_SERVICE_H

#include "base/config.h"
#include "base/errors.h"
#include "base/event.h"
#include "cache/cache.h"
#include "core/app.h"
#include "store/store.h"

typedef struct nq_service nq_service; /* opaque */

/* Create the service over a configuration (borrowed), a cache (borrowed; NULL: nothing is cached), a
 * store (borrowed; NULL: counts live in memory only), the pipeline's hooks (copied; NULL: none) and
 * an event sink for the long counts (copied; NULL: none). Loads what the store holds and starts the
 * long-count threads. On success *out owns it (nq_service_destroy).
 * Errors: NQ_E_ARG (cfg or out NULL), NQ_E_NOMEM, NQ_E_THREAD, NQ_E_STORE_IO. */
nq_err nq_service_create(const nq_config *cfg, nq_cache *cache, nq_store *store, const nq_app_hooks *hooks,
                         const nq_event_sink *events, nq_service **out);

/* Stop the long counts (their last checkpoints go to the store) and free everything. No request may
 * be in progress. NULL is accepted. */
void nq_service_destroy(nq_service *s);

/* The pipeline that answers requests (owned by the service). */
nq_app *nq_service_app(const nq_service *s);

#endif /* NQ_ROUTES_SERVICE_H */
