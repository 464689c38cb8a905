/* count_k.c - k non-attacking queens on an n x n board, all and up to symmetry (see kqueens.h).
 *
 * Tuned for the counts a service answers in about a second (n up to 11 or so): a plain recursive mask
 * search over rows, each row either empty or holding one queen, with two shortcuts: a branch stops
 * as soon as the rows left cannot hold the queens still to place, and the last queen is not placed
 * but counted, as the sum over the remaining rows of their free squares.
 * The rotations' fixed points come from searches over the orbits of a top row's square: two squares
 * (half turn) or four (quarter turn) placed at once, checked against one set of masks per line family.
 */
#include "nqueens/kqueens.h"

#include <assert.h>
#include <stdbool.h>

#define POLL_MASK ((UINT64_C(1) << 16) - 1)

typedef struct search {
    int n;
    uint32_t full;     /* the n low bits */
    uint64_t nodes;    /* for polling */
    nq_count_ctl *ctl; /* may be NULL */
    bool canceled;     /* ctl said stop */
} search;

static bool poll(search *s)
{
    if ((++s->nodes & POLL_MASK) == 0 && s->ctl && atomic_load_explicit(&s->ctl->cancel, memory_order_relaxed))
        s->canceled = true;
    return s->canceled;
}

/* ---- all placements: rows top to bottom, each empty or holding one queen ------------------------ */

/* The free squares of the `rows` rows from here down, the masks shifting as the rows go. */
static uint64_t last_queen(const search *s, int rows, uint32_t down, uint32_t left, uint32_t right)
{
    uint64_t sum = 0;
    for (int i = 0; i < rows; i++) {
        sum += (uint64_t)__builtin_popcount(s->full & ~(down | left | right));
        left = (left << 1) & s->full;
        right >>= 1;
    }
    return sum;
}

static uint64_t all_from(search *s, int rows, int k, uint32_t down, uint32_t left, uint32_t right)
{
    if (k == 0) return 1;
    if (rows < k || poll(s)) return 0;
    if (k == 1) return last_queen(s, rows, down, left, right);
    uint64_t sum = rows > k ? all_from(s, rows - 1, k, down, (left << 1) & s->full, right >> 1) : 0; /* empty row */
    for (uint32_t avail = s->full & ~(down | left | right); avail; avail &= avail - 1) {
        const uint32_t b = avail & (~avail + 1u);
        sum += all_from(s, rows - 1, k - 1, down | b, ((left | b) << 1) & s->full, (right | b) >> 1);
    }
    return sum;
}

/* Row 0's choices one by one, for progress: the empty row, then each column. */
static uint64_t all(search *s, int k)
{
    const int n = s->n;
    if (s->ctl) atomic_store(&s->ctl->total, (uint_fast32_t)n + 1u);
    uint64_t sum = n > k ? all_from(s, n - 1, k, 0, 0, 0) : 0;
    for (int c = 0; c < n && !s->canceled; c++) {
        if (s->ctl) atomic_fetch_add(&s->ctl->done, 1);
        const uint32_t b = 1u << c;
        sum += all_from(s, n - 1, k - 1, b, (b << 1) & s->full, b >> 1);
    }
    if (s->ctl) atomic_store(&s->ctl->done, (uint_fast32_t)n + 1u);
    return sum;
}

/* ---- fixed points of the rotations: whole orbits at once ----------------------------------------- */

typedef struct lines {
    uint32_t rows; /* rows in use (a quarter turn's orbit spans four) */
    uint32_t cols; /* columns in use */
    uint64_t diag; /* r - c + n - 1 */
    uint64_t anti; /* r + c */
} lines;

