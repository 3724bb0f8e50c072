/*
 * ops_json.c - json_valid, json_canonical, json_match, json_subset and
 * json_distance.  The observed text is parsed with arb_json_parse (a parse
 * failure is the note json_parse_failed and score 0).  An expected string
 * whose content is a JSON object or array is read as that JSON, since peers
 * such as evalwire pass expected JSON as text.
 *
 *  - json_valid: 1 when the text is one JSON value (RFC 8259).
 *  - json_canonical: 1 when both sides have the same RFC 8785 form.
 *  - json_match: the fraction of checked keys (default: every key of
 *    expected) whose observed value equals the expected one (evalwire
 *    json_match; numbers by value, objects regardless of order).  Not an
 *    object, or no key to check: 0 with a note.
 *  - json_subset: 1 when expected is contained in observed: every expected
 *    member is present with a contained value, arrays have the same length
 *    and contained items in order (as Jest's toMatchObject), scalars are
 *    equal.  The first difference is a note (its JSON pointer).
 *  - json_distance: 1 - DamerauLevenshtein(jcs(e), jcs(o)) / max(len), over
 *    code points (LangChain's JsonEditDistanceEvaluator, as a similarity).
 */
#include <stdlib.h>
#include <string.h>

#include "distance.h"
#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "ops.h"

OP_RUN(op_json_valid_run)
{
    cJSON *doc = NULL;
    enum arb_status st = observed_json(in, res, &doc);

    if (!st && doc)
        res->score = 1.0;
    cJSON_Delete(doc);
    return st;
}

/*
 * The RFC 8785 forms of expected and observed into a and b (initialised by
 * the caller).  *ok is 1 when both exist; otherwise the record has its note.
 */
static enum arb_status canonical_pair(const struct op_input *in, struct arb_result *res,
                                      struct arb_buf *a, struct arb_buf *b, int *ok)
{
    cJSON *doc = NULL, *owned = NULL;
    const cJSON *e = expected_json(in->expected, &owned);
    struct arb_err jerr = {{0}};
    enum arb_status st = observed_json(in, res, &doc);

    *ok = 0;
    if (!st && doc) {
        result_norm(res, "rfc8785");
        st = arb_jcs_write(e, a, &jerr);
        if (!st)
            st = arb_jcs_write(doc, b, &jerr);
        if (st == ARB_ESCHEMA)
            st = result_notef(res, "json_parse_failed: %s", jerr.msg);
        else if (!st)
            *ok = 1;
    }
    cJSON_Delete(doc);
    cJSON_Delete(owned);
    return st;
}

OP_RUN(op_json_canonical_run)
{
    struct arb_buf a, b;
    int ok;
    enum arb_status st;

    arb_buf_init(&a, 0);
    arb_buf_init(&b, 0);
    st = canonical_pair(in, res, &a, &b, &ok);
    if (!st && ok)
        res->score = (a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0) ? 1.0 : 0.0;
    arb_buf_release(&a);
    arb_buf_release(&b);
    return st;
}

/* ---- json_match ---------------------------------------------------------------------- */

struct match_priv {
    cJSON *keys; /* array of strings, or NULL for every key of expected */
};

void op_free_json(void *priv)
{
    struct match_priv *mp = priv;

    cJSON_Delete(mp->keys);
    free(mp);
}

OP_COMPILE(op_json_match_compile)
{
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(cfg, "keys");
    const cJSON *k;
    struct match_priv *mp = calloc(1, sizeof(*mp));

    if (!mp)
        return ARB_ENOMEM;
    c->priv = mp;
    if (!keys)
        return ARB_OK;
    if (!cJSON_IsArray(keys))
        return arb_err_set(err, ARB_ESCHEMA, "%s/keys: expected an array of key names", path);
    cJSON_ArrayForEach(k, keys)
    {
        if (!cJSON_IsString(k))
            return arb_err_set(err, ARB_ESCHEMA, "%s/keys: expected an array of key names", path);
    }
    mp->keys = cJSON_Duplicate(keys, 1);
    return mp->keys ? ARB_OK : ARB_ENOMEM;
}

