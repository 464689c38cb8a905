/* json_scan.c - a strict look at JSON text before cJSON reads it (see include/nqueens/json_scan.h). */
#include "nqueens/json_scan.h"

#include <stdbool.h>
#include <string.h>

static bool json_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool hex_digit(char c)
{
    return digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The end of the number that starts at text[i] ('-' or a digit), or i when it breaks the grammar. */
static size_t number_end(const char *text, size_t len, size_t i)
{
    const size_t start = i;
    if (i < len && text[i] == '-') i++;
    if (i >= len || !digit(text[i])) return start;
    if (text[i++] == '0') {
        if (i < len && digit(text[i])) return start; /* a leading zero */
    } else {
        while (i < len && digit(text[i])) i++;
    }
    if (i < len && text[i] == '.') {
        if (++i >= len || !digit(text[i])) return start;
        while (i < len && digit(text[i])) i++;
    }
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        if (++i < len && (text[i] == '+' || text[i] == '-')) i++;
        if (i >= len || !digit(text[i])) return start;
        while (i < len && digit(text[i])) i++;
    }
    return i;
}

/* The escape at text[i] (after its backslash): its length, or 0 for a bad one; *nul when it is
 * \u0000. */
static size_t escape_len(const char *text, size_t len, size_t i, bool *nul)
{
    *nul = false;
    if (i >= len) return 0;
    if (text[i] != '\0' && strchr("\"\\/bfnrt", text[i]) != NULL) return 1;
    if (text[i] != 'u' || len - i < 5) return 0;
    for (size_t k = 1; k <= 4; k++)
        if (!hex_digit(text[i + k])) return 0;
    *nul = memcmp(text + i + 1, "0000", 4) == 0;
    return 5;
}

/* A character inside a string: the fault it makes, and *skip the escape's length after a backslash
 * (an escaped byte cannot end the string). */
static nq_json_fault in_string(const char *text, size_t len, size_t i, size_t *skip)
{
    const char c = text[i];
    bool nul = false;
    *skip = c == '\\' ? escape_len(text, len, i + 1, &nul) : 0;
    if ((unsigned char)c < 0x20) return NQ_JSON_FAULT_STRING_CONTROL;
    if (c == '\\' && *skip == 0) return NQ_JSON_FAULT_ESCAPE;
    return nul ? NQ_JSON_FAULT_NUL : NQ_JSON_FAULT_NONE;
}

/* The fault f at byte i, into *at. */
static nq_json_fault found(size_t *at, size_t i, nq_json_fault f)
{
    if (at) *at = i;
    return f;
}

nq_json_fault nq_json_scan(const char *text, size_t len, size_t depth_max, size_t *at)
{
    size_t depth = 0;
    bool string = false;
    for (size_t i = 0; i < len; i++) {
        const char c = text[i];
        if (string) {
            size_t skip = 0;
            const nq_json_fault f = in_string(text, len, i, &skip);
            if (f != NQ_JSON_FAULT_NONE) return found(at, i, f);
            string = c != '"';
            i += skip;
        } else if (c == '"') {
            string = true;
        } else if ((unsigned char)c < 0x20 && !json_space(c)) {
            return found(at, i, NQ_JSON_FAULT_CONTROL);
        } else if (c == '-' || digit(c)) {
            const size_t end = number_end(text, len, i);
            if (end == i) return found(at, i, NQ_JSON_FAULT_NUMBER);
            i = end - 1;
        } else if (c == '[' || c == '{') {
            if (++depth > depth_max) return found(at, i, NQ_JSON_FAULT_DEEP);
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return NQ_JSON_FAULT_NONE;
}
