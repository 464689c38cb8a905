/* checkpoint.c - nqueens-mpi's checkpoint file: strict reading, atomic writing (see checkpoint.h).
 *
 * The file is rewritten whole each time (a few KB: a bit per task), which is simpler than an append
 * log and cheap at the rate the coordinator writes it (at most once per --checkpoint-every).
 */
#include "checkpoint.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_value.h"
#include "nqueens/parse.h"

#define MAGIC "nqueens-mpi checkpoint\n"
#define HEADER_MAX 512u /* every line but bits and check, with the longest numbers and method */
#define CHECK_LEN 15u   /* "check " and eight hex digits and the newline */
#define PATH_CAP NQ_MPI_CHECKPOINT_PATH_CAP
#define PATH_LEN_MAX (PATH_CAP - 32u) /* longest checkpoint path: FILE.tmp.PID and FILE.lock fit */
#define ERR_CAP 128u                  /* an errno message: glibc's longest is under 64 bytes */

/* strerror's message for err, written into buf (cap > 0 bytes), which is returned: strerror_r keeps
 * no static buffer. This file is built with _POSIX_C_SOURCE and without _GNU_SOURCE, so strerror_r is
 * the XSI one, which returns an int and fills buf (the GNU one's char * in rc would be a
 * -Wint-conversion error under -Werror); for an error number it does not know it writes "Unknown error
 * N", as strerror does, and that is also the text should a C library leave buf empty. */
static const char *error_text(int err, char *buf, size_t cap)
{
    assert(buf != NULL && cap > 0);
    buf[0] = '\0';
    const int rc = strerror_r(err, buf, cap);
    if (rc != 0 && buf[0] == '\0') (void)snprintf(buf, cap, "Unknown error %d", err);
    return buf;
}

nq_err nq_mpi_checkpoint_create(int n, nq_mpi_checkpoint *cp)
{
    uint32_t tasks = 0;
    const nq_err rc = nq_count_plan(n, &tasks);
    if (rc != NQ_OK) return rc;
    uint8_t *done = calloc(tasks, 1);
    if (done == NULL) return NQ_E_NOMEM;
    *cp = (nq_mpi_checkpoint){.n = n, .tasks = tasks, .method = nq_count_method(n), .done = done};
    return NQ_OK;
}

void nq_mpi_checkpoint_destroy(nq_mpi_checkpoint *cp)
{
    free(cp->done);
    cp->done = NULL;
}

bool nq_mpi_checkpoint_mark(nq_mpi_checkpoint *cp, uint32_t task, const nq_count_sums *sums)
{
    if (task >= cp->tasks || cp->done[task]) return false;
    nq_count_sums sum = cp->sums;
    if (__builtin_add_overflow(sum.total, sums->total, &sum.total) ||
        __builtin_add_overflow(sum.burnside, sums->burnside, &sum.burnside))
        return false;
    cp->done[task] = 1;
    cp->ndone++;
    cp->sums = sum;
    return true;
}

/* ---- reading --------------------------------------------------------------------------------- */

/* A cursor over the file's bytes. */
typedef struct reader {
    const char *p;   /* next byte */
    const char *end; /* one past the last */
} reader;

static bool expect(reader *r, const char *lit)
{
    const size_t len = strlen(lit);
    if ((size_t)(r->end - r->p) < len || memcmp(r->p, lit, len) != 0) return false;
    r->p += len;
    return true;
}

/* "<key> <decimal>\n", the number without a leading zero. */
static bool line_u64(reader *r, const char *key, uint64_t max, uint64_t *out)
{
    if (!expect(r, key) || !expect(r, " ")) return false;
    const char *start = r->p;
    while (r->p < r->end && *r->p >= '0' && *r->p <= '9') r->p++;
    const size_t len = (size_t)(r->p - start);
    if (len == 0 || (len > 1 && start[0] == '0')) return false;
    return nq_parse_u64(start, len, max, out) == NQ_OK && expect(r, "\n");
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* "bits <hex>\n" into done[0..tasks); false on a bad digit, a wrong length or a bit past tasks. */
static bool line_bits(reader *r, uint32_t tasks, uint8_t *done, uint32_t *ndone)
{
    const size_t bytes = ((size_t)tasks + 7u) / 8u;
    if (!expect(r, "bits ") || (size_t)(r->end - r->p) < 2u * bytes) return false;
    *ndone = 0;
    for (size_t j = 0; j < bytes; j++) {
        const int hi = hex_digit(r->p[2 * j]), lo = hex_digit(r->p[2 * j + 1]);
        if (hi < 0 || lo < 0) return false;
        const unsigned byte = (unsigned)(hi * 16 + lo);
        for (unsigned b = 0; b < 8u; b++) {
            const size_t task = 8u * j + b;
            const bool bit = (byte >> b) & 1u;
            if (task >= tasks) {
                if (bit) return false;
                continue;
            }
            done[task] = bit;
            *ndone += bit;
        }
    }
    r->p += 2u * bytes;
    return expect(r, "\n");
}

/* "<key> <8 lowercase hex digits>\n". */
static bool line_hex32(reader *r, const char *key, uint64_t *out)
{
    if (!expect(r, key) || !expect(r, " ") || r->end - r->p < 8) return false;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) {
        const int d = hex_digit(*r->p++);
        if (d < 0) return false;
        v = v * 16u + (uint64_t)d;
    }
    *out = v;
    return expect(r, "\n");
}

