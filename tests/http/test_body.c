/* test_body.c - request bodies against the real nqueensd: POST /check and POST /complete over libcurl,
 * and, where libcurl cannot misbehave enough, raw sockets whose bytes the strict response parser
 * (wire.h) reads.
 *
 * Covered: a body of exactly --max-body-bytes is read, and one byte more is refused before the body is
 * sent (raw: the head alone gets the 413; libcurl with Expect: 100-continue sends no body); a 1 GB
 * Content-Length is a 413 at once; an endless chunked body is a 413 when it passes the cap, and the
 * server stops reading it; a body trickled a byte a second is cut at the head deadline, and while such
 * bodies are pending /healthz on another connection is answered; every malformed body gets its
 * problem (status, type, param, detail); a POST answers with the GET's bytes and ETag, gzip included,
 * and for a board too large for any URL; the connection is kept after a good POST.
 *
 * The server runs with the default cap (1 MiB) and --head-timeout-s 2. Timeouts are hang guards only
 * (HANG_MS): the assertions are about outcomes, never about how fast a loaded machine is.
 */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "check_json.h"
#include "check_run.h"
#include "harness.h"
#include "wire.h"

#define CAP ((size_t)1 << 20)          /* the server's --max-body-bytes: the default */
#define HANG_MS 20000                  /* silence that means the server left a connection hanging */
#define CHUNKED_MAX ((size_t)64 << 20) /* an endless body is given up on after this much */
#define H "Host: t\r\n"
#define JSON "Content-Type: application/json\r\n"

static const char *const server_args[] = {"--head-timeout-s", "2", "--grace-s", "600", NULL};
static nq_test_server server;
static const char *const json[] = {"Content-Type: application/json", NULL};

static cJSON *parse(const char *text)
{
    cJSON *j = cJSON_Parse(text);
    ck_assert_msg(j != NULL, "not JSON: %.200s", text);
    return j;
}

/* The problem of r is of type slug, for path; its detail holds phrase (NULL: any). */
static void check_problem(const char *body, unsigned status, const char *slug, const char *path, const char *phrase)
{
    cJSON *j = parse(body);
    char type[64];
    snprintf(type, sizeof type, "/problems/%s", slug);
    ck_assert_str_eq(nq_check_json_str(j, "type"), type);
    ck_assert_int_eq((int)nq_check_json_num(j, "status"), (int)status);
    ck_assert_str_eq(nq_check_json_str(j, "instance"), path);
    if (phrase) ck_assert_msg(strstr(nq_check_json_str(j, "detail"), phrase), "detail: %s", body);
    cJSON_Delete(j);
}

/* Whether one line of the server's log holds all three phrases. */
static bool log_has(const char *a, const char *b, const char *c)
{
    char *log = nq_harness_log(&server);
    bool found = false;
    for (char *line = log; line && *line && !found;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        found = strstr(line, a) && strstr(line, b) && strstr(line, c);
        line = nl ? nl + 1 : NULL;
    }
    free(log);
    return found;
}

/* ---- raw sockets --------------------------------------------------------------------------------- */

static int connect_raw(void)
{
    const int fd = nq_raw_connect(server.port);
    ck_assert_int_ge(fd, 0);
    /* A server that stopped reading without closing would block a send for ever: make it an error. */
    const struct timeval tv = {HANG_MS / 1000, 0};
    ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv), 0);
    return fd;
}

static void send_all(int fd, const char *p, size_t len)
{
    for (size_t sent = 0; sent < len;) {
        const ssize_t w = send(fd, p + sent, len - sent, MSG_NOSIGNAL);
        if (w <= 0) return; /* the server may have answered and closed: read what it said */
        sent += (size_t)w;
    }
}

typedef struct bytes {
    char *p;    /* what the server sent (malloc'd, NUL-terminated) */
    size_t len; /* its length */
    bool eof;   /* the server closed (else the hang guard fired) */
} bytes;

