/* json_scan.h - a strict look at JSON text before a lenient parser (cJSON) reads it: one pass that
 * finds what RFC 8259 forbids but cJSON would take, or would recurse into. Part of libnqueens_json;
 * the placement reader (placement_json.h) and the service's puzzle bodies both read through it.
 *
 * It finds, naming the byte:
 *   - a '[' or '{' opening a level deeper than depth_max, so that no text makes the parser recurse
 *     deeper than its reader needs;
 *   - a control character in a string, or between tokens other than tab, CR and LF (cJSON skips
 *     every byte up to the space as whitespace);
 *   - in a string, a bad escape, or \u0000 (cJSON's strings end at a NUL: "n\u0000x" would be read
 *     as "n");
 *   - a number outside RFC 8259's grammar, -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? (cJSON
 *     reads "04" and "4." as strtod does).
 * Literals, the structure and what follows a number are left to the parser.
 * Thread-safety: a pure function of its arguments; no allocation.
 */
#ifndef NQ_JSON_SCAN_H
#define NQ_JSON_SCAN_H

#include <stddef.h>

/* What the scan found wrong, the first thing in the text. */
typedef enum nq_json_fault {
    NQ_JSON_FAULT_NONE = 0,       /* nothing */
    NQ_JSON_FAULT_DEEP,           /* an array or object deeper than depth_max */
    NQ_JSON_FAULT_CONTROL,        /* a control character between tokens */
    NQ_JSON_FAULT_STRING_CONTROL, /* a control character in a string */
    NQ_JSON_FAULT_ESCAPE,         /* a bad escape in a string */
    NQ_JSON_FAULT_NUL,            /* the escape \u0000 in a string */
    NQ_JSON_FAULT_NUMBER          /* a number outside the grammar */
} nq_json_fault;

/* Scan text[0..len) (need not be NUL-terminated); on a fault *at (may be NULL) is its byte offset:
 * the character, the backslash of an escape, the start of a number. */
nq_json_fault nq_json_scan(const char *text, size_t len, size_t depth_max, size_t *at);

#endif /* NQ_JSON_SCAN_H */
