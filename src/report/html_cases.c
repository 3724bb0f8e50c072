/*
 * html_cases.c - the judge-health panel, the CI gates and the cases: a table
 * of every case linking to its details (what it asked, both outputs side by
 * side, every check record in a collapsible <details>, the judge's reasoning
 * and its answer in each order: html_case_judge.c).
 *
 * Case ids, outputs, reasoning and records are hostile input: all of it goes
 * through html_text, and anchors through html_anchor.  Members the report
 * lacks are skipped (an older report renders without them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html_int.h"

enum tile_kind { TILE_COUNT, TILE_RATE, TILE_SECONDS, TILE_TEXT, TILE_USD };

/* A whole number with thin-space thousands separators (51 234), readable in a tile. */
static void count(struct html *h, double v)
{
    char digits[32];
    int n, i;

    if (isnan(v) || fabs(v) >= 1e15) {
        html_number(h, v, 0, 0);
        return;
    }
    n = snprintf(digits, sizeof(digits), "%.0f", fabs(v));
    if (v <= -0.5)
        html_raw(h, "&minus;");
    for (i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            html_raw(h, "&#8239;");
        html_printf(h, "%c", digits[i]);
    }
}

/* A tile for member key of o; warn colors it amber (a value worth a look). */
static void tile(struct html *h, const cJSON *o, const char *key, const char *label,
                 enum tile_kind kind, int warn, const char *detail)
{
    const cJSON *v = html_get(o, key);
    int na = !cJSON_IsNumber(v) && !(kind == TILE_TEXT && cJSON_IsString(v));
    const char *color = "#8fa9cc";

    if (na)
        color = "#dde3ea";
    else if (warn)
        color = "#d9a400";
    html_printf(h, "<div class=\"tile%s\" style=\"--tile:%s\"", na ? " na" : "", color);
    if (warn && !na)
        html_raw(h, " title=\"worth a look\"");
    html_raw(h, kind == TILE_TEXT ? "><span class=\"v t\">" : "><span class=\"v\">");
    if (na)
        html_raw(h, "&ndash;");
    else if (kind == TILE_TEXT)
        html_text_short(h, v->valuestring, 12);
    else if (kind == TILE_RATE)
        html_number(h, v->valuedouble, 1, 1);
    else if (kind == TILE_SECONDS)
        html_printf(h, "%.1f s", v->valuedouble);
    else if (kind == TILE_USD)
        html_printf(h, "$%.4f", v->valuedouble);
    else
        count(h, v->valuedouble);
    html_printf(h, "</span><span class=\"k\">%s</span>", label);
    if (detail)
        html_printf(h, "<span class=\"d\">%s</span>", detail);
    html_raw(h, "</div>");
}

static int outside(const cJSON *o, const char *key, double lo, double hi)
{
    double v = html_num(o, key);

    return !isnan(v) && (v < lo || v > hi);
}

/* no_tokens: a command judge, which reports none (its token tiles would read 0). */
static void health_tiles(struct html *h, const cJSON *jh, int no_tokens)
{
    const cJSON *cal = html_get(jh, "calibration");

    html_raw(h, "<h3>Judge health</h3>\n<div class=\"tiles\" id=\"judge-health\">");
    tile(h, jh, "requests", "requests", TILE_COUNT, 0, NULL);
    tile(h, jh, "cache_hits", "cache hits", TILE_COUNT, 0, NULL);
    tile(h, jh, "escalated_cases", "escalated cases", TILE_COUNT, 0, NULL);
    tile(h, jh, "escalation_rate", "escalation rate", TILE_RATE, 0, "cases sent to the judge");
    tile(h, jh, "position_inconsistent_rate", "position flips", TILE_RATE,
         outside(jh, "position_inconsistent_rate", 0, 0.2), "verdict changed when swapped");
    tile(h, jh, "first_position_win_rate", "first shown wins", TILE_RATE,
         outside(jh, "first_position_win_rate", 0.35, 0.65), "0.5 is unbiased");
    tile(h, jh, "tie_rate", "tie rate", TILE_RATE, 0, NULL);
    tile(h, jh, "longer_output_won_rate", "longer output won", TILE_RATE,
         outside(jh, "longer_output_won_rate", 0.25, 0.75), "length bias if far from 0.5");
    tile(h, jh, "sample_agreement", "sample agreement", TILE_RATE,
         outside(jh, "sample_agreement", 0.7, 1.0), "samples that agree");
    tile(h, jh, "judge_failed", "judge failed", TILE_COUNT, html_num(jh, "judge_failed") > 0, NULL);
    tile(h, jh, "judge_refused", "judge refused", TILE_COUNT, html_num(jh, "judge_refused") > 0,
         "a refusal or a content filter");
    if (!no_tokens) {
        tile(h, jh, "prompt_tokens", "prompt tokens", TILE_COUNT, 0, NULL);
        tile(h, jh, "completion_tokens", "completion tokens", TILE_COUNT, 0, NULL);
    }
    tile(h, jh, "config_hash", "config", TILE_TEXT, 0, NULL);
    tile(h, jh, "calibration", "calibration", TILE_TEXT,
         cJSON_IsString(cal) && strncmp(cal->valuestring, "uncalibrated", 12) == 0, NULL);
    html_raw(h, "</div>\n");
    /* The tile shows its start; the whole line names the study, or why none applies. */
    if (cJSON_IsString(cal)) {
        html_raw(h, "<p class=\"calibration\">Calibration: ");
        html_text(h, cal->valuestring);
        html_raw(h, "</p>\n");
    }
}

