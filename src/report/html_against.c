/*
 * html_against.c - two tables of the HTML report between runs and systems:
 * which verdicts changed from another run (report.h arb_report_add_against)
 * and the pairwise win matrix of three or more systems.
 */
#include <math.h>

#include "html_int.h"
#include "report_int.h"

#define CHANGES_IN_HTML 200

static const char *outcome(const cJSON *o)
{
    return *html_str(o, "winner") ? html_str(o, "winner") : html_str(o, "status");
}

void html_against(struct html *h, const cJSON *report)
{
    const cJSON *ag = html_get(report, "against"), *t, *c;
    int n = 0;

    if (!cJSON_IsObject(ag))
        return;
    html_printf(h,
                "<section class=\"card\" id=\"against\">\n<h2>Changes against run %.0f</h2>\n"
                "<p class=\"note\">%.0f of %.0f verdicts changed (%.0f only in this run, %.0f "
                "only in run %.0f).</p>\n",
                html_num(ag, "run"), html_num(ag, "changed"), html_num(ag, "compared"),
                html_num(ag, "only_in_this_run"), html_num(ag, "only_in_other_run"),
                html_num(ag, "run"));
    if (cJSON_GetArraySize(html_get(ag, "changes")) <= 0) {
        html_raw(h, "</section>\n");
        return;
    }
    html_printf(h,
                "<div class=\"table-wrap\"><table id=\"transitions-table\">\n<thead><tr>"
                "<th>Run %.0f &rarr; this run</th><th class=\"n\">Verdicts</th></tr></thead>"
                "\n<tbody>\n",
                html_num(ag, "run"));
    cJSON_ArrayForEach(t, html_get(ag, "transitions"))
    {
        html_raw(h, "<tr><td>");
        html_text(h, t->string);
        html_printf(h, "</td><td class=\"n\">%.0f</td></tr>\n", t->valuedouble);
    }
    html_printf(h,
                "</tbody></table></div>\n<div class=\"table-wrap\"><table id=\"changes-table\">"
                "\n<thead><tr><th>Case</th><th>Pair</th><th>Run %.0f</th><th>This run</th>"
                "</tr></thead>\n<tbody>\n",
                html_num(ag, "run"));
    cJSON_ArrayForEach(c, html_get(ag, "changes"))
    {
        if (n++ == CHANGES_IN_HTML)
            break;
        html_raw(h, "<tr><td>");
        html_text(h, html_str(c, "case"));
        html_raw(h, "</td><td>");
        html_text(h, html_str(c, "system_a"));
        html_raw(h, " vs ");
        html_text(h, html_str(c, "system_b"));
        html_raw(h, "</td><td>");
        html_text(h, outcome(html_get(c, "before")));
        html_raw(h, "</td><td>");
        html_text(h, outcome(html_get(c, "after")));
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n</section>\n");
}

/* The Bradley-Terry ratings of --strategy statistical, when the report has them. */
static void bradley_terry(struct html *h, const cJSON *report)
{
    const cJSON *bt = html_get(report, "bradley_terry"), *x;

    if (cJSON_GetArraySize(bt) <= 0)
        return;
    html_raw(h, "<h3>Bradley-Terry ratings</h3>\n<p class=\"note\">Log-strengths fitted by "
                "maximum likelihood to every decided game (mean 0; a difference d means the "
                "first wins with odds e<sup>d</sup>), with 95% bootstrap intervals.</p>\n"
                "<div class=\"table-wrap\"><table id=\"bt-table\">\n<thead><tr><th>System</th>"
                "<th class=\"n\">Rating</th><th class=\"n\">Median</th>"
                "<th class=\"n\">95% interval</th></tr></thead>\n"
                "<tbody>\n");
    cJSON_ArrayForEach(x, bt)
    {
        double lo, hi;
        int i = html_system_index(report, html_str(x, "system"));

        html_printf(h, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>",
                    html_color(i < 0 ? 0 : i));
        html_text(h, html_str(x, "system"));
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "rating"), 3, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(x, "bootstrap_median"), 3, 0);
        html_raw(h, "</td><td class=\"n\">");
        if (html_interval(x, "interval", &lo, &hi)) {
            html_range(h, lo, hi, 3, 0);
        } else {
            html_raw(h, "&ndash;");
        }
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n");
}

void html_win_matrix(struct html *h, const cJSON *report)
{
    const cJSON *m = html_get(report, "win_matrix"), *names = html_get(m, "systems"), *n;
    int k = cJSON_GetArraySize(names), i = 0;

    if (k < 3)
        return;
    html_raw(h, "<section class=\"card\" id=\"matrix\">\n<h2>Pairwise wins</h2>\n<p class=\"note\">"
                "Row against column: the row's win rate over their decided cases (ties half), "
                "and wins&ndash;losses&ndash;ties. Greener is better for the row.</p>\n"
                "<div class=\"table-wrap\"><table id=\"matrix-table\">\n<thead><tr><th></th>");
    cJSON_ArrayForEach(n, names)
    {
        html_raw(h, "<th class=\"n\">");
        html_text(h, cJSON_IsString(n) ? n->valuestring : "");
        html_raw(h, "</th>");
    }
    html_raw(h, "</tr></thead>\n<tbody>\n");
    cJSON_ArrayForEach(n, names)
    {
        html_printf(h, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>",
                    html_color(i));
        html_text(h, cJSON_IsString(n) ? n->valuestring : "");
        html_raw(h, "</td>");
        for (int j = 0; j < k; j++) {
            double r = report_matrix_at(m, "win_rate", i, j);

            if (i == j || isnan(r)) {
                html_raw(h, "<td class=\"n\">&ndash;</td>");
                continue;
            }
            /* Red (0) through white (0.5) to green (1). */
            html_printf(h, "<td class=\"n\" style=\"background:rgba(%s,%.2f)\">",
                        r >= 0.5 ? "58,154,107" : "192,80,77", fabs(r - 0.5) * 1.2);
            html_number(h, r, 1, 1);
            html_printf(h, "<br><span class=\"ci\">%.0f&ndash;%.0f&ndash;%.0f</span></td>",
                        report_matrix_at(m, "wins", i, j), report_matrix_at(m, "losses", i, j),
                        report_matrix_at(m, "ties", i, j));
        }
        html_raw(h, "</tr>\n");
        i++;
    }
    html_raw(h, "</tbody></table></div>\n");
    bradley_terry(h, report);
    html_raw(h, "</section>\n");
}
