/*
 * compile_kw.c - the keywords of draft 7 and 2020-12, one checker-compiler
 * each, chosen from a table by name, draft and vocabulary.  Each checks the
 * keyword's value the way the metaschema would ("'minimum' must be a
 * number"), then fills its part of struct node.  Unknown keywords, format,
 * content and meta-data keywords are annotations and compile to nothing.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "schema_int.h"

enum { D7 = 1, D2020 = 2, DBOTH = 3 };

struct kwenv {
    struct resource *res;
    enum arb_schema_draft draft;
    unsigned vocab;
};

struct kwdef {
    const char *name;
    unsigned char drafts; /* D7, D2020 */
    unsigned char vocab;  /* enum vocab; 0 is the core, always on */
    int (*fn)(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e);
};

static int bad(struct cctx *c, const cJSON *v, const char *what)
{
    compile_fail(c, ARB_ESCHEMA, "'%s' must be %s", v->string, what);
    return -1;
}

static int nomem(struct cctx *c)
{
    compile_fail(c, ARB_ENOMEM, "out of memory");
    return -1;
}

static size_t count_children(const cJSON *v)
{
    size_t n = 0;
    const cJSON *ch;

    for (ch = v->child; ch; ch = ch->next)
        n++;
    return n;
}

static int type_bit(const char *s)
{
    static const char *const names[] = {"null",   "boolean", "object", "array",
                                        "number", "integer", "string"};
    size_t i;

    for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (!strcmp(s, names[i]))
            return 1 << i;
    }
    return 0;
}

static int kw_type(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    const char *what = "a type name or a non-empty array of type names";
    const cJSON *t;
    int mask = 0;

    if (cJSON_IsString(v)) {
        mask = type_bit(v->valuestring);
    } else if (cJSON_IsArray(v) && v->child) {
        for (t = v->child; t; t = t->next) {
            int bit = cJSON_IsString(t) ? type_bit(t->valuestring) : 0;

            if (!bit)
                return bad(c, v, what);
            mask |= bit;
        }
    }
    if (!mask)
        return bad(c, v, what);
    n->types = (unsigned char)mask;
    n->kw |= K_TYPE;
    return 0;
}

static int kw_enum(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    if (!cJSON_IsArray(v))
        return bad(c, v, "an array");
    n->enum_vals = v;
    n->kw |= K_ENUM;
    return 0;
}

static int kw_const(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    n->const_val = v;
    n->kw |= K_CONST;
    return 0;
}

static int kw_multiple_of(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble))
        return bad(c, v, "a number greater than 0");
    n->mult = v->valuedouble;
    decimal_of(n->mult, &n->mult_dec);
    n->kw |= K_MULTIPLE_OF;
    return 0;
}

static int kw_bound(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    const char *name = v->string;

    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return bad(c, v, "a number");
    if (!strcmp(name, "minimum")) {
        n->minimum = v->valuedouble;
        n->kw |= K_MINIMUM;
    } else if (!strcmp(name, "maximum")) {
        n->maximum = v->valuedouble;
        n->kw |= K_MAXIMUM;
    } else if (!strcmp(name, "exclusiveMinimum")) {
        n->exmin = v->valuedouble;
        n->kw |= K_EXMIN;
    } else {
        n->exmax = v->valuedouble;
        n->kw |= K_EXMAX;
    }
    return 0;
}

static int kw_count(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    static const struct {
        const char *name;
        size_t off;
        uint64_t bit;
    } counts[] = {
        {"minLength", offsetof(struct node, min_len), K_MINLEN},
        {"maxLength", offsetof(struct node, max_len), K_MAXLEN},
        {"minItems", offsetof(struct node, min_items), K_MINITEMS},
        {"maxItems", offsetof(struct node, max_items), K_MAXITEMS},
        {"minContains", offsetof(struct node, min_cont), K_MINCONT},
        {"maxContains", offsetof(struct node, max_cont), K_MAXCONT},
        {"minProperties", offsetof(struct node, min_props), K_MINPROPS},
        {"maxProperties", offsetof(struct node, max_props), K_MAXPROPS},
    };
    double d = v->valuedouble;
    size_t i, val;

    if (!cJSON_IsNumber(v) || !isfinite(d) || d < 0 || d != floor(d))
        return bad(c, v, "a non-negative integer");
    val = d >= 18446744073709551615.0 ? SIZE_MAX : (size_t)d;
    for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        if (!strcmp(v->string, counts[i].name)) {
            memcpy((char *)n + counts[i].off, &val, sizeof(val));
            n->kw |= counts[i].bit;
        }
    }
    return 0;
}

