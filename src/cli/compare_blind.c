/*
 * compare_blind.c - `arbiter compare`'s part of the blinding (compare_blind.h): the names of
 * its two paths, which often name the systems ("out/gpt-4o/"), go on the suite's redaction
 * list, so the run engine's redaction (arb_redact, as for a suite's "redact") keeps them out
 * of the judge's prompt; and the verdict, labelled as the judge saw it, is relabelled as the
 * user wrote it.  The blinding itself (which path is shown first) is the engine's.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compare_blind.h"

/* ---- the names of a path ------------------------------------------------------------------ */

struct names {
    char **v;
    size_t n, cap;
};

static void names_release(struct names *s)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

static int names_has(const struct names *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->n; i++)
        if (strcasecmp(s->v[i], name) == 0)
            return 1;
    return 0;
}

/* Add the len bytes at p (not "", ".", ".." or one already there).  0, or -1 out of memory. */
static int names_add(struct names *s, const char *p, size_t len)
{
    char *name;

    if (!len || (p[0] == '.' && (len == 1 || (len == 2 && p[1] == '.'))))
        return 0;
    name = strndup(p, len);
    if (!name)
        return -1;
    if (names_has(s, name)) {
        free(name);
        return 0;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        char **v = realloc(s->v, cap * sizeof(*v));

        if (!v) {
            free(name);
            return -1;
        }
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = name;
    return 0;
}

/* One component and its stems: "gpt-4o.v2.txt" gives itself, "gpt-4o" and "gpt-4o.v2". */
static int add_component(struct names *s, const char *p, size_t len)
{
    const char *first = memchr(p, '.', len), *last = first;
    const char *d;

    while (last && (d = memchr(last + 1, '.', len - (size_t)(last + 1 - p))) != NULL)
        last = d;
    return names_add(s, p, len) || (first && names_add(s, p, (size_t)(first - p))) ||
           (last && names_add(s, p, (size_t)(last - p)));
}

static int add_components(struct names *s, const char *path)
{
    while (*path) {
        size_t len = strcspn(path, "/");

        if (add_component(s, path, len))
            return -1;
        path += len;
        path += strspn(path, "/");
    }
    return 0;
}

/* The components of path as given and as resolved (a link's name and its target's both). */
static int path_names(struct names *s, const char *path)
{
    char *real = realpath(path, NULL);
    int rc = add_components(s, path);

    if (!rc && real)
        rc = add_components(s, real);
    free(real);
    return rc;
}

/* Add to out the names of mine that others lacks, if they are long enough. */
static int add_distinct(cJSON *out, const struct names *mine, const struct names *others)
{
    size_t i;

    for (i = 0; i < mine->n; i++) {
        cJSON *x;

        if (strlen(mine->v[i]) < 3 || names_has(others, mine->v[i]))
            continue;
        x = cJSON_CreateString(mine->v[i]);
        if (!x || !cJSON_AddItemToArray(out, x)) {
            cJSON_Delete(x);
            return -1;
        }
    }
    return 0;
}

int compare_redact_names(const char *a_path, const char *b_path, cJSON *out)
{
    struct names a = {NULL, 0, 0}, b = {NULL, 0, 0};
    int rc = path_names(&a, a_path) || path_names(&b, b_path) ? -1 : 0;

    if (!rc)
        rc = add_distinct(out, &a, &b) || add_distinct(out, &b, &a) ? -1 : 0;
    names_release(&a);
    names_release(&b);
    return rc;
}

/* ---- the labels of comparison.json ---------------------------------------------------------- */

/*
 * Exchange the values of two members, keys and places kept (so "A" stays listed first).
 * Nothing is allocated: a relabelled verdict cannot half fail.
 */
static void swap_values(cJSON *x, cJSON *y)
{
    cJSON t = *x;
    int keep_x = x->type & cJSON_StringIsConst, keep_y = y->type & cJSON_StringIsConst;

    x->type = (y->type & ~cJSON_StringIsConst) | keep_x;
    x->child = y->child;
    x->valuestring = y->valuestring;
    x->valueint = y->valueint;
    x->valuedouble = y->valuedouble;
    y->type = (t.type & ~cJSON_StringIsConst) | keep_y;
    y->child = t.child;
    y->valuestring = t.valuestring;
    y->valueint = t.valueint;
    y->valuedouble = t.valuedouble;
}

/* obj[key].A <-> obj[key].B; a side alone (a missing output) moves to the other label. */
static int swap_sides(cJSON *obj, const char *key)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(obj, key), *a, *b, *x;

    if (!cJSON_IsObject(o))
        return 0;
    a = cJSON_GetObjectItemCaseSensitive(o, "A");
    b = cJSON_GetObjectItemCaseSensitive(o, "B");
    if (a && b) {
        swap_values(a, b);
        return 0;
    }
    if (!a && !b)
        return 0;
    /* One side: re-added under the other key (which allocates the key). */
    x = cJSON_DetachItemViaPointer(o, a ? a : b);
    if (!cJSON_AddItemToObject(o, a ? "B" : "A", x)) {
        cJSON_Delete(x);
        return -1;
    }
    return 0;
}

/* A winner "A" becomes "B" and "B" "A" (same length: in place); "TIE", "none", null stay. */
static void swap_winner(cJSON *obj)
{
    cJSON *w = cJSON_GetObjectItemCaseSensitive(obj, "winner");

    if (cJSON_IsString(w) && w->valuestring && w->valuestring[1] == '\0' &&
        (w->valuestring[0] == 'A' || w->valuestring[0] == 'B'))
        w->valuestring[0] = w->valuestring[0] == 'A' ? 'B' : 'A';
}

static int word_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (unsigned char)c >= 0x80;
}

/*
 * The words "A" and "B" of one of the policy's own sentences exchanged ("A has the higher
 * overall rubric score (7.2 vs 4.7).", "Output B does not exist for this case."): they name
 * sides there and nothing else does.  Never applied to the judge's words.
 */
static void swap_words(char *s)
{
    size_t i;

    for (i = 0; s[i]; i++)
        if ((s[i] == 'A' || s[i] == 'B') && (i == 0 || !word_byte(s[i - 1])) &&
            !word_byte(s[i + 1]))
            s[i] = s[i] == 'A' ? 'B' : 'A';
}

/* judge.positions: what the judge's "A" and "B" (in its reasoning) are in this file. */
static int add_positions(cJSON *judge, int swapped)
{
    cJSON *p = cJSON_AddObjectToObject(judge, "positions");

    return p && cJSON_AddStringToObject(p, "A", swapped ? "B" : "A") &&
                   cJSON_AddStringToObject(p, "B", swapped ? "A" : "B")
               ? 0
               : -1;
}

int compare_relabel(cJSON *cmp, int swapped)
{
    cJSON *judge = cJSON_GetObjectItemCaseSensitive(cmp, "judge");
    cJSON *why = cJSON_GetObjectItemCaseSensitive(cmp, "reasoning");
    /* A judge that answered wrote the reasoning (its schema requires one); else the policy. */
    int judge_spoke = cJSON_IsObject(judge) && !cJSON_HasObjectItem(judge, "error");

    if (swapped) {
        swap_winner(cmp);
        if (cJSON_IsObject(judge))
            swap_winner(judge);
        if (!judge_spoke && cJSON_IsString(why) && why->valuestring)
            swap_words(why->valuestring);
        if (swap_sides(cmp, "rubric") || swap_sides(cmp, "output_quality") ||
            swap_sides(cmp, "expectation_results"))
            return -1;
    }
    return judge_spoke ? add_positions(judge, swapped) : 0;
}
