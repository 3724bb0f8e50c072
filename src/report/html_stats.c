/*
 * html_stats.c - the statistics card of the HTML report (the statistical
 * strategy, statistics.c): per system each figure with the median of its
 * bootstrap resamples and its 95% interval, mean latency among them, and the
 * one-line significance reasoning of each pair.  The paired tests' table is
 * the pairs chart's (html_chart.c); html.c places this card.
 */
#include <math.h>

#include "html_int.h"

/* The value, with "median m" and "lo – hi" under it in small type when the statistics have them. */
static void figure(struct html *h, double v, const cJSON *median, const cJSON *intervals,
                   const char *key, int decimals, int percent)
{
    html_raw(h, "<td class=\"n\">");
    html_number(h, v, decimals, percent);
    if (cJSON_IsNumber(html_get(median, key))) {
        html_raw(h, "<br><span class=\"ci\">median ");
        html_number(h, html_num(median, key), decimals, percent);
        html_raw(h, "</span>");
    }
    html_interval_note(h, intervals, key, decimals, percent);
    html_raw(h, "</td>");
}

static void systems_rows(struct html *h, const cJSON *report)
{
    const cJSON *s;
    int i = 0;

    cJSON_ArrayForEach(s, html_get(report, "systems"))
    {
        const cJSON *iv = html_get(s, "intervals"), *md = html_get(s, "bootstrap_median");

        html_printf(h, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>",
                    html_color(i++));
        html_text(h, html_str(s, "name"));
        html_raw(h, "</td>");
        figure(h, html_num(s, "win_rate"), md, iv, "win_rate", 1, 1);
        figure(h, html_num(html_get(s, "expectations"), "pass_rate"), md, iv, "pass_rate", 1, 1);
        figure(h, html_num(s, "overall_score"), md, iv, "overall_score", 2, 0);
        figure(h, html_num(html_get(s, "latency_ms"), "mean"), md, iv, "latency_ms", 0, 0);
        html_raw(h, "</tr>\n");
    }
}

void html_statistics(struct html *h, const cJSON *report)
{
    const cJSON *p;

    if (!cJSON_IsObject(html_get(report, "statistics")))
        return;
    html_printf(
        h,
        "<section class=\"card\" id=\"statistics\">\n<h2>Statistics</h2>\n"
        "<p class=\"note\">%.0f bootstrap resamples of the cases (seed %.0f): each "
        "figure with, under it, the median of its resamples (the central estimate) "
        "and its 95%% interval, all from the one resampling; latency is the mean duration of the "
        "compared outputs, in ms.</p>\n"
        "<div class=\"table-wrap\"><table id=\"stats-table\">\n<thead><tr>"
        "<th>System</th><th class=\"n\">Win rate</th><th class=\"n\">Pass rate</th>"
        "<th class=\"n\">Overall</th><th class=\"n\">Latency (ms)</th>"
        "</tr></thead>\n<tbody>\n",
        html_num(html_get(report, "statistics"), "resamples"),
        html_num(html_get(report, "statistics"), "seed"));
    systems_rows(h, report);
    html_raw(h, "</tbody></table></div>\n");
    if (cJSON_GetArraySize(html_get(report, "pairs")) > 0)
        html_raw(h, "<h3>Significance per pair</h3>\n<ul id=\"pair-reasoning\">\n");
    cJSON_ArrayForEach(p, html_get(report, "pairs"))
    {
        html_raw(h, "<li><strong>");
        html_text(h, html_str(p, "a"));
        html_raw(h, " vs ");
        html_text(h, html_str(p, "b"));
        html_raw(h, "</strong>: ");
        html_text(h, html_str(p, "reasoning"));
        html_raw(h, "</li>\n");
    }
    if (cJSON_GetArraySize(html_get(report, "pairs")) > 0)
        html_raw(h, "</ul>\n");
    html_raw(h, "</section>\n");
}
