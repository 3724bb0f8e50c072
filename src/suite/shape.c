/*
 * shape.c - validating a suite (or one case) against schemas/suite.schema.json
 * and saying what was wrong in words.
 *
 * The validator (src/schema/) reports "instance path: keyword".  To turn
 * "/judge/provider: enum" into "expected one of 'openai', 'anthropic',
 * 'command'", this file walks the schema document along the same path
 * (properties, additionalProperties, items, local $ref) and reads the failed
 * keyword's value there.  The suite schema uses no combinators (oneOf, anyOf),
 * so the walk is unambiguous.  Of several violations, the one that comes first
 * in the text is reported, with a count of the rest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "suite_int.h"

/* Follow a local "$ref" ("#/$defs/x") if node has one. */
static const cJSON *deref(const cJSON *doc, const cJSON *node)
{
    int hops;

    for (hops = 0; hops < 8 && node; hops++) {
        const cJSON *ref = cJSON_GetObjectItemCaseSensitive(node, "$ref");

        if (!cJSON_IsString(ref) || ref->valuestring[0] != '#')
            break;
        node = arb_json_pointer(doc, ref->valuestring + 1);
    }
    return node;
}

/* Decode one pointer token (~1 -> /, ~0 -> ~) from [s, end) into out. */
static void unescape(const char *s, const char *end, char *out, size_t cap)
{
    size_t o = 0;

    for (; s < end && o + 1 < cap; s++) {
        if (s[0] == '~' && s + 1 < end && (s[1] == '0' || s[1] == '1')) {
            out[o++] = s[1] == '0' ? '~' : '/';
            s++;
        } else {
            out[o++] = *s;
        }
    }
    out[o] = '\0';
}

/* The schema node that governs the instance at pointer, or NULL. */
static const cJSON *schema_at(const cJSON *doc, const char *start, const char *pointer)
{
    const cJSON *node = deref(doc, arb_json_pointer(doc, start));
    const char *p = pointer;
    char token[ARB_SCHEMA_PATH_MAX];

    while (node && *p == '/') {
        const char *end = strchr(p + 1, '/');
        const cJSON *props = cJSON_GetObjectItemCaseSensitive(node, "properties");
        const cJSON *addl = cJSON_GetObjectItemCaseSensitive(node, "additionalProperties");
        const cJSON *items = cJSON_GetObjectItemCaseSensitive(node, "items");
        const cJSON *next;

        if (!end)
            end = p + strlen(p);
        unescape(p + 1, end, token, sizeof(token));
        next = props ? cJSON_GetObjectItemCaseSensitive(props, token) : NULL;
        if (!next && cJSON_IsObject(addl))
            next = addl;
        if (!next && cJSON_IsObject(items))
            next = items;
        node = deref(doc, next);
        p = end;
    }
    return node;
}

static const char *article(const char *type)
{
    return strchr("aeiou", type[0]) ? "an" : "a";
}

/* "a string", "an integer or a string" for a schema's "type". */
static void type_words(const cJSON *type, char *out, size_t cap)
{
    const cJSON *t;
    size_t o = 0;

    out[0] = '\0';
    if (cJSON_IsString(type)) {
        snprintf(out, cap, "%s %s", article(type->valuestring), type->valuestring);
        return;
    }
    cJSON_ArrayForEach(t, type)
    {
        if (!cJSON_IsString(t) || o >= cap)
            continue;
        o += (size_t)snprintf(out + o, cap - o, "%s%s %s", o ? " or " : "", article(t->valuestring),
                              t->valuestring);
    }
}

/* What an instance is, in the words of type_words. */
static const char *kind_of(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    return "an object";
}

