/* errors.c - lookups into the service's error table and the problem types (errors.h). */
#include "base/errors.h"

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
    nq_err code;          /* the code */
    const char *name;     /* "E_BUSY" */
    enum problem_id type; /* its problem type */
    const char *message;  /* short message */
} err_row;

/* The service's own codes, with everything about them. */
static const err_row server_rows[] = {
#define NQ_SERVER_ERR_ROW_(name, code, problem, message) {NQ_##name, #name, PROBLEM_##problem, message},
    NQ_SERVER_ERR_TABLE(NQ_SERVER_ERR_ROW_)
#undef NQ_SERVER_ERR_ROW_
};

/* The library's codes with their problem types (names and messages are the library's). */
typedef struct lib_row {
    nq_err code;          /* the library's code */
    enum problem_id type; /* its problem type */
} lib_row;

static const lib_row lib_rows[] = {
#define NQ_LIB_ERR_ROW_(name, problem) {NQ_##name, PROBLEM_##problem},
    NQ_LIB_ERR_PROBLEMS(NQ_LIB_ERR_ROW_)
#undef NQ_LIB_ERR_ROW_
};

/* Every library code has its row: the library's table counted against the mapping's (one byte a row). */
#define NQ_ONE_LIB_(name, code, message) 1,
#define NQ_ONE_MAP_(name, problem) 1,
_Static_assert(sizeof((const char[]){NQ_ERR_TABLE(NQ_ONE_LIB_)}) ==
                   sizeof((const char[]){NQ_LIB_ERR_PROBLEMS(NQ_ONE_MAP_)}),
               "every row of the library's NQ_ERR_TABLE needs its row in NQ_LIB_ERR_PROBLEMS");
#undef NQ_ONE_LIB_
#undef NQ_ONE_MAP_

/* Linear scans: the tables are tiny and codes are sparse, so no index is worth keeping. */
static const err_row *server_find(nq_err err)
{
    for (size_t i = 0; i < sizeof server_rows / sizeof server_rows[0]; i++)
        if (server_rows[i].code == err) return &server_rows[i];
    return NULL;
}

static const lib_row *lib_find(nq_err err)
{
    for (size_t i = 0; i < sizeof lib_rows / sizeof lib_rows[0]; i++)
        if (lib_rows[i].code == err) return &lib_rows[i];
    return NULL;
}

const nq_problem_type *nq_error_problem(nq_err err)
{
    const err_row *s = server_find(err);
    if (s) return &problems[s->type];
    const lib_row *l = lib_find(err);
    return &problems[l ? l->type : PROBLEM_INTERNAL_ERROR];
}

int nq_error_status(nq_err err)
{
    return nq_error_problem(err)->status;
}

const char *nq_error_name(nq_err err)
{
    const err_row *s = server_find(err);
    return s ? s->name : nq_err_name(err); /* the library's, or its "E_UNKNOWN" */
}

const char *nq_error_message(nq_err err)
{
    const err_row *s = server_find(err);
    return s ? s->message : nq_err_message(err); /* the library's, or its "Unknown error" */
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
