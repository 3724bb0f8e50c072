/*
 * page.c - what every page of `arbiter view` shares: the frame (head, navigation, footer),
 * the error page, URLs for user text, and the case table's query read from and written
 * back into a URL.  The pages themselves are in their own files; the server in server.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/html_int.h"
#include "view_int.h"

/* blind: the labelling queue's frame, whose navigation leads nowhere that shows a verdict. */
static void page_begin(struct html *h, const struct view_ctx *v, const char *title, int64_t run,
                       int blind);

void view_html_begin(struct html *h, struct view_ctx *v, struct view_resp *out, const char *title,
                     int64_t run)
{
    h->out = &out->body;
    h->st = ARB_OK;
    page_begin(h, v, title, run, 0);
}

void view_html_begin_blind(struct html *h, struct view_ctx *v, struct view_resp *out,
                           const char *title, int64_t run)
{
    h->out = &out->body;
    h->st = ARB_OK;
    page_begin(h, v, title, run, 1);
}

enum arb_status view_html_end(struct html *h)
{
    view_page_end(h);
    return h->st;
}

void view_page_begin(struct html *h, const struct view_ctx *v, const char *title, int64_t run)
{
    page_begin(h, v, title, run, 0);
}

static void page_begin(struct html *h, const struct view_ctx *v, const char *title, int64_t run,
                       int blind)
{
    html_raw(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                "<meta name=\"arbiter-token\" content=\"");
    html_text(h, v->token);
    html_raw(h, "\">\n<link rel=\"icon\" href=\"data:,\">\n"
                "<link rel=\"stylesheet\" href=\"/assets/view.css\">\n"
                "<script src=\"/assets/view.js\" defer></script>\n<title>");
    html_text(h, title);
    html_raw(h, " &middot; Arbiter</title>\n</head>\n<body>\n<nav class=\"top\">"
                "<a class=\"brand\" href=\"/\">Arbiter</a><a href=\"/\">Runs</a>");
    if (run > 0 && blind) {
        /* The run's cases, report and labels name the systems behind the pair in view: one
         * click away, they would unblind the annotator by accident. */
        html_printf(h, "<a href=\"/runs/%" PRId64 "/label\">Label</a>", run);
    } else if (run > 0) {
        html_printf(h,
                    "<a href=\"/runs/%" PRId64 "\">Run %" PRId64 "</a>"
                    "<a href=\"/runs/%" PRId64 "/cases\">Cases</a>"
                    "<a href=\"/runs/%" PRId64 "/label\">Label</a>"
                    "<a href=\"/runs/%" PRId64 "/labels\">Labels</a>"
                    "<a href=\"/runs/%" PRId64 "/report\">Report</a>",
                    run, run, run, run, run, run);
    }
    html_raw(h, "<span class=\"db\" title=\"the database\">");
    html_text(h, v->db_path);
    html_raw(h, v->labelling ? " &middot; labelling" : " &middot; read-only");
    html_raw(h, "</span></nav>\n<main>\n");
}

void view_page_end(struct html *h)
{
    html_raw(h, "</main>\n</body>\n</html>\n");
}

enum arb_status view_error_page(struct view_ctx *v, struct view_resp *out, int status,
                                const char *msg)
{
    struct html h;

    out->status = status;
    view_html_begin(&h, v, out, status == 404 ? "Not found" : "Error", 0);
    html_printf(&h, "<h1>%s</h1>\n<p class=\"error\" id=\"error\">",
                status == 404   ? "Not found"
                : status == 400 ? "Bad request"
                : status == 403 ? "Forbidden"
                                : "Something went wrong");
    html_text(&h, msg);
    html_raw(&h, "</p>\n<p><a href=\"/\">Back to the runs</a></p>\n");
    return view_html_end(&h);
}

void view_url(struct html *h, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char chunk[256];
    size_t n = 0;

    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;

        if (n + 4 > sizeof(chunk)) {
            chunk[n] = '\0';
            html_raw(h, chunk);
            n = 0;
        }
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
            c == '-' || c == '.' || c == '_' || c == '~') {
            chunk[n++] = (char)c;
        } else {
            chunk[n++] = '%';
            chunk[n++] = hex[c >> 4];
            chunk[n++] = hex[c & 15];
        }
    }
    chunk[n] = '\0';
    html_raw(h, chunk);
}

static int on_run(void *ctx, const struct arb_run_row *r)
{
    *(int64_t *)ctx = r->id;
    return 1;
}

int view_whole(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    int64_t v = 0;

    if (!*s || strlen(s) > 12)
        return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        v = v * 10 + (*s - '0');
    }
    if (v < lo || v > hi)
        return 0;
    *out = v;
    return 1;
}

