/*
 * view.c - a stored comparison.json read into the few values a report
 * counts (report_int.h: struct cmp_view), without building a JSON tree.
 *
 * A report reads every verdict's comparison.json, and a cJSON tree of its
 * rubric and expectation results (a node allocated per value, numbers through
 * strtod) cost more than everything else a report does.  Here the text is
 * scanned once with the cursor of src/util/jscan.h, which reads as cJSON
 * reads (white space, string escapes, numbers): the wanted values land in
 * arrays reused from one comparison to the next, their strings decoded into
 * one buffer, and everything else is only delimited, not checked.  Where an
 * object repeats a key, the first one counts, as with
 * cJSON_GetObjectItemCaseSensitive.  This file knows only the shape of a
 * comparison: which members hold what.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/jscan.h"
#include "report_int.h"

#define NONE ((size_t)-1)

enum {
    K_RUBRIC,
    K_EXPECTATIONS,
    K_A,
    K_B,
    K_CONTENT,
    K_STRUCTURE,
    K_CONTENT_SCORE,
    K_STRUCTURE_SCORE,
    K_OVERALL_SCORE,
    K_DETAILS,
    K_ID,
    K_TEXT,
    K_PASSED,
    K_OTHER
};

static const char *const key_names[K_OTHER] = {"rubric",
                                               "expectation_results",
                                               "A",
                                               "B",
                                               "content",
                                               "structure",
                                               "content_score",
                                               "structure_score",
                                               "overall_score",
                                               "details",
                                               "id",
                                               "text",
                                               "passed"};

struct scan {
    struct arb_jscan sc; /* the text, to its NUL byte */
    struct cmp_view *v;
    struct arb_buf key; /* the member name being read */
    int nomem;
};

/* Decode the string at the cursor onto the end of b, then a NUL; -1 when malformed. */
static int string_into(struct scan *s, struct arb_buf *b)
{
    enum arb_status st = arb_jscan_string(&s->sc, b);

    if (st != ARB_OK && st != ARB_EPARSE)
        s->nomem = 1;
    return st == ARB_OK ? 0 : -1;
}

/* Past the value at the cursor, or -1 (strings with their escapes, brackets nested). */
static int skip(struct scan *s)
{
    return arb_jscan_skip(&s->sc);
}

/* A number at the cursor into *out: 1 read, 0 not a number (cursor unmoved) or out of memory. */
static int number(struct scan *s, double *out)
{
    int r = arb_jscan_number(&s->sc, out);

    if (r < 0)
        s->nomem = 1;
    return r > 0;
}

/* The byte at the cursor: the text's NUL at its end. */
static char peek(const struct scan *s)
{
    return s->sc.s[s->sc.pos];
}

/* The member name at the cursor (then past its ':'): which of the wanted keys, or -1 malformed. */
static int member(struct scan *s)
{
    int k;

    arb_buf_reset(&s->key);
    if (string_into(s, &s->key) || arb_jscan_colon(&s->sc))
        return -1;
    /* (the first byte first: a strcmp with every name was a quarter of the reading) */
    for (k = 0; k < K_OTHER; k++)
        if (s->key.ptr[0] == key_names[k][0] && strcmp(s->key.ptr, key_names[k]) == 0)
            return k;
    return K_OTHER;
}

/* Room for one more element in *v (n used, *cap allocated, size bytes each); -1 out of memory. */
static int room(struct scan *s, void **v, size_t n, size_t *cap, size_t size)
{
    void *nv;

    if (n < *cap)
        return 0;
    nv = realloc(*v, (*cap ? 2 * *cap : 16) * size);
    if (!nv) {
        s->nomem = 1;
        return -1;
    }
    *v = nv;
    *cap = *cap ? 2 * *cap : 16;
    return 0;
}

/*
 * Walk the object at the cursor (or skip any other value): for each member call fn(s, key, ctx)
 * with the cursor at its value; fn reads the value (or skips it).  A wanted key met again is
 * skipped: the first counts, as with cJSON_GetObjectItemCaseSensitive.
 */
static int object(struct scan *s, int (*fn)(struct scan *s, int key, void *ctx), void *ctx)
{
    unsigned seen = 0;
    int more;

    if (peek(s) != '{')
        return skip(s);
    for (more = arb_jscan_open(&s->sc); more > 0; more = arb_jscan_next(&s->sc, '}')) {
        int k = member(s);

        if (k < 0)
            return -1;
        if (k != K_OTHER && (seen & 1u << k))
            k = K_OTHER;
        if (k != K_OTHER)
            seen |= 1u << k;
        if ((k == K_OTHER ? skip(s) : fn(s, k, ctx)) < 0)
            return -1;
    }
    return more;
}

/* ---- the members -------------------------------------------------------------------- */

struct dim_ctx {
    struct cmp_side *side;
    int dim;
};

/* Every member of a rubric dimension: a criterion (its value a number or not). */
static int dim_members(struct scan *s, struct dim_ctx *d)
{
    struct cmp_view *v = s->v;
    int more;

    if (peek(s) != '{')
        return skip(s);
    for (more = arb_jscan_open(&s->sc); more > 0; more = arb_jscan_next(&s->sc, '}')) {
        struct cmp_crit *c;

        if (room(s, (void **)&v->crit, v->n_crit, &v->cap_crit, sizeof(*v->crit)))
            return -1;
        c = &v->crit[v->n_crit];
        c->name_off = v->text.len;
        if (string_into(s, &v->text) || arb_jscan_colon(&s->sc))
            return -1;
        c->is_number = number(s, &c->value);
        if (!c->is_number && skip(s))
            return -1;
        v->n_crit++;
        d->side->n_crit[d->dim]++;
    }
    return more;
}

