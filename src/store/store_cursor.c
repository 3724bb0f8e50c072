/*
 * store_cursor.c - reading a stored run back one row at a time, for the
 * run engine's stored-run source (replay, re-judging): its cases in case
 * order with their stored JSON, and one system's outputs in case order.
 * The store's other readers call back; these are pulled, because the
 * engine pulls its cases and outputs from whatever source it is given.
 * A cursor holds its statement until it is closed (store_acquire: a second
 * cursor of the same kind prepares its own).
 */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

struct arb_store_cursor {
    struct arb_store *st;
    enum store_stmt q;
    sqlite3_stmt *s;
    int done;
};

static enum arb_status open_cursor(struct arb_store *st, enum store_stmt q, int64_t run,
                                   const char *system, struct arb_store_cursor **out,
                                   struct arb_err *err)
{
    struct arb_store_cursor *c = calloc(1, sizeof(*c));
    enum arb_status ret;
    int rc;

    *out = NULL;
    if (!c)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    c->st = st;
    c->q = q;
    ret = store_acquire(st, q, &c->s, err);
    if (ret) {
        free(c);
        return ret;
    }
    rc = store_bind_int(SQLITE_OK, c->s, 1, run);
    if (system)
        rc = store_bind_text(rc, c->s, 2, system);
    if (rc != SQLITE_OK) {
        ret = store_fail(st, rc, err, "read a stored run");
        arb_store_cursor_close(c);
        return ret;
    }
    *out = c;
    return ARB_OK;
}

/* Step: 1 a row, 0 the end, or a negated status. */
static int step(struct arb_store_cursor *c, struct arb_err *err)
{
    int rc;

    if (c->done)
        return 0;
    rc = sqlite3_step(c->s);
    if (rc == SQLITE_ROW)
        return 1;
    c->done = 1;
    return rc == SQLITE_DONE ? 0 : -(int)store_fail(c->st, rc, err, "read a stored run");
}

enum arb_status arb_store_cases_cursor(struct arb_store *st, int64_t run,
                                       struct arb_store_cursor **out, struct arb_err *err)
{
    return open_cursor(st, Q_CASES_ALL, run, NULL, out, err);
}

int arb_store_cursor_case(struct arb_store_cursor *c, const char **case_id, const char **case_json,
                          size_t *len, struct arb_err *err)
{
    int got = step(c, err);

    if (got == 1) {
        *case_id = store_col_text(c->s, 0);
        *case_json = store_col_text(c->s, 2);
        *len = (size_t)sqlite3_column_bytes(c->s, 2);
    }
    return got;
}

enum arb_status arb_store_outputs_cursor(struct arb_store *st, int64_t run, const char *system,
                                         struct arb_store_cursor **out, struct arb_err *err)
{
    return open_cursor(st, Q_OUTPUTS_SYSTEM, run, system, out, err);
}

int arb_store_cursor_output(struct arb_store_cursor *c, struct arb_output_row *o,
                            struct arb_err *err)
{
    int got = step(c, err);

    if (got == 1) {
        o->case_id = store_col_text(c->s, 0);
        o->system = store_col_text(c->s, 1);
        o->file = store_col_text(c->s, 2);
        o->content = store_col_text(c->s, 3);
        o->binary = sqlite3_column_int(c->s, 5) != 0;
        o->len = o->binary || !o->content ? (size_t)sqlite3_column_int64(c->s, 4)
                                          : (size_t)sqlite3_column_bytes(c->s, 3);
        o->sha256 = store_col_text(c->s, 6);
        o->meta_json = store_col_text(c->s, 7);
        o->trial = sqlite3_column_int64(c->s, 8);
    }
    return got;
}

void arb_store_cursor_close(struct arb_store_cursor *c)
{
    if (!c)
        return;
    store_release(c->st, c->q, c->s);
    free(c);
}
