/*
 * Unit tests for why the judge failed: judge_refused in a run's totals
 * (summary.c), the failed question slots of a run with their reasons
 * (store_failures.c), their grouping by reason (report/failures.c) and the
 * table the markdown and HTML reports make of it.  The rows are made by hand:
 * tests/cli/failure_reasons.sh drives a real judge.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/report.h"
#include "arbiter/run.h"
#include "arbiter/select.h"
#include "arbiter/store.h"
#include "store_fixture.h"

static void ok(enum arb_status rc, const struct arb_err *err)
{
    cr_assert_eq(rc, ARB_OK, "%s", err->msg);
}

static void verdict(struct arb_store *st, int64_t run, const char *c, const char *b,
                    const char *status)
{
    struct arb_err err = {{0}};
    struct arb_verdict_row v = {c, "x", b, status, NULL, NAN, NAN, NAN, NAN, "{}"};

    if (strcmp(status, "decided") == 0)
        v.winner = "TIE";
    ok(arb_store_put_verdict(st, run, &v, &err), &err);
}

static void judgment(struct arb_store *st, int64_t run, const char *c, const char *ord, int attempt,
                     int valid, const char *error)
{
    struct arb_err err = {{0}};
    struct arb_judgment_row j = {c,     "x", "y",  ord,   0,    attempt, "key",
                                 valid, 0,   "{}", error, NULL, ""};

    ok(arb_store_put_judgment(st, run, &j, &err), &err);
}

/*
 * A run of six cases (k0..k5, in that order) and three systems:
 *   k0  x/y judge_refused; both orders refused                 -> refused
 *   k1  x/y judge_failed; AB invalid twice (E1, then E2), BA invalid then valid
 *   k2  x/y judge_failed, x/z judge_refused; AB valid with a stale invalid attempt 1,
 *       BA no reply                                            -> failed (it wins)
 *   k3  x/y decided; AB valid
 *   k4  x/y judge_refused, x/z pending_judge; AB invalid without an error -> refused
 *   k5  x/y missing_output, x/z judge_refused                  -> missing
 */
static struct arb_store *fixture(int64_t *run)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct arb_run_row r = {
        .suite_path = "suite.json",
        .suite_name = "failures",
        .suite_sha256 = "00ff",
        .suite_json = "{}",
        .systems_json = "[{\"name\":\"x\"},{\"name\":\"y\"},{\"name\":\"z\"}]",
        .version = "0",
    };
    static const char *const ids[] = {"k0", "k1", "k2", "k3", "k4", "k5"};

    *run = 0;
    ok(arb_store_begin(st, &err), &err);
    ok(arb_store_run_create(st, &r, run, &err), &err);
    for (int i = 0; i < 6; i++)
        ok(arb_store_put_case(st, *run, ids[i], i, "p", NULL, "{}", &err), &err);
    verdict(st, *run, "k0", "y", "judge_refused");
    verdict(st, *run, "k1", "y", "judge_failed");
    verdict(st, *run, "k2", "y", "judge_failed");
    verdict(st, *run, "k2", "z", "judge_refused");
    verdict(st, *run, "k3", "y", "decided");
    verdict(st, *run, "k4", "y", "judge_refused");
    verdict(st, *run, "k4", "z", "pending_judge");
    verdict(st, *run, "k5", "y", "missing_output");
    verdict(st, *run, "k5", "z", "judge_refused");
    judgment(st, *run, "k0", "AB", 0, 0, "the judge refused: no");
    judgment(st, *run, "k0", "BA", 0, 0, "the judge refused: no");
    judgment(st, *run, "k1", "AB", 0, 0, "E1");
    judgment(st, *run, "k1", "AB", 1, 0, "E2");
    judgment(st, *run, "k1", "BA", 0, 0, "E1");
    judgment(st, *run, "k1", "BA", 1, 1, NULL);
    judgment(st, *run, "k2", "AB", 0, 1, NULL);
    judgment(st, *run, "k2", "AB", 1, 0, "E2");
    judgment(st, *run, "k2", "BA", 0, 0, "no reply from the judge: HTTP 503");
    judgment(st, *run, "k3", "AB", 0, 1, NULL);
    judgment(st, *run, "k4", "AB", 0, 0, NULL);
    ok(arb_store_commit(st, &err), &err);
    return st;
}