/* ", got X" for v (a short quoted string or number, else its kind). */
static void got_words(const cJSON *v, char *out, size_t cap)
{
    char num[ARB_JSON_NUMBER_MAX];

    if (!v)
        out[0] = '\0';
    else if (cJSON_IsString(v) && strlen(v->valuestring) <= 40)
        snprintf(out, cap, ", got '%s'", v->valuestring);
    else if (cJSON_IsNumber(v)) {
        arb_json_number_format(v->valuedouble, num);
        snprintf(out, cap, ", got %s", num);
    } else
        snprintf(out, cap, ", got %s", kind_of(v));
}

/* The names of a schema node's properties, "a, b, c". */
static void property_names(const cJSON *node, struct arb_buf *out)
{
    const cJSON *p;

    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(node, "properties"))
    {
        arb_buf_adds(out, out->len ? ", " : "");
        arb_buf_adds(out, p->string);
    }
}

/* A bound (minimum and co): "expected an integer >= 0, got -1". */
static enum arb_status bound(struct arb_err *err, const struct src *src, const char *shown,
                             const cJSON *sub, const char *kw, const char *rel, const cJSON *v)
{
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(sub, kw);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(sub, "type");
    int integer = cJSON_IsString(type) && strcmp(type->valuestring, "integer") == 0;
    char num[ARB_JSON_NUMBER_MAX] = "?", got[80];

    if (cJSON_IsNumber(limit))
        arb_json_number_format(limit->valuedouble, num);
    got_words(v, got, sizeof(got));
    return located(err, ARB_ESCHEMA, src, shown, 0, "expected %s %s %s%s",
                   integer ? "an integer" : "a number", rel, num, got);
}

/* The message for one violation at instance pointer path (prefix added for display). */
static enum arb_status describe(const struct arb_schema_violation *vio, const cJSON *doc,
                                const char *start, const cJSON *instance, const struct src *src,
                                const char *prefix, size_t more, struct arb_err *err)
{
    const char *kw = vio->keyword;
    const char *last = strrchr(vio->path, '/');
    const cJSON *v = arb_json_pointer(instance, vio->path);
    const cJSON *sub = schema_at(doc, start, vio->path);
    char shown[2 * ARB_SCHEMA_PATH_MAX], name[ARB_SCHEMA_PATH_MAX], words[160], got[80];
    struct arb_buf b;
    enum arb_status st;

    snprintf(shown, sizeof(shown), "%s%s", prefix, vio->path);
    name[0] = '\0';
    if (last)
        unescape(last + 1, last + strlen(last), name, sizeof(name));
    if (strcmp(kw, "required") == 0) {
        shown[strlen(prefix) + (size_t)(last ? last - vio->path : 0)] = '\0';
        st = located(err, ARB_ESCHEMA, src, shown, 0, "missing required key '%s'", name);
    } else if (strcmp(kw, "false") == 0 || strcmp(kw, "additionalProperties") == 0) {
        char parent[ARB_SCHEMA_PATH_MAX];

        snprintf(parent, sizeof(parent), "%.*s", (int)(last ? last - vio->path : 0), vio->path);
        arb_buf_init(&b, 4096);
        property_names(schema_at(doc, start, parent), &b);
        st = located(err, ARB_ESCHEMA, src, shown, 1, "unknown key '%s' (valid: %s)", name,
                     b.ptr ? b.ptr : "none");
        arb_buf_release(&b);
    } else if (strcmp(kw, "type") == 0) {
        type_words(cJSON_GetObjectItemCaseSensitive(sub, "type"), words, sizeof(words));
        st = located(err, ARB_ESCHEMA, src, shown, 0, "expected %s, got %s", words,
                     v ? kind_of(v) : "something else");
    } else if (strcmp(kw, "enum") == 0) {
        const cJSON *e;

        arb_buf_init(&b, 4096);
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(sub, "enum"))
        {
            if (cJSON_IsString(e))
                arb_buf_printf(&b, "%s'%s'", b.len ? ", " : "", e->valuestring);
        }
        got_words(v, got, sizeof(got));
        st = located(err, ARB_ESCHEMA, src, shown, 0, "expected one of %s%s", b.ptr ? b.ptr : "?",
                     got);
        arb_buf_release(&b);
    } else if (strcmp(kw, "minimum") == 0) {
        st = bound(err, src, shown, sub, kw, ">=", v);
    } else if (strcmp(kw, "maximum") == 0) {
        st = bound(err, src, shown, sub, kw, "<=", v);
    } else if (strcmp(kw, "exclusiveMinimum") == 0) {
        st = bound(err, src, shown, sub, kw, ">", v);
    } else if (strcmp(kw, "exclusiveMaximum") == 0) {
        st = bound(err, src, shown, sub, kw, "<", v);
    } else if (strcmp(kw, "minLength") == 0) {
        st = located(err, ARB_ESCHEMA, src, shown, 0, "expected a non-empty string");
    } else if (strcmp(kw, "minProperties") == 0) {
        const cJSON *min = cJSON_GetObjectItemCaseSensitive(sub, "minProperties");
        int n = cJSON_IsNumber(min) ? min->valueint : 1;

        arb_buf_init(&b, 4096);
        property_names(sub, &b);
        if (n == 1)
            st = located(err, ARB_ESCHEMA, src, shown, 0, "expected at least one key (valid: %s)",
                         b.ptr ? b.ptr : "any");
        else
            st = located(err, ARB_ESCHEMA, src, shown, 0, "expected at least %d keys (valid: %s)",
                         n, b.ptr ? b.ptr : "any");
        arb_buf_release(&b);
    } else {
        st = located(err, ARB_ESCHEMA, src, shown, 0, "does not satisfy '%s'", kw);
    }
    if (more && err) {
        size_t n = strlen(err->msg);

        snprintf(err->msg + n, sizeof(err->msg) - n, " (+%zu more)", more);
    }
    return st;
}

