/*
 * markdown.c - a calibration study (study.c's JSON) as markdown: what
 * verdict was measured, the headline numbers, per-order accuracy, position
 * bias, the confusion matrix, per-criterion agreement, annotators (and their
 * agreement with each other), length preference, and the definitions the
 * numbers follow.
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
    "- **verdict measured**: either the run's procedure (the final verdict a run stored for "
    "each case, whether its checks or its judge decided it; a case with no verdict, because "
    "the judge failed or the case was left unresolved or pending, counts as unresolved), or "
    "the judge's two orders combined under a policy.\n"
    "- **unresolved**: a null (unparsable) verdict, unless `--unparsed tie` counts it as a "
    "tie; an item is unresolved when any of its orders is.\n"
    "- **combined**: one verdict per item: the procedure's when that is measured, else "
    "inconsistent-tie (MT-Bench): the two orders' "
    "common verdict, else tie. net-vote (JudgeBench): each order votes for a side, a tie "
    "votes for none, more votes wins, equal votes tie. One order: that order.\n"
    "- **accuracy**: correct / items counted (an order: the items it was asked on; combined: "
    "all items, unresolved ones counting as wrong).\n"
    "- **S1** (agreement with ties): combined == human over all items, ties included; "
    "unresolved items count as disagreement.\n"
    "- **S2** (agreement without ties): among items where neither the human label nor the "
    "combined verdict is a tie, the share that agree.\n"
    "- **consistent**: both orders parsed and equal; consistency and the kappa between "
    "orders are over items with both orders parsed (cases the procedure decided without a "
    "judge count in the agreement figures, not here).\n"
    "- **first-biased**: order_12 said \"1\" and order_21 said \"2\", i.e. both orders "
    "picked the answer shown first; second-biased the reverse.\n"
    "- **kappa**: Cohen's kappa of the combined verdict against the human label over "
    "resolved items; **macro F1** averages F1 over the classes that occur, recall counting "
    "unresolved items as misses.\n"
    "- **intervals**: 95% percentile bootstrap, items resampled with replacement, fixed seed.\n"
    "- **criteria**: per criterion, over items with a human label for it and a verdict on "
    "it: S1, S2 and kappa as above, a missing verdict counting as wrong.\n"
    "- **inter-annotator kappa**: with two annotators, Cohen's kappa over items both "
    "labelled; with more, Fleiss' kappa over the items with the most common number of "
    "labels. Annotator i is the i-th label of every line.\n"
    "- **Krippendorff's alpha** (nominal): agreement among annotators over every item with "
    "at least two labels, however many; 1 is perfect, 0 is chance.\n"
    "- **length**: among items with two outputs of different lengths (code points), how "
    "often a decisive label or verdict picks the longer.\n";

/* Who gave the verdicts measured: "procedure" (the run's) or "judge". */
static const char *measured(const cJSON *study)
{
    const cJSON *v = get(study, "verdict");

    return cJSON_IsString(v) && strcmp(v->valuestring, "procedure") == 0 ? "procedure" : "judge";
}

static enum arb_status confusion(struct arb_buf *out, const cJSON *m, const cJSON *labels,
                                 const char *who)
{
    enum arb_status st = arb_buf_printf(out, "\n| human \\ %s |", who);
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
        st = confusion(out, get(c, "confusion"), get(study, "labels"), measured(study));
    return st;
}

static enum arb_status criteria_md(struct arb_buf *out, const cJSON *crit)
{
    const cJSON *x;
    char a[32], b[32], c[32], d[32], e[32], f[32];
    enum arb_status st = arb_buf_adds(
        out, "\n## Criteria\n\n| criterion | items | S1 | S2 (items) | kappa | unresolved "
             "|\n|---|---:|---:|---:|---:|---:|\n");

    cJSON_ArrayForEach(x, crit)
    {
        if (!st)
            st = arb_buf_printf(out, "| %s | %s | %s | %s (%s) | %s | %s |\n", x->string,
                                field(x, "n", a, 32), field(x, "agreement_with_ties", b, 32),
                                field(x, "agreement_without_ties", c, 32),
                                field(x, "n_without_ties", d, 32), field(x, "kappa", e, 32),
                                field(x, "unresolved", f, 32));
    }
    return st;
}