/* Read until the server closes, or until one whole response is in when one_response. */
static bytes read_from(int fd, bool one_response)
{
    bytes b = {malloc(4097), 0, false};
    size_t cap = 4096;
    ck_assert_ptr_nonnull(b.p);
    for (;;) {
        if (one_response && b.len > 0) {
            nq_wire_response r;
            size_t used = 0;
            if (nq_wire_parse(b.p, b.len, false, false, &r, &used, NULL, 0) == NQ_WIRE_OK) {
                nq_wire_response_free(&r);
                break;
            }
        }
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, HANG_MS) <= 0) break;
        if (b.len == cap) {
            cap *= 2;
            char *bigger = realloc(b.p, cap + 1);
            ck_assert_ptr_nonnull(bigger);
            b.p = bigger;
        }
        const ssize_t r = recv(fd, b.p + b.len, cap - b.len, 0);
        if (r <= 0) {
            b.eof = true; /* the close, or a reset: the stream ends either way */
            break;
        }
        b.len += (size_t)r;
        b.p[b.len] = '\0';
    }
    b.p[b.len] = '\0';
    return b;
}

/* The one response b holds, which must be all of it; the server must have closed after it. */
static nq_wire_response only_response(const bytes *b)
{
    nq_wire_response r;
    size_t used = 0;
    char why[160];
    const nq_wire_rc rc = nq_wire_parse(b->p, b->len, false, b->eof, &r, &used, why, sizeof why);
    ck_assert_msg(rc == NQ_WIRE_OK, "%s: %.300s", why, b->p);
    ck_assert_msg(used == b->len, "bytes after the response: %.200s", b->p + used);
    ck_assert_msg(b->eof, "the server left the connection open");
    return r;
}

/* ---- the cap ----------------------------------------------------------------------------------- */

/* A body of exactly the cap (a placement padded with JSON whitespace) is read and answered as the GET. */
START_TEST(test_at_cap)
{
    char *body = malloc(CAP);
    ck_assert_ptr_nonnull(body);
    static const char placement[] = "{\"n\":4,\"queens\":[[2,3],[0,1]]}";
    memset(body, ' ', CAP);
    memcpy(body, placement, sizeof placement - 1);
    nq_http_response p, g;
    ck_assert(nq_http_send(&server, "POST", "/check", json, body, CAP, &p));
    free(body);
    ck_assert_int_eq(p.status, 200);
    ck_assert(nq_http_get(&server, "/check?n=4&columns=1,-,3,-", &g));
    ck_assert_str_eq(p.body, g.body);
    ck_assert_str_eq(nq_http_header_get(&p, "ETag"), nq_http_header_get(&g, "ETag"));
    nq_http_response_free(&p);
    nq_http_response_free(&g);
}
END_TEST

/* The bodies being read on all connections share --max-bodies-bytes: with two 64 KiB bodies held one
 * byte short of their end, a third body is refused 503 (Retry-After, connection closed) while the two
 * go on and are answered; once they are, the bytes are back and a POST passes again. */
