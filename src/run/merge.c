/*
 * merge.c - arbiter merge (merge.h): which shard databases belong together, and the run
 * they make.  Each shard's run row is read through the store and compared with the first
 * shard's, one at a time (a suite_json may be large: two are held, not N); the checks name
 * the files and the difference.  The copying itself is arb_store_merge's (store_merge.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/json.h"
#include "arbiter/merge.h"
#include "arbiter/run.h"
#include "arbiter/store.h"
#include "run_int.h"

#define MISSING_NAMED 5 /* missing shards named in a message; the rest are counted */

/* One shard's run, as its database records it (owned copies), and what is derived from it. */
struct shard_run {
    size_t n_runs; /* runs in the database (one is expected) */
    int oom;
    int64_t id;
    uint64_t seed;
    unsigned k, n;
    char *created_at, *status, *kind, *suite_path, *suite_name, *suite_sha256, *suite_json,
        *systems_json, *version, *judge_json, *scope_json, *inputs_json, *procedure_hash;
    char *rest;    /* scope_json without the shard: the unsharded run's, or NULL */
    char *systems; /* the systems' names in order, "baseline, candidate" */
    char *inputs;  /* inputs_json without the files' paths (RFC 8785), or NULL */
};

static void shard_run_release(struct shard_run *r)
{
    char **owned[] = {&r->created_at,     &r->status,       &r->kind,       &r->suite_path,
                      &r->suite_name,     &r->suite_sha256, &r->suite_json, &r->systems_json,
                      &r->version,        &r->judge_json,   &r->scope_json, &r->inputs_json,
                      &r->procedure_hash, &r->rest,         &r->systems,    &r->inputs};

    for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        free(*owned[i]);
    memset(r, 0, sizeof(*r));
}

static char *dup_or_null(const char *s, int *oom)
{
    char *d;

    if (!s)
        return NULL;
    d = strdup(s);
    if (!d)
        *oom = 1;
    return d;
}

static int on_run(void *ctx, const struct arb_run_row *row)
{
    struct shard_run *r = ctx;

    if (r->n_runs++)
        return 0;
    r->id = row->id;
    r->seed = row->seed;
    r->created_at = dup_or_null(row->created_at, &r->oom);
    r->status = dup_or_null(row->status, &r->oom);
    r->kind = dup_or_null(row->kind ? row->kind : "run", &r->oom);
    r->suite_path = dup_or_null(row->suite_path, &r->oom);
    r->suite_name = dup_or_null(row->suite_name, &r->oom);
    r->suite_sha256 = dup_or_null(row->suite_sha256, &r->oom);
    r->suite_json = dup_or_null(row->suite_json, &r->oom);
    r->systems_json = dup_or_null(row->systems_json, &r->oom);
    r->version = dup_or_null(row->version, &r->oom);
    r->judge_json = dup_or_null(row->judge_json, &r->oom);
    r->scope_json = dup_or_null(row->scope_json, &r->oom);
    r->inputs_json = dup_or_null(row->inputs_json, &r->oom);
    r->procedure_hash = dup_or_null(row->procedure_hash, &r->oom);
    return 0;
}

/* "baseline, candidate": the names of systems_json's systems, in order. */
static enum arb_status system_names(const char *json, char **out, struct arb_err *err)
{
    cJSON *doc = NULL;
    const cJSON *s;
    struct arb_buf b;
    enum arb_status st =
        arb_json_parse(json ? json : "[]", strlen(json ? json : "[]"), 0, &doc, err);

    if (st)
        return arb_err_prefix(err, st, "the run's systems_json");
    arb_buf_init(&b, 0);
    st = arb_buf_add(&b, "", 0);
    cJSON_ArrayForEach(s, doc)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(s, "name");

        if (!st && b.len)
            st = arb_buf_adds(&b, ", ");
        if (!st)
            st = arb_buf_adds(&b, cJSON_IsString(name) ? name->valuestring : "?");
    }
    cJSON_Delete(doc);
    if (st) {
        arb_buf_release(&b);
        return st;
    }
    *out = arb_buf_detach(&b, NULL);
    return *out ? ARB_OK : ARB_ENOMEM;
}

/* Every "path" member of every object in v, removed: the same file on another machine. */
static void drop_paths(cJSON *v)
{
    cJSON *c;

    if (cJSON_IsObject(v))
        cJSON_DeleteItemFromObjectCaseSensitive(v, "path");
    cJSON_ArrayForEach(c, v)
    {
        drop_paths(c);
    }
}

