/* placement_in.h - a placement from a request: the query form (columns= or queens=) or a JSON body.
 *
 * Both forms end in the library's nq_placement (include/nqueens/placement.h), so /check and
 * /complete answer a GET and a POST of the same board identically. Errors are problems ready to send:
 * a 400 that names the parameter or member and the entry at fault.
 *
 * JSON bodies: {"n":8,"columns":[0,null,...]} (exactly n entries, an integer column or null each) or
 * {"n":8,"queens":[[0,0],[1,4]]} (pairs of integers). Parsed strictly: an object with exactly the
 * member n and one of columns/queens, no member twice, no other member; numbers must be integral
 * (a whole number past 2^53 - 1, where a JSON number stops being exact, is out of range).
 * Memory: cJSON's tree of the body, a few dozen bytes per JSON value, so bounded by the body cap.
 * Thread-safety: reentrant (cJSON is used without its global error pointer).
 */
#ifndef NQ_PLACEMENT_IN_H
#define NQ_PLACEMENT_IN_H

#include <stddef.h>
#include <stdint.h>

#include "core/reply.h"
#include "nqueens/placement.h"

/* Why a placement could not be read: the error, the parameter or member at fault, a sentence. */
typedef struct nq_placement_in_error {
    nq_err err;        /* NQ_E_PARAM_*, NQ_E_PLACEMENT, NQ_E_BAD_REQUEST, NQ_E_LIMIT, NQ_E_NOMEM */
    const char *param; /* "n", "columns", "queens", or NULL */
    uint64_t limit;    /* NQ_E_LIMIT: the largest n accepted */
    char detail[224];  /* for the problem body */
} nq_placement_in_error;

/* The placement of a parsed query q (columns or queens, exactly one, with n; n <= max_n). On success
 * *out owns a finished placement. */
nq_err nq_placement_from_query(const nq_query *q, uint32_t max_n, nq_placement **out, nq_placement_in_error *e);

/* The placement of a JSON body of len bytes (n <= max_n). On success *out owns a finished placement. */
nq_err nq_placement_from_json(const char *body, size_t len, uint32_t max_n, nq_placement **out,
                              nq_placement_in_error *e);

/* Answer resp with the problem e describes. */
void nq_placement_in_problem(nq_response *resp, const char *instance, const nq_placement_in_error *e);

#endif /* NQ_PLACEMENT_IN_H */
