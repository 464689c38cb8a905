/* pool.h - the solver worker pool of nqueensd: bounded workers, a bounded wait queue, single-flight
 * by key, per-waiter deadlines and a budget that cancels computations nobody waits for any more.
 *
 * Workload: a computation (a /count, a cold /solve) takes from microseconds to minutes; many requests
 * may ask for the same one at once (a dashboard refreshing /count?n=16 on every replica). The network
 * threads must never run one: they submit it here, suspend the connection and are told, through a
 * callback, when to resume it. So:
 *   - A computation is identified by a key (the response cache's key). While one with that key is
 *     queued or running, a later submit with the same key attaches to it as one more waiter instead
 *     of computing again (single-flight); every waiter sees the same result.
 *   - At most `workers` computations run at once and at most `queue_len` wait for a worker; a submit
 *     that would need a new computation beyond that fails with NQ_E_BUSY at once (the server answers
 *     503 + Retry-After). Attaching to an existing computation is never refused.
 *   - Each waiter has a deadline (`deadline_ms` after its submit). When it passes, the waiter is told
 *     NQ_E_DEADLINE, but the computation goes on (for a while: below), so its result lands in the cache
 *     for the next caller.
 *   - A computation with no waiter left (abandoned: every waiter's deadline passed, or its owner
 *     released the ticket) costs at most NQ_POOL_ABANDON_FACTOR times what its waiters waited: it
 *     is cancelled through its nq_count_ctl once it has gone unwatched for (factor - 1) times the
 *     waiting its waiters did in all, at most (factor - 1) x deadline_ms (but at least
 *     NQ_POOL_RETRY_MS once a waiter was told NQ_E_DEADLINE), or once it has run `budget_ms`,
 *     whichever comes first; and at once while a computation that somebody waits for
 *     is queued (abandoned work runs only on a worker nobody else needs). One abandoned before it
 *     reached a worker and past its time is not run at all. A submit with the same key before then
 *     attaches to it again, so a client that comes back after a 503 keeps its computation going.
 *     budget_ms 0 turns all of this off: abandoned work then runs to its end.
 *   - Work that need not delay the waiters (a task's after step: compressing a large body) runs on
 *     one more thread, the after thread, at a lower CPU priority, so that it neither holds a worker
 *     nor takes a core from the answers being sent.
 *
 * A waiter is an nq_pool_ticket. Life of a ticket: nq_pool_submit creates it; the pool calls its notify
 * callback exactly once, from a pool thread (never from inside nq_pool_submit), when the outcome is
 * known: the result, NQ_E_DEADLINE, the computation's error, or NQ_E_DRAINING after nq_pool_abort;
 * the owner then reads nq_pool_ticket_result and calls nq_pool_ticket_release. The owner may also
 * release a ticket before it was notified (the client went away): once release returns, notify will
 * not be called (release waits if the notification is running on another thread at that moment, so
 * the notify callback must not wait for the owner's thread, nor release its own ticket, nor call
 * nq_pool_abort: it should only wake the owner, as resuming a connection does).
 *
 * Ownership: the pool copies the key. It takes over the task's ctx in every case (also on failure)
 * and frees it with task.ctx_free after the computation; the result the task's run function
 * produces belongs to the pool, is shared by every waiter through nq_pool_ticket_result, and is freed
 * with task.result_free once the computation is over and the last ticket is released.
 *
 * Thread-safety: every function may be called from any thread, except nq_pool_create and
 * nq_pool_destroy. One mutex guards the queue, the single-flight table and the deadline list; its
 * critical sections are O(1) apart from the per-computation list of waiters being notified. Callbacks
 * (run, notify, after, ctx_free, result_free) are called without that lock held. An after step runs
 * beside other tasks' runs, and two may run at once (one on the after thread, one on a worker whose
 * step found the after queue full); ctx_free and result_free may then run on the after thread.
 */
#ifndef NQ_POOL_H
#define NQ_POOL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/errors.h"
#include "nqueens/error.h"
#include "nqueens/solver.h"

/* Longest key accepted, in bytes without the NUL. */
#define NQ_POOL_KEY_MAX 512u

/* Most workers a pool may have (a guard against a configuration typo, not a design limit). */
#define NQ_POOL_WORKERS_MAX 1024u

typedef struct nq_pool nq_pool;               /* opaque */
typedef struct nq_pool_ticket nq_pool_ticket; /* opaque: one waiter on one computation */

typedef struct nq_pool_config {
    unsigned workers;     /* computations that run at once, 1..NQ_POOL_WORKERS_MAX */
    unsigned queue_len;   /* computations that may wait for a worker; 0: none wait */
    unsigned deadline_ms; /* a waiter is told NQ_E_DEADLINE this long after its submit; 0: never */
    unsigned budget_ms;   /* a computation without waiters is cancelled once it ran this long (and
                             earlier, see NQ_POOL_ABANDON_FACTOR); 0: never */
} nq_pool_config;

/* k: an abandoned computation costs at most k times the time its waiters waited for it (so at most
 * k x deadline_ms for one client that waited out its deadline): the waiting itself, then as long
 * again once the last waiter left. 2 keeps a result that was nearly done for a client that retries
 * after its 503 (Retry-After: 1), and bounds what a client that gives up can cost to one deadline
 * more than it waited. */
#define NQ_POOL_ABANDON_FACTOR 2u

/* The least an abandoned computation goes on after a waiter was told NQ_E_DEADLINE: the Retry-After
 * the server sends with that 503 (core/reply.c: 1 s), so that a client that comes back when told
 * finds its computation still going, however short its deadline. */
#define NQ_POOL_RETRY_MS 1000u

