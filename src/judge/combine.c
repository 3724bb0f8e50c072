/*
 * combine.c - one answer from a question's judgments: per criterion the
 * mean score over orders and samples, per expectation a pass only when
 * every order's majority passes, the judge's own winner by majority, and
 * whether the two orders disagreed (position_inconsistent), and the
 * strengths and weaknesses it was asked for, mapped to the systems.  A question
 * with a slot that has no valid answer is answered failed; one held back
 * by the spending cap is answered held.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

static const cJSON *pick(const cJSON *answer, const char *group, const char *item, const char *side)
{
    return cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(answer, group), item),
        side);
}

/* Which system a slot's winner names: 0 = A, 1 = B, 2 = tie, -1 = none. */
static int slot_winner(const cJSON *answer, int swapped)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(answer, "winner");

    if (!cJSON_IsString(w))
        return -1;
    if (strcmp(w->valuestring, "TIE") == 0)
        return 2;
    if (strcmp(w->valuestring, "A") == 0)
        return swapped ? 1 : 0;
    if (strcmp(w->valuestring, "B") == 0)
        return swapped ? 0 : 1;
    return -1;
}

static int majority(const int *votes, int n)
{
    int count[3] = {0, 0, 0}, i, best = -1, best_n = 0, tie = 0;

    for (i = 0; i < n; i++)
        if (votes[i] >= 0)
            count[votes[i]]++;
    for (i = 0; i < 3; i++) {
        if (count[i] > best_n) {
            best = i;
            best_n = count[i];
            tie = 0;
        } else if (count[i] == best_n && best_n) {
            tie = 1;
        }
    }
    return tie ? 2 : best;
}

/* Whether the array arr holds the string s. */
static int has_string(const cJSON *arr, const char *s)
{
    const cJSON *x;

    cJSON_ArrayForEach(x, arr)
    {
        if (cJSON_IsString(x) && strcmp(x->valuestring, s) == 0)
            return 1;
    }
    return 0;
}

/*
 * The sentences of list ("strengths" or "weaknesses") the judge wrote about system sys (0
 * system_a, 1 system_b) into out: those of the order that showed it first, then the other's
 * (order 0 shows system_a as "A", order 1 system_b), each once.  1, or 0 out of memory.
 */
static int gather(const struct question *qn, int samples, int orders, int sys, const char *list,
                  cJSON *out)
{
    int pass, k;

    for (pass = 0; pass < 2; pass++) {
        int o = sys == 0 ? pass : 1 - pass;
        const char *label = o == sys ? "A" : "B"; /* what the judge called sys in order o */

        for (k = 0; o < orders && k < samples; k++) {
            const cJSON *s;

            cJSON_ArrayForEach(s, pick(qn->slots[o * samples + k], "feedback", label, list))
            {
                cJSON *c;

                if (!cJSON_IsString(s) || has_string(out, s->valuestring))
                    continue;
                c = cJSON_CreateString(s->valuestring);
                if (!c || !cJSON_AddItemToArray(out, c)) {
                    cJSON_Delete(c);
                    return 0;
                }
            }
        }
    }
    return 1;
}

/* {"A": {"strengths", "weaknesses"}, "B": ...} in the question's terms, or NULL (no memory). */
static cJSON *feedback(const struct question *qn, int samples, int orders)
{
    static const char *const labels[] = {"A", "B"}, *const lists[] = {"strengths", "weaknesses"};
    cJSON *fb = cJSON_CreateObject();
    int sys, l, ok = fb != NULL;

    for (sys = 0; ok && sys < 2; sys++) {
        cJSON *side = cJSON_AddObjectToObject(fb, labels[sys]);

        for (l = 0; ok && l < 2; l++) {
            cJSON *arr = side ? cJSON_AddArrayToObject(side, lists[l]) : NULL;

            ok = arr && gather(qn, samples, orders, sys, lists[l], arr);
        }
    }
    if (!ok) {
        cJSON_Delete(fb);
        return NULL;
    }
    return fb;
}

