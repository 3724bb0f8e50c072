/*
 * html_case_judge.c - one case whole, in the HTML report's case view: what it
 * asked (the suite's task, the case's prompt), the judge's answer in each
 * order it was asked (who was shown first, the winner, the reasoning, the
 * scores and expectations per output, or why it failed) and what the answers
 * made together (position inconsistency, sample agreement, the policy that
 * decided).  The data is case_view.h's, put in "cases_detail" by cases.c.
 *
 * Everything from the report is hostile text: it goes through html_text.
 * Members the report lacks are skipped (an older report renders without
 * them).
 */
#include <math.h>
#include <string.h>

#include "html_int.h"

#define TASK_SHOWN   300   /* characters of the suite's task in each case */
#define PROMPT_SHOWN 20000 /* characters of a case's prompt */

void html_cases_task(struct html *h, const cJSON *report)
{
    const char *task = html_str(report, "cases_task");

    if (!*task)
        return;
    html_raw(h, "<h3>Task</h3>\n<blockquote class=\"task\" id=\"cases-task\">");
    html_text(h, task);
    html_raw(h, "</blockquote>\n");
}

void html_case_task(struct html *h, const cJSON *report, const cJSON *c)
{
    const char *task = html_str(report, "cases_task"), *prompt = html_str(c, "prompt");

    if (!*task && !*prompt)
        return;
    html_raw(h, "<div class=\"asked\">");
    if (*task) {
        html_raw(h, "<h4>Task</h4>\n<p class=\"task\">");
        html_text_short(h, task, TASK_SHOWN);
        if (strlen(task) > TASK_SHOWN) /* bytes: at least as many as characters */
            html_raw(h, " <a href=\"#cases-task\">the whole task</a>");
        html_raw(h, "</p>\n");
    }
    if (*prompt) {
        html_raw(h, "<h4>Prompt</h4>\n<pre class=\"prompt\">");
        html_text_short(h, prompt, PROMPT_SHOWN);
        html_raw(h, "</pre>\n");
    }
    html_raw(h, "</div>\n");
}

/* A system's name with its color, when the report knows it. */
static void system_name(struct html *h, const cJSON *report, const char *name)
{
    int i = html_system_index(report, name);

    if (i >= 0)
        html_printf(h, "<span class=\"swatch\" style=\"background:%s\"></span>", html_color(i));
    html_text(h, name);
}

/* The order's winner: a system and the label the judge gave it, a tie, or none. */
static void order_winner(struct html *h, const cJSON *report, const cJSON *e)
{
    const char *w = html_str(e, "winner");

    html_raw(h, "<p class=\"order-winner\">Winner: ");
    if (!*w) {
        html_raw(h, "<span class=\"empty\">none named</span>");
    } else if (strcmp(w, "TIE") == 0) {
        html_raw(h, "<span class=\"badge b-neutral\">tie</span>");
    } else {
        system_name(h, report, w);
        html_raw(h, " <span class=\"ci\">(Response ");
        html_text(h, html_str(e, "winner_as_shown"));
        html_raw(h, ")</span>");
    }
    html_raw(h, "</p>\n");
}

/* A score cell: the number, or a dash for none. */
static void score_cell(struct html *h, const cJSON *v)
{
    html_raw(h, "<td class=\"n\">");
    if (cJSON_IsNumber(v))
        html_printf(h, "%.3g", v->valuedouble);
    else
        html_raw(h, "&ndash;");
    html_raw(h, "</td>");
}

static void pass_cell(struct html *h, const cJSON *v)
{
    html_raw(h, "<td>");
    if (cJSON_IsBool(v))
        html_raw(h, cJSON_IsTrue(v) ? "<span class=\"badge b-pass\">pass</span>"
                                    : "<span class=\"badge b-fail\">fail</span>");
    else
        html_raw(h, "&ndash;");
    html_raw(h, "</td>");
}

/*
 * The order's criteria or expectations ({item: {A_NAME: v, B_NAME: v}}) as a table, the
 * pair's A column first.
 */
static void items_table(struct html *h, const cJSON *items, const char *head, const char *a,
                        const char *b, int booleans)
{
    const cJSON *it;

    if (cJSON_GetArraySize(items) <= 0)
        return;
    html_printf(h, "<table class=\"order-items\"><thead><tr><th>%s</th><th%s>", head,
                booleans ? "" : " class=\"n\"");
    html_text(h, a);
    html_printf(h, "</th><th%s>", booleans ? "" : " class=\"n\"");
    html_text(h, b);
    html_raw(h, "</th></tr></thead><tbody>");
    cJSON_ArrayForEach(it, items)
    {
        html_raw(h, "<tr><td>");
        html_text(h, it->string ? it->string : "");
        html_raw(h, "</td>");
        if (booleans) {
            pass_cell(h, html_get(it, a));
            pass_cell(h, html_get(it, b));
        } else {
            score_cell(h, html_get(it, a));
            score_cell(h, html_get(it, b));
        }
        html_raw(h, "</tr>");
    }
    html_raw(h, "</tbody></table>\n");
}

