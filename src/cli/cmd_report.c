/*
 * cmd_report.c - `arbiter report`: a run's report from the database.
 */
#include <errno.h>
#include <string.h>

#include "arbiter/report.h"
#include "arbiter/store.h"
#include "cli.h"

static const char usage_text[] =
    "usage: arbiter report RUN [--db FILE] [--format md|json] [-o FILE]\n"
    "\n"
    "The report of a run (RUN is an id or 'latest'), computed from the database only:\n"
    "per system wins, losses, ties and win rate (ties count half; also without ties),\n"
    "expectation pass rates overall and per expectation, mean rubric scores, and the\n"
    "counts of decided, pending-judge and missing-output cases.\n"
    "\n"
    "  --format md|json  markdown (default) or one JSON object\n"
    "  -o FILE           write to FILE instead of standard output\n";

static int report_cmd(int argc, char **argv)
{
    const char *db = "arbiter.db", *run_spec = NULL, *format = "md", *out_path = NULL;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    struct arb_buf out;
    cJSON *report = NULL;
    int64_t run = 0;
    int a, code = EXIT_PASS;
    enum arb_status rs;

    for (a = 1; a < argc; a++) {
        const char *o = argv[a];

        if (cli_is_help(o)) {
            fputs(usage_text, stdout);
            return EXIT_PASS;
        } else if (strcmp(o, "--db") == 0 && a + 1 < argc) {
            db = argv[++a];
        } else if (strcmp(o, "--format") == 0 && a + 1 < argc) {
            format = argv[++a];
        } else if (strcmp(o, "-o") == 0 && a + 1 < argc) {
            out_path = argv[++a];
        } else if (o[0] == '-') {
            cli_error("report", "unknown or incomplete option '%s' (see 'arbiter report --help')",
                      o);
            return EXIT_USAGE;
        } else if (!run_spec) {
            run_spec = o;
        } else {
            cli_error("report", "unexpected argument '%s'", o);
            return EXIT_USAGE;
        }
    }
    if (!run_spec) {
        cli_error("report", "missing RUN (an id or 'latest'; see 'arbiter runs')");
        return EXIT_USAGE;
    }
    if (strcmp(format, "md") != 0 && strcmp(format, "json") != 0) {
        cli_error("report", "--format: expected md or json, got '%s'", format);
        return EXIT_USAGE;
    }
    rs = cli_open_for_reading("report", db, &st);
    if (rs)
        return cli_exit_for(rs);
    arb_buf_init(&out, 0);
    if (!rs)
        rs = arb_store_run_resolve(st, run_spec, &run, &err);
    if (!rs)
        rs = arb_report_build(st, run, &report, &err);
    if (!rs && format[0] == 'm') {
        rs = arb_report_markdown(report, &out);
    } else if (!rs) {
        char *s = cJSON_Print(report);

        rs = s ? arb_buf_adds(&out, s) : ARB_ENOMEM;
        if (!rs)
            rs = arb_buf_addc(&out, '\n');
        cJSON_free(s);
    }
    if (rs) {
        cli_error("report", "%s", err.msg[0] ? err.msg : arb_strerror(rs));
        code = cli_exit_for(rs);
    } else {
        FILE *f = out_path ? fopen(out_path, "wb") : stdout;

        if (!f || fwrite(out.ptr, 1, out.len, f) != out.len || (f != stdout && fclose(f))) {
            cli_error("report", "cannot write '%s': %s", out_path ? out_path : "standard output",
                      strerror(errno));
            code = EXIT_ENV;
        }
    }
    cJSON_Delete(report);
    arb_buf_release(&out);
    arb_store_close(st);
    return code;
}

const struct arb_cmd arb_cmd_report = {
    .name = "report",
    .summary = "a run's report: markdown or JSON",
    .usage = usage_text,
    .run = report_cmd,
};