static enum arb_status inputs_without_paths(const char *json, char **out, struct arb_err *err)
{
    cJSON *doc = NULL;
    enum arb_status st;

    *out = NULL;
    if (!json)
        return ARB_OK;
    st = arb_json_parse(json, strlen(json), 0, &doc, err);
    if (st)
        return arb_err_prefix(err, st, "the run's inputs_json");
    drop_paths(doc);
    st = arb_jcs_string(doc, out, NULL, err);
    cJSON_Delete(doc);
    return st;
}

/* Read the one run of the database at path, and check it is a complete shard. */
static enum arb_status read_shard(const char *path, struct shard_run *r, struct arb_err *err)
{
    struct arb_store *st = NULL;
    struct stat sb;
    enum arb_status ret;

    memset(r, 0, sizeof(*r));
    if (stat(path, &sb) != 0)
        return arb_err_set(err, ARB_EUSAGE, "no database at '%s'", path);
    ret = arb_store_open(path, ARB_STORE_READONLY, &st, err);
    if (!ret)
        ret = arb_store_runs(st, 0, on_run, r, err);
    arb_store_close(st);
    if (!ret && r->oom)
        ret = ARB_ENOMEM;
    if (ret)
        return ret;
    if (r->n_runs != 1)
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s' holds %zu runs: a shard database holds the one run 'arbiter run "
                           "--shard K/N' made",
                           path, r->n_runs);
    if (strcmp(r->kind, "run") != 0)
        return arb_err_set(err, ARB_EUSAGE, "'%s': run %lld is a %s's run, not a shard", path,
                           (long long)r->id, r->kind);
    ret = run_scope_shard(r->scope_json, &r->k, &r->n, &r->rest, err);
    if (ret)
        return arb_err_prefix(err, ret, "'%s'", path);
    if (!r->n)
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s': run %lld is not a shard (it ran without --shard K/N)", path,
                           (long long)r->id);
    if (!r->status || strcmp(r->status, "complete") != 0)
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s': shard %u/%u (run %lld) is not complete (status %s): finish it "
                           "with 'arbiter run --resume %lld --db %s'",
                           path, r->k, r->n, (long long)r->id, r->status ? r->status : "unknown",
                           (long long)r->id, path);
    ret = system_names(r->systems_json, &r->systems, err);
    if (!ret)
        ret = inputs_without_paths(r->inputs_json, &r->inputs, err);
    return ret ? arb_err_prefix(err, ret, "'%s'", path) : ARB_OK;
}

static int same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* The "hash" of a judge_json, or a short word for none. */
static void judge_hash(const char *judge_json, char *out, size_t size)
{
    cJSON *doc = judge_json ? cJSON_Parse(judge_json) : NULL;
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(doc, "hash");

    snprintf(out, size, "%.12s", cJSON_IsString(h) ? h->valuestring : judge_json ? "?" : "none");
    cJSON_Delete(doc);
}

/* Which of the inputs differ: the first member of inputs (then of systems...) that does. */
static void inputs_where(const char *a, const char *b, char *out, size_t size)
{
    cJSON *da = a ? cJSON_Parse(a) : NULL, *db = b ? cJSON_Parse(b) : NULL;
    static const char *const groups[][2] = {
        {"cases", "the cases file"}, {"systems", "system"}, {"expected_files", "expected file"}};

    snprintf(out, size, "%s", "their identities");
    for (size_t g = 0; da && db && g < sizeof(groups) / sizeof(groups[0]); g++) {
        const cJSON *ga = cJSON_GetObjectItemCaseSensitive(da, groups[g][0]);
        const cJSON *gb = cJSON_GetObjectItemCaseSensitive(db, groups[g][0]);
        const cJSON *m;

        if (arb_json_equal(ga, gb))
            continue;
        snprintf(out, size, "%s", groups[g][1]);
        if (g == 0 || !cJSON_IsObject(ga) || !cJSON_IsObject(gb))
            break;
        cJSON_ArrayForEach(m, ga)
        {
            if (!arb_json_equal(m, cJSON_GetObjectItemCaseSensitive(gb, m->string))) {
                snprintf(out, size, "%s '%s'", groups[g][1], m->string);
                break;
            }
        }
        break;
    }
    cJSON_Delete(da);
    cJSON_Delete(db);
}

