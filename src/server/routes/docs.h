/* docs.h - the pipeline steps (core/route.h) of the documents, named in the route table (table.c).
 *
 * /openapi.yaml, /problems/{slug} and the 404 fallback.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_DOCS_H
#define NQ_ROUTES_DOCS_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of /openapi.yaml, /problems/{slug} and the 404 fallback (docs.c) */
bool nq_route_docs_parse(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_openapi_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
nq_app_step nq_route_problem_doc_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
bool nq_route_problem_doc_exists(const nq_app *app, const char *path);
nq_app_step nq_route_not_found_answer(nq_app_work *w, const nq_request *req, nq_response *resp);

#endif /* NQ_ROUTES_DOCS_H */