/* The header's plan lines; FOREIGN when they name another count, BAD when they do not parse. */
static nq_mpi_load read_plan(reader *r, const nq_mpi_checkpoint *cp, char *why, size_t cap)
{
    uint64_t n = 0, plan = 0, tasks = 0;
    if (!expect(r, MAGIC) || !line_u64(r, "n", NQ_COUNT_N_MAX, &n) || !line_u64(r, "plan", UINT32_MAX, &plan) ||
        !expect(r, "method ")) {
        (void)snprintf(why, cap, "not an nqueens-mpi checkpoint");
        return NQ_MPI_LOAD_BAD;
    }
    const char *method = r->p;
    while (r->p < r->end && *r->p != '\n') r->p++;
    const size_t method_len = (size_t)(r->p - method);
    if (!expect(r, "\n") || !line_u64(r, "tasks", UINT32_MAX, &tasks)) {
        (void)snprintf(why, cap, "not an nqueens-mpi checkpoint");
        return NQ_MPI_LOAD_BAD;
    }
    if ((int)n != cp->n || plan != NQ_COUNT_PLAN_VERSION || tasks != cp->tasks || method_len != strlen(cp->method) ||
        memcmp(method, cp->method, method_len) != 0) {
        (void)snprintf(
            why, cap,
            "a checkpoint of n = %d, plan %u with %u tasks (%.*s); this count is n = %d, plan %u, %u tasks (%s)",
            (int)n, (unsigned)plan, (unsigned)tasks, (int)(method_len < 32 ? method_len : 32), method, cp->n,
            (unsigned)NQ_COUNT_PLAN_VERSION, cp->tasks, cp->method);
        return NQ_MPI_LOAD_FOREIGN;
    }
    return NQ_MPI_LOAD_OK;
}

/* Parse text[0..len) into a copy of *cp's state; on OK it replaces *cp's. A file that ends after its
 * bitmap has no check value (an older release's, or one whose check line was deleted): UNCHECKED,
 * unless accept_unchecked, when it is taken as it is. */
static nq_mpi_load parse(const char *text, size_t len, nq_mpi_checkpoint *cp, bool accept_unchecked, char *why,
                         size_t cap)
{
    reader r = {text, text + len};
    const nq_mpi_load plan = read_plan(&r, cp, why, cap);
    if (plan != NQ_MPI_LOAD_OK) return plan;
    uint64_t done = 0;
    nq_count_sums sums = {0, 0};
    uint8_t *bits = calloc(cp->tasks, 1);
    uint32_t ndone = 0;
    if (bits == NULL) return NQ_MPI_LOAD_NOMEM;
    uint64_t check = 0;
    bool ok = line_u64(&r, "done", cp->tasks, &done) && line_u64(&r, "total", UINT64_MAX, &sums.total) &&
              line_u64(&r, "burnside", UINT64_MAX, &sums.burnside) && line_bits(&r, cp->tasks, bits, &ndone) &&
              ndone == done;
    ok = ok && nq_count_sums_fit(&sums, done) == NQ_SUMS_FIT;
    const size_t checked = (size_t)(r.p - text);
    const bool unchecked = ok && r.p == r.end; /* no check line: nothing vouches for the bytes */
    ok = ok && (unchecked || (line_hex32(&r, "check", &check) && r.p == r.end));
    if (!ok || (!unchecked && check != nq_check_value(text, checked))) {
        free(bits);
        (void)snprintf(why, cap, "%s",
                       ok ? "a damaged checkpoint (its checksum does not match its bytes)"
                          : "a damaged checkpoint (its lines or its bitmap do not parse, or disagree)");
        return NQ_MPI_LOAD_BAD;
    }
    if (unchecked && !accept_unchecked) {
        free(bits);
        (void)snprintf(why, cap,
                       "no check line (a checkpoint of an older release, or the line was removed), so damage in "
                       "it cannot be found");
        return NQ_MPI_LOAD_UNCHECKED;
    }
    free(cp->done);
    cp->done = bits;
    cp->ndone = ndone;
    cp->sums = sums;
    cp->unchecked = unchecked;
    return NQ_MPI_LOAD_OK;
}

