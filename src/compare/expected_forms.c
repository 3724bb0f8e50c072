/*
 * expected_forms.c - how the operators read what they compare: an expected value as text or as
 * JSON, the observed text as JSON (U+0000 kept, a repeated key's last value, each noted), and
 * evalwire's expected forms: a Python list literal of strings read the way ast.literal_eval
 * reads one, and an expected value read as evalwire's _parse_expected does (a one-item list is
 * its item; "['a', 'b']" is a list).
 *
 * The reader accepts what literal_eval accepts for a list of str: '[' items ']' with an optional
 * trailing comma; each item one or more adjacent string literals (joined, as Python joins them)
 * with an optional u/U/r/R prefix, in single, double or triple quotes; the escapes of a str
 * literal (\\ \' \" \a \b \f \n \r \t \v, \ooo, \xhh, \uXXXX, \UXXXXXXXX, backslash-newline;
 * an unknown escape keeps its backslash); white space, line continuations and comments between
 * tokens; leading spaces and tabs (literal_eval strips them).  It refuses, saying where and why,
 * what literal_eval would refuse or read as something other than a list of str: bytes (b''),
 * f-strings, numbers, nested lists, \N{...} (a name table is not carried), and the code points
 * JSON text cannot hold (surrogates, U+0000).  Nothing is global; the list is the caller's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "check_impl.h"

struct pyrd {
    const char *s;
    size_t n, i;
    char *why;
    size_t whylen;
};

static int fail(struct pyrd *r, size_t at, const char *what)
{
    snprintf(r->why, r->whylen, "offset %zu: %s", at, what);
    return -1;
}

/* Past white space, line continuations and comments. */
static void skip_gap(struct pyrd *r)
{
    while (r->i < r->n) {
        char ch = r->s[r->i];

        if (ch == ' ' || ch == '\t' || ch == '\f' || ch == '\n' || ch == '\r') {
            r->i++;
        } else if (ch == '\\' && r->i + 1 < r->n &&
                   (r->s[r->i + 1] == '\n' || r->s[r->i + 1] == '\r')) {
            r->i += 2;
        } else if (ch == '#') {
            while (r->i < r->n && r->s[r->i] != '\n' && r->s[r->i] != '\r')
                r->i++;
        } else {
            break;
        }
    }
}

/* Add code point cp (from the escape at 'at') to out; -1 when JSON text cannot hold it. */
static int add_cp(struct pyrd *r, size_t at, unsigned long cp, struct arb_buf *out)
{
    char u[4];

    if (cp == 0)
        return fail(r, at, "U+0000 in a string");
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return fail(r, at, "escape is not a Unicode scalar value (a surrogate or past U+10FFFF)");
    return arb_buf_add(out, u, arb_utf8_encode((uint32_t)cp, u)) ? -2 : 0;
}

/* The escape after the backslash at r->i in a str literal; r->i moves past it. */
static int escape(struct pyrd *r, struct arb_buf *out)
{
    static const char from[] = "\\'\"abfnrtv";
    static const char to[] = "\\'\"\a\b\f\n\r\t\v";
    size_t at = r->i, k, want;
    unsigned long cp = 0;
    const char *hit;
    char ch;

    if (r->i + 1 >= r->n)
        return fail(r, at, "unterminated string");
    ch = r->s[r->i + 1];
    r->i += 2;
    if (ch == '\n' || ch == '\r') {
        if (ch == '\r' && r->i < r->n && r->s[r->i] == '\n')
            r->i++;
        return 0;
    }
    hit = ch ? strchr(from, ch) : NULL;
    if (hit)
        return arb_buf_addc(out, to[hit - from]) ? -2 : 0;
    if (ch >= '0' && ch <= '7') {
        cp = (unsigned long)(ch - '0');
        for (k = 0; k < 2 && r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '7'; k++)
            cp = cp * 8 + (unsigned long)(r->s[r->i++] - '0');
        return add_cp(r, at, cp, out);
    }
    want = ch == 'x' ? 2 : ch == 'u' ? 4 : ch == 'U' ? 8 : 0;
    if (want) {
        for (k = 0; k < want; k++) {
            int h = r->i < r->n ? arb_hex_value(r->s[r->i]) : -1;

            if (h < 0)
                return fail(r, at, "truncated \\x, \\u or \\U escape");
            cp = cp * 16 + (unsigned long)h;
            r->i++;
        }
        return add_cp(r, at, cp, out);
    }
    if (ch == 'N')
        return fail(r, at, "\\N{...} escapes are not read (write the character or \\u)");
    /* Python keeps an unknown escape as written, backslash and all */
    return arb_buf_add(out, r->s + at, 2) ? -2 : 0;
}

