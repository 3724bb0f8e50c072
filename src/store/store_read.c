/*
 * store_read.c - the iterators over a run's records, the resume test and
 * row counts.
 *
 * Each iterator steps one prepared statement and hands the callback a row
 * whose strings point into SQLite's column memory: valid until the callback
 * returns.  Orders: outputs by system position (the suite's order) then
 * file; checks and problems in insert order; verdicts in case order.
 */
#include <stdlib.h>
#include <string.h>

#include "store_int.h"

/*
 * Step s (already bound; rc the binds' result), calling row(s, fn, ctx) for
 * each row until it returns non-zero.  Releases s.  what names the listing.
 */
typedef int (*row_fn)(sqlite3_stmt *s, void *fn, void *ctx);

static enum arb_status iterate(struct arb_store *st, enum store_stmt q, sqlite3_stmt *s, int rc,
                               row_fn row, void *fn, void *ctx, const char *what,
                               struct arb_err *err)
{
    enum arb_status ret = ARB_OK;

    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW && row(s, fn, ctx)) {
            rc = SQLITE_DONE;
            break;
        }
    }
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, err, "%s", what);
    store_release(st, q, s);
    return ret;
}

/* Acquire q and bind (run, case_id); case_id NULL binds nothing more. */
static enum arb_status start(struct arb_store *st, enum store_stmt q, int64_t run,
                             const char *case_id, sqlite3_stmt **s, int *rc, struct arb_err *err)
{
    enum arb_status ret = store_acquire(st, q, s, err);

    if (ret != ARB_OK)
        return ret;
    *rc = store_bind_int(SQLITE_OK, *s, 1, run);
    if (case_id)
        *rc = store_bind_text(*rc, *s, 2, case_id);
    return ARB_OK;
}

/*
 * One listing: bind (run, case_id) to q and hand each row to row(s, cb, ctx).
 * cb holds the caller's callback; has_fn says it was given.  what names the
 * listing in messages.
 */
static enum arb_status list(struct arb_store *st, enum store_stmt q, int64_t run,
                            const char *case_id, int has_fn, row_fn row, void *cb, void *ctx,
                            const char *what, struct arb_err *err)
{
    enum arb_status ret;
    sqlite3_stmt *s;
    int rc;

    if (!has_fn)
        return arb_err_set(err, ARB_EUSAGE, "%s: no callback", what);
    ret = start(st, q, run, case_id, &s, &rc, err);
    if (ret != ARB_OK)
        return ret;
    return iterate(st, q, s, rc, row, cb, ctx, what, err);
}

/* ---- outputs ------------------------------------------------------------------------------ */

struct output_cb {
    int (*fn)(void *ctx, const struct arb_output_row *o);
};

static int output_row(sqlite3_stmt *s, void *fn, void *ctx)
{
    const struct output_cb *cb = fn;
    struct arb_output_row o;

    o.case_id = store_col_text(s, 0);
    o.system = store_col_text(s, 1);
    o.file = store_col_text(s, 2);
    o.content = store_col_text(s, 3);
    o.binary = sqlite3_column_int(s, 5) != 0;
    /* Text: the stored bytes (after column_text, so the length is of that text). */
    o.len = o.binary || !o.content ? (size_t)sqlite3_column_int64(s, 4)
                                   : (size_t)sqlite3_column_bytes(s, 3);
    o.sha256 = store_col_text(s, 6);
    o.meta_json = store_col_text(s, 7);
    o.trial = sqlite3_column_int64(s, 8);
    return cb->fn(ctx, &o);
}

enum arb_status arb_store_outputs(struct arb_store *st, int64_t run, const char *case_id,
                                  int (*fn)(void *ctx, const struct arb_output_row *o), void *ctx,
                                  struct arb_err *err)
{
    struct output_cb cb = {fn};

    if (!case_id)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_outputs: no case");
    return list(st, Q_OUTPUTS, run, case_id, fn != NULL, output_row, &cb, ctx, "list outputs", err);
}

enum arb_status arb_store_outputs_by_key(struct arb_store *st, int64_t run, const char *case_id,
                                         int (*fn)(void *ctx, const struct arb_output_row *o),
                                         void *ctx, struct arb_err *err)
{
    struct output_cb cb = {fn};

    if (!case_id)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_outputs_by_key: no case");
    return list(st, Q_OUTPUTS_BY_KEY, run, case_id, fn != NULL, output_row, &cb, ctx,
                "list outputs", err);
}

