/* fuzz_app.c - libFuzzer harness for whole request handling: in-process (src/server/core/app.h, over routes/service.h), or
 * as raw bytes on a real server's socket (raw mode, below).
 *
 * Input, app mode: a request written as text, the way a person would type it:
 *     METHOD SP TARGET LF          e.g. "GET /solve?n=6&format=columns\n"
 *     Name: value LF               any number of header lines
 *     LF BODY                      optional: an empty line, then the body, every byte to the end
 * TARGET is split at the first '?' into the raw path and the raw query (no '?': no query), exactly as
 * server.c hands them to the app. The query and the body are passed as exactly-sized, unterminated
 * buffers, so a read past query_len or body_len is an ASan report. Header lookup is case-insensitive,
 * first match wins, like libmicrohttpd's. Bodies are capped at BODY_LIMIT (--max-body-bytes) in both
 * modes, so the 413 paths are as easy to reach as the others.
 *
 * The app is wired as server.c wires it: a real cache, and the operations bundle (/healthz, /readyz,
 * /metrics), whose access log and metrics see every request record (the log goes to /dev/null).
 * Limits are low enough that every input answers in milliseconds (the slowest: n = MAX_N_SOLVE, all
 * solutions, rendered and gzipped).
 *
 * Oracles, beyond "no crash, no leak, no undefined behaviour":
 *  - no input gets a 5xx: the server's own faults are the only 5xx it may send, and a request is not
 *    one (a 503 for a saturated pool cannot happen here: there is no pool);
 *  - every header name is a token and every value is printable, so nothing a client sends can split
 *    a header (X-Request-Id echo, problem params);
 *  - 204 and 304 responses carry no body, and only a HEAD request gets a response flagged HEAD;
 *  - every JSON body (problem or answer; gunzipped first when gzip-coded, which must then be one
 *    whole gzip member) parses, and a problem's "status" member equals the status line.
 *
 * Raw mode: an input whose first line is "#raw" sends the rest, byte for byte, to a real nqueensd
 * server (nq_server_create on a kernel-chosen loopback port, started on the first such input and
 * kept for the run), half-closes, and reads until the server closes. Oracles:
 *  - the server closes the connection (its head and idle deadlines are 1 s here): a connection still
 *    silent and open RAW_HANG_MS later was left hanging;
 *  - every byte it sent belongs to a whole, conforming HTTP/1.1 response (tests/http/wire.h: status
 *    line, header syntax, framing exactly as stated); which requests were HEAD is not known here, so
 *    a response is read with a body unless only its bodiless reading leaves the next bytes at a
 *    status line or at the end;
 *  - no response is a 500: nothing a client sends is the server's fault.
 */
#define _POSIX_C_SOURCE 200809L /* dup2, open */
#include "fuzz.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <errno.h>
#include <sys/socket.h>
#include <time.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#define ZLIB_CONST /* next_in is then const, as it should be */
#include <zlib.h>

#include "core/app.h"
#include "routes/service.h"
#include "cache/cache.h"
#include "base/config.h"
#include "http/server.h"
#include "ops/ops.h"
#include "wire.h"

#define MAX_HEADERS 16         /* header lines read from one input; the rest are ignored */
#define MAX_N_SOLVE 9          /* 352 solutions: every /solve answers in a few milliseconds */
#define MAX_N_COUNT 11         /* 2680 solutions: every /count answers in a few milliseconds */
#define BODY_CAP (1u << 20)    /* largest body the harness reads (answers here stay < 64 KiB) */
#define CACHE_BYTES (4u << 20) /* small, so eviction happens while fuzzing */
#define RAW_MARK "#raw\n"      /* first line of a raw-mode input */
#define RAW_HANG_MS 5000       /* silence, well past the server's 1 s deadlines, that is a hang */
#define RAW_SETTLE_MS 5        /* pause between the last byte and the half-close (raw_exchange) */
#define BODY_LIMIT 1024        /* --max-body-bytes of both modes: passing it fits -max_len */

typedef struct header {
    const char *name;  /* points into the request copy, NUL-terminated */
    const char *value; /* likewise, leading blanks skipped */
} header;

