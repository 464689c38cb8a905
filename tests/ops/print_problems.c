/* print_problems.c - prints every problem type a response can carry, one "slug status" line per error
 * of the error table (include/nqueens/error.h) but NQ_OK, for check_problem_lists.sh.
 *
 * It asks the table through its public lookups rather than expanding NQ_ERR_TABLE, so it holds
 * whatever columns the table grows: a code is in the table when nq_err_name knows it. */
#include "nqueens/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    for (int code = 1; code < 1024; code++) { /* codes are small and never renumbered */
        const nq_err err = (nq_err)code;
        if (strcmp(nq_err_name(err), "E_UNKNOWN") == 0) {
            continue;
        }
        if (printf("%s %d\n", nq_err_problem_slug(err), nq_err_http_status(err)) < 0) {
            return EXIT_FAILURE;
        }
    }
    return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
