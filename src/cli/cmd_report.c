/*
 * cmd_report.c - `arbiter report`: a run's report from the database, as
 * markdown, JSON or one self-contained HTML page, with optional statistics
 * and CI gates.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/judge.h"
#include "arbiter/report.h"
#include "arbiter/store.h"
#include "case_select.h"
#include "cli.h"
#include "gates.h"
#include "outfile.h"
#include "parse_options.h"

#define CASES_IN_HTML     2000
#define CASES_IN_MARKDOWN 20 /* the worst cases by expectation pass rate */

static const char usage_text[] =
    "usage: arbiter report RUN [--db FILE] [--format md|json|html|csv] [-o FILE]\n"
    "                      [--strategy statistical|weighted] [--fail-under METRIC=VALUE]...\n"
    "                      [--strategy custom|hybrid --grader CMD ...]\n"
    "                      [--require-significant] [--candidate NAME] [--against RUN2]\n"
    "                      [--baseline NAME] [--limit N] [--cases ID,ID|@FILE]\n"
    "\n"
    "The report of a run (RUN is an id or 'latest'), from the database only: per system\n"
    "wins, losses, ties and win rate (ties count half; also without ties), expectation\n"
    "pass rates (overall, per expectation, per case: markdown the 20 worst, JSON all),\n"
    "pass@k and pass^k for trials, mean rubric scores, the case counts, and the judge's\n"
    "health (escalation, cache, tokens, position consistency, first-position and length bias).\n"
    "\n"
    "  --db FILE                the database (default ./" CLI_DEFAULT_DB ")\n"
    "  --format md|json|html    markdown (default), one JSON object (schemas/\n"
    "                           report.schema.json), or one self-contained HTML page\n"
    "  --format csv             the per-case table of 'arbiter export --csv' (see its --help);\n"
    "                           the gates still apply, the report's other parts are not in it\n"
    "  -o FILE                  write to FILE instead of standard output (renamed into place\n"
    "                           when complete; never the database, the --cases file or a file\n"
    "                           the run was made of)\n"
    "  --strategy statistical   95% bootstrap intervals (1000 resamples, seeded by the run;\n"
    "                           COMPARE_BOOTSTRAP_ITERATIONS overrides), sign test and paired\n"
    "                           bootstrap per pair, McNemar per expectation, Bradley-Terry\n"
    "                           ratings for three or more systems\n"
    "  --strategy weighted      quality x 0.5 + latency x 0.3 + reliability x 0.2 per system\n"
    "                           (COMPARE_QUALITY, COMPARE_LATENCY, COMPARE_RELIABILITY\n"
    "                           override; not summing to 1: divided by their sum, notice)\n"
    "  --strategy custom        a grader program ranks each case's outputs (README.md,\n"
    "                           \"Custom graders\"); hybrid: weighted x (1 - W) + grader x W\n"
    "  --grader CMD             the grader: CMD split into words at blanks (quotes group;\n"
    "                           no shell), run once per case, its stderr passed through\n"
    "  --grader-timeout S       kill it after S seconds on one case (default 60)\n"
    "  --hybrid-weight W        the grader's share in hybrid (default 0.5)\n"
    "  --fail-under win_rate=X  exit 1 when the candidate's win rate is below X\n"
    "  --fail-under pass_rate=X exit 1 when its expectation pass rate is below X\n"
    "  --require-significant    exit 1 unless it is significantly better (sign test and\n"
    "                           paired bootstrap, p < 0.05) than every other system\n"
    "  --candidate NAME         the system the gates judge (default: the second system)\n"
    "  --baseline NAME          paired tests (and --require-significant) only against NAME:\n"
    "                           each system against the baseline rather than every pair\n"
    "  --against RUN2           which verdicts changed from RUN2 to RUN (by case and pair):\n"
    "                           counts, transitions such as 'baseline -> TIE', the cases\n"
    "                           (--limit, --cases: the same ids of RUN2)\n" CLI_CASE_SELECT_HELP
    "                      (in RUN's case order); every part of the report (counts,\n"
    "                      rates, statistics, trials, judge health, problems of a case,\n"
    "                      matrix, --against, gates, CSV) then covers exactly those\n"
    "                      cases; an id RUN lacks is an error (exit 2)\n"
    "\n"
    "exit: 0 written (gates passed), 1 a gate missed (one line each on stderr), 2 usage\n"
    "error, 4 database failure or the grader failed (the message names it, the case, and\n"
    "the JSON path of a wrong answer)\n";

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

