/* body.h - the request bodies the core admits: a POST to a route that takes one must be
 * application/json, not content-coded, and within --max-body-bytes. Internal to the core
 * (pipeline.c); the transport's side of it is nq_app_body_begin and nq_app_body_too_large (app.h).
 * Thread-safety: pure functions of their arguments.
 */
#ifndef NQ_CORE_BODY_H
#define NQ_CORE_BODY_H

#include <stdint.h>

#include "base/errors.h"
#include "core/app.h"

/* Why a POST's body is refused, from its head: not JSON or content-coded (NQ_E_MEDIA_TYPE), or
 * longer than the cap (NQ_E_BODY_TOO_LARGE: length is the announced length, or that of the body
 * read); else NQ_OK. */
nq_err nq_body_fault(const nq_app *app, const nq_request *req, uint64_t length);

/* Make resp the problem for nq_body_fault's err; length as there, or 0 for a chunked body that grew
 * past the cap. */
void nq_body_problem(const nq_app *app, const nq_request *req, nq_err err, uint64_t length, nq_response *resp);

#endif /* NQ_CORE_BODY_H */
