/*
 * No hidden normalization (issue 19): every conversion an operator makes is
 * named in the record's normalization, per side in compared.expected_steps /
 * compared.observed_steps, and the values actually compared are the record's
 * compared surfaces.  Records are checked as written (arb_result_write_json),
 * against the tree form (arb_result_to_cjson) and against
 * schemas/record.schema.json.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/compare.h"
#include "arbiter/json.h"

static struct arb_check *compile(const char *json)
{
    cJSON *cfg = cJSON_Parse(json);
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};

    cr_assert_not_null(cfg, "bad test JSON: %s", json);
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK, "%s", err.msg);
    cJSON_Delete(cfg);
    return c;
}

/* The record text must conform to schemas/record.schema.json (run from the repository root). */
static void assert_schema_valid(const char *text, size_t len)
{
    struct arb_check *v = compile("{\"op\":\"json_schema\","
                                  "\"expected_file\":\"schemas/record.schema.json\"}");
    struct arb_result r;
    struct arb_err err = {{0}};

    arb_result_init(&r);
    cr_assert_eq(arb_check_run(v, text, len, NULL, &r, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(r.verdict, ARB_PASS, "record does not match the schema (%s): %s",
                 r.n_notes ? r.notes[0] : "", text);
    arb_result_release(&r);
    arb_check_free(v);
}

/*
 * Run check on observed and return the written record, parsed; the tree form must be the same
 * record and the text must match the record schema.
 */
static cJSON *run(const char *check, const char *observed)
{
    struct arb_check *c = compile(check);
    struct arb_result r;
    struct arb_err err = {{0}};
    struct arb_buf out;
    cJSON *rec = NULL, *tree;

    arb_result_init(&r);
    cr_assert_eq(arb_check_run(c, observed, strlen(observed), NULL, &r, &err), ARB_OK, "%s",
                 err.msg);
    arb_buf_init(&out, 0);
    cr_assert_eq(arb_result_write_json(&r, &out), ARB_OK);
    cr_assert_eq(arb_json_parse(out.ptr, out.len, 0, &rec, &err), ARB_OK,
                 "record is not valid JSON (%s): %s", err.msg, out.ptr);
    tree = arb_result_to_cjson(&r);
    cr_assert_not_null(tree);
    cr_assert(arb_json_equal(rec, tree), "the tree form differs from the written record: %s",
              out.ptr);
    assert_schema_valid(out.ptr, out.len);
    cJSON_Delete(tree);
    arb_buf_release(&out);
    arb_result_release(&r);
    arb_check_free(c);
    return rec;
}

/* Member key of rec must equal the JSON text want (as JSON values). */
static void assert_member(const cJSON *rec, const char *key, const char *want)
{
    cJSON *w = cJSON_Parse(want);
    const cJSON *got = cJSON_GetObjectItemCaseSensitive(rec, key);
    char *text = cJSON_PrintUnformatted(rec);

    cr_assert_not_null(w, "bad test JSON: %s", want);
    cr_assert(got && arb_json_equal(w, got), "%s: want %s in %s", key, want, text);
    free(text);
    cJSON_Delete(w);
}

static void assert_verdict(const cJSON *rec, const char *want)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, "verdict");

    cr_assert(cJSON_IsString(v) && strcmp(v->valuestring, want) == 0, "verdict: want %s", want);
}

/* ---- numeric and within ------------------------------------------------------------- */

Test(normalization, should_name_currency_and_thousands_and_record_the_numbers_compared)
{
    cJSON *rec = run("{\"op\":\"numeric\",\"expected\":1234.5}", "$1,234.50");

    assert_verdict(rec, "pass");
    assert_member(rec, "normalization", "[\"currency_symbol\",\"thousands_separator\"]");
    assert_member(rec, "compared",
                  "{\"expected\":1234.5,\"observed\":1234.5,\"expected_steps\":[],"
                  "\"observed_steps\":[\"currency_symbol\",\"thousands_separator\"]}");
    cJSON_Delete(rec);
}

