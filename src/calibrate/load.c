/*
 * load.c - reading a judge's labels file (calibrate.h): what each line must
 * hold, pairwise or expectation.  Outputs that are not strings become their
 * RFC 8785 text here; the labels themselves are read by labels.c.  Reading
 * the lines, locating errors as "FILE:LINE:COL: /pointer: what was expected"
 * and hashing the file are jsonl.c's (calib_int.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/calibrate.h"
#include "arbiter/json.h"
#include "calib_int.h"

/* ---- one line -------------------------------------------------------------------------- */

static const char *const pairwise_keys[] = {"id",    "prompt",   "output_1", "output_2", "human",
                                            "judge", "criteria", "expected", NULL};
static const char *const expectation_keys[] = {"id",    "output", "expectation",
                                               "human", "judge",  NULL};

static const struct calib_vocab numbered = {{NULL, NULL}};

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

/*
 * Member name of o as text into *out: a string as it is, any other JSON value as its RFC
 * 8785 text (a published data set's boolean or object output must load), as `arbiter check
 * --batch` reads "observed".  Absent and optional: *out stays NULL.
 */
static enum arb_status text_member(const cJSON *o, const char *name, int required,
                                   const struct calib_line *w, char **out, struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    char ptr[64];
    enum arb_status st;

    if (!v)
        return required ? calib_located(err, ARB_ESCHEMA, w, "", 0, "missing \"%s\"", name)
                        : ARB_OK;
    if (cJSON_IsString(v)) {
        *out = strdup(v->valuestring);
        return *out ? ARB_OK : arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    st = arb_jcs_string(v, out, NULL, err);
    if (st == ARB_OK || st == ARB_ENOMEM)
        return st;
    /* Not expected: the parser already refuses a number beyond double's range. */
    snprintf(ptr, sizeof(ptr), "/%s", name);
    return calib_located(err, ARB_ESCHEMA, w, ptr, 0, "%s", err->msg);
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

static enum arb_status pairwise_item(const cJSON *o, const struct calib_line *w,
                                     struct arb_calib_item *it, struct arb_err *err)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "human");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "expected");
    enum arb_status st = text_member(o, "prompt", 0, w, &it->prompt, err);

    if (!st)
        st = text_member(o, "output_1", 1, w, &it->output_1, err);
    if (!st)
        st = text_member(o, "output_2", 1, w, &it->output_2, err);
    if (!st && !h)
        st = calib_located(err, ARB_ESCHEMA, w, "", 0, "missing \"human\" (the human label)");
    if (!st)
        st = calib_labels(&numbered, h, "/human", w, it->human, &it->n_human, err);
    if (!st)
        st = pairwise_judge(cJSON_GetObjectItemCaseSensitive(o, "judge"), w, it, err);
    if (!st)
        st = calib_criteria(&numbered, cJSON_GetObjectItemCaseSensitive(o, "criteria"), w, it, err);
    if (!st && e && !(it->expected = cJSON_Duplicate(e, 1)))
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    return st;
}

static enum arb_status expectation_item(const cJSON *o, const struct calib_line *w,
                                        struct arb_calib_item *it, struct arb_err *err)
{
    const cJSON *ex, *h = cJSON_GetObjectItemCaseSensitive(o, "human");
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, "judge");
    enum arb_status st = text_member(o, "output", 1, w, &it->output_1, err);

    if (!st)
        st = calib_string_member(o, "expectation", 1, w, &ex, err);
    if (st)
        return st;
    if (!h)
        return calib_located(err, ARB_ESCHEMA, w, "", 0, "missing \"human\" (the human label)");
    if (!cJSON_IsBool(h))
        return calib_located(err, ARB_ESCHEMA, w, "/human", 0, "expected true or false");
    it->human[0] = cJSON_IsTrue(h) ? ARB_V_TRUE : ARB_V_FALSE;
    it->n_human = 1;
    it->order_12 = it->order_21 = ARB_V_ABSENT;
    if (j && !cJSON_IsBool(j) && !cJSON_IsNull(j))
        return calib_located(err, ARB_ESCHEMA, w, "/judge", 0, "expected true, false or null");
    if (j) {
        it->recorded = 1;
        it->order_12 = cJSON_IsNull(j) ? ARB_V_NULL : cJSON_IsTrue(j) ? ARB_V_TRUE : ARB_V_FALSE;
    }
    it->expectation = strdup(ex->valuestring);
    return it->expectation ? ARB_OK : arb_err_set(err, ARB_ENOMEM, "out of memory");
}

static enum arb_status parse_item(const cJSON *o, enum arb_calib_kind kind,
                                  const struct calib_line *w, struct arb_calib_item *it,
                                  struct arb_err *err)
{
    const cJSON *id;
    enum arb_status st =
        kind == ARB_CALIB_PAIRWISE
            ? calib_check_keys(o, pairwise_keys,
                               "id, prompt, output_1, output_2, human, judge, criteria, expected",
                               w, err)
            : calib_check_keys(o, expectation_keys,
                               "id, output, expectation, human, judge (expectation labels)", w,
                               err);

    if (!st)
        st = calib_string_member(o, "id", 1, w, &id, err);
    if (st)
        return st;
    it->id = strdup(id->valuestring);
    if (!it->id)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    return kind == ARB_CALIB_PAIRWISE ? pairwise_item(o, w, it, err)
                                      : expectation_item(o, w, it, err);
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
    if (st) {
        calib_item_release(&it);
        return st;
    }
    return calib_set_push(set, &it, err);
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
        calib_item_release(&set->items[i]);
    free(set->items);
    free(set);
}

size_t arb_calib_unjudged(const struct arb_calib_set *set)
{
    size_t n = 0;

    for (size_t i = 0; i < set->n; i++)
        n += !set->items[i].recorded && !set->items[i].has_final;
    return n;
}
