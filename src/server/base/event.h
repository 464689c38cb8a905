/* event.h - something a long-lived service reports for the log (a long count starting, resuming,
 * finishing; a store write failing), and the sink it reports to.
 *
 * A service is given a sink at creation and never knows who logs: the server's sink writes JSON log
 * lines (http/server.c), a test's may count them. The sink is called from any thread, never with a
 * lock of the reporting service held, so it may take locks of its own.
 */
#ifndef NQ_BASE_EVENT_H
#define NQ_BASE_EVENT_H

typedef enum nq_event_level {
    NQ_EVENT_DEBUG = 0, /* routine detail (a checkpoint written) */
    NQ_EVENT_INFO,      /* a count starts, resumes, finishes */
    NQ_EVENT_WARN,      /* a store write failed; serving goes on */
    NQ_EVENT_ERROR      /* a count failed */
} nq_event_level;

/* What happened. Fields that do not apply are 0 / NULL / negative. */
typedef struct nq_event {
    nq_event_level level; /* severity */
    const char *msg;      /* what happened, a constant phrase */
    int n;                /* board size, 0 when none */
    double progress;      /* 0..1, or < 0 when none */
    double seconds;       /* a duration, or < 0 when none */
    const char *error;    /* an error's name (nq_err_name), or NULL */
} nq_event;

/* Where events go: fn(ctx, e), e valid during the call. fn NULL: nowhere. */
typedef struct nq_event_sink {
    void (*fn)(void *ctx, const nq_event *e); /* the sink, or NULL */
    void *ctx;                                /* passed to fn; must outlive the reporter */
} nq_event_sink;

#endif /* NQ_BASE_EVENT_H */