/* What the judge cost this run (when its config has a price), and the costliest cases. */
static void cost_tiles(struct html *h, const cJSON *jc)
{
    const cJSON *p = html_get(jc, "price_per_million_tokens"), *k;
    int first = 1;

    if (!cJSON_IsObject(jc))
        return;
    html_raw(h, "<h3>Cost</h3>\n<div class=\"tiles\" id=\"judge-cost\">");
    tile(h, jc, "total", "judge cost (USD)", TILE_USD, 0, NULL);
    tile(h, jc, "mean_per_judged_case", "per judged case", TILE_USD, 0, NULL);
    tile(h, jc, "requests", "requests paid", TILE_COUNT, 0, "sent by this run");
    tile(h, jc, "cached_tokens", "cached prompt tokens", TILE_COUNT, 0, NULL);
    html_raw(h, "</div>\n");
    html_printf(h,
                "<p class=\"note\">At $%g per million input tokens, $%g cached, $%g output; "
                "a reply from the cache cost this run nothing.",
                html_num(p, "input"), html_num(p, "cached_input"), html_num(p, "output"));
    cJSON_ArrayForEach(k, html_get(jc, "costliest"))
    {
        html_raw(h, first ? " Costliest cases: " : ", ");
        first = 0;
        html_text(h, html_str(k, "case"));
        html_printf(h, " $%.4f", html_num(k, "cost"));
    }
    html_raw(h, "</p>\n");
}

/* Why the judge failed: each reason with its judgments and the first of its cases. */
static void failures_table(struct html *h, const cJSON *jh)
{
    const cJSON *list = html_get(jh, "judge_failures"), *f, *id;
    const cJSON *more = html_get(jh, "judge_failures_more");

    if (cJSON_GetArraySize(list) <= 0)
        return;
    html_raw(h, "<h3>Judge failures</h3>\n<p class=\"note\">Why the judge gave no valid "
                "answer, most frequent first (<code>arbiter show RUN CASE</code> shows each "
                "judgment).</p>\n<div class=\"table-wrap\"><table id=\"judge-failures\">\n"
                "<thead><tr><th>Reason</th><th class=\"n\">Judgments</th>"
                "<th>Cases (first few)</th></tr></thead>\n<tbody>\n");
    cJSON_ArrayForEach(f, list)
    {
        const cJSON *ids = html_get(f, "case_ids");
        int first = 1;

        html_raw(h, "<tr><td>");
        html_text_short(h, html_str(f, "reason"), 500);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(f, "count"), 0, 0);
        html_raw(h, "</td><td>");
        html_number(h, html_num(f, "cases"), 0, 0);
        html_raw(h, ":");
        cJSON_ArrayForEach(id, ids)
        {
            html_raw(h, first ? " " : ", ");
            first = 0;
            html_raw(h, "<a href=\"#");
            html_anchor(h, cJSON_IsString(id) ? id->valuestring : "", 0);
            html_raw(h, "\">");
            html_text(h, cJSON_IsString(id) ? id->valuestring : "");
            html_raw(h, "</a>");
        }
        if (html_num(f, "cases") > cJSON_GetArraySize(ids))
            html_raw(h, ", &hellip;");
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n");
    if (cJSON_IsObject(more))
        html_printf(h, "<p class=\"note\">And %.0f more reasons (%.0f judgments).</p>\n",
                    html_num(more, "reasons"), html_num(more, "count"));
}

