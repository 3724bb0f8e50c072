/*
 * Unit tests for the HTML report (arb_report_html): escaping of hostile text,
 * safe anchors, reports with and without the optional members, and a page
 * that references nothing outside itself.  tests/report/html.sh opens the
 * page in a real browser.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/report.h"

/* The report shape of arb_report_build before intervals, pairs, cases and gates. */
static const char minimal_report[] =
    "{\"run\":{\"id\":1,\"suite\":\"invoices\",\"status\":\"complete\","
    "\"created_at\":\"2026-01-01T00:00:00Z\",\"seed\":7,\"arbiter_version\":\"0.1.0\"},"
    "\"cases\":3,\"decided\":2,\"pending_judge\":1,\"missing_output\":0,\"judge_failed\":0,"
    "\"systems\":[{\"name\":\"base\",\"wins\":0,\"losses\":1,\"ties\":1,\"win_rate\":0.25,"
    "\"win_rate_without_ties\":0,\"expectations\":{\"passed\":3,\"failed\":1,\"unresolved\":0,"
    "\"pass_rate\":0.75},\"rubric\":{\"content\":{\"correctness\":4},\"structure\":"
    "{\"formatting\":null}},\"content_score\":4,\"structure_score\":null,\"overall_score\":8},"
    "{\"name\":\"cand\",\"wins\":1,\"losses\":0,\"ties\":1,\"win_rate\":0.75,"
    "\"win_rate_without_ties\":1,\"expectations\":{\"passed\":4,\"failed\":0,\"unresolved\":1,"
    "\"pass_rate\":1},\"rubric\":{\"content\":{\"correctness\":5},\"structure\":"
    "{\"formatting\":null}},\"content_score\":5,\"structure_score\":null,\"overall_score\":10}],"
    "\"expectations\":[{\"id\":\"valid-json\",\"text\":\"valid JSON\",\"systems\":{\"base\":"
    "{\"passed\":1,\"failed\":1,\"unresolved\":0,\"pass_rate\":0.5},\"cand\":{\"passed\":1,"
    "\"failed\":0,\"unresolved\":1,\"pass_rate\":null}}}],\"problems\":[],"
    "\"judge_usage\":{\"judgments\":0,\"cached\":0,\"invalid_replies\":0,\"prompt_tokens\":0,"
    "\"completion_tokens\":0,\"latency_s\":0}}";

/* Members the lead adds to the report; merged into minimal_report by full(). */
static const char optional_members[] =
    "{\"intervals\":[{\"win_rate\":[0.1,0.4],\"pass_rate\":[0.5,0.9],"
    "\"overall_score\":[7,9]},{\"win_rate\":[0.6,0.9],\"pass_rate\":[0.9,1],"
    "\"overall_score\":[9,10]}],"
    "\"pairs\":[{\"a\":\"base\",\"b\":\"cand\",\"a_wins\":0,\"b_wins\":1,\"ties\":1,"
    "\"sign_test_p\":0.5,\"paired_bootstrap\":{\"mean_diff\":-1.5,\"lo\":-2,\"hi\":-1,\"p\":0.01},"
    "\"significant\":true}],"
    "\"judge_health\":{\"escalated_cases\":1,\"escalation_rate\":0.33,\"requests\":2,"
    "\"cache_hits\":0,\"prompt_tokens\":1200,\"completion_tokens\":80,"
    "\"position_inconsistent_rate\":0,\"first_position_win_rate\":null,\"tie_rate\":0.5,"
    "\"longer_output_won_rate\":null,\"sample_agreement\":1,\"judge_failed\":0,"
    "\"config_hash\":\"abcdef0123456789\",\"calibration\":\"uncalibrated\"},"
    "\"gates\":[{\"gate\":\"win_rate\",\"value\":0.75,\"threshold\":0.55,\"passed\":true},"
    "{\"gate\":\"pass_rate\",\"value\":1,\"threshold\":0.9,\"passed\":false}],"
    "\"cases\":[{\"id\":\"inv-001\",\"status\":\"decided\",\"winner\":\"A\","
    "\"systems\":{\"A\":\"cand\",\"B\":\"base\"},\"scores\":{\"A\":9.5,\"B\":7},"
    "\"reasoning\":\"A keeps the "
    "vendor.\",\"outputs\":{\"base\":\"{}\",\"cand\":\"{\\\"a\\\":1}\"},"
    "\"checks\":[{\"system\":\"base\",\"kind\":\"expectation\",\"item\":\"valid-json\","
    "\"verdict\":\"fail\",\"score\":0,\"record\":{\"operator\":\"json_valid\",\"score\":0}}]},"
    "{\"id\":\"inv-002\",\"status\":\"pending_judge\",\"winner\":null,\"systems\":{},"
    "\"scores\":{},\"outputs\":{\"base\":\"x\"},\"checks\":[]}]}";

