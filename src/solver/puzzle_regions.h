/* puzzle_regions.h - internal: the regions kind's board masks, shared by its search, engine and generator.
 *
 * A regions board is held as one 64-bit mask per row (bit c = column c), and each region as its mask
 * in every row, so that "the free squares of region 3" is n ANDs. The search (puzzle_regions_search.c)
 * counts solutions, the engine (puzzle_regions_engine.c) deduces as a person does, the generator
 * (puzzle_regions_gen.c) draws puzzles; all three are reentrant and allocate nothing (a map is
 * about 31 KB, kept by the caller, usually on the stack).
 */
#ifndef NQ_PUZZLE_REGIONS_H
#define NQ_PUZZLE_REGIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "nqueens/puzzle.h"
#include "puzzle_impl.h"

#define RN_MAX NQ_PUZZLE_N_MAX

/* The number of set bits of x. Written out (SWAR, as in Hacker's Delight 5-1) rather than
 * __builtin_popcountll, which without -mpopcnt becomes a slow library call on x86-64, and the
 * search counts candidates at every node. */
static inline int nq__popcount64(uint64_t x)
{
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0f0f0f0f0f0f0f0f);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* A regions puzzle as masks. */
typedef struct nq__regions_map {
    int n;                       /* board size */
    uint64_t all;                /* the n low bits: a full row */
    const uint8_t *region;       /* the puzzle's region ids, r * n + c (not owned) */
    uint64_t in[RN_MAX][RN_MAX]; /* in[id][r]: the squares of region id in row r */
    int lo[RN_MAX], hi[RN_MAX];  /* region id's first and last row: loops over a region's rows skip the rest */
} nq__regions_map;

/* Fill m from p (a regions puzzle); m keeps a pointer to p->region, so p must outlive m. */
void nq__regions_map_init(nq__regions_map *m, const nq_puzzle *p);

/* The squares a queen on (r, c) rules out for others, into att[0..n): its row, column, region and the
 * eight neighbours, the square itself included. */
void nq__regions_attacks(const nq__regions_map *m, int r, int c, uint64_t *att);

/* Count solutions of m with a queen on each square of queens (NULL: none) and none on blocked (NULL:
 * none), up to limit; the first into out->cols (out->found). */
nq_err nq__regions_search(const nq__regions_map *m, const uint64_t *queens, const uint64_t *blocked, uint64_t limit,
                          nq__puzzle_work *w, nq_puzzle_count_result *out);

/* Run the engine from the empty board with the rules up to max, applying every step until none
 * applies: *solved when it filled the board; else the squares still free into free_out[0..n) and
 * the regions without a queen into *open_regions (what a generator may change). */
nq_err nq__regions_run(const nq__regions_map *m, nq_puzzle_rule max, nq__puzzle_work *w, uint64_t *free_out,
                       uint64_t *open_regions, bool *solved);

/* nq__regions_search that also keeps the first keep_count solutions found: solution i's columns at
 * keep[i * RN_MAX .. + n). */
nq_err nq__regions_search_keep(const nq__regions_map *m, const uint64_t *queens, const uint64_t *blocked,
                               uint64_t limit, nq__puzzle_work *w, nq_puzzle_count_result *out, uint8_t *keep,
                               uint64_t keep_count);

/* Grade m's puzzle (nq__puzzle_regions_grade on a map). */
nq_err nq__regions_grade(const nq__regions_map *m, nq__puzzle_work *w, nq_puzzle_grade *out);

#endif /* NQ_PUZZLE_REGIONS_H */