struct report_args {
    const char *db, *run_spec, *format, *out_path;
    FILE *spill; /* JSON: the per-case entries, written as counted (arb_report_parts) */
    const char *strategy, *against_spec, *baseline, *grader;
    double grader_timeout, hybrid_weight;
    struct cli_gates gates;
    struct cli_case_select cases;
};

static int fail_under_option(const char *cmd, const struct cli_option *opt, const char *v)
{
    return cli_gate_parse(opt->value, v);
}

/* Returns CLI_PARSED to go on, else the exit code (--help printed, or a usage error). */
static int parse_args(struct report_args *ra, int argc, char **argv)
{
    static const char *const formats[] = {"md", "json", "html", "csv", NULL};
    static const char *const strategies[] = {"statistical", "weighted", "custom", "hybrid", NULL};
    const struct cli_option options[] = {
        CLI_OPT_DB(&ra->db),
        CLI_OPT_CHOICE("--format", &ra->format, formats),
        CLI_OPT_STRING("-o", &ra->out_path),
        CLI_OPT_CHOICE("--strategy", &ra->strategy, strategies),
        CLI_OPT_CALLBACK("--fail-under", &ra->gates, fail_under_option),
        CLI_OPT_BOOL("--require-significant", &ra->gates.require_significant),
        CLI_OPT_STRING("--candidate", &ra->gates.candidate),
        CLI_OPT_STRING("--against", &ra->against_spec),
        CLI_OPT_STRING("--baseline", &ra->baseline),
        CLI_OPT_NONEMPTY("--grader", &ra->grader, "a command"),
        CLI_OPT_DOUBLE("--grader-timeout", &ra->grader_timeout, "seconds", 0, 86400,
                       CLI_OPT_LO_OPEN),
        CLI_OPT_DOUBLE("--hybrid-weight", &ra->hybrid_weight, "a weight", 0, 1, 0),
        CLI_CASE_SELECT_OPTIONS(&ra->cases),
        CLI_OPT_END(),
    };
    int n_pos, code = cli_parse_options("report", usage_text, options, argc, argv, &n_pos);

    if (code != CLI_PARSED)
        return code;
    if (n_pos > 1) {
        cli_error("report", "unexpected argument '%s'", argv[1]);
        return EXIT_USAGE;
    }
    ra->run_spec = n_pos ? argv[0] : NULL;
    return CLI_PARSED;
}

/*
 * --grader CMD as words: split at blanks; '...' and "..." group (quotes removed, nothing inside
 * them special); no other shell syntax.  A NULL-terminated array whose words live in the same
 * allocation: free(*out) frees all.  0, or -1 with the message printed.
 */
static int grader_words(const char *cmd, char ***out)
{
    size_t len = strlen(cmd), n = 0;
    char **argv = malloc((len / 2 + 2) * sizeof(*argv) + len + 1), *w;
    const char *p = cmd;

    if (!argv) {
        cli_error("report", "out of memory");
        return -1;
    }
    w = (char *)(argv + len / 2 + 2);
    while (*p) {
        int word = 0;
        char quote = 0;

        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        argv[n++] = w;
        for (; *p && (quote || (*p != ' ' && *p != '\t')); p++, word = 1) {
            if (quote && *p == quote)
                quote = 0;
            else if (!quote && (*p == '\'' || *p == '"'))
                quote = *p;
            else
                *w++ = *p;
        }
        *w++ = '\0';
        if (quote || !word) {
            cli_error("report", "--grader: unterminated %c quote in '%s'", quote, cmd);
            free(argv);
            return -1;
        }
    }
    argv[n] = NULL;
    if (!n) {
        cli_error("report", "--grader: expected a command, got '%s'", cmd);
        free(argv);
        return -1;
    }
    *out = argv;
    return 0;
}

