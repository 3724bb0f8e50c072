/*
 * label_pages.c - blind labelling: the queue of a run's pairs for one annotator, shown as
 * "Response A" and "Response B" in the run's blind order (the blinding row's system_a
 * first) with nothing that tells the systems apart - no system name, judge output or check
 * verdict, and the run's redaction list (plus the systems' own names) applied as the judge
 * had it applied (src/run/escalate.c): to the task, the prompt, the outputs and the names of
 * a directory output's files - then, once the label is stored, the reveal page with what was
 * behind A and B and what the run decided.  Each response shows at most SHOWN_MAX bytes, so
 * a 10 MB output makes a page a browser can hold, not a refusal.
 *
 * The form names the pair by its position among the case's pairs, never by its systems;
 * the store derives the system chosen from the blinding (labels.h).  Writes need --label
 * and the session token (server.c checks it before any page runs).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../report/html_int.h"
#include "arbiter/blind.h"
#include "arbiter/labels.h"
#include "arbiter/report.h"
#include "arbiter/unicode.h"
#include "view_int.h"

#define MAX_CRIT 32 /* criteria offered: with the form's 6 other fields, under VIEW_MAX_ARGS (64)  \
                     */
#define SHOWN_MAX (1u << 20) /* bytes of each response shown, after redaction */

/* What the queue knows of the run: its systems, criteria and redaction list. */
struct run_info {
    cJSON *suite;
    cJSON *systems;
    const char *crit[MAX_CRIT];
    size_t n_crit;
    const char **redact; /* the suite's "redact", then the systems' names (owned array) */
    size_t n_redact;
};

static const char *const default_crit[] = {"correctness",  "completeness", "accuracy",
                                           "organization", "formatting",   "usability"};

static int on_run(void *ctx, const struct arb_run_row *r)
{
    struct run_info *ri = ctx;

    ri->suite = cJSON_Parse(r->suite_json ? r->suite_json : "{}");
    ri->systems = cJSON_Parse(r->systems_json ? r->systems_json : "[]");
    return 1;
}

static void add_crit(struct run_info *ri, const cJSON *list)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, list)
    {
        if (ri->n_crit < MAX_CRIT && *html_str(c, "name"))
            ri->crit[ri->n_crit++] = html_str(c, "name");
    }
}

static enum arb_status run_info_read(struct view_ctx *v, int64_t run, struct run_info *ri,
                                     struct arb_err *err)
{
    const cJSON *rub, *x;
    enum arb_status rs;

    memset(ri, 0, sizeof(*ri));
    rs = arb_store_runs(v->st, run, on_run, ri, err);
    if (rs)
        return rs;
    if (!ri->suite || !ri->systems)
        return arb_err_set(err, ARB_ENOMEM, "out of memory reading run %" PRId64, run);
    rub = html_get(ri->suite, "rubric");
    add_crit(ri, html_get(rub, "content"));
    add_crit(ri, html_get(rub, "structure"));
    if (!cJSON_IsObject(rub))
        for (size_t i = 0; i < sizeof(default_crit) / sizeof(default_crit[0]); i++)
            ri->crit[ri->n_crit++] = default_crit[i];
    /* Every string the judge had hidden, however many: one left out would unblind. */
    ri->redact = calloc((size_t)cJSON_GetArraySize(html_get(ri->suite, "redact")) +
                            (size_t)cJSON_GetArraySize(ri->systems) + 1,
                        sizeof(*ri->redact));
    if (!ri->redact)
        return arb_err_set(err, ARB_ENOMEM, "out of memory reading run %" PRId64, run);
    cJSON_ArrayForEach(x, html_get(ri->suite, "redact"))
    {
        if (cJSON_IsString(x))
            ri->redact[ri->n_redact++] = x->valuestring;
    }
    /* The systems' own names too, but not those under 3 bytes ("a" would eat words), as the
     * judge's. */
    cJSON_ArrayForEach(x, ri->systems)
    {
        if (strlen(html_str(x, "name")) >= 3)
            ri->redact[ri->n_redact++] = html_str(x, "name");
    }
    return ARB_OK;
}

