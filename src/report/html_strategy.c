/*
 * html_strategy.c - the report strategies weighted, custom and hybrid in the
 * HTML report (weighted.c, custom.c): one card each with its table; the
 * custom grader's card lists its rankings and reasoning for every case.
 */
#include <math.h>
#include <string.h>

#include "strategy_int.h"

static void weighted_card(struct html *h, const cJSON *report)
{
    const cJSON *w = html_get(report, "weights"), *x;

    if (!cJSON_IsObject(w))
        return;
    html_printf(h,
                "<section class=\"card\" id=\"weighted\">\n<h2>Weighted</h2>\n<p class=\"note\">"
                "quality &times; %.2f + latency &times; %.2f + reliability &times; %.2f",
                html_num(w, "quality"), html_num(w, "latency"), html_num(w, "reliability"));
    if (*html_str(w, "notice")) {
        html_raw(h, "<br>Note: ");
        html_text(h, html_str(w, "notice"));
    }
    if (*html_str(html_get(report, "weighted_quality"), "notice")) {
        html_raw(h, "<br>Note: ");
        html_text(h, html_str(html_get(report, "weighted_quality"), "notice"));
    }
    html_raw(h, "</p>\n<div class=\"table-wrap\"><table id=\"weighted-table\">\n<thead><tr>"
                "<th>System</th><th class=\"n\">Quality</th><th>Quality from</th>"
                "<th class=\"n\">Mean duration (ms)</th><th class=\"n\">Latency</th>"
                "<th class=\"n\">Reliability</th><th class=\"n\">Score</th></tr></thead>\n"
                "<tbody>\n");
    cJSON_ArrayForEach(x, html_get(report, "weighted"))
    {
        html_raw(h, "<tr><td>");
        html_text(h, html_str(x, "system"));
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "quality"), 3, 0);
        html_printf(h, "</td><td>%s (%.0f/%.0f outputs scored)</td><td class=\"n\">",
                    strcmp(html_str(x, "quality_source"), "prior_score") == 0 ? "prior score"
                                                                              : "rubric",
                    html_num(x, "prior_scores"), html_num(x, "outputs"));
        html_number(h, html_num(x, "mean_duration_ms"), 0, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "latency"), 3, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "reliability"), 3, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "score"), 3, 0);
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n</section>\n");
}

static void custom_cases(struct html *h, const cJSON *cases)
{
    const cJSON *k, *r;

    html_raw(h, "<div class=\"table-wrap\"><table id=\"custom-cases\">\n<thead><tr><th>Case</th>"
                "<th>Rankings</th><th>Reasoning</th></tr></thead>\n<tbody>\n");
    cJSON_ArrayForEach(k, cases)
    {
        const cJSON *rankings = html_get(k, "rankings");

        html_raw(h, "<tr><td>");
        html_text(h, html_str(k, "case"));
        html_raw(h, "</td><td>");
        cJSON_ArrayForEach(r, rankings)
        {
            html_printf(h, "%s%.0f. ", r == rankings->child ? "" : "<br>", html_num(r, "rank"));
            html_text(h, html_str(r, "run"));
            html_printf(h, " <span class=\"ci\">%.3f</span>", html_num(r, "score"));
        }
        html_raw(h, "</td><td>");
        html_text(h, html_str(k, "reasoning"));
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n");
}

static void custom_card(struct html *h, const cJSON *report)
{
    const cJSON *c = html_get(report, "custom"), *x;

    if (!cJSON_IsObject(c))
        return;
    html_raw(h, "<section class=\"card\" id=\"custom\">\n<h2>Custom grader</h2>\n"
                "<p class=\"note\">Ranked case by case by <code>");
    cJSON_ArrayForEach(x, html_get(c, "grader"))
    {
        if (x != html_get(c, "grader")->child)
            html_raw(h, " ");
        html_text(h, cJSON_IsString(x) ? x->valuestring : "");
    }
    html_raw(h, "</code>.</p>\n<div class=\"table-wrap\"><table id=\"custom-table\">\n<thead><tr>"
                "<th>System</th><th class=\"n\">Cases ranked</th><th class=\"n\">Mean score</th>"
                "<th class=\"n\">Mean rank</th><th class=\"n\">Ranked first</th></tr></thead>\n"
                "<tbody>\n");
    cJSON_ArrayForEach(x, html_get(c, "systems"))
    {
        html_raw(h, "<tr><td>");
        html_text(h, html_str(x, "system"));
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "cases"), 0, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "mean_score"), 3, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "mean_rank"), 2, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "firsts"), 0, 0);
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n");
    custom_cases(h, html_get(c, "cases"));
    html_raw(h, "</section>\n");
}

static void hybrid_card(struct html *h, const cJSON *report)
{
    const cJSON *y = html_get(report, "hybrid"), *x;

    if (!cJSON_IsObject(y))
        return;
    html_printf(h,
                "<section class=\"card\" id=\"hybrid\">\n<h2>Hybrid</h2>\n<p class=\"note\">"
                "weighted &times; %.2f + custom grader &times; %.2f</p>\n"
                "<div class=\"table-wrap\"><table id=\"hybrid-table\">\n<thead><tr><th>System</th>"
                "<th class=\"n\">Weighted</th><th class=\"n\">Custom grader</th>"
                "<th class=\"n\">Score</th></tr></thead>\n<tbody>\n",
                html_num(y, "weighted_weight"), html_num(y, "custom_weight"));
    cJSON_ArrayForEach(x, html_get(y, "systems"))
    {
        html_raw(h, "<tr><td>");
        html_text(h, html_str(x, "system"));
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "weighted"), 3, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "custom"), 3, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "score"), 3, 0);
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n</section>\n");
}

void html_strategies(struct html *h, const cJSON *report)
{
    weighted_card(h, report);
    custom_card(h, report);
    hybrid_card(h, report);
}
