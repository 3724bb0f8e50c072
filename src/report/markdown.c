/*
 * markdown.c - the report object as markdown tables (see report.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "md_int.h"
#include "report_int.h"
#include "stats_int.h"
#include "strategy_int.h"

/* A reason of failure is cut at so many bytes in a table. */
#define MAX_REASON_BYTES 500

static enum arb_status systems_table(const cJSON *report, struct arb_buf *out)
{
    const cJSON *s;
    char a[32], b[32], c[32];
    enum arb_status st;

    st = arb_buf_adds(out, "## Systems\n\n| System | Wins | Losses | Ties | Win rate | "
                           "Win rate (no ties) | Expectation pass rate | Overall score |\n"
                           "|---|---:|---:|---:|---:|---:|---:|---:|\n");
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(report, "systems"))
    {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(s, "expectations");
        char d[32];

        md_cell(a, sizeof(a), md_num(s, "win_rate"), 1, 1);
        md_cell(b, sizeof(b), md_num(s, "win_rate_without_ties"), 1, 1);
        md_cell(c, sizeof(c), md_num(e, "pass_rate"), 1, 1);
        md_cell(d, sizeof(d), md_num(s, "overall_score"), 2, 0);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, md_str(s, "name"));
        if (!st)
            st = arb_buf_printf(out, " | %.0f | %.0f | %.0f | %s | %s | %s (%.0f/%.0f) | %s |\n",
                                md_num(s, "wins"), md_num(s, "losses"), md_num(s, "ties"), a, b, c,
                                md_num(e, "passed"), md_num(e, "passed") + md_num(e, "failed"), d);
    }
    return st ? st : arb_buf_adds(out, "\n");
}

/* A table header with one right-aligned column per system. */
static enum arb_status system_columns(const cJSON *systems, const char *first, struct arb_buf *out)
{
    const cJSON *s;
    enum arb_status st = arb_buf_printf(out, "| %s |", first);

    cJSON_ArrayForEach(s, systems)
    {
        if (!st)
            st = arb_buf_addc(out, ' ');
        if (!st)
            st = md_text(out, md_str(s, "name"));
        if (!st)
            st = arb_buf_adds(out, " |");
    }
    if (!st)
        st = arb_buf_adds(out, "\n|---|");
    cJSON_ArrayForEach(s, systems)
    {
        if (!st)
            st = arb_buf_adds(out, "---:|");
    }
    return st ? st : arb_buf_adds(out, "\n");
}

static enum arb_status rubric_table(const cJSON *report, struct arb_buf *out)
{
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(report, "systems"), *s, *first, *c;
    const char *dims[] = {"content", "structure"};
    char v[32];
    size_t k;
    enum arb_status st;

    first = cJSON_GetArrayItem(systems, 0);
    if (!first)
        return ARB_OK;
    st = arb_buf_adds(out, "## Mean rubric scores (1-5)\n\n");
    if (!st)
        st = system_columns(systems, "Criterion", out);
    for (k = 0; !st && k < 2; k++) {
        const cJSON *dim = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(first, "rubric"), dims[k]);

        cJSON_ArrayForEach(c, dim)
        {
            if (!st)
                st = arb_buf_printf(out, "| %s: ", dims[k]);
            if (!st)
                st = md_text(out, c->string);
            if (!st)
                st = arb_buf_adds(out, " |");
            cJSON_ArrayForEach(s, systems)
            {
                const cJSON *sd = cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(s, "rubric"), dims[k]);

                md_cell(v, sizeof(v), md_num(sd, c->string), 2, 0);
                if (!st)
                    st = arb_buf_printf(out, " %s |", v);
            }
            if (!st)
                st = arb_buf_adds(out, "\n");
        }
    }
    return st ? st : arb_buf_adds(out, "\n");
}

static enum arb_status expectations_table(const cJSON *report, struct arb_buf *out)
{
    const cJSON *e, *systems = cJSON_GetObjectItemCaseSensitive(report, "systems"), *s;
    enum arb_status st = ARB_OK;