static void run_info_release(struct run_info *ri)
{
    cJSON_Delete(ri->suite);
    cJSON_Delete(ri->systems);
    free(ri->redact);
}

/*
 * text[0, len) with the run's redaction applied, escaped, cut (at a character) once *left
 * bytes are shown, with a note of what is not, *left then lessened; left NULL: no cut.
 */
static enum arb_status blind_text(struct html *h, const struct run_info *ri, const char *text,
                                  size_t len, size_t *left)
{
    struct arb_buf red;
    size_t n;
    enum arb_status rs;

    arb_buf_init(&red, 0);
    rs = arb_redact(text, len, ri->redact, ri->n_redact, &red, NULL);
    n = red.len;
    if (!rs && left && n > *left) {
        n = *left;
        while (n > 0 && ((unsigned char)red.ptr[n] & 0xc0) == 0x80)
            n--;
    }
    if (!rs)
        html_text_n(h, red.ptr ? red.ptr : "", n);
    if (!rs && n < red.len)
        html_printf(h, "<span class=\"empty\">[... %zu more bytes not shown]</span>", red.len - n);
    if (!rs && left)
        *left -= n;
    arb_buf_release(&red);
    return rs;
}

/* ---- the pair a form names ---------------------------------------------------------------- */

struct pair_pick {
    int64_t want; /* position among the case's pairs */
    int64_t i;
    char *a, *b;
    int oom;
};

static int on_pick(void *ctx, const char *a, const char *b)
{
    struct pair_pick *p = ctx;

    if (p->i++ != p->want)
        return 0;
    p->a = strdup(a);
    p->b = strdup(b);
    p->oom = !p->a || !p->b;
    return 1;
}

enum arb_status view_label_pair(struct view_ctx *v, int64_t run, const char *case_id, int64_t k,
                                char **a, char **b, struct arb_err *err)
{
    struct pair_pick p = {k, 0, NULL, NULL, 0};
    enum arb_status rs = arb_store_label_pairs(v->st, run, case_id, on_pick, &p, err);

    if (!rs && p.oom)
        rs = arb_err_set(err, ARB_ENOMEM, "out of memory");
    if (rs) {
        free(p.a);
        free(p.b);
        p.a = p.b = NULL;
    }
    *a = p.a;
    *b = p.b;
    return rs;
}

int64_t view_pair_arg(const char *s)
{
    int64_t v;

    return s && view_whole(s, 0, 999999999, &v) ? v : -1;
}

/* The position of (a, b) among the pairs of case_id, into pos (-1 until found). */
struct pair_find {
    const char *a, *b;
    int64_t i, pos;
};

static int on_find(void *ctx, const char *a, const char *b)
{
    struct pair_find *p = ctx;

    if (strcmp(a, p->a) == 0 && strcmp(b, p->b) == 0) {
        p->pos = p->i;
        return 1;
    }
    p->i++;
    return 0;
}

/* ---- the outputs, blind ------------------------------------------------------------------- */

struct blind_out {
    const char *system;
    const struct run_info *ri;
    struct html *h;
    int n;
    size_t left; /* bytes of the response still shown */
    enum arb_status rc;
};

static int on_output(void *ctx, const struct arb_output_row *o)
{
    struct blind_out *b = ctx;

    if (strcmp(o->system, b->system) != 0)
        return 0;
    /* A file's name may spell its system, as "out/gpt-4o.md" does: the judge saw it redacted. */
    if (*o->file) {
        html_raw(b->h, "<span class=\"file\">");
        b->rc = blind_text(b->h, b->ri, o->file, strlen(o->file), NULL);
        html_raw(b->h, "</span>\n");
    }
    if (b->rc)
        return 1;
    if (o->binary || !o->content)
        html_printf(b->h, "<span class=\"empty\">[binary file, %zu bytes]</span>\n", o->len);
    else
        b->rc = blind_text(b->h, b->ri, o->content, o->len, &b->left);
    b->n++;
    return b->rc != ARB_OK;
}

