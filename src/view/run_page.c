/*
 * run_page.c - one run: its facts, the counts a reader filters on (each a link to the case
 * table so filtered), the report's panels (win rates with their bootstrap intervals, the
 * statistics card, expectation pass rates, judge health), and the static HTML report as
 * `arbiter report RUN --format html` writes it.
 *
 * The report is built once per run and kept (view_cache.c); the static report adds the
 * first cases' details to a copy of it.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../report/html_int.h"
#include "arbiter/case_index.h"
#include "arbiter/report.h"
#include "view_int.h"

static const struct {
    const char *word, *label;
} flag_tiles[] = {
    {"judged", "judged by the LLM"},
    {"pi", "position-inconsistent"},
    {"jf", "judge failed"},
    {"disagree", "checks and judge disagree"},
    {"expfail", "an expectation failed"},
};

static void count_tiles(struct html *h, int64_t run, const int64_t counts[5], int64_t all)
{
    html_raw(h, "<div class=\"tiles\" id=\"run-counts\">");
    html_printf(h,
                "<a class=\"tile\" href=\"/runs/%" PRId64 "/cases\"><span class=\"v\">%" PRId64
                "</span><span class=\"k\">cases and pairs</span></a>",
                run, all);
    for (size_t i = 0; i < sizeof(flag_tiles) / sizeof(flag_tiles[0]); i++)
        html_printf(h,
                    "<a class=\"tile flag-tile\" data-flag=\"%s\" href=\"/runs/%" PRId64
                    "/cases?flag=%s\"><span class=\"v\">%" PRId64
                    "</span><span class=\"k\">%s</span></a>",
                    flag_tiles[i].word, run, flag_tiles[i].word, counts[i], flag_tiles[i].label);
    html_raw(h, "</div>\n");
}

static void facts(struct html *h, const cJSON *rep)
{
    const cJSON *run = html_get(rep, "run"), *judge = html_get(run, "judge");

    html_raw(h, "<p class=\"meta\" id=\"run-facts\"><span>");
    html_text(h, html_str(run, "created_at"));
    html_raw(h, "</span><span>");
    html_text(h, html_str(run, "status"));
    html_raw(h, "</span>");
    if (cJSON_IsObject(judge)) {
        html_raw(h, "<span>judge ");
        html_text(h, html_str(judge, "provider"));
        html_raw(h, " &middot; ");
        html_text(h, html_str(judge, "model"));
        html_raw(h, "</span>");
    } else {
        html_raw(h, "<span>no judge</span>");
    }
    html_raw(h, "</p>\n");
}

enum arb_status view_run_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                              struct view_resp *out, struct arb_err *err)
{
    const cJSON *rep;
    int64_t counts[5] = {0}, all = 0;
    struct html h;
    enum arb_status rs;
    const char *title;

    (void)r;
    rs = view_cache_report(v, run, &rep, err);
    if (!rs)
        rs = arb_case_index_counts(v->st, run, counts, &all, err);
    if (rs)
        return rs;
    title = html_str(html_get(rep, "run"), "suite");
    view_html_begin(&h, v, out, *title ? title : "Run", run);
    html_printf(&h, "<div class=\"eyebrow\">Run %" PRId64 "</div>\n<h1>", run);
    html_text(&h, *title ? title : "(unnamed suite)");
    html_raw(&h, "</h1>\n");
    facts(&h, rep);
    html_printf(&h,
                "<p><a class=\"button\" id=\"cases-link\" href=\"/runs/%" PRId64
                "/cases\">Browse the cases</a> <a class=\"button\" id=\"label-link\" "
                "href=\"/runs/%" PRId64 "/label\">Label pairs blind</a> <a id=\"report-link\" "
                "href=\"/runs/%" PRId64 "/report\">The static HTML report</a></p>\n",
                run, run, run);
    count_tiles(&h, run, counts, all);
    html_raw(&h, "<div id=\"panel-wins\"><section class=\"card\"><h2>Who won</h2>\n"
                 "<p class=\"note\">Win rate (a tie counts half), expectation pass rate and "
                 "overall rubric score per system, with 95% bootstrap intervals.</p>\n");
    html_chart_systems(&h, rep);
    html_raw(&h, "</section>\n");
    html_statistics(&h, rep);
    html_raw(&h, "</div>\n<div id=\"panel-pass\">");
    html_chart_expectations(&h, rep);
    html_raw(&h, "</div>\n<div id=\"panel-judge\">");
    html_judge_panel(&h, rep);
    html_raw(&h, "</div>\n");
    return view_html_end(&h);
}

enum arb_status view_report_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 struct view_resp *out, struct arb_err *err)
{
    const struct arb_buf *html;
    enum arb_status rs;

    (void)r;
    rs = view_cache_html(v, run, &html, err);
    if (rs)
        return rs;
    out->csp_report = 1;
    return arb_buf_add(&out->body, html->ptr, html->len);
}
