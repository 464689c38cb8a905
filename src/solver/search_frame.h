/* search_frame.h - internal to the solver: what the enumerator (iter.c) and the backtracking counter
 * (count_bt.c) share of their row-by-row search: the explicit stack's frame, and the one normal-form
 * rule whose test both run per node (symmetry.h has the symmetries themselves).
 *
 * Pure data and an inline function: thread-safe.
 */
#ifndef NQ_SOLVER_SEARCH_FRAME_H
#define NQ_SOLVER_SEARCH_FRAME_H

#include <stdint.h>

/* One row of the explicit stack. */
typedef struct nq_frame {
    uint32_t untried; /* candidate columns of this row not yet tried in the current branch */
    uint32_t down;    /* columns taken by the rows above */
    uint32_t left;    /* squares of this row attacked along one diagonal from above */
    uint32_t right;   /* squares of this row attacked along the other diagonal */
} nq_frame;

/* The side-column rule of the normal form, on the row where it decides: by the end of that row both
 * side columns (`side`) must be taken, so of the candidates `avail` (given the columns `down` taken
 * above) only the one still missing may be, or none when both are. */
static inline uint32_t nq_side_rule(uint32_t avail, uint32_t down, uint32_t side)
{
    const uint32_t missing = side & ~down;
    if (missing == 0) return avail;
    if (missing == side) return 0; /* both would need this one row */
    return avail & missing;        /* the other side column, nothing else */
}

#endif /* NQ_SOLVER_SEARCH_FRAME_H */