/* Where a violation is shown: the member key for unknown keys, the parent for required. */
static struct pos violation_pos(const struct arb_schema_violation *vio, const struct src *src)
{
    char parent[ARB_SCHEMA_PATH_MAX];
    const char *last = strrchr(vio->path, '/');
    const char *kw = vio->keyword;

    if (strcmp(kw, "required") == 0) {
        snprintf(parent, sizeof(parent), "%.*s", (int)(last ? last - vio->path : 0), vio->path);
        return locate_pos(src, parent, 0);
    }
    return locate_pos(src, vio->path,
                      strcmp(kw, "false") == 0 || strcmp(kw, "additionalProperties") == 0);
}

enum arb_status shape_check(const struct arb_schema *schema, const cJSON *schema_doc,
                            const char *start, const cJSON *instance, const struct src *src,
                            const char *prefix, struct arb_err *err)
{
    /* On the stack (about 5 KB): a malloc this size, once per case, made glibc consolidate
     * its free lists every time, 4% of a run's main thread. */
    struct arb_schema_errors errs_mem, *errs = &errs_mem;
    struct pos best = {0, 0};
    size_t i, pick = 0;
    int r;

    arb_schema_errors_init(errs);
    r = arb_schema_validate(schema, instance, errs);
    if (r == 1)
        return ARB_OK;
    if (r < 0 || errs->count == 0)
        return located(err, r < 0 ? (enum arb_status)(-r) : ARB_ESCHEMA, src, prefix, 0, "%s",
                       errs->err.msg[0] ? errs->err.msg : "does not match the suite schema");
    /* The pointers the validator reports are relative to instance; src may hold more. */
    for (i = 0; i < errs->count; i++) {
        struct arb_schema_violation full = errs->items[i];
        struct pos p;

        snprintf(full.path, sizeof(full.path), "%s%s", prefix, errs->items[i].path);
        p = violation_pos(&full, src);
        if (i == 0 || p.line < best.line || (p.line == best.line && p.col < best.col)) {
            best = p;
            pick = i;
        }
    }
    return describe(&errs->items[pick], schema_doc, start, instance, src, prefix, errs->total - 1,
                    err);
}