void html_judge_panel(struct html *h, const cJSON *report)
{
    const cJSON *judge = html_get(html_get(report, "run"), "judge");
    const cJSON *jh = html_get(report, "judge_health"), *ju = html_get(report, "judge_usage");

    int is_command = judge && strcmp(html_str(judge, "provider"), "command") == 0;

    html_raw(h, "<section class=\"card\" id=\"judge\">\n<h2>Judge</h2>\n<p class=\"note\">");
    if (is_command) {
        const cJSON *arg;
        int first = 1;

        html_raw(h, "Command <code>");
        cJSON_ArrayForEach(arg, html_get(judge, "command"))
        {
            if (!first)
                html_raw(h, " ");
            first = 0;
            html_text(h, cJSON_IsString(arg) ? arg->valuestring : "");
        }
        html_raw(h, "</code>");
    } else if (judge) {
        html_raw(h, "Model ");
        html_text(h, html_str(judge, "model"));
    }
    if (judge) {
        if (*html_str(judge, "hash")) {
            const char *hash = html_str(judge, "hash");

            /* Its first 12 digits, as git abbreviates; the whole one in the tooltip. */
            html_raw(h, ", config <code title=\"");
            html_text(h, hash);
            html_raw(h, "\">");
            html_text_n(h, hash, strlen(hash) < 12 ? strlen(hash) : 12);
            html_raw(h, "</code>");
        }
        html_raw(h, ".");
    } else {
        html_raw(h, "No judge was configured: cases the checks could not decide stay pending.");
    }
    html_raw(h, "</p>\n");
    if (cJSON_IsObject(jh))
        health_tiles(h, jh, is_command);
    failures_table(h, jh);
    if (cJSON_IsObject(ju)) {
        html_raw(h, "<h3>Usage</h3>\n<div class=\"tiles\" id=\"judge-usage\">");
        tile(h, ju, "judgments", "judgments", TILE_COUNT, 0, NULL);
        tile(h, ju, "cached", "from the cache", TILE_COUNT, 0, NULL);
        tile(h, ju, "invalid_replies", "invalid replies", TILE_COUNT,
             html_num(ju, "invalid_replies") > 0, NULL);
        if (!is_command) {
            tile(h, ju, "prompt_tokens", "prompt tokens", TILE_COUNT, 0, NULL);
            tile(h, ju, "completion_tokens", "completion tokens", TILE_COUNT, 0, NULL);
        }
        tile(h, ju, "latency_s", "judge latency", TILE_SECONDS, 0, NULL);
        html_raw(h, "</div>\n");
    }
    cost_tiles(h, html_get(report, "judge_cost"));
    html_raw(h, "</section>\n");
}

/* A gate's number: rates as given (the report states them as fractions). */
static void gate_value(struct html *h, const cJSON *v)
{
    if (cJSON_IsNumber(v))
        html_printf(h, "%.4g", v->valuedouble);
    else if (cJSON_IsString(v))
        html_text(h, v->valuestring);
    else if (cJSON_IsBool(v))
        html_raw(h, cJSON_IsTrue(v) ? "true" : "false");
    else
        html_raw(h, "&ndash;");
}

