/*
 * validate.c - the walk over a compiled schema: one node against one
 * instance, the in-place applicators ($ref, $dynamicRef, allOf, anyOf,
 * oneOf, not, if/then/else), the dynamic scope, the depth caps, $ref loop
 * detection and the recording of violations.  Keyword checks that look at
 * one instance type live in validate_kw.c.
 *
 * Nothing is allocated unless the schema asks for it: violations go into the
 * caller's fixed struct, paths and scopes are lists on the C stack, and the
 * evaluated-member sets that unevaluatedProperties / unevaluatedItems need
 * exist only below a node that has those keywords (ev == NULL elsewhere).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_int.h"

int eval_init(struct eval *ev, size_t n)
{
    size_t words = (n + 63) / 64;

    ev->n = n;
    ev->small[0] = 0;
    ev->small[1] = 0;
    if (words <= 2) {
        ev->bits = ev->small;
        return 0;
    }
    ev->bits = calloc(words, sizeof(*ev->bits));
    return ev->bits ? 0 : -1;
}

void eval_release(struct eval *ev)
{
    if (ev->bits != ev->small)
        free(ev->bits);
    ev->bits = NULL;
}

void eval_mark(struct eval *ev, size_t i)
{
    if (i < ev->n)
        ev->bits[i / 64] |= UINT64_C(1) << (i % 64);
}

int eval_test(const struct eval *ev, size_t i)
{
    return i < ev->n && (ev->bits[i / 64] >> (i % 64)) & 1;
}

void eval_merge(struct eval *dst, const struct eval *src)
{
    size_t i, words = (dst->n + 63) / 64;

    for (i = 0; i < words; i++)
        dst->bits[i] |= src->bits[i];
}

void eval_mark_all(struct eval *ev)
{
    size_t i;

    for (i = 0; i < ev->n; i++)
        eval_mark(ev, i);
}

/* Write p as a JSON pointer into out (cap bytes), ending in "..." if cut. */
static void format_path(const struct vpath *p, char *out, size_t cap)
{
    const struct vpath *segs[ARB_SCHEMA_MAX_DEPTH + 8];
    size_t n = 0, o = 0, i;
    int cut = 0;

    for (; p && n < sizeof(segs) / sizeof(segs[0]); p = p->up)
        segs[n++] = p;
    cut = p != NULL;
    for (i = n; i-- > 0 && !cut;) {
        char idx[24];
        const char *s = segs[i]->key;

        if (!s) {
            snprintf(idx, sizeof(idx), "%zu", segs[i]->index);
            s = idx;
        }
        if (o + 1 >= cap) {
            cut = 1;
            break;
        }
        out[o++] = '/';
        for (; *s; s++) {
            /* U+0000 (held as C0 80, json.h) is written \u0000, as the record writes it */
            int nul = (unsigned char)s[0] == 0xC0 && (unsigned char)s[1] == 0x80;
            size_t need = nul ? 6 : (*s == '~' || *s == '/') ? 2 : 1;

            if (o + need >= cap) {
                cut = 1;
                break;
            }
            if (nul) {
                memcpy(out + o, "\\u0000", 6);
                o += 6;
                s++;
            } else if (need == 2) {
                out[o++] = '~';
                out[o++] = *s == '~' ? '0' : '1';
            } else {
                out[o++] = *s;
            }
        }
    }
    if (cut) {
        o = o + 4 > cap ? cap - 4 : o;
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

/* Record a violation of keyword kw at instance location p; returns 0 (invalid). */
int v_fail(struct vctx *c, const struct vpath *p, const char *kw)
{
    struct arb_schema_errors *e = c->errs;

    if (!e)
        return 0;
    if (e->count < ARB_SCHEMA_MAX_ERRORS) {
        format_path(p, e->items[e->count].path, sizeof(e->items[e->count].path));
        e->items[e->count].keyword = kw;
        e->count++;
    }
    e->total++;
    return 0;
}

/* Validation cannot finish: detail into errs->err, returns -st. */
int v_error(struct vctx *c, enum arb_status st, const struct vpath *p, const char *fmt, ...)
{
    char detail[160], where[96];
    va_list ap;

    /* Kept apart from errs, which is off inside branches: the first reason wins. */
    if (c->fatal && !c->fatal->msg[0]) {
        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
        format_path(p, where, sizeof(where));
        arb_err_set(c->fatal, st, "%s at instance location '%s'", detail, where);
    }
    return -(int)st;
}

/*
 * Fold a keyword's result r into *ok.  Nonzero means the caller returns *ok
 * now: an error, or a violation when no one collects them.
 */
int v_stop(const struct vctx *c, int r, int *ok)
{
    if (r < 0) {
        *ok = r;
        return 1;
    }
    if (r == 0) {
        *ok = 0;
        return c->errs == NULL;
    }
    return 0;
}

/* A member or item: one level deeper in the instance. */
int v_child(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
            const char *kw)
{
    int r;

    if (n->kind == NODE_TRUE)
        return 1;
    if (n->kind == NODE_FALSE)
        return v_fail(c, p, kw);
    if (c->depth >= ARB_SCHEMA_MAX_DEPTH)
        return v_error(c, ARB_ETOOBIG, p, "instance nested deeper than %d levels",
                       ARB_SCHEMA_MAX_DEPTH);
    c->depth++;
    r = v_node(c, n, v, p, NULL);
    c->depth--;
    return r;
}

/* Follow a reference: same instance, different schema; catches loops. */
static int follow(struct vctx *c, const struct node *t, const cJSON *v, const struct vpath *p,
                  struct eval *ev)
{
    struct reflink link;
    const struct reflink *l;
    int r;

    for (l = c->refs; l && l->inst == v; l = l->up) {
        if (l->target == t)
            return v_error(c, ARB_ESCHEMA, p, "$ref loop through schema '%s#%s'", t->res->uri,
                           t->loc);
    }
    link.target = t;
    link.inst = v;
    link.up = c->refs;
    c->refs = &link;
    r = v_node(c, t, v, p, ev);
    c->refs = link.up;
    return r;
}

/* $dynamicRef: the outermost resource in scope with the anchor wins. */
static const struct node *dynamic_target(const struct vctx *c, const struct node *n)
{
    const struct node *t = n->dynref;
    const struct scope *s;

    if (!n->dynref_name)
        return t;
    for (s = c->scope; s; s = s->up) {
        const struct anchor *a;

        for (a = s->res->dynamic; a; a = a->next) {
            if (!strcmp(a->name, n->dynref_name)) {
                t = a->node;
                break;
            }
        }
    }
    return t;
}

/*
 * Evaluate sub as a branch whose failure is not ours: violations inside are
 * not collected, and its annotations reach ev only when it passes.
 */
static int branch(struct vctx *c, const struct node *sub, const cJSON *v, const struct vpath *p,
                  struct eval *ev)
{
    struct arb_schema_errors *saved = c->errs;
    struct eval tmp;
    int r;

    c->errs = NULL;
    if (!ev) {
        r = v_node(c, sub, v, p, NULL);
        c->errs = saved;
        return r;
    }
    if (eval_init(&tmp, ev->n) != 0) {
        c->errs = saved;
        return v_error(c, ARB_ENOMEM, p, "out of memory");
    }
    r = v_node(c, sub, v, p, &tmp);
    c->errs = saved;
    if (r > 0)
        eval_merge(ev, &tmp);
    eval_release(&tmp);
    return r;
}

static int any_of(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                  struct eval *ev)
{
    size_t i;
    int found = 0;

    for (i = 0; i < n->anyof.n; i++) {
        int r = branch(c, n->anyof.v[i], v, p, ev);

        if (r < 0)
            return r;
        found |= r;
        /* Annotations need every passing branch; a yes/no needs one. */
        if (found && !ev)
            break;
    }
    return found ? 1 : v_fail(c, p, "anyOf");
}

static int one_of(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                  struct eval *ev)
{
    struct eval acc;
    size_t i, passed = 0;
    int r = 0;

    if (ev && eval_init(&acc, ev->n) != 0)
        return v_error(c, ARB_ENOMEM, p, "out of memory");
    for (i = 0; i < n->oneof.n && passed < 2; i++) {
        r = branch(c, n->oneof.v[i], v, p, ev ? &acc : NULL);
        if (r < 0)
            break;
        passed += (size_t)r;
    }
    if (ev) {
        if (r >= 0 && passed == 1)
            eval_merge(ev, &acc);
        eval_release(&acc);
    }
    if (r < 0)
        return r;
    return passed == 1 ? 1 : v_fail(c, p, "oneOf");
}

static int if_then_else(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                        struct eval *ev)
{
    int r = branch(c, n->if_, v, p, ev);

    if (r < 0)
        return r;
    if (r && n->then_)
        return v_node(c, n->then_, v, p, ev);
    if (!r && n->else_)
        return v_node(c, n->else_, v, p, ev);
    return 1;
}

/* The applicators that evaluate this same instance. */
static int check_inplace(struct vctx *c, const struct node *n, const cJSON *v,
                         const struct vpath *p, struct eval *ev)
{
    int ok = 1;
    size_t i;

    if ((n->kw & K_REF) && v_stop(c, follow(c, n->ref, v, p, ev), &ok))
        return ok;
    if ((n->kw & K_DYNREF) && v_stop(c, follow(c, dynamic_target(c, n), v, p, ev), &ok))
        return ok;
    if (n->kw & K_ALLOF) {
        for (i = 0; i < n->allof.n; i++) {
            if (v_stop(c, v_node(c, n->allof.v[i], v, p, ev), &ok))
                return ok;
        }
    }
    if ((n->kw & K_ANYOF) && v_stop(c, any_of(c, n, v, p, ev), &ok))
        return ok;
    if ((n->kw & K_ONEOF) && v_stop(c, one_of(c, n, v, p, ev), &ok))
        return ok;
    if (n->kw & K_NOT) {
        int r = branch(c, n->not_, v, p, NULL);

        if (v_stop(c, r < 0 ? r : r ? v_fail(c, p, "not") : 1, &ok))
            return ok;
    }
    if ((n->kw & K_IF) && v_stop(c, if_then_else(c, n, v, p, ev), &ok))
        return ok;
    return ok;
}

/* Every keyword of n except unevaluated*, which need the others' annotations. */
static int check_node(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
                      struct eval *ev)
{
    int ok = 1;
    uint64_t kw = n->kw;

    if ((kw & K_TYPE) && v_stop(c, check_type(c, n, v, p), &ok))
        return ok;
    if ((kw & (K_ENUM | K_CONST)) && v_stop(c, check_values(c, n, v, p), &ok))
        return ok;
    switch (v->type & 0xFF) {
    case cJSON_Number:
        if ((kw & K_NUMERIC) && v_stop(c, check_number(c, n, v, p), &ok))
            return ok;
        break;
    case cJSON_String:
        if ((kw & K_STRING) && v_stop(c, check_string(c, n, v, p), &ok))
            return ok;
        break;
    case cJSON_Array:
        if ((kw & (K_ARRAY & ~K_UNEVAL_ITEMS)) && v_stop(c, check_array(c, n, v, p, ev), &ok))
            return ok;
        break;
    case cJSON_Object:
        if ((kw & (K_OBJECT & ~K_UNEVAL_PROPS)) && v_stop(c, check_object(c, n, v, p, ev), &ok))
            return ok;
        break;
    default:
        break;
    }
    if ((kw & K_INPLACE) && v_stop(c, check_inplace(c, n, v, p, ev), &ok))
        return ok;
    return ok;
}

static size_t count_children(const cJSON *v)
{
    size_t n = 0;
    const cJSON *ch;

    for (ch = v->child; ch; ch = ch->next)
        n++;
    return n;
}

/* A node with unevaluatedProperties / unevaluatedItems for this instance type. */
static int check_with_uneval(struct vctx *c, const struct node *n, const cJSON *v,
                             const struct vpath *p, struct eval *ev)
{
    struct eval local;
    int ok;

    if (eval_init(&local, count_children(v)) != 0)
        return v_error(c, ARB_ENOMEM, p, "out of memory");
    ok = check_node(c, n, v, p, &local);
    if (ok > 0 || (ok == 0 && c->errs)) {
        int r = check_uneval(c, n, v, p, &local);

        if (r <= 0 && ok >= 0)
            ok = r;
    }
    /* Having passed, unevaluated* has evaluated whatever was left. */
    if (ok > 0 && ev)
        eval_mark_all(ev);
    eval_release(&local);
    return ok;
}

/*
 * Validate v against node n at location p.  ev, when given, collects the
 * members / items of v that n evaluates (v being an object or array).
 */
int v_node(struct vctx *c, const struct node *n, const cJSON *v, const struct vpath *p,
           struct eval *ev)
{
    const struct scope *saved = c->scope;
    struct scope sc;
    int type = v->type & 0xFF, r;

    if (n->kind != NODE_SCHEMA)
        return n->kind == NODE_TRUE ? 1 : v_fail(c, p, "false");
    if (c->frames >= MAX_FRAMES)
        return v_error(c, ARB_ETOOBIG, p, "schema recursion deeper than %d levels", MAX_FRAMES);
    c->frames++;
    if (c->s->uses_dynamic && (!saved || saved->res != n->res)) {
        sc.res = n->res;
        sc.up = saved;
        c->scope = &sc;
    }
    if (((n->kw & K_UNEVAL_PROPS) && type == cJSON_Object) ||
        ((n->kw & K_UNEVAL_ITEMS) && type == cJSON_Array))
        r = check_with_uneval(c, n, v, p, ev);
    else
        r = check_node(c, n, v, p, ev);
    c->scope = saved;
    c->frames--;
    return r;
}

void arb_schema_errors_init(struct arb_schema_errors *errs)
{
    errs->count = 0;
    errs->total = 0;
    errs->err.msg[0] = '\0';
}

int arb_schema_validate(const struct arb_schema *s, const cJSON *instance,
                        struct arb_schema_errors *errs)
{
    struct vctx c;
    int r;

    if (errs)
        arb_schema_errors_init(errs);
    if (!s || !instance) {
        if (errs)
            arb_err_set(&errs->err, ARB_EUSAGE, "no schema or no instance to validate");
        return -(int)ARB_EUSAGE;
    }
    memset(&c, 0, sizeof(c));
    c.s = s;
    c.errs = errs;
    c.fatal = errs ? &errs->err : NULL;
    r = v_node(&c, s->root, instance, NULL, NULL);
    if (c.md)
        pcre2_match_data_free(c.md);
    if (r == 0 && errs && errs->total == 0)
        v_fail(&c, NULL, "schema");
    return r;
}
