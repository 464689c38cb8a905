/* roff.h - writing man(7) source for the man pages' generators: texts written for --help, escaped
 * so that roff prints them as they are.
 *
 * What is escaped: '\' (\e), '-' (\-: a hyphen-minus a reader can copy into a shell, not a
 * typographic hyphen), a '.' or '\'' that would start a line (\&: else a request), and in macro
 * arguments '"' (\(dq). Writes to out and reports nothing: the caller checks ferror(out).
 * Reentrant.
 */
#ifndef NQ_MAN_ROFF_H
#define NQ_MAN_ROFF_H

#include <stdio.h>

/* Running text, filled by roff: each '\n' of text ends a source line, a line's leading spaces are
 * dropped (a space there would break the line) and empty lines are left out (they would start a
 * paragraph). A line may break after a comma (\:), so that JSON, which has no spaces, fits the
 * width. Ends with a newline. */
void nq_roff_text(FILE *out, const char *text);

/* text as it is, in a no-fill block (.nf): lines and their leading spaces kept. Ends with a
 * newline. */
void nq_roff_verbatim(FILE *out, const char *text);

/* A macro's argument, in double quotes: text on one line ('\n' becomes a space). */
void nq_roff_arg(FILE *out, const char *text);

#endif /* NQ_MAN_ROFF_H */
