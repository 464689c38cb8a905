/* metrics.c - lock-free request and computation counters and their Prometheus text rendering.
 *
 * Workload: every request ends with one observe call, from any of the network threads; a scrape
 * comes every few seconds. So observing is a handful of relaxed atomic increments into fixed arrays
 * (status codes index an array directly, no map), and all the formatting cost sits in render.
 * Route labels come from the router's fixed table, so there are a few of them: each gets a slot the
 * first time it is seen (under a mutex, once) and is then found by a short lock-free scan.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "ops/metrics.h"

#include "base/errors.h"

#include <dirent.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Latency bucket upper bounds in seconds: cached answers take well under a millisecond, counts of
 * large boards take seconds, and the deadline caps what a caller waits. */
static const double bucket_le[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
#define NBUCKETS (sizeof bucket_le / sizeof bucket_le[0])

#define STATUS_MIN 100u
#define STATUS_SLOTS 500u                 /* 100..599 */
#define OTHER_ROUTE NQ_METRICS_ROUTES_MAX /* index of the catch-all "other" slot */
#define NKINDS ((unsigned)NQ_METRICS_KINDS)

typedef atomic_uint_fast64_t counter;

typedef struct route_stats {
    char name[NQ_METRICS_ROUTE_NAME_MAX]; /* written once, before the slot is published */
    counter status[STATUS_SLOTS];         /* requests by status - STATUS_MIN */
    counter buckets[NBUCKETS + 1];        /* NOT cumulative (cumulated when rendering); last is +Inf */
    counter duration_us;                  /* sum of durations, microseconds */
    counter bytes;                        /* body bytes sent */
} route_stats;

struct nq_metrics {
    char version[64];                              /* build_info label */
    double start_time;                             /* Unix time at create */
    pthread_mutex_t publish;                       /* serialises adding a route slot */
    atomic_size_t nroutes;                         /* slots [0, nroutes) are published */
    route_stats routes[NQ_METRICS_ROUTES_MAX + 1]; /* plus the "other" slot */
    counter unanswered;                            /* requests that ended without a response */
    counter solver_runs[NKINDS];                   /* computations by kind */
    counter solver_us[NKINDS];                     /* solver time by kind, microseconds */
};

/* The labels of each kind: its route, and its method where the route has more than one. */
static const struct {
    const char *route;
    const char *method; /* NULL: no method label */
} kind_labels[NKINDS] = {
    {"count", NULL},        {"solve", NULL},    {"solution", "construct"},
    {"solution", "random"}, {"complete", NULL}, {"trace", NULL},
};

static void inc(counter *c, uint64_t by)
{
    atomic_fetch_add_explicit(c, by, memory_order_relaxed);
}

static uint64_t get(const counter *c)
{
    return atomic_load_explicit(c, memory_order_relaxed);
}

static uint64_t to_us(double seconds)
{
    return seconds > 0 ? (uint64_t)(seconds * 1e6 + 0.5) : 0;
}

nq_err nq_metrics_create(const char *version, nq_metrics **out)
{
    if (version == NULL || out == NULL) return NQ_E_ARG;
    nq_metrics *m = calloc(1, sizeof *m); /* zero is a valid initial value for every counter */
    if (m == NULL) return NQ_E_NOMEM;
    if (pthread_mutex_init(&m->publish, NULL) != 0) {
        free(m);
        return NQ_E_NOMEM;
    }
    snprintf(m->version, sizeof m->version, "%s", version);
    snprintf(m->routes[OTHER_ROUTE].name, sizeof m->routes[OTHER_ROUTE].name, "other");
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    m->start_time = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    *out = m;
    return NQ_OK;
}

void nq_metrics_destroy(nq_metrics *m)
{
    if (m == NULL) return;
    pthread_mutex_destroy(&m->publish);
    free(m);
}

/* ---- observing ---------------------------------------------------------------------------------- */

/* A label is emitted without escaping, so only short [a-z0-9_] names are accepted as routes. */
static bool valid_label(const char *s)
{
    size_t i = 0;
    for (; s[i] != '\0'; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_')) return false;
    return i > 0 && i < NQ_METRICS_ROUTE_NAME_MAX;
}

static route_stats *scan(nq_metrics *m, const char *name, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m->routes[i].name, name) == 0) return &m->routes[i];
    return NULL;
}

