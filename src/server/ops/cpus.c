/* cpus.c - the CPUs this process may use: affinity mask capped by the cgroup CPU quota (see cpus.h).
 *
 * Layout of what is read: /proc/self/cgroup has one line per hierarchy, "ID:CONTROLLERS:PATH"; the v2
 * hierarchy is "0::PATH", a v1 one lists its controllers ("4:cpu,cpuacct:PATH"). PATH is relative to
 * the hierarchy's mount. A limit on any ancestor applies too, so the walk reads every level from the
 * process's own group up to the mount and keeps the tightest. A container without its own cgroup
 * namespace sees its host-side PATH while its mount shows only its own group: the deeper levels are
 * then missing and skipped, and the mount's top is the container's group.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* access */
#endif
#include "cpus.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nqueens/solver.h"

#define PATH_CAP 4096 /* a cgroup file's path */
#define TEXT_CAP 4096 /* /proc/self/cgroup: one short line per hierarchy */

/* Read a small text file whole into buf, NUL-terminated. False if it cannot be read or does not fit. */
static bool read_text(const char *path, char *buf, size_t cap)
{
    FILE *const f = fopen(path, "re");
    if (f == NULL) {
        return false;
    }
    const size_t n = fread(buf, 1, cap - 1u, f);
    const bool whole = n < cap - 1u && !ferror(f);
    fclose(f);
    buf[n] = '\0';
    return whole;
}

/* A decimal number starting at s (digits only: no sign, no space); *end after it. */
static bool parse_u64(const char *s, char **end, uint64_t *out)
{
    if (*s < '0' || *s > '9') {
        return false;
    }
    errno = 0;
    const unsigned long long v = strtoull(s, end, 10);
    if (errno != 0) {
        return false;
    }
    *out = (uint64_t)v;
    return true;
}

static bool at_line_end(const char *s)
{
    return *s == '\0' || (*s == '\n' && s[1] == '\0');
}

/* CPUs a quota of `quota` microseconds per `period` allows, rounded up; 0 for no (valid) quota. */
static unsigned cpus_of(uint64_t quota, uint64_t period)
{
    if (quota == 0 || period == 0) {
        return 0;
    }
    const uint64_t cpus = quota / period + (quota % period != 0);
    return cpus > UINT_MAX ? UINT_MAX : (unsigned)cpus;
}

static unsigned tighter(unsigned a, unsigned b)
{
    if (a == 0) {
        return b;
    }
    return b != 0 && b < a ? b : a;
}

/* cgroup v2: cpu.max holds "max PERIOD" (no quota) or "QUOTA PERIOD". */
static unsigned v2_quota(const char *dir)
{
    char path[PATH_CAP];
    char text[64];
    if (snprintf(path, sizeof path, "%s/cpu.max", dir) >= (int)sizeof path || !read_text(path, text, sizeof text)) {
        return 0;
    }
    char *end = NULL;
    uint64_t quota = 0;
    uint64_t period = 0;
    if (!parse_u64(text, &end, &quota) || *end != ' ' || !parse_u64(end + 1, &end, &period) || !at_line_end(end)) {
        return 0; /* "max ...", or not what the kernel writes */
    }
    return cpus_of(quota, period);
}

/* One number alone in dir/name (v1's files); false for "-1" (no quota) or anything else. */
static bool read_u64_file(const char *dir, const char *name, uint64_t *out)
{
    char path[PATH_CAP];
    char text[32];
    char *end = NULL;
    return snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path && read_text(path, text, sizeof text) &&
           parse_u64(text, &end, out) && at_line_end(end);
}

/* cgroup v1: cpu.cfs_quota_us holds -1 (no quota) or QUOTA, cpu.cfs_period_us PERIOD. */
static unsigned v1_quota(const char *dir)
{
    uint64_t quota = 0;
    uint64_t period = 0;
    if (!read_u64_file(dir, "cpu.cfs_quota_us", &quota) || !read_u64_file(dir, "cpu.cfs_period_us", &period)) {
        return 0;
    }
    return cpus_of(quota, period);
}

/* The tightest quota on root + cg_path and each of its ancestors up to root itself; levels whose
 * files are missing count as no quota. cg_path starts with '/'. */