static cJSON *parse(const char *text)
{
    cJSON *o = cJSON_Parse(text);

    cr_assert_not_null(o, "fixture does not parse");
    return o;
}

/* minimal_report with every optional member added (intervals go to each system). */
static cJSON *full(void)
{
    cJSON *r = parse(minimal_report), *extra = parse(optional_members), *m;
    cJSON *intervals = cJSON_DetachItemFromObjectCaseSensitive(extra, "intervals");
    int i;

    for (i = 0; i < 2; i++)
        cJSON_AddItemToObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "systems"), i), "intervals",
                              cJSON_DetachItemFromArray(intervals, 0));
    cJSON_Delete(intervals);
    cJSON_DeleteItemFromObject(r, "cases");
    while ((m = extra->child) != NULL)
        cJSON_AddItemToObject(r, m->string, cJSON_DetachItemViaPointer(extra, m));
    cJSON_Delete(extra);
    return r;
}

/* Render r (which this frees) and return the page (the caller frees it). */
static char *render(cJSON *r)
{
    struct arb_buf b;
    char *page;

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_report_html(r, &b), ARB_OK);
    cJSON_Delete(r);
    page = arb_buf_detach(&b, NULL);
    cr_assert_not_null(page);
    return page;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;

    for (hay = strstr(hay, needle); hay; hay = strstr(hay + 1, needle))
        n++;
    return n;
}

/*
 * One document that loads nothing: the only "http" is the CSP's http-equiv,
 * no src attribute, and every href an anchor or the data: icon.  User text
 * cannot fake or hide an attribute: it has no raw quote.
 */
static void assert_self_contained(const char *page)
{
    const char *p;

    cr_assert_eq(count(page, "<html"), 1);
    cr_assert_eq(count(page, "</html>"), 1);
    cr_assert_eq(count(page, "http"), 1, "only http-equiv may say http");
    cr_assert_not_null(strstr(page, "<meta http-equiv=\"Content-Security-Policy\""));
    cr_assert_null(strstr(page, "http:"));
    cr_assert_null(strstr(page, "https:"));
    cr_assert_null(strstr(page, "<script"));
    cr_assert_null(strstr(page, "src=\""));
    for (p = strstr(page, "href=\""); p; p = strstr(p + 1, "href=\""))
        cr_assert(p[6] == '#' || strncmp(p + 6, "data:,\"", 7) == 0, "href to %.30s", p + 6);
    cr_assert_null(strstr(page, "url("));
    cr_assert_null(strstr(page, "@import"));
}

