/*
 * html_int.h - what the files of the HTML report share (html*.c): a writer
 * that keeps the first error, escaping, safe anchors, the palette and the
 * accessors that read the report object without trusting its shape.
 *
 * html.c lays out the page; html_chart.c draws the SVG charts; html_cases.c
 * renders the judge panel, the gates and the cases with their records.
 */
#ifndef ARBITER_HTML_INT_H
#define ARBITER_HTML_INT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"

/*
 * The output and its first failure: every html_* writer does nothing once st
 * is set, so a section is a straight run of calls and the caller looks at st
 * once at the end.
 */
struct arb_report_sink; /* report.h */

struct html {
    struct arb_buf *out;
    enum arb_status st;
};

/* Hand what out holds to sink (NULL: keep it) once it is large (report.h, arb_report_flush). */
void html_flush(struct html *h, const struct arb_report_sink *sink);

/* The report's stylesheet, one rule a line, NULL-terminated (arbiter view's pages use it too). */
extern const char *const html_style_lines[];

/* Trusted markup, written as is (never user text). */
void html_raw(struct html *h, const char *s);
void html_printf(struct html *h, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/*
 * User text, escaped for element content and quoted attribute values alike:
 * & < > " ' become references, and control characters other than tab and
 * newline become U+FFFD, so no input can open or close an element.
 */
void html_text(struct html *h, const char *s);
void html_text_n(struct html *h, const char *s, size_t n);

/* As html_text, cut to max_chars code points with an ellipsis (for labels). */
void html_text_short(struct html *h, const char *s, size_t max_chars);

/*
 * An anchor id for a case: "case-" and the id with every byte outside
 * [A-Za-z0-9-] written as _XX (hex), so distinct ids give distinct anchors.
 * A case listed again (once per pair of systems) adds "__" and its position
 * in the list (seq > 0), which no encoded id contains.
 */
void html_anchor(struct html *h, const char *case_id, int seq);

/* The list of cases with their details: "cases_detail", else "cases" when a list. */
const cJSON *html_case_list(const cJSON *report);

/* A number as text: "-" when v is NaN, else percent (x100, "%") or plain. */
void html_number(struct html *h, double v, int decimals, int percent);

/* "lo – hi", each as html_number writes it. */
void html_range(struct html *h, double lo, double hi, int decimals, int percent);

/* When o has the interval key: a line break and "lo – hi" in small type, under a value. */
void html_interval_note(struct html *h, const cJSON *o, const char *key, int decimals, int percent);

/* Members of o, or NaN / "" / NULL when o is not an object or lacks them. */
double html_num(const cJSON *o, const char *key);
const char *html_str(const cJSON *o, const char *key);
const cJSON *html_get(const cJSON *o, const char *key);

/* A member [lo, hi] of two numbers into *lo, *hi: 1 when present, else 0. */
int html_interval(const cJSON *o, const char *key, double *lo, double *hi);

/* The color of the i-th system; the palette repeats past its end. */
const char *html_color(int i);

/* The index of the system named name in report.systems, or -1. */
int html_system_index(const cJSON *report, const char *name);

/* The sections drawn as SVG (html_chart.c). */
void html_chart_systems(struct html *h, const cJSON *report);
void html_chart_pairs(struct html *h, const cJSON *report);
void html_chart_rubric(struct html *h, const cJSON *report);
void html_chart_expectations(struct html *h, const cJSON *report);

/* The statistics card, when the report has "statistics" (html_stats.c). */
void html_statistics(struct html *h, const cJSON *report);

/* The trials section, when the report has "trials" (html_trials.c). */
void html_trials(struct html *h, const cJSON *report);

/* Which verdicts changed against another run, when the report has "against". */
void html_against(struct html *h, const cJSON *report);

/* The pairwise win matrix, for three or more systems (html_against.c). */
void html_win_matrix(struct html *h, const cJSON *report);

/* The judge panel, the gates and the cases (html_cases.c). */
void html_judge_panel(struct html *h, const cJSON *report);
void html_gates(struct html *h, const cJSON *report);
void html_cases(struct html *h, const cJSON *report, const struct arb_report_sink *sink);

/* One check record of a case ({"system", "kind", "item", "verdict", "score", "record"}) as a
 * <details> with its verdict badge and the whole record, but a string of it past 20,000
 * bytes cut there (with how many bytes are left out). */
void html_check_record(struct html *h, const cJSON *k);

/*
 * One case whole (html_case_judge.c): the suite's task once, at the top of the cases
 * ("cases_task"); a case's task and prompt; the judge's answer in each order with what they
 * made together and the policy that decided; whether its orders disagreed.
 */
void html_cases_task(struct html *h, const cJSON *report);
void html_case_task(struct html *h, const cJSON *report, const cJSON *c);
void html_case_judge(struct html *h, const cJSON *report, const cJSON *c);
int html_case_inconsistent(const cJSON *c);

#endif
