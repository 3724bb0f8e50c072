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
 *
 * json_match builds only what it compares: the observed object's checked members
 * (observed_members; the rest is checked and stepped over), and surfaces written
 * member by member from the checked names laid out once (struct match_plan).
 */
#include <stdlib.h>
#include <string.h>

#include "distance.h"
#include "arbiter/json.h"
#include "arbiter/unicode.h"
#include "ops.h"

OP_RUN(op_json_valid_run)
{
    const cJSON *doc;
    cJSON *parsed;
    enum arb_status st = observed_doc(in, res, &doc, &parsed);

    if (!st && doc)
        res->score = 1.0;
    cJSON_Delete(parsed);
    return st;
}

/*
 * The RFC 8785 forms of expected and observed into a and b, the check's scratch space (kept
 * from run to run: no allocation per run once they have grown).  *ok is 1 when both exist;
 * otherwise the record has its note.
 */
static enum arb_status canonical_pair(struct arb_check *c, const struct op_input *in,
                                      struct arb_result *res, struct arb_buf **a,
                                      struct arb_buf **b, int *ok)
{
    cJSON *parsed, *owned = NULL;
    const cJSON *e = expected_json(in->expected, &owned), *doc;
    struct arb_err jerr; /* read only after arb_jcs_write failed, which fills it */
    enum arb_status st = observed_doc(in, res, &doc, &parsed);

    *ok = 0;
    *a = &c->scratch[0];
    *b = &c->scratch[1];
    arb_buf_reset(*a);
    arb_buf_reset(*b);
    if (!st && doc) {
        result_norm(res, "rfc8785");
        st = arb_jcs_write(e, *a, &jerr);
        if (!st)
            st = arb_jcs_write(doc, *b, &jerr);
        if (st == ARB_ESCHEMA)
            st = result_notef(res, "json_parse_failed: %s", jerr.msg);
        else if (!st)
            st = result_compared_texts(res, ARB_COMPARED_JSON, (*a)->ptr ? (*a)->ptr : "",
                                       (*a)->len, (*b)->ptr ? (*b)->ptr : "", (*b)->len);
        if (!st)
            *ok = res->compared_kind == ARB_COMPARED_JSON;
    }
    cJSON_Delete(parsed);
    cJSON_Delete(owned);
    return st;
}

OP_RUN(op_json_canonical_run)
{
    struct arb_buf *a, *b;
    int ok;
    enum arb_status st = canonical_pair(c, in, res, &a, &b, &ok);

    if (!st && ok)
        res->score = (a->len == b->len && memcmp(a->ptr, b->ptr, a->len) == 0) ? 1.0 : 0.0;
    return st;
}

/* ---- json_match ---------------------------------------------------------------------- */

/*
 * What a json_match run compares, laid out once: the checked keys in order (a key listed twice
 * is checked twice), the distinct names among them in RFC 8785 order (the order of the compared
 * surfaces' members) and each name's `"name":` as RFC 8785 writes it.  Made at compile time for
 * the keys parameter or the check's own expected, else on each run (the storage kept).
 */
struct name_ref {
    const char *name;
    size_t idx;
};

struct match_plan {
    size_t n_keys, n_names, cap;
    size_t *key_name;   /* per checked key: its name's index */
    const char **names; /* distinct names (borrowed from keys or expected) */
    size_t *prefix_at;  /* name u's prefix is prefix[prefix_at[u] .. prefix_at[u + 1]); an
                           empty one: the name has no RFC 8785 form (not valid UTF-8) */
    struct arb_buf prefix;
    const cJSON **ev;      /* per name: expected's value, NULL when absent */
    cJSON **ov;            /* per name, during a run: observed's value (owned, or the shared
                              output's: observed_members), NULL when absent */
    struct name_ref *refs; /* sorting space */
};

