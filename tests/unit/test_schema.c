/*
 * Unit tests for the JSON Schema module (include/arbiter/schema.h): invalid
 * schemas name their keyword, remote references fail without the network,
 * violation notes read "instance path: keyword" and stop at 20 plus a count,
 * decimal multipleOf is exact, deep nesting and $ref loops end in a status
 * instead of a crash, and the cache shares one compiled schema between
 * schemas equal up to member order.  Conformance as a whole is the official
 * test suite's job (`make test-schema-suite`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/json.h"
#include "arbiter/schema.h"

static cJSON *json(const char *text)
{
    struct arb_err err = {""};
    cJSON *v = NULL;

    cr_assert_eq(arb_json_parse(text, strlen(text), 0, &v, &err), ARB_OK, "parse '%s': %s", text,
                 err.msg);
    return v;
}

static struct arb_schema *compile(const char *text)
{
    struct arb_err err = {""};
    struct arb_schema *s = NULL;
    cJSON *j = json(text);

    cr_assert_eq(arb_schema_compile(j, NULL, &s, &err), ARB_OK, "compile '%s': %s", text, err.msg);
    cJSON_Delete(j);
    return s;
}

/* Compile text, expect status st and a message containing every part. */
static void expect_compile_error(const char *text, enum arb_status st, const char *part1,
                                 const char *part2)
{
    struct arb_err err = {""};
    struct arb_schema *s = NULL;
    cJSON *j = json(text);

    cr_assert_eq(arb_schema_compile(j, NULL, &s, &err), st, "status for '%s': %s", text, err.msg);
    cr_assert_null(s);
    cr_assert(strstr(err.msg, part1), "'%s' not in '%s'", part1, err.msg);
    cr_assert(!part2 || strstr(err.msg, part2), "'%s' not in '%s'", part2, err.msg);
    cJSON_Delete(j);
}

/* Validate instance text both ways; they must agree.  Returns the result. */
static int check(const struct arb_schema *s, const char *instance, struct arb_schema_errors *errs)
{
    cJSON *v = json(instance);
    int fast = arb_schema_validate(s, v, NULL);
    int full = arb_schema_validate(s, v, errs);

    cr_assert_eq(fast, full, "fast and collecting disagree on '%s'", instance);
    cJSON_Delete(v);
    return full;
}

/* The notes arb_schema_errors_write gives, in a static buffer. */
static const char *notes(const struct arb_schema_errors *errs)
{
    static char text[4096];
    struct arb_buf b;

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_schema_errors_write(errs, &b), ARB_OK);
    snprintf(text, sizeof(text), "%s", b.ptr ? b.ptr : "");
    arb_buf_release(&b);
    return text;
}

static const char invoice_schema[] =
    "{\"type\": \"object\", \"required\": [\"invoiceNumber\", \"total\", \"lineItems\"],"
    " \"properties\": {\"invoiceNumber\": {\"type\": \"string\", \"pattern\": \"^INV-\\\\d+$\"},"
    " \"vendor\": {\"type\": \"string\"}, \"total\": {\"type\": \"number\", \"minimum\": 0},"
    " \"currency\": {\"enum\": [\"USD\", \"EUR\"]},"
    " \"lineItems\": {\"type\": \"array\", \"items\": {\"type\": \"object\","
    " \"required\": [\"description\", \"price\"], \"properties\": {\"description\": "
    "{\"type\": \"string\"}, \"price\": {\"type\": \"number\", \"exclusiveMinimum\": 0}}}}}}";

Test(schema, should_name_type_keyword_when_type_is_not_a_type_name)
{
    expect_compile_error("{\"type\": 5}", ARB_ESCHEMA, "'type'", NULL);
    expect_compile_error("{\"type\": [\"string\", \"text\"]}", ARB_ESCHEMA, "'type'", NULL);
}

Test(schema, should_name_minimum_keyword_when_minimum_is_not_a_number)
{
    expect_compile_error("{\"minimum\": \"x\"}", ARB_ESCHEMA, "'minimum'", "must be a number");
}

