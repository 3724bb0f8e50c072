/*
 * calibrate_proc.c - `arbiter calibrate --run RUN LABELS` and `arbiter
 * calibrate --suite SUITE LABELS`: the verdicts of a run's whole decision
 * procedure (checks, judge, policy) against human labels.
 *
 * --run reads a finished run's stored verdicts for the labelled cases and asks
 * no judge; its labels come from a file, or with --labels-from-db from the
 * labels table (labels.h) as the text `export --labels` writes, read by the
 * same parser.  --suite makes a run of its own (kind "calibration": never
 * "latest") of the labelled pairs through the suite's procedure - the same
 * arb_run_execute as `arbiter run`, with the suite's checks, blinding, judge
 * prompt, rubric and policy - and then measures that run exactly as --run
 * does.  Either way the study is stored under the run's procedure_hash, where
 * `run --require-calibrated` and the report's judge health find it.
 *
 * For --suite the labelled pairs become the run's cases: a cases file and one
 * outputs file per system in a private temporary folder (removed after), and a
 * copy of the suite that names them, parsed from the suite's own folder so its
 * expected_files resolve as they do for the suite.  output_1 is the suite's
 * first system and output_2 its second, so their names are redacted from the
 * outputs as in a run.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arbiter/buf.h"
#include "arbiter/calibrate.h"
#include "arbiter/json.h"
#include "arbiter/run.h"
#include "arbiter/store.h"
#include "arbiter/suite.h"
#include "calibrate_proc.h"
#include "progress.h"

/* ---- the run measured ----------------------------------------------------------------- */

struct run_facts {
    char *systems[2]; /* owned */
    size_t n_systems;
    char procedure[65];
    char judge_hash[65];
    int found, oom;
};

static void run_facts_release(struct run_facts *rf)
{
    free(rf->systems[0]);
    free(rf->systems[1]);
    rf->systems[0] = rf->systems[1] = NULL;
}

static int on_run_row(void *ctx, const struct arb_run_row *r)
{
    struct run_facts *rf = ctx;
    cJSON *sys = r->systems_json ? cJSON_Parse(r->systems_json) : NULL;
    cJSON *judge = r->judge_json ? cJSON_Parse(r->judge_json) : NULL;
    const cJSON *x, *hash = cJSON_GetObjectItemCaseSensitive(judge, "hash");

    rf->found = 1;
    cJSON_ArrayForEach(x, sys)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(x, "name");

        if (cJSON_IsString(name) && rf->n_systems < 2 &&
            !(rf->systems[rf->n_systems] = strdup(name->valuestring)))
            rf->oom = 1;
        rf->n_systems += cJSON_IsString(name);
    }
    snprintf(rf->procedure, sizeof(rf->procedure), "%s",
             r->procedure_hash ? r->procedure_hash : "");
    snprintf(rf->judge_hash, sizeof(rf->judge_hash), "%s",
             cJSON_IsString(hash) ? hash->valuestring : "");
    cJSON_Delete(sys);
    cJSON_Delete(judge);
    return 1;
}

static int read_run(struct arb_store *st, int64_t run, struct run_facts *rf)
{
    struct arb_err err = {{0}};

    memset(rf, 0, sizeof(*rf));
    if (arb_store_runs(st, run, on_run_row, rf, &err) || !rf->found || rf->oom) {
        cli_error("calibrate", "%s",
                  err.msg[0] ? err.msg
                  : rf->oom  ? "out of memory"
                             : "cannot read the run");
        return EXIT_ENV;
    }
    if (rf->n_systems != 2) {
        cli_error("calibrate",
                  "run %lld has %zu systems; calibrate --run measures the verdicts of a run "
                  "of two",
                  (long long)run, rf->n_systems);
        return EXIT_USAGE;
    }
    if (!rf->procedure[0]) {
        cli_error("calibrate",
                  "run %lld was stored before procedures had an identity (schema 7): run its "
                  "suite again, or re-judge it into a new run ('arbiter replay %lld --rejudge "
                  "JUDGE.json'), and calibrate that run",
                  (long long)run, (long long)run);
        return EXIT_USAGE;
    }
    return EXIT_PASS;
}

/* A labelled criterion the run's rubric lacks is an error in the labels. */
static int check_criteria(const struct arb_calib_set *set, const char *labels, int64_t run)
{
    for (size_t i = 0; i < set->n; i++)
        for (size_t k = 0; k < set->items[i].n_crit; k++)
            if (set->items[i].has_final && set->items[i].crit[k].verdict == ARB_V_ABSENT) {
                cli_error("calibrate",
                          "%s: case '%s' labels criterion '%s', which run %lld's "
                          "rubric does not have",
                          labels, set->items[i].id, set->items[i].crit[k].name, (long long)run);
                return EXIT_USAGE;
            }
    return EXIT_PASS;
}

