/*
 * online.c - putting labelled pairs to the judge (judge.h) to record its
 * verdicts in both orders, when the labels file carries none.
 *
 * Each pair is one question with no items: what is measured is the judge's
 * own winner per order.  output_1 is shown as A, output_2 as B; the judge
 * swaps them for the second order, so order_winner[0] is order_12 and
 * order_winner[1] is order_21, both already in the question's (the original)
 * numbering.  "output_1" and "output_2" name the sides in the records only and
 * never reach the prompt.  Replies are cached by the judge: a second study of
 * the same labels with the same judge sends nothing.
 */
#include <string.h>

#include "arbiter/calibrate.h"

#define CALIB_TASK                                                                                 \
    "Decide which of the two responses better answers the prompt given to the systems: more "      \
    "helpful, correct and clear. Answer TIE only if they are genuinely equivalent."

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

enum arb_status arb_calib_judge(struct arb_calib_set *set, const struct arb_judge_config *cfg,
                                const char *api_key, struct arb_store *st, int64_t run,
                                int use_cache, size_t *unreachable, struct arb_err *err)
{
    struct arb_judge_config both = *cfg;
    struct arb_judge *j = NULL;
    enum arb_status rc;
    size_t asked = 0;

    if (unreachable)
        *unreachable = 0;
    if (set->kind != ARB_CALIB_PAIRWISE && arb_calib_unjudged(set))
        return arb_err_set(err, ARB_EUSAGE,
                           "expectation labels need the judge's recorded verdicts (\"judge\": "
                           "true|false): the pairwise judge cannot check one output");
    /* Both orders are what a calibration measures, whatever the config says; the hash (the
     * judge's identity) is the configured one. */
    both.swap = 1;
    rc = arb_judge_new(&both, api_key, st, run, use_cache, &j, err);
    if (rc)
        return rc;
    for (size_t i = 0; !rc && i < set->n; i++) {
        struct arb_calib_item *it = &set->items[i];
        struct arb_judge_question q;

        if (it->recorded)
            continue;
        memset(&q, 0, sizeof(q));
        q.case_id = it->id;
        q.system_a = "output_1";
        q.system_b = "output_2";
        q.task = CALIB_TASK;
        q.prompt = it->prompt;
        q.output_a = it->output_1;
        q.output_b = it->output_2;
        it->order_12 = it->order_21 = ARB_V_NULL;
        rc = arb_judge_ask(j, &q, on_answer, it, err);
        asked++;
    }
    if (!rc && asked)
        rc = arb_judge_drain(j, unreachable, err);
    arb_judge_free(j);
    return rc;
}
