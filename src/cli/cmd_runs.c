/*
 * cmd_runs.c - `arbiter runs`: the runs in a database, newest first.
 */
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/store.h"
#include "cli.h"

static const char usage_text[] = "usage: arbiter runs [--db FILE] [--json]\n"
                                 "\n"
                                 "List the runs in a database (default ./arbiter.db), newest "
                                 "first:\n"
                                 "id, when it started, status, cases, suite.\n";

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
        s = cJSON_PrintUnformatted(o);
        if (s)
            puts(s);
        cJSON_free(s);
        cJSON_Delete(o);
        return 0;
    }
    printf("%6lld  %-20s  %-9s  %6lld cases  %s\n", (long long)r->id,
           r->created_at ? r->created_at : "", r->status ? r->status : "", (long long)r->n_cases,
           r->suite_name ? r->suite_name : "");
    return 0;
}

static int runs_cmd(int argc, char **argv)
{
    const char *db = "arbiter.db";
    int json = 0, a;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    enum arb_status rs;

    for (a = 1; a < argc; a++) {
        if (cli_is_help(argv[a])) {
            fputs(usage_text, stdout);
            return EXIT_PASS;
        } else if (strcmp(argv[a], "--db") == 0 && a + 1 < argc) {
            db = argv[++a];
        } else if (strcmp(argv[a], "--json") == 0) {
            json = 1;
        } else {
            cli_error("runs", "unexpected argument '%s' (see 'arbiter runs --help')", argv[a]);
            return EXIT_USAGE;
        }
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
