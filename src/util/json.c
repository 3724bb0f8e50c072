/*
 * json.c - arb_json_parse: JSON text to a cJSON tree, strictly, with located errors.
 *
 * cJSON builds the tree but is too lenient to be the judge of the text: it takes any byte up
 * to 0x20 as white space, keeps raw control characters in strings, accepts "01" and "1.", skips
 * a byte order mark on its own, truncates a string at "\u0000", turns 1e400 into inf and
 * reports a failure only as an offset.  So scan_text() below checks the whole text first, in
 * one pass (grammar, UTF-8, escapes, depth, number syntax), and locates the first error itself.
 * After it, cJSON fails only when it runs out of memory.  What needs the tree (duplicate keys,
 * numbers that overflow) is checked on the tree, and located by walking the text again, which
 * costs nothing unless there is an error.  Nothing here is global: cJSON's own global error
 * pointer is written only when it fails, which after the scan means out of memory.
 *
 * Everything done with a finished tree (canonical output, equality, pointers) lives in jcs.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/unicode.h"

#define MAX_DEPTH    CJSON_NESTING_LIMIT
#define SMALL_OBJECT 16 /* objects up to this size are checked pairwise, no allocation */
#define PATH_MAX_LEN 120

/* What the scanner expects next. */
enum want {
    WANT_VALUE,
    WANT_VALUE_OR_CLOSE, /* just after '[' */
    WANT_KEY,            /* after ',' in an object */
    WANT_KEY_OR_CLOSE,   /* just after '{' */
    WANT_COLON,
    WANT_NEXT, /* ',' or the closing bracket */
    WANT_END   /* the top-level value is complete */
};

struct scan {
    const unsigned char *s;
    size_t len;
    size_t pos;
    size_t value_end; /* where the top-level value ends */
    int maybe_inf;    /* some number may overflow a double: check the tree */
    size_t err_at;
    enum arb_status err_st;
    char what[160];
};