struct match_priv {
    cJSON *keys;               /* array of strings, or NULL for every key of expected */
    cJSON *own_owned;          /* the check's own expected read as JSON, when it was text */
    const cJSON *own;          /* the check's own expected as json_match reads it, or NULL */
    struct match_plan fixed;   /* for keys or the check's own expected object */
    struct match_plan per_run; /* for a case's expected without keys */
    struct arb_buf esurf;      /* the expected surface, when expected is the check's own */
    int esurf_ok;
};

static void plan_release(struct match_plan *p)
{
    free(p->key_name);
    free(p->names);
    free(p->prefix_at);
    free(p->ev);
    free(p->ov);
    free(p->refs);
    arb_buf_release(&p->prefix);
}

void op_free_json(void *priv)
{
    struct match_priv *mp = priv;

    plan_release(&mp->fixed);
    plan_release(&mp->per_run);
    cJSON_Delete(mp->keys);
    cJSON_Delete(mp->own_owned);
    arb_buf_release(&mp->esurf);
    free(mp);
}

/* Room for n checked keys (and as many names) in p's arrays.  ARB_ENOMEM. */
static enum arb_status plan_reserve(struct match_plan *p, size_t n)
{
    size_t *kn, *at;
    const char **names;
    const cJSON **ev;
    cJSON **ov;
    struct name_ref *refs;

    if (n <= p->cap)
        return ARB_OK;
    kn = realloc(p->key_name, n * sizeof(*kn));
    if (kn)
        p->key_name = kn;
    names = kn ? realloc(p->names, n * sizeof(*names)) : NULL;
    if (names)
        p->names = names;
    at = names ? realloc(p->prefix_at, (n + 1) * sizeof(*at)) : NULL;
    if (at)
        p->prefix_at = at;
    ev = at ? realloc(p->ev, n * sizeof(*ev)) : NULL;
    if (ev)
        p->ev = ev;
    ov = ev ? calloc(n, sizeof(*ov)) : NULL;
    if (ov) {
        free(p->ov);
        p->ov = ov;
    }
    refs = ov ? realloc(p->refs, n * sizeof(*refs)) : NULL;
    if (!refs)
        return ARB_ENOMEM;
    p->refs = refs;
    p->cap = n;
    return ARB_OK;
}

/* RFC 8785 order, then bytes (for names that are not UTF-8), then the keys' order. */
static int ref_cmp(const void *pa, const void *pb)
{
    const struct name_ref *a = pa, *b = pb;
    int c = arb_jcs_name_cmp(a->name, b->name);

    if (!c)
        c = strcmp(a->name, b->name);
    return c ? c : (a->idx > b->idx) - (a->idx < b->idx);
}

/* Each name's `"name":` into p->prefix (empty when the name has no RFC 8785 form). */
static enum arb_status plan_prefixes(struct match_plan *p)
{
    cJSON node;
    size_t u;
    enum arb_status st = ARB_OK;

    arb_buf_reset(&p->prefix);
    memset(&node, 0, sizeof(node));
    node.type = cJSON_String;
    for (u = 0; !st && u < p->n_names; u++) {
        p->prefix_at[u] = p->prefix.len;
        node.valuestring = (char *)p->names[u];
        st = arb_jcs_write(&node, &p->prefix, NULL);
        if (!st)
            st = arb_buf_addc(&p->prefix, ':');
        else if (st == ARB_ESCHEMA)
            st = ARB_OK;
    }
    p->prefix_at[p->n_names] = p->prefix.len;
    return st;
}

/* Lay out the keys of list: the strings of an array (the keys parameter), or an object's names. */
static enum arb_status plan_make(struct match_plan *p, const cJSON *list)
{
    int names_of_object = cJSON_IsObject(list);
    const cJSON *k;
    size_t i, n = 0;
    enum arb_status st;

    for (k = list->child; k; k = k->next)
        n++;
    st = plan_reserve(p, n ? n : 1); /* prefix_at has n + 1 entries */
    if (st)
        return st;
    for (i = 0, k = list->child; k; k = k->next, i++) {
        p->refs[i].name = names_of_object ? k->string : k->valuestring;
        p->refs[i].idx = i;
    }
    if (n > 1)
        qsort(p->refs, n, sizeof(*p->refs), ref_cmp);
    p->n_keys = n;
    p->n_names = 0;
    for (i = 0; i < n; i++) {
        if (!p->n_names || strcmp(p->names[p->n_names - 1], p->refs[i].name) != 0)
            p->names[p->n_names++] = p->refs[i].name;
        p->key_name[p->refs[i].idx] = p->n_names - 1;
    }
    return plan_prefixes(p);
}

