/* head.h - the request head as libmicrohttpd parsed it: what the server changes as the request line
 * is parsed, the checks of the whole head on the first handler call, and header lookups that see
 * every line.
 *
 * libmicrohttpd 0.9.75 is lax where HTTP/1.1 must be strict and strict where it breaks: it stores a
 * record per query parameter (a few hundred exhaust its per-connection memory, and it then neither
 * answers nor closes), delimits a body by the first of repeated Content-Length lines, answers a
 * malformed one with its status line and headers twice, accepts a method holding a NUL or a tab, a
 * space before a colon and a missing Host, folds continuation lines into garbage, and its lookup
 * returns the first of repeated lines only. The functions here keep it from the first three and
 * find the others (framing.h decides on each line).
 *
 * Use from server.c:
 *   MHD_OPTION_URI_LOG_CALLBACK:  flags = nq_head_begin(conn, uri)
 *   first handler call:           nq_head_check(conn, method, version, uri, flags, &verdict)
 *   nq_request's header lookup:   nq_head_lookup(conn, name, &joined) ... nq_head_joined_free(joined)
 *
 * Thread-safety: every function works on one connection, from the libmicrohttpd thread serving it.
 */
#ifndef NQ_HEAD_H
#define NQ_HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <microhttpd.h>

#include "base/errors.h"
#include "http/framing.h"
#include "nqueens/error.h"

/* What nq_head_begin found, for nq_head_check. */
#define NQ_HEAD_FRAMED 1u     /* the server's own Content-Length is in (else: no memory for it) */
#define NQ_HEAD_TARGET_OK 2u  /* the target is non-empty, without SP or control bytes */
#define NQ_HEAD_MHD_FRAMES 4u /* left out on purpose: libmicrohttpd delimits this request's body */

/* As the request line is parsed (MHD_OPTION_URI_LOG_CALLBACK, with its uri argument, which may be
 * NULL; copy the target first, as the query is emptied here): check the target, empty the query in
 * libmicrohttpd's buffer so that it parses no parameters (the server parses its own copy), and, when
 * frame, add the server's own "Content-Length: 0" in front of the client's header lines so that
 * libmicrohttpd never delimits a body itself. Without frame (a path whose route reads a body)
 * libmicrohttpd delimits it by the client's lines, which nq_head_check has checked by the time it
 * reads a byte, except for a Content-Length it cannot parse: it refuses that one before the handler
 * runs, with its answer sent twice, unless the server closes first (nq_head_length_refused).
 * Returns NQ_HEAD_* flags; without NQ_HEAD_FRAMED or NQ_HEAD_MHD_FRAMES (no memory for that line)
 * the head must be refused, which nq_head_check does. */
unsigned nq_head_begin(struct MHD_Connection *c, const char *uri, bool frame);

/* Whether libmicrohttpd 0.9.75 refuses the Content-Length of c's head as far as it has been parsed:
 * it reads only the first Content-Length line, and only when no Transfer-Encoding line is there,
 * and refuses (with its doubled answer) a value that is not one plain number of decimal digits that
 * fits 64 bits, trailing whitespace included. Meaningful for a head without the server's own length
 * (nq_head_begin without frame); reads c's header list, so call it on the thread serving c. */
bool nq_head_length_refused(struct MHD_Connection *c);

/* Whether libmicrohttpd 0.9.75 reads c's body as chunked: only when the (first) Transfer-Encoding
 * line reads exactly "chunked", case aside. A valid "chunked " with trailing whitespace, which
 * nq_head_check takes as chunked, would leave it reading until the connection closes. */
bool nq_head_mhd_dechunks(struct MHD_Connection *c);

/* What nq_head_check found. */
typedef struct nq_head_verdict {
    nq_err err;           /* NQ_OK, NQ_E_BAD_REQUEST (400), NQ_E_NOT_IMPLEMENTED (501), NQ_E_NOMEM */
    const char *detail;   /* a static sentence saying why, NULL when err is NQ_OK */
    nq_framing_body body; /* how the request's body is delimited, when err is NQ_OK */
    uint64_t length;      /* its announced length, when body is NQ_FRAMING_LENGTH */
} nq_head_verdict;

/* Check the whole head on the first handler call: the request line (method and version as the
 * handler got them, uri as nq_head_begin got it and uri_len its strlen then, before the query was
 * emptied), that libmicrohttpd reported every byte of the head (no NUL in the target or a value, no
 * header line without a name), then every header line and the framing they give. flags is what
 * nq_head_begin returned. */
void nq_head_check(struct MHD_Connection *c, const char *method, const char *version, const char *uri, size_t uri_len,
                   unsigned flags, nq_head_verdict *out);

/* Repeated lines combined by nq_head_lookup, kept until the request ends. */
typedef struct nq_head_joined nq_head_joined;

/* The value of header name: libmicrohttpd's lookup returns the first of repeated lines only, but
 * RFC 9110 section 5.3 makes repeated lines of a list one list, so they are combined with ", " into
 * memory put on *keep (free it with nq_head_joined_free when the request ends; the header section
 * is bounded by the guard's cap). NULL when absent, or when there is no memory to combine them. The
 * server's own Content-Length is never returned. */
const char *nq_head_lookup(struct MHD_Connection *c, const char *name, nq_head_joined **keep);

/* Free what nq_head_lookup kept. NULL is accepted. */
void nq_head_joined_free(nq_head_joined *j);

#endif /* NQ_HEAD_H */
