/* guard.c - connection hardening: head deadline sweeper, libmicrohttpd limits, 414 / 431 caps.
 *
 * Every open connection has a slot (its libmicrohttpd socket context). A slot whose connection is
 * waiting for a request head sits on one of two wait lists, appended when the wait starts: `fresh`
 * (a new connection: its first head is due within head_timeout_s) or `kept` (a keep-alive connection
 * between requests: the next head is due within max(idle_timeout_s + NQ_GUARD_IDLE_GRACE_S,
 * head_timeout_s)). Every wait on
 * one list lasts as long, so each list is sorted by deadline and the sweeper only ever inspects the
 * two first elements. Requests being processed, suspended or sending are on neither list: the head
 * deadline is about receiving heads; the idle timeout and the worker pool's deadline cover the rest.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, pthread_condattr_setclock */
#endif
#include "http/guard.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "base/clock.h"
#include "base/errors.h"
#include "http/framing.h"

/* The smallest per-connection memory pool we give libmicrohttpd (its own default is 32 KiB). */
#define POOL_MIN_BYTES ((size_t)32 * 1024)
/* Pool bytes beyond the head caps (see pool_bytes), sized by measurement for a head of 100 lines. */
#define POOL_HEADROOM_BYTES ((size_t)8 * 1024)

typedef struct slot slot;

/* Connections waiting for a head with the same allowance, oldest first. */
typedef struct wait_list {
    slot *head;
    slot *tail;
    uint64_t timeout_ms; /* how long each wait on this list may last */
} wait_list;

struct slot {
    nq_guard *guard; /* owner */
    wait_list *list; /* the list it waits on, NULL when not waiting for a head */
    slot *prev;      /* neighbours on that list */
    slot *next;
    bool kicked;       /* the sweeper shut the socket down; libmicrohttpd will close it */
    void *request;     /* the request begun and not yet done, or NULL (nq_guard_request_begin) */
    int fd;            /* the connection's socket (owned by libmicrohttpd) */
    uint64_t since_ms; /* monotonic time the wait for a head began */
};

struct nq_guard {
    pthread_mutex_t lock; /* guards the lists, the slots' list fields and the counters */
    pthread_cond_t cv;    /* sweeper: a list became non-empty, or stop */
    nq_guard_config cfg;  /* immutable after create */
    wait_list fresh;      /* new connections waiting for their first head */
    wait_list kept;       /* keep-alive connections waiting for their next head */
    bool stopping;        /* the sweeper must exit */
    nq_guard_stats stats; /* counters */
    pthread_t sweeper;    /* the sweeper thread */
};

/* ---- the wait lists (lock held) ----------------------------------------------------------------- */

static void wait_begin(nq_guard *g, wait_list *l, slot *s)
{
    assert(s->list == NULL);
    s->since_ms = nq_clock_ms();
    s->prev = l->tail;
    s->next = NULL;
    if (l->tail != NULL) {
        l->tail->next = s;
    } else {
        l->head = s;
        pthread_cond_signal(&g->cv); /* this list's first deadline is new: the sweeper may sleep past it */
    }
    l->tail = s;
    s->list = l;
}

static void wait_end(slot *s)
{
    wait_list *const l = s->list;
    if (l == NULL) {
        return;
    }
    if (s->prev != NULL) {
        s->prev->next = s->next;
    } else {
        l->head = s->next;
    }
    if (s->next != NULL) {
        s->next->prev = s->prev;
    } else {
        l->tail = s->prev;
    }
    s->prev = s->next = NULL;
    s->list = NULL;
}

/* ---- libmicrohttpd's connection callback -------------------------------------------------------- */

static int connection_fd(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *const info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info != NULL ? info->connect_fd : -1;
}

/* Every started connection is counted, with a slot or without: the listener's count of open
 * connections relies on each STARTED being matched by exactly one CLOSED here. */
static void on_started(nq_guard *g, struct MHD_Connection *c, void **socket_context)
{
    const int fd = connection_fd(c);
    slot *const s = calloc(1, sizeof *s);
    *socket_context = s;
    if (s != NULL) {
        s->guard = g;
        s->fd = fd;
    }
    pthread_mutex_lock(&g->lock);
    g->stats.open++;
    g->stats.accepted++;
    if (s != NULL) {
        wait_begin(g, &g->fresh, s);
    }
    pthread_mutex_unlock(&g->lock);
    if (s == NULL && fd >= 0) {
        /* No memory to watch it: refuse the connection the same safe way the sweeper closes one. */
        shutdown(fd, SHUT_RDWR);
    }
}

