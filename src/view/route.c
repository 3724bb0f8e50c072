/*
 * route.c - which page answers a path.  Paths are decoded before they get here, so a case id
 * is whatever follows "/runs/ID/cases/" (it may hold a slash).  A page that is not there is
 * a 404 page in the frame; only the labelling pages take a POST.
 */
#include <stdlib.h>
#include <string.h>

#include "view_int.h"

/* "/runs/12/cases" -> the segment "12" copied into seg, the rest "/cases" in *rest. */
static int run_segment(const char *path, char *seg, size_t n, const char **rest)
{
    const char *p = path + strlen("/runs/"), *end = strchr(p, '/');
    size_t len = end ? (size_t)(end - p) : strlen(p);

    if (len == 0 || len >= n)
        return 0;
    memcpy(seg, p, len);
    seg[len] = '\0';
    *rest = p + len;
    return 1;
}

static enum arb_status run_route(struct view_ctx *v, const struct view_req *r,
                                 struct view_resp *out, struct arb_err *err)
{
    char seg[32];
    const char *rest;
    int64_t run;

    if (!run_segment(r->path, seg, sizeof(seg), &rest))
        return view_error_page(v, out, 404, "no such page");
    run = view_run_id(v, seg, err);
    if (run < 0)
        return ARB_EDB;
    if (run == 0)
        return view_error_page(v, out, 404, "no such run in this database");
    if (strcmp(rest, "/label") == 0 || strncmp(rest, "/label/", 7) == 0 ||
        strcmp(rest, "/labels") == 0)
        return view_label_route(v, r, run, rest, out, err);
    if (r->post)
        return view_error_page(v, out, 400, "this page takes no form");
    if (*rest == '\0' || strcmp(rest, "/") == 0)
        return view_run_page(v, r, run, out, err);
    if (strcmp(rest, "/report") == 0)
        return view_report_page(v, r, run, out, err);
    if (strcmp(rest, "/cases") == 0 || strcmp(rest, "/cases/") == 0)
        return view_cases_page(v, r, run, out, err);
    if (strncmp(rest, "/cases/", 7) == 0)
        return view_case_page(v, r, run, rest + 7, out, err);
    return view_error_page(v, out, 404, "no such page");
}

enum arb_status view_route(struct view_ctx *v, const struct view_req *r, struct view_resp *out,
                           struct arb_err *err)
{
    if (strncmp(r->path, "/assets/", 8) == 0 && !r->post)
        return view_asset(v, r->path + 8, out);
    if (strncmp(r->path, "/runs/", 6) == 0)
        return run_route(v, r, out, err);
    if (r->post)
        return view_error_page(v, out, 400, "this page takes no form");
    if (strcmp(r->path, "/") == 0 || strcmp(r->path, "/runs") == 0)
        return view_runs_page(v, r, out, err);
    if (strcmp(r->path, "/favicon.ico") == 0) {
        /* Pages name their icon (data:,); a browser asks anyway after a plain-text reply. */
        out->status = 204;
        out->cacheable = 1;
        return ARB_OK;
    }
    if (strcmp(r->path, "/compare") == 0)
        return view_compare_page(v, r, out, err);
    return view_error_page(v, out, 404, "no such page");
}
