/* test_store_blocks.c - counts registered for the whole store, their blocks and leases, through the
 * one interface of store.h on both backends: SQLite (a file) and PostgreSQL (a database of the server
 * NQ_TEST_PG names: a libpq connection string; scripts/test.sh always sets it, scripts/
 * pg_test_server.sh starts one). Each case runs once per backend; without NQ_TEST_PG the PostgreSQL
 * runs are skipped with a message. Cases that stop a database or need a password start their own
 * throwaway server with that script.
 *
 * Leases are judged by the database's clock: a case that needs one to lapse waits until the store
 * itself says no block is leased, never for a fixed time, and no case bounds a time from above. */
#define _GNU_SOURCE /* mkdtemp, setenv */
#include <check.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "check_run.h"
#include "pg/pg_fixture.h"
#include "store/common.h"
#include "store/store.h"

enum { SQLITE_BE = 0, PG_BE = 1, BACKENDS = 2 };

#define PLAN 5 /* the plan version the cases register their counts with */

/* One store to test: a file in a fresh directory, or a fresh database on the NQ_TEST_PG server. */
typedef struct fixture {
    int backend;
    char dir[64];        /* SQLite: the directory */
    char location[1024]; /* what nq_store_open is given */
    char db[64];         /* PostgreSQL: the database made for the case */
} fixture;

/* NQ_TEST_PG with dbname replaced by db, as key=value pairs, into out. */
static void conninfo_with_db(const char *base, const char *db, char *out, size_t cap)
{
    char *why = NULL;
    PQconninfoOption *opts = PQconninfoParse(base, &why);
    ck_assert_msg(opts != NULL, "NQ_TEST_PG does not parse");
    size_t len = 0;
    out[0] = '\0';
    for (const PQconninfoOption *o = opts; o->keyword; o++) {
        const bool is_db = strcmp(o->keyword, "dbname") == 0;
        const char *v = is_db ? db : o->val;
        if (!v || !v[0]) continue;
        len += (size_t)snprintf(out + len, cap - len, "%s%s='%s'", len ? " " : "", o->keyword, v);
        ck_assert_uint_lt(len, cap);
    }
    if (!strstr(out, "dbname=")) (void)snprintf(out + len, cap - len, " dbname='%s'", db);
    PQconninfoFree(opts);
}

