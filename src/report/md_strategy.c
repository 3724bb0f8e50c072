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

#include "strategy_int.h"

/* The grader's reasoning is cut at so many bytes, and so many cases are listed. */
#define MAX_REASONING_BYTES 500
#define MAX_CASES           20

static double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

    return cJSON_IsString(v) ? v->valuestring : "";
}

/* "-" for a missing value, else the value with the given decimals. */
static void cell(char *out, size_t len, double v, int decimals)
{
    if (isnan(v))
        snprintf(out, len, "-");
    else
        snprintf(out, len, "%.*f", decimals, v);
}

/* Table-safe text (pipes escaped, line breaks as spaces), cut at max bytes on a UTF-8
 * boundary with " [...]". */
static enum arb_status add_text(struct arb_buf *out, const char *s, size_t max)
{
    size_t n = strlen(s), i;
    enum arb_status st = ARB_OK;

    if (n > max)
        while (max && ((unsigned char)s[max] & 0xC0) == 0x80)
            max--;
    for (i = 0; !st && i < n && i < max; i++) {
        if (s[i] == '|')
            st = arb_buf_adds(out, "\\|");
        else if (s[i] == '\n' || s[i] == '\r')
            st = arb_buf_addc(out, ' ');
        else
            st = arb_buf_addc(out, s[i]);
    }
    return !st && n > max ? arb_buf_adds(out, " [...]") : st;
}

static enum arb_status weighted_section(const cJSON *report, struct arb_buf *out)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(report, "weights"), *x;
    char q[32], d[32], l[32], r[32], sc[32];
    enum arb_status st;

    if (!w)
        return ARB_OK;
    st = arb_buf_printf(out,
                        "## Weighted (quality x %.2f + latency x %.2f + reliability x %.2f)\n\n",
                        num(w, "quality"), num(w, "latency"), num(w, "reliability"));
    if (!st && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(w, "notice")))
        st = arb_buf_printf(out, "Note: %s.\n\n", str(w, "notice"));
    if (!st)
        st = arb_buf_adds(out, "| System | Quality | Quality from | Mean duration (ms) | Latency | "
                               "Reliability | Score |\n|---|---:|---|---:|---:|---:|---:|\n");
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(report, "weighted"))
    {
        int prior = strcmp(str(x, "quality_source"), "prior_score") == 0;

        cell(q, sizeof(q), num(x, "quality"), 3);
        cell(d, sizeof(d), num(x, "mean_duration_ms"), 0);
        cell(l, sizeof(l), num(x, "latency"), 3);
        cell(r, sizeof(r), num(x, "reliability"), 3);
        cell(sc, sizeof(sc), num(x, "score"), 3);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = add_text(out, str(x, "system"), SIZE_MAX);
        if (!st)
            st =
                arb_buf_printf(out, " | %s | %s (%.0f/%.0f outputs scored) | %s | %s | %s | %s |\n",
                               q, prior ? "prior score" : "rubric", num(x, "prior_scores"),
                               num(x, "outputs"), d, l, r, sc);
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
            st = add_text(out, str(k, "case"), SIZE_MAX);
        if (!st)
            st = arb_buf_adds(out, " | ");
        const cJSON *rankings = cJSON_GetObjectItemCaseSensitive(k, "rankings");

        cJSON_ArrayForEach(r, rankings)
        {
            if (!st)
                st = arb_buf_printf(out, "%s%.0f. ", r == rankings->child ? "" : ", ",
                                    num(r, "rank"));
            if (!st)
                st = add_text(out, str(r, "run"), SIZE_MAX);
            if (!st)
                st = arb_buf_printf(out, " %.3f", num(r, "score"));
        }
        if (!st)
            st = arb_buf_adds(out, " | ");
        if (!st)
            st = add_text(out, str(k, "reasoning"), MAX_REASONING_BYTES);
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
            st = add_text(out, cJSON_IsString(x) ? x->valuestring : "", SIZE_MAX);
    }
    if (!st)
        st = arb_buf_adds(out, ")\n\n| System | Cases ranked | Mean score | Mean rank | Ranked "
                               "first |\n|---|---:|---:|---:|---:|\n");
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(c, "systems"))
    {
        cell(s, sizeof(s), num(x, "mean_score"), 3);
        cell(r, sizeof(r), num(x, "mean_rank"), 2);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = add_text(out, str(x, "system"), SIZE_MAX);
        if (!st)
            st = arb_buf_printf(out, " | %.0f | %s | %s | %.0f |\n", num(x, "cases"), s, r,
                                num(x, "firsts"));
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
                        num(h, "weighted_weight"), num(h, "custom_weight"));
    cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(h, "systems"))
    {
        cell(w, sizeof(w), num(x, "weighted"), 3);
        cell(c, sizeof(c), num(x, "custom"), 3);
        cell(s, sizeof(s), num(x, "score"), 3);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = add_text(out, str(x, "system"), SIZE_MAX);
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
