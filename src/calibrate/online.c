/*
 * online.c - putting labelled items to the judge (judge.h) to record its
 * verdicts, when the labels file carries none.
 *
 * A pair is one question with no items: what is measured is the judge's own
 * winner per order.  output_1 is shown as A, output_2 as B; the judge swaps
 * them for the second order, so order_winner[0] is order_12 and
 * order_winner[1] is order_21, both already in the question's (the original)
 * numbering.  "output_1" and "output_2" name the sides in the records only and
 * never reach the prompt.
 *
 * An expectation item is one single-output question (output_b NULL) with its
 * expectation as the one item, named "expectation" (the label's id is the case
 * id, which names records and draws fences but never reaches the prompt); its
 * pass_a is the verdict.
 *
 * Replies are cached by the judge: a second study of the same labels with the
 * same judge sends nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/calibrate.h"

#define CALIB_TASK                                                                                 \
    "Decide which of the two responses better answers the prompt given to the systems: more "      \
    "helpful, correct and clear. Answer TIE only if they are genuinely equivalent."

#define CALIB_EXPECT_TASK "Decide whether the response meets the expectation below."

static int verdict_of(int order_winner)
{
    return order_winner >= 0 && order_winner <= 2 ? order_winner : ARB_V_NULL;
}

static void on_answer(void *ctx, const struct arb_judge_question *q,
                      const struct arb_judge_answer *a)
{
    struct arb_calib_item *it = ctx;

    (void)q;
    it->order_12 = a->failed ? ARB_V_NULL : verdict_of(a->order_winner[0]);
    it->order_21 = a->failed ? ARB_V_NULL : verdict_of(a->order_winner[1]);
}

static void on_expectation(void *ctx, const struct arb_judge_question *q,
                           const struct arb_judge_answer *a)
{
    struct arb_calib_item *it = ctx;

    (void)q;
    it->order_12 = a->failed || a->pass_a[0] < 0 ? ARB_V_NULL
                   : a->pass_a[0]                ? ARB_V_TRUE
                                                 : ARB_V_FALSE;
}

/* Queue the question for one unjudged item; expect is its item's storage (expectations). */
static enum arb_status ask_item(struct arb_judge *j, struct arb_calib_item *it,
                                struct arb_judge_item *expect, struct arb_err *err)
{
    struct arb_judge_question q;

    memset(&q, 0, sizeof(q));
    q.case_id = it->id;
    q.prompt = it->prompt;
    q.output_a = it->output_1;
    if (!expect) {
        q.system_a = "output_1";
        q.system_b = "output_2";
        q.task = CALIB_TASK;
        q.output_b = it->output_2;
        it->order_12 = it->order_21 = ARB_V_NULL;
        return arb_judge_ask(j, &q, on_answer, it, err);
    }
    expect->kind = ARB_ITEM_EXPECTATION;
    expect->name = "expectation";
    expect->text = it->expectation;
    q.system_a = "output";
    q.task = CALIB_EXPECT_TASK;
    q.items = expect;
    q.n_items = 1;
    it->order_12 = ARB_V_NULL;
    return arb_judge_ask(j, &q, on_expectation, it, err);
}

enum arb_status arb_calib_judge(struct arb_calib_set *set, const struct arb_judge_config *cfg,
                                const char *api_key, struct arb_store *st, int64_t run,
                                int use_cache, size_t *unreachable, struct arb_err *err)
{
    return arb_calib_judge_progress(set, cfg, api_key, st, run, use_cache, unreachable, NULL, NULL,
                                    NULL, err);
}

enum arb_status arb_calib_judge_progress(
    struct arb_calib_set *set, const struct arb_judge_config *cfg, const char *api_key,
    struct arb_store *st, int64_t run, int use_cache, size_t *unreachable,
    void (*progress)(void *ctx, const struct arb_judge_progress *p), void *progress_ctx,
    void (*notice)(void *ctx, const char *msg), struct arb_err *err)
{
    struct arb_judge_config both = *cfg;
    struct arb_judge_item *expect = NULL;
    struct arb_store_judge_cache cache;
    struct arb_judge *j = NULL;
    enum arb_status rc;
    size_t asked = 0;

    if (unreachable)
        *unreachable = 0;
    /* The questions borrow their items until the drain has answered them. */
    if (set->kind == ARB_CALIB_EXPECTATION && set->n) {
        expect = calloc(set->n, sizeof(*expect));
        if (!expect)
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    /* Both orders are what a pairwise calibration measures, whatever the config says (a
     * single-output question has one order anyway); the hash (the judge's identity) is the
     * configured one. */
    both.swap = 1;
    arb_store_judge_cache_init(&cache, st, run);
    rc = arb_judge_new(&both, api_key, &cache.cache, use_cache, &j, err);
    if (!rc) {
        arb_judge_set_progress(j, progress, progress_ctx);
        if (notice)
            arb_judge_set_notice(j, notice, progress_ctx);
    }
    for (size_t i = 0; !rc && i < set->n; i++) {
        if (set->items[i].recorded)
            continue;
        rc = ask_item(j, &set->items[i], expect ? &expect[i] : NULL, err);
        asked++;
    }
    if (!rc && asked)
        rc = arb_judge_drain(j, unreachable, err);
    arb_judge_free(j);
    free(expect);
    return rc;
}