/* Run sql on the database conninfo names (the test's own connection). */
static void pg_sql(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    ck_assert_msg(PQstatus(c) == CONNECTION_OK, "%s", PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    const ExecStatusType st = PQresultStatus(r);
    ck_assert_msg(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK, "%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

/* Make the fixture's store location; false (with the reason printed) when the backend is not
 * available in this run. */
static bool fixture_make(fixture *f, int backend)
{
    memset(f, 0, sizeof *f);
    f->backend = backend;
    if (backend == SQLITE_BE) {
        snprintf(f->dir, sizeof f->dir, "/tmp/nq-store-blocks-XXXXXX");
        ck_assert_ptr_nonnull(mkdtemp(f->dir));
        snprintf(f->location, sizeof f->location, "%s/s.db", f->dir);
        return true;
    }
    const char *base = getenv("NQ_TEST_PG");
    if (!base || !base[0]) {
        fprintf(stderr, "SKIPPED (PostgreSQL): NQ_TEST_PG is not set; scripts/test.sh sets it\n");
        return false;
    }
    static int serial;
    snprintf(f->db, sizeof f->db, "nqt_%d_%d_%ld", (int)getpid(), serial++, (long)time(NULL));
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", f->db);
    pg_sql(base, sql);
    conninfo_with_db(base, f->db, f->location, sizeof f->location);
    return true;
}

static void fixture_remove(fixture *f)
{
    if (f->backend == SQLITE_BE) {
        static const char *const suffixes[] = {"", "-wal", "-shm"};
        for (size_t i = 0; i < 3; i++) {
            char p[1100];
            snprintf(p, sizeof p, "%s%s", f->location, suffixes[i]);
            (void)unlink(p);
        }
        ck_assert_int_eq(rmdir(f->dir), 0);
        return;
    }
    char sql[128];
    snprintf(sql, sizeof sql, "DROP DATABASE %s WITH (FORCE)", f->db);
    pg_sql(getenv("NQ_TEST_PG"), sql);
}

static nq_store *open_ok(const char *location)
{
    nq_store *s = NULL;
    char err[512] = "";
    const nq_err rc = nq_store_open(location, &s, err, sizeof err);
    ck_assert_msg(rc == NQ_OK, "open: %s (%s)", err, nq_error_name(rc));
    return s;
}

static nq_store_count_view view_of(nq_store *s, int n)
{
    nq_store_count_view v;
    bool found = false;
    ck_assert_int_eq(nq_store_count_state(s, n, &v, &found), NQ_OK);
    ck_assert(found);
    return v;
}

/* Wait until the database's clock has passed every lease of n (the store says none is held). */
static void wait_leases_lapse(nq_store *s, int n)
{
    while (view_of(s, n).blocks_leased > 0) {
        const struct timespec ts = {0, 20000000L}; /* 20 ms */
        nanosleep(&ts, NULL);
    }
}

#define FIXTURE(f) \
    fixture f;     \
    if (!fixture_make(&(f), _i)) return;

/* ---- registration -------------------------------------------------------------------------------- */

START_TEST(register_makes_one_row_and_its_blocks)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    bool created = false;
    nq_store_count_view v;
    ck_assert_int_eq(nq_store_register_count(s, 10, PLAN, 10, 3, &created, &v), NQ_OK);
    ck_assert(created);
    ck_assert_int_eq(v.n, 10);
    ck_assert_int_eq(v.status, NQ_STORE_QUEUED);
    ck_assert_uint_eq(v.plan, PLAN);
    ck_assert_uint_eq(v.tasks, 10);
    ck_assert_uint_eq(v.block_tasks, 3);
    ck_assert_uint_eq(v.blocks, 4); /* 3 + 3 + 3 + 1 */
    ck_assert_uint_eq(v.tasks_done, 0);
    ck_assert_int_gt(v.started_at_ms, 1700000000000LL);
    ck_assert_uint_gt(nq_store_bytes(s), 0);
    nq_store_count_view again;
    ck_assert_int_eq(nq_store_register_count(s, 10, PLAN, 10, 3, &created, &again), NQ_OK);
    ck_assert(!created);
    ck_assert_int_eq(again.started_at_ms, v.started_at_ms); /* the first registration's */
    bool found = true;
    ck_assert_int_eq(nq_store_count_state(s, 11, &v, &found), NQ_OK);
    ck_assert(!found);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

typedef struct racer {
    nq_store *s; /* its own handle (PostgreSQL: its own connection), or a shared one */
    int n;
    bool created;
    nq_err rc;
    pthread_barrier_t *go;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    pthread_barrier_wait(r->go);
    r->rc = nq_store_register_count(r->s, r->n, PLAN, 40, 4, &r->created, NULL);
    return NULL;
}

START_TEST(two_registering_at_once_make_one_count)
{
    FIXTURE(f);
    /* PostgreSQL: two handles, as two replicas; SQLite has one replica per file, so one handle. */
    nq_store *a = open_ok(f.location);
    nq_store *b = f.backend == PG_BE ? open_ok(f.location) : a;
    for (int n = 5; n <= 16; n++) {
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        racer r[2] = {{a, n, false, NQ_OK, &go}, {b, n, false, NQ_OK, &go}};
        pthread_t t[2];
        for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, race, &r[i]), 0);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
        pthread_barrier_destroy(&go);
        ck_assert_int_eq(r[0].rc, NQ_OK);
        ck_assert_int_eq(r[1].rc, NQ_OK);
        ck_assert_msg(r[0].created != r[1].created, "n=%d: exactly one registration makes the row", n);
        ck_assert_uint_eq(view_of(a, n).blocks, 10);
    }
    if (b != a) nq_store_close(b);
    nq_store_close(a);
    fixture_remove(&f);
}
END_TEST

/* ---- claims, leases, finishing -------------------------------------------------------------------- */

/* n = 8 in three blocks whose sums make its known counts: 92 solutions, 12 classes (96 / 8). */
static const nq_count_sums eight[3] = {{30, 32}, {30, 32}, {32, 32}};

START_TEST(claims_take_each_block_once_and_the_last_finishes_the_count)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    bool created = false, got = false;
    nq_store_count_view v;
    ck_assert_int_eq(nq_store_register_count(s, 8, PLAN, 5, 2, &created, &v), NQ_OK);
    nq_store_claim c[4];
    for (uint32_t i = 0; i < 3; i++) {
        ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c[i], &got), NQ_OK);
        ck_assert(got);
        ck_assert_int_eq(c[i].n, 8);
        ck_assert_uint_eq(c[i].block, i);
        ck_assert_uint_eq(c[i].first_task, (uintmax_t)2 * i);
        ck_assert_uint_eq(c[i].tasks, i < 2 ? 2 : 1);
        ck_assert_uint_eq(c[i].count_tasks, 5);
        ck_assert_uint_ne(c[i].token, 0);
        ck_assert_int_ge(c[i].lease_until_ms, v.started_at_ms + 60000); /* the database's now + lease */
        for (uint32_t t = 0; t < c[i].tasks; t++) ck_assert_uint_eq(c[i].done[t], 0);
    }
    ck_assert_int_eq(view_of(s, 8).status, NQ_STORE_RUNNING);
    ck_assert_uint_eq(view_of(s, 8).blocks_leased, 3);
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c[3], &got), NQ_OK);
    ck_assert(!got); /* every block is leased */
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 7, PLAN, &c[3], &got), NQ_OK);
    ck_assert(!got); /* nor are counts above max_n offered, */
    const int64_t before = c[0].lease_until_ms;
    ck_assert_int_eq(nq_store_renew(s, &c[0], 120000), NQ_OK);
    ck_assert_int_ge(c[0].lease_until_ms, before);
    bool count_done = true;
    ck_assert_int_eq(nq_store_finish_block(s, &c[0], &eight[0], &count_done), NQ_OK);
    ck_assert(!count_done);
    ck_assert_int_eq(nq_store_finish_block(s, &c[2], &eight[2], &count_done), NQ_OK);
    ck_assert(!count_done);
    ck_assert_uint_eq(view_of(s, 8).tasks_done, 3);
    ck_assert_int_eq(nq_store_finish_block(s, &c[1], &eight[1], &count_done), NQ_OK);
    ck_assert(count_done);
    v = view_of(s, 8);
    ck_assert_int_eq(v.status, NQ_STORE_DONE);
    ck_assert_uint_eq(v.counts.total, 92);
    ck_assert_uint_eq(v.counts.unique, 12);
    ck_assert_uint_eq(v.tasks_done, 5);
    ck_assert_int_eq(nq_store_finish_block(s, &c[1], &eight[1], &count_done), NQ_E_STORE_LOST); /* once */
    ck_assert_int_eq(nq_store_register_count(s, 8, PLAN, 5, 2, &created, &v), NQ_OK);
    ck_assert(!created);
    ck_assert_int_eq(v.status, NQ_STORE_DONE);
    for (int i = 0; i < 4; i++) nq_store_claim_clear(&c[i]);
    nq_store_close(s);
    /* and the finished count is a finished count for the old readers too, across a reopen */
    s = open_ok(f.location);
    ck_assert_uint_eq(view_of(s, 8).counts.total, 92);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

