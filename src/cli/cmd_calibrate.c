/*
 * cmd_calibrate.c - `arbiter calibrate`: a judge against human labels.  The
 * labels are read and the study computed by src/calibrate/; this file reads
 * the options, settles the judge (only items without recorded verdicts need
 * one, and only they need its key), stores the study and prints it.
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
#include "judge_opts.h"
#include "progress.h"
#include "calibrate_proc.h"
#include "cmd_tune.h"

static const char usage_text[] =
    "usage: arbiter calibrate --run RUN (LABELS | --labels-from-db [--annotator NAME ...])\n"
    "                         [--db FILE] [--format json|md] [--bootstrap N]\n"
    "       arbiter calibrate --suite SUITE PAIRS [--judge FILE] [--db FILE] [--format json|md]\n"
    "                         [--bootstrap N] [--[no-]progress]\n"
    "       arbiter calibrate LABELS [--judge FILE] [--db FILE]\n"
    "                         [--policy inconsistent-tie|net-vote] [--unparsed tie|unresolved]\n"
    "                         [--bootstrap N] [--format json|md] [--[no-]progress]\n"
    "       arbiter calibrate --tune CHECK LABELS [--target 0.95] [--format json|md]\n"
    "                         [--db FILE]\n"
    "\n"
    "Measure a run's decision procedure (its judge, prompt, rubric and policy) against\n"
    "human labels, and store the study under the procedure's identity, where 'run\n"
    "--require-calibrated' and the report's judge health look it up.\n"
    "\n"
    "  --run RUN           a finished run's stored verdicts (RUN is an id or 'latest'), no\n"
    "                      judge call.  LABELS is JSONL: {\"id\": CASE, \"human\": SYSTEM or\n"
    "                      \"tie\" or a list (one per annotator), \"criteria\"?: {NAME: SYSTEM\n"
    "                      or \"tie\" or a list}, \"note\"?: text}\n"
    "  --labels-from-db    with --run, for LABELS: the labels of the run in the database\n"
    "                      ('view --label'), as 'export RUN --labels' writes them\n"
    "  --annotator NAME    with --labels-from-db: only NAME's labels (repeatable)\n"
    "  --suite SUITE       the labelled pairs run through SUITE's own procedure (checks,\n"
    "                      blinding, judge prompt, rubric, policy: as 'arbiter run') into a\n"
    "                      calibration run (never 'latest'), then measured as --run does.\n"
    "                      PAIRS is JSONL: {\"id\", \"prompt\", \"output_1\", \"output_2\",\n"
    "                      \"human\": \"1\"|\"2\"|\"tie\" or a list, \"criteria\"?, \"expected\"?};\n"
    "                      output_1 is the suite's first system, outputs may be any JSON\n"
    "\n"
    "Without --run or --suite: the judge alone (its config, a generic prompt, no rubric).\n"
    "LABELS is then {\"id\", \"prompt\", \"output_1\", \"output_2\", \"human\": \"1\"|\"2\"|\"tie\"\n"
    "or a list, \"judge\": {\"order_12\": v, \"order_21\": v}} with v \"1\", \"2\", \"tie\" or null,\n"
    "in the original numbering; or expectation labels {\"id\", \"output\", \"expectation\",\n"
    "\"human\": true|false, \"judge\": true|false|null}.  Items with \"judge\" are studied on\n"
    "those recorded verdicts; the others are put to the judge (--judge FILE), blind, fenced\n"
    "and cached: a pair in both orders, an expectation as one question on its one output.\n"
    "Such a study is stored under the judge's hash and never calibrates a run's procedure.\n"
    "\n"
    "  --judge FILE        the judge config (JSON, as a suite's \"judge\"); its hash keys the\n"
    "                      stored study (its API key is only needed to ask it)\n"
    "  --judge-url URL     override the judge's base_url\n"
    "  --judge-model NAME  override the judge's model\n"
    "  --concurrency N     judge requests in flight\n"
    "  --no-cache          ask the judge again even when a reply is stored\n"
    "  --db FILE           where the study is stored (default ./" CLI_DEFAULT_DB ")\n"
    "  --policy P          one verdict per item from the two orders: inconsistent-tie\n"
    "                      (default; disagreeing orders are a tie, as MT-Bench) or net-vote\n"
    "                      (each order votes, equal votes tie, as JudgeBench)\n"
    "  --unparsed tie      count null verdicts as ties (default: unresolved, counted apart)\n"
    "  --bootstrap N       resamples for the 95% intervals (default 1000, fixed seed)\n"
    "  --format json|md    one JSON object (schemas/calibration.schema.json; default) or\n"
    "                      markdown\n"
    CLI_PROGRESS_HELP
    "  --tune CHECK        instead: tune a graded check's threshold and fail_below on\n"
    "                      outputs people labelled (see 'arbiter calibrate --tune --help')\n"
    "\n"
    "exit: 0 the study was stored and printed, 2 usage or input error (located as\n"
    "FILE:LINE:COL; a label for a case the run lacks; a criterion its rubric lacks), 4\n"
    "database or judge failure\n";

struct cal_args {
    const char *labels, *db, *format;
    const char *run, *suite; /* --run RUN, --suite SUITE */
    struct arb_calib_opts opts;
    struct cli_progress progress;
    int from_db;                      /* --labels-from-db */
    struct cli_annotators annotators; /* --annotator, with --labels-from-db */
};