static void on_closed(nq_guard *g, struct MHD_Connection *c, void **socket_context)
{
    slot *const s = *socket_context;
    void *request = NULL;
    pthread_mutex_lock(&g->lock);
    if (s != NULL) {
        wait_end(s);
        request = s->request;
        s->request = NULL;
    }
    g->stats.open--;
    pthread_mutex_unlock(&g->lock);
    if (request != NULL && g->cfg.abandoned != NULL) {
        g->cfg.abandoned(g->cfg.abandoned_cls, c, request); /* outside the lock: it logs */
    }
    *socket_context = NULL;
    free(s);
}

static void notify_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                              enum MHD_ConnectionNotificationCode code)
{
    nq_guard *const g = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        on_started(g, c, socket_context);
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        on_closed(g, c, socket_context);
    }
}

static slot *slot_of(struct MHD_Connection *c)
{
    if (c == NULL) {
        return NULL;
    }
    const union MHD_ConnectionInfo *const info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info != NULL ? info->socket_context : NULL;
}

/* ---- the sweeper -------------------------------------------------------------------------------- */

/* Shut down every connection on l whose head is overdue (lock held); returns when the next one is
 * due (UINT64_MAX: the list is empty). */
static uint64_t sweep(nq_guard *g, wait_list *l, uint64_t now)
{
    while (l->head != NULL) {
        slot *const s = l->head;
        const uint64_t due = s->since_ms + l->timeout_ms;
        if (due > now) {
            return due;
        }
        wait_end(s);
        s->kicked = true;
        g->stats.head_timeouts++;
        if (s->fd >= 0) {
            shutdown(s->fd, SHUT_RDWR); /* libmicrohttpd sees EOF and closes the connection itself */
        }
    }
    return UINT64_MAX;
}

static void *sweeper_main(void *arg)
{
    nq_guard *const g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        const uint64_t now = nq_clock_ms();
        const uint64_t fresh = sweep(g, &g->fresh, now);
        const uint64_t kept = sweep(g, &g->kept, now);
        const uint64_t next = fresh < kept ? fresh : kept;
        if (next == UINT64_MAX) {
            pthread_cond_wait(&g->cv, &g->lock);
            continue;
        }
        const struct timespec ts = {.tv_sec = (time_t)(next / 1000u), .tv_nsec = (long)(next % 1000u) * 1000000L};
        const int rc = pthread_cond_timedwait(&g->cv, &g->lock, &ts);
        assert(rc == 0 || rc == ETIMEDOUT);
        (void)rc;
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* ---- public API --------------------------------------------------------------------------------- */

/* When an idle connection is really closed: the announced idle timeout plus the grace (guard.h), so
 * that a client counting the announced time from the response's end never sends into a close. */
static unsigned idle_close_s(unsigned idle_timeout_s)
{
    if (idle_timeout_s == 0) {
        return 0; /* no idle timeout */
    }
    return idle_timeout_s <= UINT_MAX - NQ_GUARD_IDLE_GRACE_S ? idle_timeout_s + NQ_GUARD_IDLE_GRACE_S : UINT_MAX;
}

static nq_err sync_init(nq_guard *g)
{
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0) {
        return NQ_E_NOMEM;
    }
    /* Deadlines are on the monotonic clock: a wall-clock step must not close or spare connections. */
    int rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0) {
        rc = pthread_cond_init(&g->cv, &attr);
    }
    pthread_condattr_destroy(&attr);
    if (rc != 0) {
        return NQ_E_NOMEM;
    }
    if (pthread_mutex_init(&g->lock, NULL) != 0) {
        pthread_cond_destroy(&g->cv);
        return NQ_E_NOMEM;
    }
    return NQ_OK;
}

nq_err nq_guard_create(const nq_guard_config *cfg, nq_guard **out)
{
    if (cfg == NULL || out == NULL || cfg->head_timeout_s == 0 || cfg->max_uri_bytes == 0 ||
        cfg->max_header_bytes == 0) {
        return NQ_E_ARG;
    }
    nq_guard *const g = calloc(1, sizeof *g);
    if (g == NULL) {
        return NQ_E_NOMEM;
    }
    g->cfg = *cfg;
    g->fresh.timeout_ms = (uint64_t)cfg->head_timeout_s * 1000u;
    /* Between requests a keep-alive connection may idle as long as the idle timeout allows; a head
     * trickled in after that is still cut, since its bytes never reset this deadline. */
    const unsigned idle_s = idle_close_s(cfg->idle_timeout_s);
    const unsigned kept_s = idle_s > cfg->head_timeout_s ? idle_s : cfg->head_timeout_s;
    g->kept.timeout_ms = (uint64_t)kept_s * 1000u;
    nq_err err = sync_init(g);
    if (err != NQ_OK) {
        goto fail;
    }
    if (pthread_create(&g->sweeper, NULL, sweeper_main, g) != 0) {
        err = NQ_E_THREAD;
        pthread_cond_destroy(&g->cv);
        pthread_mutex_destroy(&g->lock);
        goto fail;
    }
    *out = g;
    return NQ_OK;

fail:
    free(g);
    return err;
}

