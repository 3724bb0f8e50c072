/*
 * fields_map.c - compiling the fields operator's comparator map into a tree
 * of nodes (fields_int.h) once, when the check is compiled.  Every leaf check
 * is compiled with check_compile_at at its own path in the check, so errors
 * read "/fields/lineItems/unordered/price/op: unknown operator ...".  Running
 * the tree over data is fields.c's job.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "fields_int.h"

static void node_free(struct node *nd)
{
    size_t i;

    if (!nd)
        return;
    arb_check_free(nd->check);
    for (i = 0; i < nd->n; i++) {
        if (nd->names)
            free(nd->names[i]);
        node_free(nd->kids[i]);
    }
    free(nd->names);
    free(nd->kids);
    free(nd->cfg_path);
    free(nd);
}

void op_fields_free(void *priv)
{
    struct fields_priv *fp = priv;

    if (!fp)
        return;
    node_free(fp->root);
    free(fp);
}

static void pop_to(struct arb_buf *p, size_t mark)
{
    p->len = mark;
    if (p->ptr)
        p->ptr[mark] = '\0';
}

static enum arb_status compile_node(const cJSON *cfg, const struct arb_check_opts *opts,
                                    struct arb_buf *cp, int depth, struct node **out,
                                    struct arb_err *err);

/*
 * Operators that cost about as much as reading their input (tens of
 * nanoseconds): the pair matrix of an unordered array runs them on every pair
 * and leaves the others for the pairs that matter (see fields.c).
 */
static const char *const cheap_ops[] = {"exact", "numeric", "within", NULL};

static int is_cheap(const struct arb_check *c);

/* Set the leaf's speed flags once its check is compiled. */
static void classify(struct node *nd)
{
    const struct arb_check *c = nd->check;

    nd->cheap = is_cheap(c);
    nd->typing = leaf_typing_of(c);
    nd->own = c->expected;
    nd->plain_exact = strcmp(arb_check_op(c), "exact") == 0 && !c->expected && !c->negate &&
                      c->extract == EXTRACT_NONE;
}

static int is_cheap(const struct arb_check *c)
{
    const char *const *p;

    for (p = cheap_ops; *p; p++)
        if (strcmp(*p, arb_check_op(c)) == 0)
            return 1;
    return 0;
}

/* A string leaf is the check {"op": NAME}. */
static enum arb_status compile_leaf(struct node *nd, const cJSON *cfg,
                                    const struct arb_check_opts *opts, struct arb_err *err)
{
    cJSON *tmp;
    enum arb_status st;

    nd->kind = NODE_LEAF;
    if (!cJSON_IsString(cfg)) {
        st = check_compile_at(cfg, opts, nd->cfg_path, &nd->check, err);
        if (!st)
            classify(nd);
        return st;
    }
    tmp = cJSON_CreateObject();
    if (!tmp || !cJSON_AddStringToObject(tmp, "op", cfg->valuestring)) {
        cJSON_Delete(tmp);
        return ARB_ENOMEM;
    }
    st = check_compile_at(tmp, opts, nd->cfg_path, &nd->check, err);
    cJSON_Delete(tmp);
    if (!st)
        classify(nd);
    return st;
}

static enum arb_status compile_unordered(struct node *nd, const cJSON *cfg,
                                         const struct arb_check_opts *opts, struct arb_buf *cp,
                                         int depth, struct arb_err *err)
{
    const cJSON *k;
    size_t mark = cp->len;
    enum arb_status st;

    cJSON_ArrayForEach(k, cfg)
    {
        if (strcmp(k->string, "unordered") != 0)
            return arb_err_set(err, ARB_ESCHEMA,
                               "%s/%s: 'unordered' takes no other key (write {\"unordered\": "
                               "{...fields...}} to match the items of an array by similarity)",
                               nd->cfg_path, k->string);
    }
    nd->kind = NODE_UNORDERED;
    nd->kids = calloc(1, sizeof(*nd->kids));
    if (!nd->kids)
        return ARB_ENOMEM;
    nd->n = 1;
    st = arb_buf_adds(cp, "/unordered");
    if (!st)
        st = compile_node(cJSON_GetObjectItemCaseSensitive(cfg, "unordered"), opts, cp, depth + 1,
                          &nd->kids[0], err);
    pop_to(cp, mark);
    return st;
}

