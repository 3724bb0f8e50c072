/*
 * cmd_run.c - `arbiter run`: a suite against two or more systems' outputs,
 * into the database.
 */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbiter/http.h"
#include "arbiter/json.h"
#include "arbiter/run.h"
#include "arbiter/store.h"
#include "arbiter/suite.h"
#include "case_select.h"
#include "cli.h"
#include "failures.h"
#include "judge_opts.h"
#include "parse_options.h"
#include "progress.h"
#include "run_batch.h"

#define MAX_SYSTEM_ARGS 64
#define MAX_BATCH 100000
#define MAX_SEED 9007199254740991ull /* 2^53 - 1, as "seed" in a suite */
#define NO_SEED ULLONG_MAX            /* --seed not given */

static const char usage_text[] =
    "usage: arbiter run SUITE [--system NAME=PATH]... [--db FILE] [--seed N] [--json]\n"
    "                 [--limit N] [--cases ID,ID|@FILE] [--shard K/N] [--max-cost USD]\n"
    "                 [--[no-]progress] [--judge-batch [--no-wait]]\n"
    "       arbiter run --resume RUN [--retry-failed] [--db FILE] [--json] [--max-cost USD]\n"
    "                 [--no-wait]\n"
    "\n"
    "Run a suite: load the cases and each system's outputs, blind them, run every\n"
    "deterministic check, decide each case by the policy when every item is resolved,\n"
    "send only what stays unresolved to the LLM judge (blind, both orders, cached),\n"
    "and record everything in SQLite.  The judge's API key is read from the\n"
    "environment variable its config names (api_key_env), never from the command line.\n"
    "\n"
    "  --system NAME=PATH  add or replace a system; PATH: a JSONL file or a directory\n"
    "  --db FILE           the database (default ./" CLI_DEFAULT_DB ")\n"
    "  --seed N            blinding seed, 0 to 2^53 - 1 (default: the suite's \"seed\",\n"
    "                      else 0)\n"
    "  --resume RUN        continue an interrupted run (RUN is an id or 'latest'):\n"
    "                      the suite is reloaded from the path stored with the run and\n"
    "                      must be unchanged; records already stored are kept; a\n"
    "                      judge_failed pair whose reply was invalid stays so\n"
    "  --retry-failed      with --resume: ask the judge again, afresh, about every\n"
    "                      judge_failed pair (valid replies still come from the cache;\n"
    "                      a new run always asks again what got an invalid reply)\n"
    "  --fail-on-judge-errors  exit 1 when any case is judge_failed\n"
    "  --batch N           cases per transaction (default 256)\n"
    CLI_CASE_SELECT_HELP
    "                      (a smoke run; recorded with the run, --resume keeps to it)\n"
    "  --shard K/N         only shard K of N (N <= 1024) of the selected cases, by the\n"
    "                      blinding HMAC; 'arbiter merge' joins the shards' databases\n"
    "  --judge FILE        the judge config (JSON, as the suite's \"judge\" object);\n"
    "                      replaces the suite's\n"
    "  --judge-url URL     override the judge's base_url\n"
    "  --judge-model NAME  override the judge's model\n"
    "  --concurrency N     judge requests in flight (default: the config's, else 8)\n"
    "  --no-judge          do not ask the judge: unresolved items stay pending\n"
    "  --judge-batch       judge through the provider's batch API (README \"Judge\n"
    "                      batches\"), polling until it answers\n"
    "  --no-wait           batch mode: exit 5 once the batches are submitted\n"
    "  --no-cache          ask the judge again even when a reply is stored\n"
    "  --max-cost USD      stop sending judge requests once the run's judge cost (at\n"
    "                      the config's \"price\", earlier executions included) would\n"
    "                      pass USD; the rest stay pending_judge (--resume, higher cap)\n"
    "  --require-calibrated KAPPA  refuse to run unless the latest calibration of this\n"
    "                      decision procedure (judge, task, rubric, policy) in the\n"
    "                      database (arbiter calibrate --suite/--run) has kappa >= KAPPA\n"
    "  --json              print the summary as one JSON object\n"
    CLI_PROGRESS_HELP
    "\n"
    "Prints the run id and a summary; on a terminal, a progress line on stderr.\n"
    "exit: 0 the run completed (some cases may be judge_failed), 1 a case is\n"
    "judge_failed or judge_refused and --fail-on-judge-errors was given, 2 usage or\n"
    "input error, 4 database failure, judge unreachable after every retry or refusing\n"
    "the key (continue with --resume), the judge's provider refusing the requests in a\n"
    "way no retry can fix (its message says what to change), or every case the judge\n"
    "was asked about is judge_failed or judge_refused, 5 judge batches still running\n";

