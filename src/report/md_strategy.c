/*
 * md_strategy.c - the markdown sections of the report strategies weighted,
 * custom and hybrid (weighted.c, custom.c): what each system scored and from
 * what, the grader's rankings and reasoning per case.  markdown.c lays out
 * the rest of the report and calls md_strategies in its place.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_int.h"
#include "strategy_int.h"

/* The grader's reasoning is cut at so many bytes, and so many cases are listed. */
#define MAX_REASONING_BYTES 500
#define MAX_CASES           20

static enum arb_status weighted_section(const cJSON *report, struct arb_buf *out)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(report, "weights"), *x, *q_note;
    char q[32], d[32], l[32], r[32], sc[32];
    enum arb_status st;

    if (!w)
        return ARB_OK;
    st = arb_buf_printf(out,
                        "## Weighted (quality x %.2f + latency x %.2f + reliability x %.2f)\n\n",
                        md_num(w, "quality"), md_num(w, "latency"), md_num(w, "reliability"));
    if (!st && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(w, "notice")))
        st = arb_buf_printf(out, "Note: %s.\n\n", md_str(w, "notice"));
    q_note = cJSON_GetObjectItemCaseSensitive(report, "weighted_quality");
    if (!st && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(q_note, "notice")))
        st = arb_buf_printf(out, "Note: %s.\n\n", md_str(q_note, "notice"));
    if (!st)
        st = arb_buf_adds(out, "| System | Quality | Quality from | Mean duration (ms) | Latency | "
                               "Reliability | Score |\n|---|---:|---|---:|---:|---:|---:|\n");
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(report, "weighted"))
    {
        int prior = strcmp(md_str(x, "quality_source"), "prior_score") == 0;

        md_cell(q, sizeof(q), md_num(x, "quality"), 3, 0);
        md_cell(d, sizeof(d), md_num(x, "mean_duration_ms"), 0, 0);
        md_cell(l, sizeof(l), md_num(x, "latency"), 3, 0);
        md_cell(r, sizeof(r), md_num(x, "reliability"), 3, 0);
        md_cell(sc, sizeof(sc), md_num(x, "score"), 3, 0);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text_cut(out, md_str(x, "system"), SIZE_MAX);
        if (!st)
            st =
                arb_buf_printf(out, " | %s | %s (%.0f/%.0f outputs scored) | %s | %s | %s | %s |\n",
                               q, prior ? "prior score" : "rubric", md_num(x, "prior_scores"),
                               md_num(x, "outputs"), d, l, r, sc);
    }
    return st ? st : arb_buf_adds(out, "\n");
}

/* The grader's reasoning per case, the first MAX_CASES. */
static enum arb_status custom_cases(const cJSON *cases, struct arb_buf *out)
{
    const cJSON *k, *r;
    int n = 0, all = cJSON_GetArraySize(cases);
    enum arb_status st = arb_buf_adds(out, "| Case | Rankings (rank. run score) | Reasoning |\n"
                                           "|---|---|---|\n");

    for (k = cases ? cases->child : NULL; !st && k && n < MAX_CASES; k = k->next, n++) {
        st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text_cut(out, md_str(k, "case"), SIZE_MAX);
        if (!st)
            st = arb_buf_adds(out, " | ");
        const cJSON *rankings = cJSON_GetObjectItemCaseSensitive(k, "rankings");

        cJSON_ArrayForEach(r, rankings)
        {
            if (!st)
                st = arb_buf_printf(out, "%s%.0f. ", r == rankings->child ? "" : ", ",
                                    md_num(r, "rank"));
            if (!st)
                st = md_text_cut(out, md_str(r, "run"), SIZE_MAX);
            if (!st)
                st = arb_buf_printf(out, " %.3f", md_num(r, "score"));
        }
        if (!st)
            st = arb_buf_adds(out, " | ");
        if (!st)
            st = md_text_cut(out, md_str(k, "reasoning"), MAX_REASONING_BYTES);
        if (!st)
            st = arb_buf_adds(out, " |\n");
    }
    if (!st && all > n)
        st = arb_buf_printf(out, "\n%d more cases in the JSON report (custom.cases).\n", all - n);
    return st ? st : arb_buf_adds(out, "\n");
}

static enum arb_status custom_section(const cJSON *report, struct arb_buf *out)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(report, "custom"), *x;
    char s[32], r[32];
    enum arb_status st;

    if (!c)
        return ARB_OK;
    st = arb_buf_adds(out, "## Custom grader (");
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "grader"))
    {
        if (!st && x != cJSON_GetObjectItemCaseSensitive(c, "grader")->child)
            st = arb_buf_addc(out, ' ');
        if (!st)
            st = md_text_cut(out, cJSON_IsString(x) ? x->valuestring : "", SIZE_MAX);
    }
    if (!st)
        st = arb_buf_adds(out, ")\n\n| System | Cases ranked | Mean score | Mean rank | Ranked "
                               "first |\n|---|---:|---:|---:|---:|\n");
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "systems"))
    {
        md_cell(s, sizeof(s), md_num(x, "mean_score"), 3, 0);
        md_cell(r, sizeof(r), md_num(x, "mean_rank"), 2, 0);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text_cut(out, md_str(x, "system"), SIZE_MAX);
        if (!st)
            st = arb_buf_printf(out, " | %.0f | %s | %s | %.0f |\n", md_num(x, "cases"), s, r,
                                md_num(x, "firsts"));
    }
    if (!st)
        st = arb_buf_adds(out, "\n");
    return st ? st : custom_cases(cJSON_GetObjectItemCaseSensitive(c, "cases"), out);
}

static enum arb_status hybrid_section(const cJSON *report, struct arb_buf *out)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(report, "hybrid"), *x;
    char w[32], c[32], s[32];
    enum arb_status st;

    if (!h)
        return ARB_OK;
    st = arb_buf_printf(out,
                        "## Hybrid (weighted x %.2f + custom grader x %.2f)\n\n"
                        "| System | Weighted | Custom grader | Score |\n|---|---:|---:|---:|\n",
                        md_num(h, "weighted_weight"), md_num(h, "custom_weight"));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(h, "systems"))
    {
        md_cell(w, sizeof(w), md_num(x, "weighted"), 3, 0);
        md_cell(c, sizeof(c), md_num(x, "custom"), 3, 0);
        md_cell(s, sizeof(s), md_num(x, "score"), 3, 0);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text_cut(out, md_str(x, "system"), SIZE_MAX);
        if (!st)
            st = arb_buf_printf(out, " | %s | %s | %s |\n", w, c, s);
    }
    return st ? st : arb_buf_adds(out, "\n");
}

enum arb_status md_strategies(const cJSON *report, struct arb_buf *out)
{
    enum arb_status st = weighted_section(report, out);

    if (!st)
        st = custom_section(report, out);
    return st ? st : hybrid_section(report, out);
}
