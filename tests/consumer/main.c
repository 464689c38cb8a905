/* main.c - a program outside the nqueens tree, built against an installed libnqueens (through CMake's
 * find_package or pkg-config; tests/consumer/CMakeLists.txt, scripts/test.d/17-install.sh). It counts
 * the 8 x 8 board and prints the version of the library and of its headers; it exits 1 unless the counts
 * are 92 and 12 and the two versions agree. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nqueens/solver.h>
#include <nqueens/version.h>

int main(void)
{
    nq_counts counts = {0, 0};
    const nq_err rc = nq_count(8, 0, NULL, &counts);
    if (rc != NQ_OK) {
        fprintf(stderr, "nq_count(8): %s\n", nq_err_message(rc));
        return EXIT_FAILURE;
    }
    printf("n=8 total=%" PRIu64 " unique=%" PRIu64 "\n", counts.total, counts.unique);
    printf("nq_version()=%s NQ_VERSION_STRING=%s\n", nq_version(), NQ_VERSION_STRING);
    if (counts.total != 92 || counts.unique != 12) return EXIT_FAILURE;
    return strcmp(nq_version(), NQ_VERSION_STRING) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
