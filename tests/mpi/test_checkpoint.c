/* test_checkpoint.c - nqueens-mpi's checkpoint file: a save read back is the same state; absent,
 * foreign and damaged files are told apart and leave the state fresh (a damage under a good checksum,
 * and a good file under a wrong one); a file without its check line
 * is refused unless the caller accepts it; no file but a regular one is read or locked; one job per file. */
#include "checkpoint.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "check_run.h"

#define N 14        /* 891 tasks: a bitmap of 112 bytes, the last one partly used (891 = 8 x 111 + 3) */
#define N_TASKS 891 /* nq_count_plan(14) */

static char dir[] = "/tmp/nq-checkpoint-XXXXXX";
static char path[256];

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cp", dir);
}

static void teardown(void)
{
    char name[300];
    unlink(path);
    snprintf(name, sizeof name, "%s.lock", path);
    unlink(name);
    rmdir(dir);
    strcpy(dir, "/tmp/nq-checkpoint-XXXXXX");
}

static void write_text(const char *text)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

/* Append "check <CRC-32 of text>\n" to text (of room cap): the file's last line. */
static void add_check(char *text, size_t cap)
{
    const size_t len = strlen(text);
    const uLong crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)text, (uInt)len);
    snprintf(text + len, cap - len, "check %08lx\n", crc);
}

/* head, then 112 bitmap bytes: "01" for the first and last_byte for the last, zeros between. */
static void with_bitmap(char *text, size_t cap, const char *head, const char *last_byte)
{
    int k = snprintf(text, cap, "%s01", head);
    for (int j = 1; j < 111; j++) k += snprintf(text + k, cap - (size_t)k, "00");
    snprintf(text + k, cap - (size_t)k, "%s\n", last_byte);
}

/* A checkpoint of n = 14 with tasks 0, 7, 8 and 890 done. */
static void make_some(nq_mpi_checkpoint *cp)
{
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, cp), NQ_OK);
    ck_assert_uint_eq(cp->tasks, N_TASKS);
    const uint32_t done[] = {0, 7, 8, 890};
    for (size_t i = 0; i < 4; i++) {
        const nq_count_sums s = {100u + i, 800u + 8u * i};
        ck_assert(nq_mpi_checkpoint_mark(cp, done[i], &s));
    }
}

START_TEST(test_round_trip)
{
    nq_mpi_checkpoint cp, back;
    char why[256] = "";
    make_some(&cp);
    const nq_count_sums again = {1, 8};
    ck_assert(!nq_mpi_checkpoint_mark(&cp, 7, &again)); /* done already: not added twice */
    ck_assert(!nq_mpi_checkpoint_mark(&cp, N_TASKS, &again));
    ck_assert(nq_mpi_checkpoint_save(path, &cp, why, sizeof why));
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &back), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &back, false, why, sizeof why), NQ_MPI_LOAD_OK);
    ck_assert_uint_eq(back.ndone, 4);
    ck_assert_uint_eq(back.sums.total, 100 + 101 + 102 + 103);
    ck_assert_uint_eq(back.sums.burnside, 800 + 808 + 816 + 824);
    ck_assert_int_eq(memcmp(back.done, cp.done, N_TASKS), 0);
    nq_mpi_checkpoint_destroy(&back);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

START_TEST(test_exact_text)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", text[512] = "";
    make_some(&cp);
    ck_assert(nq_mpi_checkpoint_save(path, &cp, why, sizeof why));
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    const size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    char want[512];
    /* byte 0: task 0 (bit 0) and 7 (bit 7); byte 1: task 8 (bit 0); byte 111: task 890 = 8 x 111 + 2. */
    int k = snprintf(want, sizeof want,
                     "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 4\ntotal 406\n"
                     "burnside 3248\nbits 8101");
    for (int j = 2; j < 111; j++) k += snprintf(want + k, sizeof want - (size_t)k, "00");
    snprintf(want + k, sizeof want - (size_t)k, "04\n");
    add_check(want, sizeof want);
    ck_assert_str_eq(text, want);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

START_TEST(test_absent_and_foreign)
{
    nq_mpi_checkpoint cp, other;
    char why[256] = "";
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_ABSENT);
    nq_mpi_checkpoint_destroy(&cp);
    make_some(&cp);
    ck_assert(nq_mpi_checkpoint_save(path, &cp, why, sizeof why));
    ck_assert_int_eq(nq_mpi_checkpoint_create(13, &other), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &other, false, why, sizeof why), NQ_MPI_LOAD_FOREIGN);
    ck_assert_ptr_nonnull(strstr(why, "n = 14"));
    ck_assert_uint_eq(other.ndone, 0); /* left fresh */
    nq_mpi_checkpoint_destroy(&other);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