/* Pass on only the rows of each system's first (lowest-numbered) trial. */
struct compared {
    int (*fn)(void *ctx, const struct arb_output_row *o);
    void *ctx;
    char *system; /* the system of the rows seen last, and its first trial */
    int64_t trial;
    int nomem;
};

static int compared_row(void *ctx, const struct arb_output_row *o)
{
    struct compared *c = ctx;

    if (!c->system || strcmp(c->system, o->system) != 0) {
        free(c->system);
        c->system = strdup(o->system);
        c->trial = o->trial;
        if (!c->system) {
            c->nomem = 1;
            return 1;
        }
    }
    return o->trial == c->trial ? c->fn(c->ctx, o) : 0;
}

enum arb_status arb_store_compared_outputs(struct arb_store *st, int64_t run, const char *case_id,
                                           int (*fn)(void *ctx, const struct arb_output_row *o),
                                           void *ctx, struct arb_err *err)
{
    struct compared c = {fn, ctx, NULL, 0, 0};
    enum arb_status ret;

    if (!fn)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_compared_outputs: no callback");
    ret = arb_store_outputs(st, run, case_id, compared_row, &c, err);
    free(c.system);
    if (!ret && c.nomem)
        ret = arb_err_set(err, ARB_ENOMEM, "out of memory");
    return ret;
}

/* ---- trials ------------------------------------------------------------------------------- */

struct trial_cb {
    int (*fn)(void *ctx, const struct arb_trial_row *t);
};

static int trial_row(sqlite3_stmt *s, void *fn, void *ctx)
{
    const struct trial_cb *cb = fn;
    struct arb_trial_row t;

    t.case_id = store_col_text(s, 0);
    t.system = store_col_text(s, 1);
    t.trial = sqlite3_column_int64(s, 2);
    t.passed = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 3) != 0;
    t.n_pass = sqlite3_column_int64(s, 4);
    t.n_fail = sqlite3_column_int64(s, 5);
    t.n_unresolved = sqlite3_column_int64(s, 6);
    t.records_json = store_col_text(s, 7);
    return cb->fn(ctx, &t);
}

enum arb_status arb_store_trials(struct arb_store *st, int64_t run, const char *case_id,
                                 int (*fn)(void *ctx, const struct arb_trial_row *t), void *ctx,
                                 struct arb_err *err)
{
    struct trial_cb cb = {fn};

    return list(st, case_id ? Q_TRIALS_CASE : Q_TRIALS_ALL, run, case_id, fn != NULL, trial_row,
                &cb, ctx, "list trials", err);
}

/* ---- problems ----------------------------------------------------------------------------- */

struct problem_cb {
    int (*fn)(void *ctx, const struct arb_problem_row *p);
};

/* '' in a key column means "none" (see arb_store_put_problem). */
static const char *none_if_empty(const char *s)
{
    return s && s[0] ? s : NULL;
}

static int problem_row(sqlite3_stmt *s, void *fn, void *ctx)
{
    const struct problem_cb *cb = fn;
    struct arb_problem_row p;

    p.kind = store_col_text(s, 0);
    p.case_id = none_if_empty(store_col_text(s, 1));
    p.system = none_if_empty(store_col_text(s, 2));
    p.message = store_col_text(s, 3);
    return cb->fn(ctx, &p);
}

enum arb_status arb_store_problems(struct arb_store *st, int64_t run,
                                   int (*fn)(void *ctx, const struct arb_problem_row *p), void *ctx,
                                   struct arb_err *err)
{
    struct problem_cb cb = {fn};

    return list(st, Q_PROBLEMS, run, NULL, fn != NULL, problem_row, &cb, ctx, "list problems", err);
}

/* ---- verdicts ----------------------------------------------------------------------------- */

struct verdict_cb {
    int (*fn)(void *ctx, const struct arb_verdict_row *v);
};