/* What custom and hybrid need, and what only they take; 0 or -1 (message printed). */
static int check_grader_args(const struct report_args *ra)
{
    int wants = ra->strategy && (ra->strategy[0] == 'c' || ra->strategy[0] == 'h');

    if (wants && !ra->grader) {
        cli_error("report", "--strategy %s needs --grader CMD (the grader program)", ra->strategy);
        return -1;
    }
    if (!wants && (ra->grader || ra->grader_timeout > 0)) {
        cli_error("report", "--grader%s is for --strategy custom or hybrid",
                  ra->grader ? "" : "-timeout");
        return -1;
    }
    if (ra->hybrid_weight >= 0 && !(ra->strategy && ra->strategy[0] == 'h')) {
        cli_error("report", "--hybrid-weight is for --strategy hybrid");
        return -1;
    }
    return 0;
}

/* The checks that need no database; 0 or -1 (message printed). */
static int check_args(const struct report_args *ra)
{
    if (!ra->run_spec) {
        cli_error("report", "missing RUN (an id or 'latest'; see 'arbiter runs')");
        return -1;
    }
    if (check_grader_args(ra))
        return -1;
    if (ra->baseline && !(ra->strategy && strcmp(ra->strategy, "statistical") == 0) &&
        !ra->gates.require_significant) {
        cli_error("report", "--baseline chooses the paired tests: add --strategy statistical or "
                            "--require-significant");
        return -1;
    }
    if (cli_outfile_check("report", ra->out_path, ra->db))
        return -1;
    return cli_outfile_check_input("report", ra->out_path, ra->cases.file, "--cases @FILE");
}

/* "scope": the selection the report was limited to, for its readers (and markdown's note). */
static enum arb_status add_scope(cJSON *report, const struct arb_case_select *sel)
{
    cJSON *o = cJSON_AddObjectToObject(report, "scope"), *ids;

    if (!o || (sel->limit && !cJSON_AddNumberToObject(o, "limit", (double)sel->limit)))
        return ARB_ENOMEM;
    if (!sel->ids)
        return ARB_OK;
    ids = cJSON_AddArrayToObject(o, "cases");
    for (size_t i = 0; ids && i < sel->n_ids; i++)
        if (!cJSON_AddItemToArray(ids, cJSON_CreateString(sel->ids[i])))
            ids = NULL;
    return ids ? ARB_OK : ARB_ENOMEM;
}

/* The custom part and, for hybrid, the two put together. */
extern char **environ;

/* Values shorter than this are not taken for secrets (ordinary words would be redacted). */
#define SECRET_MIN 8

/*
 * The values of the environment's credential variables (OPENAI_API_KEY, GH_TOKEN...: names
 * arb_judge_credential_name takes), borrowed from the environment, for the grader's command to
 * be shown without them: a new array the caller frees, *n its length; NULL when out of memory.
 */
static const char **env_secrets(size_t *n)
{
    size_t all = 0, i;
    const char **v;

    while (environ && environ[all])
        all++;
    v = malloc((all + 1) * sizeof(*v));
    *n = 0;
    for (i = 0; v && i < all; i++) {
        const char *eq = strchr(environ[i], '=');
        char name[256];

        if (!eq || (size_t)(eq - environ[i]) >= sizeof(name) || strlen(eq + 1) < SECRET_MIN)
            continue;
        memcpy(name, environ[i], (size_t)(eq - environ[i]));
        name[eq - environ[i]] = '\0';
        if (arb_judge_credential_name(name))
            v[(*n)++] = eq + 1;
    }
    return v;
}

