/*
 * jtext.c - JSON text written as cJSON_PrintUnformatted writes it (jtext.h, struct jtext).
 *
 * comparison.json was built as a cJSON tree and printed; a run writes one per pair, and the
 * tree (a node and a copied key per member, a copied string per value, %1.15g per number,
 * then freed) cost more than the case's checks.  This writes the same bytes straight into a
 * buffer: strings escaped as cJSON 1.7 escapes them (", \, \b \f \n \r \t, other bytes under
 * 0x20 as \u00xx, every other byte as it is), numbers as its print_number prints them (below).
 * Members are separated here; nesting is at most JTEXT_DEPTH deep.  Errors are sticky: the
 * first failure is kept in j->st and later calls do nothing.
 */
#include <float.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "jtext.h"

void jtext_init(struct jtext *j, struct arb_buf *out)
{
    j->out = out;
    j->st = ARB_OK;
    j->depth = 0;
    j->first[0] = 1;
    j->keyed = 0;
    j->nums = NULL;
}

/* 1 for the bytes cJSON escapes: under 0x20, '"' and '\\'. */
/* clang-format off */
#define P8(x) x, x, x, x, x, x, x, x
static const unsigned char escaped[256] = {
    P8(1), P8(1), P8(1), P8(1), 0, 0, 1, 0, 0, 0, 0, 0, P8(0), P8(0), P8(0),
    P8(0), P8(0), P8(0), 0, 0, 0, 0, 1, 0, 0, 0};
#undef P8
/* clang-format on */

static inline void add(struct jtext *j, const char *s, size_t n)
{
    struct arb_buf *b = j->out;

    if (j->st || !n)
        return;
    if (n <= 16 && arb_buf_fits(b, n)) {
        /* the pieces here are mostly a few bytes: stores, not a call to memcpy */
        char *p = b->ptr + b->len;
        size_t k;

        for (k = 0; k < n; k++)
            p[k] = s[k];
        p[n] = '\0';
        b->len += n;
        return;
    }
    j->st = arb_buf_add(b, s, n);
}

void jtext_string(struct jtext *j, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0, run;

    add(j, "\"", 1);
    while (!j->st && i < n) {
        unsigned char c;
        char esc[6] = {'\\', 'u', '0', '0', 0, 0};

        run = i + arb_json_plain8(s + i, n - i, 0);
        while (run < n && !escaped[(unsigned char)s[run]])
            run++;
        add(j, s + i, run - i);
        if (run == n)
            break;
        c = (unsigned char)s[run];
        switch (c) {
        case '"':
        case '\\':
            esc[1] = (char)c;
            add(j, esc, 2);
            break;
        case '\b':
            add(j, "\\b", 2);
            break;
        case '\f':
            add(j, "\\f", 2);
            break;
        case '\n':
            add(j, "\\n", 2);
            break;
        case '\r':
            add(j, "\\r", 2);
            break;
        case '\t':
            add(j, "\\t", 2);
            break;
        default:
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            add(j, esc, 6);
        }
        i = run + 1;
    }
    add(j, "\"", 1);
}

/*
 * The separator before a member or item, and its key: a literal written as it is (the
 * callers' keys are ASCII names), or none after jtext_key wrote the member's name.
 */
static void member(struct jtext *j, const char *key)
{
    char lit[64];
    size_t n = 0, len;

    if (j->keyed) {
        j->keyed = 0;
        return;
    }
    if (!j->first[j->depth])
        lit[n++] = ',';
    j->first[j->depth] = 0;
    if (key && (len = strlen(key)) < sizeof(lit) - 4) {
        lit[n++] = '"';
        memcpy(lit + n, key, len);
        n += len;
        lit[n++] = '"';
        lit[n++] = ':';
    } else if (key) {
        add(j, lit, n);
        jtext_string(j, key, strlen(key));
        lit[0] = ':';
        n = 1;
    }
    add(j, lit, n);
}

void jtext_key(struct jtext *j, const char *name)
{
    member(j, NULL);
    jtext_string(j, name, strlen(name));
    add(j, ":", 1);
    j->keyed = 1;
}

void jtext_key_json(struct jtext *j, const char *text)
{
    member(j, NULL);
    add(j, text, strlen(text));
    j->keyed = 1;
}

void jtext_append(struct jtext *j, const char *text, size_t n)
{
    add(j, text, n);
}

void jtext_open(struct jtext *j, const char *key, char bracket)
{
    member(j, key);
    add(j, &bracket, 1);
    if (j->depth + 1 >= JTEXT_DEPTH) {
        if (!j->st)
            j->st = ARB_EINTERNAL;
        return;
    }
    j->first[++j->depth] = 1;
}

