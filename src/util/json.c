/*
 * json.c - arb_json_parse: JSON text to a cJSON tree, strictly, with located errors.
 *
 * cJSON builds the tree but is too lenient to be the judge of the text: it takes any byte up
 * to 0x20 as white space, keeps raw control characters in strings, accepts "01" and "1.", skips
 * a byte order mark on its own, truncates a string at "\u0000", turns 1e400 into inf and
 * reports a failure only as an offset.  So the strict check of jscan.c reads the whole text
 * first, in one pass (grammar, UTF-8, escapes, depth, number syntax), and names the first error
 * by offset, which jlocate.c turns into a line and column.  After it, cJSON fails only when it
 * runs out of memory.  What needs the tree (duplicate keys, numbers that overflow) is checked
 * here on the tree, and located by walking the text again, which costs nothing unless there is
 * an error.  Nothing here is global: cJSON's own global error pointer is written only when it
 * fails, which after the check means out of memory.
 *
 * arb_json_parse_members reads only some members of an object: when the scan saw no key that
 * may repeat, no "\u0000" and no number that may overflow, the tree would be exactly cJSON's, so
 * the named values are parsed one by one where the cursor finds them and the rest is stepped
 * over; otherwise the whole tree is built and the named members are taken from it.
 *
 * Everything done with a finished tree (canonical output, equality, pointers) lives in jcs.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "jbuild.h"
#include "jscan.h"

#define SMALL_OBJECT 16 /* objects up to this size are checked pairwise, no allocation */
#define PATH_MAX_LEN 120

/* ---- locating a tree node in the (already validated) text ---- */

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
    struct arb_jscan sc = {text, len, 0};
    struct arb_jscan_items it;
    const cJSON *node = root, *child;
    size_t plen = 0, k;
    const char *name;
    char num[24];

    arb_jscan_ws(&sc);
    w->key_at = w->value_at = sc.pos;
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
        /* the k-th item of the container: by position, as a repeated key has no name of its own */
        arb_jscan_items_init(&it, text, len, w->value_at);
        while (arb_jscan_items_next(&it) && it.index < k)
            ;
        w->key_at = it.key_at;
        w->value_at = it.value_at;
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

/* ---- what the comparators read differently: U+0000 and repeated keys ---- */

/*
 * A copy of text[0..len) (checked JSON) with each "\u0000" escape turned into the bytes C0 80,
 * which cJSON copies into the string as they are: U+0000 in the overlong form that valid UTF-8
 * never holds (Java's modified UTF-8), so a string keeps its full length and compares as itself.
 * Escapes pair up from the left, so "\\u0000" (a backslash, then "u0000") is left alone.
 */
static char *nul_as_c080(const char *text, size_t len, size_t *out_len)
{
    char *copy = malloc(len + 1);
    size_t i = 0, o = 0;

    if (!copy)
        return NULL;
    while (i < len) {
        if (text[i] != '\\' || i + 1 >= len) {
            copy[o++] = text[i++];
        } else if (i + 5 < len && memcmp(text + i + 1, "u0000", 5) == 0) {
            copy[o++] = (char)0xC0;
            copy[o++] = (char)0x80;
            i += 6;
        } else {
            copy[o++] = text[i++];
            copy[o++] = text[i++];
        }
    }
    copy[o] = '\0';
    *out_len = o;
    return copy;
}

char *arb_json_text(const char *s, size_t *len)
{
    size_t n = strlen(s), o = 0, i;
    char *t = malloc(n + 1);

    if (!t)
        return NULL;
    for (i = 0; i < n; i++) {
        t[o++] = s[i];
        if ((unsigned char)s[i] == 0xC0 && (unsigned char)s[i + 1] == 0x80) {
            t[o - 1] = '\0'; /* U+0000 as ARB_JSON_ALLOW_NUL holds it */
            i++;
        }
    }
    t[o] = '\0';
    *len = o;
    return t;
}

/* Whether name (already noted) is in the NUL-separated list dups. */
static int noted(const struct arb_buf *dups, const char *name, size_t n)
{
    size_t i = 0;

    while (dups->ptr && i < dups->len) {
        size_t k = strlen(dups->ptr + i);

        if (k == n && memcmp(dups->ptr + i, name, n) == 0)
            return 1;
        i += k + 1;
    }
    return 0;
}

