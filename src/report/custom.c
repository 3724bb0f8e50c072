/*
 * custom.c - the `custom` and `hybrid` strategies (seeds/comparison-graders.md,
 * "Custom Graders" and "Hybrid Graders"): for each case of the run a grader
 * program gets the seed's ComparisonGraderInput on its standard input
 *   {"id", "input", "hint"?, "runs": {SYSTEM: {"output", "trajectory"?,
 *    "score"?, "duration"?, "toolErrors"?}}}
 * and answers the seed's ComparisonGraderResult on its standard output
 *   {"rankings": [{"run", "rank", "score"}], "reasoning"?}.
 * input is the case's prompt ("" when it has none), hint its expected value
 * (a string as it is, other JSON as its RFC 8785 text); each run is the
 * system's compared output (the lowest trial; several files joined, each
 * under a "=== FILE ===" line) with the capture fields it carries.  Any
 * failure of the grader on any case stops the report: a partial ranking
 * would rank the systems on different cases.  Running the program is
 * grader_run.c's; rendering is md_strategy.c's and html_strategy.c's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/blind.h"
#include "arbiter/json.h"
#include "arbiter/judge.h"
#include "arbiter/report.h"
#include "strategy_int.h"

/* A grader's answer to one case may be at most this long. */
#define ANSWER_CAP (16u << 20)

static enum arb_status bad(struct arb_err *err, const char *path, const char *what)
{
    return arb_err_set(err, ARB_ESCHEMA, "answer %s: %s", path, what);
}

/* One member of the rankings array at index i, checked; added to out. */
static enum arb_status ranking(const cJSON *r, int i, const cJSON *runs, cJSON *seen, cJSON *out,
                               struct arb_err *err)
{
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(r, "run");
    const cJSON *rank = cJSON_GetObjectItemCaseSensitive(r, "rank");
    const cJSON *score = cJSON_GetObjectItemCaseSensitive(r, "score");
    char path[64], msg[160];
    cJSON *o;

    snprintf(path, sizeof(path), "/rankings/%d", i);
    if (!cJSON_IsObject(r))
        return bad(err, path, "expected an object {\"run\", \"rank\", \"score\"}");
    snprintf(path, sizeof(path), "/rankings/%d/run", i);
    if (!cJSON_IsString(run))
        return bad(err, path,
                   run ? "expected a string (a run's label)"
                       : "missing (expected the label of one of the case's runs)");
    if (!cJSON_GetObjectItemCaseSensitive(runs, run->valuestring)) {
        snprintf(msg, sizeof(msg), "'%.100s' is not one of the case's runs", run->valuestring);
        return bad(err, path, msg);
    }
    if (cJSON_GetObjectItemCaseSensitive(seen, run->valuestring)) {
        snprintf(msg, sizeof(msg), "'%.100s' is ranked twice", run->valuestring);
        return bad(err, path, msg);
    }
    snprintf(path, sizeof(path), "/rankings/%d/rank", i);
    if (!cJSON_IsNumber(rank) || rank->valuedouble < 1 || rank->valuedouble > 1e9 ||
        rank->valuedouble != floor(rank->valuedouble))
        return bad(err, path, rank ? "expected a whole number from 1 (1 = best)" : "missing");
    snprintf(path, sizeof(path), "/rankings/%d/score", i);
    if (!cJSON_IsNumber(score) || !(score->valuedouble >= 0 && score->valuedouble <= 1))
        return bad(err, path, score ? "expected a number from 0 to 1" : "missing");
    o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(out, o) || !cJSON_AddTrueToObject(seen, run->valuestring) ||
        !cJSON_AddStringToObject(o, "run", run->valuestring) ||
        !cJSON_AddNumberToObject(o, "rank", rank->valuedouble) ||
        !cJSON_AddNumberToObject(o, "score", score->valuedouble))
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    return ARB_OK;
}

static int blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!strchr(" \t\r\n", s[i]))
            return 0;
    return 1;
}

enum arb_status grader_read_answer(const char *text, size_t len, const cJSON *runs, cJSON **out,
                                   struct arb_err *err)
{
    cJSON *doc = NULL, *res = NULL, *seen = NULL, *arr;
    const cJSON *rankings, *reasoning, *r;
    enum arb_status st;
    int i = 0;