typedef struct fuzz_request {
    char *text;                  /* NUL-terminated copy of the input, cut into strings in place */
    char *query;                 /* exactly-sized copy of the raw query (not terminated), or NULL */
    char *body;                  /* exactly-sized copy of the body (not terminated), or NULL */
    const char *query_text;      /* the same query, NUL-terminated inside text (for the record) */
    size_t nheaders;             /* headers parsed */
    header headers[MAX_HEADERS]; /* in input order */
} fuzz_request;

/* One app for the whole run, as in the server: its cache state carries over between inputs. A
 * mutable global, which the project otherwise avoids: libFuzzer's entry points take no context. */
static struct {
    nq_config cfg;
    nq_cache *cache;
    nq_service *svc;
    nq_app *app;
    nq_ops *ops;
    char *body;        /* BODY_CAP bytes: the body as the app produced it (allocated once: speed) */
    char *plain;       /* BODY_CAP bytes: the body gunzipped */
    nq_config raw_cfg; /* raw mode: the real server's configuration */
    nq_ops *raw_ops;   /* its operations bundle (probes, /metrics, access log) */
    nq_server *raw;    /* the server, started by the first raw input */
    unsigned raw_sent; /* raw inputs sent so far: picks each one's source address */
} g;

static void teardown(void)
{
    nq_server_destroy(g.raw);
    nq_ops_destroy(g.raw_ops);
    nq_service_destroy(g.svc);
    nq_ops_destroy(g.ops);
    nq_cache_destroy(g.cache);
    free(g.body);
    free(g.plain);
}

static nq_err render_metrics(void *ops, bool ready, char **text, size_t *len)
{
    const nq_metrics_state st = {.ready = ready};
    return nq_ops_render_metrics(ops, &st, text, len);
}

static void solver_done(void *ops, const char *route, const char *method, double seconds)
{
    nq_ops_solver_done(ops, route, method, seconds);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    nq_config_defaults(&g.cfg);
    g.cfg.max_n_solve = MAX_N_SOLVE;
    g.cfg.max_n_count = MAX_N_COUNT;
    g.cfg.max_solutions = 200; /* /solve?n=9 without limit is then a 422 that suggests paging */
    g.cfg.count_threads = 1;   /* no thread start per input */
    g.cfg.max_n_complete = 12; /* completion, traces and k queens small enough for milliseconds */
    g.cfg.max_n_complete_count = 10;
    g.cfg.max_n_trace = 8;
    g.cfg.max_trace_limit = 2000;
    g.cfg.max_n_count_k = 8;
    g.cfg.max_body_bytes = BODY_LIMIT;
    g.cfg.cache_bytes = CACHE_BYTES;
    g.body = malloc(BODY_CAP);
    g.plain = malloc(BODY_CAP);
    NQ_FUZZ_CHECK(g.body && g.plain);
    NQ_FUZZ_CHECK(nq_cache_create(g.cfg.cache_bytes, &g.cache) == NQ_OK);
    NQ_FUZZ_CHECK(nq_ops_create(&g.cfg, &g.ops) == NQ_OK);
    /* No pool and no connections in-process: /metrics renders the ops bundle's own figures. */
    const nq_app_hooks hooks = {g.ops, render_metrics, solver_done};
    NQ_FUZZ_CHECK(nq_service_create(&g.cfg, g.cache, NULL, &hooks, NULL, &g.svc) == NQ_OK);
    g.app = nq_service_app(g.svc);
    /* The access log writes one line per request to fd 1: keep it off the fuzzer's console. */
    const int devnull = open("/dev/null", O_WRONLY);
    NQ_FUZZ_CHECK(devnull >= 0 && dup2(devnull, STDOUT_FILENO) == STDOUT_FILENO && close(devnull) == 0);
    NQ_FUZZ_CHECK(atexit(teardown) == 0);
    return 0;
}

static const char *lookup(void *ctx, const char *name)
{
    const fuzz_request *r = ctx;
    for (size_t i = 0; i < r->nheaders; i++)
        if (strcasecmp(r->headers[i].name, name) == 0) return r->headers[i].value;
    return NULL;
}

