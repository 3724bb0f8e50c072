/*
 * procedure.c - the identity of a run's decision procedure (DESIGN.md "Calibration
 * measures the procedure the run uses"; db/migrations/007-procedure-identity.sql).
 *
 * Everything that decides how a judged case's verdict comes out, and nothing
 * else: the judge config's hash (model, parameters, prompt template), the
 * suite's task, its rubric (each criterion with dimension, description, anchors
 * and check), its own expectations and its policy.  The hash is SHA-256 of the
 * RFC 8785 text of that object.  Cases, outputs, systems, seed and redaction
 * are not part of it: they are what a procedure is applied to.  Without a
 * judge, "judge" is null: the checks and the policy alone are a procedure too.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "arbiter/buf.h"
#include "arbiter/json.h"
#include "arbiter/run.h"
#include "arbiter/judge.h"

/* name: value, or nothing when value is NULL. */
static int add_text(cJSON *o, const char *name, const char *value)
{
    return !value || cJSON_AddStringToObject(o, name, value) != NULL;
}

/* A check's config (RFC 8785 text) as JSON, or nothing. */
static int add_check(cJSON *o, const char *check_json)
{
    cJSON *v;

    if (!check_json)
        return 1;
    v = cJSON_Parse(check_json);
    return v && cJSON_AddItemToObject(o, "check", v);
}

static cJSON *rubric_json(const struct arb_suite *s)
{
    static const char *const scores[3] = {"1", "3", "5"};
    cJSON *arr = cJSON_CreateArray();
    int ok = arr != NULL;

    for (size_t i = 0; ok && i < s->n_criteria; i++) {
        const struct arb_criterion *cr = &s->criteria[i];
        cJSON *c = cJSON_CreateObject(), *anchors = NULL;

        ok = c && cJSON_AddItemToArray(arr, c) && cJSON_AddStringToObject(c, "name", cr->name) &&
             cJSON_AddStringToObject(c, "dimension",
                                     cr->dim == ARB_DIM_CONTENT ? "content" : "structure") &&
             cJSON_AddBoolToObject(c, "graded", cr->graded) &&
             add_text(c, "description", cr->description) && add_check(c, cr->check_json);
        for (int k = 0; ok && k < 3; k++) {
            if (!cr->anchor[k])
                continue;
            if (!anchors)
                ok = (anchors = cJSON_AddObjectToObject(c, "anchors")) != NULL;
            ok = ok && cJSON_AddStringToObject(anchors, scores[k], cr->anchor[k]);
        }
    }
    if (!ok) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
}

static cJSON *expectations_json(const struct arb_suite *s)
{
    cJSON *arr = cJSON_CreateArray();
    int ok = arr != NULL;

    for (size_t i = 0; ok && i < s->n_expectations; i++) {
        const struct arb_expectation *e = &s->expectations[i];
        cJSON *o = cJSON_CreateObject();

        ok = o && cJSON_AddItemToArray(arr, o) && cJSON_AddStringToObject(o, "id", e->id) &&
             add_text(o, "text", e->text) && add_text(o, "description", e->description) &&
             add_check(o, e->check_json);
    }
    if (!ok) {
        cJSON_Delete(arr);
        return NULL;
    }
    return arr;
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
    cJSON *o = cJSON_CreateObject();
    char *canon = NULL;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    enum arb_status st = ARB_ENOMEM;

    hex[0] = '\0';
    if (o && cJSON_AddNumberToObject(o, "v", 1) &&
        (judge ? cJSON_AddStringToObject(o, "judge", judge->hash)
               : cJSON_AddNullToObject(o, "judge")) != NULL &&
        add_text(o, "task", s->task) && cJSON_AddItemToObject(o, "rubric", rubric_json(s)) &&
        cJSON_AddItemToObject(o, "expectations", expectations_json(s)) &&
        cJSON_AddItemToObject(o, "policy", policy_json(&s->policy)))
        st = arb_jcs_string(o, &canon, NULL, err);
    else
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (!st && !EVP_Digest(canon, strlen(canon), md, &n, EVP_sha256(), NULL))
        st = arb_err_set(err, ARB_EINTERNAL, "cannot hash the decision procedure");
    if (!st)
        arb_hex(md, n, hex);
    free(canon);
    cJSON_Delete(o);
    return st;
}
