/*
 * jlocate.c - where things are in a JSON text (jscan.h): an offset as line and column, the
 * items of a container one by one, and the value a JSON pointer names.
 *
 * Errors are found in trees and offsets, and people read lines: arb_json_parse locates what the
 * strict check and the tree refused, the suite loader what its schema and checks refused
 * ("FILE:LINE:COL: /pointer: ..."), and the labels reader a value in one line.  The text has
 * been accepted by arb_jscan_check first, so the walk relies on the cursor of jscan.c, which
 * only delimits; on other text it stays in bounds and may find nothing.  The formats around
 * positions (file names, pointers in messages) belong to the callers.
 */
#include <stdio.h>
#include <string.h>

#include "jscan.h"

struct arb_jscan_pos arb_jscan_pos(const char *s, size_t len, size_t at)
{
    const unsigned char *u = (const unsigned char *)s;
    struct arb_jscan_pos p = {1, 1};

    for (size_t i = 0; i < at && i < len; i++) {
        if (u[i] == '\n' || (u[i] == '\r' && !(i + 1 < len && u[i + 1] == '\n'))) {
            p.line++;
            p.col = 1;
        } else if (u[i] != '\r' && (u[i] & 0xC0) != 0x80) {
            p.col++;
        }
    }
    return p;
}

/* Append the decimal digits of v at msg + *n (room permitting). */
static void put_size(char *msg, size_t cap, size_t *n, size_t v)
{
    char d[24];
    size_t k = 0;

    do {
        d[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (k && *n + 1 < cap)
        msg[(*n)++] = d[--k];
}

static void put_text(char *msg, size_t cap, size_t *n, const char *t)
{
    while (*t && *n + 1 < cap)
        msg[(*n)++] = *t++;
}

/*
 * The bytes snprintf writes for "line %zu, column %zu: %s" (cut to the buffer as it cuts), put
 * by hand: a text that is not JSON (an output with prose around its JSON) is common, and each
 * check's parse failure note names where.
 */
enum arb_status arb_jscan_err_at(struct arb_err *err, enum arb_status st, const char *s, size_t len,
                                 size_t at, const char *what)
{
    struct arb_jscan_pos p = arb_jscan_pos(s, len, at);
    size_t n = 0, cap = sizeof(err->msg);

    if (!err)
        return st;
    put_text(err->msg, cap, &n, "line ");
    put_size(err->msg, cap, &n, p.line);
    put_text(err->msg, cap, &n, ", column ");
    put_size(err->msg, cap, &n, p.col);
    put_text(err->msg, cap, &n, ": ");
    put_text(err->msg, cap, &n, what);
    err->msg[n] = '\0';
    return st;
}

/* ---- the items of a container ------------------------------------------------------------ */

void arb_jscan_items_init(struct arb_jscan_items *it, const char *s, size_t len, size_t at)
{
    memset(it, 0, sizeof(*it));
    it->sc.s = s;
    it->sc.len = len;
    it->sc.pos = at;
    if (at < len && (s[at] == '{' || s[at] == '['))
        it->close = s[at] == '{' ? '}' : ']';
    else
        it->state = -1;
}

int arb_jscan_items_next(struct arb_jscan_items *it)
{
    struct arb_jscan *sc = &it->sc;
    int more;

    if (it->state < 0)
        return 0;
    if (it->state == 0) {
        more = arb_jscan_open(sc);
    } else {
        sc->pos = it->value_at;
        more = arb_jscan_skip(sc) == 0 ? arb_jscan_next(sc, it->close) : -1;
        it->index++;
    }
    it->state = more > 0 ? 1 : -1;
    if (more <= 0)
        return 0;
    it->key_at = it->key_end = sc->pos;
    if (it->close == '}') {
        if (arb_jscan_skip(sc) != 0) {
            it->state = -1;
            return 0;
        }
        it->key_end = sc->pos;
        (void)arb_jscan_colon(sc); /* the text is JSON: the colon is there */
    }
    it->value_at = sc->pos;
    return 1;
}

/* ---- from a JSON pointer to an offset ---------------------------------------------------- */

struct find {
    const char *s;
    size_t len;
    struct arb_buf name; /* a member name, decoded */
    size_t *value_at, *key_at;
};

/* Whether the reference token tok[0..n) names the member called name (~0 is ~, ~1 is /). */
static int token_names(const char *tok, size_t n, const char *name)
{
    size_t i = 0;

    for (; *name; name++) {
        const char *esc = *name == '~' ? "~0" : *name == '/' ? "~1" : NULL;

        if (esc ? n - i < 2 || memcmp(tok + i, esc, 2) != 0 : i >= n || tok[i] != *name)
            return 0;
        i += esc ? 2 : 1;
    }
    return i == n;
}

/* Whether tok[0..n) is index in decimal, as a pointer writes it (no sign, no leading zero). */
static int token_indexes(const char *tok, size_t n, size_t index)
{
    char num[24];
    int k = snprintf(num, sizeof(num), "%zu", index);

    return k > 0 && (size_t)k == n && memcmp(num, tok, n) == 0;
}

/*
 * The value the rest of the pointer p names, inside the value at offset at (whose key is at
 * key_at): 1 found, 0 not, -1 out of memory.  Depth first, items in order, so where names repeat
 * the first value in the text is found, as a reader of the text would.
 */
static int find_in(struct find *f, size_t at, size_t key_at, const char *p)
{
    struct arb_jscan_items it;
    const char *tok;
    size_t n;
    int r;

    if (!*p) {
        *f->value_at = at;
        *f->key_at = key_at;
        return 1;
    }
    if (*p != '/')
        return 0;
    tok = p + 1;
    n = strcspn(tok, "/");
    arb_jscan_items_init(&it, f->s, f->len, at);
    while (arb_jscan_items_next(&it)) {
        if (it.close == ']') {
            if (!token_indexes(tok, n, it.index))
                continue;
        } else {
            struct arb_jscan name = {f->s, f->len, it.key_at};
            enum arb_status st;

            arb_buf_reset(&f->name);
            st = arb_jscan_string(&name, &f->name);
            if (st == ARB_ENOMEM)
                return -1;
            if (st != ARB_OK || !token_names(tok, n, f->name.ptr))
                continue;
        }
        r = find_in(f, it.value_at, it.close == '}' ? it.key_at : it.value_at, tok + n);
        if (r != 0)
            return r;
    }
    return 0;
}

int arb_jscan_find(const char *s, size_t len, const char *pointer, size_t *value_at, size_t *key_at)
{
    struct arb_jscan sc = {s, len, 0};
    struct find f = {s, len, {0}, value_at, key_at};
    int r;

    if (!s || !pointer)
        return 0;
    arb_jscan_ws(&sc);
    if (sc.pos >= len)
        return 0;
    arb_buf_init(&f.name, 0);
    r = find_in(&f, sc.pos, sc.pos, pointer);
    arb_buf_release(&f.name);
    return r == 1;
}

int arb_jscan_locate(const char *s, size_t len, const char *pointer, struct arb_jscan_pos *value,
                     struct arb_jscan_pos *key)
{
    size_t bom = s ? arb_jscan_bom(s, len) : 0, value_at, key_at;

    if (!arb_jscan_find(s ? s + bom : s, len - bom, pointer, &value_at, &key_at))
        return 0;
    *value = arb_jscan_pos(s + bom, len - bom, value_at);
    *key = arb_jscan_pos(s + bom, len - bom, key_at);
    return 1;
}