/* One string literal at r->i (prefix, quotes, body) appended to out. */
static int literal(struct pyrd *r, struct arb_buf *out)
{
    size_t at = r->i, q;
    int raw = 0, triple;
    char quote;

    if (r->i < r->n && r->s[r->i] && strchr("rRuU", r->s[r->i])) {
        raw = r->s[r->i] == 'r' || r->s[r->i] == 'R';
        r->i++;
    }
    if (r->i == at && r->i < r->n && r->s[r->i] && strchr("bBfF", r->s[r->i]))
        return fail(r, at, "bytes (b'') and f-strings are not str literals");
    if (r->i >= r->n || (r->s[r->i] != '\'' && r->s[r->i] != '"'))
        return fail(r, at,
                    raw || r->i > at ? "expected a quote after the string prefix"
                                     : "expected a string literal ('...' or \"...\")");
    quote = r->s[r->i];
    triple = r->i + 2 < r->n && r->s[r->i + 1] == quote && r->s[r->i + 2] == quote;
    r->i += triple ? 3 : 1;
    for (;;) {
        char ch;

        if (r->i >= r->n)
            return fail(r, at, "unterminated string");
        ch = r->s[r->i];
        if (ch == quote &&
            (!triple || (r->i + 2 < r->n && r->s[r->i + 1] == quote && r->s[r->i + 2] == quote))) {
            r->i += triple ? 3 : 1;
            return 0;
        }
        if ((ch == '\n' || ch == '\r') && !triple)
            return fail(r, at, "unterminated string (a line break inside quotes)");
        if (ch == '\0')
            return fail(r, r->i, "U+0000 in a string");
        if (ch == '\\' && !raw) {
            int e = escape(r, out);

            if (e)
                return e;
            continue;
        }
        /* in a raw string a backslash still keeps the next character from ending it */
        q = ch == '\\' && r->i + 1 < r->n ? 2 : 1;
        if (arb_buf_add(out, r->s + r->i, q))
            return -2;
        r->i += q;
    }
}

enum arb_status arb_pylist_parse(const char *s, size_t n, cJSON **out, char *why, size_t whylen)
{
    struct pyrd r = {s, n, 0, why, whylen};
    struct arb_buf item;
    cJSON *list = cJSON_CreateArray();
    int e = 0;

    *out = NULL;
    if (!list)
        return ARB_ENOMEM;
    arb_buf_init(&item, 0);
    while (r.i < n && (s[r.i] == ' ' || s[r.i] == '\t'))
        r.i++;
    if (r.i >= n || s[r.i] != '[')
        e = fail(&r, r.i, "expected '['");
    else
        r.i++;
    while (!e) {
        cJSON *str;

        skip_gap(&r);
        if (r.i < n && s[r.i] == ']')
            break;
        arb_buf_reset(&item);
        do {
            e = literal(&r, &item);
            skip_gap(&r);
        } while (!e && r.i < n && s[r.i] && strchr("'\"rRuU", s[r.i]));
        if (e)
            break;
        str = cJSON_CreateString(item.ptr ? item.ptr : "");
        if (!str || !cJSON_AddItemToArray(list, str)) {
            cJSON_Delete(str);
            e = -2;
            break;
        }
        if (r.i < n && s[r.i] == ',') {
            r.i++;
            continue;
        }
        if (r.i >= n || s[r.i] != ']')
            e = fail(&r, r.i, "expected ',' or ']' after a string");
        break;
    }
    if (!e) {
        r.i++;
        skip_gap(&r);
        if (r.i != n)
            e = fail(&r, r.i, "text after the closing ']'");
    }
    arb_buf_release(&item);
    if (e) {
        cJSON_Delete(list);
        return e == -2 ? ARB_ENOMEM : ARB_EPARSE;
    }
    *out = list;
    return ARB_OK;
}

/* ---- the texts and trees operators compare ------------------------------------------- */

enum arb_status expected_text(const cJSON *e, struct arb_buf *scratch, const char **s, size_t *n)
{
    enum arb_status st;

    if (cJSON_IsString(e)) {
        *s = e->valuestring;
        *n = strlen(e->valuestring);
        if (!memchr(*s, 0xC0, *n))
            return ARB_OK;
        /* U+0000 as ARB_JSON_ALLOW_NUL holds it (C0 80) is a NUL byte of the text */
        arb_buf_reset(scratch);
        for (size_t i = 0, from = 0; i <= *n; i++) {
            if (i < *n && !((unsigned char)(*s)[i] == 0xC0 && (unsigned char)(*s)[i + 1] == 0x80))
                continue;
            st = arb_buf_add(scratch, *s + from, i - from);
            if (!st && i < *n)
                st = arb_buf_add(scratch, "", 1);
            if (st)
                return st;
            from = i + 2;
            i++;
        }
        *s = scratch->ptr ? scratch->ptr : "";
        *n = scratch->len;
        return ARB_OK;
    }
    arb_buf_reset(scratch);
    st = arb_jcs_write(e, scratch, NULL);
    if (st)
        return st;
    *s = scratch->ptr ? scratch->ptr : "";
    *n = scratch->len;
    return ARB_OK;
}

