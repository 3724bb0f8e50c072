/*
 * mem.c - memory for compiled schemas: an arena that holds every node,
 * array and string of one compiled schema (freed in one go), the lists of
 * owned documents and PCRE2 codes, and the compile-time map from schema JSON
 * to compiled nodes.  Validation allocates nothing here.
 */
#include <stdlib.h>
#include <string.h>

#include "schema_int.h"

#define ARENA_BLOCK 16384

void *arena_alloc(struct arena *a, size_t size)
{
    struct arena_block *b = a->head;
    size_t align = sizeof(max_align_t);
    size_t need = (size + align - 1) / align * align;
    void *p;

    if (need == 0)
        need = align;
    if (!b || b->size - b->used < need) {
        size_t bytes = need > ARENA_BLOCK ? need : ARENA_BLOCK;

        b = malloc(sizeof(*b) + bytes);
        if (!b)
            return NULL;
        b->size = bytes;
        b->used = 0;
        /* A big one-off block goes behind the current one, which keeps its room. */
        if (a->head && need > ARENA_BLOCK) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    p = (char *)b->data + b->used;
    b->used += need;
    memset(p, 0, need);
    return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_alloc(a, n + 1);

    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

void arena_release(struct arena *a)
{
    struct arena_block *b = a->head;

    while (b) {
        struct arena_block *next = b->next;

        free(b);
        b = next;
    }
    a->head = NULL;
}

static size_t jhash(const cJSON *key, size_t mask)
{
    uintptr_t x = (uintptr_t)key;

    x ^= x >> 17;
    x *= (uintptr_t)0x9E3779B97F4A7C15u;
    x ^= x >> 29;
    return (size_t)x & mask;
}

static int jmap_grow(struct jmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    const cJSON **keys = calloc(cap, sizeof(*keys));
    struct node **vals = calloc(cap, sizeof(*vals));
    size_t i;

    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (i = 0; i < m->cap; i++) {
        size_t h;

        if (!m->keys[i])
            continue;
        h = jhash(m->keys[i], cap - 1);
        while (keys[h])
            h = (h + 1) & (cap - 1);
        keys[h] = m->keys[i];
        vals[h] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int jmap_put(struct jmap *m, const cJSON *key, struct node *val)
{
    size_t h;

    if ((m->n + 1) * 2 > m->cap && jmap_grow(m) != 0)
        return -1;
    h = jhash(key, m->cap - 1);
    while (m->keys[h] && m->keys[h] != key)
        h = (h + 1) & (m->cap - 1);
    if (!m->keys[h])
        m->n++;
    m->keys[h] = key;
    m->vals[h] = val;
    return 0;
}

struct node *jmap_get(const struct jmap *m, const cJSON *key)
{
    size_t h;

    if (!m->cap)
        return NULL;
    h = jhash(key, m->cap - 1);
    while (m->keys[h]) {
        if (m->keys[h] == key)
            return m->vals[h];
        h = (h + 1) & (m->cap - 1);
    }
    return NULL;
}

void jmap_release(struct jmap *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = 0;
    m->n = 0;
}

int schema_own_doc(struct arb_schema *s, cJSON *doc)
{
    if (s->n_docs == s->cap_docs) {
        size_t cap = s->cap_docs ? s->cap_docs * 2 : 4;
        cJSON **v = realloc(s->docs, cap * sizeof(*v));

        if (!v)
            return -1;
        s->docs = v;
        s->cap_docs = cap;
    }
    s->docs[s->n_docs++] = doc;
    return 0;
}

int schema_own_code(struct arb_schema *s, pcre2_code *re)
{
    if (s->n_codes == s->cap_codes) {
        size_t cap = s->cap_codes ? s->cap_codes * 2 : 8;
        pcre2_code **v = realloc(s->codes, cap * sizeof(*v));

        if (!v)
            return -1;
        s->codes = v;
        s->cap_codes = cap;
    }
    s->codes[s->n_codes++] = re;
    return 0;
}

/* Nested deeper than ARB_SCHEMA_MAX_DEPTH?  Stops there, so recursion is bounded. */
int json_too_deep(const cJSON *v, unsigned depth)
{
    const cJSON *ch;

    if (depth > ARB_SCHEMA_MAX_DEPTH)
        return 1;
    for (ch = v->child; ch; ch = ch->next) {
        if (json_too_deep(ch, depth + 1))
            return 1;
    }
    return 0;
}
