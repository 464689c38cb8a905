/* error.c - lookups into the one error table (see include/nqueens/error.h). */
#include "nqueens/error.h"

#include <string.h>

/* Problem type IDs, in table order: the index of each row of `problems`. */
enum problem_id {
#define NQ_PROBLEM_ID_(id, slug, status, title, description) PROBLEM_##id,
    NQ_PROBLEM_TABLE(NQ_PROBLEM_ID_)
#undef NQ_PROBLEM_ID_
        PROBLEM_COUNT
};

static const nq_problem_type problems[] = {
#define NQ_PROBLEM_ROW_(id, slug, status, title, description) {slug, status, title, description},
    NQ_PROBLEM_TABLE(NQ_PROBLEM_ROW_)
#undef NQ_PROBLEM_ROW_
};

typedef struct err_row {
    nq_err code;          /* the enum value */
    const char *name;     /* "E_RANGE" */
    enum problem_id type; /* its problem type */
    const char *message;  /* short message */
} err_row;

static const err_row rows[] = {
#define NQ_ERR_ROW_(name, code, problem, message) {NQ_##name, #name, PROBLEM_##problem, message},
    NQ_ERR_TABLE(NQ_ERR_ROW_)
#undef NQ_ERR_ROW_
};

/* Linear scan: the table is tiny and codes are sparse, so no index is worth keeping. */
static const err_row *find(nq_err err)
{
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].code == err) return &rows[i];
    return NULL;
}

const char *nq_err_message(nq_err err)
{
    const err_row *r = find(err);
    return r ? r->message : "Unknown error";
}

const char *nq_err_name(nq_err err)
{
    const err_row *r = find(err);
    return r ? r->name : "E_UNKNOWN";
}

const nq_problem_type *nq_err_problem(nq_err err)
{
    const err_row *r = find(err);
    return &problems[r ? r->type : PROBLEM_INTERNAL_ERROR];
}

int nq_err_http_status(nq_err err)
{
    return nq_err_problem(err)->status;
}

const char *nq_err_problem_slug(nq_err err)
{
    return nq_err_problem(err)->slug;
}

/* Row 0 is "ok", which is not a problem type: the public index starts after it. */
size_t nq_problem_count(void)
{
    return PROBLEM_COUNT - 1;
}

const nq_problem_type *nq_problem_at(size_t i)
{
    return i + 1 < PROBLEM_COUNT ? &problems[i + 1] : NULL;
}

const nq_problem_type *nq_problem_find(const char *slug, size_t len)
{
    if (!slug) return NULL;
    for (size_t i = 1; i < PROBLEM_COUNT; i++)
        if (strlen(problems[i].slug) == len && memcmp(problems[i].slug, slug, len) == 0) return &problems[i];
    return NULL;
}