/* Parse the options; returns an exit code, CLI_PARSED (-1) to go on. */
static int parse_args(int argc, char **argv, struct cal_args *ca, struct cli_judge *judge)
{
    static const char *const formats[] = {"json", "md", NULL};
    static const char *const policies[] = {"inconsistent-tie", "net-vote", NULL};
    static const char *const unparsed_as[] = {"tie", "unresolved", NULL};
    const char *policy = NULL, *unparsed = NULL;
    const struct cli_option options[] = {
        CLI_OPT_DB(&ca->db),
        CLI_OPT_STRING("--run", &ca->run),
        CLI_OPT_STRING("--suite", &ca->suite),
        CLI_OPT_BOOL("--labels-from-db", &ca->from_db),
        CLI_OPT_ANNOTATOR(&ca->annotators),
        CLI_OPT_CHOICE("--format", &ca->format, formats),
        CLI_OPT_CHOICE("--policy", &policy, policies),
        CLI_OPT_CHOICE("--unparsed", &unparsed, unparsed_as),
        CLI_OPT_WHOLE("--bootstrap", &ca->opts.bootstrap, 1, 1000000),
        CLI_JUDGE_OPTIONS(judge),
        CLI_PROGRESS_OPTIONS(&ca->progress),
        CLI_OPT_END(),
    };
    int n_pos, code = cli_parse_options("calibrate", usage_text, options, argc, argv, &n_pos);

    if (code != CLI_PARSED)
        return code;
    if (n_pos > 1) {
        cli_error("calibrate", "unexpected argument '%s': give one LABELS file", argv[1]);
        return EXIT_USAGE;
    }
    if (ca->annotators.n && !ca->from_db) {
        cli_error("calibrate", "--annotator goes with --labels-from-db");
        return EXIT_USAGE;
    }
    if (ca->from_db && (!ca->run || n_pos)) {
        cli_error("calibrate", n_pos ? "give LABELS or --labels-from-db, not both"
                                     : "--labels-from-db goes with --run RUN (the run whose "
                                       "labels and verdicts are measured)");
        return EXIT_USAGE;
    }
    if (!n_pos && !ca->from_db) {
        cli_error("calibrate", "missing LABELS (see 'arbiter calibrate --help')");
        return EXIT_USAGE;
    }
    ca->labels = n_pos ? argv[0] : NULL;
    if (ca->run && ca->suite) {
        cli_error("calibrate", "give --run RUN or --suite SUITE, not both");
        return EXIT_USAGE;
    }
    if ((ca->run || ca->suite) && (policy || unparsed)) {
        cli_error("calibrate",
                  "%s: the run's own policy decides each verdict (the suite's policy.decide_by "
                  "and position_inconsistent); --policy and --unparsed apply to the judge's "
                  "winners alone (calibrate LABELS)",
                  policy ? "--policy" : "--unparsed");
        return EXIT_USAGE;
    }
    if (policy)
        ca->opts.policy = strcmp(policy, "net-vote") == 0 ? ARB_CALIB_NET_VOTE
                                                           : ARB_CALIB_INCONSISTENT_TIE;
    if (unparsed)
        ca->opts.unparsed_tie = strcmp(unparsed, "tie") == 0;
    return CLI_PARSED;
}

