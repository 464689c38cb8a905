/* server.c - libmicrohttpd glue: daemon set-up, per-request context, response conversion, completion.
 *
 * Life of a request on a libmicrohttpd thread:
 *   uri_log (request line parsed)  -> request context created, raw target copied, in-flight + 1;
 *                                     libmicrohttpd is kept from parsing the query and from
 *                                     delimiting a body (head.h)
 *   handler, first call            -> head checked (head.h) and received (guard); nothing queued
 *                                     yet, unless the head is refused or announces a body its route
 *                                     does not read (or refuses from the head: 415, 413): that
 *                                     request is answered now, its body unread, and the connection
 *                                     closed. A body the route reads (POST /check, /complete) is
 *                                     read instead, and the head clock runs until it is in
 *   handler, body calls            -> the body's bytes, into a buffer held to --max-body-bytes; a
 *                                     chunked body that grows past it is refused on the spot
 *                                     (refuse.h) and the connection closed
 *   handler, second call           -> nq_app_handle (with the body, which is then freed); an
 *                                     answer is converted and queued, while a
 *                                     computation goes to the worker pool (pool.h) with the
 *                                     connection suspended and its socket watched for the client
 *                                     leaving (watch.h: the waiter is then withdrawn)
 *   handler, after resume          -> nq_app_finish with the pool's outcome, converted and queued
 *   body reader calls              -> a streamed /solve renders batch by batch
 *   completed (NOTIFY_COMPLETED)   -> the record is observed, the context freed, in-flight - 1
 *   connection closed (guard)      -> a request libmicrohttpd dropped without NOTIFY_COMPLETED (it
 *                                     never reached the handler) is completed there instead
 *
 * Bodies and libmicrohttpd's framing: on every path but those of routes that read a body,
 * libmicrohttpd never delimits a body (head.h). On those paths it does, from the client's own lines,
 * which the first call checks before a byte is read; only a Content-Length it cannot parse escapes
 * that, as libmicrohttpd refuses it before the handler runs with a broken answer (its status line and
 * headers twice). What it does first is log the fault, on the connection's thread: the error logger
 * here then closes every head of that thread that libmicrohttpd is about to refuse so (mhd_log), and
 * nothing of that answer reaches the wire. The logger also replaces libmicrohttpd's HTML 500 for a
 * chunk-size line longer than the connection's buffer with the server's 400 (refuse_chunk_line).
 *
 * Responses say what becomes of their connection (connection_header): Connection: close while
 * draining and on the probes' daemon (listener.h), else Keep-Alive: timeout=--idle-timeout-s when the
 * connection stays open (the guard closes an idle one a grace period later, guard.h).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* strnlen, clock_gettime */
#endif
#include "http/server.h"

#include <arpa/inet.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/errors.h"
#include "cache/cache.h"
#include "core/app.h"
#include "core/route.h"
#include "http/body_buf.h"
#include "http/framing.h"
#include "http/guard.h"
#include "http/head.h"
#include "http/listener.h"
#include "http/refuse.h"
#include "http/watch.h"
#include "ops/accesslog.h"
#include "ops/ops.h"
#include "compute/pool.h"
#include "routes/service.h"
#include "store/store.h"

#define STREAM_BLOCK ((size_t)64 * 1024) /* bytes libmicrohttpd asks a streamed body for at a time */

struct nq_server {
    const nq_config *cfg;      /* borrowed, read-only */
    struct MHD_Daemon *mhd;    /* the daemon */
    struct MHD_Daemon *probes; /* the probes' daemon: one thread, connections whose first request is a probe */
    nq_cache *cache;           /* response cache */
    nq_service *svc;           /* the routes and what they share (the long counts) */
    nq_app *app;               /* request -> response: the service's pipeline */
    nq_guard *guard;           /* connection hardening */
    nq_pool *pool;             /* solver workers: computations run there */
    nq_pool *waits;            /* threads that only wait for a long count (NQ_APP_WAIT) */
    nq_watch *watch;           /* notices clients leaving suspended connections */
    uint16_t port;             /* bound port */
    atomic_size_t in_flight;   /* requests between uri_log and completion */
    atomic_bool draining;      /* nq_server_drain called */
    nq_listener *listener;     /* accepts connections into the daemon until drain */
    const nq_ops *ops;         /* borrowed: access log and metrics, or NULL */
    bool bodies;               /* libmicrohttpd logs its faults, so body routes may let it frame bodies */
    nq_body_budget budget;     /* request bodies held at once, all connections (--max-bodies-bytes) */
};

/* One request. Allocated in uri_log, freed when it ends (completed, or abandoned). */
typedef struct request_ctx {
    nq_server *s;                       /* the server */
    double t0;                          /* when the request line was parsed */
    char *target;                       /* raw request target, NUL-terminated; split at '?' into path and query */
    nq_match match;                     /* the path's route, matched once as the request line arrives */
    const char *query;                  /* raw query, or NULL */
    size_t query_len;                   /* its length */
    const char *uri_at;                 /* where libmicrohttpd's request line had the target (nq_head_check) */
    size_t uri_len;                     /* ... and its length then, before the query was emptied */
    unsigned head_flags;                /* what nq_head_begin found (NQ_HEAD_*) */
    bool head_seen;                     /* first handler call done */
    nq_err head_error;                  /* why the head is refused (414, 431, 400, 501, 503), NQ_OK if it is not */
    const char *head_detail;            /* a static sentence saying why, or NULL */
    nq_framing_body body;               /* how the request's body is delimited (framing.h) */
    uint64_t body_length;               /* its announced length, when body is NQ_FRAMING_LENGTH */
    bool mhd_frames;                    /* a body route's path: libmicrohttpd delimits the body (head.h) */
    struct request_ctx *unframed_next;  /* on this thread's list of such heads until the first call, then
                                           on its list of chunked bodies being read (`dechunking`) */
    struct request_ctx **unframed_prev; /* the link pointing at this one; NULL when not on the list */
    bool length_refused;                /* libmicrohttpd was about to refuse its Content-Length: shut down */
    bool reading;                       /* the route reads the body: it is arriving into `in` */
    bool refused;                       /* the body was refused from the head (415, 413): resp is the answer */
    nq_body_buf in;                     /* the body, held to --max-body-bytes; freed once the app has it */
    nq_head_joined *joined;             /* repeated header lines combined for lookup_header, freed at the end */
    uint64_t bytes;                     /* response body bytes sent (handed to libmicrohttpd) */
    nq_response resp;                   /* the response (headers, record fields) */
    struct MHD_Connection *conn;        /* the connection: header lookups, the pool's resume callback */
    nq_app_work *work;                  /* the pending computation's request, until nq_app_finish consumes it */
    nq_pool_ticket *ticket;             /* our wait on the pool, while offloaded */
    bool offloaded;                     /* the connection was suspended for a computation */
    nq_watch_id watch_id;               /* its socket's hang-up watch while suspended, 0 when none */
    atomic_bool resumed;                /* the suspension was ended (by the pool's notify or a hang-up) */
    bool hung_up;                       /* the client left while suspended: the ticket was withdrawn */
    nq_err offload_err;                 /* why the submit failed (busy, draining, ...), NQ_OK if it did not */
    bool answered;                      /* a response was handed to MHD_queue_response */
    bool http10;                        /* the request is HTTP/1.0 (keep-alive only when it asks) */
    bool closing;                       /* answered on the first call: the connection closes after it */
    char method[16];                    /* request method, cut */
} request_ctx;

