/*
 * jcs.c - what is done with a parsed cJSON tree: RFC 8785 (JSON Canonicalization Scheme) output,
 * numbers in ECMAScript Number::toString form, deep equality and RFC 6901 pointers.  Turning
 * text into a tree, with located errors, is json.c's job.
 *
 * Members are sorted by the UTF-16 code units of their names without converting anything: UTF-8
 * byte order is code point order, which differs from UTF-16 order only in that U+E000..U+FFFF
 * (lead bytes EE, EF) sort after the supplementary planes (lead bytes F0..F4, surrogates in
 * UTF-16).  Numbers take the shortest digits that read back as the same double: integers and
 * short decimals by exact double arithmetic, the rest with the C library's correctly rounded
 * printf and strtod (glibc), so no big-number digit generation lives here.  Both were checked
 * against node's String(x) on 3.6 million doubles.
 * Trees are walked recursively; trees from arb_json_parse are at most 1000 deep, deeper
 * hand-built trees are refused by the writer, so the stack stays bounded there.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/unicode.h"

#define MAX_DEPTH    CJSON_NESTING_LIMIT
#define SMALL_OBJECT 16 /* sorted on the stack / compared pairwise; larger objects use qsort */
#define PATH_MAX_LEN 120

/* ---- numbers ---- */

/* The p-significant-digit form of d ("d.ddde+XX") reads back as d. */
static int round_trips(double d, int p, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.*e", p - 1, d);
    return strtod(buf, NULL) == d;
}

/*
 * Split "%e" output into significant digits without trailing zeros and n, the position of the
 * decimal point (d = 0.DIGITS x 10^n).  Any decimal point character is skipped, so a locale
 * with ',' does no harm.  Returns the digit count.
 */
static int split_e(const char *buf, char *digits, int *n)
{
    int k = 0;

    for (; *buf && *buf != 'e'; buf++) {
        if (*buf >= '0' && *buf <= '9')
            digits[k++] = *buf;
    }
    *n = (int)strtol(buf + (*buf == 'e'), NULL, 10) + 1;
    while (k > 1 && digits[k - 1] == '0')
        k--;
    return k;
}

/*
 * For a power of two the next double below is twice as close as the one above, so a p-digit
 * value above d may read back as d while the nearest p-digit value (below d) does not.  Shorter
 * is what ECMAScript asks for: try rounding the digits up at each shorter precision.
 */
static int shorter_above(double d, int p, char *digits, int *n)
{
    char buf[40], up[24], cand[40];
    int k, i, m, best = 0;

    for (; p > 1; p--) {
        snprintf(buf, sizeof(buf), "%.*e", p - 2, d);
        if (strtod(buf, NULL) >= d)
            break;
        k = 0;
        for (i = 0; buf[i] && buf[i] != 'e'; i++) {
            if (buf[i] >= '0' && buf[i] <= '9')
                up[k++] = buf[i];
        }
        m = (int)strtol(buf + i + 1, NULL, 10);
        for (i = k - 1; i >= 0 && up[i] == '9'; i--)
            up[i] = '0';
        if (i < 0) {
            up[0] = '1';
            m++;
        } else {
            up[i]++;
        }
        snprintf(cand, sizeof(cand), "%.*se%d", k, up, m - (k - 1));
        if (strtod(cand, NULL) != d)
            break;
        memcpy(digits, up, (size_t)k);
        *n = m + 1;
        best = k;
        while (best > 1 && digits[best - 1] == '0')
            best--;
    }
    return best;
}

/* Shortest round-trip digits of d > 0; reading back more digits only gets closer, so bisect. */
static int shortest_digits(double d, char *digits, int *n)
{
    char buf[40], best[40] = "";
    int lo = 1, hi = 17, mid, k, e, shorter;

    while (lo < hi) {
        mid = (lo + hi) / 2;
        if (round_trips(d, mid, buf, sizeof(buf))) {
            hi = mid;
            memcpy(best, buf, sizeof(best));
        } else {
            lo = mid + 1;
        }
    }
    if (!best[0])
        snprintf(best, sizeof(best), "%.16e", d); /* 17 digits always read back */
    k = split_e(best, digits, n);
    if (frexp(d, &e) == 0.5) {
        shorter = shorter_above(d, lo, digits, n);
        if (shorter)
            k = shorter;
    }
    return k;
}

