/*
 * Unit tests for RFC 8785 canonical output (arb_jcs_write, arb_jcs_string) and ECMAScript number
 * formatting (arb_json_number_format).
 *
 * The official test data (cyberphone/json-canonicalization testdata: input/, output/, outhex/)
 * is kept in tests/data/jcs (its README names the source and licence); ARBITER_JCS_TESTDATA
 * names another copy with the same layout.  Missing data fails the test: a canonicalizer never
 * checked against it is not tested.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/json.h"

/* ---- numbers ---- */

static double from_bits(uint64_t bits)
{
    double d;

    memcpy(&d, &bits, sizeof(d));
    return d;
}

static void expect_number(double d, const char *want)
{
    char out[ARB_JSON_NUMBER_MAX];
    size_t len = arb_json_number_format(d, out);

    cr_assert_str_eq(out, want, "%.17g formats as '%s', expected '%s'", d, out, want);
    cr_assert_eq(len, strlen(want));
}

Test(jcs_number, should_format_the_brief_vectors)
{
    expect_number(9007199254740992.0, "9007199254740992");
    expect_number(333333333.33333329, "333333333.3333333");
    expect_number(1e21, "1e+21");
    expect_number(1e-7, "1e-7");
    expect_number(0.000001, "0.000001");
    expect_number(5e-324, "5e-324");
    expect_number(1.7976931348623157e308, "1.7976931348623157e+308");
    expect_number(-0.0, "0");
    expect_number(0.0, "0");
    expect_number(123456789012345680000.0, "123456789012345680000");
    expect_number(4.5, "4.5");
    expect_number(0.1, "0.1");
    expect_number(1e30, "1e+30");
    expect_number(0.002, "0.002");
    expect_number(1e-27, "1e-27");
    expect_number(56.0, "56");
    expect_number(-1.5, "-1.5");
    expect_number(0.1 + 0.2, "0.30000000000000004");
    expect_number(1e20, "100000000000000000000");
    expect_number(123e-20, "1.23e-18");
}

