/*
 * view_int.h - what the files of `arbiter view` share (src/view/): one request as the
 * pages see it, one reply, and the server's state.  server.c owns the HTTP side
 * (libmicrohttpd: parsing, the Host and token checks, headers); the pages (runs_page.c,
 * case_page.c, label_pages.c ...) only read a struct view_req and fill a struct view_resp,
 * so they are tested without a socket.
 *
 * Pages write HTML with the report's writer (src/report/html_int.h): every piece of user
 * text (prompts, outputs, case ids, system names, notes) goes through html_text, never
 * html_raw or html_printf.
 */
#ifndef ARBITER_VIEW_INT_H
#define ARBITER_VIEW_INT_H

#include <stddef.h>
#include <stdint.h>

#include "arbiter/buf.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

/*
 * The pages, their routes and the hooks the browser tests hold on to (tests/browser/).  Every
 * path is under one server; ids and classes below are the contract with the tests and
 * must not be renamed without them.
 *
 *   GET  /                              runs list: table#runs, one tr.run-row[data-run=ID]
 *                                       per run with a.run-link to /runs/ID; form#compare
 *                                       (GET /compare, select[name=a], select[name=b]).
 *   GET  /compare?a=ID&b=ID             two runs side by side: #compare-summary, and the
 *                                       verdicts that changed in #against (the report's
 *                                       table#changes-table).
 *   GET  /runs/ID                       the run: #panel-wins (win rates with intervals),
 *                                       #panel-pass (pass rates), #panel-judge (judge health),
 *                                       a#report-link to /runs/ID/report, a#cases-link,
 *                                       a#label-link.
 *   GET  /runs/ID/report                the static HTML report (arb_report_html), as is.
 *   GET  /runs/ID/cases?QUERY           the case table.  QUERY: status, winner, flag (any of
 *                                       judged, pi, jf, disagree, expfail; repeatable), q
 *                                       (search), sort (seq, id, status, winner, margin), dir
 *                                       (asc, desc), page (from 1), per (rows, 1-1000, 50).
 *                                       form#filters holds them; span#total the match count;
 *                                       table#cases, tr.case-row[data-case=ID] with
 *                                       a.case-link; a#prev-page, a#next-page when they
 *                                       exist; every flag also a.flag-filter[data-flag=F].
 *   GET  /runs/ID/cases/CASE?QUERY      one case: #task, #outputs with .output.output-a and
 *                                       .output.output-b (word diff: ins / del elements),
 *                                       #checks, #judge (one .judge-order per order and
 *                                       sample), #verdict (with several pairs, those of
 *                                       the second pair on end in -2, -3 ...: #outputs-2);
 *                                       a#prev-case, a#next-case (the
 *                                       neighbours under QUERY, kept in their href) and
 *                                       a#back-to-list.  Keys: j or n next, k or p previous,
 *                                       u back to the list.
 *   GET  /runs/ID/label?annotator=NAME  the labelling queue (view_label_route): the next pair
 *                                       NAME has not labelled, #response-a and #response-b
 *                                       only (no system name, judge output or check verdict),
 *                                       form#label-form (POST, fields token, case, pair (the
 *                                       pair's position among the case's blinding rows,
 *                                       arb_store_label_pairs; never its systems),
 *                                       annotator, choice = A | B | tie, crit.NAME = A | B |
 *                                       tie, note), #queue-progress; its navigation
 *                                       links to the queue only.  Without an annotator:
 *                                       form#annotator.  Without --label: #label-disabled.
 *                                       The form's action carries the case again
 *                                       (?case=, percent-encoded), which a POST's query
 *                                       gives before its fields: the hidden field's line
 *                                       breaks do not survive a browser.
 *   POST /runs/ID/label                 stores the label, then 303 to
 *                                       /runs/ID/label/CASE?pair=K&annotator=NAME: the reveal
 *                                       page (#revealed: the systems behind A and B, the
 *                                       judge's answer, the verdict) with a#label-next; 403
 *                                       for an annotator who has not labelled that pair.
 *   GET  /runs/ID/labels                every label of the run (table#labels) and #agreement:
 *                                       #verdict-accuracy, #verdict-kappa (the run's verdicts
 *                                       against the labels) and, from two annotators on,
 *                                       #annotator-kappa and #annotator-alpha, each with its
 *                                       exact figure in data-value (as calibrate --run RUN
 *                                       --labels-from-db gives it).
 *   GET  /favicon.ico                   204 (the pages name their icon inline).
 *   GET  /assets/view.css, /assets/view.js   embedded (src/view/assets.c).
 *
 * Cases ids in paths are percent-encoded (every byte outside [A-Za-z0-9-._~]).
 */

