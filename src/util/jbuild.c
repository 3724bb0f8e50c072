/*
 * jbuild.c - the tree cJSON 1.7.15 builds of a JSON text that jscan.c has checked, built here
 * in one pass (json.c, arb_json_build).
 *
 * cJSON's parser reads each string twice (to size it, then to copy it) and each number through
 * a copy and strtod; on the run's hot path (every case line, every output line, every output's
 * JSON) it was a tenth of the main thread.  The text is already known to be valid here, so this
 * only builds: the same nodes (types, valuestring, string, valuedouble, valueint, the child
 * lists with the first child's prev at the last, as cJSON links them), allocated through
 * cJSON's own allocator so cJSON_Delete frees them.  What it does not build exactly as cJSON
 * would without thinking (a number with an exponent or more than 15 digits, which strtod
 * rounds; "\u0000"; nesting past MAX_DEPTH) makes it give up, and the caller asks cJSON.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "jbuild.h"

#define MAX_DEPTH  64 /* deeper texts are rare: cJSON builds them */
#define MAX_DIGITS 15 /* below 2^53: the digits are exact as a double */

struct jb {
    const unsigned char *s;
    size_t len, pos;
};

static void skip_ws(struct jb *b)
{
    while (b->pos < b->len && (b->s[b->pos] == ' ' || b->s[b->pos] == '\t' ||
                               b->s[b->pos] == '\n' || b->s[b->pos] == '\r'))
        b->pos++;
}

