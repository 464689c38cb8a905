/* body_buf.c - a request body as it arrives, within its cap (see body_buf.h). */
#include "http/body_buf.h"

#include <stdlib.h>
#include <string.h>

#define BODY_BUF_MIN ((size_t)4096) /* first allocation: a placement of a small board fits */

void nq_body_buf_init(nq_body_buf *b, size_t cap, uint64_t expect)
{
    *b = (nq_body_buf){.cap = cap, .until = expect <= cap ? expect : 0};
}

/* The allocation that holds need bytes: doubled from BODY_BUF_MIN, held to the announced length
 * (or the cap when there is none). need <= cap. */
static size_t grown(const nq_body_buf *b, size_t need)
{
    const size_t top = b->until > 0 && b->until >= need ? (size_t)b->until : b->cap;
    size_t a = b->alloc > 0 ? b->alloc : BODY_BUF_MIN;
    while (a < need && a <= top / 2) a *= 2;
    if (a < need || a > top) a = top;
    return a;
}

nq_err nq_body_buf_append(nq_body_buf *b, const char *p, size_t n)
{
    if (n > b->cap - b->len) return NQ_E_BODY_TOO_LARGE;
    const size_t need = b->len + n;
    if (need > b->alloc) {
        const size_t a = grown(b, need);
        char *bigger = realloc(b->data, a);
        if (!bigger) return NQ_E_NOMEM;
        b->data = bigger;
        b->alloc = a;
    }
    if (n > 0) memcpy(b->data + b->len, p, n);
    b->len = need;
    return NQ_OK;
}

void nq_body_buf_free(nq_body_buf *b)
{
    if (!b) return;
    free(b->data);
    nq_body_buf_init(b, b->cap, b->until);
}
