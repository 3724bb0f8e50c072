/*
 * replay_stage.c - what `replay` and `replay --rejudge` start from: a
 * stored run read back (its suite, which must be unchanged, its systems and
 * judge), and its stored cases and outputs written into a private temporary
 * folder that the suite is then pointed at, so the pipeline reads exactly
 * what the run stored.  (A stored-run source for the run engine would make
 * this staging unnecessary; until then it lives here, alone.)
 */
#define _XOPEN_SOURCE 700 /* mkdtemp */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbiter/store.h"
#include "arbiter/suite.h"
#include "cli.h"
#include "replay_stage.h"

int replay_read_run(void *ctx, const struct arb_run_row *r)
{
    struct stored_run *s = ctx;

    s->suite_path = strdup(r->suite_path ? r->suite_path : "");
    s->sha256 = strdup(r->suite_sha256 ? r->suite_sha256 : "");
    s->systems_json = strdup(r->systems_json ? r->systems_json : "[]");
    s->judge_json = r->judge_json ? strdup(r->judge_json) : NULL;
    s->seed = r->seed;
    s->found = 1;
    return 1;
}

/* ---- writing the stored inputs back out ------------------------------------------------ */

struct writer {
    struct arb_store *st;
    int64_t run;
    const char *dir;
    FILE *cases;
    cJSON *systems; /* [{name, path}] from the run */
    FILE **jsonl;   /* per system: its outputs as JSONL, or NULL for a directory */
    int *is_dir;
    size_t n;
    enum arb_status rc;
    struct arb_err *err;
};

static size_t system_index(const struct writer *w, const char *name)
{
    size_t i;

    for (i = 0; i < w->n; i++)
        if (strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(w->systems, (int)i), "name")->valuestring,
                   name) == 0)
            return i;
    return (size_t)-1;
}

/*
 * A directory output: the case's files under DIR/sys-N/CASE/FILE, or a
 * single-file output as DIR/sys-N/CASE.out (the reader drops the last
 * extension, so an id with a dot of its own keeps it).
 */
static int write_file(struct writer *w, size_t i, const struct arb_output_row *o)
{
    char path[4096], parent[4096], *slash;
    FILE *f;
    size_t k;

    if (o->file[0])
        snprintf(path, sizeof(path), "%s/sys-%zu/%s/%s", w->dir, i, o->case_id, o->file);
    else
        snprintf(path, sizeof(path), "%s/sys-%zu/%s.out", w->dir, i, o->case_id);
    snprintf(parent, sizeof(parent), "%s", path);
    slash = strrchr(parent, '/');
    if (slash)
        *slash = '\0';
    if (strstr(o->case_id, "..") || strchr(o->case_id, '/') || cli_mkdirs(parent))
        return -1;
    f = fopen(path, "wb");
    if (!f)
        return -1;
    if (o->binary || !o->content) {
        /* Binary outputs are stored by size and hash: NUL bytes of that size replay as binary. */
        for (k = 0; k < o->len; k++)
            fputc(0, f);
    } else {
        fwrite(o->content, 1, o->len, f);
    }
    return fclose(f);
}

static int write_output(void *ctx, const struct arb_output_row *o)
{
    struct writer *w = ctx;
    size_t i = system_index(w, o->system);
    cJSON *line;
    char *text;

    if (i == (size_t)-1)
        return 0;
    if (w->is_dir[i]) {
        if (write_file(w, i, o)) {
            w->rc = arb_err_set(w->err, ARB_EIO, "cannot write the stored output of case '%s'",
                                o->case_id);
            return 1;
        }
        return 0;
    }
    line = o->meta_json ? cJSON_Parse(o->meta_json) : cJSON_CreateObject();
    if (!line)
        line = cJSON_CreateObject();
    cJSON_DeleteItemFromObjectCaseSensitive(line, "id");
    cJSON_DeleteItemFromObjectCaseSensitive(line, "output");
    /* A database older than migration 3 kept a capture's "trial" in meta_json: the trial
     * column is the one that counts now. */
    cJSON_DeleteItemFromObjectCaseSensitive(line, "trial");
    cJSON_AddStringToObject(line, "id", o->case_id);
    cJSON_AddStringToObject(line, "output", o->content ? o->content : "");
    if (o->trial)
        cJSON_AddNumberToObject(line, "trial", (double)o->trial);
    text = cJSON_PrintUnformatted(line);
    if (!text || fprintf(w->jsonl[i], "%s\n", text) < 0)
        w->rc = ARB_EIO;
    cJSON_free(text);
    cJSON_Delete(line);
    return w->rc != ARB_OK;
}

/* Does any stored output of this system have files (a directory output)? */
static int note_dirs(void *ctx, const struct arb_output_row *o)
{
    struct writer *w = ctx;
    size_t i = system_index(w, o->system);

    /* Files, or a binary output (JSONL cannot carry one): staged as a directory. */
    if (i != (size_t)-1 && ((o->file && o->file[0]) || o->binary))
        w->is_dir[i] = 1;
    return 0;
}

static int scan_case(void *ctx, const char *case_id, int64_t seq, const char *case_json)
{
    struct writer *w = ctx;

    (void)seq;
    (void)case_json;
    if (arb_store_outputs(w->st, w->run, case_id, note_dirs, w, w->err)) {
        w->rc = ARB_EDB;
        return 1;
    }
    return 0;
}