static int hex_digit(unsigned char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The code unit of \uXXXX at s (after the "\u"), or -1. */
static long hex4(const unsigned char *s)
{
    long v = 0;
    int i, d;

    for (i = 0; i < 4; i++) {
        d = hex_digit(s[i]);
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* cp as UTF-8 into out (as cJSON's utf16_literal_to_utf8 writes it); its length. */
static size_t put_utf8(unsigned long cp, unsigned char *out)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xC0 | (cp >> 6));
        out[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xE0 | (cp >> 12));
        out[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (unsigned char)(0xF0 | (cp >> 18));
    out[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* The byte a one-letter escape stands for, or 0 (none, or \u). */
static unsigned char escaped_byte(unsigned char c)
{
    switch (c) {
    case '"':
    case '\\':
    case '/':
        return c;
    case 'b':
        return '\b';
    case 'f':
        return '\f';
    case 'n':
        return '\n';
    case 'r':
        return '\r';
    case 't':
        return '\t';
    default:
        return 0;
    }
}

/* One escape at s[i] (the backslash) decoded into out; the bytes read (0: give up). */
static size_t unescape(const unsigned char *s, size_t i, size_t end, unsigned char *out, size_t *o)
{
    unsigned char c;
    long hi, lo;

    if (s[i + 1] != 'u') {
        c = escaped_byte(s[i + 1]);
        if (!c)
            return 0;
        out[(*o)++] = c;
        return 2;
    }
    if (i + 6 > end || (hi = hex4(s + i + 2)) <= 0)
        return 0; /* "\u0000" too: cJSON's string would end there */
    if (hi < 0xD800 || hi > 0xDFFF) {
        *o += put_utf8((unsigned long)hi, out + *o);
        return 6;
    }
    /* a surrogate pair (the checker let no other surrogate through) */
    if (hi > 0xDBFF || i + 12 > end || s[i + 6] != '\\' || s[i + 7] != 'u' ||
        (lo = hex4(s + i + 8)) < 0xDC00 || lo > 0xDFFF)
        return 0;
    *o += put_utf8(0x10000 + (((unsigned long)hi & 0x3FF) << 10 | ((unsigned long)lo & 0x3FF)),
                   out + *o);
    return 12;
}

/* The offset of the first '"' or '\\' in s[i..end), or end (names and values are short). */
static inline size_t plain_run(const unsigned char *s, size_t i, size_t end)
{
    while (i < end && s[i] != '"' && s[i] != '\\')
        i++;
    return i;
}

/* The string at b->pos (its opening quote) as a new NUL-terminated copy, or NULL. */
static char *string_at(struct jb *b)
{
    const unsigned char *s = b->s;
    size_t start = b->pos + 1, i = start, o = 0, n;
    int escaped = 0;
    unsigned char *out;

    for (;;) {
        i = plain_run(s, i, b->len);
        if (i >= b->len)
            return NULL;
        if (s[i] == '"')
            break;
        if (i + 2 >= b->len)
            return NULL;
        escaped = 1;
        i += 2; /* the escaped byte is never the closing quote */
    }
    /* an escape never decodes to more bytes than it takes */
    out = cJSON_malloc(i - start + 1);
    if (!out)
        return NULL;
    if (!escaped) {
        memcpy(out, s + start, i - start);
        o = i - start;
    } else {
        size_t k = start, run;

        while (k < i) {
            run = plain_run(s, k, i); /* no bare '"' before i: the next backslash, or i */
            memcpy(out + o, s + k, run - k);
            o += run - k;
            if (run == i)
                break;
            n = unescape(s, run, i, out, &o);
            if (!n) {
                cJSON_free(out);
                return NULL;
            }
            k = run + n;
        }
    }
    out[o] = '\0';
    b->pos = i + 1;
    return (char *)out;
}

/*
 * The number at b->pos, as strtod reads it, when its digits are at most MAX_DIGITS and it has
 * no exponent: the digits as an integer and the power of ten are then both exact doubles, and
 * one correctly rounded division is what strtod gives.  0 otherwise (give up).
 */
static int number_at(struct jb *b, double *out)
{
    static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const unsigned char *s = b->s;
    size_t i = b->pos, digits = 0, frac = 0;
    uint64_t m = 0;
    int neg = 0;
    double v;

    if (s[i] == '-') {
        neg = 1;
        i++;
    }
    while (i < b->len && s[i] >= '0' && s[i] <= '9') {
        m = m * 10 + (uint64_t)(s[i++] - '0');
        digits++;
    }
    if (i < b->len && s[i] == '.') {
        i++;
        while (i < b->len && s[i] >= '0' && s[i] <= '9') {
            m = m * 10 + (uint64_t)(s[i++] - '0');
            digits++;
            frac++;
        }
    }
    if (digits > MAX_DIGITS || (i < b->len && (s[i] == 'e' || s[i] == 'E')))
        return 0;
    v = (double)m / pow10[frac];
    *out = neg ? -v : v;
    b->pos = i;
    return 1;
}

static cJSON *value_at(struct jb *b, int depth);

/* Link item after *tail in the children of parent (the first child's prev is the last). */
static void append_child(cJSON *parent, cJSON **tail, cJSON *item)
{
    if (!*tail) {
        parent->child = item;
    } else {
        (*tail)->next = item;
        item->prev = *tail;
    }
    *tail = item;
    parent->child->prev = item;
}

/* An object or array at b->pos (its bracket) into node; 0 to give up. */
static int container_at(struct jb *b, cJSON *node, int depth)
{
    int obj = b->s[b->pos] == '{';
    char close = obj ? '}' : ']';
    cJSON *tail = NULL, *item;
    char *key = NULL;

    b->pos++;
    skip_ws(b);
    if (b->pos < b->len && b->s[b->pos] == close) {
        b->pos++;
        return 1;
    }
    for (;;) {
        if (obj) {
            if (b->pos >= b->len || b->s[b->pos] != '"' || !(key = string_at(b)))
                return 0;
            skip_ws(b);
            if (b->pos >= b->len || b->s[b->pos] != ':') {
                cJSON_free(key);
                return 0;
            }
            b->pos++;
            skip_ws(b);
        }
        item = value_at(b, depth + 1);
        if (!item) {
            cJSON_free(key);
            return 0;
        }
        item->string = key;
        key = NULL;
        append_child(node, &tail, item);
        skip_ws(b);
        if (b->pos >= b->len)
            return 0;
        if (b->s[b->pos] == close) {
            b->pos++;
            return 1;
        }
        if (b->s[b->pos] != ',')
            return 0;
        b->pos++;
        skip_ws(b);
    }
}

/* The value at b->pos (no white space before it) as a new node, or NULL to give up. */
static cJSON *value_at(struct jb *b, int depth)
{
    const unsigned char *s = b->s + b->pos;
    size_t left = b->len - b->pos;
    cJSON *node;
    double d;

    if (left == 0 || depth > MAX_DEPTH)
        return NULL;
    node = cJSON_CreateNull();
    if (!node)
        return NULL;
    switch (s[0]) {
    case 'n':
        if (left >= 4 && memcmp(s, "null", 4) == 0) {
            b->pos += 4;
            return node;
        }
        break;
    case 't':
        if (left >= 4 && memcmp(s, "true", 4) == 0) {
            node->type = cJSON_True;
            node->valueint = 1;
            b->pos += 4;
            return node;
        }
        break;
    case 'f':
        if (left >= 5 && memcmp(s, "false", 5) == 0) {
            node->type = cJSON_False;
            b->pos += 5;
            return node;
        }
        break;
    case '"':
        node->type = cJSON_String;
        node->valuestring = string_at(b);
        if (node->valuestring)
            return node;
        break;
    case '{':
    case '[':
        node->type = s[0] == '{' ? cJSON_Object : cJSON_Array;
        if (container_at(b, node, depth))
            return node;
        break;
    default:
        if (number_at(b, &d)) {
            node->type = cJSON_Number;
            node->valuedouble = d;
            /* cJSON's valueint: saturated at INT_MAX and INT_MIN */
            node->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
            return node;
        }
    }
    cJSON_Delete(node);
    return NULL;
}

cJSON *arb_json_build(const char *text, size_t len, const char **end)
{
    struct jb b = {(const unsigned char *)text, len, 0};
    cJSON *root;

    skip_ws(&b);
    root = value_at(&b, 0);
    if (root && end)
        *end = text + b.pos;
    return root;
}