/* Cut r->text (size bytes of input) into the request line, header lines and body; fill req. Returns
 * false for an input with no request line (nothing to send). */
static bool parse_input(fuzz_request *r, size_t size, nq_request *req)
{
    char *line = r->text;
    char *next = strchr(line, '\n');
    if (next) *next++ = '\0';
    char *target = strchr(line, ' ');
    if (!target || target == line) return false;
    *target++ = '\0';
    req->method = line;
    req->path = target;
    char *q = strchr(target, '?');
    if (q) {
        *q++ = '\0';
        r->query_text = q;
        req->query_len = strlen(q);
        r->query = malloc(req->query_len ? req->query_len : 1);
        NQ_FUZZ_CHECK(r->query != NULL);
        memcpy(r->query, q, req->query_len);
        req->query = r->query;
    }
    while (next && r->nheaders < MAX_HEADERS) {
        line = next;
        if (*line == '\n') { /* the empty line: the rest is the body, NULs included */
            req->body_len = size - (size_t)(line + 1 - r->text);
            r->body = malloc(req->body_len ? req->body_len : 1);
            NQ_FUZZ_CHECK(r->body != NULL);
            memcpy(r->body, line + 1, req->body_len);
            req->body = r->body;
            break;
        }
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        char *colon = strchr(line, ':');
        if (!colon || colon == line) continue;
        *colon++ = '\0';
        while (*colon == ' ' || *colon == '\t') colon++;
        r->headers[r->nheaders++] = (header){line, colon};
    }
    req->header = lookup;
    req->header_ctx = r;
    return true;
}

/* RFC 9110 token characters, the only ones a field name may have. */
static bool is_token(const char *s)
{
    static const char tchar[] = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    return *s != '\0' && strspn(s, tchar) == strlen(s);
}

static void check_headers(const nq_response *resp)
{
    for (size_t i = 0; i < resp->nheaders; i++) {
        NQ_FUZZ_CHECK(is_token(resp->headers[i].name));
        for (const char *c = resp->headers[i].value; *c; c++) NQ_FUZZ_CHECK(*c >= 0x20 && *c < 0x7f);
    }
}

/* gunzip len bytes of in into g.plain; returns the decompressed length. */
static size_t gunzip(const char *in, size_t len)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    NQ_FUZZ_CHECK(inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK); /* 16: expect the gzip wrapper */
    zs.next_in = (const Bytef *)in;
    zs.avail_in = (uInt)len;
    zs.next_out = (Bytef *)g.plain;
    zs.avail_out = BODY_CAP;
    const int rc = inflate(&zs, Z_FINISH);
    const size_t out = zs.total_out;
    inflateEnd(&zs);
    NQ_FUZZ_CHECK(rc == Z_STREAM_END && zs.avail_in == 0); /* one whole gzip member, nothing after */
    return out;
}

/* Every line of an NDJSON body, or the whole of a JSON body, must parse; a problem's status must
 * match the response's. */
static void check_json(const nq_response *resp, const char *body, size_t len, bool ndjson)
{
    const char *p = body, *const end = body + len;
    while (p < end) {
        const char *stop = ndjson ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        if (!stop) stop = end;
        cJSON *doc = cJSON_ParseWithLength(p, (size_t)(stop - p));
        NQ_FUZZ_CHECK(doc != NULL);
        if (resp->status >= 400) {
            const cJSON *status = cJSON_GetObjectItemCaseSensitive(doc, "status");
            NQ_FUZZ_CHECK(cJSON_IsNumber(status) && status->valuedouble == (double)resp->status);
        }
        cJSON_Delete(doc);
        p = stop + 1;
    }
}

static void check_body(nq_response *resp)
{
    size_t len = 0;
    NQ_FUZZ_CHECK(nq_response_read_all(resp, g.body, BODY_CAP, &len) == NQ_OK);
    if (resp->status == 204 || resp->status == 304) NQ_FUZZ_CHECK(len == 0);
    const char *type = nq_response_header(resp, "Content-Type");
    const char *coding = nq_response_header(resp, "Content-Encoding");
    const char *body = g.body;
    if (len > 0 && coding) {
        NQ_FUZZ_CHECK(strcmp(coding, "gzip") == 0);
        len = gunzip(g.body, len);
        body = g.plain;
    }
    if (len > 0 && type && strstr(type, "json")) check_json(resp, body, len, strstr(type, "ndjson") != NULL);
}