/* ---- request context ------------------------------------------------------------------------- */

/* A malloc'd copy of the origin form ("/solve?n=8") of a request target. A proxy-style absolute form
 * ("http://host/solve?n=8"), which RFC 9112 section 3.2.2 says a server must accept, loses its scheme
 * and authority, and an empty path becomes "/" ("http://host?n=8" is "/?n=8"). NULL if out of memory. */
static char *origin_form(const char *target)
{
    if (strncasecmp(target, "http://", 7) != 0 && strncasecmp(target, "https://", 8) != 0) return strdup(target);
    const char *authority = strstr(target, "://") + 3;
    const char *rest = authority + strcspn(authority, "/?");
    if (*rest == '/') return strdup(rest);
    const size_t len = strlen(rest);
    char *out = malloc(len + 2);
    if (!out) return NULL;
    out[0] = '/';
    memcpy(out + 1, rest, len + 1);
    return out;
}

/* ---- heads whose body libmicrohttpd frames ---------------------------------------------------- */

/* The requests of this thread whose head libmicrohttpd is reading without the server's own
 * Content-Length (a body route's path), from the request line to the first handler call. A mutable
 * global, which the project otherwise avoids, because libmicrohttpd's error logger says neither which
 * connection nor which daemon it speaks of; it runs on the thread serving the connection, and each
 * connection is served by one thread for its whole life, so a list per thread holds every candidate
 * and needs no lock. */
static _Thread_local request_ctx *unframed;

/* The requests of this thread whose chunked body libmicrohttpd is de-chunking (a body route's POST),
 * from the first handler call until the body is in: the same links as `unframed`, which a request
 * has left by then. libmicrohttpd cannot read a chunk-size line longer than the connection's buffer;
 * it then logs and queues its HTML 500, which mhd_log replaces with the server's problem. */
static _Thread_local request_ctx *dechunking;

static void thread_list_add(request_ctx **list, request_ctx *ctx)
{
    ctx->unframed_next = *list;
    if (*list) (*list)->unframed_prev = &ctx->unframed_next;
    ctx->unframed_prev = list;
    *list = ctx;
}

static void unframed_add(request_ctx *ctx)
{
    thread_list_add(&unframed, ctx);
}

/* Take ctx off whichever of this thread's lists it is on (none: nothing happens). */
static void unframed_remove(request_ctx *ctx)
{
    if (!ctx->unframed_prev) return;
    *ctx->unframed_prev = ctx->unframed_next;
    if (ctx->unframed_next) ctx->unframed_next->unframed_prev = ctx->unframed_prev;
    ctx->unframed_next = NULL;
    ctx->unframed_prev = NULL;
}

static int connection_fd(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return ci ? ci->connect_fd : -1;
}

/* libmicrohttpd's error logger (MHD_OPTION_EXTERNAL_LOGGER), on the thread where the fault is. Its
 * messages are not logged: this only closes the heads of this thread whose Content-Length
 * libmicrohttpd refuses, which it logs before it queues its doubled answer; after shutdown(2) that
 * answer fails to send and libmicrohttpd closes the connection. A head still arriving is closed too
 * once its first length is one libmicrohttpd will refuse: it can end no other way. */
static void close_refused_lengths(void)
{
    for (request_ctx *ctx = unframed; ctx; ctx = ctx->unframed_next) {
        if (ctx->length_refused || !nq_head_length_refused(ctx->conn)) continue;
        ctx->length_refused = true;
        const int fd = connection_fd(ctx->conn);
        if (fd >= 0) (void)shutdown(fd, SHUT_RDWR);
    }
}

/* How libmicrohttpd 0.9.75 logs an error answer it is about to queue; the status is its first
 * argument. Another wording (another release) only leaves its own answer in place. */
#define MHD_ERROR_ANSWER_FMT "Error processing request (HTTP response code is %u"

static const char chunk_line_detail[] =
    "A chunk-size line (the size and its chunk extensions) is longer than this server reads; "
    "send chunk sizes without long extensions.";

static nq_request request_of(request_ctx *ctx, const char *method);

/* libmicrohttpd is about to answer 500 to a body it cannot read on: the one chunked body of this
 * thread whose chunk-size line fills the connection's buffer (the only body it ever stops reading so).
 * Write the server's 400 problem straight to the socket (refuse.h) and shut it down, so that the
 * 500 fails to send. With several chunked bodies arriving on this thread at once, which one is stuck
 * is not known, and libmicrohttpd's own answer goes out. */
static void refuse_chunk_line(void)
{
    request_ctx *ctx = dechunking;
    if (!ctx || ctx->unframed_next) return;
    unframed_remove(ctx);
    const nq_request req = request_of(ctx, ctx->method);
    nq_app_reject(ctx->s->app, &req, NQ_E_BAD_REQUEST, chunk_line_detail, &ctx->resp);
    ctx->reading = false;
    ctx->answered = true;
    nq_body_buf_free(&ctx->in);
    const int fd = connection_fd(ctx->conn);
    size_t sent = 0;
    if (fd >= 0) {
        (void)nq_refuse_send(fd, &ctx->resp, &sent);
        (void)shutdown(fd, SHUT_RDWR);
    }
    ctx->bytes = sent;
}

/* libmicrohttpd's error logger: its messages are not logged, they only tell of the two answers it
 * would send broken or as HTML (a refused Content-Length, a chunk-size line it cannot read). */
