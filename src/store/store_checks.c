/*
 * store_checks.c - check records: putting them with their output's text kept once and each
 * distinct text of a run once, replacing one (an llm_judge check decided), and reading them
 * back whole (db/README.md, migration 10).
 *
 * A record whose observed text is its output's (the caller says so: observed_is_output) is
 * stored as its text with the four bytes null in place of that JSON string, and the offset
 * where they stand; the same for an expected value that is its case's (expected_is_case).  The
 * store remembers the texts it wrote lately (store_texts.c) and refers to a remembered text
 * instead of writing it again.  Reading puts the output's text back with the
 * record writer's own escaping (arb_result_write_string) and the case's expected_json as it is (RFC
 * 8785 text, as the record writes it), so a record reads back byte for byte as it was put.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/compare.h"
#include "store_int.h"

/* Past the JSON string at s[i] (a quote); n + 1 when it does not end. */
static size_t skip_string(const char *s, size_t n, size_t i)
{
    for (i++; i < n;) {
        const char *q = memchr(s + i, '"', n - i);
        size_t k, back = 0;

        if (!q)
            return n + 1;
        k = (size_t)(q - s);
        while (k - back > i && s[k - back - 1] == '\\')
            back++;
        i = k + 1;
        if (back % 2 == 0)
            return i; /* not escaped: an even run of backslashes escapes only themselves */
    }
    return n + 1;
}

/*
 * Skip the JSON value at s[i..n) (valid JSON, as the record writer writes it: every quote and
 * backslash inside a string escaped).  Returns where it ends, n + 1 when it does not.
 */
static size_t skip_value(const char *s, size_t n, size_t i)
{
    int depth = 0;

    for (;;) {
        if (i >= n)
            return n + 1;
        if (s[i] == '"') {
            i = skip_string(s, n, i);
        } else if (s[i] == '{' || s[i] == '[') {
            depth++;
            i++;
            continue;
        } else if (s[i] == '}' || s[i] == ']') {
            depth--;
            i++;
        } else if (depth > 0) {
            i++; /* inside a container: a number, a literal, ':' or ',' */
            continue;
        } else {
            while (i < n && s[i] != ',' && s[i] != '}' && s[i] != ']')
                i++;
            return i;
        }
        if (depth <= 0)
            return i <= n ? i : n + 1;
    }
}

/* 1 when s[i..n) starts with the literal lit (of length k). */
static int at_lit(const char *s, size_t n, size_t i, const char *lit, size_t k)
{
    return i <= n && n - i >= k && memcmp(s + i, lit, k) == 0;
}

/*
 * Where the record's expected value and observed value stand: {"operator":S,"expected":V,
 * "observed":V,...}.  Returns 0 and the spans span[0..2) (expected) and span[2..4) (observed),
 * or -1 when the record is not of that shape.
 */
static int member_spans(const char *rec, size_t n, size_t span[4])
{
    static const char head[] = "{\"operator\":", mid[] = ",\"expected\":", obs[] = ",\"observed\":";
    size_t i = sizeof(head) - 1;

    if (!at_lit(rec, n, 0, head, i) || !at_lit(rec, n, i, "\"", 1))
        return -1;
    i = skip_value(rec, n, i);
    if (!at_lit(rec, n, i, mid, sizeof(mid) - 1))
        return -1;
    span[0] = i + sizeof(mid) - 1;
    span[1] = skip_value(rec, n, span[0]);
    if (!at_lit(rec, n, span[1], obs, sizeof(obs) - 1))
        return -1;
    span[2] = span[1] + sizeof(obs) - 1;
    span[3] = skip_value(rec, n, span[2]);
    return span[3] <= n ? 0 : -1;
}

enum arb_status store_check_text(const struct arb_check_row *c, int64_t run, struct arb_buf *buf,
                                 struct store_check_text *t)
{
    size_t n = strlen(c->record_json), span[4], from = 0;
    const char *r = c->record_json;
    int cut[2];

    t->text = r;
    t->len = n;
    t->at[0] = t->at[1] = -1;
    if ((c->expected_is_case || c->observed_is_output) && member_spans(r, n, span) == 0) {
        cut[0] = c->expected_is_case != 0;
        cut[1] = c->observed_is_output && r[span[2]] == '"';
        if (cut[0] || cut[1]) {
            arb_buf_reset(buf);
            for (int k = 0; k < 2; k++) {
                if (!cut[k])
                    continue;
                if (arb_buf_add(buf, r + from, span[2 * k] - from))
                    return ARB_ENOMEM;
                t->at[k] = (int64_t)buf->len;
                if (arb_buf_add(buf, "null", 4))
                    return ARB_ENOMEM;
                from = span[2 * k + 1];
            }
            if (arb_buf_add(buf, r + from, n - from))
                return ARB_ENOMEM;
            t->text = buf->ptr;
            t->len = buf->len;
        }
    }
    t->hash = store_text_hash(run, t->at, t->text, t->len);
    return ARB_OK;
}

