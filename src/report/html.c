/*
 * html.c - the report object as one self-contained HTML page (see report.h).
 *
 * This file holds the shared writer (escaping, anchors, numbers), the style
 * sheet and the page outline: header, case counts, the systems table and the
 * problems.  The charts are drawn in html_chart.c, the judge panel, gates and
 * cases in html_cases.c.  The page loads nothing: no script, no font, no
 * image; a Content-Security-Policy forbids any, so text that escaped the
 * escaping still could not run.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/report.h"
#include "html_int.h"
#include "strategy_int.h"

/* Colorblind-safe, readable on white (after Okabe-Ito and Tableau 10). */
static const char *const palette[] = {"#3b6fb6", "#e07b39", "#3a9a6b", "#c0504d",
                                      "#8064a2", "#2a9fbc", "#b8860b", "#d36ba6"};

void html_raw(struct html *h, const char *s)
{
    if (!h->st)
        h->st = arb_buf_adds(h->out, s);
}

void html_printf(struct html *h, const char *fmt, ...)
{
    char small[512], *big;
    va_list ap;
    int n;

    if (h->st)
        return;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0) {
        h->st = ARB_EINTERNAL;
        return;
    }
    if ((size_t)n < sizeof(small)) {
        h->st = arb_buf_add(h->out, small, (size_t)n);
        return;
    }
    big = malloc((size_t)n + 1);
    if (!big) {
        h->st = ARB_ENOMEM;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    h->st = arb_buf_add(h->out, big, (size_t)n);
    free(big);
}

void html_text_n(struct html *h, const char *s, size_t n)
{
    const char *run = s, *end = s + n;

    /* Copy runs of safe bytes at once; only the special ones cost a call. */
    for (; !h->st && s < end; s++) {
        unsigned char c = (unsigned char)*s;
        const char *rep = NULL;

        if (c == '&')
            rep = "&amp;";
        else if (c == '<')
            rep = "&lt;";
        else if (c == '>')
            rep = "&gt;";
        else if (c == '"')
            rep = "&quot;";
        else if (c == '\'')
            rep = "&#39;";
        else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
            rep = "\xef\xbf\xbd";
        if (!rep)
            continue;
        if (s > run)
            h->st = arb_buf_add(h->out, run, (size_t)(s - run));
        html_raw(h, rep);
        run = s + 1;
    }
    if (!h->st && s > run)
        h->st = arb_buf_add(h->out, run, (size_t)(s - run));
}

void html_text(struct html *h, const char *s)
{
    if (s)
        html_text_n(h, s, strlen(s));
}

void html_text_short(struct html *h, const char *s, size_t max_chars)
{
    size_t i, chars = 0;

    if (!s)
        return;
    /* Count code points (bytes that do not continue one) and cut before one. */
    for (i = 0; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && chars++ == max_chars) {
            html_text_n(h, s, i);
            html_raw(h, "\xe2\x80\xa6");
            return;
        }
    }
    html_text_n(h, s, i);
}

void html_anchor(struct html *h, const char *case_id, int seq)
{
    const char *p;

    html_raw(h, "case-");
    for (p = case_id ? case_id : ""; !h->st && *p; p++) {
        unsigned char c = (unsigned char)*p;

        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-')
            h->st = arb_buf_addc(h->out, (char)c);
        else
            html_printf(h, "_%02X", c);
    }
    if (seq > 0)
        html_printf(h, "__%d", seq);
}

void html_number(struct html *h, double v, int decimals, int percent)
{
    if (isnan(v))
        html_raw(h, "&ndash;");
    else if (percent)
        html_printf(h, "%.*f%%", decimals, 100.0 * v);
    else
        html_printf(h, "%.*f", decimals, v);
}

void html_range(struct html *h, double lo, double hi, int decimals, int percent)
{
    html_number(h, lo, decimals, percent);
    html_raw(h, " &ndash; ");
    html_number(h, hi, decimals, percent);
}

