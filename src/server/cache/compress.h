/* compress.h - gzip for nqueensd responses: whole-buffer compression, a bounded streaming encoder for
 * callback responses, and Accept-Encoding negotiation.
 *
 * Two workloads: a cacheable body is compressed once, at a high level, and the gzip bytes are kept in
 * the cache next to the identity bytes (level 6 takes ~54 ms for the 2.6 MB n=12 body but gives 17:1,
 * and that cost is paid once). A body too big to cache is compressed while it streams, at level 1,
 * because that cost is paid on every request (~4x cheaper than level 6 for 8:1).
 *
 * Thread-safety: all functions are reentrant; a stream belongs to one thread at a time.
 * Failure: every function checks its arguments first; none aborts; on error nothing is left for the
 * caller to free.
 */
#ifndef NQ_COMPRESS_H
#define NQ_COMPRESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/errors.h"
#include "nqueens/error.h"

#define NQ_COMPRESS_LEVEL_ONCE 6   /* for bodies compressed once and cached */
#define NQ_COMPRESS_LEVEL_STREAM 1 /* for bodies compressed on every request */
#define NQ_COMPRESS_MIN_BYTES 1024 /* smaller bodies are sent as they are: gzip would barely help */

/* ---- whole buffers ---------------------------------------------------------------------------- */

/* Compress in[0..len) into one gzip member (RFC 1952) at level (0..9). On success *out is a malloc'd
 * buffer of *out_len bytes that the caller frees with free(). in may be NULL when len is 0.
 * Errors: NQ_E_ARG (out or out_len NULL, in NULL with len > 0, level outside 0..9), NQ_E_NOMEM. */
nq_err nq_compress_buffer(const char *in, size_t len, int level, char **out, size_t *out_len);

/* nq_compress_buffer, for work that may be called off: the input is fed a slice at a time and *stop
 * read between slices (stop may be NULL: never). Errors: those of nq_compress_buffer, and
 * NQ_E_CANCELED once *stop is true (nothing is returned). */
nq_err nq_compress_buffer_until(const char *in, size_t len, int level, const atomic_bool *stop, char **out,
                                size_t *out_len);

/* ---- streaming -------------------------------------------------------------------------------- */

/* Where a stream gets its identity bytes: write up to cap bytes to buf and set *len; *len == 0 with
 * NQ_OK means the source is complete. Any other return is an error the stream passes on.
 * (nq_body_solve_read has this contract.) */
typedef nq_err (*nq_compress_source_fn)(void *src, char *buf, size_t cap, size_t *len);

typedef struct nq_compress_stream nq_compress_stream; /* opaque */

/* Create a stream that pulls identity bytes from read(src, ...) and yields them gzip-compressed at
 * level. It holds one input buffer of in_cap bytes (0: a default of 16 KiB) plus zlib's state
 * (about 256 KiB at the default window), whatever the length of the body: memory is bounded. Output
 * goes straight into the buffer the caller passes to nq_compress_stream_read (libmicrohttpd's own
 * send buffer, for a callback response), so the stream keeps no output buffer of its own.
 * The stream does not own src. On success *out owns the stream (nq_compress_stream_destroy).
 * Errors: NQ_E_ARG (read or out NULL, level outside 0..9), NQ_E_NOMEM. */
nq_err nq_compress_stream_create(nq_compress_source_fn read, void *src, int level, size_t in_cap,
                                 nq_compress_stream **out);

/* Write up to cap (> 0) bytes of the gzip body to buf; *len receives how many. *len == 0 with NQ_OK
 * means the body is complete (the gzip trailer has been written); further calls keep returning that.
 * Never returns 0 bytes before the end: it pulls from the source until it has output.
 * Errors: NQ_E_ARG (NULL, cap 0), the source's error (the gzip body is then truncated and the stream
 * keeps returning that error), NQ_E_INTERNAL (zlib failed), NQ_E_NOMEM. */
nq_err nq_compress_stream_read(nq_compress_stream *s, char *buf, size_t cap, size_t *len);

/* Identity bytes consumed from the source so far (for logs and tests). 0 for NULL. */
size_t nq_compress_stream_in_bytes(const nq_compress_stream *s);

/* Free a stream (not its source). NULL is accepted and ignored. */
void nq_compress_stream_destroy(nq_compress_stream *s);

/* ---- negotiation ------------------------------------------------------------------------------ */

typedef enum nq_encoding {
    NQ_ENCODING_IDENTITY, /* send the body as it is */
    NQ_ENCODING_GZIP,     /* send it gzip-compressed, with Content-Encoding: gzip */
    NQ_ENCODING_NONE      /* the client refuses both (identity;q=0 or *;q=0 with no gzip) */
} nq_encoding;

/* Choose the response coding for an Accept-Encoding header value (RFC 9110 section 12.5.3).
 * NULL (header absent) gives identity. Codings are compared without regard to case; "x-gzip" counts
 * as "gzip"; spaces and tabs around elements and parameters are allowed; q-values are parsed exactly
 * ("0" to "1", at most three decimals). gzip's weight is its own q, else that of "*", else 0;
 * identity's is its own q, else that of "*", else unweighted (acceptable, never preferred). gzip wins
 * when its weight is positive and not below identity's; identity when it is not excluded (weight 0);
 * otherwise NQ_ENCODING_NONE (RFC 9110
 * lets the server answer 406 or send identity anyway; sending identity is the friendlier choice).
 * Elements that do not parse (a bad q, say "gzip;q=2") are ignored; if a coding is listed twice, its
 * first weight counts. An empty value means "no coding": identity. Pure function; never fails. */
nq_encoding nq_compress_negotiate(const char *accept_encoding);

/* An RFC 9110 qvalue at [p, end) ("0", "0.5", "1.000") in thousandths, or -1 if it is not one (at
 * most three decimals, at most 1). The grammar Accept-Encoding shares with Accept (app/negotiate.c).
 * Pure function. */
int nq_compress_qvalue(const char *p, const char *end);

#endif /* NQ_COMPRESS_H */
