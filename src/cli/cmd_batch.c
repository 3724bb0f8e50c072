/*
 * cmd_batch.c - `arbiter batch status|wait RUN`: the provider batches of a run whose judge
 * is in batch mode (include/arbiter/batch.h).  status prints what the database records of
 * them; wait is `arbiter run --resume RUN` (poll until every batch has ended, handle the
 * results, decide, and submit what a retry needs, until nothing is left).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/batch.h"
#include "arbiter/store.h"
#include "cli.h"
#include "judge_opts.h"
#include "parse_options.h"
#include "progress.h"

static const char usage_text[] =
    "usage: arbiter batch status RUN [--poll] [--db FILE] [--json]\n"
    "       arbiter batch wait RUN [--db FILE] [--json]\n"
    "\n"
    "The judge's provider batches of a run made with --judge-batch (or a judge config with\n"
    "\"mode\": \"batch\").  RUN is an id or 'latest'.\n"
    "\n"
    "  status   print each batch as recorded: its id, provider, the provider's batch id,\n"
    "           Arbiter's state (intent, uploaded, submitting, submitted, ended,\n"
    "           downloaded, ingested), the provider's status and request counts, the\n"
    "           number of requests and when it was created and last updated, as the\n"
    "           database holds them\n"
    "  --poll   status: first ask the provider once about each submitted batch and\n"
    "           store what it says (and the results of those ended); nothing is\n"
    "           submitted and the run is not decided (the key from the variable the\n"
    "           run's judge config names)\n"
    "  wait     the same as 'arbiter run --resume RUN': submit what is recorded and not\n"
    "           submitted, poll every batch_poll_s until every batch has ended, handle\n"
    "           the results as the judge's replies and decide the run\n"
    "  --db FILE  the database (default ./" CLI_DEFAULT_DB ")\n"
    "  --json     status: one JSON object {\"run\", \"batches\": [...]}; wait: the run's\n"
    "             summary as one JSON object\n"
    "\n"
    "exit: 0 every batch has ended and the run's cases are decided (status) or the run\n"
    "completed (wait), 2 usage error, 4 database or provider failure, 5 some batch is still\n"
    "running or some case still pending the judge (status)\n";

struct listing {
    cJSON *arr; /* --json */
    size_t n, running;
    int oom;
};

static int running_state(const char *state)
{
    return strcmp(state, "downloaded") != 0 && strcmp(state, "ingested") != 0;
}

static int on_batch(void *ctx, const struct arb_batch_row *b)
{
    struct listing *l = ctx;
    cJSON *o, *counts;

    l->n++;
    l->running += (size_t)running_state(b->state);
    if (!l->arr) {
        printf("batch %lld  %-9s  %-10s  %s  %s  %lld requests  counts %s  created %s  updated "
               "%s%s%s\n",
               (long long)b->id, b->provider, b->state, b->remote_id ? b->remote_id : "-",
               b->remote_status ? b->remote_status : "-", (long long)b->n_requests,
               b->counts_json ? b->counts_json : "-", b->created_at, b->updated_at,
               b->error ? "  error: " : "", b->error ? b->error : "");
        return 0;
    }
    o = cJSON_CreateObject();
    counts = b->counts_json ? cJSON_Parse(b->counts_json) : cJSON_CreateNull();
    if (!o || !counts || !cJSON_AddItemToArray(l->arr, o) ||
        !cJSON_AddNumberToObject(o, "id", (double)b->id) ||
        !cJSON_AddStringToObject(o, "provider", b->provider) ||
        !cJSON_AddStringToObject(o, "state", b->state) ||
        !(b->remote_id ? cJSON_AddStringToObject(o, "remote_id", b->remote_id)
                       : cJSON_AddNullToObject(o, "remote_id")) ||
        !(b->remote_status ? cJSON_AddStringToObject(o, "remote_status", b->remote_status)
                           : cJSON_AddNullToObject(o, "remote_status")) ||
        !cJSON_AddNumberToObject(o, "requests", (double)b->n_requests) ||
        !cJSON_AddItemToObject(o, "counts", counts) ||
        !cJSON_AddStringToObject(o, "created_at", b->created_at) ||
        !cJSON_AddStringToObject(o, "updated_at", b->updated_at) ||
        !(b->error ? cJSON_AddStringToObject(o, "error", b->error)
                   : cJSON_AddNullToObject(o, "error"))) {
        if (o && !cJSON_GetArraySize(l->arr))
            cJSON_Delete(o);
        l->oom = 1;
        return 1;
    }
    return 0;
}

/* *pending: the run's cases still pending the judge.  Every batch ended is not the run done:
 * a pass must still handle their results (a run killed while it did, or before it recorded
 * the next batches). */
static enum arb_status pending_cases(struct arb_store *st, int64_t run, size_t *pending,
                                     struct arb_err *err)
{
    struct arb_run_summary sum;
    enum arb_status rs;

    memset(&sum, 0, sizeof(sum));
    rs = arb_run_summarize(st, run, &sum, err);
    *pending = rs ? 0 : sum.pending;
    arb_run_summary_release(&sum);
    return rs;
}

