/*
 * cost.c - "judge_cost": what the judge cost a run, in total and per case,
 * at the price its judge config names (runs.judge_json "price", US dollars
 * per million input, cached-input and output tokens).  A run pays for the
 * requests it sent itself; a reply it found in the cache was paid for by
 * whichever run sent it, and costs it nothing.  A request costs what it was
 * charged when its reply came (judge_calls.charged_usd): the usage it reported
 * at the price, or its estimate when it reported none; a call stored before
 * that column is priced from its tokens.  Without a price there is no
 * "judge_cost" (tokens are still in "judge_usage").
 */
#include <stdlib.h>
#include <string.h>

#include "arbiter/judge.h"
#include "report_int.h"

struct costs {
    struct arb_judge_price price;
    cJSON *cases;
    int64_t calls, prompt, cached, completion;
    double total;
    int oom;
};

static double member(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsNumber(v) ? v->valuedouble : -1.0;
}

/* The run's price, from its stored judge config; 0 when it has none. */
static int price_of(const cJSON *report, struct arb_judge_price *p)
{
    const cJSON *jc =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(report, "run"), "judge");
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(jc, "price");

    memset(p, 0, sizeof(*p));
    p->input = member(pr, "input");
    p->output = member(pr, "output");
    p->cached_input = member(pr, "cached_input");
    if (p->cached_input < 0)
        p->cached_input = p->input;
    p->set = cJSON_IsObject(pr) && p->input >= 0 && p->output >= 0;
    return p->set;
}

static int on_case(void *ctx, const struct arb_judge_cost_row *c)
{
    struct costs *co = ctx;
    double usd = c->charged_usd + arb_judge_cost(&co->price, c->uncharged_prompt,
                                                 c->uncharged_cached, c->uncharged_completion);
    cJSON *o = cJSON_CreateObject();

    co->calls += c->calls;
    co->prompt += c->prompt_tokens;
    co->cached += c->cached_tokens;
    co->completion += c->completion_tokens;
    co->total += usd;
    if (!o || !cJSON_AddStringToObject(o, "case", c->case_id) ||
        !cJSON_AddNumberToObject(o, "requests", (double)c->calls) ||
        !cJSON_AddNumberToObject(o, "prompt_tokens", (double)c->prompt_tokens) ||
        !cJSON_AddNumberToObject(o, "cached_tokens", (double)c->cached_tokens) ||
        !cJSON_AddNumberToObject(o, "completion_tokens", (double)c->completion_tokens) ||
        !cJSON_AddNumberToObject(o, "cost", usd) || !cJSON_AddItemToArray(co->cases, o)) {
        cJSON_Delete(o); /* not in the array: still ours */
        co->oom = 1;
        return 1;
    }
    return 0;
}

/* "costliest": the COSTLIEST cases that cost most, dearest first (the earlier among equals). */
#define COSTLIEST 5
static enum arb_status add_costliest(cJSON *o, const cJSON *cases)
{
    const cJSON *top[COSTLIEST], *k;
    size_t i, n = 0;
    cJSON *arr = cJSON_AddArrayToObject(o, "costliest");

    if (!arr)
        return ARB_ENOMEM;
    cJSON_ArrayForEach(k, cases)
    {
        double cost = member(k, "cost");

        for (i = n; i > 0 && member(top[i - 1], "cost") < cost; i--)
            if (i < COSTLIEST)
                top[i] = top[i - 1];
        if (i < COSTLIEST)
            top[i] = k;
        if (n < COSTLIEST)
            n++;
    }
    for (i = 0; i < n; i++) {
        cJSON *c = cJSON_Duplicate(top[i], 1);

        if (!c || !cJSON_AddItemToArray(arr, c)) {
            cJSON_Delete(c);
            return ARB_ENOMEM;
        }
    }
    return ARB_OK;
}

enum arb_status arb_report_add_judge_cost(struct arb_store *st, int64_t run, cJSON *report,
                                          struct arb_err *err)
{
    struct costs co;
    cJSON *o, *pr;
    size_t n;
    enum arb_status rc;

    memset(&co, 0, sizeof(co));
    if (!price_of(report, &co.price))
        return ARB_OK;
    o = cJSON_AddObjectToObject(report, "judge_cost");
    co.cases = cJSON_CreateArray();
    if (!o || !co.cases) {
        cJSON_Delete(co.cases);
        return ARB_ENOMEM;
    }
    rc = arb_store_judge_costs(st, run, on_case, &co, err);
    if (!rc && co.oom)
        rc = ARB_ENOMEM;
    n = (size_t)cJSON_GetArraySize(co.cases);
    if (!rc && !(cJSON_AddStringToObject(o, "currency", "USD") &&
                 (pr = cJSON_AddObjectToObject(o, "price_per_million_tokens")) &&
                 cJSON_AddNumberToObject(pr, "input", co.price.input) &&
                 cJSON_AddNumberToObject(pr, "cached_input", co.price.cached_input) &&
                 cJSON_AddNumberToObject(pr, "output", co.price.output) &&
                 cJSON_AddNumberToObject(o, "total", co.total) &&
                 cJSON_AddNumberToObject(o, "requests", (double)co.calls) &&
                 cJSON_AddNumberToObject(o, "prompt_tokens", (double)co.prompt) &&
                 cJSON_AddNumberToObject(o, "cached_tokens", (double)co.cached) &&
                 cJSON_AddNumberToObject(o, "completion_tokens", (double)co.completion) &&
                 cJSON_AddNumberToObject(o, "judged_cases", (double)n) &&
                 cJSON_AddNumberToObject(o, "mean_per_judged_case",
                                         n ? co.total / (double)n : 0.0)))
        rc = ARB_ENOMEM;
    if (!rc)
        rc = add_costliest(o, co.cases);
    if (!rc && !cJSON_AddItemToObject(o, "cases", co.cases))
        rc = ARB_ENOMEM;
    else if (!rc)
        co.cases = NULL;
    cJSON_Delete(co.cases);
    return rc;
}
