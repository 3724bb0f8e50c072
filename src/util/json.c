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
 * Everything done with a finished tree (canonical output, equality, pointers) lives in jcs.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
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

enum arb_status arb_json_parse(const char *text, size_t len, unsigned flags, cJSON **out,
                               struct arb_err *err)
{
    struct arb_jscan_report rep;
    struct walk w = {0};
    struct where where;
    const char *end = NULL;
    const cJSON *bad;
    cJSON *root;
    char what[200];
    enum arb_status st;

    if (!out || (!text && len))
        return arb_err_set(err, ARB_EUSAGE, "no JSON text to parse");
    if (!text)
        text = "";
    if (flags & ARB_JSON_ALLOW_BOM) {
        size_t bom = arb_jscan_bom(text, len);

        text += bom;
        len -= bom;
    }
    st = arb_jscan_check(text, len, &rep);
    if (st != ARB_OK)
        return arb_jscan_err_at(err, st, text, len, rep.err_at, rep.what);

    /* without require_null_terminated: with a length, cJSON 1.7.15 then demands a NUL byte */
    root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root)
        return arb_err_set(err, ARB_ENOMEM, "out of memory while building the JSON tree");
    if (end != text + rep.value_end) {
        cJSON_Delete(root);
        return arb_jscan_err_at(err, ARB_EINTERNAL, text, len, rep.value_end,
                                "cJSON and the scanner disagree on where the value ends");
    }
    w.dups = (flags & ARB_JSON_NO_DUPLICATES) != 0;
    w.inf = rep.maybe_inf;
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