/* Put a queen on (r, c) unless it shares a line with one in l. */
static bool put(lines *l, int n, int r, int c)
{
    const uint32_t br = 1u << r, bc = 1u << c;
    const uint64_t bd = UINT64_C(1) << (r - c + n - 1), ba = UINT64_C(1) << (r + c);
    if ((l->rows & br) || (l->cols & bc) || (l->diag & bd) || (l->anti & ba)) return false;
    l->rows |= br, l->cols |= bc, l->diag |= bd, l->anti |= ba;
    return true;
}

/* Half turn: row r < n/2 holds nothing, or (r, c) with its image (n-1-r, n-1-c). */
static uint64_t half_from(search *s, int r, int k, lines l)
{
    const int n = s->n;
    if (k == 0) return 1;
    if (r >= n / 2 || 2 * (n / 2 - r) < k || poll(s)) return 0;
    uint64_t sum = half_from(s, r + 1, k, l);
    if (k < 2) return sum;
    for (int c = 0; c < n; c++) {
        lines m = l;
        if (put(&m, n, r, c) && put(&m, n, n - 1 - r, n - 1 - c)) sum += half_from(s, r + 1, k - 2, m);
    }
    return sum;
}

/* Quarter turn: row r < n/2 adds nothing, or the orbit of (r, c) for r <= c < n-1-r: its squares lie
 * in rows r, c, n-1-r, n-1-c, none above r, so each orbit is added once, from its top row (c = n-1-r
 * would give the orbit of (r, r) again). */
static uint64_t quarter_from(search *s, int r, int k, lines l)
{
    const int n = s->n;
    if (k == 0) return 1;
    if (r >= n / 2 || poll(s)) return 0;
    uint64_t sum = quarter_from(s, r + 1, k, l);
    if (k < 4) return sum;
    for (int c = r; c < n - 1 - r; c++) {
        lines m = l;
        if (put(&m, n, r, c) && put(&m, n, c, n - 1 - r) && put(&m, n, n - 1 - r, n - 1 - c) &&
            put(&m, n, n - 1 - c, r))
            sum += quarter_from(s, r + 1, k - 4, m);
    }
    return sum;
}

/* The configurations a rotation fixes; `quarter` picks the quarter turn. For odd n the centre is its
 * own orbit: with it or without it. */
static uint64_t rotation_fixed(search *s, int k, bool quarter)
{
    const int n = s->n, step = quarter ? 4 : 2;
    uint64_t sum = 0;
    for (int centre = 0; centre <= (n & 1); centre++) {
        const int rest = k - centre;
        if (rest < 0 || rest % step) continue;
        lines l = {0, 0, 0, 0};
        if (centre) (void)put(&l, n, n / 2, n / 2);
        sum += quarter ? quarter_from(s, 0, rest, l) : half_from(s, 0, rest, l);
    }
    return sum;
}

/* What the four reflections fix together: at most one queen, on the mirror line. */
static uint64_t reflections_fixed(int n, int k)
{
    if (k == 0) return 4;
    if (k > 1) return 0;
    return (uint64_t)n * 2u + ((n & 1) ? (uint64_t)n * 2u : 0u); /* two diagonals; two middle lines if odd */
}

nq_err nq_count_k(int n, int k, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    if (!out || threads < 0) return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX || k < 0 || k > n) return NQ_E_RANGE;
    if (k == n) return nq_count(n, threads, ctl, out);
    if (ctl) {
        atomic_store(&ctl->done, 0);
        atomic_store(&ctl->total, 0);
    }
    search s = {.n = n, .full = (1u << n) - 1u, .nodes = 0, .ctl = ctl, .canceled = false};
    const uint64_t total = k == 0 ? 1 : all(&s, k);
    const uint64_t half = rotation_fixed(&s, k, false), quarter = rotation_fixed(&s, k, true);
    if (s.canceled) return NQ_E_CANCELED;
    const uint64_t sum = total + half + 2u * quarter + reflections_fixed(n, k);
    assert(sum % 8u == 0 && "Burnside: the orbits are whole");
    out->total = total;
    out->unique = sum / 8u;
    return NQ_OK;
}