/* Measure run's verdicts of set's cases; store the study under the run's procedure. */
static int measure(struct arb_store *st, int64_t run, const struct run_facts *rf,
                   struct arb_calib_set *set, const struct cal_proc *cp, const char *source)
{
    const char *const systems[2] = {rf->systems[0], rf->systems[1]};
    struct arb_calib_opts opts = cp->opts;
    struct arb_err err = {{0}};
    size_t unmatched = 0;
    cJSON *study = NULL;
    enum arb_status rs;
    int code;

    rs = arb_calib_from_run(st, run, systems, set, &unmatched, &err);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        return cli_exit_for(rs);
    }
    if (unmatched) {
        for (size_t i = 0; i < set->n; i++)
            if (!set->items[i].has_final) {
                cli_error("calibrate",
                          "%s: %zu labelled cases have no verdict of %s vs %s in run %lld "
                          "(first: '%s')",
                          cp->labels, unmatched, systems[0], systems[1], (long long)run,
                          set->items[i].id);
                break;
            }
        return EXIT_USAGE;
    }
    code = check_criteria(set, cp->labels, run);
    if (code)
        return code;
    opts.judge_hash = rf->judge_hash[0] ? rf->judge_hash : NULL;
    rs = arb_calib_study(set->items, set->n, set->kind, &opts, &study, &err);
    if (!rs && (!cJSON_AddStringToObject(study, "procedure_hash", rf->procedure) ||
                !cJSON_AddStringToObject(study, "source", source) ||
                !cJSON_AddNumberToObject(study, "run", (double)run) ||
                !cJSON_AddItemToObject(study, "systems", cJSON_CreateStringArray(systems, 2))))
        rs = arb_err_set(&err, ARB_ENOMEM, "out of memory");
    if (rs) {
        cJSON_Delete(study);
        cli_error("calibrate", "%s", err.msg);
        return cli_exit_for(rs);
    }
    code = cli_calib_store(st, cp->labels, study, run, rf->procedure, source);
    if (!code)
        code = cli_calib_print(study, cp->format);
    cJSON_Delete(study);
    return code;
}

/*
 * The labels of run in the database as a set, named "labels of run N in DB" (cp->labels,
 * pointing at name) in messages and in the stored study.  An exit code.
 */
static int labels_from_db(struct arb_store *st, int64_t run, const char *const systems[2],
                          struct cal_proc *cp, char *name, size_t n, struct arb_calib_set **set)
{
    struct arb_err err = {{0}};
    struct arb_buf text;
    enum arb_status rs;
    int code;

    arb_buf_init(&text, 0);
    snprintf(name, n, "labels of run %lld in %s", (long long)run, cp->db);
    cp->labels = name;
    code = cli_labels_text("calibrate", st, run, cp->annotators, &text);
    if (!code && !text.len) {
        char why[600];

        cli_labels_none(run, cp->annotators, why, sizeof(why));
        cli_error("calibrate",
                  "%s in '%s': label its pairs with 'arbiter view --label', or give "
                  "a LABELS file",
                  why, cp->db);
        code = EXIT_USAGE;
    }
    if (!code) {
        rs = arb_calib_load_named_text(text.ptr, text.len, name, systems, set, &err);
        if (rs) {
            cli_error("calibrate", "%s", err.msg);
            code = cli_exit_for(rs);
        }
    }
    arb_buf_release(&text);
    return code;
}

int cli_calibrate_run(struct cal_proc *cp)
{
    struct arb_store *st = NULL;
    struct arb_calib_set *set = NULL;
    struct arb_err err = {{0}};
    struct run_facts rf;
    char name[PATH_MAX + 64];
    int64_t run = 0;
    enum arb_status rs;
    int code;

    memset(&rf, 0, sizeof(rf));
    rs = arb_store_open(cp->db, 0, &st, &err);
    if (!rs)
        rs = arb_store_run_resolve(st, cp->run, &run, &err);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        arb_store_close(st);
        return cli_exit_for(rs);
    }
    code = read_run(st, run, &rf);
    if (!code) {
        const char *const systems[2] = {rf.systems[0], rf.systems[1]};

        if (cp->from_db) {
            code = labels_from_db(st, run, systems, cp, name, sizeof(name), &set);
        } else {
            rs = arb_calib_load_named(cp->labels, systems, &set, &err);
            if (rs) {
                cli_error("calibrate", "%s", err.msg);
                code = cli_exit_for(rs);
            }
        }
    }
    if (!code)
        code = measure(st, run, &rf, set, cp, "run");
    run_facts_release(&rf);
    arb_calib_set_free(set);
    arb_store_close(st);
    return code;
}

/* ---- the labelled pairs as a run of the suite ------------------------------------------ */

