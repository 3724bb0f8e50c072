/*
 * Unit tests for arb_json_parse (located errors and the cJSON limits it guards), arb_json_equal
 * and arb_json_pointer.  Canonical output is tested in test_jcs.c.
 *
 * Every text is parsed from an exact-length heap copy with no NUL after it, so the sanitizer
 * build catches any read past the end.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/json.h"

static enum arb_status parse_n(const char *text, size_t len, unsigned flags, cJSON **out,
                               struct arb_err *err)
{
    char *copy = malloc(len ? len : 1);
    enum arb_status st;

    cr_assert_not_null(copy);
    memcpy(copy, text, len);
    st = arb_json_parse(copy, len, flags, out, err);
    free(copy);
    return st;
}

static enum arb_status parse(const char *text, unsigned flags, cJSON **out, struct arb_err *err)
{
    return parse_n(text, strlen(text), flags, out, err);
}

/* Parse text, expect status st and an error message that starts with prefix. */
static void expect_error(const char *text, size_t len, unsigned flags, enum arb_status st,
                         const char *prefix)
{
    struct arb_err err = {""};
    cJSON *out = NULL;

    cr_assert_eq(parse_n(text, len, flags, &out, &err), st, "status for '%s': %s", text, err.msg);
    cr_assert_null(out);
    cr_assert(strncmp(err.msg, prefix, strlen(prefix)) == 0, "expected '%s...', got '%s'", prefix,
              err.msg);
}

static void expect_parse_error(const char *text, const char *prefix)
{
    expect_error(text, strlen(text), 0, ARB_EPARSE, prefix);
}

static void expect_unique_error(const char *text, const char *prefix)
{
    expect_error(text, strlen(text), ARB_JSON_NO_DUPLICATES, ARB_EPARSE, prefix);
}

static cJSON *must_parse(const char *text, unsigned flags)
{
    struct arb_err err = {""};
    cJSON *out = NULL;

    cr_assert_eq(parse(text, flags, &out, &err), ARB_OK, "parse '%s': %s", text, err.msg);
    cr_assert_not_null(out);
    return out;
}

/* ---- accepted input ---- */

Test(json_parse, should_parse_a_value_with_surrounding_whitespace)
{
    cJSON *v = must_parse(" \t\r\n{\"a\": [1, 2.5, \"x\", true, false, null]} \n\t\r\n", 0);

    cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(v, "a")), 6);
    cJSON_Delete(v);
}

Test(json_parse, should_parse_crlf_input)
{
    cJSON *v = must_parse("{\r\n  \"a\": 1,\r\n  \"b\": [\r\n    2\r\n  ]\r\n}\r\n", 0);

    cr_assert_eq(cJSON_GetObjectItem(v, "a")->valuedouble, 1);
    cJSON_Delete(v);
}

Test(json_parse, should_parse_scalars_at_top_level)
{
    const char *texts[] = {"0", "-0", "1e5", "\"s\"", "true", "false", "null", "-1.5E-3"};
    size_t i;

    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        cJSON_Delete(must_parse(texts[i], 0));
}

Test(json_parse, should_decode_surrogate_pairs)
{
    cJSON *v = must_parse("\"\\ud83d\\ude02\"", 0);

    cr_assert_str_eq(v->valuestring, "\xF0\x9F\x98\x82");
    cJSON_Delete(v);
}

Test(json_parse, should_accept_escaped_backslash_before_u0000_text)
{
    /* "\\u0000" is a backslash followed by the text u0000, not a NUL */
    cJSON *v = must_parse("[\"\\\\u0000\"]", 0);

    cr_assert_str_eq(v->child->valuestring, "\\u0000");
    cJSON_Delete(v);
}

Test(json_parse, should_accept_nesting_of_exactly_1000_levels)
{
    char text[2000];
    cJSON *v;

    memset(text, '[', 1000);
    memset(text + 1000, ']', 1000);
    cr_assert_eq(parse_n(text, sizeof(text), 0, &v, NULL), ARB_OK);
    cJSON_Delete(v);
}