__attribute__((format(printf, 2, 0))) static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    close_refused_lengths();
    if (!dechunking || !fmt || strncmp(fmt, MHD_ERROR_ANSWER_FMT, strlen(MHD_ERROR_ANSWER_FMT)) != 0) return;
    /* The message as libmicrohttpd means it; its status follows the fixed part of the format. */
    char msg[128];
    (void)vsnprintf(msg, sizeof msg, fmt, ap);
    const char *status = msg + strlen(MHD_ERROR_ANSWER_FMT) - 2; /* where "%u" was */
    if (strncmp(status, "500", 3) == 0 && (status[3] < '0' || status[3] > '9')) refuse_chunk_line();
}

/* ---- a request begins -------------------------------------------------------------------------- */

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
    nq_server *s = cls;
    request_ctx *ctx = calloc(1, sizeof *ctx);
    char *target = ctx ? origin_form(uri ? uri : "") : NULL;
    if (!target) {
        /* Dropped at the first handler call; until then libmicrohttpd must not frame a body. */
        (void)nq_head_begin(c, uri, true);
        free(ctx);
        return NULL;
    }
    ctx->target = target;
    ctx->conn = c;
    ctx->uri_at = uri;
    ctx->uri_len = uri ? strlen(uri) : 0;
    char *q = strchr(ctx->target, '?');
    if (q) {
        *q++ = '\0';
        ctx->query = q;
        ctx->query_len = strlen(q);
    }
    /* What libmicrohttpd must not parse or frame (head.h): a body, unless the path's route reads one. */
    nq_app_match(s->app, ctx->target, &ctx->match);
    ctx->mhd_frames = s->bodies && nq_route_takes_body(ctx->match.route);
    ctx->head_flags = nq_head_begin(c, uri, !ctx->mhd_frames);
    if (ctx->mhd_frames) unframed_add(ctx);
    ctx->s = s;
    ctx->t0 = nq_clock_s();
    nq_response_init(&ctx->resp);
    ctx->resp.status = 0; /* nothing sent yet */
    atomic_fetch_add(&s->in_flight, 1);
    nq_guard_request_begin(c, ctx);
    return ctx;
}

/* The dotted quad of an IPv4 address (network order) at addr: by hand, as inet_ntop formats it
 * through sprintf, once for every request logged. */
static void ipv4_text(const struct in_addr *in, char *addr)
{
    const unsigned char *b = (const unsigned char *)&in->s_addr;
    char *p = addr;
    for (int i = 0; i < 4; i++) {
        const unsigned v = b[i];
        if (v >= 100) *p++ = (char)('0' + v / 100);
        if (v >= 10) *p++ = (char)('0' + v / 10 % 10);
        *p++ = (char)('0' + v % 10);
        *p++ = i < 3 ? '.' : '\0';
    }
}

/* The client's numeric address into addr (INET6_ADDRSTRLEN bytes); "" when unknown. */
static void client_address(struct MHD_Connection *c, char *addr)
{
    addr[0] = '\0';
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || !ci->client_addr) return;
    const struct sockaddr *sa = ci->client_addr;
    const void *ip = NULL;
    if (sa->sa_family == AF_INET) {
        ipv4_text(&((const struct sockaddr_in *)(const void *)sa)->sin_addr, addr);
        return;
    }
    if (sa->sa_family == AF_INET6) ip = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    if (!ip || !inet_ntop(sa->sa_family, ip, addr, INET6_ADDRSTRLEN)) addr[0] = '\0';
}

/* The status that went out: ours, or, when libmicrohttpd answered before the handler ran (a head over
 * its memory, a malformed header), the one it queued itself; 0 when none was sent. */
static unsigned sent_status(const request_ctx *ctx, struct MHD_Connection *c)
{
    if (ctx->resp.status != 0) return ctx->resp.status;
    if (ctx->length_refused) return 0; /* libmicrohttpd's answer was queued, but never went out */
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS);
    return ci ? ci->http_status : 0;
}

/* Observe the record of ctx's request and free it. ok: libmicrohttpd reported it completed. */
static void finish_request(nq_server *s, struct MHD_Connection *c, request_ctx *ctx, bool ok)
{
    char addr[INET6_ADDRSTRLEN];
    client_address(c, addr);
    const nq_request_record rec = {
        .method = ctx->method[0] ? ctx->method : NULL,
        .path = ctx->target,
        .query = ctx->query,
        .route = ctx->resp.route,
        .request_id = ctx->resp.request_id[0] ? ctx->resp.request_id : NULL,
        .remote_addr = addr[0] ? addr : NULL,
        .status = sent_status(ctx, c),
        .bytes = ctx->bytes,
        .duration_s = nq_clock_s() - ctx->t0,
        .solver_s = ctx->resp.solver_seconds,
        .cache = ctx->resp.cache,
        .completed = ok,
    };
    nq_ops_request_done(s->ops, &rec);
    unframed_remove(ctx); /* closed before its head was in */
    nq_body_buf_free(&ctx->in);
    (void)nq_watch_remove(s->watch, ctx->watch_id); /* closed after the resume, before the handler ran */
    nq_pool_ticket_release(ctx->ticket);            /* still set only if the connection died while suspended */
    nq_app_work_destroy(ctx->work);
    nq_response_clear(&ctx->resp);
    nq_head_joined_free(ctx->joined);
    free(ctx->target);
    free(ctx);
    atomic_fetch_sub(&s->in_flight, 1);
}

static void completed(void *cls, struct MHD_Connection *c, void **req_cls, enum MHD_RequestTerminationCode toe)
{
    request_ctx *ctx = *req_cls;
    nq_guard_request_done(c);
    if (!ctx) return;
    *req_cls = NULL;
    finish_request(cls, c, ctx, toe == MHD_REQUEST_TERMINATED_COMPLETED_OK);
}

/* The guard's report of a connection closed while a request begun on it (uri_log) was never
 * reported completed: libmicrohttpd drops a request it refused itself before the handler ran
 * without NOTIFY_COMPLETED on some paths, and the request must still be logged and leave the
 * in-flight count (a drain waits for that count). */
static void abandoned(void *cls, struct MHD_Connection *c, void *request)
{
    finish_request(cls, c, request, false);
}

/* ---- response conversion --------------------------------------------------------------------- */

/* A streamed body, owned by the libmicrohttpd response. */
typedef struct stream_src {
    nq_body_read_fn read;              /* the body's reader; NULL: empty body (HEAD) */
    void *stream;                      /* its state */
    void (*stream_free)(void *stream); /* frees it */
    uint64_t *bytes;                   /* the request's byte counter (reads end before completion) */
} stream_src;

