/* backend.h - what a store backend supplies: the operations of store.h over its own handle. Internal
 * to store/: store.c picks the backend for a --store location and forwards every call to it, so
 * nothing above store/ knows which backend holds the data.
 *
 * Adding a backend: one file (its open function and its nq_store_backend table, as sqlite.c) and one
 * line in store.c's choice of backend. Each operation keeps the contract store.h states for it:
 * durable on return, one transaction per write, a failed write leaving the data as it was.
 * Thread-safety: every operation may be called from any thread; the backend guards its own handle.
 */
#ifndef NQ_STORE_BACKEND_H
#define NQ_STORE_BACKEND_H

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
} nq_store_backend;

#endif /* NQ_STORE_BACKEND_H */