    if (blank(text, len))
        return arb_err_set(err, ARB_EPARSE,
                           "the answer is empty (expected {\"rankings\": [...]} on stdout)");
    st = arb_json_parse(text, len, 0, &doc, err);
    if (st)
        return arb_err_prefix(err, ARB_EPARSE, "the answer is not JSON");
    rankings = cJSON_GetObjectItemCaseSensitive(doc, "rankings");
    reasoning = cJSON_GetObjectItemCaseSensitive(doc, "reasoning");
    if (!cJSON_IsObject(doc))
        st = bad(err, "/", "expected an object {\"rankings\": [...], \"reasoning\"?}");
    else if (!rankings)
        st = bad(err, "/rankings", "missing (expected an array of {\"run\", \"rank\", \"score\"})");
    else if (!cJSON_IsArray(rankings))
        st = bad(err, "/rankings", "expected an array of {\"run\", \"rank\", \"score\"}");
    else if (!cJSON_GetArraySize(rankings))
        st = bad(err, "/rankings", "empty (expected at least one of the case's runs)");
    else if (reasoning && !cJSON_IsString(reasoning) && !cJSON_IsNull(reasoning))
        st = bad(err, "/reasoning", "expected a string");
    if (!st) {
        res = cJSON_CreateObject();
        seen = cJSON_CreateObject();
        arr = res ? cJSON_AddArrayToObject(res, "rankings") : NULL;
        if (!arr || !seen)
            st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    for (r = st ? NULL : rankings->child; r; r = r->next)
        if ((st = ranking(r, i++, runs, seen, arr, err)))
            break;
    if (!st && !(cJSON_IsString(reasoning)
                     ? cJSON_AddStringToObject(res, "reasoning", reasoning->valuestring)
                     : cJSON_AddNullToObject(res, "reasoning")))
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    cJSON_Delete(doc);
    cJSON_Delete(seen);
    if (st)
        cJSON_Delete(res);
    else
        *out = res;
    return st;
}

/* ---- the grader's input ------------------------------------------------------------- */

struct gctx {
    struct arb_store *st;
    int64_t run;
    const struct arb_grader *g;
    const cJSON *shown; /* the command as shown (custom.grader) */
    cJSON *cases;       /* the answers, in case order */
    cJSON *runs;        /* the case being built */
    const char *at;     /* the system whose output runs holds last */
    enum arb_status rc;
    struct arb_err *err;
};

/* The capture fields the seed names, from meta, into r. */
static int add_capture(cJSON *r, const cJSON *meta)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(meta, "trajectory");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(meta, "score");
    double d = strategy_duration_ms(meta);

    if (t && !cJSON_AddItemToObject(r, "trajectory", cJSON_Duplicate(t, 1)))
        return -1;
    if (s && !cJSON_AddItemToObject(r, "score", cJSON_Duplicate(s, 1)))
        return -1;
    if (!isnan(d) && !cJSON_AddNumberToObject(r, "duration", d))
        return -1;
    if (cJSON_GetObjectItemCaseSensitive(meta, "toolErrors") &&
        !cJSON_AddBoolToObject(r, "toolErrors", strategy_tool_errors(meta)))
        return -1;
    return 0;
}

/* The output text of one file: binary content is named, not sent (it is not a JSON string).
 * Text with a NUL byte is binary (the loader, src/suite/outputs.c, marks it so), so the text
 * sent holds none and cJSON_CreateString loses nothing of it. */
static char *output_text(const struct arb_output_row *o, const char *before)
{
    struct arb_buf b;
    enum arb_status st;

    arb_buf_init(&b, 0);
    st = arb_buf_adds(&b, before);
    if (!st && o->file && o->file[0])
        st = arb_buf_printf(&b, "%s=== %s ===\n", before[0] ? "\n" : "", o->file);
    if (!st && o->binary)
        st = arb_buf_printf(&b, "(binary output, %zu bytes, sha256 %s)", o->len,
                            o->sha256 ? o->sha256 : "");
    else if (!st)
        st = arb_buf_add(&b, o->content ? o->content : "", o->content ? o->len : 0);
    if (st) {
        arb_buf_release(&b);
        return NULL;
    }
    return arb_buf_detach(&b, NULL);
}

