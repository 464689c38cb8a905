/* error.c - the names and messages of the library's error codes (see include/nqueens/error.h). */
#include "nqueens/error.h"

#include <stddef.h>

typedef struct err_row {
    nq_err code;         /* the code */
    const char *name;    /* "E_RANGE" */
    const char *message; /* short message */
} err_row;

static const err_row rows[] = {
#define NQ_ERR_ROW_(name, code, message) {NQ_##name, #name, message},
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
