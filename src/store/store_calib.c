/*
 * store_calib.c - the calibrations table: store a judge calibration study,
 * and look up the latest study of a decision procedure, or of a judge's own
 * winners (run --require-calibrated, the report's judge health).
 * The study itself is computed by src/calibrate/; this file only keeps it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

enum arb_status arb_store_put_calibration(struct arb_store *st, const struct arb_calibration_row *c,
                                          struct arb_err *err)
{
    sqlite3_stmt *s = store_stmt(st, Q_PUT_CALIBRATION);
    enum arb_status ret;
    int rc = SQLITE_OK;

    if (!c || !c->labels_path || !c->study_json)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_put_calibration: incomplete row");
    ret = store_need_txn(st, "store a calibration", err);
    if (ret != ARB_OK)
        return ret;
    rc = store_bind_text(rc, s, 1, c->judge_hash);
    rc = store_bind_text(rc, s, 2, c->labels_path);
    rc = store_bind_int(rc, s, 3, c->n);
    rc = store_bind_real(rc, s, 4, c->kappa);
    rc = store_bind_real(rc, s, 5, c->accuracy);
    rc = store_bind_text(rc, s, 6, c->study_json);
    if (c->run)
        rc = store_bind_int(rc, s, 7, c->run);
    else if (rc == SQLITE_OK)
        rc = sqlite3_bind_null(s, 7);
    rc = store_bind_text(rc, s, 8, c->procedure_hash);
    rc = store_bind_text(rc, s, 9, c->source ? c->source : "labels");
    return store_exec(st, s, rc, err, "store a calibration (calibrations)");
}

static void copy_col(sqlite3_stmt *s, int col, char *dst, size_t size)
{
    const char *v = store_col_text(s, col);

    snprintf(dst, size, "%s", v ? v : "");
}

enum arb_status arb_store_calibration_of(struct arb_store *st, const char *procedure_hash,
                                         const char *judge_hash, struct arb_calibration_info *info,
                                         int *found, struct arb_err *err)
{
    sqlite3_stmt *s;
    enum arb_status ret;
    int rc;

    *found = 0;
    memset(info, 0, sizeof(*info));
    info->kappa = info->kappa_lo = info->kappa_hi = info->accuracy = NAN;
    if (!procedure_hash && !judge_hash)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_calibration_of: no procedure or judge");
    ret = store_acquire(st, Q_CALIBRATION_OF, &s, err);
    if (ret != ARB_OK)
        return ret;
    rc = store_bind_text(SQLITE_OK, s, 1, procedure_hash);
    rc = store_bind_text(rc, s, 2, judge_hash);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *found = 1;
        info->id = sqlite3_column_int64(s, 0);
        copy_col(s, 1, info->created_at, sizeof(info->created_at));
        copy_col(s, 2, info->source, sizeof(info->source));
        copy_col(s, 3, info->procedure_hash, sizeof(info->procedure_hash));
        copy_col(s, 4, info->judge_hash, sizeof(info->judge_hash));
        copy_col(s, 5, info->labels_path, sizeof(info->labels_path));
        info->n = sqlite3_column_int64(s, 6);
        info->kappa = store_col_real(s, 7);
        info->kappa_lo = store_col_real(s, 8);
        info->kappa_hi = store_col_real(s, 9);
        info->accuracy = store_col_real(s, 10);
        info->run = sqlite3_column_int64(s, 11);
    } else if (rc != SQLITE_DONE) {
        ret = store_fail(st, rc, err, "look up a calibration");
    }
    store_release(st, Q_CALIBRATION_OF, s);
    return ret;
}
