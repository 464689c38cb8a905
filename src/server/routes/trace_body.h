/* trace_body.h - the /trace body as a pull stream: a page of search steps, JSON envelope or NDJSON.
 *
 * The body is made on demand into the caller's buffer, one step at a time from the library's trace
 * (trace.h), so memory is O(1) whatever the page size: the trace (about 100 bytes) and one rendered
 * step. The same stream fills bodies that are cached (drained into one buffer) and bodies that are
 * sent as they are made, so both are byte-identical.
 *
 * Shapes:
 *   JSON:   {"n":4,"steps":[{"step":0,"op":"place","row":0,"col":0},...],"next":"/trace?n=4&limit=2&cursor=..."}
 *           ("next" is null on the last page)
 *   NDJSON: one step object per line; no envelope, no next
 *
 * Thread-safety: a stream belongs to one thread at a time; distinct streams are independent.
 */
#ifndef NQ_BODY_TRACE_H
#define NQ_BODY_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nqueens/trace.h"

/* A page, validated by the caller (n in 1..NQ_N_MAX, limit >= 1; a cursor that resumes). Plain data. */
typedef struct nq_trace_spec {
    int n;                            /* board size */
    uint64_t limit;                   /* steps in the page */
    bool ndjson;                      /* NDJSON lines instead of the JSON envelope */
    bool has_cursor;                  /* start at `cursor` (else at step `from`) */
    char cursor[NQ_TRACE_CURSOR_MAX]; /* NUL-terminated */
    uint64_t from;                    /* the first step's number (O(from) to reach) */
} nq_trace_spec;

typedef struct nq_body_trace nq_body_trace; /* opaque stream */

/* An upper bound of the body's size for spec (saturating at SIZE_MAX). */
size_t nq_body_trace_size_max(const nq_trace_spec *spec);

/* Create a stream at the page's first step: resumes the cursor (O(n)) or skips `from` steps
 * (O(from): ctl, may be NULL, can cancel that). On success *out owns the stream.
 * Errors: NQ_E_CURSOR (the cursor does not resume), NQ_E_CANCELED, NQ_E_NOMEM, NQ_E_RANGE. */
nq_err nq_body_trace_create(const nq_trace_spec *spec, nq_count_ctl *ctl, nq_body_trace **out);

/* Copy up to cap (>= 1) bytes of the body into buf; *len receives how many; 0 with NQ_OK: the body
 * is complete. Errors: NQ_E_ARG. */
nq_err nq_body_trace_read(nq_body_trace *b, char *buf, size_t cap, size_t *len);

/* The cursor of the stream's current position (after the steps read so far; at the end, the end's)
 * into out, as nq_trace_cursor. For a caller that positions once and streams later. */
nq_err nq_body_trace_cursor(const nq_body_trace *b, char *out, size_t cap);

/* Render the whole body into one malloc'd buffer (free with free()), skipping as create does.
 * Errors: those of create; NQ_E_NOMEM. */
nq_err nq_body_trace_render(const nq_trace_spec *spec, nq_count_ctl *ctl, char **out, size_t *len);

/* Free a stream. NULL is accepted. */
void nq_body_trace_destroy(nq_body_trace *b);

#endif /* NQ_BODY_TRACE_H */