static int on_output(void *ctx, const struct arb_output_row *o)
{
    struct gctx *c = ctx;
    cJSON *r = cJSON_GetObjectItemCaseSensitive(c->runs, o->system), *meta = NULL, *text;
    char *s;

    if (!r) { /* the system's first file: its capture fields come with it */
        r = cJSON_CreateObject();
        if (!r || !cJSON_AddItemToObject(c->runs, o->system, r))
            goto oom;
        if (o->meta_json && arb_json_parse(o->meta_json, strlen(o->meta_json), 0, &meta, NULL))
            meta = NULL;
        if (add_capture(r, meta))
            goto oom;
        cJSON_Delete(meta);
        meta = NULL;
    }
    text = cJSON_GetObjectItemCaseSensitive(r, "output");
    s = output_text(o, cJSON_IsString(text) ? text->valuestring : "");
    if (!s || !(text ? cJSON_ReplaceItemInObjectCaseSensitive(r, "output", cJSON_CreateString(s))
                     : cJSON_AddStringToObject(r, "output", s) != NULL)) {
        free(s);
        goto oom;
    }
    free(s);
    return 0;
oom:
    cJSON_Delete(meta);
    c->rc = arb_err_set(c->err, ARB_ENOMEM, "out of memory");
    return 1;
}

/* The grader's input for one case: id, input, hint and (filled next) runs. */
static cJSON *case_input(const char *case_id, const char *case_json, cJSON **runs)
{
    cJSON *in = cJSON_CreateObject(), *cs = NULL;
    const cJSON *prompt, *expected;
    char *hint = NULL;
    int ok;

    if (case_json && arb_json_parse(case_json, strlen(case_json), 0, &cs, NULL))
        cs = NULL;
    prompt = cJSON_GetObjectItemCaseSensitive(cs, "prompt");
    expected = cJSON_GetObjectItemCaseSensitive(cs, "expected");
    ok = in && cJSON_AddStringToObject(in, "id", case_id) &&
         cJSON_AddStringToObject(in, "input", cJSON_IsString(prompt) ? prompt->valuestring : "");
    if (ok && cJSON_IsString(expected))
        ok = cJSON_AddStringToObject(in, "hint", expected->valuestring) != NULL;
    else if (ok && expected && !arb_jcs_string(expected, &hint, NULL, NULL))
        ok = cJSON_AddStringToObject(in, "hint", hint) != NULL;
    free(hint);
    cJSON_Delete(cs);
    *runs = ok ? cJSON_AddObjectToObject(in, "runs") : NULL;
    if (!*runs) {
        cJSON_Delete(in);
        return NULL;
    }
    return in;
}

/* ---- the grader's command as shown ------------------------------------------------- */

/* A credential's name before '=' or ':' in arg[0..n) (leading dashes skipped). */
static int credential_before(const char *arg, size_t n)
{
    char name[128];

    while (n && *arg == '-')
        arg++, n--;
    if (!n || n >= sizeof(name))
        return 0;
    memcpy(name, arg, n);
    name[n] = '\0';
    return arb_judge_credential_name(name);
}

/*
 * Argument arg (prev the one before it, NULL for the program) as shown, into b: the value of
 * a credential option ("--api-key X"), of NAME=X or "NAME: X" with a credential's name, and a
 * URL's user-info redacted.
 */
static enum arb_status shown_word(const char *prev, const char *arg, struct arb_buf *b)
{
    size_t eq = strcspn(arg, "="), colon = strcspn(arg, ":");
    int oom = 0;
    char *bare;

    if (prev && prev[0] == '-' && !strchr(prev, '=') && arb_judge_credential_name(prev))
        return arb_buf_adds(b, ARB_REDACTED);
    if (prev && arg[eq] && credential_before(arg, eq))
        return arb_buf_printf(b, "%.*s=" ARB_REDACTED, (int)eq, arg);
    if (prev && arg[colon] == ':' && arg[colon + 1] == ' ' && credential_before(arg, colon))
        return arb_buf_printf(b, "%.*s: " ARB_REDACTED, (int)colon, arg);
    bare = arb_judge_url_without_credentials(arg, &oom);
    if (bare) { /* the user-info "u:p@" starts after "://" and is all that bare lacks */
        size_t at = (size_t)(strstr(arg, "://") + 3 - arg);
        enum arb_status st = arb_buf_printf(b, "%.*s" ARB_REDACTED "@%s", (int)at, arg, bare + at);

        free(bare);
        return st;
    }
    return oom ? ARB_ENOMEM : arb_buf_adds(b, arg);
}