static enum arb_status add_grader(const struct report_args *ra, struct arb_store *st, int64_t run,
                                  cJSON *report, int *usage, struct arb_err *err)
{
    struct arb_grader g = {NULL, ra->grader_timeout > 0 ? ra->grader_timeout : 60, NULL, 0};
    const char **secrets;
    char **argv;
    enum arb_status rs;

    if (grader_words(ra->grader, &argv)) {
        *usage = 1;
        return ARB_OK;
    }
    secrets = env_secrets(&g.n_secrets);
    if (!secrets) {
        free(argv);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    g.argv = argv;
    g.secrets = secrets;
    rs = arb_report_add_custom(st, run, report, &g, err);
    if (!rs && ra->strategy[0] == 'h')
        rs = arb_report_add_hybrid(report, ra->hybrid_weight >= 0 ? ra->hybrid_weight : 0.5, err);
    free(secrets);
    free(argv);
    return rs;
}

/*
 * The report object of run: every part the options ask for.  *usage is set
 * (message printed) for a usage error found on the way; else the status.
 */
static enum arb_status build(struct report_args *ra, struct arb_store *st, int64_t run,
                             cJSON **report, int *usage, struct arb_err *err)
{
    int want_stats = (ra->strategy && ra->strategy[0] == 's') || ra->gates.require_significant;
    struct arb_report_opts ro = {want_stats ? resamples_from_env() : 0, 0, ra->baseline};
    struct arb_report_parts parts = {ra->format[0] == 'j'   ? SIZE_MAX
                                     : ra->format[0] == 'm' ? CASES_IN_MARKDOWN
                                                            : 0,
                                     1, want_stats ? &ro : NULL, ra->spill};
    int64_t against = 0;
    enum arb_status rs = arb_store_scope(st, run, &ra->cases.sel, err);

    if (!rs && want_stats)
        rs = arb_store_runs(st, run, run_seed, &ro.seed, err);
    if (!rs)
        rs = arb_report_compose(st, run, &parts, report, err);
    /* (A baseline the run lacks only leaves the statistics without pairs: no harm done.) */
    if (!rs && ra->baseline && !has_system(*report, ra->baseline)) {
        cli_error("report", "--baseline: '%s' is not a system of run %lld", ra->baseline,
                  (long long)run);
        *usage = 1;
        return ARB_OK;
    }
    if (!rs && arb_case_select_active(&ra->cases.sel))
        rs = add_scope(*report, &ra->cases.sel);
    if (!rs)
        rs = arb_report_add_judge_health(st, run, *report, err);
    if (!rs && ra->strategy && (ra->strategy[0] == 'w' || ra->strategy[0] == 'h')) {
        double w[3];
        const cJSON *notice;

        if (weights_from_env(w)) {
            *usage = 1;
            return ARB_OK;
        }
        rs = arb_report_add_weighted(st, run, *report, w, err);
        notice = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(*report, "weights"), "notice");
        if (!rs && cJSON_IsString(notice))
            cli_error("report", "notice: %s", notice->valuestring);
        notice = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(*report, "weighted_quality"), "notice");
        if (!rs && cJSON_IsString(notice))
            cli_error("report", "notice: %s", notice->valuestring);
    }
    if (!rs && ra->strategy && (ra->strategy[0] == 'c' || ra->strategy[0] == 'h'))
        rs = add_grader(ra, st, run, *report, usage, err);
    if (!rs)
        rs = arb_report_add_trials(st, run, *report, want_stats ? &ro : NULL, err);
    if (!rs && ra->against_spec) {
        rs = arb_store_run_resolve(st, ra->against_spec, &against, err);
        if (!rs)
            rs = arb_store_scope_add_run(st, against, err);
        if (!rs)
            rs = arb_report_add_against(st, run, against, *report, err);
    }
    if (!rs && ra->format[0] == 'h')
        rs = arb_report_add_cases(st, run, *report, CASES_IN_HTML, err);
    return rs;
}

