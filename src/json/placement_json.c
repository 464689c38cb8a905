/* placement_json.c - a placement from JSON text, strictly (see include/nqueens/placement_json.h). */
#include "nqueens/placement_json.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nqueens/json.h"
#include "nqueens/json_scan.h"

static nq_err fail(nq_placement_json_error *e, nq_err err, const char *member, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static nq_err fail(nq_placement_json_error *e, nq_err err, const char *member, const char *fmt, ...)
{
    e->err = err;
    e->member = member;
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(e->detail, sizeof e->detail, fmt, ap);
    va_end(ap);
    return err;
}

static nq_err n_over(nq_placement_json_error *e, uint32_t max_n)
{
    e->limit = max_n;
    return fail(e, NQ_E_LIMIT, "n", "Member 'n' must be between 1 and %" PRIu32 " here.", max_n);
}

/* The library's verdict on a placement, naming the member it came from. */
static nq_err placement_failed(nq_placement_json_error *e, nq_err rc, const char *member, const nq_placement_error *pe)
{
    if (rc != NQ_E_PLACEMENT) return fail(e, rc, NULL, "The placement could not be made (%s).", nq_err_message(rc));
    char why[160];
    (void)nq_placement_error_describe(pe, why, sizeof why);
    return fail(e, NQ_E_PLACEMENT, member, "Member '%s': %s.", member, why);
}

/* A JSON number that is a whole number from 0 on, into *out (UINT64_MAX past NQ_JSON_INT_MAX). */
static bool json_uint(const cJSON *v, uint64_t *out)
{
    return v && cJSON_IsNumber(v) && nq_json_uint(v->valuedouble, out);
}

/* The members of the top-level object: n and exactly one of columns/queens, nothing else, none twice. */
static nq_err members(const cJSON *root, const cJSON **n, const cJSON **list, bool *columns, nq_placement_json_error *e)
{
    *n = *list = NULL;
    if (!cJSON_IsObject(root))
        return fail(e, NQ_E_BAD_REQUEST, NULL, "A placement is a JSON object: {\"n\":8,\"columns\":[...]}.");
    for (const cJSON *m = root->child; m; m = m->next) {
        const char *k = m->string;
        const cJSON **slot = strcmp(k, "n") == 0                                       ? n
                             : (strcmp(k, "columns") == 0 || strcmp(k, "queens") == 0) ? list
                                                                                       : NULL;
        if (!slot) {
            char named[41]; /* the member's name as printable ASCII ('?' for any other byte), cut */
            size_t i = 0;
            for (; i < sizeof named - 1 && k[i]; i++) named[i] = k[i] >= 0x20 && k[i] < 0x7f ? k[i] : '?';
            named[i] = '\0';
            return fail(e, NQ_E_BAD_REQUEST, NULL,
                        "Unknown member '%s': a placement holds 'n' and 'columns' or 'queens'.", named);
        }
        /* The member named in the error is a static string: k dies with the document. */
        const char *name = slot == n ? "n" : strcmp(k, "columns") == 0 ? "columns" : "queens";
        if (*slot && strcmp((*slot)->string, k) != 0)
            return fail(e, NQ_E_BAD_REQUEST, name, "Give one of 'columns' and 'queens', not both.");
        if (*slot) return fail(e, NQ_E_BAD_REQUEST, name, "Member '%s' is given twice: give it once.", name);
        *slot = m;
    }
    if (!*n) return fail(e, NQ_E_PARAM_MISSING, "n", "Member 'n' is required.");
    if (!*list) return fail(e, NQ_E_PARAM_MISSING, "columns", "Member 'columns' or 'queens' is required.");
    *columns = strcmp((*list)->string, "columns") == 0;
    return NQ_OK;
}

/* Add the entries of a "columns" array (n entries, integer or null) to p. */
static nq_err add_columns(const cJSON *arr, nq_placement *p, uint32_t n, nq_placement_json_error *e)
{
    if (!arr || !cJSON_IsArray(arr)) return fail(e, NQ_E_BAD_REQUEST, "columns", "Member 'columns' must be an array.");
    uint64_t row = 0;
    for (const cJSON *v = arr->child; v; v = v->next, row++) {
        if (row == n)
            return fail(e, NQ_E_PLACEMENT, "columns", "Member 'columns' must have exactly %" PRIu32 " entries.", n);
        if (cJSON_IsNull(v)) continue;
        uint64_t col = 0;
        if (!json_uint(v, &col))
            return fail(e, NQ_E_BAD_REQUEST, "columns",
                        "Member 'columns': entry %" PRIu64 " must be a column number or null.", row);
        nq_placement_error pe;
        const nq_err rc = nq_placement_add(p, row, row, col, &pe);
        if (rc != NQ_OK) return placement_failed(e, rc, "columns", &pe);
    }
    if (row != n)
        return fail(e, NQ_E_PLACEMENT, "columns",
                    "Member 'columns' must have exactly %" PRIu32 " entries, not %" PRIu64 ".", n, row);
    return NQ_OK;
}

/* Add the [row, column] pairs of a "queens" array to p. */
static nq_err add_queens(const cJSON *arr, nq_placement *p, nq_placement_json_error *e)
{
    if (!arr || !cJSON_IsArray(arr)) return fail(e, NQ_E_BAD_REQUEST, "queens", "Member 'queens' must be an array.");
    uint64_t i = 0;
    for (const cJSON *v = arr->child; v; v = v->next, i++) {
        uint64_t rc_[2];
        const cJSON *r = cJSON_IsArray(v) ? v->child : NULL, *c = r ? r->next : NULL;
        if (!r || !c || c->next || !json_uint(r, &rc_[0]) || !json_uint(c, &rc_[1]))
            return fail(e, NQ_E_BAD_REQUEST, "queens",
                        "Member 'queens': entry %" PRIu64 " must be a pair of integers [row, column].", i);
        nq_placement_error pe;
        const nq_err rc = nq_placement_add(p, i, rc_[0], rc_[1], &pe);
        if (rc != NQ_OK) return placement_failed(e, rc, "queens", &pe);
    }
    return NQ_OK;
}

static nq_err build(const cJSON *root, uint32_t max_n, nq_placement **out, nq_placement_json_error *e)
{
    const cJSON *jn = NULL, *list = NULL;
    bool columns = false;
    nq_err rc = members(root, &jn, &list, &columns, e);
    if (rc != NQ_OK) return rc;
    uint64_t n = 0;
    if (!json_uint(jn, &n) || n == 0)
        return fail(e, NQ_E_PARAM_INVALID, "n", "Member 'n' must be an integer, at least 1.");
    if (n > max_n) return n_over(e, max_n);
    nq_placement *p = NULL;
    const int size = cJSON_GetArraySize(list);
    if ((rc = nq_placement_create((uint32_t)n, size > 0 ? (size_t)size : 0, &p)) != NQ_OK)
        return fail(e, rc, NULL, "The placement could not be made.");
    rc = columns ? add_columns(list, p, (uint32_t)n, e) : add_queens(list, p, e);
    nq_placement_error pe;
    if (rc == NQ_OK && (rc = nq_placement_finish(p, &pe)) != NQ_OK)
        rc = placement_failed(e, rc, columns ? "columns" : "queens", &pe);
    if (rc != NQ_OK) {
        nq_placement_destroy(p);
        return rc;
    }
    *out = p;
    return NQ_OK;
}

static bool json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The detail of a scan's fault at offset at. */
static nq_err lex_failed(nq_placement_json_error *e, nq_json_fault f, size_t at)
{
    switch (f) {
    case NQ_JSON_FAULT_DEEP:
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "Nested deeper than %d levels (at byte %zu): a placement is an object holding a list "
                    "of numbers or of [row, column] pairs.",
                    NQ_PLACEMENT_JSON_DEPTH_MAX, at);
    case NQ_JSON_FAULT_CONTROL:
    case NQ_JSON_FAULT_STRING_CONTROL:
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "Not valid JSON: a control character (byte %zu); JSON escapes them in strings, and "
                    "allows only space, tab, CR and LF between tokens.",
                    at);
    case NQ_JSON_FAULT_ESCAPE:
        return fail(e, NQ_E_BAD_REQUEST, NULL, "Not valid JSON: a bad escape in a string (byte %zu).", at);
    case NQ_JSON_FAULT_NUL:
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "The escape \\u0000 in a string (byte %zu): no name or value of a placement holds it.", at);
    case NQ_JSON_FAULT_NUMBER:
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "Not a JSON number (byte %zu): no leading zero, and a digit after '-', after '.' and "
                    "after the exponent's 'e'.",
                    at);
    case NQ_JSON_FAULT_NONE: break;
    }
    return NQ_OK;
}

