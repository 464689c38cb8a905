/* fuzz_puzzle.c - libFuzzer harness for the readers of puzzle requests (src/server/routes/puzzle_in.h):
 * the query of GET /puzzle and GET /puzzle/solve, and the JSON body of POST /puzzle/solve.
 *
 * Input: byte 0 picks the form (bit 0: a JSON body, else a query; bit 1, for a query: /puzzle, whose
 * seed is optional, else /puzzle/solve); the remaining bytes are the raw query or the body.
 *
 * Oracles, beyond "no crash, no leak, no out-of-bounds read":
 *  - an accepted request is within the limits it was read under: kind and difficulty named, n in its
 *    kind's range, a seed below 2^53, limit 2..max, the position on the board with no square both a
 *    queen and a mark;
 *  - its canonical text is a fixed point: a generated request's canonical text, read back as a
 *    query, gives the same request and the same text again;
 *  - a rejection carries one of the documented codes, a parameter named from the known set (or
 *    none), a limit exactly when it is a 422 limit-exceeded, and a non-empty detail of printable
 *    ASCII (it becomes a problem body).
 */
#include "base/errors.h"
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>

#include "core/query.h"
#include "routes/puzzle_in.h"

static const nq_puzzle_limits limits = {.max_n_queens = 32, .max_n_regions = 16, .max_n_solve = 32, .max_limit = 1000};

static void check_rejection(nq_err rc, const nq_puzzle_in_error *e)
{
    static const char *const params[] = {"kind", "n",         "regions", "clues", "difficulty", "seed",
                                         "date", "generator", "queens",  "marks", "limit",      "reveal"};
    NQ_FUZZ_CHECK(rc == e->err);
    NQ_FUZZ_CHECK(rc == NQ_E_BAD_REQUEST || rc == NQ_E_PARAM_INVALID || rc == NQ_E_PARAM_MISSING ||
                  rc == NQ_E_PARAM_CONFLICT || rc == NQ_E_PLACEMENT || rc == NQ_E_PUZZLE_INVALID || rc == NQ_E_LIMIT ||
                  rc == NQ_E_PUZZLE_UNAVAILABLE || rc == NQ_E_NOMEM);
    NQ_FUZZ_CHECK(e->has_limit == (rc == NQ_E_LIMIT));
    bool known = e->param == NULL;
    for (size_t i = 0; !known && i < sizeof params / sizeof params[0]; i++) known = strcmp(e->param, params[i]) == 0;
    NQ_FUZZ_CHECK(known);
    NQ_FUZZ_CHECK(memchr(e->detail, '\0', sizeof e->detail) != NULL && e->detail[0] != '\0');
    for (const char *c = e->detail; *c; c++) NQ_FUZZ_CHECK(*c >= 0x20 && *c < 0x7f);
}

static void check_spec(const nq_puzzle_spec *s)
{
    NQ_FUZZ_CHECK(nq_puzzle_kind_name(s->kind) != NULL);
    if (!s->generated) {
        NQ_FUZZ_CHECK(s->n >= 1 && s->n <= limits.max_n_solve && s->given.n == s->n && s->given.kind == s->kind);
        return;
    }
    const bool queens = s->kind == NQ_PUZZLE_QUEENS;
    NQ_FUZZ_CHECK(s->n >= (queens ? NQ_PUZZLE_QUEENS_GEN_N_MIN : NQ_PUZZLE_REGIONS_GEN_N_MIN));
    NQ_FUZZ_CHECK(s->n <= (queens ? limits.max_n_queens : limits.max_n_regions));
    NQ_FUZZ_CHECK(nq_puzzle_difficulty_name(s->difficulty) != NULL);
    NQ_FUZZ_CHECK(!s->has_seed || s->seed <= NQ_PUZZLE_SEED_MAX);
    NQ_FUZZ_CHECK(!s->has_date || (s->has_seed && strlen(s->date) == 10));
}

static void check_ask(const nq_puzzle_ask *a)
{
    check_spec(&a->spec);
    NQ_FUZZ_CHECK(a->limit >= 2 && a->limit <= limits.max_limit);
    const int n = a->spec.n;
    const uint64_t board = n == 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
    for (int r = 0; r < NQ_PUZZLE_N_MAX; r++) {
        NQ_FUZZ_CHECK((a->pos.queens[r] & a->pos.marks[r]) == 0);
        NQ_FUZZ_CHECK(r < n ? ((a->pos.queens[r] | a->pos.marks[r]) & ~board) == 0
                            : (a->pos.queens[r] | a->pos.marks[r]) == 0);
    }
}

/* A generated request's canonical text, read back as a query, is the same request. */
static void check_round_trip(const nq_puzzle_ask *a, bool solve)
{
    if (!a->spec.generated) return;
    char *text = nq_puzzle_in_canonical(&a->spec, solve ? a : NULL);
    NQ_FUZZ_CHECK(text != NULL);
    nq_query q;
    nq_query_error qe;
    NQ_FUZZ_CHECK(nq_query_parse(text, strlen(text), NQ_PUZZLE_SOLVE_KEYS, &q, &qe) == NQ_OK);
    nq_puzzle_ask again;
    nq_puzzle_in_error e;
    NQ_FUZZ_CHECK(nq_puzzle_in_solve_query(&q, &limits, &again, &e) == NQ_OK);
    char *text2 = nq_puzzle_in_canonical(&again.spec, solve ? &again : NULL);
    NQ_FUZZ_CHECK(text2 != NULL && strcmp(text, text2) == 0);
    free(text2);
    free(text);
}

static void run_query(const char *raw, size_t len, bool solve)
{
    nq_query q;
    nq_query_error qe;
    if (nq_query_parse(len ? raw : NULL, len, solve ? NQ_PUZZLE_SOLVE_KEYS : NQ_PUZZLE_KEYS, &q, &qe) != NQ_OK) return;
    nq_puzzle_ask a;
    nq_puzzle_in_error e;
    nq_err rc = NQ_OK;
    if (solve) {
        rc = nq_puzzle_in_solve_query(&q, &limits, &a, &e);
    } else {
        memset(&a, 0, sizeof a);
        a.limit = 2;
        rc = nq_puzzle_in_query(&q, &limits, false, &a.spec, &e);
        if (rc == NQ_OK && !a.spec.has_seed) { /* the route picks one */
            a.spec.has_seed = true;
            a.spec.seed = 1;
        }
    }
    if (rc != NQ_OK) {
        check_rejection(rc, &e);
        return;
    }
    check_ask(&a);
    check_round_trip(&a, solve);
}

static void run_json(const char *body, size_t len)
{
    nq_puzzle_ask a;
    nq_puzzle_in_error e;
    const nq_err rc = nq_puzzle_in_json(body, len, &limits, &a, &e);
    if (rc != NQ_OK) {
        check_rejection(rc, &e);
        return;
    }
    check_ask(&a);
    check_round_trip(&a, true);
    char *text = nq_puzzle_in_canonical(&a.spec, &a); /* a given puzzle's too */
    NQ_FUZZ_CHECK(text != NULL && strncmp(text, "kind=", 5) == 0);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const unsigned mode = data[0];
    const size_t len = size - 1;
    char *const raw = malloc(len ? len : 1); /* exactly sized, not NUL-terminated */
    NQ_FUZZ_CHECK(raw != NULL);
    if (len) memcpy(raw, data + 1, len);
    if (mode & 1u)
        run_json(raw, len);
    else
        run_query(raw, len, (mode & 2u) == 0);
    free(raw);
    return 0;
}
