/*
 * md_stats.c - the markdown sections of the statistical strategy and of the
 * trials (statistics.c, trials.c): intervals with the bootstrap median beside
 * each figure, the paired tests and the one-line reasoning per pair, McNemar,
 * Bradley-Terry; pass@k and pass^k, the trials' quality and performance.
 * markdown.c lays out the rest of the report and calls these in their place.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "md_int.h"
#include "stats_int.h"

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* "| value | median | [lo, hi] " of one figure: value from v, the rest from the statistics. */
static enum arb_status figure(struct arb_buf *out, double v, const cJSON *median,
                              const cJSON *interval, int decimals, int percent)
{
    char a[40], b[40], c[90];

    md_cell(a, sizeof(a), v, decimals, percent);
    md_cell(b, sizeof(b), cJSON_IsNumber(median) ? median->valuedouble : NAN, decimals, percent);
    md_ci(c, sizeof(c), interval, decimals, percent);
    return arb_buf_printf(out, " | %s | %s | %s", a, b, c);
}

/* Per system: each figure, the median of its bootstrap resamples and its interval. */
static enum arb_status systems_rows(const cJSON *report, struct arb_buf *out)
{
    const cJSON *s;
    enum arb_status st = ARB_OK;

    cJSON_ArrayForEach(s, get(report, "systems"))
    {
        const cJSON *iv = get(s, "intervals"), *md = get(s, "bootstrap_median");

        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, md_str(s, "name"));
        if (!st)
            st = figure(out, md_num(s, "win_rate"), get(md, "win_rate"), get(iv, "win_rate"), 1, 1);
        if (!st)
            st = figure(out, md_num(get(s, "expectations"), "pass_rate"), get(md, "pass_rate"),
                        get(iv, "pass_rate"), 1, 1);
        if (!st)
            st = figure(out, md_num(s, "overall_score"), get(md, "overall_score"),
                        get(iv, "overall_score"), 2, 0);
        if (!st)
            st = figure(out, md_num(get(s, "latency_ms"), "mean"), get(md, "latency_ms"),
                        get(iv, "latency_ms"), 0, 0);
        if (!st)
            st = arb_buf_adds(out, " |\n");
    }
    return st;
}

static enum arb_status pairs_rows(const cJSON *report, struct arb_buf *out)
{
    const cJSON *p;
    char a[32], c[32], d[80], g[32], m[32];
    enum arb_status st = ARB_OK;

    cJSON_ArrayForEach(p, get(report, "pairs"))
    {
        const cJSON *pb = get(p, "paired_bootstrap"), *sep = get(p, "intervals_separate");
        double lohi[2] = {md_num(pb, "lo"), md_num(pb, "hi")};
        cJSON *iv = cJSON_CreateDoubleArray(lohi, 2);

        if (!iv)
            return ARB_ENOMEM;
        md_cell(a, sizeof(a), md_num(p, "sign_test_p"), 4, 0);
        md_cell(c, sizeof(c), md_num(pb, "mean_diff"), 3, 0);
        md_cell(m, sizeof(m), md_num(pb, "median"), 3, 0);
        md_ci(d, sizeof(d), isnan(lohi[0]) ? NULL : iv, 3, 0);
        md_cell(g, sizeof(g), md_num(pb, "p"), 4, 0);
        cJSON_Delete(iv);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, md_str(p, "a"));
        if (!st)
            st = arb_buf_adds(out, " | ");
        if (!st)
            st = md_text(out, md_str(p, "b"));
        if (!st)
            st = arb_buf_printf(out, " | %.0f | %.0f | %.0f | %s | %s | %s | %s | %s | %s | %s |\n",
                                md_num(p, "a_wins"), md_num(p, "b_wins"), md_num(p, "ties"), a, c,
                                m, d, g, cJSON_IsTrue(get(p, "significant")) ? "yes" : "no",
                                cJSON_IsBool(sep) ? (cJSON_IsTrue(sep) ? "yes" : "no") : "-");
    }
    return st;
}

/* One line per pair: the intervals' evidence and the paired tests' conclusion. */
static enum arb_status reasoning_lines(const cJSON *report, struct arb_buf *out)
{
    const cJSON *p;
    enum arb_status st = ARB_OK;

    if (cJSON_GetArraySize(get(report, "pairs")) > 0)
        st = arb_buf_adds(out, "\nSignificance per pair:\n\n");
    cJSON_ArrayForEach(p, get(report, "pairs"))
    {
        if (!st)
            st = arb_buf_adds(out, "- ");
        if (!st)
            st = md_text(out, md_str(p, "a"));
        if (!st)
            st = arb_buf_adds(out, " vs ");
        if (!st)
            st = md_text(out, md_str(p, "b"));
        if (!st)
            st = arb_buf_adds(out, ": ");
        if (!st)
            st = md_text(out, md_str(p, "reasoning"));
        if (!st)
            st = arb_buf_adds(out, "\n");
    }
    return st;
}

