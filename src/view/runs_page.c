/*
 * runs_page.c - the first page of `arbiter view`: every run of the database with its
 * systems, counts, judge and calibration status, and a form to put two runs side by side
 * (the compare page, also here: the report's "against" part, which says which verdicts
 * changed between the runs).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../report/html_int.h"
#include "arbiter/report.h"
#include "view_int.h"

struct runs_ctx {
    struct view_ctx *v;
    struct html *h;
    struct arb_err *err;
    enum arb_status rc;
    int n;
};

static void systems_cell(struct html *h, const char *systems_json)
{
    cJSON *arr = cJSON_Parse(systems_json ? systems_json : "[]"), *s;
    int i = 0;

    cJSON_ArrayForEach(s, arr)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(s, "name");

        if (!cJSON_IsString(name))
            continue;
        if (i)
            html_raw(h, "<br>");
        html_printf(h, "<span class=\"swatch\" style=\"background:%s\"></span>", html_color(i));
        html_text(h, name->valuestring);
        i++;
    }
    cJSON_Delete(arr);
}

/* The judge's provider and model, and the calibration line of the run's procedure. */
static enum arb_status judge_cells(struct runs_ctx *c, const struct arb_run_row *r)
{
    cJSON *judge = r->judge_json ? cJSON_Parse(r->judge_json) : NULL;
    cJSON *health = cJSON_CreateObject();
    const char *hash = html_str(judge, "hash");
    enum arb_status rs;

    if (!health) {
        cJSON_Delete(judge);
        return ARB_ENOMEM;
    }
    html_raw(c->h, "<td>");
    if (judge) {
        html_text(c->h, html_str(judge, "provider"));
        html_raw(c->h, " &middot; ");
        html_text(c->h, html_str(judge, "model"));
    } else {
        html_raw(c->h, "<span class=\"empty\">none</span>");
    }
    html_raw(c->h, "</td><td class=\"calib\">");
    rs = arb_report_add_calibration(c->v->st, r->procedure_hash, judge && *hash ? hash : NULL,
                                    health, c->err);
    if (!rs)
        html_text(c->h, html_str(health, "calibration"));
    html_raw(c->h, "</td>");
    cJSON_Delete(judge);
    cJSON_Delete(health);
    return rs;
}

static int on_run(void *ctx, const struct arb_run_row *r)
{
    struct runs_ctx *c = ctx;
    struct html *h = c->h;
    int64_t verdicts = 0;

    c->rc = arb_store_count(c->v->st, r->id, "verdicts", &verdicts, c->err);
    if (c->rc)
        return 1;
    html_printf(h,
                "<tr class=\"run-row\" data-run=\"%" PRId64 "\"><td class=\"n\">"
                "<a class=\"run-link\" href=\"/runs/%" PRId64 "\">%" PRId64 "</a></td><td>",
                r->id, r->id, r->id);
    html_text(h, r->suite_name && *r->suite_name ? r->suite_name : r->suite_path);
    if (r->kind && strcmp(r->kind, "calibration") == 0)
        html_raw(h, " <span class=\"badge b-info\">calibration</span>");
    html_raw(h, "</td><td>");
    html_text(h, r->created_at);
    html_raw(h, "</td><td>");
    html_text(h, r->status);
    html_raw(h, "</td><td>");
    systems_cell(h, r->systems_json);
    html_printf(h, "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64 "</td>",
                r->n_cases, verdicts);
    c->rc = judge_cells(c, r);
    html_printf(h,
                "<td><a href=\"/runs/%" PRId64 "/cases\">cases</a> &middot; "
                "<a href=\"/runs/%" PRId64 "/report\">report</a></td></tr>\n",
                r->id, r->id);
    c->n++;
    return c->rc != ARB_OK;
}

struct option_ctx {
    struct html *h;
    const char *selected; /* the id to select, or NULL: the pick'th run listed */
    int pick, i;
};

