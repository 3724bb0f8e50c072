/*
 * budget.c - what a judge's requests cost, and the run's spending cap
 * (arb_judge_set_budget): a request is sent only when the money spent, plus
 * what the requests in flight may still cost, plus its own estimate stays
 * within the cap.  Estimates are deliberately high, so the cap holds against
 * the providers' own counts: a request's prompt is taken as one token per 3
 * bytes of its body (English text runs about 4; JSON and other scripts run
 * fewer), none of it cached, and its answer as max_tokens long.  When its
 * reply comes, the estimate is replaced by the cost of the usage the
 * provider reports (or kept, when it reports none).
 */
#include "judge_int.h"

double judge_estimate(const struct arb_judge_config *cfg, size_t body_len)
{
    long long prompt = (long long)(body_len / 3 + 1);

    return arb_judge_cost(&cfg->price, prompt, 0, cfg->max_tokens);
}

int judge_budget_admit(struct judge_budget *b, double estimate)
{
    if (!b->on)
        return 1;
    if (b->stopped || b->spent + b->reserved + estimate > b->max)
        return 0;
    b->reserved += estimate;
    return 1;
}

void judge_budget_settle(struct judge_budget *b, double estimate, double actual)
{
    if (!b->on)
        return;
    b->reserved -= estimate;
    if (b->reserved < 0)
        b->reserved = 0;
    b->spent += actual;
}
