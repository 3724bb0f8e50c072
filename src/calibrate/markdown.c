/*
 * markdown.c - a calibration study (study.c's JSON) as markdown: the
 * headline numbers, per-order accuracy, position bias, the confusion matrix,
 * annotators, length preference, and the definitions the numbers follow.
 * Reads only the JSON, so a stored study renders the same as a fresh one.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arbiter/calibrate.h"

static const cJSON *get(const cJSON *o, const char *name)
{
    return cJSON_GetObjectItemCaseSensitive(o, name);
}

/* A number as "0.667", a count as "4", null as "n/a". */
static const char *num(const cJSON *v, char *buf, size_t n)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return "n/a";
    if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 1e15)
        snprintf(buf, n, "%.0f", v->valuedouble);
    else
        snprintf(buf, n, "%.3f", v->valuedouble);
    return buf;
}

static const char *field(const cJSON *o, const char *name, char *buf, size_t n)
{
    return num(get(o, name), buf, n);
}

static const char definitions[] =
    "## Definitions\n"
    "\n"
    "- **human label**: the majority of the annotators' labels; equal top counts give "
    "\"tie\".\n"
    "- **unresolved**: a null (unparsable) verdict, unless `--unparsed tie` counts it as a "
    "tie; an item is unresolved when any of its orders is.\n"
    "- **combined**: one verdict per item. inconsistent-tie (MT-Bench): the two orders' "
    "common verdict, else tie. net-vote (JudgeBench): each order votes for a side, a tie "
    "votes for none, more votes wins, equal votes tie. One order: that order.\n"
    "- **accuracy**: correct / items counted (an order: the items it was asked on; combined: "
    "all items, unresolved ones counting as wrong).\n"
    "- **S1** (agreement with ties): combined == human over all items, ties included; "
    "unresolved items count as disagreement.\n"
    "- **S2** (agreement without ties): among items where neither the human label nor the "
    "combined verdict is a tie, the share that agree.\n"
    "- **consistent**: both orders parsed and equal; consistency and the kappa between "
    "orders are over items with both orders parsed.\n"
    "- **first-biased**: order_12 said \"1\" and order_21 said \"2\", i.e. both orders "
    "picked the answer shown first; second-biased the reverse.\n"
    "- **kappa**: Cohen's kappa of the combined verdict against the human label over "
    "resolved items; **macro F1** averages F1 over the classes that occur, recall counting "
    "unresolved items as misses.\n"
    "- **intervals**: 95% percentile bootstrap, items resampled with replacement, fixed seed.\n";

static enum arb_status confusion(struct arb_buf *out, const cJSON *m, const cJSON *labels)
{
    enum arb_status st = arb_buf_adds(out, "\n| human \\ judge |");
    const cJSON *l, *row, *c;

    cJSON_ArrayForEach(l, labels)
    {
        if (!st)
            st = arb_buf_printf(out, " %s |", l->valuestring);
    }
    if (!st)
        st = arb_buf_adds(out, "\n|---|");
    cJSON_ArrayForEach(l, labels)
    {
        if (!st)
            st = arb_buf_adds(out, "---:|");
    }
    l = labels->child;
    cJSON_ArrayForEach(row, m)
    {
        if (!st)
            st = arb_buf_printf(out, "\n| %s |", l ? l->valuestring : "?");
        cJSON_ArrayForEach(c, row)
        {
            if (!st)
                st = arb_buf_printf(out, " %.0f |", c->valuedouble);
        }
        l = l ? l->next : NULL;
    }
    return st ? st : arb_buf_adds(out, "\n");
}

static enum arb_status interval(struct arb_buf *out, const char *what, const cJSON *boot,
                                const char *name)
{
    const cJSON *x = get(boot, name);
    char a[32], b[32], c[32];

    return arb_buf_printf(out, "| %s | %s | %s – %s |\n", what, field(x, "estimate", a, 32),
                          field(x, "lo", b, 32), field(x, "hi", c, 32));
}

static enum arb_status headline(struct arb_buf *out, const cJSON *study, const cJSON *c)
{
    const cJSON *boot = get(c, "bootstrap");
    char a[32], b[32];
    enum arb_status st;

    st = arb_buf_printf(out,
                        "\n| measure | value | 95%% interval (%s resamples) |\n|---|---:|---|\n",
                        field(boot, "resamples", a, 32));
    if (!st)
        st = interval(out, "accuracy (S1)", boot, "accuracy");
    if (!st)
        st = interval(out, "Cohen's kappa", boot, "kappa");
    if (!st && get(c, "agreement_without_ties"))
        st = arb_buf_printf(out, "| agreement without ties (S2, %s items) | %s | |\n",
                            field(c, "n_without_ties", a, 32),
                            field(c, "agreement_without_ties", b, 32));
    if (!st && get(c, "macro_f1"))
        st = arb_buf_printf(out, "| macro F1 | %s | |\n", field(c, "macro_f1", a, 32));
    if (!st)
        st = arb_buf_printf(out, "| unresolved items | %s | |\n", field(c, "unresolved", a, 32));
    if (!st)
        st = confusion(out, get(c, "confusion"), get(study, "labels"));
    return st;
}

