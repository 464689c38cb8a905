/* body_buf.c - a request body as it arrives, within its cap (see body_buf.h). */
#include "http/body_buf.h"

#include "base/errors.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define BODY_BUF_MIN ((size_t)4096) /* first allocation: a placement of a small board fits */

void nq_body_budget_init(nq_body_budget *budget, size_t cap)
{
    atomic_init(&budget->used, 0);
    budget->cap = cap;
}

size_t nq_body_budget_used(const nq_body_budget *budget)
{
    return atomic_load_explicit(&budget->used, memory_order_relaxed);
}

/* Take n more bytes from the budget; false (nothing taken) when that would pass its cap. */
static bool budget_take(nq_body_budget *budget, size_t n)
{
    size_t used = atomic_load_explicit(&budget->used, memory_order_relaxed);
    do {
        if (n > budget->cap - used) return false;
    } while (!atomic_compare_exchange_weak_explicit(&budget->used, &used, used + n, memory_order_relaxed,
                                                    memory_order_relaxed));
    return true;
}

static void budget_give(nq_body_budget *budget, size_t n)
{
    atomic_fetch_sub_explicit(&budget->used, n, memory_order_relaxed);
}

void nq_body_buf_init(nq_body_buf *b, nq_body_budget *budget, size_t cap, uint64_t expect)
{
    *b = (nq_body_buf){.budget = budget, .cap = cap, .until = expect <= cap ? expect : 0};
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
        if (!budget_take(b->budget, a - b->alloc)) return NQ_E_BUSY;
        char *bigger = realloc(b->data, a);
        if (!bigger) {
            budget_give(b->budget, a - b->alloc);
            return NQ_E_NOMEM;
        }
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
    if (b->alloc > 0) budget_give(b->budget, b->alloc);
    nq_body_buf_init(b, b->budget, b->cap, b->until);
}
