/* ops.c - the probes and /metrics: /healthz, /readyz, /metrics.
 *
 * The probes are deliberately trivial: an orchestrator calls them every few seconds on every replica,
 * and /healthz must keep answering while the solver workers are saturated, so neither touches the
 * cache, the pool or anything that can block. /metrics asks the server, through the hook it gave the
 * app at creation, for the exposition text (the figures belong to the layers that own them); it is
 * scraped every few seconds, not per request. All three are Cache-Control: no-store (they describe
 * the moment).
 */
#include "routes/ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "core/reply.h"
#include "counts/jobs.h"
#include "nqueens/version.h"
#include "routes/shared.h"

#define STORE_CALLS_MAX 2048                      /* the store's round trips by op: 8 x 2 lines of at most 90 */
#define JOBS_METRICS_MAX (5120 + STORE_CALLS_MAX) /* the app's lines below, at most */

/* The Content-Type of /metrics (Prometheus text exposition format 0.0.4). */
#define METRICS_MEDIA_TYPE "text/plain; version=0.0.4; charset=utf-8"

nq_app_step nq_route_healthz_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    (void)w;
    (void)req;
    nq_app_static_json(resp, 200, "{\"status\":\"ok\",\"version\":\"" NQ_VERSION_STRING "\"}");
    return NQ_APP_DONE;
}

nq_app_step nq_route_readyz_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    if (nq_app_draining(w->app))
        nq_app_problem(resp, req->path, NQ_E_DRAINING, NULL,
                       "This instance is shutting down and takes no new work; retry on another one.", false, 0);
    else
        nq_app_static_json(resp, 200, "{\"status\":\"ready\"}");
    return NQ_APP_DONE;
}

/* Hand the rendered text to resp, gzip-compressed when the client takes it and it is worth it. */
static void metrics_body(nq_response *resp, char *text, size_t len, bool gzip_ok)
{
    char *gz = NULL;
    size_t gz_len = 0;
    /* The body changes on every scrape, so it is compressed every time: the streaming level. */
    if (gzip_ok && len >= NQ_COMPRESS_MIN_BYTES &&
        nq_compress_buffer(text, len, NQ_COMPRESS_LEVEL_STREAM, &gz, &gz_len) == NQ_OK) {
        free(text);
        text = gz;
        len = gz_len;
        nq_response_add_header(resp, "Content-Encoding", "gzip");
    } /* on a compression failure the identity body is still a correct answer */
    nq_response_own(resp, text, len);
}

/* The store's round trips by op, one summary with a label per op (job_view.h), appended at text + *len
 * (room: STORE_CALLS_MAX, which append_jobs reserves). */
static void append_store_calls(const nq_count_jobs_stats *st, char *text, size_t *len)
{
    int w = snprintf(text + *len, STORE_CALLS_MAX,
                     "# HELP nqueensd_store_call_seconds Store round trips of the long-count service, by op.\n"
                     "# TYPE nqueensd_store_call_seconds summary\n");
    size_t at = w > 0 && w < STORE_CALLS_MAX ? (size_t)w : 0;
    for (int op = 0; op < NQ_STORE_OP_COUNT && at < STORE_CALLS_MAX; op++) {
        const char *label = nq_store_op_label((nq_store_op)op);
        w = snprintf(text + *len + at, STORE_CALLS_MAX - at,
                     "nqueensd_store_call_seconds_sum{op=\"%s\"} %.6f\n"
                     "nqueensd_store_call_seconds_count{op=\"%s\"} %" PRIu64 "\n",
                     label, st->store_seconds[op], label, st->store_calls[op]);
        if (w < 0 || (size_t)w >= STORE_CALLS_MAX - at) return; /* cannot happen: the room is sized for every op */
        at += (size_t)w;
    }
    *len += at;
}

