/*
 * html_chart.c - the report's charts as inline SVG, with coordinates computed
 * here: per-system win rate, pass rate and overall score with interval
 * whiskers, one win/tie/loss bar per pair of systems, rubric criteria side by
 * side and pass rate per expectation per system.
 *
 * Every mark carries a <title>, which browsers show as a tooltip.  Scales are
 * fixed (0-100 %, 1-5 points) so charts of different runs compare by eye.
 * Layout and escaping helpers come from html.c; nothing here trusts the
 * report's shape: absent members are skipped, not assumed.
 */
#include <math.h>
#include <string.h>

#include "html_int.h"

#define CHART_W    1080.0
#define TIE_COLOR  "#c3cad3"
#define GRID_COLOR "#e6eaef"
#define INK        "#1f2933"

static double clamp01(double v)
{
    return isnan(v) ? 0.0 : v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

static void svg_open(struct html *h, const char *id, double height, const char *label)
{
    html_printf(h,
                "<svg class=\"chart\" id=\"%s\" viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
                "height=\"%.0f\" role=\"img\" aria-label=\"",
                id, CHART_W, height, CHART_W, height);
    html_text(h, label);
    html_raw(h, "\">\n");
}

/* A vertical grid of ticks 0..1 over [x0, x0 + w], labelled under y1. */
static void grid(struct html *h, double x0, double w, double y0, double y1, int percent, double max)
{
    int t;

    for (t = 0; t <= 4; t++) {
        double x = x0 + w * t / 4.0;

        html_printf(h, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>", x,
                    y0, x, y1, GRID_COLOR);
        if (percent)
            html_printf(h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%d%%</text>\n", x,
                        y1 + 14, t * 25);
        else
            html_printf(h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%g</text>\n", x,
                        y1 + 14, max * t / 4.0);
    }
}

/* An interval whisker from x_lo to x_hi at height y, with end caps. */
static void whisker(struct html *h, double x_lo, double x_hi, double y, const char *title)
{
    html_raw(h, "<g class=\"whisker\">");
    if (title) {
        html_raw(h, "<title>");
        html_raw(h, title);
        html_raw(h, "</title>");
    }
    html_printf(h,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"1.6\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"%s\" stroke-width=\"1.6\"/><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
                "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.6\"/></g>\n",
                x_lo, y, x_hi, y, INK, x_lo, y - 5, x_lo, y + 5, INK, x_hi, y - 5, x_hi, y + 5,
                INK);
}

/* One horizontal bar of a system's value v on [0, max] with its interval. */
static void system_bar(struct html *h, const cJSON *s, int i, const char *key, double v, double max,
                       int percent, double x0, double w, double y)
{
    double lo, hi, end = x0, frac = clamp01(v / max);
    int has_ci = html_interval(html_get(s, "intervals"), key, &lo, &hi);

    html_printf(h,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"18\" rx=\"3\" "
                "fill=\"%s\"><title>",
                x0, y, w * frac, html_color(i));
    html_text(h, html_str(s, "name"));
    html_printf(h, ": %s ", key);
    html_number(h, v, percent ? 1 : 2, percent);
    if (has_ci) {
        html_raw(h, " (95% interval ");
        html_number(h, lo, percent ? 1 : 2, percent);
        html_raw(h, " &ndash; ");
        html_number(h, hi, percent ? 1 : 2, percent);
        html_raw(h, ")");
    }
    html_raw(h, "</title></rect>\n");
    end = x0 + w * frac;
    if (has_ci) {
        whisker(h, x0 + w * clamp01(lo / max), x0 + w * clamp01(hi / max), y + 9, NULL);
        if (x0 + w * clamp01(hi / max) > end)
            end = x0 + w * clamp01(hi / max);
    }
    html_printf(h, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">", end + 6, y + 13);
    html_number(h, v, percent ? 1 : 2, percent);
    html_raw(h, "</text>\n");
}

void html_chart_systems(struct html *h, const cJSON *report)
{
    static const char *const titles[] = {"Win rate", "Expectation pass rate", "Overall score"};
    const cJSON *systems = html_get(report, "systems"), *s;
    int n = cJSON_GetArraySize(systems), k, i;
    double label_w = 150, panel_w = 270, gap = 40, plot_w = panel_w - 60, top = 30, row = 28;
    double height, max_score = 10;

    if (n <= 0)
        return;
    cJSON_ArrayForEach(s, systems)
    {
        double lo, hi, v = html_num(s, "overall_score");

        if (html_interval(html_get(s, "intervals"), "overall_score", &lo, &hi) && hi > v)
            v = hi;
        while (!isnan(v) && v > max_score && max_score < 1e9)
            max_score *= 2;
    }
    height = top + n * row + 26;
    svg_open(h, "systems-chart", height, "win rate, pass rate and overall score per system");
    for (k = 0; k < 3; k++) {
        double x0 = label_w + k * (panel_w + gap);

        html_printf(h, "<text class=\"lbl\" x=\"%.1f\" y=\"16\" font-weight=\"600\">%s</text>\n",
                    x0, titles[k]);
        grid(h, x0, plot_w, top - 6, top + n * row, k < 2, max_score);
        if (k == 0)
            html_printf(h,
                        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#7b8794\" "
                        "stroke-dasharray=\"4 3\"><title>50%%: parity</title></line>\n",
                        x0 + plot_w / 2, top - 6, x0 + plot_w / 2, top + n * row);
    }
    i = 0;
    cJSON_ArrayForEach(s, systems)
    {
        double y = top + i * row;

        html_printf(h, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">",
                    label_w - 12, y + 13);
        html_text_short(h, html_str(s, "name"), 20);
        html_raw(h, "</text>\n");
        system_bar(h, s, i, "win_rate", html_num(s, "win_rate"), 1.0, 1, label_w, plot_w, y);
        system_bar(h, s, i, "pass_rate", html_num(html_get(s, "expectations"), "pass_rate"), 1.0, 1,
                   label_w + panel_w + gap, plot_w, y);
        system_bar(h, s, i, "overall_score", html_num(s, "overall_score"), max_score, 0,
                   label_w + 2 * (panel_w + gap), plot_w, y);
        i++;
    }
    html_raw(h, "</svg>\n");
}

/* A segment of a stacked bar, with its count inside when there is room. */
static void segment(struct html *h, double x, double y, double w, const char *fill, double count,
                    const char *what, const char *name)
{
    if (w <= 0)
        return;
    html_printf(h, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"24\" fill=\"%s\"><title>",
                x, y, w, fill);
    html_printf(h, "%.0f ", count);
    html_text(h, name);
    html_raw(h, what);
    html_raw(h, "</title></rect>\n");
    if (w >= 26)
        html_printf(h,
                    "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n",
                    strcmp(fill, TIE_COLOR) == 0 ? "lbl" : "in", x + w / 2, y + 16, count);
}

/* One row of the pairs chart: a wins | ties | b wins, a's win rate and its interval. */
static void pair_row(struct html *h, const cJSON *report, const cJSON *pair, double y)
{
    const char *a = html_str(pair, "a"), *b = html_str(pair, "b");
    double aw = html_num(pair, "a_wins"), bw = html_num(pair, "b_wins"), t = html_num(pair, "ties");
    double n, x0 = 250, w = 560, lo, hi, p = html_num(pair, "sign_test_p");
    int ia = html_system_index(report, a), ib = html_system_index(report, b);
    const cJSON *sig = html_get(pair, "significant");
    int has_ci;

    aw = isnan(aw) ? 0 : aw;
    bw = isnan(bw) ? 0 : bw;
    t = isnan(t) ? 0 : t;
    n = aw + bw + t;
    html_printf(h,
                "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
                "<tspan fill=\"%s\" font-weight=\"600\">",
                x0 - 12, y + 16, html_color(ia));
    html_text_short(h, a, 14);
    html_raw(h, "</tspan> vs <tspan fill=\"");
    html_raw(h, html_color(ib));
    html_raw(h, "\" font-weight=\"600\">");
    html_text_short(h, b, 14);
    html_raw(h, "</tspan></text>\n");
    if (n <= 0) {
        html_printf(h, "<text x=\"%.1f\" y=\"%.1f\">no decided cases</text>\n", x0, y + 16);
        return;
    }
    segment(h, x0, y, w * aw / n, html_color(ia), aw, " wins", a);
    segment(h, x0 + w * aw / n, y, w * t / n, TIE_COLOR, t, " ties", "");
    segment(h, x0 + w * (aw + t) / n, y, w * bw / n, html_color(ib), bw, " wins", b);
    has_ci = html_interval(html_get(pair, "intervals"), "win_rate", &lo, &hi);
    if (!has_ci && cJSON_GetArraySize(html_get(report, "systems")) == 2)
        has_ci = html_interval(
            html_get(cJSON_GetArrayItem(html_get(report, "systems"), ia), "intervals"), "win_rate",
            &lo, &hi);
    /* Under the bar: the first system's win rate (ties half) and its interval. */
    if (has_ci)
        whisker(h, x0 + w * clamp01(lo), x0 + w * clamp01(hi), y + 34,
                "95% interval of the first system's win rate");
    html_printf(h,
                "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" fill=\"%s\" stroke=\"#fff\" "
                "stroke-width=\"1.5\"><title>",
                x0 + w * (aw + t / 2) / n, y + 34, INK);
    html_text(h, a);
    html_printf(h, " win rate (ties half): %.1f%%</title></circle>\n", 100 * (aw + t / 2) / n);
    html_printf(h, "<text class=\"val\" x=\"%.1f\" y=\"%.1f\">%.1f%%</text>\n",
                x0 + w * clamp01(has_ci ? hi : (aw + t / 2) / n) + 10, y + 38,
                100 * (aw + t / 2) / n);
    html_printf(h, "<text x=\"%.1f\" y=\"%.1f\">", x0 + w + 14, y + 16);
    if (!isnan(p))
        html_printf(h, "sign test p = %.3g", p);
    if (cJSON_IsBool(sig))
        html_printf(h, "<tspan fill=\"%s\" font-weight=\"600\">%s%s</tspan>",
                    cJSON_IsTrue(sig) ? "#1b5e20" : "#5a6776", isnan(p) ? "" : "  ",
                    cJSON_IsTrue(sig) ? "significant" : "not significant");
    html_raw(h, "</text>\n");
}

/* The pairs of the report, or the one pair of a two-system report built from its counts. */
static cJSON *pairs_of(const cJSON *report, int *owned)
{
    const cJSON *pairs = html_get(report, "pairs"), *systems = html_get(report, "systems");
    const cJSON *s0 = cJSON_GetArrayItem(systems, 0), *s1 = cJSON_GetArrayItem(systems, 1);
    cJSON *list, *p;

    *owned = 0;
    if (cJSON_IsArray(pairs))
        return (cJSON *)pairs;
    if (cJSON_GetArraySize(systems) != 2)
        return NULL;
    list = cJSON_CreateArray();
    p = cJSON_CreateObject();
    if (!list || !p || !cJSON_AddStringToObject(p, "a", html_str(s0, "name")) ||
        !cJSON_AddStringToObject(p, "b", html_str(s1, "name")) ||
        !cJSON_AddNumberToObject(p, "a_wins", html_num(s0, "wins")) ||
        !cJSON_AddNumberToObject(p, "b_wins", html_num(s1, "wins")) ||
        !cJSON_AddNumberToObject(p, "ties", html_num(s0, "ties"))) {
        cJSON_Delete(list);
        cJSON_Delete(p);
        return NULL;
    }
    cJSON_AddItemToArray(list, p);
    *owned = 1;
    return list;
}

static void pairs_table(struct html *h, const cJSON *pairs)
{
    const cJSON *p;

    html_raw(h, "<div class=\"table-wrap\"><table id=\"pairs-table\">\n<thead><tr><th>Pair</th>"
                "<th class=\"n\">A wins</th><th class=\"n\">Ties</th><th class=\"n\">B wins</th>"
                "<th class=\"n\">Sign test p</th><th class=\"n\">Mean score diff (A&minus;B)</th>"
                "<th class=\"n\">Bootstrap p</th><th>Significant</th>"
                "<th title=\"the two systems' 95% intervals of the overall score do not "
                "overlap\">95% intervals do not overlap</th>"
                "</tr></thead>\n<tbody>\n");
    cJSON_ArrayForEach(p, pairs)
    {
        const cJSON *pb = html_get(p, "paired_bootstrap"), *sig = html_get(p, "significant");

        html_raw(h, "<tr><td>");
        html_text(h, html_str(p, "a"));
        html_raw(h, " vs ");
        html_text(h, html_str(p, "b"));
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(p, "a_wins"), 0, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(p, "ties"), 0, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(p, "b_wins"), 0, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(p, "sign_test_p"), 3, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(pb, "mean_diff"), 3, 0);
        if (!isnan(html_num(pb, "median"))) {
            html_raw(h, " <span class=\"ci\">median ");
            html_number(h, html_num(pb, "median"), 3, 0);
            html_raw(h, "</span>");
        }
        if (!isnan(html_num(pb, "lo")) && !isnan(html_num(pb, "hi"))) {
            html_raw(h, " <span class=\"ci\">[");
            html_number(h, html_num(pb, "lo"), 3, 0);
            html_raw(h, ", ");
            html_number(h, html_num(pb, "hi"), 3, 0);
            html_raw(h, "]</span>");
        }
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(pb, "p"), 3, 0);
        html_raw(h, "</td><td>");
        for (int k = 0; k < 2; k++) {
            const cJSON *b = k ? html_get(p, "intervals_separate") : sig;

            if (k)
                html_raw(h, "</td><td>");
            if (cJSON_IsBool(b))
                html_raw(h, cJSON_IsTrue(b) ? "<span class=\"badge b-pass\">yes</span>"
                                            : "<span class=\"badge b-neutral\">no</span>");
            else
                html_raw(h, "&ndash;");
        }
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n");
}

