/*
 * cmd_show.c - `arbiter show`: one case of a run, whole: what it asked (the
 * suite's task, the case's prompt), the outputs, every check record, the
 * judge's answers in each order, and each pair's verdict with what the judge
 * said in each order put together (case_view.h: who was shown first, each
 * order's winner, position inconsistency).  Nothing is printed before the
 * case is found, so an unknown case is one error line.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/case_view.h"
#include "arbiter/store.h"
#include "cli.h"
#include "parse_options.h"
#include "show_verdict.h"

static const char usage_text[] =
    "usage: arbiter show RUN CASE [--db FILE] [--records | --json]\n"
    "\n"
    "One case of a run (RUN is an id or 'latest'): the suite's task and the case's\n"
    "prompt, both outputs, every check with its verdict, score and notes, the judge's\n"
    "answer in each order it was asked (blind: it saw Response A, the output shown\n"
    "first, and Response B: its winner, reasoning, scores and expectations), and each\n"
    "pair's verdict: what the judge said in each order (who was shown first, the winner),\n"
    "whether the orders disagreed (position-inconsistent: then each order's reasoning),\n"
    "the sample agreement, the policy that decided, the scores and the reasoning.  Under\n"
    "a verdict the judge failed or refused, each judgment left without a valid answer:\n"
    "its order, sample and last attempt, and why (the error of that attempt).\n"
    "\n"
    "  --db FILE  the database (default ./" CLI_DEFAULT_DB ")\n"
    "  --records  print every record in full as well (check records, the judge's answers,\n"
    "             comparison.json)\n"
    "  --json     one object with the full records; \"task\" ({\"suite\", \"prompt\"}),\n"
    "             \"judge_failures\": each judgment left without a valid answer (A, B,\n"
    "             order, sample, attempt from 0, reason), and under each verdict its\n"
    "             \"reasoning\" and \"judge\": {\"orders\": [{\"ord\", \"shown_first\",\n"
    "             \"shown_second\", \"sample\", \"winner\", \"winner_as_shown\", \"reasoning\",\n"
    "             \"criteria\", \"expectations\", \"error\"...}], \"position_inconsistent\",\n"
    "             \"sample_agreement\", \"winner\"} (null when the pair was not judged)\n"
    "\n"
    "A CASE id that starts with '-' goes after '--': arbiter show 3 -- -x\n";

struct show {
    int json;
    int records; /* text: the full records too */
    cJSON *doc;  /* --json: the object being built */
    const char *case_id;
    int n;
    int checks_shown, trials_shown, judgments_shown;
    int oom;         /* a judgment or a failure could not be added */
    cJSON *failures; /* the judge's failed slots of the case ("judge_failures" of --json) */
    struct arb_store *st;
    int64_t run;
    char *task;              /* the suite's task (a copy), or NULL */
    enum arb_status view_rs; /* a verdict's judge view could not be read */
    struct arb_err *err;
};

/* The text form's first line, printed with the case's first row. */
static void begin(struct show *sh)
{
    if (!sh->n++ && !sh->json)
        printf("case %s\n", sh->case_id);
}

static int add_string_or_null(cJSON *o, const char *key, const char *s)
{
    return (s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key)) != NULL;
}

/* "--- HEADER" and text whole, ending in a newline; nothing when there is no text. */
static void print_block(const char *header, const char *text)
{
    size_t n = text ? strlen(text) : 0;

    if (!text)
        return;
    printf("%s\n%s%s", header, text, n && text[n - 1] == '\n' ? "" : "\n");
}

/* Keep a copy of the suite's task, for the case's first lines. */
static int on_task(void *ctx, const char *task)
{
    struct show *sh = ctx;

    if (task && !(sh->task = strdup(task)))
        sh->oom = 1;
    return 0;
}

