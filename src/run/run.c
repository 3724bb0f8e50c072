/*
 * run.c - the pipeline of a run (see include/arbiter/run.h).
 *
 * Three passes, each committing in batches so a kill loses at most the
 * batch in flight and a resume redoes it without duplicates (every put is
 * idempotent on its natural key):
 *   1. cases: stream the suite's cases into the store (ids remembered to
 *      recognise outputs for unknown cases);
 *   2. outputs: stream each system's outputs into the store, reporting
 *      duplicates and unknown case ids as problems;
 *   3. cases again: for each case without a verdict yet, run every check on
 *      every system's stored output, then blind and decide every pair.
 * Memory holds one case and its outputs at a time, plus the case ids'
 * fingerprints (case_ids.c).
 * A selection of cases (--limit, --cases), then a shard of it (--shard K/N;
 * setup.c), is applied in pass 1 and again in pass 3; outputs of suite cases
 * outside it are skipped silently.
 * Without a judge the writes (transactions included) are executed in order
 * by a writer thread (store_writer.c) while this one reads, checks and
 * decides, and pass 3 reads through a second connection (run_open_writer).
 * Passes 1 and 2 are in load.c, the run's row and its selection in setup.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/blind.h"
#include "arbiter/judge.h"
#include "arbiter/json.h"
#include "arbiter/run.h"
#include "arbiter/strset.h"
#include "runner.h"

#define DEFAULT_BATCH 256

static void on_judge_progress(void *ctx, const struct arb_judge_progress *p)
{
    struct runner *r = ctx;

    r->prog.judge = p;
    run_moved(r);
}

/* ---- pass 3: evaluate and decide ------------------------------------------------------ */

static void outs_clear(struct runner *r)
{
    size_t i, k;

    for (i = 0; i < r->s->n_systems; i++) {
        for (k = 0; k < r->outs[i].n_all; k++) {
            free(r->outs[i].files[k].file);
            free(r->outs[i].files[k].content);
        }
        r->outs[i].n = r->outs[i].n_all = 0;
    }
    r->obs_file = NULL; /* the files are gone: what was derived from one with them */
    arb_record_memo_reset(&r->memo); /* and the case's expected values */
}

struct collect {
    struct runner *r;
    enum arb_status st;
};

static int collect_output(void *ctx, const struct arb_output_row *o)
{
    struct collect *cl = ctx;
    struct runner *r = cl->r;
    struct sysout *so;
    struct file_row *f;
    size_t i;

    if (!arb_strset_get(&r->systems, o->system, &i))
        return 0; /* a system no longer in the suite */
    so = &r->outs[i];
    if (so->n_all == so->cap) {
        size_t cap = so->cap ? so->cap * 2 : 4;
        struct file_row *v = realloc(so->files, cap * sizeof(*v));

        if (!v) {
            cl->st = ARB_ENOMEM;
            return 1;
        }
        so->files = v;
        so->cap = cap;
    }
    f = &so->files[so->n_all];
    f->trial = o->trial;
    f->file = strdup(o->file ? o->file : "");
    f->content = arb_memdup0(o->content ? o->content : "", o->content ? o->len : 0);
    f->len = o->content ? o->len : 0;
    f->binary = o->binary;
    if (!f->file || !f->content) {
        free(f->file);
        free(f->content);
        cl->st = ARB_ENOMEM;
        return 1;
    }
    /* Rows come ordered by trial: the first trial's files are the compared ones. */
    if (so->n == so->n_all && f->trial == so->files[0].trial)
        so->n++;
    so->n_all++;
    return 0;
}

/* Run one check on one system's output and store its record. */
static enum arb_status eval_check(struct runner *r, const struct arb_case *kc, size_t sys,
                                  struct arb_check *c, const char *kind, const char *item,
                                  enum arb_verdict *v, double *score)
{
    const struct sysout *so = &r->outs[sys];
    char note[300];
    const struct file_row *f = pick_file(so->files, so->n, arb_check_file(c), note, sizeof(note));
    enum arb_status st;