/* Bind an offset, NULL for -1. */
static int bind_at(int rc, sqlite3_stmt *s, int i, int64_t at)
{
    return at < 0 ? store_bind_text(rc, s, i, NULL) : store_bind_int(rc, s, i, at);
}

/* Write a text; its id in *id. */
static enum arb_status put_text(struct arb_store *st, int64_t run, const char *text, size_t len,
                                const int64_t at[2], int64_t *id, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_TEXT);
    enum arb_status ret;
    int rc = SQLITE_OK;

    rc = store_bind_int(rc, s, 1, run);
    rc = bind_at(rc, s, 2, at[0]);
    rc = bind_at(rc, s, 3, at[1]);
    rc = store_bind_blob_text(rc, s, 4, text, len);
    ret = store_exec_bound(st, s, rc, err, "put a check record's text");
    *id = sqlite3_last_insert_rowid(st->db);
    return ret;
}

static int binds_key(int rc, sqlite3_stmt *s, int64_t run, const struct arb_check_row *c)
{
    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, c->case_id);
    rc = store_bind_text(rc, s, 3, c->system);
    rc = store_bind_text(rc, s, 4, c->kind);
    return store_bind_text(rc, s, 5, c->item);
}

/*
 * The id of c's text (given cut as t, or NULL: cut here), written unless remembered; *shared 0
 * when the record has a text of its own (unresolved: it may be replaced; written now).
 */
static enum arb_status text_id(struct arb_store *st, int64_t run, const struct arb_check_row *c,
                               const struct store_check_text *t, int64_t *id, int *shared,
                               struct arb_err *err)
{
    struct store_check_text own;
    enum arb_status ret;

    if (!c || !c->record_json || !c->verdict)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_put_check: no check");
    if (!t && store_check_text(c, run, &st->scratch, &own) != ARB_OK)
        return arb_err_set(err, ARB_ENOMEM, "out of memory putting a check");
    if (!t)
        t = &own;
    *shared = strcmp(c->verdict, "unresolved") != 0;
    *id = *shared ? store_text_recall(st, t->hash, run, t->at, t->text, t->len) : 0;
    if (*id)
        return ARB_OK;
    ret = put_text(st, run, t->text, t->len, t->at, id, err);
    if (ret == ARB_OK && *shared)
        store_text_remember(st, t->hash, run, t->at, t->text, t->len, *id);
    return ret;
}

/* Bind row k (of a statement's rows) of a check record: its eight values. */
static int bind_row(int rc, sqlite3_stmt *s, int k, int64_t run, const struct arb_check_row *c,
                    int64_t id)
{
    int i = 8 * k;

    rc = store_bind_int(rc, s, i + 1, run);
    rc = store_bind_text(rc, s, i + 2, c->case_id);
    rc = store_bind_text(rc, s, i + 3, c->system);
    rc = store_bind_text(rc, s, i + 4, c->kind);
    rc = store_bind_text(rc, s, i + 5, c->item);
    rc = store_bind_text(rc, s, i + 6, c->verdict);
    rc = store_bind_real(rc, s, i + 7, c->score);
    return store_bind_int(rc, s, i + 8, id);
}

/* Insert rows[0..n) (texts ids[0..n), shareable) by eights, fours and ones. */
static enum arb_status insert_rows(struct arb_store *st, int64_t run,
                                   const struct arb_check_row *rows, const int64_t *ids, size_t n,
                                   struct arb_err *err)
{
    enum arb_status ret = ARB_OK;

    while (ret == ARB_OK && n > 0) {
        size_t m = n >= 8 ? 8 : n >= 4 ? 4 : 1;
        sqlite3_stmt *s = store_stmt(st, m == 8   ? Q_PUT_CHECKS8
                                         : m == 4 ? Q_PUT_CHECKS4
                                                  : Q_PUT_CHECK);
        int rc = SQLITE_OK;

        for (size_t k = 0; k < m; k++)
            rc = bind_row(rc, s, (int)k, run, &rows[k], ids[k]);
        ret = store_exec_bound(st, s, rc, err, "put a check"); /* every row binds all 8 */
        rows += m;
        ids += m;
        n -= m;
    }
    return ret;
}