/* Damaged files: each is one edit of a good n = 14 checkpoint (tasks 0 and 8 done), under a checksum
 * that matches it, so that the damage itself is what is found. */
static const char *const damaged[] = {
    "",
    "nqueens-mpi checkpoint\n",
    "nqueens-mpi checkpoint 2\nn 14\n",
    "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 2\ntotal 5\nburnside 16\n",
    "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 3\ntotal 5\nburnside 16\nbits 0101",
    "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 02\ntotal 5\nburnside 16\nbits 0101",
    "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone  2\ntotal 5\nburnside 16\nbits 0101",
    "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 2\ntotal -5\nburnside 16\nbits 0101",
    "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 2\ntotal 5\nburnside 16\nbits 01",
    /* sums that cannot be: a total above the Burnside sum, sums of no tasks */
    "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 2\ntotal 17\nburnside 16\nbits 0101",
    "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 0\ntotal 0\nburnside 16\nbits 0000",
};

START_TEST(test_damaged)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", text[1024];
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    int k = snprintf(text, sizeof text, "%s", damaged[_i]);
    if (strstr(damaged[_i], "bits 0101") != NULL || strstr(damaged[_i], "bits 0000") != NULL) {
        for (int j = 2; j < 112; j++) k += snprintf(text + k, sizeof text - (size_t)k, "00"); /* 112 bytes */
        snprintf(text + k, sizeof text - (size_t)k, "\n");
    }
    add_check(text, sizeof text);
    write_text(text);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_BAD);
    ck_assert_uint_eq(cp.ndone, 0);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

/* The good file, then single-byte damage in its bitmap: an upper-case digit, a bit past the plan. */
START_TEST(test_bitmap)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", text[1024];
    const char *head =
        "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 2\ntotal 5\nburnside 16\nbits ";
    const char *last[] = {"01", "0F", "08", "x1"}; /* the last byte: task 888; 0x08 = task 891; x */
    const nq_mpi_load want[] = {NQ_MPI_LOAD_OK, NQ_MPI_LOAD_BAD, NQ_MPI_LOAD_BAD, NQ_MPI_LOAD_BAD};
    for (size_t t = 0; t < 4; t++) {
        with_bitmap(text, sizeof text, head, last[t]);
        add_check(text, sizeof text);
        write_text(text);
        ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
        ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), want[t]);
        if (want[t] == NQ_MPI_LOAD_OK) {
            ck_assert(cp.done[0] && cp.done[888] && cp.ndone == 2);
            ck_assert_uint_eq(cp.sums.burnside, 16);
        }
        nq_mpi_checkpoint_destroy(&cp);
    }
}
END_TEST

/* A good file whose checksum is of other bytes (one digit of its total changed after it was written,
 * or a digit of the checksum itself) is damaged too, and said to be so. */
START_TEST(test_checksum)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", text[1024], edited[1024];
    const char *head =
        "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 2\ntotal 5\nburnside 16\nbits ";
    with_bitmap(text, sizeof text, head, "01");
    add_check(text, sizeof text);
    write_text(text);
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_OK);
    nq_mpi_checkpoint_destroy(&cp);

    memcpy(edited, text, sizeof edited);
    memcpy(strstr(edited, "total 5"), "total 6", 7); /* the same length, the old checksum */
    write_text(edited);
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_BAD);
    ck_assert_str_eq(why, "a damaged checkpoint (its checksum does not match its bytes)");
    ck_assert_uint_eq(cp.ndone, 0);
    nq_mpi_checkpoint_destroy(&cp);

    memcpy(edited, text, sizeof edited);
    memcpy(strstr(edited, "check ") + 6, "0", 1); /* the checksum itself damaged */
    if (strcmp(edited, text) == 0) memcpy(strstr(edited, "check ") + 6, "1", 1);
    write_text(edited);
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_BAD);
    ck_assert_str_eq(why, "a damaged checkpoint (its checksum does not match its bytes)");
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

/* A file that ends after its bitmap (an older release's) is refused, UNCHECKED and left as it was,
 * unless the caller accepts it explicitly: then it is taken as it is (marked unchecked) so that a
 * count resumes across the upgrade, and its next save has the check line. */
