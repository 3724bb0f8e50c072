/*
 * comparison.c - reading the parts of a stored comparison.json a report needs
 * (report_int.h).
 *
 * Reports read every verdict's comparison.json; about a third of it (the
 * reasoning, output_quality) is never looked at.  The top-level members are
 * walked here: the wanted values are parsed by cJSON in place
 * (cJSON_ParseWithOpts stops at the value's end), the others skipped by a
 * scanner that only needs to find where a value ends: strings with their
 * escapes, brackets nested.  Anything unexpected falls back to cJSON_Parse,
 * so the result never depends on the shortcut.
 */
#include <string.h>

#include "report_int.h"

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Past the string starting at p (on its '"'), or NULL when it does not end. */
static const char *skip_string(const char *p)
{
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!*++p)
                return NULL;
        } else if (*p == '"') {
            return p + 1;
        }
    }
    return NULL;
}

/* Past the value starting at p, or NULL. */
static const char *skip_value(const char *p)
{
    size_t depth = 0;

    if (*p == '"')
        return skip_string(p);
    if (*p != '{' && *p != '[') {
        while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n' && *p != '\t' &&
               *p != '\r')
            p++;
        return p;
    }
    for (; *p; p++) {
        if (*p == '"') {
            p = skip_string(p);
            if (!p)
                return NULL;
            p--;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if ((*p == '}' || *p == ']') && --depth == 0) {
            return p + 1;
        }
    }
    return NULL;
}

static int wanted(const char *key, size_t n)
{
    return (n == 6 && memcmp(key, "rubric", 6) == 0) ||
           (n == 19 && memcmp(key, "expectation_results", 19) == 0);
}

cJSON *report_parse_comparison(const char *json)
{
    cJSON *out = cJSON_CreateObject();
    const char *p = json ? ws(json) : NULL;

    if (!out || !p || *p != '{')
        goto full;
    p = ws(p + 1);
    while (*p != '}') {
        const char *key = p + 1, *end;
        size_t n;

        if (*p != '"' || !(end = skip_string(p)))
            goto full;
        n = (size_t)(end - 1 - key);
        p = ws(end);
        if (*p != ':' || memchr(key, '\\', n))
            goto full; /* an escaped key might spell a wanted one */
        p = ws(p + 1);
        if (wanted(key, n)) {
            const char *vend = NULL;
            cJSON *v = cJSON_ParseWithOpts(p, &vend, 0);
            char name[20];

            memcpy(name, key, n);
            name[n] = '\0';
            if (!v || !cJSON_AddItemToObject(out, name, v)) {
                cJSON_Delete(v);
                goto full;
            }
            p = vend;
        } else {
            p = skip_value(p);
            if (!p)
                goto full;
        }
        p = ws(p);
        if (*p == ',')
            p = ws(p + 1);
        else if (*p != '}')
            goto full;
    }
    return out;
full:
    cJSON_Delete(out);
    return json ? cJSON_Parse(json) : NULL;
}