static enum arb_status response(struct html *h, struct view_ctx *v, int64_t run,
                                const char *case_id, const struct run_info *ri, const char *system,
                                const char *id, const char *label, struct arb_err *err)
{
    struct blind_out b = {system, ri, h, 0, SHOWN_MAX, ARB_OK};
    enum arb_status rs;

    html_printf(h, "<div class=\"output\" id=\"%s\"><h4>%s</h4><pre class=\"output-text\">", id,
                label);
    rs = arb_store_compared_outputs(v->st, run, case_id, on_output, &b, err);
    if (!rs)
        rs = b.rc;
    if (!rs && b.n == 0)
        html_raw(h, "<span class=\"empty\">no output</span>");
    html_raw(h, "</pre></div>\n");
    return rs;
}

/* The task and the prompt, redacted as the judge was asked them. */
struct asked {
    struct html *h;
    const struct run_info *ri;
    enum arb_status rc;
};

static int on_prompt(void *ctx, const char *prompt)
{
    struct asked *a = ctx;

    if (prompt && *prompt) {
        html_raw(a->h, "<h4>Prompt</h4>\n<pre class=\"prompt\">");
        a->rc = blind_text(a->h, a->ri, prompt, strlen(prompt), NULL);
        html_raw(a->h, "</pre>\n");
    }
    return a->rc != ARB_OK;
}

static int on_task(void *ctx, const char *task)
{
    struct asked *a = ctx;

    if (task && *task) {
        html_raw(a->h, "<h4>Task</h4>\n<blockquote class=\"task\">");
        a->rc = blind_text(a->h, a->ri, task, strlen(task), NULL);
        html_raw(a->h, "</blockquote>\n");
    }
    return a->rc != ARB_OK;
}

/* ---- pages -------------------------------------------------------------------------------- */

/* As the store checks it (labels.h): 1 to 100 bytes of UTF-8, no C0, DEL or C1 control. */
static int annotator_ok(const char *a)
{
    size_t n = a ? strlen(a) : 0;

    if (n == 0 || n > 100 || !arb_utf8_valid(a, n, NULL))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)a[i];

        if (c < 0x20 || c == 0x7f ||
            (c == 0xc2 && i + 1 < n && (unsigned char)a[i + 1] >= 0x80 &&
             (unsigned char)a[i + 1] <= 0x9f))
            return 0;
    }
    return 1;
}

static enum arb_status ask_annotator(struct view_ctx *v, int64_t run, struct view_resp *out,
                                     const char *why)
{
    struct html h;

    view_html_begin(&h, v, out, "Label pairs", run);
    html_raw(&h, "<h1>Label pairs blind</h1>\n");
    if (why) {
        html_raw(&h, "<p class=\"error\">");
        html_text(&h, why);
        html_raw(&h, "</p>\n");
    }
    html_printf(&h,
                "<p>You will see each case's two responses as Response A and Response B, "
                "without the systems' names or the judge's opinion, and choose the better "
                "one. Your labels are kept under your name, apart from other annotators'.</p>"
                "<form id=\"annotator\" class=\"filters\" method=\"get\" action=\"/runs/%" PRId64
                "/label\"><label>Your name<input name=\"annotator\" required maxlength=\"100\">"
                "</label><button type=\"submit\">Start</button></form>\n",
                run);
    return view_html_end(&h);
}

static enum arb_status not_labelling(struct view_ctx *v, int64_t run, struct view_resp *out)
{
    struct html h;