/*
 * The summary on stdout: the counts, why the judge failed (failures.h), each system's wins,
 * the problems and the cost; with json, one object.
 */
static void print_summary(struct arb_store *st, const struct arb_run_summary *s, const char *db,
                          int json)
{
    size_t i;

    if (json) {
        cJSON *o = cJSON_CreateObject(), *arr;
        char *text = NULL;

        if (o && cJSON_AddNumberToObject(o, "run", (double)s->run_id) &&
            cJSON_AddNumberToObject(o, "cases", (double)s->cases) &&
            cJSON_AddNumberToObject(o, "decided", (double)s->decided) &&
            cJSON_AddNumberToObject(o, "pending_judge", (double)s->pending) &&
            cJSON_AddNumberToObject(o, "missing_output", (double)s->missing) &&
            cJSON_AddNumberToObject(o, "judge_failed", (double)s->judge_failed) &&
            cJSON_AddNumberToObject(o, "judge_refused", (double)s->judge_refused) &&
            cJSON_AddNumberToObject(o, "problems", (double)s->problems) &&
            cJSON_AddNumberToObject(o, "judge_held", (double)s->held) &&
            cJSON_AddNumberToObject(o, "judged", (double)s->judged) &&
            (isnan(s->judge_cost)
                 ? cJSON_AddNullToObject(o, "judge_cost_usd") != NULL
                 : cJSON_AddNumberToObject(o, "judge_cost_usd", s->judge_cost) != NULL) &&
            (arr = cJSON_AddArrayToObject(o, "systems")) != NULL) {
            for (i = 0; i < s->n_systems; i++) {
                cJSON *x = cJSON_CreateObject();

                if (!x || !cJSON_AddItemToArray(arr, x))
                    break;
                cJSON_AddStringToObject(x, "name", s->systems[i].name);
                cJSON_AddNumberToObject(x, "wins", (double)s->systems[i].wins);
                cJSON_AddNumberToObject(x, "losses", (double)s->systems[i].losses);
                cJSON_AddNumberToObject(x, "ties", (double)s->systems[i].ties);
            }
            /* Without a failed case there is no failed judgment to look for. */
            if (s->judge_failed || s->judge_refused)
                cli_add_judge_failures("run", st, s->run_id, o);
            else
                cJSON_AddArrayToObject(o, "judge_failures");
            text = cJSON_PrintUnformatted(o);
        }
        if (text)
            puts(text);
        cJSON_free(text);
        cJSON_Delete(o);
        return;
    }
    printf("run %lld: %zu cases: %zu decided, %zu pending the judge, %zu judge failed, %zu "
           "judge refused, %zu missing an output\n",
           (long long)s->run_id, s->cases, s->decided, s->pending, s->judge_failed,
           s->judge_refused, s->missing);
    if (s->judge_failed || s->judge_refused)
        cli_print_judge_failures("run", st, s->run_id, db);
    for (i = 0; i < s->n_systems; i++)
        printf("  %-20s %zu wins, %zu losses, %zu ties\n", s->systems[i].name, s->systems[i].wins,
               s->systems[i].losses, s->systems[i].ties);
    if (s->problems)
        printf("  %zu problems while loading (duplicate outputs, unknown cases, unreadable "
               "entries): see the report\n",
               s->problems);
    if (!isnan(s->judge_cost))
        printf("  judge cost: $%.4f\n", s->judge_cost);
    printf("report: arbiter report %lld --db %s\n", (long long)s->run_id, db);
}