static enum arb_status mcnemar_bt_rows(const cJSON *report, struct arb_buf *out)
{
    const cJSON *p;
    char a[32], b[80], c[32];
    enum arb_status st = ARB_OK;

    if (cJSON_GetArraySize(get(report, "mcnemar")))
        st = arb_buf_adds(out, "\nMcNemar's exact test per expectation (cases where only one of "
                               "the two passes):\n\n| Expectation | A | B | Only A passes | Only B "
                               "passes | p |\n|---|---|---|---:|---:|---:|\n");
    cJSON_ArrayForEach(p, get(report, "mcnemar"))
    {
        md_cell(a, sizeof(a), md_num(p, "p"), 4, 0);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, md_str(p, "expectation"));
        if (!st)
            st = arb_buf_printf(out, " | %s | %s | %.0f | %.0f | %s |\n", md_str(p, "a"),
                                md_str(p, "b"), md_num(p, "only_a_passes"),
                                md_num(p, "only_b_passes"), a);
    }
    if (!st && cJSON_GetArraySize(get(report, "bradley_terry")))
        st = arb_buf_adds(out, "\nBradley-Terry ratings (log-strength, mean 0):\n\n| System | "
                               "Rating | Median | 95% CI |\n|---|---:|---:|---:|\n");
    cJSON_ArrayForEach(p, get(report, "bradley_terry"))
    {
        md_cell(a, sizeof(a), md_num(p, "rating"), 3, 0);
        md_cell(c, sizeof(c), md_num(p, "bootstrap_median"), 3, 0);
        md_ci(b, sizeof(b), get(p, "interval"), 3, 0);
        if (!st)
            st = arb_buf_printf(out, "| %s | %s | %s | %s |\n", md_str(p, "system"), a, c, b);
    }
    return st;
}

enum arb_status md_statistics(const cJSON *report, struct arb_buf *out)
{
    const cJSON *info = get(report, "statistics");
    enum arb_status st;

    if (!info)
        return ARB_OK;
    st = arb_buf_printf(out,
                        "## Statistics (%.0f bootstrap resamples, seed %.0f, 95%% intervals)\n\n"
                        "Each figure with the median of its bootstrap resamples (the central "
                        "estimate) and its 95%% interval, all from one resampling of the cases; "
                        "latency is the mean duration of the compared outputs.\n\n"
                        "| System | Win rate | Median | 95%% CI | Pass rate | Median | 95%% CI | "
                        "Overall score | Median | 95%% CI | Latency (ms) | Median | 95%% CI |\n"
                        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
                        md_num(info, "resamples"), md_num(info, "seed"));
    if (!st)
        st = systems_rows(report, out);
    if (!st)
        st = arb_buf_adds(out, "\nPaired tests over cases (exact sign test on wins vs losses; "
                               "paired bootstrap of the per-case overall score difference A - B; "
                               "significant when both give p < 0.05) and, beside them, whether "
                               "the two systems' 95% intervals of the overall score do not "
                               "overlap:"
                               "\n\n| A | B | A wins | B wins | Ties | Sign test p | Mean diff | "
                               "Median | 95% CI | Bootstrap p | Significant | 95% intervals do "
                               "not overlap |\n"
                               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    if (!st)
        st = pairs_rows(report, out);
    if (!st)
        st = reasoning_lines(report, out);
    if (!st)
        st = mcnemar_bt_rows(report, out);
    return st ? st : arb_buf_adds(out, "\n");
}

/* pass@k and pass^k per system and k. */
static enum arb_status trials_k_rows(const cJSON *t, struct arb_buf *out)
{
    const cJSON *s, *k;
    enum arb_status st = ARB_OK;

    cJSON_ArrayForEach(s, get(t, "systems"))
    {
        cJSON_ArrayForEach(k, get(s, "k"))
        {
            if (!st)
                st = arb_buf_adds(out, "| ");
            if (!st)
                st = md_text(out, md_str(s, "name"));
            if (!st)
                st = arb_buf_printf(out, " | %.0f | %.0f | %.0f | %.0f", md_num(s, "cases"),
                                    md_num(s, "trials"), md_num(k, "k"), md_num(k, "cases"));
            if (!st)
                st = figure(out, md_num(k, "pass@k"), get(k, "pass@k_bootstrap_median"),
                            get(k, "pass@k_ci"), 3, 0);
            if (!st)
                st = figure(out, md_num(k, "pass^k"), get(k, "pass^k_bootstrap_median"),
                            get(k, "pass^k_ci"), 3, 0);
            if (!st)
                st = arb_buf_adds(out, " |\n");
        }
        if (!st && md_num(s, "unresolved_cases") > 0) {
            st = arb_buf_adds(out, "| ");
            if (!st)
                st = md_text(out, md_str(s, "name"));
            if (!st)
                st = arb_buf_printf(out, " | %.0f left out | %.0f unresolved | | | | | | | | |\n",
                                    md_num(s, "unresolved_cases"), md_num(s, "unresolved_trials"));
        }
    }
    return st;
}

/* The systems' name cell, then the printf'd rest of a row. */
static enum arb_status name_cell(struct arb_buf *out, const cJSON *s)
{
    enum arb_status st = arb_buf_adds(out, "| ");

