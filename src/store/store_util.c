/*
 * store_util.c - the helpers every file of src/store/ shares: SQLite result codes turned
 * into statuses and messages naming the database, binding parameters (NULL for a NULL
 * string, NaN as NULL), reading columns, running a write, and the check that a write is
 * inside a transaction.  Declared in store_int.h.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "store_int.h"

static enum arb_status status_of(int rc)
{
    switch (rc & 0xff) {
    case SQLITE_NOMEM:
        return ARB_ENOMEM;
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
        return ARB_EUSAGE;
    case SQLITE_TOOBIG:
        return ARB_ETOOBIG;
    default:
        return ARB_EDB;
    }
}

enum arb_status store_fail(struct arb_store *st, int rc, struct arb_err *err, const char *what, ...)
{
    char doing[256];
    const char *msg = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);
    va_list ap;

    va_start(ap, what);
    vsnprintf(doing, sizeof(doing), what, ap);
    va_end(ap);
    /* The connection's message may belong to an earlier call: then describe rc alone. */
    if (st->db && (sqlite3_errcode(st->db) & 0xff) != (rc & 0xff))
        msg = sqlite3_errstr(rc);
    return arb_err_set(err, status_of(rc), "cannot %s in '%s': %s", doing, st->path, msg);
}

int store_bind_text(int rc, sqlite3_stmt *s, int i, const char *t)
{
    if (rc != SQLITE_OK)
        return rc;
    if (!s)
        return SQLITE_MISUSE; /* store_stmt could not prepare it */
    if (!t)
        return sqlite3_bind_null(s, i);
    return sqlite3_bind_text64(s, i, t, strlen(t), SQLITE_STATIC, SQLITE_UTF8);
}

int store_bind_blob_text(int rc, sqlite3_stmt *s, int i, const char *t, size_t len)
{
    if (rc != SQLITE_OK)
        return rc;
    if (!s)
        return SQLITE_MISUSE; /* store_stmt could not prepare it */
    if (!t)
        return sqlite3_bind_null(s, i);
    return sqlite3_bind_text64(s, i, t, len, SQLITE_STATIC, SQLITE_UTF8);
}

int store_bind_int(int rc, sqlite3_stmt *s, int i, int64_t v)
{
    if (rc != SQLITE_OK)
        return rc;
    if (!s)
        return SQLITE_MISUSE; /* store_stmt could not prepare it */
    return sqlite3_bind_int64(s, i, v);
}

int store_bind_real(int rc, sqlite3_stmt *s, int i, double v)
{
    if (rc != SQLITE_OK)
        return rc;
    if (!s)
        return SQLITE_MISUSE; /* store_stmt could not prepare it */
    if (v != v)
        return sqlite3_bind_null(s, i);
    return sqlite3_bind_double(s, i, v);
}

const char *store_col_text(sqlite3_stmt *s, int i)
{
    return (const char *)sqlite3_column_text(s, i);
}

double store_col_real(sqlite3_stmt *s, int i)
{
    if (sqlite3_column_type(s, i) == SQLITE_NULL)
        return NAN;
    return sqlite3_column_double(s, i);
}

enum arb_status store_exec_bound(struct arb_store *st, sqlite3_stmt *s, int rc, struct arb_err *err,
                                 const char *what)
{
    enum arb_status ret = ARB_OK;

    if (!s)
        return store_fail(st, store_errcode(st), err, "prepare to %s", what);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        ret = store_fail(st, rc, err, "%s", what);
    sqlite3_reset(s);
    return ret;
}

enum arb_status store_exec(struct arb_store *st, sqlite3_stmt *s, int rc, struct arb_err *err,
                           const char *what)
{
    enum arb_status ret = store_exec_bound(st, s, rc, err, what);

    if (s)
        sqlite3_clear_bindings(s);
    return ret;
}

enum arb_status store_need_txn(struct arb_store *st, const char *what, struct arb_err *err)
{
    if (st->flags & ARB_STORE_READONLY)
        return arb_err_set(err, ARB_EUSAGE, "cannot %s in '%s': opened read-only", what, st->path);
    if (sqlite3_get_autocommit(st->db))
        return arb_err_set(err, ARB_EUSAGE,
                           "cannot %s in '%s' outside a transaction (call arb_store_begin)", what,
                           st->path);
    return ARB_OK;
}