    view_html_begin(&h, v, out, "Label pairs", run);
    html_raw(&h, "<h1>Label pairs blind</h1>\n<p id=\"label-disabled\">This server opened the "
                 "database read-only. Start it with <code>arbiter view --label</code> (and "
                 "<code>--annotator NAME</code>) to record labels.</p>\n");
    return view_html_end(&h);
}

struct mine {
    const char *annotator;
    int64_t n;
};

static int on_annotator(void *ctx, const char *annotator, int64_t n)
{
    struct mine *m = ctx;

    if (strcmp(annotator, m->annotator) != 0)
        return 0;
    m->n = n;
    return 1;
}

static void criteria_fields(struct html *h, const struct run_info *ri)
{
    html_raw(h, "<details class=\"criteria\"><summary>Per criterion (optional)</summary>"
                "<div class=\"crit\">");
    for (size_t i = 0; i < ri->n_crit; i++) {
        static const char *const ch[] = {"A", "B", "tie"};

        html_raw(h, "<span>");
        html_text(h, ri->crit[i]);
        html_raw(h, "</span><span>");
        for (size_t j = 0; j < 3; j++) {
            html_raw(h, "<label><input type=\"radio\" name=\"crit.");
            html_text(h, ri->crit[i]);
            html_printf(h, "\" value=\"%s\"> %s</label> ", ch[j], j == 2 ? "tie" : ch[j]);
        }
        html_raw(h, "</span>");
    }
    html_raw(h, "</div></details>\n");
}

/*
 * The form that labels the pair next: its case, its position among the case's pairs.  The
 * case is in the action's query too, percent-encoded, and the server reads the query's first:
 * a browser rewrites the line breaks of an attribute and of a form's values (CR and LF alone
 * become CR LF), so a case id holding one would come back as another id.
 */
static void label_form(struct html *h, const struct view_ctx *v, int64_t run,
                       const struct arb_label_next *next, int64_t pair, const char *annotator,
                       const struct run_info *ri)
{
    html_printf(h,
                "<section class=\"card\"><form id=\"label-form\" method=\"post\" "
                "action=\"/runs/%" PRId64 "/label?case=",
                run);
    view_url(h, next->case_id);
    html_raw(h, "\"><input type=\"hidden\" name=\"token\" value=\"");
    html_text(h, v->token);
    html_raw(h, "\"><input type=\"hidden\" name=\"case\" value=\"");
    html_text(h, next->case_id);
    html_printf(h, "\"><input type=\"hidden\" name=\"pair\" value=\"%" PRId64 "\">", pair);
    html_raw(h, "<input type=\"hidden\" name=\"annotator\" value=\"");
    html_text(h, annotator);
    html_raw(h, "\"><h2>Which response is better?</h2><div class=\"choices\">"
                "<label><input type=\"radio\" name=\"choice\" value=\"A\" required> "
                "Response A</label><label><input type=\"radio\" name=\"choice\" value=\"B\"> "
                "Response B</label><label><input type=\"radio\" name=\"choice\" value=\"tie\"> "
                "A tie</label></div>\n");
    criteria_fields(h, ri);
    html_raw(h, "<label>Note (optional)<textarea name=\"note\" maxlength=\"4000\"></textarea>"
                "</label><p><button type=\"submit\" id=\"label-save\">Save and reveal</button>"
                "</p></form></section>\n");
}

/* The pair next, blind: its case, the task and prompt, both responses. */
static enum arb_status blind_pair(struct html *h, struct view_ctx *v, int64_t run,
                                  const struct arb_label_next *next, const struct run_info *ri,
                                  struct arb_err *err)
{
    struct asked asked = {h, ri, ARB_OK};
    enum arb_status rs;

