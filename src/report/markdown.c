/*
 * markdown.c - the report object as markdown tables (see report.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arbiter/report.h"

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

/* A table cell: "-" for a missing value, else the value with the given decimals. */
static void cell(char *out, size_t len, double v, int decimals, int percent)
{
    if (isnan(v))
        snprintf(out, len, "-");
    else if (percent)
        snprintf(out, len, "%.*f%%", decimals, 100.0 * v);
    else
        snprintf(out, len, "%.*f", decimals, v);
}

/* Markdown-safe text: pipes and newlines would break a table row. */
static enum arb_status add_text(struct arb_buf *out, const char *s)
{
    enum arb_status st = ARB_OK;

    for (; !st && *s; s++) {
        if (*s == '|')
            st = arb_buf_adds(out, "\\|");
        else if (*s == '\n' || *s == '\r')
            st = arb_buf_addc(out, ' ');
        else
            st = arb_buf_addc(out, *s);
    }
    return st;
}

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

        cell(a, sizeof(a), num(s, "win_rate"), 1, 1);
        cell(b, sizeof(b), num(s, "win_rate_without_ties"), 1, 1);
        cell(c, sizeof(c), num(e, "pass_rate"), 1, 1);
        cell(d, sizeof(d), num(s, "overall_score"), 2, 0);
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = add_text(out, str(s, "name"));
        if (!st)
            st = arb_buf_printf(out, " | %.0f | %.0f | %.0f | %s | %s | %s (%.0f/%.0f) | %s |\n",
                                num(s, "wins"), num(s, "losses"), num(s, "ties"), a, b, c,
                                num(e, "passed"), num(e, "passed") + num(e, "failed"), d);
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
    st = arb_buf_adds(out, "## Mean rubric scores (1-5)\n\n| Criterion |");
    cJSON_ArrayForEach(s, systems)
    {
        if (!st)
            st = arb_buf_addc(out, ' ');
        if (!st)
            st = add_text(out, str(s, "name"));
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
    if (!st)
        st = arb_buf_adds(out, "\n");
    for (k = 0; !st && k < 2; k++) {
        const cJSON *dim = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(first, "rubric"), dims[k]);

        cJSON_ArrayForEach(c, dim)
        {
            if (!st)
                st = arb_buf_printf(out, "| %s: ", dims[k]);
            if (!st)
                st = add_text(out, c->string);
            if (!st)
                st = arb_buf_adds(out, " |");
            cJSON_ArrayForEach(s, systems)
            {
                const cJSON *sd = cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetObjectItemCaseSensitive(s, "rubric"), dims[k]);

                cell(v, sizeof(v), num(sd, c->string), 2, 0);
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
    st = arb_buf_adds(out, "## Expectations\n\n| Expectation |");
    cJSON_ArrayForEach(s, systems)
    {
        if (!st)
            st = arb_buf_addc(out, ' ');
        if (!st)
            st = add_text(out, str(s, "name"));
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
    if (!st)
        st = arb_buf_adds(out, "\n");
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "expectations"))
    {
        if (!st)
            st = arb_buf_adds(out, "| ");
        if (!st)
            st = add_text(out, str(e, "id"));
        if (!st)
            st = arb_buf_adds(out, " |");
        cJSON_ArrayForEach(s, systems)
        {
            const cJSON *c = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(e, "systems"), str(s, "name"));
            char v[32];

            cell(v, sizeof(v), num(c, "pass_rate"), 1, 1);
            if (!st && !c)
                st = arb_buf_adds(out, " - |");
            else if (!st && num(c, "unresolved") > 0)
                st = arb_buf_printf(out, " %s (%.0f/%.0f, %.0f unresolved) |", v,
                                    num(c, "passed"), num(c, "passed") + num(c, "failed"),
                                    num(c, "unresolved"));
            else if (!st)
                st = arb_buf_printf(out, " %s (%.0f/%.0f) |", v, num(c, "passed"),
                                    num(c, "passed") + num(c, "failed"));
        }
        if (!st)
            st = arb_buf_adds(out, "\n");
    }
    return st ? st : arb_buf_adds(out, "\n");
}

enum arb_status arb_report_markdown(const cJSON *report, struct arb_buf *out)
{
    const cJSON *run = cJSON_GetObjectItemCaseSensitive(report, "run"), *p;
    enum arb_status st;

    st = arb_buf_adds(out, "# Arbiter report: ");
    if (!st)
        st = add_text(out, str(run, "suite"));
    if (!st)
        st = arb_buf_printf(out,
                            "\n\nRun %.0f (%s, %s), seed %.0f.\n\n"
                            "Cases: %.0f - decided %.0f, pending the judge %.0f, missing an "
                            "output %.0f.\n\n",
                            num(run, "id"), str(run, "status"), str(run, "created_at"),
                            num(run, "seed"), num(report, "cases"), num(report, "decided"),
                            num(report, "pending_judge"), num(report, "missing_output"));
    if (!st && num(report, "judge_failed") > 0)
        st = arb_buf_printf(out, "The judge could not answer %.0f cases (judge_failed): they "
                                 "count as undecided.\n\n",
                            num(report, "judge_failed"));
    if (!st) {
        const cJSON *ju = cJSON_GetObjectItemCaseSensitive(report, "judge_usage");
        const cJSON *jc = cJSON_GetObjectItemCaseSensitive(run, "judge");

        if (jc)
            st = arb_buf_printf(out, "Judge: %s (config %.12s): %.0f judgments, %.0f from the "
                                     "cache, %.0f invalid replies, %.0f + %.0f tokens.\n\n",
                                str(jc, "model"), str(jc, "hash"), num(ju, "judgments"),
                                num(ju, "cached"), num(ju, "invalid_replies"),
                                num(ju, "prompt_tokens"), num(ju, "completion_tokens"));
        else
            st = arb_buf_adds(out, "No judge: unresolved cases stay pending.\n\n");
    }
    if (!st)
        st = systems_table(report, out);
    if (!st)
        st = rubric_table(report, out);
    if (!st)
        st = expectations_table(report, out);
    if (!st && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(report, "problems")))
        st = arb_buf_adds(out, "## Problems found while loading\n\n");
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(report, "problems"))
    {
        if (!st)
            st = arb_buf_printf(out, "- %s: ", str(p, "kind"));
        if (!st)
            st = add_text(out, str(p, "message"));
        if (!st && *str(p, "system"))
            st = arb_buf_printf(out, " (system %s)", str(p, "system"));
        if (!st)
            st = arb_buf_adds(out, "\n");
    }
    return st;
}