Test(json_parse, should_parse_numbers_longer_than_63_characters)
{
    /* upstream cJSON 1.7.15 cut numbers at 63 characters; Debian's fix for CVE-2023-26819 not */
    cJSON *v =
        must_parse("[0.1000000000000000055511151231257827021181583404541015625000000000001]", 0);

    cr_assert_eq(v->child->valuedouble, 0.1);
    cJSON_Delete(v);
}

Test(json_parse, should_read_underflow_as_zero)
{
    cJSON *v = must_parse("[1e-400, -1e-400]", 0);

    cr_assert_eq(v->child->valuedouble, 0.0);
    cJSON_Delete(v);
}

Test(json_parse, should_keep_duplicate_keys_without_the_flag)
{
    cJSON *v = must_parse("{\"a\":1,\"a\":2}", 0);

    cr_assert_eq(cJSON_GetArraySize(v), 2);
    cJSON_Delete(v);
}

Test(json_parse, should_skip_bom_only_with_the_flag)
{
    cJSON *v = must_parse("\xEF\xBB\xBF[1]", ARB_JSON_ALLOW_BOM);

    cr_assert_eq(cJSON_GetArraySize(v), 1);
    cJSON_Delete(v);
    v = must_parse("[1]", ARB_JSON_ALLOW_BOM);
    cJSON_Delete(v);
}

Test(json_parse, should_leave_err_untouched_on_success_and_out_on_failure)
{
    struct arb_err err = {"earlier"};
    cJSON *out = (cJSON *)&err;

    cr_assert_eq(parse("[1]", 0, &out, &err), ARB_OK);
    cr_assert_str_eq(err.msg, "earlier");
    cJSON_Delete(out);
    out = (cJSON *)&err;
    cr_assert_eq(parse("[1", 0, &out, &err), ARB_EPARSE);
    cr_assert_eq(out, (cJSON *)&err);
}

Test(json_parse, should_refuse_a_missing_output_pointer)
{
    cr_assert_eq(arb_json_parse("1", 1, 0, NULL, NULL), ARB_EUSAGE);
    cr_assert_eq(arb_json_parse(NULL, 3, 0, NULL, NULL), ARB_EUSAGE);
}

/* ---- syntax errors, located ---- */

Test(json_parse, should_report_unexpected_end_of_input)
{
    expect_parse_error("[1,2", "line 1, column 5: unexpected end of input, expected ',' or ']'");
    expect_parse_error("{\"a\":", "line 1, column 6: unexpected end of input, expected a value");
    expect_parse_error("", "line 1, column 1: unexpected end of input, expected a value");
    expect_parse_error(" \n ", "line 2, column 2: unexpected end of input, expected a value");
}

Test(json_parse, should_report_unexpected_character_and_what_was_expected)
{
    expect_parse_error("{\"a\" 1}", "line 1, column 6: unexpected character '1', expected ':'");
    expect_parse_error("[1 2]", "line 1, column 4: unexpected character '2', expected ',' or ']'");
    expect_parse_error("{\"a\":1]",
                       "line 1, column 7: unexpected character ']', expected ',' or '}'");
    expect_parse_error("{1:2}",
                       "line 1, column 2: unexpected character '1', expected a string key");
    expect_parse_error("[1,]", "line 1, column 4: unexpected character ']', expected a value");
    expect_parse_error("{\"a\":1,}",
                       "line 1, column 8: unexpected character '}', expected a string");
    expect_parse_error("[NaN]", "line 1, column 2: unexpected character 'N', expected a value");
    expect_parse_error("['a']", "line 1, column 2: unexpected character ''', expected a value");
}

Test(json_parse, should_reject_trailing_characters_but_not_trailing_whitespace)
{
    expect_parse_error("[1] x", "line 1, column 5: trailing characters after the JSON value");
    expect_parse_error("1 2", "line 1, column 3: trailing characters after the JSON value");
    expect_parse_error("{}\n{}", "line 2, column 1: trailing characters after the JSON value");
    cJSON_Delete(must_parse("[1] \r\n\t ", 0));
}

