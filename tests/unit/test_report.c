/*
 * Unit tests for src/report/comparison.c: the partial reading of a stored
 * comparison.json must give exactly what a full parse gives for the members
 * reports read, whatever the other members hold.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/report/report_int.h"

/* The wanted members of a full parse, as one canonical text, for comparison. */
static char *expected_of(const char *json)
{
    cJSON *full = cJSON_Parse(json), *want = cJSON_CreateObject();
    const char *keys[] = {"rubric", "expectation_results"};
    char *text;

    cr_assert_not_null(full);
    for (int i = 0; i < 2; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(full, keys[i]);

        if (v)
            cJSON_AddItemToObject(want, keys[i], cJSON_Duplicate(v, 1));
    }
    text = cJSON_PrintUnformatted(want);
    cJSON_Delete(want);
    cJSON_Delete(full);
    return text;
}

static void same_as_full(const char *json)
{
    cJSON *got = report_parse_comparison(json);
    char *a, *b = expected_of(json);

    cr_assert_not_null(got, "%s", json);
    /* A fallback returns the full object: keep only the wanted members to compare. */
    cJSON_DeleteItemFromObjectCaseSensitive(got, "winner");
    cJSON_DeleteItemFromObjectCaseSensitive(got, "reasoning");
    cJSON_DeleteItemFromObjectCaseSensitive(got, "output_quality");
    cJSON_DeleteItemFromObjectCaseSensitive(got, "x");
    a = cJSON_PrintUnformatted(got);
    cr_assert_str_eq(a, b, "input: %s", json);
    cJSON_free(a);
    cJSON_free(b);
    cJSON_Delete(got);
}

Test(report_comparison, should_read_the_members_a_report_needs)
{
    same_as_full("{\"winner\":\"A\",\"reasoning\":\"A is complete\",\"rubric\":{\"A\":{\"content\":"
                 "{\"correctness\":5},\"overall_score\":9.5}},\"output_quality\":{\"A\":{\"score\":"
                 "9}},\"expectation_results\":{\"A\":{\"passed\":1,\"details\":[{\"id\":\"e\","
                 "\"passed\":true}]}},\"unresolved\":[]}");
}

Test(report_comparison, should_not_be_fooled_by_what_strings_hold)
{
    /* Quotes, braces, escaped backslashes before a closing quote, a key-like text. */
    same_as_full("{\"reasoning\":\"say \\\"rubric\\\": {[ \\\\\",\"rubric\":{\"A\":1},"
                 "\"output_quality\":\"}}]]\",\"expectation_results\":{\"B\":[1,{\"x\":\"}\"}]}}");
    /* A criterion named like a top-level member, inside the rubric. */
    same_as_full("{\"rubric\":{\"A\":{\"content\":{\"expectation_results\":4}}},"
                 "\"expectation_results\":{\"A\":{\"details\":[]}}}");
    /* Whitespace everywhere, members missing, numbers and literals skipped. */
    same_as_full(" { \"winner\" : null , \"x\" : -1.5e3 , \"y\" : true ,\n \"rubric\" : [ ] } ");
    same_as_full("{}");
    /* An escaped key is not taken for a wanted one by the shortcut (the full parse decides). */
    same_as_full("{\"rub\\u0072ic\":{\"A\":2}}");
}

Test(report_comparison, should_fall_back_or_refuse_what_is_not_an_object)
{
    cJSON *v = report_parse_comparison("[1,2]");

    cr_assert(cJSON_IsArray(v));
    cJSON_Delete(v);
    cr_assert_null(report_parse_comparison("{\"rubric\":"));
    cr_assert_null(report_parse_comparison("not json"));
    cr_assert_null(report_parse_comparison(NULL));
}
