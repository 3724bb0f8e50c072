/*
 * labels_page.c - what follows a label: the reveal page (the systems behind Response A and
 * B, the annotator's label in their names, the run's verdict and the judge's answer, shown
 * only to an annotator who has labelled that pair), and the run's labels with their
 * agreement, measured by the same code as `arbiter calibrate --run RUN --labels-from-db`
 * (arb_labels_jsonl read by arb_calib_load_named_text, then arb_calib_from_run and
 * arb_calib_study), so the page and the command cannot give different figures.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../report/html_int.h"
#include "arbiter/calibrate.h"
#include "arbiter/labels.h"
#include "arbiter/report.h"
#include "view_int.h"

/* ---- the reveal page ---------------------------------------------------------------------- */

struct own_label {
    const char *a, *b;
    int found, oom;
    char choice[8];
    char *winner, *note; /* owned */
};

static int on_own(void *ctx, const struct arb_label_row *l)
{
    struct own_label *o = ctx;

    if (strcmp(l->system_a, o->a) != 0 || strcmp(l->system_b, o->b) != 0)
        return 0;
    o->found = 1;
    snprintf(o->choice, sizeof(o->choice), "%s", l->choice);
    o->winner = strdup(l->winner ? l->winner : "");
    o->note = l->note ? strdup(l->note) : NULL;
    o->oom = !o->winner || (l->note && !o->note);
    return 1;
}

static int on_systems(void *ctx, const struct arb_run_row *r)
{
    cJSON *report = ctx, *arr = cJSON_Parse(r->systems_json ? r->systems_json : "[]");

    if (arr && !cJSON_AddItemToObject(report, "systems", arr))
        cJSON_Delete(arr);
    return 1;
}

/* c: the pair's verdict in the report's case detail, or NULL when none is stored yet. */
static void revealed(struct html *h, const cJSON *report, const cJSON *c,
                     const struct own_label *own)
{
    html_raw(h, "<section class=\"card\" id=\"revealed\"><h2>What was behind A and B</h2>\n"
                "<p>Response A was <strong class=\"system-a\">");
    html_text(h, own->a);
    html_raw(h, "</strong>; Response B was <strong class=\"system-b\">");
    html_text(h, own->b);
    html_raw(h, "</strong>.</p>\n<p id=\"your-label\">You chose ");
    html_text(h, strcmp(own->choice, "tie") == 0 ? "a tie" : own->choice);
    if (strcmp(own->choice, "tie") != 0) {
        html_raw(h, ": ");
        html_text(h, own->winner);
    }
    html_raw(h, ".</p>\n<p id=\"run-verdict\">");
    if (!c) {
        html_raw(h, "The run has not decided this pair yet.</p>\n</section>\n");
        return;
    }
    html_raw(h, "The run decided: ");
    html_text(h, html_str(c, "status"));
    html_raw(h, ", winner ");
    html_text(h, *html_str(c, "winner") ? html_str(c, "winner") : "none");
    html_raw(h, ".</p>\n");
    if (html_get(c, "judge"))
        html_case_judge(h, report, c);
    else
        html_raw(h, "<p class=\"note\">The judge was not asked about this pair.</p>\n");
    html_raw(h, "</section>\n");
}

/* The verdict of the pair (a, b) among the case's in the report, or NULL. */
static const cJSON *pair_detail(const cJSON *report, const char *a, const char *b)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, html_get(report, "cases_detail"))
    {
        const cJSON *sys = html_get(c, "systems");

        if (strcmp(html_str(sys, "A"), a) == 0 && strcmp(html_str(sys, "B"), b) == 0)
            return c;
    }
    return NULL;
}

/* The page, once the pair (own->a, own->b) and its label (own) are known. */
static enum arb_status reveal(struct view_ctx *v, int64_t run, const char *case_id,
                              const char *annotator, const struct own_label *own,
                              struct view_resp *out, struct arb_err *err)
{
    cJSON *report = cJSON_CreateObject();
    struct html h;
    enum arb_status rs;

    if (!report)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    rs = arb_store_runs(v->st, run, on_systems, report, err);
    if (!rs)
        rs = arb_report_case_detail(v->st, run, case_id, report, err);
    if (rs) {
        cJSON_Delete(report);
        return rs;
    }
    view_html_begin(&h, v, out, "Label saved", run);
    html_raw(&h, "<h1 class=\"ok\">Label saved</h1>\n<p><a class=\"button\" id=\"label-next\" "
                 "href=\"/runs/");
    html_printf(&h, "%" PRId64 "/label?annotator=", run);
    view_url(&h, annotator);
    html_raw(&h, "\">Next pair &rarr;</a> <a href=\"/runs/");
    html_printf(&h, "%" PRId64 "/labels\">every label and the agreement</a></p>\n", run);
    revealed(&h, report, pair_detail(report, own->a, own->b), own);
    if (own->note) {
        html_raw(&h, "<p class=\"note\">Your note: ");
        html_text(&h, own->note);
        html_raw(&h, "</p>\n");
    }
    cJSON_Delete(report);
    return view_html_end(&h);
}

