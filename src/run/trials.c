/*
 * trials.c - several outputs of one system on one case ("trial": N in the
 * outputs; db/migrations/003-trials.sql).
 *
 * The lowest-numbered trial is the one compared, judged and decided by
 * run.c.  Here every trial, that one included, has its expectations checked
 * by the deterministic checks alone and gets one row in trials: the counts,
 * whether it passed (every checked expectation passed), and its check
 * records.  Free-text expectations (no check) are not part of a trial's
 * verdict: the judge answers them for the compared trial only.  A check left
 * in its grey band makes the trial unresolved (passed NULL).  Once a system
 * has several trials of some case, each of its cases gets rows, a case with
 * one output included (n = 1).  pass@k and pass^k are computed from these
 * rows by the report (src/report/trials.c).
 */
#include <stdio.h>
#include <string.h>

#include "arbiter/store.h"
#include "run_int.h"

const struct file_row *pick_file(const struct file_row *files, size_t n, const char *want,
                                 char *note, size_t note_size)
{
    const struct file_row *f = NULL;

    for (size_t i = 0; i < n; i++)
        if (want ? strcmp(files[i].file, want) == 0 : n == 1)
            f = &files[i];
    note[0] = '\0';
    if (!f && want)
        snprintf(note, note_size, "file_not_found: the output has no file '%s'", want);
    else if (!f)
        snprintf(note, note_size,
                 "output_is_a_directory: %zu files; name one with \"file\" in the check", n);
    else if (f->binary)
        snprintf(note, note_size, "binary_output: %zu bytes, not compared as text", f->len);
    return f;
}

/* Check every expectation of one trial (files[0..n)) and store its row. */
static enum arb_status one_trial(struct arb_store_writer *w, int64_t run, const struct items *it,
                                 const char *system, const struct file_row *files, size_t n,
                                 struct arb_result *res, struct arb_buf *rec, struct arb_err *err)
{
    struct arb_trial_row row = {it->kase->id, system, files[0].trial, 1, 0, 0, 0, NULL};
    enum arb_status s = arb_buf_add(rec, "[", 1);

    for (size_t i = 0; !s && i < it->n_exp; i++) {
        const struct arb_expectation *ex = item_expectation(it, i);
        const struct file_row *f;
        char note[300];

        if (!ex->check)
            continue; /* free text: the judge's alone, and it sees only the compared trial */
        f = pick_file(files, n, arb_check_file(ex->check), note, sizeof(note));
        if (note[0])
            s = arb_check_fail(ex->check, it->kase->expected, note, res);
        else
            s = arb_check_run(ex->check, f->content, f->len, it->kase->expected, res, err);
        if (s)
            return arb_err_prefix(err, s, "case '%s', trial %lld, expectation '%s'", it->kase->id,
                                  (long long)row.trial, ex->id);
        if (rec->len > 1)
            s = arb_buf_add(rec, ",", 1);
        if (!s)
            s = arb_result_write_json(res, rec);
        row.n_pass += res->verdict == ARB_PASS;
        row.n_fail += res->verdict == ARB_FAIL;
        row.n_unresolved += res->verdict == ARB_UNRESOLVED;
    }
    if (!s)
        s = arb_buf_add(rec, "]", 1);
    if (s)
        return s == ARB_ENOMEM ? arb_err_set(err, s, "out of memory") : s;
    row.passed = row.n_fail ? 0 : row.n_unresolved ? -1 : 1;
    row.records_json = rec->ptr;
    return arb_store_writer_put_trial(w, run, &row, err);
}

enum arb_status evaluate_trials(struct arb_store_writer *w, int64_t run, const struct items *it,
                                const char *system, int has_trials, const struct file_row *files,
                                size_t n, struct arb_result *res, struct arb_buf *rec,
                                struct arb_err *err)
{
    enum arb_status s = ARB_OK;
    size_t lo = 0, checked = 0;

    for (size_t i = 0; i < it->n_exp; i++)
        checked += item_expectation(it, i)->check != NULL;
    /* No trials in this system's outputs, or nothing to decide a trial by: no rows. */
    if (n == 0 || checked == 0 || (!has_trials && files[0].trial == files[n - 1].trial))
        return ARB_OK;
    while (!s && lo < n) {
        size_t hi = lo + 1;

        while (hi < n && files[hi].trial == files[lo].trial)
            hi++;
        arb_buf_reset(rec);
        s = one_trial(w, run, it, system, files + lo, hi - lo, res, rec, err);
        lo = hi;
    }
    return s;
}