/* ---- raw mode ------------------------------------------------------------------------------------ */

/* The real server, as main() wires it, with deadlines short enough that a head the input leaves
 * unfinished is cut within a second, and the app mode's low limits. */
static void raw_start(void)
{
    nq_config *c = &g.raw_cfg;
    nq_config_defaults(c);
    memcpy(c->bind_addr, "127.0.0.1", sizeof "127.0.0.1");
    c->port = 0;
    c->http_threads = 1;
    c->solver_workers = 1;
    c->count_threads = 1;
    c->max_n_solve = MAX_N_SOLVE;
    c->max_n_count = MAX_N_COUNT;
    c->max_solutions = 200;
    c->cache_bytes = CACHE_BYTES;
    c->head_timeout_s = 1;
    c->idle_timeout_s = 1;
    c->max_body_bytes = BODY_LIMIT;
    c->conn_limit = 64;
    NQ_FUZZ_CHECK(nq_ops_create(c, &g.raw_ops) == NQ_OK);
    NQ_FUZZ_CHECK(nq_server_create(c, g.raw_ops, NULL, &g.raw) == NQ_OK);
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait until fd is readable; false after RAW_HANG_MS of silence. libFuzzer's timers interrupt
 * poll with signals: those are waited out, not taken for silence (so are interrupted connect, send
 * and recv calls). */
static bool readable(int fd)
{
    const long long deadline = now_ms() + RAW_HANG_MS;
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        const long long left = deadline - now_ms();
        if (left <= 0) return false;
        const int ready = poll(&p, 1, (int)left);
        if (ready > 0) return true;
        if (ready == 0 || errno != EINTR) return false;
    }
}

/* Connect fd to a. A connect that a signal interrupts goes on in the background: wait for it. */
static bool connect_to(int fd, const struct sockaddr_in *a)
{
    if (connect(fd, (const struct sockaddr *)a, sizeof *a) == 0) return true;
    if (errno != EINTR) return false;
    struct pollfd p = {fd, POLLOUT, 0};
    while (poll(&p, 1, RAW_HANG_MS) < 0)
        if (errno != EINTR) return false;
    int err = 0;
    socklen_t elen = sizeof err;
    return getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == 0 && err == 0 && (p.revents & POLLOUT);
}

