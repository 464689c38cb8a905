/* placement_json.c - a JSON placement ({"n":N,"columns":[...]} or {"n":N,"queens":[...]}) into an
 * nq_placement, strictly.
 *
 * The same rules as the parsers of placement.h, only the syntax is JSON's: integers are JSON numbers
 * with no fraction (cJSON reads numbers as doubles, exact up to 2^53, far above any board), a row
 * without a queen is null, every member is known and given once. Depends on cJSON and placement.h
 * only, so the service's JSON layer can share it.
 */
#include "cli.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>

#define EXACT_MAX 9007199254740992.0 /* 2^53: every integer up to here is exact in a double */

__attribute__((format(printf, 3, 4))) static bool fail(char *why, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return false;
}

/* A JSON integer >= 0 (no fraction), as uint64_t; values past 2^53 saturate (out of every range). */
static bool whole(const cJSON *item, uint64_t *out) {
    if (item == NULL || !cJSON_IsNumber(item)) return false;
    const double v = item->valuedouble;
    if (!(v >= 0.0) || floor(v) != v) return false; /* also NaN */
    *out = v >= EXACT_MAX ? UINT64_MAX : (uint64_t)v;
    return true;
}

/* The error of a finished or failed add, as "columns[3]: ..." from the library's sentence. */
static bool placement_fail(const nq_placement_error *e, char *why, size_t cap) {
    char text[160];
    nq_placement_error_describe(e, text, sizeof text);
    return fail(why, cap, "%s", text);
}

static bool read_columns(const cJSON *arr, nq_placement *p, char *why, size_t cap) {
    const uint32_t n = nq_placement_n(p);
    if (arr == NULL || !cJSON_IsArray(arr)) return fail(why, cap, "\"columns\" must be an array");
    if ((uint64_t)cJSON_GetArraySize(arr) != n)
        return fail(why, cap, "\"columns\" has %d entries, not n = %u (one per row)", cJSON_GetArraySize(arr), n);
    uint64_t row = 0;
    for (const cJSON *item = arr->child; item != NULL; item = item->next, row++) {
        uint64_t col = 0;
        nq_placement_error e;
        if (cJSON_IsNull(item)) continue;
        if (!whole(item, &col)) return fail(why, cap, "columns[%llu] must be a column number or null", (unsigned long long)row);
        if (nq_placement_add(p, row, row, col, &e) != NQ_OK) return placement_fail(&e, why, cap);
    }
    return true;
}

static bool read_queens(const cJSON *arr, nq_placement *p, char *why, size_t cap) {
    if (arr == NULL || !cJSON_IsArray(arr)) return fail(why, cap, "\"queens\" must be an array");
    uint64_t entry = 0;
    for (const cJSON *item = arr->child; item != NULL; item = item->next, entry++) {
        uint64_t row = 0, col = 0;
        nq_placement_error e;
        if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 2 || !whole(item->child, &row) ||
            !whole(item->child->next, &col))
            return fail(why, cap, "queens[%llu] must be [row, column], two whole numbers", (unsigned long long)entry);
        if (nq_placement_add(p, entry, row, col, &e) != NQ_OK) return placement_fail(&e, why, cap);
    }
    nq_placement_error e;
    const nq_err err = nq_placement_finish(p, &e);
    if (err == NQ_E_PLACEMENT) return placement_fail(&e, why, cap);
    if (err != NQ_OK) return fail(why, cap, "%s", nq_err_message(err));
    return true;
}

/* The members: exactly "n" and one of "columns" / "queens", each once. */
static bool members(const cJSON *root, const cJSON **n, const cJSON **list, bool *queens, char *why, size_t cap) {
    *n = *list = NULL;
    for (const cJSON *m = root->child; m != NULL; m = m->next) {
        const bool is_n = strcmp(m->string, "n") == 0;
        const bool is_list = strcmp(m->string, "columns") == 0 || strcmp(m->string, "queens") == 0;
        if (!is_n && !is_list) return fail(why, cap, "unknown member \"%.40s\"", m->string);
        if ((is_n && *n != NULL) || (is_list && *list != NULL))
            return fail(why, cap, is_n ? "\"n\" given twice" : "give one of \"columns\" and \"queens\", once");
        if (is_n) *n = m;
        else *list = m;
    }
    if (*n == NULL) return fail(why, cap, "missing member \"n\"");
    if (*list == NULL) return fail(why, cap, "missing member \"columns\" or \"queens\"");
    *queens = strcmp((*list)->string, "queens") == 0;
    return true;
}

/* Builds the placement from a parsed document. */
static bool from_doc(const cJSON *root, nq_placement **out, char *why, size_t cap) {
    const cJSON *n_item, *list;
    bool queens = false;
    uint64_t n = 0;
    if (!cJSON_IsObject(root)) return fail(why, cap, "the placement must be a JSON object");
    if (!members(root, &n_item, &list, &queens, why, cap)) return false;
    if (!whole(n_item, &n) || n < 1 || n > NQ_PLACEMENT_N_MAX)
        return fail(why, cap, "\"n\" must be a whole number from 1 to %u", NQ_PLACEMENT_N_MAX);
    const int size = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;
    nq_placement *p = NULL;
    if (nq_placement_create((uint32_t)n, size > 0 ? (size_t)size : 0, &p) != NQ_OK)
        return fail(why, cap, "out of memory");
    const bool ok = queens ? read_queens(list, p, why, cap) : read_columns(list, p, why, cap);
    if (ok && !queens && nq_placement_finish(p, NULL) != NQ_OK) { /* rows ascending: cannot fail */
        nq_placement_destroy(p);
        return fail(why, cap, "out of memory");
    }
    if (!ok) {
        nq_placement_destroy(p);
        return false;
    }
    *out = p;
    return true;
}

bool nq_cli_placement_json(const char *text, size_t len, nq_placement **out, char *why, size_t cap) {
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, false);
    if (root == NULL) return fail(why, cap, "malformed JSON near byte %zu", end != NULL && end >= text ? (size_t)(end - text) : (size_t)0);
    size_t rest = (size_t)(end - text);
    while (rest < len && strchr(" \t\r\n", text[rest]) != NULL && text[rest] != '\0') rest++;
    bool ok = rest == len || fail(why, cap, "unexpected text after the JSON value, at byte %zu", rest);
    ok = ok && from_doc(root, out, why, cap);
    cJSON_Delete(root);
    return ok;
}