START_TEST(a_lapsed_lease_is_lost_and_its_progress_goes_to_the_next_claim)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    bool created = false, got = false, count_done = false;
    ck_assert_int_eq(nq_store_register_count(s, 9, PLAN, 4, 4, &created, NULL), NQ_OK);
    nq_store_claim old, next;
    ck_assert_int_eq(nq_store_claim_block(s, 200, 27, PLAN, &old, &got), NQ_OK);
    ck_assert(got);
    const uint8_t half[4] = {1, 0, 1, 0};
    const nq_count_sums some = {100, 200};
    /* Committed while the lease holds (a lease of 200 ms may lapse first on a loaded machine: then
     * the commit says so, and the next claim starts from nothing). */
    const nq_err committed = nq_store_commit_tasks(s, &old, half, &some);
    ck_assert(committed == NQ_OK || committed == NQ_E_STORE_LOST);
    wait_leases_lapse(s, 9);
    ck_assert_int_eq(nq_store_renew(s, &old, 60000), NQ_E_STORE_LOST);
    ck_assert_int_eq(nq_store_commit_tasks(s, &old, half, &some), NQ_E_STORE_LOST);
    ck_assert_int_eq(nq_store_finish_block(s, &old, &some, &count_done), NQ_E_STORE_LOST);
    ck_assert(!count_done);
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &next, &got), NQ_OK);
    ck_assert(got);
    ck_assert_uint_eq(next.block, old.block);
    ck_assert_uint_ne(next.token, old.token);
    if (committed == NQ_OK) {
        ck_assert_mem_eq(next.done, half, 4);
        ck_assert_uint_eq(next.sums.total, 100);
        ck_assert_uint_eq(next.sums.burnside, 200);
        ck_assert_uint_eq(view_of(s, 9).tasks_done, 2);
    }
    /* the old claim stays refused while the new one holds the block */
    ck_assert_int_eq(nq_store_finish_block(s, &old, &some, &count_done), NQ_E_STORE_LOST);
    ck_assert_int_eq(nq_store_release(s, &old), NQ_OK); /* a no-op: not its lease */
    const nq_count_sums all = {352, 368};               /* n = 9: 352 solutions, 46 classes */
    ck_assert_int_eq(nq_store_finish_block(s, &next, &all, &count_done), NQ_OK);
    ck_assert(count_done);
    ck_assert_uint_eq(view_of(s, 9).counts.total, 352);
    ck_assert_uint_eq(view_of(s, 9).counts.unique, 46);
    nq_store_claim_clear(&old);
    nq_store_claim_clear(&next);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

/* A claim says it takes the block over exactly when an earlier claim's lease lapsed on it: not for a
 * fresh block, not for one given back (even with work committed), not for one finished. */
