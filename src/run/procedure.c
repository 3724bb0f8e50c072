/*
 * procedure.c - the identity of a run's decision procedure (DESIGN.md "Calibration
 * measures the procedure the run uses"; db/migrations/007-procedure-identity.sql).
 *
 * Everything that decides how a judged case's verdict comes out, and nothing
 * else: the judge config's hash (model, parameters, prompt template), the
 * suite's task, its rubric (each criterion with dimension, description, anchors
 * and check, and the SHA-256 of every expected_file the check reads), its own
 * expectations (the same way), its redaction list (what the judge is not
 * shown) and its policy.  The hash is SHA-256 of the RFC 8785 text of that
 * object.  Cases, outputs, systems and seed are not part of it: they are what
 * a procedure is applied to (so a case's own expected_files are not either).  Without a
 * judge, "judge" is null: the checks and the policy alone are a procedure too.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/buf.h"
#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/run.h"
#include "arbiter/judge.h"

/* name: value, or nothing when value is NULL. */
static int add_text(cJSON *o, const char *name, const char *value)
{
    return !value || cJSON_AddStringToObject(o, name, value) != NULL;
}

static enum arb_status sha256_of(const char *data, size_t len, char hex[65], struct arb_err *err)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;

    if (!EVP_Digest(data, len, md, &n, EVP_sha256(), NULL))
        return arb_err_set(err, ARB_EINTERNAL, "cannot hash the decision procedure");
    arb_hex(md, n, hex);
    return ARB_OK;
}

/*
 * Every expected_file named anywhere in check (aggregates nest checks), as name -> SHA-256 of
 * its bytes in files: a check's verdict depends on what the file holds, not on its name.
 */
static enum arb_status add_files(const struct arb_suite *s, const cJSON *check, cJSON *files,
                                 struct arb_err *err)
{
    const cJSON *x;
    enum arb_status st = ARB_OK;

    cJSON_ArrayForEach(x, check)
    {
        if (x->string && strcmp(x->string, "expected_file") == 0 && cJSON_IsString(x) &&
            !cJSON_GetObjectItemCaseSensitive(files, x->valuestring)) {
            const char *path = NULL;
            struct arb_buf text;
            char hex[65];

            for (size_t i = 0; i < s->n_files && !path; i++)
                if (strcmp(s->files[i].name, x->valuestring) == 0)
                    path = s->files[i].path;
            arb_buf_init(&text, 0);
            st = path ? arb_file_read(path, &text, err)
                      : arb_err_set(err, ARB_EINTERNAL, "expected_file '%s' not loaded",
                                    x->valuestring);
            if (!st)
                st = sha256_of(text.ptr ? text.ptr : "", text.len, hex, err);
            arb_buf_release(&text);
            if (!st && !cJSON_AddStringToObject(files, x->valuestring, hex))
                st = arb_err_set(err, ARB_ENOMEM, "out of memory");
        } else if (cJSON_IsObject(x) || cJSON_IsArray(x)) {
            st = add_files(s, x, files, err);
        }
        if (st)
            return st;
    }
    return ARB_OK;
}

/* A check's config (RFC 8785 text) as JSON, and the files it reads; or nothing. */
static enum arb_status add_check(const struct arb_suite *s, cJSON *o, const char *check_json,
                                 struct arb_err *err)
{
    cJSON *v, *files;
    enum arb_status st;

    if (!check_json)
        return ARB_OK;
    v = cJSON_Parse(check_json);
    if (!v || !cJSON_AddItemToObject(o, "check", v)) {
        cJSON_Delete(v);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    files = cJSON_CreateObject();
    if (!files)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    st = add_files(s, v, files, err);
    if (st) {
        cJSON_Delete(files);
        return st;
    }
    if (!cJSON_GetArraySize(files)) {
        cJSON_Delete(files);
        return ARB_OK;
    }
    return cJSON_AddItemToObject(o, "files", files) ? ARB_OK
                                                    : arb_err_set(err, ARB_ENOMEM, "out of memory");
}

static enum arb_status rubric_json(const struct arb_suite *s, cJSON *arr, struct arb_err *err)
{
    static const char *const scores[3] = {"1", "3", "5"};
    enum arb_status st = ARB_OK;

