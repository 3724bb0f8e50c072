/*
 * cmd_replay.c - `arbiter replay RUN`: re-derive every check record,
 * resolution and verdict of a run offline, from what the database stored
 * (the cases, the outputs, the judge's cached replies) and the suite (which
 * must be unchanged), and compare with the stored records.  Exit 1 on any
 * difference, listing the first few by case and item.
 *
 * It never writes to the database it replays, nor anywhere else: the run is
 * re-derived into a database in memory, reading the stored cases and outputs
 * through a stored-run source and the judge's stored replies from the
 * database replayed; a judge request missing from them is an error naming
 * the case.  --rejudge reads the same way and writes its new run into the
 * database.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbiter/file.h"
#include "arbiter/judge.h"
#include "arbiter/run.h"
#include "arbiter/store.h"
#include "arbiter/suite.h"
#include "cli.h"
#include "failures.h"
#include "judge_opts.h"
#include "progress.h"
#include "replay_load.h"

#define SHOWN_DIFFERENCES 10

static const char usage_text[] =
    "usage: arbiter replay RUN [--db FILE]\n"
    "       arbiter replay RUN --rejudge JUDGE.json [--into NEWRUN] [--db FILE]\n"
    "                      [--judge-url URL] [--judge-model NAME] [--concurrency N] [--no-cache]\n"
    "                      [--max-cost USD] [--progress | --no-progress]\n"
    "\n"
    "Re-derive every check record, resolution and verdict of a run (an id or 'latest')\n"
    "offline: from the cases and outputs stored in the database, the judge replies in its\n"
    "cache and the suite file (which must be unchanged: its SHA-256 is checked).  Nothing\n"
    "is sent anywhere and the database is not modified.  Prints whether every record is\n"
    "identical and lists the first differences by case and item.\n"
    "\n"
    "With --rejudge, a new run (NEWRUN: an id not yet used, or 'new', the default) is\n"
    "made from the same stored cases and outputs, the same suite and blinding, with\n"
    "JUDGE.json as its judge: the deterministic records are re-derived (and checked to\n"
    "equal the run's), and only the new judge is asked (its cached replies are reused).\n"
    "Then 'arbiter report NEWRUN --against RUN' shows which verdicts changed.  --into\n"
    "the id of an interrupted re-judging of RUN by the same judge continues it, from the\n"
    "stored inputs.  --max-cost caps what the new judge may cost, as for 'arbiter run'\n"
    "(continue with --into and a higher cap); a progress line shows on a terminal.\n"
    "\n"
    "exit: 0 identical (rejudged), 1 a difference (a deterministic record of the new run\n"
    "differs), 2 usage or input error (suite changed or gone, a judge request not in the\n"
    "cache), 4 database or judge failure\n";

/* ---- comparing ------------------------------------------------------------------------- */

struct recs {
    char **key, **val;
    size_t n, cap;
};

static void recs_clear(struct recs *r)
{
    size_t i;

    for (i = 0; i < r->n; i++) {
        free(r->key[i]);
        free(r->val[i]);
    }
    r->n = 0;
}

static int recs_add(struct recs *r, const char *k1, const char *k2, const char *k3, const char *v1,
                    const char *v2, const char *v3)
{
    size_t kn = strlen(k1) + strlen(k2) + strlen(k3) + 8;
    size_t vn = strlen(v1) + strlen(v2) + strlen(v3) + 8;

    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 32;
        char **k = realloc(r->key, cap * sizeof(*k)), **v;

        if (!k)
            return -1;
        r->key = k;
        v = realloc(r->val, cap * sizeof(*v));
        if (!v)
            return -1;
        r->val = v;
        r->cap = cap;
    }
    r->key[r->n] = malloc(kn);
    r->val[r->n] = malloc(vn);
    if (!r->key[r->n] || !r->val[r->n]) {
        free(r->key[r->n]);
        free(r->val[r->n]);
        return -1;
    }
    snprintf(r->key[r->n], kn, "%s %s '%s'", k1, k2, k3);
    snprintf(r->val[r->n], vn, "%s\n%s\n%s", v1, v2, v3);
    r->n++;
    return 0;
}

static int add_check(void *ctx, const struct arb_check_row *c)
{
    return recs_add(ctx, c->system, c->kind, c->item, c->verdict, c->record_json, "");
}

