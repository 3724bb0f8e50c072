/*
 * load.c - passes 1 and 2 of a run (see run.c): the suite's cases, then
 * each system's outputs, streamed into the store in batched transactions,
 * and the connections they write through.  A case the selection leaves out
 * is neither stored nor a problem, and neither are its outputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "runner.h"

#define OUTPUT_BATCH 1000

void run_moved(struct runner *r)
{
    if (r->opts->progress)
        r->opts->progress(r->opts->progress_ctx, &r->prog);
}

/*
 * The run's connections.  Without a judge, the writes go to a writer thread
 * on st and pass 3 reads through a second, read-only connection (it reads
 * only what passes 1 and 2 committed, and the writer is synced in between),
 * so SQLite's work overlaps the reading, checking and deciding.  With a
 * judge, st does both at once: the judge's session uses the connection
 * between batches, and the pairs it answers must be committed first.
 */
enum arb_status run_open_writer(struct runner *r, int threaded)
{
    struct arb_err ignored = {{0}};
    enum arb_status st;

    r->rd = r->st;
    if (threaded && arb_store_open(arb_store_path(r->st),
                                   ARB_STORE_READONLY | ARB_STORE_STREAM | ARB_STORE_UNSHARED,
                                   &r->rd, &ignored))
        r->rd = r->st; /* no second connection: no thread either */
    st = arb_store_writer_start(r->st, r->rd != r->st, &r->w, r->err);
    if (r->rd != r->st && (st || !arb_store_writer_threaded(r->w))) {
        arb_store_close(r->rd);
        r->rd = r->st;
    }
    return st;
}

/* Wait for the writer, free it and close the reading connection; st is the status so far. */
enum arb_status run_close_writer(struct runner *r, enum arb_status st)
{
    struct arb_err werr = {{0}};
    enum arb_status ws = arb_store_writer_finish(r->w, &werr);

    r->w = NULL;
    if (r->rd && r->rd != r->st)
        arb_store_close(r->rd);
    r->rd = NULL;
    if (ws && !st) {
        *r->err = werr;
        st = ws;
    }
    return st;
}

/* After a failure: let the writer stop, and undo the transaction in flight. */
void run_abort_writes(struct runner *r)
{
    struct arb_err ignored = {{0}};

    arb_store_writer_sync(r->w, &ignored);
    arb_store_rollback(r->st);
}

/* Two ids of the suite share a fingerprint: read the cases again to name them (case_ids.h). */
static enum arb_status shared_ids(struct runner *r)
{
    struct arb_case_reader *cr = NULL;
    struct arb_case c;
    enum arb_status st = r->source->open_cases(r->source->ctx, r->s, &cr, r->err);
    size_t seq = 0;
    int got = 0;

    memset(&c, 0, sizeof(c));
    while (!st && (got = arb_case_reader_next(cr, &c, r->err)) == 1) {
        st = case_ids_shared_id(&r->ids, seq++, c.id);
        arb_case_release(&c);
    }
    if (!st && got < 0)
        st = (enum arb_status) - got;
    arb_case_reader_free(cr);
    if (!st)
        st = case_ids_finish(&r->ids);
    if (st == ARB_EINTERNAL)
        arb_err_set(r->err, st, "the cases of '%s' changed while the run read them", r->s->path);
    return st;
}

enum arb_status run_load_cases(struct runner *r, size_t batch)
{
    struct arb_case_reader *cr = NULL;
    struct arb_case c;
    struct arb_buf expected, raw;
    enum arb_status st;
    size_t seq = 0;
    int got;

    st = r->source->open_cases(r->source->ctx, r->s, &cr, r->err);
    if (st)
        return st;
    memset(&c, 0, sizeof(c));
    arb_buf_init(&expected, 0);
    arb_buf_init(&raw, 0);
    st = arb_store_writer_begin(r->w, r->err);
    r->prog.phase = ARB_RUN_LOADING_CASES;
    r->prog.done = 0;
    while (!st && (got = arb_case_reader_next(cr, &c, r->err)) == 1) {
        int keep = 0;

        st = run_scope_pick(&r->scope, c.id, r->blinder, &keep);
        if (!st)
            st = case_ids_add(&r->ids, c.id, keep);
        if (st || !keep) {
            arb_case_release(&c);
            seq++;
            continue;
        }
        /* the canonical texts in buffers kept across cases: the writer copies them */
        arb_buf_reset(&expected);
        arb_buf_reset(&raw);
        if (!st && c.expected)
            st = arb_jcs_write(c.expected, &expected, r->err);
        if (!st)
            st = arb_jcs_write(c.raw, &raw, r->err);
        if (!st)
            st = arb_store_writer_put_case(r->w, r->run, c.id, (int64_t)seq, c.prompt,
                                           c.expected ? expected.ptr : NULL, raw.ptr, r->err);
        arb_case_release(&c);
        seq++;
        r->prog.done++;
        run_moved(r);
        if (!st && r->prog.done % batch == 0) {
            st = arb_store_writer_commit(r->w, r->err);
            if (!st)
                st = arb_store_writer_begin(r->w, r->err);
        }
    }
    arb_buf_release(&expected);
    arb_buf_release(&raw);
    if (!st && got < 0)
        st = (enum arb_status) - got;
    /* The reader's own table of the ids goes before the run's is made (case_ids_finish). */
    arb_case_reader_free(cr);
    if (!st)
        st = case_ids_finish(&r->ids);
    if (!st && r->ids.collided)
        st = shared_ids(r);
    if (!st)
        st = run_scope_check(&r->scope, &r->ids.fps, r->s->path, r->err);
    if (!st)
        st = arb_store_writer_commit(r->w, r->err);
    else
        run_abort_writes(r);
    r->prog.total = r->prog.done;
    return st;
}

