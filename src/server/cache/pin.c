/* pin.c - the budget of pinned bytes (pin.h): one atomic figure taken by compare-and-swap, so a take
 * that would pass the bound changes nothing. */
#include "cache/pin.h"

#include <assert.h>

void nq_pin_budget_init(nq_pin_budget *b, size_t max)
{
    assert(b);
    b->max = max;
    atomic_init(&b->used, 0);
    atomic_init(&b->refused, 0);
}

bool nq_pin_take(nq_pin_budget *b, size_t bytes)
{
    if (!b) return true;
    size_t now = atomic_load(&b->used);
    do {
        if (bytes > b->max - now) { /* now <= max always, so this cannot wrap */
            atomic_fetch_add_explicit(&b->refused, 1, memory_order_relaxed);
            return false;
        }
    } while (!atomic_compare_exchange_weak(&b->used, &now, now + bytes));
    return true;
}

bool nq_pin_room(nq_pin_budget *b, size_t bytes)
{
    if (!b) return true;
    if (bytes <= b->max - atomic_load(&b->used)) return true;
    atomic_fetch_add_explicit(&b->refused, 1, memory_order_relaxed);
    return false;
}

void nq_pin_give(nq_pin_budget *b, size_t bytes)
{
    if (!b || bytes == 0) return;
    const size_t before = atomic_fetch_sub(&b->used, bytes);
    assert(before >= bytes); /* given back only what was taken */
    (void)before;
}

void nq_pin_stats(const nq_pin_budget *b, size_t *used, uint64_t *refused)
{
    *used = b ? atomic_load(&b->used) : 0;
    *refused = b ? atomic_load(&b->refused) : 0;
}
