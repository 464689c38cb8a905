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
 * Before any stream: the whole trace's length per n (a table) and what positioning at `from` costs
 * by the estimate, for the route's parse step to refuse what cannot be reached (trace.c).
 *
 * Thread-safety: a stream belongs to one thread at a time; distinct streams are independent; the
 * length and estimate functions are pure.
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

/* Largest n whose whole trace's length nq_body_trace_length knows. */
#define NQ_BODY_TRACE_LENGTH_N_MAX 18

/* Steps per second the estimate of a skip assumes (nq_trace_skip at n = 12..16, one core: 96-168
 * million on a loaded 2-core VM, by build and load: docs/performance.md, "Refusing what cannot
 * finish"; bench/bench_cost). A slower machine may run an admitted skip past the budget; the pool's
 * abandon rule and the budget still bound it. */
#define NQ_BODY_TRACE_SKIP_PER_S UINT64_C(150000000)

/* The number of steps in the whole trace of n into *len, true for 1 <= n <= NQ_BODY_TRACE_LENGTH_N_MAX
 * (a table; bench_cost counts it, test_body_trace checks it against the library's trace); false (len
 * untouched) for any other n. A page may start at step 0..*len (*len: the empty page at the end). */
bool nq_body_trace_length(int n, uint64_t *len);

/* What skipping to step `from` costs by the estimate, in milliseconds, rounded up. Pure. */
uint64_t nq_body_trace_skip_ms(uint64_t from);

/* The largest `from` whose skip the estimate puts within ms milliseconds (saturating). Pure. */
uint64_t nq_body_trace_skip_within(uint64_t ms);

/* Free a stream. NULL is accepted. */
void nq_body_trace_destroy(nq_body_trace *b);

#endif /* NQ_BODY_TRACE_H */