static int add_trial(void *ctx, const struct arb_trial_row *t)
{
    char trial[64], counts[128];

    snprintf(trial, sizeof(trial), "%lld", (long long)t->trial);
    snprintf(counts, sizeof(counts), "%d %lld %lld %lld", t->passed, (long long)t->n_pass,
             (long long)t->n_fail, (long long)t->n_unresolved);
    return recs_add(ctx, t->system, "trial", trial, counts, t->records_json ? t->records_json : "",
                    "");
}

static int add_verdict(void *ctx, const struct arb_verdict_row *v)
{
    char pair[512];

    snprintf(pair, sizeof(pair), "%s vs %s", v->system_a, v->system_b);
    return recs_add(ctx, "verdict", pair, v->status, v->winner ? v->winner : "",
                    v->comparison_json ? v->comparison_json : "", "");
}

struct diff {
    struct arb_store *st;  /* the stored run's */
    struct arb_store *rst; /* the re-derived run's (st, or a database in memory) */
    int64_t stored, replayed;
    int deterministic_only; /* compare checks and trials, not verdicts (rejudge) */
    size_t records, differences;
    struct recs a, b;
    enum arb_status rc;
    struct arb_err *err;
};

static void compare(struct diff *d, const char *case_id, const char *what)
{
    size_t i, n = d->a.n > d->b.n ? d->a.n : d->b.n;

    for (i = 0; i < n; i++) {
        const char *ka = i < d->a.n ? d->a.key[i] : NULL, *kb = i < d->b.n ? d->b.key[i] : NULL;

        d->records++;
        if (ka && kb && strcmp(ka, kb) == 0 && strcmp(d->a.val[i], d->b.val[i]) == 0)
            continue;
        if (++d->differences > SHOWN_DIFFERENCES)
            continue;
        if (!kb)
            printf("case '%s': %s %s is stored but was not re-derived\n", case_id, what, ka);
        else if (!ka)
            printf("case '%s': %s %s was re-derived but is not stored\n", case_id, what, kb);
        else if (strcmp(ka, kb) != 0)
            printf("case '%s': stored %s %s, re-derived %s\n", case_id, what, ka, kb);
        else
            printf("case '%s': %s %s differs from the stored record\n", case_id, what, ka);
    }
}

static int compare_case(void *ctx, const char *case_id, int64_t seq, const char *case_json)
{
    struct diff *d = ctx;

    (void)seq;
    (void)case_json;
    recs_clear(&d->a);
    recs_clear(&d->b);
    if (arb_store_checks(d->st, d->stored, case_id, add_check, &d->a, d->err) ||
        arb_store_checks(d->rst, d->replayed, case_id, add_check, &d->b, d->err)) {
        d->rc = ARB_EDB;
        return 1;
    }
    compare(d, case_id, "check");
    recs_clear(&d->a);
    recs_clear(&d->b);
    if (arb_store_trials(d->st, d->stored, case_id, add_trial, &d->a, d->err) ||
        arb_store_trials(d->rst, d->replayed, case_id, add_trial, &d->b, d->err)) {
        d->rc = ARB_EDB;
        return 1;
    }
    compare(d, case_id, "system");
    recs_clear(&d->a);
    recs_clear(&d->b);
    if (d->deterministic_only)
        return 0;
    if (arb_store_verdicts(d->st, d->stored, case_id, add_verdict, &d->a, d->err) ||
        arb_store_verdicts(d->rst, d->replayed, case_id, add_verdict, &d->b, d->err)) {
        d->rc = ARB_EDB;
        return 1;
    }
    compare(d, case_id, "the");
    return 0;
}

/* ---- the command ----------------------------------------------------------------------- */

static void diff_release(struct diff *d)
{
    recs_clear(&d->a);
    recs_clear(&d->b);
    free(d->a.key);
    free(d->a.val);
    free(d->b.key);
    free(d->b.val);
}

/*
 * --into N when run N exists: it may only be a re-judging of run by this very
 * judge (same suite, systems and seed; same config hash), which is then
 * continued (*resume = N) from the stored inputs.  Returns an exit code.
 */