    if (note[0]) {
        st = arb_check_fail(c, kc->expected, note, &r->res);
    } else {
        /* the checks of one output share what they derive from it (its JSON parse) */
        if (r->obs_file != f) {
            arb_observed_set(r->obs, f->content, f->len);
            r->obs_file = f;
            arb_record_memo_keep(&r->memo, f->content, f->len);
        }
        st = arb_check_run_on(c, r->obs, kc->expected, &r->res, r->err);
    }
    if (st)
        return arb_err_prefix(r->err, st, "case '%s', %s '%s'", kc->id, kind, item);
    arb_buf_reset(&r->rec);
    st = arb_result_write_json_memo(&r->res, &r->rec, &r->memo);
    if (!st) {
        /* The observed text is the output's own (no extract): the store keeps it once. */
        int own = !note[0] && !f->file[0] && r->res.observed && r->res.observed_len == f->len &&
                  memcmp(r->res.observed, f->content, f->len) == 0;
        struct arb_check_row row = {kc->id,     r->s->systems[sys].name,          kind,        item,
                                    r->rec.ptr, arb_verdict_name(r->res.verdict), r->res.score,
                                    own,        kc->expected && r->res.expected == kc->expected};

        st = arb_store_writer_put_check(r->w, r->run, &row, r->err);
    }
    *v = r->res.verdict;
    *score = r->res.score;
    return st;
}

static enum arb_status evaluate_system(struct runner *r, const struct arb_case *kc,
                                       const struct items *it, size_t sys)
{
    struct side *sd = &r->sides[sys];
    const struct arb_suite *s = r->s;
    enum arb_verdict v;
    double score;
    size_t i;
    enum arb_status st;

    sd->system = s->systems[sys].name;
    sd->missing = r->outs[sys].n == 0;
    llmj_list_clear(&sd->llmj);
    for (i = 0; i < s->n_criteria; i++)
        sd->crit[i] = NAN;
    for (i = 0; i < it->n_exp; i++)
        sd->exp[i] = ARB_UNRESOLVED;
    if (sd->missing)
        return ARB_OK;
    st = evaluate_trials(r->w, r->run, it, sd->system, r->has_trials[sys], r->outs[sys].files,
                         r->outs[sys].n_all, &r->res, &r->rec, r->err);
    for (i = 0; !st && i < s->n_criteria; i++) {
        const struct arb_criterion *cr = &s->criteria[i];

        if (!cr->check)
            continue;
        st = eval_check(r, kc, sys, cr->check, "criterion", cr->name, &v, &score);
        if (!st && v != ARB_UNRESOLVED)
            sd->crit[i] = cr->graded ? 1.0 + 4.0 * score : v == ARB_PASS ? 5.0 : 1.0;
        else if (!st && r->esc && llmj_is(cr->check)) /* the judge will be asked its question */
            st = llmj_keep(&sd->llmj, cr->check, 1, i, cr->name, &r->res, r->rec.ptr);
    }
    for (i = 0; !st && i < it->n_exp; i++) {
        const struct arb_expectation *ex = item_expectation(it, i);

        if (ex->check)
            st = eval_check(r, kc, sys, ex->check, "expectation", ex->id, &sd->exp[i], &score);
        if (!st && r->esc && llmj_is(ex->check) && sd->exp[i] == ARB_UNRESOLVED)
            st = llmj_keep(&sd->llmj, ex->check, 0, i, ex->id, &r->res, r->rec.ptr);
    }
    if (!st && s->fields_check)
        st = eval_check(r, kc, sys, s->fields_check, "fields", "fields", &v, &score);
    return st;
}

/* Make room in every side for this case's expectations. */
static enum arb_status sides_fit(struct runner *r, size_t n_exp)
{
    size_t i;

    if (n_exp <= r->exp_cap)
        return ARB_OK;
    for (i = 0; i < r->s->n_systems; i++) {
        enum arb_verdict *v = realloc(r->sides[i].exp, n_exp * sizeof(*v));

        if (!v)
            return ARB_ENOMEM;
        r->sides[i].exp = v;
    }
    r->exp_cap = n_exp;
    return ARB_OK;
}

static enum arb_status check_ids(struct runner *r, const struct arb_case *kc)
{
    size_t i, k;

    for (i = 0; i < kc->n_expectations; i++)
        for (k = 0; k < r->s->n_expectations; k++)
            if (strcmp(kc->expectations[i].id, r->s->expectations[k].id) == 0)
                return arb_err_set(r->err, ARB_ESCHEMA,
                                   "case '%s': expectation id '%s' repeats one of the suite's",
                                   kc->id, kc->expectations[i].id);
    return ARB_OK;
}

/* The text a judge sees of one system's output: the file, or every file under a header. */
static enum arb_status output_text(const struct sysout *so, struct arb_buf *out)
{
    size_t i;
    enum arb_status st = ARB_OK;

