/*
 * view_cache.c - derived data the pages reuse: the report of the run asked last (a 100,000-
 * case run takes a while to report, and its run page, compare page and labels page all want
 * it).  One run's report is kept; asking for another replaces it.  The database does not
 * change under a read-only view; with labelling on, labels are not part of the report.  The
 * static report's HTML of the run asked last is kept too (rendering 2,000 cases' details
 * takes a second or two).
 */
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "arbiter/report.h"
#include "arbiter/store.h"
#include "view_int.h"

struct view_cache {
    int64_t run;
    cJSON *report;
    int64_t against[2];    /* the comparison last asked: run a against run b */
    cJSON *against_report; /* and its report */
    int64_t html_run;      /* the static report last rendered, its run */
    struct arb_buf html;   /* and its bytes */
};

int view_cache_new(struct view_cache **out)
{
    *out = calloc(1, sizeof(**out));
    if (*out)
        arb_buf_init(&(*out)->html, 0);
    return *out == NULL;
}

void view_cache_free(struct view_cache *c)
{
    if (!c)
        return;
    cJSON_Delete(c->report);
    cJSON_Delete(c->against_report);
    arb_buf_release(&c->html);
    free(c);
}

static int run_seed(void *ctx, const struct arb_run_row *r)
{
    *(uint64_t *)ctx = r->seed;
    return 0;
}

enum arb_status view_cache_report(struct view_ctx *v, int64_t run, const cJSON **out,
                                  struct arb_err *err)
{
    struct view_cache *c = v->cache;
    /* As `arbiter report --strategy statistical` (1000 resamples, the run's seed). */
    struct arb_report_opts ro = {1000, 0, NULL};
    struct arb_report_parts parts = {0, 1, &ro, NULL};
    cJSON *rep = NULL;
    enum arb_status rs;

    if (c->report && c->run == run) {
        *out = c->report;
        return ARB_OK;
    }
    rs = arb_store_runs(v->st, run, run_seed, &ro.seed, err);
    if (!rs)
        rs = arb_report_compose(v->st, run, &parts, &rep, err);
    if (!rs)
        rs = arb_report_add_judge_health(v->st, run, rep, err);
    if (!rs)
        rs = arb_report_add_trials(v->st, run, rep, &ro, err);
    if (rs) {
        cJSON_Delete(rep);
        return rs;
    }
    cJSON_Delete(c->report);
    c->report = rep;
    c->run = run;
    *out = rep;
    return ARB_OK;
}

enum arb_status view_cache_html(struct view_ctx *v, int64_t run, const struct arb_buf **out,
                                struct arb_err *err)
{
    struct view_cache *c = v->cache;
    const cJSON *rep;
    cJSON *copy;
    enum arb_status rs;

    if (c->html_run == run && c->html.len) {
        *out = &c->html;
        return ARB_OK;
    }
    rs = view_cache_report(v, run, &rep, err);
    if (rs)
        return rs;
    copy = cJSON_Duplicate(rep, 1);
    if (!copy)
        return arb_err_set(err, ARB_ENOMEM, "out of memory");
    arb_buf_reset(&c->html);
    c->html_run = 0;
    rs = arb_report_add_cases(v->st, run, copy, VIEW_CASES_IN_REPORT, err);
    if (!rs)
        rs = arb_report_html(copy, &c->html);
    cJSON_Delete(copy);
    if (rs)
        return rs;
    c->html_run = run;
    *out = &c->html;
    return ARB_OK;
}

enum arb_status view_cache_against(struct view_ctx *v, int64_t a, int64_t b, const cJSON **out,
                                   struct arb_err *err)
{
    struct view_cache *c = v->cache;
    cJSON *rep = NULL;
    enum arb_status rs;

    if (c->against_report && c->against[0] == a && c->against[1] == b) {
        *out = c->against_report;
        return ARB_OK;
    }
    rs = arb_report_build(v->st, a, &rep, err);
    if (!rs)
        rs = arb_report_add_against(v->st, a, b, rep, err);
    if (rs) {
        cJSON_Delete(rep);
        return rs;
    }
    cJSON_Delete(c->against_report);
    c->against_report = rep;
    c->against[0] = a;
    c->against[1] = b;
    *out = rep;
    return ARB_OK;
}