Test(schema, should_name_pattern_keyword_when_pattern_does_not_compile)
{
    expect_compile_error("{\"pattern\": \"(\"}", ARB_ESCHEMA, "'pattern'",
                         "not a valid regular expression");
    expect_compile_error("{\"patternProperties\": {\"[\": true}}", ARB_ESCHEMA,
                         "'patternProperties'", NULL);
}

Test(schema, should_give_schema_location_of_invalid_keyword)
{
    expect_compile_error("{\"properties\": {\"a\": {\"maxLength\": -1}}}", ARB_ESCHEMA,
                         "#/properties/a", "'maxLength' must be a non-negative integer");
    expect_compile_error("{\"allOf\": [true, {\"required\": \"a\"}]}", ARB_ESCHEMA, "#/allOf/1",
                         "'required'");
    expect_compile_error("{\"not\": 3}", ARB_ESCHEMA, "'not'", NULL);
}

Test(schema, should_refuse_remote_ref_with_clear_message)
{
    expect_compile_error("{\"$ref\": \"https://example.com/schemas/x.json#/a\"}", ARB_ESCHEMA,
                         "remote $ref 'https://example.com/schemas/x.json'", "no network");
    expect_compile_error("{\"$ref\": \"#/$defs/missing\"}", ARB_ESCHEMA, "points to nothing", NULL);
}

static enum arb_status load_integer(void *ctx, const char *uri, cJSON **out, struct arb_err *err)
{
    int *calls = ctx;

    (*calls)++;
    if (strcmp(uri, "https://example.com/int.json") != 0)
        return arb_err_set(err, ARB_EIO, "unknown '%s'", uri);
    *out = cJSON_Parse("{\"type\": \"integer\"}");
    return *out ? ARB_OK : ARB_ENOMEM;
}