/* That shard r (at path) belongs with the first shard (ref, at ref_path). */
static enum arb_status compare(const char *ref_path, const struct shard_run *ref, const char *path,
                               const struct shard_run *r, struct arb_err *err)
{
    char a[64], b[64];

    if (r->n != ref->n)
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s' is shard %u/%u, '%s' shard %u/%u: shards of different splits",
                           path, r->k, r->n, ref_path, ref->k, ref->n);
    if (!same(r->suite_sha256, ref->suite_sha256))
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s' ran another suite than '%s' (suite SHA-256 %.12s, not %.12s)",
                           path, ref_path, r->suite_sha256, ref->suite_sha256);
    if (!same(r->suite_json, ref->suite_json))
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s' loaded the suite otherwise than '%s' (their suite_json differ)",
                           path, ref_path);
    if (r->seed != ref->seed)
        return arb_err_set(err, ARB_EUSAGE, "'%s' ran with seed %llu, '%s' with seed %llu", path,
                           (unsigned long long)r->seed, ref_path, (unsigned long long)ref->seed);
    if (!same(r->systems, ref->systems))
        return arb_err_set(err, ARB_EUSAGE, "'%s' compares the systems %s, '%s' %s", path,
                           r->systems, ref_path, ref->systems);
    if (!same(r->version, ref->version))
        return arb_err_set(err, ARB_EUSAGE, "'%s' was made by Arbiter %s, '%s' by %s", path,
                           r->version, ref_path, ref->version);
    if (!same(r->judge_json, ref->judge_json)) {
        judge_hash(r->judge_json, a, sizeof(a));
        judge_hash(ref->judge_json, b, sizeof(b));
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s' ran with another judge config than '%s' (judge %s, not %s)", path,
                           ref_path, a, b);
    }
    if (!same(r->procedure_hash, ref->procedure_hash))
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s' ran another decision procedure than '%s' "
                           "(procedure %.12s, not %.12s)",
                           path, ref_path, r->procedure_hash ? r->procedure_hash : "none",
                           ref->procedure_hash ? ref->procedure_hash : "none");
    if (!same(r->rest, ref->rest))
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s' ran another selection of cases (--limit, "
                           "--cases) than '%s': %s, not %s",
                           path, ref_path, r->rest ? r->rest : "every case",
                           ref->rest ? ref->rest : "every case");
    if (!same(r->inputs, ref->inputs)) {
        char where[200];

        inputs_where(r->inputs, ref->inputs, where, sizeof(where));
        return arb_err_set(err, ARB_EUSAGE,
                           "'%s' read other input files than '%s' (%s: another size or SHA-256)",
                           path, ref_path, where);
    }
    return ARB_OK;
}

/* One shard as the merge needs it once checked. */
struct shard_entry {
    const char *path;
    int64_t run;
    unsigned k;
};

static int by_k(const void *a, const void *b)
{
    const struct shard_entry *x = a, *y = b;

    return (x->k > y->k) - (x->k < y->k);
}

/* Each K from 1 to n once in e[0..count) (sorted by k): else the duplicate or the missing. */
static enum arb_status check_partition(const struct shard_entry *e, size_t count, unsigned n,
                                       struct arb_err *err)
{
    char named[256] = "";
    size_t i, missing = 0, at = 0;
    unsigned want = 1;

    for (i = 1; i < count; i++)
        if (e[i].k == e[i - 1].k)
            return arb_err_set(err, ARB_EUSAGE, "'%s' and '%s' are both shard %u/%u", e[i - 1].path,
                               e[i].path, e[i].k, n);
    for (i = 0; want <= n; want++) {
        if (i < count && e[i].k == want) {
            i++;
            continue;
        }
        if (missing++ < MISSING_NAMED && at < sizeof(named))
            at += (size_t)snprintf(named + at, sizeof(named) - at, "%s%u/%u",
                                   missing > 1 ? ", " : "", want, n);
    }
    if (!missing)
        return ARB_OK;
    if (missing == 1)
        return arb_err_set(err, ARB_EUSAGE, "shard %s is missing", named);
    if (missing <= MISSING_NAMED)
        return arb_err_set(err, ARB_EUSAGE, "shards %s are missing", named);
    return arb_err_set(err, ARB_EUSAGE, "shards %s and %zu more are missing", named,
                       missing - MISSING_NAMED);
}