START_TEST(a_claim_is_taken_over_only_from_a_lapsed_lease)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    bool created = false, got = false, count_done = false;
    ck_assert_int_eq(nq_store_register_count(s, 9, PLAN, 4, 2, &created, NULL), NQ_OK);
    nq_store_claim c;
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(got);
    ck_assert_uint_eq(c.block, 0);
    ck_assert(!c.taken_over); /* fresh */
    const uint8_t first[2] = {1, 0};
    const nq_count_sums some = {100, 200};
    ck_assert_int_eq(nq_store_commit_tasks(s, &c, first, &some), NQ_OK);
    ck_assert_int_eq(nq_store_release(s, &c), NQ_OK);
    nq_store_claim_clear(&c);
    /* given back with work committed: resumed from there, not taken over */
    ck_assert_int_eq(nq_store_claim_block(s, 200, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(got);
    ck_assert_uint_eq(c.block, 0);
    ck_assert_mem_eq(c.done, first, 2);
    ck_assert(!c.taken_over);
    nq_store_claim_clear(&c);
    /* that claim's lease lapses: the next claim takes the block over */
    wait_leases_lapse(s, 9);
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(got);
    ck_assert_uint_eq(c.block, 0);
    ck_assert(c.taken_over);
    const nq_count_sums half = {176, 184}; /* the two blocks add up to n = 9: 352 and 368 */
    ck_assert_int_eq(nq_store_finish_block(s, &c, &half, &count_done), NQ_OK);
    ck_assert(!count_done);
    nq_store_claim_clear(&c);
    /* the other block was never claimed: fresh */
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(got);
    ck_assert_uint_eq(c.block, 1);
    ck_assert(!c.taken_over);
    ck_assert_int_eq(nq_store_finish_block(s, &c, &half, &count_done), NQ_OK);
    ck_assert(count_done);
    ck_assert_uint_eq(view_of(s, 9).counts.total, 352);
    nq_store_claim_clear(&c);
    /* nothing left: a finished block is never claimed again */
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(!got);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

START_TEST(progress_never_goes_back)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    bool created = false, got = false;
    ck_assert_int_eq(nq_store_register_count(s, 12, PLAN, 6, 3, &created, NULL), NQ_OK);
    nq_store_claim c;
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c, &got), NQ_OK);
    const uint8_t two[3] = {1, 1, 0}, one[3] = {0, 0, 1};
    const nq_count_sums s2 = {10, 20}, s1 = {5, 10};
    uint32_t seen = 0;
    ck_assert_int_eq(nq_store_commit_tasks(s, &c, two, &s2), NQ_OK);
    ck_assert_uint_ge(view_of(s, 12).tasks_done, seen);
    seen = view_of(s, 12).tasks_done;
    ck_assert_uint_eq(seen, 2);
    ck_assert_int_eq(nq_store_commit_tasks(s, &c, one, &s1), NQ_E_ARG); /* one task < two: refused */
    ck_assert_uint_eq(view_of(s, 12).tasks_done, 2);
    ck_assert_int_eq(nq_store_release(s, &c), NQ_OK); /* progress kept, block free again */
    ck_assert_uint_eq(view_of(s, 12).tasks_done, 2);
    ck_assert_uint_eq(view_of(s, 12).blocks_leased, 0);
    nq_store_claim again;
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &again, &got), NQ_OK);
    ck_assert_uint_eq(again.block, c.block);
    ck_assert_mem_eq(again.done, two, 3);
    nq_store_claim_clear(&c);
    nq_store_claim_clear(&again);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

START_TEST(only_the_counts_own_plan_claims_its_blocks)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    bool created = false, got = true;
    ck_assert_int_eq(nq_store_register_count(s, 13, PLAN + 1, 2, 2, &created, NULL), NQ_OK);
    nq_store_claim c;
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(!got);
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN + 1, &c, &got), NQ_OK);
    ck_assert(got);
    nq_store_claim_clear(&c);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

static bool count_views(void *arg, const nq_store_count_view *v)
{
    int *seen = arg;
    seen[v->n] = (int)v->status + 1;
    return true;
}

START_TEST(a_short_count_is_listed_and_ends_a_registered_one)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    bool created = false;
    ck_assert_int_eq(nq_store_register_count(s, 14, PLAN, 4, 2, &created, NULL), NQ_OK);
    const nq_store_count c7 = {7, {40, 6}, 0.5, 1700000000}, c14 = {14, {365596, 45752}, 3.0, 1700000100};
    ck_assert_int_eq(nq_store_put_count(s, &c7), NQ_OK);
    ck_assert_int_eq(nq_store_put_count(s, &c14), NQ_OK);
    int seen[28] = {0};
    ck_assert_int_eq(nq_store_each_count_state(s, count_views, NULL, seen), NQ_OK);
    ck_assert_int_eq(seen[7], NQ_STORE_DONE + 1);
    ck_assert_int_eq(seen[14], NQ_STORE_DONE + 1);
    const nq_store_count_view v7 = view_of(s, 7);
    ck_assert_uint_eq(v7.counts.total, 40);
    ck_assert_uint_eq(v7.tasks, 0); /* never registered */
    ck_assert_int_eq(v7.finished_at, 1700000000);
    bool got = true;
    nq_store_claim c;
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(!got); /* 14 is done: nothing to claim */
    ck_assert_int_eq(nq_store_forget_count(s, 14), NQ_OK);
    bool found = true;
    nq_store_count_view v;
    ck_assert_int_eq(nq_store_count_state(s, 14, &v, &found), NQ_OK);
    ck_assert(!found);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