/* One order's (and sample's) answer: who was shown first, the winner, why, the items. */
static void order_block(struct html *h, const cJSON *report, const cJSON *c, const cJSON *e,
                        int sampled)
{
    const cJSON *sys = html_get(c, "systems");
    const char *a = html_str(sys, "A"), *b = html_str(sys, "B");

    html_raw(h, "<div class=\"judge-order\"><h5>Order ");
    html_text(h, html_str(e, "ord"));
    if (sampled)
        html_printf(h, ", sample %.0f", html_num(e, "sample") + 1);
    html_raw(h, ": ");
    system_name(h, report, html_str(e, "shown_first"));
    html_raw(h, " shown first</h5>\n<p class=\"ci\">Response A was ");
    html_text(h, html_str(e, "shown_first"));
    html_raw(h, ", Response B ");
    html_text(h, html_str(e, "shown_second"));
    if (html_num(e, "attempt") > 0)
        html_raw(h, "; asked again after an answer that did not follow the schema");
    if (cJSON_IsTrue(html_get(e, "cached")))
        html_raw(h, "; from the cache");
    html_raw(h, ".</p>\n");
    if (!cJSON_IsTrue(html_get(e, "valid"))) {
        html_raw(h, "<p><span class=\"badge b-fail\">no valid answer</span></p>\n"
                    "<blockquote class=\"reasoning\">");
        html_text_short(h, html_str(e, "error"), 2000);
        html_raw(h, "</blockquote>\n</div>\n");
        return;
    }
    order_winner(h, report, e);
    if (*html_str(e, "reasoning")) {
        html_raw(h, "<blockquote class=\"reasoning\">");
        html_text(h, html_str(e, "reasoning"));
        html_raw(h, "</blockquote>\n");
    } else if (*html_str(e, "answer")) {
        html_raw(h, "<pre>");
        html_text_short(h, html_str(e, "answer"), 4000);
        html_raw(h, "</pre>\n");
    }
    items_table(h, html_get(e, "criteria"), "Criterion (1-5)", a, b, 0);
    items_table(h, html_get(e, "expectations"), "Expectation", a, b, 1);
    html_raw(h, "</div>\n");
}

/* A policy member's value: text, a number, true/false, or a dash. */
static void scalar(struct html *h, const cJSON *v)
{
    if (cJSON_IsString(v))
        html_text(h, v->valuestring);
    else if (cJSON_IsNumber(v))
        html_printf(h, "%g", v->valuedouble);
    else if (cJSON_IsBool(v))
        html_raw(h, cJSON_IsTrue(v) ? "true" : "false");
    else
        html_raw(h, "&ndash;");
}

/* What decided the verdict, when the comparison said: "decided_by" and "policy". */
static void decision(struct html *h, const cJSON *c)
{
    const cJSON *p = html_get(c, "policy"), *d = html_get(c, "decided_by"), *m;
    const cJSON *members = cJSON_IsObject(p) ? p : NULL;
    int first = 1;

    if (!p && !d)
        return;
    html_raw(h, "<p class=\"note decision\">");
    if (d) {
        html_raw(h, "Decided by ");
        scalar(h, d);
        html_raw(h, ". ");
    }
    cJSON_ArrayForEach(m, members)
    {
        if (!m->string || strcmp(m->string, "why") == 0)
            continue;
        html_raw(h, first ? "Policy: " : ", ");
        first = 0;
        html_text(h, m->string);
        html_raw(h, " ");
        scalar(h, m);
    }
    if (!first)
        html_raw(h, ". ");
    if (p && !cJSON_IsObject(p)) {
        html_raw(h, "Policy: ");
        scalar(h, p);
        html_raw(h, ". ");
    }
    if (*html_str(p, "why"))
        html_text(h, html_str(p, "why"));
    html_raw(h, "</p>\n");
}

/* Whether the orders were asked more than once each: then each block names its sample. */
static int sampled(const cJSON *orders)
{
    const cJSON *e;

    cJSON_ArrayForEach(e, orders)
    {
        if (html_num(e, "sample") > 0)
            return 1;
    }
    return 0;
}

int html_case_inconsistent(const cJSON *c)
{
    return cJSON_IsTrue(html_get(html_get(c, "judge"), "position_inconsistent"));
}

void html_case_judge(struct html *h, const cJSON *report, const cJSON *c)
{
    const cJSON *judge = html_get(c, "judge"), *orders = html_get(judge, "orders"), *e;
    const cJSON *pi = html_get(judge, "position_inconsistent");
    int multi = sampled(orders);

    if (!cJSON_IsObject(judge)) {
        decision(h, c);
        return;
    }
    html_raw(h, "<h4>The judge, order by order</h4>\n<p class=\"note judge-sum\">");
    if (cJSON_IsBool(pi))
        html_raw(h, cJSON_IsTrue(pi) ? "<span class=\"badge b-warn\">position-inconsistent</span> "
                                       "its orders disagree on the winner"
                                     : "<span class=\"badge b-info\">position-consistent</span>");
    if (!isnan(html_num(judge, "sample_agreement"))) {
        html_raw(h, cJSON_IsBool(pi) ? "; sample agreement " : "Sample agreement ");
        html_number(h, html_num(judge, "sample_agreement"), 0, 1);
    }
    if (*html_str(judge, "winner")) {
        html_raw(h, "; its own winner over every answer: ");
        if (strcmp(html_str(judge, "winner"), "TIE") == 0)
            html_raw(h, "tie");
        else
            system_name(h, report, html_str(judge, "winner"));
    }
    html_raw(h, ".</p>\n");
    decision(h, c);
    if (cJSON_GetArraySize(orders) <= 0)
        return;
    html_raw(h, "<div class=\"judge-orders\">\n");
    cJSON_ArrayForEach(e, orders)
    {
        order_block(h, report, c, e, multi);
    }
    html_raw(h, "</div>\n");
}