void html_chart_pairs(struct html *h, const cJSON *report)
{
    int owned, n, i = 0;
    cJSON *pairs = pairs_of(report, &owned);
    const cJSON *p;
    double row = 58, top = 10;

    n = cJSON_GetArraySize(pairs);
    if (n <= 0) {
        if (owned)
            cJSON_Delete(pairs);
        return;
    }
    html_raw(h, "<section class=\"card\" id=\"pairs\">\n<h2>Head to head</h2>\n<p class=\"note\">"
                "Decided cases per pair: the first system's wins, ties, the second's wins. Under "
                "each bar, the dot is the first system's win rate (ties half) and the whisker "
                "its 95% interval; the dashed line is parity.</p>\n");
    svg_open(h, "pairs-chart", top + n * row + 24, "wins, ties and losses per pair of systems");
    grid(h, 250, 560, top - 4, top + n * row - 10, 1, 1);
    cJSON_ArrayForEach(p, pairs)
    {
        pair_row(h, report, p, top + i * row);
        i++;
    }
    html_printf(h,
                "<line x1=\"530\" y1=\"%.1f\" x2=\"530\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-dasharray=\"4 3\" opacity=\".6\"/>\n</svg>\n",
                top - 4, top + n * row - 10, INK);
    if (!owned)
        pairs_table(h, pairs);
    else
        cJSON_Delete(pairs);
    html_raw(h, "</section>\n");
}