/*
 * Where the walk of last_key_wins is: one crumb per level, on the stack, so the JSON pointer is
 * written only for a repeated key (the walk itself stays cheap: it runs on every observed text).
 */
struct crumb {
    const struct crumb *up;
    const char *name; /* the member's name, or NULL for the array element idx */
    size_t idx;
};

static enum arb_status crumb_path(const struct crumb *c, struct arb_buf *out)
{
    enum arb_status st;

    if (!c)
        return ARB_OK;
    st = crumb_path(c->up, out);
    if (st)
        return st;
    return c->name ? arb_json_pointer_push(out, c->name) : arb_buf_printf(out, "/%zu", c->idx);
}

/* Note the pointer of member c of the object at 'at' in dups, once (nothing when dups is NULL). */
static enum arb_status note_dup(const struct crumb *at, const cJSON *c, struct arb_buf *dups)
{
    struct arb_buf path;
    enum arb_status st;

    if (!dups)
        return ARB_OK;
    arb_buf_init(&path, 0);
    st = crumb_path(at, &path);
    if (!st)
        st = arb_json_pointer_push(&path, name_of(c));
    if (!st && !noted(dups, path.ptr, path.len))
        st = arb_buf_add(dups, path.ptr, path.len + 1);
    arb_buf_release(&path);
    return st;
}

/* Whether member c of an object has a later sibling of the same name (small objects). */
static inline int repeated_later(const cJSON *c)
{
    const char *name = name_of(c);
    const cJSON *x;

    for (x = c->next; x; x = x->next)
        if (x->string && x->string[0] == name[0] && strcmp(x->string, name) == 0)
            return 1;
    return 0;
}

/* Whether an object of at most SMALL_OBJECT members repeats a name (no allocation). */
static inline int small_has_repeat(const cJSON *obj)
{
    const cJSON *c;

    for (c = obj->child; c; c = c->next)
        if (repeated_later(c))
            return 1;
    return 0;
}

/*
 * Drop every member of obj (n members) that a later member of the same name overrides, noting
 * each repeated key's pointer.  Sorted by name then position, a member is overridden when the
 * next one in that order has its name.
 */
static enum arb_status drop_overridden(struct walk *w, cJSON *obj, size_t n, const struct crumb *at,
                                       struct arb_buf *dups)
{
    cJSON *c, *next, **kids;
    size_t i;
    enum arb_status st = ARB_OK;

    if (n <= SMALL_OBJECT) {
        if (!small_has_repeat(obj))
            return ARB_OK;
        for (c = obj->child; c && !st; c = next) {
            next = c->next;
            if (!repeated_later(c))
                continue;
            st = note_dup(at, c, dups);
            cJSON_Delete(cJSON_DetachItemViaPointer(obj, c));
        }
        return st;
    }
    if (!first_duplicate(w, obj, n))
        return w->st;
    /* first_duplicate left the members sorted in w->scratch */
    kids = malloc(n * sizeof(*kids));
    if (!kids)
        return ARB_ENOMEM;
    for (i = 0, c = obj->child; c; c = c->next)
        kids[i++] = c;
    for (i = 0; i + 1 < n && !st; i++) {
        if (strcmp(w->scratch[i].name, w->scratch[i + 1].name) != 0)
            continue;
        c = kids[w->scratch[i].idx];
        st = note_dup(at, c, dups);
        cJSON_Delete(cJSON_DetachItemViaPointer(obj, c));
    }
    free(kids);
    return st;
}

/*
 * In every object under node, a repeated key keeps its last value, as Python's json and
 * JavaScript's JSON.parse do (cJSON keeps every member, and a lookup finds the first); the JSON
 * pointer of each repeated key goes once into dups (when not NULL), NUL-terminated.
 */
static enum arb_status last_key_wins(struct walk *w, cJSON *node, const struct crumb *at,
                                     struct arb_buf *dups)
{
    cJSON *c;
    size_t n = 0, idx = 0;
    int obj = (node->type & 0xFF) == cJSON_Object;
    enum arb_status st = ARB_OK;