/* What the case asked: the suite's task and the case's own prompt. */
static int on_prompt(void *ctx, const char *prompt)
{
    struct show *sh = ctx;
    cJSON *t;

    begin(sh);
    if (!sh->json) {
        print_block("--- task (the suite's)", sh->task);
        print_block("--- prompt (the case's)", prompt);
        return 0;
    }
    t = cJSON_CreateObject();
    if (!t || !add_string_or_null(t, "suite", sh->task) ||
        !add_string_or_null(t, "prompt", prompt) ||
        !cJSON_ReplaceItemInObjectCaseSensitive(sh->doc, "task", t)) {
        cJSON_Delete(t);
        sh->oom = 1;
        return 1;
    }
    return 0;
}

static int on_output(void *ctx, const struct arb_output_row *o)
{
    struct show *sh = ctx;

    begin(sh);
    if (sh->json) {
        cJSON *x = cJSON_CreateObject();

        cJSON_AddItemToArray(cJSON_GetObjectItem(sh->doc, "outputs"), x);
        cJSON_AddStringToObject(x, "system", o->system);
        cJSON_AddNumberToObject(x, "trial", (double)o->trial);
        cJSON_AddStringToObject(x, "file", o->file ? o->file : "");
        if (o->binary || !o->content)
            cJSON_AddNullToObject(x, "content");
        else
            cJSON_AddStringToObject(x, "content", o->content);
        cJSON_AddNumberToObject(x, "bytes", (double)o->len);
        cJSON_AddStringToObject(x, "sha256", o->sha256 ? o->sha256 : "");
        return 0;
    }
    printf("--- output of %s%s%s", o->system, o->file && o->file[0] ? ": " : "",
           o->file ? o->file : "");
    if (o->trial)
        printf(", trial %lld", (long long)o->trial);
    printf(" (%zu bytes)\n", o->len);
    if (o->binary || !o->content)
        printf("(binary, sha256 %s)\n", o->sha256 ? o->sha256 : "");
    else
        printf("%s%s", o->content, o->len && o->content[o->len - 1] == '\n' ? "" : "\n");
    return 0;
}

static int on_trial(void *ctx, const struct arb_trial_row *t)
{
    struct show *sh = ctx;
    const char *verdict = t->passed < 0 ? "unresolved" : t->passed ? "passed" : "failed";

    begin(sh);
    if (sh->json) {
        cJSON *x = cJSON_CreateObject();

        cJSON_AddItemToArray(cJSON_GetObjectItem(sh->doc, "trials"), x);
        cJSON_AddStringToObject(x, "system", t->system);
        cJSON_AddNumberToObject(x, "trial", (double)t->trial);
        cJSON_AddStringToObject(x, "verdict", verdict);
        cJSON_AddItemToObject(x, "records", cJSON_Parse(t->records_json ? t->records_json : "[]"));
        return 0;
    }
    if (!sh->trials_shown++)
        printf("--- trials (expectations checked on every trial)\n");
    printf("%s trial %lld: %s (%lld passed, %lld failed, %lld unresolved)\n", t->system,
           (long long)t->trial, verdict, (long long)t->n_pass, (long long)t->n_fail,
           (long long)t->n_unresolved);
    return 0;
}

/* "    notes: a; b" from a record's notes, when it has any. */
static void print_notes(const char *record_json)
{
    cJSON *rec = cJSON_Parse(record_json);
    const cJSON *n;
    int first = 1;

    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(rec, "notes"))
    {
        if (!cJSON_IsString(n))
            continue;
        printf("%s%s", first ? "    notes: " : "; ", n->valuestring);
        first = 0;
    }
    if (!first)
        putchar('\n');
    cJSON_Delete(rec);
}

static void print_text(const char *label, const char *text)
{
    cli_show_text(label, text, 400);
}