START_TEST(test_bodies_share_a_budget)
{
    enum { BODY = 64 * 1024 };
    static const char *const args[] = {
        "--max-body-bytes", "64K", "--max-bodies-bytes", "128K", "--head-timeout-s", "120", NULL};
    static const char placement[] = "{\"n\":4,\"columns\":[1,3,0,2]}";
    nq_test_server s;
    ck_assert(nq_harness_start(&s, args, NULL));
    char *body = malloc(BODY);
    ck_assert_ptr_nonnull(body);
    memset(body, ' ', BODY);
    memcpy(body, placement, sizeof placement - 1);
    char head[256];
    snprintf(head, sizeof head, "POST /check HTTP/1.1\r\n" H JSON "Content-Length: %d\r\n\r\n", BODY);
    int held[2];
    for (int i = 0; i < 2; i++) {
        held[i] = nq_raw_connect(s.port);
        ck_assert_int_ge(held[i], 0);
        send_all(held[i], head, strlen(head));
        send_all(held[i], body, BODY - 1);
    }
    double used = nq_harness_await_metric(&s, "nqueensd_request_body_bytes", 2.0 * BODY, HANG_MS / 1000);
    ck_assert_msg(used == 2.0 * BODY, "bodies held: %.0f bytes", used);
    ck_assert(nq_harness_metric(&s, "nqueensd_request_body_max_bytes") == 2.0 * BODY);

    char small[256];
    snprintf(small, sizeof small, "POST /check HTTP/1.1\r\n" H JSON "Content-Length: %zu\r\n\r\n%s",
             sizeof placement - 1, placement);
    int fd = nq_raw_connect(s.port);
    ck_assert_int_ge(fd, 0);
    send_all(fd, small, strlen(small));
    bytes b = read_from(fd, false);
    close(fd);
    nq_wire_response r = only_response(&b);
    ck_assert_uint_eq(r.status, 503);
    ck_assert(r.closes);
    char *retry = nq_wire_header_dup(&r, "Retry-After");
    ck_assert_str_eq(retry, "1");
    free(retry);
    check_problem(r.body, 503, "overloaded", "/check", "--max-bodies-bytes");
    nq_wire_response_free(&r);
    free(b.p);

    for (int i = 0; i < 2; i++) { /* the held bodies end and are answered as usual */
        send_all(held[i], " ", 1);
        b = read_from(held[i], true);
        close(held[i]);
        size_t used_bytes = 0;
        ck_assert_int_eq(nq_wire_parse(b.p, b.len, false, false, &r, &used_bytes, NULL, 0), NQ_WIRE_OK);
        ck_assert_uint_eq(r.status, 200);
        ck_assert_msg(strstr(r.body, "\"valid\":true") != NULL, "%s", r.body);
        nq_wire_response_free(&r);
        free(b.p);
    }
    used = nq_harness_await_metric(&s, "nqueensd_request_body_bytes", 0, HANG_MS / 1000);
    ck_assert_msg(used == 0, "bodies held after their answers: %.0f bytes", used);
    nq_http_response ok;
    ck_assert(nq_http_send(&s, "POST", "/check", json, body, BODY, &ok));
    ck_assert_int_eq(ok.status, 200);
    nq_http_response_free(&ok);
    free(body);
    ck_assert_int_eq(nq_harness_stop(&s, SIGTERM, 30), 0);
}
END_TEST

/* One byte over the cap, or a gigabyte: the 413 comes for the head alone (no byte of the body is sent,
 * so the server cannot have waited for it), gives the cap in 'limit', and the connection closes. */
START_TEST(test_over_cap_unread)
{
    static const char *const lengths[] = {"1048577", "1000000000"};
    for (size_t i = 0; i < 2; i++) {
        char req[256];
        snprintf(req, sizeof req, "POST /check HTTP/1.1\r\n" H JSON "Content-Length: %s\r\n\r\n", lengths[i]);
        const int fd = connect_raw();
        send_all(fd, req, strlen(req));
        bytes b = read_from(fd, false);
        close(fd);
        nq_wire_response r = only_response(&b);
        ck_assert_uint_eq(r.status, 413);
        ck_assert(r.closes);
        check_problem(r.body, 413, "content-too-large", "/check", lengths[i]);
        cJSON *j = parse(r.body);
        ck_assert_uint_eq((size_t)nq_check_json_num(j, "limit"), CAP);
        cJSON_Delete(j);
        nq_wire_response_free(&r);
        free(b.p);
    }
}
END_TEST

/* A client that waits for 100 Continue (libcurl, told to) gets the 413 instead, and sends nothing. */
START_TEST(test_over_cap_expect)
{
    char *body = calloc(1, CAP + 1);
    ck_assert_ptr_nonnull(body);
    static const char *const h[] = {"Content-Type: application/json", "Expect: 100-continue", NULL};
    static const char *const paths[] = {"/check", "/complete"};
    for (size_t i = 0; i < 2; i++) {
        nq_http_response r;
        ck_assert(nq_http_send(&server, "POST", paths[i], h, body, CAP + 1, &r));
        ck_assert_int_eq(r.status, 413);
        check_problem(r.body, 413, "content-too-large", paths[i], "1048577");
        nq_http_response_free(&r);
    }
    free(body);
}
END_TEST

/* A chunked body that never ends: the server reads up to the cap, answers 413 as it passes it, and
 * closes; the client's sending then fails long before CHUNKED_MAX. The refusal is logged as a 413. */