static void legend(struct html *h, const cJSON *report)
{
    const cJSON *s;
    int i = 0;

    html_raw(h, "<div class=\"legend\">");
    cJSON_ArrayForEach(s, html_get(report, "systems"))
    {
        html_printf(h, "<span><span class=\"swatch\" style=\"background:%s\"></span>",
                    html_color(i++));
        html_text(h, html_str(s, "name"));
        html_raw(h, "</span>");
    }
    html_raw(h, "</div>\n");
}

/* One group of bars, one per system, for criterion name of dimension dim. */
static void rubric_group(struct html *h, const cJSON *systems, const char *dim, const char *name,
                         double x, double gw, double base, double ph)
{
    const cJSON *s;
    int n = cJSON_GetArraySize(systems), i = 0;
    double bw = (gw - 24) / (n > 0 ? n : 1);

    bw = bw > 46 ? 46 : bw;
    cJSON_ArrayForEach(s, systems)
    {
        double v = html_num(html_get(html_get(s, "rubric"), dim), name);
        double bh = ph * clamp01((v - 0) / 5.0);
        double bx = x + (gw - bw * n) / 2 + i * bw;

        if (!isnan(v)) {
            html_printf(h,
                        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\" "
                        "fill=\"%s\"><title>",
                        bx + 2, base - bh, bw - 4, bh, html_color(i));
            html_text(h, html_str(s, "name"));
            html_raw(h, " &middot; ");
            html_text(h, dim);
            html_raw(h, ": ");
            html_text(h, name);
            html_printf(h, " = %.2f of 5</title></rect>\n", v);
            if (bw >= 26)
                html_printf(h,
                            "<text class=\"val\" x=\"%.1f\" y=\"%.1f\" "
                            "text-anchor=\"middle\">%.2f</text>\n",
                            bx + bw / 2, base - bh - 5, v);
        }
        i++;
    }
    html_printf(h, "<text class=\"lbl\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x + gw / 2,
                base + 17);
    html_text_short(h, name, 18);
    html_printf(h,
                "</text><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                "font-size=\"11\">",
                x + gw / 2, base + 31);
    html_text_short(h, dim, 18);
    html_raw(h, "</text>\n");
}

