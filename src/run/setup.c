/*
 * setup.c - a run's row and the cases it keeps.
 *
 * run_create records what a run is made of (the suite as loaded, the
 * systems with absolute paths so --resume works from any directory, the
 * judge config and its hash, the selection of cases, and the identity of
 * every input file: inputs.c), and
 * run_stored_scope reads the selection back for --resume.  The selection
 * (--limit N, --cases ...) is applied while the suite's cases stream by:
 * the named cases, in suite order, the first `limit` of them; then the
 * shard (--shard K/N): of those, the ones whose bucket (arb_blinder_shard)
 * is K, so the N shards of a selection partition exactly the cases the
 * unsharded run of that selection keeps.  It is stored as JSON
 * ({"limit": N, "cases": [...], "shard": {"k": K, "n": N}}) rather than as
 * the kept ids, so that resuming a run interrupted while it loaded its cases
 * keeps exactly the cases an uninterrupted one would.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/blind.h"
#include "arbiter/fpset.h"
#include "arbiter/judge.h"
#include "arbiter/json.h"
#include "arbiter/run.h"
#include "run_int.h"

enum arb_status run_scope_init(struct run_scope *sc, const struct arb_case_select *sel,
                               unsigned shard_k, unsigned shard_n)
{
    size_t i;
    int added;
    enum arb_status st = ARB_OK;

    memset(sc, 0, sizeof(*sc));
    arb_strset_init(&sc->want);
    if (shard_n) {
        sc->on = 1;
        sc->shard_k = shard_k;
        sc->shard_n = shard_n;
    }
    if (!arb_case_select_active(sel))
        return ARB_OK;
    sc->on = 1;
    sc->limit = sel->limit;
    sc->named = sel->ids != NULL;
    for (i = 0; !st && sel->ids && i < sel->n_ids; i++)
        st = arb_strset_add(&sc->want, sel->ids[i], i, &added, NULL);
    return st;
}

/* {"k": K, "n": N} with 1 <= K <= N <= ARB_SHARD_MAX, or ARB_EPARSE. */
static enum arb_status shard_of(const cJSON *shard, unsigned *k, unsigned *n, struct arb_err *err)
{
    const cJSON *jk = cJSON_GetObjectItemCaseSensitive(shard, "k");
    const cJSON *jn = cJSON_GetObjectItemCaseSensitive(shard, "n");

    *k = *n = 0;
    if (!shard)
        return ARB_OK;
    if (!cJSON_IsNumber(jk) || !cJSON_IsNumber(jn) || jn->valuedouble < 1 ||
        jn->valuedouble > ARB_SHARD_MAX || jk->valuedouble < 1 ||
        jk->valuedouble > jn->valuedouble || jk->valuedouble != (unsigned)jk->valuedouble ||
        jn->valuedouble != (unsigned)jn->valuedouble)
        return arb_err_set(err, ARB_EPARSE,
                           "the run's stored scope_json: \"shard\" is not {\"k\": K, \"n\": N} "
                           "with 1 <= K <= N <= %d",
                           ARB_SHARD_MAX);
    *k = (unsigned)jk->valuedouble;
    *n = (unsigned)jn->valuedouble;
    return ARB_OK;
}

enum arb_status run_scope_from_json(struct run_scope *sc, const char *json, struct arb_err *err)
{
    struct arb_case_select sel = {0, NULL, 0};
    const char **ids = NULL;
    const cJSON *limit, *cases, *c;
    cJSON *doc = NULL;
    size_t n = 0;
    unsigned shard_k = 0, shard_n = 0;
    enum arb_status st;

    if (!json)
        return run_scope_init(sc, NULL, 0, 0);
    st = arb_json_parse(json, strlen(json), 0, &doc, err);
    if (st)
        return arb_err_prefix(err, st, "the run's stored scope_json");
    st = shard_of(cJSON_GetObjectItemCaseSensitive(doc, "shard"), &shard_k, &shard_n, err);
    if (st) {
        cJSON_Delete(doc);
        return st;
    }
    limit = cJSON_GetObjectItemCaseSensitive(doc, "limit");
    cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
    if (cJSON_IsNumber(limit) && limit->valuedouble >= 1 && limit->valuedouble < 1e15)
        sel.limit = (size_t)limit->valuedouble;
    if (cJSON_IsArray(cases)) {
        ids = calloc((size_t)cJSON_GetArraySize(cases) + 1, sizeof(*ids));
        if (!ids) {
            cJSON_Delete(doc);
            return ARB_ENOMEM;
        }
        cJSON_ArrayForEach(c, cases)
        {
            if (cJSON_IsString(c))
                ids[n++] = c->valuestring;
        }
        sel.ids = ids;
        sel.n_ids = n;
    }
    st = run_scope_init(sc, &sel, shard_k, shard_n);
    free(ids);
    cJSON_Delete(doc);
    return st;
}

