/* check_json.h - Check assertions on the members of a parsed JSON body, for every suite that reads
 * one (problem bodies, access-log lines, HTTP answers). Header-only: each suite is one executable. */
#ifndef NQ_CHECK_JSON_H
#define NQ_CHECK_JSON_H

#include <check.h>
#include <cjson/cJSON.h>

/* The string member name of object j; fails the running test when it is missing or not a string.
 * The result is owned by j. */
static inline const char *nq_check_json_str(const cJSON *j, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
    ck_assert_msg(cJSON_IsString(v), "member %s is not a string", name);
    return v->valuestring;
}

/* The number member name of object j; fails the running test when it is missing or not a number. */
static inline double nq_check_json_num(const cJSON *j, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, name);
    ck_assert_msg(cJSON_IsNumber(v), "member %s is not a number", name);
    return v->valuedouble;
}

#endif /* NQ_CHECK_JSON_H */