/* Reload the suite of a stored run, with its systems, and check it is unchanged. */
struct resume_ctx {
    char *suite_path;
    char *systems_json;
    char *sha256;
    char *judge_json;
    uint64_t seed;
    int found;
    int unidentified; /* no inputs_json: stored by an Arbiter that did not record it */
};

static int on_run(void *ctx, const struct arb_run_row *r)
{
    struct resume_ctx *rc = ctx;

    rc->suite_path = strdup(r->suite_path ? r->suite_path : "");
    rc->systems_json = strdup(r->systems_json ? r->systems_json : "[]");
    rc->sha256 = strdup(r->suite_sha256 ? r->suite_sha256 : "");
    rc->judge_json = r->judge_json ? strdup(r->judge_json) : NULL;
    rc->seed = r->seed;
    rc->found = 1;
    rc->unidentified = r->inputs_json == NULL;
    return 1;
}

static int load_for_resume(struct arb_store *st, int64_t run, struct arb_suite **out,
                           struct cli_judge *judge)
{
    struct resume_ctx rc = {0};
    struct arb_err err = {{0}};
    cJSON *systems = NULL;
    const cJSON *s;
    int code = EXIT_PASS;
    enum arb_status rs = arb_store_runs(st, run, on_run, &rc, &err);

    if (rs || !rc.found || !rc.suite_path || !rc.systems_json || !rc.sha256) {
        cli_error("run", "%s", rs ? err.msg : "cannot read the stored run");
        code = rs ? cli_exit_for(rs) : EXIT_ENV;
        goto out;
    }
    rs = arb_suite_load(rc.suite_path, out, &err);
    if (rs) {
        cli_error("run", "resume: %s", err.msg);
        code = cli_exit_for(rs);
        goto out;
    }
    if (strcmp((*out)->sha256, rc.sha256) != 0) {
        cli_error("run", "resume: the suite '%s' changed since run %lld started; start a new run",
                  rc.suite_path, (long long)run);
        code = EXIT_USAGE;
        goto out;
    }
    if (rc.unidentified)
        fprintf(stderr,
                "arbiter run: note: run %lld was recorded without the identity of its input "
                "files (an older Arbiter): it resumes unchecked, so outputs changed since it "
                "started would be mixed with the stored ones\n",
                (long long)run);
    (*out)->seed = rc.seed;
    /* The judge the run started with, unless --judge names another. */
    code = cli_judge_setup(judge, "run", NULL, rc.judge_json);
    if (code)
        goto out;
    systems = cJSON_Parse(rc.systems_json);
    cJSON_ArrayForEach(s, systems)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(s, "name");
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(s, "path");
        char spec[8192];

        if (!cJSON_IsString(n) || !cJSON_IsString(p))
            continue;
        snprintf(spec, sizeof(spec), "%s=%s", n->valuestring, p->valuestring);
        rs = arb_suite_set_system(*out, spec, &err);
        if (rs) {
            cli_error("run", "resume: %s", err.msg);
            code = cli_exit_for(rs);
            break;
        }
    }
out:
    if (code) {
        arb_suite_free(*out);
        *out = NULL;
    }
    cJSON_Delete(systems);
    free(rc.suite_path);
    free(rc.systems_json);
    free(rc.sha256);
    free(rc.judge_json);
    return code;
}

/*
 * The exit code for the run's judge_failed cases (0 when none): 4 when every case the judge
 * was asked about failed, since a judge that answers nothing valid is as broken as one that
 * cannot be reached; else 1 under --fail-on-judge-errors, a negative outcome asked about
 * (like a --fail-under gate: the run itself worked); else 0.
 */
