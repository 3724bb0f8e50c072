/*
 * cmd_export.c - `arbiter export`: per-case comparison.json files, every
 * check record as JSONL, one CSV table of the verdicts, or the human labels of
 * the run's first pair as the JSONL `calibrate --run` reads (labels.h); of
 * every case or of a selection (--limit, --cases: arb_store_scope).
 *
 * File names come from case ids and system names, which are untrusted:
 * export_names.c escapes them (an id such as "../../etc/passwd" can never
 * leave the directory given) into names no two verdicts share.  Every file
 * is written through outfile.c (a temporary file renamed into place) and
 * none may be the database or the --cases file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arbiter/buf.h"
#include <cjson/cJSON.h>

#include "arbiter/report.h"
#include "arbiter/store.h"
#include "case_select.h"
#include "cli.h"
#include "export_names.h"
#include "label_opts.h"
#include "outfile.h"
#include "parse_options.h"

static const char usage_text[] =
    "usage: arbiter export RUN --comparisons DIR [--db FILE] [--limit N] [--cases ID,ID|@FILE]\n"
    "       arbiter export RUN --jsonl [--db FILE] [--limit N] [--cases ID,ID|@FILE]\n"
    "       arbiter export RUN --csv [-o FILE] [--db FILE] [--limit N] [--cases ID,ID|@FILE]\n"
    "       arbiter export RUN --labels [-o FILE] [--annotator NAME ...] [--db FILE]\n"
    "                      [--limit N] [--cases ID,ID|@FILE]\n"
    "\n"
    "  --db FILE          the database (default ./" CLI_DEFAULT_DB ")\n"
    "  --comparisons DIR  write one comparison.json per case into DIR (created if\n"
    "                     needed): the blind comparator's format (winner, reasoning,\n"
    "                     rubric, output_quality, expectation_results) plus \"systems\":\n"
    "                     {\"A\": name, \"B\": name}, unblinded.  Files are named after the\n"
    "                     case id, CASE.json; with more than two systems, one per pair,\n"
    "                     CASE~A~B.json (A shown first).  Each part keeps [A-Za-z0-9._-]\n"
    "                     (not a leading '.') and writes any other byte as %XX, so '~'\n"
    "                     only separates and no two files share a name; a name over 200\n"
    "                     bytes is cut and ends in ~~ and 32 hex digits of its SHA-256.\n"
    "                     Never the database, the --cases file or a file the run was\n"
    "                     made of (its suite, cases file, outputs, or in an outputs\n"
    "                     directory)\n"
    "  --jsonl            print every record as one JSON line: each check record with\n"
    "                     its case, system, kind and item; each trial (kind \"trial\":\n"
    "                     trial, passed, its expectation records); each verdict (kind\n"
    "                     \"verdict\": the pair, status, winner and comparison)\n"
    "  --csv              print one CSV table (RFC 4180: CRLF line ends, a field with a\n"
    "                     comma, quote, CR or LF in double quotes, quotes doubled, NULL\n"
    "                     empty), a header row, then one row per case and pair of systems\n"
    "                     in case order: run, case_id, seq (the case's place in the suite,\n"
    "                     from 0), system_a, system_b (A is the one the judge sees first),\n"
    "                     status (decided, pending_judge, missing_output, judge_failed,\n"
    "                     judge_refused, position_inconsistent), winner (a system, TIE\n"
    "                     or empty), score_a, score_b (overall rubric scores),\n"
    "                     pass_rate_a, pass_rate_b (expectation pass rates), judged (1\n"
    "                     when the pair went to the judge), position_inconsistent (1 or\n"
    "                     0 from the judge's answer, else empty), unresolved (items\n"
    "                     neither the checks nor the judge settled).  Numbers in the\n"
    "                     shortest form that reads back as the same value (10, 0.5,\n"
    "                     0.6666666666666666).\n"
    "                     Text is written as stored: a case id starting with = + - @ is\n"
    "                     not altered, so a spreadsheet may read it as a formula\n"
    "  --labels           print the human labels of the run's first two systems as the\n"
    "                     JSONL 'calibrate --run RUN LABELS' reads (README \"Calibration\");\n"
    "                     none: nothing written, exit 0\n"
    "  --annotator NAME   with --labels: only NAME's labels (repeatable)\n"
    "  -o FILE            with --csv, --labels: write to FILE (through a temporary file\n"
    "                     beside it, renamed when complete; never the database, the\n"
    "                     --cases file or one the run was made of), not standard output\n"
    CLI_CASE_SELECT_HELP
    "                      (in RUN's case order): every record, comparison file or\n"
    "                      row is then of those cases only; an id RUN lacks is an error\n"
    "\n"
    "exit: 0 written, 2 usage error (an unknown case, -o or a comparison file naming the\n"
    "database or the --cases file), 4 a failure to write or of the database\n";

struct exporter {
    const char *dir, *db, *cases_file; /* cases_file: --cases @FILE, or NULL */
    struct cli_run_inputs inputs;      /* the run's: never written over */
    int pairs;                         /* more than one pair per case: name files by pair */
    size_t written;
    struct cli_export_names names;
    enum arb_status st;
    char msg[768];
};