    if (!cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "expectations")))
        return ARB_OK;
    st = arb_buf_adds(out, "## Expectations\n\n");
    if (!st)
        st = system_columns(systems, "Expectation", out);
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "expectations"))
    {
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, md_str(e, "id"));
        if (!st)
            st = arb_buf_adds(out, " |");
        cJSON_ArrayForEach(s, systems)
        {
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(e, "systems"), md_str(s, "name"));
            char v[32];

            md_cell(v, sizeof(v), md_num(c, "pass_rate"), 1, 1);
            if (!st && !c)
                st = arb_buf_adds(out, " - |");
            else if (!st && md_num(c, "unresolved") > 0)
                st = arb_buf_printf(out, " %s (%.0f/%.0f, %.0f unresolved) |", v,
                                    md_num(c, "passed"), md_num(c, "passed") + md_num(c, "failed"),
                                    md_num(c, "unresolved"));
            else if (!st)
                st = arb_buf_printf(out, " %s (%.0f/%.0f) |", v, md_num(c, "passed"),
                                    md_num(c, "passed") + md_num(c, "failed"));
        }
        if (!st)
            st = arb_buf_adds(out, "\n");
    }
    return st ? st : arb_buf_adds(out, "\n");
}

/* Expectation pass rates per case (report "case_pass_rates"), one column per system. */
static enum arb_status case_rates_table(const cJSON *report, struct arb_buf *out)
{
    const cJSON *cr = cJSON_GetObjectItemCaseSensitive(report, "case_pass_rates"), *c, *s;
    const cJSON *systems = cJSON_GetObjectItemCaseSensitive(report, "systems");
    int worst = strcmp(md_str(cr, "order"), "worst_first") == 0;
    enum arb_status st;

    if (!cr || md_num(cr, "cases") <= 0)
        return ARB_OK;
    if (worst && md_num(cr, "listed") <= 0)
        return arb_buf_printf(out,
                              "## Expectations per case\n\nEvery system passed every decided "
                              "expectation of all %.0f cases.\n\n",
                              md_num(cr, "cases"));
    st = worst ? arb_buf_printf(out,
                                "## Expectations per case\n\nThe %.0f cases (of %.0f) where "
                                "a system failed an expectation, lowest pass rate first "
                                "(every case: --format json).\n\n",
                                md_num(cr, "listed"), md_num(cr, "cases"))
               : arb_buf_adds(out, "## Expectations per case\n\n");
    if (!st)
        st = system_columns(systems, "Case", out);
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cr, "items"))
    {
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, md_str(c, "case"));
        if (!st)
            st = arb_buf_adds(out, " |");
        cJSON_ArrayForEach(s, systems)
        {
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(c, "systems"), md_str(s, "name"));
            char a[32];

            md_cell(a, sizeof(a), md_num(e, "pass_rate"), 0, 1);
            if (st)
                break;
            st = e ? arb_buf_printf(out, " %s (%.0f/%.0f) |", a, md_num(e, "passed"),
                                    md_num(e, "passed") + md_num(e, "failed"))
                   : arb_buf_adds(out, " - |");
        }
        if (!st)
            st = arb_buf_adds(out, "\n");
    }
    return st ? st : arb_buf_adds(out, "\n");
}

/* Row against column for three or more systems (report "win_matrix"). */
static enum arb_status matrix_section(const cJSON *report, struct arb_buf *out)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(report, "win_matrix"), *n;
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(m, "systems");
    int k = cJSON_GetArraySize(names), i = 0;
    enum arb_status st;

    if (k < 3)
        return ARB_OK;
    st = arb_buf_adds(out, "## Pairwise wins\n\nRow against column: wins-losses-ties over "
                           "their decided cases, and the row's win rate (ties half).\n\n");
    /* The matrix's systems are the report's, in the same order. */
    if (!st)
        st = system_columns(cJSON_GetObjectItemCaseSensitive(report, "systems"), "", out);
    cJSON_ArrayForEach(n, names)
    {
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, cJSON_IsString(n) ? n->valuestring : "");
        if (!st)
            st = arb_buf_adds(out, " |");
        for (int j = 0; !st && j < k; j++) {
            char c[32];

            md_cell(c, sizeof(c), report_matrix_at(m, "win_rate", i, j), 1, 1);
            st = i == j ? arb_buf_adds(out, " - |")
                        : arb_buf_printf(out, " %.0f-%.0f-%.0f (%s) |",
                                         report_matrix_at(m, "wins", i, j),
                                         report_matrix_at(m, "losses", i, j),
                                         report_matrix_at(m, "ties", i, j), c);
        }
        if (!st)
            st = arb_buf_adds(out, "\n");
        i++;
    }
    return st ? st : arb_buf_adds(out, "\n");
}

