/*
 * html_against.c - the "against" section of the HTML report: which verdicts
 * changed from another run (report.h arb_report_add_against).
 */
#include "html_int.h"

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
    html_printf(h, "<div class=\"table-wrap\"><table id=\"transitions-table\">\n<thead><tr>"
                   "<th>Run %.0f &rarr; this run</th><th class=\"n\">Verdicts</th></tr></thead>"
                   "\n<tbody>\n",
                html_num(ag, "run"));
    cJSON_ArrayForEach(t, html_get(ag, "transitions"))
    {
        html_raw(h, "<tr><td>");
        html_text(h, t->string);
        html_printf(h, "</td><td class=\"n\">%.0f</td></tr>\n", t->valuedouble);
    }
    html_printf(h, "</tbody></table></div>\n<div class=\"table-wrap\"><table id=\"changes-table\">"
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