/* The file for one verdict must be neither the database nor the --cases file. */
static enum arb_status refuse_inputs(struct exporter *ex, const char *path)
{
    struct arb_buf name;
    const char *db;

    arb_buf_init(&name, 0);
    db = cli_outfile_database(path, ex->db, &name);
    if (db)
        snprintf(ex->msg, sizeof(ex->msg),
                 "the comparison file '%s' would be the database '%s' (--db): refusing to "
                 "write over it",
                 path, db);
    else if (cli_outfile_clash(path, ex->cases_file) == 1)
        snprintf(ex->msg, sizeof(ex->msg),
                 "the comparison file '%s' would be the --cases file '%s': refusing to write "
                 "over it",
                 path, ex->cases_file);
    arb_buf_reset(&name);
    if (!db && !ex->msg[0] && cli_run_inputs_clash(&ex->inputs, path, &name))
        snprintf(ex->msg, sizeof(ex->msg), "the comparison file %s",
                 name.ptr ? name.ptr : "is an input of the run");
    arb_buf_release(&name);
    return db || ex->msg[0] ? ARB_EUSAGE : ARB_OK;
}

/* The comparison.json text of v: the stored comparison with "systems" added (malloc'd). */
static char *comparison_text(const struct arb_verdict_row *v, size_t *len)
{
    cJSON *doc = cJSON_Parse(v->comparison_json ? v->comparison_json : "{}"), *sys;
    struct arb_buf out;
    char *text = NULL, *whole = NULL;

    arb_buf_init(&out, 0);
    sys = doc ? cJSON_AddObjectToObject(doc, "systems") : NULL;
    if (sys && cJSON_AddStringToObject(sys, "A", v->system_a) &&
        cJSON_AddStringToObject(sys, "B", v->system_b))
        text = cJSON_Print(doc);
    if (text && !arb_buf_adds(&out, text) && !arb_buf_addc(&out, '\n'))
        whole = arb_buf_detach(&out, len);
    cJSON_free(text);
    cJSON_Delete(doc);
    arb_buf_release(&out);
    return whole;
}

static int write_comparison(void *ctx, const struct arb_verdict_row *v)
{
    struct exporter *ex = ctx;
    struct arb_buf file, path, why;
    const char *b = ex->pairs ? v->system_b : NULL;
    size_t len = 0;
    char *text = comparison_text(v, &len);

    arb_buf_init(&file, 0);
    arb_buf_init(&path, 0);
    arb_buf_init(&why, 0);
    ex->st = text ? cli_export_name(&file, v->case_id, v->system_a, b) : ARB_ENOMEM;
    if (!ex->st)
        ex->st = arb_buf_printf(&path, "%s/%s", ex->dir, file.ptr);
    if (!ex->st)
        ex->st = cli_export_names_claim(&ex->names, file.ptr, v->case_id, v->system_a, b,
                                        ex->msg, sizeof(ex->msg));
    if (!ex->st)
        ex->st = refuse_inputs(ex, path.ptr);
    /* one file per case: flushed as a whole by the file system, not one by one */
    if (!ex->st && cli_outfile_put(path.ptr, text, len, 0, &why)) {
        ex->st = ARB_EIO;
        snprintf(ex->msg, sizeof(ex->msg), "%s", why.ptr ? why.ptr : "out of memory");
    }
    if (!ex->st)
        ex->written++;
    free(text);
    arb_buf_release(&file);
    arb_buf_release(&path);
    arb_buf_release(&why);
    return ex->st != ARB_OK;
}