/* "winner" of an outcome, else its status. */
static const char *outcome(const cJSON *o)
{
    return *md_str(o, "winner") ? md_str(o, "winner") : md_str(o, "status");
}

#define CHANGES_IN_MARKDOWN 50

/* Which verdicts changed against another run (report "against"). */
static enum arb_status against_section(const cJSON *report, struct arb_buf *out)
{
    const cJSON *ag = cJSON_GetObjectItemCaseSensitive(report, "against"), *t, *c;
    enum arb_status st;
    int n = 0;

    if (!ag)
        return ARB_OK;
    st = arb_buf_printf(out,
                        "## Changes against run %.0f\n\n%.0f of %.0f verdicts changed (%.0f only "
                        "in this run, %.0f only in run %.0f).\n\n",
                        md_num(ag, "run"), md_num(ag, "changed"), md_num(ag, "compared"),
                        md_num(ag, "only_in_this_run"), md_num(ag, "only_in_other_run"),
                        md_num(ag, "run"));
    if (!st && md_num(ag, "changed") > 0)
        st = arb_buf_printf(out, "| Run %.0f -> this run | Verdicts |\n|---|---:|\n",
                            md_num(ag, "run"));
    cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(ag, "transitions"))
    {
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, t->string);
        if (!st)
            st = arb_buf_printf(out, " | %.0f |\n", t->valuedouble);
    }
    if (!st && md_num(ag, "changed") > 0)
        st = arb_buf_printf(out, "\n| Case | Pair | Run %.0f | This run |\n|---|---|---|---|\n",
                            md_num(ag, "run"));
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(ag, "changes"))
    {
        if (st || n++ == CHANGES_IN_MARKDOWN)
            break;
        st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text(out, md_str(c, "case"));
        if (!st)
            st = arb_buf_adds(out, " | ");
        if (!st)
            st = md_text(out, md_str(c, "system_a"));
        if (!st)
            st = arb_buf_adds(out, " vs ");
        if (!st)
            st = md_text(out, md_str(c, "system_b"));
        if (!st)
            st = arb_buf_adds(out, " | ");
        if (!st)
            st = md_text(out, outcome(cJSON_GetObjectItemCaseSensitive(c, "before")));
        if (!st)
            st = arb_buf_adds(out, " | ");
        if (!st)
            st = md_text(out, outcome(cJSON_GetObjectItemCaseSensitive(c, "after")));
        if (!st)
            st = arb_buf_adds(out, " |\n");
    }
    if (!st && md_num(ag, "changed") > CHANGES_IN_MARKDOWN)
        st = arb_buf_printf(out, "\n... %.0f more (--format json lists up to 1000).\n",
                            md_num(ag, "changed") - CHANGES_IN_MARKDOWN);
    return st ? st : arb_buf_adds(out, "\n");
}

/* The judge's cost, when its config has a price: the total, per judged case, the costliest. */
static enum arb_status cost_lines(const cJSON *report, struct arb_buf *out)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(report, "judge_cost"), *k;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(c, "price_per_million_tokens");
    int first = 1;
    enum arb_status st;

    if (!c)
        return ARB_OK;
    st = arb_buf_printf(out,
                        "Judge cost: $%.4f for %.0f requests this run sent (%.0f prompt tokens, "
                        "%.0f of them cached, %.0f completion tokens), %.0f judged cases, $%.4f "
                        "per judged case; at $%g / $%g / $%g per million input / cached input / "
                        "output tokens.",
                        md_num(c, "total"), md_num(c, "requests"), md_num(c, "prompt_tokens"),
                        md_num(c, "cached_tokens"), md_num(c, "completion_tokens"),
                        md_num(c, "judged_cases"), md_num(c, "mean_per_judged_case"),
                        md_num(p, "input"), md_num(p, "cached_input"), md_num(p, "output"));
    cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(c, "costliest"))
    {
        if (!st)
            st = arb_buf_adds(out, first ? " Costliest cases: " : ", ");
        first = 0;
        if (!st)
            st = md_text(out, md_str(k, "case"));
        if (!st)
            st = arb_buf_printf(out, " $%.4f", md_num(k, "cost"));
    }
    return st ? st : arb_buf_adds(out, "\n\n");
}