enum arb_status run_scope_shard(const char *json, unsigned *k, unsigned *n, char **rest,
                                struct arb_err *err)
{
    cJSON *doc = NULL;
    enum arb_status st;

    *k = *n = 0;
    *rest = NULL;
    if (!json)
        return ARB_OK;
    st = arb_json_parse(json, strlen(json), 0, &doc, err);
    if (st)
        return arb_err_prefix(err, st, "the run's stored scope_json");
    st = shard_of(cJSON_GetObjectItemCaseSensitive(doc, "shard"), k, n, err);
    cJSON_DeleteItemFromObjectCaseSensitive(doc, "shard");
    if (!st && cJSON_GetArraySize(doc) > 0)
        st = arb_jcs_string(doc, rest, NULL, err);
    cJSON_Delete(doc);
    return st;
}

enum arb_status run_scope_pick(struct run_scope *sc, const char *id, struct arb_blinder *b,
                               int *keep)
{
    unsigned bucket = 0;
    enum arb_status st;

    *keep = 1;
    if (!sc->on)
        return ARB_OK;
    *keep = 0;
    if (sc->named) {
        if (!arb_strset_get(&sc->want, id, NULL))
            return ARB_OK;
        sc->found++;
    }
    if (sc->limit && sc->picked >= sc->limit)
        return ARB_OK;
    /* The selection counts the case before the shard is asked: --limit N keeps the first N
     * of the suite, split over the shards. */
    sc->picked++;
    if (!sc->shard_n) {
        *keep = 1;
        return ARB_OK;
    }
    st = arb_blinder_shard(b, id, sc->shard_n, &bucket);
    *keep = !st && bucket == sc->shard_k;
    return st;
}

enum arb_status run_scope_check(const struct run_scope *sc, const struct arb_fpset *all,
                                const char *suite_path, struct arb_err *err)
{
    size_t i;

    if (!sc->named || sc->found == sc->want.n)
        return ARB_OK;
    for (i = 0; i < sc->want.cap; i++)
        if (sc->want.keys[i] && !arb_fpset_get(all, sc->want.keys[i]))
            return arb_err_set(err, ARB_EUSAGE, "--cases: case '%s' is not in the suite '%s'",
                               sc->want.keys[i], suite_path);
    return ARB_OK;
}

void run_scope_release(struct run_scope *sc)
{
    arb_strset_release(&sc->want);
    memset(sc, 0, sizeof(*sc));
}

/* {"limit": N, "cases": [...], "shard": {"k": K, "n": N}}, or NULL for every case. */
static enum arb_status scope_json(const struct arb_case_select *sel, unsigned shard_k,
                                  unsigned shard_n, char **out, struct arb_err *err)
{
    cJSON *o, *shard;
    size_t i;
    int ok;
    enum arb_status st;

    *out = NULL;
    if (!arb_case_select_active(sel) && !shard_n)
        return ARB_OK;
    o = cJSON_CreateObject();
    ok = o != NULL;
    if (ok && shard_n) {
        shard = cJSON_AddObjectToObject(o, "shard");
        ok = shard && cJSON_AddNumberToObject(shard, "k", shard_k) &&
             cJSON_AddNumberToObject(shard, "n", shard_n);
    }
    if (ok && sel && sel->limit)
        ok = cJSON_AddNumberToObject(o, "limit", (double)sel->limit) != NULL;
    if (ok && sel && sel->ids) {
        cJSON *a = cJSON_AddArrayToObject(o, "cases");

        ok = a != NULL;
        for (i = 0; ok && i < sel->n_ids; i++)
            ok = cJSON_AddItemToArray(a, cJSON_CreateString(sel->ids[i]));
    }
    st = ok ? arb_jcs_string(o, out, NULL, err) : ARB_ENOMEM;
    cJSON_Delete(o);
    return st;
}

/*
 * The suite as stored with the run (RFC 8785 text), without the credentials a
 * judge's base_url may carry (user:secret@): they are secrets, and the stored
 * judge config says it had some (arb_judge_config_json).
 */