enum arb_status view_reveal_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 const char *case_id, const char *annotator, struct view_resp *out,
                                 struct arb_err *err)
{
    int64_t pair = view_pair_arg(view_arg(r, "pair"));
    char *a = NULL, *b = NULL;
    struct own_label own = {NULL, NULL, 0, 0, "", NULL, NULL};
    enum arb_status rs = ARB_OK;

    /* The pair as the form named it (the blinding's), not the verdicts' order, which lacks a
     * pair whose verdict is not stored yet. */
    if (pair >= 0)
        rs = view_label_pair(v, run, case_id, pair, &a, &b, err);
    if (!rs && a) {
        own.a = a;
        own.b = b;
        rs = arb_store_labels(v->st, run, case_id, annotator, on_own, &own, err);
        if (!rs && own.oom)
            rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    if (!rs && own.found)
        rs = reveal(v, run, case_id, annotator, &own, out, err);
    else if (!rs)
        rs = view_error_page(v, out, a ? 403 : 404,
                             a ? "label this pair first: what is behind it is shown only to "
                                 "an annotator who has labelled it"
                               : "no such case or pair in this run");
    free(own.winner);
    free(own.note);
    free(a);
    free(b);
    return rs;
}

/* ---- the labels and their agreement --------------------------------------------------------- */

struct list_ctx {
    struct html *h;
    int64_t run;
    int64_t n;
};

static int on_label(void *ctx, const struct arb_label_row *l)
{
    struct list_ctx *c = ctx;
    struct html *h = c->h;

    html_raw(h, "<tr class=\"label-row\"><td class=\"id\">");
    html_printf(h, "<a href=\"/runs/%" PRId64 "/cases/", c->run);
    view_url(h, l->case_id);
    html_raw(h, "\">");
    html_text(h, l->case_id);
    html_raw(h, "</a></td><td>");
    html_text(h, l->annotator);
    html_raw(h, "</td><td>");
    html_text(h, l->choice);
    html_raw(h, "</td><td>");
    html_text(h, l->winner);
    html_raw(h, "</td><td>");
    if (l->criteria_json)
        html_text(h, l->criteria_json);
    html_raw(h, "</td><td>");
    if (l->note)
        html_text_short(h, l->note, 200);
    html_raw(h, "</td><td>");
    html_text(h, l->updated_at);
    html_raw(h, "</td></tr>\n");
    c->n++;
    return 0;
}

/* A figure with its exact value in data-value, for scripts and tests. */
static void figure(struct html *h, const char *id, const cJSON *o, const char *key, int percent)
{
    double x = html_num(o, key);

    html_printf(h, "<span id=\"%s\"", id);
    if (!isnan(x))
        html_printf(h, " data-value=\"%.17g\"", x);
    html_raw(h, ">");
    html_number(h, x, percent ? 1 : 3, percent);
    html_raw(h, "</span>");
}

struct two {
    const char *s[2];
    int n;
    cJSON *arr;
};

static int on_sys(void *ctx, const struct arb_run_row *r)
{
    struct two *t = ctx;
    const cJSON *x;

    t->arr = cJSON_Parse(r->systems_json ? r->systems_json : "[]");
    cJSON_ArrayForEach(x, t->arr)
    {
        if (t->n < 2)
            t->s[t->n++] = html_str(x, "name");
    }
    return 1;
}

/* The study of the run's verdicts against every label, as calibrate --labels-from-db makes it. */
static enum arb_status study(struct view_ctx *v, int64_t run, cJSON **out, struct arb_err *err)
{
    struct two t = {{NULL, NULL}, 0, NULL};
    struct arb_buf text;
    struct arb_calib_set *set = NULL;
    struct arb_calib_opts opts;
    char name[128];
    size_t unmatched = 0;
    enum arb_status rs;

