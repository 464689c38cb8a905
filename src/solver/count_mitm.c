/* count_mitm.c - meet-in-the-middle N-Queens counter: search the top rows, join the bottom rows.
 *
 * Workload: one count of all solutions of an n x n board, n up to NQ_COUNT_N_MAX, on a few cores.
 * A plain backtracking counter spends most of its time in the last rows of the board, where every
 * top placement re-searches the same small bottom placements. Here the board is cut after row h:
 *
 *   - every placement of the k = n - h bottom rows is enumerated once (the "table"), filed by the
 *     set of columns it uses, and reduced to one 64-bit key: the "\" and "/" diagonals it occupies,
 *     measured where they cross row h (see bottom_key);
 *   - the top h rows are searched by bitmask backtracking; at each top placement the free columns F
 *     name exactly one bucket of the table, and a bottom placement completes the board iff its key
 *     shares no bit with the top's attack masks: one AND per pair, streamed through a contiguous
 *     bucket with SIMD (join_*).
 *
 * Work is split into tasks (placements of the first PREFIX_ROWS rows) that worker threads take from
 * an atomic counter; left-right mirror symmetry halves the tasks. Unique counts come from Burnside's
 * lemma with the rotation-symmetric counts of count_mitm_sym.c.
 *
 * Memory: the table (8 bytes per bottom placement) plus small rank tables; k is chosen per n so the
 * table stays under TABLE_CAP_BYTES (about 370 MB at n = 20). Nothing is allocated in the search.
 */
#include "count_mitm.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NQ_MITM_X86 1
#else
#define NQ_MITM_X86 0
#endif

#define TABLE_CAP_BYTES ((size_t)1 << 30) /* hard cap on the bottom table: 1 GiB */
#define LO_BITS 12                        /* column-set rank: low bits resolved by one table */
#define MAX_THREADS 64                    /* more workers than this cannot help a 2-level split */
#define PREFIX_ROWS_MAX 4                 /* rows fixed per task */
#define CANCEL_STRIDE 256u                /* top leaves between two looks at the cancel flag */

/* Rows in the joined bottom band, per n (index n). Chosen by measurement (README "Performance"):
 * more rows make the search shorter and the buckets longer; the table grows about 6x per row. */
static const uint8_t bottom_rows_by_n[NQ_COUNT_N_MAX + 1] = {
    0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, /* n = 0..14 */
    6, 6, 6, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6,       /* n = 15..27 */
};

/* The bottom band, keyed and bucketed by the set of columns it uses. Read-only once built. */
typedef struct join_table {
    int n;              /* board size */
    int k;              /* rows in the bottom band */
    uint64_t *keys;     /* (L << 32) | R per bottom placement, grouped by column-set rank */
    uint32_t *start;    /* bucket r is keys[start[r] .. start[r+1]); nsets + 1 entries */
    uint32_t nsets;     /* number of k-subsets of n columns, C(n, k) */
    uint32_t *lo_rank;  /* colex rank of the columns below LO_BITS, by those bits */
    uint8_t *lo_pop;    /* how many columns below LO_BITS, by those bits */
    uint32_t *hi_rank;  /* rank contribution of the columns >= LO_BITS: [pop_below][bits >> LO_BITS] */
    size_t hi_count;    /* entries per pop_below row of hi_rank */
} join_table;

typedef uint64_t (*join_fn)(const uint64_t *keys, size_t len, uint64_t probe);

/* One unit of work: the board after the first rows are placed, and its weight (2 when the mirror
 * image of the prefix is skipped). */
typedef struct task {
    uint32_t cols, ld, rd; /* occupied columns and diagonal attacks on the next row */
    uint32_t weight;       /* 1 or 2 */
} task;

typedef struct job {
    const join_table *table; /* the bottom band */
    join_fn join;            /* the SIMD variant this CPU runs */
    const task *tasks;       /* all tasks */
    uint32_t ntasks;         /* how many */
    int n, h, prefix;        /* board size, rows in the top band, rows fixed per task */
    atomic_uint_fast32_t next;   /* next task to take */
    atomic_uint_fast64_t total;  /* weighted solutions found so far */
    atomic_bool stop;            /* set on cancel so every worker leaves */
    nq_count_ctl *ctl;           /* caller's control block, may be NULL */
} job;

/* ---- join: count bottom keys disjoint from a probe --------------------------------------------- */

