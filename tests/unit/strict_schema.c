/*
 * strict_schema.c - the strict structured-outputs subset check of the unit
 * tests (strict_schema.h): one walk over the schema in document order that
 * stops at the first violation and names it by JSON pointer.  It checks the
 * schema's shape only; whether a reply conforms is the validator's business
 * (arbiter/schema.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "strict_schema.h"

/*
 * A level is an object or array: the root is level 1, and an object or array in a property or
 * in items is one level below the schema holding it (anyOf branches are at their node's level,
 * definitions at level 1: where one is used is not known here).  Recursion through anyOf and
 * $defs adds no level, so the walk has a cap of its own.
 */
#define WALK_MAX_DEPTH 64

struct walk {
    const cJSON *root;
    char path[1024]; /* JSON pointer of the node being checked, without the leading '#' */
    size_t len;
    int cut; /* a segment did not fit: path ends in "/..." */
    long props, enums, chars;
    char *why;
    size_t n;
};

static const char *const keywords[] = {
    "type",     "properties", "required", "additionalProperties", "items", "enum",    "const",
    "anyOf",    "$ref",       "$defs",    "description",          "title", "pattern", "format",
    "minItems", "maxItems",   NULL};

/* What OpenAI takes and the portable subset does not. */
static const char *const portable_refused[] = {"minimum",          "maximum",    "exclusiveMinimum",
                                               "exclusiveMaximum", "multipleOf", NULL};

static const char *const types[] = {"string", "number", "integer", "boolean",
                                    "object", "array",  "null",    NULL};

/* OpenAI's supported string formats. */
static const char *const formats[] = {"date-time", "time", "date", "duration", "email",
                                      "hostname",  "ipv4", "ipv6", "uuid",     NULL};

