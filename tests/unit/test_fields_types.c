/*
 * Unit tests for the fields operator's type rule (issue 19): leaves compare
 * JSON values with their types, an operator that normalizes records what it
 * converted in the leaf's entry, and two empty arrays match.  Each check is
 * compiled from JSON text and run on observed JSON text; the assertions read
 * the record's details as arbiter check prints them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/compare.h"
#include "arbiter/json.h"

/* Run check (JSON text) on observed into r; returns the check, which r borrows from. */
static struct arb_check *run_kept(const char *check, const char *observed, struct arb_result *r)
{
    cJSON *cfg = cJSON_Parse(check);
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};

    cr_assert_not_null(cfg, "bad test check: %s", check);
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK, "%s", err.msg);
    cJSON_Delete(cfg);
    arb_result_init(r);
    cr_assert_eq(arb_check_run(c, observed, strlen(observed), NULL, r, &err), ARB_OK, "%s",
                 err.msg);
    return c;
}

/* As run_kept, for tests that read only r's own members (score, notes, details). */
static void run_check(const char *check, const char *observed, struct arb_result *r)
{
    arb_check_free(run_kept(check, observed, r));
}

/* The details entry of the leaf at path (the first one). */
static const cJSON *leaf_at(const struct arb_result *r, const char *path)
{
    const cJSON *leaves = cJSON_GetObjectItemCaseSensitive(r->details, "leaves"), *e;

    cJSON_ArrayForEach(e, leaves)
    {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "path");

        if (cJSON_IsString(p) && strcmp(p->valuestring, path) == 0)
            return e;
    }
    cr_assert_fail("no leaf at '%s'", path);
    return NULL;
}

/* Whether JSON text want equals v. */
static int json_is(const cJSON *v, const char *want)
{
    cJSON *w = cJSON_Parse(want);
    int eq;

    cr_assert_not_null(w, "bad test JSON: %s", want);
    eq = v && arb_json_equal(v, w);
    cJSON_Delete(w);
    return eq;
}

static char *show(const cJSON *v)
{
    return v ? cJSON_PrintUnformatted(v) : strdup("(none)");
}

static void assert_member(const cJSON *obj, const char *key, const char *want)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    char *got = show(obj);

    cr_assert(json_is(v, want), "%s: want %s in %s", key, want, got);
    free(got);
}

/* The leaf at path scored 0 with the type mismatch note and both types named. */
static void assert_type_mismatch(const struct arb_result *r, const char *path, const char *etype,
                                 const char *otype)
{
    const cJSON *leaf = leaf_at(r, path);
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive(leaf, "record");
    char want[128];

    assert_member(leaf, "score", "0");
    snprintf(want, sizeof(want), "[\"type mismatch: expected %s, observed %s\"]", etype, otype);
    assert_member(rec, "notes", want);
    assert_member(rec, "verdict", "\"fail\"");
    snprintf(want, sizeof(want), "{\"expected\": \"%s\", \"observed\": \"%s\"}", etype, otype);
    assert_member(leaf, "types", want);
}

#define EXACT_A "{\"op\": \"fields\", \"fields\": {\"a\": \"exact\"}, \"expected\": "