/* RFC 8785 appendix B: IEEE 754 bit patterns and their canonical form. */
Test(jcs_number, should_format_the_rfc8785_appendix_b_vectors)
{
    static const struct {
        uint64_t bits;
        const char *want;
    } cases[] = {
        {0x0000000000000000, "0"},
        {0x8000000000000000, "0"},
        {0x0000000000000001, "5e-324"},
        {0x8000000000000001, "-5e-324"},
        {0x7fefffffffffffff, "1.7976931348623157e+308"},
        {0xffefffffffffffff, "-1.7976931348623157e+308"},
        {0x4340000000000000, "9007199254740992"},
        {0xc340000000000000, "-9007199254740992"},
        {0x4430000000000000, "295147905179352830000"},
        {0x44b52d02c7e14af5, "9.999999999999997e+22"},
        {0x44b52d02c7e14af6, "1e+23"},
        {0x44b52d02c7e14af7, "1.0000000000000001e+23"},
        {0x444b1ae4d6e2ef4e, "999999999999999700000"},
        {0x444b1ae4d6e2ef4f, "999999999999999900000"},
        {0x444b1ae4d6e2ef50, "1e+21"},
        {0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
        {0x3eb0c6f7a0b5ed8d, "0.000001"},
        {0x41b3de4355555553, "333333333.3333332"},
        {0x41b3de4355555554, "333333333.33333325"},
        {0x41b3de4355555555, "333333333.3333333"},
        {0x41b3de4355555556, "333333333.3333334"},
        {0x41b3de4355555557, "333333333.33333343"},
        {0xbecbf647612f3696, "-0.0000033333333333333333"},
        {0x43143ff3c1cb0959, "1424953923781206.2"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        expect_number(from_bits(cases[i].bits), cases[i].want);
}

/*
 * Powers of two, where the double below is twice as close as the one above: the shortest form
 * lies above the value, and the nearest form at that length does not read back.  Checked
 * against node's String(x).
 */
Test(jcs_number, should_find_the_shortest_form_above_a_power_of_two)
{
    expect_number(from_bits(0x2800000000000000), "5.075883674631299e-116");
    expect_number(from_bits(0x2910000000000000), "6.653062250012736e-111");
    expect_number(from_bits(0x2d70000000000000), "7.854549544476363e-90");
    expect_number(from_bits(0x3730000000000000), "7.174648137343064e-43");
    expect_number(ldexp(1, 1023), "8.98846567431158e+307");
    expect_number(ldexp(1, -1074), "5e-324");
    expect_number(ldexp(1, -1022), "2.2250738585072014e-308");
}

Test(jcs_number, should_switch_to_exponent_form_at_ecmascript_thresholds)
{
    expect_number(1e-6, "0.000001");
    expect_number(1.5e-6, "0.0000015");
    expect_number(1e-7, "1e-7");
    expect_number(1.5e-7, "1.5e-7");
    expect_number(999999999999999900000.0, "999999999999999900000");
    expect_number(1e21, "1e+21");
    expect_number(-1e21, "-1e+21");
    expect_number(1.5e300, "1.5e+300");
    expect_number(2.5e-300, "2.5e-300");
}

Test(jcs_number, should_write_null_for_non_finite_input_outside_the_contract)
{
    expect_number(NAN, "null");
    expect_number(INFINITY, "null");
}

/* Every finite double reads back from its canonical form (xorshift, fixed seed). */
Test(jcs_number, should_round_trip_random_doubles)
{
    char out[ARB_JSON_NUMBER_MAX];
    uint64_t x = 0x9E3779B97F4A7C15u;
    double d;
    int i;

    for (i = 0; i < 100000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        d = from_bits(x);
        if (!isfinite(d))
            continue;
        cr_assert_lt(arb_json_number_format(d, out), ARB_JSON_NUMBER_MAX);
        cr_assert(strtod(out, NULL) == d || d == 0, "%016llx -> %s", (unsigned long long)x, out);
    }
}

/* ---- canonical output ---- */

static char *canon(const char *text)
{
    struct arb_err err = {""};
    cJSON *v = NULL;
    char *s = NULL;

    cr_assert_eq(arb_json_parse(text, strlen(text), ARB_JSON_NO_DUPLICATES, &v, &err), ARB_OK,
                 "parse '%s': %s", text, err.msg);
    cr_assert_eq(arb_jcs_string(v, &s, NULL, &err), ARB_OK, "%s", err.msg);
    cJSON_Delete(v);
    return s;
}

static void expect_canon(const char *text, const char *want)
{
    char *s = canon(text);

    cr_assert_str_eq(s, want);
    free(s);
}

Test(jcs, should_write_values_without_whitespace)
{
    expect_canon(" [ 1 , { } , [ ] , \"\" , true , false , null ] ",
                 "[1,{},[],\"\",true,false,null]");
    expect_canon("  56.0 ", "56");
    expect_canon("\"x\"", "\"x\"");
}

Test(jcs, should_sort_members_by_utf16_code_units)
{
    /* U+E000 is above the surrogates that encode U+1F602 in UTF-16, below it in code points */
    expect_canon("{\"\\ue000\":1,\"\\ud83d\\ude02\":2,\"\\ud7ff\":3,\"a\":4,\"\\u00e9\":5}",
                 "{\"a\":4,\"\xC3\xA9\":5,\"\xED\x9F\xBF\":3,\"\xF0\x9F\x98\x82\":2,"
                 "\"\xEE\x80\x80\":1}");
    expect_canon("{\"b\":1,\"ab\":2,\"a\":3,\"\":4}", "{\"\":4,\"a\":3,\"ab\":2,\"b\":1}");
    expect_canon("{\"\\uffff\":1,\"\\udbff\\udfff\":2}",
                 "{\"\xF4\x8F\xBF\xBF\":2,\"\xEF\xBF\xBF\":1}");
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp((const char *)a, (const char *)b);
}

Test(jcs, should_sort_nested_and_large_objects)
{
    char text[4096], want[4096], names[200][8];
    size_t tp = 0, wp = 0;
    int i;
    char *s;

    /* 200 members in reverse order: the qsort path; ASCII names sort as strings */
    text[tp++] = '{';
    for (i = 199; i >= 0; i--) {
        snprintf(names[i], sizeof(names[i]), "%d", i);
        tp += (size_t)snprintf(text + tp, sizeof(text) - tp, "%s\"%d\":%d", i == 199 ? "" : ",", i,
                               i);
    }
    text[tp++] = '}';
    text[tp] = '\0';
    qsort(names, 200, sizeof(names[0]), cmp_names);
    want[wp++] = '{';
    for (i = 0; i < 200; i++)
        wp += (size_t)snprintf(want + wp, sizeof(want) - wp, "%s\"%s\":%s", i ? "," : "", names[i],
                               names[i]);
    want[wp++] = '}';
    want[wp] = '\0';
    cr_assert_eq(strncmp(want, "{\"0\":0,\"1\":1,\"10\":10,\"100\":100,\"101\":101,", 41), 0);
    s = canon(text);
    cr_assert_str_eq(s, want);
    free(s);
    expect_canon("{\"b\":{\"d\":1,\"c\":[{\"z\":1,\"y\":2}]},\"a\":0}",
                 "{\"a\":0,\"b\":{\"c\":[{\"y\":2,\"z\":1}],\"d\":1}}");
}

Test(jcs, should_escape_strings_minimally)
{
    expect_canon("\"\\b\\t\\n\\f\\r\\\"\\\\\\/\"", "\"\\b\\t\\n\\f\\r\\\"\\\\/\"");
    expect_canon("\"\\u0001\\u001f\\u007f\\u0080\\u00ff\\u2028\"",
                 "\"\\u0001\\u001f\x7F\xC2\x80\xC3\xBF\xE2\x80\xA8\"");
    expect_canon("\"</script>\"", "\"</script>\"");
    expect_canon("\"\\u000B\\u000E\"", "\"\\u000b\\u000e\"");
}

Test(jcs, should_keep_duplicate_members_in_document_order)
{
    struct arb_err err = {""};
    cJSON *v = NULL;
    char *s = NULL;
    const char *text = "{\"b\":1,\"a\":2,\"b\":0}";

    cr_assert_eq(arb_json_parse(text, strlen(text), 0, &v, &err), ARB_OK);
    cr_assert_eq(arb_jcs_string(v, &s, NULL, &err), ARB_OK);
    cr_assert_str_eq(s, "{\"a\":2,\"b\":1,\"b\":0}");
    free(s);
    cJSON_Delete(v);
}

Test(jcs, should_append_to_the_buffer_and_report_the_length)
{
    struct arb_buf b;
    cJSON *v = cJSON_CreateArray();
    char *s;
    size_t len = 0;

    arb_buf_init(&b, 0);
    cr_assert_eq(arb_buf_adds(&b, "x="), ARB_OK);
    cr_assert_not_null(cJSON_AddItemToArray(v, cJSON_CreateNumber(1.5)) ? v : NULL);
    cr_assert_eq(arb_jcs_write(v, &b, NULL), ARB_OK);
    cr_assert_str_eq(b.ptr, "x=[1.5]");
    arb_buf_release(&b);
    cr_assert_eq(arb_jcs_string(v, &s, &len, NULL), ARB_OK);
    cr_assert_eq(len, 5);
    free(s);
    cJSON_Delete(v);
}

Test(jcs, should_refuse_non_finite_numbers_with_their_path)
{
    struct arb_err err = {""};
    struct arb_buf b;
    cJSON *v = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(v, "a/b");

    cr_assert_not_null(arr);
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(1));
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(INFINITY));
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_buf_adds(&b, "keep"), ARB_OK);
    cr_assert_eq(arb_jcs_write(v, &b, &err), ARB_ESCHEMA);
    cr_assert_str_eq(err.msg,
                     "cannot canonicalize '/a~1b/1': a non-finite number has no JSON form");
    cr_assert_str_eq(b.ptr, "keep", "a failed write leaves the buffer as it was");
    cr_assert_eq(b.len, 4);
    arb_buf_release(&b);
    cJSON_Delete(v);
}

