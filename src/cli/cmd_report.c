/*
 * cmd_report.c - `arbiter report`: a run's report from the database, as
 * markdown, JSON or one self-contained HTML page, with optional statistics
 * and CI gates.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "arbiter/store.h"
#include "cli.h"
#include "gates.h"

#define CASES_IN_HTML     2000
#define CASES_IN_MARKDOWN 20 /* the worst cases by expectation pass rate */

static const char usage_text[] =
    "usage: arbiter report RUN [--db FILE] [--format md|json|html] [-o FILE]\n"
    "                      [--strategy statistical|weighted] [--fail-under METRIC=VALUE]...\n"
    "                      [--require-significant] [--candidate NAME] [--against RUN2]\n"
    "                      [--baseline NAME]\n"
    "\n"
    "The report of a run (RUN is an id or 'latest'), computed from the database only:\n"
    "per system wins, losses, ties and win rate (ties count half; also without ties),\n"
    "expectation pass rates overall, per expectation and per case (markdown: the 20\n"
    "worst cases; JSON: every case), pass@k and pass^k when outputs have trials, mean\n"
    "rubric scores, the counts of decided, pending-judge, judge-failed and missing-output\n"
    "cases, and the judge's health (escalation, cache, tokens, position consistency,\n"
    "first-position and length bias).\n"
    "\n"
    "  --format md|json|html    markdown (default), one JSON object (schemas/\n"
    "                           report.schema.json), or one self-contained HTML page\n"
    "  -o FILE                  write to FILE instead of standard output\n"
    "  --strategy statistical   95% percentile bootstrap intervals (1000 resamples,\n"
    "                           COMPARE_BOOTSTRAP_ITERATIONS overrides; seeded by the run, so\n"
    "                           the report is reproducible), exact sign test and paired\n"
    "                           bootstrap per pair, McNemar per expectation, Bradley-Terry\n"
    "                           ratings for three or more systems\n"
    "  --strategy weighted      quality x 0.5 + latency x 0.3 + reliability x 0.2 per system\n"
    "                           (COMPARE_QUALITY, COMPARE_LATENCY, COMPARE_RELIABILITY\n"
    "                           override): quality from the overall rubric score, latency\n"
    "                           from the outputs' durations, reliability from tool errors\n"
    "  --fail-under win_rate=X  exit 1 when the candidate's win rate is below X\n"
    "  --fail-under pass_rate=X exit 1 when its expectation pass rate is below X\n"
    "  --require-significant    exit 1 unless it is significantly better (sign test and\n"
    "                           paired bootstrap, p < 0.05) than every other system\n"
    "  --candidate NAME         the system the gates judge (default: the second system)\n"
    "  --baseline NAME          paired tests (and --require-significant) only against NAME:\n"
    "                           each system against the baseline rather than every pair\n"
    "  --against RUN2           which verdicts changed from RUN2 to RUN (by case and pair):\n"
    "                           counts, transitions such as 'baseline -> TIE', the cases;\n"
    "                           e.g. a run against its re-judging (arbiter replay --rejudge)\n"
    "\n"
    "exit: 0 written (gates passed), 1 a gate missed (one line each on stderr), 2 usage\n"
    "error, 4 database failure\n";

static size_t resamples_from_env(void)
{
    const char *v = getenv("COMPARE_BOOTSTRAP_ITERATIONS");
    char *end;
    unsigned long n;

    if (!v || !*v)
        return 1000;
    n = strtoul(v, &end, 10);
    if (*end || n < 1 || n > 1000000) {
        cli_error("report",
                  "COMPARE_BOOTSTRAP_ITERATIONS: expected 1 to 1000000, got '%s'; "
                  "using 1000",
                  v);
        return 1000;
    }
    return (size_t)n;
}

/* COMPARE_QUALITY, COMPARE_LATENCY, COMPARE_RELIABILITY (defaults 0.5, 0.3, 0.2). */
static int weights_from_env(double w[3])
{
    static const char *const names[] = {"COMPARE_QUALITY", "COMPARE_LATENCY",
                                        "COMPARE_RELIABILITY"};
    static const double defaults[] = {0.5, 0.3, 0.2};
    size_t i;

    for (i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        char *end;

        w[i] = defaults[i];
        if (!v || !*v)
            continue;
        w[i] = strtod(v, &end);
        if (*end || !(w[i] >= 0 && w[i] <= 1)) {
            cli_error("report", "%s: expected a weight from 0 to 1, got '%s'", names[i], v);
            return -1;
        }
    }
    return 0;
}

static int run_seed(void *ctx, const struct arb_run_row *r)
{
    *(uint64_t *)ctx = r->seed;
    return 1;
}

static int has_system(const cJSON *report, const char *name)
{
    const cJSON *s;

    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "systems"))
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "name");

        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
            return 1;
    }
    return 0;
}