static int verdict_row(sqlite3_stmt *s, void *fn, void *ctx)
{
    const struct verdict_cb *cb = fn;
    struct arb_verdict_row v;

    v.case_id = store_col_text(s, 0);
    v.system_a = store_col_text(s, 1);
    v.system_b = store_col_text(s, 2);
    v.status = store_col_text(s, 3);
    v.winner = store_col_text(s, 4);
    v.score_a = store_col_real(s, 5);
    v.score_b = store_col_real(s, 6);
    v.pass_rate_a = store_col_real(s, 7);
    v.pass_rate_b = store_col_real(s, 8);
    v.comparison_json = store_col_text(s, 9);
    return cb->fn(ctx, &v);
}

enum arb_status arb_store_verdicts(struct arb_store *st, int64_t run, const char *case_id,
                                   int (*fn)(void *ctx, const struct arb_verdict_row *v), void *ctx,
                                   struct arb_err *err)
{
    struct verdict_cb cb = {fn};

    return list(st, case_id ? Q_VERDICTS_CASE : Q_VERDICTS_ALL, run, case_id, fn != NULL,
                verdict_row, &cb, ctx, "list verdicts", err);
}

enum arb_status arb_store_verdict_outcomes(struct arb_store *st, int64_t run,
                                           int (*fn)(void *ctx, const struct arb_verdict_row *v),
                                           void *ctx, struct arb_err *err)
{
    struct verdict_cb cb = {fn};

    return list(st, Q_VERDICT_OUTCOMES, run, NULL, fn != NULL, verdict_row, &cb, ctx,
                "list verdict outcomes", err);
}

/* ---- single values ------------------------------------------------------------------------ */

/* Run q bound with (run, case_id) and read one integer. */
static enum arb_status one_int(struct arb_store *st, enum store_stmt q, int64_t run,
                               const char *case_id, int64_t *v, const char *what,
                               struct arb_err *err)
{
    enum arb_status ret;
    sqlite3_stmt *s;
    int rc;

    ret = start(st, q, run, case_id, &s, &rc, err);
    if (ret != ARB_OK)
        return ret;
    if (rc == SQLITE_OK)
        rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *v = sqlite3_column_int64(s, 0);
    else
        ret = store_fail(st, rc, err, "%s", what);
    store_release(st, q, s);
    return ret;
}

enum arb_status arb_store_case_done(struct arb_store *st, int64_t run, const char *case_id,
                                    int *done, struct arb_err *err)
{
    enum arb_status ret;
    int64_t v = 0;

    if (!case_id || !done)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_case_done: no case or result");
    ret = one_int(st, Q_CASE_DONE, run, case_id, &v, "look up a verdict", err);
    if (ret == ARB_OK)
        *done = v != 0;
    return ret;
}

enum arb_status arb_store_has_trials(struct arb_store *st, int64_t run, const char *system,
                                     int *yes, struct arb_err *err)
{
    int64_t v = 0;
    enum arb_status ret = one_int(st, Q_HAS_TRIALS, run, system, &v, "look for trials", err);

    *yes = ret == ARB_OK && v != 0;
    return ret;
}

/* The tables arb_store_count accepts, each with its own fixed statement. */
static const struct {
    const char *table;
    enum store_stmt q;
} countable[] = {
    {"cases", Q_COUNT_CASES},       {"systems", Q_COUNT_SYSTEMS}, {"outputs", Q_COUNT_OUTPUTS},
    {"blinding", Q_COUNT_BLINDING}, {"checks", Q_COUNT_CHECKS},   {"verdicts", Q_COUNT_VERDICTS},
    {"problems", Q_COUNT_PROBLEMS}, {"trials", Q_COUNT_TRIALS},
    {"judged_cases", Q_COUNT_JUDGED_CASES}, /* cases with a judgment: the judge was asked */
};

enum arb_status arb_store_count(struct arb_store *st, int64_t run, const char *table, int64_t *n,
                                struct arb_err *err)
{
    if (!table || !n)
        return arb_err_set(err, ARB_EUSAGE, "arb_store_count: no table or result");
    for (size_t i = 0; i < sizeof(countable) / sizeof(countable[0]); i++) {
        if (strcmp(table, countable[i].table) == 0)
            return one_int(st, countable[i].q, run, NULL, n, "count rows", err);
    }
    return arb_err_set(err, ARB_EUSAGE,
                       "cannot count '%s': not a table of a run (cases, systems, outputs, "
                       "blinding, checks, verdicts, problems, trials, judged_cases)",
                       table);
}
