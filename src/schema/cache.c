/*
 * cache.c - compiled schemas keyed by the SHA-256 of their RFC 8785
 * canonical form, so a batch validated against one schema compiles it once
 * and a schema equal but for member order or number spelling is the same
 * entry.  Failures are cached too: an invalid schema fails fast again with
 * its original message.  The cache is owned by its caller; no global state.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/json.h"
#include "schema_int.h"

struct cache_entry {
    unsigned char digest[32];
    struct arb_schema *schema; /* NULL when compiling failed */
    enum arb_status st;
    struct arb_err err;
};

struct arb_schema_cache {
    struct arb_schema_opts opts;
    struct cache_entry *v;
    size_t n, cap;
    size_t *slots; /* entry index + 1, 0 empty; cap * 2 of them */
};

enum arb_status arb_schema_cache_new(const struct arb_schema_opts *opts,
                                     struct arb_schema_cache **out)
{
    struct arb_schema_cache *c = calloc(1, sizeof(*c));

    if (!c)
        return ARB_ENOMEM;
    if (opts)
        c->opts = *opts;
    *out = c;
    return ARB_OK;
}

static size_t slot_of(const unsigned char *digest, size_t nslots)
{
    size_t h;

    memcpy(&h, digest, sizeof(h));
    return h & (nslots - 1);
}

static struct cache_entry *lookup(const struct arb_schema_cache *c, const unsigned char *digest)
{
    size_t nslots = c->cap * 2, h;

    if (!c->slots)
        return NULL;
    for (h = slot_of(digest, nslots); c->slots[h]; h = (h + 1) & (nslots - 1)) {
        struct cache_entry *e = &c->v[c->slots[h] - 1];

        if (!memcmp(e->digest, digest, sizeof(e->digest)))
            return e;
    }
    return NULL;
}

static void index_entry(struct arb_schema_cache *c, size_t i)
{
    size_t nslots = c->cap * 2, h = slot_of(c->v[i].digest, nslots);

    while (c->slots[h])
        h = (h + 1) & (nslots - 1);
    c->slots[h] = i + 1;
}

static enum arb_status grow(struct arb_schema_cache *c)
{
    size_t cap = c->cap ? c->cap * 2 : 16, i;
    struct cache_entry *v = realloc(c->v, cap * sizeof(*v));
    size_t *slots;

    if (!v)
        return ARB_ENOMEM;
    c->v = v;
    slots = calloc(cap * 2, sizeof(*slots));
    if (!slots)
        return ARB_ENOMEM;
    free(c->slots);
    c->slots = slots;
    c->cap = cap;
    for (i = 0; i < c->n; i++)
        index_entry(c, i);
    return ARB_OK;
}

static enum arb_status digest_of(const cJSON *schema, unsigned char *digest, struct arb_err *err)
{
    char *text = NULL;
    size_t len = 0;
    unsigned int dlen = 0;
    enum arb_status st = arb_jcs_string(schema, &text, &len, err);

    if (st != ARB_OK)
        return st;
    if (!EVP_Digest(text, len, digest, &dlen, EVP_sha256(), NULL) || dlen != 32)
        st = arb_err_set(err, ARB_EINTERNAL, "cannot hash schema: SHA-256 failed");
    free(text);
    return st;
}

enum arb_status arb_schema_cache_get_or_compile(struct arb_schema_cache *c, const cJSON *schema,
                                                const struct arb_schema **out, struct arb_err *err)
{
    unsigned char digest[32];
    struct cache_entry *e;
    enum arb_status st;

    if (!c || !schema || !out)
        return arb_err_set(err, ARB_EUSAGE, "no cache or no schema");
    /* Canonicalising recurses: refuse what compiling would refuse anyway. */
    if (json_too_deep(schema, 1))
        return arb_err_set(err, ARB_ETOOBIG, "schema nested deeper than %d levels",
                           ARB_SCHEMA_MAX_DEPTH);
    st = digest_of(schema, digest, err);
    if (st != ARB_OK)
        return st;
    e = lookup(c, digest);
    if (!e) {
        if (c->n == c->cap && grow(c) != ARB_OK)
            return arb_err_set(err, ARB_ENOMEM, "out of memory caching schema");
        e = &c->v[c->n];
        memset(e, 0, sizeof(*e));
        memcpy(e->digest, digest, sizeof(digest));
        e->st = arb_schema_compile(schema, &c->opts, &e->schema, &e->err);
        /* Out of memory may pass; do not remember it. */
        if (e->st == ARB_ENOMEM)
            return arb_err_set(err, ARB_ENOMEM, "%s", e->err.msg);
        index_entry(c, c->n);
        c->n++;
    }
    if (e->st != ARB_OK)
        return arb_err_set(err, e->st, "%s", e->err.msg);
    *out = e->schema;
    return ARB_OK;
}

size_t arb_schema_cache_size(const struct arb_schema_cache *c)
{
    return c->n;
}

void arb_schema_cache_free(struct arb_schema_cache *c)
{
    size_t i;

    if (!c)
        return;
    for (i = 0; i < c->n; i++)
        arb_schema_free(c->v[i].schema);
    free(c->v);
    free(c->slots);
    free(c);
}