static int judge_failed_exit(const struct arb_run_summary *s, int fail_on_errors, const char *db)
{
    size_t bad = s->judge_failed + s->judge_refused;

    if (!bad)
        return EXIT_PASS;
    if (bad >= s->judged && !s->judge_failed) {
        /* Refused, not broken: asking again gets the same refusal. */
        cli_error("run",
                  "the judge refused every one of the %zu cases it was asked about "
                  "(judge_refused: a refusal or a content filter; see 'arbiter show %lld CASE "
                  "--db %s'): asking again gets the same answer; change the prompt, the model "
                  "or the outputs it sees",
                  s->judge_refused, (long long)s->run_id, db);
        return EXIT_ENV;
    }
    if (bad >= s->judged) {
        cli_error("run",
                  "every one of the %zu cases the judge was asked about is judge_failed%s: the "
                  "judge answered nothing valid (see 'arbiter show %lld CASE --db %s'); ask "
                  "again with 'arbiter run --resume %lld --retry-failed --db %s'",
                  bad, s->judge_refused ? " or judge_refused" : "", (long long)s->run_id, db,
                  (long long)s->run_id, db);
        return EXIT_ENV;
    }
    if (!fail_on_errors)
        return EXIT_PASS;
    cli_error("run",
              "%zu of the %zu cases the judge was asked about are judge_failed or "
              "judge_refused (--fail-on-judge-errors); ask again with 'arbiter run --resume "
              "%lld --retry-failed --db %s'",
              bad, s->judged, (long long)s->run_id, db);
    return EXIT_NEGATIVE;
}

/*
 * --require-calibrated: the latest study of the run's decision procedure (the judge config,
 * the task, the rubric, the suite's expectations and the policy: arb_procedure_hash) must
 * reach min_kappa.  A study of the judge's own winners (calibrate LABELS) measures another
 * procedure, and is named only to say so.
 */
static int check_calibrated(struct arb_store *st, const struct arb_suite *suite,
                            const struct cli_judge *judge, double min_kappa, const char *db)
{
    struct arb_calibration_info c;
    struct arb_err err = {{0}};
    char proc[65];
    int found = 0;
    enum arb_status rs;

    if (!judge->have) {
        cli_error("run", "--require-calibrated needs a judge (the suite's, or --judge FILE)");
        return EXIT_USAGE;
    }
    rs = arb_procedure_hash(suite, &judge->cfg, proc, &err);
    if (!rs)
        rs = arb_store_calibration_of(st, proc, NULL, &c, &found, &err);
    if (!rs && !found)
        rs = arb_store_calibration_of(st, NULL, judge->cfg.hash, &c, &found, &err);
    else if (!rs)
        found = 2; /* a study of the procedure */
    if (rs) {
        cli_error("run", "%s", err.msg);
        return EXIT_ENV;
    }
    if (found != 2) {
        cli_error("run",
                  "the decision procedure %.12s (judge %.12s with this suite's rubric and "
                  "policy) is not calibrated in '%s'%s; run 'arbiter calibrate --suite %s LABELS "
                  "--db %s'",
                  proc, judge->cfg.hash, db,
                  found ? " (the judge has a study of its own winners only, from calibrate "
                          "LABELS: another procedure)"
                        : "",
                  suite->path, db);
        return EXIT_USAGE;
    }
    if (isnan(c.kappa)) {
        cli_error("run",
                  "procedure %.12s has an undefined calibration kappa (study %lld: one "
                  "category only), below the required %.4f",
                  proc, (long long)c.id, min_kappa);
        return EXIT_USAGE;
    }
    if (c.kappa < min_kappa) {
        cli_error("run",
                  "procedure %.12s has calibration kappa %.4f (study %lld, n %lld), below the "
                  "required %.4f",
                  proc, c.kappa, (long long)c.id, (long long)c.n, min_kappa);
        return EXIT_USAGE;
    }
    return EXIT_PASS;
}

