/*
 * cmd_compare.c - `arbiter compare`: one blind pairwise comparison of two
 * outputs (files or directories) for one task, with the machinery of `run`
 * (checks for the expectations, the judge for the rest), written as the
 * blind comparator's comparison.json.
 *
 * It builds a one-case suite in memory, runs it through the engine with a
 * source that reads each path as that system's one output (run.h
 * arb_run_source_one), into a database (one in memory unless --db is given,
 * which keeps the judge's cache across comparisons), and writes the verdict
 * with "A" meaning A_PATH and "B" meaning B_PATH whatever the blinding chose
 * (compare_blind.c relabels it, and puts the paths' names on the suite's
 * redaction list).  Nothing is written but -o and --db.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/run.h"
#include "arbiter/store.h"
#include "arbiter/suite.h"
#include "cli.h"
#include "compare_blind.h"
#include "judge_opts.h"
#include "progress.h"
#include "outfile.h"

#define CASE_ID "compare"
/* The systems' names: never words an output uses, since system names are redacted too
 * (as "first" and "second" were, from "First, ..." in an output). */
#define SYS_A    "A_PATH"
#define SYS_B    "B_PATH"
#define MAX_SEED 9007199254740991ull /* 2^53 - 1, as "seed" in a suite */

static const char usage_text[] =
    "usage: arbiter compare --task TEXT|@FILE [--expectations FILE] [--rubric FILE]\n"
    "                       [-o FILE] [--seed N] [--judge FILE] [--no-feedback] [--db FILE]\n"
    "                       [judge options] A_PATH B_PATH\n"
    "\n"
    "One blind comparison of two outputs (each a file, or a directory of files) for one\n"
    "task.  Expectations with checks are decided by their comparators; the rubric and\n"
    "free-text expectations go to the judge (both orders, fenced with a random code per\n"
    "request, cached).  Writes the blind comparator's comparison.json (winner, reasoning,\n"
    "rubric, output_quality, expectation_results, judge, systems).\n"
    "\n"
    "Labels: A is A_PATH and B is B_PATH in every member (winner, rubric, output_quality,\n"
    "expectation_results, judge.winner), whichever the judge was shown as \"Response A\".\n"
    "The judge's reasoning is kept in its own words, those of the order it was asked\n"
    "first; judge.positions says what its \"A\" and \"B\" are in this file: {\"A\": \"B\",\n"
    "\"B\": \"A\"} means the judge's Response A was B_PATH.  Without a judge's answer the\n"
    "reasoning is Arbiter's, in this file's labels.\n"
    "\n"
    "Blinding: the names in A_PATH and B_PATH that tell them apart (a directory or file\n"
    "name one path has and the other lacks, and its stems before a dot; 3 bytes or more)\n"
    "are replaced by [REDACTED] in everything the judge is sent.\n"
    "\n"
    "  --task TEXT|@FILE     the task the outputs answer (required)\n"
    "  --expectations FILE   a JSON array of expectations: strings, or objects\n"
    "                        {\"id\", \"text\", \"check\"} as in a suite\n"
    "  --rubric FILE         the task's own criteria, as a suite's \"rubric\":\n"
    "                        {\"content\": [...], \"structure\": [...]}, each criterion\n"
    "                        {\"name\", \"description\", \"anchors\", \"check\", \"graded\"};\n"
    "                        a dimension left out keeps the seed's three (default: the\n"
    "                        seed's correctness ... usability)\n"
    "  --seed N              blinding seed, 0 to 2^53 - 1 (default 0): which path the\n"
    "                        judge is shown first (with \"swap\": false, its only order)\n"
    "  -o FILE               where to write (default comparison.json), through a\n"
    "                        temporary file renamed when complete; never an input (nor\n"
    "                        into an input directory) or the database\n"
    "  --judge FILE          the judge config (JSON); without one, what no check decides\n"
    "                        stays unresolved and the winner is null\n"
    "  --no-feedback         do not ask the judge for each output's strengths and\n"
    "                        weaknesses (asked by default, unless the config says\n"
    "                        \"feedback\": false); output_quality's sentences are then\n"
    "                        built from the checks and the rubric scores\n"
    "  --db FILE             record into this database (default: one in memory, gone\n"
    "                        when compare ends)\n"
    "  --judge-url, --judge-model, --concurrency, --no-cache   as for `arbiter run`\n"
    "\n"
    "exit: 0 written, 2 usage or input error, 4 judge or database failure\n";