Test(fields_types, should_not_pass_exact_on_a_number_against_a_numeric_string)
{
    struct arb_result r;

    run_check(EXACT_A "{\"a\": 1}}", "{\"a\": \"1\"}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    cr_assert_eq(r.verdict, ARB_FAIL);
    assert_type_mismatch(&r, "a", "number", "string");
    arb_result_release(&r);

    run_check(EXACT_A "{\"a\": \"1\"}}", "{\"a\": 1}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    assert_type_mismatch(&r, "a", "string", "number");
    arb_result_release(&r);
}

Test(fields_types, should_not_pass_exact_on_true_against_the_text_true)
{
    struct arb_result r;

    run_check(EXACT_A "{\"a\": true}}", "{\"a\": \"true\"}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    assert_type_mismatch(&r, "a", "boolean", "string");
    arb_result_release(&r);
}

Test(fields_types, should_not_pass_exact_on_null_against_the_text_null)
{
    struct arb_result r;

    run_check(EXACT_A "{\"a\": null}}", "{\"a\": \"null\"}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    assert_type_mismatch(&r, "a", "null", "string");
    arb_result_release(&r);

    run_check(EXACT_A "{\"a\": \"null\"}}", "{\"a\": null}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    assert_type_mismatch(&r, "a", "string", "null");
    arb_result_release(&r);
}

Test(fields_types, should_compare_numbers_as_numbers_and_strings_as_strings)
{
    struct arb_result r;

    run_check("{\"op\": \"fields\", \"fields\": {\"n\": \"exact\", \"s\": \"exact\", \"b\": "
              "\"exact\", \"z\": \"exact\"}, \"expected\": {\"n\": 1, \"s\": \"1\", \"b\": "
              "false, \"z\": null}}",
              "{\"n\": 1.0, \"s\": \"1\", \"b\": false, \"z\": null}", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    cr_assert_eq(r.verdict, ARB_PASS);
    /* same types: nothing converted, nothing added to the entry */
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(leaf_at(&r, "n"), "types"));
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(leaf_at(&r, "s"), "normalization"));
    arb_result_release(&r);

    run_check(EXACT_A "{\"a\": true}}", "{\"a\": false}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(leaf_at(&r, "a"), "types"));
    arb_result_release(&r);
}

Test(fields_types, should_type_a_leaf_against_its_own_expected)
{
    struct arb_result r;

    run_check("{\"op\": \"fields\", \"fields\": {\"a\": {\"op\": \"exact\", \"expected\": "
              "\"1\"}}, \"expected\": {\"a\": \"ignored\"}}",
              "{\"a\": 1}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    assert_type_mismatch(&r, "a", "string", "number");
    arb_result_release(&r);
}

Test(fields_types, should_pass_a_negated_leaf_whose_types_differ)
{
    struct arb_result r;

    run_check("{\"op\": \"fields\", \"fields\": {\"a\": {\"op\": \"exact\", \"not\": true}}, "
              "\"expected\": {\"a\": 1}}",
              "{\"a\": \"1\"}", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    assert_member(leaf_at(&r, "a"), "score", "1");
    assert_member(cJSON_GetObjectItemCaseSensitive(leaf_at(&r, "a"), "record"), "verdict",
                  "\"pass\"");
    arb_result_release(&r);
}

Test(fields_types, should_record_string_to_number_for_a_numeric_leaf)
{
    struct arb_result r;
    const cJSON *leaf;

    run_check("{\"op\": \"fields\", \"fields\": {\"n\": \"numeric\", \"t\": {\"op\": \"within\", "
              "\"tolerance\": 1}, \"u\": \"numeric\"}, \"expected\": {\"n\": 5, \"t\": \"10\", "
              "\"u\": 3}}",
              "{\"n\": \"5.0\", \"t\": 10.5, \"u\": 3}", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    leaf = leaf_at(&r, "n");
    assert_member(leaf, "normalization", "[\"string_to_number\"]");
    assert_member(leaf, "types", "{\"expected\": \"number\", \"observed\": \"string\"}");
    assert_member(leaf, "compared", "{\"expected\": 5, \"observed\": 5}");
    leaf = leaf_at(&r, "t");
    assert_member(leaf, "normalization", "[\"string_to_number\"]");
    assert_member(leaf, "compared", "{\"expected\": 10, \"observed\": 10.5}");
    /* two numbers: no conversion, nothing added */
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(leaf_at(&r, "u"), "normalization"));
    arb_result_release(&r);
}

Test(fields_types, should_not_read_a_boolean_as_a_number)
{
    struct arb_result r;

    run_check("{\"op\": \"fields\", \"fields\": {\"n\": \"numeric\"}, \"expected\": {\"n\": 1}}",
              "{\"n\": true}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    assert_type_mismatch(&r, "n", "number", "boolean");
    arb_result_release(&r);
}

Test(fields_types, should_record_what_a_text_operator_read_as_text)
{
    struct arb_result r;
    const cJSON *leaf;

    run_check("{\"op\": \"fields\", \"fields\": {\"b\": \"normalized_exact\", \"n\": \"name\"}, "
              "\"expected\": {\"b\": \"TRUE\", \"n\": 42}}",
              "{\"b\": true, \"n\": \"42\"}", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    leaf = leaf_at(&r, "b");
    assert_member(leaf, "normalization", "[\"boolean_to_string\"]");
    assert_member(leaf, "types", "{\"expected\": \"string\", \"observed\": \"boolean\"}");
    assert_member(leaf, "compared", "{\"expected\": \"TRUE\", \"observed\": \"true\"}");
    leaf = leaf_at(&r, "n");
    assert_member(leaf, "normalization", "[\"number_to_string\"]");
    assert_member(leaf, "compared", "{\"expected\": \"42\", \"observed\": \"42\"}");
    arb_result_release(&r);
}

Test(fields_types, should_record_a_number_read_as_text_by_a_pattern)
{
    struct arb_result r;
    const cJSON *leaf;

    run_check("{\"op\": \"fields\", \"fields\": {\"id\": {\"op\": \"regex\", \"expected\": "
              "\"^[0-9]+$\"}}, \"expected\": {\"id\": 0}}",
              "{\"id\": 123}", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    leaf = leaf_at(&r, "id");
    assert_member(leaf, "normalization", "[\"number_to_string\"]");
    assert_member(leaf, "compared", "{\"expected\": \"^[0-9]+$\", \"observed\": \"123\"}");
    arb_result_release(&r);
}

Test(fields_types, should_match_unordered_items_by_type)
{
    struct arb_result r;
    const cJSON *m;

    run_check("{\"op\": \"fields\", \"fields\": {\"unordered\": \"exact\"}, \"expected\": [1, "
              "\"1\"]}",
              "[\"1\", 1]", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    m = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r.details, "matchings"), 0);
    assert_member(m, "pairs", "[[0, 1], [1, 0]]");
    arb_result_release(&r);

    run_check("{\"op\": \"fields\", \"fields\": {\"unordered\": \"exact\"}, \"expected\": [1, "
              "2]}",
              "[\"2\", \"1\"]", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    assert_type_mismatch(&r, "[0]", "number", "string");
    arb_result_release(&r);
}

Test(fields_types, should_write_the_type_note_in_the_check_record)
{
    struct arb_result r;
    struct arb_buf b;
    struct arb_check *c = run_kept(EXACT_A "{\"a\": 1}}", "{\"a\": \"1\"}", &r);

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_result_write_json(&r, &b), ARB_OK);
    cr_assert_not_null(strstr(b.ptr, "\"types\":{\"expected\":\"number\",\"observed\":\"string\"}"),
                       "%s", b.ptr);
    cr_assert_not_null(strstr(b.ptr, "type mismatch: expected number, observed string"), "%s",
                       b.ptr);
    arb_buf_release(&b);
    arb_result_release(&r);
    arb_check_free(c);
}

/* ---- empty arrays ------------------------------------------------------------------ */

#define TAGS "{\"op\": \"fields\", \"fields\": {\"tags\": {\"unordered\": \"exact\"}}, "

Test(fields_types, should_match_two_empty_arrays_under_unordered)
{
    struct arb_result r;

    run_check(TAGS "\"expected\": {\"tags\": []}}", "{\"tags\": []}", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    cr_assert_eq(r.verdict, ARB_PASS);
    cr_assert_eq(r.n_notes, 1);
    cr_assert_str_eq(r.notes[0], "empty: every array compared is empty on both sides");
    arb_result_release(&r);

    run_check("{\"op\": \"fields\", \"fields\": {\"unordered\": \"exact\"}, \"expected\": []}",
              "[]", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    cr_assert_eq(r.verdict, ARB_PASS);
    arb_result_release(&r);

    run_check("{\"op\": \"fields\", \"fields\": {\"unordered\": {\"unordered\": \"exact\"}}, "
              "\"expected\": [[]]}",
              "[[]]", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    arb_result_release(&r);
    /* ordered arrays too */
    run_check("{\"op\": \"fields\", \"fields\": {\"tags\": \"exact\"}, \"expected\": "
              "{\"tags\": []}}",
              "{\"tags\": []}", &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    arb_result_release(&r);
}

Test(fields_types, should_not_match_an_empty_array_with_a_missing_or_fuller_one)
{
    struct arb_result r;

    run_check(TAGS "\"expected\": {\"tags\": []}}", "{}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    arb_result_release(&r);

    run_check(TAGS "\"expected\": {\"tags\": []}}", "{\"tags\": \"a\"}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    arb_result_release(&r);

    run_check(TAGS "\"expected\": {\"tags\": []}}", "{\"tags\": [\"a\"]}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    arb_result_release(&r);

    run_check("{\"op\": \"fields\", \"fields\": {\"a\": {\"unordered\": \"exact\"}, \"b\": "
              "{\"unordered\": \"exact\"}}, \"expected\": {\"a\": [], \"b\": []}}",
              "{\"a\": [], \"b\": 5}", &r);
    cr_assert_float_eq(r.score, 0.0, 1e-12);
    arb_result_release(&r);
}

Test(fields_types, should_match_an_empty_array_with_extras_when_allowed)
{
    struct arb_result r;

    run_check(TAGS "\"allow_extra\": true, \"expected\": {\"tags\": []}}", "{\"tags\": [\"a\"]}",
              &r);
    cr_assert_float_eq(r.score, 1.0, 1e-12);
    arb_result_release(&r);
}