    arb_buf_reset(out);
    for (i = 0; !st && i < so->n; i++) {
        const struct file_row *f = &so->files[i];

        if (so->n > 1)
            st = arb_buf_printf(out, "%s=== file: %s ===\n", i ? "\n" : "", f->file);
        if (!st && f->binary)
            st = arb_buf_printf(out, "[binary file, %zu bytes]", f->len);
        else if (!st)
            st = arb_buf_add(out, f->content, f->len);
    }
    return st ? st : arb_buf_add(out, "", 0);
}

/*
 * Decide every pair of a case.  escalate: send pending pairs to the judge
 * (it, and the case behind it, stay alive until the batch is drained).
 */
static enum arb_status decide_case(struct runner *r, const struct items *it, int escalate)
{
    const struct arb_suite *s = r->s;
    const struct arb_case *kc = it->kase;
    struct collect cl = {r, ARB_OK};
    size_t i, j, k = 0;
    enum arb_status st;

    st = check_ids(r, kc);
    if (!st)
        st = sides_fit(r, it->n_exp);
    outs_clear(r);
    if (!st)
        st = arb_store_outputs_by_key(r->rd, r->run, kc->id, collect_output, &cl, r->err);
    if (!st)
        st = cl.st;
    for (i = 0; !st && i < s->n_systems; i++)
        st = evaluate_system(r, kc, it, i);
    for (i = 0; !st && i < s->n_systems; i++) {
        for (j = i + 1; !st && j < s->n_systems; j++, k++) {
            int first_is_a;
            char hex[65];
            const struct side *a, *b;
            struct decision d;

            st = arb_blinder_assign(r->blinder, kc->id, k, &first_is_a, hex);
            if (st) {
                arb_err_set(r->err, st, "cannot compute the blinding HMAC");
                break;
            }
            a = &r->sides[first_is_a ? i : j];
            b = &r->sides[first_is_a ? j : i];
            st = arb_store_writer_put_blinding(r->w, r->run, kc->id, a->system, b->system, hex,
                                               r->err);
            /* Written in the seed's member order (winner, reasoning, rubric, ...). */
            arb_buf_reset(&r->cmp);
            if (!st)
                st = decide_write(it, a, b, NULL, &d, &r->ds, &r->cmp);
            if (!st) {
                struct arb_verdict_row v = {kc->id,        a->system, b->system, d.status,
                                            NULL,          d.score_a, d.score_b, d.pass_rate_a,
                                            d.pass_rate_b, r->cmp.ptr};

                v.winner = d.winner == 'A'   ? a->system
                           : d.winner == 'B' ? b->system
                           : d.winner == 'T' ? "TIE"
                                             : NULL;
                st = arb_store_writer_put_verdict(r->w, r->run, &v, r->err);
            }
            if (!st && escalate && r->esc && strcmp(d.status, "pending_judge") == 0) {
                size_t ia = first_is_a ? i : j, ib = first_is_a ? j : i;

                st = output_text(&r->outs[ia], &r->text[0]);
                if (!st)
                    st = output_text(&r->outs[ib], &r->text[1]);
                if (!st)
                    st = escalation_ask(r->esc, it, a, b, r->text[0].ptr, r->text[1].ptr, r->err);
            }
        }
    }
    return st;
}

/* 1 when a stored case has a pair that the judge has yet to answer (resume). */
static int needs_judge(void *ctx, const struct arb_verdict_row *v)
{
    int *need = ctx;

    if (strcmp(v->status, "pending_judge") == 0 || strcmp(v->status, "judge_failed") == 0)
        *need = 1;
    return 0;
}

static void cases_release(struct arb_case *c, size_t *n)
{
    size_t i;

    for (i = 0; i < *n; i++) {
        arb_case_release(&c[i]);
        memset(&c[i], 0, sizeof(c[i]));
    }
    *n = 0;
}

static void batch_release(struct runner *r)
{
    cases_release(r->batch, &r->n_batch);
    cases_release(r->prev, &r->n_prev);
}

/*
 * Commit the batch and start the next; with a judge, answer the batch before
 * it, whose questions were asked a batch ago, while this batch's requests go
 * on filling the judge's slots (their answers come with the next flush), so
 * the slots never wait for one batch's last retries.  last: answer everything.
 * (With a judge the writer has no thread: the judge's session uses the
 * connection, and the pairs it answers must be committed first.)
 */
static enum arb_status flush_batch(struct runner *r, int last)
{
    enum arb_status st = arb_store_writer_commit(r->w, r->err);
    struct arb_case *c;
    struct items *it;

