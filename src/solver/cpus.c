/* cpus.c - the CPUs this process may use: affinity mask capped by the cgroup CPU quota (see cpus.h).
 *
 * What is read: /proc/self/cgroup has one line per hierarchy, "ID:CONTROLLERS:PATH"; the v2 hierarchy
 * is "0::PATH", a v1 one lists its controllers ("4:cpu,cpuacct:PATH"). PATH is the process's group
 * within the hierarchy. Where that group's files are is told by /proc/self/mountinfo: the mount of
 * the hierarchy (fstype cgroup2, or cgroup with "cpu" among its super options) gives its mount point
 * and the group it shows there (its root: "/" on a host, the container's own group for a container
 * without a cgroup namespace). The group's directory is the mount point plus PATH below that root.
 * A limit on any ancestor applies too, so the walk reads every level from the group up to the mount
 * point - no further: what lies above is not this process's to read, or not an ancestor at all.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getline */
#endif
#include "nqueens/cpus.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/parse.h"
#include "nqueens/solver.h"

#define PATH_CAP 4096 /* a cgroup directory or file path */

/* CPUs a quota of `quota` microseconds per `period` allows, rounded up; 0 for no (valid) quota. A
 * quota of 1.5 CPUs lets two threads run for 1.5 CPUs' worth of each period: two threads. */
static unsigned cpus_of(uint64_t quota, uint64_t period)
{
    if (quota == 0 || period == 0) {
        return 0;
    }
    const uint64_t cpus = quota / period + (quota % period != 0);
    return cpus > UINT_MAX ? UINT_MAX : (unsigned)cpus;
}

/* The smaller of two CPU counts where 0 means no limit. */
static unsigned tighter(unsigned a, unsigned b)
{
    if (a == 0) {
        return b;
    }
    return b != 0 && b < a ? b : a;
}

/* ---- the quota files ---------------------------------------------------------------------------- */

/* Read a small file whole into buf (size bytes), NUL-terminated. False if it cannot be read or does
 * not fit. */
static bool read_text(const char *path, char *buf, size_t size)
{
    FILE *const f = fopen(path, "re");
    if (f == NULL) {
        return false;
    }
    const size_t n = fread(buf, 1, size - 1u, f);
    const bool whole = !ferror(f) && fgetc(f) == EOF && !ferror(f);
    fclose(f);
    buf[whole ? n : 0] = '\0';
    return whole;
}

/* A decimal number starting at s (digits only: no sign, no space); *end after it. */
static bool parse_u64(char *s, char **end, uint64_t *out)
{
    const size_t len = nq_parse_digits_len(s, strlen(s));
    if (nq_parse_u64(s, len, UINT64_MAX, out) != NQ_OK) {
        return false;
    }
    *end = s + len;
    return true;
}

static bool at_line_end(const char *s)
{
    return *s == '\0' || (*s == '\n' && s[1] == '\0');
}

/* cgroup v2: dir/cpu.max holds "max PERIOD" (no quota) or "QUOTA PERIOD". */
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

/* cgroup v1: dir/cpu.cfs_quota_us holds -1 (no quota) or QUOTA, dir/cpu.cfs_period_us PERIOD. */
static unsigned v1_quota(const char *dir)
{
    uint64_t quota = 0;
    uint64_t period = 0;
    if (!read_u64_file(dir, "cpu.cfs_quota_us", &quota) || !read_u64_file(dir, "cpu.cfs_period_us", &period)) {
        return 0;
    }
    return cpus_of(quota, period);
}

/* The tightest quota in dir and each of its parents down to its first top_len bytes (the mount
 * point), that one included; levels whose files are missing count as no quota. dir is cut up. */
static unsigned walk_up(char *dir, size_t top_len, unsigned (*quota_at)(const char *dir))
{
    unsigned best = 0;
    for (;;) {
        best = tighter(best, quota_at(dir));
        char *const slash = strrchr(dir + top_len, '/');
        if (slash == NULL) {
            return best;
        }
        *slash = '\0';
    }
}

/* ---- /proc/self/cgroup and /proc/self/mountinfo ------------------------------------------------- */

/* Is name one of the comma-separated items in [list, end)? */
static bool has_item(const char *list, const char *end, const char *name)
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

/* Copy s into out (cap bytes); false, with out cut short, if it does not fit. */
static bool copy_str(char *out, size_t cap, const char *s)
{
    const int n = snprintf(out, cap, "%s", s);
    return n >= 0 && (size_t)n < cap;
}

/* Call match(line, ctx) on each line of the file at path, its newline cut, until one returns true.
 * True if one did; false if none did or the file cannot be read. Lines of any length. */
static bool scan_lines(const char *path, bool (*match)(char *line, void *ctx), void *ctx)
{
    FILE *const f = fopen(path, "re");
    if (f == NULL) {
        return false;
    }
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    bool found = false;
    while (!found && (len = getline(&line, &line_cap, f)) > 0) {
        if (line[len - 1] == '\n') {
            line[len - 1] = '\0';
        }
        found = match(line, ctx);
    }
    free(line);
    fclose(f);
    return found;
}

/* What group_line looks for in /proc/self/cgroup, and what it found. */
typedef struct group_query {
    bool v2;    /* the v2 line ("0::PATH"), else the v1 line whose controllers include "cpu" */
    char *path; /* receives PATH */
    size_t cap; /* its size */
    bool fits;  /* PATH fitted */
} group_query;

