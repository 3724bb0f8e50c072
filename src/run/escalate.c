/*
 * escalate.c - sending what the checks left unresolved to the judge, and
 * deciding the pair again with the judge's scores, expectation results and
 * per-order winners under the suite's policy.decide_by (decide.c).
 *
 * A pair whose two orders disagree on the winner is position_inconsistent:
 * by default it counts as a TIE (policy "tie"); with policy "unresolved" it
 * stays undecided.  A pair the judge could not answer is judge_failed: its
 * items stay unresolved, never guessed.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/blind.h"
#include "arbiter/judge.h"
#include "arbiter/json.h"
#include "arbiter/store.h"
#include "run_int.h"

struct asked {
    struct escalation *e;
    const struct items *it;
    struct side a, b;
    char *text_a, *text_b;
    char *prompt, **exp_text; /* redacted: the case prompt, per item the expectation text */
    char **item_text;         /* redacted, 4 per item: its description, its anchors for 1, 3, 5 */
    struct arb_judge_item *items;
    size_t *index; /* per judge item: criterion or expectation index */
    size_t n_items;
    struct llmj_asked *lj; /* the pair's llm_judge checks, asked on their own */
};

struct escalation {
    struct arb_store *st;
    struct arb_store_writer *w; /* the run's writer: final verdicts go the pending ones' way */
    int64_t run;
    struct arb_store_judge_cache cache; /* the judge's record, in st under run */
    const struct arb_suite *s;
    struct arb_judge *judge;
    int orders; /* 2 when the judge asks both orders (swap), else 1 */
    const char **redact; /* the suite's strings and the system names */
    size_t n_redact;
    char *task; /* the suite's task, redacted */
    struct asked **asked;
    size_t n_asked, cap_asked;
    size_t mark_asked, mark_q; /* escalation_mark: the pairs and judge questions asked before */
    enum arb_status st_cb; /* first failure inside a callback */
    struct arb_err *err;
    struct llmj_env lj_env; /* for the llm_judge checks' questions (escalate_llmj.c) */
};

static char *redacted(const struct escalation *e, const char *text);

enum arb_status escalation_new(struct arb_store *st, int64_t run, const struct arb_suite *s,
                               const struct arb_judge_config *cfg, const char *api_key,
                               int use_cache, struct arb_store *replies, int64_t recorded,
                               struct escalation **out, struct arb_err *err)
{
    struct escalation *e = calloc(1, sizeof(*e));
    size_t i;
    enum arb_status rc;

    *out = NULL;
    if (!e)
        return ARB_ENOMEM;
    e->st = st;
    e->run = run;
    e->s = s;
    e->orders = cfg->swap ? 2 : 1;
    e->redact = calloc(s->n_redact + s->n_systems + 1, sizeof(*e->redact));
    if (!e->redact) {
        free(e);
        return ARB_ENOMEM;
    }
    for (i = 0; i < s->n_redact; i++)
        e->redact[e->n_redact++] = s->redact[i];
    /* System names too, but not names under 3 characters: "a" or "v2" would eat words. */
    for (i = 0; i < s->n_systems; i++)
        if (strlen(s->systems[i].name) >= 3)
            e->redact[e->n_redact++] = s->systems[i].name;
    e->task = redacted(e, s->task);
    if (s->task && !e->task) {
        escalation_free(e);
        return ARB_ENOMEM;
    }
    arb_store_judge_cache_init(&e->cache, st, run);
    e->cache.replies = replies;
    e->cache.recorded = recorded;
    rc = arb_judge_new(cfg, api_key, &e->cache.cache, use_cache, &e->judge, err);
    if (rc) {
        escalation_free(e);
        return rc;
    }
    e->lj_env.judge = e->judge;
    e->lj_env.redact = e->redact;
    e->lj_env.n_redact = e->n_redact;
    e->lj_env.st = st;
    e->lj_env.run = run;
    *out = e;
    return ARB_OK;
}

void escalation_set_writer(struct escalation *e, struct arb_store_writer *w)
{
    e->w = w;
}

struct arb_judge *escalation_judge(struct escalation *e)
{
    return e->judge;
}