Test(jcs, should_refuse_invalid_utf8_and_raw_nodes)
{
    struct arb_err err = {""};
    char *s = NULL;
    cJSON *v = cJSON_CreateString("ok\xC0\xAF");

    cr_assert_eq(arb_jcs_string(v, &s, NULL, &err), ARB_ESCHEMA);
    cr_assert(strstr(err.msg, "invalid UTF-8"), "%s", err.msg);
    cr_assert_null(s);
    cJSON_Delete(v);
    v = cJSON_CreateRaw("[1]");
    cr_assert_eq(arb_jcs_string(v, &s, NULL, &err), ARB_ESCHEMA);
    cJSON_Delete(v);
    cr_assert_eq(arb_jcs_string(NULL, &s, NULL, &err), ARB_EUSAGE);
}

Test(jcs, should_refuse_output_past_the_buffer_cap)
{
    struct arb_err err = {""};
    struct arb_buf b;
    cJSON *v = cJSON_CreateString("0123456789");

    arb_buf_init(&b, 8);
    cr_assert_eq(arb_jcs_write(v, &b, &err), ARB_ETOOBIG);
    cr_assert(strstr(err.msg, "buffer cap of 8 bytes"), "%s", err.msg);
    cr_assert_eq(b.len, 0);
    arb_buf_release(&b);
    cJSON_Delete(v);
}