static int scan_fail(struct scan *sc, size_t at, enum arb_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Record the first error: where, its status and what was wrong.  Returns -1. */
static int scan_fail(struct scan *sc, size_t at, enum arb_status st, const char *fmt, ...)
{
    va_list ap;

    sc->err_at = at;
    sc->err_st = st;
    va_start(ap, fmt);
    vsnprintf(sc->what, sizeof(sc->what), fmt, ap);
    va_end(ap);
    return -1;
}

/* Describe the character at the scan position, which is not what was expected. */
static int fail_char(struct scan *sc, const char *expected)
{
    const unsigned char *p = sc->s + sc->pos;
    size_t n;

    if (*p >= 0x20 && *p < 0x7F)
        return scan_fail(sc, sc->pos, ARB_EPARSE, "unexpected character '%c', expected %s", *p,
                         expected);
    if (*p < 0x80)
        return scan_fail(sc, sc->pos, ARB_EPARSE,
                         "unexpected control character U+%04X, expected %s", *p, expected);
    n = arb_utf8_seq((const char *)p, sc->len - sc->pos);
    if (n == 0)
        return scan_fail(sc, sc->pos, ARB_EPARSE, "invalid UTF-8 byte 0x%02x", *p);
    if (n == 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        return scan_fail(sc, sc->pos, ARB_EPARSE, "unexpected byte order mark, expected %s",
                         expected);
    return scan_fail(sc, sc->pos, ARB_EPARSE, "unexpected character '%.*s', expected %s", (int)n,
                     (const char *)p, expected);
}

static int hex4(const unsigned char *p, unsigned *out)
{
    unsigned v = 0;
    int i;

    for (i = 0; i < 4; i++) {
        unsigned c = p[i];

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

/* The escape at s[i] (a backslash, with at least one byte after it): its length, or -1. */
static int scan_escape(struct scan *sc, size_t i)
{
    const unsigned char *p = sc->s + i;
    size_t avail = sc->len - i;
    unsigned cu, lo;

    if (p[1] != '\0' && strchr("\"\\/bfnrt", p[1]))
        return 2;
    if (p[1] != 'u') {
        if (p[1] >= 0x20 && p[1] < 0x7F)
            return scan_fail(sc, i, ARB_EPARSE, "invalid escape '\\%c' in string", p[1]);
        return scan_fail(sc, i, ARB_EPARSE, "invalid escape in string");
    }
    if (avail < 6 || hex4(p + 2, &cu) != 0)
        return scan_fail(sc, i, ARB_EPARSE, "invalid \\u escape, expected 4 hex digits");
    /* cJSON would end the C string here and silently drop the rest of the value */
    if (cu == 0)
        return scan_fail(sc, i, ARB_EPARSE, "string contains \\u0000");
    if (cu >= 0xDC00 && cu <= 0xDFFF)
        return scan_fail(sc, i, ARB_EPARSE, "unpaired surrogate '\\u%.4s' in string", p + 2);
    if (cu < 0xD800 || cu > 0xDBFF)
        return 6;
    if (avail < 12 || p[6] != '\\' || p[7] != 'u' || hex4(p + 8, &lo) != 0 || lo < 0xDC00 ||
        lo > 0xDFFF)
        return scan_fail(sc, i, ARB_EPARSE, "unpaired surrogate '\\u%.4s' in string", p + 2);
    return 12;
}

/* A string starting at the opening quote at sc->pos. */
static int scan_string(struct scan *sc)
{
    const unsigned char *s = sc->s;
    size_t i = sc->pos + 1, len = sc->len, n;
    int e;

    for (;;) {
        while (i < len && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\')
            i++;
        if (i >= len)
            return scan_fail(sc, sc->pos, ARB_EPARSE, "unterminated string");
        if (s[i] == '"')
            break;
        if (s[i] == '\\') {
            if (i + 1 >= len)
                return scan_fail(sc, sc->pos, ARB_EPARSE, "unterminated string");
            e = scan_escape(sc, i);
            if (e < 0)
                return -1;
            i += (size_t)e;
        } else if (s[i] < 0x20) {
            return scan_fail(sc, i, ARB_EPARSE, "unescaped control character U+%04X in string",
                             s[i]);
        } else {
            n = arb_utf8_seq((const char *)s + i, len - i);
            if (n == 0)
                return scan_fail(sc, i, ARB_EPARSE, "invalid UTF-8 byte 0x%02x in string", s[i]);
            i += n;
        }
    }
    sc->pos = i + 1;
    return 0;
}

static int is_digit(const struct scan *sc, size_t i)
{
    return i < sc->len && sc->s[i] >= '0' && sc->s[i] <= '9';
}

/*
 * A number at sc->pos, by the JSON grammar (cJSON takes "01", "1." and "1.e5").  Errors point at
 * the start of the number.  Overflow cannot be judged without converting, so a number that might
 * exceed DBL_MAX only sets maybe_inf and the tree is checked after cJSON converted it.
 */
static int scan_number(struct scan *sc)
{
    size_t start = sc->pos, i = sc->pos, int_digits = 0;
    long exp = 0;
    int exp_neg = 0;

    if (sc->s[i] == '-')
        i++;
    if (!is_digit(sc, i))
        return scan_fail(sc, start, ARB_EPARSE, "invalid number, expected a digit after '-'");
    if (sc->s[i] == '0') {
        i++;
        if (is_digit(sc, i))
            return scan_fail(sc, start, ARB_EPARSE,
                             "invalid number, leading zeros are not allowed");
    } else {
        while (is_digit(sc, i)) {
            i++;
            int_digits++;
        }
    }
    if (i < sc->len && sc->s[i] == '.') {
        i++;
        if (!is_digit(sc, i))
            return scan_fail(sc, start, ARB_EPARSE, "invalid number, expected a digit after '.'");
        while (is_digit(sc, i))
            i++;
    }
    if (i < sc->len && (sc->s[i] == 'e' || sc->s[i] == 'E')) {
        i++;
        if (i < sc->len && (sc->s[i] == '+' || sc->s[i] == '-'))
            exp_neg = sc->s[i++] == '-';
        if (!is_digit(sc, i))
            return scan_fail(sc, start, ARB_EPARSE,
                             "invalid number, expected a digit in the exponent");
        while (is_digit(sc, i)) {
            if (exp < 100000)
                exp = exp * 10 + (sc->s[i] - '0');
            i++;
        }
    }
    /* DBL_MAX is below 1e309: fewer than 300 integer digits after scaling cannot overflow.  A
     * negative exponent scales down, but 445 digits times 1e-3 still overflow (found by fuzzing).
     */
    if ((long)int_digits + (exp_neg ? -exp : exp) > 300)
        sc->maybe_inf = 1;
    sc->pos = i;
    return 0;
}

static int scan_literal(struct scan *sc)
{
    unsigned char c = sc->s[sc->pos];
    const char *word = c == 't' ? "true" : c == 'f' ? "false" : "null";
    size_t n = strlen(word);

    if (sc->len - sc->pos < n || memcmp(sc->s + sc->pos, word, n) != 0)
        return scan_fail(sc, sc->pos, ARB_EPARSE, "invalid literal, expected '%s'", word);
    sc->pos += n;
    return 0;
}

static const char *expected_text(enum want want, int in_object)
{
    static const char *const text[] = {
        "a value", "a value or ']'", "a string key",    "a string key or '}'",
        "':'",     "',' or ']'",     "the end of input"};

    return want == WANT_NEXT && in_object ? "',' or '}'" : text[want];
}

/*
 * Check that s[0..len) is one JSON value.  Container kinds live in a bit set, one bit per level,
 * so the scan needs no allocation and no recursion.
 */
static int scan_text(struct scan *sc)
{
    unsigned char objects[(MAX_DEPTH + 7) / 8];
    size_t depth = 0;
    enum want want = WANT_VALUE;
    int in_object = 0, rc;
    unsigned char c;

    for (;;) {
        while (sc->pos < sc->len && (sc->s[sc->pos] == ' ' || sc->s[sc->pos] == '\n' ||
                                     sc->s[sc->pos] == '\r' || sc->s[sc->pos] == '\t'))
            sc->pos++;
        if (sc->pos == sc->len) {
            if (want == WANT_END)
                return 0;
            return scan_fail(sc, sc->pos, ARB_EPARSE, "unexpected end of input, expected %s",
                             expected_text(want, in_object));
        }
        c = sc->s[sc->pos];
        switch (want) {
        case WANT_END:
            return scan_fail(sc, sc->pos, ARB_EPARSE, "trailing characters after the JSON value");
        case WANT_COLON:
            if (c != ':')
                return fail_char(sc, "':'");
            sc->pos++;
            want = WANT_VALUE;
            continue;
        case WANT_NEXT:
            if (c == ',') {
                sc->pos++;
                want = in_object ? WANT_KEY : WANT_VALUE;
                continue;
            }
            if (c != (in_object ? '}' : ']'))
                return fail_char(sc, expected_text(want, in_object));
            break; /* close below */
        case WANT_KEY_OR_CLOSE:
        case WANT_KEY:
            if (c == '}' && want == WANT_KEY_OR_CLOSE)
                break;
            if (c != '"')
                return fail_char(sc, expected_text(want, in_object));
            if (scan_string(sc) != 0)
                return -1;
            want = WANT_COLON;
            continue;
        case WANT_VALUE_OR_CLOSE:
            if (c == ']')
                break;
            /* fall through */
        case WANT_VALUE:
            if (c == '{' || c == '[') {
                if (depth == MAX_DEPTH)
                    return scan_fail(sc, sc->pos, ARB_ETOOBIG, "nesting deeper than %d levels",
                                     MAX_DEPTH);
                in_object = c == '{';
                if (in_object)
                    objects[depth / 8] |= (unsigned char)(1u << (depth % 8));
                else
                    objects[depth / 8] &= (unsigned char)~(1u << (depth % 8));
                depth++;
                sc->pos++;
                want = in_object ? WANT_KEY_OR_CLOSE : WANT_VALUE_OR_CLOSE;
                continue;
            }
            if (c == '"')
                rc = scan_string(sc);
            else if (c == '-' || (c >= '0' && c <= '9'))
                rc = scan_number(sc);
            else if (c == 't' || c == 'f' || c == 'n')
                rc = scan_literal(sc);
            else
                return fail_char(sc, expected_text(want, in_object));
            if (rc != 0)
                return -1;
            if (depth == 0)
                sc->value_end = sc->pos;
            want = depth ? WANT_NEXT : WANT_END;
            continue;
        }
        /* a closing bracket that matches the open container */
        sc->pos++;
        depth--;
        if (depth == 0)
            sc->value_end = sc->pos;
        in_object = depth && (objects[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1;
        want = depth ? WANT_NEXT : WANT_END;
    }
}

/* Report "line L, column C: what" for offset at; CR, LF and CRLF each end a line. */
static enum arb_status located(const char *text, size_t len, size_t at, enum arb_status st,
                               const char *what, struct arb_err *err)
{
    const unsigned char *s = (const unsigned char *)text;
    unsigned long line = 1, col = 1;
    size_t i;

    for (i = 0; i < at && i < len; i++) {
        if (s[i] == '\n' || (s[i] == '\r' && !(i + 1 < len && s[i + 1] == '\n'))) {
            line++;
            col = 1;
        } else if (s[i] != '\r' && (s[i] & 0xC0) != 0x80) {
            col++;
        }
    }
    return arb_err_set(err, st, "line %lu, column %lu: %s", line, col, what);
}

/* ---- locating a tree node in the (already validated) text ---- */

static size_t skip_ws_at(const unsigned char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t'))
        i++;
    return i;
}

static size_t skip_string_at(const unsigned char *s, size_t len, size_t i)
{
    for (i++; i < len && s[i] != '"'; i++) {
        if (s[i] == '\\')
            i++;
    }
    return i + 1;
}

static size_t skip_value_at(const unsigned char *s, size_t len, size_t i)
{
    size_t depth = 0;

    if (i < len && s[i] == '"')
        return skip_string_at(s, len, i);
    if (i < len && s[i] != '{' && s[i] != '[') {
        while (i < len && !strchr(",]} \t\r\n", s[i]))
            i++;
        return i;
    }
    while (i < len) {
        if (s[i] == '"') {
            i = skip_string_at(s, len, i);
            continue;
        }
        if (s[i] == '{' || s[i] == '[')
            depth++;
        else if ((s[i] == '}' || s[i] == ']') && --depth == 0)
            return i + 1;
        i++;
    }
    return i;
}

static const char *name_of(const cJSON *v)
{
    return v->string ? v->string : "";
}

static int subtree_has(const cJSON *node, const cJSON *target)
{
    const cJSON *c;

    if (node == target)
        return 1;
    for (c = node->child; c; c = c->next) {
        if (subtree_has(c, target))
            return 1;
    }
    return 0;
}

/* Append to a bounded path, never cutting a UTF-8 sequence, control bytes shown as '?'. */
static void path_add(char *path, size_t *plen, const char *s, size_t n)
{
    size_t i, k;

    for (i = 0; i < n; i += k) {
        k = 1;
        if ((unsigned char)s[i] >= 0xC0)
            while (i + k < n && ((unsigned char)s[i + k] & 0xC0) == 0x80)
                k++;
        if (*plen + k >= PATH_MAX_LEN)
            return;
        memcpy(path + *plen, s + i, k);
        if ((unsigned char)s[i] < 0x20)
            path[*plen] = '?';
        *plen += k;
        path[*plen] = '\0';
    }
}

struct where {
    size_t key_at;   /* the member name, or the value for array elements */
    size_t value_at; /* the value */
    char path[PATH_MAX_LEN];
};

/* Find target in the text and name it as a JSON pointer.  Only used on the error path. */
static void find_in_text(const char *text, size_t len, const cJSON *root, const cJSON *target,
                         struct where *w)
{
    const unsigned char *s = (const unsigned char *)text;
    const cJSON *node = root, *child;
    size_t i = skip_ws_at(s, len, 0), plen = 0, k, n;
    const char *name;
    char num[24];

    w->key_at = w->value_at = i;
    w->path[0] = '\0';
    while (node != target) {
        for (k = 0, child = node->child; child && !subtree_has(child, target); child = child->next)
            k++;
        if (!child)
            return;
        if (cJSON_IsObject(node)) {
            path_add(w->path, &plen, "/", 1);
            for (name = name_of(child); *name; name++)
                path_add(w->path, &plen,
                         *name == '~'   ? "~0"
                         : *name == '/' ? "~1"
                                        : name,
                         (*name == '~' || *name == '/') ? 2 : 1);
        } else {
            snprintf(num, sizeof(num), "/%zu", k);
            path_add(w->path, &plen, num, strlen(num));
        }
        i = skip_ws_at(s, len, i + 1);
        for (n = 0; n <= k; n++) {
            w->key_at = i;
            if (cJSON_IsObject(node)) {
                i = skip_ws_at(s, len, skip_string_at(s, len, i));
                i = skip_ws_at(s, len, i + 1);
            }
            w->value_at = i;
            if (n < k)
                i = skip_ws_at(s, len, skip_ws_at(s, len, skip_value_at(s, len, i)) + 1);
        }
        node = child;
    }
}

/* ---- checks that need the tree: duplicate keys, overflowing numbers ---- */

struct member {
    const char *name;
    size_t idx;
};

struct walk {
    int dups;
    int inf;
    struct member *scratch;
    size_t cap;
    enum arb_status st;
    int is_dup; /* the problem found is a duplicate key */
};

static int member_cmp(const void *pa, const void *pb)
{
    const struct member *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);

    if (c)
        return c;
    return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* The first member of obj (n members) whose name repeats an earlier one, or NULL. */
static const cJSON *first_duplicate(struct walk *w, const cJSON *obj, size_t n)
{
    const cJSON *c, *x;
    size_t i, best = SIZE_MAX;
    struct member *m;

    if (n <= SMALL_OBJECT) {
        for (c = obj->child; c; c = c->next) {
            for (x = obj->child; x != c; x = x->next) {
                if (strcmp(name_of(x), name_of(c)) == 0)
                    return c;
            }
        }
        return NULL;
    }
    /* sorting keeps 100k keys from costing 10^10 comparisons */
    if (n > w->cap) {
        m = realloc(w->scratch, n * sizeof(*m));
        if (!m) {
            w->st = ARB_ENOMEM;
            return NULL;
        }
        w->scratch = m;
        w->cap = n;
    }
    for (i = 0, c = obj->child; c; c = c->next, i++) {
        w->scratch[i].name = name_of(c);
        w->scratch[i].idx = i;
    }
    qsort(w->scratch, n, sizeof(*w->scratch), member_cmp);
    for (i = 1; i < n; i++) {
        if (w->scratch[i].idx < best && strcmp(w->scratch[i - 1].name, w->scratch[i].name) == 0)
            best = w->scratch[i].idx;
    }
    if (best == SIZE_MAX)
        return NULL;
    for (c = obj->child; best--;)
        c = c->next;
    return c;
}

/* The first problem in document order (recursion is bounded by the scanned depth). */
static const cJSON *find_problem(struct walk *w, const cJSON *node)
{
    const cJSON *dup = NULL, *c, *found;
    size_t n = 0;

    if (cJSON_IsNumber(node))
        return w->inf && !isfinite(node->valuedouble) ? node : NULL;
    if (w->dups && cJSON_IsObject(node)) {
        for (c = node->child; c; c = c->next)
            n++;
        if (n > 1)
            dup = first_duplicate(w, node, n);
        if (w->st != ARB_OK)
            return NULL;
    }
    for (c = node->child; c && c != dup; c = c->next) {
        found = find_problem(w, c);
        if (found || w->st != ARB_OK)
            return found;
    }
    w->is_dup = dup != NULL;
    return dup;
}

enum arb_status arb_json_parse(const char *text, size_t len, unsigned flags, cJSON **out,
                               struct arb_err *err)
{
    struct scan sc = {0};
    struct walk w = {0};
    struct where where;
    const char *end = NULL;
    const cJSON *bad;
    cJSON *root;
    char what[200];

    if (!out || (!text && len))
        return arb_err_set(err, ARB_EUSAGE, "no JSON text to parse");
    if (!text)
        text = "";
    if ((flags & ARB_JSON_ALLOW_BOM) && len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    sc.s = (const unsigned char *)text;
    sc.len = len;
    if (scan_text(&sc) != 0)
        return located(text, len, sc.err_at, sc.err_st, sc.what, err);

    /* without require_null_terminated: with a length, cJSON 1.7.15 then demands a NUL byte */
    root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root)
        return arb_err_set(err, ARB_ENOMEM, "out of memory while building the JSON tree");
    if (end != text + sc.value_end) {
        cJSON_Delete(root);
        return located(text, len, sc.value_end, ARB_EINTERNAL,
                       "cJSON and the scanner disagree on where the value ends", err);
    }
    w.dups = (flags & ARB_JSON_NO_DUPLICATES) != 0;
    w.inf = sc.maybe_inf;
    if (!w.dups && !w.inf) {
        *out = root;
        return ARB_OK;
    }
    bad = find_problem(&w, root);
    free(w.scratch);
    if (w.st != ARB_OK) {
        cJSON_Delete(root);
        return arb_err_set(err, w.st, "out of memory while checking for duplicate keys");
    }
    if (!bad) {
        *out = root;
        return ARB_OK;
    }
    find_in_text(text, len, root, bad, &where);
    cJSON_Delete(root);
    if (w.is_dup) {
        snprintf(what, sizeof(what), "duplicate key at '%s'", where.path);
        return located(text, len, where.key_at, ARB_EPARSE, what, err);
    }
    snprintf(what, sizeof(what), "number out of range of a double at '%s'", where.path);
    return located(text, len, where.value_at, ARB_EPARSE, what, err);
}