/* Whether any system has a score for criterion name of dimension dim. */
static int scored(const cJSON *systems, const char *dim, const char *name)
{
    const cJSON *s;

    cJSON_ArrayForEach(s, systems)
    {
        if (!isnan(html_num(html_get(html_get(s, "rubric"), dim), name)))
            return 1;
    }
    return 0;
}

void html_chart_rubric(struct html *h, const cJSON *report)
{
    const cJSON *systems = html_get(report, "systems");
    const cJSON *rubric = html_get(cJSON_GetArrayItem(systems, 0), "rubric"), *dim, *c;
    double x0 = 40, pw = CHART_W - 60, ph = 200, top = 20, gw;
    int groups = 0, g = 0, t;

    html_raw(h, "<section class=\"card\" id=\"rubric\">\n<h2>Rubric criteria</h2>\n");
    cJSON_ArrayForEach(dim, rubric)
    {
        if (!cJSON_IsObject(dim))
            continue;
        cJSON_ArrayForEach(c, dim)
        {
            groups += scored(systems, dim->string, c->string);
        }
    }
    if (groups <= 0) {
        html_raw(h, "<p class=\"empty\">No rubric scores in this run.</p>\n</section>\n");
        return;
    }
    html_raw(h, "<p class=\"note\">Mean score per criterion on the 1&ndash;5 scale, one bar per "
                "system.</p>\n");
    legend(h, report);
    gw = pw / groups;
    svg_open(h, "rubric-chart", top + ph + 40, "mean rubric score per criterion and system");
    for (t = 0; t <= 5; t++) {
        double y = top + ph - ph * t / 5.0;

        html_printf(h,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>"
                    "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%d</text>\n",
                    x0, y, x0 + pw, y, t == 0 ? "#9aa5b1" : GRID_COLOR, x0 - 8, y + 4, t);
    }
    cJSON_ArrayForEach(dim, rubric)
    {
        if (!cJSON_IsObject(dim))
            continue;
        cJSON_ArrayForEach(c, dim)
        {
            if (!scored(systems, dim->string, c->string))
                continue;
            rubric_group(h, systems, dim->string, c->string, x0 + g * gw, gw, top + ph, ph);
            g++;
        }
    }
    html_raw(h, "</svg>\n</section>\n");
}