nq_err nq_placement_parse_json(const char *body, size_t len, uint32_t max_n, nq_placement **out,
                               nq_placement_json_error *e)
{
    if (!e) return NQ_E_ARG;
    memset(e, 0, sizeof *e);
    if (!body || !out) return fail(e, NQ_E_ARG, NULL, "No text to read.");
    size_t blank = 0;
    while (blank < len && json_space(body[blank])) blank++;
    if (blank == len)
        return fail(e, NQ_E_BAD_REQUEST, NULL,
                    "The body is empty: a placement is one JSON object, {\"n\":8,\"columns\":[...]}.");
    size_t at = 0;
    const nq_json_fault fault = nq_json_scan(body, len, NQ_PLACEMENT_JSON_DEPTH_MAX, &at);
    if (fault != NQ_JSON_FAULT_NONE) return lex_failed(e, fault, at);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(body, len, &end, false);
    if (!root)
        return fail(e, NQ_E_BAD_REQUEST, NULL, "Not valid JSON (near byte %zu).",
                    end && end >= body ? (size_t)(end - body) : 0);
    /* Nothing but whitespace may follow the value. */
    const char *p = end;
    while (p < body + len && json_space(*p)) p++;
    nq_err rc = p < body + len ? fail(e, NQ_E_BAD_REQUEST, NULL, "More than one JSON value: a placement is one object.")
                               : build(root, max_n, out, e);
    cJSON_Delete(root);
    return rc;
}