struct tmp_inputs {
    char dir[PATH_MAX - 64]; /* room for "/output_1.jsonl" in the paths below */
    char cases[PATH_MAX], out[2][PATH_MAX];
};

static void tmp_remove(struct tmp_inputs *t)
{
    if (!t->dir[0])
        return;
    unlink(t->cases);
    unlink(t->out[0]);
    unlink(t->out[1]);
    rmdir(t->dir);
    t->dir[0] = '\0';
}

/* One JSONL line of obj to f; 0 on success. */
static int put_line(FILE *f, cJSON *obj)
{
    char *text = cJSON_PrintUnformatted(obj);
    int bad = !text || fputs(text, f) == EOF || fputc('\n', f) == EOF;

    cJSON_free(text);
    return bad;
}

static int write_inputs(const struct arb_calib_set *set, struct tmp_inputs *t)
{
    const char *tmp = getenv("TMPDIR");
    FILE *f[3] = {NULL, NULL, NULL};
    int bad = 0;

    if ((size_t)snprintf(t->dir, sizeof(t->dir), "%s/arbiter-calibrate-XXXXXX",
                         tmp && *tmp ? tmp : "/tmp") >= sizeof(t->dir)) {
        cli_error("calibrate", "TMPDIR is too long a path");
        t->dir[0] = '\0';
        return EXIT_ENV;
    }
    if (!mkdtemp(t->dir)) {
        cli_error("calibrate", "cannot make a temporary folder '%s': %s", t->dir, strerror(errno));
        t->dir[0] = '\0';
        return EXIT_ENV;
    }
    /* Absolute: the suite's copy resolves relative paths from the suite's own folder. */
    if (t->dir[0] != '/') {
        char *abs = realpath(t->dir, NULL);

        if (!abs || strlen(abs) >= sizeof(t->dir)) {
            cli_error("calibrate", "cannot resolve the temporary folder '%s'", t->dir);
            rmdir(t->dir);
            free(abs);
            t->dir[0] = '\0';
            return EXIT_ENV;
        }
        memcpy(t->dir, abs, strlen(abs) + 1);
        free(abs);
    }
    snprintf(t->cases, sizeof(t->cases), "%s/cases.jsonl", t->dir);
    snprintf(t->out[0], sizeof(t->out[0]), "%s/output_1.jsonl", t->dir);
    snprintf(t->out[1], sizeof(t->out[1]), "%s/output_2.jsonl", t->dir);
    f[0] = fopen(t->cases, "w");
    f[1] = fopen(t->out[0], "w");
    f[2] = fopen(t->out[1], "w");
    bad = !f[0] || !f[1] || !f[2];
    for (size_t i = 0; !bad && i < set->n; i++) {
        const struct arb_calib_item *it = &set->items[i];
        cJSON *c = cJSON_CreateObject(), *o1 = cJSON_CreateObject(), *o2 = cJSON_CreateObject();

        bad = !c || !o1 || !o2 || !cJSON_AddStringToObject(c, "id", it->id) ||
              (it->prompt && !cJSON_AddStringToObject(c, "prompt", it->prompt)) ||
              (it->expected &&
               !cJSON_AddItemToObject(c, "expected", cJSON_Duplicate(it->expected, 1))) ||
              !cJSON_AddStringToObject(o1, "id", it->id) ||
              !cJSON_AddStringToObject(o1, "output", it->output_1 ? it->output_1 : "") ||
              !cJSON_AddStringToObject(o2, "id", it->id) ||
              !cJSON_AddStringToObject(o2, "output", it->output_2 ? it->output_2 : "") ||
              put_line(f[0], c) || put_line(f[1], o1) || put_line(f[2], o2);
        cJSON_Delete(c);
        cJSON_Delete(o1);
        cJSON_Delete(o2);
    }
    for (int k = 0; k < 3; k++)
        if (f[k] && fclose(f[k]) != 0)
            bad = 1;
    if (bad) {
        cli_error("calibrate", "cannot write the labelled pairs under '%s'", t->dir);
        tmp_remove(t);
        return EXIT_ENV;
    }
    return EXIT_PASS;
}

/*
 * The suite with the labelled pairs as its cases and outputs: the same document with
 * "cases" and "systems" replaced (the suite's first two systems, else output_1 and
 * output_2), parsed from the suite's folder.
 */
static int pairs_suite(const struct arb_suite *s, const struct tmp_inputs *t,
                       struct arb_suite **out)
{
    const char *names[2];
    cJSON *doc = cJSON_Duplicate(s->doc, 1), *systems = cJSON_CreateObject();
    struct arb_err err = {{0}};
    char *text = NULL;
    enum arb_status rs = ARB_ENOMEM;

