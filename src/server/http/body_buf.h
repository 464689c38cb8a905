/* body_buf.h - a request body as it arrives: one buffer per request, grown as its bytes come in, never
 * beyond a cap fixed when the request starts.
 *
 * Tuned for JSON placements of a few bytes to the cap (1 MiB by default): nothing is allocated before
 * the first byte, and the buffer grows by doubling from BODY_BUF_MIN, never past the announced length
 * when there is one, so a client that announces a large body and trickles it holds only what it sent,
 * and a body that arrives in full costs a handful of reallocations. A chunked body, whose length is
 * announced nowhere, is refused at the first byte that would take it past the cap.
 *
 * Thread-safety: none; a buffer belongs to its request (one libmicrohttpd thread at a time).
 */
#ifndef NQ_BODY_BUF_H
#define NQ_BODY_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"

typedef struct nq_body_buf {
    char *data;     /* the bytes so far (malloc'd), NULL before the first */
    size_t len;     /* bytes held */
    size_t alloc;   /* bytes allocated */
    size_t cap;     /* most bytes the body may have */
    uint64_t until; /* the announced length (<= cap), 0 when none was: where growth stops */
} nq_body_buf;

/* Start an empty body of at most cap bytes; expect is the announced length, 0 when unknown (a
 * chunked body). Allocates nothing. */
void nq_body_buf_init(nq_body_buf *b, size_t cap, uint64_t expect);

/* Append n bytes. Errors: NQ_E_BODY_TOO_LARGE (the body would pass the cap: nothing is appended),
 * NQ_E_NOMEM (nothing is appended). */
nq_err nq_body_buf_append(nq_body_buf *b, const char *p, size_t n);

/* Free what b holds and leave it empty (and still usable). NULL is accepted. */
void nq_body_buf_free(nq_body_buf *b);

#endif /* NQ_BODY_BUF_H */