nq_mpi_load nq_mpi_checkpoint_load(const char *path, nq_mpi_checkpoint *cp, bool accept_unchecked, char *why,
                                   size_t cap)
{
    /* Not blocking: a FIFO would wait for a writer for ever; it is refused below. */
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return NQ_MPI_LOAD_ABSENT;
    if (fd < 0) {
        char msg[ERR_CAP];
        (void)snprintf(why, cap, "cannot open: %s", error_text(errno, msg, sizeof msg));
        return NQ_MPI_LOAD_BAD;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        (void)snprintf(why, cap, "not a regular file");
        close(fd);
        return NQ_MPI_LOAD_BAD;
    }
    FILE *f = fdopen(fd, "rb");
    if (f == NULL) {
        close(fd);
        return NQ_MPI_LOAD_NOMEM;
    }
    /* The file's size is bounded by the plan: the header, two hex digits per 8 tasks, the check. */
    const size_t max = HEADER_MAX + 2u * (((size_t)cp->tasks + 7u) / 8u) + 1u + CHECK_LEN;
    char *text = malloc(max + 1u);
    if (text == NULL) {
        fclose(f);
        return NQ_MPI_LOAD_NOMEM;
    }
    const size_t len = fread(text, 1, max + 1u, f);
    const bool io_error = ferror(f) != 0;
    fclose(f);
    nq_mpi_load rc = NQ_MPI_LOAD_BAD;
    if (io_error)
        (void)snprintf(why, cap, "read error");
    else if (len > max && read_plan(&(reader){text, text + len}, cp, why, cap) == NQ_MPI_LOAD_OK)
        (void)snprintf(why, cap, "too long for a checkpoint of this count");
    else if (len > max)
        rc = read_plan(&(reader){text, text + len}, cp, why, cap); /* FOREIGN or BAD, with its reason */
    else
        rc = parse(text, len, cp, accept_unchecked, why, cap);
    free(text);
    return rc;
}

/* ---- writing --------------------------------------------------------------------------------- */

/* The file's text in a buffer of its own (the checksum covers it whole); NULL when out of memory. */
static char *render(const nq_mpi_checkpoint *cp, size_t *len)
{
    static const char hex[] = "0123456789abcdef";
    const size_t bytes = ((size_t)cp->tasks + 7u) / 8u, cap = HEADER_MAX + 2u * bytes + 1u + CHECK_LEN + 1u;
    char *text = malloc(cap);
    if (text == NULL) return NULL;
    const int head =
        snprintf(text, cap, MAGIC "n %d\nplan %u\nmethod %s\ntasks %u\ndone %u\ntotal %llu\nburnside %llu\nbits ",
                 cp->n, (unsigned)NQ_COUNT_PLAN_VERSION, cp->method, cp->tasks, cp->ndone,
                 (unsigned long long)cp->sums.total, (unsigned long long)cp->sums.burnside);
    size_t at = (size_t)head;
    for (size_t j = 0; j < bytes; j++) {
        unsigned byte = 0;
        for (unsigned b = 0; b < 8u && 8u * j + b < cp->tasks; b++) byte |= (unsigned)cp->done[8u * j + b] << b;
        text[at++] = hex[byte >> 4];
        text[at++] = hex[byte & 15u];
    }
    text[at++] = '\n';
    at += (size_t)snprintf(text + at, cap - at, "check %08lx\n", (unsigned long)nq_check_value(text, at));
    *len = at;
    return text;
}

static bool write_all(FILE *f, const nq_mpi_checkpoint *cp)
{
    size_t len = 0;
    char *text = render(cp, &len);
    if (text == NULL) {
        errno = ENOMEM;
        return false;
    }
    const bool ok = fwrite(text, 1, len, f) == len && fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
    free(text);
    return ok;
}

/* fsync the folder holding path, so the rename itself survives a power cut. Best effort. */
static void sync_folder(const char *path)
{
    char dir[PATH_CAP];
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        memcpy(dir, ".", sizeof ".");
    } else {
        const size_t len = slash == path ? 1u : (size_t)(slash - path);
        if (len >= sizeof dir) return; /* not from save, which refuses paths over PATH_LEN_MAX */
        memcpy(dir, path, len);
        dir[len] = '\0';
    }
    const int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return;
    (void)fsync(fd);
    close(fd);
}

