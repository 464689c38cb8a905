/* watch.c - hang-up watch: one thread, one epoll set, a slot table of registrations.
 *
 * Workload: a few to a few thousand sockets registered at once (one per suspended connection), each
 * for the length of one computation; events are rare (a client leaving). Each registration is a slot
 * whose index and generation make up its id, and the epoll event carries that id, not a pointer: an
 * event already fetched by epoll_wait when its registration is removed is checked against the slot's
 * current generation under the lock and dropped, so nothing freed is ever reached through it.
 * EPOLLONESHOT: a socket fires once; the registration then waits for its owner's remove.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* EPOLLRDHUP */
#endif
#include "http/watch.h"

#include "base/errors.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define SLOTS_MIN 64u       /* first table size */
#define EVENTS_MAX 64       /* events taken per epoll_wait */
#define STOP_TOKEN 0u       /* the eventfd's epoll data: ids are never 0 */
#define GEN_MAX 0x7fffffffu /* generations wrap below this, and never reach 0 */

typedef enum slot_state {
    SLOT_FREE = 0, /* on the free list */
    SLOT_ARMED,    /* registered, peer present as far as we know */
    SLOT_FIRING,   /* the callback is running on the watch's thread */
    SLOT_FIRED     /* the callback ran; waiting for remove */
} slot_state;

typedef struct slot {
    uint32_t gen;     /* generation, part of the id; bumped by remove */
    uint32_t next;    /* next free slot (when free) */
    slot_state state; /* see above */
    int fd;           /* the socket (borrowed) */
    nq_watch_fn fn;   /* callback */
    void *arg;        /* its argument */
} slot;

struct nq_watch {
    pthread_mutex_t lock; /* guards everything below but the descriptors and the thread */
    pthread_cond_t fired; /* signalled when a callback returns */
    slot *slots;          /* the table */
    uint32_t cap;         /* slots allocated */
    uint32_t free_head;   /* first free slot, or cap when none */
    bool stopped;         /* nq_watch_stop called */
    int ep;               /* the epoll set */
    int wake;             /* eventfd that stops the thread */
    pthread_t thread;     /* the watch's thread */
    bool running;         /* thread started and not joined */
};

static nq_watch_id make_id(uint32_t idx, uint32_t gen)
{
    return ((uint64_t)gen << 32) | idx;
}

/* The slot id names, if it is still that registration; NULL otherwise. Caller holds the lock. */
static slot *lookup(const nq_watch *w, nq_watch_id id)
{
    const uint32_t idx = (uint32_t)id;
    const uint32_t gen = (uint32_t)(id >> 32);
    if (gen == 0 || idx >= w->cap) return NULL;
    slot *s = &w->slots[idx];
    return s->gen == gen && s->state != SLOT_FREE ? s : NULL;
}

/* Chain slots [from, to) onto the free list. Caller holds the lock. */
static void free_range(nq_watch *w, uint32_t from, uint32_t to)
{
    for (uint32_t i = to; i-- > from;) {
        w->slots[i] = (slot){.gen = 1, .next = w->free_head, .state = SLOT_FREE, .fd = -1};
        w->free_head = i;
    }
}

/* Double the table. false when out of memory (or at the id's limit). Caller holds the lock. */
static bool grow(nq_watch *w)
{
    const uint32_t cap = w->cap ? w->cap * 2u : SLOTS_MIN;
    if (cap <= w->cap) return false;
    slot *s = realloc(w->slots, (size_t)cap * sizeof *s);
    if (!s) return false;
    w->slots = s;
    const uint32_t old = w->cap;
    w->cap = cap;
    w->free_head = cap; /* the list is empty when grow is called */
    free_range(w, old, cap);
    return true;
}

/* The peer of registration id left: run its callback once, unless it was removed meanwhile. */
static void fire(nq_watch *w, nq_watch_id id)
{
    pthread_mutex_lock(&w->lock);
    slot *s = lookup(w, id);
    if (!s || s->state != SLOT_ARMED) {
        pthread_mutex_unlock(&w->lock);
        return;
    }
    s->state = SLOT_FIRING;
    const nq_watch_fn fn = s->fn;
    void *arg = s->arg;
    pthread_mutex_unlock(&w->lock);
    fn(arg);
    pthread_mutex_lock(&w->lock);
    /* remove waits while FIRING, so the slot still holds this registration (it may have moved if the
     * table grew: look it up again). */
    lookup(w, id)->state = SLOT_FIRED;
    pthread_cond_broadcast(&w->fired);
    pthread_mutex_unlock(&w->lock);
}

