/*
 * cmd_tune.c - `arbiter calibrate --tune CHECK LABELS`: where a graded
 * check's threshold and fail_below should go, from outputs people labelled.
 * The labels are read, scored and searched by src/calibrate/ (tune*.c); this
 * file reads the options and the check, prints the tuning and, with --db,
 * stores it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/buf.h"
#include "arbiter/calibrate.h"
#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/store.h"
#include "cli.h"
#include "cmd_tune.h"
#include "parse_options.h"

#define CHECK_CAP ((size_t)64 << 20)
#define CMD       "calibrate --tune"

static const char usage_text[] =
    "usage: arbiter calibrate --tune CHECK LABELS [--target 0.95] [--format json|md]\n"
    "                         [--db FILE]\n"
    "\n"
    "Find the threshold and fail_below of a graded check (levenshtein, name, json_match,\n"
    "json_distance, fields, top_k, weighted_mean) from outputs people labelled.  LABELS\n"
    "is a JSONL file, one output a line: {\"id\", \"output\", \"expected\" (optional: used\n"
    "when the check has none), \"human\": true|false}.  Every output is scored with\n"
    "CHECK (its own threshold and fail_below are ignored).  A band auto-passes at\n"
    "score >= threshold, auto-fails below fail_below and escalates the rest to the\n"
    "judge; the band chosen escalates the fewest outputs while the auto-decided ones\n"
    "agree with the people at least as often as the target.  Also printed: the best\n"
    "single threshold (no grey band), the confusion counts, and the check with both\n"
    "numbers filled in, ready to paste into a suite.\n"
    "\n"
    "  CHECK             the check as a JSON object, or @FILE to read it from a file\n"
    "                    (expected_file is then relative to that file's folder)\n"
    "  --target X        the agreement to reach, in (0, 1] (default 0.95)\n"
    "  --format json|md  one JSON object (schemas/tune.schema.json; default) or markdown\n"
    "  --db FILE         also store the tuning in FILE's calibrations table\n"
    "                    (nothing is stored without --db)\n"
    "\n"
    "example:\n"
    "  arbiter calibrate --tune '{\"op\": \"levenshtein\"}' labels.jsonl --target 0.9\n"
    "\n"
    "exit: 0 the target is reached, 1 it is not (the band agreeing most is printed),\n"
    "2 usage or input error (labels located as FILE:LINE:COL), 4 database failure\n";

struct tune_args {
    const char *check, *labels, *db, *format;
    double target;
};

int cli_tune_wanted(int argc, char **argv)
{
    for (int a = 1; a < argc && strcmp(argv[a], "--") != 0; a++)
        if (strcmp(argv[a], "--tune") == 0 || strncmp(argv[a], "--tune=", 7) == 0)
            return 1;
    return 0;
}

/* Returns an exit code, CLI_PARSED to go on. */
static int parse_args(int argc, char **argv, struct tune_args *ta)
{
    static const char *const formats[] = {"json", "md", NULL};
    const struct cli_option options[] = {
        CLI_OPT_STRING("--tune", &ta->check),
        CLI_OPT_DOUBLE("--target", &ta->target, "a number", 0, 1, CLI_OPT_LO_OPEN),
        CLI_OPT_DB(&ta->db),
        CLI_OPT_CHOICE("--format", &ta->format, formats),
        CLI_OPT_END(),
    };
    int n_pos, code;

    /* first, so that `--tune --help` is not a check named --help */
    for (int a = 1; a < argc && strcmp(argv[a], "--") != 0; a++) {
        if (cli_is_help(argv[a])) {
            fputs(usage_text, stdout);
            return EXIT_PASS;
        }
    }
    code = cli_parse_options(CMD, usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    if (n_pos > 1) {
        cli_error(CMD, "unexpected argument '%s': give one CHECK and one LABELS file", argv[1]);
        return EXIT_USAGE;
    }
    ta->labels = n_pos ? argv[0] : NULL;
    if (!ta->check || !ta->labels) {
        cli_error(CMD, "missing %s (see 'arbiter calibrate --tune --help')",
                  ta->check ? "LABELS" : "CHECK");
        return EXIT_USAGE;
    }
    return CLI_PARSED;
}

/* Parse CHECK (inline JSON or @FILE); *dir receives the folder expected_file is relative to. */
static int read_check(const char *arg, cJSON **cfg, char *dir, size_t dirlen)
{
    struct arb_buf text;
    struct arb_err err = {{0}};
    const char *src = "CHECK", *slash;
    enum arb_status st;

    snprintf(dir, dirlen, ".");
    arb_buf_init(&text, CHECK_CAP);
    if (arg[0] == '@') {
        src = arg + 1;
        slash = strrchr(src, '/');
        if (slash == src)
            snprintf(dir, dirlen, "/");
        else if (slash)
            snprintf(dir, dirlen, "%.*s", (int)(slash - src), src);
        st = arb_file_read(src, &text, &err);
    } else {
        st = arb_buf_adds(&text, arg);
    }
    if (!st)
        st = arb_json_parse(text.ptr, text.len, ARB_JSON_ALLOW_BOM | ARB_JSON_NO_DUPLICATES, cfg,
                            &err);
    arb_buf_release(&text);
    if (st) {
        cli_error(CMD, "%s: %s", src, st == ARB_ENOMEM && !err.msg[0] ? "out of memory" : err.msg);
        return cli_exit_for(st);
    }
    return EXIT_PASS;
}

/* Keep the tuning in the calibrations table: no judge, accuracy = the band's agreement. */
static int store_tune(const char *db, const char *labels, const cJSON *tune)
{
    const cJSON *agreement = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(tune, "band"), "agreement");
    struct arb_calibration_row row;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    char *text = cJSON_PrintUnformatted(tune);
    enum arb_status rs = text ? ARB_OK : arb_err_set(&err, ARB_ENOMEM, "out of memory");

    memset(&row, 0, sizeof(row));
    row.labels_path = labels;
    row.n = (int64_t)cJSON_GetObjectItemCaseSensitive(tune, "n")->valuedouble;
    row.kappa = NAN;
    row.accuracy = cJSON_IsNumber(agreement) ? agreement->valuedouble : NAN;
    row.study_json = text;
    if (!rs)
        rs = arb_store_open(db, 0, &st, &err);
    if (!rs)
        rs = arb_store_begin(st, &err);
    if (!rs) {
        rs = arb_store_put_calibration(st, &row, &err);
        if (!rs)
            rs = arb_store_commit(st, &err);
        if (rs)
            arb_store_rollback(st);
    }
    if (rs)
        cli_error(CMD, "%s", err.msg);
    arb_store_close(st);
    cJSON_free(text);
    return rs ? EXIT_ENV : EXIT_PASS;
}