    if (obj && node->child && node->child->next) {
        for (c = node->child; c; c = c->next)
            n++;
        st = drop_overridden(w, node, n, at, dups);
    }
    for (c = node->child; c && !st; c = c->next, idx++) {
        if (c->child) {
            struct crumb k = {at, obj ? name_of(c) : NULL, idx};

            st = last_key_wins(w, c, &k, dups);
        }
    }
    return st;
}

/* ---- from text to a tree ---- */

/*
 * The strict check of text[0..len) as flags read it: a leading byte order mark skipped (*text and
 * *len then start past it), "\u0000" counted or refused.  ARB_OK with rep filled, or the error,
 * located, in err.
 */
static inline enum arb_status scan(const char **text, size_t *len, unsigned flags,
                                   struct arb_jscan_report *rep, struct arb_err *err)
{
    enum arb_status st;

    if (flags & ARB_JSON_ALLOW_BOM) {
        size_t bom = arb_jscan_bom(*text, *len);

        *text += bom;
        *len -= bom;
    }
    st = (flags & ARB_JSON_ALLOW_NUL) ? arb_jscan_check_nul(*text, *len, rep)
                                      : arb_jscan_check(*text, *len, rep);
    if (st != ARB_OK)
        return arb_jscan_err_at(err, st, *text, *len, rep->err_at, rep->what);
    return ARB_OK;
}

/*
 * cJSON's tree of text that scan accepted (rep), then what only the tree shows: a repeated key
 * refused (ARB_JSON_NO_DUPLICATES), a number past a double refused.
 */
static enum arb_status build_checked(const char *text, size_t len, unsigned flags,
                                     struct arb_jscan_report *rep, cJSON **out, struct arb_err *err)
{
    struct walk w = {0};
    struct where where;
    const char *end = NULL, *parsed = text; /* or a copy with U+0000 as C0 80 */
    const cJSON *bad;
    cJSON *root;
    char what[200], *copy = NULL;
    size_t copy_len = 0, value_end = rep->value_end;
    enum arb_status st;

    if (rep->nuls) {
        /* every "\u0000" is inside the value: each of its six bytes becomes two */
        copy = nul_as_c080(text, len, &copy_len);
        if (!copy)
            return arb_err_set(err, ARB_ENOMEM, "out of memory while reading \\u0000");
        parsed = copy;
        value_end -= 4 * rep->nuls;
    }
    /* built here, or by cJSON when jbuild.c gives up; without require_null_terminated: with a
     * length, cJSON 1.7.15 then demands a NUL byte */
    root = arb_json_build(parsed, copy ? copy_len : len, &end);
    if (!root)
        root = cJSON_ParseWithLengthOpts(parsed, copy ? copy_len : len, &end, 0);
    st = !root ? ARB_ENOMEM : end != parsed + value_end ? ARB_EINTERNAL : ARB_OK;
    free(copy);
    if (st == ARB_ENOMEM)
        return arb_err_set(err, ARB_ENOMEM, "out of memory while building the JSON tree");
    if (st) {
        cJSON_Delete(root);
        return arb_jscan_err_at(err, ARB_EINTERNAL, text, len, value_end,
                                "cJSON and the scanner disagree on where the value ends");
    }
    /* the scanner saw every object's names: when none may repeat, none does */
    w.dups = (flags & ARB_JSON_NO_DUPLICATES) != 0 && rep->maybe_dup;
    w.inf = rep->maybe_inf;
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
        return arb_jscan_err_at(err, ARB_EPARSE, text, len, where.key_at, what);
    }
    snprintf(what, sizeof(what), "number out of range of a double at '%s'", where.path);
    return arb_jscan_err_at(err, ARB_EPARSE, text, len, where.value_at, what);
}

/* As build_checked, then a repeated key keeps its last value (ARB_JSON_LAST_KEY_WINS). */
static inline enum arb_status tree_of(const char *text, size_t len, unsigned flags,
                                      struct arb_jscan_report *rep, cJSON **out,
                                      struct arb_buf *dups, struct arb_err *err)
{
    struct walk w = {0};
    enum arb_status st = build_checked(text, len, flags, rep, out, err);

    /* the scanner saw every object's names: when none may repeat, there is nothing to walk */
    if (st || !(flags & ARB_JSON_LAST_KEY_WINS) || !rep->maybe_dup)
        return st;
    st = last_key_wins(&w, *out, NULL, dups);
    free(w.scratch);
    if (st) {
        cJSON_Delete(*out);
        *out = NULL;
        return arb_err_set(err, st, "out of memory while reading repeated keys");
    }
    return ARB_OK;
}

