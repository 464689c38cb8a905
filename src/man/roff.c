/* roff.c - man(7) source from plain text (see roff.h). */
#include "roff.h"

#include <stdbool.h>

/* One character c, escaped; at_line_start: c would be the first of a source line. */
static void put_char(FILE *out, char c, bool at_line_start, bool in_arg)
{
    if (at_line_start && (c == '.' || c == '\'')) fputs("\\&", out);
    if (c == '\\')
        fputs("\\e", out);
    else if (c == '-')
        fputs("\\-", out);
    else if (c == '"' && in_arg)
        fputs("\\(dq", out);
    else
        fputc(c, out);
}

void nq_roff_text(FILE *out, const char *text)
{
    bool start = true; /* at the start of a source line: nothing written on it yet */
    for (const char *p = text; *p != '\0'; p++) {
        if (start && (*p == ' ' || *p == '\n')) continue; /* leading spaces, empty lines */
        if (*p == '\n') {
            fputc('\n', out);
            start = true;
            continue;
        }
        put_char(out, *p, start, false);
        if (*p == ',') fputs("\\:", out); /* a line may break there: JSON has no spaces */
        start = false;
    }
    if (!start) fputc('\n', out);
}

void nq_roff_verbatim(FILE *out, const char *text)
{
    bool start = true;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == '\n') {
            fputc('\n', out);
            start = true;
            continue;
        }
        put_char(out, *p, start, false);
        start = false;
    }
    fputc('\n', out);
}

void nq_roff_arg(FILE *out, const char *text)
{
    fputc('"', out);
    for (const char *p = text; *p != '\0'; p++) put_char(out, *p == '\n' ? ' ' : *p, false, true);
    fputc('"', out);
}
