/*
 * source.c - where a run's cases and outputs come from (run.h struct
 * arb_run_source): the suite's files; one output per system for the one
 * case of a comparison; a stored run.  The engine opens readers through a
 * source and never knows which it has, so `compare` and `replay` need no
 * staged copies of their inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "arbiter/json.h"
#include "arbiter/run.h"
#include "arbiter/store.h"
#include "arbiter/suite.h"

/* ---- the suite's files ------------------------------------------------------------------ */

static enum arb_status suite_cases(void *ctx, const struct arb_suite *s,
                                   struct arb_case_reader **out, struct arb_err *err)
{
    (void)ctx;
    return arb_case_reader_open(s, out, err);
}

static enum arb_status file_outputs(void *ctx, const struct arb_suite *s, size_t system,
                                    struct arb_output_reader **out, struct arb_err *err)
{
    (void)ctx;
    return arb_output_reader_open(s->systems[system].path, s->max_output_bytes, out, err);
}

void arb_run_source_files(struct arb_run_source *src)
{
    memset(src, 0, sizeof(*src));
    src->open_cases = suite_cases;
    src->open_outputs = file_outputs;
    src->files = 1;
}

/* ---- one output per system, for one case ------------------------------------------------- */

static enum arb_status one_outputs(void *ctx, const struct arb_suite *s, size_t system,
                                   struct arb_output_reader **out, struct arb_err *err)
{
    return arb_output_reader_open_one(s->systems[system].path, ctx, s->max_output_bytes, out,
                                      err);
}

void arb_run_source_one(struct arb_run_source *src, const char *case_id)
{
    memset(src, 0, sizeof(*src));
    src->open_cases = suite_cases;
    src->open_outputs = one_outputs;
    src->ctx = (void *)case_id;
}

/* ---- a stored run ------------------------------------------------------------------------ */

static int next_case_line(void *ctx, const char **text, size_t *len, struct arb_err *err)
{
    struct arb_run_source_stored *ss = ctx;
    const char *id;

    return arb_store_cursor_case(ss->cases, &id, text, len, err);
}

static void close_cases(void *ctx)
{
    struct arb_run_source_stored *ss = ctx;

    arb_store_cursor_close(ss->cases);
    ss->cases = NULL;
}

struct stored_lines {
    struct arb_case_lines lines;
    struct arb_run_source_stored *ss;
};

static void free_lines(void *ctx)
{
    struct stored_lines *sl = ctx;

    close_cases(sl->ss);
    free(sl);
}

static int next_stored_line(void *ctx, const char **text, size_t *len, struct arb_err *err)
{
    struct stored_lines *sl = ctx;

    return next_case_line(sl->ss, text, len, err);
}

static enum arb_status stored_cases(void *ctx, const struct arb_suite *s,
                                    struct arb_case_reader **out, struct arb_err *err)
{
    struct arb_run_source_stored *ss = ctx;
    struct stored_lines *sl;
    enum arb_status st;

    *out = NULL;
    if (ss->cases)
        return arb_err_set(err, ARB_EUSAGE, "a stored run's cases are read once at a time");
    st = arb_store_cases_cursor(ss->st, ss->run, &ss->cases, err);
    if (st)
        return st;
    sl = calloc(1, sizeof(*sl));
    if (!sl) {
        close_cases(ss);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    sl->ss = ss;
    sl->lines.next = next_stored_line;
    sl->lines.close = free_lines;
    sl->lines.ctx = sl;
    sl->lines.label = ss->label;
    return arb_case_reader_open_lines(s, &sl->lines, out, err);
}

/* One system's stored outputs, as a reader hands them out. */
struct stored_outputs {
    struct arb_store_cursor *cur;
};

static int next_stored_output(void *ctx, struct arb_output *o, struct arb_err *err)
{
    struct stored_outputs *so = ctx;
    struct arb_output_row row;
    int got = arb_store_cursor_output(so->cur, &row, err);
    enum arb_status st = ARB_OK;

    if (got != 1)
        return got;
    o->case_id = strdup(row.case_id ? row.case_id : "");
    o->file = row.file && row.file[0] ? strdup(row.file) : NULL;
    o->binary = row.binary;
    o->len = row.len;
    o->trial = row.trial;
    snprintf(o->sha256, sizeof(o->sha256), "%s", row.sha256 ? row.sha256 : "");
    /* A binary file is stored by its size and hash only: it comes back without its bytes. */
    o->text = row.content && !row.binary ? arb_memdup0(row.content, row.len) : NULL;
    if (!o->case_id || (row.file && row.file[0] && !o->file) ||
        (row.content && !row.binary && !o->text))
        st = arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (!st && row.meta_json)
        st = arb_json_parse(row.meta_json, strlen(row.meta_json), 0, &o->meta, err);
    if (st) {
        arb_output_release(o);
        return -(int)st;
    }
    return 1;
}

static void close_outputs(void *ctx)
{
    struct stored_outputs *so = ctx;

    arb_store_cursor_close(so->cur);
    free(so);
}

static enum arb_status stored_outputs(void *ctx, const struct arb_suite *s, size_t system,
                                      struct arb_output_reader **out, struct arb_err *err)
{
    struct arb_run_source_stored *ss = ctx;
    struct stored_outputs *so = calloc(1, sizeof(*so));
    enum arb_status st;

    *out = NULL;
    if (!so)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    st = arb_store_outputs_cursor(ss->st, ss->run, s->systems[system].name, &so->cur, err);
    if (st) {
        free(so);
        return st;
    }
    return arb_output_reader_open_fn(next_stored_output, close_outputs, so, out, err);
}

void arb_run_source_stored_init(struct arb_run_source_stored *ss, struct arb_store *st,
                                int64_t run)
{
    memset(ss, 0, sizeof(*ss));
    ss->st = st;
    ss->run = run;
    snprintf(ss->label, sizeof(ss->label), "run %lld", (long long)run);
    ss->src.open_cases = stored_cases;
    ss->src.open_outputs = stored_outputs;
    ss->src.ctx = ss;
}