void html_interval_note(struct html *h, const cJSON *o, const char *key, int decimals, int percent)
{
    double lo, hi;

    if (!html_interval(o, key, &lo, &hi))
        return;
    html_raw(h, "<br><span class=\"ci\">");
    html_range(h, lo, hi, decimals, percent);
    html_raw(h, "</span>");
}

const cJSON *html_case_list(const cJSON *report)
{
    const cJSON *list = html_get(report, "cases_detail");

    if (cJSON_IsArray(list))
        return list;
    list = html_get(report, "cases");
    return cJSON_IsArray(list) ? list : NULL;
}

const cJSON *html_get(const cJSON *o, const char *key)
{
    return cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
}

double html_num(const cJSON *o, const char *key)
{
    const cJSON *v = html_get(o, key);

    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

const char *html_str(const cJSON *o, const char *key)
{
    const cJSON *v = html_get(o, key);

    return cJSON_IsString(v) ? v->valuestring : "";
}

int html_interval(const cJSON *o, const char *key, double *lo, double *hi)
{
    const cJSON *v = html_get(o, key);
    const cJSON *a = cJSON_GetArrayItem(v, 0), *b = cJSON_GetArrayItem(v, 1);

    if (!cJSON_IsArray(v) || !cJSON_IsNumber(a) || !cJSON_IsNumber(b))
        return 0;
    *lo = a->valuedouble;
    *hi = b->valuedouble;
    return 1;
}

const char *html_color(int i)
{
    int n = (int)(sizeof(palette) / sizeof(palette[0]));

    return palette[(i < 0 ? 0 : i) % n];
}

int html_system_index(const cJSON *report, const char *name)
{
    const cJSON *s;
    int i = 0;

    cJSON_ArrayForEach(s, html_get(report, "systems"))
    {
        if (name && strcmp(html_str(s, "name"), name) == 0)
            return i;
        i++;
    }
    return -1;
}

/* One rule a line, so the page source stays readable. */
const char *const html_style_lines[] = {
    ":root{--fg:#1f2933;--muted:#5a6776;--bg:#f5f7fa;--card:#fff;--line:#e3e8ee;"
    "--accent:#2f5fa7;--pass:#2e7d32;--fail:#b3261e;--warn:#8a5a00}",
    "*{box-sizing:border-box}",
    "html{-webkit-text-size-adjust:100%}",
    "body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.55 system-ui,-apple-system,"
    "'Segoe UI',Roboto,'Helvetica Neue',Arial,'Noto Sans','Liberation Sans',sans-serif}",
    "main{max-width:1160px;margin:0 auto;padding:28px 20px 64px}",
    "header.page{margin-bottom:8px}",
    ".eyebrow{text-transform:uppercase;letter-spacing:.08em;font-size:.75rem;font-weight:600;"
    "color:var(--accent)}",
    "h1{font-size:1.75rem;line-height:1.25;margin:2px 0 6px;word-break:break-word}",
    "h2{font-size:1.15rem;margin:0 0 4px}",
    "h3{font-size:1rem;margin:18px 0 8px}",
    ".meta,.note{color:var(--muted);font-size:.9rem;margin:0 0 12px}",
    ".meta span+span::before{content:'\\00b7';margin:0 .5em;color:#9aa5b1}",
    "nav.toc{display:flex;flex-wrap:wrap;gap:6px;margin:14px 0 4px}",
    "nav.toc a{font-size:.85rem;padding:3px 10px;border-radius:999px;background:#e8eef7;"
    "color:var(--accent);text-decoration:none}",
    "nav.toc a:hover{background:#d6e2f3}",
    "section.card{background:var(--card);border:1px solid var(--line);border-radius:12px;"
    "padding:18px 22px;margin:18px 0;box-shadow:0 1px 2px rgba(16,24,40,.05)}",
    ".tiles{display:grid;grid-template-columns:repeat(auto-fill,minmax(160px,1fr));gap:10px;"
    "margin:8px 0}",
    ".tile{border:1px solid var(--line);border-radius:10px;padding:10px 14px;background:#fbfcfe;"
    "border-top:3px solid var(--tile,#cbd2d9)}",
    ".tile .v{display:block;font-size:1.45rem;font-weight:650;font-variant-numeric:tabular-nums}",
    ".tile .k{display:block;color:var(--muted);font-size:.78rem}",
    ".tile .d{display:block;color:var(--muted);font-size:.8rem}",
    ".tile.na .v{color:#9aa5b1}",
    ".tile .v.t{font-size:1.05rem;line-height:2.1rem;white-space:nowrap;overflow:hidden;"
    "text-overflow:ellipsis}",
    ".table-wrap{overflow-x:auto}",
    "table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums;font-size:.92rem}",
    "th,td{padding:7px 10px;border-bottom:1px solid var(--line);text-align:left;"
    "vertical-align:top}",
    /* Headers read as written: upper-casing would turn "pass@k" into "PASS@K". */
    "th{font-size:.8rem;color:var(--muted);font-weight:600;white-space:nowrap}",
    "tbody tr:hover{background:#f8fafc}",
    ".n{text-align:right;white-space:nowrap}",
    ".ci{color:var(--muted);font-size:.8rem}",
    ".swatch{display:inline-block;width:11px;height:11px;border-radius:3px;margin-right:7px;"
    "vertical-align:-1px}",
    ".badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:.76rem;"
    "font-weight:600;white-space:nowrap}",
    ".b-pass{background:#e2f3e4;color:#1b5e20}",
    ".b-fail{background:#fde5e3;color:#8c1d16}",
    ".b-warn{background:#fff1d0;color:#6b4600}",
    ".b-info{background:#e8eef7;color:#244a85}",
    ".b-neutral{background:#eef1f5;color:#3e4c59}",
    "pre{background:#f6f8fa;border:1px solid var(--line);border-radius:8px;padding:10px 12px;"
    "margin:0;overflow:auto;max-height:460px;white-space:pre-wrap;word-break:break-word;tab-size:2;"
    "font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace}",
    ".outputs{display:grid;grid-template-columns:1fr 1fr;gap:14px}",
    ".outputs h4{margin:0 0 6px;font-size:.9rem}",
    "@media (max-width:760px){.outputs{grid-template-columns:1fr}main{padding:16px 10px}}",
    "details{border:1px solid var(--line);border-radius:8px;margin:6px 0;background:#fff}",
    "details>summary{cursor:pointer;padding:6px 12px;list-style-position:inside}",
    "details[open]>summary{border-bottom:1px solid var(--line)}",
    "details>pre{margin:10px 12px;border:0}",
    "summary .item{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;"
    "font-size:.85rem}",
    "blockquote{margin:0;padding:10px 14px;border-left:4px solid #c7d4ea;background:#f7f9fc;"
    "border-radius:0 8px 8px 0;white-space:pre-wrap;word-break:break-word}",
    ".case{border-top:1px solid var(--line);padding-top:14px;margin-top:18px}",
    ".case:target{background:#fffbea;box-shadow:0 0 0 8px #fffbea;border-radius:4px}",
    ".case h3{margin-top:0}",
    ".case h4{margin:16px 0 6px;font-size:.95rem}",
    ".back{font-size:.8rem;margin-left:8px}",
    ".case p.task{margin:0}",
    ".judge-orders{display:grid;grid-template-columns:1fr 1fr;gap:14px}",
    ".judge-order{border:1px solid var(--line);border-radius:8px;padding:10px 12px;"
    "background:#fbfcfe;min-width:0}",
    ".judge-order h5{margin:0 0 2px;font-size:.9rem}",
    ".judge-order p{margin:4px 0}",
    ".judge-order table{margin-top:8px}",
    "@media (max-width:760px){.judge-orders{grid-template-columns:1fr}}",
    "a{color:var(--accent)}",
    "svg.chart{display:block;width:100%;max-width:100%;height:auto;margin:6px 0 2px}",
    "svg.chart text{font-family:inherit;font-size:12px;fill:#3e4c59}",
    "svg.chart text.lbl{fill:#1f2933}",
    "svg.chart text.val{font-variant-numeric:tabular-nums}",
    "svg.chart text.in{fill:#fff;font-weight:600}",
    ".legend{display:flex;flex-wrap:wrap;gap:14px;font-size:.85rem;color:var(--muted);"
    "margin:4px 0 6px}",
    ".empty{color:var(--muted);font-style:italic}",
    "ul.problems{margin:0;padding-left:20px}",
    "footer{color:var(--muted);font-size:.8rem;text-align:center;margin-top:28px}",
    NULL,
};

static void page_head(struct html *h, const cJSON *report)
{
    const cJSON *run = html_get(report, "run");
    size_t i;

    html_raw(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                "style-src 'unsafe-inline'; img-src data:\">\n"
                "<meta name=\"generator\" content=\"arbiter\">\n"
                "<link rel=\"icon\" href=\"data:,\">\n<title>Arbiter report: ");
    html_text(h, html_str(run, "suite"));
    html_raw(h, "</title>\n<style>\n");
    for (i = 0; html_style_lines[i]; i++) {
        html_raw(h, html_style_lines[i]);
        html_raw(h, "\n");
    }
    html_raw(h, "</style>\n</head>\n<body>\n<main>\n");
}

/* The title, the run's facts and a link per section that is present. */
static void page_header(struct html *h, const cJSON *report)
{
    const cJSON *run = html_get(report, "run"), *judge = html_get(run, "judge");

    html_raw(h, "<header class=\"page\" id=\"top\">\n<div class=\"eyebrow\">Arbiter report</div>\n"
                "<h1 id=\"report-title\">");
    html_text(h, *html_str(run, "suite") ? html_str(run, "suite") : "(unnamed suite)");
    html_raw(h, "</h1>\n<p class=\"meta\" id=\"run-info\">");
    if (!isnan(html_num(run, "id")))
        html_printf(h, "<span>Run %.0f</span>", html_num(run, "id"));
    if (*html_str(run, "status")) {
        html_raw(h, "<span>");
        html_text(h, html_str(run, "status"));
        html_raw(h, "</span>");
    }
    if (*html_str(run, "created_at")) {
        html_raw(h, "<span>");
        html_text(h, html_str(run, "created_at"));
        html_raw(h, "</span>");
    }
    if (!isnan(html_num(run, "seed")))
        html_printf(h, "<span>seed %.0f</span>", html_num(run, "seed"));
    if (*html_str(run, "arbiter_version")) {
        html_raw(h, "<span>arbiter ");
        html_text(h, html_str(run, "arbiter_version"));
        html_raw(h, "</span>");
    }
    if (*html_str(run, "suite_sha256")) {
        html_raw(h, "<span title=\"suite SHA-256: ");
        html_text(h, html_str(run, "suite_sha256"));
        html_printf(h, "\">suite %.12s</span>", html_str(run, "suite_sha256"));
    }
    if (judge) {
        html_raw(h, "<span>judge ");
        html_text(h, html_str(judge, "model"));
        html_raw(h, "</span>");
    }
    html_raw(h,
             "</p>\n<nav class=\"toc\" aria-label=\"sections\"><a href=\"#overview\">Overview</a>"
             "<a href=\"#systems\">Systems</a>");
    if (cJSON_GetArraySize(html_get(report, "pairs")) > 0 ||
        cJSON_GetArraySize(html_get(report, "systems")) == 2)
        html_raw(h, "<a href=\"#pairs\">Pairs</a>");
    if (cJSON_IsObject(html_get(report, "statistics")))
        html_raw(h, "<a href=\"#statistics\">Statistics</a>");
    if (cJSON_IsObject(html_get(report, "weights")))
        html_raw(h, "<a href=\"#weighted\">Weighted</a>");
    if (cJSON_IsObject(html_get(report, "custom")))
        html_raw(h, "<a href=\"#custom\">Custom grader</a>");
    if (cJSON_IsObject(html_get(report, "hybrid")))
        html_raw(h, "<a href=\"#hybrid\">Hybrid</a>");
    html_raw(h, "<a href=\"#rubric\">Rubric</a>");
    if (cJSON_GetArraySize(html_get(report, "expectations")) > 0)
        html_raw(h, "<a href=\"#expectations\">Expectations</a>");
    if (cJSON_GetArraySize(html_get(html_get(report, "win_matrix"), "systems")) >= 3)
        html_raw(h, "<a href=\"#matrix\">Matrix</a>");
    if (cJSON_IsObject(html_get(report, "against")))
        html_raw(h, "<a href=\"#against\">Changes</a>");
    if (cJSON_GetArraySize(html_get(html_get(report, "trials"), "systems")) > 0)
        html_raw(h, "<a href=\"#trials\">Trials</a>");
    html_raw(h, "<a href=\"#judge\">Judge</a>");
    if (cJSON_IsArray(html_get(report, "gates")))
        html_raw(h, "<a href=\"#gates\">Gates</a>");
    if (html_case_list(report))
        html_raw(h, "<a href=\"#cases\">Cases</a>");
    if (cJSON_GetArraySize(html_get(report, "problems")) > 0)
        html_raw(h, "<a href=\"#problems\">Problems</a>");
    html_raw(h, "</nav>\n</header>\n");
}

static void tile(struct html *h, const char *key, double v, const char *color, const char *detail)
{
    html_printf(h, "<div class=\"tile%s\" style=\"--tile:%s\"><span class=\"v\">",
                isnan(v) ? " na" : "", color);
    html_number(h, v, 0, 0);
    html_printf(h, "</span><span class=\"k\">%s</span>", key);
    if (detail)
        html_printf(h, "<span class=\"d\">%s</span>", detail);
    html_raw(h, "</div>");
}

/* Case counts as tiles over one stacked bar of the outcome of every case. */
static void overview(struct html *h, const cJSON *report)
{
    const cJSON *cases = html_get(report, "cases");

    html_raw(h, "<section class=\"card\" id=\"overview\">\n<h2>Overview</h2>\n"
                "<div class=\"tiles\" id=\"counts\">");
    /* "cases" is a count in older reports and the list of cases in newer ones. */
    tile(h, "cases", cJSON_IsArray(cases) ? cJSON_GetArraySize(cases) : html_num(report, "cases"),
         "#7b8794", NULL);
    tile(h, "decided", html_num(report, "decided"), "#3a9a6b", NULL);
    tile(h, "pending judge", html_num(report, "pending_judge"), "#d9a400", NULL);
    tile(h, "missing output", html_num(report, "missing_output"), "#c0504d", NULL);
    tile(h, "judge failed", html_num(report, "judge_failed"), "#8064a2", NULL);
    tile(h, "judge refused", html_num(report, "judge_refused"), "#a25f8f", NULL);
    html_raw(h, "</div>\n");
    html_chart_systems(h, report);
    html_raw(h, "</section>\n");
}

static void ci_cell(struct html *h, const cJSON *s, const char *key, int decimals, int percent)
{
    html_number(h, html_num(s, key), decimals, percent);
    html_interval_note(h, html_get(s, "intervals"), key, decimals, percent);
}

static void systems_table(struct html *h, const cJSON *report)
{
    const cJSON *s;
    int i = 0;

    html_raw(h, "<section class=\"card\" id=\"systems\">\n<h2>Systems</h2>\n<p class=\"note\">"
                "Win rate counts ties as half a win; intervals are 95% bootstrap where the "
                "report has them.</p>\n<div class=\"table-wrap\"><table id=\"systems-table\">\n"
                "<thead><tr><th>System</th><th class=\"n\">Wins</th><th class=\"n\">Losses</th>"
                "<th class=\"n\">Ties</th><th class=\"n\">Win rate</th>"
                "<th class=\"n\">Win rate (no ties)</th><th class=\"n\">Expectations passed</th>"
                "<th class=\"n\">Content</th><th class=\"n\">Structure</th>"
                "<th class=\"n\">Overall</th></tr></thead>\n<tbody>\n");
    cJSON_ArrayForEach(s, html_get(report, "systems"))
    {
        const cJSON *e = html_get(s, "expectations");

        html_printf(h, "<tr><td><span class=\"swatch\" style=\"background:%s\"></span>",
                    html_color(i++));
        html_text(h, html_str(s, "name"));
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(s, "wins"), 0, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(s, "losses"), 0, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(s, "ties"), 0, 0);
        html_raw(h, "</td><td class=\"n\">");
        ci_cell(h, s, "win_rate", 1, 1);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(s, "win_rate_without_ties"), 1, 1);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(e, "pass_rate"), 1, 1);
        if (!isnan(html_num(e, "passed")))
            html_printf(h, " <span class=\"ci\">(%.0f/%.0f)</span>", html_num(e, "passed"),
                        html_num(e, "passed") + html_num(e, "failed"));
        html_interval_note(h, html_get(s, "intervals"), "pass_rate", 1, 1);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(s, "content_score"), 2, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(s, "structure_score"), 2, 0);
        html_raw(h, "</td><td class=\"n\">");
        ci_cell(h, s, "overall_score", 2, 0);
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n</section>\n");
}