Test(normalization, should_name_accounting_parentheses_as_a_negative)
{
    cJSON *rec = run("{\"op\":\"numeric\",\"expected\":-42}", "(42.00)");

    assert_verdict(rec, "pass");
    assert_member(rec, "normalization", "[\"accounting_negative\"]");
    assert_member(rec, "compared",
                  "{\"expected\":-42,\"observed\":-42,\"expected_steps\":[],"
                  "\"observed_steps\":[\"accounting_negative\"]}");
    cJSON_Delete(rec);
}

Test(normalization, should_drop_a_percent_sign_and_keep_the_value_as_written)
{
    cJSON *as_written = run("{\"op\":\"numeric\",\"expected\":12}", "12 %");
    cJSON *as_fraction = run("{\"op\":\"numeric\",\"expected\":0.12}", "12 %");

    /* The rule: "12 %" reads as 12, never 0.12; the record says the sign was dropped. */
    assert_verdict(as_written, "pass");
    assert_member(as_written, "normalization", "[\"whitespace\",\"percent_sign\"]");
    assert_verdict(as_fraction, "fail");
    assert_member(as_fraction, "compared",
                  "{\"expected\":0.12,\"observed\":12,\"expected_steps\":[],"
                  "\"observed_steps\":[\"whitespace\",\"percent_sign\"]}");
    cJSON_Delete(as_written);
    cJSON_Delete(as_fraction);
}

Test(normalization, should_record_no_step_for_a_plain_number)
{
    cJSON *rec = run("{\"op\":\"numeric\",\"expected\":42}", "42");

    assert_member(rec, "normalization", "[]");
    assert_member(rec, "compared",
                  "{\"expected\":42,\"observed\":42,\"expected_steps\":[],\"observed_steps\":[]}");
    cJSON_Delete(rec);
}

Test(normalization, should_name_the_steps_of_an_expected_string_on_the_expected_side)
{
    cJSON *rec = run("{\"op\":\"numeric\",\"expected\":\"\342\202\2541,000\"}", "+1000");

    assert_verdict(rec, "pass");
    assert_member(rec, "normalization",
                  "[\"currency_symbol\",\"thousands_separator\",\"plus_sign\"]");
    assert_member(rec, "compared",
                  "{\"expected\":1000,\"observed\":1000,"
                  "\"expected_steps\":[\"currency_symbol\",\"thousands_separator\"],"
                  "\"observed_steps\":[\"plus_sign\"]}");
    cJSON_Delete(rec);
}

Test(normalization, should_read_a_unicode_minus_as_a_negative_and_say_so)
{
    /* U+2212 used to be skipped as a symbol, so "−5" read as +5. */
    cJSON *neg = run("{\"op\":\"numeric\",\"expected\":-5}", "\342\210\2225");
    cJSON *pos = run("{\"op\":\"numeric\",\"expected\":5}", "\342\210\2225");

    assert_verdict(neg, "pass");
    assert_member(neg, "normalization", "[\"unicode_minus\"]");
    assert_verdict(pos, "fail");
    cJSON_Delete(neg);
    cJSON_Delete(pos);
}

Test(normalization, should_name_other_symbols_within_drops)
{
    /* "≈" is no longer one: "≈ 104" is not 104 (tests/data/checks/numeric_signs.jsonl) */
    cJSON *rec = run("{\"op\":\"within\",\"expected\":100,\"tolerance\":5}",
                     "\xc2\xb0 104"); /* "° 104" */

    assert_verdict(rec, "pass");
    assert_member(rec, "normalization", "[\"whitespace\",\"other_symbol\"]");
    assert_member(rec, "compared",
                  "{\"expected\":100,\"observed\":104,\"expected_steps\":[],"
                  "\"observed_steps\":[\"whitespace\",\"other_symbol\"]}");
    cJSON_Delete(rec);
}

Test(normalization, should_leave_compared_out_when_a_side_is_not_a_number)
{
    cJSON *rec = run("{\"op\":\"numeric\",\"expected\":1}", "one");

    cr_assert_null(cJSON_GetObjectItemCaseSensitive(rec, "compared"));
    assert_member(rec, "normalization", "[]");
    cJSON_Delete(rec);
}

/* ---- json_match ---------------------------------------------------------------------- */