/* --shard K/N: two whole numbers, 1 <= K <= N <= ARB_SHARD_MAX; opt->value is unsigned[2]. */
static int shard_option(const char *cmd, const struct cli_option *opt, const char *v)
{
    unsigned *shard = opt->value;
    unsigned long long k = 0, n = 0;
    const char *p = v, *slash = strchr(v, '/');

    if (slash && slash > v && slash[1]) {
        for (; p < slash && *p >= '0' && *p <= '9' && k <= ARB_SHARD_MAX; p++)
            k = k * 10 + (unsigned)(*p - '0');
        if (p == slash)
            for (p = slash + 1; *p >= '0' && *p <= '9' && n <= ARB_SHARD_MAX; p++)
                n = n * 10 + (unsigned)(*p - '0');
    }
    if (!slash || p == v || *p || k < 1 || n < 1 || k > n || n > ARB_SHARD_MAX) {
        cli_error(cmd,
                  "%s: expected K/N, whole numbers with 1 <= K <= N <= %d (e.g. 2/4), got '%s'",
                  opt->name, ARB_SHARD_MAX, v);
        return -1;
    }
    shard[0] = (unsigned)k;
    shard[1] = (unsigned)n;
    return 0;
}

/* --system NAME=PATH, repeated: the specs, applied to the suite in order once it is loaded. */
struct system_args {
    const char *spec[MAX_SYSTEM_ARGS];
    size_t n;
};

static int system_option(const char *cmd, const struct cli_option *opt, const char *v)
{
    struct system_args *sa = opt->value;

    if (sa->n == MAX_SYSTEM_ARGS) {
        cli_error(cmd, "at most %d --system options", MAX_SYSTEM_ARGS);
        return -1;
    }
    sa->spec[sa->n++] = v;
    return 0;
}

/* The database, opened on a thread of its own while a new run's suite loads: the two are
 * independent, and each is a couple of milliseconds of every run's start. */
struct opening {
    const char *db;
    struct arb_store *st;
    struct arb_err err;
    enum arb_status rs;
    pthread_t thread;
    int threaded;
};

static void *open_store(void *arg)
{
    struct opening *o = arg;

    o->rs = arb_store_open(o->db, ARB_STORE_UNSHARED, &o->st, &o->err);
    return NULL;
}

/* Start opening (on a thread when behind is 1 and one starts); opened collects it. */
static void open_start(struct opening *o, const char *db, int behind)
{
    memset(o, 0, sizeof(*o));
    o->db = db;
    o->threaded = behind && pthread_create(&o->thread, NULL, open_store, o) == 0;
    if (!o->threaded)
        open_store(o);
}

static enum arb_status opened(struct opening *o, struct arb_store **st, struct arb_err *err)
{
    if (o->threaded)
        pthread_join(o->thread, NULL);
    o->threaded = 0;
    *st = o->st;
    if (o->rs)
        *err = o->err;
    return o->rs;
}

