/*
 * cases.c - the case reader: a suite's inline cases, or its cases JSONL file
 * one line at a time (include/arbiter/suite.h).
 *
 * Each case is checked against the case part of the suite schema (inline
 * cases were checked with the whole suite), its expectations are compiled
 * like the suite's, and its id must be new.  Memory: one case at a time, plus
 * the fingerprints of the ids seen so far with where each was first seen
 * (idset.c, 16 bytes a slot) - the price of reporting a duplicate with the
 * line of its first use.  A repeated fingerprint is confirmed by reading the
 * first case's id again before the case is refused.
 * Errors name the file, line, column and JSON path:
 *   cases.jsonl:7:8: /id: duplicate case id 'inv-001' (first at line 3)
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arbiter/file.h"
#include "arbiter/json.h"
#include "suite_int.h"

#define CASE_LINE_CAP ((size_t)64 << 20)

struct arb_case_reader {
    const struct arb_suite *s;
    struct check_env env;
    struct idset ids;
    /* inline cases */
    const cJSON *next;
    size_t index;
    char *text; /* the suite's text when read here, for locating errors */
    size_t len;
    struct src src;
    /* a cases JSONL file, or lines from elsewhere (arb_case_reader_open_lines) */
    int jsonl;
    struct line_reader lr;
    struct ahead *ahead; /* owned: lr read on a thread of its own (case_reader_ahead), or NULL */
    const struct arb_case_lines *lines;
    size_t lineno;
    cJSON *schema_doc;
    struct arb_schema *schema;
};

void arb_case_release(struct arb_case *c)
{
    if (!c)
        return;
    free(c->id);
    free(c->prompt);
    if (c->expected != cJSON_GetObjectItemCaseSensitive(c->raw, "expected"))
        cJSON_Delete(c->expected); /* not raw's own member (a case the reader did not fill) */
    expectations_free(c->expectations, c->n_expectations);
    cJSON_Delete(c->raw);
    memset(c, 0, sizeof(*c));
}

/* What every case reader compiles its cases against: the suite's map, folder and checks. */
static void reader_env(struct arb_case_reader *r, const struct arb_suite *s)
{
    r->s = s;
    r->env.fields_map = s->fields;
    r->env.opts.base_dir = s->dir;
    r->env.opts.schema_cache = s->schemas;
    r->env.suite_exps = s->expectations;
    r->env.n_suite_exps = s->n_expectations;
    r->env.src = &r->src;
}

enum arb_status case_reader_open_text(const struct arb_suite *s, const char *text, size_t len,
                                      struct arb_case_reader **out, struct arb_err *err)
{
    struct arb_case_reader *r;
    enum arb_status st = ARB_OK;

    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    reader_env(r, s);
    if (s->text && !s->cases_file && !text) {
        /* A suite parsed from memory: its own text locates errors in its inline cases. */
        text = s->text;
        len = s->text_len;
    }
    if (s->cases_file) {
        r->jsonl = 1;
        st = line_reader_open(&r->lr, s->cases_file, "cases file", CASE_LINE_CAP, err);
        if (!st)
            st = suite_schema_load("/$defs/case", &r->schema_doc, &r->schema, err);
    } else {
        r->next = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(s->doc, "cases"), 0);
        r->src.text = text;
        r->src.len = len;
        if (!text) {
            /* Only to locate errors: without the text they are shown at line 1. */
            struct arb_buf b;

            arb_buf_init(&b, 0);
            if (arb_file_read(s->path, &b, NULL) == ARB_OK)
                r->text = arb_buf_detach(&b, &r->len);
            arb_buf_release(&b);
            r->src.text = r->text;
            r->src.len = r->len;
        }
        r->src.file = s->path;
        r->src.line0 = 1;
    }
    if (st) {
        arb_case_reader_free(r);
        return st;
    }
    *out = r;
    return ARB_OK;
}

void case_reader_record(struct arb_case_reader *r, struct arb_suite *s)
{
    r->env.record = s;
}

void case_reader_release(struct arb_case_reader *r, struct arb_case *c)
{
    if (r->ahead && c->raw) {
        if (c->expected == cJSON_GetObjectItemCaseSensitive(c->raw, "expected"))
            c->expected = NULL; /* raw's, freed with it */
        ahead_recycle(r->ahead, c->raw);
        c->raw = NULL;
    }
    arb_case_release(c);
}

/* The size of the file f, or -1 when it cannot be told. */
static off_t file_size(FILE *f)
{
    struct stat sb;

    return f && fstat(fileno(f), &sb) == 0 ? sb.st_size : -1;
}

int case_reader_ahead(struct arb_case_reader *r)
{
    if (r->jsonl && !r->lines && !r->ahead && file_size(r->lr.f) >= AHEAD_MIN_BYTES &&
        sysconf(_SC_NPROCESSORS_ONLN) > 1 && ahead_start(&r->lr, &r->ahead) != ARB_OK)
        r->ahead = NULL; /* read here, as without */
    return r->ahead != NULL;
}

