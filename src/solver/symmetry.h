/* symmetry.h - internal to the solver: the 8 symmetries of the board acting on column vectors.
 *
 * A solution is a permutation cols[r] = column of the queen in row r. Each of the 8 rotations and
 * reflections maps it to another permutation, and every one of them is a combination of three moves:
 * take the inverse permutation (transpose the board), reverse the rows, complement the columns
 * (c -> n-1-c). So image g of cols is, at row r:
 *     x = (g & SYM_INVERSE ? inv : cols)[g & SYM_REVERSE ? n-1-r : r];
 *     image[r] = g & SYM_COMPLEMENT ? n-1-x : x;
 * The count's leaves and the unique iterator call this once per solution, so it is inline and never
 * allocates. Caller's duty (asserted in debug builds): cols is a permutation of 0..n-1, 1 <= n <= 32.
 * All functions are pure: thread-safe.
 */
#ifndef NQ_SOLVER_SYMMETRY_H
#define NQ_SOLVER_SYMMETRY_H

#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "nqueens/solver.h"

enum nq_sym_move {
    NQ_SYM_COMPLEMENT = 1u << 0, /* c -> n-1-c: mirror left/right */
    NQ_SYM_REVERSE = 1u << 1,    /* r -> n-1-r: mirror top/bottom */
    NQ_SYM_INVERSE = 1u << 2,    /* swap rows and columns: transpose */
    NQ_SYM_COUNT = 8             /* g = 0 .. 7; g = 0 is the identity */
};

/* Row r of image g of cols; inv is the inverse permutation of cols. */
static inline uint8_t nq_sym_at(int n, const uint8_t *cols, const uint8_t *inv, unsigned g, int r)
{
    const uint8_t *src = (g & NQ_SYM_INVERSE) ? inv : cols;
    const uint8_t x = src[(g & NQ_SYM_REVERSE) ? n - 1 - r : r];
    return (g & NQ_SYM_COMPLEMENT) ? (uint8_t)(n - 1 - x) : x;
}

/* Writes the inverse permutation of cols to inv (n bytes). */
static inline void nq_sym_invert(int n, const uint8_t *cols, uint8_t *inv)
{
    for (int r = 0; r < n; r++) {
        assert(cols[r] < n);
        inv[cols[r]] = (uint8_t)r;
    }
}

/* Lexicographic comparison of image g with cols itself: < 0, 0 or > 0. Stops at the first
 * difference, which for most images is row 0, so the usual cost is O(1). */
static inline int nq_sym_compare(int n, const uint8_t *cols, const uint8_t *inv, unsigned g)
{
    for (int r = 0; r < n; r++) {
        const uint8_t v = nq_sym_at(n, cols, inv, g, r);
        if (v != cols[r]) return v < cols[r] ? -1 : 1;
    }
    return 0;
}

/* 0 if some image of cols sorts before it (cols is not its class's representative); otherwise the
 * number of symmetries that map cols to itself (1, 2 or 4), so the class has 8 / that many members. */
static inline int nq_sym_classify(int n, const uint8_t *cols)
{
    uint8_t inv[NQ_N_MAX];
    int fixers = 1; /* the identity */
    nq_sym_invert(n, cols, inv);
    for (unsigned g = 1; g < NQ_SYM_COUNT; g++) {
        const int cmp = nq_sym_compare(n, cols, inv, g);
        if (cmp < 0) return 0;
        if (cmp == 0) fixers++;
    }
    return fixers;
}

/* Writes image g of cols to out (n bytes; out must not alias cols). */
static inline void nq_sym_image(int n, const uint8_t *cols, unsigned g, uint8_t *out)
{
    uint8_t inv[NQ_N_MAX];
    nq_sym_invert(n, cols, inv);
    for (int r = 0; r < n; r++) out[r] = nq_sym_at(n, cols, inv, g, r);
}

#endif /* NQ_SOLVER_SYMMETRY_H */