    html_raw(h, "<section class=\"card\"><div class=\"eyebrow\">Case</div><h2 id=\"label-case\">");
    html_text(h, next->case_id);
    html_raw(h, "</h2>\n");
    rs = arb_store_run_task(v->st, run, on_task, &asked, err);
    if (!rs)
        rs = arb_store_case_prompt(v->st, run, next->case_id, on_prompt, &asked, err);
    if (!rs)
        rs = asked.rc;
    html_raw(h, "<div class=\"outputs\">\n");
    if (!rs)
        rs =
            response(h, v, run, next->case_id, ri, next->system_a, "response-a", "Response A", err);
    if (!rs)
        rs =
            response(h, v, run, next->case_id, ri, next->system_b, "response-b", "Response B", err);
    html_raw(h, "</div>\n</section>\n");
    return rs;
}

static enum arb_status queue_page(struct view_ctx *v, int64_t run, const char *annotator,
                                  struct view_resp *out, struct arb_err *err)
{
    struct arb_label_next next;
    struct pair_find pf = {NULL, NULL, 0, -1};
    struct mine mine = {annotator, 0};
    struct run_info ri = {NULL, NULL, {NULL}, 0, NULL, 0};
    struct html h;
    int64_t total = 0;
    enum arb_status rs = arb_store_label_next(v->st, run, annotator, -1, &next, err);

    if (!rs)
        rs = arb_store_label_annotators(v->st, run, on_annotator, &mine, err);
    if (!rs)
        rs = arb_store_count(v->st, run, "verdicts", &total, err);
    if (!rs)
        rs = run_info_read(v, run, &ri, err);
    if (!rs && next.found) {
        pf.a = next.system_a;
        pf.b = next.system_b;
        rs = arb_store_label_pairs(v->st, run, next.case_id, on_find, &pf, err);
        if (!rs && pf.pos < 0)
            rs = arb_err_set(err, ARB_EINTERNAL, "the next pair to label is not among its case's");
    }
    if (!rs) {
        if (next.found)
            view_html_begin_blind(&h, v, out, "Label pairs", run);
        else
            view_html_begin(&h, v, out, "Label pairs", run);
        html_raw(&h, "<h1>Label pairs blind</h1>\n<p class=\"meta\" id=\"queue-progress\"><span>");
        html_text(&h, annotator);
        html_printf(&h,
                    "</span><span><span id=\"labelled-count\">%" PRId64 "</span> of %" PRId64
                    " pairs labelled</span></p>\n",
                    mine.n, total);
        if (!next.found)
            html_printf(&h,
                        "<p id=\"queue-done\">Every pair of this run with both outputs is "
                        "labelled by you. <a href=\"/runs/%" PRId64 "/labels\">See the labels "
                        "and the agreement</a>.</p>\n",
                        run);
        else
            rs = blind_pair(&h, v, run, &next, &ri, err);
        if (!rs && next.found)
            label_form(&h, v, run, &next, pf.pos, annotator, &ri);
    }
    run_info_release(&ri);
    arb_label_next_release(&next);
    return rs ? rs : view_html_end(&h);
}

/* The criteria of a form ("crit.NAME" = A | B | tie) as {"NAME": choice}, or NULL for none. */
static char *form_criteria(const struct view_req *r, int *oom)
{
    cJSON *o = NULL;
    char *text = NULL;

    *oom = 0;
    for (size_t i = 0; i < r->n_args; i++) {
        const char *k = r->args[i].name;

        if (strncmp(k, "crit.", 5) != 0 || !k[5] || !*r->args[i].value)
            continue;
        if (!o && !(o = cJSON_CreateObject())) {
            *oom = 1;
            break;
        }
        cJSON_DeleteItemFromObjectCaseSensitive(o, k + 5);
        if (!cJSON_AddStringToObject(o, k + 5, r->args[i].value)) {
            cJSON_Delete(o);
            o = NULL;
            *oom = 1;
            break;
        }
    }
    if (o && !(text = cJSON_PrintUnformatted(o)))
        *oom = 1;
    cJSON_Delete(o);
    return text;
}