/* One query-string or form argument, decoded (UTF-8, no NUL inside). */
struct view_arg {
    const char *name;
    const char *value;
};

struct view_req {
    int post;                    /* 1 for POST (form: application/x-www-form-urlencoded) */
    const char *path;            /* decoded path without the query: "/runs/3/cases/inv-001" */
    const struct view_arg *args; /* query arguments, then (POST) form arguments */
    size_t n_args;
};

/* The first value of argument name, or NULL when absent. */
const char *view_arg(const struct view_req *r, const char *name);

struct view_resp {
    int status;               /* 200, 303, 400, 403, 404, 500 ... */
    const char *content_type; /* static string; "text/html; charset=utf-8" when NULL */
    struct arb_buf body;      /* owned by the server: initialised before, released after */
    struct arb_buf location;  /* for 303: where to go (a path on this server, percent-encoded:
                                 no byte outside printable ASCII); owned as body is */
    int csp_report;           /* the static report: inline styles allowed, no script */
    int cacheable;            /* an asset: the browser may keep it */
};

/* The server's state, shared by every page; one request at a time (no locking). */
struct view_cache;
struct view_ctx {
    struct arb_store *st;     /* read-only unless labelling */
    const char *db_path;      /* as given on the command line (shown in the page header) */
    int labelling;            /* --label: the database is open for writing labels */
    const char *annotator;    /* --annotator NAME, or NULL (the page then asks for a name) */
    char token[65];           /* this session's token (hex); every POST must carry it */
    struct view_cache *cache; /* per-run derived data (the report); view_cache.c */
};

/* The arguments of one request (form.c): at most VIEW_MAX_ARGS, each UTF-8 without NUL. */
#define VIEW_MAX_ARGS 64
struct view_args {
    struct view_arg a[VIEW_MAX_ARGS];
    size_t n;
    int bad;      /* an argument was not UTF-8 or held a NUL */
    int too_many; /* more than VIEW_MAX_ARGS */
};

/* 1 when s[0..len) is UTF-8 and holds no NUL (strlen(s) == len). */
int view_arg_acceptable(const char *s, size_t len);

/* Split an application/x-www-form-urlencoded body (decoded in place: it must outlive l) into
 * l, setting l->bad or l->too_many for what it cannot keep. */
void view_form_parse(char *body, struct view_args *l);

/* Decode %XX (and + as a space when plus_is_space) in place; returns the new length. */
size_t view_url_decode(char *s, int plus_is_space);

/* The router (route.c): the page for r->path, or a 404 page. */
enum arb_status view_route(struct view_ctx *v, const struct view_req *r, struct view_resp *out,
                           struct arb_err *err);

/* The cache of derived data (view_cache.c): the report of the run asked last, built once. */
int view_cache_new(struct view_cache **out);
void view_cache_free(struct view_cache *c);
struct cJSON;
enum arb_status view_cache_report(struct view_ctx *v, int64_t run, const struct cJSON **out,
                                  struct arb_err *err);
#define VIEW_CASES_IN_REPORT 2000 /* cases detailed in the static report, as arbiter report's */
/* The report of run a with what changed against run b (the compare page), the last kept. */
enum arb_status view_cache_against(struct view_ctx *v, int64_t a, int64_t b,
                                   const struct cJSON **out, struct arb_err *err);
enum arb_status view_cache_html(struct view_ctx *v, int64_t run, const struct arb_buf **out,
                                struct arb_err *err);

/*
 * A page: the route matched path (and run, case_id when the path names them).  Fills out;
 * returns ARB_OK (out->status says what the client sees, including 404 and 400 for a bad
 * argument, with an HTML body that says what was wrong), or a failure with err set, which
 * the server turns into a 500 page carrying err's message.
 */
typedef enum arb_status (*view_page_fn)(struct view_ctx *v, const struct view_req *r,
                                        struct view_resp *out, struct arb_err *err);

/*
 * Every page's frame (page.c): the doctype, <head> with the embedded stylesheet and script
 * (/assets/view.css, /assets/view.js), the session token as <meta name="arbiter-token">, the
 * top navigation (runs list; the run's cases, report and labelling when run > 0), then the
 * page's <main>.  view_page_end closes them.  title is user text (escaped).
 */