/* ARB_EUSAGE when into is the file of one of the shards (which must exist: read_shard). */
static enum arb_status check_into(const char *into, const char *const *paths, size_t n,
                                  struct arb_err *err)
{
    struct stat si, ss;

    if (stat(into, &si) != 0)
        return ARB_OK;
    for (size_t i = 0; i < n; i++)
        if (stat(paths[i], &ss) == 0 && ss.st_dev == si.st_dev && ss.st_ino == si.st_ino)
            return arb_err_set(err, ARB_EUSAGE,
                               "'%s' is one of the shards ('%s'): merge into another file", into,
                               paths[i]);
    return ARB_OK;
}

/* The merged run's row: the first shard's, with created_at and the unsharded scope. */
static void merged_row(const struct shard_run *one, const char *created_at, struct arb_run_row *row)
{
    memset(row, 0, sizeof(*row));
    row->created_at = created_at;
    row->suite_path = one->suite_path;
    row->suite_name = one->suite_name;
    row->suite_sha256 = one->suite_sha256;
    row->suite_json = one->suite_json;
    row->systems_json = one->systems_json;
    row->seed = one->seed;
    row->version = one->version;
    row->judge_json = one->judge_json;
    row->scope_json = one->rest;
    row->inputs_json = one->inputs_json;
    row->kind = "run";
    row->procedure_hash = one->procedure_hash;
}

/* Read every shard, compare it with the first; e[i] and the earliest created_at. */
static enum arb_status check_shards(const char *const *paths, size_t n, struct shard_run *ref,
                                    struct shard_entry *e, char **earliest, struct arb_err *err)
{
    struct shard_run cur;
    enum arb_status ret = ARB_OK;

    for (size_t i = 0; !ret && i < n; i++) {
        struct shard_run *r = i ? &cur : ref;

        ret = read_shard(paths[i], r, err);
        if (!ret && i)
            ret = compare(paths[0], ref, paths[i], r, err);
        if (!ret && (!*earliest || (r->created_at && strcmp(r->created_at, *earliest) < 0))) {
            free(*earliest);
            *earliest = r->created_at ? strdup(r->created_at) : NULL;
            if (r->created_at && !*earliest)
                ret = ARB_ENOMEM;
        }
        e[i].path = paths[i];
        e[i].run = r->id;
        e[i].k = r->k;
        if (i)
            shard_run_release(&cur);
    }
    return ret;
}

enum arb_status arb_merge_shards(const char *into, const char *const *paths, size_t n, int64_t *run,
                                 struct arb_err *err)
{
    struct shard_run ref, one;
    struct shard_entry *e;
    struct arb_store_shard *sh = NULL;
    struct arb_store *st = NULL;
    struct arb_run_row row;
    char *earliest = NULL;
    enum arb_status ret;

    *run = 0;
    if (!n)
        return arb_err_set(err, ARB_EUSAGE, "no shard databases to merge");
    memset(&ref, 0, sizeof(ref));
    memset(&one, 0, sizeof(one));
    e = calloc(n, sizeof(*e));
    if (!e)
        return ARB_ENOMEM;
    ret = check_shards(paths, n, &ref, e, &earliest, err);
    if (!ret)
        ret = check_into(into, paths, n, err);
    if (!ret) {
        qsort(e, n, sizeof(*e), by_k);
        ret = check_partition(e, n, ref.n, err);
    }
    /* Shard 1's run gives the merged run its suite path, systems and inputs. */
    if (!ret && ref.k != 1)
        ret = read_shard(e[0].path, &one, err);
    if (!ret) {
        sh = calloc(n, sizeof(*sh));
        ret = sh ? ARB_OK : ARB_ENOMEM;
    }
    for (size_t i = 0; !ret && i < n; i++) {
        sh[i].path = e[i].path;
        sh[i].run = e[i].run;
    }
    if (!ret)
        ret = arb_store_open(into, 0, &st, err);
    if (!ret) {
        merged_row(ref.k == 1 ? &ref : &one, earliest, &row);
        ret = arb_store_merge(st, &row, sh, n, run, err);
    }
    arb_store_close(st);
    shard_run_release(&ref);
    shard_run_release(&one);
    free(earliest);
    free(sh);
    free(e);
    return ret;
}