Test(json_parse, should_count_lines_across_crlf_and_columns_in_code_points)
{
    expect_parse_error("[1,\r\n2,\r\n x]", "line 3, column 2: unexpected character 'x'");
    expect_parse_error("[\"été\", x]", "line 1, column 9: unexpected character 'x'");
    expect_parse_error("[\"\xF0\x9F\x98\x82\",\n \"\xE2\x82\xAC\" x]",
                       "line 2, column 6: unexpected character 'x'");
    expect_parse_error("[1,\r2]x", "line 2, column 3: trailing characters");
}

Test(json_parse, should_reject_invalid_literals)
{
    expect_parse_error("tru", "line 1, column 1: invalid literal, expected 'true'");
    expect_parse_error("[nul]", "line 1, column 2: invalid literal, expected 'null'");
    expect_parse_error("[True]", "line 1, column 2: unexpected character 'T'");
    expect_parse_error("[falsey]", "line 1, column 7: unexpected character 'y'");
}

Test(json_parse, should_reject_numbers_json_forbids_but_cjson_takes)
{
    expect_parse_error("01", "line 1, column 1: invalid number, leading zeros are not allowed");
    expect_parse_error("[-01]", "line 1, column 2: invalid number, leading zeros");
    expect_parse_error("[1.]", "line 1, column 2: invalid number, expected a digit after '.'");
    expect_parse_error("1.e5", "line 1, column 1: invalid number, expected a digit after '.'");
    expect_parse_error("[1e]",
                       "line 1, column 2: invalid number, expected a digit in the exponent");
    expect_parse_error("1e+", "line 1, column 1: invalid number, expected a digit in the exponent");
    expect_parse_error("-", "line 1, column 1: invalid number, expected a digit after '-'");
    expect_parse_error("-Infinity", "line 1, column 1: invalid number, expected a digit after '-'");
    expect_parse_error("[.5]", "line 1, column 2: unexpected character '.'");
    expect_parse_error("+1", "line 1, column 1: unexpected character '+'");
    expect_parse_error("0x10", "line 1, column 2: trailing characters");
}

Test(json_parse, should_refuse_numbers_that_overflow_a_double_with_location_and_path)
{
    char big[420];

    expect_parse_error("[1,\n 1e400]", "line 2, column 2: number out of range of a double at '/1'");
    expect_parse_error("{\"a\": {\"b\": -1.5E+308000}}",
                       "line 1, column 13: number out of range of a double at '/a/b'");
    big[0] = '[';
    big[1] = '9';
    memset(big + 2, '0', 400);
    big[402] = ']';
    expect_error(big, 403, 0, ARB_EPARSE, "line 1, column 2: number out of range");
    cJSON_Delete(must_parse("[1.7976931348623157e308, 0e999999, 0.0001e310]", 0));
}

Test(json_parse, should_reject_unterminated_strings_at_their_opening_quote)
{
    expect_parse_error("[1, \"abc", "line 1, column 5: unterminated string");
    expect_parse_error("\"abc\\", "line 1, column 1: unterminated string");
}

Test(json_parse, should_reject_invalid_escapes)
{
    expect_parse_error("[\"a\\x\"]", "line 1, column 4: invalid escape '\\x' in string");
    expect_parse_error("\"\\u12\"", "line 1, column 2: invalid \\u escape, expected 4 hex digits");
    expect_parse_error("\"\\u12G4\"", "line 1, column 2: invalid \\u escape");
}

/* ---- cJSON limits ---- */

Test(json_parse, should_refuse_nul_escape_with_its_location)
{
    expect_parse_error("[\"ab\\u0000cd\"]", "line 1, column 5: string contains \\u0000");
    expect_parse_error("{\"k\\u0000\": 1}", "line 1, column 4: string contains \\u0000");
    /* an odd number of backslashes before u0000 leaves a real escape */
    expect_parse_error("[\"\\\\\\u0000\"]", "line 1, column 5: string contains \\u0000");
}

