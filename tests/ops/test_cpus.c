/* test_cpus.c - unit tests of the CPUs nqueensd may use: cgroup CPU quotas read from fake cgroup
 * trees (v2, hybrid, v1, nested limits, containers with and without their own cgroup namespace,
 * malformed files), and the affinity mask of this process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, sched_getaffinity, CPU_COUNT */
#endif
#include "cpus.h"

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_run.h"

#define FILES_MAX 4

/* A file of a fake tree: its path below the tree's root ("" ends the list) and its text. */
typedef struct fake_file {
    const char *path;
    const char *text;
} fake_file;

static const struct {
    const char *name;
    const char *proc_cgroup;    /* /proc/self/cgroup */
    fake_file files[FILES_MAX]; /* below the fake /sys/fs/cgroup */
    unsigned want;
} rows[] = {
    {"v2 container, its own limit", "0::/\n", {{"cgroup.controllers", "cpu memory\n"}, {"cpu.max", "200000 100000\n"}}, 2},
    {"v2 quota rounded up", "0::/\n", {{"cgroup.controllers", ""}, {"cpu.max", "150000 100000\n"}}, 2},
    {"v2 below one CPU", "0::/\n", {{"cgroup.controllers", ""}, {"cpu.max", "50000 100000\n"}}, 1},
    {"v2 no limit", "0::/\n", {{"cgroup.controllers", ""}, {"cpu.max", "max 100000\n"}}, 0},
    {"v2 limit on the parent only",
     "0::/kubepods/pod1/ctr\n",
     {{"cgroup.controllers", ""}, {"kubepods/pod1/cpu.max", "300000 100000\n"}, {"kubepods/pod1/ctr/cpu.max", "max 100000\n"}},
     3},
    {"v2 the tighter of two levels",
     "0::/kubepods/pod1/ctr\n",
     {{"cgroup.controllers", ""}, {"kubepods/pod1/cpu.max", "400000 100000\n"}, {"kubepods/pod1/ctr/cpu.max", "100000 50000\n"}},
     2},
    {"v2 on a hybrid system (unified)", "1:cpu:/\n0::/svc\n", {{"unified/cgroup.controllers", ""}, {"unified/svc/cpu.max", "100000 100000\n"}}, 1},
    {"v1 cpu,cpuacct without a cgroup namespace",
     "4:cpu,cpuacct:/docker/abc\n0::/\n",
     {{"cpu,cpuacct/cpu.cfs_quota_us", "250000\n"}, {"cpu,cpuacct/cpu.cfs_period_us", "100000\n"}},
     3},
    {"v1 no limit", "2:cpu:/\n", {{"cpu/cpu.cfs_quota_us", "-1\n"}, {"cpu/cpu.cfs_period_us", "100000\n"}}, 0},
    {"v1 cpuacct alone is not cpu", "2:cpuacct:/\n", {{"cpu/cpu.cfs_quota_us", "100000\n"}, {"cpu/cpu.cfs_period_us", "100000\n"}}, 0},
    {"v1 and v2 both: the tighter", "3:cpu:/\n0::/\n",
     {{"cgroup.controllers", ""}, {"cpu.max", "400000 100000\n"}, {"cpu/cpu.cfs_quota_us", "100000\n"}, {"cpu/cpu.cfs_period_us", "100000\n"}},
     1},
    {"malformed: a word", "0::/\n", {{"cgroup.controllers", ""}, {"cpu.max", "lots 100000\n"}}, 0},
    {"malformed: zero period", "0::/\n", {{"cgroup.controllers", ""}, {"cpu.max", "100000 0\n"}}, 0},
    {"malformed: negative quota", "0::/\n", {{"cgroup.controllers", ""}, {"cpu.max", "-5 100000\n"}}, 0},
    {"malformed: trailing text", "0::/\n", {{"cgroup.controllers", ""}, {"cpu.max", "100000 100000 x\n"}}, 0},
    {"malformed: no period", "0::/\n", {{"cgroup.controllers", ""}, {"cpu.max", "100000\n"}}, 0},
    {"malformed: relative path", "0::kubepods\n", {{"cgroup.controllers", ""}, {"cpu.max", "100000 100000\n"}}, 0},
    {"no cgroup files", "0::/\n", {{"", ""}}, 0},
    {"empty /proc/self/cgroup", "", {{"cgroup.controllers", ""}, {"cpu.max", "100000 100000\n"}}, 0},
};