static int rejudge_target(struct arb_store *st, int64_t into, int64_t run,
                          const struct stored_run *src, const char *hash, int64_t *resume,
                          const char *db)
{
    struct stored_run t = {0};
    struct arb_err err = {{0}};
    char id[32];
    int64_t found;
    int same = 0;

    *resume = 0;
    snprintf(id, sizeof(id), "%lld", (long long)into);
    if (arb_store_run_resolve(st, id, &found, &err) != ARB_OK)
        return EXIT_PASS; /* a new run with that id */
    if (arb_store_runs(st, into, replay_read_run, &t, &err) != ARB_OK || !t.found) {
        cli_error("replay", "%s", err.msg[0] ? err.msg : "cannot read the run");
        replay_stored_run_release(&t);
        return EXIT_ENV;
    }
    if (t.sha256 && t.systems_json && t.judge_json && t.seed == src->seed &&
        strcmp(t.sha256, src->sha256) == 0 && strcmp(t.systems_json, src->systems_json) == 0) {
        cJSON *j = cJSON_Parse(t.judge_json);
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(j, "hash");

        same = cJSON_IsString(h) && strcmp(h->valuestring, hash) == 0;
        cJSON_Delete(j);
    }
    replay_stored_run_release(&t);
    if (!same || into == run) {
        cli_error("replay",
                  "--into %lld: run %lld already exists in '%s' and is not a "
                  "re-judging of run %lld by this judge",
                  (long long)into, (long long)into, db, (long long)run);
        return EXIT_USAGE;
    }
    *resume = into;
    fprintf(stderr, "arbiter replay: continuing run %lld\n", (long long)into);
    return EXIT_PASS;
}

/*
 * --rejudge: a new run from the stored inputs with another judge, into the
 * same database; its deterministic records must equal the run's.
 */
static int rejudge_cmd(const char *db, const char *run_spec, int64_t into, struct cli_judge *judge,
                       double max_cost, struct cli_progress *prog)
{
    struct arb_store *st = NULL;
    struct stored_run sr = {0};
    struct arb_suite *suite = NULL;
    struct arb_run_opts opts = {0};
    struct arb_run_summary sum;
    struct diff d;
    struct arb_err err = {{0}};
    struct arb_run_source_stored source;
    int64_t run = 0;
    int code;
    enum arb_status rs;

    memset(&sum, 0, sizeof(sum));
    memset(&d, 0, sizeof(d));
    rs = arb_store_open(db, 0, &st, &err);
    if (rs) {
        cli_error("replay", "%s", err.msg);
        code = EXIT_ENV;
        goto out;
    }
    code = replay_load(st, run_spec, &run, &sr, &suite, &err);
    if (!code)
        code = cli_judge_setup(judge, "replay", NULL, NULL);
    if (!code && into)
        code = rejudge_target(st, into, run, &sr, judge->cfg.hash, &opts.resume_run, db);
    if (code)
        goto out;
    opts.judge = &judge->cfg;
    opts.api_key = judge->key;
    opts.no_cache = judge->no_cache;
    opts.new_run_id = opts.resume_run ? 0 : into;
    opts.systems_json = sr.systems_json; /* where the outputs came from */
    opts.version = ARBITER_VERSION;
    /* The run's stored cases and outputs, read from this very database as the new run is
     * written into it. */
    arb_run_source_stored_init(&source, st, run);
    opts.source = &source.src;
    if (max_cost > 0 && !judge->cfg.price.set) {
        cli_error("replay", "--max-cost needs the judge's price: add \"price\": {\"input\": USD, "
                            "\"output\": USD} (per million tokens) to %s",
                  judge->file);
        code = EXIT_USAGE;
        goto out;
    }
    opts.max_cost = max_cost;
    fprintf(stderr, "arbiter replay: run %lld re-judged by %s (config %.12s)\n", (long long)run,
            judge->cfg.model, judge->cfg.hash);
    cli_progress_start(prog, "arbiter replay");
    prog->show_cost = judge->cfg.price.set;
    opts.progress = cli_progress_run;
    opts.progress_ctx = prog;
    opts.notice = cli_progress_notice;
    opts.notice_ctx = prog;
    rs = arb_run_execute(st, suite, &opts, &sum, &err);
    cli_progress_end(prog);
    if (!rs && sum.held)
        fprintf(stderr,
                "arbiter replay: the judge's cost reached --max-cost %.4g: %zu requests were not "
                "sent and their cases stay pending_judge; continue with 'arbiter replay %lld "
                "--rejudge %s --into %lld --db %s --max-cost HIGHER'\n",
                max_cost, sum.held, (long long)run, judge->file, (long long)sum.run_id, db);
    if (rs) {
        cli_error("replay", "%s", err.msg);
        if (sum.run_id)
            fprintf(stderr,
                    "arbiter replay: records so far are kept in run %lld; continue "
                    "with 'arbiter replay %lld --rejudge %s --into %lld --db %s'\n",
                    (long long)sum.run_id, (long long)run, judge->file, (long long)sum.run_id, db);
        code = cli_exit_for(rs);
        goto out;
    }
    d.st = d.rst = st;
    d.stored = run;
    d.replayed = sum.run_id;
    d.deterministic_only = 1;
    d.err = &err;
    rs = arb_store_cases(st, run, compare_case, &d, &err);
    if (!rs)
        rs = d.rc;
    if (rs) {
        cli_error("replay", "%s", err.msg);
        code = cli_exit_for(rs);
        goto out;
    }
    printf("run %lld: run %lld re-judged: %zu cases: %zu decided, %zu pending the judge, %zu "
           "judge failed, %zu judge refused, %zu missing an output\n",
           (long long)sum.run_id, (long long)run, sum.cases, sum.decided, sum.pending,
           sum.judge_failed, sum.judge_refused, sum.missing);
    if (sum.judge_failed || sum.judge_refused)
        cli_print_judge_failures("replay", st, sum.run_id, db);
    if (d.differences) {
        printf("run %lld: %zu of %zu deterministic records differ from run %lld's\n",
               (long long)sum.run_id, d.differences, d.records, (long long)run);
        code = EXIT_NEGATIVE;
    } else {
        printf("run %lld: its %zu deterministic records equal run %lld's\n", (long long)sum.run_id,
               d.records, (long long)run);
    }
    printf("changes: arbiter report %lld --against %lld --db %s\n", (long long)sum.run_id,
           (long long)run, db);
    if (!code && sum.unreachable) {
        cli_error("replay",
                  "%zu judge requests got no reply after every retry; their cases are "
                  "judge_failed: continue with 'arbiter replay %lld --rejudge %s --into %lld "
                  "--db %s'",
                  sum.unreachable, (long long)run, judge->file, (long long)sum.run_id, db);
        code = EXIT_ENV;
    }
out:
    diff_release(&d);
    arb_run_summary_release(&sum);
    arb_suite_free(suite);
    arb_store_close(st);
    replay_stored_run_release(&sr);
    cli_judge_release(judge);
    return code;
}