static enum arb_status problem(struct runner *r, const char *kind, const char *case_id,
                               const char *system, const char *fmt, const char *arg)
{
    char msg[512];

    snprintf(msg, sizeof(msg), fmt, arg);
    return arb_store_writer_put_problem(r->w, r->run, kind, case_id, system, msg, r->err);
}

enum arb_status run_load_outputs(struct runner *r, const struct arb_system *sys)
{
    struct arb_output_reader *rd = NULL;
    struct arb_output o;
    struct arb_buf meta; /* an output's meta as RFC 8785 text, kept across outputs */
    size_t n = 0, isys = (size_t)(sys - r->s->systems);
    int got, keep, first;
    enum arb_status st;

    st = r->source->open_outputs(r->source->ctx, r->s, isys, &rd, r->err);
    if (st)
        return arb_err_prefix(r->err, st, "system '%s'", sys->name);
    case_ids_next_system(&r->ids);
    memset(&o, 0, sizeof(o));
    arb_buf_init(&meta, 0);
    r->prog.phase = ARB_RUN_LOADING_OUTPUTS;
    r->prog.system = sys->name;
    r->prog.done = 0;
    st = arb_store_writer_begin(r->w, r->err);
    while (!st && (got = arb_output_reader_next(rd, &o, r->err)) == 1) {
        int known = case_ids_get(&r->ids, o.case_id, &keep);

        if (known && !keep) {
            arb_output_release(&o); /* a case of the suite the run does not keep */
            continue;
        }
        if (o.problem) {
            /* an entry that is not a file: why the case may lack this output */
            st = problem(r, "unreadable_output", o.case_id, sys->name, "%s", o.problem);
            arb_output_release(&o);
            continue;
        }
        first = 1;
        if (!known) {
            st = problem(r, "unknown_case", o.case_id, sys->name,
                         "output for case '%s', which the suite does not have", o.case_id);
        } else if ((st = case_ids_output(&r->ids, &o, &first)) != ARB_OK) {
            /* fall through to cleanup */
        } else if (!first) {
            char what[600];

            snprintf(what, sizeof(what), "'%s'%s%s%s", o.case_id, o.file ? ", file '" : "",
                     o.file ? o.file : "", o.file ? "'" : "");
            if (o.trial)
                snprintf(what + strlen(what), sizeof(what) - strlen(what), ", trial %lld",
                         (long long)o.trial);
            st = problem(r, "duplicate_output", o.case_id, sys->name,
                         "a second output for case %s was ignored", what);
        } else {
            struct arb_output_row row = {o.case_id, sys->name, o.file ? o.file : "",
                                         o.text,    o.len,     o.binary,
                                         o.sha256,  NULL,      o.trial};
            arb_buf_reset(&meta);
            if (o.meta)
                st = arb_jcs_write(o.meta, &meta, r->err);
            row.meta_json = o.meta ? meta.ptr : NULL;
            if (!st)
                st = arb_store_writer_put_output(r->w, r->run, &row, r->err);
            /* Two trials of one case: the system has trials (has_trials, new runs). */
            if (!st)
                st = case_ids_stored(&r->ids, &o, &r->has_trials[isys]);
        }
        arb_output_release(&o);
        r->prog.done++;
        run_moved(r);
        if (!st && ++n % OUTPUT_BATCH == 0) {
            st = arb_store_writer_commit(r->w, r->err);
            if (!st)
                st = arb_store_writer_begin(r->w, r->err);
        }
    }
    arb_buf_release(&meta);
    if (!st && got < 0)
        st = arb_err_prefix(r->err, (enum arb_status) - got, "system '%s'", sys->name);
    if (!st)
        st = arb_store_writer_commit(r->w, r->err);
    else
        run_abort_writes(r);
    arb_output_reader_free(rd);
    case_ids_next_system(&r->ids);
    return st;
}