START_TEST(test_endless_chunked)
{
    static const char head[] = "POST /check HTTP/1.1\r\n" H JSON "Transfer-Encoding: chunked\r\n\r\n";
    char chunk[4096 + 16];
    const int k = snprintf(chunk, sizeof chunk, "1000\r\n");
    memset(chunk + k, ' ', 4096);
    memcpy(chunk + k + 4096, "\r\n", 2);
    const size_t chunk_len = (size_t)k + 4096 + 2;
    const int fd = connect_raw();
    send_all(fd, head, sizeof head - 1);
    size_t sent = 0;
    while (sent < CHUNKED_MAX) {
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, 0) > 0) break; /* the answer (or the close) is in */
        const ssize_t w = send(fd, chunk, chunk_len, MSG_NOSIGNAL);
        if (w <= 0) break;
        sent += (size_t)w;
    }
    bytes b = read_from(fd, false);
    close(fd);
    ck_assert_uint_lt(sent, CHUNKED_MAX);
    ck_assert_uint_ge(sent, CAP);
    nq_wire_response r = only_response(&b);
    ck_assert_uint_eq(r.status, 413);
    ck_assert(r.closes);
    check_problem(r.body, 413, "content-too-large", "/check", "chunked");
    nq_wire_response_free(&r);
    free(b.p);
    bool logged = false;
    for (int tries = 0; tries < 200 && !logged; tries++) { /* hang guard: the line follows the close */
        logged = log_has("\"method\":\"POST\"", "\"path\":\"/check\"", "\"status\":413");
        if (!logged) nq_harness_sleep_ms(50);
    }
    ck_assert_msg(logged, "no access log line with status 413 for POST /check");
}
END_TEST

/* ---- slow bodies ---------------------------------------------------------------------------------- */

/* A client that sends its head at once and then one piece of body a second. */
typedef struct trickler {
    const char *head;  /* the request head */
    const char *piece; /* what is sent each second after it */
    int pieces;        /* how many pieces make the whole body */
    atomic_int sent;   /* pieces sent so far */
    bool cut;          /* the server closed the connection */
    size_t answered;   /* bytes the server sent */
    pthread_t thread;  /* the client */
} trickler;

static void *trickle(void *arg)
{
    trickler *t = arg;
    const int fd = nq_raw_connect(server.port);
    if (fd < 0) return NULL;
    send_all(fd, t->head, strlen(t->head));
    for (int i = 0; i < t->pieces;) {
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, 1000) > 0) {
            char buf[512];
            const ssize_t r = recv(fd, buf, sizeof buf, 0);
            if (r <= 0) {
                t->cut = true;
                break;
            }
            t->answered += (size_t)r;
            continue;
        }
        if (send(fd, t->piece, strlen(t->piece), MSG_NOSIGNAL) <= 0) {
            t->cut = true;
            break;
        }
        atomic_fetch_add(&t->sent, 1);
        i++;
    }
    close(fd);
    return NULL;
}

/* Bodies trickled a byte (or a chunk) a second, with a whole body of 40 s: both are cut at the head
 * deadline (2 s), unanswered and unfinished; while they are pending, /healthz on another connection
 * is answered. */
START_TEST(test_trickled_bodies)
{
    trickler t[] = {
        {.head = "POST /check HTTP/1.1\r\n" H JSON "Content-Length: 40\r\n\r\n", .piece = " ", .pieces = 40},
        {.head = "POST /complete HTTP/1.1\r\n" H JSON "Transfer-Encoding: chunked\r\n\r\n",
         .piece = "1\r\n \r\n",
         .pieces = 40},
    };
    const size_t n = sizeof t / sizeof t[0];
    for (size_t i = 0; i < n; i++) {
        atomic_init(&t[i].sent, 0);
        ck_assert_int_eq(pthread_create(&t[i].thread, NULL, trickle, &t[i]), 0);
    }
    bool pending = false;
    for (int tries = 0; tries < 400 && !pending; tries++) { /* hang guard: each has sent a piece */
        pending = true;
        for (size_t i = 0; i < n; i++) pending = pending && atomic_load(&t[i].sent) > 0;
        if (!pending) nq_harness_sleep_ms(50);
    }
    ck_assert(pending);
    nq_http_response r;
    ck_assert(nq_http_get(&server, "/healthz", &r));
    ck_assert_int_eq(r.status, 200);
    nq_http_response_free(&r);
    for (size_t i = 0; i < n; i++) {
        pthread_join(t[i].thread, NULL);
        ck_assert_msg(t[i].cut, "trickler %zu: never cut", i);
        ck_assert_uint_eq(t[i].answered, 0);
        ck_assert_int_lt(atomic_load(&t[i].sent), t[i].pieces);
    }
}
END_TEST

