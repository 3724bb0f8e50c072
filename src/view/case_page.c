/*
 * case_page.c - one case whole, as `arbiter show` tells it: what it asked, both outputs side
 * by side with a word diff, the verdict and why, each judge order's answer, every check
 * record; with links (and keys) to the previous and next case of the filtered table it was
 * opened from.  The case's data comes from the report's own reader
 * (arb_report_case_detail), so this page and the static report cannot tell it differently.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../report/html_int.h"
#include "arbiter/case_index.h"
#include "arbiter/report.h"
#include "view_int.h"

#define ID_FIRST 1024       /* bytes first offered for a neighbour's case id */
#define ID_MAX   (1u << 20) /* and at most: past it, no link */

/* The systems of run as the report lists them ({"systems": [{"name"}...]}), for colors. */
static int on_run(void *ctx, const struct arb_run_row *r)
{
    cJSON *report = ctx, *arr = cJSON_Parse(r->systems_json ? r->systems_json : "[]");

    if (arr && !cJSON_AddItemToObject(report, "systems", arr))
        cJSON_Delete(arr);
    return 1;
}

static void nav_link(struct html *h, const struct view_filter *f, const char *id,
                     const char *case_id, const char *label)
{
    if (!*case_id) {
        html_printf(h, "<span class=\"disabled\">%s</span>", label);
        return;
    }
    html_printf(h, "<a id=\"%s\" href=\"/runs/%" PRId64 "/cases/", id, f->q.run);
    view_url(h, case_id);
    view_filter_query(h, f, 0);
    html_printf(h, "\">%s</a>", label);
}

/*
 * The case before (dir < 0) or after case_id under f, whole, into *out (the caller frees; ""
 * for none): arb_case_index_neighbor cuts an id that does not fit, and a link to a cut id
 * leads nowhere, so a longer one is asked for again with room for it.
 */
static enum arb_status neighbor(struct view_ctx *v, const struct view_filter *f,
                                const char *case_id, int dir, char **out, struct arb_err *err)
{
    enum arb_status rs;

    *out = NULL;
    for (size_t n = ID_FIRST; n <= ID_MAX; n *= 2) {
        char *buf = malloc(n);

        if (!buf)
            return arb_err_set(err, ARB_ENOMEM, "out of memory");
        rs = arb_case_index_neighbor(v->st, &f->q, case_id, dir, buf, n, err);
        if (rs || strlen(buf) < n - 1) {
            if (rs)
                free(buf);
            else
                *out = buf;
            return rs;
        }
        free(buf);
    }
    *out = calloc(1, 1);
    return *out ? ARB_OK : arb_err_set(err, ARB_ENOMEM, "out of memory");
}

static enum arb_status case_nav(struct html *h, struct view_ctx *v, const struct view_filter *f,
                                const char *case_id, struct arb_err *err)
{
    char *prev = NULL, *next = NULL;
    enum arb_status rs = neighbor(v, f, case_id, -1, &prev, err);

    if (!rs)
        rs = neighbor(v, f, case_id, 1, &next, err);
    if (!rs) {
        html_raw(h, "<div class=\"casenav\">");
        nav_link(h, f, "prev-case", prev, "&larr; previous case");
        html_printf(h, "<a id=\"back-to-list\" href=\"/runs/%" PRId64 "/cases", f->q.run);
        view_filter_query(h, f, 0);
        html_raw(h, "\">back to the list</a>");
        nav_link(h, f, "next-case", next, "next case &rarr;");
        html_raw(h, "<span class=\"keys\"><kbd>j</kbd> next, <kbd>k</kbd> previous, "
                    "<kbd>u</kbd> the list</span></div>\n");
    }
    free(prev);
    free(next);
    return rs;
}

static void output_panel(struct html *h, const cJSON *report, const char *side, const char *name,
                         struct arb_buf *body, int present)
{
    int i = html_system_index(report, name);

    html_printf(h, "<div class=\"output output-%c\"><h4>%c &middot; ", side[0] == 'A' ? 'a' : 'b',
                side[0]);
    if (i >= 0)
        html_printf(h, "<span class=\"swatch\" style=\"background:%s\"></span>", html_color(i));
    html_text(h, name);
    html_raw(h, "</h4><pre class=\"output-text\">");
    if (present)
        html_raw(h, body->ptr ? body->ptr : "");
    else
        html_raw(h, "<span class=\"empty\">no output</span>");
    html_raw(h, "</pre></div>\n");
}

/*
 * An element id of the i-th pair of the case (from 0): the first pair's is the id itself (the
 * contract with the tests), a later one's has its number after it ("outputs-2"), so a case of
 * three systems, three pairs, has no id twice.
 */
static void pair_id(struct html *h, const char *id, int i)
{
    if (i == 0)
        html_printf(h, " id=\"%s\"", id);
    else
        html_printf(h, " id=\"%s-%d\"", id, i + 1);
}

/* Both outputs of the pair, A left and B right, with what B added and A lacked marked. */
static enum arb_status outputs(struct html *h, const cJSON *report, const cJSON *c, int i)
{
    const cJSON *sys = html_get(c, "systems"), *outs = html_get(c, "outputs");
    const char *na = html_str(sys, "A"), *nb = html_str(sys, "B");
    const cJSON *oa = html_get(outs, na), *ob = html_get(outs, nb);
    struct arb_buf ba, bb;
    struct html ha = {&ba, ARB_OK}, hb = {&bb, ARB_OK};
    int diffed = 0;
    enum arb_status rs;