Test(json_parse, should_refuse_lone_surrogates_with_their_location)
{
    expect_parse_error("[\"x\\ud800\"]", "line 1, column 4: unpaired surrogate '\\ud800'");
    expect_parse_error("[\"\\uDC00\"]", "line 1, column 3: unpaired surrogate '\\uDC00'");
    expect_parse_error("\"\\ud800x\"", "line 1, column 2: unpaired surrogate");
    expect_parse_error("\"\\ud800\\u0041\"", "line 1, column 2: unpaired surrogate");
    expect_parse_error("\"\\ud800\\ud800\"", "line 1, column 2: unpaired surrogate");
}

Test(json_parse, should_reject_invalid_utf8_with_its_location)
{
    expect_error("[\"a\xC0\xAF\"]", 7, 0, ARB_EPARSE, "line 1, column 4: invalid UTF-8 byte 0xc0");
    expect_error("[\"\xED\xA0\x80\"]", 7, 0, ARB_EPARSE, "line 1, column 3: invalid UTF-8");
    expect_error("[\"\xF4\x90\x80\x80\"]", 8, 0, ARB_EPARSE, "line 1, column 3: invalid UTF-8");
    expect_error("[\"\xF5\"]", 5, 0, ARB_EPARSE, "line 1, column 3: invalid UTF-8 byte 0xf5");
    expect_error("[\"\x80\"]", 5, 0, ARB_EPARSE, "line 1, column 3: invalid UTF-8");
    expect_error("\"\xE2\x82", 3, 0, ARB_EPARSE, "line 1, column 2: invalid UTF-8");
    expect_error("[1, \xFF]", 6, 0, ARB_EPARSE, "line 1, column 5: invalid UTF-8 byte 0xff");
}

Test(json_parse, should_reject_control_characters_cjson_takes_as_whitespace)
{
    expect_error("[1,\x01 2]", 7, 0, ARB_EPARSE,
                 "line 1, column 4: unexpected control character U+0001, expected a value");
    expect_error("[1]\0", 4, 0, ARB_EPARSE, "line 1, column 4: trailing characters");
    expect_error("\0[1]", 4, 0, ARB_EPARSE,
                 "line 1, column 1: unexpected control character U+0000");
}

Test(json_parse, should_reject_raw_control_characters_in_strings)
{
    expect_parse_error("[\"a\nb\"]", "line 1, column 4: unescaped control character U+000A");
    expect_error("\"a\0b\"", 5, 0, ARB_EPARSE,
                 "line 1, column 3: unescaped control character U+0000");
}

Test(json_parse, should_reject_bom_without_the_flag)
{
    expect_parse_error("\xEF\xBB\xBF[1]", "line 1, column 1: unexpected byte order mark");
    /* only one is skipped: cJSON would silently skip a second one */
    expect_error("\xEF\xBB\xBF\xEF\xBB\xBF[1]", 9, ARB_JSON_ALLOW_BOM, ARB_EPARSE,
                 "line 1, column 1: unexpected byte order mark");
    expect_parse_error("[1, \xEF\xBB\xBF 2]", "line 1, column 5: unexpected byte order mark");
}

Test(json_parse, should_locate_errors_after_a_skipped_bom_from_the_first_character)
{
    expect_error("\xEF\xBB\xBF[x]", 6, ARB_JSON_ALLOW_BOM, ARB_EPARSE,
                 "line 1, column 2: unexpected character 'x'");
}

Test(json_parse, should_report_nesting_deeper_than_1000_levels_as_too_big)
{
    char text[2002];

    memset(text, '[', 1001);
    memset(text + 1001, ']', 1001);
    expect_error(text, sizeof(text), 0, ARB_ETOOBIG,
                 "line 1, column 1001: nesting deeper than 1000 levels");
    memset(text, '[', 1000);
    text[1000] = '{';
    expect_error(text, 1001, 0, ARB_ETOOBIG, "line 1, column 1001: nesting deeper than 1000");
}

Test(json_parse, should_report_a_syntax_error_before_too_deep_nesting_as_a_syntax_error)
{
    char text[1100];

    text[0] = 'x';
    memset(text + 1, '[', 1099);
    expect_error(text, sizeof(text), 0, ARB_EPARSE, "line 1, column 1: unexpected character 'x'");
}