/* The judge's per-item answers: "    scores: correctness A 4, B 2; ..." and expectations. */
static void print_items(const cJSON *ans, const char *a, const char *b)
{
    const cJSON *it;
    int first = 1;

    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ans, "criteria"))
    {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(it, "A");
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(it, "B");

        printf("%s%s %s %g, %s %g", first ? "    scores (1-5): " : "; ", it->string, a,
               cJSON_IsNumber(x) ? x->valuedouble : 0, b, cJSON_IsNumber(y) ? y->valuedouble : 0);
        first = 0;
    }
    if (!first)
        putchar('\n');
    first = 1;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(ans, "expectations"))
    {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(it, "A");
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(it, "B");

        printf("%s%s %s %s, %s %s", first ? "    expectations: " : "; ", it->string, a,
               cJSON_IsTrue(x) ? "pass" : "fail", b, cJSON_IsTrue(y) ? "pass" : "fail");
        first = 0;
    }
    if (!first)
        putchar('\n');
}

static int on_check(void *ctx, const struct arb_check_row *c)
{
    struct show *sh = ctx;

    begin(sh);
    if (sh->json) {
        cJSON *x = cJSON_CreateObject();

        cJSON_AddItemToArray(cJSON_GetObjectItem(sh->doc, "checks"), x);
        cJSON_AddStringToObject(x, "system", c->system);
        cJSON_AddStringToObject(x, "kind", c->kind);
        cJSON_AddStringToObject(x, "item", c->item);
        cJSON_AddItemToObject(x, "record", cJSON_Parse(c->record_json));
        return 0;
    }
    if (!sh->checks_shown++)
        printf("--- checks\n");
    printf("%-12s %-11s %-22s %-10s score %.3g\n", c->system, c->kind, c->item, c->verdict,
           c->score);
    if (sh->records)
        printf("    %s\n", c->record_json);
    else
        print_notes(c->record_json);
    return 0;
}

/* Which system the judge saw as Response A and as Response B in j's order. */
static void shown_as(const struct arb_judgment_row *j, const char **a, const char **b)
{
    int swapped = strcmp(j->ord, "BA") == 0 && j->system_b[0];

    *a = swapped ? j->system_b : j->system_a;
    *b = swapped ? j->system_a : j->system_b;
}

/* ", winner A = NAME" from the answer's "winner" ("A", "B" or "TIE"), when it has one. */
static void print_winner(const char *answer_json, const char *a, const char *b)
{
    cJSON *ans = answer_json ? cJSON_Parse(answer_json) : NULL;
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(ans, "winner");

    if (cJSON_IsString(w) && !strcmp(w->valuestring, "A"))
        printf(", winner A = %s", a);
    else if (cJSON_IsString(w) && !strcmp(w->valuestring, "B"))
        printf(", winner B = %s", b);
    else if (cJSON_IsString(w))
        printf(", winner %s", w->valuestring);
    cJSON_Delete(ans);
}

