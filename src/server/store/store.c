/* store.c - the store as its users see it (store.h): one handle over whichever backend holds the data,
 * chosen by the --store location once, at open. Every call is checked here and forwarded as it is
 * (backend.h), so a backend may take its arguments as valid.
 */
#include "store/store.h"

#include <stdlib.h>
#include <string.h>

#include "store/backend.h"
#include "store/common.h"
#include "store/postgres.h"
#include "store/sqlite.h"

struct nq_store {
    const nq_store_backend *be; /* the backend's operations */
    void *impl;                 /* its handle */
};

/* The libpq keywords a key=value connection string may start with: a file path that starts with one
 * of these followed by '=' is not a name anyone gives a store file. */
static const char *const pq_keywords[] = {
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "passfile",
    "service",
    "sslmode",
    "options",
    "application_name",
    "sslcert",
    "connect_timeout",
    "sslkey",
    "sslrootcert",
    "target_session_attrs",
    "keepalives",
    "gssencmode",
    "requiressl",
    "channel_binding",
};

bool nq_store_is_postgres(const char *location)
{
    if (!location) return false;
    if (strncmp(location, "postgresql://", 13) == 0 || strncmp(location, "postgres://", 11) == 0) return true;
    const size_t key = strspn(location, "abcdefghijklmnopqrstuvwxyz_");
    if (key == 0 || location[key + strspn(location + key, " ")] != '=') return false;
    for (size_t i = 0; i < sizeof pq_keywords / sizeof *pq_keywords; i++)
        if (strlen(pq_keywords[i]) == key && strncmp(location, pq_keywords[i], key) == 0) return true;
    return false;
}

void nq_store_location_shown(const char *location, char *out, size_t cap)
{
    nq_store_redact(location, out, cap);
}

nq_err nq_store_open(const char *path, nq_store **out, char *err, size_t errlen)
{
    if (!path || !out || !path[0]) return NQ_E_ARG;
    if (err && errlen) err[0] = '\0';
    nq_store *s = calloc(1, sizeof *s);
    if (!s) return NQ_E_NOMEM;
    /* The one place a location chooses its backend. */
    nq_err rc;
    if (nq_store_is_postgres(path)) {
        pg_store *impl = NULL;
        rc = nq_store_postgres_open(path, &impl, err, errlen);
        s->be = &nq_store_postgres;
        s->impl = impl;
    } else {
        sqlite_store *impl = NULL;
        rc = nq_store_sqlite_open(path, &impl, err, errlen);
        s->be = &nq_store_sqlite;
        s->impl = impl;
    }
    if (rc != NQ_OK) {
        free(s);
        return rc;
    }
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

bool nq_store_shared(const nq_store *s)
{
    return s && s->be->shared;
}

bool nq_store_connected(nq_store *s)
{
    return s && s->be->connected(s->impl);
}

/* A board size a count row may have: the plan's range. */
static bool board_ok(int n)
{
    return n >= 1 && n <= NQ_COUNT_N_MAX;
}

nq_err nq_store_register_count(nq_store *s, int n, uint32_t plan, uint32_t tasks, uint32_t block_tasks, bool *created,
                               nq_store_count_view *st)
{
    if (!s || !board_ok(n) || tasks == 0 || block_tasks == 0 || !created) return NQ_E_ARG;
    nq_store_count_view local;
    return s->be->register_count(s->impl, n, plan, tasks, block_tasks, created, st ? st : &local);
}

nq_err nq_store_count_state(nq_store *s, int n, nq_store_count_view *st, bool *found)
{
    if (!s || !board_ok(n) || !st || !found) return NQ_E_ARG;
    return s->be->count_state(s->impl, n, st, found);
}

nq_err nq_store_each_count_state(nq_store *s, nq_store_count_view_fn fn, nq_store_damaged_fn damaged, void *arg)
{
    return s && fn ? s->be->each_count_state(s->impl, fn, damaged, arg) : NQ_E_ARG;
}

nq_err nq_store_claim_block(nq_store *s, uint32_t lease_ms, int max_n, uint32_t plan, nq_store_claim *claim, bool *got)
{
    if (!s || lease_ms == 0 || !claim || !got) return NQ_E_ARG;
    memset(claim, 0, sizeof *claim);
    *got = false;
    return s->be->claim_block(s->impl, lease_ms, max_n, plan, claim, got);
}

/* A claim as nq_store_claim_block makes them. */
static bool claim_ok(const nq_store_claim *c)
{
    return c && board_ok(c->n) && c->token != 0 && c->tasks > 0;
}

nq_err nq_store_renew(nq_store *s, nq_store_claim *claim, uint32_t lease_ms)
{
    return s && claim_ok(claim) && lease_ms > 0 ? s->be->renew(s->impl, claim, lease_ms) : NQ_E_ARG;
}

nq_err nq_store_commit_tasks(nq_store *s, const nq_store_claim *claim, const uint8_t *done, const nq_count_sums *sums)
{
    return s && claim_ok(claim) && done && sums ? s->be->commit_tasks(s->impl, claim, done, sums) : NQ_E_ARG;
}

nq_err nq_store_finish_block(nq_store *s, const nq_store_claim *claim, const nq_count_sums *sums, bool *count_done)
{
    bool local = false;
    if (!s || !claim_ok(claim) || !sums) return NQ_E_ARG;
    return s->be->finish_block(s->impl, claim, sums, count_done ? count_done : &local);
}

nq_err nq_store_release(nq_store *s, const nq_store_claim *claim)
{
    return s && claim_ok(claim) ? s->be->release(s->impl, claim) : NQ_E_ARG;
}

void nq_store_claim_clear(nq_store_claim *claim)
{
    if (!claim) return;
    free(claim->done);
    memset(claim, 0, sizeof *claim);
}

nq_err nq_store_forget_count(nq_store *s, int n)
{
    return s && board_ok(n) ? s->be->forget_count(s->impl, n) : NQ_E_ARG;
}