START_TEST(test_older_file)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", text[1024];
    with_bitmap(text, sizeof text,
                "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 2\ntotal 5\nburnside 16\nbits ",
                "01");
    write_text(text);
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_UNCHECKED);
    ck_assert_str_eq(why, "no check line (a checkpoint of an older release, or the line was removed), so damage in "
                          "it cannot be found");
    ck_assert(cp.ndone == 0 && !cp.done[0] && !cp.unchecked); /* left fresh */
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, true, why, sizeof why), NQ_MPI_LOAD_OK);
    ck_assert(cp.unchecked);
    ck_assert(cp.done[0] && cp.done[888] && cp.ndone == 2);
    ck_assert(nq_mpi_checkpoint_save(path, &cp, why, sizeof why));
    nq_mpi_checkpoint_destroy(&cp);
    add_check(text, sizeof text);
    FILE *f = fopen(path, "rb");
    char back[1024] = "";
    ck_assert_ptr_nonnull(f);
    back[fread(back, 1, sizeof back - 1, f)] = '\0';
    fclose(f);
    ck_assert_str_eq(back, text);
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_OK);
    ck_assert(!cp.unchecked);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

/* A bypass of the check: a good checkpoint whose total is edited and whose
 * check line is deleted must not be read as an older release's file and resumed into a wrong count.
 * Without the caller's explicit acceptance it is refused; with it, the edit is taken (that is what
 * accepting an unchecked file means), but never silently. */
START_TEST(test_check_line_deleted)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", text[1024];
    with_bitmap(text, sizeof text,
                "nqueens-mpi checkpoint\nn 14\nplan 5\nmethod quad\ntasks 891\ndone 2\ntotal 5\nburnside 16\nbits ",
                "01");
    add_check(text, sizeof text);
    memcpy(strstr(text, "total 5"), "total 4", 7);
    *strstr(text, "check ") = '\0'; /* the check line deleted */
    write_text(text);
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_UNCHECKED);
    ck_assert_uint_eq(cp.ndone, 0);
    ck_assert_uint_eq(cp.sums.total, 0);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, true, why, sizeof why), NQ_MPI_LOAD_OK);
    ck_assert(cp.unchecked);
    ck_assert_uint_eq(cp.sums.total, 4);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

/* Sums that would wrap around 64 bits are not taken: the task stays not done. */
START_TEST(test_mark_overflow)
{
    nq_mpi_checkpoint cp;
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    const nq_count_sums big = {UINT64_MAX - 1u, UINT64_MAX - 1u}, two = {2, 2};
    ck_assert(nq_mpi_checkpoint_mark(&cp, 0, &big));
    ck_assert(!nq_mpi_checkpoint_mark(&cp, 1, &two));
    ck_assert(!cp.done[1]);
    ck_assert_uint_eq(cp.ndone, 1);
    ck_assert(cp.sums.total == UINT64_MAX - 1u);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

/* A FIFO (which a plain open would wait on for ever) or a folder is neither read nor locked, and no
 * FILE.lock is made beside it; a path too long for FILE.tmp.PID is refused when locking, before any
 * count. */
START_TEST(test_not_regular)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", name[300], longer[4200];
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, false, why, sizeof why), NQ_MPI_LOAD_BAD);
    ck_assert_str_eq(why, "not a regular file");
    nq_mpi_checkpoint_destroy(&cp);
    ck_assert_int_eq(nq_mpi_checkpoint_lock(path, why, sizeof why), -1);
    ck_assert_str_eq(why, "not a regular file");
    snprintf(name, sizeof name, "%s.lock", path);
    ck_assert_int_ne(access(name, F_OK), 0);
    ck_assert_int_eq(nq_mpi_checkpoint_lock(dir, why, sizeof why), -1);
    ck_assert_str_eq(why, "not a regular file");

    memset(longer, 'a', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    ck_assert_int_eq(nq_mpi_checkpoint_lock(longer, why, sizeof why), -1);
    ck_assert_ptr_nonnull(strstr(why, "longer than"));
}
END_TEST

START_TEST(test_lock)
{
    char why[256] = "";
    const int a = nq_mpi_checkpoint_lock(path, why, sizeof why);
    ck_assert_int_ge(a, 0);
    ck_assert_int_eq(nq_mpi_checkpoint_lock(path, why, sizeof why), -1); /* another open: held */
    ck_assert_ptr_nonnull(strstr(why, "another job holds"));
    nq_mpi_checkpoint_unlock(a);
    const int b = nq_mpi_checkpoint_lock(path, why, sizeof why);
    ck_assert_int_ge(b, 0);
    nq_mpi_checkpoint_unlock(b);
    nq_mpi_checkpoint_unlock(-1);
}
END_TEST

START_TEST(test_save_fails_cleanly)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", bad[300];
    make_some(&cp);
    snprintf(bad, sizeof bad, "%s/no-such-folder/cp", dir);
    ck_assert(!nq_mpi_checkpoint_save(bad, &cp, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "cannot create"));
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