static void asked_free(struct asked *x)
{
    size_t i;

    if (!x)
        return;
    free(x->a.crit);
    free(x->a.exp);
    free(x->b.crit);
    free(x->b.exp);
    free(x->text_a);
    free(x->text_b);
    free(x->prompt);
    for (i = 0; x->exp_text && i < x->n_items; i++)
        free(x->exp_text[i]);
    free(x->exp_text);
    for (i = 0; x->item_text && i < 4 * x->n_items; i++)
        free(x->item_text[i]);
    free(x->item_text);
    free(x->items);
    free(x->index);
    llmj_asked_free(x->lj);
    free(x);
}

void escalation_free(struct escalation *e)
{
    size_t i;

    if (!e)
        return;
    for (i = 0; i < e->n_asked; i++)
        asked_free(e->asked[i]);
    free(e->asked);
    arb_judge_free(e->judge);
    free(e->redact);
    free(e->task);
    free(e);
}

static enum arb_status copy_side(struct side *dst, const struct side *src, size_t n_crit,
                                 size_t n_exp)
{
    dst->system = src->system;
    dst->missing = src->missing;
    dst->crit = malloc((n_crit ? n_crit : 1) * sizeof(double));
    dst->exp = malloc((n_exp ? n_exp : 1) * sizeof(enum arb_verdict));
    if (!dst->crit || !dst->exp)
        return ARB_ENOMEM;
    if (n_crit)
        memcpy(dst->crit, src->crit, n_crit * sizeof(double));
    if (n_exp)
        memcpy(dst->exp, src->exp, n_exp * sizeof(enum arb_verdict));
    return ARB_OK;
}

static char *redacted(const struct escalation *e, const char *text)
{
    struct arb_buf b;

    if (!text)
        return NULL;
    arb_buf_init(&b, 0);
    if (arb_redact(text, strlen(text), e->redact, e->n_redact, &b, NULL)) {
        arb_buf_release(&b);
        return NULL;
    }
    return arb_buf_detach(&b, NULL);
}

/* The judge's answer arrived: fill the unresolved items and decide again. */
static void on_answer(void *ctx, const struct arb_judge_question *q,
                      const struct arb_judge_answer *ans)
{
    struct asked *x = ctx;
    struct escalation *e = x->e;
    struct decision d;
    struct judged jd;
    struct decide_scratch ds;
    struct arb_buf text;
    size_t i;
    enum arb_status st = ARB_OK;
    struct arb_verdict_row v;

    (void)q;
    arb_buf_init(&text, 0);
    if (ans->held)
        return; /* not asked for want of budget: the pair stays pending_judge */
    if (!ans->failed) {
        for (i = 0; i < x->n_items; i++) {
            size_t k = x->index[i];

            if (x->items[i].kind == ARB_ITEM_CRITERION) {
                if (isnan(x->a.crit[k]))
                    x->a.crit[k] = ans->score_a[i];
                if (isnan(x->b.crit[k]))
                    x->b.crit[k] = ans->score_b[i];
            } else {
                if (x->a.exp[k] == ARB_UNRESOLVED && ans->pass_a[i] >= 0)
                    x->a.exp[k] = ans->pass_a[i] ? ARB_PASS : ARB_FAIL;
                if (x->b.exp[k] == ARB_UNRESOLVED && ans->pass_b[i] >= 0)
                    x->b.exp[k] = ans->pass_b[i] ? ARB_PASS : ARB_FAIL;
            }
        }
    }
    memset(&jd, 0, sizeof(jd));
    jd.failed = ans->failed;
    jd.refused = ans->refused;
    jd.error = ans->error;
    if (!jd.failed && llmj_error(x->lj)) {
        /* an llm_judge check the judge could not answer stays unresolved (on_error) */
        jd.failed = 1;
        jd.error = llmj_error(x->lj);
    }
    jd.reasoning = ans->reasoning;
    jd.winner = !ans->winner                            ? "none"
                : strcmp(ans->winner, "TIE") == 0       ? "TIE"
                : strcmp(ans->winner, x->a.system) == 0 ? "A"
                                                        : "B";
    jd.position_inconsistent = ans->position_inconsistent;
    jd.n_orders = e->orders;
    for (i = 0; i < 2; i++) /* 0 names system_a (the pair's A), 1 system_b, 2 a tie */
        jd.order_winner[i] = ans->order_winner[i] == 0   ? 'A'
                             : ans->order_winner[i] == 1 ? 'B'
                             : ans->order_winner[i] == 2 ? 'T'
                                                         : 0;
    jd.sample_agreement = ans->sample_agreement;
    jd.n_judgments = ans->n_judgments;
    jd.feedback = ans->feedback; /* in the question's terms: system_a is the pair's A */
    /* comparison.json as text, the bytes cJSON would print of decide_judged's tree */
    decide_scratch_init(&ds);
    st = decide_write(x->it, &x->a, &x->b, &jd, &d, &ds, &text);
    decide_scratch_release(&ds);
    if (st)
        goto out;
    v.case_id = x->it->kase->id;
    v.system_a = x->a.system;
    v.system_b = x->b.system;
    v.status = d.status;
    v.winner = d.winner == 'A'   ? x->a.system
               : d.winner == 'B' ? x->b.system
               : d.winner == 'T' ? "TIE"
                                 : NULL;
    v.score_a = d.score_a;
    v.score_b = d.score_b;
    v.pass_rate_a = d.pass_rate_a;
    v.pass_rate_b = d.pass_rate_b;
    v.comparison_json = text.ptr;
    /* Final, through the run's writer as the pending verdict was (its own transaction: the
     * judge's record commits between answers). */
    st = arb_store_writer_begin(e->w, e->err);
    if (!st)
        st = arb_store_writer_set_verdict(e->w, e->run, &v, e->err);
    if (!st)
        st = arb_store_writer_commit(e->w, e->err);
    else
        arb_store_rollback(e->st);
out:
    if (st && !e->st_cb)
        e->st_cb = st;
    arb_buf_release(&text);
}

