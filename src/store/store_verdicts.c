/*
 * store_verdicts.c - verdicts: putting one with its comparison.json kept once per distinct
 * text of a run, and replacing a pending one with the judge's (db/README.md, migration 11).
 *
 * A verdict's text goes into verdict_texts and the verdict refers to it by id.  The store
 * remembers the texts it wrote lately (store_texts.c) and refers to a remembered text instead
 * of writing it again, so the verdicts the checks decide alike share one text.  A verdict that
 * will be replaced (pending_judge: the judge decides it; judge_failed: `--resume
 * --retry-failed` asks again) gets a text of its own, and replacing the verdict replaces that
 * text in place; a shared text is never changed.  Reading joins the text back (store.c's
 * verdict statements: coalesce(t.body, v.comparison_inline), the inline column holding the
 * texts of verdicts stored before migration 11), so a verdict reads back byte for byte as it
 * was put.
 */
#include <string.h>

#include "store_int.h"

static const int64_t verdict_at[2] = {STORE_TEXT_VERDICT, STORE_TEXT_VERDICT};

/* 1 when a verdict of this status is replaced later: its text is its own. */
static int replaceable(const char *status)
{
    return status && (strcmp(status, "pending_judge") == 0 || strcmp(status, "judge_failed") == 0);
}

/* Write a text; its id in *id. */
static enum arb_status put_text(struct arb_store *st, int64_t run, const char *text, int64_t *id,
                                struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_VTEXT);
    int rc = store_bind_int(SQLITE_OK, s, 1, run);
    enum arb_status ret;

    rc = store_bind_text(rc, s, 2, text);
    ret = store_exec_bound(st, s, rc, err, "put a verdict's comparison text");
    *id = ret == ARB_OK ? sqlite3_last_insert_rowid(st->db) : 0;
    return ret;
}

/* Delete the text id (one no verdict refers to). */
static enum arb_status del_text(struct arb_store *st, int64_t id, struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_DEL_VTEXT);

    return store_exec(st, s, store_bind_int(SQLITE_OK, s, 1, id), err,
                      "delete a verdict's comparison text");
}

void store_verdict_text(const struct arb_verdict_row *v, int64_t run, struct store_verdict_text *t)
{
    t->len = v->comparison_json ? strlen(v->comparison_json) : 0;
    t->hash = v->comparison_json && !replaceable(v->status)
                  ? store_text_hash(run, verdict_at, v->comparison_json, t->len)
                  : 0;
}

/*
 * The id of v's text (its length and hash in t) in *id (0: v has none), written unless
 * remembered; *fresh 1 when it was written now.
 */
static enum arb_status text_id(struct arb_store *st, int64_t run, const struct arb_verdict_row *v,
                               const struct store_verdict_text *t, int64_t *id, int *fresh,
                               struct arb_err *err)
{
    *id = 0;
    *fresh = 0;
    if (!v->comparison_json)
        return ARB_OK;
    if (!replaceable(v->status)) {
        *id = store_text_recall(st, t->hash, run, verdict_at, v->comparison_json, t->len);
        if (*id)
            return ARB_OK;
    }
    *fresh = 1;
    return put_text(st, run, v->comparison_json, id, err);
}

/* The ten values of a verdict but its key's run, and its text's id (NULL for 0). */
static enum arb_status verdict_exec(struct arb_store *st, enum store_stmt q, int64_t run,
                                    const struct arb_verdict_row *v, int64_t text, const char *what,
                                    struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, q);
    int rc = SQLITE_OK;

    rc = store_bind_int(rc, s, 1, run);
    rc = store_bind_text(rc, s, 2, v->case_id);
    rc = store_bind_text(rc, s, 3, v->system_a);
    rc = store_bind_text(rc, s, 4, v->system_b);
    rc = store_bind_text(rc, s, 5, v->status);
    rc = store_bind_text(rc, s, 6, v->winner);
    rc = store_bind_real(rc, s, 7, v->score_a);
    rc = store_bind_real(rc, s, 8, v->score_b);
    rc = store_bind_real(rc, s, 9, v->pass_rate_a);
    rc = store_bind_real(rc, s, 10, v->pass_rate_b);
    rc = text ? store_bind_int(rc, s, 11, text) : store_bind_text(rc, s, 11, NULL);
    return store_exec_bound(st, s, rc, err, what);
}

/* Put v with the text id, just taken by text_id: a fresh text no verdict took goes again. */
static enum arb_status put_with(struct arb_store *st, enum store_stmt q, int64_t run,
                                const struct arb_verdict_row *v, int64_t id, int fresh,
                                const struct store_verdict_text *t, const char *what,
                                struct arb_err *err)
{
    enum arb_status ret = verdict_exec(st, q, run, v, id, what, err);

