/* fuzz_json.c - libFuzzer harness for placements read from JSON (nqueens/placement_json.h): the
 * bodies of POST /check and /complete, and `nqueens check -`.
 *
 * Input: the whole text, handed over in an exactly-sized buffer.
 *
 * Oracles, beyond "no crash, no leak, no out-of-bounds read, no deep recursion":
 *  - the error is one the header lists, with a printable detail and the member it names;
 *  - an accepted text is JSON by RFC 8259 where cJSON is lenient: no control character but tab, CR
 *    and LF anywhere, and no escaped NUL (a placement's only strings are its member names, so a
 *    "\u0000" in an accepted text would be one cut short);
 *  - an accepted placement is finished, on a board of 1..MAX_N, and renders.
 */
#include "fuzz.h"

#include <stdbool.h>
#include <string.h>

#include "nqueens/placement_json.h"

#define MAX_N 1000u /* the service's --max-n-solution is larger; a small one reaches NQ_E_LIMIT too */

static bool known_error(nq_err rc)
{
    return rc == NQ_E_BAD_REQUEST || rc == NQ_E_PARAM_MISSING || rc == NQ_E_PARAM_INVALID || rc == NQ_E_LIMIT ||
           rc == NQ_E_PLACEMENT || rc == NQ_E_NOMEM;
}

static void check_refusal(nq_err rc, const nq_placement_json_error *e)
{
    NQ_FUZZ_CHECK(known_error(rc) && e->err == rc);
    NQ_FUZZ_CHECK(memchr(e->detail, '\0', sizeof e->detail) != NULL && e->detail[0] != '\0');
    for (const char *c = e->detail; *c; c++) NQ_FUZZ_CHECK(*c >= 0x20 && *c < 0x7f);
    if (e->member != NULL)
        NQ_FUZZ_CHECK(strcmp(e->member, "n") == 0 || strcmp(e->member, "columns") == 0 ||
                      strcmp(e->member, "queens") == 0);
    if (rc == NQ_E_LIMIT) NQ_FUZZ_CHECK(e->limit == MAX_N);
}

static void check_accepted(const char *text, size_t len, const nq_placement *p)
{
    for (size_t i = 0; i < len; i++) {
        const unsigned char c = (unsigned char)text[i];
        NQ_FUZZ_CHECK(c >= 0x20 || c == '\t' || c == '\r' || c == '\n');
        NQ_FUZZ_CHECK(!(c == '\\' && len - i >= 6 && memcmp(text + i + 1, "u0000", 5) == 0));
    }
    const uint32_t n = nq_placement_n(p);
    NQ_FUZZ_CHECK(n >= 1 && n <= MAX_N && nq_placement_count(p) <= (size_t)n * n);
    const size_t cap = nq_placement_render_size(p);
    char *out = malloc(cap);
    NQ_FUZZ_CHECK(out != NULL);
    size_t out_len = 0;
    NQ_FUZZ_CHECK(nq_placement_render_queens(p, out, cap, &out_len) == NQ_OK && out_len + 1 == cap);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *const text = malloc(size ? size : 1); /* exactly sized, not NUL-terminated */
    NQ_FUZZ_CHECK(text != NULL);
    if (size) memcpy(text, data, size);
    nq_placement *p = NULL;
    nq_placement_json_error e;
    const nq_err rc = nq_placement_parse_json(text, size, MAX_N, &p, &e);
    if (rc == NQ_OK) {
        NQ_FUZZ_CHECK(p != NULL);
        check_accepted(text, size, p);
        nq_placement_destroy(p);
    } else {
        NQ_FUZZ_CHECK(p == NULL);
        check_refusal(rc, &e);
    }
    free(text);
    return 0;
}