Test(schema, should_load_remote_ref_through_loader_hook_once)
{
    struct arb_schema_opts opts = {0};
    struct arb_err err = {""};
    struct arb_schema *s = NULL;
    cJSON *j = json("{\"items\": {\"$ref\": \"https://example.com/int.json\"},"
                    " \"contains\": {\"$ref\": \"https://example.com/int.json\"}}");
    int calls = 0;

    opts.load = load_integer;
    opts.load_ctx = &calls;
    cr_assert_eq(arb_schema_compile(j, &opts, &s, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(calls, 1);
    cr_assert_eq(check(s, "[1, 2]", NULL), 1);
    cr_assert_eq(check(s, "[1, 2.5]", NULL), 0);
    arb_schema_free(s);
    cJSON_Delete(j);
}

Test(schema, should_resolve_metaschema_refs_without_network)
{
    struct arb_schema *s7 = compile("{\"$ref\": \"http://json-schema.org/draft-07/schema#\"}");
    struct arb_schema *s20 =
        compile("{\"$ref\": \"https://json-schema.org/draft/2020-12/schema\"}");

    cr_assert_eq(check(s7, "{\"minLength\": 1}", NULL), 1);
    cr_assert_eq(check(s7, "{\"minLength\": -1}", NULL), 0);
    cr_assert_eq(check(s20, "{\"properties\": {\"a\": {\"type\": \"string\"}}}", NULL), 1);
    cr_assert_eq(check(s20, "{\"properties\": {\"a\": {\"type\": 5}}}", NULL), 0);
    arb_schema_free(s7);
    arb_schema_free(s20);
}

Test(schema, should_name_violation_by_instance_path_and_keyword)
{
    struct arb_schema *s = compile(invoice_schema);
    struct arb_schema_errors errs;

    cr_assert_eq(check(s,
                       "{\"invoiceNumber\": \"INV-1\", \"total\": 10, \"lineItems\": "
                       "[{\"description\": \"a\", \"price\": 0}]}",
                       &errs),
                 0);
    cr_assert_eq(errs.total, 1);
    cr_assert_str_eq(notes(&errs), "/lineItems/0/price: exclusiveMinimum");
    cr_assert_eq(check(s,
                       "{\"invoiceNumber\": \"X-1\", \"total\": -1, \"lineItems\": "
                       "[{\"description\": \"a\", \"price\": 1}, {\"price\": \"2\"}]}",
                       &errs),
                 0);
    cr_assert_str_eq(notes(&errs), "/invoiceNumber: pattern; /total: minimum; "
                                   "/lineItems/1/description: required; /lineItems/1/price: type");
    arb_schema_free(s);
}

Test(schema, should_write_root_and_escaped_paths)
{
    struct arb_schema *s = compile("{\"type\": \"object\", \"properties\": {\"x\": true},"
                                   " \"additionalProperties\": false, \"required\": [\"x\"]}");
    struct arb_schema_errors errs;

    cr_assert_eq(check(s, "[]", &errs), 0);
    cr_assert_str_eq(notes(&errs), "(root): type");
    cr_assert_eq(check(s, "{\"x\": 1, \"a/b~c\": 2}", &errs), 0);
    cr_assert_str_eq(notes(&errs), "/a~1b~0c: additionalProperties");
    cr_assert_eq(check(s, "{\"x\": 1}", &errs), 1);
    cr_assert_str_eq(notes(&errs), "");
    arb_schema_free(s);
}

Test(schema, should_keep_twenty_violations_and_count_the_rest)
{
    struct arb_schema *s = compile("{\"items\": {\"type\": \"integer\"}}");
    struct arb_schema_errors errs;
    char text[512] = "[";
    size_t len = 1;
    int i;

    for (i = 0; i < 30; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, "%s\"x\"", i ? ", " : "");
    snprintf(text + len, sizeof(text) - len, "]");
    cr_assert_eq(check(s, text, &errs), 0);
    cr_assert_eq(errs.count, ARB_SCHEMA_MAX_ERRORS);
    cr_assert_eq(errs.total, 30);
    cr_assert_str_eq(errs.items[19].path, "/19");
    cr_assert(strstr(notes(&errs), "/19: type (+10 more, 30 in total)"), "%s", notes(&errs));
    arb_schema_free(s);
}

Test(schema, should_treat_decimal_multiples_exactly)
{
    struct arb_schema *s4 = compile("{\"multipleOf\": 0.0001}");
    struct arb_schema *s2 = compile("{\"multipleOf\": 0.01}");
    struct arb_schema *half = compile("{\"multipleOf\": 0.5}");
    struct arb_schema *odd = compile("{\"multipleOf\": 0.123456789}");

    cr_assert_eq(check(s4, "0.0075", NULL), 1);
    cr_assert_eq(check(s4, "0.00751", NULL), 0);
    cr_assert_eq(check(s4, "-12.3456", NULL), 1);
    cr_assert_eq(check(s2, "19.99", NULL), 1);
    cr_assert_eq(check(s2, "0.07", NULL), 1);
    cr_assert_eq(check(s2, "19.999", NULL), 0);
    cr_assert_eq(check(s2, "1e-7", NULL), 0);
    cr_assert_eq(check(half, "4.5", NULL), 1);
    cr_assert_eq(check(half, "1e308", NULL), 1);
    cr_assert_eq(check(odd, "1e308", NULL), 0);
    arb_schema_free(s4);
    arb_schema_free(s2);
    arb_schema_free(half);
    arb_schema_free(odd);
}

/* [[[ ... ]]] nested depth levels, built without the parser's own cap. */
static cJSON *nested_arrays(int depth)
{
    cJSON *v = cJSON_CreateArray();
    int i;

    for (i = 1; i < depth; i++) {
        cJSON *outer = cJSON_CreateArray();

        cr_assert_not_null(outer);
        cJSON_AddItemToArray(outer, v);
        v = outer;
    }
    return v;
}

Test(schema, should_stop_at_depth_cap_on_deeply_nested_instance)
{
    struct arb_schema *s = compile("{\"type\": \"array\", \"items\": {\"$ref\": \"#\"}}");
    struct arb_schema_errors errs;
    cJSON *deep = nested_arrays(10000), *ok = nested_arrays(100);

    cr_assert_eq(arb_schema_validate(s, deep, NULL), -(int)ARB_ETOOBIG);
    cr_assert_eq(arb_schema_validate(s, deep, &errs), -(int)ARB_ETOOBIG);
    cr_assert(strstr(errs.err.msg, "nested deeper than 512 levels"), "%s", errs.err.msg);
    cr_assert_eq(arb_schema_validate(s, ok, NULL), 1);
    cJSON_Delete(deep);
    cJSON_Delete(ok);
    arb_schema_free(s);
}

Test(schema, should_refuse_deeply_nested_schema)
{
    struct arb_schema_cache *cache = NULL;
    const struct arb_schema *cached = NULL;
    struct arb_err err = {""};
    struct arb_schema *s = NULL;
    cJSON *schema = cJSON_CreateObject(), *inner = schema;
    int i;

    for (i = 0; i < 10000; i++) {
        cJSON *next = cJSON_CreateObject();

        cr_assert_not_null(next);
        cJSON_AddItemToObject(inner, "not", next);
        inner = next;
    }
    cr_assert_eq(arb_schema_compile(schema, NULL, &s, &err), ARB_ETOOBIG);
    cr_assert(strstr(err.msg, "deeper than 512"), "%s", err.msg);
    cr_assert_eq(arb_schema_cache_new(NULL, &cache), ARB_OK);
    cr_assert_eq(arb_schema_cache_get_or_compile(cache, schema, &cached, &err), ARB_ETOOBIG);
    arb_schema_cache_free(cache);
    cJSON_Delete(schema);
}

Test(schema, should_report_ref_loop_instead_of_recursing_forever)
{
    struct arb_schema *s = compile("{\"$defs\": {\"a\": {\"$ref\": \"#/$defs/b\"},"
                                   " \"b\": {\"allOf\": [{\"$ref\": \"#/$defs/a\"}]}},"
                                   " \"$ref\": \"#/$defs/a\"}");
    struct arb_schema_errors errs;
    cJSON *v = json("1");

    cr_assert_eq(arb_schema_validate(s, v, NULL), -(int)ARB_ESCHEMA);
    cr_assert_eq(arb_schema_validate(s, v, &errs), -(int)ARB_ESCHEMA);
    cr_assert(strstr(errs.err.msg, "$ref loop"), "%s", errs.err.msg);
    cJSON_Delete(v);
    arb_schema_free(s);
}

Test(schema, should_return_same_compiled_schema_for_reordered_equal_schema)
{
    struct arb_schema_cache *cache = NULL;
    const struct arb_schema *a = NULL, *b = NULL, *c = NULL;
    struct arb_err err = {""};
    cJSON *s1 = json("{\"type\": \"object\", \"required\": [\"a\"], \"properties\": "
                     "{\"a\": {\"minimum\": 1.0}, \"b\": {}}}");
    cJSON *s2 = json("{\"properties\": {\"b\": {}, \"a\": {\"minimum\": 1}}, "
                     "\"required\": [\"a\"], \"type\": \"object\"}");
    cJSON *s3 = json("{\"type\": \"object\", \"required\": [\"b\"]}");

    cr_assert_eq(arb_schema_cache_new(NULL, &cache), ARB_OK);
    cr_assert_eq(arb_schema_cache_get_or_compile(cache, s1, &a, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_schema_cache_get_or_compile(cache, s2, &b, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_schema_cache_get_or_compile(cache, s3, &c, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(a, b);
    cr_assert_neq(a, c);
    cr_assert_eq(arb_schema_cache_size(cache), 2);
    arb_schema_cache_free(cache);
    cJSON_Delete(s1);
    cJSON_Delete(s2);
    cJSON_Delete(s3);
}

Test(schema, should_fail_invalid_schema_again_from_cache)
{
    struct arb_schema_cache *cache = NULL;
    const struct arb_schema *s = NULL;
    struct arb_err e1 = {""}, e2 = {""};
    cJSON *bad = json("{\"minimum\": \"x\"}");

    cr_assert_eq(arb_schema_cache_new(NULL, &cache), ARB_OK);
    cr_assert_eq(arb_schema_cache_get_or_compile(cache, bad, &s, &e1), ARB_ESCHEMA);
    cr_assert_eq(arb_schema_cache_get_or_compile(cache, bad, &s, &e2), ARB_ESCHEMA);
    cr_assert_str_eq(e1.msg, e2.msg);
    cr_assert_eq(arb_schema_cache_size(cache), 1);
    arb_schema_cache_free(cache);
    cJSON_Delete(bad);
}

Test(schema, should_choose_draft_from_dollar_schema_with_2020_12_default)
{
    struct arb_schema *d7 = compile("{\"$schema\": \"http://json-schema.org/draft-07/schema#\","
                                    " \"items\": [{\"type\": \"string\"}],"
                                    " \"additionalItems\": false}");
    struct arb_schema *d20 =
        compile("{\"prefixItems\": [{\"type\": \"string\"}], \"items\": false}");

    cr_assert_eq(arb_schema_draft(d7), ARB_SCHEMA_DRAFT_7);
    cr_assert_eq(arb_schema_draft(d20), ARB_SCHEMA_DRAFT_2020_12);
    cr_assert_eq(check(d7, "[\"a\"]", NULL), 1);
    cr_assert_eq(check(d7, "[\"a\", 1]", NULL), 0);
    cr_assert_eq(check(d20, "[\"a\", 1]", NULL), 0);
    expect_compile_error("{\"items\": [{\"type\": \"string\"}]}", ARB_ESCHEMA, "'items'", NULL);
    expect_compile_error("{\"$schema\": \"http://json-schema.org/draft-04/schema#\"}", ARB_ESCHEMA,
                         "not supported", NULL);
    arb_schema_free(d7);
    arb_schema_free(d20);
}

Test(schema, should_match_patterns_as_ecma_262_does)
{
    struct arb_schema *digits = compile("{\"pattern\": \"^\\\\d+$\"}");
    struct arb_schema *word = compile("{\"pattern\": \"\\\\w\"}");
    struct arb_schema *space = compile("{\"pattern\": \"^\\\\s$\"}");

    cr_assert_eq(check(digits, "\"123\"", NULL), 1);
    cr_assert_eq(check(digits, "\"123\\n\"", NULL), 0);  /* $ only at the very end */
    cr_assert_eq(check(digits, "\"\\u0661\"", NULL), 0); /* ARABIC-INDIC DIGIT ONE */
    cr_assert_eq(check(word, "\"--a--\"", NULL), 1);     /* unanchored */
    cr_assert_eq(check(word, "\"\\u00e9\"", NULL), 0);   /* e-acute is no \w */
    cr_assert_eq(check(space, "\"\\u00a0\"", NULL), 1);  /* NO-BREAK SPACE is \s */
    cr_assert_eq(check(space, "\"\\ufeff\"", NULL), 1);
    arb_schema_free(digits);
    arb_schema_free(word);
    arb_schema_free(space);
}

Test(schema, should_track_evaluated_properties_through_applicators)
{
    struct arb_schema *s =
        compile("{\"properties\": {\"a\": true},"
                " \"anyOf\": [{\"properties\": {\"b\": true}, \"required\": [\"b\"]},"
                " {\"properties\": {\"c\": true}, \"required\": [\"c\"]}],"
                " \"unevaluatedProperties\": false}");
    struct arb_schema_errors errs;

    cr_assert_eq(check(s, "{\"a\": 1, \"b\": 2, \"c\": 3}", NULL), 1);
    cr_assert_eq(check(s, "{\"a\": 1, \"b\": 2, \"d\": 3}", &errs), 0);
    cr_assert_str_eq(notes(&errs), "/d: unevaluatedProperties");
    arb_schema_free(s);
}

Test(schema, should_count_string_length_in_code_points)
{
    struct arb_schema *s = compile("{\"minLength\": 2, \"maxLength\": 2}");

    cr_assert_eq(check(s, "\"\\u00e9\\u00e9\"", NULL), 1);
    cr_assert_eq(check(s, "\"\\u00e9\"", NULL), 0);
    cr_assert_eq(check(s, "\"abc\"", NULL), 0);
    arb_schema_free(s);
}
