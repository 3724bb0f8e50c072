/*
 * validate_kw.c - the keywords that look at one kind of instance: type,
 * enum/const, numbers, strings, arrays (prefixItems, items, contains,
 * uniqueItems, sizes) and objects (properties, patternProperties,
 * additionalProperties, propertyNames, required, dependencies, sizes), and
 * unevaluatedProperties / unevaluatedItems over the annotations collected.
 * The walk itself and the in-place applicators are in validate.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "schema_int.h"

static int is_integer(double d)
{
    return isfinite(d) && d == floor(d);
}

int check_type(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p)
{
    unsigned t = n->types;
    int ok;

    switch (v->type & 0xFF) {
    case cJSON_NULL:
        ok = t & T_NULL;
        break;
    case cJSON_True:
    case cJSON_False:
        ok = t & T_BOOLEAN;
        break;
    case cJSON_Object:
        ok = t & T_OBJECT;
        break;
    case cJSON_Array:
        ok = t & T_ARRAY;
        break;
    case cJSON_String:
        ok = t & T_STRING;
        break;
    case cJSON_Number:
        ok = (t & T_NUMBER) || ((t & T_INTEGER) && is_integer(v->valuedouble));
        break;
    default:
        ok = 0;
        break;
    }
    return ok ? 1 : v_fail(c, p, "type");
}

int check_values(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p)
{
    int ok = 1;

    if ((n->kw & K_CONST) && !arb_json_equal(v, n->const_val) &&
        v_stop(c, v_fail(c, p, "const"), &ok))
        return ok;
    if (n->kw & K_ENUM) {
        const cJSON *e;

        for (e = n->enum_vals->child; e; e = e->next) {
            if (arb_json_equal(v, e))
                break;
        }
        if (!e)
            return v_fail(c, p, "enum");
    }
    return ok;
}

int check_number(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p)
{
    double d = v->valuedouble;
    int ok = 1;

    if ((n->kw & K_MINIMUM) && d < n->minimum && v_stop(c, v_fail(c, p, "minimum"), &ok))
        return ok;
    if ((n->kw & K_MAXIMUM) && d > n->maximum && v_stop(c, v_fail(c, p, "maximum"), &ok))
        return ok;
    if ((n->kw & K_EXMIN) && d <= n->exmin && v_stop(c, v_fail(c, p, "exclusiveMinimum"), &ok))
        return ok;
    if ((n->kw & K_EXMAX) && d >= n->exmax && v_stop(c, v_fail(c, p, "exclusiveMaximum"), &ok))
        return ok;
    if ((n->kw & K_MULTIPLE_OF) && !multiple_of(d, n->mult, &n->mult_dec))
        return v_fail(c, p, "multipleOf");
    return ok;
}

/* Code points of UTF-8 s[0..len): every byte that is not a continuation byte. */
static size_t code_points(const char *s, size_t len)
{
    size_t i, n = 0;

    for (i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/*
 * Search s[0..len) (a name or string value) for re.  U+0000 in observed JSON is held as C0 80
 * (json.h), which PCRE2 would refuse as invalid UTF-8: the pattern sees a NUL byte instead.
 */
static int match(struct vctx *c, const pcre2_code *re, const char *s, size_t len,
                 const struct vpath *p)
{
    char *text = NULL;
    int r;

    if (memchr(s, 0xC0, len)) {
        text = arb_json_text(s, &len);
        if (!text)
            return v_error(c, ARB_ENOMEM, p, "out of memory");
        s = text;
    }
    r = pattern_match(re, s, len, &c->md);
    free(text);

    if (r < 0) {
        PCRE2_UCHAR msg[120];

        if (pcre2_get_error_message(r, msg, sizeof(msg)) < 0)
            snprintf((char *)msg, sizeof(msg), "error %d", r);
        return v_error(c, ARB_EINTERNAL, p, "pattern matching failed: %s", (const char *)msg);
    }
    return r;
}

int check_string(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p)
{
    const char *s = v->valuestring ? v->valuestring : "";
    size_t len = strlen(s);
    int ok = 1;

    /* Code points never outnumber bytes: count only when bytes cannot decide. */
    if ((n->kw & K_MINLEN) && (len < n->min_len || code_points(s, len) < n->min_len) &&
        v_stop(c, v_fail(c, p, "minLength"), &ok))
        return ok;
    if ((n->kw & K_MAXLEN) && len > n->max_len && code_points(s, len) > n->max_len &&
        v_stop(c, v_fail(c, p, "maxLength"), &ok))
        return ok;
    if (n->kw & K_PATTERN) {
        int r = match(c, n->pattern, s, len, p);

        if (r <= 0)
            return r < 0 ? r : v_fail(c, p, "pattern");
    }
    return ok;
}

static int unique(const cJSON *v)
{
    const cJSON *a, *b;

    for (a = v->child; a; a = a->next) {
        for (b = a->next; b; b = b->next) {
            if (arb_json_equal(a, b))
                return 0;
        }
    }
    return 1;
}

static int contains(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                    struct eval *ev)
{
    struct arb_schema_errors *saved = c->errs;
    const cJSON *item;
    size_t i = 0, found = 0;
    int r = 1;

    c->errs = NULL;
    for (item = v->child; item; item = item->next, i++) {
        struct vpath seg = {p, NULL, i};

        r = v_child(c, n->contains, item, &seg, "contains");
        if (r < 0)
            break;
        if (r) {
            found++;
            if (ev)
                eval_mark(ev, i);
        }
        /* Annotations and maxContains need every match; a plain yes needs enough. */
        if (!ev && found >= n->min_cont && n->max_cont == SIZE_MAX)
            break;
        if (!ev && found > n->max_cont)
            break;
    }
    c->errs = saved;
    if (r < 0)
        return r;
    if (found < n->min_cont)
        return v_fail(c, p, (n->kw & K_MINCONT) ? "minContains" : "contains");
    if (found > n->max_cont)
        return v_fail(c, p, "maxContains");
    return 1;
}

int check_array(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                struct eval *ev)
{
    int ok = 1, d7 = n->draft == ARB_SCHEMA_DRAFT_7;
    const cJSON *item;
    size_t len = 0, i = 0;

    if (n->kw & (K_MINITEMS | K_MAXITEMS)) {
        for (item = v->child; item; item = item->next)
            len++;
        if ((n->kw & K_MINITEMS) && len < n->min_items && v_stop(c, v_fail(c, p, "minItems"), &ok))
            return ok;
        if ((n->kw & K_MAXITEMS) && len > n->max_items && v_stop(c, v_fail(c, p, "maxItems"), &ok))
            return ok;
    }
    if ((n->kw & K_UNIQUE) && !unique(v) && v_stop(c, v_fail(c, p, "uniqueItems"), &ok))
        return ok;
    if (n->kw & (K_PREFIX | K_ITEMS)) {
        for (item = v->child; item; item = item->next, i++) {
            int pre = i < n->prefix.n;
            const struct node *sub = pre ? n->prefix.v[i] : n->items;
            struct vpath seg = {p, NULL, i};
            const char *kw = pre ? (d7 ? "items" : "prefixItems")
                                 : (d7 && n->items_array ? "additionalItems" : "items");

            if (!sub)
                break;
            if (v_stop(c, v_child(c, sub, item, &seg, kw), &ok))
                return ok;
            if (ev)
                eval_mark(ev, i);
        }
    }
    if ((n->kw & K_CONTAINS) && v_stop(c, contains(c, n, v, p, ev), &ok))
        return ok;
    return ok;
}

static int has_member(const cJSON *obj, const char *name)
{
    const cJSON *m;

    for (m = obj->child; m; m = m->next) {
        if (m->string && m->string[0] == name[0] && !strcmp(m->string, name))
            return 1;
    }
    return 0;
}

/* required and dependentRequired (draft 7: dependencies with a list). */
static int check_required(struct vctx *c, const struct node *n, const cJSON *v,
                          const struct vpath *p)
{
    int ok = 1;
    size_t i, j;

    for (i = 0; (n->kw & K_REQUIRED) && i < n->required.n; i++) {
        struct vpath seg = {p, n->required.v[i], 0};

        if (!has_member(v, n->required.v[i]) && v_stop(c, v_fail(c, &seg, "required"), &ok))
            return ok;
    }
    for (i = 0; (n->kw & K_DEPREQ) && i < n->n_depreq; i++) {
        const struct depreq *d = &n->depreq[i];

        if (!has_member(v, d->name))
            continue;
        for (j = 0; j < d->req.n; j++) {
            struct vpath seg = {p, d->req.v[j], 0};

            if (!has_member(v, d->req.v[j]) && v_stop(c, v_fail(c, &seg, d->kw), &ok))
                return ok;
        }
    }
    return ok;
}

/* properties, patternProperties, additionalProperties for one member. */
static int check_member(struct vctx *c, const struct node *n, const cJSON *m,
                        const struct vpath *seg, int *evaluated)
{
    int ok = 1, matched = 0;
    size_t k;

    if (n->kw & K_PROPS) {
        const struct prop *pr = proptab_find(&n->props, m->string);

        if (pr) {
            matched = 1;
            if (v_stop(c, v_child(c, pr->node, m, seg, "properties"), &ok))
                return ok;
        }
    }
    for (k = 0; k < n->n_patprops; k++) {
        int r = match(c, n->patprops[k].re, m->string, strlen(m->string), seg);

        if (r < 0)
            return r;
        if (!r)
            continue;
        matched = 1;
        if (v_stop(c, v_child(c, n->patprops[k].node, m, seg, "patternProperties"), &ok))
            return ok;
    }
    if (!matched && (n->kw & K_ADDPROPS)) {
        matched = 1;
        if (v_stop(c, v_child(c, n->addprops, m, seg, "additionalProperties"), &ok))
            return ok;
    }
    *evaluated = matched;
    return ok;
}

static int check_names(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p)
{
    struct arb_schema_errors *saved = c->errs;
    const cJSON *m;
    int ok = 1;

    for (m = v->child; m; m = m->next) {
        struct vpath seg = {p, m->string, 0};
        cJSON key;
        int r;

        memset(&key, 0, sizeof(key));
        key.type = cJSON_String;
        key.valuestring = m->string;
        c->errs = NULL;
        r = v_node(c, n->propnames, &key, &seg, NULL);
        c->errs = saved;
        if (v_stop(c, r > 0 ? 1 : r < 0 ? r : v_fail(c, &seg, "propertyNames"), &ok))
            return ok;
    }
    return ok;
}

int check_object(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                 struct eval *ev)
{
    const cJSON *m;
    int ok = 1;
    size_t i;

    if (n->kw & (K_MINPROPS | K_MAXPROPS)) {
        size_t len = 0;

        for (m = v->child; m; m = m->next)
            len++;
        if ((n->kw & K_MINPROPS) && len < n->min_props &&
            v_stop(c, v_fail(c, p, "minProperties"), &ok))
            return ok;
        if ((n->kw & K_MAXPROPS) && len > n->max_props &&
            v_stop(c, v_fail(c, p, "maxProperties"), &ok))
            return ok;
    }
    if ((n->kw & (K_REQUIRED | K_DEPREQ)) && v_stop(c, check_required(c, n, v, p), &ok))
        return ok;
    if ((n->kw & K_PROPNAMES) && v_stop(c, check_names(c, n, v, p), &ok))
        return ok;
    if (n->kw & (K_PROPS | K_PATPROPS | K_ADDPROPS)) {
        for (m = v->child, i = 0; m; m = m->next, i++) {
            struct vpath seg = {p, m->string, 0};
            int evaluated = 0;

            if (v_stop(c, check_member(c, n, m, &seg, &evaluated), &ok))
                return ok;
            if (ev && evaluated)
                eval_mark(ev, i);
        }
    }
    for (i = 0; (n->kw & K_DEPSCH) && i < n->n_depsch; i++) {
        if (has_member(v, n->depsch[i].name) &&
            v_stop(c, v_node(c, n->depsch[i].node, v, p, ev), &ok))
            return ok;
    }
    return ok;
}

/* unevaluatedProperties / unevaluatedItems over what ev says was evaluated. */
int check_uneval(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                 const struct eval *ev)
{
    int is_obj = (v->type & 0xFF) == cJSON_Object, ok = 1;
    const struct node *sub = is_obj ? n->uneval_props : n->uneval_items;
    const char *kw = is_obj ? "unevaluatedProperties" : "unevaluatedItems";
    const cJSON *m;
    size_t i;

    for (m = v->child, i = 0; m; m = m->next, i++) {
        struct vpath seg = {p, is_obj ? m->string : NULL, i};

        if (eval_test(ev, i))
            continue;
        if (v_stop(c, v_child(c, sub, m, &seg, kw), &ok))
            return ok;
    }
    return ok;
}