Test(judge_failures, should_count_refused_cases_apart_from_failed_ones, .init = fx_setup,
     .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    struct arb_run_summary sum;
    struct arb_err err = {{0}};

    ok(arb_run_summarize(st, run, &sum, &err), &err);
    cr_expect_eq(sum.cases, 6);
    cr_expect_eq(sum.decided, 1);
    cr_expect_eq(sum.judge_failed, 2, "k1, and k2 whose failed pair outranks its refused one");
    cr_expect_eq(sum.judge_refused, 2, "k0, and k4 whose refused pair outranks its pending one");
    cr_expect_eq(sum.pending, 0);
    cr_expect_eq(sum.missing, 1);
    cr_expect_eq(sum.judged, 5, "every case with a judgment, refused ones included");
    arb_run_summary_release(&sum);
    arb_store_close(st);
}

struct rows {
    char text[1024];
    size_t n;
};

static int on_row(void *ctx, const struct arb_judge_failure_row *f)
{
    struct rows *r = ctx;
    size_t len = strlen(r->text);

    snprintf(r->text + len, sizeof(r->text) - len, "%s %s %s %d %lld %s\n", f->case_id, f->ord,
             f->system_b, f->attempt, (long long)f->n, f->reason);
    r->n++;
    return 0;
}

Test(judge_failures, should_list_the_slots_left_without_a_valid_answer, .init = fx_setup,
     .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    struct arb_err err = {{0}};
    struct rows r = {{0}, 0};

    ok(arb_store_judge_failures(st, run, NULL, on_row, &r, &err), &err);
    /* The most frequent reason first; then by the case each first failed in. */
    cr_expect_str_eq(r.text, "k0 AB y 0 2 the judge refused: no\n"
                             "k0 BA y 0 2 the judge refused: no\n"
                             "k1 AB y 1 1 E2\n"
                             "k2 BA y 0 1 no reply from the judge: HTTP 503\n"
                             "k4 AB y 0 1 the judge gave no valid reply\n");
    memset(&r, 0, sizeof(r));
    ok(arb_store_judge_failures(st, run, "k1", on_row, &r, &err), &err);
    cr_expect_str_eq(r.text, "k1 AB y 1 1 E2\n", "a retry that validated is no failure");
    memset(&r, 0, sizeof(r));
    ok(arb_store_judge_failures(st, run, "k3", on_row, &r, &err), &err);
    cr_expect_eq(r.n, 0);
    memset(&r, 0, sizeof(r));
    ok(arb_store_judge_failures(st, run + 1, NULL, on_row, &r, &err), &err);
    cr_expect_eq(r.n, 0, "another run has none");
    arb_store_close(st);
}

Test(judge_failures, should_follow_a_selection_of_cases, .init = fx_setup, .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    struct arb_err err = {{0}};
    const char *named[] = {"k4", "k1"};
    struct arb_case_select sel = {0, named, 2};
    struct rows r = {{0}, 0};

    ok(arb_store_scope(st, run, &sel, &err), &err);
    ok(arb_store_judge_failures(st, run, NULL, on_row, &r, &err), &err);
    cr_expect_str_eq(r.text, "k1 AB y 1 1 E2\n"
                             "k4 AB y 0 1 the judge gave no valid reply\n");
    arb_store_close(st);
}

static double num(const cJSON *o, const char *path0, int i, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(o, path0), i), k);

    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