Test(html, should_escape_hostile_text)
{
    cJSON *r = full(), *c = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "cases"), 0);
    cJSON *outs = cJSON_GetObjectItem(c, "outputs");
    char *page;

    cJSON_SetValuestring(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "run"), "suite"),
                         "<script>alert(1)</script>");
    cJSON_SetValuestring(cJSON_GetObjectItem(c, "id"), "<script>x</script>");
    cJSON_SetValuestring(cJSON_GetObjectItem(c, "reasoning"), "</blockquote>\"q\" & 'a'");
    cJSON_SetValuestring(cJSON_GetObjectItem(outs, "base"), "</pre><script>alert(1)</script>");
    cJSON_SetValuestring(cJSON_GetObjectItem(outs, "cand"), "<img src=x onerror=alert(2)>\x01");
    page = render(r);
    cr_assert_null(strstr(page, "<script"));
    cr_assert_null(strstr(page, "<img"));
    cr_assert_null(strstr(page, "</pre><script"));
    cr_assert_null(strstr(page, "\x01"), "control characters are replaced");
    cr_assert_not_null(strstr(page, "<h1 id=\"report-title\">&lt;script&gt;alert(1)&lt;/script&gt;"
                                    "</h1>"));
    cr_assert_not_null(strstr(page, "&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    cr_assert_not_null(strstr(page, "&lt;/blockquote&gt;&quot;q&quot; &amp; &#39;a&#39;"));
    cr_assert_not_null(strstr(page, "&lt;img src=x onerror=alert(2)&gt;\xef\xbf\xbd"));
    assert_self_contained(page);
    free(page);
}

Test(html, should_encode_case_ids_into_safe_anchors)
{
    cJSON *r = full(), *c = cJSON_GetArrayItem(cJSON_GetObjectItem(r, "cases"), 0);
    char *page;

    cJSON_SetValuestring(cJSON_GetObjectItem(c, "id"), "<a b>\"_'x");
    page = render(r);
    cr_assert_not_null(strstr(page, "href=\"#case-_3Ca_20b_3E_22_5F_27x\""));
    cr_assert_not_null(strstr(page, "id=\"case-_3Ca_20b_3E_22_5F_27x\""));
    cr_assert_not_null(strstr(page, "href=\"#case-inv-002\""));
    cr_assert_not_null(strstr(page, "id=\"case-inv-002\""));
    free(page);
}

Test(html, should_list_cases_detail_with_unique_anchors)
{
    cJSON *r = full(), *list = cJSON_DetachItemFromObjectCaseSensitive(r, "cases");
    char *page;

    /* arb_report_build keeps "cases" a count; a case is listed once per pair. */
    cJSON_SetValuestring(cJSON_GetObjectItem(cJSON_GetArrayItem(list, 1), "id"), "inv-001");
    cJSON_AddNumberToObject(r, "cases", 2);
    cJSON_AddItemToObject(r, "cases_detail", list);
    cJSON_AddNumberToObject(r, "cases_detail_limit", 2);
    page = render(r);
    cr_assert_not_null(strstr(page, "id=\"cases-table\""));
    cr_assert_eq(count(page, "id=\"case-inv-001\""), 1);
    cr_assert_eq(count(page, "href=\"#case-inv-001\""), 1);
    cr_assert_eq(count(page, "id=\"case-inv-001__2\""), 1);
    cr_assert_eq(count(page, "href=\"#case-inv-001__2\""), 1);
    cr_assert_not_null(strstr(page, "Only the first 2 verdicts are listed."));
    cr_assert_not_null(strstr(page, "<span class=\"v\">2</span><span class=\"k\">cases"));
    free(page);
}

Test(html, should_render_every_optional_member)
{
    char *page = render(full());

    cr_assert_not_null(strstr(page, "id=\"systems-table\""));
    cr_assert_not_null(strstr(page, "id=\"systems-chart\""));
    cr_assert_not_null(strstr(page, "id=\"pairs-chart\""));
    cr_assert_not_null(strstr(page, "id=\"pairs-table\""));
    cr_assert_not_null(strstr(page, "id=\"rubric-chart\""));
    cr_assert_not_null(strstr(page, "id=\"expectations-chart\""));
    cr_assert_not_null(strstr(page, "id=\"judge-health\""));
    cr_assert_not_null(strstr(page, "id=\"judge-usage\""));
    cr_assert_not_null(strstr(page, "id=\"gates-table\""));
    cr_assert_not_null(strstr(page, "id=\"cases-table\""));
    cr_assert_not_null(strstr(page, "class=\"whisker\""), "intervals draw whiskers");
    cr_assert_not_null(strstr(page, "10.0% &ndash; 40.0%"), "win rate interval in the table");
    cr_assert_not_null(strstr(page, "<details class=\"check\">"));
    cr_assert_not_null(strstr(page, "&quot;operator&quot;:\t&quot;json_valid&quot;"),
                       "the check record, pretty-printed and escaped");
    cr_assert_not_null(strstr(page, "A keeps the vendor."));
    cr_assert_not_null(strstr(page, "<span class=\"badge b-fail\">failed</span>"));
    cr_assert_not_null(strstr(page, "uncalibrated"));
    cr_assert_eq(count(page, "<pre class=\"output\">"), 3, "A and B, then the one output");
    assert_self_contained(page);
    free(page);
}

Test(html, should_render_without_optional_members)
{
    char *page = render(parse(minimal_report));

    cr_assert_not_null(strstr(page, "id=\"systems-table\""));
    cr_assert_not_null(strstr(page, "id=\"expectations-chart\""));
    cr_assert_not_null(strstr(page, "id=\"pairs-chart\""), "two systems make one pair");
    cr_assert_null(strstr(page, "id=\"pairs-table\""));
    cr_assert_null(strstr(page, "id=\"cases-table\""));
    cr_assert_null(strstr(page, "id=\"judge-health\""));
    cr_assert_null(strstr(page, "id=\"gates\""));
    cr_assert_null(strstr(page, "class=\"whisker\""));
    cr_assert_not_null(strstr(page, "No judge was configured"));
    cr_assert_not_null(strstr(page, "<span class=\"v\">3</span><span class=\"k\">cases"));
    assert_self_contained(page);
    free(page);
}

Test(html, should_render_an_empty_report)
{
    char *page = render(parse("{}"));

    assert_self_contained(page);
    cr_assert_not_null(strstr(page, "(unnamed suite)"));
    free(page);
}

Test(html, should_refuse_what_is_not_an_object)
{
    struct arb_buf b;
    cJSON *a = parse("[1]");

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_report_html(NULL, &b), ARB_EUSAGE);
    cr_assert_eq(arb_report_html(a, &b), ARB_EUSAGE);
    cJSON_Delete(a);
    arb_buf_release(&b);
}

