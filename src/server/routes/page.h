/* page.h - the pipeline steps (core/route.h) of the web page, named in the route table (table.c).
 *
 * The web page at / and its assets under /assets/.
 * Thread-safety: as every step (core/work.h): a work belongs to one thread at a time; compute steps
 * run on any solver worker.
 */
#ifndef NQ_ROUTES_PAGE_H
#define NQ_ROUTES_PAGE_H

#include <stdbool.h>

#include "core/app.h"
#include "core/work.h"

/* The steps of the web page at / and its assets under /assets/ (page.c) */
nq_app_step nq_route_page_answer(nq_app_work *w, const nq_request *req, nq_response *resp);
bool nq_route_page_exists(const nq_app *app, const char *path);

#endif /* NQ_ROUTES_PAGE_H */
