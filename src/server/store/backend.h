/* backend.h - what a store backend supplies: the operations of store.h over its own handle. Internal
 * to store/: store.c picks the backend for a --store location and forwards every call to it, so
 * nothing above store/ knows which backend holds the data.
 *
 * Adding a backend: one file (its open function and its nq_store_backend table, as sqlite.c and
 * postgres.c) and one line in store.c's choice of backend. Each operation keeps the contract store.h states for it:
 * durable on return, one transaction per write, a failed write leaving the data as it was.
 * Thread-safety: every operation may be called from any thread; the backend guards its own handle.
 */
#ifndef NQ_STORE_BACKEND_H
#define NQ_STORE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "nqueens/error.h"
#include "store/record.h"

typedef struct nq_store_backend {
    const char *name;                                                    /* "sqlite": for logs */
    void (*close)(void *impl);                                           /* nq_store_close */
    nq_err (*put_count)(void *impl, const nq_store_count *c);            /* nq_store_put_count */
    nq_err (*put_checkpoint)(void *impl, const nq_store_checkpoint *cp); /* nq_store_put_checkpoint */
    nq_err (*each_count)(void *impl, nq_store_count_fn fn, nq_store_damaged_fn damaged,
                         void *arg); /* nq_store_each_count */
    nq_err (*each_checkpoint)(void *impl, nq_store_checkpoint_fn fn, nq_store_damaged_fn damaged,
                              void *arg);  /* nq_store_each_checkpoint */
    uint64_t (*bytes)(void *impl);         /* nq_store_bytes */
    const char *(*path)(const void *impl); /* nq_store_path */
    bool shared;                           /* nq_store_shared */
    bool (*connected)(void *impl);         /* nq_store_connected */
    nq_err (*register_count)(void *impl, int n, uint32_t plan, uint32_t tasks, uint32_t block_tasks, bool *created,
                             nq_store_count_view *st); /* nq_store_register_count (st not NULL) */
    nq_err (*count_state)(void *impl, int n, nq_store_count_view *st, bool *found); /* nq_store_count_view */
    nq_err (*each_count_state)(void *impl, nq_store_count_view_fn fn, nq_store_damaged_fn damaged,
                               void *arg); /* nq_store_each_count_state */
    nq_err (*claim_block)(void *impl, uint32_t lease_ms, int max_n, uint32_t plan, nq_store_claim *claim,
                          bool *got);                                      /* nq_store_claim_block */
    nq_err (*renew)(void *impl, nq_store_claim *claim, uint32_t lease_ms); /* nq_store_renew */
    nq_err (*commit_tasks)(void *impl, const nq_store_claim *claim, const uint8_t *done,
                           const nq_count_sums *sums); /* nq_store_commit_tasks */
    nq_err (*finish_block)(void *impl, const nq_store_claim *claim, const nq_count_sums *sums,
                           bool *count_done);                   /* nq_store_finish_block (count_done set) */
    nq_err (*release)(void *impl, const nq_store_claim *claim); /* nq_store_release */
    nq_err (*forget_count)(void *impl, int n);                  /* nq_store_forget_count */
} nq_store_backend;

#endif /* NQ_STORE_BACKEND_H */
