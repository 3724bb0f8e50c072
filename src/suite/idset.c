/*
 * idset.c - a set of case ids, to find duplicates while cases stream by.
 *
 * Open addressing with linear probing on an FNV-1a hash; the table doubles at
 * half full.  It is the one structure of the case reader that grows with the
 * number of cases: O(number of ids), a copy of each id and a number.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "suite_int.h"

struct id_entry {
    char *id; /* NULL: empty slot */
    size_t where;
};

static uint64_t hash(const char *s)
{
    uint64_t h = 14695981039346656037ULL;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static struct id_entry *slot_for(struct id_entry *slots, size_t cap, const char *id)
{
    size_t i = (size_t)(hash(id) & (cap - 1));

    while (slots[i].id && strcmp(slots[i].id, id))
        i = (i + 1) & (cap - 1);
    return &slots[i];
}

static int grow(struct idset *set)
{
    size_t cap = set->cap ? set->cap * 2 : 64, i;
    struct id_entry *slots = calloc(cap, sizeof(*slots));

    if (!slots)
        return -1;
    for (i = 0; i < set->cap; i++)
        if (set->slots[i].id)
            *slot_for(slots, cap, set->slots[i].id) = set->slots[i];
    free(set->slots);
    set->slots = slots;
    set->cap = cap;
    return 0;
}

int idset_add(struct idset *set, const char *id, size_t where, size_t *first)
{
    struct id_entry *e;

    if ((set->n + 1) * 2 > set->cap && grow(set))
        return -(int)ARB_ENOMEM;
    e = slot_for(set->slots, set->cap, id);
    if (e->id) {
        *first = e->where;
        return 0;
    }
    e->id = strdup(id);
    if (!e->id)
        return -(int)ARB_ENOMEM;
    e->where = where;
    set->n++;
    return 1;
}

void idset_release(struct idset *set)
{
    size_t i;

    for (i = 0; i < set->cap; i++)
        free(set->slots[i].id);
    free(set->slots);
    memset(set, 0, sizeof(*set));
}