static int report_cmd(int argc, char **argv)
{
    const char *db = "arbiter.db", *run_spec = NULL, *format = "md", *out_path = NULL;
    const char *strategy = NULL, *against_spec = NULL, *baseline = NULL;
    struct cli_gates gates;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    struct arb_buf out;
    cJSON *report = NULL;
    int64_t run = 0, against = 0;
    struct arb_report_opts ro = {0, 0, NULL};
    int a, code = EXIT_PASS, missed = 0, want_stats;
    enum arb_status rs;

    memset(&gates, 0, sizeof(gates));
    for (a = 1; a < argc; a++) {
        const char *o = argv[a];
        int has_arg = a + 1 < argc;

        if (cli_is_help(o)) {
            fputs(usage_text, stdout);
            return EXIT_PASS;
        } else if (strcmp(o, "--db") == 0 && has_arg) {
            db = argv[++a];
        } else if (strcmp(o, "--format") == 0 && has_arg) {
            format = argv[++a];
        } else if (strcmp(o, "-o") == 0 && has_arg) {
            out_path = argv[++a];
        } else if (strcmp(o, "--strategy") == 0 && has_arg) {
            strategy = argv[++a];
        } else if (strcmp(o, "--fail-under") == 0 && has_arg) {
            if (cli_gate_parse(&gates, argv[++a]))
                return EXIT_USAGE;
        } else if (strcmp(o, "--require-significant") == 0) {
            gates.require_significant = 1;
        } else if (strcmp(o, "--candidate") == 0 && has_arg) {
            gates.candidate = argv[++a];
        } else if (strcmp(o, "--against") == 0 && has_arg) {
            against_spec = argv[++a];
        } else if (strcmp(o, "--baseline") == 0 && has_arg) {
            baseline = argv[++a];
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
    if (strcmp(format, "md") != 0 && strcmp(format, "json") != 0 && strcmp(format, "html") != 0) {
        cli_error("report", "--format: expected md, json or html, got '%s'", format);
        return EXIT_USAGE;
    }
    if (baseline && !(strategy && strcmp(strategy, "statistical") == 0) &&
        !gates.require_significant) {
        cli_error("report", "--baseline chooses the paired tests: add --strategy statistical or "
                            "--require-significant");
        return EXIT_USAGE;
    }
    if (strategy && strcmp(strategy, "statistical") != 0 && strcmp(strategy, "weighted") != 0) {
        cli_error("report", "--strategy: expected statistical or weighted, got '%s'", strategy);
        return EXIT_USAGE;
    }
    want_stats = (strategy && strategy[0] == 's') || gates.require_significant;
    ro.resamples = want_stats ? resamples_from_env() : 0;
    ro.baseline = baseline;
    rs = cli_open_for_reading("report", db, &st);
    if (rs)
        return cli_exit_for(rs);
    arb_buf_init(&out, 0);
    rs = arb_store_run_resolve(st, run_spec, &run, &err);
    if (!rs && want_stats)
        rs = arb_store_runs(st, run, run_seed, &ro.seed, &err);
    if (!rs) {
        struct arb_report_parts parts = {format[0] == 'j'   ? SIZE_MAX
                                         : format[0] == 'm' ? CASES_IN_MARKDOWN
                                                            : 0,
                                         1, want_stats ? &ro : NULL};

        rs = arb_report_compose(st, run, &parts, &report, &err);
    }
    /* (A baseline the run lacks only leaves the statistics without pairs: no harm done.) */
    if (!rs && baseline && !has_system(report, baseline)) {
        cli_error("report", "--baseline: '%s' is not a system of run %lld", baseline,
                  (long long)run);
        code = EXIT_USAGE;
        goto out;
    }
    if (!rs)
        rs = arb_report_add_judge_health(st, run, report, &err);
    if (!rs && strategy && strategy[0] == 'w') {
        double w[3];

        if (weights_from_env(w)) {
            code = EXIT_USAGE;
            goto out;
        }
        rs = arb_report_add_weighted(st, run, report, w, &err);
    }
    if (!rs)
        rs = arb_report_add_trials(st, run, report, want_stats ? &ro : NULL, &err);
    if (!rs && against_spec) {
        rs = arb_store_run_resolve(st, against_spec, &against, &err);
        if (!rs)
            rs = arb_report_add_against(st, run, against, report, &err);
    }
    if (!rs && format[0] == 'h')
        rs = arb_report_add_cases(st, run, report, CASES_IN_HTML, &err);
    if (!rs) {
        missed = cli_gates_apply(&gates, report);
        if (missed < 0) {
            code = EXIT_USAGE;
            goto out;
        }
    }
    if (!rs && format[0] == 'm') {
        rs = arb_report_markdown(report, &out);
    } else if (!rs && format[0] == 'h') {
        rs = arb_report_html(report, &out);
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
        } else if (missed > 0) {
            code = EXIT_NEGATIVE;
        }
    }
out:
    cJSON_Delete(report);
    arb_buf_release(&out);
    arb_store_close(st);
    return code;
}

const struct arb_cmd arb_cmd_report = {
    .name = "report",
    .summary = "a run's report: markdown, JSON or HTML, with statistics and CI gates",
    .usage = usage_text,
    .run = report_cmd,
};
