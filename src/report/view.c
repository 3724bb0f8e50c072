/*
 * view.c - a stored comparison.json read into the few values a report
 * counts (report_int.h: struct cmp_view), without building a JSON tree.
 *
 * A report reads every verdict's comparison.json, and a cJSON tree of its
 * rubric and expectation results (a node allocated per value, numbers through
 * strtod) cost more than everything else a report does.  Here the text is
 * scanned once: the wanted values land in arrays reused from one comparison
 * to the next, their strings decoded into one buffer, and everything else is
 * only delimited (strings with their escapes, brackets nested), not checked.  Where an object
 * repeats a key, the first one counts, as with cJSON_GetObjectItemCaseSensitive.  Numbers without
 * an exponent and with at most 15 digits are m / 10^k, which is correctly rounded because both are
 * exact doubles (Clinger's fast path); others go to strtod (the C locale: Arbiter never calls
 * setlocale).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
    const char *p;
    struct cmp_view *v;
    struct arb_buf key; /* the member name being read */
    int nomem;
};

/* Whitespace as cJSON, which wrote the text, skips it: every byte from 1 to 32. */
static int is_ws(char c)
{
    return c && (unsigned char)c <= 32;
}

static void ws(struct scan *s)
{
    while (is_ws(*s->p))
        s->p++;
}

/* The four hex digits at p; not hex digits make it 0, as cJSON (which wrote the text) reads them.
 */
static unsigned hex4(const char *p)
{
    unsigned v = 0;

    for (int i = 0; i < 4; i++) {
        char c = p[i];

        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return 0;
    }
    return v;
}

/* Append code point c as UTF-8. */
static int put_utf8(struct arb_buf *b, unsigned c)
{
    char u[4];
    size_t n;

    if (c < 0x80) {
        u[0] = (char)c;
        n = 1;
    } else if (c < 0x800) {
        u[0] = (char)(0xC0 | c >> 6);
        u[1] = (char)(0x80 | (c & 0x3F));
        n = 2;
    } else if (c < 0x10000) {
        u[0] = (char)(0xE0 | c >> 12);
        u[1] = (char)(0x80 | (c >> 6 & 0x3F));
        u[2] = (char)(0x80 | (c & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | c >> 18);
        u[1] = (char)(0x80 | (c >> 12 & 0x3F));
        u[2] = (char)(0x80 | (c >> 6 & 0x3F));
        u[3] = (char)(0x80 | (c & 0x3F));
        n = 4;
    }
    return arb_buf_add(b, u, n) != ARB_OK;
}

/*
 * Decode the string at s->p (on its '"') onto the end of b, then a NUL; -1
 * when malformed.  As cJSON does it: the string ends at the first quote not
 * escaped, and the escapes are decoded within those bounds.
 */
static int string_into(struct scan *s, struct arb_buf *b)
{
    const char *p = s->p + 1, *end = p;

    while (*end && *end != '"')
        if (*end++ == '\\' && !*end++)
            return -1;
    if (!*end)
        return -1;
    while (p < end) {
        const char *run = p;

        while (p < end && *p != '\\')
            p++;
        if (p > run && arb_buf_add(b, run, (size_t)(p - run)))
            goto nomem;
        if (p == end)
            break;
        if (p[1] == 'u') {
            unsigned c, lo;

            if (end - p < 6)
                return -1;
            c = hex4(p + 2);
            p += 6;
            if (c >= 0xDC00 && c <= 0xDFFF)
                return -1;
            if (c >= 0xD800 && c <= 0xDBFF) {
                if (end - p < 6 || p[0] != '\\' || p[1] != 'u')
                    return -1;
                lo = hex4(p + 2);
                if (lo < 0xDC00 || lo > 0xDFFF)
                    return -1;
                c = 0x10000 + ((c & 0x3FF) << 10 | (lo & 0x3FF));
                p += 6;
            }
            if (put_utf8(b, c))
                goto nomem;
        } else {
            const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
            const char *e = p[1] ? strchr(from, p[1]) : NULL;

            if (!e)
                return -1;
            if (arb_buf_addc(b, to[e - from]))
                goto nomem;
            p += 2;
        }
    }
    if (arb_buf_addc(b, '\0'))
        goto nomem;
    s->p = end + 1;
    return 0;
nomem:
    s->nomem = 1;
    return -1;
}

/* Past the value at s->p, or -1 (strings with their escapes, brackets nested). */
static int skip(struct scan *s)
{
    const char *p = s->p;
    size_t depth = 0;

    do {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && !*++p)
                    return -1;
            if (!*p)
                return -1;
            p++;
        } else if (*p == '{' || *p == '[') {
            depth++;
            p++;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0)
                return -1;
            depth--;
            p++;
        } else if (*p) {
            while (*p && *p != '"' && *p != '{' && *p != '[' && *p != '}' && *p != ']' &&
                   (depth > 0 || (*p != ',' && !is_ws(*p))))
                p++;
        } else {
            return -1;
        }
    } while (depth > 0);
    if (p == s->p)
        return -1;
    s->p = p;
    return 0;
}

/*
 * A number at s->p into *out: 1 read, 0 not a number (s->p unmoved).  As
 * cJSON reads one: a '-' or a digit starts it, strtod reads the run of
 * [0-9+-.eE] that follows (a copy: strtod alone would read hex or "inf"), and
 * the number ends where strtod stopped.  A plain run (-DIGITS[.DIGITS], at most 15 digits) is
 * m / 10^k instead, the same correctly rounded value without strtod.
 */
