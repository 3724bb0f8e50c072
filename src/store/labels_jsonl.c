/*
 * labels_jsonl.c - a run's labels as the JSONL that `arbiter calibrate --run` reads
 * (labels.h, arb_labels_jsonl; the reader is src/calibrate/load_named.c): one line per case
 * of the run's first pair that someone labelled, in case order,
 *
 *     {"id":CASE,"human":[W,...],"criteria":{NAME:[W,...],...},"note":TEXT}
 *
 * each W a system of the pair or "tie", one per annotator in bytewise order of their names
 * (a criterion's list: the annotators who judged it), "criteria" and "note" only when some
 * label has them.  Labels are stored as shown (A, B); here they name systems, through the
 * winner stored with each and, for criteria, the system the label says was shown first.
 * Members are written in that order, each value as RFC 8785 text, so equal labels give equal
 * bytes.  `arbiter export --labels` prints this text and `calibrate --labels-from-db` reads it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/labels.h"
#include "store_int.h"

static const char sql_first_two[] =
    "SELECT name FROM systems WHERE run = ?1 ORDER BY position LIMIT 2";
static const char sql_run_exists[] = "SELECT EXISTS (SELECT 1 FROM runs WHERE id = ?1)";

/* The labels of the pair ?2, ?3 (either blind order), in case order, then annotator. */
static const char sql_pair_labels[] =
    "SELECT l.case_id, l.annotator, l.winner, l.shown_first, l.system_a, l.system_b, "
    "l.criteria_json, l.note "
    "FROM cases c CROSS JOIN labels l ON l.run = c.run AND l.case_id = c.case_id "
    "WHERE c.run = ?1 AND ((l.system_a = ?2 AND l.system_b = ?3) OR "
    "(l.system_a = ?3 AND l.system_b = ?2)) ORDER BY c.seq, c.case_id, l.annotator";

/* One case's line as it is gathered. */
struct line {
    char *id;     /* owned */
    cJSON *human; /* array of words */
    cJSON *crit;  /* object: name -> array of words */
    struct arb_buf note;
};

struct writer {
    struct arb_store *st;
    const char *const *annotators;
    size_t n_annotators;
    struct arb_buf *out;
    struct line cur;
    struct arb_err *err;
};

static void line_release(struct line *ln)
{
    free(ln->id);
    cJSON_Delete(ln->human);
    cJSON_Delete(ln->crit);
    arb_buf_release(&ln->note);
    ln->id = NULL;
    ln->human = ln->crit = NULL;
}

static int wanted(const struct writer *w, const char *annotator)
{
    if (!w->annotators || !w->n_annotators)
        return 1;
    for (size_t i = 0; i < w->n_annotators; i++)
        if (w->annotators[i] && strcmp(w->annotators[i], annotator) == 0)
            return 1;
    return 0;
}

/* `"name":` and v as RFC 8785 text. */
static enum arb_status put_member(struct arb_buf *b, const char *name, const cJSON *v,
                                  struct arb_err *err)
{
    enum arb_status rs = arb_buf_printf(b, ",\"%s\":", name);

    if (!rs)
        return arb_jcs_write(v, b, err);
    return arb_err_set(err, rs, "%s",
                       rs == ARB_ENOMEM ? "out of memory" : "the labels are too big");
}

/* Append the gathered case as one line, and forget it. */
static enum arb_status flush_line(struct writer *w)
{
    struct line *ln = &w->cur;
    cJSON *id = NULL, *note = NULL;
    enum arb_status rs = ARB_OK;

    if (!ln->id)
        return ARB_OK;
    id = cJSON_CreateString(ln->id);
    note = ln->note.len ? cJSON_CreateString(ln->note.ptr) : NULL;
    if (!id || (ln->note.len && !note))
        rs = arb_err_set(w->err, ARB_ENOMEM, "out of memory");
    if (!rs)
        rs = arb_buf_adds(w->out, "{\"id\":");
    if (!rs)
        rs = arb_jcs_write(id, w->out, w->err);
    if (!rs)
        rs = put_member(w->out, "human", ln->human, w->err);
    if (!rs && cJSON_GetArraySize(ln->crit) > 0)
        rs = put_member(w->out, "criteria", ln->crit, w->err);
    if (!rs && note)
        rs = put_member(w->out, "note", note, w->err);
    if (!rs)
        rs = arb_buf_adds(w->out, "}\n");
    if (rs && !w->err->msg[0])
        arb_err_set(w->err, rs, "%s",
                    rs == ARB_ENOMEM ? "out of memory" : "the labels are too big");
    cJSON_Delete(id);
    cJSON_Delete(note);
    line_release(ln);
    return rs;
}

/* A stored word as a label names it: the system, or "tie". */
static const char *word_of(const char *system)
{
    return strcmp(system, "TIE") == 0 ? "tie" : system;
}