/* The reference version: one AND and one compare per bottom placement. */
static uint64_t join_scalar(const uint64_t *keys, size_t len, uint64_t probe)
{
    uint64_t hits = 0;
    for (size_t i = 0; i < len; i++)
        hits += (keys[i] & probe) == 0;
    return hits;
}

#if NQ_MITM_X86
/* AVX2: four keys per step; a matching lane compares to all-ones (-1), subtracted to count it. */
__attribute__((target("avx2"))) static uint64_t join_avx2(const uint64_t *keys, size_t len,
                                                          uint64_t probe)
{
    const __m256i p = _mm256_set1_epi64x((long long)probe);
    const __m256i zero = _mm256_setzero_si256();
    __m256i acc0 = zero, acc1 = zero;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(keys + i + 4));
        acc0 = _mm256_sub_epi64(acc0, _mm256_cmpeq_epi64(_mm256_and_si256(a, p), zero));
        acc1 = _mm256_sub_epi64(acc1, _mm256_cmpeq_epi64(_mm256_and_si256(b, p), zero));
    }
    uint64_t lanes[4];
    _mm256_storeu_si256((__m256i *)(void *)lanes, _mm256_add_epi64(acc0, acc1));
    return lanes[0] + lanes[1] + lanes[2] + lanes[3] + join_scalar(keys + i, len - i, probe);
}

/* AVX-512: eight keys per step; testn sets a mask bit per lane whose AND is zero. */
__attribute__((target("avx512f"))) static uint64_t join_avx512(const uint64_t *keys, size_t len,
                                                              uint64_t probe)
{
    const __m512i p = _mm512_set1_epi64((long long)probe);
    const __m512i one = _mm512_set1_epi64(1);
    __m512i acc0 = _mm512_setzero_si512(), acc1 = _mm512_setzero_si512();
    size_t i = 0;
    for (; i + 16 <= len; i += 16) {
        const __m512i a = _mm512_loadu_si512((const void *)(keys + i));
        const __m512i b = _mm512_loadu_si512((const void *)(keys + i + 8));
        acc0 = _mm512_mask_add_epi64(acc0, _mm512_testn_epi64_mask(a, p), acc0, one);
        acc1 = _mm512_mask_add_epi64(acc1, _mm512_testn_epi64_mask(b, p), acc1, one);
    }
    const uint64_t sum = (uint64_t)_mm512_reduce_add_epi64(_mm512_add_epi64(acc0, acc1));
    return sum + join_scalar(keys + i, len - i, probe);
}
#endif

/* The widest join this CPU runs. */
static join_fn pick_join(void)
{
#if NQ_MITM_X86
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return join_avx512;
    if (__builtin_cpu_supports("avx2"))
        return join_avx2;
#endif
    return join_scalar;
}

/* ---- column-set ranks ---------------------------------------------------------------------------- */

static uint64_t binomial(int a, int b)
{
    if (b < 0 || a < b)
        return 0;
    uint64_t r = 1;
    for (int i = 1; i <= b; i++)
        r = r * (uint64_t)(a - b + i) / (uint64_t)i; /* exact: r * (a-b+i) is C(a-b+i, i) * i */
    return r;
}

/* Colex rank of the set bits of `bits`, the first having index `first` among all set bits and
 * bit positions offset by `base`: sum of C(position, index + 1). */
static uint32_t colex_part(uint32_t bits, int base, int first)
{
    uint64_t r = 0;
    for (int idx = first; bits != 0; idx++) {
        const int pos = __builtin_ctz(bits) + base;
        bits &= bits - 1u;
        r += binomial(pos, idx + 1);
    }
    return (uint32_t)r;
}

/* The bucket of column set F (exactly k bits): its colex rank, 0 .. C(n,k)-1, in two lookups. */
static inline uint32_t set_rank(const join_table *t, uint32_t set)
{
    const uint32_t lo = set & ((1u << LO_BITS) - 1u);
    return t->lo_rank[lo] + t->hi_rank[(size_t)t->lo_pop[lo] * t->hi_count + (set >> LO_BITS)];
}