const cJSON *expected_json(const cJSON *e, cJSON **owned)
{
    const char *s;
    size_t n;
    cJSON *parsed = NULL;

    *owned = NULL;
    if (!cJSON_IsString(e))
        return e;
    s = e->valuestring;
    n = strlen(s);
    while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
        s++, n--;
    if (!n || (*s != '{' && *s != '['))
        return e;
    if (arb_json_parse(s, n, ARB_JSON_ALLOW_NUL | ARB_JSON_LAST_KEY_WINS, &parsed, NULL) != ARB_OK)
        return e;
    *owned = parsed;
    return parsed;
}

/* How the comparators read observed JSON (check_impl.h). */
#define OBSERVED_FLAGS (ARB_JSON_ALLOW_BOM | ARB_JSON_ALLOW_NUL | ARB_JSON_LAST_KEY_WINS)

/* One note per repeated key of the observed JSON, "duplicate_key:/a" (the last value won). */
static enum arb_status note_duplicates(struct arb_result *r, const struct arb_buf *dups)
{
    size_t i = 0;
    enum arb_status st = ARB_OK;

    if (dups->len)
        result_norm_side(r, "duplicate_key_last_wins", ARB_SIDE_OBSERVED);
    while (!st && i < dups->len) {
        st = result_notef(r, "duplicate_key:%s", dups->ptr + i);
        i += strlen(dups->ptr + i) + 1;
    }
    return st;
}

/* What observed_json and observed_members note after the parse: a failure, or repeated keys. */
static enum arb_status parse_noted(enum arb_status parsed, const struct arb_err *perr,
                                   struct arb_result *r, const struct arb_buf *dups)
{
    enum arb_status st;

    if (parsed == ARB_ENOMEM)
        return parsed;
    if (parsed) {
        st = result_note(r, "json_parse_failed");
        return st ? st : result_notef(r, "json_parse_failed: %s", perr->msg);
    }
    return note_duplicates(r, dups);
}

enum arb_status observed_json(const struct op_input *in, struct arb_result *r, cJSON **out)
{
    struct arb_err perr; /* read only when the parse failed, which fills it */
    struct arb_buf dups;
    enum arb_status st;

    perr.msg[0] = '\0';
    *out = NULL;
    arb_buf_init(&dups, 0);
    st = arb_json_parse_ex(in->text, in->len, OBSERVED_FLAGS, out, &dups, &perr);
    if (st)
        *out = NULL;
    st = parse_noted(st, &perr, r, &dups);
    arb_buf_release(&dups);
    if (st) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    return st;
}

/* parse_noted for the shared parse: a failure's detail note formatted once for its checks. */
static enum arb_status shared_noted(struct arb_observed *o, enum arb_status parsed,
                                    const struct arb_err *perr, struct arb_result *r,
                                    const struct arb_buf *dups)
{
    enum arb_status st;

    if (parsed == ARB_OK || parsed == ARB_ENOMEM)
        return parse_noted(parsed, perr, r, dups);
    if (!o->fail_note[0]) { /* as result_notef formats it: cut at 511 bytes */
        static const char head[] = "json_parse_failed: ";
        size_t n = strlen(perr->msg);

        n = n < sizeof(o->fail_note) - sizeof(head) ? n : sizeof(o->fail_note) - sizeof(head);
        memcpy(o->fail_note, head, sizeof(head) - 1);
        memcpy(o->fail_note + sizeof(head) - 1, perr->msg, n);
        o->fail_note[sizeof(head) - 1 + n] = '\0';
    }
    st = result_note(r, "json_parse_failed");
    return st ? st : result_note(r, o->fail_note);
}

enum arb_status observed_doc(const struct op_input *in, struct arb_result *r, const cJSON **doc,
                             cJSON **owned)
{
    const struct arb_err *perr;
    const struct arb_buf *dups;
    enum arb_status parsed, st;

    *doc = NULL;
    *owned = NULL;
    if (!in->shared) {
        st = observed_json(in, r, owned);
        *doc = *owned;
        return st;
    }
    st = observed_parsed(in->shared, doc, &parsed, &perr, &dups);
    if (!st)
        st = shared_noted(in->shared, parsed, perr, r, dups);
    if (st)
        *doc = NULL;
    return st;
}

