/* web.h - the embedded web page and its assets, ready to serve: each file's gzip form and strong
 * ETags are made once, when the app is created. Internal to the app layer.
 *
 * Thread-safety: nq_web_create and nq_web_destroy are not (start-up and exit); everything else reads
 * constant data and may be called from any thread.
 */
#ifndef NQ_WEB_H
#define NQ_WEB_H

#include <stdbool.h>
#include <stddef.h>

#include "core/conditional.h"
#include "nqueens/error.h"

typedef struct nq_web nq_web;

typedef struct nq_web_asset {
    const char *path;          /* the URL path: "/" for the page, "/assets/..." for the rest */
    const char *media;         /* Content-Type */
    bool immutable;            /* a content-hashed asset (cache for a year) rather than the page (revalidate) */
    const char *body;          /* the identity bytes (constant data) */
    size_t body_len;           /* their length */
    char *gzip;                /* the gzip form (owned), or NULL when the file is too small to be worth it */
    size_t gzip_len;           /* its length */
    char etag[NQ_ETAG_MAX];    /* strong ETag of the identity form, from its bytes */
    char etag_gz[NQ_ETAG_MAX]; /* and of the gzip form */
} nq_web_asset;

/* Prepare every embedded file. Returns NQ_OK with *out set, or NQ_E_NOMEM (nothing allocated). */
nq_err nq_web_create(nq_web **out);

/* Free what nq_web_create made; NULL is a no-op. */
void nq_web_destroy(nq_web *web);

/* The file served at path (exact match), or NULL. */
const nq_web_asset *nq_web_find(const nq_web *web, const char *path);

#endif /* NQ_WEB_H */
