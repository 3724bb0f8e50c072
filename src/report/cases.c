/*
 * cases.c - the per-case detail of a report, for the HTML format: each
 * verdict with what the case asked (its prompt; the suite's task once, as
 * "cases_task"), both outputs (cut to a readable length), every check
 * record, the judge's reasoning, its answers in each order (case_view.h) and
 * the policy that decided.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/case_view.h"
#include "arbiter/report.h"

#define OUTPUT_SHOWN 20000 /* bytes of each output shown in a report */

struct cases_ctx {
    struct arb_store *st;
    int64_t run;
    cJSON *arr;
    size_t limit, n;
    cJSON *cur;
    enum arb_status rc;
    struct arb_err *err;
};

static int on_output(void *ctx, const struct arb_output_row *o)
{
    cJSON *outs = ctx, *prev;
    char note[96];
    size_t n = o->len < OUTPUT_SHOWN ? o->len : OUTPUT_SHOWN;
    cJSON *s;

    if (o->binary || !o->content) {
        snprintf(note, sizeof(note), "[binary file, %zu bytes]", o->len);
        s = cJSON_CreateString(note);
    } else {
        char *copy = malloc(n + 64);

        if (!copy)
            return 1;
        memcpy(copy, o->content, n);
        if (n < o->len)
            snprintf(copy + n, 64, "\n[... %zu more bytes]", o->len - n);
        else
            copy[n] = '\0';
        s = cJSON_CreateString(copy);
        free(copy);
    }
    if (!s)
        return 1;
    prev = cJSON_GetObjectItemCaseSensitive(outs, o->system);
    if (o->file && o->file[0] && (!prev || cJSON_IsString(prev))) {
        /* A directory output: its files one after another, each under its name, the first
         * too (the header the judge sees, run.c). */
        const char *before = prev ? prev->valuestring : "";
        size_t len = strlen(before) + strlen(o->file) + strlen(s->valuestring) + 32;
        char *joined = malloc(len);
        cJSON *j;

        if (joined)
            snprintf(joined, len, "%s%s=== file: %s ===\n%s", before, prev ? "\n" : "", o->file,
                     s->valuestring);
        cJSON_Delete(s);
        j = joined ? cJSON_CreateString(joined) : NULL;
        free(joined);
        if (!j)
            return 1;
        if (prev ? !cJSON_ReplaceItemInObjectCaseSensitive(outs, o->system, j)
                 : !cJSON_AddItemToObject(outs, o->system, j)) {
            cJSON_Delete(j);
            return 1;
        }
    } else if (!prev) {
        cJSON_AddItemToObject(outs, o->system, s);
    } else {
        cJSON_Delete(s);
    }
    return 0;
}

static int on_check(void *ctx, const struct arb_check_row *c)
{
    cJSON *arr = ctx, *x = cJSON_CreateObject();

    if (!x || !cJSON_AddItemToArray(arr, x))
        return 1;
    cJSON_AddStringToObject(x, "system", c->system);
    cJSON_AddStringToObject(x, "kind", c->kind);
    cJSON_AddStringToObject(x, "item", c->item);
    cJSON_AddStringToObject(x, "verdict", c->verdict);
    cJSON_AddNumberToObject(x, "score", c->score);
    cJSON_AddItemToObject(x, "record", cJSON_Parse(c->record_json));
    return 0;
}

struct task_copy {
    char *text; /* the suite's task, or NULL */
    int oom;
};

static int on_task(void *ctx, const char *task)
{
    struct task_copy *t = ctx;

    if (task && !(t->text = strdup(task)))
        t->oom = 1;
    return 0;
}

struct prompt_ctx {
    cJSON *x;
    int oom;
};

/* The case's prompt: "prompt" of x, when the case has one. */
static int on_prompt(void *ctx, const char *prompt)
{
    struct prompt_ctx *p = ctx;

    if (prompt && !cJSON_AddStringToObject(p->x, "prompt", prompt))
        p->oom = 1;
    return 0;
}

/*
 * What the case asked, the judge's answers in each order ("judge", when it was asked) and
 * what decided (the comparison's "policy" and "decided_by", when it has them) added to x.
 */