static bool one_count(void *arg, const nq_store_count *c)
{
    *(nq_store_count *)arg = *c;
    return true;
}

static bool one_checkpoint(void *arg, const nq_store_checkpoint *cp)
{
    nq_store_checkpoint *out = arg;
    *out = *cp;
    out->done = NULL; /* borrowed: valid during the call only */
    ck_assert_uint_eq(cp->done[0], 1);
    ck_assert_uint_eq(cp->done[1], 0);
    ck_assert_uint_eq(cp->done[2], 1);
    return true;
}

/* The calls of the single-replica service keep working on both backends. */
START_TEST(finished_counts_and_checkpoints_read_back)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    const uint8_t done[3] = {1, 0, 1};
    const nq_store_checkpoint cp = {18, PLAN, 3, done, {64, 128}, 2.5, 1700000000};
    const nq_store_count c = {16, {14772512, 1846955}, 120.25, 1700000200};
    ck_assert_int_eq(nq_store_put_checkpoint(s, &cp), NQ_OK);
    ck_assert_int_eq(nq_store_put_count(s, &c), NQ_OK);
    nq_store_close(s);
    s = open_ok(f.location);
    nq_store_count got = {0};
    nq_store_checkpoint back = {0};
    ck_assert_int_eq(nq_store_each_count(s, one_count, NULL, &got), NQ_OK);
    ck_assert_int_eq(got.n, 16);
    ck_assert_uint_eq(got.counts.total, 14772512);
    ck_assert_uint_eq(got.counts.unique, 1846955);
    ck_assert_double_eq(got.seconds, 120.25);
    ck_assert_int_eq(got.finished_at, 1700000200);
    ck_assert_int_eq(nq_store_each_checkpoint(s, one_checkpoint, NULL, &back), NQ_OK);
    ck_assert_int_eq(back.n, 18);
    ck_assert_uint_eq(back.tasks, 3);
    ck_assert_uint_eq(back.sums.burnside, 128);
    ck_assert_double_eq(back.elapsed_s, 2.5);
    ck_assert_int_eq(back.started_at, 1700000000);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

/* ---- PostgreSQL: many replicas -------------------------------------------------------------------- */

typedef struct claimer {
    nq_store *s;
    int got;           /* blocks it finished */
    uint8_t seen[100]; /* blocks it claimed */
} claimer;

static void *claim_all(void *arg)
{
    claimer *c = arg;
    for (;;) {
        nq_store_claim k;
        bool got = false, done = false;
        ck_assert_int_eq(nq_store_claim_block(c->s, 60000, 27, PLAN, &k, &got), NQ_OK);
        if (!got) break;
        c->seen[k.block]++;
        const nq_count_sums one = {1, 8};
        ck_assert_int_eq(nq_store_finish_block(c->s, &k, &one, &done), NQ_OK);
        c->got++;
        nq_store_claim_clear(&k);
    }
    return NULL;
}

START_TEST(replicas_claiming_at_once_take_every_block_once)
{
    FIXTURE(f);
    if (f.backend == SQLITE_BE) { /* one replica per file */
        fixture_remove(&f);
        return;
    }
    nq_store *a = open_ok(f.location), *b = open_ok(f.location);
    bool created = false;
    ck_assert_int_eq(nq_store_register_count(a, 11, PLAN, 100, 1, &created, NULL), NQ_OK);
    claimer c[2] = {{.s = a}, {.s = b}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++) ck_assert_int_eq(pthread_create(&t[i], NULL, claim_all, &c[i]), 0);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    ck_assert_int_eq(c[0].got + c[1].got, 100);
    for (int k = 0; k < 100; k++) ck_assert_int_eq(c[0].seen[k] + c[1].seen[k], 1);
    const nq_store_count_view v = view_of(b, 11);
    ck_assert_int_eq(v.status, NQ_STORE_DONE);
    ck_assert_uint_eq(v.counts.total, 100); /* one per block: none counted twice, none lost */
    ck_assert_uint_eq(v.counts.unique, 100);
    nq_store_close(b);
    nq_store_close(a);
    fixture_remove(&f);
}
END_TEST

typedef struct opener {
    const char *location;
    pthread_barrier_t *go;
    nq_store *s;
    nq_err rc;
} opener;

static void *open_at_once(void *arg)
{
    opener *o = arg;
    char err[512];
    pthread_barrier_wait(o->go);
    o->rc = nq_store_open(o->location, &o->s, err, sizeof err);
    return NULL;
}