Test(html, should_stop_at_the_buffer_cap)
{
    struct arb_buf b;
    cJSON *r = full();

    arb_buf_init(&b, 4096);
    cr_assert_eq(arb_report_html(r, &b), ARB_ETOOBIG);
    cr_assert_lt(b.len, 4096);
    cJSON_Delete(r);
    arb_buf_release(&b);
}

/* A record holding a whole output (100 KB here, 10 MB at worst) shows its first 20,000 bytes
 * of it and how many it leaves out, so a page of big outputs stays under its cap. */
Test(html, should_cut_a_long_string_of_a_check_record)
{
    cJSON *r = full(), *cases = cJSON_GetObjectItemCaseSensitive(r, "cases");
    cJSON *check = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cases, 0), "checks"), 0);
    cJSON *rec = cJSON_GetObjectItemCaseSensitive(check, "record");
    char *big = malloc(100001);
    struct arb_buf b;

    cr_assert(big);
    memset(big, 'x', 100000);
    big[100000] = '\0';
    memcpy(big, "first", 5);
    cr_assert(cJSON_AddStringToObject(rec, "observed", big));
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_report_html(r, &b), ARB_OK);
    cr_assert(strstr(b.ptr, "&quot;observed&quot;:\t&quot;firstxxx"));
    cr_assert(strstr(b.ptr, "[... 80000 more bytes]"), "no note of what is cut");
    cr_assert_lt(b.len, 80000);
    free(big);
    cJSON_Delete(r);
    arb_buf_release(&b);
}