Test(jcs, should_refuse_hand_built_trees_deeper_than_1000_levels)
{
    struct arb_err err = {""};
    cJSON *root = cJSON_CreateArray(), *cur = root, *next;
    char *s = NULL;
    int i;

    /* the root and 999 more arrays with a number inside: 1000 levels, as cJSON allows */
    for (i = 0; i < 999; i++) {
        next = cJSON_CreateArray();
        cr_assert_not_null(next);
        cJSON_AddItemToArray(cur, next);
        cur = next;
    }
    cJSON_AddItemToArray(cur, cJSON_CreateNumber(7));
    cr_assert_eq(arb_jcs_string(root, &s, NULL, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(strlen(s), 2001);
    free(s);
    s = NULL;
    cJSON_AddItemToArray(cur, cJSON_CreateArray());
    cr_assert_eq(arb_jcs_string(root, &s, NULL, &err), ARB_ETOOBIG);
    cr_assert(strstr(err.msg, "nesting deeper than 1000 levels"), "%s", err.msg);
    cr_assert_null(s);
    cJSON_Delete(root);
}

/* ---- RFC 8785 test data ---- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    size_t cap = 0, n = 0, got;

    cr_assert_not_null(f, "cannot open '%s'", path);
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            data = realloc(data, cap + 1);
            cr_assert_not_null(data);
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    cr_assert_not(ferror(f), "cannot read '%s'", path);
    fclose(f);
    data[n] = '\0';
    *len = n;
    return data;
}

/* outhex/ holds the expected bytes as hex pairs separated by white space. */
static size_t unhex(const char *hex, char *out)
{
    size_t n = 0;
    unsigned v;
    int used;

    while (sscanf(hex, " %2x%n", &v, &used) == 1) {
        out[n++] = (char)v;
        hex += used;
    }
    return n;
}

Test(jcs, should_reproduce_the_rfc8785_test_data_byte_for_byte)
{
    const char *dir = getenv("ARBITER_JCS_TESTDATA");
    char path[2048];
    struct dirent *de;
    struct arb_err err;
    size_t in_len, want_len, hex_len, got_len, count = 0;
    char *in, *want, *hex, *got, *bytes;
    cJSON *v;
    DIR *d;

    if (!dir || !*dir)
        dir = "tests/data/jcs";
    snprintf(path, sizeof(path), "%s/input", dir);
    d = opendir(path);
    cr_assert_not_null(d,
                       "RFC 8785 test data not found at '%s': run the tests from the repository's "
                       "top folder, or set ARBITER_JCS_TESTDATA to a folder holding input/, "
                       "output/ and outhex/",
                       path);
    while ((de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name);

        if (nl < 6 || strcmp(de->d_name + nl - 5, ".json") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/input/%s", dir, de->d_name);
        in = read_file(path, &in_len);
        snprintf(path, sizeof(path), "%s/output/%s", dir, de->d_name);
        want = read_file(path, &want_len);
        snprintf(path, sizeof(path), "%s/outhex/%.*s.txt", dir, (int)(nl - 5), de->d_name);
        hex = read_file(path, &hex_len);

        err.msg[0] = '\0';
        v = NULL;
        cr_assert_eq(arb_json_parse(in, in_len, ARB_JSON_NO_DUPLICATES, &v, &err), ARB_OK, "%s: %s",
                     de->d_name, err.msg);
        cr_assert_eq(arb_jcs_string(v, &got, &got_len, &err), ARB_OK, "%s: %s", de->d_name,
                     err.msg);
        cr_assert_eq(got_len, want_len, "%s: %zu bytes, expected %zu:\n%s\n%s", de->d_name, got_len,
                     want_len, got, want);
        cr_assert(memcmp(got, want, want_len) == 0, "%s differs:\n%s\n%s", de->d_name, got, want);
        bytes = malloc(hex_len / 2 + 1);
        cr_assert_not_null(bytes);
        cr_assert_eq(unhex(hex, bytes), got_len, "%s: outhex length", de->d_name);
        cr_assert(memcmp(bytes, got, got_len) == 0, "%s differs from outhex", de->d_name);
        count++;
        free(bytes);
        free(got);
        free(hex);
        free(want);
        free(in);
        cJSON_Delete(v);
    }
    closedir(d);
    cr_assert_gt(count, 0, "no test files in '%s/input'", dir);
}