static pcre2_code *regex(struct cctx *c, const cJSON *v, const char *src, const char *what)
{
    char why[160];
    pcre2_code *re = pattern_compile(src, why, sizeof(why));

    if (!re) {
        compile_fail(c, ARB_ESCHEMA, "'%s'%s is not a valid regular expression: %s", v->string,
                     what, why);
        return NULL;
    }
    if (schema_own_code(c->s, re) != 0) {
        pcre2_code_free(re);
        nomem(c);
        return NULL;
    }
    return re;
}

static int kw_pattern(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    if (!cJSON_IsString(v))
        return bad(c, v, "a string");
    n->pattern = regex(c, v, v->valuestring, "");
    if (!n->pattern)
        return -1;
    n->kw |= K_PATTERN;
    return 0;
}

static int kw_unique(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    if (!cJSON_IsBool(v))
        return bad(c, v, "a boolean");
    if (cJSON_IsTrue(v))
        n->kw |= K_UNIQUE;
    return 0;
}

/* An array of strings into l; -1 (error set) if v is not one. */
static int strlist(struct cctx *c, const cJSON *v, struct strlist *l, const cJSON *named)
{
    const cJSON *s;
    size_t i = 0;

    if (!cJSON_IsArray(v))
        return bad(c, named, "an array of strings");
    l->n = count_children(v);
    l->v = arena_alloc(&c->s->arena, (l->n ? l->n : 1) * sizeof(*l->v));
    if (!l->v)
        return nomem(c);
    for (s = v->child; s; s = s->next) {
        if (!cJSON_IsString(s))
            return bad(c, named, "an array of strings");
        l->v[i++] = s->valuestring;
    }
    return 0;
}

static int kw_required(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    if (strlist(c, v, &n->required, v) != 0)
        return -1;
    if (n->required.n)
        n->kw |= K_REQUIRED;
    return 0;
}

static int add_depreq(struct cctx *c, struct node *n, const cJSON *m, const cJSON *named)
{
    struct depreq *d = &n->depreq[n->n_depreq];

    if (strlist(c, m, &d->req, named) != 0)
        return -1;
    d->name = m->string;
    d->kw = named->string;
    n->n_depreq++;
    n->kw |= K_DEPREQ;
    return 0;
}

static int add_depsch(struct cctx *c, struct node *n, const cJSON *m, const char *kw,
                      const struct kwenv *e)
{
    struct prop *d = &n->depsch[n->n_depsch];

    d->node = compile_sub(c, m, kw, m->string, e->res, e->draft, e->vocab);
    if (!d->node)
        return -1;
    d->name = m->string;
    n->n_depsch++;
    n->kw |= K_DEPSCH;
    return 0;
}

/* dependentRequired, dependentSchemas and draft 7's dependencies (either kind). */
static int kw_dependent(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    int req = !strcmp(v->string, "dependentRequired");
    int sch = !strcmp(v->string, "dependentSchemas");
    size_t count = count_children(v);
    const cJSON *m;

    if (!cJSON_IsObject(v))
        return bad(c, v, "an object");
    if (!sch && !n->depreq) {
        n->depreq = arena_alloc(&c->s->arena, (count ? count : 1) * sizeof(*n->depreq));
        if (!n->depreq)
            return nomem(c);
    }
    if (!req && !n->depsch) {
        n->depsch = arena_alloc(&c->s->arena, (count ? count : 1) * sizeof(*n->depsch));
        if (!n->depsch)
            return nomem(c);
    }
    for (m = v->child; m; m = m->next) {
        int as_list = req || (!sch && cJSON_IsArray(m));

        if (as_list && add_depreq(c, n, m, v) != 0)
            return -1;
        if (!as_list && add_depsch(c, n, m, v->string, e) != 0)
            return -1;
    }
    return 0;
}

/* properties, patternProperties, $defs, definitions: maps of schemas. */
static int kw_schema_map(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    int props = !strcmp(v->string, "properties");
    int pats = !strcmp(v->string, "patternProperties");
    size_t count = count_children(v), i = 0;
    const cJSON *m;

    if (!cJSON_IsObject(v))
        return bad(c, v, "an object whose members are schemas");
    if (props && count) {
        n->props.v = arena_alloc(&c->s->arena, count * sizeof(*n->props.v));
        if (!n->props.v)
            return nomem(c);
        n->kw |= K_PROPS;
    }
    if (pats && count) {
        n->patprops = arena_alloc(&c->s->arena, count * sizeof(*n->patprops));
        if (!n->patprops)
            return nomem(c);
        n->kw |= K_PATPROPS;
    }
    for (m = v->child; m; m = m->next, i++) {
        struct node *sub = compile_sub(c, m, v->string, m->string, e->res, e->draft, e->vocab);

        if (!sub)
            return -1;
        if (props) {
            n->props.v[i].name = m->string;
            n->props.v[i].node = sub;
        } else if (pats) {
            n->patprops[i].node = sub;
            n->patprops[i].re = regex(c, v, m->string, " member");
            if (!n->patprops[i].re)
                return -1;
        }
    }
    if (props)
        n->props.n = count;
    if (pats)
        n->n_patprops = count;
    return 0;
}