/* ---- malformed bodies ----------------------------------------------------------------------------- */

static const struct {
    const char *target;
    const char *content_type; /* the header line; "Content-Type:" sends none */
    const char *body;
    unsigned status;
    const char *type;
    const char *param;  /* NULL: none */
    const char *detail; /* a phrase the detail holds */
} bad[] = {
    {"/check", "Content-Type: application/json", "", 400, "bad-request", NULL, "The body is empty"},
    {"/check", "Content-Type: application/json", "{\"n\":4,", 400, "bad-request", NULL, "Not valid JSON"},
    {"/check", "Content-Type: application/json", "{\"n\":4,\"columns\":[1,3,0,2]}x", 400, "bad-request", NULL,
     "More than one JSON value"},
    {"/check", "Content-Type: application/json", "\"n\"", 400, "bad-request", NULL, "a JSON object"},
    {"/check", "Content-Type: application/json", "{\"n\":4,\"columns\":[1,3,0,2],\"extra\":true}", 400, "bad-request",
     NULL, "Unknown member 'extra'"},
    {"/check", "Content-Type: application/json", "{\"n\":4,\"queens\":[],\"queens\":[]}", 400, "bad-request", "queens",
     "given twice"},
    {"/check", "Content-Type: application/json", "{\"n\":true,\"queens\":[]}", 400, "invalid-parameter", "n",
     "must be an integer"},
    {"/check", "Content-Type: application/json", "{\"n\":4,\"queens\":{}}", 400, "bad-request", "queens",
     "must be an array"},
    {"/check", "Content-Type: application/json", "{\"n\":4,\"queens\":[[0,\"1\"]]}", 400, "bad-request", "queens",
     "pair of integers"},
    {"/check", "Content-Type: application/json", "{\"n\":4,\"queens\":[[0,1],[3,3],[0,1]]}", 400, "invalid-placement",
     "queens", "entry 2"},
    {"/check", "Content-Type: application/json", "{\"n\":4,\"columns\":[1,3,0,9]}", 400, "invalid-placement", "columns",
     "entry 3"},
    {"/check", "Content-Type: application/json", "{\"n\":4,\"columns\":[[[[[[[[1]]]]]]]]}", 400, "bad-request", NULL,
     "Nested deeper than 8 levels"},
    {"/check", "Content-Type: application/json", "{\"n\\u0000evil\":4,\"queens\":[]}", 400, "bad-request", NULL,
     "The escape \\u0000 in a string (byte 3)"},
    {"/complete", "Content-Type: application/json", "{\"n\":04,\"queens\":[]}", 400, "bad-request", NULL,
     "Not a JSON number (byte 5)"},
    {"/check", "Content-Type: application/json", "{\"n\":2000000,\"queens\":[]}", 422, "limit-exceeded", "n",
     "1000000"},
    {"/check?n=4", "Content-Type: application/json", "{\"n\":4,\"queens\":[]}", 400, "unknown-parameter", "n", NULL},
    {"/complete", "Content-Type: application/json", "{\"n\":33,\"queens\":[]}", 422, "limit-exceeded", "n", "32"},
    {"/complete?count=yes", "Content-Type: application/json", "{\"n\":8,\"queens\":[]}", 400, "invalid-parameter",
     "count", NULL},
    {"/check", "Content-Type:", "{\"n\":4,\"queens\":[]}", 415, "unsupported-media-type", NULL, "names no type"},
    {"/complete", "Content-Type: text/plain; charset=utf-8", "{\"n\":4,\"queens\":[]}", 415, "unsupported-media-type",
     NULL, "text/plain"},
    {"/check", "Content-Type: application/json; charset=latin1", "{\"n\":4,\"queens\":[]}", 415,
     "unsupported-media-type", NULL, "latin1"},
};