/* The annotators' agreement with each other, when the study has it. */
static enum arb_status inter_annotator_md(struct arb_buf *out, const cJSON *h)
{
    const cJSON *kind = get(h, "kappa_kind");
    int fleiss = cJSON_IsString(kind) && strcmp(kind->valuestring, "fleiss") == 0;
    char a[32], b[32], c[32], d[32], e[32];

    if (!cJSON_IsString(kind))
        return ARB_OK;
    return arb_buf_printf(out,
                          "Agreement between annotators: %s kappa %s over %s items (%s labels "
                          "each); Krippendorff's alpha %s over %s items with 2 labels or more.\n",
                          fleiss ? "Fleiss'" : "Cohen's", field(h, "kappa", a, 32),
                          field(h, "kappa_n", b, 32), field(h, "kappa_annotators", c, 32),
                          field(h, "alpha", d, 32), field(h, "alpha_n", e, 32));
}

static enum arb_status length_md(struct arb_buf *out, const cJSON *len, const char *who)
{
    char a[32], b[32], c[32], d[32], e[32], f[32], g[32];
    const cJSON *n = get(len, "n");

    if (cJSON_IsNumber(n) && n->valuedouble == 0)
        return arb_buf_adds(out, "\n## Length\n\nNo item has two outputs of different "
                                 "lengths.\n");
    return arb_buf_printf(
        out,
        "\n## Length\n\nOf %s items with outputs of different lengths, the "
        "humans preferred the longer in %s of %s decisive labels (%s), the "
        "%s in %s of %s decisive verdicts (%s).\n",
        field(len, "n", a, 32), field(get(len, "human"), "longer", b, 32),
        field(get(len, "human"), "n", c, 32), field(get(len, "human"), "rate", d, 32), who,
        field(get(len, "judge"), "longer", e, 32), field(get(len, "judge"), "n", f, 32),
        field(get(len, "judge"), "rate", g, 32));
}

static enum arb_status pairwise_md(struct arb_buf *out, const cJSON *s)
{
    const cJSON *orders = get(s, "orders"), *pos = get(s, "position"), *o, *h, *x;
    char a[32], b[32], c[32], d[32], e[32];
    enum arb_status st = headline(out, s, get(s, "combined"));

    if (!st && get(s, "criteria"))
        st = criteria_md(out, get(s, "criteria"));

    if (!st)
        st = arb_buf_adds(out, "\n## Orders\n\n| order | items | correct | accuracy | unresolved "
                               "|\n|---|---:|---:|---:|---:|\n");
    if (!st && !(orders && orders->child))
        st = arb_buf_adds(out, "| (no item has a judge's order) | | | | |\n");
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
                            "tie %s (%s split evenly).\n",
                            field(h, "annotators", a, 32), field(get(h, "majority"), "1", b, 32),
                            field(get(h, "majority"), "2", c, 32),
                            field(get(h, "majority"), "tie", d, 32),
                            num(get(get(h, "majority"), "split"), e, 32));
        if (!st)
            st = inter_annotator_md(out, h);
        if (!st)
            st =
                arb_buf_adds(out, "\n| pair | items | agreement | kappa |\n|---|---:|---:|---:|\n");
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
        st = length_md(out, get(s, "length"), measured(s));
    return st;
}

/* Which verdict the study measured (a study stored before it said so says nothing). */
static enum arb_status verdict_md(struct arb_buf *out, const cJSON *study)
{
    const cJSON *v = get(study, "verdict");

    if (!cJSON_IsString(v))
        return ARB_OK;
    if (strcmp(v->valuestring, "procedure") == 0)
        return arb_buf_adds(out, "\nVerdict measured: the run's procedure (the final verdict "
                                 "it stored for each case); the judge's orders, where it was "
                                 "asked, count only for position.\n");
    return arb_buf_adds(out, "\nVerdict measured: the judge's verdicts in each order, "
                             "combined.\n");
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
        st = verdict_md(out, study);
    if (!st)
        st = pair ? pairwise_md(out, study) : headline(out, study, study);
    if (!st)
        st = arb_buf_printf(out, "\n%s", definitions);
    return st;
}
