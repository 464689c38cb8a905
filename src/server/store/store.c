/* store.c - the store as its users see it (store.h): one handle over whichever backend holds the data,
 * chosen by the --store location once, at open. Every call is forwarded as it is (backend.h).
 */
#include "store/store.h"

#include <stdlib.h>

#include "store/backend.h"
#include "store/sqlite.h"

struct nq_store {
    const nq_store_backend *be; /* the backend's operations */
    void *impl;                 /* its handle */
};

nq_err nq_store_open(const char *path, nq_store **out, char *err, size_t errlen)
{
    if (!path || !out || !path[0]) return NQ_E_ARG;
    nq_store *s = calloc(1, sizeof *s);
    if (!s) return NQ_E_NOMEM;
    /* The one place a location chooses its backend: today every location is a file for SQLite. */
    sqlite_store *impl = NULL;
    const nq_err rc = nq_store_sqlite_open(path, &impl, err, errlen);
    if (rc != NQ_OK) {
        free(s);
        return rc;
    }
    s->be = &nq_store_sqlite;
    s->impl = impl;
    *out = s;
    return NQ_OK;
}

void nq_store_close(nq_store *s)
{
    if (!s) return;
    s->be->close(s->impl);
    free(s);
}

nq_err nq_store_put_count(nq_store *s, const nq_store_count *c)
{
    return s && c ? s->be->put_count(s->impl, c) : NQ_E_ARG;
}

nq_err nq_store_put_checkpoint(nq_store *s, const nq_store_checkpoint *cp)
{
    return s && cp ? s->be->put_checkpoint(s->impl, cp) : NQ_E_ARG;
}

nq_err nq_store_each_count(nq_store *s, nq_store_count_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    return s && fn ? s->be->each_count(s->impl, fn, damaged, arg) : NQ_E_ARG;
}

nq_err nq_store_each_checkpoint(nq_store *s, nq_store_checkpoint_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    return s && fn ? s->be->each_checkpoint(s->impl, fn, damaged, arg) : NQ_E_ARG;
}

uint64_t nq_store_bytes(nq_store *s)
{
    return s ? s->be->bytes(s->impl) : 0;
}

const char *nq_store_path(const nq_store *s)
{
    return s ? s->be->path(s->impl) : "";
}
