/*
 * resolve.c - identifiers and references: schema resources and their URIs,
 * anchors, `$schema` (draft and vocabularies), documents from outside the
 * schema (embedded metaschemas, then the caller's loader hook; never the
 * network) and the resolution of every $ref and $dynamicRef once a document
 * is compiled.  Also the entry points arb_schema_compile and arb_schema_free.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "schema_int.h"

struct resource *resource_find(const struct cctx *c, const char *uri)
{
    const struct idmap *m;

    for (m = c->ids; m; m = m->next) {
        if (!strcmp(m->uri, uri))
            return m->res;
    }
    return NULL;
}

int idmap_add(struct cctx *c, const char *uri, struct resource *res)
{
    struct idmap *m;

    if (resource_find(c, uri)) {
        compile_fail(c, ARB_ESCHEMA, "duplicate schema identifier '%s'", uri);
        return -1;
    }
    m = arena_alloc(&c->s->arena, sizeof(*m));
    if (!m) {
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return -1;
    }
    m->uri = uri;
    m->res = res;
    m->next = c->ids;
    c->ids = m;
    return 0;
}

struct resource *resource_new(struct cctx *c, const char *uri, const cJSON *json,
                              enum arb_schema_draft draft, unsigned vocab)
{
    struct resource *r = arena_alloc(&c->s->arena, sizeof(*r));

    if (!r) {
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return NULL;
    }
    r->uri = uri;
    r->json = json;
    r->draft = (unsigned char)draft;
    r->vocab = (unsigned char)vocab;
    if (idmap_add(c, uri, r) != 0)
        return NULL;
    r->next = c->resources;
    c->resources = r;
    return r;
}

static struct anchor *anchor_find(struct anchor *list, const char *name)
{
    for (; list; list = list->next) {
        if (!strcmp(list->name, name))
            return list;
    }
    return NULL;
}

int anchor_add(struct cctx *c, struct resource *res, const char *name, struct node *n, int dynamic)
{
    struct anchor *old = anchor_find(res->anchors, name);
    struct anchor *a;

    if (old && old->node != n) {
        compile_fail(c, ARB_ESCHEMA, "duplicate anchor '%s' in '%s'", name, res->uri);
        return -1;
    }
    if (!old) {
        a = arena_alloc(&c->s->arena, sizeof(*a));
        if (!a)
            goto nomem;
        a->name = arena_strdup(&c->s->arena, name);
        if (!a->name)
            goto nomem;
        a->node = n;
        a->next = res->anchors;
        res->anchors = a;
    }
    if (dynamic) {
        a = arena_alloc(&c->s->arena, sizeof(*a));
        if (!a)
            goto nomem;
        a->name = arena_strdup(&c->s->arena, name);
        if (!a->name)
            goto nomem;
        a->node = n;
        a->next = res->dynamic;
        res->dynamic = a;
    }
    return 0;
nomem:
    compile_fail(c, ARB_ENOMEM, "out of memory");
    return -1;
}

int pending_add(struct cctx *c, struct node *n)
{
    if (c->n_pending == c->cap_pending) {
        size_t cap = c->cap_pending ? c->cap_pending * 2 : 16;
        struct node **v = realloc(c->pending, cap * sizeof(*v));

        if (!v) {
            compile_fail(c, ARB_ENOMEM, "out of memory");
            return -1;
        }
        c->pending = v;
        c->cap_pending = cap;
    }
    c->pending[c->n_pending++] = n;
    return 0;
}

/*
 * A document from outside the schema: an embedded metaschema, else the
 * loader hook.  The tree is owned by the schema.  NULL with the error set.
 */
static cJSON *load_doc(struct cctx *c, const char *uri, const char *what)
{
    const char *text = metaschema_text(uri);
    cJSON *doc = NULL;

    if (text) {
        doc = cJSON_Parse(text);
        if (!doc) {
            compile_fail(c, ARB_ENOMEM, "out of memory");
            return NULL;
        }
    } else if (c->opts->load) {
        struct arb_err lerr = {{0}};
        enum arb_status st = c->opts->load(c->opts->load_ctx, uri, &doc, &lerr);

        if (st != ARB_OK || !doc) {
            compile_fail(c, st != ARB_OK ? st : ARB_ESCHEMA, "cannot load %s '%s': %s", what, uri,
                         lerr.msg[0] ? lerr.msg : "the loader has no such document");
            return NULL;
        }
    } else {
        compile_fail(c, ARB_ESCHEMA,
                     "remote %s '%s' cannot be resolved: documents outside the schema are not "
                     "fetched (no network access)",
                     what, uri);
        return NULL;
    }
    if (schema_own_doc(c->s, doc) != 0) {
        cJSON_Delete(doc);
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return NULL;
    }
    return doc;
}

