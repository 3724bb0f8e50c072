/*
 * strset.c - string set with values (see include/arbiter/strset.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/strset.h"

void arb_strset_init(struct arb_strset *s)
{
    memset(s, 0, sizeof(*s));
}

void arb_strset_release(struct arb_strset *s)
{
    size_t i;

    for (i = 0; i < s->cap; i++)
        free(s->keys[i]);
    free(s->keys);
    free(s->values);
    arb_strset_init(s);
}

static uint64_t hash(const char *k)
{
    uint64_t h = 1469598103934665603ull;

    for (; *k; k++)
        h = (h ^ (unsigned char)*k) * 1099511628211ull;
    return h;
}

static size_t slot(char *const *keys, size_t cap, const char *key)
{
    size_t i = (size_t)hash(key) & (cap - 1);

    while (keys[i] && strcmp(keys[i], key) != 0)
        i = (i + 1) & (cap - 1);
    return i;
}

static enum arb_status grow(struct arb_strset *s)
{
    size_t cap = s->cap ? s->cap * 2 : 64, i;
    char **keys = calloc(cap, sizeof(*keys));
    size_t *values = calloc(cap, sizeof(*values));

    if (!keys || !values) {
        free(keys);
        free(values);
        return ARB_ENOMEM;
    }
    for (i = 0; i < s->cap; i++) {
        if (s->keys[i]) {
            size_t j = slot(keys, cap, s->keys[i]);

            keys[j] = s->keys[i];
            values[j] = s->values[i];
        }
    }
    free(s->keys);
    free(s->values);
    s->keys = keys;
    s->values = values;
    s->cap = cap;
    return ARB_OK;
}

enum arb_status arb_strset_add(struct arb_strset *s, const char *key, size_t value, int *added,
                               size_t *value_out)
{
    size_t i;

    if ((s->n + 1) * 4 > s->cap * 3) {
        enum arb_status st = grow(s);

        if (st)
            return st;
    }
    i = slot(s->keys, s->cap, key);
    if (s->keys[i]) {
        *added = 0;
    } else {
        s->keys[i] = strdup(key);
        if (!s->keys[i])
            return ARB_ENOMEM;
        s->values[i] = value;
        s->n++;
        *added = 1;
    }
    if (value_out)
        *value_out = s->values[i];
    return ARB_OK;
}

int arb_strset_get(const struct arb_strset *s, const char *key, size_t *value)
{
    size_t i;

    if (!s->cap)
        return 0;
    i = slot(s->keys, s->cap, key);
    if (!s->keys[i])
        return 0;
    if (value)
        *value = s->values[i];
    return 1;
}