    for (int k = 0; k < 2; k++)
        names[k] = s->n_systems > (size_t)k ? s->systems[k].name : k ? "output_2" : "output_1";
    if (doc && systems && cJSON_AddStringToObject(systems, names[0], t->out[0]) &&
        cJSON_AddStringToObject(systems, names[1], t->out[1])) {
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "systems");
        cJSON_DeleteItemFromObjectCaseSensitive(doc, "cases");
        if (cJSON_AddItemToObject(doc, "systems", systems)) {
            systems = NULL;
            if (cJSON_AddStringToObject(doc, "cases", t->cases))
                text = cJSON_PrintUnformatted(doc);
        }
    }
    if (text)
        rs = arb_suite_parse(text, strlen(text), s->path, s->dir, out, &err);
    cJSON_free(text);
    cJSON_Delete(systems);
    cJSON_Delete(doc);
    if (rs) {
        cli_error("calibrate", "%s", err.msg[0] ? err.msg : "out of memory");
        return cli_exit_for(rs);
    }
    return EXIT_PASS;
}

/* Run suite (the labelled pairs) as a calibration run; *run receives its id. */
static int execute(struct arb_store *st, struct arb_suite *suite, struct cal_proc *cp, int64_t *run)
{
    struct arb_run_opts opts;
    struct arb_run_summary sum;
    struct arb_err err = {{0}};
    enum arb_status rs;
    int code = EXIT_PASS;

    memset(&opts, 0, sizeof(opts));
    memset(&sum, 0, sizeof(sum));
    if (cp->judge->have) {
        opts.judge = &cp->judge->cfg;
        opts.api_key = cp->judge->key;
        opts.no_cache = cp->judge->no_cache;
        fprintf(stderr, "arbiter calibrate: judge %s (config %.12s): the suite's procedure\n",
                cp->judge->cfg.model, cp->judge->cfg.hash);
    }
    opts.version = ARBITER_VERSION;
    opts.kind = "calibration";
    cli_progress_start(cp->progress, "arbiter calibrate");
    opts.progress = cli_progress_run;
    opts.progress_ctx = cp->progress;
    opts.notice = cli_progress_notice;
    opts.notice_ctx = cp->progress;
    rs = arb_run_execute(st, suite, &opts, &sum, &err);
    cli_progress_end(cp->progress);
    *run = sum.run_id;
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        code = cli_exit_for(rs);
    } else if (sum.unreachable) {
        cli_error("calibrate",
                  "%zu judge requests got no reply after every retry; no study stored (run "
                  "again: stored replies are not asked again)",
                  sum.unreachable);
        code = EXIT_ENV;
    } else {
        fprintf(stderr,
                "arbiter calibrate: run %lld (a calibration run): %zu pairs, %zu decided, %zu "
                "judge_failed, %zu judge_refused\n",
                (long long)sum.run_id, sum.cases, sum.decided, sum.judge_failed, sum.judge_refused);
    }
    arb_run_summary_release(&sum);
    return code;
}

int cli_calibrate_suite(struct cal_proc *cp)
{
    struct arb_suite *suite = NULL, *pairs = NULL;
    struct arb_calib_set *set = NULL;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    struct tmp_inputs t;
    struct run_facts rf;
    int64_t run = 0;
    enum arb_status rs;
    int code;

    memset(&t, 0, sizeof(t));
    memset(&rf, 0, sizeof(rf));
    rs = arb_suite_load(cp->suite, &suite, &err);
    if (!rs)
        rs = arb_calib_load(cp->labels, &set, &err);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        code = cli_exit_for(rs);
        goto out;
    }
    if (set->kind != ARB_CALIB_PAIRWISE) {
        cli_error("calibrate",
                  "%s: --suite measures pairs ({\"id\", \"output_1\", \"output_2\", "
                  "\"human\"}), not expectation labels",
                  cp->labels);
        code = EXIT_USAGE;
        goto out;
    }
    code = write_inputs(set, &t);
    if (!code)
        code = pairs_suite(suite, &t, &pairs);
    if (!code)
        code = cli_judge_setup(cp->judge, "calibrate", pairs->judge, NULL);
    if (code)
        goto out;
    rs = arb_store_open(cp->db, 0, &st, &err);
    if (rs) {
        cli_error("calibrate", "%s", err.msg);
        code = EXIT_ENV;
        goto out;
    }
    code = execute(st, pairs, cp, &run);
    tmp_remove(&t);
    if (!code)
        code = read_run(st, run, &rf);
    if (!code) {
        /* The labels' own outputs stay: they are what the run was given. */
        code = measure(st, run, &rf, set, cp, "suite");
    }
out:
    tmp_remove(&t);
    run_facts_release(&rf);
    arb_store_close(st);
    arb_calib_set_free(set);
    arb_suite_free(pairs);
    arb_suite_free(suite);
    return code;
}