/* observed_members from the shared whole tree: the values arb_json_parse_members gives. */
static enum arb_status shared_members(const struct op_input *in, struct arb_result *r,
                                      const char *const *names, size_t n, cJSON **values, int *read)
{
    const cJSON *doc;
    const struct arb_err *perr;
    const struct arb_buf *dups;
    enum arb_status parsed, st;
    size_t i, k;

    for (i = 0; i < n; i++)
        values[i] = NULL;
    st = observed_parsed(in->shared, &doc, &parsed, &perr, &dups);
    if (!st)
        st = shared_noted(in->shared, parsed, perr, r, dups);
    *read = parsed ? -1 : cJSON_IsObject(doc);
    if (st || *read != 1)
        return st;
    for (i = 0; i < n; i++) {
        for (k = 0; k < i && strcmp(names[k], names[i]) != 0; k++)
            ;
        if (k == i) /* a name listed twice gets its value at its first place only */
            values[i] = cJSON_GetObjectItemCaseSensitive(doc, names[i]);
    }
    return ARB_OK;
}

enum arb_status observed_members(const struct op_input *in, struct arb_result *r,
                                 const char *const *names, size_t n, cJSON **values, int *read,
                                 int *owned)
{
    struct arb_err perr; /* as in observed_json */
    struct arb_buf dups;
    enum arb_status parsed, st;
    int is_object = 0;
    size_t i;

    *owned = !in->shared;
    if (in->shared)
        return shared_members(in, r, names, n, values, read);
    perr.msg[0] = '\0';
    arb_buf_init(&dups, 0);
    parsed = arb_json_parse_members(in->text, in->len, OBSERVED_FLAGS, names, n, values, &is_object,
                                    &dups, &perr);
    st = parse_noted(parsed, &perr, r, &dups);
    arb_buf_release(&dups);
    *read = parsed ? -1 : is_object;
    for (i = 0; st && i < n; i++) {
        cJSON_Delete(values[i]);
        values[i] = NULL;
    }
    return st;
}

/* ---- the operators' readings of expected -------------------------------------------------- */

int expected_looks_like_list(const char *s)
{
    size_t n;

    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '[')
        return 0;
    n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    return s[n - 1] == ']';
}

enum arb_status expected_one(const cJSON *e, int py, struct arb_result *res, cJSON **owned,
                             const cJSON **out)
{
    char why[160];
    enum arb_status st;

    *owned = NULL;
    *out = e;
    if (cJSON_IsArray(e) && e->child && !e->child->next) {
        result_norm_side(res, "expected_single_item_list", ARB_SIDE_EXPECTED);
        *out = e->child;
        return ARB_OK;
    }
    if (!py || !cJSON_IsString(e) || !expected_looks_like_list(e->valuestring))
        return ARB_OK;
    st = arb_pylist_parse(e->valuestring, strlen(e->valuestring), owned, why, sizeof(why));
    if (st == ARB_EPARSE)
        return result_notef(res, "expected_python_list_literal: not read, compared as text (%s)",
                            why);
    if (st)
        return st;
    result_norm_side(res, "expected_python_list_literal", ARB_SIDE_EXPECTED);
    *out = (*owned)->child;
    if (!*out)
        return result_note(res, "expected_empty_list");
    if ((*out)->next)
        result_norm_side(res, "expected_first_item", ARB_SIDE_EXPECTED);
    return ARB_OK;
}

enum arb_status expected_list(const cJSON *e, struct arb_result *res, cJSON **owned,
                              const cJSON **out)
{
    char why[160];
    enum arb_status st;

    *out = expected_json(e, owned);
    if (*out != e || !cJSON_IsString(e) || !expected_looks_like_list(e->valuestring))
        return ARB_OK;
    st = arb_pylist_parse(e->valuestring, strlen(e->valuestring), owned, why, sizeof(why));
    if (st == ARB_EPARSE)
        return result_notef(res, "expected_list_unreadable: %s; compared as one item", why);
    if (st)
        return st;
    result_norm_side(res, "expected_python_list_literal", ARB_SIDE_EXPECTED);
    *out = *owned;
    return ARB_OK;
}

enum arb_status expected_list_check(const cJSON *e, const char *path, struct arb_err *err)
{
    char why[160];
    cJSON *owned = NULL, *list = NULL;
    enum arb_status st;

    if (!cJSON_IsString(e) || !expected_looks_like_list(e->valuestring))
        return ARB_OK;
    if (expected_json(e, &owned) != e) {
        cJSON_Delete(owned);
        return ARB_OK;
    }
    st = arb_pylist_parse(e->valuestring, strlen(e->valuestring), &list, why, sizeof(why));
    cJSON_Delete(list);
    if (st != ARB_EPARSE)
        return st;
    return arb_err_set(err, ARB_ESCHEMA,
                       "%s%sexpected a list: a JSON array, or text holding a JSON array or a "
                       "Python list of strings (\"['a', 'b']\"); '%.60s' reads as neither: %s",
                       path, path[0] ? ": " : "", e->valuestring, why);
}