/* The grader's argv as shown in reports and errors: a new array of strings, or NULL (OOM). */
static cJSON *shown_argv(const struct arb_grader *g)
{
    cJSON *arr = cJSON_CreateArray();
    struct arb_buf w, r;

    for (char *const *a = g->argv; arr && *a; a++) {
        enum arb_status st;

        arb_buf_init(&w, 0);
        arb_buf_init(&r, 0);
        st = shown_word(a == g->argv ? NULL : a[-1], *a, &w);
        if (!st)
            st = arb_buf_add(&w, "", 0);
        if (!st)
            st = arb_redact_flags(w.ptr, w.len, g->secrets, g->n_secrets, ARB_REDACT_ANYWHERE, &r,
                                  NULL);
        if (!st)
            st = arb_buf_add(&r, "", 0);
        if (st || !cJSON_AddItemToArray(arr, cJSON_CreateString(r.ptr))) {
            cJSON_Delete(arr);
            arr = NULL;
        }
        arb_buf_release(&w);
        arb_buf_release(&r);
    }
    return arr;
}

/* "grader 'CMD ARG', case 'ID': " before the message in err (CMD as shown). */
static enum arb_status grader_failed(const struct gctx *c, const char *case_id, enum arb_status st)
{
    char cmd[200] = "";
    size_t n = 0;
    const cJSON *a;

    cJSON_ArrayForEach(a, c->shown)
    {
        if (n >= sizeof(cmd) - 1)
            break;
        n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, "%s%s", a == c->shown->child ? "" : " ",
                              a->valuestring);
    }
    return arb_err_prefix(c->err, st, "grader '%s', case '%s'", cmd, case_id);
}

static int on_case(void *ctx, const char *case_id, int64_t seq, const char *case_json)
{
    struct gctx *c = ctx;
    cJSON *in = case_input(case_id, case_json, &c->runs), *ans = NULL;
    struct arb_buf out;
    char *text = NULL;
    enum arb_status st;

    (void)seq;
    if (!in) {
        c->rc = arb_err_set(c->err, ARB_ENOMEM, "out of memory");
        return 1;
    }
    st = arb_store_compared_outputs(c->st, c->run, case_id, on_output, c, c->err);
    if (!st)
        st = c->rc;
    if (!st && !c->runs->child) { /* no system has an output: nothing to rank */
        cJSON_Delete(in);
        return 0;
    }
    text = st ? NULL : cJSON_PrintUnformatted(in);
    if (!st && !text)
        st = arb_err_set(c->err, ARB_ENOMEM, "out of memory");
    arb_buf_init(&out, ANSWER_CAP);
    if (!st) {
        st = grader_exec(c->g->argv, text, strlen(text), c->g->timeout_s, &out, c->err);
        if (!st)
            st = grader_read_answer(out.ptr, out.len, c->runs, &ans, c->err);
        if (st && st != ARB_ENOMEM)
            st = grader_failed(c, case_id, ARB_EREMOTE);
    }
    if (!st &&
        (!cJSON_AddItemToArray(c->cases, ans) || !cJSON_AddStringToObject(ans, "case", case_id)))
        st = arb_err_set(c->err, ARB_ENOMEM, "out of memory");
    cJSON_free(text);
    arb_buf_release(&out);
    cJSON_Delete(in);
    c->rc = st;
    return st != ARB_OK;
}

/* Per system over the cases it was ranked in: how many, mean score, mean rank, ranked first. */
static enum arb_status summarize(const cJSON *cases, const cJSON *systems, cJSON *arr)
{
    const cJSON *s, *k, *r;

