/* test_checkpoint.c - nqueens-mpi's checkpoint file: a save read back is the same state; absent,
 * foreign and damaged files are told apart and leave the state fresh; one job per file. */
#include "checkpoint.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &back, why, sizeof why), NQ_MPI_LOAD_OK);
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
    ck_assert_str_eq(text, want);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

START_TEST(test_absent_and_foreign)
{
    nq_mpi_checkpoint cp, other;
    char why[256] = "";
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, why, sizeof why), NQ_MPI_LOAD_ABSENT);
    nq_mpi_checkpoint_destroy(&cp);
    make_some(&cp);
    ck_assert(nq_mpi_checkpoint_save(path, &cp, why, sizeof why));
    ck_assert_int_eq(nq_mpi_checkpoint_create(13, &other), NQ_OK);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &other, why, sizeof why), NQ_MPI_LOAD_FOREIGN);
    ck_assert_ptr_nonnull(strstr(why, "n = 14"));
    ck_assert_uint_eq(other.ndone, 0); /* left fresh */
    nq_mpi_checkpoint_destroy(&other);
    nq_mpi_checkpoint_destroy(&cp);
}
END_TEST

/* Damaged files: each is one edit of a good n = 14 checkpoint (tasks 0 and 8 done). */
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
};

START_TEST(test_damaged)
{
    nq_mpi_checkpoint cp;
    char why[256] = "", text[1024];
    ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
    int k = snprintf(text, sizeof text, "%s", damaged[_i]);
    if (strstr(damaged[_i], "bits 0101") != NULL) { /* complete the bitmap: 112 bytes in all */
        for (int j = 2; j < 112; j++) k += snprintf(text + k, sizeof text - (size_t)k, "00");
        snprintf(text + k, sizeof text - (size_t)k, "\n");
    }
    write_text(text);
    ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, why, sizeof why), NQ_MPI_LOAD_BAD);
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
        int k = snprintf(text, sizeof text, "%s01", head);
        for (int j = 1; j < 111; j++) k += snprintf(text + k, sizeof text - (size_t)k, "00");
        snprintf(text + k, sizeof text - (size_t)k, "%s\n", last[t]);
        write_text(text);
        ck_assert_int_eq(nq_mpi_checkpoint_create(N, &cp), NQ_OK);
        ck_assert_int_eq(nq_mpi_checkpoint_load(path, &cp, why, sizeof why), want[t]);
        if (want[t] == NQ_MPI_LOAD_OK) {
            ck_assert(cp.done[0] && cp.done[888] && cp.ndone == 2);
            ck_assert_uint_eq(cp.sums.burnside, 16);
        }
        nq_mpi_checkpoint_destroy(&cp);
    }
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
    tcase_add_test(tc, test_lock);
    tcase_add_test(tc, test_save_fails_cleanly);
    suite_add_tcase(s, tc);
    return nq_check_run(s) ? EXIT_FAILURE : EXIT_SUCCESS;
}
