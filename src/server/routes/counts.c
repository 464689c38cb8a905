/* counts.c - GET /counts: every count this server knows, newest first.
 *
 *   {"counts":[{"n":20,"status":"running","progress":0.42,"elapsed_s":50.1,"eta_s":69.2,
 *               "started_at":"2026-12-01T09:30:00Z"},
 *              {"n":19,"status":"done","total":4968057848,"unique":621012754,"seconds":35.2,
 *               "finished_at":"2026-12-01T09:29:00Z"}, ...]}
 *
 * The store's counts, finished, queued or running (counts/jobs.h), the same on every replica that
 * shares it (every figure comes from the store: seconds, finished_at, started_at, progress), and
 * finished counts this process has not written there yet. The store unreachable: 503
 * store-unavailable. It describes the moment: Cache-Control no-store. Counts of n up to
 * NQ_SERVED_COUNT_N_MAX only, whose totals every JSON reader holds exactly: a larger one that an
 * older release left in the store is not listed (and /count?n= of it is 422 at parse time).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* gmtime_r */
#endif
#include "routes/counts.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/config.h"
#include "core/reply.h"
#include "counts/jobs.h"
#include "routes/shared.h"

#define ROW_MAX 256 /* one count's object, at most */

#define ISO_TIME_MAX INT64_C(253402300799) /* 9999-12-31T23:59:59Z: four-digit years only */

static void iso_time(int64_t t, char *out, size_t cap)
{
    const time_t tt = (time_t)(t < 0 ? 0 : t > ISO_TIME_MAX ? ISO_TIME_MAX : t); /* a hand-edited store */
    struct tm tm;
    if (!gmtime_r(&tt, &tm) || strftime(out, cap, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        (void)snprintf(out, cap, "1970-01-01T00:00:00Z");
}

static int render_row(const nq_job_view *v, char *out, size_t cap)
{
    char when[32];
    iso_time(v->since, when, sizeof when);
    if (v->state == NQ_JOB_DONE)
        return snprintf(out, cap,
                        "{\"n\":%d,\"status\":\"done\",\"total\":%" PRIu64 ",\"unique\":%" PRIu64
                        ",\"seconds\":%.3f,\"finished_at\":\"%s\"}",
                        v->n, v->counts.total, v->counts.unique, v->seconds, when);
    char eta[32] = "null";
    if (v->eta_s >= 0) (void)snprintf(eta, sizeof eta, "%.1f", v->eta_s);
    return snprintf(out, cap,
                    "{\"n\":%d,\"status\":\"%s\",\"progress\":%.4f,\"elapsed_s\":%.1f,\"eta_s\":%s,"
                    "\"started_at\":\"%s\"}",
                    v->n, v->state == NQ_JOB_QUEUED ? "queued" : "running", v->progress, v->elapsed_s, eta, when);
}

nq_app_step nq_route_counts_answer(nq_app_work *w, const nq_request *req, nq_response *resp)
{
    nq_query q;
    if (!nq_app_parse_query(req, 0, &q, resp)) return NQ_APP_DONE;
    nq_job_view views[NQ_COUNT_N_MAX];
    size_t len = 0;
    const nq_err rc = nq_count_jobs_list_all(nq_shared_jobs(w->app), views, NQ_COUNT_N_MAX, &len);
    if (rc != NQ_OK) { /* the store cannot be read: a partial list would say counts vanished */
        nq_app_problem(resp, req->path, rc, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    const size_t cap = 16 + (len + 1) * ROW_MAX;
    char *body = malloc(cap);
    if (!body) {
        nq_app_problem(resp, req->path, NQ_E_NOMEM, NULL, NULL, false, 0);
        return NQ_APP_DONE;
    }
    size_t at = (size_t)snprintf(body, cap, "{\"counts\":[");
    bool first = true;
    for (size_t i = 0; i < len; i++) {
        if (views[i].n > NQ_SERVED_COUNT_N_MAX) continue;
        const size_t sep = first ? 0 : 1;
        const int row = render_row(&views[i], body + at + sep, ROW_MAX);
        if (row <= 0 || row >= ROW_MAX) continue; /* cannot happen with stored values; never a torn list */
        if (sep) body[at] = ',';
        at += sep + (size_t)row;
        first = false;
    }
    at += (size_t)snprintf(body + at, cap - at, "]}");
    resp->status = 200;
    nq_response_own(resp, body, at);
    nq_response_add_header(resp, "Content-Type", NQ_MEDIA_JSON);
    nq_response_add_header(resp, "Cache-Control", "no-store");
    return NQ_APP_DONE;
}