    if (ret != ARB_OK || !fresh)
        return ret;
    if (sqlite3_changes(st->db) == 0)
        return del_text(st, id, err); /* the verdict was there already (a resumed run) */
    if (!replaceable(v->status))
        store_text_remember(st, t->hash, run, verdict_at, v->comparison_json, t->len, id);
    return ARB_OK;
}

static enum arb_status put_verdict(struct arb_store *st, int64_t run,
                                   const struct arb_verdict_row *v,
                                   const struct store_verdict_text *t, struct arb_err *err)
{
    enum arb_status ret = store_need_txn(st, "put a verdict", err);
    int64_t id;
    int fresh;

    if (ret != ARB_OK)
        return ret;
    if (!v)
        return arb_err_set(err, ARB_EUSAGE, "put a verdict: no verdict");
    ret = text_id(st, run, v, t, &id, &fresh, err);
    if (ret != ARB_OK)
        return ret;
    return put_with(st, Q_PUT_VERDICT, run, v, id, fresh, t, "put a verdict", err);
}

enum arb_status arb_store_put_verdict(struct arb_store *st, int64_t run,
                                      const struct arb_verdict_row *v, struct arb_err *err)
{
    struct store_verdict_text t = {0, 0};

    if (v)
        store_verdict_text(v, run, &t);
    return put_verdict(st, run, v, &t, err);
}

/* The stored verdict with v's key: its text's id (0: none) and whether that text is its own. */
static enum arb_status stored_text(struct arb_store *st, int64_t run,
                                   const struct arb_verdict_row *v, int64_t *id, int *own,
                                   struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_VERDICT_TEXT);
    int rc = store_bind_int(SQLITE_OK, s, 1, run);

    *id = 0;
    *own = 0;
    if (!s)
        return store_fail(st, store_errcode(st), err, "prepare to read a verdict");
    rc = store_bind_text(rc, s, 2, v->case_id);
    rc = store_bind_text(rc, s, 3, v->system_a);
    rc = store_bind_text(rc, s, 4, v->system_b);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(s, 0);
        *own = replaceable(store_col_text(s, 1));
        rc = SQLITE_DONE;
    }
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? ARB_OK : store_fail(st, rc, err, "read a verdict");
}

static enum arb_status set_verdict(struct arb_store *st, int64_t run,
                                   const struct arb_verdict_row *v,
                                   const struct store_verdict_text *t, struct arb_err *err)
{
    enum arb_status ret = store_need_txn(st, "set a verdict", err);
    sqlite3_stmt *s = store_stmt(st, Q_SET_VTEXT);
    int64_t old, id;
    int own, fresh, rc;

    if (ret != ARB_OK)
        return ret;
    if (!v)
        return arb_err_set(err, ARB_EUSAGE, "set a verdict: no verdict");
    ret = stored_text(st, run, v, &old, &own, err);
    if (ret != ARB_OK)
        return ret;
    if (!old || !own) {
        /* No text of its own to replace: as a put (a shared text stays as it is). */
        ret = text_id(st, run, v, t, &id, &fresh, err);
        if (ret != ARB_OK)
            return ret;
        return put_with(st, Q_SET_VERDICT, run, v, id, fresh, t, "set a verdict", err);
    }
    if (!v->comparison_json) {
        ret = verdict_exec(st, Q_SET_VERDICT, run, v, 0, "set a verdict", err);
        return ret != ARB_OK ? ret : del_text(st, old, err);
    }
    /* Its own text, replaced in place. */
    rc = store_bind_int(SQLITE_OK, s, 1, old);
    rc = store_bind_text(rc, s, 2, v->comparison_json);
    ret = store_exec(st, s, rc, err, "set a verdict's comparison text");
    if (ret != ARB_OK)
        return ret;
    return verdict_exec(st, Q_SET_VERDICT, run, v, old, "set a verdict", err);
}

enum arb_status arb_store_set_verdict(struct arb_store *st, int64_t run,
                                      const struct arb_verdict_row *v, struct arb_err *err)
{
    struct store_verdict_text t = {0, 0};

    if (v)
        store_verdict_text(v, run, &t);
    return set_verdict(st, run, v, &t, err);
}

enum arb_status store_write_verdict(struct arb_store *st, int64_t run,
                                    const struct arb_verdict_row *v,
                                    const struct store_verdict_text *t, int replace,
                                    struct arb_err *err)
{
    return replace ? set_verdict(st, run, v, t, err) : put_verdict(st, run, v, t, err);
}