static enum arb_status compile_map(struct node *nd, const cJSON *cfg,
                                   const struct arb_check_opts *opts, struct arb_buf *cp, int depth,
                                   struct arb_err *err)
{
    const cJSON *k;
    size_t count = (size_t)cJSON_GetArraySize(cfg), mark = cp->len;
    enum arb_status st = ARB_OK;

    nd->kind = NODE_MAP;
    nd->names = calloc(count + 1, sizeof(*nd->names));
    nd->kids = calloc(count + 1, sizeof(*nd->kids));
    if (!nd->names || !nd->kids)
        return ARB_ENOMEM;
    cJSON_ArrayForEach(k, cfg)
    {
        nd->names[nd->n] = strdup(k->string);
        if (!nd->names[nd->n++])
            return ARB_ENOMEM;
        st = arb_json_pointer_push(cp, k->string);
        if (!st)
            st = compile_node(k, opts, cp, depth + 1, &nd->kids[nd->n - 1], err);
        pop_to(cp, mark);
        if (st)
            return st;
    }
    return ARB_OK;
}

/* Compile cfg (at path cp in the check) into *out, which the caller frees even on error. */
static enum arb_status compile_node(const cJSON *cfg, const struct arb_check_opts *opts,
                                    struct arb_buf *cp, int depth, struct node **out,
                                    struct arb_err *err)
{
    struct node *nd;
    const char *at = cp->ptr ? cp->ptr : "";

    if (depth > MAX_DEPTH)
        return arb_err_set(err, ARB_ETOOBIG,
                           "%s: the comparator map is nested deeper than %d levels", at, MAX_DEPTH);
    nd = calloc(1, sizeof(*nd));
    if (!nd)
        return ARB_ENOMEM;
    *out = nd;
    nd->cfg_path = strdup(at);
    if (!nd->cfg_path)
        return ARB_ENOMEM;
    if (cJSON_IsString(cfg) || (cJSON_IsObject(cfg) && cJSON_GetObjectItemCaseSensitive(cfg, "op")))
        return compile_leaf(nd, cfg, opts, err);
    if (!cJSON_IsObject(cfg))
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s: expected an operator name, a check object with an 'op', a map "
                           "of fields or {\"unordered\": ...}",
                           at);
    if (cJSON_GetObjectItemCaseSensitive(cfg, "unordered"))
        return compile_unordered(nd, cfg, opts, cp, depth, err);
    return compile_map(nd, cfg, opts, cp, depth, err);
}

OP_COMPILE(op_fields_compile)
{
    const cJSON *map = cJSON_GetObjectItemCaseSensitive(cfg, "fields");
    struct fields_priv *fp;
    struct arb_buf cp;
    enum arb_status st;

    if (!map)
        return arb_err_set(err, ARB_ESCHEMA,
                           "%s: operator 'fields' needs 'fields' (the comparator map)",
                           path[0] ? path : "/");
    fp = calloc(1, sizeof(*fp));
    if (!fp)
        return ARB_ENOMEM;
    c->priv = fp;
    st = param_bool(cfg, "allow_extra", path, &fp->allow_extra, err);
    if (st)
        return st;
    arb_buf_init(&cp, 0);
    st = arb_buf_adds(&cp, path);
    if (!st)
        st = arb_buf_adds(&cp, "/fields");
    if (!st)
        st = compile_node(map, c->opts, &cp, 0, &fp->root, err);
    arb_buf_release(&cp);
    return st;
}