/* Why the judge failed: each reason with its judgments and the first of its cases. */
static enum arb_status failures_table(const cJSON *h, struct arb_buf *out)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(h, "judge_failures"), *f, *id;
    const cJSON *more = cJSON_GetObjectItemCaseSensitive(h, "judge_failures_more");
    enum arb_status st;

    if (cJSON_GetArraySize(list) <= 0)
        return ARB_OK;
    st = arb_buf_adds(out, "### Judge failures\n\nWhy the judge gave no valid answer, most "
                           "frequent first (`arbiter show RUN CASE` shows each judgment).\n\n"
                           "| Reason | Judgments | Cases (first few) |\n|---|---:|---|\n");
    cJSON_ArrayForEach(f, list)
    {
        const cJSON *ids = cJSON_GetObjectItemCaseSensitive(f, "case_ids");
        int first = 1;

        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = md_text_cut(out, md_str(f, "reason"), MAX_REASON_BYTES);
        if (!st)
            st = arb_buf_printf(out, " | %.0f | %.0f:", md_num(f, "count"), md_num(f, "cases"));
        cJSON_ArrayForEach(id, ids)
        {
            if (!st)
                st = arb_buf_adds(out, first ? " " : ", ");
            first = 0;
            if (!st)
                st = md_text(out, cJSON_IsString(id) ? id->valuestring : "");
        }
        if (!st && md_num(f, "cases") > cJSON_GetArraySize(ids))
            st = arb_buf_adds(out, ", ...");
        if (!st)
            st = arb_buf_adds(out, " |\n");
    }
    if (!st && more)
        st = arb_buf_printf(out, "\nAnd %.0f more reasons (%.0f judgments).\n",
                            md_num(more, "reasons"), md_num(more, "count"));
    return st ? st : arb_buf_adds(out, "\n");
}

static enum arb_status health_section(const cJSON *report, struct arb_buf *out)
{
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(report, "judge_health");
    static const char *const rates[] = {"escalation_rate",         "position_inconsistent_rate",
                                        "first_position_win_rate", "tie_rate",
                                        "longer_output_won_rate",  "sample_agreement"};
    char v[32];
    size_t i;
    enum arb_status st;

    if (!h)
        return ARB_OK;
    st =
        arb_buf_printf(out,
                       "## Judge health\n\n| Measure | Value |\n|---|---:|\n"
                       "| escalated cases | %.0f |\n| requests | %.0f |\n| cache hits | %.0f |\n"
                       "| invalid replies | %.0f |\n| judge_failed | %.0f |\n"
                       "| judge_refused | %.0f |\n",
                       md_num(h, "escalated_cases"), md_num(h, "requests"), md_num(h, "cache_hits"),
                       md_num(h, "invalid_replies"), md_num(h, "judge_failed"),
                       isnan(md_num(h, "judge_refused")) ? 0 : md_num(h, "judge_refused"));
    for (i = 0; !st && i < sizeof(rates) / sizeof(rates[0]); i++) {
        md_cell(v, sizeof(v), md_num(h, rates[i]), 1, 1);
        st = arb_buf_printf(out, "| %s | %s |\n", rates[i], v);
    }
    if (!st)
        st = arb_buf_printf(out, "| calibration | %s |\n\n", md_str(h, "calibration"));
    if (!st)
        st = failures_table(h, out);
    if (!st)
        st = cost_lines(report, out);
    return st;
}

static enum arb_status (*const sections[])(const cJSON *report, struct arb_buf *out) = {
    systems_table, matrix_section,     against_section,  md_statistics, md_strategies,
    rubric_table,  expectations_table, case_rates_table, md_trials,     health_section,
};

/* Under the case counts: the judge's most frequent reason of failure, when it failed. */
static enum arb_status top_failure(const cJSON *report, struct arb_buf *out)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(report, "judge_health"), "judge_failures");
    const cJSON *f = cJSON_GetArrayItem(list, 0);
    int n = cJSON_GetArraySize(list);
    enum arb_status st;

    if (!f)
        return ARB_OK;
    st = arb_buf_adds(out,
                      n > 1 ? "Most frequent reason the judge failed: " : "Why the judge failed: ");
    if (!st)
        st = md_text_cut(out, md_str(f, "reason"), MAX_REASON_BYTES);
    if (!st)
        st = arb_buf_printf(out, " (%.0f judgments in %.0f cases)%s.\n\n", md_num(f, "count"),
                            md_num(f, "cases"),
                            n > 1 ? "; every reason is under Judge failures" : "");
    return st;
}