static ssize_t stream_reader(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    stream_src *src = cls;
    if (!src->read) return MHD_CONTENT_READER_END_OF_STREAM;
    size_t len = 0;
    if (src->read(src->stream, buf, max, &len) != NQ_OK) return MHD_CONTENT_READER_END_WITH_ERROR;
    if (len == 0) return MHD_CONTENT_READER_END_OF_STREAM;
    *src->bytes += len;
    return (ssize_t)len;
}

static void stream_release(void *cls)
{
    stream_src *src = cls;
    if (src->stream_free) src->stream_free(src->stream);
    free(src);
}

/* libmicrohttpd takes `void *` buffers but only reads them. The constness is dropped in this one
 * place, through a union, so that -Wcast-qual stays meaningful everywhere else. */
static void *unconst(const void *p)
{
    const union {
        const void *c;
        void *m;
    } u = {p};
    return u.m;
}

static ssize_t no_body(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)cls;
    (void)pos;
    (void)buf;
    (void)max;
    return MHD_CONTENT_READER_END_OF_STREAM;
}

/* A response with no framing header at all (neither Content-Length nor Transfer-Encoding), which
 * libmicrohttpd 0.9.75 makes only in its HTTP/1.0 mode, at the cost of closing the connection after
 * it. Two answers need one:
 *  - a 304 whose body the cache no longer holds (nq_app_304_body): one made from a buffer carries
 *    "Content-Length: 0", which RFC 9110 section 8.6 forbids unless the 200 is empty too, and one of
 *    unknown size a chunked (empty) body, which a 304 must not have;
 *  - HEAD of a streamed answer, whose length is unknown without computing it: 0.9.75 sends the
 *    chunked answer's last chunk ("0\r\n\r\n") after the head of a HEAD response, which the client
 *    then reads as the start of the next response (RFC 9110 section 9.3.2: no content). */
static struct MHD_Response *unframed_response(void)
{
    struct MHD_Response *m = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 64, no_body, NULL, NULL);
    if (m && MHD_set_response_options(m, MHD_RF_HTTP_VERSION_1_0_ONLY, MHD_RO_END) != MHD_YES) {
        MHD_destroy_response(m);
        return NULL;
    }
    return m;
}

static struct MHD_Response *empty_response(unsigned status)
{
    if (status != 304) return MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
    return unframed_response();
}

/* A cached body goes out from the entry's bytes on the heap, which the response holds (a reference to
 * the entry) until libmicrohttpd is done with them: one sendmsg carries the head and as much of the
 * body as the socket takes. Not by sendfile: that costs the sending thread less, but libmicrohttpd
 * 0.9.75 sends the head in a segment of its own and the body in 128 KiB calls, and a client on the same
 * host then spends more than twice as long receiving the answer, more than the copy saves
 * (docs/performance.md, "Large cached answers"). */
static struct MHD_Response *cached_response(nq_response *r)
{
    return MHD_create_response_from_buffer_with_free_callback_cls(r->body_len, unconst(r->body), nq_cache_release_cb,
                                                                  r->entry);
}

/* Build the libmicrohttpd response for resp and take its body over. NULL on allocation failure; the
 * body is freed either way (by resp if no response could be made, else with the response). */
static struct MHD_Response *to_mhd(request_ctx *ctx)
{
    nq_response *r = &ctx->resp;
    struct MHD_Response *m = NULL;
    switch (r->kind) {
    case NQ_BODY_NONE: m = empty_response(r->status); break;
    case NQ_BODY_STATIC:
        m = MHD_create_response_from_buffer(r->body_len, unconst(r->body), MHD_RESPMEM_PERSISTENT);
        break;
    case NQ_BODY_OWNED: m = MHD_create_response_from_buffer_with_free_callback(r->body_len, r->owned, free); break;
    case NQ_BODY_CACHED: m = cached_response(r); break;
    case NQ_BODY_STREAM: {
        if (!r->read) { /* HEAD: the length GET would send, or see unframed_response */
            m = r->stream_len ? MHD_create_response_from_callback(r->stream_len, 64, no_body, NULL, NULL)
                              : unframed_response();
            if (m && r->stream_free) r->stream_free(r->stream);
            break;
        }
        stream_src *src = calloc(1, sizeof *src);
        if (!src) return NULL;
        *src = (stream_src){r->read, r->stream, r->stream_free, &ctx->bytes};
        const uint64_t size = r->stream_len ? r->stream_len : MHD_SIZE_UNKNOWN;
        m = MHD_create_response_from_callback(size, STREAM_BLOCK, stream_reader, src, stream_release);
        if (!m) free(src);
        break;
    }
    }
    if (!m) return NULL;
    if (r->kind != NQ_BODY_STREAM && nq_response_sends_body(r)) ctx->bytes = r->body_len;
    r->kind = NQ_BODY_NONE; /* libmicrohttpd owns the body now */
    for (size_t i = 0; i < r->nheaders; i++) {
        /* Only out of memory fails here: a response without its ETag, CORS or Content-Type would
         * be wrong, so the connection is dropped instead (destroying m frees the body). */
        if (MHD_add_response_header(m, r->headers[i].name, r->headers[i].value) != MHD_YES) {
            MHD_destroy_response(m);
            return NULL;
        }
    }
    return m;
}

/* ---- the handler ----------------------------------------------------------------------------- */

/* The app's header lookup (nq_request.header): every line of a repeated header, as one list. */
static const char *lookup_header(void *arg, const char *name)
{
    request_ctx *ctx = arg;
    return nq_head_lookup(ctx->conn, name, &ctx->joined);
}

/* ---- computations on the worker pool ---------------------------------------------------------- */

/* The pool's task: run on a solver worker, over the pool's own copy of the work. */
static nq_err run_work(void *work, nq_count_ctl *ctl, void **result)
{
    nq_app_result *r = NULL;
    const nq_err rc = nq_app_compute(work, ctl, &r);
    *result = r;
    return rc;
}

static void free_work(void *work)
{
    nq_app_work_destroy(work);
}

static void free_result(void *result)
{
    nq_app_result_destroy(result);
}

/* The pool's after step: what the answered requests did not wait for. */
static void settle_work(void *work, const void *result, const atomic_bool *stop)
{
    nq_app_settle(work, result, stop);
}

/* End the suspension, once: the pool's notify and a hang-up may both try, and a second
 * MHD_resume_connection would cancel the connection's next suspension (libmicrohttpd takes a resume
 * of a connection that is not suspended as one that is still on its way). */
static void resume_once(request_ctx *ctx)
{
    if (!atomic_exchange(&ctx->resumed, true)) MHD_resume_connection(ctx->conn);
}