static route_stats *route_slot(nq_metrics *m, const char *name)
{
    if (!valid_label(name)) return &m->routes[OTHER_ROUTE];
    /* Acquire pairs with the release below: a published slot's name is fully written. */
    route_stats *r = scan(m, name, atomic_load_explicit(&m->nroutes, memory_order_acquire));
    if (r != NULL) return r;
    pthread_mutex_lock(&m->publish);
    const size_t n = atomic_load_explicit(&m->nroutes, memory_order_relaxed);
    r = scan(m, name, n); /* another thread may have added it meanwhile */
    if (r == NULL && n < NQ_METRICS_ROUTES_MAX) {
        r = &m->routes[n];
        memcpy(r->name, name, strlen(name) + 1);
        atomic_store_explicit(&m->nroutes, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&m->publish);
    return r != NULL ? r : &m->routes[OTHER_ROUTE];
}

static size_t bucket_of(double seconds)
{
    size_t i = 0;
    while (i < NBUCKETS && seconds > bucket_le[i]) i++;
    return i; /* NBUCKETS is +Inf */
}

void nq_metrics_observe_request(nq_metrics *m, const nq_request_record *r)
{
    if (m == NULL || r == NULL) return;
    if (r->status < STATUS_MIN || r->status >= STATUS_MIN + STATUS_SLOTS) {
        inc(&m->unanswered, 1);
        return;
    }
    route_stats *s = route_slot(m, r->route != NULL ? r->route : "none");
    inc(&s->status[r->status - STATUS_MIN], 1);
    inc(&s->buckets[bucket_of(r->duration_s)], 1);
    inc(&s->duration_us, to_us(r->duration_s));
    inc(&s->bytes, r->bytes);
}

static bool same_label(const char *a, const char *b)
{
    return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

bool nq_metrics_kind_find(const char *name, const char *method, nq_metrics_kind *out)
{
    for (unsigned k = 0; name != NULL && k < NKINDS; k++) {
        if (strcmp(kind_labels[k].route, name) == 0 && same_label(kind_labels[k].method, method)) {
            *out = (nq_metrics_kind)k;
            return true;
        }
    }
    return false;
}

void nq_metrics_observe_solver(nq_metrics *m, nq_metrics_kind kind, double seconds)
{
    if (m == NULL || (unsigned)kind >= NKINDS) return;
    inc(&m->solver_runs[kind], 1);
    inc(&m->solver_us[kind], to_us(seconds));
}

/* ---- rendering ---------------------------------------------------------------------------------- */

/* An append-only text buffer that grows up to a cap; after a failure further appends are no-ops and
 * the error is reported once, at the end. */
typedef struct tbuf {
    char *p;
    size_t len, cap;
    nq_err err;
} tbuf;

__attribute__((format(printf, 2, 3))) static void put(tbuf *b, const char *fmt, ...)
{
    for (int attempt = 0; attempt < 2 && b->err == NQ_OK; attempt++) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->err = NQ_E_INTERNAL;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2;
        while (cap - b->len <= (size_t)n) cap *= 2;
        if (cap > NQ_METRICS_RENDER_MAX) {
            b->err = NQ_E_TOO_LARGE;
            return;
        }
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->err = NQ_E_NOMEM;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
}

static void family(tbuf *b, const char *name, const char *type, const char *help)
{
    put(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The k-th of the n published route slots, then (k == n) the "other" slot. */
static const route_stats *slot(const nq_metrics *m, size_t n, size_t k)
{
    return &m->routes[k < n ? k : OTHER_ROUTE];
}

static void render_requests(tbuf *b, const nq_metrics *m, size_t n)
{
    family(b, "nqueensd_http_requests_total", "counter", "HTTP requests answered, by route and status.");
    for (size_t k = 0; k <= n; k++) {
        const route_stats *r = slot(m, n, k);
        for (unsigned s = 0; s < STATUS_SLOTS; s++) {
            const uint64_t v = get(&r->status[s]);
            if (v > 0)
                put(b, "nqueensd_http_requests_total{route=\"%s\",status=\"%u\"} %" PRIu64 "\n", r->name,
                    s + STATUS_MIN, v);
        }
    }
    family(b, "nqueensd_http_requests_unanswered_total", "counter",
           "Requests that ended without a response (client gone, connection error).");
    put(b, "nqueensd_http_requests_unanswered_total %" PRIu64 "\n", get(&m->unanswered));
}

static void render_histogram_route(tbuf *b, const route_stats *r)
{
    uint64_t cumulative = 0;
    for (size_t k = 0; k < NBUCKETS; k++) {
        cumulative += get(&r->buckets[k]);
        put(b, "nqueensd_http_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %" PRIu64 "\n", r->name,
            bucket_le[k], cumulative);
    }
    cumulative += get(&r->buckets[NBUCKETS]);
    /* _count is derived from the buckets so the two always agree within one scrape. */
    put(b,
        "nqueensd_http_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %" PRIu64 "\n"
        "nqueensd_http_request_duration_seconds_sum{route=\"%s\"} %.6f\n"
        "nqueensd_http_request_duration_seconds_count{route=\"%s\"} %" PRIu64 "\n",
        r->name, cumulative, r->name, (double)get(&r->duration_us) / 1e6, r->name, cumulative);
}

static bool route_used(const route_stats *r)
{
    for (size_t k = 0; k <= NBUCKETS; k++)
        if (get(&r->buckets[k]) > 0) return true;
    return false;
}

static void render_latency(tbuf *b, const nq_metrics *m, size_t n)
{
    family(b, "nqueensd_http_request_duration_seconds", "histogram",
           "Time from the start of a request to its completion, by route.");
    for (size_t k = 0; k <= n; k++)
        if (route_used(slot(m, n, k))) render_histogram_route(b, slot(m, n, k));
    family(b, "nqueensd_http_response_body_bytes_total", "counter",
           "Response body bytes sent (after compression), by route.");
    for (size_t k = 0; k <= n; k++)
        if (route_used(slot(m, n, k)))
            put(b, "nqueensd_http_response_body_bytes_total{route=\"%s\"} %" PRIu64 "\n", slot(m, n, k)->name,
                get(&slot(m, n, k)->bytes));
}

/* The labels of kind k, `kind="solution",method="random"`, in buf. */
static const char *kind_label_text(unsigned k, char *buf, size_t cap)
{
    if (kind_labels[k].method == NULL)
        (void)snprintf(buf, cap, "kind=\"%s\"", kind_labels[k].route);
    else
        (void)snprintf(buf, cap, "kind=\"%s\",method=\"%s\"", kind_labels[k].route, kind_labels[k].method);
    return buf;
}

static void render_solver(tbuf *b, const nq_metrics *m)
{
    char labels[64];
    family(b, "nqueensd_solver_runs_total", "counter",
           "Solver computations that ended (any outcome), by kind and method; identical requests share one.");
    for (unsigned k = 0; k < NKINDS; k++)
        put(b, "nqueensd_solver_runs_total{%s} %" PRIu64 "\n", kind_label_text(k, labels, sizeof labels),
            get(&m->solver_runs[k]));
    family(b, "nqueensd_solver_seconds_total", "counter", "Wall-clock time spent in the solver, by kind and method.");
    for (unsigned k = 0; k < NKINDS; k++)
        put(b, "nqueensd_solver_seconds_total{%s} %.6f\n", kind_label_text(k, labels, sizeof labels),
            (double)get(&m->solver_us[k]) / 1e6);
}

static void scalar_gauge(tbuf *b, const char *name, const char *help, uint64_t v)
{
    family(b, name, "gauge", help);
    put(b, "%s %" PRIu64 "\n", name, v);
}

static void scalar_counter(tbuf *b, const char *name, const char *help, uint64_t v)
{
    family(b, name, "counter", help);
    put(b, "%s %" PRIu64 "\n", name, v);
}

static void render_cache(tbuf *b, const nq_cache_stats *c)
{
    scalar_counter(b, "nqueensd_cache_hits_total", "Response cache lookups that found an entry.", c->hits);
    scalar_counter(b, "nqueensd_cache_misses_total", "Response cache lookups that found nothing.", c->misses);
    scalar_counter(b, "nqueensd_cache_evictions_total", "Entries evicted to stay within the byte bound.", c->evictions);
    scalar_counter(b, "nqueensd_cache_refused_total", "Answers too large to cache (streamed instead).", c->refused);
    scalar_gauge(b, "nqueensd_cache_entries", "Entries in the response cache.", c->entries);
    scalar_gauge(b, "nqueensd_cache_bytes", "Bytes charged for the entries in the response cache.", c->bytes);
    scalar_gauge(b, "nqueensd_cache_max_bytes", "The configured response cache bound.", c->max_bytes);
}

static void render_pool(tbuf *b, const nq_metrics_pool *p)
{
    scalar_gauge(b, "nqueensd_computations_running", "Computations on a solver worker now.", p->running);
    scalar_gauge(b, "nqueensd_computations_queued", "Computations waiting for a solver worker now.", p->queued);
    scalar_gauge(b, "nqueensd_computation_waiters", "Requests waiting for a computation now.", p->waiting);
    scalar_counter(b, "nqueensd_computations_started_total", "Computations a solver worker began.", p->started);
    scalar_counter(b, "nqueensd_computations_finished_total", "Computations that ran to the end.", p->finished);
    scalar_counter(b, "nqueensd_computations_cancelled_total",
                   "Computations cancelled (over budget with nobody waiting, or shutdown).", p->cancelled);
    scalar_counter(b, "nqueensd_computation_shared_total",
                   "Requests that joined an identical computation already in flight.", p->shared);
    scalar_counter(b, "nqueensd_computation_rejected_total", "Requests refused with 503: the queue was full.",
                   p->rejected);
    scalar_counter(b, "nqueensd_computation_deadline_total",
                   "Requests answered 503 because their computation outlived the deadline.", p->deadlines);
}

static void render_state(tbuf *b, const nq_metrics_state *s)
{
    scalar_gauge(b, "nqueensd_ready", "1 while /readyz answers 200, 0 while starting or draining.", s->ready);
    if (s->cache != NULL) render_cache(b, s->cache);
    if (s->pool != NULL) render_pool(b, s->pool);
    if (s->waits != NULL) {
        scalar_gauge(b, "nqueensd_count_waits_running", "Requests held waiting for a long count now (one per wait).",
                     s->waits->running);
        scalar_gauge(b, "nqueensd_count_waits_queued", "Waits for a long count queued for a waiting thread.",
                     s->waits->queued);
        scalar_counter(b, "nqueensd_count_waits_rejected_total",
                       "Requests refused with 503: every long-count waiting thread was busy.", s->waits->rejected);
    }
    if (s->conns != NULL) {
        scalar_gauge(b, "nqueensd_connections_open", "Client connections open now.", s->conns->open);
        scalar_counter(b, "nqueensd_connections_accepted_total", "Client connections accepted.", s->conns->accepted);
        scalar_counter(b, "nqueensd_connections_refused_total",
                       "Client connections closed as they came: over the per-address limit, or no memory.",
                       s->conns->refused);
        scalar_counter(b, "nqueensd_connections_head_timeout_total",
                       "Connections closed because a request head (or a body being read) did not arrive in time.",
                       s->conns->head_timeouts);
        scalar_gauge(b, "nqueensd_request_body_bytes", "Bytes held for request bodies being read now.",
                     s->conns->body_bytes);
        scalar_gauge(b, "nqueensd_request_body_max_bytes",
                     "The most request bodies may hold at once (--max-bodies-bytes); past it, 503.",
                     s->conns->body_cap);
    }
}

/* Resident set size from /proc/self/statm ("size resident shared ..." in pages), 0 if unavailable. */
static uint64_t resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return 0;
    char line[128];
    const bool ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    const char *p = ok ? strchr(line, ' ') : NULL; /* skip the total size */
    if (p == NULL) return 0;
    char *end = NULL;
    const unsigned long long pages = strtoull(p + 1, &end, 10);
    const long page = sysconf(_SC_PAGESIZE);
    return end != p + 1 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

static uint64_t open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) return 0;
    uint64_t n = 0;
    for (const struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n > 0 ? n - 1 : 0; /* minus the descriptor opendir itself holds */
}

static void render_process(tbuf *b, const nq_metrics *m)
{
    family(b, "nqueensd_build_info", "gauge", "Build information; the value is always 1.");
    put(b, "nqueensd_build_info{version=\"%s\"} 1\n", m->version);
    family(b, "process_start_time_seconds", "gauge", "Start time of the process since the Unix epoch.");
    put(b, "process_start_time_seconds %.3f\n", m->start_time);
    scalar_gauge(b, "process_resident_memory_bytes", "Resident memory size in bytes.", resident_bytes());
    scalar_gauge(b, "process_open_fds", "Open file descriptors.", open_fds());
}

nq_err nq_metrics_render(const nq_metrics *m, const nq_metrics_state *state, char **out, size_t *len)
{
    if (m == NULL || out == NULL || len == NULL) return NQ_E_ARG;
    tbuf b = {.p = malloc(16384), .len = 0, .cap = 16384, .err = NQ_OK};
    if (b.p == NULL) return NQ_E_NOMEM;
    const size_t n = atomic_load_explicit(&m->nroutes, memory_order_acquire);
    render_process(&b, m);
    render_requests(&b, m, n);
    render_latency(&b, m, n);
    render_solver(&b, m);
    if (state != NULL) render_state(&b, state);
    if (b.err != NQ_OK) {
        free(b.p);
        return b.err;
    }
    *out = b.p;
    *len = b.len;
    return NQ_OK;
}