static int on_option(void *ctx, const struct arb_run_row *r)
{
    struct option_ctx *o = ctx;
    char id[32];

    snprintf(id, sizeof(id), "%" PRId64, r->id);
    html_printf(o->h, "<option value=\"%s\"%s>%s &middot; ", id,
                (o->selected ? strcmp(o->selected, id) == 0 : o->i == o->pick) ? " selected" : "",
                id);
    o->i++;
    html_text_short(o->h, r->suite_name && *r->suite_name ? r->suite_name : r->suite_path, 60);
    html_raw(o->h, "</option>");
    return 0;
}

static enum arb_status compare_form(struct view_ctx *v, struct html *h, const char *a,
                                    const char *b, struct arb_err *err)
{
    /* By default the newest run against the one before it. */
    struct option_ctx o = {h, a, 0, 0};
    enum arb_status rs;

    html_raw(h, "<form id=\"compare\" class=\"filters\" method=\"get\" action=\"/compare\">"
                "<label>Run<select name=\"a\">");
    rs = arb_store_runs(v->st, 0, on_option, &o, err);
    html_raw(h, "</select></label><label>against run<select name=\"b\">");
    o.selected = b;
    o.pick = 1;
    o.i = 0;
    if (!rs)
        rs = arb_store_runs(v->st, 0, on_option, &o, err);
    html_raw(h, "</select></label><button type=\"submit\">Compare</button></form>\n");
    return rs;
}

enum arb_status view_runs_page(struct view_ctx *v, const struct view_req *r, struct view_resp *out,
                               struct arb_err *err)
{
    struct html h;
    struct runs_ctx c = {v, &h, err, ARB_OK, 0};
    enum arb_status rs;

    (void)r;
    view_html_begin(&h, v, out, "Runs", 0);
    html_raw(&h, "<h1>Runs</h1>\n<section class=\"card\"><div class=\"table-wrap\">"
                 "<table id=\"runs\"><thead><tr><th>Run</th><th>Suite</th><th>Started</th>"
                 "<th>Status</th><th>Systems</th><th class=\"n\">Cases</th>"
                 "<th class=\"n\">Verdicts</th><th>Judge</th><th>Calibration</th><th></th>"
                 "</tr></thead><tbody>\n");
    rs = arb_store_runs(v->st, 0, on_run, &c, err);
    if (!rs)
        rs = c.rc;
    if (rs)
        return rs;
    html_raw(&h, "</tbody></table></div>\n");
    if (c.n == 0)
        html_raw(&h,
                 "<p class=\"empty\">No runs yet: <code>arbiter run SUITE</code> makes one.</p>");
    html_raw(&h, "</section>\n");
    if (c.n >= 2) {
        html_raw(&h, "<section class=\"card\"><h2>Compare two runs</h2>\n");
        rs = compare_form(v, &h, NULL, NULL, err);
        html_raw(&h, "</section>\n");
    }
    if (rs)
        return rs;
    return view_html_end(&h);
}

/* ---- two runs ------------------------------------------------------------------------------- */

enum arb_status view_compare_page(struct view_ctx *v, const struct view_req *r,
                                  struct view_resp *out, struct arb_err *err)
{
    const char *as = view_arg(r, "a"), *bs = view_arg(r, "b");
    int64_t a = as ? view_run_id(v, as, err) : 0, b = bs ? view_run_id(v, bs, err) : 0;
    const cJSON *rep = NULL;
    struct html h;
    enum arb_status rs;

    if (a < 0 || b < 0)
        return ARB_EDB;
    if (a == 0 || b == 0)
        return view_error_page(v, out, 400, "a and b must name two runs of this database");
    rs = view_cache_against(v, a, b, &rep, err);
    if (rs)
        return rs;
    view_html_begin(&h, v, out, "Compare runs", a);
    html_printf(&h, "<h1>Run %" PRId64 " against run %" PRId64 "</h1>\n", a, b);
    html_raw(&h, "<section class=\"card\">");
    rs = compare_form(v, &h, as, bs, err);
    html_printf(&h,
                "</section>\n<section class=\"card\" id=\"compare-summary\">"
                "<h2>Who won in run %" PRId64 "</h2>\n",
                a);
    html_chart_systems(&h, rep);
    html_raw(&h, "</section>\n");
    html_against(&h, rep);
    if (rs)
        return rs;
    return view_html_end(&h);
}
