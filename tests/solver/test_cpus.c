/* test_cpus.c - unit tests of the CPUs a process may use (nqueens/cpus.h): cgroup CPU quotas read from fake
 * /proc/self/cgroup, /proc/self/mountinfo and cgroup trees (v2, hybrid, v1; nested limits; containers
 * with and without their own cgroup namespace; processes outside the mounted group; odd and
 * malformed files), and the affinity mask of this process. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkdtemp, sched_getaffinity, CPU_COUNT */
#endif
#include "nqueens/cpus.h"

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
#include "nqueens/solver.h"

#define FILES_MAX 4

/* A file of a fake cgroup tree: its path below the tree's root (NULL ends the list) and its text. */
typedef struct fake_file {
    const char *path;
    const char *text;
} fake_file;

/* In mountinfo texts "@" stands for the fake tree's root. */
#define V2_AT(root, point) "30 20 0:30 " root " " point " rw,relatime - cgroup2 cgroup2 rw\n"
#define V1_AT(root, point, super) "31 20 0:31 " root " " point " rw,relatime shared:9 - cgroup cgroup " super "\n"

static const struct {
    const char *name;
    const char *cgroup;    /* /proc/self/cgroup */
    const char *mountinfo; /* /proc/self/mountinfo */
    fake_file files[FILES_MAX];
    unsigned want;
} rows[] = {
    {"v2 container, its own limit", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "200000 100000\n"}}, 2},
    {"v2 quota rounded up", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "150000 100000\n"}}, 2},
    {"v2 below one CPU", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "50000 100000\n"}}, 1},
    {"v2 no limit", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "max 100000\n"}}, 0},
    {"v2 limit on the parent only",
     "0::/kubepods/pod1/ctr\n",
     V2_AT("/", "@"),
     {{"kubepods/pod1/cpu.max", "300000 100000\n"}, {"kubepods/pod1/ctr/cpu.max", "max 100000\n"}},
     3},
    {"v2 the tighter of two levels",
     "0::/kubepods/pod1/ctr\n",
     V2_AT("/", "@"),
     {{"kubepods/pod1/cpu.max", "400000 100000\n"}, {"kubepods/pod1/ctr/cpu.max", "100000 50000\n"}},
     2},
    {"v2 without a cgroup namespace: the mount shows the container's group",
     "0::/system.slice/docker-1.scope\n",
     V2_AT("/system.slice/docker-1.scope", "@"),
     {{"cpu.max", "300000 100000\n"}, {"system.slice/cpu.max", "100000 100000\n"}},
     3}, /* the second: a decoy */
    {"v2 the walk stops at the mount point",
     "0::/a\n",
     "1 0 0:1 / / rw - ext4 /dev/vda rw\n" V2_AT("/", "@/cg"),
     {{"cpu.max", "100000 100000\n"}, {"cg/a/cpu.max", "max 100000\n"}},
     0},
    {"v2 process outside the mounted group",
     "0::/elsewhere\n",
     V2_AT("/mine", "@"),
     {{"cpu.max", "300000 100000\n"}},
     3},
    {"hybrid: v2 in unified, cpu on v1",
     "1:cpu:/\n0::/svc\n",
     V1_AT("/", "@/cpu", "rw,cpu") V2_AT("/", "@/unified"),
     {{"unified/svc/cpu.max", "100000 100000\n"}},
     1},
    {"v1 cpu,cpuacct without a cgroup namespace",
     "4:cpu,cpuacct:/docker/abc\n0::/\n",
     V1_AT("/docker/abc", "@/cpu,cpuacct", "rw,cpu,cpuacct"),
     {{"cpu,cpuacct/cpu.cfs_quota_us", "250000\n"},
      {"cpu,cpuacct/cpu.cfs_period_us", "100000\n"},
      {"cpu,cpuacct/docker/cpu.cfs_quota_us", "100000\n"},
      {"cpu,cpuacct/docker/cpu.cfs_period_us", "100000\n"}},
     3},
    {"v1 cpuacct,cpu order",
     "4:cpuacct,cpu:/\n",
     V1_AT("/", "@/c", "rw,cpuacct,cpu"),
     {{"c/cpu.cfs_quota_us", "200000\n"}, {"c/cpu.cfs_period_us", "100000\n"}},
     2},
    {"v1 limit on an ancestor",
     "3:cpu:/a/b\n",
     V1_AT("/", "@", "rw,cpu"),
     {{"a/cpu.cfs_quota_us", "200000\n"},
      {"a/cpu.cfs_period_us", "100000\n"},
      {"a/b/cpu.cfs_quota_us", "-1\n"},
      {"a/b/cpu.cfs_period_us", "100000\n"}},
     2},
    {"v1 no limit",
     "2:cpu:/\n",
     V1_AT("/", "@", "rw,cpu"),
     {{"cpu.cfs_quota_us", "-1\n"}, {"cpu.cfs_period_us", "100000\n"}},
     0},
    {"v1 cpuacct alone is not cpu",
     "2:cpuacct:/\n",
     V1_AT("/", "@", "rw,cpuacct"),
     {{"cpu.cfs_quota_us", "100000\n"}, {"cpu.cfs_period_us", "100000\n"}},
     0},
    {"v1 and v2 both: the tighter",
     "3:cpu:/\n0::/\n",
     V2_AT("/", "@") V1_AT("/", "@/v1", "rw,cpu"),
     {{"cpu.max", "400000 100000\n"}, {"v1/cpu.cfs_quota_us", "100000\n"}, {"v1/cpu.cfs_period_us", "100000\n"}},
     1},
    {"mount point with an escaped space",
     "0::/\n",
     V2_AT("/", "@/my\\040cg"),
     {{"my cg/cpu.max", "100000 100000\n"}},
     1},
    {"no trailing newline", "0::/", V2_AT("/", "@"), {{"cpu.max", "100000 100000"}}, 1},
    {"a '..' component", "0::/../x\n", V2_AT("/", "@"), {{"cpu.max", "100000 100000\n"}}, 0},
    {"a relative path", "0::kubepods\n", V2_AT("/", "@"), {{"cpu.max", "100000 100000\n"}}, 0},
    {"no cgroup mount", "0::/\n", "1 0 0:1 / / rw - ext4 /dev/vda rw\n", {{"cpu.max", "100000 100000\n"}}, 0},
    {"malformed: a word", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "lots 100000\n"}}, 0},
    {"malformed: zero period", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "100000 0\n"}}, 0},
    {"malformed: negative quota", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "-5 100000\n"}}, 0},
    {"malformed: trailing text", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "100000 100000 x\n"}}, 0},
    {"malformed: no period", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "100000\n"}}, 0},
    {"malformed: overflow", "0::/\n", V2_AT("/", "@"), {{"cpu.max", "99999999999999999999999 100000\n"}}, 0},
    {"no cgroup files", "0::/\n", V2_AT("/", "@"), {{NULL, NULL}}, 0},
    {"empty /proc/self/cgroup", "", V2_AT("/", "@"), {{"cpu.max", "100000 100000\n"}}, 0},
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
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}

