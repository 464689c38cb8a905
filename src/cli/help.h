/* help.h - the nqueens tool's help: one table of commands and their options, printed by --help and
 * `nqueens help [COMMAND]`, and read by the man page's generator (src/man/nqueens_man.c), so that the
 * usage a user reads and the manual cannot disagree.
 *
 * Texts are plain ASCII. A '\n' inside a text marks where --help breaks the line (the printer
 * indents what follows); the man page joins the lines and lets roff fill them. No line of a text
 * starts with a space; a synopsis's later lines do, to stand under its first line's arguments.
 * Everything here is static and read-only: thread-safe. The printers report nothing; the caller
 * checks ferror(out).
 */
#ifndef NQ_CLI_HELP_H
#define NQ_CLI_HELP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct nq_cli_help_option {
    const char *name; /* without the leading "--" */
    const char *meta; /* the value's placeholder ("T"); NULL for an option that takes none */
    const char *text; /* what it does */
} nq_cli_help_option;

/* One block of the help: a command, or a form of one (`puzzle` and `puzzle solve`). */
typedef struct nq_cli_help_section {
    const char *command;               /* the command it belongs to: "count", "puzzle" */
    const char *head;                  /* how the block is headed: "count N", "puzzle solve" */
    const char *usage;                 /* its synopsis lines, each after "nqueens " */
    const char *text;                  /* what it does and prints */
    const nq_cli_help_option *options; /* its options */
    size_t noptions;                   /* how many */
    const char *exits;                 /* its own exit statuses beyond the common ones, or NULL */
} nq_cli_help_section;

/* The tool's general texts (one paragraph each). */
extern const char nq_cli_help_summary[];     /* what the tool does, one line */
extern const char nq_cli_help_output[];      /* boards on a terminal, JSON otherwise */
extern const char nq_cli_help_exit[];        /* the exit statuses every command shares */
extern const char nq_cli_help_environment[]; /* what the environment changes (nothing) */

/* The sections, in the order --help prints them; *count receives how many. Never NULL. */
const nq_cli_help_section *nq_cli_help_sections(size_t *count);

/* Whether name is a command the help knows ("help" included). NULL gives false. */
bool nq_cli_help_is_command(const char *name);

/* The whole usage (every command, its options, output and exit statuses), as `nqueens --help`
 * prints it. */
void nq_cli_usage(FILE *out);

/* One command's usage, as `nqueens help COMMAND` and `nqueens COMMAND --help` print it; "help" (or
 * NULL, or a name that is not a command) prints the whole usage. */
void nq_cli_help_command(FILE *out, const char *command);

#endif /* NQ_CLI_HELP_H */