static void problems(struct html *h, const cJSON *report)
{
    const cJSON *p, *list = html_get(report, "problems");

    if (cJSON_GetArraySize(list) <= 0)
        return;
    html_raw(h, "<section class=\"card\" id=\"problems\">\n<h2>Problems found while loading</h2>\n"
                "<ul class=\"problems\">\n");
    cJSON_ArrayForEach(p, list)
    {
        html_raw(h, "<li><span class=\"badge b-warn\">");
        html_text(h, *html_str(p, "kind") ? html_str(p, "kind") : "problem");
        html_raw(h, "</span> ");
        html_text(h, html_str(p, "message"));
        if (*html_str(p, "system")) {
            html_raw(h, " <span class=\"ci\">(system ");
            html_text(h, html_str(p, "system"));
            html_raw(h, ")</span>");
        }
        if (*html_str(p, "case")) {
            html_raw(h, " <span class=\"ci\">(case ");
            html_text(h, html_str(p, "case"));
            html_raw(h, ")</span>");
        }
        html_raw(h, "</li>\n");
    }
    html_raw(h, "</ul>\n</section>\n");
}

void html_flush(struct html *h, const struct arb_report_sink *sink)
{
    if (!h->st)
        h->st = arb_report_flush(h->out, sink, ARB_REPORT_FLUSH);
}