void judge_answer_question(struct arb_judge *j, struct question *qn)
{
    const struct arb_judge_question *q = &qn->q;
    struct arb_judge_answer a;
    int samples = j->cfg->samples, orders = judge_orders(j, q), k, o;
    size_t n = q->n_items ? q->n_items : 1, i;
    int votes[2 * 99 * 2], order_w[2];
    double *mem = calloc(2 * n, sizeof(double));
    int *imem = calloc(3 * n, sizeof(int));

    memset(&a, 0, sizeof(a));
    a.order_winner[0] = a.order_winner[1] = -1;
    if (!mem || !imem) {
        judge_fatal(j, ARB_ENOMEM);
        free(mem);
        free(imem);
        return;
    }
    a.score_a = mem;
    a.score_b = mem + n;
    a.pass_a = imem;
    a.pass_b = imem + n;
    a.item_inconsistent = imem + 2 * n;
    a.n_judgments = qn->n_slots;
    a.n_cached = qn->n_cached;
    a.held = qn->held;
    for (k = 0; k < qn->n_slots; k++)
        if (!qn->slots[k])
            a.failed = 1;
    a.refused = a.failed && qn->refused;
    for (i = 0; i < q->n_items; i++) {
        a.score_a[i] = a.score_b[i] = NAN;
        a.pass_a[i] = a.pass_b[i] = -1;
    }
    if (a.failed || judge_is_single(q)) {
        if (a.failed)
            a.error = qn->error[0] ? qn->error : "the judge gave no valid reply";
        else
            judge_single_combine(q, qn->slots, samples, &a);
        qn->done(qn->ctx, q, &a);
        free(mem);
        free(imem);
        return;
    }
    for (i = 0; i < q->n_items; i++) {
        const struct arb_judge_item *it = &q->items[i];
        double sa = 0, sb = 0;
        int order_pass[2][2] = {{0, 0}, {0, 0}};

        for (o = 0; o < orders; o++) {
            int yes[2] = {0, 0};

            for (k = 0; k < samples; k++) {
                const cJSON *ans = qn->slots[o * samples + k];
                const char *first = o ? "B" : "A", *second = o ? "A" : "B";

                if (it->kind == ARB_ITEM_CRITERION) {
                    const cJSON *x = pick(ans, "criteria", it->name, first);
                    const cJSON *y = pick(ans, "criteria", it->name, second);

                    sa += cJSON_IsNumber(x) ? x->valuedouble : NAN;
                    sb += cJSON_IsNumber(y) ? y->valuedouble : NAN;
                } else {
                    yes[0] += cJSON_IsTrue(pick(ans, "expectations", it->name, first));
                    yes[1] += cJSON_IsTrue(pick(ans, "expectations", it->name, second));
                }
            }
            /* Majority of samples within one order (a tie of votes is a fail). */
            order_pass[o][0] = 2 * yes[0] > samples;
            order_pass[o][1] = 2 * yes[1] > samples;
        }
        if (it->kind == ARB_ITEM_CRITERION) {
            a.score_a[i] = sa / (double)(orders * samples);
            a.score_b[i] = sb / (double)(orders * samples);
        } else {
            /* Pass only if every order passes; disagreement between orders is recorded. */
            a.pass_a[i] = order_pass[0][0] && (orders < 2 || order_pass[1][0]);
            a.pass_b[i] = order_pass[0][1] && (orders < 2 || order_pass[1][1]);
            a.item_inconsistent[i] = orders == 2 && (order_pass[0][0] != order_pass[1][0] ||
                                                     order_pass[0][1] != order_pass[1][1]);
        }
    }
    for (o = 0; o < orders; o++) {
        for (k = 0; k < samples; k++)
            votes[o * samples + k] = slot_winner(qn->slots[o * samples + k], o);
        order_w[o] = majority(votes + o * samples, samples);
    }
    a.position_inconsistent = orders == 2 && order_w[0] != order_w[1];
    a.order_winner[0] = order_w[0];
    a.order_winner[1] = orders == 2 ? order_w[1] : -1;
    k = majority(votes, qn->n_slots);
    a.winner = k == 0 ? q->system_a : k == 1 ? q->system_b : k == 2 ? "TIE" : NULL;
    {
        int agree = 0;

        for (o = 0; o < qn->n_slots; o++)
            agree += votes[o] == k;
        a.sample_agreement = (double)agree / (double)qn->n_slots;
    }
    {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(qn->slots[0], "reasoning");

        a.reasoning = cJSON_IsString(r) ? r->valuestring : NULL;
    }
    if (q->feedback && !(a.feedback = feedback(qn, samples, orders))) {
        judge_fatal(j, ARB_ENOMEM);
        free(mem);
        free(imem);
        return;
    }
    qn->done(qn->ctx, q, &a);
    cJSON_Delete(a.feedback);
    free(mem);
    free(imem);
}