Test(normalization, should_name_value_equality_in_json_match_and_record_the_canonical_members)
{
    cJSON *rec = run("{\"op\":\"json_match\",\"expected\":{\"a\":1,\"b\":{\"x\":1,\"y\":2}}}",
                     "{\"b\": {\"y\": 2, \"x\": 1}, \"a\": 1.0, \"extra\": true}");

    assert_verdict(rec, "pass");
    assert_member(rec, "normalization", "[\"rfc8785\"]");
    assert_member(rec, "compared",
                  "{\"expected\":{\"a\":1,\"b\":{\"x\":1,\"y\":2}},"
                  "\"observed\":{\"a\":1,\"b\":{\"x\":1,\"y\":2}},"
                  "\"expected_steps\":[\"rfc8785\"],\"observed_steps\":[\"rfc8785\"]}");
    cJSON_Delete(rec);
}

Test(normalization, should_read_an_absent_key_as_null_like_evalwire_and_note_it)
{
    cJSON *rec = run("{\"op\":\"json_match\",\"expected\":{\"a\":1,\"b\":null}}", "{\"a\":1}");
    const cJSON *notes = cJSON_GetObjectItemCaseSensitive(rec, "notes");

    /* evalwire: output_obj.get("b") is None, which equals the expected None. */
    assert_verdict(rec, "pass");
    assert_member(rec, "score", "1");
    assert_member(rec, "normalization", "[\"absent_as_null\",\"rfc8785\"]");
    assert_member(rec, "compared",
                  "{\"expected\":{\"a\":1,\"b\":null},\"observed\":{\"a\":1,\"b\":null},"
                  "\"expected_steps\":[\"rfc8785\"],"
                  "\"observed_steps\":[\"absent_as_null\",\"rfc8785\"]}");
    cr_assert_eq(cJSON_GetArraySize(notes), 1);
    cr_assert(strstr(cJSON_GetArrayItem(notes, 0)->valuestring, "absent_as_null: observed has no "
                                                                "'b'") != NULL);
    cJSON_Delete(rec);
}

Test(normalization, should_not_read_an_absent_key_as_null_when_expected_is_not_null)
{
    cJSON *rec = run("{\"op\":\"json_match\",\"expected\":{\"a\":1,\"b\":2}}", "{\"a\":1}");

    assert_member(rec, "score", "0.5");
    assert_member(rec, "normalization", "[\"rfc8785\"]");
    assert_member(rec, "notes", "[]");
    cJSON_Delete(rec);
}

Test(normalization, should_keep_the_surfaces_right_when_one_check_runs_again)
{
    struct arb_check *c = compile("{\"op\":\"json_match\",\"expected\":{\"a\":1,\"b\":null}}");
    const char *obs[] = {"{\"a\":1.0}", "{\"a\":2,\"b\":null}", "{\"b\":1e0}"};
    const char *want[] = {"{\"a\":1,\"b\":null}", "{\"a\":2,\"b\":null}", "{\"b\":1}"};
    struct arb_result r;
    struct arb_err err = {{0}};
    struct arb_buf out;
    size_t i;

    arb_result_init(&r);
    arb_buf_init(&out, 0);
    for (i = 0; i < 3; i++) {
        cJSON *rec = NULL;

        cr_assert_eq(arb_check_run(c, obs[i], strlen(obs[i]), NULL, &r, &err), ARB_OK);
        arb_buf_reset(&out);
        cr_assert_eq(arb_result_write_json(&r, &out), ARB_OK);
        cr_assert_eq(arb_json_parse(out.ptr, out.len, 0, &rec, &err), ARB_OK);
        assert_member(cJSON_GetObjectItemCaseSensitive(rec, "compared"), "expected",
                      "{\"a\":1,\"b\":null}");
        assert_member(cJSON_GetObjectItemCaseSensitive(rec, "compared"), "observed", want[i]);
        cJSON_Delete(rec);
    }
    arb_buf_release(&out);
    arb_result_release(&r);
    arb_check_free(c);
}

/* ---- trajectories ------------------------------------------------------------------- */