/*
 * The hash of --judge FILE (with overrides) without its key: an offline study
 * only names the judge whose verdicts were recorded.
 */
static int judge_hash_only(const struct cli_judge *judge, char *hash)
{
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};
    struct arb_buf text;
    cJSON *doc = NULL;
    enum arb_status st;

    memset(&cfg, 0, sizeof(cfg));
    arb_buf_init(&text, 1 << 20);
    st = arb_file_read(judge->file, &text, &err);
    if (!st)
        st = arb_json_parse(text.ptr, text.len, ARB_JSON_ALLOW_BOM | ARB_JSON_NO_DUPLICATES, &doc,
                            &err);
    arb_buf_release(&text);
    if (!st)
        st = arb_judge_config_parse(doc, &cfg, &err);
    cJSON_Delete(doc);
    if (st) {
        cli_error("calibrate", "--judge %s: %s", judge->file, err.msg);
        return cli_exit_for(st);
    }
    if (judge->url) {
        free(cfg.base_url);
        cfg.base_url = strdup(judge->url);
    }
    if (judge->model) {
        free(cfg.model);
        cfg.model = strdup(judge->model);
    }
    if (judge->concurrency)
        cfg.concurrency = judge->concurrency;
    if (!cfg.base_url || !cfg.model || arb_judge_config_rehash(&cfg, &err)) {
        arb_judge_config_release(&cfg);
        cli_error("calibrate", "cannot hash the judge config: %s", err.msg);
        return EXIT_ENV;
    }
    memcpy(hash, cfg.hash, sizeof(cfg.hash));
    arb_judge_config_release(&cfg);
    return EXIT_PASS;
}

/* A run row to hold the judge's records (judgments reference runs). */
static int start_run(struct arb_store *st, const struct cal_args *ca,
                     const struct arb_calib_set *set, const struct cli_judge *judge, int64_t *run)
{
    struct arb_err err = {{0}};
    struct arb_run_row row;
    cJSON *suite = cJSON_CreateObject(), *cfg = arb_judge_config_json(&judge->cfg);
    char *suite_json = NULL, *judge_json = NULL, name[600];
    enum arb_status rs = ARB_ENOMEM;

    if (suite && cJSON_AddStringToObject(suite, "calibration", ca->labels) &&
        cJSON_AddNumberToObject(suite, "items", (double)set->n) && cfg) {
        suite_json = cJSON_PrintUnformatted(suite);
        judge_json = cJSON_PrintUnformatted(cfg);
    }
    if (suite_json && judge_json) {
        memset(&row, 0, sizeof(row));
        snprintf(name, sizeof(name), "calibration: %.500s", ca->labels);
        row.suite_path = ca->labels;
        row.suite_name = name;
        row.suite_sha256 = set->sha256;
        row.suite_json = suite_json;
        row.systems_json = set->kind == ARB_CALIB_EXPECTATION
                               ? "[{\"name\":\"output\"}]"
                               : "[{\"name\":\"output_1\"},{\"name\":\"output_2\"}]";
        row.version = ARBITER_VERSION;
        row.judge_json = judge_json;
        row.kind = "calibration"; /* holds the judge's calls: not a run of the user's */
        rs = arb_store_run_create(st, &row, run, &err);
    }
    cJSON_Delete(suite);
    cJSON_Delete(cfg);
    cJSON_free(suite_json);
    cJSON_free(judge_json);
    if (rs)
        cli_error("calibrate", "%s", rs == ARB_ENOMEM && !err.msg[0] ? "out of memory" : err.msg);
    return rs ? EXIT_ENV : EXIT_PASS;
}