/* Each name's value in the expected object e. */
static void plan_expected(struct match_plan *p, const cJSON *e)
{
    size_t u;

    for (u = 0; u < p->n_names; u++)
        p->ev[u] = cJSON_GetObjectItemCaseSensitive(e, p->names[u]);
}

OP_COMPILE(op_json_match_compile)
{
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(cfg, "keys");
    const cJSON *k;
    struct match_priv *mp = calloc(1, sizeof(*mp));
    enum arb_status st = ARB_OK;

    if (!mp)
        return ARB_ENOMEM;
    arb_buf_init(&mp->esurf, 0);
    arb_buf_init(&mp->fixed.prefix, 0);
    arb_buf_init(&mp->per_run.prefix, 0);
    c->priv = mp;
    if (keys && !cJSON_IsArray(keys))
        return arb_err_set(err, ARB_ESCHEMA, "%s/keys: expected an array of key names", path);
    cJSON_ArrayForEach(k, keys)
    {
        if (!cJSON_IsString(k))
            return arb_err_set(err, ARB_ESCHEMA, "%s/keys: expected an array of key names", path);
    }
    if (keys) {
        mp->keys = cJSON_Duplicate(keys, 1);
        if (!mp->keys)
            return ARB_ENOMEM;
    }
    if (c->expected)
        mp->own = expected_json(c->expected, &mp->own_owned);
    if (mp->keys || cJSON_IsObject(mp->own))
        st = plan_make(&mp->fixed, mp->keys ? mp->keys : mp->own);
    if (!st && cJSON_IsObject(mp->own))
        plan_expected(&mp->fixed, mp->own);
    return st;
}

/*
 * Compare the value of one checked key.  An absent observed key reads as null (evalwire's
 * output_obj.get(k)); when that makes it equal to an expected null, the record says so.
 */
static enum arb_status match_key(const cJSON *ev, const cJSON *ov, const char *name,
                                 struct arb_result *res, int *match)
{
    *match = 0;
    if (ev && !ov && cJSON_IsNull(ev)) {
        *match = 1;
        result_norm_side(res, "absent_as_null", ARB_SIDE_OBSERVED);
        return result_notef(res,
                            "absent_as_null: observed has no '%.200s', read as null as evalwire "
                            "json_match reads it, which equals the expected null",
                            name);
    }
    if (ev && ov)
        *match = arb_json_equal(ev, ov);
    return ARB_OK;
}

/*
 * One compared surface as RFC 8785 text: an object of the names whose value v[u] is there, in
 * RFC 8785 order, written member by member.  With nulls (the observed side), a name absent from
 * v whose expected value is null is written as null (absent_as_null).  ARB_ESCHEMA when a member
 * has no canonical form.
 */
static enum arb_status surface_write(const struct match_plan *p, const cJSON *const *v, int nulls,
                                     struct arb_buf *out)
{
    size_t u, at, n;
    int first = 1;
    enum arb_status st = arb_buf_addc(out, '{');

    for (u = 0; !st && u < p->n_names; u++) {
        if (!v[u] && !(nulls && p->ev[u] && cJSON_IsNull(p->ev[u])))
            continue;
        at = p->prefix_at[u];
        n = p->prefix_at[u + 1] - at;
        if (n == 0)
            return ARB_ESCHEMA;
        if (!first)
            st = arb_buf_addc(out, ',');
        first = 0;
        if (!st)
            st = arb_buf_add(out, p->prefix.ptr + at, n);
        if (!st)
            st = v[u] ? arb_jcs_write_at(v[u], 1, out, NULL) : arb_buf_add(out, "null", 4);
    }
    return st ? st : arb_buf_addc(out, '}');
}

