/*
 * ops_schema.c - the json_schema operator: the observed text, parsed as
 * JSON, validated against the expected schema (src/schema/, draft 7 or
 * 2020-12 by `$schema`, default 2020-12).  Score 1 when valid, else 0 with
 * one note per violation ("/lineItems/0/price: exclusiveMinimum", at most 20)
 * and then "+N more (T in total)".
 *
 * An invalid schema in the check is a compile error naming the keyword.
 * Schemas are compiled once: the check's own at compile time (through the
 * caller's cache when one is given), a case's through a cache keyed by the
 * schema's canonical hash, so 10,000 outputs against one schema compile it
 * once.
 */
#include <stdio.h>
#include <stdlib.h>

#include "arbiter/schema.h"
#include "ops.h"

struct schema_priv {
    const struct arb_schema *own; /* the check's schema (owned by owned or a cache) */
    struct arb_schema *owned;
    struct arb_schema_cache *cache; /* for case schemas when the caller gave none */
};

void op_json_schema_free(void *priv)
{
    struct schema_priv *sp = priv;

    arb_schema_free(sp->owned);
    arb_schema_cache_free(sp->cache);
    free(sp);
}

OP_COMPILE(op_json_schema_compile)
{
    struct schema_priv *sp = calloc(1, sizeof(*sp));
    cJSON *text_owned = NULL;
    const cJSON *schema;
    struct arb_err serr = {{0}};
    enum arb_status st;

    if (!sp)
        return ARB_ENOMEM;
    c->priv = sp;
    if (!c->expected)
        return ARB_OK;
    schema = expected_json(c->expected, &text_owned);
    if (c->schema_cache) {
        st = arb_schema_cache_get_or_compile(c->schema_cache, schema, &sp->own, &serr);
    } else {
        st = arb_schema_compile(schema, NULL, &sp->owned, &serr);
        sp->own = sp->owned;
    }
    cJSON_Delete(text_owned);
    if (st && st != ARB_ENOMEM)
        return arb_err_set(err, st, "%s/expected: %s", path, serr.msg);
    return st;
}

/* The compiled schema for a case's expected value, through a cache. */
static enum arb_status case_schema(struct arb_check *c, const cJSON *e, struct arb_result *res,
                                   const struct arb_schema **out)
{
    struct schema_priv *sp = c->priv;
    struct arb_schema_cache *cache = c->schema_cache;
    cJSON *text_owned = NULL;
    struct arb_err serr = {{0}};
    enum arb_status st;

    if (!cache) {
        if (!sp->cache && arb_schema_cache_new(NULL, &sp->cache))
            return ARB_ENOMEM;
        cache = sp->cache;
    }
    st = arb_schema_cache_get_or_compile(cache, expected_json(e, &text_owned), out, &serr);
    cJSON_Delete(text_owned);
    if (st == ARB_ENOMEM)
        return st;
    if (st) {
        *out = NULL;
        st = result_note(res, "invalid_schema");
        return st ? st : result_notef(res, "invalid_schema: %s", serr.msg);
    }
    return ARB_OK;
}

OP_RUN(op_json_schema_run)
{
    struct schema_priv *sp = c->priv;
    const struct arb_schema *schema = NULL;
    struct arb_schema_errors errs;
    const cJSON *doc;
    cJSON *parsed;
    size_t i;
    int valid;
    enum arb_status st;

    if (in->expected == c->expected && sp->own) {
        schema = sp->own;
    } else {
        st = case_schema(c, in->expected, res, &schema);
        if (st || !schema)
            return st;
    }
    st = observed_doc(in, res, &doc, &parsed);
    if (st || !doc)
        return st;
    arb_schema_errors_init(&errs);
    valid = arb_schema_validate(schema, doc, &errs);
    cJSON_Delete(parsed);
    if (valid == 1) {
        res->score = 1.0;
        return ARB_OK;
    }
    if (valid < 0) {
        if (valid == -ARB_ENOMEM)
            return ARB_ENOMEM;
        /* Not finished (a "pattern" that reached PCRE2's limits): neither valid nor invalid. */
        res->limited = 1;
        return result_notef(res, "schema_validation_incomplete: %s", errs.err.msg);
    }
    for (i = 0; i < errs.count; i++) {
        const char *where = errs.items[i].path[0] ? errs.items[i].path : "(root)";

        st = result_notef(res, "%s: %s", where, errs.items[i].keyword);
        if (st)
            return st;
    }
    if (errs.total > errs.count)
        return result_notef(res, "+%zu more (%zu in total)", errs.total - errs.count, errs.total);
    return ARB_OK;
}