/* The pool's notification, on a pool thread: the outcome is in, let libmicrohttpd call us again. */
static void resume_request(void *arg)
{
    resume_once(arg);
}

/* The watch's callback, on its thread: the client of a suspended connection left. Withdraw the
 * waiter first (so the computation's budget applies at once; release waits out a notify in
 * progress, after which none comes), then resume, so that libmicrohttpd sees the close and ends
 * the request. The network thread reads ticket and hung_up only after nq_watch_remove, which
 * waits for this to return. */
static void client_left(void *arg)
{
    request_ctx *ctx = arg;
    nq_pool_ticket_release(ctx->ticket);
    ctx->ticket = NULL;
    ctx->hung_up = true;
    resume_once(ctx);
}

/* Watch the suspended connection's socket for its client leaving. Without a watch (no descriptor,
 * no memory) the request still ends when its computation does. */
static void watch_client(request_ctx *ctx, struct MHD_Connection *c)
{
    const int fd = connection_fd(c);
    if (fd >= 0) (void)nq_watch_add(ctx->s->watch, fd, client_left, ctx, &ctx->watch_id);
}

/* Hand ctx->work's computation to pool and suspend the connection until it is done. The
 * connection is suspended before the submit, so the pool cannot resume it before it is suspended; a
 * refused submit (busy, draining) resumes it at once and is answered on the next call. */
static void offload(request_ctx *ctx, struct MHD_Connection *c, nq_pool *pool)
{
    ctx->offloaded = true;
    MHD_suspend_connection(c);
    nq_app_work *copy = nq_app_work_copy(ctx->work); /* the pool's: may outlive this request */
    const nq_pool_task task = {
        .run = run_work, .ctx_free = free_work, .result_free = free_result, .ctx = copy, .after = settle_work};
    ctx->offload_err =
        copy ? nq_pool_submit(pool, nq_app_work_key(ctx->work), &task, resume_request, ctx, &ctx->ticket) : NQ_E_NOMEM;
    if (ctx->offload_err != NQ_OK) resume_once(ctx);
    /* After the submit: the ticket is set for client_left. This thread serves the connection, so it
     * is not called again before offload returns, even if the pool resumes it meanwhile. */
    else
        watch_client(ctx, c);
}

/* Back from the pool: turn its outcome into the response. false when the client left meanwhile
 * (nothing to answer: the connection is closed). */
static bool finish_offloaded(request_ctx *ctx)
{
    (void)nq_watch_remove(ctx->s->watch, ctx->watch_id); /* after it, client_left has run or never will */
    ctx->watch_id = 0;
    if (ctx->hung_up) return false;
    const void *result = NULL;
    const nq_err rc = ctx->ticket ? nq_pool_ticket_result(ctx->ticket, &result) : ctx->offload_err;
    nq_app_finish(ctx->s->app, ctx->work, rc, result, &ctx->resp); /* retains what it keeps of result */
    ctx->work = NULL;
    nq_pool_ticket_release(ctx->ticket);
    ctx->ticket = NULL;
    return true;
}

/* The request as the app sees it; the body is the one read, if any. */
static nq_request request_of(request_ctx *ctx, const char *method)
{
    return (nq_request){method, ctx->target,  ctx->query,  ctx->query_len, lookup_header,
                        ctx,    ctx->in.data, ctx->in.len, &ctx->match};
}

/* The app's answer to the request: its body, if one was read, is freed once the app has read it (a
 * plan keeps what it needs, a computation works on its own copy of the plan). */
static nq_app_step handle(request_ctx *ctx, const char *method)
{
    const nq_request req = request_of(ctx, method);
    const nq_app_step step = nq_app_handle(ctx->s->app, &req, &ctx->resp, &ctx->work);
    nq_body_buf_free(&ctx->in);
    return step;
}

/* Whether the comma-separated list value names token (case-insensitive, spaces and tabs around). */
static bool lists_token(const char *value, const char *token)
{
    const size_t tlen = strlen(token);
    for (const char *p = value; p && *p;) {
        p += strspn(p, " \t,");
        const size_t len = strcspn(p, ",");
        size_t end = len;
        while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t')) end--;
        if (end == tlen && strncasecmp(p, token, tlen) == 0) return true;
        p += len;
    }
    return false;
}

/* Whether an answer of this kind keeps the connection as far as the server is concerned: not one that
 * libmicrohttpd must frame as HTTP/1.0 and close after (unframed_response). */
static bool is_unframed(const nq_response *r)
{
    if (r->kind == NQ_BODY_NONE) return r->status == 304;
    return r->kind == NQ_BODY_STREAM && !r->read && !r->stream_len;
}

/* Whether the client's request lets the connection stay open (libmicrohttpd decides the same way):
 * HTTP/1.1 unless Connection lists "close", HTTP/1.0 only when it lists "keep-alive". */
static bool client_keeps(request_ctx *ctx)
{
    const char *conn = nq_head_lookup(ctx->conn, "Connection", &ctx->joined);
    if (conn && lists_token(conn, "close")) return false;
    return !ctx->http10 || (conn && lists_token(conn, "keep-alive"));
}

/* Whether ctx's connection is served by the probes' daemon, which answers one request a connection:
 * a client that sends anything after its probe must do so on a connection the workers serve. */
static bool on_probes(const request_ctx *ctx)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(ctx->conn, MHD_CONNECTION_INFO_DAEMON);
    return ci && ci->daemon == ctx->s->probes;
}

/* The connection's fate, said on the answer. Draining: every answer asks the client to leave, so that
 * one holding its connection (a mesh proxy's pool) takes its next request elsewhere rather than have
 * it reset at exit; so does every answer of the probes' daemon. Otherwise an answer after which the connection stays open says for how long it
 * stays open while idle (Keep-Alive: timeout=--idle-timeout-s; the server closes it a grace period
 * later, guard.h), so that a client's keep-alive pool retires it first instead of sending a request
 * into its close. false when the header could not be added (out of memory). */
static bool connection_header(request_ctx *ctx, struct MHD_Response *m, bool http10_framed)
{
    if (atomic_load(&ctx->s->draining) || on_probes(ctx))
        return MHD_add_response_header(m, "Connection", "close") == MHD_YES;
    const unsigned idle = ctx->s->cfg->idle_timeout_s;
    if (idle == 0 || http10_framed || ctx->closing || !client_keeps(ctx)) return true;
    char value[32];
    (void)snprintf(value, sizeof value, "timeout=%u", idle);
    return MHD_add_response_header(m, "Keep-Alive", value) == MHD_YES;
}

