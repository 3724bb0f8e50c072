/*
 * cases_page.c - the cases of a run as a table: filters (status, winner, the flags of
 * case_index.h), search over case ids, prompts and outputs, sorting and paging, all done by
 * the case index in SQL, so a page of a 100,000-case run reads one page of rows.
 *
 * The filter lives in the URL (view_filter_read / view_filter_query): a filtered table can
 * be bookmarked, and each case link carries it, so the case page steps through the same
 * cases.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../report/html_int.h"
#include "arbiter/case_index.h"
#include "view_int.h"

static const struct {
    const char *word, *label;
    unsigned flag;
} flags[] = {
    {"judged", "judged", ARB_CASE_JUDGED},
    {"pi", "position-inconsistent", ARB_CASE_POSITION_INCONSISTENT},
    {"jf", "judge failed", ARB_CASE_JUDGE_FAILED},
    {"disagree", "checks and judge disagree", ARB_CASE_DISAGREE},
    {"expfail", "expectation failed", ARB_CASE_EXPECTATION_FAILED},
};

static const char *const statuses[] = {"decided", "pending_judge", "missing_output", "judge_failed",
                                       "judge_refused"};

struct table_ctx {
    struct html *h;
    const struct view_filter *f;
    int64_t run;
    int n;
};

static void badge(struct html *h, const char *word)
{
    const char *cls = "b-neutral";

    if (!word)
        word = "pending";
    if (strcmp(word, "decided") == 0)
        cls = "b-pass";
    else if (strncmp(word, "judge_", 6) == 0)
        cls = "b-fail";
    else if (strcmp(word, "pending_judge") == 0 || strcmp(word, "missing_output") == 0)
        cls = "b-warn";
    html_printf(h, "<span class=\"badge %s\">", cls);
    html_text(h, word);
    html_raw(h, "</span>");
}

static void score(struct html *h, double v)
{
    html_raw(h, "<td class=\"n\">");
    if (isnan(v))
        html_raw(h, "&ndash;");
    else
        html_printf(h, "%.2f", v);
    html_raw(h, "</td>");
}

static int on_row(void *ctx, const struct arb_case_entry *e)
{
    struct table_ctx *t = ctx;
    struct html *h = t->h;

    html_raw(h, "<tr class=\"case-row\" data-case=\"");
    html_text(h, e->case_id);
    html_printf(h, "\"><td class=\"n\">%" PRId64 "</td><td class=\"id\">", e->seq + 1);
    html_printf(h, "<a class=\"case-link\" href=\"/runs/%" PRId64 "/cases/", t->run);
    view_url(h, e->case_id);
    view_filter_query(h, t->f, 0);
    html_raw(h, "\">");
    html_text(h, e->case_id);
    html_raw(h, "</a></td><td>");
    html_text(h, e->system_a);
    html_raw(h, " <span class=\"ci\">vs</span> ");
    html_text(h, e->system_b);
    html_raw(h, "</td><td>");
    badge(h, e->status);
    html_raw(h, "</td><td>");
    if (e->winner)
        html_text(h, e->winner);
    else
        html_raw(h, "<span class=\"empty\">none</span>");
    html_raw(h, "</td><td>");
    if (e->judge_winner)
        html_text(h, e->judge_winner);
    else if (e->flags & ARB_CASE_POSITION_INCONSISTENT)
        html_raw(h, "<span class=\"empty\">split</span>");
    html_raw(h, "</td>");
    score(h, e->score_a);
    score(h, e->score_b);
    html_raw(h, "<td>");
    for (size_t i = 1; i < sizeof(flags) / sizeof(flags[0]); i++)
        if (e->flags & flags[i].flag)
            html_printf(h, "<span class=\"badge b-info flag\" data-flag=\"%s\">%s</span> ",
                        flags[i].word, flags[i].label);
    html_raw(h, "</td></tr>\n");
    t->n++;
    return 0;
}

static void option(struct html *h, const char *value, const char *label, const char *current)
{
    html_raw(h, "<option value=\"");
    html_text(h, value);
    html_raw(h, current && strcmp(current, value) == 0 ? "\" selected>" : "\">");
    html_text(h, label);
    html_raw(h, "</option>");
}

struct systems_ctx {
    struct html *h;
    const char *current;
};

static int on_run_systems(void *ctx, const struct arb_run_row *r)
{
    struct systems_ctx *s = ctx;
    cJSON *arr = cJSON_Parse(r->systems_json ? r->systems_json : "[]"), *x;

    cJSON_ArrayForEach(x, arr)
    {
        const char *name = html_str(x, "name");

        if (*name)
            option(s->h, name, name, s->current);
    }
    cJSON_Delete(arr);
    return 1;
}

/* The filter form: the flags as hidden fields (they are toggled by the links above it). */
static enum arb_status filter_form(struct html *h, struct view_ctx *v, const struct view_filter *f,
                                   struct arb_err *err)
{
    static const char *const sorts[][2] = {{"seq", "reading order"},
                                           {"id", "case id"},
                                           {"status", "status"},
                                           {"winner", "winner"},
                                           {"margin", "score margin"}};
    struct systems_ctx sc = {h, f->q.winner};
    enum arb_status rs;

