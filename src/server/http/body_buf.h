/* body_buf.h - a request body as it arrives: one buffer per request, grown as its bytes come in, never
 * beyond a cap fixed when the request starts.
 *
 * Tuned for JSON placements of a few bytes to the cap (1 MiB by default): nothing is allocated before
 * the first byte, and the buffer grows by doubling from BODY_BUF_MIN, never past the announced length
 * when there is one, so a client that announces a large body and trickles it holds only what it sent,
 * and a body that arrives in full costs a handful of reallocations. A chunked body, whose length is
 * announced nowhere, is refused at the first byte that would take it past the cap.
 *
 * Every buffer of a server draws its allocation from one budget (--max-bodies-bytes), so the bodies in
 * flight on all connections together stay bounded: growth that would pass it is refused (the server
 * answers 503), and freeing a buffer gives its bytes back.
 *
 * Thread-safety: a buffer belongs to its request (one libmicrohttpd thread at a time); a budget is
 * shared by all threads (one atomic counter).
 */
#ifndef NQ_BODY_BUF_H
#define NQ_BODY_BUF_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "nqueens/error.h"

/* Bytes the buffers of a server may hold allocated at once. */
typedef struct nq_body_budget {
    atomic_size_t used; /* allocated by live buffers now */
    size_t cap;         /* most they may have */
} nq_body_budget;

/* An empty budget of cap bytes. */
void nq_body_budget_init(nq_body_budget *budget, size_t cap);

/* Bytes allocated by live buffers now (for metrics). */
size_t nq_body_budget_used(const nq_body_budget *budget);

typedef struct nq_body_buf {
    nq_body_budget *budget; /* where its allocation is charged */
    char *data;             /* the bytes so far (malloc'd), NULL before the first */
    size_t len;             /* bytes held */
    size_t alloc;           /* bytes allocated */
    size_t cap;             /* most bytes the body may have */
    uint64_t until;         /* the announced length (<= cap), 0 when none was: where growth stops */
} nq_body_buf;

/* Start an empty body of at most cap bytes charged to budget (not NULL); expect is the announced
 * length, 0 when unknown (a chunked body). Allocates nothing. */
void nq_body_buf_init(nq_body_buf *b, nq_body_budget *budget, size_t cap, uint64_t expect);

/* Append n bytes. Errors (nothing is appended): NQ_E_BODY_TOO_LARGE (the body would pass the cap),
 * NQ_E_BUSY (the growth would take the budget past its cap), NQ_E_NOMEM. */
nq_err nq_body_buf_append(nq_body_buf *b, const char *p, size_t n);

/* Free what b holds, give its bytes back to the budget, and leave it empty (and still usable). NULL is
 * accepted. */
void nq_body_buf_free(nq_body_buf *b);

#endif /* NQ_BODY_BUF_H */