Test(judge_failures, should_group_reasons_with_counts_and_cases, .init = fx_setup,
     .fini = fx_teardown)
{
    int64_t run;
    struct arb_store *st = fixture(&run);
    struct arb_err err = {{0}};
    cJSON *o = cJSON_CreateObject();
    char *text;

    ok(arb_report_add_judge_failures(st, run, o, 2, 1, &err), &err);
    text = cJSON_PrintUnformatted(o);
    cr_expect_str_eq(text, "{\"judge_failures\":["
                           "{\"reason\":\"the judge refused: no\",\"count\":2,\"cases\":1,"
                           "\"case_ids\":[\"k0\"]},"
                           "{\"reason\":\"E2\",\"count\":1,\"cases\":1,\"case_ids\":[\"k1\"]}],"
                           "\"judge_failures_more\":{\"reasons\":2,\"count\":2}}");
    cJSON_free(text);
    cJSON_Delete(o);
    o = cJSON_CreateObject();
    ok(arb_report_add_judge_failures(st, run, o, 100, 5, &err), &err);
    cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(o, "judge_failures")), 4);
    cr_expect_eq(num(o, "judge_failures", 3, "count"), 1);
    cr_expect_null(cJSON_GetObjectItemCaseSensitive(o, "judge_failures_more"));
    cJSON_Delete(o);
    arb_store_close(st);
}

/* A report with judge_health and its failures, as arb_report_add_judge_health makes it. */
static const char report_json[] =
    "{\"run\":{\"id\":1,\"suite\":\"s\",\"status\":\"complete\",\"seed\":0},"
    "\"cases\":9,\"decided\":4,\"pending_judge\":0,\"missing_output\":0,\"judge_failed\":3,"
    "\"judge_refused\":2,\"systems\":[],\"expectations\":[],\"problems\":[],"
    "\"judge_health\":{\"escalated_cases\":5,\"requests\":10,\"cache_hits\":0,"
    "\"invalid_replies\":8,\"judge_failed\":3,\"judge_refused\":2,\"calibration\":\"uncalibrated\","
    "\"judge_failures\":[{\"reason\":\"HTTP 400: bad | schema\\nline two\",\"count\":6,"
    "\"cases\":3,\"case_ids\":[\"c1\",\"c<2>\"]},"
    "{\"reason\":\"the judge refused: I can't help with that\",\"count\":4,\"cases\":2,"
    "\"case_ids\":[\"c7\",\"c8\"]}],\"judge_failures_more\":{\"reasons\":3,\"count\":3}}}";

Test(judge_failures, should_render_the_reasons_in_markdown_and_html)
{
    cJSON *report = cJSON_Parse(report_json);
    struct arb_buf b;

    cr_assert_not_null(report);
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_report_markdown(report, &b), ARB_OK);
    cr_assert_eq(arb_buf_addc(&b, '\0'), ARB_OK);
    cr_expect_not_null(strstr(b.ptr, "The judge refused 2 cases (judge_refused"), "%s", b.ptr);
    cr_expect_not_null(strstr(b.ptr, "Most frequent reason the judge failed: HTTP 400: bad \\| "
                                     "schema line two (6 judgments in 3 cases)"),
                       "%s", b.ptr);
    cr_expect_not_null(strstr(b.ptr, "| judge_refused | 2 |"), "%s", b.ptr);
    cr_expect_not_null(strstr(b.ptr,
                              "| Reason | Judgments | Cases (first few) |\n"
                              "|---|---:|---|\n"
                              "| HTTP 400: bad \\| schema line two | 6 | 3: c1, c<2>, ... |\n"
                              "| the judge refused: I can't help with that | 4 | 2: c7, c8 |\n"
                              "\nAnd 3 more reasons (3 judgments).\n"),
                       "%s", b.ptr);
    arb_buf_release(&b);
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_report_html(report, &b), ARB_OK);
    cr_assert_eq(arb_buf_addc(&b, '\0'), ARB_OK);
    cr_expect_not_null(strstr(b.ptr, "<table id=\"judge-failures\">"));
    cr_expect_not_null(strstr(b.ptr,
                              "<tr><td>HTTP 400: bad | schema\nline two</td>"
                              "<td class=\"n\">6</td><td>3: <a href=\"#case-c1\">c1</a>, "
                              "<a href=\"#case-c_3C2_3E\">c&lt;2&gt;</a>, &hellip;</td></tr>"),
                       "%s", b.ptr);
    cr_expect_not_null(strstr(b.ptr, "And 3 more reasons (3 judgments)."));
    cr_expect_not_null(strstr(b.ptr, "judge refused"));
    arb_buf_release(&b);
    cJSON_Delete(report);
}