void html_gates(struct html *h, const cJSON *report)
{
    const cJSON *gates = html_get(report, "gates"), *g;

    if (!cJSON_IsArray(gates))
        return;
    html_raw(h, "<section class=\"card\" id=\"gates\">\n<h2>Gates</h2>\n");
    if (cJSON_GetArraySize(gates) == 0) {
        html_raw(h, "<p class=\"empty\">No gates were set for this report.</p>\n</section>\n");
        return;
    }
    html_raw(h, "<div class=\"table-wrap\"><table id=\"gates-table\">\n<thead><tr><th>Gate</th>"
                "<th class=\"n\">Value</th><th class=\"n\">Threshold</th><th>Result</th></tr>"
                "</thead>\n<tbody>\n");
    cJSON_ArrayForEach(g, gates)
    {
        const cJSON *passed = html_get(g, "passed");

        html_raw(h, "<tr><td>");
        html_text(h, html_str(g, "gate"));
        html_raw(h, "</td><td class=\"n\">");
        gate_value(h, html_get(g, "value"));
        html_raw(h, "</td><td class=\"n\">");
        gate_value(h, html_get(g, "threshold"));
        html_raw(h, "</td><td>");
        if (cJSON_IsBool(passed))
            html_raw(h, cJSON_IsTrue(passed) ? "<span class=\"badge b-pass\">passed</span>"
                                             : "<span class=\"badge b-fail\">failed</span>");
        else
            html_raw(h, "&ndash;");
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n</section>\n");
}

/* A badge for a case status or a check verdict, colored by what it means. */
static void badge(struct html *h, const char *word)
{
    const char *cls = "b-neutral";

    if (strcmp(word, "pass") == 0 || strcmp(word, "decided") == 0)
        cls = "b-pass";
    else if (strcmp(word, "fail") == 0 || strcmp(word, "missing_output") == 0 ||
             strcmp(word, "judge_failed") == 0 || strcmp(word, "judge_refused") == 0 ||
             strcmp(word, "error") == 0)
        cls = "b-fail";
    else if (strcmp(word, "unresolved") == 0 || strcmp(word, "pending_judge") == 0)
        cls = "b-warn";
    html_printf(h, "<span class=\"badge %s\">", cls);
    html_text(h, *word ? word : "?");
    html_raw(h, "</span>");
}

/* The system a case's winner names: "A" / "B" through the blinding, else as given. */
static void winner(struct html *h, const cJSON *report, const cJSON *c)
{
    const char *w = html_str(c, "winner");
    const cJSON *sys = html_get(c, "systems");
    const char *name = w;
    int i;

    if (!*w) {
        html_raw(h, "&ndash;");
        return;
    }
    if (strcmp(w, "TIE") == 0 || strcmp(w, "tie") == 0) {
        html_raw(h, "<span class=\"badge b-neutral\">tie</span>");
        return;
    }
    if ((strcmp(w, "A") == 0 || strcmp(w, "B") == 0) && *html_str(sys, w))
        name = html_str(sys, w);
    i = html_system_index(report, name);
    if (i < 0) {
        html_text(h, name);
        return;
    }
    html_printf(h, "<span class=\"swatch\" style=\"background:%s\"></span>", html_color(i));
    html_text(h, name);
}

/* The case's checks as pass / fail / unresolved counts. */
static void check_counts(struct html *h, const cJSON *c)
{
    const cJSON *k;
    int pass = 0, fail = 0, other = 0;

    cJSON_ArrayForEach(k, html_get(c, "checks"))
    {
        const char *v = html_str(k, "verdict");

        if (strcmp(v, "pass") == 0)
            pass++;
        else if (strcmp(v, "fail") == 0)
            fail++;
        else
            other++;
    }
    html_printf(h, "<span title=\"passed\">%d</span> / <span title=\"failed\">%d</span>", pass,
                fail);
    if (other)
        html_printf(h, " / <span title=\"unresolved\">%d</span>", other);
}

/* 0 for the first entry of a case id, else its position + 1 (see html_anchor). */
static int anchor_seq(const cJSON *cases, const cJSON *c, int index)
{
    const cJSON *e;
    const char *id = html_str(c, "id");

    for (e = cases->child; e && e != c; e = e->next) {
        if (strcmp(html_str(e, "id"), id) == 0)
            return index + 1;
    }
    return 0;
}

static void cases_table(struct html *h, const cJSON *report, const cJSON *cases)
{
    const cJSON *c;
    int i = 0;

    html_raw(h, "<div class=\"table-wrap\"><table id=\"cases-table\">\n<thead><tr><th>Case</th>"
                "<th>Status</th><th>Winner</th><th>A</th><th>B</th><th class=\"n\">Score A</th>"
                "<th class=\"n\">Score B</th><th class=\"n\">Checks pass / fail</th></tr>"
                "</thead>\n<tbody>\n");
    cJSON_ArrayForEach(c, cases)
    {
        const cJSON *sys = html_get(c, "systems"), *sc = html_get(c, "scores");

        html_raw(h, "<tr><td><a href=\"#");
        html_anchor(h, html_str(c, "id"), anchor_seq(cases, c, i++));
        html_raw(h, "\">");
        html_text(h, html_str(c, "id"));
        html_raw(h, "</a></td><td>");
        badge(h, html_str(c, "status"));
        html_raw(h, "</td><td>");
        winner(h, report, c);
        html_raw(h, "</td><td>");
        html_text(h, html_str(sys, "A"));
        html_raw(h, "</td><td>");
        html_text(h, html_str(sys, "B"));
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(sc, "A"), 2, 0);
        html_raw(h, "</td><td class=\"n\">");
        html_number(h, html_num(sc, "B"), 2, 0);
        html_raw(h, "</td><td class=\"n\">");
        check_counts(h, c);
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table></div>\n");
}

/* One output in a <pre>, under its blinded label and system name. */
static void output_panel(struct html *h, const cJSON *report, const char *label, const char *name,
                         const cJSON *text)
{
    html_raw(h, "<div><h4>");
    if (label) {
        html_text(h, label);
        html_raw(h, " &middot; ");
    }
    if (html_system_index(report, name) >= 0)
        html_printf(h, "<span class=\"swatch\" style=\"background:%s\"></span>",
                    html_color(html_system_index(report, name)));
    html_text(h, name);
    html_raw(h, "</h4><pre class=\"output\">");
    if (cJSON_IsString(text))
        html_text(h, text->valuestring);
    else
        html_raw(h, "<span class=\"empty\">no output</span>");
    html_raw(h, "</pre></div>\n");
}

static void outputs(struct html *h, const cJSON *report, const cJSON *c)
{
    const cJSON *sys = html_get(c, "systems"), *outs = html_get(c, "outputs"), *o;

    if (!cJSON_IsObject(outs))
        return;
    html_raw(h, "<div class=\"outputs\">\n");
    if (*html_str(sys, "A") || *html_str(sys, "B")) {
        output_panel(h, report, "A", html_str(sys, "A"), html_get(outs, html_str(sys, "A")));
        output_panel(h, report, "B", html_str(sys, "B"), html_get(outs, html_str(sys, "B")));
    } else {
        cJSON_ArrayForEach(o, outs)
        {
            output_panel(h, report, NULL, o->string, o);
        }
    }
    html_raw(h, "</div>\n");
}

#define RECORD_STRING_SHOWN 20000 /* bytes of a string of a record shown, as of an output */

/* Whether x holds a string longer than a record shows. */
static int has_long_string(const cJSON *x)
{
    const cJSON *c;

    if (cJSON_IsString(x))
        return strlen(x->valuestring) > RECORD_STRING_SHOWN + 64;
    cJSON_ArrayForEach(c, x)
    {
        if (has_long_string(c))
            return 1;
    }
    return 0;
}

/*
 * Cut each string of x longer than RECORD_STRING_SHOWN (at a character) and say how much is
 * left out: a record may hold a whole output ("observed"), and a 10 MB one, escaped, would
 * make a page past any buffer's cap.  In place: the note fits in what is cut.
 */
static void cut_long_strings(cJSON *x)
{
    cJSON *c;

    if (cJSON_IsString(x)) {
        size_t len = strlen(x->valuestring), n = RECORD_STRING_SHOWN;

        if (len <= n + 64)
            return;
        while (n > 0 && ((unsigned char)x->valuestring[n] & 0xc0) == 0x80)
            n--;
        snprintf(x->valuestring + n, len - n + 1, "\n[... %zu more bytes]", len - n);
        return;
    }
    cJSON_ArrayForEach(c, x)
    {
        cut_long_strings(c);
    }
}

void html_check_record(struct html *h, const cJSON *k)
{
    const cJSON *rec = html_get(k, "record");
    cJSON *cut = NULL;
    char *text;

    html_raw(h, "<details class=\"check\"><summary>");
    badge(h, html_str(k, "verdict"));
    html_raw(h, " ");
    html_text(h, html_str(k, "system"));
    html_raw(h, " &middot; ");
    html_text(h, html_str(k, "kind"));
    html_raw(h, " &middot; <span class=\"item\">");
    html_text(h, html_str(k, "item"));
    html_raw(h, "</span>");
    if (!isnan(html_num(k, "score")))
        html_printf(h, " &middot; score %.3g", html_num(k, "score"));
    html_raw(h, "</summary><pre>");
    if (rec && has_long_string(rec)) {
        cut = cJSON_Duplicate(rec, 1);
        if (!cut && !h->st)
            h->st = ARB_ENOMEM; /* nothing more is written */
        cut_long_strings(cut);
        rec = cut;
    }
    if (rec) {
        text = cJSON_Print(rec);
        if (!text && !h->st)
            h->st = ARB_ENOMEM;
        html_text(h, text);
        cJSON_free(text);
    } else {
        html_raw(h, "no record");
    }
    cJSON_Delete(cut);
    html_raw(h, "</pre></details>\n");
}

static void case_details(struct html *h, const cJSON *report, const cJSON *c, int seq)
{
    const cJSON *sc = html_get(c, "scores"), *k;

    html_raw(h, "<div class=\"case\" id=\"");
    html_anchor(h, html_str(c, "id"), seq);
    html_raw(h, "\">\n<h3>Case ");
    html_text(h, html_str(c, "id"));
    html_raw(h, " <a class=\"back\" href=\"#cases-table\">back to the table</a></h3>\n"
                "<p class=\"meta\"><span>");
    badge(h, html_str(c, "status"));
    html_raw(h, "</span><span>winner ");
    winner(h, report, c);
    html_raw(h, "</span>");
    if (!isnan(html_num(sc, "A")) || !isnan(html_num(sc, "B"))) {
        html_raw(h, "<span>scores A ");
        html_number(h, html_num(sc, "A"), 2, 0);
        html_raw(h, ", B ");
        html_number(h, html_num(sc, "B"), 2, 0);
        html_raw(h, "</span>");
    }
    html_raw(h, "</p>\n");
    if (*html_str(c, "judge_error")) {
        html_raw(h, "<h4>Why the judge failed</h4>\n<blockquote class=\"reasoning\">");
        html_text_short(h, html_str(c, "judge_error"), 2000);
        html_raw(h, "</blockquote>\n");
    }
    html_case_task(h, report, c);
    if (html_case_inconsistent(c)) {
        /* The comparison keeps the first order's reasoning: each order's is below. */
        html_raw(h, "<h4>The judge's orders disagree</h4>\n<p class=\"note\">Asked with each "
                    "output shown first, the judge named a different winner each time "
                    "(position-inconsistent): each order's winner and reasoning are under "
                    "<em>The judge, order by order</em>.</p>\n");
    } else if (*html_str(c, "reasoning")) {
        html_raw(h, "<h4>The judge's reasoning</h4>\n<blockquote class=\"reasoning\">");
        html_text(h, html_str(c, "reasoning"));
        html_raw(h, "</blockquote>\n");
    }
    outputs(h, report, c);
    html_case_judge(h, report, c);
    if (cJSON_GetArraySize(html_get(c, "checks")) > 0) {
        html_printf(h, "<h4>Checks (%d)</h4>\n", cJSON_GetArraySize(html_get(c, "checks")));
        cJSON_ArrayForEach(k, html_get(c, "checks"))
        {
            html_check_record(h, k);
        }
    }
    html_raw(h, "</div>\n");
}

void html_cases(struct html *h, const cJSON *report, const struct arb_report_sink *sink)
{
    const cJSON *cases = html_case_list(report), *c;
    int i = 0;

    if (!cases)
        return;
    html_printf(h, "<section class=\"card\" id=\"cases\">\n<h2>Cases (%d)</h2>\n",
                cJSON_GetArraySize(cases));
    if (cJSON_GetArraySize(cases) == 0) {
        html_raw(h, "<p class=\"empty\">No cases.</p>\n</section>\n");
        return;
    }
    html_raw(h, "<p class=\"note\">Each case links to what it asked, both outputs, every check "
                "record, the judge's reasoning and its answer in each order.");
    if (!isnan(html_num(report, "cases_detail_limit")))
        html_printf(h, " Only the first %.0f verdicts are listed.",
                    html_num(report, "cases_detail_limit"));
    html_raw(h, "</p>\n");
    html_cases_task(h, report);
    cases_table(h, report, cases);
    cJSON_ArrayForEach(c, cases)
    {
        case_details(h, report, c, anchor_seq(cases, c, i));
        html_flush(h, sink); /* a case at a time: the detail is most of the page */
        i++;
    }
    html_raw(h, "</section>\n");
}