/* text with every "@" replaced by root, into out. */
static void expand(const char *text, const char *root, char *out, size_t cap)
{
    size_t len = 0;
    for (const char *p = text; *p != '\0'; p++) {
        const char *const piece = *p == '@' ? root : (const char[]){*p, '\0'};
        const size_t n = strlen(piece);
        ck_assert_uint_lt(len + n, cap);
        memcpy(out + len, piece, n);
        len += n;
    }
    out[len] = '\0';
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    return remove(path);
}

START_TEST(quota_from_fake_files)
{
    char root[] = "/tmp/nq-cpus-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(root));
    char tree[64];
    char cgroup[64];
    char mountinfo[64];
    char mounts[2048];
    snprintf(tree, sizeof tree, "%s/sys", root);
    snprintf(cgroup, sizeof cgroup, "%s/cgroup", root);
    snprintf(mountinfo, sizeof mountinfo, "%s/mountinfo", root);
    ck_assert_int_eq(mkdir(tree, 0700), 0);
    put_file(root, "cgroup", rows[_i].cgroup);
    expand(rows[_i].mountinfo, tree, mounts, sizeof mounts);
    put_file(root, "mountinfo", mounts);
    for (size_t k = 0; k < FILES_MAX && rows[_i].files[k].path != NULL; k++) {
        put_file(tree, rows[_i].files[k].path, rows[_i].files[k].text);
    }
    const unsigned got = nq_cpus_quota(cgroup, mountinfo);
    ck_assert_int_eq(nftw(root, remove_entry, 8, FTW_DEPTH | FTW_PHYS), 0); /* children first */
    ck_assert_msg(got == rows[_i].want, "%s: %u CPUs, want %u", rows[_i].name, got, rows[_i].want);
}
END_TEST

START_TEST(missing_files_impose_nothing)
{
    ck_assert_uint_eq(nq_cpus_quota("/nonexistent/cgroup", "/proc/self/mountinfo"), 0);
    ck_assert_uint_eq(nq_cpus_quota("/proc/self/cgroup", "/nonexistent/mountinfo"), 0);
    ck_assert_uint_eq(nq_cpus_quota(NULL, "/proc/self/mountinfo"), 0);
    ck_assert_uint_eq(nq_cpus_quota("/proc/self/cgroup", NULL), 0);
}
END_TEST

/* This process: the affinity mask capped by this machine's real quota, and pinning the process to
 * one CPU gives 1 (what the server's start-up line then reports: test_http_ops). */
START_TEST(available_follows_the_affinity_mask)
{
    cpu_set_t mask;
    ck_assert_int_eq(sched_getaffinity(0, sizeof mask, &mask), 0);
    const unsigned cpus = (unsigned)CPU_COUNT(&mask);
    ck_assert_int_eq(nq_count_cpus(), (int)cpus);
    const unsigned quota = nq_cpus_quota("/proc/self/cgroup", "/proc/self/mountinfo");
    ck_assert_uint_eq(nq_cpus_available(), quota != 0 && quota < cpus ? quota : cpus);
    cpu_set_t one;
    CPU_ZERO(&one);
    for (size_t c = 0; c < CPU_SETSIZE; c++) {
        if (CPU_ISSET(c, &mask)) {
            CPU_SET(c, &one);
            break;
        }
    }
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
    const unsigned pinned = nq_cpus_available();
    ck_assert_int_eq(sched_setaffinity(0, sizeof mask, &mask), 0);
    ck_assert_uint_eq(pinned, 1);
}
END_TEST

static Suite *cpus_suite(void)
{
    Suite *const s = suite_create("cpus");
    TCase *const tc = tcase_create("cpus");
    tcase_add_loop_test(tc, quota_from_fake_files, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, missing_files_impose_nothing);
    tcase_add_test(tc, available_follows_the_affinity_mask);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return nq_check_run(cpus_suite()) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
