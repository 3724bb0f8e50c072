/*
 * tune_load.c - reading check labels (calibrate.h, "tuning a check's grey
 * band"): what each line must hold.  Reading the lines and locating errors as
 * FILE:LINE:COL are jsonl.c's; scoring and the search are tune.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/calibrate.h"
#include "arbiter/json.h"
#include "calib_int.h"

static const char *const tune_keys[] = {"id", "output", "expected", "human", NULL};

static void item_release(struct arb_tune_item *it)
{
    free(it->id);
    free(it->output);
    cJSON_Delete(it->expected);
}

/* "output": a string as is, any other JSON as its RFC 8785 text. */
static enum arb_status output_text(const cJSON *o, const struct calib_line *w,
                                   struct arb_tune_item *it, struct arb_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "output");

    if (!v)
        return calib_located(err, ARB_ESCHEMA, w, "", 0,
                             "missing \"output\" (the output to score)");
    if (cJSON_IsString(v)) {
        it->output = strdup(v->valuestring);
        it->output_len = it->output ? strlen(it->output) : 0;
        return it->output ? ARB_OK : arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    return arb_jcs_string(v, &it->output, &it->output_len, err);
}

static enum arb_status parse_item(const cJSON *o, const struct calib_line *w,
                                  struct arb_tune_item *it, struct arb_err *err)
{
    const cJSON *id = NULL, *h, *e;
    enum arb_status st;

    if (!cJSON_IsObject(o))
        return calib_located(err, ARB_ESCHEMA, w, "", 0,
                             "expected an object (one labelled output)");
    st = calib_check_keys(o, tune_keys, "id, output, expected, human (check labels)", w, err);
    if (!st)
        st = calib_string_member(o, "id", 1, w, &id, err);
    if (st)
        return st;
    h = cJSON_GetObjectItemCaseSensitive(o, "human");
    if (!h)
        return calib_located(err, ARB_ESCHEMA, w, "", 0,
                             "missing \"human\" (true: it should pass, false: it should fail)");
    if (!cJSON_IsBool(h))
        return calib_located(err, ARB_ESCHEMA, w, "/human", 0, "expected true or false");
    it->human = cJSON_IsTrue(h);
    it->line = w->line;
    it->id = strdup(id->valuestring);
    if (!it->id)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    st = output_text(o, w, it, err);
    if (st)
        return st;
    e = cJSON_GetObjectItemCaseSensitive(o, "expected");
    if (e) {
        it->expected = cJSON_Duplicate(e, 1);
        if (!it->expected)
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    return ARB_OK;
}

static enum arb_status add_item(void *ctx, const cJSON *o, const struct calib_line *w,
                                struct arb_err *err)
{
    struct arb_tune_set *set = ctx;
    struct arb_tune_item it;
    enum arb_status st;

    memset(&it, 0, sizeof(it));
    st = parse_item(o, w, &it, err);
    if (!st)
        st = calib_unique_id(w, it.id, err);
    if (!st && set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        struct arb_tune_item *grown = realloc(set->items, cap * sizeof(*grown));

        if (!grown) {
            st = arb_err_set(err, ARB_ENOMEM, "out of memory");
        } else {
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

enum arb_status arb_tune_load(const char *path, struct arb_tune_set **out, struct arb_err *err)
{
    struct arb_tune_set *set = calloc(1, sizeof(*set));
    enum arb_status st;

    *out = NULL;
    if (set)
        set->path = strdup(path);
    if (!set || !set->path) {
        arb_tune_set_free(set);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    st = calib_jsonl_read(path, add_item, set, set->sha256, err);
    if (st)
        arb_tune_set_free(set);
    else
        *out = set;
    return st;
}

void arb_tune_set_free(struct arb_tune_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        item_release(&set->items[i]);
    free(set->items);
    free(set->path);
    free(set);
}