/* After steps (nq_pool_task.after) that may wait for the after thread at once, beside the one it
 * runs. Each holds its result alive (a body the cache may have evicted), so that is at most two
 * results, plus one per worker when the queue is full and the workers run the steps themselves. */
#define NQ_POOL_AFTER_QUEUE_MAX 1

/* A computation. run is called once, on a worker thread, with the task's ctx and a control block it
 * should pass to nq_count (or poll: ctl->cancel becomes true when the pool cancels it). It returns
 * NQ_OK and stores its result (may be NULL) in *result, or returns an error (NQ_E_CANCELED after a
 * cancel) and leaves *result NULL. It may also publish the result elsewhere (the response cache).
 *
 * after (may be NULL) is work that need not delay the waiters: when run succeeded, it is called once
 * every waiter has been notified, with the same ctx and the result (still valid, read-only), and
 * only then is ctx freed. It runs on the pool's after thread, at a lower CPU priority, so the worker
 * is free for the next computation; when NQ_POOL_AFTER_QUEUE_MAX steps already wait for that thread
 * (each holds its result alive), on the worker itself.
 * By then the computation is over: a later submit with the key starts a new one, and the stats no
 * longer count it as running. after should poll *stop, which becomes true when nq_pool_abort is
 * called, and return soon after; nq_pool_destroy runs the steps still queued (with *stop true).
 * ctx_free and result_free may be NULL when there is nothing to free. */
typedef struct nq_pool_task {
    nq_err (*run)(void *ctx, nq_count_ctl *ctl, void **result);
    void (*ctx_free)(void *ctx);
    void (*result_free)(void *result);
    void *ctx;
    void (*after)(void *ctx, const void *result, const atomic_bool *stop);
} nq_pool_task;

/* Called once per ticket, from a pool thread, without the pool's lock: the ticket's outcome is ready. */
typedef void (*nq_pool_notify_fn)(void *arg);

/* Counters for metrics: a consistent snapshot taken under the lock. */
typedef struct nq_pool_stats {
    unsigned workers;   /* configured workers */
    unsigned queue_len; /* configured queue length */
    size_t running;     /* computations on a worker now */
    size_t queued;      /* computations waiting for a worker now */
    size_t waiting;     /* tickets not notified yet */
    uint64_t submitted; /* nq_pool_submit calls that returned a ticket */
    uint64_t shared;    /* of those, the ones that attached to a computation already in flight */
    uint64_t started;   /* computations a worker began */
    uint64_t finished;  /* computations that ended without being cancelled (successfully or not) */
    uint64_t cancelled; /* computations cancelled (abandoned, budget, abort) or dropped from the queue by abort */
    uint64_t rejected;  /* submits refused with NQ_E_BUSY */
    uint64_t deadlines; /* tickets told NQ_E_DEADLINE */
} nq_pool_stats;

/* Create a pool and start its worker threads, its timer thread and its after thread.
 * On success *out owns the pool (nq_pool_destroy).
 * Errors: NQ_E_ARG (cfg or out NULL, workers outside 1..NQ_POOL_WORKERS_MAX), NQ_E_NOMEM,
 * NQ_E_THREAD (a thread could not start). On error nothing is left running or allocated. */
nq_err nq_pool_create(const nq_pool_config *cfg, nq_pool **out);

/* nq_pool_abort, then stop and join every thread and free the pool. Every ticket must have been
 * released before (asserted). NULL is accepted and ignored. */
void nq_pool_destroy(nq_pool *p);

/* Ask for the computation identified by key, starting it from task unless one with that key is
 * already queued or running. On success *out receives a ticket; notify(arg) will be called once when
 * its outcome is ready (see the life of a ticket above).
 * Errors (no ticket, notify never called, task.ctx already freed): NQ_E_ARG (p, key, task, task->run,
 * notify or out NULL, empty key or longer than NQ_POOL_KEY_MAX), NQ_E_BUSY (a new computation is
 * needed and the queue is full), NQ_E_DRAINING (after nq_pool_abort), NQ_E_NOMEM. */
nq_err nq_pool_submit(nq_pool *p, const char *key, const nq_pool_task *task, nq_pool_notify_fn notify, void *arg,
                      nq_pool_ticket **out);

/* The outcome of a notified ticket: NQ_OK with the computation's result in *result (valid until the
 * ticket is released; may be NULL if the task produced none), or the error the waiter got
 * (NQ_E_DEADLINE, NQ_E_DRAINING, the task's error) with *result NULL. Before notification it returns
 * NQ_E_ARG. result may be NULL when the caller only wants the code. t must not be NULL. */
nq_err nq_pool_ticket_result(const nq_pool_ticket *t, const void **result);

/* Milliseconds between the ticket's submit and its notification (0 before notification): what the
 * waiter spent waiting, for Server-Timing and logs. t must not be NULL. */
uint64_t nq_pool_ticket_wait_ms(const nq_pool_ticket *t);

/* Give the ticket back. Before notification this withdraws the waiter (notify will not be called
 * once this returns). NULL is accepted and ignored. */
void nq_pool_ticket_release(nq_pool_ticket *t);

/* Shut the pool's door: later submits fail with NQ_E_DRAINING, queued computations are dropped,
 * running ones are cancelled, and every ticket not yet notified is notified with NQ_E_DRAINING.
 * Returns once all those notify calls have returned, so the caller may then stop the network layer
 * (libmicrohttpd refuses to stop while connections are suspended). Idempotent. */
void nq_pool_abort(nq_pool *p);

/* Snapshot the counters into *out. p and out must not be NULL. */
void nq_pool_stats_get(nq_pool *p, nq_pool_stats *out);

#endif /* NQ_POOL_H */