int64_t view_run_id(struct view_ctx *v, const char *segment, struct arb_err *err)
{
    int64_t id = 0, found = 0;

    /* A run has one spelling: no leading zero. */
    if (*segment == '0' || !view_whole(segment, 1, 999999999999, &id))
        return 0;
    if (arb_store_runs(v->st, id, on_run, &found, err))
        return -1;
    return found;
}

/* ---- the case table's query ---------------------------------------------------------------- */

static const struct {
    const char *word;
    unsigned flag;
} flag_words[] = {
    {"judged", ARB_CASE_JUDGED},
    {"pi", ARB_CASE_POSITION_INCONSISTENT},
    {"jf", ARB_CASE_JUDGE_FAILED},
    {"disagree", ARB_CASE_DISAGREE},
    {"expfail", ARB_CASE_EXPECTATION_FAILED},
};

static const char *const sort_words[] = {"seq", "id", "status", "winner", "margin"};

int view_filter_read(const struct view_req *r, int64_t run, struct view_filter *f, char *bad,
                     size_t n)
{
    int64_t per = 50;

    memset(f, 0, sizeof(*f));
    f->q.run = run;
    f->page = 1;
    for (size_t i = 0; i < r->n_args; i++) {
        const char *k = r->args[i].name, *val = r->args[i].value;
        size_t j;

        if (strcmp(k, "status") == 0) {
            f->q.status = val;
        } else if (strcmp(k, "winner") == 0) {
            f->q.winner = val;
        } else if (strcmp(k, "q") == 0) {
            f->q.search = val;
        } else if (strcmp(k, "flag") == 0) {
            for (j = 0; j < sizeof(flag_words) / sizeof(flag_words[0]); j++)
                if (strcmp(val, flag_words[j].word) == 0)
                    break;
            if (j == sizeof(flag_words) / sizeof(flag_words[0])) {
                snprintf(bad, n, "flag: expected judged, pi, jf, disagree or expfail, got '%.60s'",
                         val);
                return 0;
            }
            f->q.flags |= flag_words[j].flag;
        } else if (strcmp(k, "sort") == 0) {
            for (j = 0; j < sizeof(sort_words) / sizeof(sort_words[0]); j++)
                if (strcmp(val, sort_words[j]) == 0)
                    break;
            if (j == sizeof(sort_words) / sizeof(sort_words[0])) {
                snprintf(bad, n, "sort: expected seq, id, status, winner or margin, got '%.60s'",
                         val);
                return 0;
            }
            f->q.sort = (enum arb_case_sort)j;
        } else if (strcmp(k, "dir") == 0) {
            if (strcmp(val, "asc") != 0 && strcmp(val, "desc") != 0) {
                snprintf(bad, n, "dir: expected asc or desc, got '%.60s'", val);
                return 0;
            }
            f->q.descending = strcmp(val, "desc") == 0;
        } else if (strcmp(k, "page") == 0) {
            if (!view_whole(val, 1, 100000000, &f->page)) {
                snprintf(bad, n, "page: expected a whole number from 1, got '%.60s'", val);
                return 0;
            }
        } else if (strcmp(k, "per") == 0) {
            if (!view_whole(val, 1, 1000, &per)) {
                snprintf(bad, n, "per: expected a whole number from 1 to 1000, got '%.60s'", val);
                return 0;
            }
        }
        /* Other arguments (token, annotator...) belong to other pages. */
    }
    f->q.limit = per;
    f->q.offset = (f->page - 1) * per;
    return 1;
}

static void arg(struct html *h, int *first, const char *name, const char *value)
{
    html_raw(h, *first ? "?" : "&amp;");
    *first = 0;
    html_raw(h, name);
    html_raw(h, "=");
    view_url(h, value);
}

void view_filter_query(struct html *h, const struct view_filter *f, int64_t page)
{
    int first = 1;
    char num[32];

    if (f->q.status && *f->q.status)
        arg(h, &first, "status", f->q.status);
    if (f->q.winner && *f->q.winner)
        arg(h, &first, "winner", f->q.winner);
    for (size_t j = 0; j < sizeof(flag_words) / sizeof(flag_words[0]); j++)
        if (f->q.flags & flag_words[j].flag)
            arg(h, &first, "flag", flag_words[j].word);
    if (f->q.search && *f->q.search)
        arg(h, &first, "q", f->q.search);
    if (f->q.sort != ARB_CASE_SORT_SEQ)
        arg(h, &first, "sort", sort_words[f->q.sort]);
    if (f->q.descending)
        arg(h, &first, "dir", "desc");
    if (f->q.limit != 50) {
        snprintf(num, sizeof(num), "%" PRId64, f->q.limit);
        arg(h, &first, "per", num);
    }
    if (page > 1) {
        snprintf(num, sizeof(num), "%" PRId64, page);
        arg(h, &first, "page", num);
    }
}