bool nq_mpi_checkpoint_save(const char *path, const nq_mpi_checkpoint *cp, char *why, size_t cap)
{
    char tmp[PATH_CAP];
    if (strlen(path) > PATH_LEN_MAX) {
        (void)snprintf(why, cap, "checkpoint path longer than %u bytes", PATH_LEN_MAX);
        return false;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    char msg[ERR_CAP];
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        (void)snprintf(why, cap, "cannot create %s: %s", tmp, error_text(errno, msg, sizeof msg));
        return false;
    }
    const bool written = write_all(f, cp);
    const int err = errno;
    if (fclose(f) != 0 || !written || rename(tmp, path) != 0) {
        (void)snprintf(why, cap, "cannot write %s: %s", path, error_text(written ? errno : err, msg, sizeof msg));
        (void)unlink(tmp);
        return false;
    }
    sync_folder(path);
    return true;
}

bool nq_mpi_checkpoint_writable(const char *path, char *why, size_t cap)
{
    char tmp[PATH_CAP];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()); /* the name save writes first */
    const int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        char msg[ERR_CAP];
        (void)snprintf(why, cap, "cannot create %s: %s", tmp, error_text(errno, msg, sizeof msg));
        return false;
    }
    close(fd);
    (void)unlink(tmp);
    return true;
}

/* ---- one job per checkpoint ------------------------------------------------------------------ */

/* The file a link at path names when that file is not made yet (a new count's checkpoint on
 * scratch): its folder's real path and its name, into real (PATH_MAX bytes). */
static bool resolve_new(const char *path, char *real)
{
    char target[PATH_MAX], full[2 * PATH_MAX], folder[PATH_MAX];
    const ssize_t len = readlink(path, target, sizeof target - 1);
    if (len <= 0) return false;
    target[len] = '\0';
    const char *slash = strrchr(path, '/');
    if (target[0] == '/' || slash == NULL) /* absolute, or relative to the working folder */
        (void)snprintf(full, sizeof full, "%s", target);
    else /* relative to the link's folder */
        (void)snprintf(full, sizeof full, "%.*s/%s", (int)(slash - path), path, target);
    char *name = strrchr(full, '/');
    if (name == NULL)
        return realpath(".", folder) != NULL && snprintf(real, PATH_MAX, "%s/%s", folder, full) < PATH_MAX;
    *name++ = '\0';
    if (realpath(full[0] != '\0' ? full : "/", folder) == NULL) return false;
    return snprintf(real, PATH_MAX, "%s/%s", strcmp(folder, "/") == 0 ? "" : folder, name) < PATH_MAX;
}

#define LINK_HOPS_MAX 40 /* links followed before a chain counts as a loop, as the kernel's own limit */

bool nq_mpi_checkpoint_resolve(const char *path, char *out, size_t cap, char *why, size_t whycap)
{
    char cur[PATH_MAX];
    if (snprintf(cur, sizeof cur, "%s", path) >= (int)sizeof cur) {
        (void)snprintf(why, whycap, "checkpoint path longer than %u bytes", PATH_LEN_MAX);
        return false;
    }
    for (int hop = 0; hop < LINK_HOPS_MAX; hop++) {
        struct stat st;
        char next[PATH_MAX];
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) { /* no file yet, or not a link: the end */
            (void)snprintf(out, cap, "%s", cur);
            if (strlen(cur) < cap) return true;
            (void)snprintf(why, whycap, "the file it names has a path longer than %zu bytes", cap - 1);
            return false;
        }
        if (realpath(cur, next) == NULL && (errno != ENOENT || !resolve_new(cur, next))) break;
        memcpy(cur, next, strlen(next) + 1); /* a whole chain that exists resolves in one step */
    }
    (void)snprintf(why, whycap, "a symbolic link into a folder that does not exist, or a loop of links");
    return false;
}

int nq_mpi_checkpoint_lock(const char *path, char *why, size_t cap)
{
    char name[PATH_CAP];
    struct stat st;
    if (strlen(path) > PATH_LEN_MAX) { /* refused now, not when the first save fails hours later */
        (void)snprintf(why, cap, "checkpoint path longer than %u bytes", PATH_LEN_MAX);
        return -1;
    }
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* a FIFO, a device, a folder: before FILE.lock */
        (void)snprintf(why, cap, "not a regular file");
        return -1;
    }
    snprintf(name, sizeof name, "%s.lock", path);
    char msg[ERR_CAP];
    const int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        (void)snprintf(why, cap, "cannot open %s: %s", name, error_text(errno, msg, sizeof msg));
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        (void)snprintf(why, cap, "another job holds %s (%s)", name, error_text(errno, msg, sizeof msg));
        close(fd);
        return -1;
    }
    return fd;
}

void nq_mpi_checkpoint_unlock(int fd)
{
    if (fd >= 0) close(fd); /* closing drops the lock */
}
