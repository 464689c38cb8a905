/* pg_fixture.c - a real PostgreSQL for the tests that need one (pg_fixture.h). */
#define _GNU_SOURCE /* mkdtemp */
#include "pg_fixture.h"

#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The runner's process id (nq_pg_fixture_begin), which names its cases' clusters. */
static pid_t runner;

void nq_pg_fixture_begin(void)
{
    runner = getpid();
}

void nq_pg_fixture_end(void)
{
    char pattern[64];
    (void)snprintf(pattern, sizeof pattern, "/tmp/nq-pg-%ld-*", (long)runner);
    glob_t left;
    if (glob(pattern, 0, NULL, &left) != 0) return;
    for (size_t i = 0; i < left.gl_pathc; i++) {
        char cmd[512];
        (void)snprintf(cmd, sizeof cmd, "bash %s stop %s/db && rmdir %s", NQ_PG_SCRIPT, left.gl_pathv[i],
                       left.gl_pathv[i]);
        if (system(cmd) != 0) fprintf(stderr, "could not remove the cluster in %s\n", left.gl_pathv[i]);
    }
    globfree(&left);
}

bool nq_pg_available(const char *test)
{
    const char *pg = getenv("NQ_TEST_PG");
    if (pg && pg[0]) return true;
    fprintf(stderr, "%s: skipped (NQ_TEST_PG is not set: scripts/pg_test_server.sh start DIR)\n", test);
    return false;
}

void nq_pg_sql(const char *conn, const char *stmt)
{
    char cmd[2048];
    const int len = snprintf(cmd, sizeof cmd, "psql '%s' -qAtc \"%s\" >/dev/null 2>&1", conn, stmt);
    ck_assert(len > 0 && (size_t)len < sizeof cmd);
    ck_assert_msg(system(cmd) == 0, "%s", cmd);
}

bool nq_pg_fresh_database(const char *test, char *conn, size_t cap)
{
    if (!nq_pg_available(test)) return false;
    const char *pg = getenv("NQ_TEST_PG");
    char name[64], stmt[128];
    (void)snprintf(name, sizeof name, "nq_%ld_%s", (long)getpid(), test);
    (void)snprintf(stmt, sizeof stmt, "DROP DATABASE IF EXISTS %s", name);
    nq_pg_sql(pg, stmt);
    (void)snprintf(stmt, sizeof stmt, "CREATE DATABASE %s", name);
    nq_pg_sql(pg, stmt);
    const int len = snprintf(conn, cap, "%s dbname=%s", pg, name); /* a later dbname= wins in key=value */
    ck_assert(len > 0 && (size_t)len < cap);
    return true;
}

void nq_pg_cluster_init(nq_pg_cluster *c)
{
    memset(c, 0, sizeof *c);
    (void)snprintf(c->dir, sizeof c->dir, "/tmp/nq-pg-%ld-XXXXXX", (long)(runner ? runner : getpid()));
    ck_assert_ptr_nonnull(mkdtemp(c->dir));
    ck_assert_int_eq(chmod(c->dir, 0755), 0); /* as root the cluster runs as postgres, who must reach db/ */
    (void)snprintf(c->data, sizeof c->data, "%s/db", c->dir);
}

void nq_pg_cluster_ctl(nq_pg_cluster *c, const char *verb, const char *extra)
{
    char cmd[512];
    (void)snprintf(cmd, sizeof cmd, "bash %s %s %s %s", NQ_PG_SCRIPT, verb, c->data, extra);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char line[256] = "";
    if (!fgets(line, sizeof line, p)) line[0] = '\0';
    line[strcspn(line, "\n")] = '\0';
    ck_assert_msg(pclose(p) == 0, "%s", cmd);
    if (strcmp(verb, "start") == 0) {
        ck_assert_msg(line[0] != '\0', "%s printed no connection string", cmd);
        (void)snprintf(c->conninfo, sizeof c->conninfo, "%s", line);
    }
}

void nq_pg_cluster_remove(nq_pg_cluster *c)
{
    nq_pg_cluster_ctl(c, "stop", "");
    ck_assert_int_eq(rmdir(c->dir), 0);
}
