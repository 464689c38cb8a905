/* checkpoint.c - nqueens-mpi's checkpoint file: strict reading, atomic writing (see checkpoint.h).
 *
 * The file is rewritten whole each time (a few KB: a bit per task), which is simpler than an append
 * log and cheap at the rate the coordinator writes it (at most once per --checkpoint-every).
 */
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "nqueens/parse.h"

#define MAGIC "nqueens-mpi checkpoint\n"
#define HEADER_MAX 512u /* every line but bits, with the longest numbers and method */
#define PATH_CAP 4096u  /* a checkpoint path longer than this is refused */

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
    cp->done[task] = 1;
    cp->ndone++;
    nq_count_sums_add(&cp->sums, sums);
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

/* Parse text[0..len) into a copy of *cp's state; on OK it replaces *cp's. */
static nq_mpi_load parse(const char *text, size_t len, nq_mpi_checkpoint *cp, char *why, size_t cap)
{
    reader r = {text, text + len};
    const nq_mpi_load plan = read_plan(&r, cp, why, cap);
    if (plan != NQ_MPI_LOAD_OK) return plan;
    uint64_t done = 0;
    nq_count_sums sums = {0, 0};
    uint8_t *bits = calloc(cp->tasks, 1);
    uint32_t ndone = 0;
    if (bits == NULL) return NQ_MPI_LOAD_NOMEM;
    if (!line_u64(&r, "done", cp->tasks, &done) || !line_u64(&r, "total", UINT64_MAX, &sums.total) ||
        !line_u64(&r, "burnside", UINT64_MAX, &sums.burnside) || !line_bits(&r, cp->tasks, bits, &ndone) ||
        r.p != r.end || ndone != done) {
        free(bits);
        (void)snprintf(why, cap, "a damaged checkpoint (its lines or its bitmap do not parse, or disagree)");
        return NQ_MPI_LOAD_BAD;
    }
    free(cp->done);
    cp->done = bits;
    cp->ndone = ndone;
    cp->sums = sums;
    return NQ_MPI_LOAD_OK;
}

nq_mpi_load nq_mpi_checkpoint_load(const char *path, nq_mpi_checkpoint *cp, char *why, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        if (errno == ENOENT) return NQ_MPI_LOAD_ABSENT;
        (void)snprintf(why, cap, "cannot open: errno %d", errno);
        return NQ_MPI_LOAD_BAD;
    }
    /* The file's size is bounded by the plan: the header and two hex digits per 8 tasks. */
    const size_t max = HEADER_MAX + 2u * (((size_t)cp->tasks + 7u) / 8u) + 1u;
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
        rc = parse(text, len, cp, why, cap);
    free(text);
    return rc;
}

/* ---- writing --------------------------------------------------------------------------------- */

static bool write_all(FILE *f, const nq_mpi_checkpoint *cp)
{
    fprintf(f, MAGIC "n %d\nplan %u\nmethod %s\ntasks %u\ndone %u\ntotal %llu\nburnside %llu\nbits ", cp->n,
            (unsigned)NQ_COUNT_PLAN_VERSION, cp->method, cp->tasks, cp->ndone, (unsigned long long)cp->sums.total,
            (unsigned long long)cp->sums.burnside);
    for (uint32_t j = 0; j < (cp->tasks + 7u) / 8u; j++) {
        unsigned byte = 0;
        for (unsigned b = 0; b < 8u && 8u * j + b < cp->tasks; b++) byte |= (unsigned)cp->done[8u * j + b] << b;
        fprintf(f, "%02x", byte);
    }
    fputc('\n', f);
    return fflush(f) == 0 && !ferror(f) && fsync(fileno(f)) == 0;
}

/* fsync the folder holding path, so the rename itself survives a power cut. Best effort. */
static void sync_folder(const char *path)
{
    char dir[PATH_CAP];
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        strcpy(dir, ".");
    } else {
        const size_t len = slash == path ? 1u : (size_t)(slash - path);
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
    if (strlen(path) + 32u > sizeof tmp) {
        (void)snprintf(why, cap, "checkpoint path too long");
        return false;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        (void)snprintf(why, cap, "cannot create %s: errno %d", tmp, errno);
        return false;
    }
    const bool written = write_all(f, cp);
    const int err = errno;
    if (fclose(f) != 0 || !written || rename(tmp, path) != 0) {
        (void)snprintf(why, cap, "cannot write %s: errno %d", path, written ? errno : err);
        (void)unlink(tmp);
        return false;
    }
    sync_folder(path);
    return true;
}

/* ---- one job per checkpoint ------------------------------------------------------------------ */

int nq_mpi_checkpoint_lock(const char *path, char *why, size_t cap)
{
    char name[PATH_CAP];
    if (strlen(path) + 6u > sizeof name) {
        (void)snprintf(why, cap, "checkpoint path too long");
        return -1;
    }
    snprintf(name, sizeof name, "%s.lock", path);
    const int fd = open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        (void)snprintf(why, cap, "cannot open %s: errno %d", name, errno);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        (void)snprintf(why, cap, "another job holds %s (errno %d)", name, errno);
        close(fd);
        return -1;
    }
    return fd;
}

void nq_mpi_checkpoint_unlock(int fd)
{
    if (fd >= 0) close(fd); /* closing drops the lock */
}