/* Is line the wanted one of /proc/self/cgroup? Then copy its PATH (the scan stops there). */
static bool group_line(char *line, void *ctx)
{
    group_query *const q = ctx;
    const char *const c1 = strchr(line, ':');
    const char *const c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
    if (c2 == NULL) {
        return false;
    }
    const bool is_v2 = c1 == line + 1 && line[0] == '0' && c2 == c1 + 1;
    if (q->v2 ? !is_v2 : (is_v2 || !has_item(c1 + 1, c2, "cpu"))) {
        return false;
    }
    q->fits = copy_str(q->path, q->cap, c2 + 1);
    return true;
}

/* Undo mountinfo's octal escapes (a space is "\040") in place. */
static void unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r != '\0'; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* Is the mountinfo line (fields split at spaces into f[0..n)) the mount of the wanted hierarchy?
 * Fields: ID PARENT DEV ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS. */
static bool wanted_mount(char *const *f, size_t n, bool v2)
{
    size_t dash = 6;
    while (dash < n && strcmp(f[dash], "-") != 0) {
        dash++;
    }
    if (dash + 3 >= n) {
        return false; /* no separator, or fewer than three fields after it */
    }
    const char *const fstype = f[dash + 1];
    const char *const super = f[dash + 3];
    return v2 ? strcmp(fstype, "cgroup2") == 0
              : strcmp(fstype, "cgroup") == 0 && has_item(super, super + strlen(super), "cpu");
}

/* What mount_line looks for in /proc/self/mountinfo, and what it found. */
typedef struct mount_query {
    bool v2;     /* the cgroup2 mount, else the v1 cgroup mount with the cpu controller */
    char *root;  /* receives the group the mount shows */
    char *point; /* receives the mount point */
    size_t cap;  /* the size of each */
} mount_query;

/* Is line the mount of the wanted hierarchy? Then copy its root and mount point, unescaped (a line
 * whose fields do not fit is passed over). */
static bool mount_line(char *line, void *ctx)
{
    mount_query *const q = ctx;
    char *fields[32];
    size_t n = 0;
    for (char *save = NULL, *t = strtok_r(line, " ", &save); t != NULL && n < 32; t = strtok_r(NULL, " ", &save)) {
        fields[n++] = t;
    }
    if (n < 10 || !wanted_mount(fields, n, q->v2)) {
        return false;
    }
    unescape(fields[3]);
    unescape(fields[4]);
    return copy_str(q->root, q->cap, fields[3]) && copy_str(q->point, q->cap, fields[4]);
}

/* A ".." component would lead the walk out of the hierarchy. */
static bool has_dot_dot(const char *path)
{
    for (const char *p = path; (p = strstr(p, "..")) != NULL; p += 2) {
        if ((p == path || p[-1] == '/') && (p[2] == '/' || p[2] == '\0')) {
            return true;
        }
    }
    return false;
}

/* The directory of group `path` under a mount of its hierarchy showing group `root` at `point`:
 * point plus the part of path below root, or point itself when path is not below root (the process
 * sits outside what is mounted). False if it does not fit or path is not a plain absolute path. */
static bool group_dir(const char *point, const char *root, const char *path, char *out, size_t cap)
{
    if (path[0] != '/' || has_dot_dot(path)) {
        return false;
    }
    const size_t root_len = strcmp(root, "/") == 0 ? 0 : strlen(root);
    const char *rest = "";
    if (strncmp(path, root, root_len) == 0 && (path[root_len] == '/' || path[root_len] == '\0')) {
        rest = path + root_len;
    }
    if (strcmp(rest, "/") == 0) {
        rest = "";
    }
    return snprintf(out, cap, "%s%s", point, rest) < (int)cap;
}

/* The tightest quota of one hierarchy (v2, or v1's cpu controller), 0 if none or nothing readable. */
static unsigned hierarchy_quota(const char *proc_self_cgroup, const char *proc_self_mountinfo, bool v2)
{
    char path[PATH_CAP];
    char root[PATH_CAP];
    char point[PATH_CAP];
    char dir[PATH_CAP];
    group_query group = {v2, path, sizeof path, false};
    mount_query mount = {v2, root, point, sizeof root};
    if (!scan_lines(proc_self_cgroup, group_line, &group) || !group.fits ||
        !scan_lines(proc_self_mountinfo, mount_line, &mount) || !group_dir(point, root, path, dir, sizeof dir)) {
        return 0;
    }
    return walk_up(dir, strlen(point), v2 ? v2_quota : v1_quota);
}

unsigned nq_cpus_quota(const char *proc_self_cgroup, const char *proc_self_mountinfo)
{
    if (proc_self_cgroup == NULL || proc_self_mountinfo == NULL) {
        return 0;
    }
    return tighter(hierarchy_quota(proc_self_cgroup, proc_self_mountinfo, true),
                   hierarchy_quota(proc_self_cgroup, proc_self_mountinfo, false));
}

unsigned nq_cpus_available(void)
{
    return tighter((unsigned)nq_count_cpus(), nq_cpus_quota("/proc/self/cgroup", "/proc/self/mountinfo"));
}