START_TEST(replicas_starting_at_once_create_the_schema_once)
{
    FIXTURE(f);
    if (f.backend == SQLITE_BE) { /* one replica per file: a second open is refused, by design */
        fixture_remove(&f);
        return;
    }
    enum { REPLICAS = 4 };
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, REPLICAS);
    opener o[REPLICAS];
    pthread_t t[REPLICAS];
    for (int i = 0; i < REPLICAS; i++) {
        o[i] = (opener){f.location, &go, NULL, NQ_OK};
        ck_assert_int_eq(pthread_create(&t[i], NULL, open_at_once, &o[i]), 0);
    }
    for (int i = 0; i < REPLICAS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&go);
    for (int i = 0; i < REPLICAS; i++) {
        ck_assert_int_eq(o[i].rc, NQ_OK);
        ck_assert(nq_store_connected(o[i].s));
        nq_store_close(o[i].s);
    }
    PGconn *c = PQconnectdb(f.location);
    PGresult *r = PQexec(c, "SELECT count(*), min(version) FROM nq_schema");
    ck_assert_int_eq(PQresultStatus(r), PGRES_TUPLES_OK);
    ck_assert_str_eq(PQgetvalue(r, 0, 0), "1"); /* created once */
    ck_assert_int_eq(strtol(PQgetvalue(r, 0, 1), NULL, 10), NQ_STORE_SCHEMA_VERSION);
    PQclear(r);
    PQfinish(c);
    fixture_remove(&f);
}
END_TEST

/* ---- schema versions ------------------------------------------------------------------------------ */

static void sqlite_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    char *why = NULL;
    ck_assert_msg(sqlite3_exec(db, sql, NULL, NULL, &why) == SQLITE_OK, "%s: %s", sql, why ? why : "");
    sqlite3_close(db);
}

/* A store of the previous release (schema 2) with a running count of n = 17: 5 tasks of plan 5, three
 * done (the bytes 0 1 0 1 1), summing to 1000 / 2000, started at 1700000000. Its check values come
 * from the release that reads it: the store's own nq_check, as the previous release computed it. */
START_TEST(a_running_count_of_schema_2_upgrades_and_finishes)
{
    fixture f;
    ck_assert(fixture_make(&f, SQLITE_BE));
    nq_store *s = open_ok(f.location); /* a schema-3 file, taken back to what schema 2 had */
    nq_store_close(s);
    sqlite_sql(f.location, "DROP TABLE jobs; DROP TABLE blocks; DROP TABLE nq_schema_compat; "
                           "DELETE FROM nq_schema WHERE version = 3;");
    s = open_ok(f.location); /* migrated again: an empty schema 2 upgrades */
    const uint8_t done[5] = {0, 1, 0, 1, 1};
    const nq_store_checkpoint cp = {17, 5, 5, done, {1000, 2000}, 12.5, 1700000000};
    ck_assert_int_eq(nq_store_put_checkpoint(s, &cp), NQ_OK); /* written with this release's check values */
    nq_store_close(s);
    sqlite_sql(f.location, "DROP TABLE jobs; DROP TABLE blocks; DROP TABLE nq_schema_compat; "
                           "DELETE FROM nq_schema WHERE version = 3;");
    s = open_ok(f.location);
    const nq_store_count_view v = view_of(s, 17);
    ck_assert_int_eq(v.status, NQ_STORE_RUNNING);
    ck_assert_uint_eq(v.plan, 5);
    ck_assert_uint_eq(v.tasks, 5);
    ck_assert_uint_eq(v.tasks_done, 3); /* the tasks done are kept */
    ck_assert_int_eq(v.started_at_ms, 1700000000000LL);
    bool got = false, count_done = false;
    nq_store_claim c;
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, 5, &c, &got), NQ_OK);
    ck_assert(got);
    ck_assert_uint_eq(c.tasks, 5);
    const uint8_t flags[5] = {0, 1, 0, 1, 1};
    ck_assert_mem_eq(c.done, flags, 5);
    ck_assert_uint_eq(c.sums.total, 0); /* the checkpoint's sums are the count's, not the block's */
    const nq_count_sums rest = {100, 400};
    ck_assert_int_eq(nq_store_finish_block(s, &c, &rest, &count_done), NQ_OK);
    ck_assert(count_done);
    const nq_store_count_view fin = view_of(s, 17);
    ck_assert_int_eq(fin.status, NQ_STORE_DONE);
    ck_assert_uint_eq(fin.counts.total, 1100);
    ck_assert_uint_eq(fin.counts.unique, 300); /* (2000 + 400) / 8 */
    nq_store_claim_clear(&c);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

/* Record a schema version after this release's, with (oldest > 0) or without the oldest release
 * that can use it. */
static void record_later_schema(const fixture *f, int version, int oldest)
{
    char sql[256];
    if (f->backend == SQLITE_BE) {
        snprintf(sql, sizeof sql, "INSERT INTO nq_schema VALUES (%d, 0);", version);
        sqlite_sql(f->location, sql);
        if (oldest > 0) {
            snprintf(sql, sizeof sql, "INSERT INTO nq_schema_compat VALUES (%d, %d);", version, oldest);
            sqlite_sql(f->location, sql);
        }
        return;
    }
    snprintf(sql, sizeof sql, "INSERT INTO nq_schema VALUES (%d, 0, %d)", version, oldest > 0 ? oldest : version);
    pg_sql(f->location, sql);
}