/* The criteria of one label, as shown, into the line's lists, as systems. */
static enum arb_status add_criteria(struct writer *w, const char *json, const char *shown_first,
                                    const char *other)
{
    cJSON *o = NULL;
    const cJSON *x;
    enum arb_status rs;

    if (!json)
        return ARB_OK;
    rs = arb_json_parse(json, strlen(json), 0, &o, w->err);
    if (rs)
        return arb_err_prefix(w->err, rs, "a stored label's criteria");
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return arb_err_set(w->err, ARB_ESCHEMA, "a stored label's criteria are not an object");
    }
    for (x = o->child; !rs && x; x = x->next) {
        const char *v = cJSON_IsString(x) ? x->valuestring : "";
        const char *word = strcmp(v, "A") == 0     ? shown_first
                           : strcmp(v, "B") == 0   ? other
                           : strcmp(v, "tie") == 0 ? "tie"
                                                   : NULL;
        cJSON *list = cJSON_GetObjectItemCaseSensitive(w->cur.crit, x->string);

        if (!word)
            rs = arb_err_set(w->err, ARB_ESCHEMA,
                             "a stored label's criterion '%.200s' is not \"A\", \"B\" or \"tie\"",
                             x->string);
        else if (!list && !(list = cJSON_AddArrayToObject(w->cur.crit, x->string)))
            rs = ARB_ENOMEM;
        else if (!cJSON_AddItemToArray(list, cJSON_CreateString(word)))
            rs = ARB_ENOMEM;
    }
    cJSON_Delete(o);
    if (rs == ARB_ENOMEM)
        arb_err_set(w->err, rs, "out of memory");
    return rs;
}

/* Start the line of case id (after writing the one before). */
static enum arb_status start_line(struct writer *w, const char *id)
{
    enum arb_status rs = flush_line(w);
    size_t n = strlen(id);

    if (rs)
        return rs;
    arb_buf_init(&w->cur.note, 0);
    w->cur.id = malloc(n + 1);
    w->cur.human = cJSON_CreateArray();
    w->cur.crit = cJSON_CreateObject();
    if (!w->cur.id || !w->cur.human || !w->cur.crit)
        return arb_err_set(w->err, ARB_ENOMEM, "out of memory");
    memcpy(w->cur.id, id, n + 1);
    return ARB_OK;
}

/* One stored label (the columns of sql_pair_labels) into the line of its case. */
static enum arb_status add_label(struct writer *w, sqlite3_stmt *s)
{
    const char *id = store_col_text(s, 0), *annotator = store_col_text(s, 1);
    const char *winner = store_col_text(s, 2), *shown = store_col_text(s, 3);
    const char *a = store_col_text(s, 4), *b = store_col_text(s, 5);
    const char *note = store_col_text(s, 7);
    enum arb_status rs = ARB_OK;

    if (!wanted(w, annotator))
        return ARB_OK;
    if (!w->cur.id || strcmp(w->cur.id, id) != 0)
        rs = start_line(w, id);
    if (!rs && !cJSON_AddItemToArray(w->cur.human, cJSON_CreateString(word_of(winner))))
        rs = arb_err_set(w->err, ARB_ENOMEM, "out of memory");
    if (!rs)
        rs = add_criteria(w, store_col_text(s, 6), shown, strcmp(shown, a) == 0 ? b : a);
    /* Several annotators' notes: one line each, named. */
    if (!rs && note && note[0]) {
        rs = arb_buf_printf(&w->cur.note, "%s%s: %s", w->cur.note.len ? "\n" : "", annotator, note);
        if (rs)
            arb_err_set(w->err, rs, "out of memory");
    }
    return rs;
}

/* Whether run exists, into *exists. */
static enum arb_status run_exists(struct arb_store *st, int64_t run, int *exists,
                                  struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db, sql_run_exists, -1, &s, NULL);

    rc = store_bind_int(rc, s, 1, run);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *exists = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? ARB_OK : store_fail(st, rc, err, "read the run");
}

/* The run's first two systems into names (owned copies); ARB_EUSAGE without a pair. */
static enum arb_status first_pair(struct arb_store *st, int64_t run, char *names[2],
                                  struct arb_err *err)
{
    sqlite3_stmt *s = NULL;
    int n = 0, exists = 0, rc;
    enum arb_status rs = run_exists(st, run, &exists, err);

    if (rs)
        return rs;
    if (!exists)
        return arb_err_set(err, ARB_EUSAGE, "no run %lld in '%s'", (long long)run, st->path);
    rc = sqlite3_prepare_v2(st->db, sql_first_two, -1, &s, NULL);
    rc = store_bind_int(rc, s, 1, run);
    while (n < 2 && (rc == SQLITE_OK || rc == SQLITE_ROW)) {
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW && !(names[n++] = strdup(store_col_text(s, 0))))
            rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    if (!rs && rc != SQLITE_DONE && rc != SQLITE_ROW)
        rs = store_fail(st, rc, err, "read the run's systems");
    sqlite3_finalize(s);
    if (!rs && n < 2)
        rs = arb_err_set(err, ARB_EUSAGE, "run %lld has %d system%s: labels are of a pair",
                         (long long)run, n, n == 1 ? "" : "s");
    return rs;
}

enum arb_status arb_labels_jsonl(struct arb_store *st, int64_t run, const char *const *annotators,
                                 size_t n_annotators, struct arb_buf *out, struct arb_err *err)
{
    struct writer w = {st, annotators, n_annotators, out, {NULL, NULL, NULL, {0}}, err};
    char *names[2] = {NULL, NULL};
    sqlite3_stmt *s = NULL;
    enum arb_status rs = first_pair(st, run, names, err);
    int rc = SQLITE_OK;

    if (!rs) {
        rc = sqlite3_prepare_v2(st->db, sql_pair_labels, -1, &s, NULL);
        rc = store_bind_int(rc, s, 1, run);
        rc = store_bind_text(rc, s, 2, names[0]);
        rc = store_bind_text(rc, s, 3, names[1]);
    }
    while (!rs && (rc == SQLITE_OK || rc == SQLITE_ROW)) {
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            rs = add_label(&w, s);
    }
    if (!rs && rc != SQLITE_DONE)
        rs = store_fail(st, rc, err, "read the labels");
    if (!rs)
        rs = flush_line(&w);
    line_release(&w.cur);
    sqlite3_finalize(s);
    free(names[0]);
    free(names[1]);
    return rs;
}