enum arb_status escalation_ask(struct escalation *e, const struct items *it, const struct side *a,
                               const struct side *b, const char *text_a, const char *text_b,
                               struct arb_err *err)
{
    const struct arb_suite *s = e->s;
    struct asked *x = calloc(1, sizeof(*x));
    struct arb_judge_question q;
    const char *words[4]; /* a criterion's description and anchors, as the suite has them */
    size_t i, k, n = 0, cap = s->n_criteria + it->n_exp;
    enum arb_status st;

    if (!x)
        return ARB_ENOMEM;
    x->e = e;
    x->it = it;
    x->items = calloc(cap ? cap : 1, sizeof(*x->items));
    x->index = calloc(cap ? cap : 1, sizeof(*x->index));
    x->exp_text = calloc(cap ? cap : 1, sizeof(*x->exp_text));
    x->item_text = calloc(4 * (cap ? cap : 1), sizeof(*x->item_text));
    x->text_a = redacted(e, text_a);
    x->text_b = redacted(e, text_b);
    x->prompt = redacted(e, it->kase->prompt);
    st = x->items && x->index && x->exp_text && x->item_text && x->text_a && x->text_b &&
                 (x->prompt || !it->kase->prompt)
             ? ARB_OK
             : ARB_ENOMEM;
    if (!st)
        st = copy_side(&x->a, a, s->n_criteria, it->n_exp);
    if (!st)
        st = copy_side(&x->b, b, s->n_criteria, it->n_exp);
    for (i = 0; !st && i < s->n_criteria; i++) {
        if ((!isnan(a->crit[i]) && !isnan(b->crit[i])) || llmj_is(s->criteria[i].check))
            continue;
        x->items[n].kind = ARB_ITEM_CRITERION;
        x->items[n].name = s->criteria[i].name;
        /* The suite's words about the criterion reach the judge redacted, as its task does. */
        words[0] = s->criteria[i].description;
        memcpy(words + 1, s->criteria[i].anchor, sizeof(s->criteria[i].anchor));
        for (k = 0; k < 4; k++) {
            x->item_text[4 * n + k] = redacted(e, words[k]);
            if (words[k] && !x->item_text[4 * n + k])
                st = ARB_ENOMEM;
        }
        x->items[n].description = x->item_text[4 * n];
        for (k = 0; k < 3; k++)
            x->items[n].anchor[k] = x->item_text[4 * n + 1 + k];
        x->index[n++] = i;
    }
    for (i = 0; !st && i < it->n_exp; i++) {
        const struct arb_expectation *ex = item_expectation(it, i);

        if ((a->exp[i] != ARB_UNRESOLVED && b->exp[i] != ARB_UNRESOLVED) || llmj_is(ex->check))
            continue;
        x->items[n].kind = ARB_ITEM_EXPECTATION;
        x->items[n].name = ex->id;
        x->exp_text[n] = redacted(e, ex->text);
        if (ex->text && !x->exp_text[n])
            st = ARB_ENOMEM;
        x->items[n].text = x->exp_text[n];
        x->item_text[4 * n] = redacted(e, ex->description);
        x->items[n].description = x->item_text[4 * n];
        if (ex->description && !x->item_text[4 * n])
            st = ARB_ENOMEM;
        x->index[n++] = i;
    }
    x->n_items = n;
    if (!st && e->n_asked == e->cap_asked) {
        size_t c2 = e->cap_asked ? e->cap_asked * 2 : 64;
        struct asked **v = realloc(e->asked, c2 * sizeof(*v));

        if (!v)
            st = ARB_ENOMEM;
        else {
            e->asked = v;
            e->cap_asked = c2;
        }
    }
    if (st) {
        asked_free(x);
        return st;
    }
    e->asked[e->n_asked++] = x;
    /* Asked first, so answered first: the pair's answer then decides with their verdicts. */
    st = llmj_ask(&e->lj_env, it, &x->a, &x->b, a, b, &x->lj, err);
    if (st)
        return st;
    memset(&q, 0, sizeof(q));
    q.case_id = it->kase->id;
    q.system_a = a->system;
    q.system_b = b->system;
    q.task = e->task;
    q.prompt = x->prompt;
    q.output_a = x->text_a;
    q.output_b = x->text_b;
    q.items = x->items;
    q.n_items = x->n_items;
    q.seed = s->seed;
    return arb_judge_ask(e->judge, &q, on_answer, x, err);
}