static int print_tune(const cJSON *tune, const char *format)
{
    struct arb_buf md;
    char *text = NULL;
    int ok;

    arb_buf_init(&md, 0);
    if (strcmp(format, "md") == 0) {
        ok = arb_tune_markdown(tune, &md) == ARB_OK;
    } else {
        text = cJSON_PrintUnformatted(tune);
        ok = text && arb_buf_adds(&md, text) == ARB_OK && arb_buf_addc(&md, '\n') == ARB_OK;
        cJSON_free(text);
    }
    if (ok)
        fwrite(md.ptr, 1, md.len, stdout);
    else
        cli_error(CMD, "out of memory");
    arb_buf_release(&md);
    return ok ? EXIT_PASS : EXIT_ENV;
}

int cli_tune_run(int argc, char **argv)
{
    struct tune_args ta = {.format = "json", .target = 0.95};
    struct arb_check_opts copts = {0};
    struct arb_tune_set *set = NULL;
    struct arb_err err = {{0}};
    cJSON *cfg = NULL, *tune = NULL;
    char dir[4096];
    enum arb_status rs;
    int code = parse_args(argc, argv, &ta);

    if (code != CLI_PARSED)
        return code;
    code = read_check(ta.check, &cfg, dir, sizeof(dir));
    if (code)
        return code;
    rs = arb_tune_load(ta.labels, &set, &err);
    if (!rs) {
        copts.base_dir = dir;
        rs = arb_tune_run(cfg, &copts, set, ta.target, &tune, &err);
        /* errors in the check are JSON pointers into it: say which check */
        if (rs && err.msg[0] == '/')
            arb_err_prefix(&err, rs, "%s", ta.check[0] == '@' ? ta.check + 1 : "CHECK");
    }
    if (rs) {
        cli_error(CMD, "%s", rs == ARB_ENOMEM && !err.msg[0] ? "out of memory" : err.msg);
        code = cli_exit_for(rs);
    }
    if (!code && ta.db)
        code = store_tune(ta.db, ta.labels, tune);
    if (!code)
        code = print_tune(tune, ta.format);
    if (!code && !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(tune, "reached")))
        code = EXIT_NEGATIVE;
    cJSON_Delete(tune);
    cJSON_Delete(cfg);
    arb_tune_set_free(set);
    return code;
}