/*
 * Insert one record whose text is its own (id, just written): when the record was there
 * already (a resumed run redoing a batch), the new text goes.
 */
static enum arb_status put_own(struct arb_store *st, int64_t run, const struct arb_check_row *c,
                               int64_t id, struct arb_err *err)
{
    enum arb_status ret = insert_rows(st, run, c, &id, 1, err);
    sqlite3_stmt *s = store_stmt(st, Q_DEL_TEXT);

    if (ret != ARB_OK || sqlite3_changes(st->db) != 0)
        return ret;
    return store_exec(st, s, store_bind_int(SQLITE_OK, s, 1, id), err,
                      "delete a check record's text");
}

enum arb_status store_put_checks(struct arb_store *st, int64_t run,
                                 const struct arb_check_row *rows,
                                 const struct store_check_text *texts, size_t n,
                                 struct arb_err *err)
{
    enum arb_status ret = store_need_txn(st, "put a check", err);
    int64_t ids[16];
    size_t from = 0, k;

    if (n > 16)
        return arb_err_set(err, ARB_EUSAGE, "store_put_checks: %zu records at once", n);
    for (k = 0; ret == ARB_OK && k < n; k++) {
        int shared = 0;

        ret = text_id(st, run, &rows[k], texts ? &texts[k] : NULL, &ids[k], &shared, err);
        if (ret != ARB_OK || shared)
            continue;
        /* A record with a text of its own goes alone, in its place among the others. */
        ret = insert_rows(st, run, rows + from, ids + from, k - from, err);
        if (ret == ARB_OK)
            ret = put_own(st, run, &rows[k], ids[k], err);
        from = k + 1;
    }
    if (ret == ARB_OK)
        ret = insert_rows(st, run, rows + from, ids + from, n - from, err);
    return ret;
}

enum arb_status arb_store_put_check(struct arb_store *st, int64_t run,
                                    const struct arb_check_row *c, struct arb_err *err)
{
    return store_put_checks(st, run, c, NULL, 1, err);
}

/* The text id and verdict of the check record c names; *id 0 when there is none. */
static enum arb_status text_of(struct arb_store *st, int64_t run, const struct arb_check_row *c,
                               int64_t *id, int *unresolved, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_CHECK_TEXT);
    int rc = binds_key(SQLITE_OK, s, run, c);

    *id = 0;
    *unresolved = 0;
    if (!s)
        return store_fail(st, store_errcode(st), err, "prepare to read a check");
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const char *v = store_col_text(s, 1);

        *id = sqlite3_column_int64(s, 0);
        *unresolved = v && strcmp(v, "unresolved") == 0;
        rc = SQLITE_DONE;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? ARB_OK : store_fail(st, rc, err, "read a check");
}

enum arb_status arb_store_set_check(struct arb_store *st, int64_t run,
                                    const struct arb_check_row *c, struct arb_err *err)
{
    sqlite3_stmt *s;
    enum arb_status ret = store_need_txn(st, "set a check", err);
    struct store_check_text t;
    int64_t id;
    int own, rc = SQLITE_OK;

    if (ret == ARB_OK && (!c || !c->record_json || !c->verdict))
        ret = arb_err_set(err, ARB_EUSAGE, "arb_store_set_check: no check");
    if (ret == ARB_OK)
        ret = text_of(st, run, c, &id, &own, err);
    if (ret != ARB_OK || id == 0)
        return ret;
    if (store_check_text(c, run, &st->scratch, &t) != ARB_OK)
        return arb_err_set(err, ARB_ENOMEM, "out of memory setting a check");
    if (own) {
        /* Its text is its own (put unresolved): replaced in place. */
        s = store_stmt(st, Q_SET_TEXT);
        rc = store_bind_int(rc, s, 1, id);
        rc = bind_at(rc, s, 2, t.at[0]);
        rc = bind_at(rc, s, 3, t.at[1]);
        rc = store_bind_blob_text(rc, s, 4, t.text, t.len);
        ret = store_exec(st, s, rc, err, "set a check record's text");
    } else {
        ret = put_text(st, run, t.text, t.len, t.at, &id, err);
    }
    if (ret != ARB_OK)
        return ret;
    s = store_stmt(st, Q_SET_CHECK);
    rc = binds_key(SQLITE_OK, s, run, c);
    rc = store_bind_text(rc, s, 6, c->verdict);
    rc = store_bind_real(rc, s, 7, c->score);
    rc = store_bind_int(rc, s, 8, id);
    return store_exec(st, s, rc, err, "set a check");
}