/* The report into out; JSON, CSV and HTML, the long ones, handed to sink as they go. */
static enum arb_status render(const struct report_args *ra, struct arb_store *st, int64_t run,
                              const cJSON *report, struct arb_buf *out,
                              const struct arb_report_sink *sink, struct arb_err *err)
{
    if (ra->format[0] == 'm')
        return arb_report_markdown(report, out);
    if (ra->format[0] == 'h')
        return arb_report_html_to(report, out, sink);
    if (ra->format[0] == 'c')
        return arb_report_csv_to(st, run, out, sink, err);
    return arb_report_json(report, ra->spill, out, sink);
}

/*
 * Render into the output (standard output or -o's file, replaced once
 * complete).  0 written; EXIT_ENV when the output could not be written (message
 * printed); else -1 with *rs the renderer's failure (nothing replaced).
 */
static int write_report(const struct report_args *ra, struct arb_store *st, int64_t run,
                        const cJSON *report, enum arb_status *rs, struct arb_err *err)
{
    struct cli_outstream os;
    struct arb_report_sink sink = {cli_outstream_write, &os};
    struct arb_buf out;
    int ok;

    if (cli_outstream_open("report", ra->out_path, &os))
        return EXIT_ENV;
    arb_buf_init(&out, 0);
    *rs = render(ra, st, run, report, &out, &sink, err);
    if (*rs == ARB_EIO && os.err) /* the output failed, not the report: close says why */
        *rs = ARB_OK;
    if (!*rs)
        *rs = arb_report_flush(&out, &sink, 1);
    if (*rs == ARB_EIO && os.err)
        *rs = ARB_OK;
    arb_buf_release(&out);
    ok = cli_outstream_close("report", &os, !*rs) == 0;
    return *rs ? -1 : ok ? 0 : EXIT_ENV;
}

static int report_cmd(int argc, char **argv)
{
    struct report_args ra;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    cJSON *report = NULL;
    int64_t run = 0;
    int code = EXIT_PASS, missed = 0, usage = 0, parsed, written = 0;
    enum arb_status rs;

    memset(&ra, 0, sizeof(ra));
    ra.db = CLI_DEFAULT_DB;
    ra.format = "md";
    ra.hybrid_weight = -1; /* not given */
    parsed = parse_args(&ra, argc, argv);
    if (parsed == CLI_PARSED && check_args(&ra))
        parsed = EXIT_USAGE;
    if (parsed != CLI_PARSED) {
        cli_case_select_release(&ra.cases);
        return parsed;
    }
    rs = cli_open_for_reading("report", ra.db, &st);
    if (rs) {
        cli_case_select_release(&ra.cases);
        return cli_exit_for(rs);
    }
    rs = arb_store_run_resolve(st, ra.run_spec, &run, &err);
    /* Without a file to spill to, JSON keeps every case's entry in memory: the same bytes. */
    if (!rs && ra.format[0] == 'j')
        ra.spill = tmpfile();
    /* -o must not replace a file the run was made of either: --resume and replay read them */
    if (!rs && cli_outfile_check_run("report", ra.out_path, st, run))
        usage = 1;
    if (!rs && !usage)
        rs = build(&ra, st, run, &report, &usage, &err);
    if (!rs && !usage) {
        missed = cli_gates_apply(&ra.gates, report);
        usage = missed < 0;
    }
    if (!rs && !usage)
        written = write_report(&ra, st, run, report, &rs, &err);
    if (usage) {
        code = EXIT_USAGE;
    } else if (rs) {
        cli_error("report", "%s", err.msg[0] ? err.msg : arb_strerror(rs));
        code = cli_exit_for(rs);
    } else if (written) {
        code = EXIT_ENV;
    } else if (missed > 0) {
        code = EXIT_NEGATIVE;
    }
    cJSON_Delete(report);
    if (ra.spill)
        fclose(ra.spill);
    arb_store_close(st);
    cli_case_select_release(&ra.cases);
    return code;
}

const struct arb_cmd arb_cmd_report = {
    .name = "report",
    .summary = "a run's report: markdown, JSON or HTML, with statistics and CI gates",
    .usage = usage_text,
    .run = report_cmd,
};