static nq_err rank_tables_build(join_table *t)
{
    const size_t lo_count = (size_t)1 << LO_BITS;
    const int hi_bits = t->n > LO_BITS ? t->n - LO_BITS : 0;
    t->hi_count = (size_t)1 << hi_bits;
    t->lo_rank = malloc(lo_count * sizeof *t->lo_rank);
    t->lo_pop = malloc(lo_count);
    t->hi_rank = malloc((size_t)(t->k + 1) * t->hi_count * sizeof *t->hi_rank);
    if (t->lo_rank == NULL || t->lo_pop == NULL || t->hi_rank == NULL)
        return NQ_E_NOMEM;
    for (size_t lo = 0; lo < lo_count; lo++) {
        t->lo_rank[lo] = colex_part((uint32_t)lo, 0, 0);
        t->lo_pop[lo] = (uint8_t)__builtin_popcount((unsigned)lo);
    }
    for (int pop = 0; pop <= t->k; pop++)
        for (size_t hi = 0; hi < t->hi_count; hi++)
            t->hi_rank[(size_t)pop * t->hi_count + hi] = colex_part((uint32_t)hi, LO_BITS, pop);
    return NQ_OK;
}

/* ---- the bottom table ---------------------------------------------------------------------------- */

/* Walk of every placement of the bottom band. Pass 1 (keys == NULL) counts placements per bucket
 * into fill[]; pass 2 stores each key at fill[bucket]++. */
typedef struct bottom_walk {
    const join_table *t; /* ranks, n, k */
    uint32_t full;       /* n low bits */
    uint32_t *fill;      /* per-bucket counter (pass 1) or write position (pass 2) */
    uint64_t *keys;      /* NULL in pass 1 */
} bottom_walk;

/* Place bottom row i (board row h + i). The key: a queen at (h + i, c) lies on the "\" diagonal that
 * crosses row h at column c - i and on the "/" diagonal that crosses it at c + i; a top queen attacks
 * it exactly when the top's attack masks on row h hold that bit. Diagonals crossing row h off the
 * board cannot meet a top queen, so they are dropped (bit >> i and the mask on bit << i). */
static void bottom_place(const bottom_walk *w, int i, uint32_t cols, uint32_t ld, uint32_t rd,
                         uint32_t lkey, uint32_t rkey)
{
    if (i == w->t->k) {
        const uint32_t r = set_rank(w->t, cols);
        if (w->keys == NULL)
            w->fill[r]++;
        else
            w->keys[w->fill[r]++] = ((uint64_t)lkey << 32) | rkey;
        return;
    }
    uint32_t avail = w->full & ~(cols | ld | rd);
    while (avail != 0) {
        const uint32_t bit = avail & (0u - avail);
        avail ^= bit;
        bottom_place(w, i + 1, cols | bit, ((ld | bit) << 1) & w->full, (rd | bit) >> 1,
                     lkey | (bit >> i), rkey | ((bit << i) & w->full));
    }
}

static void table_destroy(join_table *t)
{
    free(t->keys);
    free(t->start);
    free(t->lo_rank);
    free(t->lo_pop);
    free(t->hi_rank);
    memset(t, 0, sizeof *t);
}

static nq_err table_build(join_table *t, int n, int k)
{
    memset(t, 0, sizeof *t);
    t->n = n;
    t->k = k;
    t->nsets = (uint32_t)binomial(n, k);
    nq_err err = rank_tables_build(t);
    if (err != NQ_OK)
        return err;
    t->start = calloc((size_t)t->nsets + 1u, sizeof *t->start);
    if (t->start == NULL)
        return NQ_E_NOMEM;
    bottom_walk w = {t, (uint32_t)((1ull << n) - 1u), t->start + 1, NULL};
    bottom_place(&w, 0, 0, 0, 0, 0, 0); /* start[r + 1] = size of bucket r */
    uint64_t sum = 0;
    for (uint32_t r = 0; r <= t->nsets; r++) {
        sum += t->start[r];
        if (sum > UINT32_MAX || sum * sizeof *t->keys > TABLE_CAP_BYTES)
            return NQ_E_NOMEM;
        t->start[r] = (uint32_t)sum; /* now start[r + 1] = end of bucket r */
    }
    t->keys = malloc((size_t)sum * sizeof *t->keys + sizeof *t->keys);
    uint32_t *fill = malloc((size_t)t->nsets * sizeof *fill);
    if (t->keys == NULL || fill == NULL) {
        free(fill);
        return NQ_E_NOMEM;
    }
    memcpy(fill, t->start, (size_t)t->nsets * sizeof *fill);
    w.fill = fill;
    w.keys = t->keys;
    bottom_place(&w, 0, 0, 0, 0, 0, 0);
    free(fill);
    return NQ_OK;
}