/* POST /runs/ID/label: store the label, then show what was behind it. */
static enum arb_status save_label(struct view_ctx *v, const struct view_req *r, int64_t run,
                                  struct view_resp *out, struct arb_err *err)
{
    const char *case_id = view_arg(r, "case"), *annotator = view_arg(r, "annotator");
    const char *choice = view_arg(r, "choice"), *note = view_arg(r, "note");
    int64_t pair = view_pair_arg(view_arg(r, "pair"));
    char *a = NULL, *b = NULL;
    struct arb_label_row l;
    struct arb_err why = {{0}};
    struct html h;
    char *crit;
    int oom;
    enum arb_status rs;

    if (!annotator_ok(annotator))
        return view_error_page(v, out, 400, "annotator: expected a name of 1 to 100 characters");
    if (!case_id || !*case_id || pair < 0)
        return view_error_page(v, out, 400, "the form names no case and pair");
    if (!choice || (strcmp(choice, "A") && strcmp(choice, "B") && strcmp(choice, "tie")))
        return view_error_page(v, out, 400, "choice: expected A, B or tie");
    rs = view_label_pair(v, run, case_id, pair, &a, &b, err);
    if (rs)
        return rs;
    if (!a)
        return view_error_page(v, out, 400, "the form names a case or pair this run lacks");
    crit = form_criteria(r, &oom);
    if (oom) {
        free(a);
        free(b);
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    }
    memset(&l, 0, sizeof(l));
    l.run = run;
    l.case_id = case_id;
    l.system_a = a;
    l.system_b = b;
    l.annotator = annotator;
    l.shown_first = a; /* the queue shows the blinding's A first */
    l.choice = choice;
    l.criteria_json = crit;
    l.note = note && *note ? note : NULL;
    rs = arb_store_put_label(v->st, &l, &why);
    cJSON_free(crit);
    free(a);
    free(b);
    if (rs == ARB_EUSAGE)
        return view_error_page(v, out, 400, why.msg);
    if (rs) {
        *err = why;
        return rs;
    }
    /* The reveal page; every byte of the case id and annotator outside [A-Za-z0-9-._~]
     * percent-encoded, so no CR or LF can reach the header. */
    out->status = 303;
    h.out = &out->location;
    h.st = ARB_OK;
    html_printf(&h, "/runs/%" PRId64 "/label/", run);
    view_url(&h, case_id);
    html_printf(&h, "?pair=%" PRId64 "&annotator=", pair);
    view_url(&h, annotator);
    if (h.st == ARB_ETOOBIG)
        return view_error_page(v, out, 400,
                               "the label is saved, but the case id is too long "
                               "for a link to what was behind it");
    if (h.st)
        return arb_err_set(err, h.st, "out of memory");
    return arb_buf_adds(&out->body, "saved\n");
}

enum arb_status view_label_route(struct view_ctx *v, const struct view_req *r, int64_t run,
                                 const char *rest, struct view_resp *out, struct arb_err *err)
{
    const char *annotator = view_arg(r, "annotator");

    if (strcmp(rest, "/labels") == 0) {
        if (r->post)
            return view_error_page(v, out, 400, "this page takes no form");
        return view_labels_page(v, r, run, out, err);
    }
    if (!v->labelling)
        return r->post ? view_error_page(v, out, 403,
                                         "this server is read-only: start it with "
                                         "arbiter view --label")
                       : not_labelling(v, run, out);
    if (r->post) {
        if (strcmp(rest, "/label") != 0)
            return view_error_page(v, out, 400, "labels are posted to /runs/ID/label");
        return save_label(v, r, run, out, err);
    }
    if (!annotator || !*annotator)
        annotator = v->annotator;
    if (!annotator)
        return ask_annotator(v, run, out, NULL);
    if (!annotator_ok(annotator))
        return ask_annotator(v, run, out,
                             "A name has 1 to 100 characters, none of them control "
                             "characters.");
    if (strncmp(rest, "/label/", 7) == 0)
        return view_reveal_page(v, r, run, rest + 7, annotator, out, err);
    return queue_page(v, run, annotator, out, err);
}