/* One system's bar in an expectation's group. */
static void expectation_bar(struct html *h, const cJSON *e, const cJSON *s, int i, double y)
{
    const cJSON *c = html_get(html_get(e, "systems"), html_str(s, "name"));
    double x0 = 190, w = 640, r = html_num(c, "pass_rate"), un = html_num(c, "unresolved");
    double passed = html_num(c, "passed"), total = passed + html_num(c, "failed");

    html_printf(h, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", x0 - 10, y + 12);
    html_text_short(h, html_str(s, "name"), 22);
    html_printf(h,
                "</text><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" rx=\"3\" "
                "fill=\"#f1f3f6\"/>",
                x0, y, w);
    if (!c) {
        html_printf(h, "<text x=\"%.1f\" y=\"%.1f\" class=\"val\">not checked</text>\n", x0 + 8,
                    y + 12);
        return;
    }
    html_printf(h,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" rx=\"3\" "
                "fill=\"%s\"><title>",
                x0, y, w * clamp01(r), html_color(i));
    html_text(h, html_str(s, "name"));
    html_raw(h, " &middot; ");
    html_text(h, html_str(e, "id"));
    html_printf(h, ": %.0f of %.0f passed", passed, total);
    if (un > 0)
        html_printf(h, ", %.0f unresolved", un);
    html_raw(h, "</title></rect><text class=\"val\" x=\"");
    html_printf(h, "%.1f\" y=\"%.1f\">", x0 + w + 10, y + 12);
    if (isnan(r))
        html_raw(h, "n/a");
    else
        html_printf(h, "%.1f%% <tspan fill=\"#5a6776\">(%.0f/%.0f)</tspan>", 100 * r, passed,
                    total);
    if (un > 0)
        html_printf(h, " <tspan fill=\"#8a5a00\">%.0f unresolved</tspan>", un);
    html_raw(h, "</text>\n");
}

void html_chart_expectations(struct html *h, const cJSON *report)
{
    const cJSON *list = html_get(report, "expectations"), *e, *s;
    const cJSON *systems = html_get(report, "systems");
    int ns = cJSON_GetArraySize(systems), ne = cJSON_GetArraySize(list), i;
    double group = 26 + ns * 22 + 8, y = 6;

    if (ne <= 0)
        return;
    html_raw(h, "<section class=\"card\" id=\"expectations\">\n<h2>Expectations</h2>\n"
                "<p class=\"note\">Pass rate per expectation and system, over the checks that "
                "resolved; unresolved checks are counted apart.</p>\n");
    legend(h, report);
    svg_open(h, "expectations-chart", ne * group + 8, "pass rate per expectation and system");
    cJSON_ArrayForEach(e, list)
    {
        html_printf(h, "<text class=\"lbl\" x=\"10\" y=\"%.1f\"><tspan font-weight=\"600\">",
                    y + 14);
        html_text_short(h, html_str(e, "id"), 40);
        html_raw(h, "</tspan><tspan fill=\"#5a6776\" dx=\"10\">");
        html_text_short(h, html_str(e, "text"), 110);
        html_raw(h, "</tspan><title>");
        html_text(h, html_str(e, "text"));
        html_raw(h, "</title></text>\n");
        i = 0;
        cJSON_ArrayForEach(s, systems)
        {
            expectation_bar(h, e, s, i, y + 24 + i * 22);
            i++;
        }
        y += group;
    }
    html_raw(h, "</svg>\n</section>\n");
}
