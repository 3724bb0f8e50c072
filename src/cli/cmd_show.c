/*
 * cmd_show.c - `arbiter show`: one case of a run: outputs, every check
 * record, the verdicts.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/store.h"
#include "cli.h"

static const char usage_text[] =
    "usage: arbiter show RUN CASE [--db FILE] [--json]\n"
    "\n"
    "One case of a run (RUN is an id or 'latest'): both outputs, every check record\n"
    "with its verdict, and each pair's verdict with its reasoning.  --json prints one\n"
    "object with the full records.\n";

struct show {
    int json;
    cJSON *doc; /* --json: the object being built */
    int n;
    int trials_shown;
};

static int on_output(void *ctx, const struct arb_output_row *o)
{
    struct show *sh = ctx;

    sh->n++;
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

    sh->n++;
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

static int on_check(void *ctx, const struct arb_check_row *c)
{
    struct show *sh = ctx;

    sh->n++;
    if (sh->json) {
        cJSON *x = cJSON_CreateObject();

        cJSON_AddItemToArray(cJSON_GetObjectItem(sh->doc, "checks"), x);
        cJSON_AddStringToObject(x, "system", c->system);
        cJSON_AddStringToObject(x, "kind", c->kind);
        cJSON_AddStringToObject(x, "item", c->item);
        cJSON_AddItemToObject(x, "record", cJSON_Parse(c->record_json));
        return 0;
    }
    printf("%-12s %-11s %-22s %-10s score %.3g\n    %s\n", c->system, c->kind, c->item, c->verdict,
           c->score, c->record_json);
    return 0;
}

static int on_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct show *sh = ctx;

    sh->n++;
    if (sh->json) {
        cJSON *x = cJSON_CreateObject();

        cJSON_AddItemToArray(cJSON_GetObjectItem(sh->doc, "verdicts"), x);
        cJSON_AddStringToObject(x, "A", v->system_a);
        cJSON_AddStringToObject(x, "B", v->system_b);
        cJSON_AddStringToObject(x, "status", v->status);
        if (v->winner)
            cJSON_AddStringToObject(x, "winner", v->winner);
        else
            cJSON_AddNullToObject(x, "winner");
        cJSON_AddItemToObject(x, "comparison", cJSON_Parse(v->comparison_json));
        return 0;
    }
    printf("--- verdict: A = %s, B = %s: %s, winner %s\n    %s\n", v->system_a, v->system_b,
           v->status, v->winner ? v->winner : "(none)", v->comparison_json);
    return 0;
}

static int show_cmd(int argc, char **argv)
{
    const char *db = "arbiter.db", *run_spec = NULL, *case_id = NULL;
    struct show sh = {0, NULL, 0, 0};
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    int64_t run = 0;
    int a, code = EXIT_PASS;
    enum arb_status rs;

    for (a = 1; a < argc; a++) {
        if (cli_is_help(argv[a])) {
            fputs(usage_text, stdout);
            return EXIT_PASS;
        } else if (strcmp(argv[a], "--db") == 0 && a + 1 < argc) {
            db = argv[++a];
        } else if (strcmp(argv[a], "--json") == 0) {
            sh.json = 1;
        } else if (argv[a][0] == '-' && argv[a][1] == '-') {
            cli_error("show", "unknown or incomplete option '%s'", argv[a]);
            return EXIT_USAGE;
        } else if (!run_spec) {
            run_spec = argv[a];
        } else if (!case_id) {
            case_id = argv[a];
        } else {
            cli_error("show", "unexpected argument '%s'", argv[a]);
            return EXIT_USAGE;
        }
    }
    if (!case_id) {
        cli_error("show", "usage: arbiter show RUN CASE (see 'arbiter show --help')");
        return EXIT_USAGE;
    }
    if (sh.json) {
        sh.doc = cJSON_CreateObject();
        if (!sh.doc || !cJSON_AddStringToObject(sh.doc, "case", case_id) ||
            !cJSON_AddArrayToObject(sh.doc, "outputs") ||
            !cJSON_AddArrayToObject(sh.doc, "checks") ||
            !cJSON_AddArrayToObject(sh.doc, "trials") ||
            !cJSON_AddArrayToObject(sh.doc, "verdicts")) {
            cJSON_Delete(sh.doc);
            return EXIT_ENV;
        }
    } else {
        printf("case %s\n", case_id);
    }
    rs = cli_open_for_reading("show", db, &st);
    if (rs) {
        cJSON_Delete(sh.doc);
        return cli_exit_for(rs);
    }
    if (!rs)
        rs = arb_store_run_resolve(st, run_spec, &run, &err);
    if (!rs)
        rs = arb_store_outputs(st, run, case_id, on_output, &sh, &err);
    if (!rs && !sh.json)
        printf("--- checks\n");
    if (!rs)
        rs = arb_store_checks(st, run, case_id, on_check, &sh, &err);
    if (!rs)
        rs = arb_store_trials(st, run, case_id, on_trial, &sh, &err);
    if (!rs)
        rs = arb_store_verdicts(st, run, case_id, on_verdict, &sh, &err);
    if (!rs && sh.n == 0) {
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
    arb_store_close(st);
    return code;
}

const struct arb_cmd arb_cmd_show = {
    .name = "show",
    .summary = "one case of a run: outputs, check records, verdicts",
    .usage = usage_text,
    .run = show_cmd,
};
