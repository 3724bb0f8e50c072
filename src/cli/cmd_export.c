/*
 * cmd_export.c - `arbiter export`: per-case comparison.json files, or every
 * check record as JSONL.
 *
 * File names come from case ids, which are untrusted: every byte outside
 * [A-Za-z0-9._-] (and a leading '.') is written as %XX, so an id such as
 * "../../etc/passwd" can never leave the directory given.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arbiter/buf.h"
#include <cjson/cJSON.h>

#include "arbiter/store.h"
#include "cli.h"

static const char usage_text[] =
    "usage: arbiter export RUN --comparisons DIR [--db FILE]\n"
    "       arbiter export RUN --jsonl [--db FILE]\n"
    "\n"
    "  --comparisons DIR  write one comparison.json per case into DIR (created if\n"
    "                     needed): the blind comparator's format (winner, reasoning,\n"
    "                     rubric, output_quality, expectation_results) plus \"systems\":\n"
    "                     {\"A\": name, \"B\": name}, unblinded.  Files are named after the\n"
    "                     case id (bytes outside [A-Za-z0-9._-] as %XX); with more than\n"
    "                     two systems, CASE.A-vs-B.json\n"
    "  --jsonl            print every record as one JSON line: each check record with\n"
    "                     its case, system, kind and item; each trial (kind \"trial\":\n"
    "                     trial, passed, its expectation records); each verdict (kind\n"
    "                     \"verdict\": the pair, status, winner and comparison)\n";

static enum arb_status safe_name(struct arb_buf *out, const char *s)
{
    enum arb_status st = ARB_OK;
    size_t i;

    for (i = 0; !st && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-' || (c == '.' && i > 0);

        st = plain ? arb_buf_addc(out, (char)c) : arb_buf_printf(out, "%%%02X", c);
    }
    return st;
}

struct exporter {
    const char *dir;
    int pairs; /* more than one pair per case: name files by pair */
    size_t written;
    enum arb_status st;
    char msg[512];
};

static int write_comparison(void *ctx, const struct arb_verdict_row *v)
{
    struct exporter *ex = ctx;
    struct arb_buf path;
    cJSON *doc = cJSON_Parse(v->comparison_json ? v->comparison_json : "{}"), *sys;
    char *text = NULL;
    FILE *f = NULL;

    arb_buf_init(&path, 0);
    sys = doc ? cJSON_AddObjectToObject(doc, "systems") : NULL;
    if (!sys || !cJSON_AddStringToObject(sys, "A", v->system_a) ||
        !cJSON_AddStringToObject(sys, "B", v->system_b) || !(text = cJSON_Print(doc)) ||
        arb_buf_printf(&path, "%s/", ex->dir) || safe_name(&path, v->case_id) ||
        (ex->pairs && (arb_buf_addc(&path, '.') || safe_name(&path, v->system_a) ||
                       arb_buf_adds(&path, "-vs-") || safe_name(&path, v->system_b))) ||
        arb_buf_adds(&path, ".json")) {
        ex->st = ARB_ENOMEM;
    } else if (path.len - strlen(ex->dir) - 1 > 255) {
        ex->st = ARB_ETOOBIG;
        snprintf(ex->msg, sizeof(ex->msg),
                 "a case id is too long for a file name: '%.60s...' would be %zu bytes, over "
                 "the limit of 255",
                 path.ptr + strlen(ex->dir) + 1, path.len - strlen(ex->dir) - 1);
    } else if (!(f = fopen(path.ptr, "wb")) || fputs(text, f) < 0 || fputc('\n', f) < 0) {
        ex->st = ARB_EIO;
        snprintf(ex->msg, sizeof(ex->msg), "cannot write '%s': %s", path.ptr, strerror(errno));
    } else {
        ex->written++;
    }
    if (f && fclose(f) && !ex->st) {
        ex->st = ARB_EIO;
        snprintf(ex->msg, sizeof(ex->msg), "cannot write '%s': %s", path.ptr, strerror(errno));
    }
    cJSON_free(text);
    cJSON_Delete(doc);
    arb_buf_release(&path);
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

static int export_cmd(int argc, char **argv)
{
    const char *db = "arbiter.db", *run_spec = NULL, *dir = NULL;
    int jsonl = 0, a, n_systems = 0, code = EXIT_PASS;
    struct arb_store *st = NULL;
    struct arb_err err = {{0}};
    struct exporter ex = {0};
    int64_t run = 0;
    enum arb_status rs;

    for (a = 1; a < argc; a++) {
        if (cli_is_help(argv[a])) {
            fputs(usage_text, stdout);
            return EXIT_PASS;
        } else if (strcmp(argv[a], "--db") == 0 && a + 1 < argc) {
            db = argv[++a];
        } else if (strcmp(argv[a], "--comparisons") == 0 && a + 1 < argc) {
            dir = argv[++a];
        } else if (strcmp(argv[a], "--jsonl") == 0) {
            jsonl = 1;
        } else if (argv[a][0] == '-') {
            cli_error("export", "unknown or incomplete option '%s'", argv[a]);
            return EXIT_USAGE;
        } else if (!run_spec) {
            run_spec = argv[a];
        } else {
            cli_error("export", "unexpected argument '%s'", argv[a]);
            return EXIT_USAGE;
        }
    }
    if (!run_spec || !dir == !jsonl) {
        cli_error("export", "usage: arbiter export RUN (--comparisons DIR | --jsonl)");
        return EXIT_USAGE;
    }
    if (dir && mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("export", "cannot create '%s': %s", dir, strerror(errno));
        return EXIT_USAGE;
    }
    if (cli_open_for_reading("export", db, &st))
        return EXIT_USAGE;
    rs = ARB_OK;
    if (!rs)
        rs = arb_store_run_resolve(st, run_spec, &run, &err);
    if (!rs)
        rs = arb_store_runs(st, run, count_systems, &n_systems, &err);
    if (!rs && jsonl) {
        struct case_walk w = {st, run, &err, ARB_OK, ARB_OK};

        rs = arb_store_checks(st, run, NULL, print_check, &w.printed, &err);
        if (!rs && !w.printed)
            rs = arb_store_cases(st, run, print_case_trials, &w, &err);
        if (!rs)
            rs = w.rc;
        if (!rs && !w.printed)
            rs = arb_store_verdicts(st, run, NULL, print_verdict, &w.printed, &err);
        if (!rs && !w.printed && fflush(stdout))
            w.printed = ARB_EIO;
        if (!rs && w.printed)
            rs = arb_err_set(&err, w.printed, "%s",
                             w.printed == ARB_EIO ? "cannot write the export to standard output"
                                                  : "a record could not be exported");
    } else if (!rs) {
        ex.dir = dir;
        ex.pairs = n_systems > 2;
        rs = arb_store_verdicts(st, run, NULL, write_comparison, &ex, &err);
        if (!rs && ex.st) {
            rs = ex.st;
            snprintf(err.msg, sizeof(err.msg), "%s", ex.msg[0] ? ex.msg : arb_strerror(rs));
        }
        if (!rs)
            fprintf(stderr, "arbiter export: %zu comparison files in %s\n", ex.written, dir);
    }
    if (rs) {
        cli_error("export", "%s", err.msg);
        code = rs == ARB_EIO ? EXIT_ENV : cli_exit_for(rs);
    }
    arb_store_close(st);
    return code;
}

const struct arb_cmd arb_cmd_export = {
    .name = "export",
    .summary = "per-case comparison.json files, or every record as JSONL",
    .usage = usage_text,
    .run = export_cmd,
};