/* Send len bytes to the server, half-close, and read until it closes into *out (malloc'd). */
static size_t raw_exchange(const uint8_t *data, size_t len, char **out)
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    NQ_FUZZ_CHECK(fd >= 0);
    /* The server closes first, so each exchange leaves a TIME_WAIT on its side for a minute: from one
     * source address the ephemeral ports would run out within seconds at fuzzing speed. Each input
     * comes from the next of 62,500 loopback addresses (127.1.1.1 .. 127.1.250.250) instead. */
    const unsigned n = g.raw_sent++ % (250u * 250u);
    struct sockaddr_in src = {.sin_family = AF_INET, .sin_port = 0};
    src.sin_addr.s_addr = htonl(0x7f010000u | ((n / 250u + 1u) << 8) | (n % 250u + 1u));
    NQ_FUZZ_CHECK(bind(fd, (const struct sockaddr *)&src, sizeof src) == 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(nq_server_port(g.raw))};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    NQ_FUZZ_CHECK(connect_to(fd, &a));
    for (size_t sent = 0; sent < len;) {
        const ssize_t w = send(fd, data + sent, len - sent, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break; /* the server closed early (a refused head): read what it said */
        sent += (size_t)w;
    }
    /* Half-close a moment later, so the end of the stream reaches the server as an event of its own:
     * arriving with the last bytes, libmicrohttpd 0.9.75 misses it, and an unfinished head then
     * waits out the head deadline (1 s) instead of closing at once. */
    struct pollfd settle = {fd, POLLIN, 0};
    (void)poll(&settle, 1, RAW_SETTLE_MS);
    (void)shutdown(fd, SHUT_WR);
    size_t used = 0, cap = 4096;
    char *buf = malloc(cap + 1);
    NQ_FUZZ_CHECK(buf != NULL);
    for (;;) {
        NQ_FUZZ_CHECK(readable(fd)); /* else the server left the connection hanging */
        if (used == cap) {
            NQ_FUZZ_CHECK(cap < BODY_CAP);
            cap *= 2;
            char *const bigger = realloc(buf, cap + 1);
            NQ_FUZZ_CHECK(bigger != NULL);
            buf = bigger;
        }
        const ssize_t r = recv(fd, buf + used, cap - used, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break; /* the close (or a reset: the stream ends either way) */
        used += (size_t)r;
    }
    close(fd);
    buf[used] = '\0';
    *out = buf;
    return used;
}

/* Whether a response read as parsed ends where the next one or the stream does. */
static bool at_boundary(const char *buf, size_t len, size_t pos)
{
    return pos == len || (len - pos >= 9 && memcmp(buf + pos, "HTTP/1.1 ", 9) == 0);
}

/* Every byte in buf must belong to a conforming response; none may be a 500. */
static void check_stream(const char *buf, size_t len)
{
    for (size_t pos = 0; pos < len;) {
        nq_wire_response r;
        size_t used = 0;
        char why[160];
        nq_wire_rc rc = nq_wire_parse(buf + pos, len - pos, false, true, &r, &used, why, sizeof why);
        bool conforming = rc == NQ_WIRE_OK && at_boundary(buf, len, pos + used);
        if (!conforming) {
            if (rc == NQ_WIRE_OK) nq_wire_response_free(&r);
            rc = nq_wire_parse(buf + pos, len - pos, true, true, &r, &used, why, sizeof why); /* a HEAD? */
            conforming = rc == NQ_WIRE_OK && at_boundary(buf, len, pos + used);
            if (!conforming) fprintf(stderr, "non-conforming response at byte %zu: %s\n%.400s\n", pos, why, buf + pos);
        }
        NQ_FUZZ_CHECK(conforming);
        NQ_FUZZ_CHECK(r.status != 500);
        nq_wire_response_free(&r);
        pos += used;
    }
}

static void raw_input(const uint8_t *data, size_t size)
{
    if (!g.raw) raw_start();
    char *got = NULL;
    const size_t len = raw_exchange(data, size, &got);
    check_stream(got, len);
    free(got);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= sizeof RAW_MARK - 1 && memcmp(data, RAW_MARK, sizeof RAW_MARK - 1) == 0) {
        raw_input(data + sizeof RAW_MARK - 1, size - (sizeof RAW_MARK - 1));
        return 0;
    }
    fuzz_request r;
    memset(&r, 0, sizeof r);
    r.text = malloc(size + 1);
    NQ_FUZZ_CHECK(r.text != NULL);
    memcpy(r.text, data, size);
    r.text[size] = '\0'; /* an embedded NUL ends the input early, as it would a C string */
    nq_request req = {0};
    if (parse_input(&r, size, &req)) {
        nq_response resp;
        nq_response_init(&resp);
        nq_app_serve(g.app, &req, &resp);
        NQ_FUZZ_CHECK(resp.status >= 200 && resp.status < 500);
        check_headers(&resp);
        NQ_FUZZ_CHECK(resp.head == (strcmp(req.method, "HEAD") == 0));
        check_body(&resp);
        /* What server.c reports when the request completes (the record fields it can know here). */
        const nq_request_record rec = {
            .method = req.method,
            .path = req.path,
            .query = r.query_text,
            .route = resp.route,
            .request_id = resp.request_id[0] ? resp.request_id : NULL,
            .remote_addr = "127.0.0.1",
            .status = resp.status,
            .bytes = 0,
            .duration_s = 0.001,
            .solver_s = resp.solver_seconds,
            .cache = resp.cache,
            .completed = true,
        };
        nq_ops_request_done(g.ops, &rec);
        nq_response_clear(&resp);
    }
    free(r.query);
    free(r.body);
    free(r.text);
    return 0;
}