/* The app's own figures, the long counts and the store, appended to the server's text. */
static nq_err append_jobs(nq_app *app, char **text, size_t *len)
{
    nq_count_jobs_stats st;
    nq_count_jobs_stats_get(nq_shared_jobs(app), &st);
    unsigned gz_now = 0;
    uint64_t gz_declined = 0;
    nq_app_gzip_streams(app, &gz_now, &gz_declined);
    size_t pinned = 0, pin_max = 0;
    uint64_t pin_refused = 0;
    nq_app_pinned(app, &pinned, &pin_max, &pin_refused);
    char *grown = realloc(*text, *len + JOBS_METRICS_MAX);
    if (!grown) return NQ_E_NOMEM;
    const int w = snprintf(
        grown + *len, JOBS_METRICS_MAX - STORE_CALLS_MAX,
        "# HELP nqueensd_counts_queued Long counts waiting for a runner.\n# TYPE nqueensd_counts_queued gauge\n"
        "nqueensd_counts_queued %zu\n"
        "# HELP nqueensd_counts_running Long counts running.\n# TYPE nqueensd_counts_running gauge\n"
        "nqueensd_counts_running %zu\n"
        "# HELP nqueensd_counts_finished Counts known finished (this process or the store).\n"
        "# TYPE nqueensd_counts_finished gauge\nnqueensd_counts_finished %zu\n"
        "# HELP nqueensd_counts_completed_total Long counts this process finished.\n"
        "# TYPE nqueensd_counts_completed_total counter\nnqueensd_counts_completed_total %" PRIu64 "\n"
        "# HELP nqueensd_counts_resumed_total Counts resumed from a checkpoint at start-up.\n"
        "# TYPE nqueensd_counts_resumed_total counter\nnqueensd_counts_resumed_total %" PRIu64 "\n"
        "# HELP nqueensd_checkpoints_total Checkpoint transactions written to the store.\n"
        "# TYPE nqueensd_checkpoints_total counter\nnqueensd_checkpoints_total %" PRIu64 "\n"
        "# HELP nqueensd_checkpoint_failures_total Checkpoint transactions the store refused.\n"
        "# TYPE nqueensd_checkpoint_failures_total counter\nnqueensd_checkpoint_failures_total %" PRIu64 "\n"
        "# HELP nqueensd_store_write_failures_total Finished counts the store refused (retried).\n"
        "# TYPE nqueensd_store_write_failures_total counter\nnqueensd_store_write_failures_total %" PRIu64 "\n"
        "# HELP nqueensd_store_bytes Size of the store on disk (file and write-ahead log).\n"
        "# TYPE nqueensd_store_bytes gauge\nnqueensd_store_bytes %" PRIu64 "\n"
        "# HELP nqueensd_count_blocks_claimed_total Blocks of long counts this replica claimed.\n"
        "# TYPE nqueensd_count_blocks_claimed_total counter\nnqueensd_count_blocks_claimed_total %" PRIu64 "\n"
        "# HELP nqueensd_count_blocks_finished_total Blocks this replica counted and finished in the store.\n"
        "# TYPE nqueensd_count_blocks_finished_total counter\nnqueensd_count_blocks_finished_total %" PRIu64 "\n"
        "# HELP nqueensd_count_blocks_lost_total Blocks dropped because their lease was lost.\n"
        "# TYPE nqueensd_count_blocks_lost_total counter\nnqueensd_count_blocks_lost_total %" PRIu64 "\n"
        "# HELP nqueensd_count_blocks_taken_over_total Blocks claimed after another claimer's lease lapsed.\n"
        "# TYPE nqueensd_count_blocks_taken_over_total counter\nnqueensd_count_blocks_taken_over_total %" PRIu64 "\n"
        "# HELP nqueensd_store_errors_total Store calls that failed (unreachable, refused; a lost lease is not one).\n"
        "# TYPE nqueensd_store_errors_total counter\nnqueensd_store_errors_total %" PRIu64 "\n"
        "# HELP nqueensd_store_up 1 when the last store call reached the database, 0 when it could not.\n"
        "# TYPE nqueensd_store_up gauge\nnqueensd_store_up %d\n"
        "# HELP nqueensd_gzip_streams Responses being compressed as they are sent.\n"
        "# TYPE nqueensd_gzip_streams gauge\nnqueensd_gzip_streams %u\n"
        "# HELP nqueensd_gzip_streams_max Their bound (--max-gzip-streams).\n"
        "# TYPE nqueensd_gzip_streams_max gauge\nnqueensd_gzip_streams_max %u\n"
        "# HELP nqueensd_gzip_streams_declined_total Streams sent uncompressed because none was free.\n"
        "# TYPE nqueensd_gzip_streams_declined_total counter\nnqueensd_gzip_streams_declined_total %" PRIu64 "\n"
        "# HELP nqueensd_pinned_bytes Bytes responses hold for clients still reading them.\n"
        "# TYPE nqueensd_pinned_bytes gauge\nnqueensd_pinned_bytes %zu\n"
        "# HELP nqueensd_pinned_bytes_max Their bound (--max-pinned-bytes, at least --cache-bytes / 8).\n"
        "# TYPE nqueensd_pinned_bytes_max gauge\nnqueensd_pinned_bytes_max %zu\n"
        "# HELP nqueensd_pinned_refused_total Responses answered 503 because their bytes did not fit.\n"
        "# TYPE nqueensd_pinned_refused_total counter\nnqueensd_pinned_refused_total %" PRIu64 "\n",
        st.queued, st.running, st.finished, st.completed, st.resumed, st.checkpoints, st.checkpoint_failures,
        st.store_failures, st.store_bytes, st.blocks_claimed, st.blocks_finished, st.blocks_lost, st.blocks_taken_over,
        st.store_errors, st.store_up ? 1 : 0, gz_now, nq_app_config(app)->max_gzip_streams, gz_declined, pinned,
        pin_max, pin_refused);
    *text = grown;
    if (w > 0 && w < JOBS_METRICS_MAX - STORE_CALLS_MAX) *len += (size_t)w;
    append_store_calls(&st, *text, len);
    return NQ_OK;
}

nq_app_step nq_route_metrics_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    const nq_app_hooks *h = nq_app_hooks_of(w->app);
    char *text = NULL;
    size_t len = 0;
    /* No hook is a server built without metrics: a wiring bug, not the client's. */
    nq_err rc = h->metrics ? h->metrics(h->ctx, !nq_app_draining(w->app), &text, &len) : NQ_E_INTERNAL;
    if (rc == NQ_OK) rc = append_jobs(w->app, &text, &len);
    if (rc != NQ_OK) {
        free(text);
        nq_app_problem(resp, req->path, rc == NQ_E_NOMEM ? NQ_E_NOMEM : NQ_E_INTERNAL, NULL,
                       "The metrics could not be rendered.", false, 0);
        return NQ_APP_DONE;
    }
    resp->status = 200;
    nq_response_add_header(resp, "Content-Type", METRICS_MEDIA_TYPE);
    nq_response_add_header(resp, "Cache-Control", "no-store");
    nq_response_add_header(resp, "Vary", "Accept-Encoding");
    metrics_body(resp, text, len, w->variant.gzip_ok);
    return NQ_APP_DONE;
}