/*
 * Print o as one line and free it.  When it could not be built or written,
 * set *failed (an enum arb_status) and return 1 to stop: an export that
 * ends early must not look complete.
 */
static int print_line(cJSON *o, int ok, void *failed)
{
    char *s = ok && o ? cJSON_PrintUnformatted(o) : NULL;
    int bad = !s || puts(s) < 0;

    if (bad)
        *(enum arb_status *)failed = s ? ARB_EIO : ARB_ENOMEM;
    cJSON_free(s);
    cJSON_Delete(o);
    return bad;
}

static int print_check(void *ctx, const struct arb_check_row *c)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "case", c->case_id) &&
             cJSON_AddStringToObject(o, "system", c->system) &&
             cJSON_AddStringToObject(o, "kind", c->kind) &&
             cJSON_AddStringToObject(o, "item", c->item);

    if (ok)
        ok = cJSON_AddItemToObject(o, "record", cJSON_Parse(c->record_json));
    return print_line(o, ok, ctx);
}

static int print_verdict(void *ctx, const struct arb_verdict_row *v)
{
    cJSON *o = cJSON_CreateObject();
    int ok = o && cJSON_AddStringToObject(o, "case", v->case_id) &&
             cJSON_AddStringToObject(o, "kind", "verdict") &&
             cJSON_AddStringToObject(o, "system_a", v->system_a) &&
             cJSON_AddStringToObject(o, "system_b", v->system_b) &&
             cJSON_AddStringToObject(o, "status", v->status) &&
             (v->winner ? cJSON_AddStringToObject(o, "winner", v->winner)
                        : cJSON_AddNullToObject(o, "winner")) != NULL;

    if (ok && v->comparison_json)
        ok = cJSON_AddItemToObject(o, "comparison", cJSON_Parse(v->comparison_json));
    return print_line(o, ok, ctx);
}

static int print_trial(void *ctx, const struct arb_trial_row *t)
{
    cJSON *o = cJSON_CreateObject();
    int ok =
        o && cJSON_AddStringToObject(o, "case", t->case_id) &&
        cJSON_AddStringToObject(o, "system", t->system) &&
        cJSON_AddStringToObject(o, "kind", "trial") &&
        cJSON_AddNumberToObject(o, "trial", (double)t->trial) &&
        (t->passed < 0 ? cJSON_AddNullToObject(o, "passed")
                       : cJSON_AddBoolToObject(o, "passed", t->passed)) != NULL &&
        cJSON_AddItemToObject(o, "records", cJSON_Parse(t->records_json ? t->records_json : "[]"));

    return print_line(o, ok, ctx);
}

struct case_walk {
    struct arb_store *st;
    int64_t run;
    struct arb_err *err;
    enum arb_status rc, printed;
};

static int print_case_trials(void *ctx, const char *case_id, int64_t seq, const char *case_json)
{
    struct case_walk *w = ctx;

    (void)seq;
    (void)case_json;
    w->rc = arb_store_trials(w->st, w->run, case_id, print_trial, &w->printed, w->err);
    return w->rc != ARB_OK || w->printed != ARB_OK;
}

static int count_systems(void *ctx, const struct arb_run_row *r)
{
    cJSON *arr = cJSON_Parse(r->systems_json ? r->systems_json : "[]");

    *(int *)ctx = cJSON_GetArraySize(arr);
    cJSON_Delete(arr);
    return 1;
}

/* Every check record, trial and verdict of run as JSON lines on standard output. */
static enum arb_status export_jsonl(struct arb_store *st, int64_t run, struct arb_err *err)
{
    struct case_walk w = {st, run, err, ARB_OK, ARB_OK};
    enum arb_status rs = arb_store_checks(st, run, NULL, print_check, &w.printed, err);