static int run_cmd(int argc, char **argv)
{
    const char *suite_path = NULL, *db = CLI_DEFAULT_DB, *resume = NULL;
    size_t i;
    int json = 0, code = EXIT_PASS, retry_failed = 0, fail_on_judge_errors = 0, n_pos = 0;
    unsigned long long seed = NO_SEED;
    struct arb_run_opts opts = {0};
    struct arb_run_summary sum;
    struct arb_suite *suite = NULL;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}}, suite_err = {{0}};
    struct opening opening;
    struct cli_judge judge;
    enum arb_status rs, rs_suite = ARB_OK;
    enum arb_status http = ARB_EINTERNAL; /* arb_http_global_init's: ARB_OK to clean up */
    int early;
    double min_kappa = NAN, max_cost = 0.0;
    struct cli_case_select sel;
    struct cli_progress prog;
    struct system_args systems = {{0}, 0};
    unsigned shard[2] = {0, 0}; /* --shard K/N */
    struct cli_batch batch;
    int pending = 0;
    /* A seed as a suite's (exact in JSON: the reports print it); a batch is held in memory. */
    const struct cli_option options[] = {
        CLI_OPT_CALLBACK("--system", &systems, system_option),
        CLI_OPT_DB(&db),
        CLI_OPT_WHOLE("--seed", &seed, 0, MAX_SEED),
        CLI_OPT_STRING("--resume", &resume),
        CLI_OPT_BOOL("--retry-failed", &retry_failed),
        CLI_OPT_BOOL("--fail-on-judge-errors", &fail_on_judge_errors),
        CLI_OPT_WHOLE("--batch", &opts.batch, 1, MAX_BATCH),
        CLI_CASE_SELECT_OPTIONS(&sel),
        CLI_OPT_CALLBACK("--shard", shard, shard_option),
        CLI_JUDGE_OPTIONS(&judge),
        CLI_OPT_DOUBLE("--max-cost", &max_cost, "US dollars", 0, 1e9,
                       CLI_OPT_LO_OPEN | CLI_OPT_HI_OPEN),
        CLI_OPT_DOUBLE("--require-calibrated", &min_kappa, "a kappa", -1, 1, 0),
        CLI_OPT_BOOL("--json", &json),
        CLI_OPT_BOOL("--judge-batch", &batch.on),
        CLI_OPT_BOOL("--no-wait", &batch.no_wait),
        CLI_PROGRESS_OPTIONS(&prog),
        CLI_OPT_END(),
    };

    memset(&sum, 0, sizeof(sum));
    memset(&judge, 0, sizeof(judge));
    memset(&sel, 0, sizeof(sel));
    memset(&prog, 0, sizeof(prog));
    memset(&batch, 0, sizeof(batch));
    code = cli_parse_options("run", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        goto out;
    code = EXIT_PASS;
    if (n_pos > 1) {
        cli_error("run", "unexpected argument '%s': give one SUITE", argv[1]);
        code = EXIT_USAGE;
        goto out;
    }
    suite_path = n_pos ? argv[0] : NULL;
    if (!suite_path == !resume) {
        cli_error("run", resume ? "give either SUITE or --resume RUN, not both"
                                : "missing SUITE (see 'arbiter run --help')");
        code = EXIT_USAGE;
        goto out;
    }
    if (retry_failed && !resume) {
        cli_error("run", "--retry-failed goes with --resume RUN (a new run always asks again "
                         "what got an invalid reply)");
        code = EXIT_USAGE;
        goto out;
    }
    if (resume && (systems.n || seed != NO_SEED || arb_case_select_active(&sel.sel) || shard[1])) {
        cli_error("run", "--resume continues a run as it started: no --system, --seed, --limit, "
                         "--cases or --shard");
        code = EXIT_USAGE;
        goto out;
    }
    /* libcurl and OpenSSL are set up while the database opens (main.c leaves them to run),
     * when this libcurl allows it with another thread running; before, when not. */
    early = !arb_http_global_init_threadsafe();
    if (early)
        http = arb_http_global_init();
    open_start(&opening, db, !resume);
    if (!early)
        http = arb_http_global_init();
    if (!resume) {
        rs_suite = arb_suite_load(suite_path, &suite, &suite_err);
        for (i = 0; !rs_suite && i < systems.n; i++)
            rs_suite = arb_suite_set_system(suite, systems.spec[i], &suite_err);
    }
    rs = opened(&opening, &st, &err);
    if (http != ARB_OK) {
        cli_error("run", "cannot initialise the HTTP library");
        code = EXIT_ENV;
        goto out;
    }
    if (rs) {
        cli_error("run", "%s", err.msg);
        code = EXIT_ENV;
        goto out;
    }
    if (resume) {
        rs = arb_store_run_resolve(st, resume, &opts.resume_run, &err);
        if (rs) {
            cli_error("run", "%s", err.msg);
            code = cli_exit_for(rs);
            goto out;
        }
        code = load_for_resume(st, opts.resume_run, &suite, &judge);
        if (code)
            goto out;
    } else {
        if (rs_suite) {
            cli_error("run", "%s", suite_err.msg);
            code = cli_exit_for(rs_suite);
            goto out;
        }
        if (seed != NO_SEED)
            suite->seed = seed;
        code = cli_judge_setup(&judge, "run", suite->judge, NULL);
        if (code)
            goto out;
    }
    if (!isnan(min_kappa)) {
        code = check_calibrated(st, suite, &judge, min_kappa, db);
        if (code)
            goto out;
    }
    if (max_cost > 0 && !(judge.have && judge.cfg.price.set)) {
        cli_error("run", judge.have ? "--max-cost needs the judge's price: add \"price\": "
                                      "{\"input\": USD, \"output\": USD} (per million tokens) "
                                      "to the judge config"
                                    : "--max-cost limits the judge, and this run has none");
        code = EXIT_USAGE;
        goto out;
    }
    code = cli_batch_setup(&batch, &judge, &prog);
    if (code)
        goto out;
    if (judge.have) {
        opts.judge = &judge.cfg;
        opts.api_key = judge.key;
        opts.no_cache = judge.no_cache;
        opts.retry_failed = retry_failed;
        opts.max_cost = max_cost;
        fprintf(stderr, "arbiter run: judge %s (config %.12s)\n", judge.cfg.model, judge.cfg.hash);
    }
    opts.version = ARBITER_VERSION;
    opts.select = &sel.sel;
    opts.shard_k = shard[0];
    opts.shard_n = shard[1];
    cli_progress_start(&prog, "arbiter run");
    prog.show_cost = judge.have && judge.cfg.price.set;
    opts.progress = cli_progress_run;
    opts.progress_ctx = &prog;
    opts.notice = cli_progress_notice;
    opts.notice_ctx = &prog;
    if (judge.have && judge.cfg.batch)
        rs = arb_run_batched(st, suite, &opts, &batch.bo, &sum, &pending, &err);
    else
        rs = arb_run_execute(st, suite, &opts, &sum, &err);
    cli_progress_end(&prog);
    if (rs) {
        cli_error("run", "%s", err.msg);
        /* Stopped by the provider's refusal, the same request fails the same way: continue
         * only with a changed judge. */
        if (sum.run_id && strncmp(err.msg, ARB_JUDGE_STOPPED, strlen(ARB_JUDGE_STOPPED)) == 0)
            fprintf(stderr,
                    "arbiter run: records so far are kept; once the judge config is changed, "
                    "continue with 'arbiter run --resume %lld --db %s --judge CHANGED.json'\n",
                    (long long)sum.run_id, db);
        else if (sum.run_id)
            fprintf(stderr,
                    "arbiter run: records so far are kept; continue with "
                    "'arbiter run --resume %lld --db %s'\n",
                    (long long)sum.run_id, db);
        code = cli_exit_for(rs);
        goto out;
    }
    print_summary(st, &sum, db, json);
    if (pending) {
        fprintf(stderr,
                "arbiter run: judge batches are still running; see 'arbiter batch status %lld "
                "--db %s', continue with 'arbiter run --resume %lld --db %s'\n",
                (long long)sum.run_id, db, (long long)sum.run_id, db);
        code = EXIT_PENDING;
        goto out;
    }
    if (sum.held)
        fprintf(stderr,
                "arbiter run: the judge's cost reached --max-cost %.4g: %zu requests were not "
                "sent and their cases stay pending_judge; continue with 'arbiter run --resume "
                "%lld --db %s --max-cost HIGHER'\n",
                max_cost, sum.held, (long long)sum.run_id, db);
    if (sum.unreachable) {
        cli_error("run",
                  "%zu judge requests got no reply after every retry; their cases are "
                  "judge_failed: continue with 'arbiter run --resume %lld --db %s'",
                  sum.unreachable, (long long)sum.run_id, db);
        code = EXIT_ENV;
    }
    if (!code)
        code = judge_failed_exit(&sum, fail_on_judge_errors, db);
out:
    cli_case_select_release(&sel);
    cli_judge_release(&judge);
    arb_run_summary_release(&sum);
    arb_suite_free(suite);
    arb_store_close(st);
    if (http == ARB_OK)
        arb_http_global_cleanup();
    return code;
}

const struct arb_cmd arb_cmd_run = {
    .name = "run",
    .summary = "run a suite against two or more systems' outputs, into the database",
    .usage = usage_text,
    .run = run_cmd,
};