static int on_judgment(void *ctx, const struct arb_judgment_row *j)
{
    struct show *sh = ctx;
    const char *a, *b;
    size_t len;

    begin(sh);
    shown_as(j, &a, &b);
    if (sh->json) {
        cJSON *x = cJSON_CreateObject();
        cJSON *answer = j->answer_json ? cJSON_Parse(j->answer_json) : cJSON_CreateNull();

        if (!answer && j->answer_json) /* a reply that is not JSON is shown as its text */
            answer = cJSON_CreateString(j->answer_json);

        if (!x || !answer || !cJSON_AddStringToObject(x, "order", j->ord) ||
            !cJSON_AddStringToObject(x, "response_a", a) ||
            !cJSON_AddStringToObject(x, "response_b", b) ||
            !cJSON_AddNumberToObject(x, "sample", j->sample) ||
            !cJSON_AddNumberToObject(x, "attempt", j->attempt) ||
            !cJSON_AddBoolToObject(x, "valid", j->valid) ||
            !cJSON_AddBoolToObject(x, "cached", j->cached) ||
            (j->error && !cJSON_AddStringToObject(x, "error", j->error)) ||
            !cJSON_AddItemToObject(x, "answer", answer)) {
            if (!cJSON_GetObjectItemCaseSensitive(x, "answer"))
                cJSON_Delete(answer);
            cJSON_Delete(x);
            sh->oom = 1;
            return 1;
        }
        if (!cJSON_AddItemToArray(cJSON_GetObjectItem(sh->doc, "judgments"), x)) {
            cJSON_Delete(x);
            sh->oom = 1;
            return 1;
        }
        return 0;
    }
    if (!sh->judgments_shown++)
        printf("--- judge (blind: it saw Response A, shown first, and Response B, in each "
               "order)\n");
    if (strncmp(b, "llm_judge:", 10) == 0) /* an llm_judge check's own question (one output) */
        printf("%s, the output of %s, sample %d%s: %s%s%s%s", b, a, j->sample + 1,
               j->attempt ? " (asked again)" : "", j->valid ? "valid" : "invalid",
               j->cached ? ", from the cache" : "", j->error ? ", " : "", j->error ? j->error : "");
    else
        printf("order %s: Response A = %s%s%s, sample %d%s: %s%s%s%s", j->ord, a,
               b[0] ? ", Response B = " : "", b, j->sample + 1, j->attempt ? " (asked again)" : "",
               j->valid ? "valid" : "invalid", j->cached ? ", from the cache" : "",
               j->error ? ", " : "", j->error ? j->error : "");
    print_winner(j->answer_json, a, b);
    len = j->answer_json ? strlen(j->answer_json) : 0;
    while (len && (j->answer_json[len - 1] == '\n' || j->answer_json[len - 1] == '\r'))
        len--;
    if (!len) {
        printf("\n    (no answer)\n");
    } else if (sh->records) {
        printf("\n    %.*s\n", (int)len, j->answer_json);
    } else {
        cJSON *ans = cJSON_Parse(j->answer_json);
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(ans, "reasoning");

        putchar('\n');
        if (cJSON_IsString(r))
            cli_show_text("reasoning", r->valuestring, REASONING_SHOWN);
        else if (!ans)
            print_text("answer (not JSON)", j->answer_json);
        print_items(ans, a, b);
        cJSON_Delete(ans);
    }
    return 0;
}

/* Keep a failed slot, for its pair's verdict (text) or "judge_failures" (--json). */
static int on_failure(void *ctx, const struct arb_judge_failure_row *f)
{
    struct show *sh = ctx;
    cJSON *x = cJSON_CreateObject();

    if (x && cJSON_AddStringToObject(x, "A", f->system_a) &&
        cJSON_AddStringToObject(x, "B", f->system_b) &&
        cJSON_AddStringToObject(x, "order", f->ord) &&
        cJSON_AddNumberToObject(x, "sample", f->sample) &&
        cJSON_AddNumberToObject(x, "attempt", f->attempt) &&
        cJSON_AddStringToObject(x, "reason", f->reason) && cJSON_AddItemToArray(sh->failures, x))
        return 0;
    cJSON_Delete(x);
    sh->oom = 1;
    return 1;
}

/*
 * Under a verdict, why the judge failed its pair: each slot left without a valid answer
 * (a question about one output counts for every pair with that system), with its reason.
 */