    html_printf(h,
                "<form id=\"filters\" class=\"filters\" method=\"get\" action=\"/runs/%" PRId64
                "/cases\"><label>Search<input type=\"search\" name=\"q\" value=\"",
                f->q.run);
    html_text(h, f->q.search ? f->q.search : "");
    html_raw(h, "\" placeholder=\"case id, prompt or output text\"></label>"
                "<label>Status<select name=\"status\"><option value=\"\">any</option>");
    for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
        option(h, statuses[i], statuses[i], f->q.status);
    html_raw(h, "</select></label><label>Winner<select name=\"winner\">"
                "<option value=\"\">any</option>");
    rs = arb_store_runs(v->st, f->q.run, on_run_systems, &sc, err);
    option(h, "TIE", "TIE", f->q.winner);
    option(h, "none", "none (undecided)", f->q.winner);
    html_raw(h, "</select></label><label>Sort<select name=\"sort\">");
    for (size_t i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++)
        option(h, sorts[i][0], sorts[i][1], sorts[f->q.sort][0]);
    html_raw(h, "</select></label><label>Order<select name=\"dir\">");
    option(h, "asc", "ascending", f->q.descending ? "desc" : "asc");
    option(h, "desc", "descending", f->q.descending ? "desc" : "asc");
    html_raw(h, "</select></label>");
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
        if (f->q.flags & flags[i].flag)
            html_printf(h, "<input type=\"hidden\" name=\"flag\" value=\"%s\">", flags[i].word);
    if (f->q.limit != 50)
        html_printf(h, "<input type=\"hidden\" name=\"per\" value=\"%" PRId64 "\">", f->q.limit);
    html_raw(h, "<button type=\"submit\">Apply</button></form>\n");
    return rs;
}

/* One link per flag, toggling it in the current filter, with how many rows of the run have it. */
static void flag_links(struct html *h, const struct view_filter *f, const int64_t counts[5])
{
    html_raw(h, "<div class=\"flags\" id=\"flag-filters\">");
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        struct view_filter g = *f;
        int on = (f->q.flags & flags[i].flag) != 0;

        g.q.flags ^= flags[i].flag;
        html_printf(h, "<a class=\"flag-filter%s\" data-flag=\"%s\" href=\"/runs/%" PRId64 "/cases",
                    on ? " on" : "", flags[i].word, f->q.run);
        view_filter_query(h, &g, 0);
        html_printf(h, "\">%s%s<span class=\"c\">%" PRId64 "</span></a>", on ? "&#10003; " : "",
                    flags[i].label, counts[i]);
    }
    html_raw(h, "</div>\n");
}

static void pager(struct html *h, const struct view_filter *f, int64_t total)
{
    int64_t pages = total ? (total + f->q.limit - 1) / f->q.limit : 1;

    html_raw(h, "<div class=\"pager\">");
    if (f->page > 1) {
        html_printf(h, "<a id=\"prev-page\" href=\"/runs/%" PRId64 "/cases", f->q.run);
        view_filter_query(h, f, f->page - 1 > 1 ? f->page - 1 : 0);
        html_raw(h, "\">&larr; previous</a>");
    } else {
        html_raw(h, "<span class=\"disabled\">&larr; previous</span>");
    }
    html_printf(h, "<span>page %" PRId64 " of %" PRId64 "</span>", f->page, pages);
    if (f->page < pages) {
        html_printf(h, "<a id=\"next-page\" href=\"/runs/%" PRId64 "/cases", f->q.run);
        view_filter_query(h, f, f->page + 1);
        html_raw(h, "\">next &rarr;</a>");
    } else {
        html_raw(h, "<span class=\"disabled\">next &rarr;</span>");
    }
    html_raw(h, "<span class=\"keys\"><kbd>j</kbd> <kbd>k</kbd> move, <kbd>Enter</kbd> opens, "
                "<kbd>n</kbd> <kbd>p</kbd> pages</span></div>\n");
}

enum arb_status view_cases_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                                struct view_resp *out, struct arb_err *err)
{
    struct view_filter f;
    struct html h;
    struct table_ctx t;
    int64_t total = 0, counts[5] = {0}, all = 0;
    char bad[200];
    enum arb_status rs;

    if (!view_filter_read(r, run, &f, bad, sizeof(bad)))
        return view_error_page(v, out, 400, bad);
    rs = arb_case_index_counts(v->st, run, counts, &all, err);
    if (rs)
        return rs;
    view_html_begin(&h, v, out, "Cases", run);
    html_printf(&h, "<div class=\"eyebrow\">Run %" PRId64 "</div>\n<h1>Cases</h1>\n", run);
    rs = filter_form(&h, v, &f, err);
    flag_links(&h, &f, counts);
    t = (struct table_ctx){&h, &f, run, 0};
    html_raw(&h, "<section class=\"card\"><div class=\"table-wrap\"><table id=\"cases\">"
                 "<thead><tr><th class=\"n\">#</th><th>Case</th><th>Pair (A vs B)</th>"
                 "<th>Status</th><th>Winner</th><th>Judge</th><th class=\"n\">Score A</th>"
                 "<th class=\"n\">Score B</th><th>Flags</th></tr></thead><tbody>\n");
    if (!rs)
        rs = arb_case_index_query(v->st, &f.q, on_row, &t, &total, err);
    if (rs)
        return rs;
    html_raw(&h, "</tbody></table></div>\n");
    if (t.n == 0)
        html_raw(&h, "<p class=\"empty\" id=\"no-cases\">No case matches this filter.</p>\n");
    html_printf(&h,
                "<p class=\"meta\"><span><span id=\"total\">%" PRId64 "</span> of %" PRId64
                " rows match</span></p>\n",
                total, all);
    pager(&h, &f, total);
    html_raw(&h, "</section>\n");
    return view_html_end(&h);
}