/*
 * Every entry of a directory output must be a regular file or a directory (a
 * link to a regular file counts as the file), as the outputs reader reads
 * it: a FIFO, a dangling link or a link to a directory is refused, naming it,
 * before anything opens it (a FIFO would block; dropping it would hide why
 * the output lacks it).  0 fine; -1 refused (message printed).
 */
static int check_tree(const char *dir, int depth)
{
    DIR *d;
    struct dirent *e;
    int rc = 0;

    if (depth > 32)
        return 0; /* the reader reports the depth */
    d = opendir(dir);
    if (!d)
        return 0; /* the reader reports why */
    while (!rc && (e = readdir(d)) != NULL) {
        char p[4096];
        struct stat sb;

        if (e->d_name[0] == '.')
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (lstat(p, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode)) {
            rc = check_tree(p, depth + 1);
        } else if (!(stat(p, &sb) == 0 && S_ISREG(sb.st_mode))) {
            /* sb: the link itself when it leads nowhere, else what it leads to */
            cli_error("compare", "'%s' is not a regular file (%s): refusing to compare without it",
                      p,
                      S_ISLNK(sb.st_mode)   ? "a dangling symbolic link"
                      : S_ISDIR(sb.st_mode) ? "a symbolic link to a directory"
                                            : arb_file_type_name((unsigned)sb.st_mode));
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

static int check_tree_if_dir(const char *path)
{
    return arb_is_dir(path) ? check_tree(path, 0) : 0;
}

static cJSON *read_expectations(const char *path)
{
    struct arb_buf b;
    struct arb_err err = {{0}};
    cJSON *doc = NULL, *out, *e;
    int i = 0;

    arb_buf_init(&b, 16 << 20);
    if (arb_file_read(path, &b, &err) ||
        arb_json_parse(b.ptr, b.len, ARB_JSON_ALLOW_BOM | ARB_JSON_NO_DUPLICATES, &doc, &err)) {
        cli_error("compare", "--expectations %s: %s", path, err.msg);
        arb_buf_release(&b);
        return NULL;
    }
    arb_buf_release(&b);
    if (!cJSON_IsArray(doc)) {
        cli_error("compare", "--expectations %s: expected a JSON array", path);
        cJSON_Delete(doc);
        return NULL;
    }
    out = cJSON_CreateArray();
    cJSON_ArrayForEach(e, doc)
    {
        cJSON *x;
        char id[32];

        if (!out)
            break;
        i++;
        if (cJSON_IsString(e)) {
            snprintf(id, sizeof(id), "e%d", i);
            x = cJSON_CreateObject();
            if (x && !(cJSON_AddStringToObject(x, "id", id) &&
                       cJSON_AddStringToObject(x, "text", e->valuestring))) {
                cJSON_Delete(x);
                x = NULL;
            }
        } else {
            x = cJSON_Duplicate(e, 1);
        }
        if (!x || !cJSON_AddItemToArray(out, x)) {
            cJSON_Delete(x);
            cJSON_Delete(out);
            out = NULL;
        }
    }
    cJSON_Delete(doc);
    if (!out)
        cli_error("compare", "out of memory");
    return out;
}

/*
 * The --rubric file: a JSON object, the suite's "rubric" member as it is written in a suite
 * (its shape and checks are the suite parser's to judge, and its errors are located back in
 * this file by locate_in).  NULL with the message printed.
 */
static cJSON *read_rubric(const char *path)
{
    struct arb_buf b;
    struct arb_err err = {{0}};
    cJSON *doc = NULL;

    arb_buf_init(&b, 16 << 20);
    if (arb_file_read(path, &b, &err) ||
        arb_json_parse(b.ptr, b.len, ARB_JSON_ALLOW_BOM | ARB_JSON_NO_DUPLICATES, &doc, &err)) {
        cli_error("compare", "--rubric %s: %s", path, err.msg);
        arb_buf_release(&b);
        return NULL;
    }
    arb_buf_release(&b);
    if (!cJSON_IsObject(doc)) {
        cli_error("compare",
                  "--rubric %s: expected a JSON object {\"content\": [criteria], "
                  "\"structure\": [criteria]}, as a suite's \"rubric\"",
                  path);
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

/*
 * An error in the suite compare builds ("compare:L:C: /expectations/1: ...") that is about
 * the member at ptr ("/expectations", "/rubric") is the user's file's, the one that member was
 * read from: say so, located there (the member is the file's document, its items keep their
 * positions).  1 when it was, 0 when the error is about something else.
 */
static int locate_in(struct arb_err *err, const char *ptr, const char *path)
{
    char key[32];
    const char *at;
    size_t n;
    struct arb_buf b;
    struct arb_err read_err = {{0}};

    snprintf(key, sizeof(key), ": %s", ptr);
    at = strstr(err->msg, key);
    n = strlen(key);
    if (!path || !at || (at[n] != '/' && at[n] != ':'))
        return 0;
    arb_buf_init(&b, 16 << 20);
    if (arb_file_read(path, &b, &read_err) == ARB_OK) {
        char rest[sizeof(err->msg)];

        /* "/1: missing ..." stays a pointer into the file; ": ..." is about the whole file. */
        snprintf(rest, sizeof(rest), "%s", at[n] == ':' ? at + n + 1 + (at[n + 1] == ' ') : at + n);
        arb_err_set(err, ARB_OK, "%s", rest);
        arb_err_locate(err, path, b.ptr, b.len, NULL);
    }
    arb_buf_release(&b);
    return 1;
}

struct got {
    cJSON *cmp;  /* NULL: none, or out of memory (taken says which) */
    int taken;   /* a verdict was read */
    int swapped; /* the blinding showed B_PATH as "A": the verdict's A is B_PATH */
};

static int take_verdict(void *ctx, const struct arb_verdict_row *v)
{
    struct got *g = ctx;

    g->taken = 1;
    g->cmp = cJSON_Parse(v->comparison_json ? v->comparison_json : "{}");
    g->swapped = strcmp(v->system_a, SYS_A) != 0;
    return 1;
}

struct compare_args {
    const char *task, *exp_path, *rubric_path, *out_path, *db, *a, *b;
    unsigned long long seed;
    int no_feedback;
};

/* 0: parsed; -1: --help printed; else the exit code of a usage error (message printed). */
static int parse_args(int argc, char **argv, struct compare_args *ca, struct cli_judge *judge)
{
    const struct cli_option options[] = {
        CLI_OPT_STRING("--task", &ca->task),
        CLI_OPT_STRING("--expectations", &ca->exp_path),
        CLI_OPT_STRING("--rubric", &ca->rubric_path),
        CLI_OPT_BOOL("--no-feedback", &ca->no_feedback),
        CLI_OPT_STRING("-o", &ca->out_path),
        CLI_OPT_WHOLE("--seed", &ca->seed, 0, MAX_SEED),
        CLI_OPT_DB(&ca->db),
        CLI_JUDGE_OPTIONS(judge),
        CLI_OPT_END(),
    };
    int n_pos, code = cli_parse_options("compare", usage_text, options, argc, argv, &n_pos);

    if (code != CLI_PARSED)
        return code == EXIT_PASS ? -1 : code;
    if (n_pos > 2) {
        cli_error("compare", "unexpected argument '%s': give A_PATH and B_PATH", argv[2]);
        return EXIT_USAGE;
    }
    ca->a = n_pos > 0 ? argv[0] : NULL;
    ca->b = n_pos > 1 ? argv[1] : NULL;
    if (!ca->task || !ca->b) {
        cli_error("compare", "usage: arbiter compare --task TEXT|@FILE A_PATH B_PATH");
        return EXIT_USAGE;
    }
    if (access(ca->a, R_OK) != 0 || access(ca->b, R_OK) != 0) {
        cli_error("compare", "cannot read '%s': %s", access(ca->a, R_OK) ? ca->a : ca->b,
                  strerror(errno));
        return EXIT_USAGE;
    }
    return EXIT_PASS;
}

/*
 * -o must be neither an input nor the database, whatever it is called: `compare
 * A.txt B.txt -o A.txt` would replace A.txt with the verdict on it.  Checked
 * before any work, so a refused -o costs no judge request.  Returns an exit code.
 */
static int check_out_path(const struct compare_args *ca, const struct cli_judge *judge)
{
    const char *task = ca->task[0] == '@' ? ca->task + 1 : NULL;

    if (cli_outfile_check_input("compare", ca->out_path, ca->a, "A_PATH") ||
        cli_outfile_check_input("compare", ca->out_path, ca->b, "B_PATH") ||
        cli_outfile_check_input("compare", ca->out_path, task, "--task @FILE") ||
        cli_outfile_check_input("compare", ca->out_path, ca->exp_path, "--expectations") ||
        cli_outfile_check_input("compare", ca->out_path, ca->rubric_path, "--rubric") ||
        cli_outfile_check_input("compare", ca->out_path, judge->file, "--judge") ||
        (ca->db && cli_outfile_check("compare", ca->out_path, ca->db)))
        return EXIT_USAGE;
    return EXIT_PASS;
}

/* "systems": {"A": A_PATH, "B": B_PATH}, as given.  0, or -1 out of memory. */
static int add_systems(cJSON *cmp, const struct compare_args *ca)
{
    cJSON *sys = cJSON_AddObjectToObject(cmp, "systems");

    return sys && cJSON_AddStringToObject(sys, "A", ca->a) &&
                   cJSON_AddStringToObject(sys, "B", ca->b)
               ? 0
               : -1;
}

/* text and a newline to path, whole or not at all (as report's and export's -o). */
static int write_out(const char *path, const char *text)
{
    struct arb_buf b;
    int bad;

    arb_buf_init(&b, 0);
    bad = arb_buf_adds(&b, text) || arb_buf_addc(&b, '\n');
    if (bad)
        cli_error("compare", "out of memory");
    else
        bad = cli_outfile_write("compare", path, b.ptr, b.len);
    arb_buf_release(&b);
    return bad ? -1 : 0;
}

/*
 * The one-case suite, as JSON text in *out (the caller frees); returns an exit code.  Its
 * "redact" list holds the paths' distinguishing names, so the engine keeps them from the judge.
 */
static int suite_text(const struct compare_args *ca, char **out)
{
    cJSON *suite = cJSON_CreateObject(), *systems, *cases, *c, *exps = NULL, *redact;
    cJSON *rubric = NULL;
    struct arb_buf task;
    struct arb_err err = {{0}};
    int code = EXIT_PASS, ok;

    *out = NULL;
    arb_buf_init(&task, 16 << 20);
    if (!suite) {
        code = EXIT_ENV;
    } else if (ca->task[0] == '@') {
        if (arb_file_read(ca->task + 1, &task, &err)) {
            cli_error("compare", "--task %s", err.msg);
            code = EXIT_USAGE;
        }
    } else if (arb_buf_adds(&task, ca->task)) {
        code = EXIT_ENV;
    }
    if (!code && (check_tree_if_dir(ca->a) || check_tree_if_dir(ca->b)))
        code = EXIT_USAGE;
    if (!code && ca->exp_path && !(exps = read_expectations(ca->exp_path)))
        code = EXIT_USAGE;
    if (!code && ca->rubric_path && !(rubric = read_rubric(ca->rubric_path)))
        code = EXIT_USAGE;
    if (!code) {
        ok = cJSON_AddStringToObject(suite, "name", "compare") &&
             cJSON_AddStringToObject(suite, "task", task.ptr ? task.ptr : "") &&
             cJSON_AddNumberToObject(suite, "seed", (double)ca->seed) &&
             (systems = cJSON_AddObjectToObject(suite, "systems")) &&
             cJSON_AddStringToObject(systems, SYS_A, ca->a) &&
             cJSON_AddStringToObject(systems, SYS_B, ca->b) &&
             (redact = cJSON_AddArrayToObject(suite, "redact")) &&
             compare_redact_names(ca->a, ca->b, redact) == 0 &&
             (!exps || cJSON_AddItemToObject(suite, "expectations", exps));
        if (ok)
            exps = NULL; /* the suite's now */
        ok = ok && (!rubric || cJSON_AddItemToObject(suite, "rubric", rubric));
        if (ok)
            rubric = NULL;
        ok = ok && (cases = cJSON_AddArrayToObject(suite, "cases")) &&
             (c = cJSON_CreateObject()) != NULL && cJSON_AddItemToArray(cases, c) &&
             cJSON_AddStringToObject(c, "id", CASE_ID) && (*out = cJSON_Print(suite)) != NULL;
        if (!ok) {
            cli_error("compare", "out of memory");
            code = EXIT_ENV;
        }
    }
    cJSON_Delete(exps);
    cJSON_Delete(rubric);
    cJSON_Delete(suite);
    arb_buf_release(&task);
    return code;
}

static int compare_cmd(int argc, char **argv)
{
    struct compare_args ca = {NULL, NULL, NULL, "comparison.json", NULL, NULL, NULL, 0, 0};
    struct cli_judge judge;
    struct arb_run_opts opts = {0};
    struct cli_progress notice = {0};
    struct arb_run_summary sum;
    struct arb_suite *suite = NULL;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    struct got g = {NULL, 0, 0};
    struct arb_run_source source;
    char *text = NULL, *suite_json = NULL;
    int code;
    enum arb_status rs;

    memset(&judge, 0, sizeof(judge));
    memset(&sum, 0, sizeof(sum));
    code = parse_args(argc, argv, &ca, &judge);
    if (!code)
        code = check_out_path(&ca, &judge);
    if (code) {
        cli_judge_release(&judge);
        return code < 0 ? EXIT_PASS : code;
    }
    code = suite_text(&ca, &suite_json);
    if (code)
        goto out;
    /* Relative paths (A_PATH, B_PATH, expected_file) resolve from where compare runs. */
    rs = arb_suite_parse(suite_json, strlen(suite_json), "compare", ".", &suite, &err);
    if (rs) {
        if (!locate_in(&err, "/expectations", ca.exp_path))
            locate_in(&err, "/rubric", ca.rubric_path);
        cli_error("compare", "%s", err.msg);
        code = cli_exit_for(rs);
        goto out;
    }
    code = cli_judge_setup(&judge, "compare", NULL, NULL);
    if (code)
        goto out;
    /* compare's comparison.json is the deliverable: the judge writes its strengths and
     * weaknesses unless told not to (--no-feedback, or "feedback": false in its config). */
    if (judge.have && (ca.no_feedback ? judge.cfg.feedback : !judge.cfg.feedback_set)) {
        judge.cfg.feedback = !ca.no_feedback;
        judge.cfg.feedback_set = 1;
        rs = arb_judge_config_rehash(&judge.cfg, &err);
        if (rs) {
            cli_error("compare", "%s", err.msg);
            code = cli_exit_for(rs);
            goto out;
        }
    }
    if (judge.have) {
        opts.judge = &judge.cfg;
        opts.api_key = judge.key;
        opts.no_cache = judge.no_cache;
        /* A provider's error or a switch of response format is said as it happens. */
        notice.mode = CLI_PROGRESS_NEVER;
        cli_progress_start(&notice, "arbiter compare");
        opts.notice = cli_progress_notice;
        opts.notice_ctx = &notice;
    }
    arb_run_source_one(&source, CASE_ID);
    opts.source = &source;
    rs = arb_store_open(ca.db ? ca.db : ":memory:", 0, &st, &err);
    if (!rs)
        rs = arb_run_execute(st, suite, &opts, &sum, &err);
    if (!rs)
        rs = arb_store_verdicts(st, sum.run_id, CASE_ID, take_verdict, &g, &err);
    if (rs) {
        cli_error("compare", "%s", err.msg);
        code = cli_exit_for(rs);
        goto out;
    }
    if (!g.cmp) {
        cli_error("compare", g.taken ? "out of memory" : "no verdict was recorded");
        code = EXIT_ENV;
        goto out;
    }
    /* In the user's terms, A = A_PATH, whichever the blinding showed first. */
    if (!compare_relabel(g.cmp, g.swapped) && !add_systems(g.cmp, &ca))
        text = cJSON_Print(g.cmp);
    if (!text) {
        cli_error("compare", "out of memory");
        code = EXIT_ENV;
        goto out;
    }
    if (write_out(ca.out_path, text)) {
        code = EXIT_ENV;
        goto out;
    }
    {
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(g.cmp, "winner");
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(g.cmp, "status");

        printf("winner: %s (%s); written to %s\n", cJSON_IsString(w) ? w->valuestring : "none",
               cJSON_IsString(s) ? s->valuestring : "?", ca.out_path);
    }
    if (sum.unreachable)
        code = EXIT_ENV;
out:
    cJSON_free(text);
    cJSON_Delete(g.cmp);
    arb_run_summary_release(&sum);
    arb_suite_free(suite);
    arb_store_close(st);
    cli_judge_release(&judge);
    cJSON_free(suite_json);
    return code;
}

const struct arb_cmd arb_cmd_compare = {
    .name = "compare",
    .summary = "one blind comparison of two outputs for one task: writes comparison.json",
    .usage = usage_text,
    .run = compare_cmd,
};
