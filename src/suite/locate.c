/*
 * locate.c - from a JSON pointer back to line:column in the text it came from.
 *
 * The validator and the check compiler speak in JSON pointers
 * ("/rubric/content/0/check/op"); people read files.  json_locate scans the
 * text once with a tiny tokenizer that keeps the pointer of the value it is
 * in, and stops at the value (and member key) the pointer names.  The text has
 * already been parsed by arb_json_parse, so the tokenizer trusts its shape and
 * only needs to be safe, not strict.  Errors in messages are formatted here
 * too: "FILE:LINE:COL: /json/pointer: message".
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "suite_int.h"

/* One open container: an object, or an array with the index of the current item. */
struct frame {
    int is_object;
    size_t index;
    size_t ptr_len; /* length of the pointer of the container itself */
};

struct scanner {
    const char *s;
    size_t len, i;
    struct arb_buf ptr; /* pointer of the current value */
    struct arb_buf key; /* decoded member name */
    struct frame *stack;
    size_t depth, cap;
};

static void skip_ws(struct scanner *sc)
{
    while (sc->i < sc->len && strchr(" \t\r\n", sc->s[sc->i]) && sc->s[sc->i])
        sc->i++;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    int k;

    for (k = 0; k < 4; k++) {
        char c = s[k];

        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
    }
    return v;
}

/* Skip the string at sc->i (on its quote); when out is given, decode it there. */
static enum arb_status scan_string(struct scanner *sc, struct arb_buf *out)
{
    enum arb_status st = ARB_OK;

    sc->i++;
    while (sc->i < sc->len && sc->s[sc->i] != '"' && !st) {
        char c = sc->s[sc->i];

        if (c != '\\') {
            if (out)
                st = arb_buf_addc(out, c);
            sc->i++;
            continue;
        }
        if (sc->i + 1 >= sc->len)
            break;
        c = sc->s[sc->i + 1];
        sc->i += 2;
        if (c == 'u' && sc->i + 4 <= sc->len) {
            uint32_t cp = hex4(sc->s + sc->i);
            char utf8[4];

            sc->i += 4;
            if (cp >= 0xD800 && cp < 0xDC00 && sc->i + 6 <= sc->len && sc->s[sc->i] == '\\' &&
                sc->s[sc->i + 1] == 'u') {
                uint32_t lo = hex4(sc->s + sc->i + 2);

                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    sc->i += 6;
                }
            }
            if (out)
                st = arb_buf_add(out, utf8, arb_utf8_encode(cp, utf8));
            continue;
        }
        if (out) {
            const char *from = "bfnrt", *to = "\b\f\n\r\t";
            const char *at = strchr(from, c);

            st = arb_buf_addc(out, at && c ? to[at - from] : c);
        }
    }
    sc->i++;
    return st;
}

/* Skip a number or literal. */
static void scan_atom(struct scanner *sc)
{
    while (sc->i < sc->len && !strchr(",]} \t\r\n", sc->s[sc->i]) && sc->s[sc->i])
        sc->i++;
}

static enum arb_status push(struct scanner *sc, int is_object)
{
    if (sc->depth == sc->cap) {
        size_t cap = sc->cap ? sc->cap * 2 : 16;
        struct frame *f = realloc(sc->stack, cap * sizeof(*f));

        if (!f)
            return ARB_ENOMEM;
        sc->stack = f;
        sc->cap = cap;
    }
    sc->stack[sc->depth].is_object = is_object;
    sc->stack[sc->depth].index = 0;
    sc->stack[sc->depth].ptr_len = sc->ptr.len;
    sc->depth++;
    return ARB_OK;
}

/* Set the current pointer to the container's plus one token. */
static enum arb_status set_token(struct scanner *sc, const char *token)
{
    sc->ptr.len = sc->stack[sc->depth - 1].ptr_len;
    if (sc->ptr.ptr)
        sc->ptr.ptr[sc->ptr.len] = '\0';
    return arb_json_pointer_push(&sc->ptr, token);
}