static int listed(const char *const *list, const char *s)
{
    size_t i;

    for (i = 0; list[i]; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

/* Record the first violation at the current path; returns 0 for the caller to return. */
static int fail(struct walk *w, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (!w->n)
        return 0;
    k = snprintf(w->why, w->n, "#%s%s: ", w->path, w->cut ? "/..." : "");
    if (k >= 0 && (size_t)k < w->n) {
        va_start(ap, fmt);
        vsnprintf(w->why + k, w->n - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/* Append one reference token (escaped: '~' as "~0", '/' as "~1"); returns the length to
 * restore with pop. */
static size_t push(struct walk *w, const char *seg)
{
    size_t mark = w->len, need = 1;
    const char *p;

    if (w->cut)
        return mark;
    for (p = seg; *p; p++)
        need += *p == '~' || *p == '/' ? 2 : 1;
    if (w->len + need >= sizeof(w->path)) {
        w->cut = 1;
        return mark;
    }
    w->path[w->len++] = '/';
    for (p = seg; *p; p++) {
        if (*p == '~' || *p == '/') {
            w->path[w->len++] = '~';
            w->path[w->len++] = *p == '~' ? '0' : '1';
        } else {
            w->path[w->len++] = *p;
        }
    }
    w->path[w->len] = '\0';
    return mark;
}

static size_t push_index(struct walk *w, int i)
{
    char seg[24];

    snprintf(seg, sizeof(seg), "%d", i);
    return push(w, seg);
}

static void pop(struct walk *w, size_t mark)
{
    if (w->cut && mark == w->len)
        w->cut = 0;
    w->len = mark;
    w->path[mark] = '\0';
}

/* Characters (UTF-8 code points) of s. */
static long chars(const char *s)
{
    long c = 0;

    for (; *s; s++)
        c += ((unsigned char)*s & 0xC0) != 0x80;
    return c;
}

/* 1 when d is a whole number that a long long holds (the cast is undefined past that). */
static int whole(double d)
{
    return d > -9.2e18 && d < 9.2e18 && d == (double)(long long)d;
}

/* 1 when the node's "type" (a string or a list) names t. */
static int has_type(const cJSON *type, const char *t)
{
    const cJSON *e;

    if (cJSON_IsString(type))
        return strcmp(type->valuestring, t) == 0;
    cJSON_ArrayForEach(e, type)
    {
        if (cJSON_IsString(e) && strcmp(e->valuestring, t) == 0)
            return 1;
    }
    return 0;
}

static int value_of_type(const cJSON *v, const cJSON *type)
{
    return (has_type(type, "string") && cJSON_IsString(v)) ||
           (has_type(type, "number") && cJSON_IsNumber(v)) ||
           (has_type(type, "integer") && cJSON_IsNumber(v) && whole(v->valuedouble)) ||
           (has_type(type, "boolean") && cJSON_IsBool(v)) ||
           (has_type(type, "null") && cJSON_IsNull(v)) ||
           (has_type(type, "object") && cJSON_IsObject(v)) ||
           (has_type(type, "array") && cJSON_IsArray(v));
}

static int node(struct walk *w, const cJSON *s, int level, int depth);

static int check_type(struct walk *w, const cJSON *type)
{
    const cJSON *e, *f;

    if (cJSON_IsString(type))
        return listed(types, type->valuestring) || fail(w, "unknown type '%s'", type->valuestring);
    if (!cJSON_IsArray(type) || !cJSON_GetArraySize(type))
        return fail(w, "\"type\" must be a type name or a non-empty list of them");
    cJSON_ArrayForEach(e, type)
    {
        if (!cJSON_IsString(e) || !listed(types, e->valuestring))
            return fail(w, "\"type\" lists something that is not a type name");
        for (f = type->child; f != e; f = f->next)
            if (strcmp(f->valuestring, e->valuestring) == 0)
                return fail(w, "\"type\" lists '%s' twice", e->valuestring);
    }
    return 1;
}

/* An object: closed, and every property required; then each property, one level down. */
static int check_object(struct walk *w, const cJSON *s, int level, int depth)
{
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(s, "required");
    const cJSON *ap = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
    const cJSON *p, *r, *q;
    size_t mark, mark2;
    int i = 0;

    if (!cJSON_IsFalse(ap))
        return fail(w, "an object needs \"additionalProperties\": false");
    if (props && !cJSON_IsObject(props))
        return fail(w, "\"properties\" must be an object");
    if (!cJSON_IsArray(req) && cJSON_GetArraySize(props) > 0)
        return fail(w, "an object needs \"required\" listing all its properties");
    if (req && !cJSON_IsArray(req))
        return fail(w, "\"required\" must be an array");
    mark = push(w, "required");
    cJSON_ArrayForEach(r, req)
    {
        mark2 = push_index(w, i++);
        if (!cJSON_IsString(r))
            return fail(w, "\"required\" holds a non-string");
        if (!cJSON_GetObjectItemCaseSensitive(props, r->valuestring))
            return fail(w, "'%s' is required but not a property", r->valuestring);
        for (q = req->child; q != r; q = q->next)
            if (strcmp(q->valuestring, r->valuestring) == 0)
                return fail(w, "'%s' is required twice", r->valuestring);
        pop(w, mark2);
    }
    pop(w, mark);
    mark = push(w, "properties");
    cJSON_ArrayForEach(p, props)
    {
        int found = 0;

        mark2 = push(w, p->string);
        cJSON_ArrayForEach(r, req)
        {
            found |= strcmp(r->valuestring, p->string) == 0;
        }
        if (!found)
            return fail(w, "property '%s' is not in \"required\" (strict mode requires all)",
                        p->string);
        if (++w->props > STRICT_MAX_PROPERTIES)
            return fail(w, "more than %d object properties in the schema", STRICT_MAX_PROPERTIES);
        w->chars += chars(p->string);
        if (w->chars > STRICT_MAX_CHARS)
            return fail(w, "more than %d characters of names and enum values in the schema",
                        STRICT_MAX_CHARS);
        if (!node(w, p, level + 1, depth + 1))
            return 0;
        pop(w, mark2);
    }
    pop(w, mark);
    return 1;
}

static int check_values(struct walk *w, const cJSON *s, const cJSON *type)
{
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(s, "enum");
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(s, "const"), *v;
    size_t mark = push(w, "enum"), mark2;
    int i = 0;

    if (en && (!cJSON_IsArray(en) || !cJSON_GetArraySize(en)))
        return fail(w, "\"enum\" must be a non-empty array");
    cJSON_ArrayForEach(v, en)
    {
        mark2 = push_index(w, i++);
        if (type && !value_of_type(v, type))
            return fail(w, "enum value is not of the node's type");
        if (++w->enums > STRICT_MAX_ENUM_VALUES)
            return fail(w, "more than %d enum values in the schema", STRICT_MAX_ENUM_VALUES);
        w->chars += cJSON_IsString(v) ? chars(v->valuestring) : 0;
        if (w->chars > STRICT_MAX_CHARS)
            return fail(w, "more than %d characters of names and enum values in the schema",
                        STRICT_MAX_CHARS);
        pop(w, mark2);
    }
    pop(w, mark);
    if (!c)
        return 1;
    mark = push(w, "const");
    if (type && !value_of_type(c, type))
        return fail(w, "const value is not of the node's type");
    w->chars += cJSON_IsString(c) ? chars(c->valuestring) : 0;
    if (w->chars > STRICT_MAX_CHARS)
        return fail(w, "more than %d characters of names and enum values in the schema",
                    STRICT_MAX_CHARS);
    pop(w, mark);
    return 1;
}

/* "#" or "#/$defs/name" naming a definition of the root. */
static int check_ref(struct walk *w, const cJSON *ref)
{
    const char *prefix = "#/$defs/";
    char name[512];
    const char *p;
    size_t k = 0;

    if (!cJSON_IsString(ref))
        return fail(w, "\"$ref\" must be a string");
    if (strcmp(ref->valuestring, "#") == 0)
        return 1;
    if (strncmp(ref->valuestring, prefix, strlen(prefix)) != 0)
        return fail(w, "\"$ref\" must be \"#\" or \"#/$defs/name\", not '%s'", ref->valuestring);
    for (p = ref->valuestring + strlen(prefix); *p && k + 1 < sizeof(name); p++) {
        if (*p == '/')
            return fail(w, "\"$ref\" '%s' points inside a definition", ref->valuestring);
        if (p[0] == '~' && (p[1] == '0' || p[1] == '1')) {
            name[k++] = p[1] == '0' ? '~' : '/';
            p++;
        } else {
            name[k++] = *p;
        }
    }
    name[k] = '\0';
    if (!cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(w->root, "$defs"), name))
        return fail(w, "\"$ref\" '%s' names no definition", ref->valuestring);
    return 1;
}

static int check_annotations(struct walk *w, const cJSON *s)
{
    static const char *const strings[] = {"description", "title", "pattern", "format", NULL};
    static const char *const counts[] = {"minItems", "maxItems", NULL};
    const cJSON *v;
    size_t i, mark;

    for (i = 0; strings[i]; i++) {
        v = cJSON_GetObjectItemCaseSensitive(s, strings[i]);
        mark = push(w, strings[i]);
        if (v && !cJSON_IsString(v))
            return fail(w, "\"%s\" must be a string", strings[i]);
        if (v && i == 3 && !listed(formats, v->valuestring))
            return fail(w, "format '%s' is not supported", v->valuestring);
        pop(w, mark);
    }
    for (i = 0; counts[i]; i++) {
        v = cJSON_GetObjectItemCaseSensitive(s, counts[i]);
        mark = push(w, counts[i]);
        if (v && (!cJSON_IsNumber(v) || v->valuedouble < 0 || !whole(v->valuedouble)))
            return fail(w, "\"%s\" must be a non-negative integer", counts[i]);
        pop(w, mark);
    }
    return 1;
}

/* The schemas a node holds besides its properties: items, anyOf branches, definitions. */
static int check_children(struct walk *w, const cJSON *s, const cJSON *type, int level, int depth)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(s, "items");
    const cJSON *any = cJSON_GetObjectItemCaseSensitive(s, "anyOf");
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(s, "$defs"), *e;
    size_t mark, mark2;
    int i = 0;

    if (has_type(type, "array") && !items)
        return fail(w, "an array needs \"items\"");
    mark = push(w, "items");
    if (items && !node(w, items, level + 1, depth + 1))
        return 0;
    pop(w, mark);
    if (any && (!cJSON_IsArray(any) || !cJSON_GetArraySize(any)))
        return fail(w, "\"anyOf\" must be a non-empty array");
    mark = push(w, "anyOf");
    cJSON_ArrayForEach(e, any)
    {
        mark2 = push_index(w, i++);
        if (!node(w, e, level, depth + 1))
            return 0;
        pop(w, mark2);
    }
    pop(w, mark);
    if (defs && !cJSON_IsObject(defs))
        return fail(w, "\"$defs\" must be an object");
    mark = push(w, "$defs");
    cJSON_ArrayForEach(e, defs)
    {
        mark2 = push(w, e->string);
        w->chars += chars(e->string);
        if (w->chars > STRICT_MAX_CHARS)
            return fail(w, "more than %d characters of names and enum values in the schema",
                        STRICT_MAX_CHARS);
        if (!node(w, e, 1, depth + 1))
            return 0;
        pop(w, mark2);
    }
    pop(w, mark);
    return 1;
}

static int node(struct walk *w, const cJSON *s, int level, int depth)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(s, "type"), *k;
    size_t mark;

    if (!cJSON_IsObject(s))
        return fail(w, "a schema must be an object");
    if (depth > WALK_MAX_DEPTH)
        return fail(w, "schemas nested more than %d deep", WALK_MAX_DEPTH);
    cJSON_ArrayForEach(k, s)
    {
        mark = push(w, k->string);
        if (listed(portable_refused, k->string))
            return fail(w,
                        "'%s' is outside Arbiter's portable subset (older grammar engines "
                        "of local servers reject it)",
                        k->string);
        if (!listed(keywords, k->string))
            return fail(w, "keyword '%s' is not supported in strict mode", k->string);
        pop(w, mark);
    }
    if (!type && !cJSON_GetObjectItemCaseSensitive(s, "anyOf") &&
        !cJSON_GetObjectItemCaseSensitive(s, "$ref"))
        return fail(w, "no \"type\" (nor anyOf or $ref)");
    mark = push(w, "type");
    if (type && !check_type(w, type))
        return 0;
    pop(w, mark);
    if ((has_type(type, "object") || has_type(type, "array")) && level > STRICT_MAX_LEVELS)
        return fail(w, "more than %d levels of nesting", STRICT_MAX_LEVELS);
    mark = push(w, "$ref");
    if (cJSON_GetObjectItemCaseSensitive(s, "$ref") &&
        !check_ref(w, cJSON_GetObjectItemCaseSensitive(s, "$ref")))
        return 0;
    pop(w, mark);
    if (!check_annotations(w, s) || !check_values(w, s, type))
        return 0;
    if (has_type(type, "object") && !check_object(w, s, level, depth))
        return 0;
    return check_children(w, s, type, level, depth);
}

int strict_schema_check(const cJSON *schema, char *why, size_t n)
{
    struct walk w;
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(schema, "type");

    memset(&w, 0, sizeof(w));
    w.root = schema;
    w.why = why;
    w.n = n;
    if (n)
        why[0] = '\0';
    if (cJSON_IsObject(schema) && cJSON_GetObjectItemCaseSensitive(schema, "anyOf"))
        return fail(&w, "the root must be an object schema, not an anyOf");
    if (!cJSON_IsObject(schema) || !cJSON_IsString(type) ||
        strcmp(type->valuestring, "object") != 0)
        return fail(&w, "the root must be an object schema (\"type\": \"object\")");
    return node(&w, schema, 1, 1);
}
