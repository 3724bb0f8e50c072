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
 *    json_match; numbers by value, objects regardless of order: equal RFC
 *    8785 forms, recorded as the step rfc8785).  A key absent from observed
 *    is read as null, as evalwire's output_obj.get(k) reads it, so it matches
 *    an expected null (step absent_as_null and a note naming the key).  Not
 *    an object, or no key to check: 0 with a note.
 *  - json_subset: 1 when expected is contained in observed: every expected
 *    member is present with a contained value, arrays have the same length
 *    and contained items in order (as Jest's toMatchObject), scalars are
 *    equal as JSON values (step rfc8785).  The first difference is a note (its
 *    JSON pointer).
 *  - json_distance: 1 - DamerauLevenshtein(jcs(e), jcs(o)) / max(len), over
 *    code points (LangChain's JsonEditDistanceEvaluator, as a similarity).
 *
 * json_canonical, json_distance and json_match record the RFC 8785 texts they
 * compared (json_match: the checked members of each side) as the record's
 * compared surfaces.
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
            st = result_compared_texts(res, ARB_COMPARED_JSON, a->ptr ? a->ptr : "", a->len,
                                       b->ptr ? b->ptr : "", b->len);
        if (!st)
            *ok = res->compared_kind == ARB_COMPARED_JSON;
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
    cJSON *keys;          /* array of strings, or NULL for every key of expected */
    struct arb_buf esurf; /* the expected surface, when expected is the check's own */
    int esurf_ok;
};

void op_free_json(void *priv)
{
    struct match_priv *mp = priv;

    cJSON_Delete(mp->keys);
    arb_buf_release(&mp->esurf);
    free(mp);
}

OP_COMPILE(op_json_match_compile)
{
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(cfg, "keys");
    const cJSON *k;
    struct match_priv *mp = calloc(1, sizeof(*mp));

    if (!mp)
        return ARB_ENOMEM;
    arb_buf_init(&mp->esurf, 0);
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

/*
 * A compared surface of json_match: an object of the checked members, built from shallow copies
 * of the compared values in a pool (one allocation per run, nothing to delete node by node).
 */
struct surface {
    cJSON obj;
    cJSON *pool;
    size_t n;
    cJSON *last;
};

/* Add v (NULL: a null) under name, once: a key listed twice is one member. */
static void surface_put(struct surface *s, const char *name, const cJSON *v)
{
    cJSON *m;

    for (m = s->obj.child; m; m = m->next)
        if (strcmp(m->string, name) == 0)
            return;
    m = &s->pool[s->n++];
    if (v)
        *m = *v;
    else
        memset(m, 0, sizeof(*m));
    m->type = v ? (v->type & 0xFF) : cJSON_NULL;
    m->next = m->prev = NULL;
    m->string = (char *)name;
    if (s->last)
        s->last->next = m;
    else
        s->obj.child = m;
    s->last = m;
}

/*
 * Compare the value of one checked key.  An absent observed key reads as null (evalwire's
 * output_obj.get(k)); when that makes it equal to an expected null, the record says so.
 */
static enum arb_status match_key(const cJSON *ev, const cJSON *ov, const char *name,
                                 struct arb_result *res, struct surface *se, struct surface *so,
                                 int *match)
{
    enum arb_status st = ARB_OK;

    *match = 0;
    if (ev && !ov && cJSON_IsNull(ev)) {
        *match = 1;
        result_norm_side(res, "absent_as_null", ARB_SIDE_OBSERVED);
        st = result_notef(res,
                          "absent_as_null: observed has no '%.200s', read as null as evalwire "
                          "json_match reads it, which equals the expected null",
                          name);
        surface_put(so, name, NULL);
    }
    if (ev)
        surface_put(se, name, ev);
    if (ov)
        surface_put(so, name, ov);
    if (ev && ov)
        *match = arb_json_equal(ev, ov);
    return st;
}

/*
 * The checked members of each side as RFC 8785 text: the record's compared surfaces.  The
 * expected side depends only on expected and keys, so with the check's own expected it is
 * written once and kept.
 */
static enum arb_status match_surfaces(struct arb_check *c, const struct op_input *in,
                                      struct arb_result *res, const struct surface *se,
                                      const struct surface *so)
{
    struct match_priv *mp = c->priv;
    int own = in->expected == c->expected;
    struct arb_buf *a = own ? &mp->esurf : &c->scratch[0], *b = &c->scratch[1];
    enum arb_status st = ARB_OK;

    if (!own || !mp->esurf_ok) {
        arb_buf_reset(a);
        st = arb_jcs_write(&se->obj, a, NULL);
        mp->esurf_ok = own && !st;
    }
    arb_buf_reset(b);
    if (!st)
        st = arb_jcs_write(&so->obj, b, NULL);
    if (!st)
        st = result_compared_texts(res, ARB_COMPARED_JSON, a->ptr ? a->ptr : "", a->len,
                                   b->ptr ? b->ptr : "", b->len);
    return st == ARB_ESCHEMA ? ARB_OK : st; /* a value with no canonical form: no surfaces */
}

OP_RUN(op_json_match_run)
{
    const struct match_priv *mp = c->priv;
    cJSON *doc = NULL, *owned = NULL;
    const cJSON *e = expected_json(in->expected, &owned);
    const cJSON *keys, *k;
    struct surface se, so;
    cJSON small[32]; /* the surfaces' nodes for up to 16 checked keys, without an allocation */
    size_t checked = 0, matching = 0, nkeys;
    int match;
    enum arb_status st;

    memset(&se, 0, sizeof(se));
    memset(&so, 0, sizeof(so));
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
    nkeys = (size_t)cJSON_GetArraySize(keys);
    se.obj.type = so.obj.type = cJSON_Object;
    se.pool =
        2 * nkeys <= sizeof(small) / sizeof(small[0]) ? small : calloc(2 * nkeys, sizeof(cJSON));
    if (!se.pool) {
        st = ARB_ENOMEM;
        goto out;
    }
    so.pool = se.pool + nkeys;
    cJSON_ArrayForEach(k, keys)
    {
        const char *name = mp->keys ? k->valuestring : k->string;

        checked++;
        st = match_key(cJSON_GetObjectItemCaseSensitive(e, name),
                       cJSON_GetObjectItemCaseSensitive(doc, name), name, res, &se, &so, &match);
        if (st)
            goto out;
        matching += (size_t)match;
    }
    if (checked == 0) {
        st = result_note(res, "no_keys_to_check");
        goto out;
    }
    result_norm(res, "rfc8785");
    res->score = (double)matching / (double)checked;
    st = match_surfaces(c, in, res, &se, &so);
out:
    if (se.pool != small)
        free(se.pool);
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
        result_norm(res, "rfc8785"); /* scalars equal as JSON values: 1 = 1.0 */
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
