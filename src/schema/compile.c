/*
 * compile.c - turning one schema object into a struct node: identity
 * ($schema, $id, $anchor, $dynamicAnchor), then each keyword through
 * compile_kw.c, then the defaults that depend on several keywords.
 *
 * Every schema JSON node is compiled at most once (struct jmap), so a $ref
 * to an ancestor and a pointer into an already compiled place share nodes.
 * $ref targets are resolved later by resolve.c, once every identifier of the
 * document is known.  Errors name the keyword and the schema location.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "schema_int.h"

/* Record the first error: "invalid schema at <doc>#<path>: <detail>". */
enum arb_status compile_fail(struct cctx *c, enum arb_status st, const char *fmt, ...)
{
    char detail[200];
    va_list ap;

    if (c->st != ARB_OK)
        return c->st;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    c->st = st;
    if (st == ARB_ENOMEM)
        return arb_err_set(c->err, st, "out of memory compiling schema");
    return arb_err_set(c->err, st, "invalid schema at %s#%s: %s", c->doc_uri ? c->doc_uri : "",
                       c->path, detail);
}

/* Append "/seg" (JSON pointer escaped) to the location, as far as it fits. */
void path_push(struct cctx *c, const char *seg)
{
    size_t cap = sizeof(c->path) - 4;

    if (c->path_len >= cap)
        return;
    c->path[c->path_len++] = '/';
    for (; *seg && c->path_len < cap; seg++) {
        if (*seg == '~' || *seg == '/') {
            c->path[c->path_len++] = '~';
            c->path[c->path_len++] = *seg == '~' ? '0' : '1';
        } else {
            c->path[c->path_len++] = *seg;
        }
    }
    c->path[c->path_len] = '\0';
}

/* Make the location p (a JSON pointer), cut to fit. */
void path_set(struct cctx *c, const char *p)
{
    size_t len = strlen(p);

    if (len >= sizeof(c->path))
        len = sizeof(c->path) - 1;
    memcpy(c->path, p, len);
    path_pop(c, len);
}

void path_pop(struct cctx *c, size_t len)
{
    c->path_len = len;
    c->path[len] = '\0';
}

/*
 * A subschema under keyword kw (and member key, for maps): checks that it is
 * a schema and compiles it with the location extended.  NULL on failure.
 */
struct node *compile_sub(struct cctx *c, const cJSON *j, const char *kw, const char *key,
                         struct resource *res, enum arb_schema_draft draft, unsigned vocab)
{
    size_t saved = c->path_len;
    struct node *n;

    if (!cJSON_IsObject(j) && !cJSON_IsBool(j)) {
        compile_fail(c, ARB_ESCHEMA, "'%s'%s%s%s must hold a schema (an object or a boolean)", kw,
                     key ? " member '" : "", key ? key : "", key ? "'" : "");
        return NULL;
    }
    path_push(c, kw);
    if (key)
        path_push(c, key);
    n = compile_schema(c, j, res, draft, vocab);
    path_pop(c, saved);
    return n;
}

/* An anchor name as the 2020-12 metaschema has it: [A-Za-z_][-A-Za-z0-9._]*. */
static int anchor_name_ok(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++) {
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '.' || *s == '_'))
            return 0;
    }
    return 1;
}

/*
 * $id: a new base URI and so a new resource (or, at a document root, a new
 * name for the document's resource).  In draft 7 "#name" is an anchor.
 * Returns the resource in effect for this node, NULL on failure.
 */
static struct resource *take_id(struct cctx *c, struct node *n, const cJSON *j, const char *id,
                                struct resource *res, enum arb_schema_draft draft, unsigned vocab)
{
    const char *frag = NULL;
    char *full, *uri;

    if (draft == ARB_SCHEMA_DRAFT_7 && id[0] == '#') {
        if (id[1] && anchor_add(c, res, id + 1, n, 0) != 0)
            return NULL;
        return res;
    }
    full = uri_resolve(&c->s->arena, res->uri, id);
    uri = full ? uri_strip_fragment(&c->s->arena, full, &frag) : NULL;
    if (!uri) {
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return NULL;
    }
    if (frag && *frag && draft != ARB_SCHEMA_DRAFT_7) {
        compile_fail(c, ARB_ESCHEMA, "'$id' must not have a fragment ('%s')", id);
        return NULL;
    }
    if (res->json == j) {
        if (strcmp(res->uri, uri) != 0) {
            res->uri = uri;
            if (idmap_add(c, uri, res) != 0)
                return NULL;
        }
    } else if (strcmp(res->uri, uri) != 0) {
        res = resource_new(c, uri, j, draft, vocab);
        if (!res)
            return NULL;
    }
    if (frag && *frag && anchor_add(c, res, frag, n, 0) != 0)
        return NULL;
    return res;
}

/* $anchor and $dynamicAnchor (2020-12). */
static int take_anchors(struct cctx *c, struct node *n, const cJSON *j, struct resource *res)
{
    static const char *const names[] = {"$anchor", "$dynamicAnchor"};
    size_t i;

    for (i = 0; i < 2; i++) {
        const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, names[i]);

        if (!a)
            continue;
        if (!cJSON_IsString(a) || !anchor_name_ok(a->valuestring)) {
            compile_fail(c, ARB_ESCHEMA, "'%s' must be a string matching [A-Za-z_][-A-Za-z0-9._]*",
                         names[i]);
            return -1;
        }
        if (anchor_add(c, res, a->valuestring, n, (int)i) != 0)
            return -1;
        if (i == 1) {
            n->dyn_anchor = arena_strdup(&c->s->arena, a->valuestring);
            if (!n->dyn_anchor) {
                compile_fail(c, ARB_ENOMEM, "out of memory");
                return -1;
            }
        }
    }
    return 0;
}

