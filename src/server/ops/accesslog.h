/* accesslog.h - nqueensd's log: one line per finished request and per life-cycle event.
 *
 * Requests and informational events (start-up, shutdown) and debug lines go to the "out" descriptor
 * (stdout), one line each; warnings and errors go to the "err" descriptor (stderr). Lines below the
 * log's level (nq_log_level, base/config.h) are dropped; request lines are info. Two formats:
 *   json: {"time":"2026-11-30T11:40:00.123Z","level":"info","msg":"request","method":"GET",...}
 *   text: time=2026-11-30T11:40:00.123Z level=info msg=request method=GET ...
 * Times are RFC 3339, UTC, with milliseconds. Strings are escaped (JSON rules in both formats, and
 * bytes that are not valid UTF-8 become U+FFFD), so a hostile path cannot forge a line or break the
 * JSON. A line is at most NQ_LOG_LINE_MAX bytes: long strings are cut (marked with "...").
 *
 * Thread-safety: every function may be called from any thread at once. A line is formatted in a
 * buffer on the caller's stack and written with one write(2) call (lines fit PIPE_BUF, so concurrent
 * lines never interleave on a pipe). No lock, no allocation.
 * Failure: logging never fails the caller; a line that cannot be written is dropped.
 */
#ifndef NQ_ACCESSLOG_H
#define NQ_ACCESSLOG_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "nqueens/error.h"
#include "base/request_record.h"

#define NQ_LOG_LINE_MAX 4096u /* = PIPE_BUF on Linux: one write of a line is atomic on a pipe */

typedef struct nq_accesslog nq_accesslog; /* opaque */

/* One extra key/value of an event line. key: short [a-z_] name. */
typedef struct nq_log_field {
    const char *key;
    enum { NQ_LOG_FIELD_STR, NQ_LOG_FIELD_INT, NQ_LOG_FIELD_REAL } type;
    const char *str; /* NQ_LOG_FIELD_STR; NULL is written as null */
    int64_t i;       /* NQ_LOG_FIELD_INT */
    double d;        /* NQ_LOG_FIELD_REAL, written with 3 decimals */
} nq_log_field;

#define NQ_LOG_STR(k, v) ((nq_log_field){.key = (k), .type = NQ_LOG_FIELD_STR, .str = (v)})
#define NQ_LOG_INT(k, v) ((nq_log_field){.key = (k), .type = NQ_LOG_FIELD_INT, .i = (int64_t)(v)})
#define NQ_LOG_REAL(k, v) ((nq_log_field){.key = (k), .type = NQ_LOG_FIELD_REAL, .d = (double)(v)})

/* Create a log writing to the descriptors out_fd (requests, debug, info) and err_fd (warnings,
 * errors) in the given format, dropping lines below `min`. The descriptors stay the caller's (not
 * closed by destroy).
 * Errors: NQ_E_ARG (out NULL, a negative descriptor, unknown format or level), NQ_E_NOMEM (*out
 * untouched). */
nq_err nq_accesslog_create(int out_fd, int err_fd, nq_log_format format, nq_log_level min, nq_accesslog **out);

/* Free l. NULL is accepted and ignored. */
void nq_accesslog_destroy(nq_accesslog *l);

/* Write the access line of one finished request: time, method, path, query, status, bytes,
 * duration_ms, cache (hit, miss or null), request_id, route, solver_ms, remote_addr; "msg":"request".
 * l or r NULL: no-op. */
void nq_accesslog_request(const nq_accesslog *l, const nq_request_record *r);

/* Write an event line: time, level, msg, then the n fields in order (fields may be NULL if n is 0).
 * DEBUG and INFO go to out, WARN and ERROR to err; a level below the log's is dropped. l or msg
 * NULL: no-op. */
void nq_accesslog_event(const nq_accesslog *l, nq_log_level level, const char *msg, const nq_log_field *fields,
                        size_t n);

/* Format the current time (RFC 3339 UTC, milliseconds, "2026-11-30T11:40:00.123Z") into out, which
 * must hold at least 25 bytes. Exposed for the tests. */
void nq_accesslog_time(char *out, size_t cap);

#endif /* NQ_ACCESSLOG_H */