/*
 * Answer the first n questions asked (all of them: SIZE_MAX) and free the first n_pairs
 * pairs, whose questions those are; after an error every pair goes (the run ends).
 */
static enum arb_status drain(struct escalation *e, size_t n, size_t n_pairs, size_t *unreachable,
                             struct arb_err *err)
{
    size_t i, unr = 0;
    enum arb_status st;

    e->err = err;
    e->st_cb = ARB_OK;
    e->lj_env.err = err;
    e->lj_env.st_cb = ARB_OK;
    st = n == SIZE_MAX ? arb_judge_drain(e->judge, &unr, err)
                       : arb_judge_drain_first(e->judge, n, &unr, err);
    if (!st)
        st = e->lj_env.st_cb;
    if (!st)
        st = e->st_cb;
    *unreachable += unr;
    if (st || n_pairs > e->n_asked)
        n_pairs = e->n_asked;
    for (i = 0; i < n_pairs; i++)
        asked_free(e->asked[i]);
    if (e->n_asked > n_pairs)
        memmove(e->asked, e->asked + n_pairs, (e->n_asked - n_pairs) * sizeof(*e->asked));
    e->n_asked -= n_pairs;
    return st;
}

enum arb_status escalation_drain(struct escalation *e, size_t *unreachable, struct arb_err *err)
{
    e->mark_asked = e->mark_q = 0;
    return drain(e, SIZE_MAX, e->n_asked, unreachable, err);
}

void escalation_mark(struct escalation *e)
{
    e->mark_asked = e->n_asked;
    e->mark_q = arb_judge_pending(e->judge);
}

enum arb_status escalation_drain_marked(struct escalation *e, size_t *unreachable,
                                        struct arb_err *err)
{
    size_t n = e->mark_q, n_pairs = e->mark_asked;

    e->mark_asked = e->mark_q = 0;
    if (!n_pairs && !n)
        return ARB_OK;
    return drain(e, n, n_pairs, unreachable, err);
}