struct html;
void view_page_begin(struct html *h, const struct view_ctx *v, const char *title, int64_t run);
void view_page_end(struct html *h);

/* A 4xx page: status and a one-line message (user text, escaped) in the frame. */
enum arb_status view_error_page(struct view_ctx *v, struct view_resp *out, int status,
                                const char *msg);

/*
 * Begin an HTML reply: out->body gets the frame's start and *h writes into it.  Finish with
 * view_html_end, which closes the frame and returns the writer's first failure.
 */
void view_html_begin(struct html *h, struct view_ctx *v, struct view_resp *out, const char *title,
                     int64_t run);

/* The same for a page showing a pair blind: its navigation has no link to the run, its
 * cases, report or labels, which would show the systems behind the pair. */
void view_html_begin_blind(struct html *h, struct view_ctx *v, struct view_resp *out,
                           const char *title, int64_t run);
enum arb_status view_html_end(struct html *h);

/* s percent-encoded for a path segment or query value (every byte outside [A-Za-z0-9-._~]),
 * written as attribute-safe text. */
void view_url(struct html *h, const char *s);

/* 1 with s, a whole decimal number from lo to hi (at most 12 digits), in *out; else 0. */
int view_whole(const char *s, int64_t lo, int64_t hi, int64_t *out);

/* The run named by a path segment ("12"): its id, or 0 when it is not a run of the database. */
int64_t view_run_id(struct view_ctx *v, const char *segment, struct arb_err *err);

/*
 * The case table's query as the URL carries it (status, winner, flag..., q, sort, dir, page,
 * per), read into f.  1 when every argument is understood; 0 with a message in bad.
 */
#include "arbiter/case_index.h"
struct view_filter {
    struct arb_case_query q;
    int64_t page; /* from 1 */
};
int view_filter_read(const struct view_req *r, int64_t run, struct view_filter *f, char *bad,
                     size_t n);

/* f as a query string ("?status=...&flag=pi..."), escaped for an attribute; page 0: without
 * the page (the case pages keep the filter, not the page). */
void view_filter_query(struct html *h, const struct view_filter *f, int64_t page);

/* The pages (one file each). */
enum arb_status view_runs_page(struct view_ctx *v, const struct view_req *r, struct view_resp *out,
                               struct arb_err *err);
enum arb_status view_compare_page(struct view_ctx *v, const struct view_req *r,
                                  struct view_resp *out, struct arb_err *err);
enum arb_status view_run_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                              struct view_resp *out, struct arb_err *err);
enum arb_status view_report_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 struct view_resp *out, struct arb_err *err);
enum arb_status view_cases_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                                struct view_resp *out, struct arb_err *err);
enum arb_status view_case_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                               const char *case_id, struct view_resp *out, struct arb_err *err);
enum arb_status view_asset(struct view_ctx *v, const char *name, struct view_resp *out);

/*
 * The labelling pages (label_pages.c): every path under /runs/ID/label and /runs/ID/labels,
 * GET and POST; rest is what follows "/runs/ID" ("/label", "/label/CASE", "/labels").
 */
enum arb_status view_label_route(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 const char *rest, struct view_resp *out, struct arb_err *err);

/*
 * Pair k of case_id as the labelling form names it ("pair"): its position among the case's
 * blinding rows (arb_store_label_pairs).  *a and *b receive copies of its systems in the
 * blind order (the caller frees both), or NULL both when the case has no pair k.
 */
enum arb_status view_label_pair(struct view_ctx *v, int64_t run, const char *case_id, int64_t k,
                                char **a, char **b, struct arb_err *err);

/* A pair position as the form or a link gives it ("0" to "999999999"), or -1. */
int64_t view_pair_arg(const char *s);

/* The reveal page after a label, and every label of a run with the agreement (labels_page.c). */
enum arb_status view_reveal_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 const char *case_id, const char *annotator, struct view_resp *out,
                                 struct arb_err *err);
enum arb_status view_labels_page(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 struct view_resp *out, struct arb_err *err);

/* A word-level diff of a and b (wdiff.c) as two HTML bodies: words only in a wrapped in
 * <del>, only in b in <ins>, every piece escaped.  Past a size or edit cap the texts are
 * written plainly and *diffed is 0. */
void view_word_diff(struct html *h_a, struct html *h_b, const char *a, const char *b, int *diffed);

#endif
