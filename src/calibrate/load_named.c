/*
 * load_named.c - labels for a finished run (calibrate.h, arb_calib_load_named):
 * one line per case, {"id", "human", "criteria"?, "note"?}, whose labels name
 * the run's systems.  The lines carry no outputs and no verdicts: the caller
 * takes those from the run.  The lines come from a file or from a text (the
 * labels of a run in the database, as `arbiter export --labels` writes them).
 * Reading the lines and locating errors are jsonl.c's, the labels labels.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/calibrate.h"
#include "calib_int.h"

static const char *const named_keys[] = {"id", "human", "criteria", "note", NULL};

struct named_ctx {
    struct arb_calib_set *set;
    struct calib_vocab vocab;
};

static enum arb_status parse_named(const cJSON *o, const struct calib_vocab *v,
                                   const struct calib_line *w, struct arb_calib_item *it,
                                   struct arb_err *err)
{
    const cJSON *id, *note, *h;
    enum arb_status st;

    if (!cJSON_IsObject(o))
        return calib_located(err, ARB_ESCHEMA, w, "", 0,
                             "expected an object {\"id\": CASE, \"human\": SYSTEM}");
    st = calib_check_keys(o, named_keys, "id, human, criteria, note (labels for a run)", w, err);
    if (!st)
        st = calib_string_member(o, "id", 1, w, &id, err);
    if (!st)
        st = calib_string_member(o, "note", 0, w, &note, err);
    if (st)
        return st;
    h = cJSON_GetObjectItemCaseSensitive(o, "human");
    if (!h)
        return calib_located(err, ARB_ESCHEMA, w, "", 0,
                             "missing \"human\" (the better system, or \"tie\")");
    it->order_12 = it->order_21 = ARB_V_ABSENT;
    it->final = ARB_V_NULL;
    it->id = strdup(id->valuestring);
    if (!it->id)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    st = calib_labels(v, h, "/human", w, it->human, &it->n_human, err);
    if (!st)
        st = calib_criteria(v, cJSON_GetObjectItemCaseSensitive(o, "criteria"), w, it, err);
    return st;
}

static enum arb_status add_named(void *ctx, const cJSON *o, const struct calib_line *w,
                                 struct arb_err *err)
{
    struct named_ctx *c = ctx;
    struct arb_calib_item it;
    enum arb_status st;

    memset(&it, 0, sizeof(it));
    st = parse_named(o, &c->vocab, w, &it, err);
    if (!st)
        st = calib_unique_id(w, it.id, err);
    if (st) {
        calib_item_release(&it);
        return st;
    }
    return calib_set_push(c->set, &it, err);
}

/*
 * Systems the labels can tell apart: two, different, neither "tie" ("TIE" is the
 * suite's to refuse, and is refused here too).  The tie words match exactly, like names.
 */
static enum arb_status check_systems(const char *const systems[2], struct arb_err *err)
{
    if (!systems || !systems[0] || !systems[1] || !systems[0][0] || !systems[1][0])
        return arb_err_set(err, ARB_EUSAGE, "labels for a run need the run's two system names");
    if (strcmp(systems[0], systems[1]) == 0)
        return arb_err_set(err, ARB_EUSAGE,
                           "labels for a run need two different systems, got "
                           "'%.100s' twice",
                           systems[0]);
    for (int s = 0; s < 2; s++)
        if (strcmp(systems[s], "tie") == 0 || strcmp(systems[s], "TIE") == 0)
            return arb_err_set(err, ARB_EUSAGE,
                               "system '%s' cannot be named in labels: \"tie\" means a tie",
                               systems[s]);
    return ARB_OK;
}

/*
 * Read labels for a run from a file (path) or, when text is given, from text[0..len) named
 * name in messages: one parser for both, so the figures cannot differ.
 */
static enum arb_status load_named(const char *path, const char *text, size_t len,
                                  const char *const systems[2], struct arb_calib_set **out,
                                  struct arb_err *err)
{
    struct named_ctx c;
    enum arb_status st;

    *out = NULL;
    st = check_systems(systems, err);
    if (st)
        return st;
    c.vocab.system[0] = systems[0];
    c.vocab.system[1] = systems[1];
    c.set = calloc(1, sizeof(*c.set));
    if (!c.set)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    c.set->kind = ARB_CALIB_PAIRWISE;
    if (text)
        st = calib_jsonl_read_text(text, len, path, add_named, &c, c.set->sha256, err);
    else
        st = calib_jsonl_read(path, add_named, &c, c.set->sha256, err);
    if (st)
        arb_calib_set_free(c.set);
    else
        *out = c.set;
    return st;
}

enum arb_status arb_calib_load_named(const char *path, const char *const systems[2],
                                     struct arb_calib_set **out, struct arb_err *err)
{
    return load_named(path, NULL, 0, systems, out, err);
}

enum arb_status arb_calib_load_named_text(const char *text, size_t len, const char *name,
                                          const char *const systems[2], struct arb_calib_set **out,
                                          struct arb_err *err)
{
    if (!text || !name) {
        *out = NULL;
        return arb_err_set(err, ARB_EUSAGE, "arb_calib_load_named_text: no text or name");
    }
    return load_named(name, text, len, systems, out, err);
}
