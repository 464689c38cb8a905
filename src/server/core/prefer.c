/* prefer.c - the Prefer header (see prefer.h). */
#include "core/prefer.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static bool ows(char c)
{
    return c == ' ' || c == '\t';
}

/* delta-seconds: 1*DIGIT, saturated (RFC 9111 section 1.2.2); false when not all digits. */
static bool delta_seconds(const char *p, size_t len, uint64_t *out)
{
    if (len == 0) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') return false;
        v = v * 10u + (uint64_t)(p[i] - '0');
        if (v > UINT32_MAX) v = UINT32_MAX;
    }
    *out = v;
    return true;
}

/* One preference [p, end): its token, and its value before any ";" parameter. */
/* The first c in [p, end), or NULL. */
static const char *find(const char *p, const char *end, char c)
{
    for (; p < end; p++)
        if (*p == c) return p;
    return NULL;
}

static void one(const char *p, const char *end, nq_prefer *out)
{
    while (p < end && ows(*p)) p++;
    const char *semi = find(p, end, ';');
    if (semi) end = semi;
    while (end > p && ows(end[-1])) end--;
    const char *eq = find(p, end, '=');
    const char *tok_end = eq ? eq : end;
    while (tok_end > p && ows(tok_end[-1])) tok_end--;
    const size_t tok = (size_t)(tok_end - p);
    if (tok == 13 && strncasecmp(p, "respond-async", 13) == 0 && !eq) {
        out->respond_async = true;
    } else if (tok == 4 && strncasecmp(p, "wait", 4) == 0 && eq && !out->has_wait) {
        const char *v = eq + 1;
        while (v < end && ows(*v)) v++;
        if (*v == '"' && end - v >= 2 && end[-1] == '"') { /* word = token / quoted-string */
            v++;
            end--;
        }
        out->has_wait = delta_seconds(v, (size_t)(end - v), &out->wait_s);
    }
}

void nq_prefer_parse(const char *value, nq_prefer *out)
{
    memset(out, 0, sizeof *out);
    if (!value) return;
    const char *p = value;
    for (;;) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        one(p, end, out);
        if (!comma) break;
        p = comma + 1;
    }
}