/* Defaults and combinations once every keyword of n is in. */
static void finish_node(struct cctx *c, struct node *n)
{
    if (n->draft == ARB_SCHEMA_DRAFT_7) {
        /* additionalItems counts only beside an array "items". */
        if (n->items_array && n->add_items) {
            n->items = n->add_items;
            n->kw |= K_ITEMS;
        }
        n->add_items = NULL;
    }
    if (n->kw & K_CONTAINS) {
        if (!(n->kw & K_MINCONT))
            n->min_cont = 1;
        if (!(n->kw & K_MAXCONT))
            n->max_cont = SIZE_MAX;
    } else {
        /* minContains and maxContains mean nothing without contains. */
        n->kw &= ~(K_MINCONT | K_MAXCONT);
    }
    if (n->props.n)
        proptab_index(c, &n->props);
}

/* Identity keywords: $schema, $id, $anchor, $dynamicAnchor.  0 or -1. */
static int take_identity(struct cctx *c, struct node *n, const cJSON *j, struct resource **res,
                         enum arb_schema_draft *draft, unsigned *vocab)
{
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(j, "$schema");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(j, "$id");
    const cJSON *ref = cJSON_GetObjectItemCaseSensitive(j, "$ref");

    if (schema && ((*res)->json == j || id)) {
        if (!cJSON_IsString(schema)) {
            compile_fail(c, ARB_ESCHEMA, "'$schema' must be a string");
            return -1;
        }
        if (meta_draft(c, schema->valuestring, draft, vocab) != 0)
            return -1;
        n->draft = (unsigned char)*draft;
        if ((*res)->json == j) {
            (*res)->draft = (unsigned char)*draft;
            (*res)->vocab = (unsigned char)*vocab;
        }
    }
    /* Draft 7: $ref replaces the whole schema object, $id included. */
    if (ref && *draft == ARB_SCHEMA_DRAFT_7)
        id = NULL;
    if (id) {
        if (!cJSON_IsString(id)) {
            compile_fail(c, ARB_ESCHEMA, "'$id' must be a string");
            return -1;
        }
        *res = take_id(c, n, j, id->valuestring, *res, *draft, *vocab);
        if (!*res)
            return -1;
    }
    if ((*res)->json == j)
        (*res)->root = n;
    n->res = *res;
    if (*draft != ARB_SCHEMA_DRAFT_7 && take_anchors(c, n, j, *res) != 0)
        return -1;
    return 0;
}

/*
 * Compile schema j found in resource res under the given draft and
 * vocabularies.  Returns the node (possibly compiled before), or NULL with
 * c->st and the error set.
 */
struct node *compile_schema(struct cctx *c, const cJSON *j, struct resource *res,
                            enum arb_schema_draft draft, unsigned vocab)
{
    struct node *n = jmap_get(&c->jmap, j);
    const cJSON *kw;
    int ref7;

    if (n)
        return n;
    if (c->depth >= ARB_SCHEMA_MAX_DEPTH) {
        compile_fail(c, ARB_ETOOBIG, "schema nested deeper than %d levels", ARB_SCHEMA_MAX_DEPTH);
        return NULL;
    }
    n = arena_alloc(&c->s->arena, sizeof(*n));
    if (!n || jmap_put(&c->jmap, j, n) != 0) {
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return NULL;
    }
    n->draft = (unsigned char)draft;
    n->res = res;
    n->loc = arena_strdup(&c->s->arena, c->path);
    if (!n->loc) {
        compile_fail(c, ARB_ENOMEM, "out of memory");
        return NULL;
    }
    if (cJSON_IsBool(j)) {
        n->kind = cJSON_IsTrue(j) ? NODE_TRUE : NODE_FALSE;
        if (res->json == j)
            res->root = n;
        return n;
    }
    if (!cJSON_IsObject(j)) {
        compile_fail(c, ARB_ESCHEMA, "a schema must be an object or a boolean");
        return NULL;
    }
    n->kind = NODE_SCHEMA;
    c->depth++;
    if (take_identity(c, n, j, &res, &draft, &vocab) != 0)
        return NULL;
    ref7 = draft == ARB_SCHEMA_DRAFT_7 && cJSON_GetObjectItemCaseSensitive(j, "$ref");
    for (kw = j->child; kw; kw = kw->next) {
        /* Draft 7 ignores every sibling of $ref; definitions still name schemas. */
        if (ref7 && strcmp(kw->string, "$ref") != 0 && strcmp(kw->string, "definitions") != 0)
            continue;
        if (compile_keyword(c, n, kw, res, draft, vocab) != 0)
            return NULL;
    }
    finish_node(c, n);
    if (c->st != ARB_OK)
        return NULL;
    if ((n->ref_uri || n->dynref_uri) && pending_add(c, n) != 0)
        return NULL;
    c->depth--;
    return n;
}