/* ---- the top band -------------------------------------------------------------------------------- */

static bool cancelled(job *j)
{
    if (atomic_load_explicit(&j->stop, memory_order_relaxed))
        return true;
    if (j->ctl != NULL && atomic_load_explicit(&j->ctl->cancel, memory_order_relaxed)) {
        atomic_store_explicit(&j->stop, true, memory_order_relaxed);
        return true;
    }
    return false;
}

/* Join one complete top placement: F = free columns picks the bucket, the attack masks on row h
 * are the probe. */
static inline uint64_t join_leaf(const job *j, uint32_t free_cols, uint32_t ld, uint32_t rd)
{
    const join_table *t = j->table;
    const uint32_t r = set_rank(t, free_cols);
    const uint32_t begin = t->start[r];
    return j->join(t->keys + begin, t->start[r + 1] - begin, ((uint64_t)ld << 32) | rd);
}

/* Search the top band below one task's prefix; *hits receives the completed boards. Iterative
 * bitmask backtracking (one frame per row, no allocation). Returns false when cancelled. */
static bool top_search(job *j, const task *tk, uint64_t *hits)
{
    const uint32_t full = (uint32_t)((1ull << j->n) - 1u);
    const int depth = j->h - j->prefix; /* rows still to place in the top band */
    *hits = 0;
    if (depth == 0) {
        *hits = join_leaf(j, full & ~tk->cols, tk->ld, tk->rd);
        return true;
    }
    uint32_t cols[NQ_COUNT_N_MAX], ld[NQ_COUNT_N_MAX], rd[NQ_COUNT_N_MAX], avail[NQ_COUNT_N_MAX];
    cols[0] = tk->cols;
    ld[0] = tk->ld;
    rd[0] = tk->rd;
    avail[0] = full & ~(tk->cols | tk->ld | tk->rd);
    uint64_t sum = 0;
    unsigned budget = CANCEL_STRIDE;
    int d = 0;
    while (d >= 0) {
        if (avail[d] == 0) {
            d--;
            continue;
        }
        const uint32_t bit = avail[d] & (0u - avail[d]);
        avail[d] ^= bit;
        const uint32_t c = cols[d] | bit;
        const uint32_t l = ((ld[d] | bit) << 1) & full;
        const uint32_t r = (rd[d] | bit) >> 1;
        if (d + 1 < depth) {
            d++;
            cols[d] = c;
            ld[d] = l;
            rd[d] = r;
            avail[d] = full & ~(c | l | r);
            continue;
        }
        sum += join_leaf(j, full & ~c, l, r);
        if (--budget == 0) {
            budget = CANCEL_STRIDE;
            if (cancelled(j))
                return false;
        }
    }
    *hits = sum;
    return true;
}