START_TEST(a_later_schema_is_used_only_when_it_says_this_release_can)
{
    FIXTURE(f);
    nq_store *s = open_ok(f.location);
    nq_store_close(s);
    record_later_schema(&f, NQ_STORE_SCHEMA_VERSION + 1, NQ_STORE_SCHEMA_VERSION); /* expand only */
    s = open_ok(f.location);
    bool created = false;
    ck_assert_int_eq(nq_store_register_count(s, 10, PLAN, 2, 1, &created, NULL), NQ_OK);
    nq_store_close(s);
    record_later_schema(&f, NQ_STORE_SCHEMA_VERSION + 2, NQ_STORE_SCHEMA_VERSION + 1); /* contracts */
    char err[512] = "";
    s = NULL;
    ck_assert_int_eq(nq_store_open(f.location, &s, err, sizeof err), NQ_E_STORE_NEWER);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "newer nqueensd") != NULL, "%s", err);
    fixture_remove(&f);
}
END_TEST

START_TEST(sqlite_releases_leases_found_at_open)
{
    fixture f;
    ck_assert(fixture_make(&f, SQLITE_BE));
    nq_store *s = open_ok(f.location);
    bool created = false, got = false;
    ck_assert_int_eq(nq_store_register_count(s, 15, PLAN, 1, 1, &created, NULL), NQ_OK);
    nq_store_claim c;
    ck_assert_int_eq(nq_store_claim_block(s, 3600000, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(got);
    nq_store_close(s); /* as a process that died holding it */
    s = open_ok(f.location);
    ck_assert_uint_eq(view_of(s, 15).blocks_leased, 0);
    nq_store_claim again;
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &again, &got), NQ_OK);
    ck_assert(got);
    ck_assert_int_eq(nq_store_finish_block(s, &c, &c.sums, NULL), NQ_E_STORE_LOST);
    nq_store_claim_clear(&c);
    nq_store_claim_clear(&again);
    nq_store_close(s);
    fixture_remove(&f);
}
END_TEST

/* ---- locations and passwords ------------------------------------------------------------------------ */

static const struct redact_row {
    const char *in, *out;
} redactions[] = {
    {"postgresql://nq:hunter2@db:5432/nq", "postgresql://nq:***@db:5432/nq"},
    {"postgres://nq:p%40ss@db/nq?sslmode=require", "postgres://nq:***@db/nq?sslmode=require"},
    {"postgresql://nq@db/nq?password=hunter2&sslmode=disable", "postgresql://nq@db/nq?password=***&sslmode=disable"},
    {"postgresql:///nq?host=/run/pg", "postgresql:///nq?host=/run/pg"},
    {"postgresql://nq:p@ss@db/nq", "postgresql://nq:***@db/nq"}, /* an '@' left unencoded: all hidden */
    {"host=db user=nq password=hunter2 dbname=nq", "host=db user=nq password=*** dbname=nq"},
    {"host=db password = 'a b\\' c' dbname=nq", "host=db password = *** dbname=nq"},
    {"host=db user=nq dbname=nq", "host=db user=nq dbname=nq"},
};

START_TEST(locations_are_shown_without_their_password)
{
    char out[256];
    nq_store_redact(redactions[_i].in, out, sizeof out);
    ck_assert_str_eq(out, redactions[_i].out);
}
END_TEST

START_TEST(locations_choose_their_backend)
{
    ck_assert(nq_store_is_postgres("postgresql://db/nq"));
    ck_assert(nq_store_is_postgres("postgres://db/nq"));
    ck_assert(nq_store_is_postgres("host=/run/pg dbname=nq"));
    ck_assert(nq_store_is_postgres("dbname=nq host=db"));
    ck_assert(!nq_store_is_postgres("nqueens.db"));
    ck_assert(!nq_store_is_postgres("/var/lib/nq/a=b.db"));
    ck_assert(!nq_store_is_postgres("data/x=1"));
    ck_assert(!nq_store_is_postgres("none"));
}
END_TEST

#define PASSWORD "Sesame-7f3a91"

START_TEST(a_wrong_password_is_refused_and_never_shown)
{
    char loc[512], err[512];
    if (!nq_pg_available("wrong_password")) return;
    nq_pg_cluster db;
    nq_pg_cluster_init(&db);
    nq_pg_cluster_ctl(&db, "start", PASSWORD);
    const char *base = db.conninfo;
    nq_store *s = NULL;
    snprintf(loc, sizeof loc, "%s password=Wrong-%s", base, PASSWORD);
    ck_assert_int_eq(nq_store_open(loc, &s, err, sizeof err), NQ_E_STORE_IO); /* answers and refuses: exit 2 */
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(err, "refused") != NULL, "%s", err);
    ck_assert_msg(strstr(err, PASSWORD) == NULL, "the password shows: %s", err);
    /* the right one, in the string: works, and the location shown hides it */
    snprintf(loc, sizeof loc, "%s password=%s", base, PASSWORD);
    s = open_ok(loc);
    ck_assert_ptr_null(strstr(nq_store_path(s), PASSWORD));
    ck_assert(nq_store_connected(s));
    nq_store_close(s);
    /* the same as a URI */
    snprintf(loc, sizeof loc, "postgresql://nq:%s@/postgres?host=%s", PASSWORD, db.data);
    s = open_ok(loc);
    ck_assert_ptr_null(strstr(nq_store_path(s), PASSWORD));
    nq_store_close(s);
    /* from PGPASSWORD, as the docs advise */
    setenv("PGPASSWORD", PASSWORD, 1);
    s = open_ok(base);
    nq_store_close(s);
    unsetenv("PGPASSWORD");
    nq_pg_cluster_remove(&db);
}
END_TEST