/* Strip "http(s)://" and a trailing "#" so that metaschema URIs compare. */
static int meta_is(const char *uri, const char *tail)
{
    size_t n;

    if (!strncmp(uri, "https://", 8))
        uri += 8;
    else if (!strncmp(uri, "http://", 7))
        uri += 7;
    else
        return 0;
    n = strlen(tail);
    return !strncmp(uri, tail, n) && (uri[n] == '\0' || (uri[n] == '#' && uri[n + 1] == '\0'));
}

/* 1 and *draft for a supported draft, -1 for a known unsupported one, else 0. */
static int known_meta(const char *uri, enum arb_schema_draft *draft)
{
    static const char *const unsupported[] = {
        "json-schema.org/draft-03/schema", "json-schema.org/draft-04/schema",
        "json-schema.org/draft/2019-09/schema", "json-schema.org/v1"};
    size_t i;

    if (meta_is(uri, "json-schema.org/draft-07/schema") ||
        meta_is(uri, "json-schema.org/draft-06/schema")) {
        *draft = ARB_SCHEMA_DRAFT_7;
        return 1;
    }
    if (meta_is(uri, "json-schema.org/draft/2020-12/schema")) {
        *draft = ARB_SCHEMA_DRAFT_2020_12;
        return 1;
    }
    for (i = 0; i < sizeof(unsupported) / sizeof(unsupported[0]); i++) {
        if (meta_is(uri, unsupported[i]))
            return -1;
    }
    return 0;
}

/* The vocabularies a custom 2020-12 metaschema declares.  0 or -1. */
static int meta_vocab(struct cctx *c, const cJSON *vocab_obj, unsigned *vocab)
{
    static const struct {
        const char *name;
        unsigned bits;
    } known[] = {
        {"core", 0},
        {"applicator", VOC_APPLICATOR},
        {"unevaluated", VOC_UNEVALUATED},
        {"validation", VOC_VALIDATION},
        {"meta-data", 0},
        {"format-annotation", 0},
        {"content", 0},
    };
    const char *prefix = "https://json-schema.org/draft/2020-12/vocab/";
    const cJSON *v;

    *vocab = 0;
    for (v = vocab_obj->child; v; v = v->next) {
        size_t i;
        int found = 0;

        for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
            if (!strncmp(v->string, prefix, strlen(prefix)) &&
                !strcmp(v->string + strlen(prefix), known[i].name)) {
                *vocab |= known[i].bits;
                found = 1;
            }
        }
        if (!found && cJSON_IsTrue(v)) {
            compile_fail(c, ARB_ESCHEMA,
                         "'$schema' requires vocabulary '%s', which is not supported", v->string);
            return -1;
        }
    }
    return 0;
}

/*
 * The draft and vocabularies that `$schema` uri selects: a known metaschema,
 * or a custom one (loaded like a remote $ref) built on one.  0 or -1.
 */
int meta_draft(struct cctx *c, const char *uri, enum arb_schema_draft *draft, unsigned *vocab)
{
    const cJSON *doc, *meta, *voc;
    char *base;
    int known = known_meta(uri, draft);

    *vocab = VOC_ALL;
    if (known > 0)
        return 0;
    if (known < 0) {
        compile_fail(c, ARB_ESCHEMA, "'$schema' '%s' is not supported (draft 7 and 2020-12 are)",
                     uri);
        return -1;
    }
    base = uri_strip_fragment(&c->s->arena, uri, NULL);
    if (!base) {
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return -1;
    }
    doc = load_doc(c, base, "$schema");
    if (!doc)
        return -1;
    meta = cJSON_GetObjectItemCaseSensitive(doc, "$schema");
    if (!cJSON_IsString(meta) || known_meta(meta->valuestring, draft) <= 0) {
        compile_fail(c, ARB_ESCHEMA, "metaschema '%s' is not built on draft 7 or 2020-12", uri);
        return -1;
    }
    voc = cJSON_GetObjectItemCaseSensitive(doc, "$vocabulary");
    if (*draft != ARB_SCHEMA_DRAFT_7 && cJSON_IsObject(voc))
        return meta_vocab(c, voc, vocab);
    return 0;
}

/* Compile a whole document found at uri as a new root resource. */
static struct resource *compile_document(struct cctx *c, const cJSON *doc, const char *uri,
                                         enum arb_schema_draft draft)
{
    const char *saved_uri = c->doc_uri;
    char saved_path[sizeof(c->path)];
    size_t saved_len = c->path_len;
    unsigned saved_depth = c->depth;
    struct resource *res;

    memcpy(saved_path, c->path, sizeof(saved_path));
    c->doc_uri = uri;
    path_pop(c, 0);
    c->depth = 0;
    res = resource_new(c, uri, doc, draft, VOC_ALL);
    if (res && !compile_schema(c, doc, res, draft, VOC_ALL))
        res = NULL;
    c->doc_uri = saved_uri;
    memcpy(c->path, saved_path, sizeof(saved_path));
    c->path_len = saved_len;
    c->depth = saved_depth;
    return res;
}