/* Under the header: the report covers a selection of the run's cases (--limit, --cases). */
static enum arb_status scope_note(const cJSON *report, struct arb_buf *out)
{
    const cJSON *scope = cJSON_GetObjectItemCaseSensitive(report, "scope");
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(scope, "limit");
    int named = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(scope, "cases"));
    enum arb_status st;

    if (!scope)
        return ARB_OK;
    st = arb_buf_printf(out, "A selection of the run's cases:");
    if (!st && named)
        st = arb_buf_printf(out, " %d named (--cases)%s", named, limit ? "," : "");
    if (!st && limit)
        st = arb_buf_printf(out, " the first %.0f (--limit)", limit->valuedouble);
    if (!st)
        st = arb_buf_printf(out, "; every figure below is of these %.0f cases only.\n\n",
                            md_num(report, "cases"));
    return st;
}

enum arb_status arb_report_markdown(const cJSON *report, struct arb_buf *out)
{
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(report, "run"), *p;
    enum arb_status st;

    st = arb_buf_adds(out, "# Arbiter report: ");
    if (!st)
        st = md_text(out, md_str(run, "suite"));
    if (!st)
        st = arb_buf_printf(out,
                            "\n\nRun %.0f (%s, %s), seed %.0f.\n\n"
                            "Cases: %.0f - decided %.0f, pending the judge %.0f, missing an "
                            "output %.0f.\n\n",
                            md_num(run, "id"), md_str(run, "status"), md_str(run, "created_at"),
                            md_num(run, "seed"), md_num(report, "cases"), md_num(report, "decided"),
                            md_num(report, "pending_judge"), md_num(report, "missing_output"));
    if (!st)
        st = scope_note(report, out);
    if (!st && md_num(report, "judge_failed") > 0)
        st = arb_buf_printf(out,
                            "The judge could not answer %.0f cases (judge_failed): they "
                            "count as undecided.\n\n",
                            md_num(report, "judge_failed"));
    if (!st && md_num(report, "judge_refused") > 0)
        st = arb_buf_printf(out,
                            "The judge refused %.0f cases (judge_refused: a refusal or a "
                            "content filter): they count as undecided.\n\n",
                            md_num(report, "judge_refused"));
    if (!st)
        st = top_failure(report, out);
    if (!st) {
        const cJSON *ju = cJSON_GetObjectItemCaseSensitive(report, "judge_usage");
        const cJSON *jc = cJSON_GetObjectItemCaseSensitive(run, "judge");

        if (jc)
            st = arb_buf_printf(out,
                                "Judge: %s (config %.12s): %.0f judgments, %.0f from the "
                                "cache, %.0f invalid replies, ",
                                md_str(jc, "model"), md_str(jc, "hash"), md_num(ju, "judgments"),
                                md_num(ju, "cached"), md_num(ju, "invalid_replies"));
        /* A command judge is a program, not a metered API: it reports no tokens. */
        if (jc && !st && strcmp(md_str(jc, "provider"), "command") == 0)
            st = arb_buf_adds(out, "tokens not reported (a command judge).\n\n");
        else if (jc && !st)
            st = arb_buf_printf(out, "%.0f + %.0f tokens.\n\n", md_num(ju, "prompt_tokens"),
                                md_num(ju, "completion_tokens"));
        else if (!jc && !st)
            st = arb_buf_adds(out, "No judge: unresolved cases stay pending.\n\n");
    }
    /* The sections in page order; each writes nothing when the report lacks its part. */
    for (size_t i = 0; !st && i < sizeof(sections) / sizeof(sections[0]); i++)
        st = sections[i](report, out);
    if (!st && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "gates"))) {
        const cJSON *g;

        st = arb_buf_printf(out, "## Gates (candidate: %s)\n\n", md_str(report, "candidate"));
        cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(report, "gates"))
        {
            if (!st)
                st = arb_buf_printf(out, "- %s: %s\n", md_str(g, "gate"),
                                    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "passed"))
                                        ? "passed"
                                        : "FAILED");
        }
        if (!st)
            st = arb_buf_adds(out, "\n");
    }
    if (!st && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "problems")))
        st = arb_buf_adds(out, "## Problems found while loading\n\n");
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(report, "problems"))
    {
        if (!st)
            st = arb_buf_printf(out, "- %s: ", md_str(p, "kind"));
        if (!st)
            st = md_text(out, md_str(p, "message"));
        if (!st && *md_str(p, "system"))
            st = arb_buf_printf(out, " (system %s)", md_str(p, "system"));
        if (!st)
            st = arb_buf_adds(out, "\n");
    }
    return st;
}