    for (size_t i = 0; !st && i < s->n_criteria; i++) {
        const struct arb_criterion *cr = &s->criteria[i];
        cJSON *c = cJSON_CreateObject(), *anchors = NULL;
        int ok = c && cJSON_AddItemToArray(arr, c) &&
                 cJSON_AddStringToObject(c, "name", cr->name) &&
                 cJSON_AddStringToObject(c, "dimension",
                                         cr->dim == ARB_DIM_CONTENT ? "content" : "structure") &&
                 cJSON_AddBoolToObject(c, "graded", cr->graded) &&
                 add_text(c, "description", cr->description);

        for (int k = 0; ok && k < 3; k++) {
            if (!cr->anchor[k])
                continue;
            if (!anchors)
                ok = (anchors = cJSON_AddObjectToObject(c, "anchors")) != NULL;
            ok = ok && cJSON_AddStringToObject(anchors, scores[k], cr->anchor[k]);
        }
        st = ok ? add_check(s, c, cr->check_json, err)
                : arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    return st;
}

static enum arb_status expectations_json(const struct arb_suite *s, cJSON *arr, struct arb_err *err)
{
    enum arb_status st = ARB_OK;

    for (size_t i = 0; !st && i < s->n_expectations; i++) {
        const struct arb_expectation *e = &s->expectations[i];
        cJSON *o = cJSON_CreateObject();
        int ok = o && cJSON_AddItemToArray(arr, o) && cJSON_AddStringToObject(o, "id", e->id) &&
                 add_text(o, "text", e->text) && add_text(o, "description", e->description);

        st = ok ? add_check(s, o, e->check_json, err)
                : arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    return st;
}

static cJSON *policy_json(const struct arb_policy *p)
{
    cJSON *o = cJSON_CreateObject();

    if (o && cJSON_AddStringToObject(o, "decide_by", arb_decide_by_name(p->decide_by)) &&
        cJSON_AddStringToObject(o, "position_inconsistent",
                                p->inconsistent == ARB_INCONSISTENT_TIE ? "tie" : "unresolved") &&
        cJSON_AddNumberToObject(o, "tie_epsilon", p->tie_epsilon))
        return o;
    cJSON_Delete(o);
    return NULL;
}

enum arb_status arb_procedure_hash(const struct arb_suite *s, const struct arb_judge_config *judge,
                                   char hex[65], struct arb_err *err)
{
    cJSON *o = cJSON_CreateObject(), *rubric = NULL, *exps = NULL, *redact = NULL;
    char *canon = NULL;
    enum arb_status st = ARB_ENOMEM;

    hex[0] = '\0';
    if (o && cJSON_AddNumberToObject(o, "v", 1) &&
        (judge ? cJSON_AddStringToObject(o, "judge", judge->hash)
               : cJSON_AddNullToObject(o, "judge")) != NULL &&
        add_text(o, "task", s->task) && (rubric = cJSON_AddArrayToObject(o, "rubric")) &&
        (exps = cJSON_AddArrayToObject(o, "expectations")) &&
        (redact = cJSON_AddArrayToObject(o, "redact")) &&
        cJSON_AddItemToObject(o, "policy", policy_json(&s->policy)))
        st = ARB_OK;
    /* What the judge is not shown is part of what it judges. */
    for (size_t i = 0; !st && i < s->n_redact; i++)
        if (!cJSON_AddItemToArray(redact, cJSON_CreateString(s->redact[i])))
            st = ARB_ENOMEM;
    if (st)
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (!st)
        st = rubric_json(s, rubric, err);
    if (!st)
        st = expectations_json(s, exps, err);
    if (!st)
        st = arb_jcs_string(o, &canon, NULL, err);
    if (!st)
        st = sha256_of(canon, strlen(canon), hex, err);
    free(canon);
    cJSON_Delete(o);
    return st;
}