    if (!rs && !w.printed)
        rs = arb_store_cases(st, run, print_case_trials, &w, err);
    if (!rs)
        rs = w.rc;
    if (!rs && !w.printed)
        rs = arb_store_verdicts(st, run, NULL, print_verdict, &w.printed, err);
    if (!rs && !w.printed && fflush(stdout))
        w.printed = ARB_EIO;
    if (!rs && w.printed)
        rs = arb_err_set(err, w.printed, "%s",
                         w.printed == ARB_EIO ? "cannot write the export to standard output"
                                              : "a record could not be exported");
    return rs;
}

struct export_args {
    const char *db, *run_spec, *dir, *out_path;
    int jsonl, csv, labels;
    struct cli_annotators annotators; /* --annotator, with --labels */
    struct cli_case_select cases;
};

/* One comparison.json per verdict of run into ea->dir. */
static enum arb_status export_comparisons(struct arb_store *st, int64_t run,
                                          const struct export_args *ea, struct arb_err *err)
{
    struct exporter ex;
    int n_systems = 0;
    enum arb_status rs = arb_store_runs(st, run, count_systems, &n_systems, err);

    memset(&ex, 0, sizeof(ex));
    ex.dir = ea->dir;
    ex.db = ea->db;
    ex.cases_file = ea->cases.file;
    ex.pairs = n_systems > 2;
    cli_export_names_init(&ex.names);
    if (!rs)
        rs = cli_run_inputs_load(st, run, &ex.inputs, err);
    if (!rs)
        rs = arb_store_verdicts(st, run, NULL, write_comparison, &ex, err);
    if (!rs && ex.st)
        rs = arb_err_set(err, ex.st, "%s", ex.msg[0] ? ex.msg : arb_strerror(ex.st));
    if (!rs)
        fprintf(stderr, "arbiter export: %zu comparison files in %s\n", ex.written, ea->dir);
    cli_export_names_release(&ex.names);
    cli_run_inputs_release(&ex.inputs);
    return rs;
}

/*
 * The CSV table (report.h: arb_report_csv_to) to out_path or standard output, written as it is
 * made, as `report --format csv` writes it: memory stays flat in the cases (built whole, a
 * million cases took 80 MB).  *not_written: the output could not be written (message printed).
 */
static enum arb_status export_csv(struct arb_store *st, int64_t run, const char *out_path,
                                  int *not_written, struct arb_err *err)
{
    struct cli_outstream os;
    struct arb_report_sink sink = {cli_outstream_write, &os};
    struct arb_buf out;
    enum arb_status rs;

    if (cli_outstream_open("export", out_path, &os)) {
        *not_written = 1;
        return ARB_OK;
    }
    arb_buf_init(&out, 0);
    rs = arb_report_csv_to(st, run, &out, &sink, err);
    if (!rs)
        rs = arb_report_flush(&out, &sink, 1);
    if (rs == ARB_EIO && os.err) /* the output failed, not the table: close says why */
        rs = ARB_OK;
    arb_buf_release(&out);
    if (cli_outstream_close("export", &os, !rs) != 0 && !rs)
        *not_written = 1;
    return rs;
}

/*
 * The labels of run's first pair (labels.h) to out_path or standard output; none: nothing on
 * standard output (with -o, an empty file), said on standard error.  An exit code, the
 * message printed.
 */
static int export_labels(struct arb_store *st, int64_t run, const struct export_args *ea)
{
    struct arb_buf out;
    char why[600];
    size_t lines = 0;
    int code;

    arb_buf_init(&out, 0);
    code = cli_labels_text("export", st, run, &ea->annotators, &out);
    for (size_t i = 0; i < out.len; i++)
        lines += out.ptr[i] == '\n';
    if (!code && cli_outfile_write("export", ea->out_path, out.ptr ? out.ptr : "", out.len))
        code = EXIT_ENV;
    if (!code && !lines) {
        cli_labels_none(run, &ea->annotators, why, sizeof(why));
        fprintf(stderr, "arbiter export: %s: nothing to export\n", why);
    } else if (!code) {
        fprintf(stderr, "arbiter export: labels of %zu cases\n", lines);
    }
    arb_buf_release(&out);
    return code;
}