static int kw_sub(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    static const struct {
        const char *name;
        size_t off;
        uint64_t bit;
    } subs[] = {
        {"additionalProperties", offsetof(struct node, addprops), K_ADDPROPS},
        {"propertyNames", offsetof(struct node, propnames), K_PROPNAMES},
        {"contains", offsetof(struct node, contains), K_CONTAINS},
        {"unevaluatedItems", offsetof(struct node, uneval_items), K_UNEVAL_ITEMS},
        {"unevaluatedProperties", offsetof(struct node, uneval_props), K_UNEVAL_PROPS},
        {"not", offsetof(struct node, not_), K_NOT},
        {"if", offsetof(struct node, if_), K_IF},
        {"then", offsetof(struct node, then_), 0},
        {"else", offsetof(struct node, else_), 0},
        {"additionalItems", offsetof(struct node, add_items), 0},
        {"items", offsetof(struct node, items), K_ITEMS},
    };
    struct node *sub = compile_sub(c, v, v->string, NULL, e->res, e->draft, e->vocab);
    size_t i;

    if (!sub)
        return -1;
    for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
        if (!strcmp(v->string, subs[i].name)) {
            memcpy((char *)n + subs[i].off, &sub, sizeof(sub));
            n->kw |= subs[i].bit;
        }
    }
    return 0;
}

/* allOf, anyOf, oneOf, prefixItems and draft 7's array form of items. */
static int kw_list(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    struct nodelist *l;
    const cJSON *m;
    size_t i = 0, saved = c->path_len;
    char idx[24];

    if (!strcmp(v->string, "allOf")) {
        l = &n->allof;
        n->kw |= K_ALLOF;
    } else if (!strcmp(v->string, "anyOf")) {
        l = &n->anyof;
        n->kw |= K_ANYOF;
    } else if (!strcmp(v->string, "oneOf")) {
        l = &n->oneof;
        n->kw |= K_ONEOF;
    } else {
        l = &n->prefix;
        n->kw |= K_PREFIX;
        n->items_array = 1;
    }
    if (!cJSON_IsArray(v) || (!v->child && l != &n->prefix))
        return bad(c, v, "a non-empty array of schemas");
    l->n = count_children(v);
    l->v = arena_alloc(&c->s->arena, (l->n ? l->n : 1) * sizeof(*l->v));
    if (!l->v)
        return nomem(c);
    for (m = v->child; m; m = m->next, i++) {
        snprintf(idx, sizeof(idx), "%zu", i);
        path_push(c, v->string);
        l->v[i] = compile_sub(c, m, idx, NULL, e->res, e->draft, e->vocab);
        path_pop(c, saved);
        if (!l->v[i])
            return -1;
    }
    return 0;
}

static int kw_items(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    if (cJSON_IsArray(v)) {
        if (e->draft != ARB_SCHEMA_DRAFT_7)
            return bad(c, v, "a schema in 2020-12 (an array of schemas is 'prefixItems')");
        return kw_list(c, n, v, e);
    }
    return kw_sub(c, n, v, e);
}

static int kw_ref(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    char *uri;

    if (!cJSON_IsString(v))
        return bad(c, v, "a string (a URI reference)");
    uri = uri_resolve(&c->s->arena, e->res->uri, v->valuestring);
    if (!uri)
        return nomem(c);
    if (!strcmp(v->string, "$ref")) {
        n->ref_uri = uri;
        n->kw |= K_REF;
    } else {
        n->dynref_uri = uri;
        n->kw |= K_DYNREF;
    }
    return 0;
}

static int kw_string(struct cctx *c, struct node *n, const cJSON *v, const struct kwenv *e)
{
    return cJSON_IsString(v) ? 0 : bad(c, v, "a string");
}

