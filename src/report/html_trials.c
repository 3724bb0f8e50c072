/*
 * html_trials.c - the trials section of the HTML report: pass@k and pass^k
 * per system as lines over k (inline SVG), and the table behind them (with
 * the statistical strategy, each figure's bootstrap median and interval
 * under it); the trials' quality and performance per system.
 */
#include <math.h>

#include "html_int.h"

#define TW    1080.0 /* the chart's width, as the other charts */
#define TH    220.0  /* the plot's height */
#define LEFT  48.0
#define RIGHT 24.0
#define TOP   16.0

static double max_k(const cJSON *systems)
{
    const cJSON *s;
    double m = 1;

    cJSON_ArrayForEach(s, systems)
    {
        double k = (double)cJSON_GetArraySize(html_get(s, "k"));

        m = k > m ? k : m;
    }
    return m;
}

/* One system's line for key ("pass@k" or "pass^k"), dashed for pass^k. */
static void line(struct html *h, const cJSON *s, const char *key, const char *color, double kmax)
{
    const cJSON *e;
    double pw = TW - LEFT - RIGHT;
    int first = 1;

    html_printf(h, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"%s points=\"", color,
                key[4] == '^' ? " stroke-dasharray=\"6 4\"" : "");
    cJSON_ArrayForEach(e, html_get(s, "k"))
    {
        double k = html_num(e, "k"), v = html_num(e, key);
        double x = LEFT + (kmax > 1 ? pw * (k - 1) / (kmax - 1) : pw / 2);

        if (isnan(v) || isnan(k))
            continue;
        html_printf(h, "%s%.1f,%.1f", first ? "" : " ", x, TOP + TH * (1 - v));
        first = 0;
    }
    html_raw(h, "\"/>\n");
    cJSON_ArrayForEach(e, html_get(s, "k"))
    {
        double k = html_num(e, "k"), v = html_num(e, key);
        double x = LEFT + (kmax > 1 ? pw * (k - 1) / (kmax - 1) : pw / 2);

        if (isnan(v) || isnan(k))
            continue;
        html_printf(h, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>", x,
                    TOP + TH * (1 - v), color);
        html_text(h, html_str(s, "name"));
        html_printf(h, " %s, k = %.0f: %.3f</title></circle>\n", key, k, v);
    }
}

static void chart(struct html *h, const cJSON *report, const cJSON *systems)
{
    double kmax = max_k(systems), pw = TW - LEFT - RIGHT;
    const cJSON *s;

    html_printf(h,
                "<svg class=\"chart\" id=\"trials-chart\" viewBox=\"0 0 %.0f %.0f\" "
                "width=\"%.0f\" height=\"%.0f\" role=\"img\" aria-label=\"pass@k (solid) and "
                "pass^k (dashed) per system over k\">\n",
                TW, TOP + TH + 40, TW, TOP + TH + 40);
    for (int t = 0; t <= 4; t++) {
        double y = TOP + TH * (1 - t / 4.0);

        html_printf(h,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e4e7eb\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d%%</text>\n",
                    LEFT, y, LEFT + pw, y, LEFT - 8, y + 4, 25 * t);
    }
    for (int k = 1; k <= (int)kmax; k++)
        html_printf(h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">k=%d</text>\n",
                    LEFT + (kmax > 1 ? pw * (k - 1) / (kmax - 1) : pw / 2), TOP + TH + 24, k);
    cJSON_ArrayForEach(s, systems)
    {
        int i = html_system_index(report, html_str(s, "name"));
        const char *color = html_color(i < 0 ? 0 : i);

        line(h, s, "pass@k", color, kmax);
        line(h, s, "pass^k", color, kmax);
    }
    html_raw(h, "</svg>\n");
}

/* A value, with "median m" and its interval under it when the statistics have them. */
static void cell_of(struct html *h, double v, const cJSON *median, const cJSON *intervals,
                    const char *key, int decimals)
{
    html_raw(h, "<td class=\"n\">");
    html_number(h, v, decimals, 0);
    if (cJSON_IsNumber(median)) {
        html_raw(h, "<br><span class=\"ci\">median ");
        html_number(h, median->valuedouble, decimals, 0);
        html_raw(h, "</span>");
    }
    html_interval_note(h, intervals, key, decimals, 0);
    html_raw(h, "</td>");
}

static void cell(struct html *h, const cJSON *e, const char *key, const char *median_key,
                 const char *ci_key)
{
    cell_of(h, html_num(e, key), html_get(e, median_key), e, ci_key, 3);
}

static void name_cell(struct html *h, const cJSON *report, const cJSON *s)
{
    int i = html_system_index(report, html_str(s, "name"));

    html_printf(h, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>",
                html_color(i < 0 ? 0 : i));
    html_text(h, html_str(s, "name"));
    html_raw(h, "</td>");
}

