/* web.c - the embedded web page, compressed and tagged once (see web.h).
 *
 * A handful of files, looked up by a linear scan: the page loads each once per visit, and the
 * immutable assets are then served from the browser's cache.
 */
#include "routes/web.h"

#include <stdlib.h>
#include <string.h>

#include "core/reply.h"
#include "routes/web_data.h"
#include "cache/compress.h"

struct nq_web {
    size_t count;         /* files */
    nq_web_asset files[]; /* one per nq_web_files row */
};

nq_err nq_web_create(nq_web **out)
{
    nq_web *web = calloc(1, sizeof *web + nq_web_files_count * sizeof web->files[0]);
    if (!web) return NQ_E_NOMEM;
    for (size_t i = 0; i < nq_web_files_count; i++) {
        const nq_web_file *f = &nq_web_files[i];
        nq_web_asset *a = &web->files[i];
        *a = (nq_web_asset){.path = f->path,
                            .media = f->media,
                            .immutable = strcmp(f->path, "/") != 0,
                            .body = f->body,
                            .body_len = f->len};
        web->count = i + 1; /* so that destroy frees what is made so far */
        if (f->len > NQ_COMPRESS_MIN_BYTES &&
            nq_compress_buffer(f->body, f->len, NQ_COMPRESS_LEVEL_ONCE, &a->gzip, &a->gzip_len) != NQ_OK) {
            nq_web_destroy(web);
            return NQ_E_NOMEM;
        }
        /* The bytes are the key: a new build with other bytes has other tags. */
        nq_app_etag(f->body, false, a->etag, sizeof a->etag);
        nq_app_etag(f->body, true, a->etag_gz, sizeof a->etag_gz);
    }
    *out = web;
    return NQ_OK;
}

void nq_web_destroy(nq_web *web)
{
    if (!web) return;
    for (size_t i = 0; i < web->count; i++) free(web->files[i].gzip);
    free(web);
}

const nq_web_asset *nq_web_find(const nq_web *web, const char *path)
{
    for (size_t i = 0; i < web->count; i++)
        if (strcmp(web->files[i].path, path) == 0) return &web->files[i];
    return NULL;
}
