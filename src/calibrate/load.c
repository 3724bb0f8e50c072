/*
 * load.c - reading a judge's labels file (calibrate.h): what each line must
 * hold, pairwise or expectation.  Reading the lines, locating errors as
 * "FILE:LINE:COL: /pointer: what was expected" and hashing the file are
 * jsonl.c's (calib_int.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/calibrate.h"
#include "calib_int.h"

/* ---- one line -------------------------------------------------------------------------- */

static const char *const pairwise_keys[] = {"id",    "prompt", "output_1", "output_2",
                                            "human", "judge",  NULL};
static const char *const expectation_keys[] = {"id",    "output", "expectation",
                                               "human", "judge",  NULL};

static char *dup_string(const cJSON *v)
{
    return v ? strdup(v->valuestring) : NULL;
}

/* "1", "2" or "tie" (null allowed when nullable): the verdict, or -3 when not one. */
static int pair_label(const cJSON *v, int nullable)
{
    if (nullable && cJSON_IsNull(v))
        return ARB_V_NULL;
    if (!cJSON_IsString(v))
        return -3;
    if (strcmp(v->valuestring, "1") == 0)
        return ARB_V_1;
    if (strcmp(v->valuestring, "2") == 0)
        return ARB_V_2;
    if (strcmp(v->valuestring, "tie") == 0)
        return ARB_V_TIE;
    return -3;
}

static enum arb_status pairwise_human(const cJSON *h, const struct calib_line *w,
                                      struct arb_calib_item *it, struct arb_err *err)
{
    static const char expect[] = "expected \"1\", \"2\", \"tie\" or a list of them";
    const cJSON *x;
    char ptr[32];

    if (!cJSON_IsArray(h)) {
        it->human[0] = pair_label(h, 0);
        it->n_human = 1;
        return it->human[0] < 0 ? calib_located(err, ARB_ESCHEMA, w, "/human", 0, expect) : ARB_OK;
    }
    if (cJSON_GetArraySize(h) == 0)
        return calib_located(err, ARB_ESCHEMA, w, "/human", 0, "expected at least one label");
    cJSON_ArrayForEach(x, h)
    {
        snprintf(ptr, sizeof(ptr), "/human/%zu", it->n_human);
        if (it->n_human == ARB_CALIB_MAX_ANNOTATORS)
            return calib_located(err, ARB_ESCHEMA, w, ptr, 0, "at most %d annotators",
                                 ARB_CALIB_MAX_ANNOTATORS);
        it->human[it->n_human] = pair_label(x, 0);
        if (it->human[it->n_human] < 0)
            return calib_located(err, ARB_ESCHEMA, w, ptr, 0, "expected \"1\", \"2\" or \"tie\"");
        it->n_human++;
    }
    return ARB_OK;
}

static enum arb_status pairwise_judge(const cJSON *j, const struct calib_line *w,
                                      struct arb_calib_item *it, struct arb_err *err)
{
    const cJSON *x;

    it->order_12 = it->order_21 = ARB_V_ABSENT;
    if (!j)
        return ARB_OK;
    if (!cJSON_IsObject(j))
        return calib_located(err, ARB_ESCHEMA, w, "/judge", 0,
                             "expected an object {\"order_12\": v, \"order_21\": v}");
    cJSON_ArrayForEach(x, j)
    {
        char ptr[300];
        int v = pair_label(x, 1), *slot;

        snprintf(ptr, sizeof(ptr), "/judge/%.200s", x->string);
        if (strcmp(x->string, "order_12") == 0)
            slot = &it->order_12;
        else if (strcmp(x->string, "order_21") == 0)
            slot = &it->order_21;
        else
            return calib_located(err, ARB_ESCHEMA, w, ptr, 1,
                                 "unknown key '%.200s' (expected order_12, order_21)", x->string);
        if (v == -3)
            return calib_located(err, ARB_ESCHEMA, w, ptr, 0,
                                 "expected \"1\", \"2\", \"tie\" or null");
        *slot = v;
    }
    if (it->order_12 == ARB_V_ABSENT && it->order_21 == ARB_V_ABSENT)
        return calib_located(err, ARB_ESCHEMA, w, "/judge", 0, "expected order_12 or order_21");
    it->recorded = 1;
    return ARB_OK;
}

static enum arb_status parse_item(const cJSON *o, enum arb_calib_kind kind,
                                  const struct calib_line *w, struct arb_calib_item *it,
                                  struct arb_err *err)
{
    const cJSON *id, *prompt = NULL, *o1, *o2 = NULL, *ex = NULL, *h, *j;
    enum arb_status st =
        kind == ARB_CALIB_PAIRWISE
            ? calib_check_keys(o, pairwise_keys, "id, prompt, output_1, output_2, human, judge", w,
                               err)
            : calib_check_keys(o, expectation_keys,
                               "id, output, expectation, human, judge (expectation labels)", w,
                               err);