enum arb_status arb_case_reader_open(const struct arb_suite *s, struct arb_case_reader **out,
                                     struct arb_err *err)
{
    return case_reader_open_text(s, NULL, 0, out, err);
}

enum arb_status arb_case_reader_open_lines(const struct arb_suite *s,
                                           const struct arb_case_lines *lines,
                                           struct arb_case_reader **out, struct arb_err *err)
{
    struct arb_case_reader *r;
    enum arb_status st;

    *out = NULL;
    r = calloc(1, sizeof(*r));
    if (!r) {
        if (lines->close)
            lines->close(lines->ctx);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    reader_env(r, s);
    r->jsonl = 1;
    r->lines = lines;
    st = suite_schema_load("/$defs/case", &r->schema_doc, &r->schema, err);
    if (st) {
        arb_case_reader_free(r); /* closes lines too */
        return st;
    }
    *out = r;
    return ARB_OK;
}

void arb_case_reader_free(struct arb_case_reader *r)
{
    if (!r)
        return;
    if (r->lines && r->lines->close)
        r->lines->close(r->lines->ctx);
    idset_release(&r->ids);
    free(r->text);
    ahead_free(r->ahead); /* before the reader it reads */
    line_reader_close(&r->lr);
    arb_schema_free(r->schema);
    cJSON_Delete(r->schema_doc);
    free(r);
}

/*
 * The case's expected must be readable by every check that uses it (those without an expected of
 * their own): a numeric check given "abc" is refused here, located, not failed on every run.
 */
static int takes(const struct arb_check *ch, const struct arb_case *c, const char **op,
                 struct arb_err *why)
{
    return !ch || arb_check_takes_expected(ch, c->expected, op, why) == ARB_OK;
}

static enum arb_status expected_fits(const struct arb_case_reader *r, const struct arb_case *c,
                                     const char *prefix, struct arb_err *err)
{
    const struct arb_suite *s = r->s;
    const char *op = NULL, *kind = "expectation", *name = NULL;
    struct arb_err why = {{0}};
    char ptr[96];
    size_t i;

    for (i = 0; !name && i < s->n_criteria; i++)
        if (!takes(s->criteria[i].check, c, &op, &why)) {
            kind = "criterion";
            name = s->criteria[i].name;
        }
    for (i = 0; !name && i < s->n_expectations; i++)
        if (!takes(s->expectations[i].check, c, &op, &why))
            name = s->expectations[i].id;
    for (i = 0; !name && i < c->n_expectations; i++)
        if (!takes(c->expectations[i].check, c, &op, &why))
            name = c->expectations[i].id;
    if (!name)
        return ARB_OK;
    snprintf(ptr, sizeof(ptr), "%s/expected", prefix);
    return located(err, ARB_ESCHEMA, &r->src, ptr, 0, "%s (the '%s' check of %s '%s' reads it)",
                   why.msg, op, kind, name);
}

/* Fill c from the (schema-valid) case object obj, found at prefix in r->src. */
static enum arb_status fill(struct arb_case_reader *r, cJSON *obj, const char *prefix,
                            struct arb_case *c, struct arb_err *err)
{
    const cJSON *prompt = cJSON_GetObjectItemCaseSensitive(obj, "prompt");
    const cJSON *expected = cJSON_GetObjectItemCaseSensitive(obj, "expected");
    char ptr[96];
    enum arb_status st;

    c->raw = obj;
    c->id = strdup(cJSON_GetObjectItemCaseSensitive(obj, "id")->valuestring);
    c->prompt = prompt ? strdup(prompt->valuestring) : NULL;
    /* raw's own member, not a copy: a copy and its freeing were a tenth of reading a case */
    c->expected = (cJSON *)expected;
    if (!c->id || (prompt && !c->prompt))
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (prefix[0])
        snprintf(ptr, sizeof(ptr), "%s/expectations", prefix);
    st = compile_expectations(&r->env, cJSON_GetObjectItemCaseSensitive(obj, "expectations"),
                              prefix[0] ? ptr : "/expectations", &c->expectations,
                              &c->n_expectations, err);
    return st ? st : expected_fits(r, c, prefix, err);
}

/* 1 when the id of the JSONL line at lineno of the cases file is id, 0 when not, or -ARB_ENOMEM. */
static int line_has_id(const struct arb_case_reader *r, size_t lineno, const char *id)
{
    struct line_reader lr;
    struct arb_err ignored = {{0}};
    const char *text;
    size_t len;
    cJSON *obj = NULL;
    const cJSON *v;
    int got, same = 0;

    memset(&lr, 0, sizeof(lr));
    if (line_reader_open(&lr, r->s->cases_file, "cases file", CASE_LINE_CAP, &ignored))
        return 0;
    while ((got = line_reader_next(&lr, &text, &len, &ignored)) != 0 && lr.lineno < lineno)
        if (got < 0 && got != -(int)ARB_ETOOBIG)
            break;
    if (got > 0 && lr.lineno == lineno) {
        if (arb_json_parse(text, len, 0, &obj, &ignored) == ARB_ENOMEM)
            same = -(int)ARB_ENOMEM;
        v = cJSON_GetObjectItemCaseSensitive(obj, "id");
        same = same ? same : cJSON_IsString(v) && strcmp(v->valuestring, id) == 0;
        cJSON_Delete(obj);
    }
    line_reader_close(&lr);
    return same;
}

/*
 * 1 when the case first seen at first has this id, 0 when only their fingerprints are equal,
 * -ARB_ENOMEM.  A stored run's cases (lines from elsewhere) are unique by the database's key.
 */
static int same_id(const struct arb_case_reader *r, const char *id, size_t first)
{
    const cJSON *item, *v;

    if (r->lines)
        return 0;
    if (r->jsonl)
        return line_has_id(r, first, id);
    item = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r->s->doc, "cases"), (int)first);
    v = cJSON_GetObjectItemCaseSensitive(item, "id");
    return cJSON_IsString(v) && strcmp(v->valuestring, id) == 0;
}