static enum MHD_Result respond(request_ctx *ctx, struct MHD_Connection *c, const char *method)
{
    /* While the daemon stops, MHD_queue_response reports success without queuing, and libmicrohttpd
     * calls the handler again: there is nothing more to say, so let it close the connection. */
    if (ctx->answered) return MHD_NO;
    if (ctx->offloaded) {
        if (!finish_offloaded(ctx)) return MHD_NO;
    } else if (ctx->head_error != NQ_OK) {
        /* A refused head: a problem, without routing a target that may be huge or malformed. */
        const nq_request req = request_of(ctx, method);
        nq_app_reject(ctx->s->app, &req, ctx->head_error, ctx->head_detail, &ctx->resp);
    } else if (!ctx->refused) {
        const nq_app_step step = handle(ctx, method);
        if (step != NQ_APP_DONE) {
            offload(ctx, c, step == NQ_APP_WAIT ? ctx->s->waits : ctx->s->pool);
            return MHD_YES; /* called again once resumed */
        }
    }
    const bool http10_framed = is_unframed(&ctx->resp);
    struct MHD_Response *m = to_mhd(ctx);
    if (!m) return MHD_NO;
    if (!connection_header(ctx, m, http10_framed)) {
        MHD_destroy_response(m);
        return MHD_NO;
    }
    ctx->answered = true;
    const enum MHD_Result rc = MHD_queue_response(c, ctx->resp.status, m);
    MHD_destroy_response(m);
    return rc;
}

/* ---- the request head ------------------------------------------------------------------------ */

/* Check the head on the first handler call: the guard's caps (414, 431), then the request line,
 * every header line and the framing they give (head.h). */
static void check_head(request_ctx *ctx, struct MHD_Connection *c, const char *method, const char *version)
{
    const size_t uri_len = strlen(ctx->target) + (ctx->query ? ctx->query_len + 1 : 0);
    ctx->head_error = nq_guard_check_head(ctx->s->guard, c, uri_len);
    if (ctx->head_error != NQ_OK) return;
    nq_head_verdict v;
    nq_head_check(c, method, version, ctx->uri_at, ctx->uri_len, ctx->head_flags, &v);
    ctx->head_error = v.err;
    ctx->head_detail = v.detail;
    ctx->body = v.body;
    ctx->body_length = v.length;
    if (v.err == NQ_OK && ctx->mhd_frames && v.body == NQ_FRAMING_CHUNKED && !nq_head_mhd_dechunks(c)) {
        ctx->head_error = NQ_E_BAD_REQUEST; /* answered at once, and the connection closed */
        ctx->head_detail = "On this route Transfer-Encoding must read exactly 'chunked', without spaces: "
                           "the server's HTTP library reads a chunked body only then.";
    }
}

/* What becomes of the body the head announces: read (a POST to a route that takes one), refused
 * from the head (resp is then the 415 or 413), or neither (NQ_APP_BODY_NONE: not read). */
static nq_app_body_step begin_body(request_ctx *ctx, const char *method)
{
    const nq_request req = request_of(ctx, method);
    const bool chunked = ctx->body == NQ_FRAMING_CHUNKED;
    const nq_app_body_step step = nq_app_body_begin(ctx->s->app, &req, chunked, ctx->body_length, &ctx->resp);
    if (step != NQ_APP_BODY_READ || ctx->mhd_frames) return step;
    /* libmicrohttpd was told there is no body (bodies are off: see nq_server_create). */
    ctx->head_error = NQ_E_NOT_IMPLEMENTED;
    ctx->head_detail = "This server cannot read request bodies: its libmicrohttpd reports no errors, which "
                       "it needs to refuse a malformed Content-Length safely. Use the GET form.";
    return NQ_APP_BODY_NONE;
}

/* The first call: the head is in, checked, and its body (if any) read or not. Queuing now makes
 * libmicrohttpd close the connection after the response, so a request that may be answered on a
 * kept connection waits for the second call. A body no route reads is answered now, unread: the
 * connection then closes, so a body is never read as the next request, and a client trickling one
 * cannot hold the connection. A body that is read keeps the head clock running until it is in, so
 * a body slower than the head deadline is cut like a slow head. */
static enum MHD_Result first_call(request_ctx *ctx, struct MHD_Connection *c, const char *method, const char *version)
{
    ctx->head_seen = true;
    unframed_remove(ctx); /* libmicrohttpd has read its framing: it refuses no length from here on */
    (void)snprintf(ctx->method, sizeof ctx->method, "%s", method);
    ctx->http10 = version && strcmp(version, MHD_HTTP_VERSION_1_0) == 0;
    check_head(ctx, c, method, version);
    const nq_app_body_step step =
        ctx->head_error == NQ_OK && ctx->body != NQ_FRAMING_NONE ? begin_body(ctx, method) : NQ_APP_BODY_NONE;
    if (step == NQ_APP_BODY_READ) {
        ctx->reading = true;
        if (ctx->mhd_frames && ctx->body == NQ_FRAMING_CHUNKED) thread_list_add(&dechunking, ctx);
        nq_body_buf_init(&ctx->in, &ctx->s->budget, ctx->s->cfg->max_body_bytes, ctx->body_length);
        return MHD_YES;
    }
    nq_guard_head_received(c);
    ctx->refused = step == NQ_APP_BODY_REFUSED;
    if (ctx->head_error == NQ_OK && ctx->body == NQ_FRAMING_NONE) return MHD_YES;
    ctx->closing = true; /* queued on the first call: libmicrohttpd closes the connection after it */
    return respond(ctx, c, method);
}

/* Body bytes: into the buffer, or, past the cap (a chunked body) or without memory, the refusal
 * written on the spot (refuse.h) and the connection closed. */