static void print_failures(const struct show *sh, const struct arb_verdict_row *v)
{
    const char *what = strcmp(v->status, "judge_refused") == 0  ? "judge refused"
                       : strcmp(v->status, "judge_failed") == 0 ? "judge failed"
                                                                : "no valid answer";
    const cJSON *f;

    cJSON_ArrayForEach(f, sh->failures)
    {
        const char *a = cJSON_GetObjectItemCaseSensitive(f, "A")->valuestring;
        const char *b = cJSON_GetObjectItemCaseSensitive(f, "B")->valuestring;
        char label[200];

        if (b[0] ? strcmp(a, v->system_a) != 0 || strcmp(b, v->system_b) != 0
                 : strcmp(a, v->system_a) != 0 && strcmp(a, v->system_b) != 0)
            continue;
        snprintf(label, sizeof(label), "%s%s%s, order %s, sample %.0f, attempt %.0f", what,
                 b[0] ? "" : " about ", b[0] ? "" : a,
                 cJSON_GetObjectItemCaseSensitive(f, "order")->valuestring,
                 cJSON_GetObjectItemCaseSensitive(f, "sample")->valuedouble + 1,
                 cJSON_GetObjectItemCaseSensitive(f, "attempt")->valuedouble + 1);
        cli_show_text(label, cJSON_GetObjectItemCaseSensitive(f, "reason")->valuestring, 4000);
    }
}

/* --json: a verdict with its comparison, its reasoning and the judge's view (taken over). */
static int verdict_json(struct show *sh, const struct arb_verdict_row *v, cJSON *cmp, cJSON *view)
{
    cJSON *x = cJSON_CreateObject();
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(cmp, "reasoning");
    int ok = x && cJSON_AddStringToObject(x, "A", v->system_a) &&
             cJSON_AddStringToObject(x, "B", v->system_b) &&
             cJSON_AddStringToObject(x, "status", v->status) &&
             add_string_or_null(x, "winner", v->winner) &&
             add_string_or_null(x, "reasoning", cJSON_IsString(r) ? r->valuestring : NULL);

    /* An unreadable comparison is left out, as it always was. */
    if (ok && cmp)
        ok = cJSON_AddItemToObject(x, "comparison", cJSON_Duplicate(cmp, 1)) != 0;
    if (ok)
        ok = view ? cJSON_AddItemToObject(x, "judge", view) != 0
                  : cJSON_AddNullToObject(x, "judge") != NULL;
    if (ok)
        view = NULL;
    if (ok)
        ok = cJSON_AddItemToArray(cJSON_GetObjectItem(sh->doc, "verdicts"), x) != 0;
    if (!ok) {
        cJSON_Delete(x);
        cJSON_Delete(view);
        sh->oom = 1;
        return 1;
    }
    return 0;
}

static int on_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct show *sh = ctx;
    cJSON *view = NULL, *cmp;
    enum arb_status rs;

    begin(sh);
    rs = arb_case_judge_read(sh->st, sh->run, v, &view, sh->err);
    if (rs) {
        sh->view_rs = rs;
        return 1;
    }
    cmp = v->comparison_json ? cJSON_Parse(v->comparison_json) : NULL;
    if (sh->json) {
        int stop = verdict_json(sh, v, cmp, view);

        cJSON_Delete(cmp);
        return stop;
    }
    printf("--- verdict: A = %s, B = %s: %s, winner %s\n", v->system_a, v->system_b, v->status,
           v->winner ? v->winner : "(none)");
    print_failures(sh, v);
    cli_show_judge_view(view);
    cli_show_policy(cmp);
    if (sh->records) {
        printf("    %s\n", v->comparison_json ? v->comparison_json : "");
    } else {
        if (!isnan(v->score_a) || !isnan(v->score_b))
            printf("    overall score (2-10): %s %.3g, %s %.3g\n", v->system_a, v->score_a,
                   v->system_b, v->score_b);
        if (!isnan(v->pass_rate_a) || !isnan(v->pass_rate_b))
            printf("    expectation pass rate: %s %.3g, %s %.3g\n", v->system_a, v->pass_rate_a,
                   v->system_b, v->pass_rate_b);
        cli_show_reasoning(cmp, view);
    }
    cJSON_Delete(cmp);
    cJSON_Delete(view);
    return 0;
}