static int ptr_is(const struct scanner *sc, const char *pointer)
{
    return strcmp(sc->ptr.ptr ? sc->ptr.ptr : "", pointer) == 0;
}

static struct pos pos_of(const char *s, size_t len, size_t at)
{
    struct pos p = {1, 1};
    size_t i;

    for (i = 0; i < at; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == '\n' || (c == '\r' && !(i + 1 < len && s[i + 1] == '\n'))) {
            p.line++;
            p.col = 1;
        } else if (c != '\r' && (c & 0xC0) != 0x80) {
            p.col++;
        }
    }
    return p;
}

/*
 * Walk the text; returns 1 with *val_at (and *key_at) set when the value at
 * pointer starts, 0 when the text ends first, -1 when memory runs out.
 */
static int walk(struct scanner *sc, const char *pointer, size_t *val_at, size_t *key_at)
{
    size_t key_start = (size_t)-1;

    for (;;) {
        /* at the start of a value */
        skip_ws(sc);
        if (sc->i >= sc->len)
            return 0;
        if (ptr_is(sc, pointer)) {
            *val_at = sc->i;
            *key_at = key_start == (size_t)-1 ? sc->i : key_start;
            return 1;
        }
        key_start = (size_t)-1;
        if (sc->s[sc->i] == '{' || sc->s[sc->i] == '[') {
            int obj = sc->s[sc->i] == '{';

            if (push(sc, obj))
                return -1;
            sc->i++;
            skip_ws(sc);
            if (sc->i < sc->len && sc->s[sc->i] == (obj ? '}' : ']')) {
                sc->i++;
                sc->depth--;
            } else if (!obj) {
                if (set_token(sc, "0"))
                    return -1;
                continue;
            } else {
                goto member;
            }
        } else if (sc->s[sc->i] == '"') {
            if (scan_string(sc, NULL))
                return -1;
        } else {
            scan_atom(sc);
        }
        /* after a value: a separator or closers */
        for (;;) {
            struct frame *f;

            if (sc->depth == 0)
                return 0;
            f = &sc->stack[sc->depth - 1];
            skip_ws(sc);
            if (sc->i >= sc->len)
                return 0;
            if (sc->s[sc->i] != ',') {
                sc->i++; /* the closer */
                sc->depth--;
                continue;
            }
            sc->i++;
            if (!f->is_object) {
                char num[24];

                snprintf(num, sizeof(num), "%zu", ++f->index);
                if (set_token(sc, num))
                    return -1;
                break;
            }
            skip_ws(sc);
            goto member;
        }
        continue;
    member:
        /* at a member name inside an object */
        if (sc->i >= sc->len || sc->s[sc->i] != '"')
            return 0;
        key_start = sc->i;
        arb_buf_reset(&sc->key);
        if (scan_string(sc, &sc->key) || arb_buf_add(&sc->key, "", 0) || set_token(sc, sc->key.ptr))
            return -1;
        skip_ws(sc);
        if (sc->i < sc->len && sc->s[sc->i] == ':')
            sc->i++;
    }
}

int json_locate(const char *text, size_t len, const char *pointer, struct pos *value,
                struct pos *key)
{
    struct scanner sc;
    size_t val_at = 0, key_at = 0;
    int found;

    if (!text)
        return 0;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        text += 3;
        len -= 3;
    }
    memset(&sc, 0, sizeof(sc));
    sc.s = text;
    sc.len = len;
    arb_buf_init(&sc.ptr, 0);
    arb_buf_init(&sc.key, 0);
    found = walk(&sc, pointer, &val_at, &key_at) == 1;
    arb_buf_release(&sc.ptr);
    arb_buf_release(&sc.key);
    free(sc.stack);
    if (found) {
        *value = pos_of(text, len, val_at);
        *key = pos_of(text, len, key_at);
    }
    return found;
}