static enum MHD_Result body_bytes(request_ctx *ctx, struct MHD_Connection *c, const char *method, const char *data,
                                  size_t *size)
{
    const size_t n = *size;
    *size = 0;
    if (!ctx->reading) return MHD_YES; /* a body libmicrohttpd discards after an early answer */
    const nq_err rc = nq_body_buf_append(&ctx->in, data, n);
    if (rc == NQ_OK) return MHD_YES;
    const nq_request req = request_of(ctx, method);
    if (rc == NQ_E_BODY_TOO_LARGE)
        nq_app_body_too_large(ctx->s->app, &req, &ctx->resp);
    else
        nq_app_reject(ctx->s->app, &req, rc,
                      rc == NQ_E_BUSY ? "The server holds as many request bodies as it may (--max-bodies-bytes) "
                                        "at the moment; try again shortly."
                                      : NULL,
                      &ctx->resp);
    ctx->reading = false;
    ctx->answered = true;
    unframed_remove(ctx); /* off `dechunking` */
    nq_body_buf_free(&ctx->in);
    const int fd = connection_fd(c);
    size_t sent = 0;
    if (fd >= 0) (void)nq_refuse_send(fd, &ctx->resp, &sent);
    ctx->bytes = sent;
    return MHD_NO; /* libmicrohttpd closes the connection */
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size, void **req_cls)
{
    (void)url;
    (void)cls;
    request_ctx *ctx = *req_cls;
    if (!ctx) return MHD_NO; /* uri_log could not allocate: drop the connection */
    if (!ctx->head_seen) return first_call(ctx, c, method, version);
    if (*upload_data_size > 0) return body_bytes(ctx, c, method, upload_data, upload_data_size);
    if (ctx->reading) { /* the whole body is in */
        ctx->reading = false;
        unframed_remove(ctx); /* off `dechunking` */
        nq_guard_head_received(c);
    }
    return respond(ctx, c, method);
}

/* ---- daemon ---------------------------------------------------------------------------------- */

static nq_err parse_bind(const nq_config *cfg, struct sockaddr_storage *ss, bool *v6)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *in4 = (struct sockaddr_in *)(void *)ss;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)ss;
    if (inet_pton(AF_INET, cfg->bind_addr, &in4->sin_addr) == 1) {
        in4->sin_family = AF_INET;
        in4->sin_port = htons(cfg->port);
        *v6 = false;
        return NQ_OK;
    }
    if (inet_pton(AF_INET6, cfg->bind_addr, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(cfg->port);
        *v6 = true;
        return NQ_OK;
    }
    return NQ_E_ARG;
}

/* Bind and listen ourselves rather than let libmicrohttpd do it: its start-up failure says nothing
 * about why, and a port in use or an address this host lacks must be told apart from a thread that
 * would not start. SO_REUSEADDR only (restart through TIME_WAIT); never SO_REUSEPORT, which would let
 * a second nqueensd share the port silently. Non-blocking: the listener waits in poll and must not
 * block in accept when a waiting connection went away meanwhile. On success *fd is the caller's. */
static nq_err open_listener(const struct sockaddr_storage *ss, bool v6, int *fd)
{
    const int s = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0) return NQ_E_LISTEN;
    const int on = 1;
    const socklen_t len = v6 ? (socklen_t)sizeof(struct sockaddr_in6) : (socklen_t)sizeof(struct sockaddr_in);
    if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
        bind(s, (const struct sockaddr *)(const void *)ss, len) != 0 || listen(s, SOMAXCONN) != 0) {
        (void)close(s);
        return NQ_E_LISTEN;
    }
    *fd = s;
    return NQ_OK;
}

/* The port fd is bound to (the kernel's pick when the configuration said 0), or 0 if unknown. */
static uint16_t bound_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)(void *)&ss, &len) != 0) return 0;
    if (ss.ss_family == AF_INET6) return ntohs(((const struct sockaddr_in6 *)(const void *)&ss)->sin6_port);
    return ntohs(((const struct sockaddr_in *)(const void *)&ss)->sin_port);
}

