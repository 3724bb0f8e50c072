/*
 * labels.c - the human labels of a pairwise line, in either vocabulary:
 * "1" / "2" / "tie" (a labels file with outputs, load.c) or the two systems'
 * names and "tie" (labels for a finished run, load_named.c); per-criterion
 * labels; and the set's storage.  Which members a line may have, and what
 * they mean, is the loaders' business.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib_int.h"

#define NOT_A_LABEL (-3)

/* The word x names: ARB_V_1, ARB_V_2, ARB_V_TIE, or NOT_A_LABEL. */
static int label_of(const struct calib_vocab *v, const cJSON *x)
{
    const char *s = cJSON_IsString(x) ? x->valuestring : NULL;

    if (!s)
        return NOT_A_LABEL;
    if (!v->system[0]) {
        return strcmp(s, "1") == 0     ? ARB_V_1
               : strcmp(s, "2") == 0   ? ARB_V_2
               : strcmp(s, "tie") == 0 ? ARB_V_TIE
                                       : NOT_A_LABEL;
    }
    /* A suite cannot call a system "TIE", and load_named refuses one called "tie". */
    if (strcmp(s, "tie") == 0 || strcmp(s, "TIE") == 0)
        return ARB_V_TIE;
    return strcmp(s, v->system[0]) == 0   ? ARB_V_1
           : strcmp(s, v->system[1]) == 0 ? ARB_V_2
                                          : NOT_A_LABEL;
}

/* The located error for x at ptr, which is not a label (in_list: an element of a list). */
static enum arb_status not_a_label(const struct calib_vocab *v, const cJSON *x, const char *ptr,
                                   int in_list, const struct calib_line *w, struct arb_err *err)
{
    const char *tail = in_list ? " or \"tie\"" : ", \"tie\" or a list of them";

    if (!v->system[0])
        return calib_located(err, ARB_ESCHEMA, w, ptr, 0, "expected \"1\", \"2\"%s", tail);
    if (cJSON_IsString(x))
        return calib_located(err, ARB_ESCHEMA, w, ptr, 0,
                             "'%.100s' is not a system of this run (expected \"%.100s\", "
                             "\"%.100s\" or \"tie\")",
                             x->valuestring, v->system[0], v->system[1]);
    return calib_located(err, ARB_ESCHEMA, w, ptr, 0, "expected \"%.100s\", \"%.100s\"%s",
                         v->system[0], v->system[1], tail);
}

enum arb_status calib_labels(const struct calib_vocab *v, const cJSON *h, const char *ptr,
                             const struct calib_line *w, int *labels, size_t *n,
                             struct arb_err *err)
{
    const cJSON *x;
    char at[300];

    *n = 0;
    if (!cJSON_IsArray(h)) {
        labels[0] = label_of(v, h);
        if (labels[0] == NOT_A_LABEL)
            return not_a_label(v, h, ptr, 0, w, err);
        *n = 1;
        return ARB_OK;
    }
    if (cJSON_GetArraySize(h) == 0)
        return calib_located(err, ARB_ESCHEMA, w, ptr, 0, "expected at least one label");
    cJSON_ArrayForEach(x, h)
    {
        snprintf(at, sizeof(at), "%s/%zu", ptr, *n);
        if (*n == ARB_CALIB_MAX_ANNOTATORS)
            return calib_located(err, ARB_ESCHEMA, w, at, 0, "at most %d annotators",
                                 ARB_CALIB_MAX_ANNOTATORS);
        labels[*n] = label_of(v, x);
        if (labels[*n] == NOT_A_LABEL)
            return not_a_label(v, x, at, 1, w, err);
        (*n)++;
    }
    return ARB_OK;
}

enum arb_status calib_criteria(const struct calib_vocab *v, const cJSON *c,
                               const struct calib_line *w, struct arb_calib_item *it,
                               struct arb_err *err)
{
    const cJSON *x;
    int size;

    if (!c)
        return ARB_OK;
    if (!cJSON_IsObject(c))
        return calib_located(err, ARB_ESCHEMA, w, "/criteria", 0,
                             "expected an object {\"NAME\": label or a list of labels}");
    size = cJSON_GetArraySize(c);
    if (size == 0)
        return ARB_OK;
    it->crit = calloc((size_t)size, sizeof(*it->crit));
    if (!it->crit)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    cJSON_ArrayForEach(x, c)
    {
        struct arb_calib_crit *k = &it->crit[it->n_crit];
        char ptr[300];
        enum arb_status st;

        /* The pointer spells the name as the line does: jsonl.c finds it that way. */
        snprintf(ptr, sizeof(ptr), "/criteria/%.200s", x->string);
        k->verdict = ARB_V_ABSENT;
        k->name = strdup(x->string);
        if (!k->name)
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
        it->n_crit++;
        st = calib_labels(v, x, ptr, w, k->human, &k->n_human, err);
        if (st)
            return st;
    }
    return ARB_OK;
}

void calib_item_release(struct arb_calib_item *it)
{
    free(it->id);
    free(it->prompt);
    free(it->output_1);
    free(it->output_2);
    free(it->expectation);
    cJSON_Delete(it->expected);
    for (size_t k = 0; k < it->n_crit; k++)
        free(it->crit[k].name);
    free(it->crit);
}

enum arb_status calib_set_push(struct arb_calib_set *set, struct arb_calib_item *it,
                               struct arb_err *err)
{
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        struct arb_calib_item *grown = realloc(set->items, cap * sizeof(*grown));

        if (!grown) {
            calib_item_release(it);
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
        }
        set->items = grown;
        set->cap = cap;
    }
    set->items[set->n++] = *it;
    return ARB_OK;
}