enum arb_status arb_json_parse(const char *text, size_t len, unsigned flags, cJSON **out,
                               struct arb_err *err)
{
    return arb_json_parse_ex(text, len, flags, out, NULL, err);
}

enum arb_status arb_json_parse_ex(const char *text, size_t len, unsigned flags, cJSON **out,
                                  struct arb_buf *dups, struct arb_err *err)
{
    struct arb_jscan_report rep;
    enum arb_status st;

    if (!out || (!text && len))
        return arb_err_set(err, ARB_EUSAGE, "no JSON text to parse");
    text = text ? text : "";
    st = scan(&text, &len, flags, &rep, err);
    return st ? st : tree_of(text, len, flags, &rep, out, dups, err);
}

/* ---- only some members of an object ---- */

/*
 * The members named names[0..n) of the object at offset at of text that scan accepted, each
 * value parsed on its own, the others stepped over: 1 done; 0 when cJSON and the scanner part
 * (the caller then builds the whole tree), -1 out of memory.  Only for a text with no key that
 * may repeat, so with no escaped name (a name is its text) and each value found once.
 */
static int read_members(const char *text, size_t len, size_t at, const char *const *names, size_t n,
                        cJSON **values)
{
    struct arb_jscan sc = {text, len, at};
    const char *key, *end = NULL;
    size_t klen, i;
    int more = arb_jscan_open(&sc);

    while (more > 0) {
        key = text + sc.pos + 1;
        if (arb_jscan_skip(&sc) != 0)
            return 0;
        klen = (size_t)(text + sc.pos - 1 - key);
        if (arb_jscan_colon(&sc) != 0)
            return 0;
        for (i = 0; i < n; i++)
            if ((!klen || names[i][0] == key[0]) && strncmp(names[i], key, klen) == 0 &&
                !names[i][klen])
                break;
        if (i < n && !values[i]) {
            values[i] = arb_json_build(text + sc.pos, len - sc.pos, &end);
            if (!values[i])
                values[i] = cJSON_ParseWithLengthOpts(text + sc.pos, len - sc.pos, &end, 0);
            if (!values[i])
                return -1;
            sc.pos = (size_t)(end - text);
        } else if (arb_jscan_skip(&sc) != 0) {
            return 0;
        }
        more = arb_jscan_next(&sc, '}');
    }
    return more == 0;
}

enum arb_status arb_json_parse_members(const char *text, size_t len, unsigned flags,
                                       const char *const *names, size_t n, cJSON **values,
                                       int *is_object, struct arb_buf *dups, struct arb_err *err)
{
    struct arb_jscan_report rep;
    cJSON *root = NULL;
    size_t i, at = 0;
    enum arb_status st;
    int r;

    for (i = 0; i < n; i++)
        values[i] = NULL;
    *is_object = 0;
    if (!text && len)
        return arb_err_set(err, ARB_EUSAGE, "no JSON text to parse");
    text = text ? text : "";
    st = scan(&text, &len, flags, &rep, err);
    if (st)
        return st;
    /* U+0000, a repeated key or a number past a double: only the whole tree tells what they read */
    if (!rep.nuls && !rep.maybe_dup && !rep.maybe_inf) {
        while (at < len &&
               (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r'))
            at++;
        if (at == len || text[at] != '{')
            return ARB_OK;
        *is_object = 1;
        r = read_members(text, len, at, names, n, values);
        if (r > 0)
            return ARB_OK;
        for (i = 0; i < n; i++) {
            cJSON_Delete(values[i]);
            values[i] = NULL;
        }
        if (r < 0)
            return arb_err_set(err, ARB_ENOMEM, "out of memory while building the JSON tree");
    }
    st = tree_of(text, len, flags, &rep, &root, dups, err);
    if (st)
        return st;
    *is_object = cJSON_IsObject(root);
    for (i = 0; *is_object && i < n; i++)
        values[i] = cJSON_DetachItemFromObjectCaseSensitive(root, names[i]);
    cJSON_Delete(root);
    return ARB_OK;
}