static void *watch_main(void *arg)
{
    nq_watch *w = arg;
    struct epoll_event ev[EVENTS_MAX];
    for (;;) {
        const int n = epoll_wait(w->ep, ev, EVENTS_MAX, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return NULL; /* only a programming error (a closed set) gets here */
        for (int i = 0; i < n; i++) {
            if (ev[i].data.u64 == STOP_TOKEN) return NULL;
            fire(w, ev[i].data.u64);
        }
    }
}

nq_err nq_watch_create(nq_watch **out)
{
    if (!out) return NQ_E_ARG;
    nq_watch *w = calloc(1, sizeof *w);
    if (!w) return NQ_E_NOMEM;
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = STOP_TOKEN};
    nq_err rc = NQ_E_THREAD;
    if (w->ep < 0 || w->wake < 0 || epoll_ctl(w->ep, EPOLL_CTL_ADD, w->wake, &ev) != 0) goto fail_fds;
    rc = NQ_E_NOMEM;
    if (pthread_mutex_init(&w->lock, NULL) != 0) goto fail_fds;
    if (pthread_cond_init(&w->fired, NULL) != 0) goto fail_lock;
    if (!grow(w)) goto fail_cond;
    rc = NQ_E_THREAD;
    if (pthread_create(&w->thread, NULL, watch_main, w) != 0) goto fail_slots;
    w->running = true;
    *out = w;
    return NQ_OK;
fail_slots:
    free(w->slots);
fail_cond:
    pthread_cond_destroy(&w->fired);
fail_lock:
    pthread_mutex_destroy(&w->lock);
fail_fds:
    if (w->ep >= 0) (void)close(w->ep);
    if (w->wake >= 0) (void)close(w->wake);
    free(w);
    return rc;
}

void nq_watch_stop(nq_watch *w)
{
    if (!w || !w->running) return;
    pthread_mutex_lock(&w->lock);
    w->stopped = true;
    pthread_mutex_unlock(&w->lock);
    const uint64_t one = 1;
    while (write(w->wake, &one, sizeof one) < 0 && errno == EINTR) {
    }
    pthread_join(w->thread, NULL);
    w->running = false;
}

void nq_watch_destroy(nq_watch *w)
{
    if (!w) return;
    nq_watch_stop(w);
    (void)close(w->ep);
    (void)close(w->wake);
    pthread_cond_destroy(&w->fired);
    pthread_mutex_destroy(&w->lock);
    free(w->slots);
    free(w);
}

nq_err nq_watch_add(nq_watch *w, int fd, nq_watch_fn fn, void *arg, nq_watch_id *id)
{
    if (id) *id = 0;
    if (!w || !fn || !id || fd < 0) return NQ_E_ARG;
    nq_err rc = NQ_OK;
    pthread_mutex_lock(&w->lock);
    if (w->stopped)
        rc = NQ_E_DRAINING;
    else if (w->free_head == w->cap && !grow(w))
        rc = NQ_E_NOMEM;
    if (rc != NQ_OK) {
        pthread_mutex_unlock(&w->lock);
        return rc;
    }
    const uint32_t idx = w->free_head;
    slot *s = &w->slots[idx];
    const nq_watch_id mine = make_id(idx, s->gen);
    /* Registered under the lock, so an event (which takes the lock) finds the slot armed. */
    struct epoll_event ev = {.events = EPOLLRDHUP | EPOLLONESHOT, .data.u64 = mine};
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        pthread_mutex_unlock(&w->lock);
        return NQ_E_INTERNAL;
    }
    w->free_head = s->next;
    s->state = SLOT_ARMED;
    s->fd = fd;
    s->fn = fn;
    s->arg = arg;
    pthread_mutex_unlock(&w->lock);
    *id = mine;
    return NQ_OK;
}

bool nq_watch_remove(nq_watch *w, nq_watch_id id)
{
    if (id == 0) return false;
    pthread_mutex_lock(&w->lock);
    slot *s = lookup(w, id);
    while (s && s->state == SLOT_FIRING) {
        pthread_cond_wait(&w->fired, &w->lock);
        s = lookup(w, id); /* the table may have grown meanwhile */
    }
    if (!s) {
        pthread_mutex_unlock(&w->lock);
        return false;
    }
    const bool ran = s->state == SLOT_FIRED;
    (void)epoll_ctl(w->ep, EPOLL_CTL_DEL, s->fd, NULL); /* also after a one-shot fired: still in the set */
    const uint32_t idx = (uint32_t)id;
    const uint32_t gen = s->gen >= GEN_MAX ? 1u : s->gen + 1u;
    *s = (slot){.gen = gen, .next = w->free_head, .state = SLOT_FREE, .fd = -1};
    w->free_head = idx;
    pthread_mutex_unlock(&w->lock);
    return ran;
}