/*
 * The checked members of each side as RFC 8785 text: the record's compared surfaces.  The
 * expected side depends only on expected and keys, so with the check's own expected it is
 * written once and kept.
 */
static enum arb_status match_surfaces(struct arb_check *c, const struct match_plan *p, int own,
                                      struct arb_result *res)
{
    struct match_priv *mp = c->priv;
    struct arb_buf *a = own ? &mp->esurf : &c->scratch[0], *b = &c->scratch[1];
    enum arb_status st = ARB_OK;

    if (!own || !mp->esurf_ok) {
        arb_buf_reset(a);
        st = surface_write(p, p->ev, 0, a);
        mp->esurf_ok = own && !st;
    }
    arb_buf_reset(b);
    if (!st)
        st = surface_write(p, (const cJSON *const *)p->ov, 1, b);
    if (!st)
        st = result_compared_texts(res, ARB_COMPARED_JSON, a->ptr ? a->ptr : "", a->len,
                                   b->ptr ? b->ptr : "", b->len);
    return st == ARB_ESCHEMA ? ARB_OK : st; /* a value with no canonical form: no surfaces */
}

/* Score the checked keys of p against what observed holds (p->ov), and record the surfaces. */
static enum arb_status match_score(struct arb_check *c, const struct match_plan *p, int own,
                                   struct arb_result *res)
{
    size_t i, u, matching = 0;
    int match;
    enum arb_status st;

    if (p->n_keys == 0)
        return result_note(res, "no_keys_to_check");
    for (i = 0; i < p->n_keys; i++) {
        u = p->key_name[i];
        st = match_key(p->ev[u], p->ov[u], p->names[u], res, &match);
        if (st)
            return st;
        matching += (size_t)match;
    }
    result_norm(res, "rfc8785");
    res->score = (double)matching / (double)p->n_keys;
    return match_surfaces(c, p, own, res);
}

OP_RUN(op_json_match_run)
{
    struct match_priv *mp = c->priv;
    int own = mp->own && in->expected == c->expected, read = 0, ov_owned = 1;
    cJSON *owned = NULL;
    const cJSON *e = own ? mp->own : expected_json(in->expected, &owned);
    struct match_plan *p = &mp->fixed;
    enum arb_status st = ARB_OK;
    size_t u;

    if (!cJSON_IsObject(e)) {
        cJSON_Delete(owned);
        return result_note(res, "expected_not_an_object");
    }
    if (!mp->keys && !own) {
        p = &mp->per_run;
        st = plan_make(p, e);
    }
    if (!st && !own)
        plan_expected(p, e);
    if (!st)
        st = observed_members(in, res, p->names, p->n_names, p->ov, &read, &ov_owned);
    if (!st && read == 0)
        st = result_note(res, "observed_not_an_object");
    if (!st && read == 1)
        st = match_score(c, p, own, res);
    for (u = 0; u < p->n_names; u++) {
        if (ov_owned)
            cJSON_Delete(p->ov[u]);
        p->ov[u] = NULL;
    }
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
    cJSON *parsed, *owned = NULL;
    const cJSON *e = expected_json(in->expected, &owned), *doc;
    struct arb_buf path;
    enum arb_status st = observed_doc(in, res, &doc, &parsed);

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
    cJSON_Delete(parsed);
    cJSON_Delete(owned);
    return st;
}

/* ---- json_distance ------------------------------------------------------------------- */

OP_RUN(op_json_distance_run)
{
    struct arb_buf *a, *b;
    uint32_t *ca = NULL, *cb = NULL;
    size_t na = 0, nb = 0, d = 0, mx;
    int ok;
    enum arb_status st = canonical_pair(c, in, res, &a, &b, &ok);

    if (!st && ok)
        st = arb_utf8_to_cps(a->ptr, a->len, &ca, &na);
    if (!st && ok)
        st = arb_utf8_to_cps(b->ptr, b->len, &cb, &nb);
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
    return st;
}