/* The plain numbers of o's keys, one cell each. */
static void numbers(struct html *h, const cJSON *o, const char *const *keys, int decimals)
{
    for (; *keys; keys++) {
        html_raw(h, "<td class=\"n\">");
        html_number(h, html_num(o, *keys), decimals, 0);
        html_raw(h, "</td>");
    }
}

static void quality_table(struct html *h, const cJSON *report, const cJSON *systems)
{
    static const char *const keys[] = {"medianScore", "p25Score", "p75Score", NULL};
    const cJSON *s;
    int any = 0;

    cJSON_ArrayForEach(s, systems) any |= cJSON_IsObject(html_get(s, "quality"));
    if (!any)
        return;
    html_raw(h, "<h3>Quality</h3>\n<p class=\"note\">A trial's score: its output's own grader "
                "score, else the share of its checks passed; pooled over every trial. "
                "Percentiles interpolate between closest ranks.</p>\n"
                "<div class=\"table-wrap\"><table id=\"trials-quality\">\n<thead><tr>"
                "<th>System</th><th class=\"n\">Trials scored</th><th class=\"n\">Avg "
                "score</th><th class=\"n\">Median score</th><th class=\"n\">p25</th>"
                "<th class=\"n\">p75</th></tr></thead>\n<tbody>\n");
    cJSON_ArrayForEach(s, systems)
    {
        const cJSON *q = html_get(s, "quality");

        if (!cJSON_IsObject(q))
            continue;
        name_cell(h, report, s);
        numbers(h, q, (const char *const[]){"trials", NULL}, 0);
        cell_of(h, html_num(q, "avgScore"), html_get(html_get(q, "bootstrapMedian"), "avgScore"),
                html_get(q, "confidenceIntervals"), "avgScore", 3);
        numbers(h, q, keys, 3);
        html_raw(h, "</tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n");
}

static void performance_table(struct html *h, const cJSON *report, const cJSON *systems)
{
    static const char *const keys[] = {"p50", "p90", "p99", "min", "max", NULL};
    const cJSON *s;

    html_raw(h, "<h3>Performance</h3>\n<p class=\"note\">The trials' outputs' durations, in "
                "ms.</p>\n<div class=\"table-wrap\"><table id=\"trials-performance\">\n"
                "<thead><tr><th>System</th><th class=\"n\">Trials timed</th>"
                "<th class=\"n\">Mean</th><th class=\"n\">p50</th><th class=\"n\">p90</th>"
                "<th class=\"n\">p99</th><th class=\"n\">Min</th><th class=\"n\">Max</th>"
                "<th class=\"n\">Total</th></tr></thead>\n<tbody>\n");
    cJSON_ArrayForEach(s, systems)
    {
        const cJSON *p = html_get(s, "performance"), *l = html_get(p, "latency");

        name_cell(h, report, s);
        numbers(h, p, (const char *const[]){"trials", NULL}, 0);
        cell_of(h, html_num(l, "mean"), html_get(html_get(p, "bootstrapMedian"), "latencyMean"),
                html_get(p, "confidenceIntervals"), "latencyMean", 0);
        numbers(h, l, keys, 0);
        numbers(h, p, (const char *const[]){"totalDuration", NULL}, 0);
        html_raw(h, "</tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n");
}

void html_trials(struct html *h, const cJSON *report)
{
    const cJSON *t = html_get(report, "trials"), *systems = html_get(t, "systems"), *s, *e;

    if (cJSON_GetArraySize(systems) <= 0)
        return;
    html_raw(h, "<section class=\"card\" id=\"trials\">\n<h2>Trials: pass@k and pass^k</h2>\n"
                "<p class=\"note\">pass@k (solid): the chance that at least one of k trials "
                "passes every expectation; pass^k (dashed): that all k do. Unbiased estimators "
                "over each case's trials, averaged over the cases with at least k.</p>\n");
    chart(h, report, systems);
    html_raw(h, "<div class=\"table-wrap\"><table id=\"trials-table\">\n<thead><tr>"
                "<th>System</th><th class=\"n\">k</th><th class=\"n\">Cases</th>"
                "<th class=\"n\">pass@k</th><th class=\"n\">pass^k</th></tr></thead>\n<tbody>\n");
    cJSON_ArrayForEach(s, systems)
    {
        cJSON_ArrayForEach(e, html_get(s, "k"))
        {
            name_cell(h, report, s);
            html_printf(h, "<td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>", html_num(e, "k"),
                        html_num(e, "cases"));
            cell(h, e, "pass@k", "pass@k_bootstrap_median", "pass@k_ci");
            cell(h, e, "pass^k", "pass^k_bootstrap_median", "pass^k_ci");
            html_raw(h, "</tr>\n");
        }
    }
    html_raw(h, "</tbody></table></div>\n");
    quality_table(h, report, systems);
    performance_table(h, report, systems);
    html_raw(h, "</section>\n");
}