static int write_case(void *ctx, const char *case_id, int64_t seq, const char *case_json)
{
    struct writer *w = ctx;

    (void)seq;
    if (fprintf(w->cases, "%s\n", case_json ? case_json : "{}") < 0) {
        w->rc = ARB_EIO;
        return 1;
    }
    if (arb_store_outputs(w->st, w->run, case_id, write_output, w, w->err)) {
        w->rc = w->rc ? w->rc : ARB_EDB;
        return 1;
    }
    return w->rc != ARB_OK;
}

static int stage_inputs(struct arb_store *orig, int64_t run, const char *dir,
                        struct arb_suite *suite, cJSON *systems, struct arb_err *err)
{
    struct writer w;
    char path[4200], spec[8400];
    size_t i;
    int code = EXIT_PASS;

    memset(&w, 0, sizeof(w));
    w.st = orig;
    w.run = run;
    w.dir = dir;
    w.systems = systems;
    w.err = err;
    w.n = (size_t)cJSON_GetArraySize(systems);
    w.jsonl = calloc(w.n + 1, sizeof(FILE *));
    w.is_dir = calloc(w.n + 1, sizeof(int));
    snprintf(path, sizeof(path), "%s/cases.jsonl", dir);
    w.cases = fopen(path, "wb");
    if (!w.jsonl || !w.is_dir || !w.cases) {
        cli_error("replay", "cannot stage the stored inputs in '%s'", dir);
        code = EXIT_ENV;
        goto out;
    }
    if (arb_store_cases(orig, run, scan_case, &w, err) || w.rc) {
        cli_error("replay", "%s", err->msg);
        code = EXIT_ENV;
        goto out;
    }
    for (i = 0; i < w.n; i++) {
        const char *name =
            cJSON_GetObjectItem(cJSON_GetArrayItem(systems, (int)i), "name")->valuestring;

        if (w.is_dir[i]) {
            snprintf(path, sizeof(path), "%s/sys-%zu", dir, i);
            if (cli_mkdirs(path))
                code = EXIT_ENV;
        } else {
            snprintf(path, sizeof(path), "%s/sys-%zu.jsonl", dir, i);
            w.jsonl[i] = fopen(path, "wb");
            if (!w.jsonl[i])
                code = EXIT_ENV;
        }
        snprintf(spec, sizeof(spec), "%s=%s", name, path);
        if (!code && arb_suite_set_system(suite, spec, err)) {
            cli_error("replay", "%s", err->msg);
            code = EXIT_USAGE;
        }
    }
    if (!code && (arb_store_cases(orig, run, write_case, &w, err) || w.rc)) {
        cli_error("replay", "cannot stage the stored inputs: %s",
                  err->msg[0] ? err->msg : strerror(errno));
        code = EXIT_ENV;
    }
out:
    for (i = 0; w.jsonl && i < w.n; i++)
        if (w.jsonl[i] && fclose(w.jsonl[i]))
            code = EXIT_ENV;
    if (w.cases && fclose(w.cases))
        code = EXIT_ENV;
    free(w.jsonl);
    free(w.is_dir);
    if (!code) {
        /* The stored cases, not whatever the cases file holds today. */
        snprintf(path, sizeof(path), "%s/cases.jsonl", dir);
        free(suite->cases_file);
        suite->cases_file = strdup(path);
        if (!suite->cases_file)
            code = EXIT_ENV;
    }
    return code;
}

/*
 * Resolve the run, read it, load its suite (which must be unchanged), and
 * write its stored cases and outputs into a new temporary folder made from
 * tmpl (*dir, removed by the caller).  Returns an exit code.
 */
int replay_prepare(struct arb_store *orig, const char *run_spec, int64_t *run,
                   struct stored_run *sr, struct arb_suite **suite, cJSON **systems, char *tmpl,
                   const char **dir, struct arb_err *err)
{
    enum arb_status rs = arb_store_run_resolve(orig, run_spec, run, err);

    if (!rs)
        rs = arb_store_runs(orig, *run, replay_read_run, sr, err);
    if (rs || !sr->found || !sr->suite_path || !sr->sha256 || !sr->systems_json) {
        cli_error("replay", "%s", rs ? err->msg : "cannot read the run");
        return rs ? cli_exit_for(rs) : EXIT_ENV;
    }
    rs = arb_suite_load(sr->suite_path, suite, err);
    if (rs) {
        cli_error("replay", "run %lld's suite: %s", (long long)*run, err->msg);
        return cli_exit_for(rs);
    }
    if (strcmp((*suite)->sha256, sr->sha256) != 0) {
        cli_error("replay",
                  "the suite '%s' changed since run %lld (its SHA-256 differs): the "
                  "run cannot be re-derived from it",
                  sr->suite_path, (long long)*run);
        return EXIT_USAGE;
    }
    (*suite)->seed = sr->seed;
    *systems = cJSON_Parse(sr->systems_json);
    *dir = mkdtemp(tmpl);
    if (!*systems || !*dir) {
        cli_error("replay", "cannot create a temporary folder: %s", strerror(errno));
        return EXIT_ENV;
    }
    return stage_inputs(orig, *run, *dir, *suite, *systems, err);
}

void replay_stored_run_release(struct stored_run *sr)
{
    free(sr->suite_path);
    free(sr->sha256);
    free(sr->systems_json);
    free(sr->judge_json);
}