    if (!st && r->esc && last) /* nothing is asked after it */
        arb_judge_wind_down(escalation_judge(r->esc));
    if (!st && r->esc)
        st = last ? escalation_drain(r->esc, &r->unreachable, r->err)
                  : escalation_drain_marked(r->esc, &r->unreachable, r->err);
    cases_release(r->prev, &r->n_prev);
    if (r->esc && !st && !last) {
        escalation_mark(r->esc);
        c = r->prev, r->prev = r->batch, r->batch = c;
        it = r->prev_items, r->prev_items = r->batch_items, r->batch_items = it;
        r->n_prev = r->n_batch;
        r->n_batch = 0;
    }
    cases_release(r->batch, &r->n_batch);
    if (!st && !last)
        st = arb_store_writer_begin(r->w, r->err);
    return st;
}

static enum arb_status evaluate_cases(struct runner *r, size_t batch)
{
    struct arb_case_reader *cr = NULL;
    int got = 0, done;
    enum arb_status st = r->source->open_cases(r->source->ctx, r->s, &cr, r->err);

    if (st)
        return st;
    r->batch = calloc(batch, sizeof(*r->batch));
    r->batch_items = calloc(batch, sizeof(*r->batch_items));
    r->prev = calloc(batch, sizeof(*r->prev));
    r->prev_items = calloc(batch, sizeof(*r->prev_items));
    if (!r->batch || !r->batch_items || !r->prev || !r->prev_items) {
        arb_case_reader_free(cr);
        return ARB_ENOMEM;
    }
    r->prog.phase = ARB_RUN_CHECKING;
    r->prog.system = NULL;
    r->prog.done = 0;
    run_moved(r);
    st = arb_store_writer_begin(r->w, r->err);
    while (!st && (got = arb_case_reader_next(cr, &r->batch[r->n_batch], r->err)) == 1) {
        struct arb_case *kc = &r->batch[r->n_batch];
        struct items *it = &r->batch_items[r->n_batch];
        int keep = 1, need = 0;

        if (r->scope.on && !(case_ids_get(&r->ids, kc->id, &keep) && keep)) {
            arb_case_release(kc);
            memset(kc, 0, sizeof(*kc));
            continue;
        }
        r->n_batch++;
        it->suite = r->s;
        it->kase = kc;
        it->n_exp = r->s->n_expectations + kc->n_expectations;
        it->words = &r->words;
        /* A new run has no verdicts to look for. */
        done = 0;
        if (r->resuming)
            st = arb_store_case_done(r->rd, r->run, kc->id, &done, r->err);
        if (!st && done && r->esc)
            st = arb_store_verdicts(r->rd, r->run, kc->id, needs_judge, &need, r->err);
        /* A decided case is skipped; one still waiting for the judge is asked again. */
        if (!st && (!done || need))
            st = decide_case(r, it, 1);
        r->prog.done++;
        run_moved(r);
        if (!st && r->n_batch == batch)
            st = flush_batch(r, 0);
    }
    if (!st && got < 0)
        st = (enum arb_status) - got;
    if (!st)
        st = flush_batch(r, 1);
    if (!st)
        st = arb_store_writer_sync(r->w, r->err);
    if (st)
        run_abort_writes(r);
    batch_release(r);
    run_moved(r);
    arb_case_reader_free(cr);
    return st;
}

/* ---- the run ------------------------------------------------------------------------- */

static enum arb_status runner_init(struct runner *r, struct arb_store *st, struct arb_suite *s,
                                   struct arb_err *err)
{
    size_t i;
    int added;