START_TEST(test_malformed)
{
    const char *const h[] = {bad[_i].content_type, NULL};
    nq_http_response r;
    ck_assert(nq_http_send(&server, "POST", bad[_i].target, h, bad[_i].body, strlen(bad[_i].body), &r));
    ck_assert_msg(r.status == (long)bad[_i].status, "%s: %ld %s", bad[_i].body, r.status, r.body);
    ck_assert_str_eq(nq_http_header_get(&r, "Content-Type"), "application/problem+json");
    ck_assert_str_eq(nq_http_header_get(&r, "Cache-Control"), "no-store");
    char path[64];
    snprintf(path, sizeof path, "%s", bad[_i].target);
    char *q = strchr(path, '?');
    if (q) *q = '\0';
    check_problem(r.body, bad[_i].status, bad[_i].type, path, bad[_i].detail);
    cJSON *j = parse(r.body);
    const cJSON *param = cJSON_GetObjectItemCaseSensitive(j, "param");
    if (bad[_i].param)
        ck_assert_str_eq(nq_check_json_str(j, "param"), bad[_i].param);
    else
        ck_assert_ptr_null(param);
    cJSON_Delete(j);
    nq_http_response_free(&r);
}
END_TEST

/* A content-coded body is refused before it is read, saying which coding is accepted (RFC 9110 section
 * 12.5.3); "identity" is no coding at all. */
START_TEST(test_content_coded_body)
{
    static const char body[] = "{\"n\":4,\"columns\":[1,3,0,2]}";
    const char *const gz[] = {"Content-Type: application/json", "Content-Encoding: gzip", NULL};
    nq_http_response r;
    ck_assert(nq_http_send(&server, "POST", "/check", gz, body, strlen(body), &r));
    ck_assert_int_eq(r.status, 415);
    ck_assert_str_eq(nq_http_header_get(&r, "Accept-Encoding"), "identity");
    check_problem(r.body, 415, "unsupported-media-type", "/check", "not content-coded ('gzip')");
    nq_http_response_free(&r);
    const char *const plain[] = {"Content-Type: application/json", "Content-Encoding:  Identity ", NULL};
    ck_assert(nq_http_send(&server, "POST", "/check", plain, body, strlen(body), &r));
    ck_assert_int_eq(r.status, 200);
    ck_assert_ptr_nonnull(strstr(r.body, "\"valid\":true"));
    nq_http_response_free(&r);
}
END_TEST

/* ---- the answer is the GET's ------------------------------------------------------------------------ */

static const struct {
    const char *post; /* POST target */
    const char *body; /* its body */
    const char *get;  /* the equivalent GET */
    bool gzip;        /* ask for gzip (the answer is large enough to get it) */
} same[] = {
    {"/check", "{\"n\":4,\"columns\":[1,null,3,null]}", "/check?n=4&queens=2:3,0:1", false},
    {"/check", "{\"n\":8,\"queens\":[[0,0],[1,4],[2,7],[3,5],[4,2],[5,6],[6,1],[7,3]]}",
     "/check?n=8&columns=0,4,7,5,2,6,1,3", false},
    {"/check", "{\"n\":64,\"queens\":[[0,0],[1,0],[2,0],[3,0],[4,0],[5,0],[6,0],[7,0],[8,0],[9,0],[10,0],[11,0]]}",
     "/check?n=64&queens=0:0,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0", true},
    {"/complete?count=true", "{\"n\":8,\"queens\":[[0,0]]}", "/complete?n=8&queens=0:0&count=true", false},
    {"/complete", "{\"n\":6,\"columns\":[null,null,null,null,null,null]}", "/complete?n=6&queens=", false},
};

START_TEST(test_post_equals_get)
{
    const char *const h[] = {"Content-Type: application/json", same[_i].gzip ? "Accept-Encoding: gzip" : NULL, NULL};
    const char *const gh[] = {same[_i].gzip ? "Accept-Encoding: gzip" : NULL, NULL};
    nq_http_response p, g;
    ck_assert(nq_http_send(&server, "POST", same[_i].post, h, same[_i].body, strlen(same[_i].body), &p));
    ck_assert(nq_http_request(&server, "GET", same[_i].get, gh, &g));
    ck_assert_int_eq(p.status, 200);
    ck_assert_int_eq(g.status, 200);
    ck_assert_uint_eq(p.body_len, g.body_len);
    ck_assert_mem_eq(p.body, g.body, p.body_len);
    ck_assert_str_eq(nq_http_header_get(&p, "ETag"), nq_http_header_get(&g, "ETag"));
    ck_assert_str_eq(nq_http_header_get(&p, "Cache-Control"), nq_http_header_get(&g, "Cache-Control"));
    if (same[_i].gzip) ck_assert_str_eq(nq_http_header_get(&p, "Content-Encoding"), "gzip");
    nq_http_response_free(&p);
    nq_http_response_free(&g);
}
END_TEST

