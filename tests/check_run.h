/* check_run.h - the runner every Check suite's main ends with. Header-only: each suite is one
 * executable. */
#ifndef NQ_CHECK_RUN_H
#define NQ_CHECK_RUN_H

#include <check.h>

/* Run every case of suite s (forked, as Check does by default, so a crash fails one case), print
 * the usual summary and return how many cases failed. The runner takes s and frees it. */
static inline int nq_check_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    const int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

#endif /* NQ_CHECK_RUN_H */
