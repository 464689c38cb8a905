/* print_problems.c - prints every problem type a response can carry, one "slug status" line per row of
 * the service's problem table (src/server/base/errors.h), for check_problem_lists.sh. It asks the table through
 * its public lookups, so it holds whatever columns the table grows. */
#include "base/errors.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    for (size_t i = 0; i < nq_problem_count(); i++) {
        const nq_problem_type *t = nq_problem_at(i);
        if (printf("%s %d\n", t->slug, t->status) < 0) {
            return EXIT_FAILURE;
        }
    }
    return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