static int replay_cmd(int argc, char **argv)
{
    const char *db = CLI_DEFAULT_DB, *run_spec = NULL;
    struct arb_store *orig = NULL, *mem = NULL;
    struct stored_run sr = {0};
    struct arb_suite *suite = NULL;
    struct arb_judge_config judge;
    struct arb_run_opts opts = {0};
    struct arb_run_summary sum;
    struct diff d;
    struct arb_err err = {{0}};
    struct arb_run_source_stored source;
    int64_t run = 0, into = 0;
    int n_pos, code = EXIT_PASS, have_judge = 0;
    enum arb_status rs;
    struct cli_judge rejudge;
    struct cli_progress prog;
    const char *into_spec = NULL;
    double max_cost = 0.0;

    memset(&rejudge, 0, sizeof(rejudge));
    memset(&prog, 0, sizeof(prog));
    memset(&judge, 0, sizeof(judge));
    memset(&sum, 0, sizeof(sum));
    memset(&d, 0, sizeof(d));
    const struct cli_option options[] = {
        CLI_OPT_DB(&db),
        CLI_OPT_STRING("--rejudge", &rejudge.file),
        CLI_OPT_STRING("--into", &into_spec),
        CLI_OPT_DOUBLE("--max-cost", &max_cost, "US dollars", 0, 1e9,
                       CLI_OPT_LO_OPEN | CLI_OPT_HI_OPEN),
        CLI_JUDGE_OVERRIDE_OPTIONS(&rejudge), /* the judge is --rejudge's: no --judge */
        CLI_PROGRESS_OPTIONS(&prog),
        CLI_OPT_END(),
    };

    code = cli_parse_options("replay", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    code = EXIT_PASS;
    if (n_pos > 1) {
        cli_error("replay", "unexpected argument '%s'", argv[1]);
        return EXIT_USAGE;
    }
    run_spec = n_pos ? argv[0] : NULL;
    if (!run_spec) {
        cli_error("replay", "missing RUN (an id or 'latest'; see 'arbiter runs')");
        return EXIT_USAGE;
    }
    if ((into_spec || rejudge.url || rejudge.model || rejudge.concurrency || rejudge.no_cache ||
         max_cost > 0) &&
        !rejudge.file) {
        cli_error("replay", "--into, --max-cost and the judge overrides go with --rejudge "
                            "JUDGE.json");
        return EXIT_USAGE;
    }
    if (into_spec && strcmp(into_spec, "new") != 0) {
        char *end;

        errno = 0;
        into = strtoll(into_spec, &end, 10);
        /* Capped: past SQLite's largest rowid it would pick later run ids at random. */
        if (errno || *end || into_spec[0] < '0' || into_spec[0] > '9' || into <= 0 ||
            into > 2147483647) {
            cli_error("replay", "--into: expected a run id (1 to 2147483647) or 'new', got '%s'",
                      into_spec);
            return EXIT_USAGE;
        }
    }
    if (rejudge.file)
        return rejudge_cmd(db, run_spec, into, &rejudge, max_cost, &prog);
    rs = cli_open_for_reading("replay", db, &orig);
    if (rs)
        return cli_exit_for(rs);
    code = replay_load(orig, run_spec, &run, &sr, &suite, &err);
    if (code)
        goto out;
    if (sr.judge_json) {
        cJSON *jo = cJSON_Parse(sr.judge_json);

        /* Offline: no request is sent, so credentials the URL had (never stored) are moot. */
        cJSON_DeleteItemFromObjectCaseSensitive(jo, "hash");
        cJSON_DeleteItemFromObjectCaseSensitive(jo, "base_url_credentials");
        rs = jo ? arb_judge_config_parse(jo, &judge, &err) : ARB_ENOMEM;
        cJSON_Delete(jo);
        if (rs) {
            cli_error("replay", "the stored judge config: %s", err.msg);
            code = cli_exit_for(rs);
            goto out;
        }
        have_judge = 1;
        judge.offline = 1;
        opts.judge = &judge;
    }
    /* Re-derive into a database in memory from the stored inputs, the judge answering from
     * the stored replies: the database replayed is only read, and no file is written. */
    rs = arb_store_open(":memory:", 0, &mem, &err);
    if (!rs) {
        arb_run_source_stored_init(&source, orig, run);
        opts.source = &source.src;
        opts.replies = orig;    /* the judge answers from the stored replies, offline: */
        opts.replies_run = run; /* each slot from the reply the run used there */
        rs = arb_run_execute(mem, suite, &opts, &sum, &err);
    }
    if (rs) {
        cli_error("replay", "%s", err.msg);
        code = cli_exit_for(rs);
        goto out;
    }
    d.st = orig;
    d.rst = mem;
    d.stored = run;
    d.replayed = sum.run_id;
    d.err = &err;
    rs = arb_store_cases(orig, run, compare_case, &d, &err);
    if (!rs)
        rs = d.rc;
    if (rs) {
        cli_error("replay", "%s", err.msg);
        code = cli_exit_for(rs);
        goto out;
    }
    if (d.differences) {
        if (d.differences > SHOWN_DIFFERENCES)
            printf("... and %zu more\n", d.differences - SHOWN_DIFFERENCES);
        printf("replay of run %lld: %zu of %zu records differ\n", (long long)run, d.differences,
               d.records);
        code = EXIT_NEGATIVE;
    } else {
        printf("replay of run %lld: %zu records re-derived offline, all identical\n",
               (long long)run, d.records);
    }
out:
    diff_release(&d);
    arb_run_summary_release(&sum);
    if (have_judge)
        arb_judge_config_release(&judge);
    arb_suite_free(suite);
    arb_store_close(mem);
    arb_store_close(orig);
    replay_stored_run_release(&sr);
    return code;
}

const struct arb_cmd arb_cmd_replay = {
    .name = "replay",
    .summary = "re-derive every record of a run offline and compare: exit 1 on any difference",
    .usage = usage_text,
    .run = replay_cmd,
};