void jtext_close(struct jtext *j, char bracket)
{
    add(j, &bracket, 1);
    if (j->depth)
        j->depth--;
}

void jtext_str(struct jtext *j, const char *key, const char *s)
{
    /* cJSON_AddStringToObject fails on NULL, and the builders reported that as ENOMEM */
    if (!s) {
        if (!j->st)
            j->st = ARB_ENOMEM;
        return;
    }
    member(j, key);
    jtext_string(j, s, strlen(s));
}

void jtext_raw(struct jtext *j, const char *key, const char *text, size_t n)
{
    member(j, key);
    add(j, text, n);
}

void jtext_null(struct jtext *j, const char *key)
{
    jtext_raw(j, key, "null", 4);
}

void jtext_bool(struct jtext *j, const char *key, int v)
{
    jtext_raw(j, key, v ? "true" : "false", v ? 4 : 5);
}

static size_t number_fast(double d, char *out);
static size_t number_slow(double d, char *out);

void jtext_num(struct jtext *j, const char *key, double d)
{
    char num[JTEXT_NUMBER_MAX];
    struct jtext_nums *c = j->nums;
    uint64_t bits;
    size_t n = number_fast(d, num), h;

    if (n || !c) {
        jtext_raw(j, key, num, n ? n : number_slow(d, num));
        return;
    }
    /* the slow path's numbers (a pass rate of 2/3) repeat from pair to pair: kept by value */
    memcpy(&bits, &d, sizeof(bits));
    h = (size_t)((bits ^ (bits >> 29) ^ (bits >> 47)) % JTEXT_NUMS);
    if (!c->len[h] || memcmp(&c->key[h], &d, sizeof(d)) != 0) {
        c->len[h] = (unsigned char)number_slow(d, c->text[h]);
        c->key[h] = d;
    }
    jtext_raw(j, key, c->text[h], c->len[h]);
}

/* cJSON's compare_double: equal within the larger magnitude's epsilon. */
static int close_enough(double a, double b)
{
    double m = fabs(a) > fabs(b) ? fabs(a) : fabs(b);

    return fabs(a - b) <= m * DBL_EPSILON;
}

/* Digits of v (0 <= v < 10^18) at p, most significant first; returns the count. */
static size_t digits(unsigned long long v, char *p)
{
    char tmp[24];
    size_t n = 0, i;

    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

/*
 * cJSON 1.7.15's print_number: NaN and infinities as null; else %1.15g, or %1.17g when the
 * 15 digits do not read back within an epsilon; the locale's decimal point as '.'.  A whole
 * number within int's range is its digits (what %1.15g writes for it; -0 for -0.0).
 * Fast path: a tenth (k / 10 exactly, |k| < 10^15, as one_decimal makes them) has at most 15
 * significant digits, so %1.15g gives its decimal form, which reads back exactly.
 */
size_t jtext_number(double d, char *out)
{
    size_t n = number_fast(d, out);

    return n ? n : number_slow(d, out);
}

/* jtext_number's null, zero, whole numbers and tenths; 0 for the others. */
static size_t number_fast(double d, char *out)
{
    int vi;
    size_t n = 0;
    double k;

    if (isnan(d) || isinf(d)) {
        memcpy(out, "null", 5);
        return 4;
    }
    if (d == 0.0) {
        memcpy(out, signbit(d) ? "-0" : "0", signbit(d) ? 3 : 2);
        return signbit(d) ? 2 : 1;
    }
    vi = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
    if (d == (double)vi) {
        long long v = vi;

        if (v < 0) {
            out[n++] = '-';
            v = -v;
        }
        n += digits((unsigned long long)v, out + n);
        out[n] = '\0';
        return n;
    }
    k = round(d * 10.0);
    if (fabs(k) < 1e15 && k / 10.0 == d) {
        unsigned long long u = (unsigned long long)fabs(k);

        if (d < 0)
            out[n++] = '-';
        n += digits(u / 10, out + n);
        if (u % 10) {
            out[n++] = '.';
            out[n++] = (char)('0' + u % 10);
        }
        out[n] = '\0';
        return n;
    }
    return 0;
}

/* jtext_number by printf, as cJSON prints it. */
static size_t number_slow(double d, char *out)
{
    size_t n;
    const char *dp;

    n = (size_t)snprintf(out, JTEXT_NUMBER_MAX, "%1.15g", d);
    if (!close_enough(strtod(out, NULL), d))
        n = (size_t)snprintf(out, JTEXT_NUMBER_MAX, "%1.17g", d);
    dp = localeconv()->decimal_point;
    if (dp && dp[0] != '.' && dp[0]) {
        char *p = strchr(out, dp[0]);

        if (p)
            *p = '.';
    }
    return n;
}