static int rubric_side(struct scan *s, int key, void *ctx)
{
    struct cmp_side *side = ctx;
    struct dim_ctx d = {side, key == K_STRUCTURE};

    if (key == K_CONTENT || key == K_STRUCTURE) {
        side->crit_at[d.dim] = s->v->n_crit;
        return dim_members(s, &d);
    }
    if (key == K_CONTENT_SCORE || key == K_STRUCTURE_SCORE || key == K_OVERALL_SCORE) {
        int i = key - K_CONTENT_SCORE;

        side->score_is_number[i] = number(s, &side->score[i]);
        return side->score_is_number[i] ? 0 : skip(s);
    }
    return skip(s);
}

static int rubric(struct scan *s, int key, void *ctx)
{
    (void)ctx;
    if (key == K_A || key == K_B)
        return object(s, rubric_side, &s->v->side[key - K_A]);
    return skip(s);
}

static int detail_member(struct scan *s, int key, void *ctx)
{
    struct cmp_exp *e = ctx;

    if ((key == K_ID || key == K_TEXT) && peek(s) == '"') {
        size_t *off = key == K_ID ? &e->id_off : &e->text_off;

        *off = s->v->text.len;
        return string_into(s, &s->v->text);
    }
    if (key == K_PASSED && (peek(s) == 't' || peek(s) == 'f')) {
        int lit = arb_jscan_literal(&s->sc);

        if (lit) {
            e->passed = lit == 't';
            return 0;
        }
    }
    return skip(s);
}

/* Each element of details (an array, or an object's values, as cJSON_ArrayForEach walks). */
static int details(struct scan *s, struct cmp_side *side)
{
    struct cmp_view *v = s->v;
    char close = peek(s) == '[' ? ']' : '}';
    int more;

    if (peek(s) != '[' && peek(s) != '{')
        return skip(s);
    side->exp_at = v->n_exp;
    for (more = arb_jscan_open(&s->sc); more > 0; more = arb_jscan_next(&s->sc, close)) {
        struct cmp_exp *e;

        if (close == '}') { /* an object: its member names are not read */
            if (peek(s) != '"' || skip(s) || arb_jscan_colon(&s->sc))
                return -1;
        }
        if (room(s, (void **)&v->exp, v->n_exp, &v->cap_exp, sizeof(*v->exp)))
            return -1;
        e = &v->exp[v->n_exp];
        e->id_off = e->text_off = NONE;
        e->passed = -1;
        if (object(s, detail_member, e))
            return -1;
        v->n_exp++;
        side->n_exp++;
    }
    return more;
}

static int exp_side(struct scan *s, int key, void *ctx)
{
    return key == K_DETAILS ? details(s, ctx) : skip(s);
}

static int expectations(struct scan *s, int key, void *ctx)
{
    (void)ctx;
    if (key == K_A || key == K_B)
        return object(s, exp_side, &s->v->side[key - K_A]);
    return skip(s);
}

static int top(struct scan *s, int key, void *ctx)
{
    (void)ctx;
    if (key == K_RUBRIC)
        return object(s, rubric, NULL);
    if (key == K_EXPECTATIONS)
        return object(s, expectations, NULL);
    return skip(s);
}

/* ---- the view ----------------------------------------------------------------------- */

void cmp_view_init(struct cmp_view *v)
{
    memset(v, 0, sizeof(*v));
    arb_buf_init(&v->text, 0);
}

void cmp_view_release(struct cmp_view *v)
{
    arb_buf_release(&v->text);
    free(v->crit);
    free(v->exp);
    memset(v, 0, sizeof(*v));
}

static const char *at(const struct cmp_view *v, size_t off)
{
    return off == NONE ? NULL : v->text.ptr + off;
}

enum arb_status cmp_view_read(struct cmp_view *v, const char *json)
{
    struct scan s = {{json, strlen(json), 0}, v, {0}, 0};
    int bad;

    arb_buf_reset(&v->text);
    v->n_crit = v->n_exp = 0;
    for (int i = 0; i < 2; i++) {
        struct cmp_side *d = &v->side[i];

        memset(d, 0, sizeof(*d));
        d->score[0] = d->score[1] = d->score[2] = NAN;
    }
    arb_buf_init(&s.key, 0);
    s.sc.pos = arb_jscan_bom(s.sc.s, s.sc.len); /* as cJSON skips it */
    arb_jscan_ws(&s.sc);
    bad = peek(&s) != '{' || object(&s, top, NULL) != 0;
    arb_buf_release(&s.key);
    if (bad || s.nomem)
        return s.nomem ? ARB_ENOMEM : ARB_EPARSE;
    /* The pointers, now that the arrays and the text have stopped moving. */
    for (size_t i = 0; i < v->n_crit; i++)
        v->crit[i].name = at(v, v->crit[i].name_off);
    for (size_t i = 0; i < v->n_exp; i++) {
        v->exp[i].id = at(v, v->exp[i].id_off);
        v->exp[i].text = at(v, v->exp[i].text_off);
    }
    for (int i = 0; i < 2; i++) {
        struct cmp_side *d = &v->side[i];

        /* (NULL + 0 is undefined: the arrays are NULL until something was read into them) */
        d->crit[0] = v->crit ? v->crit + d->crit_at[0] : NULL;
        d->crit[1] = v->crit ? v->crit + d->crit_at[1] : NULL;
        d->exp = v->exp ? v->exp + d->exp_at : NULL;
    }
    return ARB_OK;
}
