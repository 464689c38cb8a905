/* web_data.h - the web page (web/ in the project), embedded at build time.
 *
 * CMake (web_embed.cmake) turns each file of the page into bytes in a generated C file: the page at
 * "/" and its assets at content-hashed paths ("/assets/app.<hash>.js"), the page naming the hashed
 * paths. So nqueensd serves the page without reading anything from disk, and an asset's path changes
 * whenever its bytes do. Constant data: thread-safe.
 */
#ifndef NQ_WEB_DATA_H
#define NQ_WEB_DATA_H

#include <stddef.h>

typedef struct nq_web_file {
    const char *path;  /* the URL path it is served at: "/" or "/assets/<name>.<hash>.<ext>" */
    const char *media; /* its Content-Type */
    const char *body;  /* its bytes (NUL-terminated) */
    size_t len;        /* their length without the NUL */
} nq_web_file;

extern const nq_web_file nq_web_files[]; /* the page first or last, in no promised order */
extern const size_t nq_web_files_count;  /* how many */

#endif /* NQ_WEB_DATA_H */