/* A whole board of n = 100,000 (about 600 KB of JSON: far beyond any URL) is checked from a body. */
START_TEST(test_board_too_large_for_a_url)
{
    nq_http_response s;
    ck_assert(nq_http_get(&server, "/solution?n=100000", &s));
    ck_assert_int_eq(s.status, 200);
    const char *cols = strstr(s.body, "\"solution\":[");
    ck_assert_ptr_nonnull(cols);
    cols += strlen("\"solution\":");
    const size_t len = strlen(cols) - 1; /* without the closing brace */
    char *body = malloc(len + 64);
    ck_assert_ptr_nonnull(body);
    const int k = snprintf(body, 64, "{\"n\":100000,\"columns\":");
    memcpy(body + k, cols, len);
    body[(size_t)k + len] = '}';
    const size_t body_len = (size_t)k + len + 1;
    ck_assert_uint_gt(body_len, 500000);
    nq_http_response r;
    ck_assert(nq_http_send(&server, "POST", "/check", json, body, body_len, &r));
    free(body);
    ck_assert_int_eq(r.status, 200);
    ck_assert_str_eq(r.body, "{\"n\":100000,\"queens\":100000,\"valid\":true,\"complete\":true,\"conflict_count\":0,"
                             "\"conflicts\":[]}");
    nq_http_response_free(&r);
    nq_http_response_free(&s);
}
END_TEST

/* ---- the connection after a body -------------------------------------------------------------------- */

/* After a good POST the connection is kept: the next request on it is answered, and right. */
START_TEST(test_keep_alive_after_post)
{
    static const char post[] =
        "POST /complete?count=true HTTP/1.1\r\n" H JSON "Content-Length: 27\r\n\r\n{\"n\":4,\"columns\":[1,3,0,2]}";
    static const char get[] = "GET /count?n=6 HTTP/1.1\r\n" H "Connection: close\r\n\r\n";
    const int fd = connect_raw();
    send_all(fd, post, sizeof post - 1);
    bytes first = read_from(fd, true);
    ck_assert(!first.eof);
    nq_wire_response a;
    size_t used = 0;
    ck_assert_int_eq(nq_wire_parse(first.p, first.len, false, false, &a, &used, NULL, 0), NQ_WIRE_OK);
    ck_assert_uint_eq(a.status, 200);
    ck_assert(!a.closes);
    ck_assert_str_eq(a.body, "{\"n\":4,\"solution\":[1,3,0,2],\"hint\":null,\"completions\":1}");
    nq_wire_response_free(&a);
    send_all(fd, get, sizeof get - 1);
    bytes second = read_from(fd, false);
    close(fd);
    nq_wire_response b = only_response(&second);
    ck_assert_uint_eq(b.status, 200);
    ck_assert_str_eq(b.body, "{\"n\":6,\"total\":4,\"unique\":1}");
    nq_wire_response_free(&b);
    free(first.p);
    free(second.p);
}
END_TEST

int main(void)
{
    if (!nq_harness_start(&server, server_args, NULL)) return EXIT_FAILURE;
    Suite *s = suite_create("http_body");
    TCase *tc = tcase_create("body");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_at_cap);
    tcase_add_test(tc, test_over_cap_unread);
    tcase_add_test(tc, test_bodies_share_a_budget);
    tcase_add_test(tc, test_over_cap_expect);
    tcase_add_test(tc, test_endless_chunked);
    tcase_add_test(tc, test_trickled_bodies);
    tcase_add_loop_test(tc, test_malformed, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, test_content_coded_body);
    tcase_add_loop_test(tc, test_post_equals_get, 0, (int)(sizeof same / sizeof same[0]));
    tcase_add_test(tc, test_board_too_large_for_a_url);
    tcase_add_test(tc, test_keep_alive_after_post);
    suite_add_tcase(s, tc);
    const int failed = nq_check_run(s);
    const int status = nq_harness_stop(&server, SIGTERM, 30);
    return failed == 0 && status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