Test(normalization, should_name_argument_canonicalization_in_trajectories)
{
    cJSON *rec = run("{\"op\":\"trajectory_exact\",\"expected\":"
                     "[{\"name\":\"search\",\"args\":{\"q\":\"x\",\"n\":2}},{\"name\":\"open\"}]}",
                     "[{\"function\":{\"name\":\"search\",\"arguments\":\"{\\\"n\\\": 2.0, "
                     "\\\"q\\\": \\\"x\\\"}\"}},{\"name\":\"open\",\"args\":null}]");

    assert_verdict(rec, "pass");
    assert_member(rec, "normalization",
                  "[\"missing_args_as_empty\",\"json_canonical_args\",\"arguments_text_parsed\"]");
    assert_member(rec, "compared",
                  "{\"expected\":[{\"args\":{\"n\":2,\"q\":\"x\"},\"name\":\"search\"},"
                  "{\"args\":{},\"name\":\"open\"}],"
                  "\"observed\":[{\"args\":{\"n\":2,\"q\":\"x\"},\"name\":\"search\"},"
                  "{\"args\":{},\"name\":\"open\"}],"
                  "\"expected_steps\":[\"missing_args_as_empty\",\"json_canonical_args\"],"
                  "\"observed_steps\":[\"missing_args_as_empty\",\"json_canonical_args\","
                  "\"arguments_text_parsed\"]}");
    cJSON_Delete(rec);
}

Test(normalization, should_record_names_only_when_arguments_are_not_compared)
{
    cJSON *rec = run("{\"op\":\"trajectory_in_order\",\"match_args\":false,"
                     "\"expected\":[{\"name\":\"a\"}]}",
                     "[{\"name\":\"a\",\"args\":\"{\\\"z\\\":1}\"},{\"name\":\"b\"}]");

    assert_verdict(rec, "pass");
    assert_member(rec, "normalization", "[]");
    assert_member(
        rec, "compared",
        "{\"expected\":[{\"name\":\"a\"}],\"observed\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
        "\"expected_steps\":[],\"observed_steps\":[]}");
    cJSON_Delete(rec);
}

Test(normalization, should_write_call_names_that_need_escaping_as_json)
{
    cJSON *rec = run("{\"op\":\"trajectory_exact\",\"match_args\":false,"
                     "\"expected\":[{\"name\":\"a\\\"b\\u0001\\\\\"}]}",
                     "[{\"name\":\"a\\\"b\\u0001\\\\\"}]");

    assert_verdict(rec, "pass");
    assert_member(rec, "compared",
                  "{\"expected\":[{\"name\":\"a\\\"b\\u0001\\\\\"}],"
                  "\"observed\":[{\"name\":\"a\\\"b\\u0001\\\\\"}],"
                  "\"expected_steps\":[],\"observed_steps\":[]}");
    cJSON_Delete(rec);
}

Test(normalization, should_name_how_top_k_reads_lines)
{
    cJSON *lines = run("{\"op\":\"top_k\",\"expected\":[\"b\"],\"k\":2}", "a\n\n  b \n");
    cJSON *array = run("{\"op\":\"top_k\",\"expected\":[1],\"k\":2}", "[0, 1.0]");
    cJSON *plain = run("{\"op\":\"top_k\",\"expected\":[\"b\"],\"k\":2}", "a\nb");

    assert_member(lines, "score", "0.5");
    assert_member(lines, "normalization", "[\"one_item_per_line\",\"strip\",\"drop_empty_lines\"]");
    assert_member(array, "score", "0.5");
    assert_member(array, "normalization", "[\"rfc8785\"]");
    assert_member(plain, "normalization", "[\"one_item_per_line\"]");
    cJSON_Delete(lines);
    cJSON_Delete(array);
    cJSON_Delete(plain);
}

Test(normalization, should_name_value_equality_in_json_subset)
{
    cJSON *rec = run("{\"op\":\"json_subset\",\"expected\":{\"a\":1}}", "{\"a\":1.0,\"b\":2}");

    assert_verdict(rec, "pass");
    assert_member(rec, "normalization", "[\"rfc8785\"]");
    cJSON_Delete(rec);
}

/* ---- text and canonical JSON -------------------------------------------------------- */

