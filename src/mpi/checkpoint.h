/* checkpoint.h - internal to nqueens-mpi: the file that lets a killed distributed count resume.
 *
 * A checkpoint is which tasks of n's plan (solver.h) are done and the sums they gave. It is a small
 * text file, written whole to FILE.tmp.PID, flushed to disk (fsync), then renamed over FILE (and the
 * folder synced), so FILE is always either the previous checkpoint or the new one, never a torn
 * mix, whenever the job is killed:
 *   nqueens-mpi checkpoint
 *   n 17
 *   plan 5
 *   method quad
 *   tasks 7108
 *   done 1777
 *   total 20280912
 *   burnside 20289320
 *   bits ffffffff...
 *   check 809e0432
 * (docs/distributed.md has this one whole.) bits is the done bitmap in hex, two digits per byte, byte j
 * holding tasks 8j..8j+7 (task 8j in its lowest bit); it has exactly ceil(tasks / 8) bytes. check is
 * the CRC-32 (zlib's, check_value.h, as the CLI's shard documents have) of every byte before its
 * line, so a digit changed on disk or by hand is found.
 * Every line is required, in this order, with single spaces and a final newline; the reader accepts
 * nothing else (nor sums that contradict each other, nor any file but a regular one: a FIFO would
 * block the job). A file that ends after bits has no check value: an older release wrote no check
 * line, and deleting the line would otherwise hide any edit. Such a file is refused (UNCHECKED)
 * unless the caller accepts it explicitly (nqueens-mpi --accept-unchecked), so that a long count of
 * an older release can still resume across the upgrade when its user vouches for the file.
 * Ownership: nq_mpi_checkpoint owns its bitmap (create/destroy). Not thread-safe: one owner.
 */
#ifndef NQ_MPI_CHECKPOINT_H
#define NQ_MPI_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "nqueens/solver.h"

typedef struct nq_mpi_checkpoint {
    int n;              /* board size */
    uint32_t tasks;     /* tasks of n's plan */
    const char *method; /* nq_count_method(n) */
    uint8_t *done;      /* tasks bytes: 1 = done (in memory one byte per task, nq_count_tasks' todo inverted) */
    uint32_t ndone;     /* how many are done */
    nq_count_sums sums; /* of the done tasks */
    bool unchecked;     /* loaded, as accepted, from a file without the check line: not verified */
} nq_mpi_checkpoint;

/* Outcome of reading a checkpoint file. */
typedef enum nq_mpi_load {
    NQ_MPI_LOAD_OK,       /* read: *cp holds it */
    NQ_MPI_LOAD_ABSENT,   /* no such file: *cp is the fresh state */
    NQ_MPI_LOAD_FOREIGN,  /* a checkpoint of another n, plan version, plan or method: left alone */
    NQ_MPI_LOAD_BAD,      /* unreadable, or not a checkpoint (malformed, inconsistent) */
    NQ_MPI_LOAD_NOMEM,    /* out of memory */
    NQ_MPI_LOAD_UNCHECKED /* a checkpoint of this count without its check line, not accepted: left alone */
} nq_mpi_load;

/* Make the fresh state of n's count (nothing done) in *cp. Errors: nq_count_plan's, NQ_E_NOMEM. */
nq_err nq_mpi_checkpoint_create(int n, nq_mpi_checkpoint *cp);

/* Free what *cp owns; a zeroed or destroyed *cp is accepted. */
void nq_mpi_checkpoint_destroy(nq_mpi_checkpoint *cp);

/* Read path into *cp, which nq_mpi_checkpoint_create made for n; on any outcome but OK *cp is left
 * as it was (fresh). A file without its check line is UNCHECKED unless accept_unchecked, when it is
 * taken (OK, cp->unchecked set). why[0..cap) receives a one-line reason for FOREIGN, BAD and
 * UNCHECKED. */
nq_mpi_load nq_mpi_checkpoint_load(const char *path, nq_mpi_checkpoint *cp, bool accept_unchecked, char *why,
                                   size_t cap);

/* Write *cp to path atomically (path.tmp.PID, fsync, rename, fsync of the folder). On failure path is
 * unchanged (the temporary file is removed) and false returned with a reason in why. */
bool nq_mpi_checkpoint_save(const char *path, const nq_mpi_checkpoint *cp, char *why, size_t cap);

/* Whether a checkpoint can be written beside path: creates and removes the temporary file save
 * writes first. False with a reason in why (a read-only folder, a full disk's quota, ...), so that
 * a count that could never keep its work is refused at the start, not after hours of counting. */
bool nq_mpi_checkpoint_writable(const char *path, char *why, size_t cap);

#define NQ_MPI_CHECKPOINT_PATH_CAP 4096u /* room for a checkpoint's path and what is appended to it */

/* The file a checkpoint path names, into out (cap bytes): path itself, or, for a symbolic link (a
 * checkpoint kept on scratch, linked from home), the file it links to, made yet or not, so that
 * the lock and the atomic rename act on that file rather than replace the link (a chain of links is
 * followed to its end). False with a reason in why for a link into a folder that does not exist, a
 * loop, or a name that does not fit. */
bool nq_mpi_checkpoint_resolve(const char *path, char *out, size_t cap, char *why, size_t whycap);

/* Hold FILE.lock (flock(2), released when the process ends, however it ends) for as long
 * as this job uses path, so a second job given the same checkpoint refuses to start instead of
 * overwriting the first one's. Returns the lock's descriptor, or -1 with a reason in why (held by
 * another job, or the lock file cannot be made). nq_mpi_checkpoint_unlock releases it (-1: no-op). */
int nq_mpi_checkpoint_lock(const char *path, char *why, size_t cap);
void nq_mpi_checkpoint_unlock(int fd);

/* Mark task done with its sums; false (nothing changed) when it was done already, or when the sums
 * would wrap around 64 bits. */
bool nq_mpi_checkpoint_mark(nq_mpi_checkpoint *cp, uint32_t task, const nq_count_sums *sums);

#endif /* NQ_MPI_CHECKPOINT_H */
