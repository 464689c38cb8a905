/* pin.h - the budget of pinned bytes: memory that a response holds for as long as its client takes to
 * read it (a cache entry it is sent from, a stream's state), counted against one process-wide bound.
 *
 * A client that stops reading keeps its response, and with it whatever the response holds, until the
 * connection ends. The cache's own bound does not cover an entry it has evicted while a response still
 * sends it, and a stream's state is no cache entry at all; so every response that holds bytes takes
 * them from this budget first and gives them back when it is freed, and one that cannot get them is
 * answered another way (503 with Retry-After). The figure is exact: after every client has left it is
 * 0 again.
 *
 * Thread-safety: every function may be called from any thread at once (lock-free atomics). The budget
 * must outlive every pin taken from it.
 */
#ifndef NQ_CACHE_PIN_H
#define NQ_CACHE_PIN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct nq_pin_budget {
    size_t max;                   /* the bound (--max-pinned-bytes); read-only after init */
    atomic_size_t used;           /* bytes pinned now, <= max */
    atomic_uint_fast64_t refused; /* takes refused since init */
} nq_pin_budget;

/* Initialise b with bound max and nothing taken. b must not be NULL. */
void nq_pin_budget_init(nq_pin_budget *b, size_t max);

/* Take bytes from b: true when they fit under the bound (give them back with nq_pin_give); false,
 * counted as refused and with nothing taken, when they do not. NULL b is no budget: always true. */
bool nq_pin_take(nq_pin_budget *b, size_t bytes);

/* Whether bytes would fit now, without taking them (for a request about to compute what it will need
 * them for): false is counted as refused. NULL b: true. */
bool nq_pin_room(nq_pin_budget *b, size_t bytes);

/* Give back bytes taken by nq_pin_take. NULL b is accepted (nothing to give back). */
void nq_pin_give(nq_pin_budget *b, size_t bytes);

/* A snapshot: bytes pinned now and takes refused so far (0 and 0 for NULL b). */
void nq_pin_stats(const nq_pin_budget *b, size_t *used, uint64_t *refused);

#endif /* NQ_CACHE_PIN_H */
