/* version.c - the version of the library that was linked (include/nqueens/version.h). */
#include "nqueens/version.h"

const char *nq_version(void)
{
    /* Compiled into the library: the headers' version when libnqueens was built, not when its caller was. */
    return NQ_VERSION_STRING;
}