static unsigned walk_up(const char *root, const char *cg_path, unsigned (*quota_at)(const char *dir))
{
    char dir[PATH_CAP];
    const int len = snprintf(dir, sizeof dir, "%s%s", root, strcmp(cg_path, "/") == 0 ? "" : cg_path);
    if (len < 0 || len >= (int)sizeof dir) {
        return 0;
    }
    const size_t root_len = strlen(root);
    unsigned best = 0;
    for (;;) {
        best = tighter(best, quota_at(dir));
        char *const slash = strrchr(dir + root_len, '/');
        if (slash == NULL) {
            return best;
        }
        *slash = '\0'; /* the parent; root itself once the last component is cut */
    }
}

/* Is name one of the comma-separated controllers in [list, end)? */
static bool has_controller(const char *list, const char *end, const char *name)
{
    const size_t want = strlen(name);
    while (list < end) {
        const char *comma = memchr(list, ',', (size_t)(end - list));
        const char *const stop = comma != NULL ? comma : end;
        if ((size_t)(stop - list) == want && memcmp(list, name, want) == 0) {
            return true;
        }
        list = stop + 1;
    }
    return false;
}

/* Copy into out the PATH of the v2 line ("0::PATH") or, with v2 false, of the v1 line whose
 * controllers include "cpu". False when there is none, or it does not fit or start with '/'. */
static bool cgroup_path(const char *text, bool v2, char *out, size_t cap)
{
    for (const char *line = text; *line != '\0';) {
        const char *const nl = strchr(line, '\n');
        const size_t len = nl != NULL ? (size_t)(nl - line) : strlen(line);
        const char *const c1 = memchr(line, ':', len);
        const char *const c2 = c1 != NULL ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - line)) : NULL;
        if (c2 != NULL) {
            const bool is_v2 = c1 == line + 1 && line[0] == '0' && c2 == c1 + 1;
            if (v2 ? is_v2 : (!is_v2 && has_controller(c1 + 1, c2, "cpu"))) {
                const size_t plen = len - (size_t)(c2 + 1 - line);
                if (plen == 0 || plen >= cap || c2[1] != '/') {
                    return false;
                }
                memcpy(out, c2 + 1, plen);
                out[plen] = '\0';
                return true;
            }
        }
        line += len + (nl != NULL);
    }
    return false;
}

/* dir/a if it exists, else dir/b, into out. False if neither fits. */
static bool pick_mount(const char *root, const char *a, const char *b, char *out, size_t cap)
{
    char probe[PATH_CAP];
    const bool has_a = snprintf(probe, sizeof probe, "%s/%s", root, a) < (int)sizeof probe && access(probe, F_OK) == 0;
    return snprintf(out, cap, "%s/%s", root, has_a ? a : b) < (int)cap;
}

unsigned nq_cpus_quota(const char *proc_self_cgroup, const char *cgroup_root)
{
    char text[TEXT_CAP];
    char path[PATH_CAP];
    char mount[PATH_CAP];
    if (proc_self_cgroup == NULL || cgroup_root == NULL || !read_text(proc_self_cgroup, text, sizeof text)) {
        return 0;
    }
    unsigned best = 0;
    /* v2 is mounted at the root (cgroup.controllers there), or at "unified" on a hybrid system. */
    if (cgroup_path(text, true, path, sizeof path)) {
        char probe[PATH_CAP];
        const bool at_root = snprintf(probe, sizeof probe, "%s/cgroup.controllers", cgroup_root) < (int)sizeof probe &&
                             access(probe, F_OK) == 0;
        if (at_root) {
            best = tighter(best, walk_up(cgroup_root, path, v2_quota));
        } else if (snprintf(mount, sizeof mount, "%s/unified", cgroup_root) < (int)sizeof mount) {
            best = tighter(best, walk_up(mount, path, v2_quota));
        }
    }
    if (cgroup_path(text, false, path, sizeof path) && pick_mount(cgroup_root, "cpu", "cpu,cpuacct", mount, sizeof mount)) {
        best = tighter(best, walk_up(mount, path, v1_quota));
    }
    return best;
}

unsigned nq_cpus_available(void)
{
    return tighter((unsigned)nq_count_cpus(), nq_cpus_quota("/proc/self/cgroup", "/sys/fs/cgroup"));
}