enum arb_status arb_report_html(const cJSON *report, struct arb_buf *out)
{
    return arb_report_html_to(report, out, NULL);
}

enum arb_status arb_report_html_to(const cJSON *report, struct arb_buf *out,
                                   const struct arb_report_sink *sink)
{
    /* The sections before the cases, in page order. */
    static void (*const before[])(struct html *, const cJSON *) = {
        page_head,
        page_header,
        overview,
        systems_table,
        html_strategies,
        html_win_matrix,
        html_against,
        html_chart_pairs,
        html_statistics,
        html_chart_rubric,
        html_chart_expectations,
        html_trials,
        html_judge_panel,
        html_gates,
    };
    struct html h = {out, ARB_OK};
    const cJSON *run = html_get(report, "run");

    if (!cJSON_IsObject(report))
        return ARB_EUSAGE;
    for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
        before[i](&h, report);
        html_flush(&h, sink);
    }
    html_cases(&h, report, sink);
    problems(&h, report);
    html_raw(&h, "<footer>Generated by arbiter");
    if (*html_str(run, "arbiter_version")) {
        html_raw(&h, " ");
        html_text(&h, html_str(run, "arbiter_version"));
    }
    html_raw(&h, " &middot; a self-contained page: no scripts, no network.</footer>\n"
                 "</main>\n</body>\n</html>\n");
    return h.st;
}
