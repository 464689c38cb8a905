/* placement_impl.h - internal: the layout of nq_placement, shared by placement.c (building, parsing)
 * and placement_check.c (checking). Callers outside the library see it opaque. */
#ifndef NQ_PLACEMENT_IMPL_H
#define NQ_PLACEMENT_IMPL_H

#include "nqueens/placement.h"

#define NQ_PLACEMENT_CAPACITY_MAX (UINT32_MAX - 1u) /* the checker ranks queens by uint32_t */

struct nq_placement {
    uint32_t n;        /* board size */
    bool finished;     /* sorted and free of duplicates: read-only from now on */
    size_t count;      /* queens added */
    size_t capacity;   /* room in queens */
    nq_square *queens; /* count squares: in the order added, row-major once finished */
};

#endif /* NQ_PLACEMENT_IMPL_H */
