/* common.c - what both store backends share (common.h): lease tokens, task bitmaps, redaction. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getrandom */
#endif
#include "store/common.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

uint64_t nq_store_token(void)
{
    uint64_t t = 0;
    /* getrandom blocks only before the kernel's pool is initialised, long before a server starts; a
     * failure falls back to the clock, which still differs between claims of one block. */
    if (getrandom(&t, sizeof t, 0) != (ssize_t)sizeof t) {
        struct timespec ts;
        (void)clock_gettime(CLOCK_REALTIME, &ts);
        t = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec * 2654435761u;
    }
    t &= UINT64_C(0x7fffffffffffffff);
    return t ? t : 1;
}

uint32_t nq_store_tasks_done(const uint8_t *done, uint32_t len)
{
    uint32_t k = 0;
    for (uint32_t i = 0; done && i < len; i++) k += done[i] != 0;
    return k;
}

/* Replace bytes [from, to) of out by "***" (out holds a NUL-terminated string with room for it). */
static void mask(char *out, size_t cap, size_t from, size_t to)
{
    const size_t len = strlen(out);
    if (to <= from || to > len || from + 3 + (len - to) + 1 > cap) return;
    memmove(out + from + 3, out + to, len - to + 1);
    memcpy(out + from, "***", 3);
}

/* The end of a key=value form's value starting at v: a quoted value ends after its closing quote
 * (backslash escapes inside), a plain one at white space. */
static size_t kv_value_end(const char *s, size_t v)
{
    if (s[v] != '\'') return v + strcspn(s + v, " \t\n");
    size_t i = v + 1;
    while (s[i] && s[i] != '\'') i += s[i] == '\\' && s[i + 1] ? 2 : 1;
    return s[i] ? i + 1 : i;
}

void nq_store_redact(const char *location, char *out, size_t cap)
{
    if (!out || cap == 0) return;
    (void)snprintf(out, cap, "%s", location ? location : "");
    const bool uri = strncmp(out, "postgresql://", 13) == 0 || strncmp(out, "postgres://", 11) == 0;
    if (uri) { /* scheme://user:password@host...: the password is between the first ':' and the '@' */
        const size_t auth = (size_t)(strstr(out, "://") - out) + 3;
        const size_t host_end = auth + strcspn(out + auth, "/?");
        /* the last '@' of the authority: a password with an unencoded '@' is masked whole */
        const char *at = NULL;
        for (const char *q = out + auth; q < out + host_end; q++)
            if (*q == '@') at = q;
        if (at) {
            const char *colon = memchr(out + auth, ':', (size_t)(at - (out + auth)));
            if (colon) mask(out, cap, (size_t)(colon + 1 - out), (size_t)(at - out));
        }
    }
    /* password=... as a URI query parameter or a keyword of the key=value form */
    for (size_t from = 0;;) {
        const char *p = strstr(out + from, "password");
        if (!p) break;
        size_t v = (size_t)(p - out) + 8;
        const bool starts = p == out || p[-1] == '?' || p[-1] == '&' || p[-1] == ' ' || p[-1] == '\t';
        while (!uri && out[v] == ' ') v++;
        if (!starts || out[v] != '=') {
            from = v;
            continue;
        }
        v++;
        while (!uri && out[v] == ' ') v++;
        const size_t end = uri ? v + strcspn(out + v, "&") : kv_value_end(out, v);
        mask(out, cap, v, end);
        from = v + 3;
    }
}

void nq_store_scrub(char *text, const char *secret)
{
    const size_t len = secret ? strlen(secret) : 0;
    if (!text || len == 0) return;
    for (char *p = strstr(text, secret); p; p = strstr(p, secret)) {
        const size_t stars = len < 3 ? len : 3;
        memset(p, '*', stars);
        memmove(p + stars, p + len, strlen(p + len) + 1);
        p += stars;
    }
}
