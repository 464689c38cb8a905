/* wire.h - a strict HTTP/1.1 response parser for tests and fuzzers that read the server's raw bytes.
 *
 * libcurl forgives framing faults (a stray chunk terminator, a doubled status line) that break other
 * clients, so the conformance suite and the raw-bytes fuzz mode read the socket themselves and hold
 * every response to RFC 9112: status line "HTTP/1.1 DDD reason" ending in CRLF, header lines that are
 * a token, a colon and a value without control bytes, CRLF line ends only (no bare LF, no folding),
 * and a body of exactly the bytes its framing says: none for HEAD, 1xx, 204 and 304; else chunked
 * (Transfer-Encoding exactly "chunked", no Content-Length), one Content-Length, or the bytes up to the
 * close when the response says "Connection: close" and states neither.
 *
 * Thread-safety: pure functions over caller memory; nq_wire_response_free releases what a parse
 * allocated.
 */
#ifndef NQ_WIRE_H
#define NQ_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NQ_WIRE_HEADERS_MAX 64 /* header lines one response may have */

typedef enum nq_wire_rc {
    NQ_WIRE_OK = 0,     /* one whole response parsed */
    NQ_WIRE_INCOMPLETE, /* the bytes end inside a response (and the stream has not ended) */
    NQ_WIRE_BAD         /* the bytes break HTTP/1.1 (why says how) */
} nq_wire_rc;

typedef struct nq_wire_header {
    const char *name; /* points into the parsed buffer (not terminated) */
    size_t name_len;
    const char *value; /* without surrounding whitespace */
    size_t value_len;
} nq_wire_header;

typedef struct nq_wire_response {
    unsigned status;                             /* 100..999 */
    size_t nheaders;                             /* header lines */
    nq_wire_header headers[NQ_WIRE_HEADERS_MAX]; /* in order */
    char *body;                                  /* the body, de-chunked, NUL-terminated (malloc'd) */
    size_t body_len;                             /* its length */
    bool chunked;                                /* sent chunked */
    bool has_length;                             /* sent with Content-Length */
    uint64_t length;                             /* that length (HEAD: what GET would send) */
    bool closes;                                 /* "Connection: close" */
} nq_wire_response;

/* Parse the response at buf (len bytes). head: it answers a HEAD request (no body, whatever the
 * framing headers say). eof: the connection ended after these len bytes (a body delimited by the
 * close ends there). On NQ_WIRE_OK *used is the bytes the response took and *out holds it (free with
 * nq_wire_response_free); on NQ_WIRE_BAD why (whylen bytes) says what is wrong. */
nq_wire_rc nq_wire_parse(const char *buf, size_t len, bool head, bool eof, nq_wire_response *out, size_t *used,
                         char *why, size_t whylen);

/* The value of the first header called name (case-insensitive) as a malloc'd string, or NULL. */
char *nq_wire_header_dup(const nq_wire_response *r, const char *name);

/* How many header lines are called name (case-insensitive). */
size_t nq_wire_header_count(const nq_wire_response *r, const char *name);

/* Free what a parse allocated. NULL is accepted. */
void nq_wire_response_free(nq_wire_response *r);

#endif /* NQ_WIRE_H */