static int show_cmd(int argc, char **argv)
{
    const char *db = CLI_DEFAULT_DB, *run_spec, *case_id;
    struct show sh = {0};
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    int64_t run = 0;
    int n_pos, code = EXIT_PASS;
    enum arb_status rs;
    const struct cli_option options[] = {
        CLI_OPT_DB(&db),
        CLI_OPT_BOOL("--json", &sh.json),
        CLI_OPT_BOOL("--records", &sh.records),
        CLI_OPT_END(),
    };

    code = cli_parse_options("show", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    code = EXIT_PASS;
    if (n_pos > 2) {
        cli_error("show", "unexpected argument '%s'", argv[2]);
        return EXIT_USAGE;
    }
    if (n_pos < 2) {
        cli_error("show", "usage: arbiter show RUN CASE (see 'arbiter show --help')");
        return EXIT_USAGE;
    }
    run_spec = argv[0];
    case_id = argv[1];
    if (sh.json) {
        sh.doc = cJSON_CreateObject();
        if (!sh.doc || !cJSON_AddStringToObject(sh.doc, "case", case_id) ||
            !cJSON_AddNullToObject(sh.doc, "task") || !cJSON_AddArrayToObject(sh.doc, "outputs") ||
            !cJSON_AddArrayToObject(sh.doc, "checks") ||
            !cJSON_AddArrayToObject(sh.doc, "trials") ||
            !cJSON_AddArrayToObject(sh.doc, "judgments") ||
            !(sh.failures = cJSON_AddArrayToObject(sh.doc, "judge_failures")) ||
            !cJSON_AddArrayToObject(sh.doc, "verdicts")) {
            cJSON_Delete(sh.doc);
            return EXIT_ENV;
        }
    } else if (!(sh.failures = cJSON_CreateArray())) {
        return EXIT_ENV;
    }
    sh.case_id = case_id;
    sh.err = &err;
    rs = cli_open_for_reading("show", db, &st);
    if (rs) {
        cJSON_Delete(sh.doc);
        if (!sh.json)
            cJSON_Delete(sh.failures);
        return cli_exit_for(rs);
    }
    sh.st = st;
    if (!rs)
        rs = arb_store_run_resolve(st, run_spec, &run, &err);
    sh.run = run;
    if (!rs)
        rs = arb_store_run_task(st, run, on_task, &sh, &err);
    if (!rs && !sh.oom)
        rs = arb_store_case_prompt(st, run, case_id, on_prompt, &sh, &err);
    if (!rs && !sh.oom)
        rs = arb_store_outputs(st, run, case_id, on_output, &sh, &err);
    if (!rs)
        rs = arb_store_checks(st, run, case_id, on_check, &sh, &err);
    if (!rs)
        rs = arb_store_trials(st, run, case_id, on_trial, &sh, &err);
    if (!rs)
        rs = arb_store_judgments(st, run, case_id, on_judgment, &sh, &err);
    if (!rs && !sh.oom)
        rs = arb_store_judge_failures(st, run, case_id, on_failure, &sh, &err);
    if (!rs && !sh.oom)
        rs = arb_store_verdicts(st, run, case_id, on_verdict, &sh, &err);
    if (!rs)
        rs = sh.view_rs;
    if (!rs && sh.oom) {
        cli_error("show", "out of memory");
        code = EXIT_ENV;
    } else if (!rs && sh.n == 0) {
        cli_error("show", "run %lld has no case '%s'", (long long)run, case_id);
        code = EXIT_USAGE;
    } else if (rs) {
        cli_error("show", "%s", err.msg);
        code = cli_exit_for(rs);
    } else if (sh.json) {
        char *s = cJSON_Print(sh.doc);

        if (s)
            puts(s);
        cJSON_free(s);
    }
    cJSON_Delete(sh.doc);
    if (!sh.json)
        cJSON_Delete(sh.failures);
    free(sh.task);
    arb_store_close(st);
    return code;
}

const struct arb_cmd arb_cmd_show = {
    .name = "show",
    .summary = "one case of a run: outputs, check records, verdicts",
    .usage = usage_text,
    .run = show_cmd,
};
