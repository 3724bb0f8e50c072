/*
 * fields_pairs.c - the storage of an unordered array's pair matrix and the
 * record of the matching chosen on it.  Filling the matrix and solving it is
 * fields.c's job (match_items), the assignment assign.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "assign.h"
#include "fields_int.h"

/* The items of an array as a vector (cJSON arrays are lists). */
static enum arb_status items_of(const cJSON *a, const cJSON ***out, size_t *n)
{
    const cJSON *it;
    size_t k = 0;

    *n = cJSON_IsArray(a) ? (size_t)cJSON_GetArraySize(a) : 0;
    *out = malloc((*n + 1) * sizeof(**out));
    if (!*out)
        return ARB_ENOMEM;
    if (!*n)
        return ARB_OK;
    cJSON_ArrayForEach(it, a)
    {
        (*out)[k++] = it;
    }
    return ARB_OK;
}

enum arb_status record_matching(cJSON *matchings, const char *path, const size_t *row_to_col,
                                size_t ne, const unsigned char *used, size_t no)
{
    cJSON *m = cJSON_CreateObject(), *pairs, *missed, *extra;
    size_t i;

    if (!m)
        return ARB_ENOMEM;
    cJSON_AddItemToArray(matchings, m);
    if (!cJSON_AddStringToObject(m, "path", path))
        return ARB_ENOMEM;
    pairs = cJSON_AddArrayToObject(m, "pairs");
    missed = cJSON_AddArrayToObject(m, "missed");
    extra = cJSON_AddArrayToObject(m, "extra");
    if (!pairs || !missed || !extra)
        return ARB_ENOMEM;
    for (i = 0; i < ne; i++) {
        cJSON *p;

        if (row_to_col[i] == ARB_ASSIGN_NONE) {
            if (!cJSON_AddItemToArray(missed, cJSON_CreateNumber((double)i)))
                return ARB_ENOMEM;
            continue;
        }
        p = cJSON_CreateArray();
        if (!p || !cJSON_AddItemToArray(pairs, p) ||
            !cJSON_AddItemToArray(p, cJSON_CreateNumber((double)i)) ||
            !cJSON_AddItemToArray(p, cJSON_CreateNumber((double)row_to_col[i])))
            return ARB_ENOMEM;
    }
    for (i = 0; i < no; i++)
        if (!used[i] && !cJSON_AddItemToArray(extra, cJSON_CreateNumber((double)i)))
            return ARB_ENOMEM;
    return ARB_OK;
}

void pairs_release(struct pairs *p)
{
    free(p->ev);
    free(p->ov);
    free(p->m);
    free(p->inexact);
    free(p->row_to_col);
}

enum arb_status pairs_init(struct pairs *p, const cJSON *e, const cJSON *o)
{
    enum arb_status st;
    size_t i;

    memset(p, 0, sizeof(*p));
    st = items_of(e, &p->ev, &p->ne);
    if (!st)
        st = items_of(o, &p->ov, &p->no);
    if (st)
        return st;
    p->row_to_col = malloc((p->ne + 1) * sizeof(*p->row_to_col));
    if (!p->row_to_col)
        return ARB_ENOMEM;
    for (i = 0; i < p->ne; i++)
        p->row_to_col[i] = ARB_ASSIGN_NONE;
    if (p->ne && p->no && p->ne > MAX_CELLS / p->no)
        return ARB_ETOOBIG;
    p->m = malloc((p->ne * p->no + 1) * sizeof(*p->m));
    p->inexact = calloc(p->ne * p->no + 1, 1);
    return p->m && p->inexact ? ARB_OK : ARB_ENOMEM;
}