/* A folder a checkpoint can be written in passes, and leaves nothing behind; one it cannot (here:
 * none, which even root cannot write in) fails, naming the file. */
START_TEST(test_writable)
{
    char why[256] = "", bad[300];
    ck_assert(nq_mpi_checkpoint_writable(path, why, sizeof why));
    ck_assert_int_ne(access(path, F_OK), 0); /* no checkpoint made */
    ck_assert_int_eq(rmdir(dir), 0);         /* empty: the probe's file is gone */
    ck_assert_int_eq(mkdir(dir, 0700), 0);
    snprintf(bad, sizeof bad, "%s/no-such-folder/cp", dir);
    ck_assert(!nq_mpi_checkpoint_writable(bad, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "cannot create"));
}
END_TEST

/* A checkpoint given through a symbolic link is the file it links to (so the lock and the rename act
 * on that file, not on the link), made yet or not, through a chain of links too; a plain path, or
 * one not made yet, is itself; a link into a folder that does not exist, and a loop, are refused. */
START_TEST(test_resolve)
{
    char why[256] = "", out[4096], link[300], target_real[4096];
    ck_assert(nq_mpi_checkpoint_resolve(path, out, sizeof out, why, sizeof why)); /* not made yet */
    ck_assert_str_eq(out, path);
    write_text("x");
    ck_assert_ptr_nonnull(realpath(path, target_real));
    snprintf(link, sizeof link, "%s/link", dir);
    ck_assert_int_eq(symlink(path, link), 0);
    ck_assert(nq_mpi_checkpoint_resolve(link, out, sizeof out, why, sizeof why));
    ck_assert_str_eq(out, target_real);
    ck_assert(!nq_mpi_checkpoint_resolve(link, out, 8, why, sizeof why)); /* does not fit */
    ck_assert_ptr_nonnull(strstr(why, "longer than 7 bytes"));
    char huge[5000];
    memset(huge, 'a', sizeof huge - 1);
    huge[sizeof huge - 1] = '\0';
    why[0] = '\0';
    ck_assert(!nq_mpi_checkpoint_resolve(huge, out, sizeof out, why, sizeof why)); /* a reason, always */
    ck_assert_ptr_nonnull(strstr(why, "longer than"));
    ck_assert_int_eq(unlink(path), 0);
    ck_assert(nq_mpi_checkpoint_resolve(link, out, sizeof out, why, sizeof why)); /* its file not made yet */
    ck_assert_str_eq(out, target_real);
    ck_assert_int_eq(unlink(link), 0);
    char nowhere[300];
    snprintf(nowhere, sizeof nowhere, "%s/no-such-folder/cp", dir);
    ck_assert_int_eq(symlink(nowhere, link), 0);
    ck_assert(!nq_mpi_checkpoint_resolve(link, out, sizeof out, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "a folder that does not exist"));
    ck_assert_int_eq(unlink(link), 0);
    /* A chain, link2 -> link -> path (not made yet), is followed to its end; a loop is refused. */
    char link2[300];
    snprintf(link2, sizeof link2, "%s/link2", dir);
    ck_assert_int_eq(symlink("link", link2), 0); /* relative to its folder */
    ck_assert_int_eq(symlink(path, link), 0);
    ck_assert(nq_mpi_checkpoint_resolve(link2, out, sizeof out, why, sizeof why));
    ck_assert_str_eq(out, target_real);
    ck_assert_int_eq(unlink(link), 0);
    ck_assert_int_eq(symlink("link2", link), 0);
    ck_assert(!nq_mpi_checkpoint_resolve(link2, out, sizeof out, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "a loop of links"));
    ck_assert_int_eq(unlink(link), 0);
    ck_assert_int_eq(unlink(link2), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mpi_checkpoint");
    TCase *tc = tcase_create("file");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_exact_text);
    tcase_add_test(tc, test_absent_and_foreign);
    tcase_add_loop_test(tc, test_damaged, 0, (int)(sizeof damaged / sizeof damaged[0]));
    tcase_add_test(tc, test_bitmap);
    tcase_add_test(tc, test_checksum);
    tcase_add_test(tc, test_older_file);
    tcase_add_test(tc, test_check_line_deleted);
    tcase_add_test(tc, test_mark_overflow);
    tcase_add_test(tc, test_not_regular);
    tcase_add_test(tc, test_lock);
    tcase_add_test(tc, test_save_fails_cleanly);
    tcase_add_test(tc, test_writable);
    tcase_add_test(tc, test_resolve);
    suite_add_tcase(s, tc);
    return nq_check_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