/* Ask the judge for every item without recorded verdicts, under a run of its own. */
static int ask_judge(struct arb_store *st, struct cal_args *ca, struct arb_calib_set *set,
                     const struct cli_judge *judge, int64_t *run)
{
    struct arb_err err = {{0}};
    size_t unreachable = 0;
    enum arb_status rs;
    int code = start_run(st, ca, set, judge, run);

    if (code)
        return code;
    fprintf(stderr, "arbiter calibrate: judge %s (config %.12s): %zu items %s\n", judge->cfg.model,
            judge->cfg.hash, arb_calib_unjudged(set),
            set->kind == ARB_CALIB_EXPECTATION ? "on their one output" : "in both orders");
    cli_progress_start(&ca->progress, "arbiter calibrate");
    rs = arb_calib_judge_progress(set, &judge->cfg, judge->key, st, *run, !judge->no_cache,
                                  &unreachable, cli_progress_judge, &ca->progress,
                                  cli_progress_notice, &err);
    cli_progress_end(&ca->progress);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        return rs == ARB_EUSAGE ? EXIT_USAGE : EXIT_ENV;
    }
    if (unreachable) {
        cli_error("calibrate",
                  "%zu judge requests got no reply after every retry; nothing "
                  "stored (run again: stored replies are not asked again)",
                  unreachable);
        return EXIT_ENV;
    }
    rs = arb_store_run_set_status(st, *run, "complete", &err);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        return EXIT_ENV;
    }
    return EXIT_PASS;
}

int cli_calib_store(struct arb_store *st, const char *labels, const cJSON *study, int64_t run,
                    const char *procedure_hash, const char *source)
{
    const cJSON *top = cJSON_GetObjectItemCaseSensitive(study, "combined");
    const cJSON *hash = cJSON_GetObjectItemCaseSensitive(study, "judge_hash");
    const cJSON *kappa, *acc;
    struct arb_calibration_row row;
    struct arb_err err = {{0}};
    char *text = cJSON_PrintUnformatted(study);
    enum arb_status rs;

    if (!top)
        top = study; /* expectation studies keep their numbers at the top */
    kappa = cJSON_GetObjectItemCaseSensitive(top, "kappa");
    acc = cJSON_GetObjectItemCaseSensitive(top, "accuracy");
    if (!text) {
        cli_error("calibrate", "out of memory");
        return EXIT_ENV;
    }
    memset(&row, 0, sizeof(row));
    row.judge_hash = cJSON_IsString(hash) ? hash->valuestring : NULL;
    row.labels_path = labels;
    row.procedure_hash = procedure_hash;
    row.source = source;
    row.n = (int64_t)cJSON_GetObjectItemCaseSensitive(study, "n")->valuedouble;
    row.kappa = cJSON_IsNumber(kappa) ? kappa->valuedouble : NAN;
    row.accuracy = cJSON_IsNumber(acc) ? acc->valuedouble : NAN;
    row.study_json = text;
    row.run = run;
    rs = arb_store_begin(st, &err);
    if (!rs)
        rs = arb_store_put_calibration(st, &row, &err);
    if (!rs)
        rs = arb_store_commit(st, &err);
    if (rs) {
        arb_store_rollback(st);
        cli_error("calibrate", "%s", err.msg);
    }
    cJSON_free(text);
    return rs ? EXIT_ENV : EXIT_PASS;
}