    memset(r, 0, sizeof(*r));
    case_ids_init(&r->ids);
    r->st = st;
    r->s = s;
    r->err = err;
    arb_strset_init(&r->systems);
    arb_result_init(&r->res);
    arb_buf_init(&r->rec, 0);
    arb_buf_init(&r->text[0], 0);
    arb_buf_init(&r->text[1], 0);
    arb_buf_init(&r->cmp, 0);
    arb_record_memo_init(&r->memo);
    decide_scratch_init(&r->ds);
    if (check_words_init(&r->words, s) || arb_observed_new(&r->obs))
        return ARB_ENOMEM;
    r->outs = calloc(s->n_systems ? s->n_systems : 1, sizeof(*r->outs));
    r->sides = calloc(s->n_systems ? s->n_systems : 1, sizeof(*r->sides));
    r->has_trials = calloc(s->n_systems ? s->n_systems : 1, sizeof(*r->has_trials));
    if (!r->outs || !r->sides || !r->has_trials)
        return ARB_ENOMEM;
    if (arb_blinder_new(s->seed, &r->blinder))
        return arb_err_set(err, ARB_EINTERNAL, "cannot set up the blinding HMAC in openssl");
    /* the suite's checks' own expected values are written once for the whole run */
    for (i = 0; i < s->n_criteria; i++)
        if (s->criteria[i].check)
            arb_record_memo_hold(&r->memo, arb_check_expected(s->criteria[i].check));
    for (i = 0; i < s->n_expectations; i++)
        if (s->expectations[i].check)
            arb_record_memo_hold(&r->memo, arb_check_expected(s->expectations[i].check));
    if (s->fields_check)
        arb_record_memo_hold(&r->memo, arb_check_expected(s->fields_check));
    for (i = 0; i < s->n_systems; i++) {
        r->sides[i].crit = calloc(s->n_criteria ? s->n_criteria : 1, sizeof(double));
        if (!r->sides[i].crit || arb_strset_add(&r->systems, s->systems[i].name, i, &added, NULL))
            return ARB_ENOMEM;
    }
    return ARB_OK;
}

static void runner_release(struct runner *r)
{
    size_t i;

    if (r->outs)
        outs_clear(r);
    for (i = 0; r->outs && i < r->s->n_systems; i++)
        free(r->outs[i].files);
    for (i = 0; r->sides && i < r->s->n_systems; i++) {
        free(r->sides[i].crit);
        free(r->sides[i].exp);
        llmj_list_release(&r->sides[i].llmj);
    }
    free(r->outs);
    free(r->sides);
    free(r->has_trials);
    arb_blinder_free(r->blinder);
    arb_strset_release(&r->systems);
    arb_result_release(&r->res);
    arb_buf_release(&r->rec);
    arb_buf_release(&r->text[0]);
    arb_buf_release(&r->text[1]);
    arb_buf_release(&r->cmp);
    arb_record_memo_release(&r->memo);
    decide_scratch_release(&r->ds);
    check_words_release(&r->words);
    arb_observed_free(r->obs);
    batch_release(r);
    free(r->batch);
    free(r->batch_items);
    free(r->prev);
    free(r->prev_items);
    escalation_free(r->esc);
    case_ids_release(&r->ids);
    run_scope_release(&r->scope);
}

struct spent {
    const struct arb_judge_price *price;
    double usd;
};

static int add_cost(void *ctx, const struct arb_judge_cost_row *c)
{
    struct spent *sp = ctx;

    /* What each call was charged when it came (a reply without usage: its estimate), not
     * its tokens: a provider that reports none would cost nothing and the cap be spent again */
    sp->usd += c->charged_usd + arb_judge_cost(sp->price, c->uncharged_prompt,
                                               c->uncharged_cached, c->uncharged_completion);
    return 0;
}

/* Hook the run to its judge: progress, and what the run has spent (against the cap). */
static enum arb_status judge_hooks(struct runner *r)
{
    const struct arb_judge_config *cfg = r->opts->judge;
    struct arb_judge *j = escalation_judge(r->esc);
    struct spent sp = {&cfg->price, 0.0};
    enum arb_status rc = ARB_OK;

    if (r->opts->max_cost > 0 && !cfg->price.set)
        return arb_err_set(r->err, ARB_EUSAGE,
                           "--max-cost needs the judge's price: add \"price\": {\"input\": "
                           "USD, \"output\": USD} (per million tokens) to the judge config");
    if (cfg->price.set && r->resuming)
        rc = arb_store_judge_costs(r->st, r->run, add_cost, &sp, r->err);
    if (!rc && cfg->price.set)
        arb_judge_set_budget(j, r->opts->max_cost, sp.usd);
    /* A resumed run continues where it stopped: its invalid replies lead where they led. */
    arb_judge_reuse_invalid(j, r->resuming && !r->opts->retry_failed);
    arb_judge_set_batcher(j, r->opts->batcher);
    arb_judge_set_progress(j, on_judge_progress, r);
    arb_judge_set_notice(j, r->opts->notice, r->opts->notice_ctx);
    r->prog.judge = arb_judge_get_progress(j);
    return rc;
}

enum arb_status arb_run_execute(struct arb_store *st, struct arb_suite *suite,
                                const struct arb_run_opts *opts, struct arb_run_summary *sum,
                                struct arb_err *err)
{
    struct runner r;
    size_t batch = opts->batch ? opts->batch : DEFAULT_BATCH, i;
    char *scope = NULL;
    enum arb_status rc;