/* ---- duplicate keys ---- */

Test(json_parse, should_reject_duplicate_keys_with_path)
{
    expect_unique_error("{\"a\": {\"b\": 1,\n \"b\": 2}}",
                        "line 2, column 2: duplicate key at '/a/b'");
    expect_unique_error("[0, {\"x\": [{}, {\"k\": 1, \"k\": 1}]}]",
                        "line 1, column 25: duplicate key at '/1/x/1/k'");
}

Test(json_parse, should_escape_the_duplicate_path_as_a_json_pointer)
{
    expect_unique_error("{\"a/b~c\":1,\"a/b~c\":2}",
                        "line 1, column 12: duplicate key at '/a~1b~0c'");
    expect_unique_error("{\"\":1,\"\":2}", "line 1, column 7: duplicate key at '/'");
}

Test(json_parse, should_report_the_first_duplicate_in_document_order)
{
    const char *text = "{\"z\": {\"q\": 1, \"q\": 2}, \"y\": 0, \"z\": 3}";

    expect_unique_error(text, "line 1, column 16: duplicate key at '/z/q'");
}

Test(json_parse, should_compare_duplicate_keys_by_exact_name)
{
    cJSON_Delete(must_parse("{\"a\":1,\"A\":2,\"a \":3,\"\\u00e9\":4,\"e\\u0301\":5}",
                            ARB_JSON_NO_DUPLICATES));
    expect_unique_error("{\"\\u00e9\":1,\"\xC3\xA9\":2}", "line 1, column 13: duplicate key");
}

/* Build {"k0":0,...,"k<n-1>":n-1} plus, when dup >= 0, a final "k<dup>" member. */
static char *many_keys(size_t n, long dup, size_t *len)
{
    size_t cap = n * 24 + 64, i;
    char *s = malloc(cap);
    size_t pos = 0;

    cr_assert_not_null(s);
    s[pos++] = '{';
    for (i = 0; i < n; i++)
        pos += (size_t)snprintf(s + pos, cap - pos, "%s\"k%zu\":%zu", i ? "," : "", i, i);
    if (dup >= 0)
        pos += (size_t)snprintf(s + pos, cap - pos, ",\"k%ld\":0", dup);
    s[pos++] = '}';
    *len = pos;
    return s;
}