/* ---- reading ------------------------------------------------------------------------------ */

/* 1 when the four bytes at body[at] are the null a kept member left, before limit. */
static int null_at(const char *body, size_t limit, int64_t at)
{
    return at >= 0 && (size_t)at <= limit && limit - (size_t)at >= 4 &&
           memcmp(body + at, "null", 4) == 0;
}

/*
 * The whole record of the row s is on (Q_CHECKS_*'s columns) in *rec: its text, or in out the
 * text with the case's expected value and the output's JSON string in place of their nulls.
 */
static enum arb_status whole_record(sqlite3_stmt *s, struct arb_buf *out, const char **rec,
                                    struct arb_err *err)
{
    const char *body = store_col_text(s, 4), *content = store_col_text(s, 8);
    const char *expected = store_col_text(s, 11);
    size_t n = (size_t)sqlite3_column_bytes(s, 4);
    int64_t id = sqlite3_column_int64(s, 9), e = -1, o = -1;
    enum arb_status st = ARB_OK;

    *rec = body;
    if (sqlite3_column_type(s, 10) != SQLITE_NULL)
        e = sqlite3_column_int64(s, 10);
    if (sqlite3_column_type(s, 7) != SQLITE_NULL)
        o = sqlite3_column_int64(s, 7);
    if (e < 0 && o < 0)
        return ARB_OK;
    if (!body || (e >= 0 && (!expected || !null_at(body, o >= 0 ? (size_t)o : n, e))) ||
        (o >= 0 && (!content || !null_at(body, n, o))))
        return arb_err_set(err, ARB_EDB,
                           "check record %lld: the case's expected value or the output's text it "
                           "refers to is not stored, or its text was edited",
                           (long long)id);
    arb_buf_reset(out);
    if (e >= 0) {
        st = arb_buf_add(out, body, (size_t)e);
        if (!st)
            st = arb_buf_add(out, expected, (size_t)sqlite3_column_bytes(s, 11));
    }
    if (!st && o >= 0) {
        size_t from = e >= 0 ? (size_t)e + 4 : 0;

        st = arb_buf_add(out, body + from, (size_t)o - from);
        if (!st)
            st = arb_result_write_string(out, content, (size_t)sqlite3_column_bytes(s, 8));
    }
    if (!st) {
        size_t from = o >= 0 ? (size_t)o + 4 : (size_t)e + 4;

        st = arb_buf_add(out, body + from, n - from);
    }
    if (st)
        return arb_err_set(err, st, "out of memory reading check record %lld", (long long)id);
    *rec = out->ptr;
    return ARB_OK;
}

enum arb_status arb_store_checks(struct arb_store *st, int64_t run, const char *case_id,
                                 int (*fn)(void *ctx, const struct arb_check_row *c), void *ctx,
                                 struct arb_err *err)
{
    enum store_stmt q = case_id ? Q_CHECKS_CASE : Q_CHECKS_ALL;
    enum arb_status ret;
    struct arb_buf rec;
    sqlite3_stmt *s;
    int rc;

    if (!fn)
        return arb_err_set(err, ARB_EUSAGE, "list checks: no callback");
    ret = store_acquire(st, q, &s, err);
    if (ret != ARB_OK)
        return ret;
    arb_buf_init(&rec, 0);
    rc = store_bind_int(SQLITE_OK, s, 1, run);
    if (case_id)
        rc = store_bind_text(rc, s, 2, case_id);
    while (ret == ARB_OK && (rc == SQLITE_OK || rc == SQLITE_ROW)) {
        struct arb_check_row c = {0};

        rc = sqlite3_step(s);
        if (rc != SQLITE_ROW)
            break;
        c.case_id = store_col_text(s, 0);
        c.system = store_col_text(s, 1);
        c.kind = store_col_text(s, 2);
        c.item = store_col_text(s, 3);
        c.verdict = store_col_text(s, 5);
        c.score = store_col_real(s, 6);
        ret = whole_record(s, &rec, &c.record_json, err);
        if (ret == ARB_OK && fn(ctx, &c)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (ret == ARB_OK && rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "list checks");
    store_release(st, q, s);
    arb_buf_release(&rec);
    return ret;
}