OP_RUN(op_json_match_run)
{
    const struct match_priv *mp = c->priv;
    cJSON *doc = NULL, *owned = NULL;
    const cJSON *e = expected_json(in->expected, &owned);
    const cJSON *keys, *k;
    size_t checked = 0, matching = 0;
    enum arb_status st;

    if (!cJSON_IsObject(e)) {
        cJSON_Delete(owned);
        return result_note(res, "expected_not_an_object");
    }
    st = observed_json(in, res, &doc);
    if (st || !doc)
        goto out;
    if (!cJSON_IsObject(doc)) {
        st = result_note(res, "observed_not_an_object");
        goto out;
    }
    keys = mp->keys ? mp->keys : e;
    cJSON_ArrayForEach(k, keys)
    {
        const char *name = mp->keys ? k->valuestring : k->string;
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(e, name);
        const cJSON *ov = cJSON_GetObjectItemCaseSensitive(doc, name);

        checked++;
        if (ev && ov && arb_json_equal(ev, ov))
            matching++;
    }
    if (checked == 0)
        st = result_note(res, "no_keys_to_check");
    else
        res->score = (double)matching / (double)checked;
out:
    cJSON_Delete(doc);
    cJSON_Delete(owned);
    return st;
}

/* ---- json_subset --------------------------------------------------------------------- */

/* 1 when e is contained in o; on the first difference, path names it. */
static int subset(const cJSON *e, const cJSON *o, struct arb_buf *path, int depth)
{
    const cJSON *ec, *oc;
    size_t mark = path->len;
    int i = 0;

    if (depth > 1000)
        return 0;
    if (cJSON_IsObject(e)) {
        if (!cJSON_IsObject(o))
            return 0;
        cJSON_ArrayForEach(ec, e)
        {
            oc = cJSON_GetObjectItemCaseSensitive(o, ec->string);
            if (arb_json_pointer_push(path, ec->string))
                return 0;
            if (!oc || !subset(ec, oc, path, depth + 1))
                return 0;
            path->len = mark;
            path->ptr[mark] = '\0';
        }
        return 1;
    }
    if (cJSON_IsArray(e)) {
        if (!cJSON_IsArray(o) || cJSON_GetArraySize(e) != cJSON_GetArraySize(o))
            return 0;
        oc = o->child;
        cJSON_ArrayForEach(ec, e)
        {
            if (arb_buf_printf(path, "/%d", i++))
                return 0;
            if (!subset(ec, oc, path, depth + 1))
                return 0;
            path->len = mark;
            path->ptr[mark] = '\0';
            oc = oc->next;
        }
        return 1;
    }
    return arb_json_equal(e, o);
}

OP_RUN(op_json_subset_run)
{
    cJSON *doc = NULL, *owned = NULL;
    const cJSON *e = expected_json(in->expected, &owned);
    struct arb_buf path;
    enum arb_status st = observed_json(in, res, &doc);

    arb_buf_init(&path, 1 << 16);
    if (!st && doc) {
        arb_buf_add(&path, "", 0);
        if (subset(e, doc, &path, 0))
            res->score = 1.0;
        else
            st = result_notef(res, "mismatch at '%s'", path.ptr ? path.ptr : "");
    }
    arb_buf_release(&path);
    cJSON_Delete(doc);
    cJSON_Delete(owned);
    return st;
}

/* ---- json_distance ------------------------------------------------------------------- */

OP_RUN(op_json_distance_run)
{
    struct arb_buf a, b;
    uint32_t *ca = NULL, *cb = NULL;
    size_t na = 0, nb = 0, d = 0, mx;
    int ok;
    enum arb_status st;

    arb_buf_init(&a, 0);
    arb_buf_init(&b, 0);
    st = canonical_pair(in, res, &a, &b, &ok);
    if (!st && ok)
        st = arb_utf8_to_cps(a.ptr, a.len, &ca, &na);
    if (!st && ok)
        st = arb_utf8_to_cps(b.ptr, b.len, &cb, &nb);
    if (!st && ok)
        st = arb_damerau_levenshtein(ca, na, cb, nb, &d);
    if (st == ARB_ETOOBIG) {
        st = result_note(res, "input_too_large: the distance would need more than "
                              "100 million cells");
    } else if (!st && ok) {
        mx = na > nb ? na : nb;
        res->score = mx == 0 ? 1.0 : 1.0 - (double)d / (double)mx;
    }
    free(ca);
    free(cb);
    arb_buf_release(&a);
    arb_buf_release(&b);
    return st;
}