    arb_buf_init(&ba, 64u << 20);
    arb_buf_init(&bb, 64u << 20);
    if (cJSON_IsString(oa) && cJSON_IsString(ob))
        view_word_diff(&ha, &hb, oa->valuestring, ob->valuestring, &diffed);
    else {
        if (cJSON_IsString(oa))
            html_text(&ha, oa->valuestring);
        if (cJSON_IsString(ob))
            html_text(&hb, ob->valuestring);
    }
    rs = ha.st ? ha.st : hb.st;
    if (!rs) {
        html_raw(h, "<h4>Outputs</h4>\n<p class=\"note\">");
        html_raw(h, diffed ? "Words only in A are <del>struck</del>, words only in B "
                             "<ins>marked</ins>."
                           : "Shown without a word diff.");
        html_raw(h, "</p>\n<div class=\"outputs\"");
        pair_id(h, "outputs", i);
        html_raw(h, ">\n");
        output_panel(h, report, "A", na, &ba, cJSON_IsString(oa));
        output_panel(h, report, "B", nb, &bb, cJSON_IsString(ob));
        html_raw(h, "</div>\n");
    }
    arb_buf_release(&ba);
    arb_buf_release(&bb);
    return rs;
}

static void verdict(struct html *h, const cJSON *c, int i)
{
    const cJSON *sc = html_get(c, "scores");

    html_raw(h, "<section class=\"card\"");
    pair_id(h, "verdict", i);
    html_raw(h, "><h2>Verdict</h2>\n<p class=\"meta\"><span>");
    html_text(h, html_str(c, "status"));
    html_raw(h, "</span><span>winner ");
    if (*html_str(c, "winner"))
        html_text(h, html_str(c, "winner"));
    else
        html_raw(h, "none");
    html_raw(h, "</span><span>overall score A ");
    html_number(h, html_num(sc, "A"), 2, 0);
    html_raw(h, ", B ");
    html_number(h, html_num(sc, "B"), 2, 0);
    html_raw(h, "</span></p>\n");
    if (*html_str(c, "judge_error")) {
        html_raw(h, "<h4>Why the judge failed</h4>\n<blockquote class=\"reasoning\">");
        html_text(h, html_str(c, "judge_error"));
        html_raw(h, "</blockquote>\n");
    }
    if (*html_str(c, "reasoning")) {
        html_raw(h, "<h4>Reasoning</h4>\n<blockquote class=\"reasoning\">");
        html_text(h, html_str(c, "reasoning"));
        html_raw(h, "</blockquote>\n");
    }
    if (!html_get(c, "judge") && *html_str(html_get(c, "policy"), "why")) {
        html_raw(h, "<p class=\"note\">");
        html_text(h, html_str(html_get(c, "policy"), "why"));
        html_raw(h, "</p>\n");
    }
    html_raw(h, "</section>\n");
}

/* The i-th pair of the case (from 0). */
static enum arb_status one_pair(struct html *h, const cJSON *report, const cJSON *c, int i)
{
    const cJSON *k;
    enum arb_status rs;

    html_raw(h, "<section class=\"card pair\"><h2>");
    html_text(h, html_str(html_get(c, "systems"), "A"));
    html_raw(h, " <span class=\"ci\">(A)</span> vs ");
    html_text(h, html_str(html_get(c, "systems"), "B"));
    html_raw(h, " <span class=\"ci\">(B)</span></h2>\n<div");
    pair_id(h, "task", i);
    html_raw(h, ">");
    html_case_task(h, report, c);
    html_raw(h, "</div>\n");
    rs = outputs(h, report, c, i);
    html_raw(h, "</section>\n");
    verdict(h, c, i);
    html_raw(h, "<section class=\"card\"");
    pair_id(h, "judge", i);
    html_raw(h, "><h2>The judge</h2>\n");
    if (html_get(c, "judge"))
        html_case_judge(h, report, c);
    else
        html_raw(h, "<p class=\"note\">The judge was not asked about this pair: the checks "
                    "decided it, or no judge was configured.</p>\n");
    html_raw(h, "</section>\n<section class=\"card\"");
    pair_id(h, "checks", i);
    html_raw(h, ">");
    html_printf(h, "<h2>Checks (%d)</h2>\n", cJSON_GetArraySize(html_get(c, "checks")));
    cJSON_ArrayForEach(k, html_get(c, "checks"))
    {
        html_check_record(h, k);
    }
    html_raw(h, "</section>\n");
    return rs;
}

enum arb_status view_case_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                               const char *case_id, struct view_resp *out, struct arb_err *err)
{
    struct view_filter f;
    cJSON *report = cJSON_CreateObject();
    const cJSON *c;
    struct html h;
    char bad[200];
    int i = 0;
    enum arb_status rs;

    if (!report)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (!view_filter_read(r, run, &f, bad, sizeof(bad))) {
        cJSON_Delete(report);
        return view_error_page(v, out, 400, bad);
    }
    rs = arb_store_runs(v->st, run, on_run, report, err);
    if (!rs)
        rs = arb_report_case_detail(v->st, run, case_id, report, err);
    if (!rs && cJSON_GetArraySize(html_get(report, "cases_detail")) == 0) {
        cJSON_Delete(report);
        return view_error_page(v, out, 404, "no such case in this run (or no verdict for it yet)");
    }
    if (rs) {
        cJSON_Delete(report);
        return rs;
    }
    view_html_begin(&h, v, out, case_id, run);
    html_printf(
        &h, "<div class=\"eyebrow\">Run %" PRId64 " &middot; case</div>\n<h1 id=\"case-id\">", run);
    html_text(&h, case_id);
    html_raw(&h, "</h1>\n");
    rs = case_nav(&h, v, &f, case_id, err);
    cJSON_ArrayForEach(c, html_get(report, "cases_detail"))
    {
        if (!rs)
            rs = one_pair(&h, report, c, i++);
    }
    cJSON_Delete(report);
    if (rs)
        return rs;
    return view_html_end(&h);
}