/* Digits of the integer m (< 2^53), most significant first; returns the count. */
static int integer_digits(uint64_t m, char *digits)
{
    char rev[20];
    int k = 0, i;

    do {
        rev[k++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    for (i = 0; i < k; i++)
        digits[i] = rev[k - 1 - i];
    return k;
}

/*
 * Most numbers in model output are short decimals (0.87, 1834.25): find the fewest decimal
 * places k for which m = d * 10^k rounds to an integer with m / 10^k == d, with no printf.  The
 * check is exact (m and 10^k are exact doubles, division is correctly rounded), and below 10^15
 * neighbouring m differ by more than an ulp of d, so that m is the only and thus the shortest
 * choice.  Returns 0 when the number needs the general path.
 */
static int short_decimal(double d, char *digits, int *n)
{
    static const double p10[] = {1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double m;
    int k, count;

    for (k = 0; k < (int)(sizeof(p10) / sizeof(p10[0])); k++) {
        m = floor(d * p10[k] + 0.5);
        if (m >= 1e15)
            return 0;
        if (m > 0 && m / p10[k] == d) {
            count = integer_digits((uint64_t)m, digits);
            *n = count - (k + 1);
            while (count > 1 && digits[count - 1] == '0')
                count--;
            return count;
        }
    }
    return 0;
}

static size_t put_digits(char *out, const char *digits, int k)
{
    memcpy(out, digits, (size_t)k);
    return (size_t)k;
}

/* Lay out 0.DIGITS x 10^n as ECMAScript does (Number::toString, radix 10). */
static size_t layout(const char *digits, int k, int n, char *out)
{
    size_t len = 0;
    int e;

    if (k <= n && n <= 21) {
        len += put_digits(out, digits, k);
        memset(out + len, '0', (size_t)(n - k));
        return len + (size_t)(n - k);
    }
    if (0 < n && n <= 21) {
        len += put_digits(out, digits, n);
        out[len++] = '.';
        return len + put_digits(out + len, digits + n, k - n);
    }
    if (-6 < n && n <= 0) {
        out[len++] = '0';
        out[len++] = '.';
        memset(out + len, '0', (size_t)-n);
        len += (size_t)-n;
        return len + put_digits(out + len, digits, k);
    }
    out[len++] = digits[0];
    if (k > 1) {
        out[len++] = '.';
        len += put_digits(out + len, digits + 1, k - 1);
    }
    e = n - 1;
    out[len++] = 'e';
    out[len++] = e < 0 ? '-' : '+';
    e = e < 0 ? -e : e;
    if (e >= 100)
        out[len++] = (char)('0' + e / 100);
    if (e >= 10)
        out[len++] = (char)('0' + e / 10 % 10);
    out[len++] = (char)('0' + e % 10);
    return len;
}

size_t arb_json_number_format(double d, char *out)
{
    char digits[24];
    size_t len = 0;
    int k, n;

    if (isnan(d) || isinf(d)) {
        memcpy(out, "null", 5); /* outside the contract; what JSON.stringify writes */
        return 4;
    }
    if (d == 0) {
        memcpy(out, "0", 2); /* -0 too */
        return 1;
    }
    if (d < 0) {
        out[len++] = '-';
        d = -d;
    }
    if (d < 9007199254740992.0 && d == floor(d)) {
        /* integers below 2^53 are exact: their digits are the shortest (the common case) */
        k = integer_digits((uint64_t)d, out + len);
        len += (size_t)k;
    } else {
        k = short_decimal(d, digits, &n);
        if (k == 0)
            k = shortest_digits(d, digits, &n);
        len += layout(digits, k, n, out + len);
    }
    out[len] = '\0';
    return len;
}

/* ---- strings and names ---- */

struct jcs {
    struct arb_buf *out;
    enum arb_status st;
    const cJSON *bad; /* the node that could not be written */
    const char *why;
};

static inline int put(struct jcs *j, const void *data, size_t len)
{
    if (j->st == ARB_OK)
        j->st = arb_buf_add(j->out, data, len);
    return j->st == ARB_OK ? 0 : -1;
}

static int refuse(struct jcs *j, const cJSON *node, enum arb_status st, const char *why)
{
    j->st = st;
    j->bad = node;
    j->why = why;
    return -1;
}

/* A string with RFC 8785's minimal escapes; everything else is copied as UTF-8. */
static int write_string(struct jcs *j, const cJSON *node, const char *str)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)(str ? str : ""), *run;
    char esc[6] = {'\\', 'u', '0', '0', 0, 0};
    size_t n;

    /* the common string, printable ASCII with nothing to escape, in one piece */
    for (run = p; *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\'; p++)
        ;
    if (*p == '\0') {
        n = (size_t)(p - run);
        if (j->st == ARB_OK && arb_buf_fits(j->out, n + 2)) {
            char *w = j->out->ptr + j->out->len;

            w[0] = '"';
            memcpy(w + 1, run, n);
            w[n + 1] = '"';
            w[n + 2] = '\0';
            j->out->len += n + 2;
            return 0;
        }
    }
    p = run;
    put(j, "\"", 1);
    for (;; p++) {
        if (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            continue;
        if (*p >= 0x80) {
            n = arb_utf8_seq((const char *)p, 4);
            if (n == 0 && p[0] == 0xC0 && p[1] == 0x80) {
                /* U+0000 as ARB_JSON_ALLOW_NUL holds it (json.h) */
                put(j, run, (size_t)(p - run));
                put(j, "\\u0000", 6);
                run = p + 2;
                p++;
                continue;
            }
            if (n == 0)
                return refuse(j, node, ARB_ESCHEMA, "invalid UTF-8 in a string");
            p += n - 1;
            continue;
        }
        put(j, run, (size_t)(p - run));
        if (*p == '\0')
            break;
        run = p + 1;
        switch (*p) {
        case '"':
            put(j, "\\\"", 2);
            break;
        case '\\':
            put(j, "\\\\", 2);
            break;
        case '\b':
            put(j, "\\b", 2);
            break;
        case '\t':
            put(j, "\\t", 2);
            break;
        case '\n':
            put(j, "\\n", 2);
            break;
        case '\f':
            put(j, "\\f", 2);
            break;
        case '\r':
            put(j, "\\r", 2);
            break;
        default:
            esc[4] = hex[*p >> 4];
            esc[5] = hex[*p & 15];
            put(j, esc, 6);
        }
    }
    return put(j, "\"", 1);
}

/* Names in UTF-16 code unit order (see the file comment). */
int arb_jcs_name_cmp(const char *a, const char *b)
{
    const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
    int x, y;

    while (*p && *p == *q) {
        p++;
        q++;
    }
    /* C0 80 is U+0000 (json.h): after the end of a name, before every other character */
    x = *p == 0xC0 ? 1 : 2 * (*p == 0xEE || *p == 0xEF ? *p + 0x10 : *p);
    y = *q == 0xC0 ? 1 : 2 * (*q == 0xEE || *q == 0xEF ? *q + 0x10 : *q);
    return x - y;
}

static const char *name_of(const cJSON *v)
{
    return v->string ? v->string : "";
}

struct entry {
    const cJSON *item;
    size_t idx; /* document order breaks ties between duplicate names */
};

static int entry_cmp(const void *pa, const void *pb)
{
    const struct entry *a = pa, *b = pb;
    int c = arb_jcs_name_cmp(name_of(a->item), name_of(b->item));

    if (c)
        return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

static int write_value(struct jcs *j, const cJSON *v, int depth);

static int write_object(struct jcs *j, const cJSON *obj, int depth)
{
    struct entry small[SMALL_OBJECT], *e = small, tmp;
    const cJSON *c;
    size_t n = 0, i, k;
    int rc = 0;

    for (c = obj->child; c; c = c->next)
        n++;
    if (n > SMALL_OBJECT) {
        e = malloc(n * sizeof(*e));
        if (!e)
            return refuse(j, NULL, ARB_ENOMEM, NULL);
    }
    for (i = 0, c = obj->child; c; c = c->next, i++) {
        e[i].item = c;
        e[i].idx = i;
    }
    if (n > SMALL_OBJECT) {
        qsort(e, n, sizeof(*e), entry_cmp);
    } else {
        for (i = 1; i < n; i++) {
            tmp = e[i];
            for (k = i; k > 0 && entry_cmp(&e[k - 1], &tmp) > 0; k--)
                e[k] = e[k - 1];
            e[k] = tmp;
        }
    }
    put(j, "{", 1);
    for (i = 0; rc == 0 && i < n; i++) {
        if (i > 0)
            put(j, ",", 1);
        rc = write_string(j, e[i].item, e[i].item->string);
        if (rc == 0)
            put(j, ":", 1);
        if (rc == 0)
            rc = write_value(j, e[i].item, depth + 1);
    }
    if (e != small)
        free(e);
    return rc ? rc : put(j, "}", 1);
}

static int write_value(struct jcs *j, const cJSON *v, int depth)
{
    char num[ARB_JSON_NUMBER_MAX];
    const cJSON *c;

    /* depth counts enclosing containers, as cJSON does: 1000 nested ones are fine, 1001 not */
    if (depth >= MAX_DEPTH && (cJSON_IsArray(v) || cJSON_IsObject(v)))
        return refuse(j, v, ARB_ETOOBIG, "nesting deeper than 1000 levels");
    switch (v->type & 0xFF) {
    case cJSON_False:
        return put(j, "false", 5);
    case cJSON_True:
        return put(j, "true", 4);
    case cJSON_NULL:
        return put(j, "null", 4);
    case cJSON_Number:
        if (!isfinite(v->valuedouble))
            return refuse(j, v, ARB_ESCHEMA, "a non-finite number has no JSON form");
        return put(j, num, arb_json_number_format(v->valuedouble, num));
    case cJSON_String:
        return write_string(j, v, v->valuestring);
    case cJSON_Array:
        put(j, "[", 1);
        for (c = v->child; c; c = c->next) {
            if (c != v->child)
                put(j, ",", 1);
            if (write_value(j, c, depth + 1) != 0)
                return -1;
        }
        return put(j, "]", 1);
    case cJSON_Object:
        return write_object(j, v, depth);
    default:
        return refuse(j, v, ARB_ESCHEMA, "a raw or invalid cJSON node has no canonical form");
    }
}

/* ---- errors ---- */

static int subtree_has(const cJSON *node, const cJSON *target, int depth)
{
    const cJSON *c;

    if (node == target)
        return 1;
    if (depth > MAX_DEPTH)
        return 0;
    for (c = node->child; c; c = c->next) {
        if (subtree_has(c, target, depth + 1))
            return 1;
    }
    return 0;
}

/* Name target as a JSON pointer from root, shortened to fit (only on the error path). */
static void pointer_to(const cJSON *root, const cJSON *target, char *path)
{
    const cJSON *node = root, *c;
    size_t len = 0, k;
    const char *s;
    char seg[24];
    int depth = 0;

    path[0] = '\0';
    while (node != target && node && len + 24 < PATH_MAX_LEN) {
        for (k = 0, c = node->child; c && !subtree_has(c, target, depth + 1); c = c->next)
            k++;
        if (!c)
            return;
        if (cJSON_IsObject(node)) {
            path[len++] = '/';
            for (s = name_of(c); *s; s++) {
                /* stop only before a lead byte, so no UTF-8 sequence is cut */
                if (((unsigned char)*s & 0xC0) != 0x80 && len + 6 >= PATH_MAX_LEN)
                    break;
                if (*s == '~' || *s == '/') {
                    path[len++] = '~';
                    path[len++] = *s == '~' ? '0' : '1';
                } else {
                    path[len++] = (unsigned char)*s < 0x20 ? '?' : *s;
                }
            }
            path[len] = '\0';
        } else {
            snprintf(seg, sizeof(seg), "/%zu", k);
            memcpy(path + len, seg, strlen(seg) + 1);
            len += strlen(seg);
        }
        node = c;
        depth++;
    }
}

static inline enum arb_status write_root(const cJSON *v, int depth, struct arb_buf *out,
                                         struct arb_err *err)
{
    struct jcs j = {out, ARB_OK, NULL, NULL};
    size_t start = out->len;
    char path[PATH_MAX_LEN];

    if (!v)
        return arb_err_set(err, ARB_EUSAGE, "no JSON value to canonicalize");
    if (write_value(&j, v, depth) == 0)
        return ARB_OK;
    /* leave out as it was, not with half a document in it */
    out->len = start;
    if (out->ptr)
        out->ptr[start] = '\0';
    if (j.st == ARB_ENOMEM)
        return arb_err_set(err, j.st, "out of memory while canonicalizing JSON");
    if (j.st == ARB_ETOOBIG && !j.bad)
        return arb_err_set(err, j.st, "canonical JSON exceeds the buffer cap of %zu bytes",
                           out->toobig);
    pointer_to(v, j.bad, path);
    return arb_err_set(err, j.st, "cannot canonicalize '%s': %s", path, j.why);
}

enum arb_status arb_jcs_write(const cJSON *v, struct arb_buf *out, struct arb_err *err)
{
    return write_root(v, 0, out, err);
}

enum arb_status arb_jcs_write_at(const cJSON *v, int depth, struct arb_buf *out,
                                 struct arb_err *err)
{
    return write_root(v, depth, out, err);
}

enum arb_status arb_jcs_string(const cJSON *v, char **out, size_t *len_out, struct arb_err *err)
{
    struct arb_buf b;
    enum arb_status st;
    char *s;

    arb_buf_init(&b, 0);
    st = arb_jcs_write(v, &b, err);
    if (st != ARB_OK) {
        arb_buf_release(&b);
        return st;
    }
    s = arb_buf_detach(&b, len_out);
    if (!s)
        return arb_err_set(err, ARB_ENOMEM, "out of memory while canonicalizing JSON");
    *out = s;
    return ARB_OK;
}

/* ---- equality ---- */

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static int arrays_equal(const cJSON *a, const cJSON *b)
{
    for (a = a->child, b = b->child; a && b; a = a->next, b = b->next) {
        if (!arb_json_equal(a, b))
            return 0;
    }
    return a == NULL && b == NULL;
}

/* Members from first on, or of list[0..n) when list is given, named like x and equal to it. */
static size_t count_like(const cJSON *first, const cJSON *const *list, size_t n, const cJSON *x)
{
    const cJSON *c = list ? (n ? list[0] : NULL) : first;
    size_t i = 0, count = 0;

    while (c) {
        if (strcmp(name_of(c), name_of(x)) == 0 && arb_json_equal(c, x))
            count++;
        c = list ? (++i < n ? list[i] : NULL) : c->next;
    }
    return count;
}

/*
 * Objects as multisets of members: with duplicate keys, {"a":1,"a":2} equals {"a":2,"a":1} but
 * neither {"a":1} nor {"a":1,"a":1}.  Every (name, value) class of a must occur as often in b;
 * with equal sizes b then has nothing else.  O(n^2) name comparisons, no allocation: for small
 * objects, and for large ones when memory runs out.
 */
static int objects_equal_small(const cJSON *a, const cJSON *b)
{
    const cJSON *m;

    for (m = a->child; m; m = m->next) {
        if (count_like(a->child, NULL, 0, m) != count_like(b->child, NULL, 0, m))
            return 0;
    }
    return 1;
}

static int item_cmp(const void *pa, const void *pb)
{
    return strcmp(name_of(*(const cJSON *const *)pa), name_of(*(const cJSON *const *)pb));
}

/* As objects_equal_small, but sorted by name: O(n log n).  -1 when out of memory. */
static int objects_equal_sorted(const cJSON *a, const cJSON *b, size_t n)
{
    const cJSON **sa = malloc(2 * n * sizeof(*sa)), **sb, *c;
    size_t i, ga, gb, k;
    int equal = 1;

    if (!sa)
        return -1;
    sb = sa + n;
    for (i = 0, c = a->child; c; c = c->next)
        sa[i++] = c;
    for (i = 0, c = b->child; c; c = c->next)
        sb[i++] = c;
    qsort(sa, n, sizeof(*sa), item_cmp);
    qsort(sb, n, sizeof(*sb), item_cmp);
    for (i = 0; equal && i < n; i += ga) {
        for (ga = 1; i + ga < n && item_cmp(&sa[i], &sa[i + ga]) == 0;)
            ga++;
        for (gb = 1; i + gb < n && item_cmp(&sb[i], &sb[i + gb]) == 0;)
            gb++;
        if (ga != gb || item_cmp(&sa[i], &sb[i]) != 0)
            equal = 0;
        else if (ga == 1)
            equal = arb_json_equal(sa[i], sb[i]);
        for (k = 0; equal && ga > 1 && k < ga; k++)
            equal =
                count_like(NULL, sa + i, ga, sa[i + k]) == count_like(NULL, sb + i, ga, sa[i + k]);
    }
    free(sa);
    return equal;
}

static int objects_equal(const cJSON *a, const cJSON *b)
{
    const cJSON *x, *y;
    size_t n = 0;
    int r;

    for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
        n++;
    if (x || y)
        return 0;
    if (n > SMALL_OBJECT) {
        r = objects_equal_sorted(a, b, n);
        if (r >= 0)
            return r;
    }
    return objects_equal_small(a, b);
}

int arb_json_equal(const cJSON *a, const cJSON *b)
{
    int type;

    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    type = a->type & 0xFF;
    if (type != (b->type & 0xFF))
        return 0;
    switch (type) {
    case cJSON_Number:
        return a->valuedouble == b->valuedouble;
    case cJSON_String:
    case cJSON_Raw:
        return str_eq(a->valuestring, b->valuestring);
    case cJSON_Array:
        return arrays_equal(a, b);
    case cJSON_Object:
        return objects_equal(a, b);
    default:
        return 1; /* false, true, null: the type is the value */
    }
}

/* ---- RFC 6901 ---- */

/* Whether the escaped token [tok, end) names name ("~0" is '~', "~1" is '/'). */
static int token_is(const char *tok, const char *end, const char *name)
{
    char c;

    while (tok < end) {
        c = *tok;
        if (c == '~') {
            c = tok[1] == '0' ? '~' : '/';
            tok++;
        }
        tok++;
        if (*name++ != c)
            return 0;
    }
    return *name == '\0';
}

static const cJSON *member_by_token(const cJSON *obj, const char *tok, const char *end)
{
    const char *p;
    const cJSON *c;

    for (p = tok; p < end; p++) {
        if (*p == '~' && (p + 1 == end || (p[1] != '0' && p[1] != '1')))
            return NULL;
    }
    for (c = obj->child; c; c = c->next) {
        if (token_is(tok, end, name_of(c)))
            return c;
    }
    return NULL;
}

static const cJSON *element_by_token(const cJSON *arr, const char *tok, const char *end)
{
    const cJSON *c;
    size_t idx = 0;
    const char *p;

    /* decimal without leading zeros; "-" (past the end) never exists */
    if (tok == end || (*tok == '0' && end - tok > 1))
        return NULL;
    for (p = tok; p < end; p++) {
        if (*p < '0' || *p > '9' || idx > (SIZE_MAX - 9) / 10)
            return NULL;
        idx = idx * 10 + (size_t)(*p - '0');
    }
    for (c = arr->child; c && idx; c = c->next)
        idx--;
    return c;
}

const cJSON *arb_json_pointer(const cJSON *root, const char *pointer)
{
    const cJSON *node = root;
    const char *p = pointer, *end;

    if (!root || !pointer)
        return NULL;
    while (*p) {
        if (*p != '/')
            return NULL;
        p++;
        end = p + strcspn(p, "/");
        if (cJSON_IsObject(node))
            node = member_by_token(node, p, end);
        else if (cJSON_IsArray(node))
            node = element_by_token(node, p, end);
        else
            return NULL;
        if (!node)
            return NULL;
        p = end;
    }
    return node;
}

enum arb_status arb_json_pointer_push(struct arb_buf *p, const char *token)
{
    enum arb_status st = arb_buf_addc(p, '/');

    for (; !st && *token; token++) {
        if (*token == '~')
            st = arb_buf_adds(p, "~0");
        else if (*token == '/')
            st = arb_buf_adds(p, "~1");
        else
            st = arb_buf_addc(p, *token);
    }
    return st;
}