static enum arb_status add_case_view(struct cases_ctx *cc, const struct arb_verdict_row *v,
                                     const cJSON *cmp, cJSON *x)
{
    static const char *const decision[] = {"policy", "decided_by"};
    struct prompt_ctx pc = {x, 0};
    cJSON *view = NULL;
    enum arb_status rs =
        arb_store_case_prompt(cc->st, cc->run, v->case_id, on_prompt, &pc, cc->err);

    if (!rs && pc.oom)
        rs = ARB_ENOMEM;
    if (!rs)
        rs = arb_case_judge_read(cc->st, cc->run, v, &view, cc->err);
    if (!rs && view && !cJSON_AddItemToObject(x, "judge", view)) {
        cJSON_Delete(view);
        rs = ARB_ENOMEM;
    }
    for (size_t i = 0; !rs && i < sizeof(decision) / sizeof(decision[0]); i++) {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(cmp, decision[i]);
        cJSON *copy = m ? cJSON_Duplicate(m, 1) : NULL;

        if (m && (!copy || !cJSON_AddItemToObject(x, decision[i], copy))) {
            cJSON_Delete(copy);
            rs = ARB_ENOMEM;
        }
    }
    return rs;
}

static int on_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct cases_ctx *cc = ctx;
    cJSON *x, *sys, *sc, *outs, *checks, *cmp;
    const cJSON *why;

    if (cc->n >= cc->limit)
        return 1;
    x = cJSON_CreateObject();
    if (!x || !cJSON_AddItemToArray(cc->arr, x)) {
        cc->rc = ARB_ENOMEM;
        return 1;
    }
    cc->n++;
    cJSON_AddStringToObject(x, "id", v->case_id);
    cJSON_AddStringToObject(x, "status", v->status);
    if (v->winner)
        cJSON_AddStringToObject(x, "winner", v->winner);
    else
        cJSON_AddNullToObject(x, "winner");
    sys = cJSON_AddObjectToObject(x, "systems");
    cJSON_AddStringToObject(sys, "A", v->system_a);
    cJSON_AddStringToObject(sys, "B", v->system_b);
    sc = cJSON_AddObjectToObject(x, "scores");
    if (isnan(v->score_a))
        cJSON_AddNullToObject(sc, "A");
    else
        cJSON_AddNumberToObject(sc, "A", v->score_a);
    if (isnan(v->score_b))
        cJSON_AddNullToObject(sc, "B");
    else
        cJSON_AddNumberToObject(sc, "B", v->score_b);
    cmp = cJSON_Parse(v->comparison_json ? v->comparison_json : "{}");
    why = cJSON_GetObjectItemCaseSensitive(cmp, "reasoning");
    cJSON_AddStringToObject(x, "reasoning", cJSON_IsString(why) ? why->valuestring : "");
    /* A pair the judge failed or refused says why in its comparison's judge.error. */
    why = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(cmp, "judge"), "error");
    if (cJSON_IsString(why) && why->valuestring[0])
        cJSON_AddStringToObject(x, "judge_error", why->valuestring);
    cc->rc = add_case_view(cc, v, cmp, x);
    cJSON_Delete(cmp);
    if (cc->rc) {
        if (cc->rc == ARB_ENOMEM)
            arb_err_set(cc->err, ARB_ENOMEM, "out of memory");
        return 1;
    }
    outs = cJSON_AddObjectToObject(x, "outputs");
    checks = cJSON_AddArrayToObject(x, "checks");
    if (!outs || !checks ||
        arb_store_compared_outputs(cc->st, cc->run, v->case_id, on_output, outs, cc->err) ||
        arb_store_checks(cc->st, cc->run, v->case_id, on_check, checks, cc->err)) {
        cc->rc = ARB_EDB;
        return 1;
    }
    return 0;
}

static enum arb_status add_cases(struct arb_store *st, int64_t run, const char *case_id,
                                 cJSON *report, size_t limit, struct arb_err *err)
{
    struct cases_ctx cc = {
        st, run, cJSON_AddArrayToObject(report, "cases_detail"), limit, 0, NULL, ARB_OK, err};
    enum arb_status rc;
    struct task_copy task = {NULL, 0};

    if (!cc.arr)
        return ARB_ENOMEM;
    /* The suite's task once: every case of the run was asked it. */
    rc = arb_store_run_task(st, run, on_task, &task, err);
    if (!rc &&
        (task.oom || (task.text && !cJSON_AddStringToObject(report, "cases_task", task.text))))
        rc = ARB_ENOMEM;
    free(task.text);
    if (!rc)
        rc = arb_store_verdicts(st, run, case_id, on_verdict, &cc, err);
    if (!rc)
        rc = cc.rc;
    if (!rc && cc.n >= limit)
        cJSON_AddNumberToObject(report, "cases_detail_limit", (double)limit);
    return rc;
}

enum arb_status arb_report_add_cases(struct arb_store *st, int64_t run, cJSON *report, size_t limit,
                                     struct arb_err *err)
{
    return add_cases(st, run, NULL, report, limit, err);
}

enum arb_status arb_report_case_detail(struct arb_store *st, int64_t run, const char *case_id,
                                       cJSON *report, struct arb_err *err)
{
    return add_cases(st, run, case_id, report, SIZE_MAX, err);
}