    cJSON_ArrayForEach(s, systems)
    {
        const char *name = cJSON_GetObjectItemCaseSensitive(s, "name")->valuestring;
        double sum = 0, ranks = 0, firsts = 0, n = 0;
        cJSON *o = cJSON_CreateObject();

        if (!o || !cJSON_AddItemToArray(arr, o))
            return ARB_ENOMEM;
        cJSON_ArrayForEach(k, cases)
        {
            cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(k, "rankings"))
            {
                if (strcmp(cJSON_GetObjectItemCaseSensitive(r, "run")->valuestring, name) != 0)
                    continue;
                n++;
                sum += cJSON_GetObjectItemCaseSensitive(r, "score")->valuedouble;
                ranks += cJSON_GetObjectItemCaseSensitive(r, "rank")->valuedouble;
                firsts += cJSON_GetObjectItemCaseSensitive(r, "rank")->valuedouble == 1;
            }
        }
        if (!cJSON_AddStringToObject(o, "system", name) ||
            !cJSON_AddNumberToObject(o, "cases", n) ||
            !cJSON_AddItemToObject(o, "mean_score",
                                   n ? cJSON_CreateNumber(sum / n) : cJSON_CreateNull()) ||
            !cJSON_AddItemToObject(o, "mean_rank",
                                   n ? cJSON_CreateNumber(ranks / n) : cJSON_CreateNull()) ||
            !cJSON_AddNumberToObject(o, "firsts", firsts))
            return ARB_ENOMEM;
    }
    return ARB_OK;
}

enum arb_status arb_report_add_custom(struct arb_store *st, int64_t run, cJSON *report,
                                      const struct arb_grader *g, struct arb_err *err)
{
    cJSON *cu = cJSON_AddObjectToObject(report, "custom"), *argv = NULL, *sys;
    struct gctx c = {st, run, g, NULL, NULL, NULL, NULL, ARB_OK, err};
    enum arb_status rs;

    if (cu && (argv = shown_argv(g)) && !cJSON_AddItemToObject(cu, "grader", argv)) {
        cJSON_Delete(argv);
        argv = NULL;
    }
    c.shown = argv;
    c.cases = argv && cJSON_AddNumberToObject(cu, "timeout_s", g->timeout_s)
                  ? cJSON_AddArrayToObject(cu, "cases")
                  : NULL;
    sys = c.cases ? cJSON_AddArrayToObject(cu, "systems") : NULL;
    if (!sys)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    rs = arb_store_cases(st, run, on_case, &c, err);
    if (!rs)
        rs = c.rc;
    if (!rs && summarize(c.cases, cJSON_GetObjectItemCaseSensitive(report, "systems"), sys))
        rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    return rs;
}

enum arb_status arb_report_add_hybrid(cJSON *report, double custom_weight, struct arb_err *err)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(report, "weighted"), *x;
    const cJSON *cs = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(report, "custom"), "systems");
    cJSON *h = cJSON_AddObjectToObject(report, "hybrid"), *arr;

    arr = h && cJSON_AddNumberToObject(h, "weighted_weight", 1 - custom_weight) &&
                  cJSON_AddNumberToObject(h, "custom_weight", custom_weight)
              ? cJSON_AddArrayToObject(h, "systems")
              : NULL;
    if (!arr)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    cJSON_ArrayForEach(x, w)
    {
        const char *name = cJSON_GetObjectItemCaseSensitive(x, "system")->valuestring;
        double ws = cJSON_GetObjectItemCaseSensitive(x, "score")->valuedouble, gs = NAN;
        const cJSON *y;
        cJSON *o = cJSON_CreateObject();

        cJSON_ArrayForEach(y, cs)
        {
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(y, "mean_score");

            if (strcmp(cJSON_GetObjectItemCaseSensitive(y, "system")->valuestring, name) == 0 &&
                cJSON_IsNumber(m))
                gs = m->valuedouble;
        }
        /* A system the grader never ranked has no custom part: its score is null, not a
         * weighted score passed off as a hybrid one. */
        if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddStringToObject(o, "system", name) ||
            !cJSON_AddNumberToObject(o, "weighted", ws) ||
            !cJSON_AddItemToObject(o, "custom",
                                   isnan(gs) ? cJSON_CreateNull() : cJSON_CreateNumber(gs)) ||
            !cJSON_AddItemToObject(
                o, "score",
                isnan(gs) ? cJSON_CreateNull()
                          : cJSON_CreateNumber(ws * (1 - custom_weight) + gs * custom_weight)))
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    return ARB_OK;
}