/* The node an absolute reference names, compiling what it needs. */
static struct node *resolve_uri(struct cctx *c, const struct node *from, const char *what,
                                const char *uri)
{
    const char *frag = NULL;
    char *base = uri_strip_fragment(&c->s->arena, uri, &frag), *dec;
    struct resource *res;
    struct anchor *a;

    if (!base) {
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return NULL;
    }
    res = resource_find(c, base);
    if (!res) {
        const cJSON *doc = load_doc(c, base, what);

        if (!doc)
            return NULL;
        res = compile_document(c, doc, base, (enum arb_schema_draft)from->draft);
        if (!res)
            return NULL;
    }
    if (!frag || !*frag)
        return res->root;
    dec = uri_fragment_decode(&c->s->arena, frag);
    if (!dec) {
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return NULL;
    }
    if (dec[0] == '/') {
        const cJSON *t = arb_json_pointer(res->json, dec);
        struct node *n;

        if (!t) {
            compile_fail(c, ARB_ESCHEMA, "%s '%s' points to nothing", what, uri);
            return NULL;
        }
        n = jmap_get(&c->jmap, t);
        if (n)
            return n;
        /* A place no keyword made a schema (an unknown keyword): compile it now. */
        path_set(c, dec);
        return compile_schema(c, t, res, (enum arb_schema_draft)res->draft, res->vocab);
    }
    a = anchor_find(res->anchors, dec);
    if (!a) {
        compile_fail(c, ARB_ESCHEMA, "%s '%s': no anchor '%s' in %s%s%s", what, uri, dec,
                     res->uri[0] ? "'" : "the root schema", res->uri, res->uri[0] ? "'" : "");
        return NULL;
    }
    return a->node;
}

/* Resolve every pending $ref and $dynamicRef, including those of documents loaded meanwhile. */
int resolve_pending(struct cctx *c)
{
    while (c->n_pending) {
        struct node *n = c->pending[--c->n_pending];

        c->doc_uri = NULL;
        path_set(c, n->loc);
        if (n->ref_uri) {
            n->ref = resolve_uri(c, n, "$ref", n->ref_uri);
            if (!n->ref)
                return -1;
            n->ref_uri = NULL;
        }
        if (n->dynref_uri) {
            const char *frag = strchr(n->dynref_uri, '#');

            n->dynref = resolve_uri(c, n, "$dynamicRef", n->dynref_uri);
            if (!n->dynref)
                return -1;
            /* Dynamic only when the static target bears the same $dynamicAnchor. */
            if (frag && frag[1] && frag[1] != '/' && n->dynref->dyn_anchor &&
                !strcmp(n->dynref->dyn_anchor, frag + 1)) {
                n->dynref_name = n->dynref->dyn_anchor;
                c->s->uses_dynamic = 1;
            }
            n->dynref_uri = NULL;
        }
    }
    return 0;
}

enum arb_status arb_schema_compile(const cJSON *schema, const struct arb_schema_opts *opts,
                                   struct arb_schema **out, struct arb_err *err)
{
    static const struct arb_schema_opts defaults;
    struct arb_schema *s;
    struct resource *res;
    struct cctx c;
    cJSON *copy;
    enum arb_schema_draft draft;

    if (!schema || !out)
        return arb_err_set(err, ARB_EUSAGE, "no schema to compile");
    if (json_too_deep(schema, 1))
        return arb_err_set(err, ARB_ETOOBIG, "schema nested deeper than %d levels",
                           ARB_SCHEMA_MAX_DEPTH);
    s = calloc(1, sizeof(*s));
    copy = cJSON_Duplicate(schema, 1);
    if (!s || !copy || schema_own_doc(s, copy) != 0) {
        cJSON_Delete(copy);
        if (s)
            free(s->docs);
        free(s);
        return arb_err_set(err, ARB_ENOMEM, "out of memory compiling schema");
    }
    memset(&c, 0, sizeof(c));
    c.s = s;
    c.opts = opts ? opts : &defaults;
    c.err = err;
    draft =
        c.opts->default_draft == ARB_SCHEMA_DRAFT_7 ? ARB_SCHEMA_DRAFT_7 : ARB_SCHEMA_DRAFT_2020_12;
    res = resource_new(&c, "", copy, draft, VOC_ALL);
    s->root = res ? compile_schema(&c, copy, res, draft, VOC_ALL) : NULL;
    if (s->root)
        resolve_pending(&c);
    jmap_release(&c.jmap);
    free(c.pending);
    if (c.st != ARB_OK) {
        arb_schema_free(s);
        return c.st;
    }
    s->draft = (enum arb_schema_draft)s->root->draft;
    *out = s;
    return ARB_OK;
}

void arb_schema_free(struct arb_schema *s)
{
    size_t i;

    if (!s)
        return;
    for (i = 0; i < s->n_codes; i++)
        pcre2_code_free(s->codes[i]);
    for (i = 0; i < s->n_docs; i++)
        cJSON_Delete(s->docs[i]);
    free(s->codes);
    free(s->docs);
    arena_release(&s->arena);
    free(s);
}

enum arb_schema_draft arb_schema_draft(const struct arb_schema *s)
{
    return s->draft;
}
