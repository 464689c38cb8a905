/* response.h - the nq_response value: a status, headers in a fixed arena, and a body of one of a few
 * kinds (none, constant, owned, a cache reference, a pull stream).
 *
 * The transport (http/) turns it into a libmicrohttpd response; tests and fuzzers read it whole with
 * nq_response_read_all. Nothing here allocates but the body a caller hands over.
 * Thread-safety: a response belongs to one thread at a time; the functions are reentrant.
 */
#ifndef NQ_CORE_RESPONSE_H
#define NQ_CORE_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "base/request_record.h"
#include "cache/cache.h"
#include "nqueens/error.h"

/* Pull reader of a streamed body: as nq_compress_source_fn (len 0 with NQ_OK ends the body). */
typedef nq_err (*nq_body_read_fn)(void *src, char *buf, size_t cap, size_t *len);

typedef enum nq_body_kind {
    NQ_BODY_NONE = 0, /* no body (204, 304) */
    NQ_BODY_STATIC,   /* body points at constant data */
    NQ_BODY_OWNED,    /* body is malloc'd and owned by the response */
    NQ_BODY_CACHED,   /* body lives in `entry`, a cache reference owned by the response */
    NQ_BODY_STREAM    /* produced by read(stream, ...), stream freed with stream_free; read NULL:
                         an empty stream (HEAD), sent with the framing GET would use */
} nq_body_kind;

#define NQ_RESPONSE_HEADERS_MAX 20 /* headers one response may carry */
#define NQ_RESPONSE_ARENA 2048     /* bytes for header values (the CORS origin is the longest) */
#define NQ_REQUEST_ID_MAX 64       /* longest X-Request-Id echoed; longer ones are replaced */

typedef struct nq_header_field {
    const char *name;  /* static string */
    const char *value; /* points into the response's arena, or a static string */
} nq_header_field;

/* A response. Initialise with nq_response_init, release with nq_response_clear. A server that hands
 * the body to its transport takes it over by setting kind to NQ_BODY_NONE (then clear frees nothing
 * of it); the transport then frees it as the kind says (free, nq_cache_entry_release, stream_free). */
typedef struct nq_response {
    unsigned status;                                  /* HTTP status */
    bool head;                                        /* the request was HEAD: send no body */
    size_t nheaders;                                  /* headers used */
    nq_header_field headers[NQ_RESPONSE_HEADERS_MAX]; /* in order */
    char arena[NQ_RESPONSE_ARENA];                    /* storage for header values */
    size_t arena_used;                                /* bytes of arena used */
    bool overflow;                                    /* a header did not fit (and was dropped) */
    nq_body_kind kind;                                /* what the body is */
    const char *body;                                 /* STATIC, OWNED, CACHED: the bytes */
    size_t body_len;                                  /* their length */
    char *owned;                                      /* OWNED: what to free() */
    nq_cache_entry *entry;                            /* CACHED: the reference to release */
    nq_body_read_fn read;                             /* STREAM: reader */
    void *stream;                                     /* STREAM: its state */
    void (*stream_free)(void *stream);                /* STREAM: frees state */
    uint64_t stream_len;                              /* STREAM: the exact bytes read produces, sent as
                                                         Content-Length; 0: not known (chunked) */
    /* for the request record */
    const char *route;                      /* route name (static) */
    char request_id[NQ_REQUEST_ID_MAX + 1]; /* X-Request-Id sent */
    double solver_seconds;                  /* solver time behind this answer */
    nq_cache_outcome cache;                 /* hit, miss or none */
} nq_response;

/* Make resp an empty 500 response with no headers and no body. */
void nq_response_init(nq_response *resp);

/* Release whatever body resp still owns and re-initialise it. NULL is accepted. */
void nq_response_clear(nq_response *resp);

/* Make body (malloc'd, taken over: freed with resp) resp's body of len bytes. resp must hold no body
 * yet (NQ_BODY_NONE). */
void nq_response_own(nq_response *resp, char *body, size_t len);

/* Add a header; value is copied into the arena. When the header table or the arena is full, nothing
 * is added and resp->overflow is set: a response that lost a header is not sent as it is, the
 * pipeline answers a 500 in its place (the sizes above hold every answer of the contract, so this is
 * a bug, never a client's doing). So callers need not check each call. */
void nq_response_add_header(nq_response *resp, const char *name, const char *value);

/* Replace the value of the first header called name (case-insensitive), or add it when absent. When
 * the arena or the table is full, nothing changes and resp->overflow is set, as above. */
void nq_response_set_header(nq_response *resp, const char *name, const char *value);

/* The value of the first header called name (case-insensitive), or NULL. */
const char *nq_response_header(const nq_response *resp, const char *name);

/* Whether a body goes on the wire: not for HEAD, 204 or 304 (whose body, if any, only sizes the
 * Content-Length header, as libmicrohttpd sends such responses headers-only). */
bool nq_response_sends_body(const nq_response *resp);

/* Copy the whole body that goes on the wire (none: see nq_response_sends_body) into buf, reading a
 * stream to its end; *len receives the length. cap must exceed the body (NQ_E_TOO_LARGE otherwise).
 * Used by tests and fuzzers that drive the app without a server.
 * Errors: NQ_E_ARG, NQ_E_TOO_LARGE, the stream's error. */
nq_err nq_response_read_all(nq_response *resp, char *buf, size_t cap, size_t *len);

#endif /* NQ_CORE_RESPONSE_H */