    *out = NULL;
    arb_buf_init(&text, 0);
    rs = arb_store_runs(v->st, run, on_sys, &t, err);
    if (!rs && t.n < 2)
        rs = arb_err_set(err, ARB_EUSAGE, "run %" PRId64 " has fewer than two systems", run);
    if (!rs)
        rs = arb_labels_jsonl(v->st, run, NULL, 0, &text, err);
    snprintf(name, sizeof(name), "labels of run %" PRId64, run);
    if (!rs && text.len)
        rs = arb_calib_load_named_text(text.ptr, text.len, name, t.s, &set, err);
    if (!rs && set)
        rs = arb_calib_from_run(v->st, run, t.s, set, &unmatched, err);
    memset(&opts, 0, sizeof(opts));
    if (!rs && set)
        rs = arb_calib_study(set->items, set->n, set->kind, &opts, out, err);
    arb_calib_set_free(set);
    arb_buf_release(&text);
    cJSON_Delete(t.arr);
    return rs;
}

static void agreement(struct html *h, const cJSON *s)
{
    const cJSON *c = html_get(s, "combined"), *boot = html_get(c, "bootstrap");
    const cJSON *hu = html_get(s, "human");

    html_raw(h, "<section class=\"card\" id=\"agreement\"><h2>Agreement</h2>\n<table>"
                "<tbody><tr><th>labelled cases</th><td class=\"n\">");
    figure(h, "agreement-n", s, "n", 0);
    html_raw(h, "</td></tr><tr><th>the run's verdicts against the labels: accuracy</th>"
                "<td class=\"n\">");
    figure(h, "verdict-accuracy", html_get(boot, "accuracy"), "estimate", 1);
    html_raw(h, "</td></tr><tr><th>the run's verdicts against the labels: Cohen's kappa</th>"
                "<td class=\"n\">");
    figure(h, "verdict-kappa", html_get(boot, "kappa"), "estimate", 0);
    html_raw(h, " <span class=\"ci\">");
    html_range(h, html_num(html_get(boot, "kappa"), "lo"), html_num(html_get(boot, "kappa"), "hi"),
               3, 0);
    html_raw(h, "</span></td></tr>\n");
    if (hu && !isnan(html_num(hu, "kappa"))) {
        html_raw(h, "<tr><th>between annotators: ");
        html_text(h, strcmp(html_str(hu, "kappa_kind"), "fleiss") == 0 ? "Fleiss'" : "Cohen's");
        html_raw(h, " kappa</th><td class=\"n\">");
        figure(h, "annotator-kappa", hu, "kappa", 0);
        html_raw(h, "</td></tr><tr><th>between annotators: Krippendorff's alpha</th>"
                    "<td class=\"n\">");
        figure(h, "annotator-alpha", hu, "alpha", 0);
        html_raw(h, "</td></tr>\n");
    }
    html_raw(h, "</tbody></table>\n<p class=\"note\">The same figures as <code>arbiter calibrate "
                "--run RUN --labels-from-db</code>; the human label of a case is the "
                "annotators' majority (equal top counts a tie).</p></section>\n");
}

static int on_count(void *ctx, const char *annotator, int64_t n)
{
    (void)annotator;
    (void)n;
    ++*(int *)ctx;
    return 0;
}

enum arb_status view_labels_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 struct view_resp *out, struct arb_err *err)
{
    struct html h;
    struct list_ctx lc;
    cJSON *s = NULL;
    int annotators = 0;
    enum arb_status rs;

    (void)r;
    rs = arb_store_label_annotators(v->st, run, on_count, &annotators, err);
    if (!rs && annotators > 0)
        rs = study(v, run, &s, err);
    if (rs) {
        cJSON_Delete(s);
        return rs;
    }
    view_html_begin(&h, v, out, "Labels", run);
    html_printf(&h, "<div class=\"eyebrow\">Run %" PRId64 "</div>\n<h1>Labels</h1>\n", run);
    html_printf(&h, "<p class=\"meta\"><span id=\"annotators\">%d annotators</span></p>\n",
                annotators);
    if (s)
        agreement(&h, s);
    if (s && annotators < 2)
        html_raw(&h, "<p class=\"note\" id=\"agreement-pending\">Agreement between annotators "
                     "shows once a second annotator has labelled.</p>\n");
    cJSON_Delete(s);
    lc = (struct list_ctx){&h, run, 0};
    html_raw(&h, "<section class=\"card\"><div class=\"table-wrap\"><table id=\"labels\"><thead>"
                 "<tr><th>Case</th><th>Annotator</th><th>Choice (as shown)</th><th>System "
                 "chosen</th><th>Criteria</th><th>Note</th><th>Updated</th></tr></thead><tbody>\n");
    rs = arb_store_labels(v->st, run, NULL, NULL, on_label, &lc, err);
    if (rs)
        return rs;
    html_raw(&h, "</tbody></table></div></section>\n");
    return view_html_end(&h);
}