START_TEST(a_stopped_database_is_unavailable_until_it_is_back)
{
    char err[512];
    if (!nq_pg_available("stopped_database")) return;
    nq_pg_cluster db;
    nq_pg_cluster_init(&db);
    nq_pg_cluster_ctl(&db, "start", "");
    const char *base = db.conninfo;
    nq_store *s = open_ok(base);
    bool created = false;
    ck_assert_int_eq(nq_store_register_count(s, 10, PLAN, 3, 1, &created, NULL), NQ_OK);
    nq_pg_cluster_ctl(&db, "stop", "--keep");
    nq_store_count_view v;
    bool found = false;
    ck_assert_int_eq(nq_store_count_state(s, 10, &v, &found), NQ_E_STORE_UNAVAILABLE);
    nq_store_claim c;
    bool got = true;
    ck_assert_int_eq(nq_store_claim_block(s, 60000, 27, PLAN, &c, &got), NQ_E_STORE_UNAVAILABLE);
    ck_assert(!got);
    ck_assert(!nq_store_connected(s));
    /* a replica starting now is not refused: it starts without the database */
    nq_store *late = NULL;
    ck_assert_int_eq(nq_store_open(base, &late, err, sizeof err), NQ_OK);
    ck_assert(!nq_store_connected(late));
    ck_assert_msg(strstr(err, "cannot be reached") != NULL, "%s", err);
    ck_assert_int_eq(nq_store_count_state(late, 10, &v, &found), NQ_E_STORE_UNAVAILABLE);
    nq_pg_cluster_ctl(&db, "restart", "");
    ck_assert_int_eq(nq_store_count_state(s, 10, &v, &found), NQ_OK); /* the next call reconnects */
    ck_assert(found);
    ck_assert_uint_eq(v.blocks, 3);
    ck_assert(nq_store_connected(s));
    ck_assert_int_eq(nq_store_claim_block(late, 60000, 27, PLAN, &c, &got), NQ_OK);
    ck_assert(got);
    nq_store_claim_clear(&c);
    nq_store_close(late);
    nq_store_close(s);
    nq_pg_cluster_remove(&db);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store_blocks");
    TCase *tc = tcase_create("both backends");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, register_makes_one_row_and_its_blocks, 0, BACKENDS);
    tcase_add_loop_test(tc, two_registering_at_once_make_one_count, 0, BACKENDS);
    tcase_add_loop_test(tc, claims_take_each_block_once_and_the_last_finishes_the_count, 0, BACKENDS);
    tcase_add_loop_test(tc, a_lapsed_lease_is_lost_and_its_progress_goes_to_the_next_claim, 0, BACKENDS);
    tcase_add_loop_test(tc, a_claim_is_taken_over_only_from_a_lapsed_lease, 0, BACKENDS);
    tcase_add_loop_test(tc, progress_never_goes_back, 0, BACKENDS);
    tcase_add_loop_test(tc, only_the_counts_own_plan_claims_its_blocks, 0, BACKENDS);
    tcase_add_loop_test(tc, a_short_count_is_listed_and_ends_a_registered_one, 0, BACKENDS);
    tcase_add_loop_test(tc, finished_counts_and_checkpoints_read_back, 0, BACKENDS);
    tcase_add_loop_test(tc, replicas_claiming_at_once_take_every_block_once, 0, BACKENDS);
    tcase_add_loop_test(tc, a_later_schema_is_used_only_when_it_says_this_release_can, 0, BACKENDS);
    tcase_add_loop_test(tc, replicas_starting_at_once_create_the_schema_once, 0, BACKENDS);
    tcase_add_test(tc, a_running_count_of_schema_2_upgrades_and_finishes);
    tcase_add_test(tc, sqlite_releases_leases_found_at_open);
    tcase_add_loop_test(tc, locations_are_shown_without_their_password, 0,
                        (int)(sizeof redactions / sizeof redactions[0]));
    tcase_add_test(tc, locations_choose_their_backend);
    suite_add_tcase(s, tc);
    tc = tcase_create("own servers"); /* each starts and stops a PostgreSQL of its own */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_wrong_password_is_refused_and_never_shown);
    tcase_add_test(tc, a_stopped_database_is_unavailable_until_it_is_back);
    suite_add_tcase(s, tc);
    nq_pg_fixture_begin();
    const int failed = nq_check_run(s);
    nq_pg_fixture_end();
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