Test(json_parse, should_find_duplicates_among_100k_keys_quickly, .timeout = 10)
{
    struct arb_err err = {""};
    cJSON *v = NULL;
    size_t len;
    char *s = many_keys(100000, -1, &len);

    cr_assert_eq(parse_n(s, len, ARB_JSON_NO_DUPLICATES, &v, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(cJSON_GetArraySize(v), 100000);
    cJSON_Delete(v);
    free(s);
    s = many_keys(100000, 4242, &len);
    cr_assert_eq(parse_n(s, len, ARB_JSON_NO_DUPLICATES, &v, &err), ARB_EPARSE);
    cr_assert(strstr(err.msg, "duplicate key at '/k4242'"), "%s", err.msg);
    cr_assert(strncmp(err.msg, "line 1, column ", 15) == 0, "%s", err.msg);
    free(s);
}

/* ---- equality ---- */

static int equal_texts(const char *a, const char *b)
{
    cJSON *x = must_parse(a, 0), *y = must_parse(b, 0);
    int eq = arb_json_equal(x, y);

    cr_assert_eq(arb_json_equal(y, x), eq, "equality is not symmetric for %s and %s", a, b);
    cJSON_Delete(x);
    cJSON_Delete(y);
    return eq;
}

Test(json_equal, should_compare_numbers_by_value)
{
    cr_assert(equal_texts("1", "1.0"));
    cr_assert(equal_texts("100", "1e2"));
    cr_assert(equal_texts("0", "-0"));
    cr_assert(equal_texts("[0.1]", "[1e-1]"));
    cr_assert_not(equal_texts("1", "1.0000001"));
    cr_assert_not(equal_texts("1", "\"1\""));
}

Test(json_equal, should_not_take_booleans_or_null_for_numbers)
{
    cr_assert_not(equal_texts("true", "1"));
    cr_assert_not(equal_texts("false", "0"));
    cr_assert_not(equal_texts("true", "false"));
    cr_assert_not(equal_texts("null", "0"));
    cr_assert_not(equal_texts("null", "false"));
    cr_assert(equal_texts("null", "null"));
    cr_assert(equal_texts("true", "true"));
}

Test(json_equal, should_compare_strings_by_bytes)
{
    cr_assert(equal_texts("\"\\u00e9\"", "\"\xC3\xA9\""));
    cr_assert_not(equal_texts("\"\\u00e9\"", "\"e\\u0301\""));
    cr_assert_not(equal_texts("\"a\"", "\"A\""));
}

Test(json_equal, should_match_objects_regardless_of_member_order)
{
    cr_assert(
        equal_texts("{\"a\":1,\"b\":[1,{\"c\":null}]}", "{\"b\":[1,{\"c\":null}],\"a\":1.0}"));
    cr_assert_not(equal_texts("{\"a\":1,\"b\":2}", "{\"a\":1,\"c\":2}"));
    cr_assert_not(equal_texts("{\"a\":1}", "{\"a\":1,\"b\":2}"));
    cr_assert(equal_texts("{}", "{}"));
    cr_assert_not(equal_texts("{}", "[]"));
}

Test(json_equal, should_compare_arrays_in_order)
{
    cr_assert(equal_texts("[1,[2,3]]", "[1,[2,3]]"));
    cr_assert_not(equal_texts("[1,2]", "[2,1]"));
    cr_assert_not(equal_texts("[1,2]", "[1,2,3]"));
    cr_assert_not(equal_texts("[]", "[null]"));
}

Test(json_equal, should_compare_objects_with_duplicate_keys_as_multisets)
{
    cr_assert(equal_texts("{\"a\":1,\"a\":2}", "{\"a\":2,\"a\":1}"));
    cr_assert(equal_texts("{\"a\":1,\"b\":0,\"a\":1}", "{\"a\":1,\"a\":1,\"b\":0}"));
    cr_assert_not(equal_texts("{\"a\":1,\"a\":2}", "{\"a\":1,\"a\":1}"));
    cr_assert_not(equal_texts("{\"a\":1,\"a\":2}", "{\"a\":1,\"b\":2}"));
    cr_assert_not(equal_texts("{\"a\":1,\"a\":1}", "{\"a\":1,\"b\":1}"));
    cr_assert_not(equal_texts("{\"a\":1,\"b\":1}", "{\"a\":1,\"a\":1}"));
}

/* An object of n members named m0.. in the given order of offsets, values i * 10. */
static cJSON *object_of(size_t n, size_t stride, long bump, const char *dup)
{
    cJSON *o = cJSON_CreateObject();
    char name[32];
    size_t i, k;

    cr_assert_not_null(o);
    for (i = 0; i < n; i++) {
        k = (i * stride) % n;
        snprintf(name, sizeof(name), "m%zu", k);
        cr_assert_not_null(cJSON_AddNumberToObject(o, dup && k == 1 ? dup : name,
                                                   (double)k * 10 + (k == 7 ? bump : 0)));
    }
    return o;
}

Test(json_equal, should_compare_large_objects_regardless_of_order)
{
    cJSON *a = object_of(1000, 1, 0, NULL), *b = object_of(1000, 7, 0, NULL),
          *c = object_of(1000, 7, 1, NULL), *d = object_of(1000, 1, 0, "m0"),
          *e = object_of(1000, 3, 0, "m0");

    cr_assert(arb_json_equal(a, b));
    cr_assert_not(arb_json_equal(a, c));
    cr_assert_not(arb_json_equal(a, d));
    cr_assert(arb_json_equal(d, e));
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
    cJSON_Delete(d);
    cJSON_Delete(e);
}

Test(json_equal, should_handle_null_arguments)
{
    cJSON *v = cJSON_CreateNull();

    cr_assert(arb_json_equal(NULL, NULL));
    cr_assert_not(arb_json_equal(v, NULL));
    cr_assert_not(arb_json_equal(NULL, v));
    cr_assert(arb_json_equal(v, v));
    cJSON_Delete(v);
}

/* ---- RFC 6901 pointers ---- */

static const char rfc6901_doc[] = "{\"foo\": [\"bar\", \"baz\"], \"\": 0, \"a/b\": 1, \"c%d\": 2, "
                                  "\"e^f\": 3, \"g|h\": 4, \"i\\\\j\": 5, \"k\\\"l\": 6, \" \": 7, "
                                  "\"m~n\": 8}";

Test(json_pointer, should_resolve_the_rfc6901_examples)
{
    cJSON *doc = must_parse(rfc6901_doc, 0);
    const struct {
        const char *ptr;
        double value;
    } cases[] = {{"/", 0},     {"/a~1b", 1}, {"/c%d", 2}, {"/e^f", 3}, {"/g|h", 4},
                 {"/i\\j", 5}, {"/k\"l", 6}, {"/ ", 7},   {"/m~0n", 8}};
    size_t i;

    cr_assert_eq(arb_json_pointer(doc, ""), doc);
    cr_assert_str_eq(arb_json_pointer(doc, "/foo/0")->valuestring, "bar");
    cr_assert_str_eq(arb_json_pointer(doc, "/foo/1")->valuestring, "baz");
    cr_assert(cJSON_IsArray(arb_json_pointer(doc, "/foo")));
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const cJSON *v = arb_json_pointer(doc, cases[i].ptr);

        cr_assert_not_null(v, "pointer '%s'", cases[i].ptr);
        cr_assert_eq(v->valuedouble, cases[i].value, "pointer '%s'", cases[i].ptr);
    }
    cJSON_Delete(doc);
}

Test(json_pointer, should_reject_malformed_and_missing_pointers)
{
    cJSON *doc = must_parse("{\"a\": [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20], \"~\": 1, "
                            "\"~2\": 2, \"s\": \"x\"}",
                            0);
    const char *bad[] = {"a",     "/a/01", "/a/-",  "/a/",    "/a/1x",
                         "/a/11", "/a/+1", "/a/ 1", "/a/-1",  "/~2",
                         "/~",    "/b",    "/s/0",  "/a/0/0", "/a/99999999999999999999999999",
                         "#/a",   "/a~1"};
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_null(arb_json_pointer(doc, bad[i]), "pointer '%s' resolved", bad[i]);
    cr_assert_eq(arb_json_pointer(doc, "/a/10")->valuedouble, 20);
    cr_assert_eq(arb_json_pointer(doc, "/a/0")->valuedouble, 10);
    cr_assert_eq(arb_json_pointer(doc, "/~0")->valuedouble, 1);
    cr_assert_eq(arb_json_pointer(doc, "/~02")->valuedouble, 2);
    cr_assert_null(arb_json_pointer(NULL, ""));
    cr_assert_null(arb_json_pointer(doc, NULL));
    cJSON_Delete(doc);
}

Test(json_pointer, should_take_the_first_of_duplicate_members)
{
    cJSON *doc = must_parse("{\"a\": 1, \"a\": 2}", 0);

    cr_assert_eq(arb_json_pointer(doc, "/a")->valuedouble, 1);
    cJSON_Delete(doc);
}

Test(json_parse, should_refuse_overflow_hidden_by_a_negative_exponent)
{
    /* 400 digits times 1e-3 is still far past DBL_MAX (found by fuzzing). */
    char text[420];
    cJSON *v = NULL;
    struct arb_err err = {{0}};

    memset(text, '7', 400);
    memcpy(text + 400, "e-3", 4);
    cr_assert_eq(arb_json_parse(text, strlen(text), 0, &v, &err), ARB_EPARSE);
    cr_assert_null(v);
    cr_assert(strstr(err.msg, "number out of range of a double") != NULL, "%s", err.msg);
    memcpy(text + 400, "e-300", 6);
    cr_assert_eq(arb_json_parse(text, strlen(text), 0, &v, &err), ARB_OK, "1e100 is finite");
    cJSON_Delete(v);
}