static enum arb_status pairwise_md(struct arb_buf *out, const cJSON *s)
{
    const cJSON *orders = get(s, "orders"), *pos = get(s, "position"), *o, *h, *x;
    const cJSON *len = get(s, "length");
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
    enum arb_status st = headline(out, s, get(s, "combined"));

    if (!st)
        st = arb_buf_adds(out, "\n## Orders\n\n| order | items | correct | accuracy | unresolved "
                               "|\n|---|---:|---:|---:|---:|\n");
    cJSON_ArrayForEach(o, orders)
    {
        if (!st)
            st = arb_buf_printf(out, "| %s | %s | %s | %s | %s |\n", o->string,
                                field(o, "n", a, 32), field(o, "correct", b, 32),
                                field(o, "accuracy", c, 32), field(o, "unresolved", d, 32));
    }
    if (!st)
        st = arb_buf_printf(out,
                            "\n## Position\n\nBoth orders parsed: %s items; consistent: %s "
                            "(%s); kappa between orders: %s.\n",
                            field(pos, "n", a, 32), field(pos, "consistent", b, 32),
                            field(pos, "consistency", c, 32),
                            field(pos, "kappa_between_orders", d, 32));
    if (!st)
        st = arb_buf_printf(out,
                            "First-biased (both orders picked the answer shown first): %s; "
                            "second-biased: %s.\n",
                            field(pos, "first_biased", a, 32), field(pos, "second_biased", b, 32));
    h = get(s, "human");
    if (!st && h) {
        st = arb_buf_printf(out,
                            "\n## Annotators\n\n%s annotators; majority labels: 1 %s, 2 %s, "
                            "tie %s (%s split evenly).\n\n| pair | items | agreement | kappa "
                            "|\n|---|---:|---:|---:|\n",
                            field(h, "annotators", a, 32), field(get(h, "majority"), "1", b, 32),
                            field(get(h, "majority"), "2", c, 32),
                            field(get(h, "majority"), "tie", d, 32),
                            num(get(get(h, "majority"), "split"), e, 32));
        cJSON_ArrayForEach(x, get(h, "annotator_kappa"))
        {
            if (!st)
                st = arb_buf_printf(out, "| %s | %s | %s | %s |\n", get(x, "pair")->valuestring,
                                    field(x, "n", a, 32), field(x, "agreement", b, 32),
                                    field(x, "kappa", c, 32));
        }
        cJSON_ArrayForEach(x, get(h, "judge_agreement"))
        {
            if (!st)
                st = arb_buf_printf(out, "| judge-%s | %s | %s | %s |\n",
                                    field(x, "annotator", d, 32), field(x, "n", a, 32),
                                    field(x, "agreement", b, 32), field(x, "kappa", c, 32));
        }
    }
    if (!st)
        st = arb_buf_printf(
            out,
            "\n## Length\n\nOf %s items with outputs of different lengths, the "
            "humans preferred the longer in %s of %s decisive labels (%s), the "
            "judge in %s of %s decisive verdicts (%s).\n",
            field(len, "n", a, 32), field(get(len, "human"), "longer", b, 32),
            field(get(len, "human"), "n", c, 32), field(get(len, "human"), "rate", d, 32),
            field(get(len, "judge"), "longer", e, 32), field(get(len, "judge"), "n", f, 32),
            field(get(len, "judge"), "rate", g, 32));
    return st;
}

enum arb_status arb_calib_markdown(const cJSON *study, struct arb_buf *out)
{
    const cJSON *kind = get(study, "kind"), *hash = get(study, "judge_hash");
    const cJSON *policy = get(study, "policy"), *unparsed = get(study, "unparsed");
    int pair = cJSON_IsString(kind) && strcmp(kind->valuestring, "pairwise") == 0;
    char a[32];
    enum arb_status st;

    st = arb_buf_printf(out, "# Judge calibration\n\n%s items (%s labels)",
                        field(study, "n", a, 32), pair ? "pairwise" : "expectation");
    if (!st && cJSON_IsString(hash))
        st = arb_buf_printf(out, ", judge config %.12s", hash->valuestring);
    if (!st && cJSON_IsString(policy))
        st = arb_buf_printf(out, ", policy %s", policy->valuestring);
    if (!st && cJSON_IsString(unparsed))
        st = arb_buf_printf(out, ", null verdicts counted as %s", unparsed->valuestring);
    if (!st)
        st = arb_buf_adds(out, ".\n");
    if (!st)
        st = pair ? pairwise_md(out, study) : headline(out, study, study);
    if (!st)
        st = arb_buf_printf(out, "\n%s", definitions);
    return st;
}