/*
 * A new id is remembered; a repeated one is an error naming both places.  An id whose
 * fingerprint is another's is taken as new (a later repeat of it is then left to the
 * database's key on the case: a collision and a repeat together, about 3e-8 a million ids).
 */
static enum arb_status check_id(struct arb_case_reader *r, const char *id, const char *prefix,
                                size_t where, struct arb_err *err)
{
    size_t first = 0;
    char ptr[96];
    int added = idset_add(&r->ids, id, where, &first);

    if (added == 0) {
        int same = same_id(r, id, first);

        added = same < 0 ? same : !same;
    }
    if (added < 0)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (added)
        return ARB_OK;
    if (!r->jsonl) {
        /* inline: first is an index into the cases array */
        snprintf(ptr, sizeof(ptr), "/cases/%zu/id", first);
        first = locate_pos(&r->src, ptr, 0).line;
    }
    snprintf(ptr, sizeof(ptr), "%s/id", prefix);
    return located(err, ARB_ESCHEMA, &r->src, ptr, 0, "duplicate case id '%s' (first at line %zu)",
                   id, first);
}

static int next_inline(struct arb_case_reader *r, struct arb_case *c, struct arb_err *err)
{
    const cJSON *item = r->next;
    cJSON *copy;
    char prefix[64];
    size_t i;
    enum arb_status st;

    if (!item)
        return 0;
    r->next = item->next;
    i = r->index++;
    snprintf(prefix, sizeof(prefix), "/cases/%zu", i);
    copy = cJSON_Duplicate(item, 1);
    if (!copy)
        return -(int)arb_err_set(err, ARB_ENOMEM, "out of memory");
    st = fill(r, copy, prefix, c, err);
    if (!st)
        st = check_id(r, c->id, prefix, i, err);
    if (st) {
        arb_case_release(c);
        return -(int)st;
    }
    return 1;
}

/* The next line, parsed (l->obj, or l->parse_st and its message): 1, 0 at the end, -status. */
static int take_line(struct arb_case_reader *r, struct ahead_line *l, struct arb_err *err)
{
    int got;

    if (r->ahead)
        return ahead_next(r->ahead, l, err);
    got = r->lines ? r->lines->next(r->lines->ctx, &l->text, &l->len, err)
                   : line_reader_next(&r->lr, &l->text, &l->len, err);
    if (got <= 0)
        return got;
    if (r->lines)
        r->lineno++;
    l->lineno = r->lines ? r->lineno : r->lr.lineno;
    l->obj = NULL;
    l->parse_st = arb_json_parse(l->text, l->len, ARB_JSON_NO_DUPLICATES, &l->obj, &l->parse_err);
    return 1;
}

static int next_line(struct arb_case_reader *r, struct arb_case *c, struct arb_err *err)
{
    struct ahead_line l;
    cJSON *obj;
    enum arb_status st;
    int got = take_line(r, &l, err);

    if (got <= 0)
        return got;
    r->src.file = r->lines ? r->lines->label : r->lr.name;
    r->src.text = l.text;
    r->src.len = l.len;
    r->src.line0 = l.lineno;
    obj = l.obj;
    st = l.parse_st;
    if (st)
        return -(int)(st == ARB_ENOMEM ? arb_err_set(err, st, "out of memory")
                                       : located_parse(err, st, &r->src, l.parse_err.msg));
    st = shape_check(r->schema, r->schema_doc, "/$defs/case", obj, &r->src, "", err);
    if (st) {
        cJSON_Delete(obj);
        return -(int)st;
    }
    st = fill(r, obj, "", c, err);
    if (!st)
        st = check_id(r, c->id, "", r->src.line0, err);
    if (st) {
        arb_case_release(c);
        return -(int)st;
    }
    c->line = r->src.line0;
    return 1;
}

int arb_case_reader_next(struct arb_case_reader *r, struct arb_case *c, struct arb_err *err)
{
    memset(c, 0, sizeof(*c));
    return r->jsonl ? next_line(r, c, err) : next_inline(r, c, err);
}
