/* error.c - lookups into the one error table (see include/nqueens/error.h). */
#include "nqueens/error.h"

#include <stddef.h>

typedef struct err_row {
    nq_err code;       /* the enum value */
    const char *name;  /* "E_RANGE" */
    int status;        /* HTTP status it maps to */
    const char *slug;  /* problem type slug */
    const char *title; /* short message */
} err_row;

static const err_row rows[] = {
#define NQ_ERR_ROW_(name, code, status, slug, title) {NQ_##name, #name, status, slug, title},
    NQ_ERR_TABLE(NQ_ERR_ROW_)
#undef NQ_ERR_ROW_
};

/* Linear scan: the table is tiny and codes are sparse, so no index is worth keeping. */
static const err_row *find(nq_err err) {
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].code == err) return &rows[i];
    return NULL;
}

const char *nq_err_message(nq_err err) {
    const err_row *r = find(err);
    return r ? r->title : "Unknown error";
}

const char *nq_err_name(nq_err err) {
    const err_row *r = find(err);
    return r ? r->name : "E_UNKNOWN";
}

int nq_err_http_status(nq_err err) {
    const err_row *r = find(err);
    return r ? r->status : 500;
}

const char *nq_err_problem_slug(nq_err err) {
    const err_row *r = find(err);
    return r ? r->slug : "internal-error";
}
