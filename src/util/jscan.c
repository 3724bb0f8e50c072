/*
 * jscan.c - the one scanner of JSON text (jscan.h): the strict check in front of
 * arb_json_parse, and a cursor over text known to be JSON for the readers that need no tree.
 *
 * Both share what a JSON text is made of: white space, strings with their escapes ("\u" with
 * surrogate pairs, read here once), numbers, the three literals and nesting.  They differ in
 * what they promise: the check refuses anything RFC 8259 does not allow (and what cJSON would
 * get wrong: "\u0000", numbers past a double, raw control bytes) and says where; the cursor
 * reads as cJSON reads, so a reader built on it agrees with cJSON on every text cJSON parses
 * (report/view.c is held to that by a unit test and a fuzz target), and only delimits what it
 * steps over.  Locating an offset or a JSON pointer is left to jlocate.c.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/unicode.h"
#include "jscan.h"

#define MAX_DEPTH CJSON_NESTING_LIMIT
#define NONE      ((size_t)-1)

/* The escapes of one character after a backslash, and what each stands for. */
static const char esc_from[] = "\"\\/bfnrt";
static const char esc_to[] = "\"\\/\b\f\n\r\t";

/* ---- what both readings share ------------------------------------------------------------ */

/* The four hex digits at p into *out: 0, or -1 when one is not a hex digit. */
static int hex4(const char *p, unsigned *out)
{
    unsigned v = 0;

    for (int i = 0; i < 4; i++) {
        unsigned c = (unsigned char)p[i];

        if (c >= '0' && c <= '9')
            v = v * 16 + (c - '0');
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            v = v * 16 + ((c | 0x20) - 'a' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/*
 * The "\u" escape at p, avail bytes readable from p: its length (6, or 12 for a surrogate pair)
 * with the code point in *cp; 0 for a surrogate without its other half; -1 when four hex digits
 * do not follow; -2 when fewer than six bytes are there.
 */
static int u_escape(const char *p, size_t avail, uint32_t *cp)
{
    unsigned hi, lo;

    if (avail < 6)
        return -2;
    if (hex4(p + 2, &hi) != 0)
        return -1;
    if (hi >= 0xDC00 && hi <= 0xDFFF)
        return 0;
    if (hi < 0xD800 || hi > 0xDBFF) {
        *cp = hi;
        return 6;
    }
    if (avail < 12 || p[6] != '\\' || p[7] != 'u' || hex4(p + 8, &lo) != 0 || lo < 0xDC00 ||
        lo > 0xDFFF)
        return 0;
    *cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    return 12;
}

/* The one-character escape c ("\n" has c 'n'): what it stands for, or NULL. */
static const char *simple_escape(char c)
{
    const char *e = c ? strchr(esc_from, c) : NULL;

    return e ? esc_to + (e - esc_from) : NULL;
}

/* The literal whose first byte is c, or NULL. */
static const char *literal_word(char c)
{
    return c == 't' ? "true" : c == 'f' ? "false" : c == 'n' ? "null" : NULL;
}

/* ---- the cursor -------------------------------------------------------------------------- */

size_t arb_jscan_bom(const char *s, size_t len)
{
    return len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/*
 * s[i] is a quote: the offset just past the closing one, or NONE when there is none.  *escapes
 * is set when the string holds a backslash.
 */
static size_t string_end(const char *s, size_t len, size_t i, int *escapes)
{
    for (i++; i < len && s[i] != '"'; i++) {
        if (s[i] == '\\') {
            *escapes = 1;
            if (++i >= len)
                return NONE;
        }
    }
    return i < len ? i + 1 : NONE;
}

static int is_ws(char c)
{
    return (unsigned char)c - 1u < 32u;
}

/* A byte of the run cJSON hands to strtod: [0-9+-.eE]. */
static int is_num_char(char c)
{
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E';
}

int arb_jscan_skip(struct arb_jscan *sc)
{
    const char *s = sc->s;
    size_t i = sc->pos, len = sc->len, depth = 0;
    int escapes = 0;

    do {
        char c;

        if (i >= len)
            return -1;
        c = s[i];
        if (c == '"') {
            i = string_end(s, len, i, &escapes);
            if (i == NONE)
                return -1;
        } else if (c == '{' || c == '[') {
            depth++;
            i++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return -1;
            depth--;
            i++;
        } else {
            /* inside brackets everything up to the next string or bracket is delimited at once */
            while (i < len && s[i] != '"' && s[i] != '{' && s[i] != '[' && s[i] != '}' &&
                   s[i] != ']' && (depth > 0 || (s[i] != ',' && !is_ws(s[i]))))
                i++;
        }
    } while (depth > 0);
    if (i == sc->pos)
        return -1;
    sc->pos = i;
    return 0;
}

/*
 * The escape at s[i] (a backslash before the closing quote at end): what it stands for, as UTF-8
 * in piece[0..*n), and its length; 0 when it is not a JSON escape.
 */
static size_t decode_escape(const char *s, size_t i, size_t end, char *piece, size_t *n)
{
    const char *e;
    uint32_t cp = 0;
    int k;

    if (s[i + 1] != 'u') {
        e = simple_escape(s[i + 1]);
        if (!e)
            return 0;
        piece[0] = *e;
        *n = 1;
        return 2;
    }
    k = u_escape(s + i, end - i, &cp);
    if (k == -1) { /* cJSON reads four digits that are not all hex as 0 */
        cp = 0;
        k = 6;
    }
    if (k <= 0)
        return 0;
    *n = arb_utf8_encode(cp, piece);
    return (size_t)k;
}

enum arb_status arb_jscan_string(struct arb_jscan *sc, struct arb_buf *out)
{
    const char *s = sc->s;
    size_t i = sc->pos + 1, end;
    enum arb_status st = ARB_OK;
    int escapes = 0;

    if (sc->pos >= sc->len || s[sc->pos] != '"')
        return ARB_EPARSE;
    end = string_end(s, sc->len, sc->pos, &escapes);
    if (end == NONE)
        return ARB_EPARSE;
    end--; /* the closing quote: escapes are decoded within the string's bounds, as cJSON does */
    if (!escapes) {
        /* one append, the closing quote with it to become the NUL */
        st = arb_buf_add(out, s + i, end + 1 - i);
        if (st != ARB_OK)
            return st;
        out->ptr[out->len - 1] = '\0';
        sc->pos = end + 1;
        return ARB_OK;
    }
    while (i < end && st == ARB_OK) {
        size_t run = i, k, n = 0;
        char piece[4];

        while (i < end && s[i] != '\\')
            i++;
        st = i > run ? arb_buf_add(out, s + run, i - run) : ARB_OK;
        if (st != ARB_OK || i == end)
            break;
        k = decode_escape(s, i, end, piece, &n);
        if (k == 0)
            return ARB_EPARSE;
        st = arb_buf_add(out, piece, n);
        i += k;
    }
    if (st == ARB_OK)
        st = arb_buf_addc(out, '\0');
    if (st == ARB_OK)
        sc->pos = end + 1;
    return st;
}

int arb_jscan_number(struct arb_jscan *sc, double *out)
{
    static const double p10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char *p = sc->s + sc->pos, *q, *e;
    size_t n = 0, avail = sc->len - sc->pos;
    char small[64], *run, *stop;
    uint64_t m = 0;
    int digits = 0, frac = -1, neg;

    if (avail == 0 || (*p != '-' && (*p < '0' || *p > '9')))
        return 0;
    neg = *p == '-';
    while (n < avail && is_num_char(p[n]))
        n++;
    e = p + n;
    q = p + neg;
    if (q < e && *q >= '0' && *q <= '9') {
        for (; q < e && *q >= '0' && *q <= '9'; q++, digits++)
            m = m * 10 + (uint64_t)(*q - '0');
        if (q < e && *q == '.')
            for (q++, frac = 0; q < e && *q >= '0' && *q <= '9'; q++, digits++, frac++)
                m = m * 10 + (uint64_t)(*q - '0');
        /* both exact doubles, so one division rounds correctly (Clinger's fast path) */
        if (q == e && digits <= 15) {
            double v = (double)m / p10[frac < 0 ? 0 : frac];

            *out = neg ? -v : v;
            sc->pos += n;
            return 1;
        }
    }
    /* a copy: strtod on the text itself would also read hex, "inf" and "nan" */
    run = n < sizeof(small) ? small : malloc(n + 1);
    if (!run)
        return -1;
    memcpy(run, p, n);
    run[n] = '\0';
    *out = strtod(run, &stop);
    n = (size_t)(stop - run);
    if (run != small)
        free(run);
    if (n == 0)
        return 0;
    sc->pos += n;
    return 1;
}

int arb_jscan_literal(struct arb_jscan *sc)
{
    const char *word = sc->pos < sc->len ? literal_word(sc->s[sc->pos]) : NULL;
    size_t n = word ? strlen(word) : 0;

    if (!word || sc->len - sc->pos < n || memcmp(sc->s + sc->pos, word, n) != 0)
        return 0;
    sc->pos += n;
    return word[0];
}

int arb_jscan_open(struct arb_jscan *sc)
{
    char close;

    if (sc->pos >= sc->len || (sc->s[sc->pos] != '{' && sc->s[sc->pos] != '['))
        return -1;
    close = sc->s[sc->pos] == '{' ? '}' : ']';
    sc->pos++;
    arb_jscan_ws(sc);
    if (sc->pos >= sc->len || sc->s[sc->pos] != close)
        return 1;
    sc->pos++;
    return 0;
}

int arb_jscan_next(struct arb_jscan *sc, char close)
{
    arb_jscan_ws(sc);
    if (sc->pos < sc->len && sc->s[sc->pos] == ',') {
        sc->pos++;
        arb_jscan_ws(sc);
        return 1;
    }
    if (sc->pos >= sc->len || sc->s[sc->pos] != close)
        return -1;
    sc->pos++;
    return 0;
}

int arb_jscan_colon(struct arb_jscan *sc)
{
    arb_jscan_ws(sc);
    if (sc->pos >= sc->len || sc->s[sc->pos] != ':')
        return -1;
    sc->pos++;
    arb_jscan_ws(sc);
    return 0;
}

/* ---- the strict check -------------------------------------------------------------------- */

/* What the check expects next. */
enum want {
    WANT_VALUE,
    WANT_VALUE_OR_CLOSE, /* just after '[' */
    WANT_KEY,            /* after ',' in an object */
    WANT_KEY_OR_CLOSE,   /* just after '{' */
    WANT_COLON,
    WANT_NEXT, /* ',' or the closing bracket */
    WANT_END   /* the top-level value is complete */
};

struct check {
    const unsigned char *s;
    size_t len;
    size_t pos;
    enum arb_status st; /* of the first error */
    struct arb_jscan_report *r;
    int allow_nul; /* "\u0000" is counted in r->nuls, not refused */
};

static int check_fail(struct check *c, size_t at, enum arb_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Record the first error: where, its status and what was wrong.  Returns -1. */
static int check_fail(struct check *c, size_t at, enum arb_status st, const char *fmt, ...)
{
    va_list ap;

    c->r->err_at = at;
    c->st = st;
    va_start(ap, fmt);
    vsnprintf(c->r->what, sizeof(c->r->what), fmt, ap);
    va_end(ap);
    return -1;
}

/* Describe the character at the check's position, which is not what was expected. */
static int fail_char(struct check *c, const char *expected)
{
    const unsigned char *p = c->s + c->pos;
    size_t n;

    if (*p >= 0x20 && *p < 0x7F)
        return check_fail(c, c->pos, ARB_EPARSE, "unexpected character '%c', expected %s", *p,
                          expected);
    if (*p < 0x80)
        return check_fail(c, c->pos, ARB_EPARSE, "unexpected control character U+%04X, expected %s",
                          *p, expected);
    n = arb_utf8_seq((const char *)p, c->len - c->pos);
    if (n == 0)
        return check_fail(c, c->pos, ARB_EPARSE, "invalid UTF-8 byte 0x%02x", *p);
    if (n == 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        return check_fail(c, c->pos, ARB_EPARSE, "unexpected byte order mark, expected %s",
                          expected);
    return check_fail(c, c->pos, ARB_EPARSE, "unexpected character '%.*s', expected %s", (int)n,
                      (const char *)p, expected);
}

/* The escape at s[i] (a backslash, with at least one byte after it): its length, or -1. */
static int check_escape(struct check *c, size_t i)
{
    const char *p = (const char *)c->s + i;
    uint32_t cp = 0;
    int n;

    if (simple_escape(p[1]))
        return 2;
    if (p[1] != 'u') {
        if (p[1] >= 0x20 && p[1] < 0x7F)
            return check_fail(c, i, ARB_EPARSE, "invalid escape '\\%c' in string", p[1]);
        return check_fail(c, i, ARB_EPARSE, "invalid escape in string");
    }
    n = u_escape(p, c->len - i, &cp);
    if (n < 0)
        return check_fail(c, i, ARB_EPARSE, "invalid \\u escape, expected 4 hex digits");
    if (n == 0)
        return check_fail(c, i, ARB_EPARSE, "unpaired surrogate '\\u%.4s' in string", p + 2);
    /* cJSON would end the C string here and silently drop the rest of the value */
    if (cp == 0 && !c->allow_nul)
        return check_fail(c, i, ARB_EPARSE, "string contains \\u0000");
    if (cp == 0)
        c->r->nuls++;
    return n;
}

/*
 * A string starting at the opening quote at c->pos: -1 when it is bad, else 1 when it holds an
 * escape (its text is not its value: "\u0061" is "a") and 0 when it does not.
 */
/* 1 for the bytes a string holds as they are: printable ASCII but '"' and '\\'. */
/* clang-format off */
#define P8(x) x, x, x, x, x, x, x, x
static const unsigned char plain_ascii[256] = {
    P8(0), P8(0), P8(0), P8(0),
    1, 1, 0, 1, 1, 1, 1, 1, P8(1), P8(1), P8(1),
    P8(1), P8(1), P8(1), 1, 1, 1, 1, 0, 1, 1, 1,
    P8(1), P8(1), P8(1), P8(1),
    P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0),
    P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0), P8(0)};
#undef P8
/* clang-format on */

static int check_string(struct check *c)
{
    const unsigned char *s = c->s;
    size_t i = c->pos + 1, len = c->len, n;
    int e, escaped = 0;

    for (;;) {
        /* unrolled by four: most of a string is plain ASCII */
        while (len - i >= 4 && plain_ascii[s[i]] && plain_ascii[s[i + 1]] &&
               plain_ascii[s[i + 2]] && plain_ascii[s[i + 3]])
            i += 4;
        while (i < len && plain_ascii[s[i]])
            i++;
        if (i >= len)
            return check_fail(c, c->pos, ARB_EPARSE, "unterminated string");
        if (s[i] == '"')
            break;
        if (s[i] == '\\') {
            if (i + 1 >= len)
                return check_fail(c, c->pos, ARB_EPARSE, "unterminated string");
            e = check_escape(c, i);
            if (e < 0)
                return -1;
            i += (size_t)e;
            escaped = 1;
        } else if (s[i] < 0x20) {
            return check_fail(c, i, ARB_EPARSE, "unescaped control character U+%04X in string",
                              s[i]);
        } else {
            n = arb_utf8_seq((const char *)s + i, len - i);
            if (n == 0)
                return check_fail(c, i, ARB_EPARSE, "invalid UTF-8 byte 0x%02x in string", s[i]);
            i += n;
        }
    }
    c->pos = i + 1;
    return escaped;
}

static int is_digit(const struct check *c, size_t i)
{
    return i < c->len && c->s[i] >= '0' && c->s[i] <= '9';
}

/*
 * A number at c->pos, by the JSON grammar (cJSON takes "01", "1." and "1.e5").  Errors point at
 * the start of the number.  Overflow cannot be judged without converting, so a number that might
 * exceed DBL_MAX only sets maybe_inf and the tree is checked after cJSON converted it.
 */
static int check_number(struct check *c)
{
    size_t start = c->pos, i = c->pos, int_digits = 0;
    long exp = 0;
    int exp_neg = 0;

    if (c->s[i] == '-')
        i++;
    if (!is_digit(c, i))
        return check_fail(c, start, ARB_EPARSE, "invalid number, expected a digit after '-'");
    if (c->s[i] == '0') {
        i++;
        if (is_digit(c, i))
            return check_fail(c, start, ARB_EPARSE,
                              "invalid number, leading zeros are not allowed");
    } else {
        while (is_digit(c, i)) {
            i++;
            int_digits++;
        }
    }
    if (i < c->len && c->s[i] == '.') {
        i++;
        if (!is_digit(c, i))
            return check_fail(c, start, ARB_EPARSE, "invalid number, expected a digit after '.'");
        while (is_digit(c, i))
            i++;
    }
    if (i < c->len && (c->s[i] == 'e' || c->s[i] == 'E')) {
        i++;
        if (i < c->len && (c->s[i] == '+' || c->s[i] == '-'))
            exp_neg = c->s[i++] == '-';
        if (!is_digit(c, i))
            return check_fail(c, start, ARB_EPARSE,
                              "invalid number, expected a digit in the exponent");
        while (is_digit(c, i)) {
            if (exp < 100000)
                exp = exp * 10 + (c->s[i] - '0');
            i++;
        }
    }
    /* DBL_MAX is below 1e309: fewer than 300 integer digits after scaling cannot overflow.  A
     * negative exponent scales down, but 445 digits times 1e-3 still overflow (found by fuzzing).
     */
    if ((long)int_digits + (exp_neg ? -exp : exp) > 300)
        c->r->maybe_inf = 1;
    c->pos = i;
    return 0;
}

static int check_literal(struct check *c)
{
    struct arb_jscan sc = {(const char *)c->s, c->len, c->pos};

    if (!arb_jscan_literal(&sc))
        return check_fail(c, c->pos, ARB_EPARSE, "invalid literal, expected '%s'",
                          literal_word((char)c->s[c->pos]));
    c->pos = sc.pos;
    return 0;
}

static const char *expected_text(enum want want, int in_object)
{
    static const char *const text[] = {
        "a value", "a value or ']'", "a string key",    "a string key or '}'",
        "':'",     "',' or ']'",     "the end of input"};

    return want == WANT_NEXT && in_object ? "',' or '}'" : text[want];
}

/* A scalar value at c->pos (c is its first byte), or an error. */
static int check_scalar(struct check *c, unsigned char ch, enum want want, int in_object)
{
    if (ch == '"')
        return check_string(c) < 0 ? -1 : 0;
    if (ch == '-' || (ch >= '0' && ch <= '9'))
        return check_number(c);
    if (ch == 't' || ch == 'f' || ch == 'n')
        return check_literal(c);
    return fail_char(c, expected_text(want, in_object));
}

/* Container kinds live in a bit set, one bit per level: no allocation, no recursion. */
/*
 * Add a member name (the string at s[at..end), quotes included) to its object's key signature
 * (two 64-bit masks, one bit in each: a Bloom filter of its first and last byte and length),
 * saying whether it may have been there already.  Names it says no to are all different, so
 * the object repeats no key; a yes is only a maybe (r->maybe_dup).  A cheap filter for
 * ARB_JSON_LAST_KEY_WINS, which otherwise walks every tree.  It sees the raw text, so it holds
 * only for names without an escape; a name with one makes maybe_dup at once.
 */
static inline int key_seen(uint64_t sig[2], const unsigned char *s, size_t at, size_t end)
{
    uint64_t k = s[at + 1] | (uint64_t)s[end - 2] << 8 | (uint64_t)(end - at) << 16;
    uint64_t h = k * UINT64_C(0x9E3779B97F4A7C15);
    uint64_t b0 = (uint64_t)1 << (h >> 58), b1 = (uint64_t)1 << ((h >> 52) & 63);
    int seen = (sig[0] & b0) && (sig[1] & b1);

    sig[0] |= b0;
    sig[1] |= b1;
    return seen;
}

#define KEY_DEPTHS 64 /* objects deeper than this are taken as maybe repeating a key */

static int check_text(struct check *c)
{
    unsigned char objects[(MAX_DEPTH + 7) / 8];
    uint64_t keys[KEY_DEPTHS][2]; /* the key signature of the open object at each depth */
    size_t depth = 0, key_at;
    enum want want = WANT_VALUE;
    int in_object = 0, escaped;
    unsigned char ch;

    for (;;) {
        while (c->pos < c->len && (c->s[c->pos] == ' ' || c->s[c->pos] == '\n' ||
                                   c->s[c->pos] == '\r' || c->s[c->pos] == '\t'))
            c->pos++;
        if (c->pos == c->len) {
            if (want == WANT_END)
                return 0;
            return check_fail(c, c->pos, ARB_EPARSE, "unexpected end of input, expected %s",
                              expected_text(want, in_object));
        }
        ch = c->s[c->pos];
        switch (want) {
        case WANT_END:
            return check_fail(c, c->pos, ARB_EPARSE, "trailing characters after the JSON value");
        case WANT_COLON:
            if (ch != ':')
                return fail_char(c, "':'");
            c->pos++;
            want = WANT_VALUE;
            continue;
        case WANT_NEXT:
            if (ch == ',') {
                c->pos++;
                want = in_object ? WANT_KEY : WANT_VALUE;
                continue;
            }
            if (ch != (in_object ? '}' : ']'))
                return fail_char(c, expected_text(want, in_object));
            break; /* close below */
        case WANT_KEY_OR_CLOSE:
        case WANT_KEY:
            if (ch == '}' && want == WANT_KEY_OR_CLOSE)
                break;
            if (ch != '"')
                return fail_char(c, expected_text(want, in_object));
            key_at = c->pos;
            escaped = check_string(c);
            if (escaped < 0)
                return -1;
            /* an escaped name may spell another ("a", "\u0061"): the parsed tree will tell */
            if (depth > KEY_DEPTHS || escaped) {
                c->r->maybe_dup = 1;
            } else {
                c->r->maybe_dup |= key_seen(keys[depth - 1], c->s, key_at, c->pos);
            }
            want = WANT_COLON;
            continue;
        case WANT_VALUE_OR_CLOSE:
            if (ch == ']')
                break;
            /* fall through */
        case WANT_VALUE:
            if (ch == '{' || ch == '[') {
                if (depth == MAX_DEPTH)
                    return check_fail(c, c->pos, ARB_ETOOBIG, "nesting deeper than %d levels",
                                      MAX_DEPTH);
                in_object = ch == '{';
                if (in_object && depth < KEY_DEPTHS)
                    keys[depth][0] = keys[depth][1] = 0;
                if (in_object)
                    objects[depth / 8] |= (unsigned char)(1u << (depth % 8));
                else
                    objects[depth / 8] &= (unsigned char)~(1u << (depth % 8));
                depth++;
                c->pos++;
                want = in_object ? WANT_KEY_OR_CLOSE : WANT_VALUE_OR_CLOSE;
                continue;
            }
            if (check_scalar(c, ch, want, in_object) != 0)
                return -1;
            if (depth == 0)
                c->r->value_end = c->pos;
            want = depth ? WANT_NEXT : WANT_END;
            continue;
        }
        /* a closing bracket that matches the open container */
        c->pos++;
        depth--;
        if (depth == 0)
            c->r->value_end = c->pos;
        in_object = depth && (objects[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1;
        want = depth ? WANT_NEXT : WANT_END;
    }
}

enum arb_status arb_jscan_check(const char *s, size_t len, struct arb_jscan_report *r)
{
    struct check c = {(const unsigned char *)s, len, 0, ARB_OK, r, 0};

    memset(r, 0, sizeof(*r));
    return check_text(&c) == 0 ? ARB_OK : c.st;
}

enum arb_status arb_jscan_check_nul(const char *s, size_t len, struct arb_jscan_report *r)
{
    struct check c = {(const unsigned char *)s, len, 0, ARB_OK, r, 1};

    memset(r, 0, sizeof(*r));
    return check_text(&c) == 0 ? ARB_OK : c.st;
}