void nq_guard_destroy(nq_guard *g)
{
    if (g == NULL) {
        return;
    }
    pthread_mutex_lock(&g->lock);
    g->stopping = true;
    pthread_cond_signal(&g->cv);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->sweeper, NULL);
    assert(g->fresh.head == NULL && g->kept.head == NULL); /* every connection was reported closed */
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* libmicrohttpd keeps the request line and headers in the connection's memory pool, plus a record
 * per header line, and builds the response head there. It zeroes the whole pool for every request on
 * a keep-alive connection, so its size is a per-request cost (callgrind, cached /count?n=8: 118k
 * instructions a request with 48 KiB, 94k with 32 KiB): the caps plus POOL_HEADROOM_BYTES, which
 * holds the records of 100 header lines and lets heads a little over the caps reach
 * nq_guard_check_head (and its problem+json answer). A head of more lines, or far over the caps,
 * gets libmicrohttpd's own 431 or 414. */
static size_t pool_bytes(const nq_guard_config *cfg)
{
    const size_t head = cfg->max_uri_bytes + cfg->max_header_bytes;
    const size_t want = head <= SIZE_MAX - POOL_HEADROOM_BYTES ? head + POOL_HEADROOM_BYTES : SIZE_MAX;
    return want > POOL_MIN_BYTES ? want : POOL_MIN_BYTES;
}

size_t nq_guard_mhd_options(nq_guard *g, struct MHD_OptionItem *opts, size_t cap)
{
    if (g == NULL || opts == NULL || cap < NQ_GUARD_MHD_OPTIONS) {
        return 0;
    }
    size_t n = 0;
    opts[n++] =
        (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)idle_close_s(g->cfg.idle_timeout_s), NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)pool_bytes(&g->cfg), NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)notify_connection, g};
    if (g->cfg.per_ip_limit > 0) {
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)g->cfg.per_ip_limit, NULL};
    }
    opts[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return n;
}

void nq_guard_head_received(struct MHD_Connection *c)
{
    slot *const s = slot_of(c);
    if (s == NULL) {
        return;
    }
    pthread_mutex_lock(&s->guard->lock);
    wait_end(s);
    pthread_mutex_unlock(&s->guard->lock);
}

void nq_guard_request_begin(struct MHD_Connection *c, void *request)
{
    slot *const s = slot_of(c);
    if (s == NULL) {
        return;
    }
    pthread_mutex_lock(&s->guard->lock);
    s->request = request;
    pthread_mutex_unlock(&s->guard->lock);
}

void nq_guard_request_done(struct MHD_Connection *c)
{
    slot *const s = slot_of(c);
    if (s == NULL) {
        return;
    }
    pthread_mutex_lock(&s->guard->lock);
    s->request = NULL;
    if (!s->kicked && s->list == NULL) {
        wait_begin(s->guard, &s->guard->kept, s);
    }
    pthread_mutex_unlock(&s->guard->lock);
}

typedef struct header_budget {
    size_t left; /* bytes still allowed */
    bool over;   /* the header section is larger than the cap */
} header_budget;

/* Charges one header as "Name: value\r\n"; stops the iteration once over the cap. */
static enum MHD_Result charge_header(void *cls, enum MHD_ValueKind kind, const char *key, size_t key_size,
                                     const char *value, size_t value_size)
{
    (void)kind;
    (void)key;
    header_budget *const b = cls;
    if (nq_framing_is_synthetic(value)) {
        return MHD_YES; /* the server's own line, not the client's */
    }
    const size_t line = key_size + value_size + 4u;
    if (line > b->left) {
        b->over = true;
        return MHD_NO;
    }
    b->left -= line;
    return MHD_YES;
}

nq_err nq_guard_check_head(const nq_guard *g, struct MHD_Connection *c, size_t uri_len)
{
    if (g == NULL || c == NULL) {
        return NQ_OK;
    }
    if (uri_len > g->cfg.max_uri_bytes) {
        return NQ_E_URI_TOO_LONG;
    }
    header_budget b = {.left = g->cfg.max_header_bytes, .over = false};
    MHD_get_connection_values_n(c, MHD_HEADER_KIND, charge_header, &b);
    return b.over ? NQ_E_HEADERS_TOO_LARGE : NQ_OK;
}

void nq_guard_refused(nq_guard *g)
{
    assert(g != NULL);
    pthread_mutex_lock(&g->lock);
    g->stats.refused++;
    pthread_mutex_unlock(&g->lock);
}

void nq_guard_stats_get(nq_guard *g, nq_guard_stats *out)
{
    assert(g != NULL && out != NULL);
    pthread_mutex_lock(&g->lock);
    *out = g->stats;
    pthread_mutex_unlock(&g->lock);
}