/* mkdir -p of the directories in path (below root), then write text to it. */
static void put_file(const char *root, const char *path, const char *text)
{
    char full[512];
    ck_assert_int_lt(snprintf(full, sizeof full, "%s/%s", root, path), (int)sizeof full);
    for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        ck_assert(mkdir(full, 0700) == 0 || errno == EEXIST);
        *p = '/';
    }
    FILE *const f = fopen(full, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path);
}

START_TEST(quota_from_fake_trees)
{
    char root[] = "/tmp/nq-cpus-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(root));
    char tree[600];
    char proc[600];
    snprintf(tree, sizeof tree, "%s/sys", root);
    snprintf(proc, sizeof proc, "%s/proc-self-cgroup", root);
    ck_assert_int_eq(mkdir(tree, 0700), 0);
    put_file(root, "proc-self-cgroup", rows[_i].proc_cgroup);
    for (size_t k = 0; k < FILES_MAX && rows[_i].files[k].path != NULL && rows[_i].files[k].path[0] != '\0'; k++) {
        put_file(tree, rows[_i].files[k].path, rows[_i].files[k].text);
    }
    ck_assert_msg(nq_cpus_quota(proc, tree) == rows[_i].want, "%s: %u CPUs, want %u", rows[_i].name,
                  nq_cpus_quota(proc, tree), rows[_i].want);
    ck_assert_int_eq(nftw(root, remove_entry, 8, FTW_DEPTH | FTW_PHYS), 0); /* children first */
}
END_TEST

START_TEST(missing_files_impose_nothing)
{
    ck_assert_uint_eq(nq_cpus_quota("/nonexistent/cgroup", "/sys/fs/cgroup"), 0);
    ck_assert_uint_eq(nq_cpus_quota(NULL, "/sys/fs/cgroup"), 0);
    ck_assert_uint_eq(nq_cpus_quota("/proc/self/cgroup", NULL), 0);
}
END_TEST

/* This process: never more than its affinity mask, never less than 1, and pinning it to one CPU
 * gives 1 (what the server's start-up line then reports: test_http_ops). */
START_TEST(available_follows_the_affinity_mask)
{
    cpu_set_t mask;
    ck_assert_int_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
    const unsigned avail = nq_cpus_available();
    ck_assert_uint_ge(avail, 1);
    ck_assert_uint_le(avail, (unsigned)CPU_COUNT(&mask));
    const unsigned quota = nq_cpus_quota("/proc/self/cgroup", "/sys/fs/cgroup");
    ck_assert_uint_eq(avail, quota != 0 && quota < (unsigned)CPU_COUNT(&mask) ? quota : (unsigned)CPU_COUNT(&mask));
    cpu_set_t one;
    CPU_ZERO(&one);
    for (size_t c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &mask)) {
            CPU_SET(c, &one);
            break;
        }
    }
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
    ck_assert_uint_eq(nq_cpus_available(), 1);
    ck_assert_int_eq(sched_setaffinity(0, sizeof mask, &mask), 0);
}
END_TEST

static Suite *cpus_suite(void)
{
    Suite *const s = suite_create("cpus");
    TCase *const tc = tcase_create("cpus");
    tcase_add_loop_test(tc, quota_from_fake_trees, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, missing_files_impose_nothing);
    tcase_add_test(tc, available_follows_the_affinity_mask);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return nq_check_run(cpus_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