Test(normalization, should_record_the_texts_compared_by_the_text_normalizers)
{
    cJSON *ne = run("{\"op\":\"normalized_exact\",\"expected\":\"The  Answer\"}", " the answer\n");
    cJSON *ic = run("{\"op\":\"icontains\",\"expected\":\"ACME\"}", "Vendor: Acme");
    cJSON *nm = run("{\"op\":\"name\",\"expected\":\"Smith, John\"}", "John Smith Inc.");

    assert_member(ne, "compared",
                  "{\"expected\":\"the answer\",\"observed\":\"the answer\","
                  "\"expected_steps\":[\"lowercase\",\"strip\",\"collapse_whitespace\"],"
                  "\"observed_steps\":[\"lowercase\",\"strip\",\"collapse_whitespace\"]}");
    assert_member(ic, "compared",
                  "{\"expected\":\"acme\",\"observed\":\"vendor: acme\","
                  "\"expected_steps\":[\"lowercase\"],\"observed_steps\":[\"lowercase\"]}");
    assert_member(nm, "compared",
                  "{\"expected\":\"john smith\",\"observed\":\"john smith\","
                  "\"expected_steps\":[\"lowercase\",\"strip_punctuation\","
                  "\"drop_legal_suffixes\",\"sort_tokens\"],"
                  "\"observed_steps\":[\"lowercase\",\"strip_punctuation\","
                  "\"drop_legal_suffixes\",\"sort_tokens\"]}");
    cJSON_Delete(ne);
    cJSON_Delete(ic);
    cJSON_Delete(nm);
}

Test(normalization, should_record_the_canonical_forms_json_canonical_compared)
{
    cJSON *rec = run("{\"op\":\"json_canonical\",\"expected\":{\"b\":[1],\"a\":\"x\"}}",
                     "{ \"a\": \"x\", \"b\": [1.0] }");

    assert_verdict(rec, "pass");
    assert_member(rec, "compared",
                  "{\"expected\":{\"a\":\"x\",\"b\":[1]},\"observed\":{\"a\":\"x\",\"b\":[1]},"
                  "\"expected_steps\":[\"rfc8785\"],\"observed_steps\":[\"rfc8785\"]}");
    cJSON_Delete(rec);
}

Test(normalization, should_name_reading_a_non_string_expected_as_its_json_text)
{
    cJSON *num = run("{\"op\":\"exact\",\"expected\":42}", "42");
    cJSON *str = run("{\"op\":\"exact\",\"expected\":\"42\"}", "42");
    cJSON *item = run("{\"op\":\"membership\",\"expected\":[\"a\",true]}", "true");

    assert_verdict(num, "pass");
    assert_member(num, "normalization", "[\"expected_as_json_text\"]");
    assert_member(str, "normalization", "[]");
    assert_verdict(item, "pass");
    assert_member(item, "normalization", "[\"expected_as_json_text\"]");
    cJSON_Delete(num);
    cJSON_Delete(str);
    cJSON_Delete(item);
}

Test(normalization, should_name_an_extracted_value_read_as_its_json_text)
{
    cJSON *num = run("{\"op\":\"exact\",\"expected\":\"10.5\",\"extract\":\"/total\"}",
                     "{\"total\": 10.50}");
    cJSON *str = run("{\"op\":\"exact\",\"expected\":\"Acme\",\"extract\":\"/vendor\"}",
                     "{\"vendor\": \"Acme\"}");

    assert_verdict(num, "pass");
    assert_member(num, "observed", "\"10.5\"");
    assert_member(num, "normalization", "[\"extracted_as_json_text\"]");
    assert_member(str, "normalization", "[]");
    cJSON_Delete(num);
    cJSON_Delete(str);
}

Test(normalization, should_write_no_compared_member_for_an_operator_that_converts_nothing)
{
    cJSON *rec = run("{\"op\":\"exact\",\"expected\":\"a\"}", "a");
    cJSON *steps0 = run("{\"op\":\"normalized_exact\",\"expected\":\"A\",\"steps\":[]}", "A");

    cr_assert_null(cJSON_GetObjectItemCaseSensitive(rec, "compared"));
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(steps0, "compared"));
    cJSON_Delete(rec);
    cJSON_Delete(steps0);
}