/* Returns CLI_PARSED to go on, else the exit code (--help printed, or a usage error). */
static int parse_args(struct export_args *ea, int argc, char **argv)
{
    const struct cli_option options[] = {
        CLI_OPT_DB(&ea->db),
        CLI_OPT_STRING("--comparisons", &ea->dir),
        CLI_OPT_BOOL("--jsonl", &ea->jsonl),
        CLI_OPT_BOOL("--csv", &ea->csv),
        CLI_OPT_BOOL("--labels", &ea->labels),
        CLI_OPT_ANNOTATOR(&ea->annotators),
        CLI_OPT_STRING("-o", &ea->out_path),
        CLI_CASE_SELECT_OPTIONS(&ea->cases),
        CLI_OPT_END(),
    };
    int n_pos, code = cli_parse_options("export", usage_text, options, argc, argv, &n_pos);

    if (code != CLI_PARSED)
        return code;
    if (n_pos > 1) {
        cli_error("export", "unexpected argument '%s'", argv[1]);
        return EXIT_USAGE;
    }
    ea->run_spec = n_pos ? argv[0] : NULL;
    if (!ea->run_spec || (ea->dir != NULL) + ea->jsonl + ea->csv + ea->labels != 1) {
        cli_error("export",
                  "usage: arbiter export RUN (--comparisons DIR | --jsonl | --csv | --labels)");
        return EXIT_USAGE;
    }
    if (ea->out_path && !ea->csv && !ea->labels) {
        cli_error("export", "-o goes with --csv or --labels (--comparisons names a directory, "
                            "--jsonl prints to standard output)");
        return EXIT_USAGE;
    }
    if (ea->annotators.n && !ea->labels) {
        cli_error("export", "--annotator goes with --labels");
        return EXIT_USAGE;
    }
    if (cli_outfile_check("export", ea->out_path, ea->db) ||
        cli_outfile_check_input("export", ea->out_path, ea->cases.file, "--cases @FILE"))
        return EXIT_USAGE;
    return CLI_PARSED;
}

static int export_cmd(int argc, char **argv)
{
    struct export_args ea;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    int64_t run = 0;
    int code = EXIT_PASS, parsed, not_written = 0, refused;
    int labels_code = EXIT_PASS; /* export_labels prints its own messages */
    enum arb_status rs;

    memset(&ea, 0, sizeof(ea));
    ea.db = CLI_DEFAULT_DB;
    parsed = parse_args(&ea, argc, argv);
    if (parsed == CLI_PARSED && ea.dir && mkdir(ea.dir, 0777) != 0 && errno != EEXIST) {
        cli_error("export", "cannot create '%s': %s", ea.dir, strerror(errno));
        parsed = EXIT_USAGE;
    }
    if (parsed == CLI_PARSED && cli_open_for_reading("export", ea.db, &st))
        parsed = EXIT_USAGE;
    if (parsed != CLI_PARSED) {
        cli_case_select_release(&ea.cases);
        return parsed;
    }
    rs = arb_store_run_resolve(st, ea.run_spec, &run, &err);
    /* -o must not replace a file the run was made of either: --resume and replay read them */
    refused = !rs && cli_outfile_check_run("export", ea.out_path, st, run);
    if (!rs && !refused)
        rs = arb_store_scope(st, run, &ea.cases.sel, &err);
    if (!rs && !refused && ea.jsonl)
        rs = export_jsonl(st, run, &err);
    else if (!rs && !refused && ea.csv)
        rs = export_csv(st, run, ea.out_path, &not_written, &err);
    else if (!rs && !refused && ea.labels)
        labels_code = export_labels(st, run, &ea);
    else if (!rs && !refused)
        rs = export_comparisons(st, run, &ea, &err);
    if (refused) {
        code = EXIT_USAGE;
    } else if (labels_code) {
        code = labels_code;
    } else if (rs) {
        cli_error("export", "%s", err.msg);
        code = rs == ARB_EIO ? EXIT_ENV : cli_exit_for(rs);
    } else if (not_written) {
        code = EXIT_ENV;
    }
    arb_store_close(st);
    cli_case_select_release(&ea.cases);
    return code;
}

const struct arb_cmd arb_cmd_export = {
    .name = "export",
    .summary = "per-case comparison.json files, every record as JSONL, a CSV table, or labels",
    .usage = usage_text,
    .run = export_cmd,
};