static enum arb_status suite_text(const cJSON *doc, char **out, struct arb_err *err)
{
    const cJSON *url = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(doc, "judge"), "base_url");
    int oom = 0;
    char *bare = cJSON_IsString(url) ? arb_judge_url_without_credentials(url->valuestring, &oom)
                                     : NULL;
    cJSON *copy;
    enum arb_status rc;

    if (oom)
        return ARB_ENOMEM;
    if (!bare)
        return arb_jcs_string(doc, out, NULL, err);
    copy = cJSON_Duplicate(doc, 1);
    rc = copy && cJSON_ReplaceItemInObjectCaseSensitive(
                     cJSON_GetObjectItemCaseSensitive(copy, "judge"), "base_url",
                     cJSON_CreateString(bare))
             ? arb_jcs_string(copy, out, NULL, err)
             : ARB_ENOMEM;
    free(bare);
    cJSON_Delete(copy);
    return rc;
}

enum arb_status run_create(struct arb_store *st, const struct arb_suite *s,
                           const struct arb_run_opts *opts, int64_t *run, struct arb_err *err)
{
    struct arb_run_row row;
    cJSON *systems = cJSON_CreateArray();
    char *suite_json = NULL, *systems_json = NULL, *judge_json = NULL, *scope = NULL;
    char *inputs = NULL, procedure[65];
    char *abs = realpath(s->path, NULL);
    size_t i;
    enum arb_status rc = systems ? ARB_OK : ARB_ENOMEM;

    for (i = 0; !rc && i < s->n_systems; i++) {
        cJSON *o = cJSON_CreateObject();
        /* Absolute, so that --resume works from any directory. */
        char *sys_abs = realpath(s->systems[i].path, NULL);

        if (!o || !cJSON_AddItemToArray(systems, o) ||
            !cJSON_AddStringToObject(o, "name", s->systems[i].name) ||
            !cJSON_AddStringToObject(o, "path", sys_abs ? sys_abs : s->systems[i].path))
            rc = ARB_ENOMEM;
        free(sys_abs);
    }
    if (!rc)
        rc = suite_text(s->doc, &suite_json, err);
    if (!rc)
        rc = arb_jcs_string(systems, &systems_json, NULL, err);
    if (!rc && opts->judge) {
        cJSON *jc = arb_judge_config_json(opts->judge);

        if (!jc || cJSON_AddStringToObject(jc, "hash", opts->judge->hash) == NULL)
            rc = ARB_ENOMEM;
        if (!rc)
            rc = arb_jcs_string(jc, &judge_json, NULL, err);
        cJSON_Delete(jc);
    }
    if (!rc)
        rc = scope_json(opts->select, opts->shard_k, opts->shard_n, &scope, err);
    if (!rc)
        rc = arb_procedure_hash(s, opts->judge, procedure, err);
    /* Before the row exists: an input that cannot be identified leaves no run behind. */
    if (!rc && (!opts->source || opts->source->files))
        rc = run_inputs_json(s, &inputs, err); /* a stored run or one comparison: not files */
    if (!rc) {
        memset(&row, 0, sizeof(row));
        row.suite_path = abs ? abs : s->path;
        row.suite_name = s->name ? s->name : "";
        row.suite_sha256 = s->sha256;
        row.id = opts->new_run_id;
        row.suite_json = suite_json;
        row.systems_json = opts->systems_json ? opts->systems_json : systems_json;
        row.seed = s->seed;
        row.version = opts->version ? opts->version : "";
        row.judge_json = judge_json;
        row.scope_json = scope;
        row.inputs_json = inputs;
        row.kind = opts->kind;
        row.procedure_hash = procedure;
        rc = arb_store_begin(st, err);
        if (!rc)
            rc = arb_store_run_create(st, &row, run, err);
        if (!rc)
            rc = arb_store_commit(st, err);
        else
            arb_store_rollback(st);
    }
    free(abs);
    free(suite_json);
    free(systems_json);
    free(judge_json);
    free(scope);
    free(inputs);
    cJSON_Delete(systems);
    return rc;
}

struct stored_scope {
    char *json;
    int oom;
};

static int on_run(void *ctx, const struct arb_run_row *r)
{
    struct stored_scope *ss = ctx;

    if (r->scope_json && !(ss->json = strdup(r->scope_json)))
        ss->oom = 1;
    return 1;
}

enum arb_status run_stored_scope(struct arb_store *st, int64_t run, char **out,
                                 struct arb_err *err)
{
    struct stored_scope ss = {NULL, 0};
    enum arb_status rc = arb_store_runs(st, run, on_run, &ss, err);

    *out = ss.json;
    return rc ? rc : ss.oom ? ARB_ENOMEM : ARB_OK;
}