struct pos locate_pos(const struct src *src, const char *pointer, int at_key)
{
    struct pos val = {1, 1}, key = {1, 1};
    char *p = strdup(pointer);
    int found = 0;

    if (p && src->text) {
        for (;;) {
            char *slash;

            found = json_locate(src->text, src->len, p, &val, &key);
            if (found || !p[0])
                break;
            slash = strrchr(p, '/');
            if (!slash)
                break; /* not a pointer at all: the start of the text */
            *slash = '\0';
            at_key = 0;
        }
    }
    free(p);
    if (!found)
        val.line = val.col = 1;
    val = at_key ? key : val;
    val.line += src->line0 ? src->line0 - 1 : 0;
    return val;
}

enum arb_status located(struct arb_err *err, enum arb_status st, const struct src *src,
                        const char *pointer, int at_key, const char *fmt, ...)
{
    char what[sizeof(err->msg)];
    struct pos p;
    va_list ap;

    if (!err)
        return st;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    p = locate_pos(src, pointer, at_key);
    if (pointer[0])
        return arb_err_set(err, st, "%s:%zu:%zu: %s: %s", src->file, p.line, p.col, pointer, what);
    return arb_err_set(err, st, "%s:%zu:%zu: %s", src->file, p.line, p.col, what);
}

enum arb_status located_parse(struct arb_err *err, enum arb_status st, const struct src *src,
                              const char *parse_msg)
{
    unsigned long line = 0, col = 0;
    int used = 0;
    char msg[sizeof(err->msg)];

    if (!err)
        return st;
    snprintf(msg, sizeof(msg), "%s", parse_msg);
    if (sscanf(msg, "line %lu, column %lu: %n", &line, &col, &used) >= 2 && used > 0)
        return arb_err_set(err, st, "%s:%zu:%lu: %s", src->file,
                           (size_t)line + (src->line0 ? src->line0 - 1 : 0), col, msg + used);
    return arb_err_set(err, st, "%s:%zu: %s", src->file, src->line0 ? src->line0 : 1, msg);
}

void arb_json_pointer_pos(const char *text, size_t len, const char *pointer, size_t *line,
                          size_t *col)
{
    struct src src;
    struct pos p;

    memset(&src, 0, sizeof(src));
    src.text = text;
    src.len = len;
    p = locate_pos(&src, pointer ? pointer : "", 0);
    *line = p.line;
    *col = p.col;
}

void arb_err_locate(struct arb_err *err, const char *file, const char *text, size_t len,
                    const char *strip)
{
    char msg[sizeof(err->msg)], pointer[sizeof(err->msg)];
    const char *m = err->msg, *colon;
    size_t line, col, n = strip ? strlen(strip) : 0;

    snprintf(msg, sizeof(msg), "%s", err->msg);
    m = msg;
    if (n && strncmp(m, strip, n) == 0 && (m[n] == '/' || m[n] == ':'))
        m += n;
    colon = m[0] == '/' || m[0] == ':' ? strstr(m, ": ") : NULL;
    if (!colon || !text) {
        arb_err_set(err, ARB_OK, "%s: %s", file, m);
        return;
    }
    memcpy(pointer, m, (size_t)(colon - m));
    pointer[colon - m] = '\0';
    arb_json_pointer_pos(text, len, pointer, &line, &col);
    if (pointer[0])
        arb_err_set(err, ARB_OK, "%s:%zu:%zu: %s", file, line, col, m);
    else
        arb_err_set(err, ARB_OK, "%s:%zu:%zu: %s", file, line, col, colon + 2);
}

void arb_err_locate_parse(struct arb_err *err, const char *file)
{
    struct src src;

    memset(&src, 0, sizeof(src));
    src.file = file;
    src.line0 = 1;
    located_parse(err, ARB_OK, &src, err->msg);
}
