/* route.c - matching a path to a row of a route table, and the normalisation it matches on (route.h). */
#include "core/route.h"

#include <assert.h>
#include <string.h>

#include "core/query.h"

const nq_route *nq_route_find(const nq_route *table, const char *path)
{
    assert(table && path);
    const nq_route *r = table;
    for (; r->path; r++) {
        const size_t len = strlen(r->path);
        if (r->prefix ? strncmp(path, r->path, len) == 0 : strcmp(path, r->path) == 0) break;
    }
    return r;
}

bool nq_route_takes_body(const nq_route *route)
{
    return route->allow && strstr(route->allow, "POST") != NULL;
}

static bool unreserved(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
           c == '_' || c == '~';
}

/* The byte an escape at p ("%6C") stands for when it is an unreserved character, else -1. */
static int unreserved_escape(const char *p)
{
    if (p[0] != '%') return -1;
    const int hi = nq_query_hex_digit(p[1]);
    const int lo = hi < 0 ? -1 : nq_query_hex_digit(p[2]); /* p[1] is not NUL here, so p[2] is readable */
    const int c = lo < 0 ? -1 : hi * 16 + lo;
    return unreserved(c) ? c : -1;
}

bool nq_route_normalize(const char *raw, char *out, size_t cap)
{
    assert(raw && out);
    size_t o = 0;
    for (const char *p = raw; *p; p++) {
        if (o + 1 >= cap) return false;
        const int c = unreserved_escape(p);
        if (c < 0) {
            out[o++] = *p;
            continue;
        }
        out[o++] = (char)c;
        p += 2;
    }
    if (o >= cap) return false;
    out[o] = '\0';
    return true;
}
