/* problem.c - RFC 9457 problem bodies and the descriptions served at each problem type URI, both
 * from the problem table of include/nqueens/error.h. */
#include "core/problem.h"

#include "base/errors.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy a request path for "instance": printable ASCII as is, anything else percent-encoded, so the
 * body is valid JSON text whatever bytes the request carried. */
static void sanitize_instance(const char *in, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p && o + 4 <= cap; p++) {
        if (*p > 0x20 && *p < 0x7f) {
            out[o++] = (char)*p;
        } else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    out[o] = '\0';
}

/* NQ_PROBLEM_TYPE_BASE + slug into out (TYPE_MAX bytes); false if it does not fit. */
#define TYPE_MAX (sizeof NQ_PROBLEM_TYPE_BASE + 48)
static bool type_uri(const char *slug, char *out)
{
    const int w = snprintf(out, TYPE_MAX, "%s%s", NQ_PROBLEM_TYPE_BASE, slug);
    return w > 0 && (size_t)w < TYPE_MAX;
}

static bool add_string(cJSON *obj, const char *name, const char *value)
{
    return cJSON_AddStringToObject(obj, name, value) != NULL;
}

/* Print obj compactly into malloc'd memory owned by the caller. */
static nq_err print_owned(cJSON *obj, char **out, size_t *len)
{
    char *text = cJSON_PrintUnformatted(obj);
    if (!text) return NQ_E_NOMEM;
    *out = text;
    *len = strlen(text);
    return NQ_OK;
}

nq_err nq_problem_render(const nq_problem *p, char **out, size_t *len)
{
    if (!p || !out || !len) return NQ_E_ARG;
    nq_err rc = NQ_E_NOMEM;
    char type[TYPE_MAX];
    const nq_problem_type *t = nq_error_problem(p->err);
    if (!type_uri(t->slug, type)) return NQ_E_ARG;

    cJSON *obj = cJSON_CreateObject();
    if (!obj) goto end;
    /* RFC 9457: the title belongs to the type, so errors sharing a type share its title. */
    if (!add_string(obj, "type", type) || !add_string(obj, "title", t->title)) goto end;
    if (!cJSON_AddNumberToObject(obj, "status", t->status)) goto end;
    /* Without a specific detail, the type's description is the sentence a person can act on
     * ("Retry after the number of seconds in 'Retry-After'."), not a repeat of the title. */
    const char *detail = p->detail ? p->detail : t->description;
    if (!add_string(obj, "detail", detail)) goto end;
    if (p->instance) {
        char instance[NQ_PROBLEM_INSTANCE_MAX + 4];
        sanitize_instance(p->instance, instance, sizeof instance);
        if (!add_string(obj, "instance", instance)) goto end;
    }
    if (p->param && p->param[0] && !add_string(obj, "param", p->param)) goto end;
    /* Limits are far below 2^53, so a JSON number (a double in cJSON) holds them exactly. */
    if (p->has_limit && !cJSON_AddNumberToObject(obj, "limit", (double)p->limit)) goto end;
    rc = print_owned(obj, out, len);
end:
    cJSON_Delete(obj);
    return rc;
}

nq_err nq_problem_doc(const char *slug, size_t slug_len, char **out, size_t *len)
{
    if (!slug || !out || !len) return NQ_E_ARG;
    const nq_problem_type *d = nq_problem_find(slug, slug_len);
    if (!d) return NQ_E_NOT_FOUND;
    nq_err rc = NQ_E_NOMEM;
    char type[TYPE_MAX];
    if (!type_uri(d->slug, type)) return NQ_E_ARG;
    cJSON *obj = cJSON_CreateObject();
    if (!obj) goto end;
    if (!add_string(obj, "type", type) || !add_string(obj, "title", d->title)) goto end;
    if (!cJSON_AddNumberToObject(obj, "status", d->status)) goto end;
    if (!add_string(obj, "description", d->description)) goto end;
    rc = print_owned(obj, out, len);
end:
    cJSON_Delete(obj);
    return rc;
}
