/* published.c - counts kept in the cache as the /count body (published.h). */
#include "counts/published.h"

#include <assert.h>
#include <stdio.h>

#include "core/conditional.h"
#include "core/negotiate.h"
#include "nqueens/json.h"

void nq_counts_key(int n, char *out, size_t cap)
{
    assert(out);
    (void)snprintf(out, cap, "count?n=%d", n);
}

size_t nq_counts_render(int n, const nq_counts *c, char *out, size_t cap)
{
    size_t len = 0;
    if (cap == 0 || nq_json_counts(n, c, out, cap - 1, &len) != NQ_OK) return 0;
    out[len] = '\0';
    return len;
}

bool nq_counts_lookup(nq_cache *cache, const char *key, nq_counts *counts, nq_cache_entry **entry)
{
    assert(key && counts);
    if (entry) *entry = NULL;
    nq_cache_entry *e = nq_cache_get(cache, key);
    if (!e) return false;
    *counts = nq_cache_entry_value(e)->counts;
    if (entry)
        *entry = e;
    else
        nq_cache_entry_release(e);
    return true;
}

void nq_counts_put(nq_cache *cache, const char *key, const char *body, size_t len, const nq_counts *counts,
                   double seconds, nq_cache_entry **entry)
{
    assert(key && body && counts);
    char etag[NQ_ETAG_MAX];
    nq_app_etag(key, false, etag, sizeof etag);
    const nq_cache_value v = {.content_type = NQ_MEDIA_JSON,
                              .etag = etag,
                              .body = body,
                              .body_len = len,
                              .solver_seconds = seconds,
                              .counts = *counts};
    if (entry) *entry = NULL;
    (void)nq_cache_put(cache, key, &v, entry);
}

bool nq_counts_cached(nq_cache *cache, int n, nq_counts *out)
{
    char key[NQ_COUNTS_KEY_MAX];
    nq_counts_key(n, key, sizeof key);
    return nq_counts_lookup(cache, key, out, NULL);
}

void nq_counts_publish(nq_cache *cache, int n, const nq_counts *counts, double seconds, nq_cache_entry **entry)
{
    char key[NQ_COUNTS_KEY_MAX], body[NQ_COUNTS_BODY_MAX];
    nq_counts_key(n, key, sizeof key);
    nq_counts_put(cache, key, body, nq_counts_render(n, counts, body, sizeof body), counts, seconds, entry);
}
