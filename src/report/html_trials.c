/*
 * html_trials.c - the trials section of the HTML report: pass@k and pass^k
 * per system as lines over k (inline SVG), and the table behind them.
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

static void cell(struct html *h, const cJSON *e, const char *key, const char *ci_key)
{
    html_raw(h, "<td class=\"n\">");
    html_number(h, html_num(e, key), 3, 0);
    html_interval_note(h, e, ci_key, 3, 0);
    html_raw(h, "</td>");
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
        int i = html_system_index(report, html_str(s, "name"));

        cJSON_ArrayForEach(e, html_get(s, "k"))
        {
            html_printf(h, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>",
                        html_color(i < 0 ? 0 : i));
            html_text(h, html_str(s, "name"));
            html_printf(h, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td>",
                        html_num(e, "k"), html_num(e, "cases"));
            cell(h, e, "pass@k", "pass@k_ci");
            cell(h, e, "pass^k", "pass^k_ci");
            html_raw(h, "</tr>\n");
        }
    }
    html_raw(h, "</tbody></table></div>\n</section>\n");
}