int cli_calib_print(const cJSON *study, const char *format)
{
    struct arb_buf md;
    char *text;

    if (strcmp(format, "md") == 0) {
        arb_buf_init(&md, 0);
        if (arb_calib_markdown(study, &md)) {
            arb_buf_release(&md);
            cli_error("calibrate", "out of memory");
            return EXIT_ENV;
        }
        fwrite(md.ptr, 1, md.len, stdout);
        arb_buf_release(&md);
        return EXIT_PASS;
    }
    text = cJSON_PrintUnformatted(study);
    if (!text) {
        cli_error("calibrate", "out of memory");
        return EXIT_ENV;
    }
    puts(text);
    cJSON_free(text);
    return EXIT_PASS;
}

static int calibrate_cmd(int argc, char **argv)
{
    struct cal_args ca = {.db = CLI_DEFAULT_DB, .format = "json"};
    struct arb_calib_set *set = NULL;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    struct cli_judge judge;
    cJSON *study = NULL;
    char hash[65] = "";
    int64_t run = 0;
    int code;
    enum arb_status rs;

    if (cli_tune_wanted(argc, argv))
        return cli_tune_run(argc, argv);
    memset(&judge, 0, sizeof(judge));
    code = parse_args(argc, argv, &ca, &judge);
    if (code >= 0)
        return code;
    if (ca.run || ca.suite) {
        struct cal_proc cp = {.labels = ca.labels,
                              .db = ca.db,
                              .format = ca.format,
                              .run = ca.run,
                              .suite = ca.suite,
                              .opts = ca.opts,
                              .judge = &judge,
                              .progress = &ca.progress,
                              .from_db = ca.from_db,
                              .annotators = &ca.annotators};

        if (ca.run && (judge.file || judge.url || judge.model || judge.concurrency)) {
            cli_error("calibrate", "--run measures stored verdicts and asks no judge: drop the "
                                   "judge options");
            return EXIT_USAGE;
        }
        code = ca.run ? cli_calibrate_run(&cp) : cli_calibrate_suite(&cp);
        cli_judge_release(&judge);
        return code;
    }
    rs = arb_calib_load(ca.labels, &set, &err);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        return cli_exit_for(rs);
    }
    code = EXIT_USAGE;
    if (arb_calib_unjudged(set) && (!judge.file || judge.no_judge)) {
        cli_error("calibrate",
                  "%s: %zu items without recorded verdicts need a judge (--judge "
                  "FILE)",
                  ca.labels, arb_calib_unjudged(set));
        goto out;
    }
    if (arb_calib_unjudged(set)) {
        code = cli_judge_setup(&judge, "calibrate", NULL, NULL);
        if (code)
            goto out;
        memcpy(hash, judge.cfg.hash, sizeof(hash));
    } else if (judge.file && !judge.no_judge) {
        code = judge_hash_only(&judge, hash);
        if (code)
            goto out;
    }
    rs = arb_store_open(ca.db, 0, &st, &err);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        code = EXIT_ENV;
        goto out;
    }
    if (arb_calib_unjudged(set)) {
        code = ask_judge(st, &ca, set, &judge, &run);
        if (code)
            goto out;
    }
    ca.opts.judge_hash = hash[0] ? hash : NULL;
    rs = arb_calib_study(set->items, set->n, set->kind, &ca.opts, &study, &err);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        code = cli_exit_for(rs);
        goto out;
    }
    code = cli_calib_store(st, ca.labels, study, run, NULL, "labels");
    if (!code)
        code = cli_calib_print(study, ca.format);
out:
    cJSON_Delete(study);
    arb_store_close(st);
    arb_calib_set_free(set);
    cli_judge_release(&judge);
    return code;
}

const struct arb_cmd arb_cmd_calibrate = {
    .name = "calibrate",
    .summary = "measure a run's decision procedure (or a judge) against human labels",
    .usage = usage_text,
    .run = calibrate_cmd,
};