static void *worker(void *arg)
{
    job *j = arg;
    uint64_t local = 0;
    while (!cancelled(j)) {
        const uint32_t i = (uint32_t)atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (i >= j->ntasks)
            break;
        uint64_t hits;
        if (!top_search(j, &j->tasks[i], &hits))
            break;
        local += hits * j->tasks[i].weight;
        if (j->ctl != NULL)
            atomic_fetch_add_explicit(&j->ctl->done, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&j->total, local, memory_order_relaxed);
    return NULL;
}

/* ---- tasks ------------------------------------------------------------------------------------------ */

typedef struct task_list {
    task *items;   /* capacity n^prefix */
    uint32_t len;  /* filled */
    int n, prefix; /* board size, rows per prefix */
} task_list;

/* Mirror symmetry: a board and its left-right mirror are both solutions, so keep only prefixes whose
 * row-0 queen is left of centre (weight 2). With n odd and the row-0 queen in the centre column, the
 * row-1 queen (never central) decides instead. */
static uint32_t mirror_weight(int n, int row, uint32_t first_col, uint32_t col)
{
    const uint32_t half = (uint32_t)n / 2u;
    if (row == 0)
        return col < half || (n % 2 == 1 && col == half) ? 2u : 0u;
    if (row == 1 && n % 2 == 1 && first_col == half)
        return col < half ? 2u : 0u;
    return 2u;
}

static void tasks_collect(task_list *tl, int row, uint32_t first_col, task state)
{
    if (row == tl->prefix) {
        tl->items[tl->len++] = state;
        return;
    }
    const uint32_t full = (uint32_t)((1ull << tl->n) - 1u);
    uint32_t avail = full & ~(state.cols | state.ld | state.rd);
    while (avail != 0) {
        const uint32_t bit = avail & (0u - avail);
        avail ^= bit;
        const uint32_t col = (uint32_t)__builtin_ctz(bit);
        const uint32_t w = mirror_weight(tl->n, row, row == 0 ? col : first_col, col);
        if (w == 0)
            continue;
        const task next = {state.cols | bit, ((state.ld | bit) << 1) & full, (state.rd | bit) >> 1, w};
        tasks_collect(tl, row + 1, row == 0 ? col : first_col, next);
    }
}

/* ---- the count ---------------------------------------------------------------------------------- */

static int worker_count(int threads)
{
    if (threads == 0) {
        const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        threads = cpus > 0 ? (int)(cpus < MAX_THREADS ? cpus : MAX_THREADS) : 1;
    }
    return threads < MAX_THREADS ? threads : MAX_THREADS;
}

/* Run the job on `threads` workers; the calling thread meanwhile counts symmetric boards. */
static nq_err run_job(job *j, int threads, uint64_t *quarter, uint64_t *half)
{
    pthread_t tids[MAX_THREADS];
    int started = 0;
    nq_err err = NQ_OK;
    for (; started < threads; started++) {
        if (pthread_create(&tids[started], NULL, worker, j) != 0) {
            err = NQ_E_THREAD;
            atomic_store(&j->stop, true);
            break;
        }
    }
    if (err == NQ_OK)
        err = nq_count_mitm_symmetric(j->n, j->ctl, quarter, half);
    if (err != NQ_OK)
        atomic_store(&j->stop, true);
    for (int i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    if (err == NQ_OK && atomic_load(&j->stop))
        err = NQ_E_CANCELED;
    return err;
}

/* Burnside: classes = (fixed by identity + 2 x fixed by a quarter turn + fixed by a half turn) / 8;
 * for n > 1 no board is its own mirror image or transpose (two queens would share a line). */
static nq_counts burnside(uint64_t total, uint64_t quarter, uint64_t half)
{
    const nq_counts c = {total, (total + 2u * quarter + half) / 8u};
    return c;
}

nq_err nq_count_mitm(int n, int threads, nq_count_ctl *ctl, nq_counts *out)
{
    if (out == NULL || threads < 0)
        return NQ_E_ARG;
    if (n < NQ_N_MIN || n > NQ_COUNT_N_MAX)
        return NQ_E_RANGE;
    if (n == 1) {
        out->total = out->unique = 1;
        return NQ_OK;
    }
    const int k = bottom_rows_by_n[n];
    const int h = n - k;
    int prefix = n >= 10 ? 3 : 2;
    prefix = prefix < h ? prefix : h;
    join_table table;
    task_list tl = {NULL, 0, n, prefix};
    nq_err err = table_build(&table, n, k);
    if (err != NQ_OK)
        goto end;
    size_t cap = 1;
    for (int i = 0; i < prefix; i++)
        cap *= (size_t)n;
    tl.items = malloc(cap * sizeof *tl.items);
    if (tl.items == NULL) {
        err = NQ_E_NOMEM;
        goto end;
    }
    const task empty = {0, 0, 0, 1};
    tasks_collect(&tl, 0, 0, empty);
    job j = {.table = &table, .join = pick_join(), .tasks = tl.items, .ntasks = tl.len,
             .n = n, .h = h, .prefix = prefix, .ctl = ctl};
    atomic_init(&j.next, 0);
    atomic_init(&j.total, 0);
    atomic_init(&j.stop, false);
    if (ctl != NULL)
        atomic_store(&ctl->total, tl.len);
    uint64_t quarter = 0, half = 0;
    err = run_job(&j, worker_count(threads), &quarter, &half);
    if (err == NQ_OK)
        *out = burnside(atomic_load(&j.total), quarter, half);
end:
    free(tl.items);
    table_destroy(&table);
    return err;
}

bool nq_count_mitm_preferred(int n)
{
    return n >= 14 && n <= NQ_COUNT_N_MAX;
}
