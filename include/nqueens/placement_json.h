/* placement_json.h - a placement read from JSON text: what the CLI takes on stdin and the service in
 * a request body. Part of libnqueens_json (libnqueens plus cJSON), so the solver library itself
 * needs no JSON parser.
 *
 * Two shapes, nothing else: {"n":8,"columns":[0,null,...]} (exactly n entries: a column, or null for
 * a row without a queen) and {"n":8,"queens":[[0,0],[1,4]]} (pairs [row, column] in any order). Strict:
 * one JSON object and only whitespace after it; the member n and exactly one of columns/queens, none
 * twice, no other member; numbers integral and at most NQ_JSON_INT_MAX, 2^53 - 1 (beyond, a JSON
 * number is not an exact integer); JSON by RFC 8259, where cJSON is lenient: no number with a
 * leading zero or nothing after '.' or 'e', no control character, bad escape or \u0000 in a string
 * (cJSON's strings end at a NUL: "n\u0000x" would be the member "n"). The entries then follow
 * placement.h's rules (ranges, a square given twice).
 * Memory: cJSON's tree of the text, a few dozen bytes per JSON value, freed before the call returns;
 * the caller bounds the text. Nesting deeper than NQ_PLACEMENT_JSON_DEPTH_MAX levels is refused, with
 * its own detail, by the strict scan before cJSON parses (json_scan.h; a placement needs 3: object,
 * list, pair), which also refuses the lenient cases above, naming the byte.
 * Thread-safety: reentrant (cJSON's global error pointer is never read).
 */
#ifndef NQ_PLACEMENT_JSON_H
#define NQ_PLACEMENT_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "nqueens/error.h"
#include "nqueens/placement.h"

/* Most levels of arrays and objects a text may nest; a placement needs 3 ({"queens":[[r,c]]}). */
#define NQ_PLACEMENT_JSON_DEPTH_MAX 8

/* Why a text was refused. */
typedef struct nq_placement_json_error {
    nq_err err;         /* as returned */
    const char *member; /* "n", "columns" or "queens" when one is at fault, else NULL */
    uint64_t limit;     /* NQ_E_LIMIT: the max_n passed */
    char detail[224];   /* a sentence a person can act on */
} nq_placement_json_error;

/* Read len bytes of text (need not be NUL-terminated) as a placement on a board of at most max_n
 * (<= NQ_PLACEMENT_N_MAX). On success *out owns a finished placement (nq_placement_destroy).
 * Errors, with *e filled: NQ_E_BAD_REQUEST (empty, not JSON, nested too deep, not the shapes above, a
 * wrong type),
 * NQ_E_PARAM_MISSING (n, or the list), NQ_E_PARAM_INVALID (n not an integer >= 1), NQ_E_LIMIT
 * (n > max_n), NQ_E_PLACEMENT (an entry out of range, too many or too few columns, a square twice),
 * NQ_E_NOMEM. NQ_E_ARG when text, out or e is NULL. */
nq_err nq_placement_parse_json(const char *text, size_t len, uint32_t max_n, nq_placement **out,
                               nq_placement_json_error *e);

#endif /* NQ_PLACEMENT_JSON_H */
