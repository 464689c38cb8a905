/* harness.h - test harness for HTTP-level tests: run the real nqueensd, talk to it with libcurl or raw
 * sockets.
 *
 * nq_harness_start runs the nqueensd built by CMake (NQ_TEST_NQUEENSD) with "--port 0 --bind
 * 127.0.0.1" plus the caller's arguments and environment, its stdout in a temporary file that is
 * polled for the start-up line ("msg":"listening" with the bound "port"). Requests go through libcurl
 * with no automatic decompression (a gzip body arrives as sent). When the environment variable
 * NQ_RESPONSES_DIR names a directory, every response a helper receives is also written there as one
 * JSON file {"method","path","query","status","headers":{lowercase name: value},"body": text, or null
 * when the body is compressed or not UTF-8 text}, for the contract checks.
 *
 * Failure: functions return false / -1 and print why to stderr; a test then fails on its assertion.
 * Thread-safety: none needed (tests are single-threaded); a server handle belongs to one process.
 */
#ifndef NQ_HARNESS_H
#define NQ_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define NQ_HARNESS_HEADERS_MAX 48 /* response headers kept */

typedef struct nq_test_server {
    pid_t pid;         /* the nqueensd process, 0 when not running */
    uint16_t port;     /* its bound port */
    char base[64];     /* "http://127.0.0.1:<port>" */
    char log_path[64]; /* file receiving its stdout (and stderr) */
} nq_test_server;

typedef struct nq_http_header {
    char *name;  /* as received */
    char *value; /* without surrounding spaces */
} nq_http_header;

typedef struct nq_http_response {
    long status;                                    /* HTTP status, 0 if the request failed */
    size_t nheaders;                                /* headers received */
    nq_http_header headers[NQ_HARNESS_HEADERS_MAX]; /* in order */
    char *body;                                     /* body bytes, NUL-terminated (malloc'd) */
    size_t body_len;                                /* without the NUL */
} nq_http_response;

/* Start nqueensd with extra arguments (NULL-terminated array, or NULL) and extra environment entries
 * ("NAME=value", NULL-terminated, or NULL) and wait (up to 60 s) for its start-up line.
 * Returns false if it did not start (its output is printed to stderr then). It also initialises
 * libcurl for the process, so call it before a test starts client threads. */
bool nq_harness_start(nq_test_server *s, const char *const *args, const char *const *env);

/* Send sig to the server and wait (up to timeout_s, then SIGKILL) for it to exit. Returns its exit
 * status (0..255), 128 + signal if a signal ended it, -1 on error. When that is not 0 and sig was not
 * SIGKILL, prints the server's output to stderr (a sanitizer report or a panic is the only account of
 * why). Removes its log file. */
int nq_harness_stop(nq_test_server *s, int sig, unsigned timeout_s);

/* Everything the server wrote to stdout and stderr so far (malloc'd, NUL-terminated), or NULL. */
char *nq_harness_log(const nq_test_server *s);

/* Send method target (path and query, e.g. "/solve?n=4") with extra request header lines ("Name: v",
 * NULL-terminated, or NULL). HEAD sends no body back. Fills *out (free with nq_http_response_free).
 * Returns false when no HTTP response arrived. */
bool nq_http_request(const nq_test_server *s, const char *method, const char *target, const char *const *headers,
                     nq_http_response *out);

/* Send method target with a request body of len bytes (body NULL: none) and the extra header lines
 * (give the body's Content-Type there: libcurl's default is application/x-www-form-urlencoded, and
 * "Content-Type:" with no value sends none). Otherwise as nq_http_request, recorded alike. */
bool nq_http_send(const nq_test_server *s, const char *method, const char *target, const char *const *headers,
                  const char *body, size_t len, nq_http_response *out);

/* GET shorthand. */
bool nq_http_get(const nq_test_server *s, const char *target, nq_http_response *out);

/* The value of the first header called name (case-insensitive), or NULL. */
const char *nq_http_header_get(const nq_http_response *r, const char *name);

/* Free what a response holds (not the struct). NULL is accepted. */
void nq_http_response_free(nq_http_response *r);

/* The value of the unlabelled metric called name on the server's /metrics, or -1 when it is absent
 * or /metrics did not answer 200. */
double nq_harness_metric(const nq_test_server *s, const char *name);

/* Decode a gzip body; on success *out is malloc'd and NUL-terminated. Bounded to 1 GiB. */
bool nq_harness_gunzip(const char *in, size_t len, char **out, size_t *out_len);

/* Sleep ms milliseconds: the pause of the tests' polling loops (each bounded by a count of tries). */
void nq_harness_sleep_ms(unsigned ms);

/* Poll the metric called name (nq_harness_metric) every 50 ms until it equals want; the last value
 * read, want on success. Gives up after timeout_s (a hang guard, not a speed). */
double nq_harness_await_metric(const nq_test_server *s, const char *name, double want, unsigned timeout_s);

/* GET target with Accept-Encoding: gzip until the answer is gzip-encoded: a large body's gzip form is
 * made after its first answers went out in identity form. Every answer must be a 200; *r is the
 * first gzip one. False when none came within timeout_s (a generous bound: a hang, not a speed). */
bool nq_harness_get_gzip(const nq_test_server *s, const char *target, unsigned timeout_s, nq_http_response *r);

/* A TCP connection to 127.0.0.1:port (a blocking socket the caller closes), or -1. */
int nq_raw_connect(uint16_t port);

/* Write len bytes of raw request to 127.0.0.1:port, then read until the server closes or timeout_ms
 * of silence passes. On success returns the bytes received (malloc'd, NUL-terminated) and their
 * count in *out_len; NULL on a socket error. */
char *nq_raw_request(uint16_t port, const char *req, size_t len, unsigned timeout_ms, size_t *out_len);

#endif /* NQ_HARNESS_H */