static int status(struct arb_store *st, int64_t run, int json)
{
    struct listing l = {NULL, 0, 0, 0};
    struct arb_err err = {{0}};
    cJSON *doc = NULL;
    enum arb_status rs;
    size_t pending = 0;
    char *text;

    if (json) {
        doc = cJSON_CreateObject();
        if (!doc || !cJSON_AddNumberToObject(doc, "run", (double)run) ||
            !(l.arr = cJSON_AddArrayToObject(doc, "batches"))) {
            cJSON_Delete(doc);
            cli_error("batch", "out of memory");
            return EXIT_ENV;
        }
    }
    rs = arb_store_batches(st, run, on_batch, &l, &err);
    if (!rs && !l.oom && l.n)
        rs = pending_cases(st, run, &pending, &err);
    if (!rs && !l.oom && json && !cJSON_AddNumberToObject(doc, "pending_judge", (double)pending))
        l.oom = 1;
    if (rs || l.oom) {
        cJSON_Delete(doc);
        cli_error("batch", "%s", rs ? err.msg : "out of memory");
        return EXIT_ENV;
    }
    if (json) {
        text = cJSON_PrintUnformatted(doc);
        if (text)
            puts(text);
        cJSON_free(text);
        cJSON_Delete(doc);
    } else if (!l.n) {
        printf("run %lld has no judge batches\n", (long long)run);
    } else {
        printf("run %lld: %zu batches, %zu not ended\n", (long long)run, l.n, l.running);
        if (pending)
            printf("run %lld: %zu cases pending the judge: 'arbiter batch wait %lld' handles "
                   "the batches' results and decides them\n",
                   (long long)run, pending, (long long)run);
    }
    return l.running || pending ? EXIT_PENDING : EXIT_PASS;
}

/* The run's stored judge config: *json (caller frees), NULL when it has none. */
static int on_run(void *ctx, const struct arb_run_row *r)
{
    char **json = ctx;

    *json = r->judge_json ? strdup(r->judge_json) : NULL;
    return 1;
}

/* --poll: ask the provider about the run's batches once, with the run's judge config. */
static int poll(struct arb_store *st, int64_t run)
{
    struct cli_judge judge;
    struct arb_batch_opts bo;
    struct cli_progress prog;
    struct arb_err err = {{0}};
    char *json = NULL;
    size_t running = 0;
    int code;
    enum arb_status rs = arb_store_runs(st, run, on_run, &json, &err);

    memset(&judge, 0, sizeof(judge));
    memset(&bo, 0, sizeof(bo));
    memset(&prog, 0, sizeof(prog));
    if (rs) {
        cli_error("batch", "%s", err.msg);
        return cli_exit_for(rs);
    }
    code = json ? cli_judge_setup(&judge, "batch", NULL, json) : EXIT_PASS;
    free(json);
    if (!code && judge.have && judge.cfg.batch) {
        bo.notice = cli_progress_notice;
        bo.notice_ctx = &prog;
        rs = arb_run_batches_poll(st, run, &judge.cfg, judge.key, &bo, &running, &err);
        if (rs) {
            cli_error("batch", "%s", err.msg);
            code = cli_exit_for(rs);
        }
    }
    cli_judge_release(&judge);
    return code;
}

static int batch_cmd(int argc, char **argv)
{
    const char *db = CLI_DEFAULT_DB, *sub;
    int json = 0, n_pos = 0, code, do_poll = 0;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    int64_t run = 0;
    enum arb_status rs;
    const struct cli_option options[] = {
        CLI_OPT_DB(&db),
        CLI_OPT_BOOL("--json", &json),
        CLI_OPT_BOOL("--poll", &do_poll),
        CLI_OPT_END(),
    };

    code = cli_parse_options("batch", usage_text, options, argc, argv, &n_pos);
    if (code != CLI_PARSED)
        return code;
    sub = n_pos ? argv[0] : "";
    if (n_pos != 2 || (strcmp(sub, "status") != 0 && strcmp(sub, "wait") != 0)) {
        cli_error("batch", "expected 'status RUN' or 'wait RUN' (see 'arbiter batch --help')");
        return EXIT_USAGE;
    }
    if (do_poll && strcmp(sub, "status") != 0) {
        cli_error("batch", "--poll goes with 'batch status' ('batch wait' polls until the end)");
        return EXIT_USAGE;
    }
    if (strcmp(sub, "wait") == 0) {
        char *rargv[] = {"run", "--resume", argv[1], "--db", (char *)db, json ? "--json" : NULL,
                         NULL};

        return arb_cmd_run.run(json ? 6 : 5, rargv);
    }
    rs = arb_store_open(db, do_poll ? 0 : ARB_STORE_READONLY, &st, &err);
    if (!rs)
        rs = arb_store_run_resolve(st, argv[1], &run, &err);
    if (rs) {
        cli_error("batch", "%s", err.msg);
        arb_store_close(st);
        return cli_exit_for(rs);
    }
    code = do_poll ? poll(st, run) : EXIT_PASS;
    if (!code)
        code = status(st, run, json);
    arb_store_close(st);
    return code;
}

const struct arb_cmd arb_cmd_batch = {
    .name = "batch",
    .summary = "the judge's provider batches of a run: their status, or wait for them",
    .usage = usage_text,
    .run = batch_cmd,
};
