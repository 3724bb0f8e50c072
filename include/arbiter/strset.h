/*
 * strset.h - a set of strings with a value each (open addressing, FNV-1a).
 *
 * Used where a run must remember ids it has seen (case ids, output ids per
 * system) without keeping the cases themselves: memory is O(number of ids).
 */
#ifndef ARBITER_STRSET_H
#define ARBITER_STRSET_H

#include <stddef.h>

#include "arbiter/status.h"

struct arb_strset {
    char **keys;
    size_t *values;
    size_t cap; /* a power of two, or 0 */
    size_t n;
};

void arb_strset_init(struct arb_strset *s);
void arb_strset_release(struct arb_strset *s);

/*
 * Add key with value unless present.  *added is 1 when it was new; *value,
 * when given, receives the stored value (the first one for a repeated key).
 */
enum arb_status arb_strset_add(struct arb_strset *s, const char *key, size_t value, int *added,
                               size_t *value_out);

/* 1 when key is present (and its value in *value when given). */
int arb_strset_get(const struct arb_strset *s, const char *key, size_t *value);

#endif