    return st ? st : md_text(out, md_str(s, "name"));
}

/* Quality (when some trial has a score) and performance of every system's trials. */
static enum arb_status trials_aggregates(const cJSON *t, struct arb_buf *out)
{
    const cJSON *s;
    char a[32], b[32], c[32], d[32], e[32], f[32];
    enum arb_status st = ARB_OK;
    int any = 0;

    cJSON_ArrayForEach(s, get(t, "systems")) any |= cJSON_IsObject(get(s, "quality"));
    if (any)
        st = arb_buf_adds(out, "\nQuality of the trials (a trial's score: its output's own "
                               "grader score, else the share of its checks passed; pooled over "
                               "every trial):\n\n| System | Trials scored | Avg score | Median "
                               "| 95% CI | Median score | p25 | p75 |\n"
                               "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    cJSON_ArrayForEach(s, get(t, "systems"))
    {
        const cJSON *q = get(s, "quality");

        if (!cJSON_IsObject(q))
            continue;
        md_cell(a, sizeof(a), md_num(q, "medianScore"), 3, 0);
        md_cell(b, sizeof(b), md_num(q, "p25Score"), 3, 0);
        md_cell(c, sizeof(c), md_num(q, "p75Score"), 3, 0);
        if (!st)
            st = name_cell(out, s);
        if (!st)
            st = arb_buf_printf(out, " | %.0f", md_num(q, "trials"));
        if (!st)
            st = figure(out, md_num(q, "avgScore"), get(get(q, "bootstrapMedian"), "avgScore"),
                        get(get(q, "confidenceIntervals"), "avgScore"), 3, 0);
        if (!st)
            st = arb_buf_printf(out, " | %s | %s | %s |\n", a, b, c);
    }
    if (!st)
        st = arb_buf_adds(out, "\nPerformance of the trials (their outputs' durations, ms):\n\n"
                               "| System | Trials timed | Mean | Median | 95% CI | p50 | p90 | "
                               "p99 | Min | Max | Total |\n"
                               "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    cJSON_ArrayForEach(s, get(t, "systems"))
    {
        const cJSON *p = get(s, "performance"), *l = get(p, "latency");

        md_cell(a, sizeof(a), md_num(l, "p50"), 0, 0);
        md_cell(b, sizeof(b), md_num(l, "p90"), 0, 0);
        md_cell(c, sizeof(c), md_num(l, "p99"), 0, 0);
        md_cell(d, sizeof(d), md_num(l, "min"), 0, 0);
        md_cell(e, sizeof(e), md_num(l, "max"), 0, 0);
        md_cell(f, sizeof(f), md_num(p, "totalDuration"), 0, 0);
        if (!st)
            st = name_cell(out, s);
        if (!st)
            st = arb_buf_printf(out, " | %.0f", md_num(p, "trials"));
        if (!st)
            st = figure(out, md_num(l, "mean"), get(get(p, "bootstrapMedian"), "latencyMean"),
                        get(get(p, "confidenceIntervals"), "latencyMean"), 0, 0);
        if (!st)
            st = arb_buf_printf(out, " | %s | %s | %s | %s | %s | %s |\n", a, b, c, d, e, f);
    }
    return st;
}

enum arb_status md_trials(const cJSON *report, struct arb_buf *out)
{
    const cJSON *t = get(report, "trials");
    enum arb_status st;

    if (!t)
        return ARB_OK;
    st = arb_buf_adds(out, "## Trials: pass@k and pass^k\n\n"
                           "pass@k: the chance that at least one of k trials passes every "
                           "expectation with a check; pass^k: that all k do (unbiased estimators "
                           "over each case's trials, averaged over the cases with at least k). "
                           "Median: of the bootstrap resamples, with --strategy statistical.\n\n"
                           "| System | Cases | Trials | k | Cases with k | pass@k | Median | "
                           "95% CI | pass^k | Median | 95% CI |\n"
                           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    if (!st)
        st = trials_k_rows(t, out);
    if (!st)
        st = trials_aggregates(t, out);
    return st ? st : arb_buf_adds(out, "\n");
}
