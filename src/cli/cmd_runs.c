/*
 * cmd_runs.c - `arbiter runs`: the runs in a database, newest first.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/store.h"
#include "cli.h"
#include "parse_options.h"

static const char usage_text[] =
    "usage: arbiter runs [--db FILE] [--json]\n"
    "\n"
    "List the runs in a database (default ./" CLI_DEFAULT_DB "), newest first:\n"
    "id, when it started, status, cases, suite.\n"
    "\n"
    "  --json     one JSON object a line (id, created_at, status, cases, suite, suite_path)\n";

static int print_run(void *ctx, const struct arb_run_row *r)
{
    int *json = ctx;

    if (*json) {
        cJSON *o = cJSON_CreateObject();
        char *s;

        cJSON_AddNumberToObject(o, "id", (double)r->id);
        cJSON_AddStringToObject(o, "created_at", r->created_at ? r->created_at : "");
        cJSON_AddStringToObject(o, "status", r->status ? r->status : "");
        cJSON_AddNumberToObject(o, "cases", (double)r->n_cases);
        cJSON_AddStringToObject(o, "suite", r->suite_name ? r->suite_name : "");
        cJSON_AddStringToObject(o, "suite_path", r->suite_path ? r->suite_path : "");
        cJSON_AddStringToObject(o, "kind", r->kind ? r->kind : "run");
        s = cJSON_PrintUnformatted(o);
        if (s)
            puts(s);
        cJSON_free(s);
        cJSON_Delete(o);
        return 0;
    }
    printf("%6lld  %-20s  %-9s  %6lld cases  %s%s\n", (long long)r->id,
           r->created_at ? r->created_at : "", r->status ? r->status : "", (long long)r->n_cases,
           r->suite_name ? r->suite_name : "",
           r->kind && strcmp(r->kind, "calibration") == 0 ? "  (calibration: never latest)" : "");
    return 0;
}

static int runs_cmd(int argc, char **argv)
{
    const char *db = CLI_DEFAULT_DB;
    int json = 0, n_pos, code;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    enum arb_status rs;
    const struct cli_option options[] = {
        CLI_OPT_DB(&db),
        CLI_OPT_BOOL("--json", &json),
        CLI_OPT_END(),
    };

    code = cli_parse_options("runs", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    if (n_pos) {
        cli_error("runs", "unexpected argument '%s' (see 'arbiter runs --help')", argv[0]);
        return EXIT_USAGE;
    }
    rs = cli_open_for_reading("runs", db, &st);
    if (rs)
        return cli_exit_for(rs);
    if (!rs)
        rs = arb_store_runs(st, 0, print_run, &json, &err);
    arb_store_close(st);
    if (rs) {
        cli_error("runs", "%s", err.msg);
        return cli_exit_for(rs);
    }
    return EXIT_PASS;
}

const struct arb_cmd arb_cmd_runs = {
    .name = "runs",
    .summary = "list the runs in a database",
    .usage = usage_text,
    .run = runs_cmd,
};