static nq_err start_daemon(nq_server *s)
{
    struct sockaddr_storage ss;
    bool v6 = false;
    int listen_fd = -1;
    if (parse_bind(s->cfg, &ss, &v6) != NQ_OK) return NQ_E_ARG;
    nq_err rc = open_listener(&ss, v6, &listen_fd);
    if (rc != NQ_OK) return rc;
    /* The per-address cap keeps a reserve of slots out of any one address's reach (config.h): one
     * client holding thousands of idle sockets must not lock probes and other clients out. */
    const nq_guard_config gc = {nq_config_per_address_cap(s->cfg),
                                s->cfg->idle_timeout_s,
                                s->cfg->head_timeout_s,
                                s->cfg->max_uri_bytes,
                                s->cfg->max_header_bytes,
                                abandoned,
                                s};
    rc = nq_guard_create(&gc, &s->guard);
    struct MHD_OptionItem opts[NQ_GUARD_MHD_OPTIONS];
    if (rc == NQ_OK && nq_guard_mhd_options(s->guard, opts, NQ_GUARD_MHD_OPTIONS) == 0) rc = NQ_E_ARG;
    if (rc != NQ_OK) {
        (void)close(listen_fd);
        return rc;
    }
    /* No listening socket of its own: listener.h says why connections come through the listener. */
    /* Its error log only lets mhd_log see a Content-Length it refuses (see the file head). */
    const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC |
                           MHD_USE_NO_LISTEN_SOCKET | (s->bodies ? MHD_USE_ERROR_LOG : 0u);
    const unsigned threads = s->cfg->http_threads > 0 ? s->cfg->http_threads : 1;
    /* The listener holds the total to conn_limit. libmicrohttpd's own limit must never bind (at it,
     * 0.9.75 leaves a mutex locked: listener.h): UINT_MAX, split among at most 256 threads, is over
     * 16 million connections per thread, beyond any descriptor limit. */
    /* The logger first: options are applied in order, and any one may log (with libmicrohttpd's own
     * logger, to stderr, until this one is set). */
    s->mhd = MHD_start_daemon(flags, 0, NULL, NULL, handler, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
                              MHD_OPTION_CONNECTION_LIMIT, UINT_MAX, MHD_OPTION_URI_LOG_CALLBACK, uri_log, s,
                              MHD_OPTION_NOTIFY_COMPLETED, completed, s, MHD_OPTION_THREAD_POOL_SIZE, threads,
                              MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
    /* The probes' own thread (listener.h): the same requests' path, one request per connection. */
    s->probes =
        s->mhd ? MHD_start_daemon(flags, 0, NULL, NULL, handler, s, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, s,
                                  MHD_OPTION_CONNECTION_LIMIT, UINT_MAX, MHD_OPTION_URI_LOG_CALLBACK, uri_log, s,
                                  MHD_OPTION_NOTIFY_COMPLETED, completed, s, MHD_OPTION_ARRAY, opts, MHD_OPTION_END)
               : NULL;
    const uint16_t port = bound_port(listen_fd);
    s->port = port != 0 ? port : s->cfg->port;
    rc = s->probes ? nq_listener_start(listen_fd, s->mhd, s->probes, s->guard, s->cfg->conn_limit, &s->listener)
                   : NQ_E_THREAD;
    if (rc != NQ_OK) (void)close(listen_fd);
    return rc;
}

/* ---- the app's hooks ------------------------------------------------------------------------- */

/* /metrics: the figures of the layers this server owns, sampled now, rendered by the ops bundle. The
 * pool and guard are set before the daemon serves, so no request sees them unset. */
static nq_err render_metrics(void *ctx, bool ready, char **text, size_t *len)
{
    const nq_server *s = ctx;
    nq_cache_stats cache;
    nq_pool_stats ps;
    nq_guard_stats gs;
    nq_cache_stats_get(s->cache, &cache);
    nq_pool_stats_get(s->pool, &ps);
    nq_pool_stats ws;
    nq_pool_stats_get(s->waits, &ws);
    const nq_metrics_waits waits = {.running = ws.running, .queued = ws.queued, .rejected = ws.rejected};
    nq_guard_stats_get(s->guard, &gs);
    const nq_metrics_pool pool = {.running = ps.running,
                                  .queued = ps.queued,
                                  .waiting = ps.waiting,
                                  .started = ps.started,
                                  .finished = ps.finished,
                                  .cancelled = ps.cancelled,
                                  .shared = ps.shared,
                                  .rejected = ps.rejected,
                                  .deadlines = ps.deadlines};
    const nq_metrics_conns conns = {.open = gs.open,
                                    .accepted = gs.accepted,
                                    .refused = gs.refused,
                                    .head_timeouts = gs.head_timeouts,
                                    .body_bytes = nq_body_budget_used(&s->budget),
                                    .body_cap = s->budget.cap};
    const nq_metrics_state st = {.ready = ready, .cache = &cache, .pool = &pool, .waits = &waits, .conns = &conns};
    return nq_ops_render_metrics(s->ops, &st, text, len);
}

static void solver_done(void *ctx, const char *route, const char *method, double seconds)
{
    const nq_server *s = ctx;
    nq_ops_solver_done(s->ops, route, method, seconds);
}

/* The app's events (long counts, the store) as log lines, with the fields that apply. */
static void app_event(void *ctx, const nq_event *e)
{
    const nq_server *s = ctx;
    if (!s->ops) return;
    nq_log_field f[4];
    size_t k = 0;
    if (e->n > 0) f[k++] = NQ_LOG_INT("n", e->n);
    if (e->progress >= 0) f[k++] = NQ_LOG_REAL("progress", e->progress);
    if (e->seconds >= 0) f[k++] = NQ_LOG_REAL("seconds", e->seconds);
    if (e->error) f[k++] = NQ_LOG_STR("error", e->error);
    static const nq_log_level levels[] = {
        [NQ_EVENT_DEBUG] = NQ_LOG_DEBUG,
        [NQ_EVENT_INFO] = NQ_LOG_INFO,
        [NQ_EVENT_WARN] = NQ_LOG_WARN,
        [NQ_EVENT_ERROR] = NQ_LOG_ERROR,
    };
    const nq_log_level level = (unsigned)e->level <= NQ_EVENT_ERROR ? levels[e->level] : NQ_LOG_ERROR;
    nq_accesslog_event(nq_ops_log(s->ops), level, e->msg, f, k);
}

nq_err nq_server_create(const nq_config *cfg, const nq_ops *ops, nq_store *store, nq_server **out)
{
    if (!cfg || !out) return NQ_E_ARG;
    nq_server *s = calloc(1, sizeof *s);
    if (!s) return NQ_E_NOMEM;
    s->cfg = cfg;
    nq_body_budget_init(&s->budget, cfg->max_bodies_bytes);
    s->ops = ops;
    /* libmicrohttpd may delimit the bodies of body routes only where it reports its faults (a build
     * without messages never calls mhd_log): elsewhere every body is framed by the server, and one
     * that a route would read is refused (begin_body). */
    s->bodies = MHD_is_feature_supported(MHD_FEATURE_MESSAGES) == MHD_YES;
    atomic_init(&s->in_flight, 0);
    atomic_init(&s->draining, false);
    const nq_app_hooks hooks = {s, render_metrics, solver_done};
    const nq_event_sink events = {app_event, s};
    nq_err rc = nq_cache_create(cfg->cache_bytes, &s->cache);
    if (rc == NQ_OK) rc = nq_service_create(cfg, s->cache, store, &hooks, &events, &s->svc);
    if (rc == NQ_OK) s->app = nq_service_app(s->svc);
    if (rc == NQ_OK) {
        const nq_pool_config pc = {cfg->solver_workers, cfg->queue_len, cfg->deadline_ms, cfg->budget_ms};
        rc = nq_pool_create(&pc, &s->pool);
    }
    if (rc == NQ_OK) {
        /* A wait nobody waits for any more (its client left) ends at once: the count goes on in its
         * registry either way. */
        const nq_pool_config wc = {cfg->long_count_waiters, cfg->queue_len, cfg->deadline_ms, 1};
        rc = nq_pool_create(&wc, &s->waits);
    }
    if (rc == NQ_OK) rc = nq_watch_create(&s->watch);
    if (rc == NQ_OK) rc = start_daemon(s);
    if (rc != NQ_OK) {
        nq_server_destroy(s);
        return rc;
    }
    *out = s;
    return NQ_OK;
}

uint16_t nq_server_port(const nq_server *s)
{
    return s->port;
}

void nq_server_drain(nq_server *s)
{
    if (atomic_exchange(&s->draining, true)) return;
    nq_app_set_draining(s->app, true);
    /* The kernel refuses new connections from here; open ones go on being served. */
    nq_listener_stop(s->listener);
}

bool nq_server_idle(const nq_server *s)
{
    return atomic_load(&s->in_flight) == 0;
}

void nq_server_destroy(nq_server *s)
{
    if (!s) return;
    nq_listener_destroy(s->listener); /* no connection arrives after this */
    /* Every suspended connection must be resumed first: libmicrohttpd refuses to stop with one. */
    nq_pool_abort(s->pool);
    nq_pool_abort(s->waits);
    nq_watch_stop(s->watch); /* a hang-up being handled resumes its connection before this returns */
    if (s->probes) MHD_stop_daemon(s->probes);
    if (s->mhd) MHD_stop_daemon(s->mhd);
    nq_pool_destroy(s->pool); /* joins the workers before the app and cache they use go away */
    nq_pool_destroy(s->waits);
    nq_watch_destroy(s->watch); /* after the daemon: its completions remove their registrations */
    nq_guard_destroy(s->guard);
    nq_service_destroy(s->svc);
    nq_cache_destroy(s->cache);
    free(s);
}