static int number(struct scan *s, double *out)
{
    static const double p10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char *p = s->p, *q;
    char small[64], *run, *end;
    uint64_t m = 0;
    int digits = 0, frac = -1, neg = *p == '-';
    size_t n = 0;

    if (!neg && (*p < '0' || *p > '9'))
        return 0;
    while (p[n] && strchr("0123456789+-.eE", p[n]))
        n++;
    q = p + neg;
    if (*q >= '0' && *q <= '9') {
        for (; *q >= '0' && *q <= '9'; q++, digits++)
            m = m * 10 + (uint64_t)(*q - '0');
        if (*q == '.')
            for (q++, frac = 0; *q >= '0' && *q <= '9'; q++, digits++, frac++)
                m = m * 10 + (uint64_t)(*q - '0');
        if (q == p + n && digits <= 15) {
            double v = (double)m / p10[frac < 0 ? 0 : frac];

            *out = neg ? -v : v;
            s->p = q;
            return 1;
        }
    }
    run = n < sizeof(small) ? small : malloc(n + 1);
    if (!run) {
        s->nomem = 1;
        return 0;
    }
    memcpy(run, p, n);
    run[n] = '\0';
    *out = strtod(run, &end);
    n = (size_t)(end - run);
    if (run != small)
        free(run);
    if (n == 0)
        return 0;
    s->p = p + n;
    return 1;
}

/* The member name at s->p (then past its ':'): which of the wanted keys, or -1 malformed. */
static int member(struct scan *s)
{
    int k;

    arb_buf_reset(&s->key);
    if (*s->p != '"' || string_into(s, &s->key))
        return -1;
    ws(s);
    if (*s->p != ':')
        return -1;
    s->p++;
    ws(s);
    for (k = 0; k < K_OTHER; k++)
        if (strcmp(s->key.ptr, key_names[k]) == 0)
            return k;
    return K_OTHER;
}

/*
 * Walk the object at s->p (or skip any other value): for each member call
 * fn(s, key, ctx, seen) with s->p at its value; fn reads the value (or skips
 * it).  seen marks the wanted keys met already, so a repeated one is skipped.
 */
/* At an object's or array's opening bracket: 1 when items follow, 0 when it closes at once. */
static int open_items(struct scan *s, char close)
{
    s->p++;
    ws(s);
    if (*s->p != close)
        return 1;
    s->p++;
    return 0;
}

/* After an item: 1 when another follows, 0 at the closing bracket (consumed), -1 malformed. */
static int next_item(struct scan *s, char close)
{
    ws(s);
    if (*s->p == ',') {
        s->p++;
        ws(s);
        return 1;
    }
    if (*s->p != close)
        return -1;
    s->p++;
    return 0;
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

static int object(struct scan *s, int (*fn)(struct scan *s, int key, void *ctx), void *ctx)
{
    unsigned seen = 0;
    int more;

    if (*s->p != '{')
        return skip(s);
    for (more = open_items(s, '}'); more > 0; more = next_item(s, '}')) {
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

    if (*s->p != '{')
        return skip(s);
    for (more = open_items(s, '}'); more > 0; more = next_item(s, '}')) {
        struct cmp_crit *c;

        if (room(s, (void **)&v->crit, v->n_crit, &v->cap_crit, sizeof(*v->crit)))
            return -1;
        c = &v->crit[v->n_crit];
        c->name_off = v->text.len;
        if (*s->p != '"' || string_into(s, &v->text))
            return -1;
        ws(s);
        if (*s->p != ':')
            return -1;
        s->p++;
        ws(s);
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

    if ((key == K_ID || key == K_TEXT) && *s->p == '"') {
        size_t *off = key == K_ID ? &e->id_off : &e->text_off;

        *off = s->v->text.len;
        return string_into(s, &s->v->text);
    }
    if (key == K_PASSED && strncmp(s->p, "true", 4) == 0) {
        e->passed = 1;
        s->p += 4;
        return 0;
    }
    if (key == K_PASSED && strncmp(s->p, "false", 5) == 0) {
        e->passed = 0;
        s->p += 5;
        return 0;
    }
    return skip(s);
}

/* Each element of details (an array, or an object's values, as cJSON_ArrayForEach walks). */
static int details(struct scan *s, struct cmp_side *side)
{
    struct cmp_view *v = s->v;
    char close = *s->p == '[' ? ']' : '}';
    int more;

    if (*s->p != '[' && *s->p != '{')
        return skip(s);
    side->exp_at = v->n_exp;
    for (more = open_items(s, close); more > 0; more = next_item(s, close)) {
        struct cmp_exp *e;

        if (close == '}') { /* an object: its member names are not read */
            if (*s->p != '"' || skip(s))
                return -1;
            ws(s);
            if (*s->p != ':')
                return -1;
            s->p++;
            ws(s);
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
    struct scan s = {json, v, {0}, 0};
    int bad;

    arb_buf_reset(&v->text);
    v->n_crit = v->n_exp = 0;
    for (int i = 0; i < 2; i++) {
        struct cmp_side *d = &v->side[i];

        memset(d, 0, sizeof(*d));
        d->score[0] = d->score[1] = d->score[2] = NAN;
    }
    arb_buf_init(&s.key, 0);
    if (strncmp(s.p, "\xEF\xBB\xBF", 3) == 0) /* a UTF-8 byte order mark, as cJSON skips it */
        s.p += 3;
    ws(&s);
    bad = *s.p != '{' || object(&s, top, NULL) != 0;
    arb_buf_release(&s.key);
    if (bad)
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