    if (!st)
        st = calib_string_member(o, "id", 1, w, &id, err);
    if (!st && kind == ARB_CALIB_PAIRWISE) {
        st = calib_string_member(o, "prompt", 0, w, &prompt, err);
        if (!st)
            st = calib_string_member(o, "output_1", 1, w, &o1, err);
        if (!st)
            st = calib_string_member(o, "output_2", 1, w, &o2, err);
    } else if (!st) {
        st = calib_string_member(o, "output", 1, w, &o1, err);
        if (!st)
            st = calib_string_member(o, "expectation", 1, w, &ex, err);
    }
    if (st)
        return st;
    h = cJSON_GetObjectItemCaseSensitive(o, "human");
    j = cJSON_GetObjectItemCaseSensitive(o, "judge");
    if (!h)
        return calib_located(err, ARB_ESCHEMA, w, "", 0, "missing \"human\" (the human label)");
    if (kind == ARB_CALIB_PAIRWISE) {
        st = pairwise_human(h, w, it, err);
        if (!st)
            st = pairwise_judge(j, w, it, err);
    } else {
        if (!cJSON_IsBool(h))
            return calib_located(err, ARB_ESCHEMA, w, "/human", 0, "expected true or false");
        it->human[0] = cJSON_IsTrue(h) ? ARB_V_TRUE : ARB_V_FALSE;
        it->n_human = 1;
        it->order_12 = it->order_21 = ARB_V_ABSENT;
        if (j && !cJSON_IsBool(j) && !cJSON_IsNull(j))
            return calib_located(err, ARB_ESCHEMA, w, "/judge", 0, "expected true, false or null");
        if (j) {
            it->recorded = 1;
            it->order_12 = cJSON_IsNull(j)   ? ARB_V_NULL
                           : cJSON_IsTrue(j) ? ARB_V_TRUE
                                             : ARB_V_FALSE;
        }
    }
    if (st)
        return st;
    it->id = dup_string(id);
    it->prompt = dup_string(prompt);
    it->output_1 = dup_string(o1);
    it->output_2 = dup_string(o2);
    it->expectation = dup_string(ex);
    if (!it->id || !it->output_1 || (prompt && !it->prompt) || (o2 && !it->output_2) ||
        (ex && !it->expectation))
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    return ARB_OK;
}

static void item_release(struct arb_calib_item *it)
{
    free(it->id);
    free(it->prompt);
    free(it->output_1);
    free(it->output_2);
    free(it->expectation);
}

/* Add the item on line w (already parsed as o), refusing a duplicate id. */
static enum arb_status add_item(void *ctx, const cJSON *o, const struct calib_line *w,
                                struct arb_err *err)
{
    struct arb_calib_set *set = ctx;
    struct arb_calib_item it;
    enum arb_status st;

    memset(&it, 0, sizeof(it));
    if (set->n == 0 && cJSON_IsObject(o))
        set->kind = cJSON_GetObjectItemCaseSensitive(o, "expectation") ? ARB_CALIB_EXPECTATION
                                                                       : ARB_CALIB_PAIRWISE;
    if (!cJSON_IsObject(o))
        st = calib_located(err, ARB_ESCHEMA, w, "", 0, "expected an object (one labelled item)");
    else
        st = parse_item(o, set->kind, w, &it, err);
    if (!st)
        st = calib_unique_id(w, it.id, err);
    if (!st && set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        struct arb_calib_item *grown = realloc(set->items, cap * sizeof(*grown));

        if (!grown)
            st = arb_err_set(err, ARB_ENOMEM, "out of memory");
        else {
            set->items = grown;
            set->cap = cap;
        }
    }
    if (st) {
        item_release(&it);
        return st;
    }
    set->items[set->n++] = it;
    return ARB_OK;
}

enum arb_status arb_calib_load(const char *path, struct arb_calib_set **out, struct arb_err *err)
{
    struct arb_calib_set *set = calloc(1, sizeof(*set));
    enum arb_status st;

    *out = NULL;
    if (!set)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    st = calib_jsonl_read(path, add_item, set, set->sha256, err);
    if (st)
        arb_calib_set_free(set);
    else
        *out = set;
    return st;
}

void arb_calib_set_free(struct arb_calib_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        item_release(&set->items[i]);
    free(set->items);
    free(set);
}

size_t arb_calib_unjudged(const struct arb_calib_set *set)
{
    size_t n = 0;

    for (size_t i = 0; i < set->n; i++)
        n += !set->items[i].recorded;
    return n;
}