static const struct kwdef keywords[] = {
    {"type", DBOTH, VOC_VALIDATION, kw_type},
    {"enum", DBOTH, VOC_VALIDATION, kw_enum},
    {"const", DBOTH, VOC_VALIDATION, kw_const},
    {"multipleOf", DBOTH, VOC_VALIDATION, kw_multiple_of},
    {"minimum", DBOTH, VOC_VALIDATION, kw_bound},
    {"maximum", DBOTH, VOC_VALIDATION, kw_bound},
    {"exclusiveMinimum", DBOTH, VOC_VALIDATION, kw_bound},
    {"exclusiveMaximum", DBOTH, VOC_VALIDATION, kw_bound},
    {"minLength", DBOTH, VOC_VALIDATION, kw_count},
    {"maxLength", DBOTH, VOC_VALIDATION, kw_count},
    {"minItems", DBOTH, VOC_VALIDATION, kw_count},
    {"maxItems", DBOTH, VOC_VALIDATION, kw_count},
    {"minContains", D2020, VOC_VALIDATION, kw_count},
    {"maxContains", D2020, VOC_VALIDATION, kw_count},
    {"minProperties", DBOTH, VOC_VALIDATION, kw_count},
    {"maxProperties", DBOTH, VOC_VALIDATION, kw_count},
    {"pattern", DBOTH, VOC_VALIDATION, kw_pattern},
    {"uniqueItems", DBOTH, VOC_VALIDATION, kw_unique},
    {"required", DBOTH, VOC_VALIDATION, kw_required},
    {"dependentRequired", D2020, VOC_VALIDATION, kw_dependent},
    {"dependentSchemas", D2020, VOC_APPLICATOR, kw_dependent},
    /* Not in 2020-12, but its metaschema still describes it: honoured in both. */
    {"dependencies", DBOTH, VOC_APPLICATOR, kw_dependent},
    {"properties", DBOTH, VOC_APPLICATOR, kw_schema_map},
    {"patternProperties", DBOTH, VOC_APPLICATOR, kw_schema_map},
    {"additionalProperties", DBOTH, VOC_APPLICATOR, kw_sub},
    {"propertyNames", DBOTH, VOC_APPLICATOR, kw_sub},
    {"items", DBOTH, VOC_APPLICATOR, kw_items},
    {"prefixItems", D2020, VOC_APPLICATOR, kw_list},
    {"additionalItems", D7, VOC_APPLICATOR, kw_sub},
    {"contains", DBOTH, VOC_APPLICATOR, kw_sub},
    {"allOf", DBOTH, VOC_APPLICATOR, kw_list},
    {"anyOf", DBOTH, VOC_APPLICATOR, kw_list},
    {"oneOf", DBOTH, VOC_APPLICATOR, kw_list},
    {"not", DBOTH, VOC_APPLICATOR, kw_sub},
    {"if", DBOTH, VOC_APPLICATOR, kw_sub},
    {"then", DBOTH, VOC_APPLICATOR, kw_sub},
    {"else", DBOTH, VOC_APPLICATOR, kw_sub},
    {"unevaluatedItems", D2020, VOC_UNEVALUATED, kw_sub},
    {"unevaluatedProperties", D2020, VOC_UNEVALUATED, kw_sub},
    {"$ref", DBOTH, 0, kw_ref},
    {"$dynamicRef", D2020, 0, kw_ref},
    {"$defs", D2020, 0, kw_schema_map},
    {"definitions", DBOTH, 0, kw_schema_map},
    {"format", DBOTH, 0, kw_string},
};

/*
 * Compile keyword kw (a member of n's schema object).  Keywords of another
 * draft or of a vocabulary the metaschema leaves out are ignored.
 * Returns 0, or -1 with c->st set.
 */
int compile_keyword(struct cctx *c, struct node *n, const cJSON *kw, struct resource *res,
                    enum arb_schema_draft draft, unsigned vocab)
{
    struct kwenv e;
    unsigned want = draft == ARB_SCHEMA_DRAFT_7 ? D7 : D2020;
    size_t i;

    e.res = res;
    e.draft = draft;
    e.vocab = vocab;
    for (i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++) {
        const struct kwdef *d = &keywords[i];

        if (strcmp(kw->string, d->name) != 0)
            continue;
        if (!(d->drafts & want) || (d->vocab && !(vocab & d->vocab)))
            return 0;
        return d->fn(c, n, kw, &e);
    }
    return 0;
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Index a long property list by hash; short ones are searched in order. */
void proptab_index(struct cctx *c, struct proptab *t)
{
    uint32_t size = 16, i;

    if (t->n <= 8)
        return;
    while (size < t->n * 2)
        size *= 2;
    t->slots = arena_alloc(&c->s->arena, size * sizeof(*t->slots));
    if (!t->slots) {
        nomem(c);
        return;
    }
    t->mask = size - 1;
    for (i = 0; i < t->n; i++) {
        uint32_t h = fnv1a(t->v[i].name) & t->mask;

        while (t->slots[h])
            h = (h + 1) & t->mask;
        t->slots[h] = i + 1;
    }
}

/* The property named name, or NULL (the first one when a name repeats). */
const struct prop *proptab_find(const struct proptab *t, const char *name)
{
    size_t i;

    if (t->slots) {
        uint32_t h = fnv1a(name) & t->mask;

        for (; t->slots[h]; h = (h + 1) & t->mask) {
            const struct prop *p = &t->v[t->slots[h] - 1];

            if (!strcmp(p->name, name))
                return p;
        }
        return NULL;
    }
    for (i = 0; i < t->n; i++) {
        if (t->v[i].name[0] == name[0] && !strcmp(t->v[i].name, name))
            return &t->v[i];
    }
    return NULL;
}
