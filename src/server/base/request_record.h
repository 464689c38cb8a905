/* request_record.h - what one finished request looked like, handed to the access log and the metrics.
 *
 * server.c fills one record in the single place where a request ends (libmicrohttpd's
 * MHD_OPTION_NOTIFY_COMPLETED callback) and passes it to nq_accesslog_request and
 * nq_metrics_observe_request. The record only borrows: every pointer belongs to the request's own
 * context and must stay valid for the duration of those two calls, no longer. Consumers copy what they
 * keep.
 */
#ifndef NQ_REQUEST_RECORD_H
#define NQ_REQUEST_RECORD_H

#include <stdbool.h>
#include <stdint.h>

typedef enum nq_cache_outcome {
    NQ_CACHE_NONE = 0, /* the route does not use the cache (probes, metrics, errors before lookup) */
    NQ_CACHE_HIT,      /* answered from the cache */
    NQ_CACHE_MISS      /* computed (or joined a computation in flight) */
} nq_cache_outcome;

typedef struct nq_request_record {
    const char *method;      /* "GET", ...; NULL if the request never got that far */
    const char *path;        /* decoded path without the query; NULL as above */
    const char *query;       /* raw query string without '?', NULL when the target had none */
    const char *route;       /* route name from the route table ("solve", "count", "not_found", ...),
                                a short [a-z_] label; NULL = "none" (rejected before routing) */
    const char *request_id;  /* X-Request-Id sent back to the client; NULL if none was assigned */
    const char *remote_addr; /* numeric client address; NULL if unknown */
    unsigned status;         /* HTTP status sent; 0 if no response was queued (connection dropped) */
    uint64_t bytes;          /* body bytes sent (after compression) */
    double duration_s;       /* from the first byte of the request to completion, in seconds */
    double solver_s;         /* solver time this request waited on (0 for a cache hit), seconds */
    nq_cache_outcome cache;  /* cache outcome */
    bool completed;          /* true if the response was sent whole, false if the client went away */
} nq_request_record;

#endif /* NQ_REQUEST_RECORD_H */