    memset(sum, 0, sizeof(*sum));
    sum->judge_cost = NAN;
    if (suite->n_systems < 2)
        return arb_err_set(err, ARB_EUSAGE,
                           "a run compares at least two systems; the suite names %zu (add one "
                           "with --system NAME=PATH)",
                           suite->n_systems);
    if (opts->shard_n > ARB_SHARD_MAX || opts->shard_k > opts->shard_n ||
        (opts->shard_n && !opts->shard_k))
        return arb_err_set(err, ARB_EUSAGE, "shard %u/%u: expected K/N with 1 <= K <= N <= %d",
                           opts->shard_k, opts->shard_n, ARB_SHARD_MAX);
    rc = runner_init(&r, st, suite, err);
    r.opts = opts;
    arb_run_source_files(&r.files);
    r.source = opts->source ? opts->source : &r.files;
    /* A changed input is refused before anything is written, and before r.run is set:
     * the caller is not told to resume a run that cannot be resumed. */
    /* One process at a time continues a run: a second would ask the judge again. */
    if (!rc && opts->resume_run)
        rc = arb_store_lock_run(st, opts->resume_run, err);
    if (!rc && opts->resume_run && r.source->files)
        rc = run_inputs_check(st, opts->resume_run, suite, err);
    if (!rc && opts->resume_run) {
        r.run = opts->resume_run;
        r.resuming = 1;
        rc = run_stored_scope(st, r.run, &scope, err);
        if (!rc)
            rc = run_scope_from_json(&r.scope, scope, err);
        free(scope);
    } else if (!rc) {
        rc = run_scope_init(&r.scope, opts->select, opts->shard_k, opts->shard_n);
        if (!rc)
            rc = run_create(st, suite, opts, &r.run, err);
        if (!rc)
            rc = arb_store_lock_run(st, r.run, err);
    }
    if (!rc)
        rc = run_open_writer(&r, !opts->judge);
    if (!rc)
        rc = run_load_cases(&r, batch);
    for (i = 0; !rc && i < suite->n_systems; i++)
        rc = run_load_outputs(&r, &suite->systems[i]);
    if (!rc) /* passes 1 and 2 committed before pass 3 reads them */
        rc = arb_store_writer_sync(r.w, err);
    if (!r.scope.on) /* pass 3 needs the ids only to keep to a selection */
        case_ids_release(&r.ids);
    if (rc && rc != ARB_EDB && rc != ARB_ENOMEM && !opts->resume_run && r.run) {
        /* Bad input found while loading a new run: leave no partial record behind. */
        struct arb_err ignored = {{0}};

        if (!arb_store_begin(st, &ignored)) {
            if (arb_store_run_delete(st, r.run, &ignored) || arb_store_commit(st, &ignored))
                arb_store_rollback(st);
        }
        r.run = 0;
    }
    /* Which systems have trials: decided once all outputs are stored, so every case of
     * such a system gets its trial rows.  A new run's loading saw every stored output; a
     * resumed one asks the database, which may hold outputs the files no longer have. */
    for (i = 0; !rc && r.resuming && i < suite->n_systems; i++)
        rc = arb_store_has_trials(st, r.run, suite->systems[i].name, &r.has_trials[i], err);
    if (!rc && opts->judge)
        rc = escalation_new(st, r.run, suite, opts->judge, opts->api_key, !opts->no_cache,
                            opts->replies, r.resuming ? r.run : opts->replies_run, &r.esc, err);
    if (!rc && r.esc) {
        escalation_set_writer(r.esc, r.w);
        rc = judge_hooks(&r);
        /* Every burst of replies is a commit while the run mostly waits: let the store copy
         * them into the database meanwhile, not all after the last reply. */
        arb_store_checkpoint_ahead(st);
    }
    if (!rc)
        rc = evaluate_cases(&r, batch);
    rc = run_close_writer(&r, rc);
    if (!rc)
        rc = arb_store_run_set_status(st, r.run, "complete", err);
    if (!rc)
        rc = arb_run_summarize(st, r.run, sum, err);
    else
        sum->run_id = r.run;
    sum->unreachable = r.unreachable;
    if (r.esc) {
        const struct arb_judge_progress *jp = arb_judge_get_progress(escalation_judge(r.esc));

        sum->held = jp->held;
        sum->batched = jp->batched;
        sum->judge_cost = opts->judge->price.set ? jp->cost_usd : NAN;
    } else {
        sum->judge_cost = NAN;
    }
    runner_release(&r);
    return rc;
}
