/*
 * arb_json_parse_members (json.h), which json_match reads observed JSON with: the members it
 * returns, its errors and its repeated-key notes must be those of arb_json_parse_ex's whole tree,
 * whether it read the named values alone (no key may repeat, no U+0000, no number past a double)
 * or built the tree.  And json_match's compared surfaces, written member by member from names
 * laid out once, must be the RFC 8785 text of the checked members as one object.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/buf.h"
#include "arbiter/compare.h"
#include "arbiter/json.h"

#define READ_AS (ARB_JSON_ALLOW_BOM | ARB_JSON_ALLOW_NUL | ARB_JSON_LAST_KEY_WINS)

static void assert_same_value(const cJSON *want, const cJSON *got, const char *text,
                              const char *name)
{
    struct arb_buf a, b;

    cr_assert_eq(want == NULL, got == NULL, "%s: '%s' %s", text, name,
                 want ? "missing" : "unexpected");
    if (!want)
        return;
    arb_buf_init(&a, 0);
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_jcs_write(want, &a, NULL), ARB_OK);
    cr_assert_eq(arb_jcs_write(got, &b, NULL), ARB_OK);
    cr_assert_str_eq(b.ptr, a.ptr, "%s: '%s'", text, name);
    cr_assert_eq(want->type & 0xFF, got->type & 0xFF, "%s: '%s'", text, name);
    cr_assert(arb_json_equal(want, got), "%s: '%s'", text, name);
    arb_buf_release(&a);
    arb_buf_release(&b);
}

/* Compare arb_json_parse_members with the whole tree of arb_json_parse_ex for text and names. */
static void assert_as_tree(const char *text, size_t len, unsigned flags, const char *const *names,
                           size_t n)
{
    struct arb_err e1 = {{0}}, e2 = {{0}};
    struct arb_buf d1, d2;
    cJSON *tree = NULL, *values[8];
    enum arb_status s1, s2;
    int is_object = -1;
    size_t i;

    cr_assert(n <= 8);
    arb_buf_init(&d1, 0);
    arb_buf_init(&d2, 0);
    s1 = arb_json_parse_ex(text, len, flags, &tree, &d1, &e1);
    s2 = arb_json_parse_members(text, len, flags, names, n, values, &is_object, &d2, &e2);
    cr_assert_eq(s2, s1, "%s: status %d, the tree's %d", text, s2, s1);
    cr_assert_str_eq(e2.msg, e1.msg, "%s", text);
    cr_assert_eq(d2.len, d1.len, "%s: repeated keys", text);
    if (d1.len)
        cr_assert_eq(memcmp(d1.ptr, d2.ptr, d1.len), 0, "%s: repeated keys", text);
    if (s1 == ARB_OK)
        cr_assert_eq(is_object, cJSON_IsObject(tree), "%s", text);
    for (i = 0; i < n; i++) {
        const cJSON *want = NULL;
        size_t k;

        if (s1 == ARB_OK && cJSON_IsObject(tree))
            want = cJSON_GetObjectItemCaseSensitive(tree, names[i]);
        for (k = 0; k < i; k++) /* a name listed twice has its value at its first place */
            if (strcmp(names[k], names[i]) == 0)
                want = NULL;
        assert_same_value(want, values[i], text, names[i]);
        cJSON_Delete(values[i]);
    }
    cJSON_Delete(tree);
    arb_buf_release(&d1);
    arb_buf_release(&d2);
}

Test(json_members, should_read_the_members_the_whole_tree_holds)
{
    static const char *const names[] = {"a",        "vendor",        "total", "",
                                        "\xC3\xA9", "a\xC0\x80\x62", "e",     "a"};
    static const char *const texts[] = {
        "{\"vendor\": \"Acme\", \"total\": 10.5, \"lineItems\": [{\"description\": \"W\", "
        "\"price\": 3}]}",
        "  {\"a\" : 1 ,\"b\":{\"a\":2}}\n",
        "{\"a\":1,\"a\":2}",
        "{\"a\":1,\"\\u0061\":2}",
        "{\"a\\u0000b\":1,\"a\":\"x\\u0000y\"}",
        "{\"a\":1e400}",
        "{\"a\":1e300,\"b\":[1,2]}",
        "{\"a\":0.00000000000000000000000000000000000000000000000000000000000000000000001}",
        "[1,2]",
        "\"a\"",
        "nope",
        "{\"a\":1,}",
        "{\"a\":1} x",
        "\xEF\xBB\xBF{\"a\":1}",
        "{}",
        "{\"\":1,\"a\":[],\"total\":{}}",
        "{\"a\":{\"b\":{\"c\":[1,{\"d\":null}]}},\"e\":\"\\u00e9\\n\",\"\xC3\xA9\":true}",
        "{\"\xC3\xA9\":1,\"\\u00e9\":2}",
        "{\"b\":{\"x\":1,\"x\":2},\"a\":[{\"y\":1,\"y\":1}]}",
        "{\"vendor\":\"Acme\",\"vendor2\":1,\"total\":-0.0,\"a\":false}",
        "{\"a\":\"\\ud83d\\ude00\",\"e\":[\"\\\"\",\"\\\\\"]}",
    };
    size_t i;

    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        assert_as_tree(texts[i], strlen(texts[i]), READ_AS, names, 8);
        assert_as_tree(texts[i], strlen(texts[i]), 0, names, 4);
        assert_as_tree(texts[i], strlen(texts[i]), ARB_JSON_NO_DUPLICATES, names, 3);
    }
}

Test(json_members, should_read_past_objects_deeper_than_the_key_filter)
{
    static const char *const names[] = {"a", "b"};
    struct arb_buf text;
    int i;

    /* past 64 levels the scanner takes any object as maybe repeating a key: the whole tree */
    arb_buf_init(&text, 0);
    cr_assert_eq(arb_buf_adds(&text, "{\"b\":"), ARB_OK);
    for (i = 0; i < 70; i++)
        cr_assert_eq(arb_buf_adds(&text, "{\"a\":"), ARB_OK);
    cr_assert_eq(arb_buf_adds(&text, "1"), ARB_OK);
    for (i = 0; i < 70; i++)
        cr_assert_eq(arb_buf_adds(&text, "}"), ARB_OK);
    cr_assert_eq(arb_buf_adds(&text, ",\"a\":[true]}"), ARB_OK);
    assert_as_tree(text.ptr, text.len, READ_AS, names, 2);
    arb_buf_release(&text);
}

/* The record of check config run on observed (with case expected), as one line of JSON. */
static char *record(const char *config, const char *observed, const char *case_expected)
{
    cJSON *cfg = NULL, *ce = NULL;
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};
    struct arb_result res;
    struct arb_buf out;
    int run;

    cr_assert_eq(arb_json_parse(config, strlen(config), ARB_JSON_ALLOW_NUL, &cfg, &err), ARB_OK,
                 "%s: %s", config, err.msg);
    if (case_expected)
        cr_assert_eq(
            arb_json_parse(case_expected, strlen(case_expected), ARB_JSON_ALLOW_NUL, &ce, &err),
            ARB_OK, "%s: %s", case_expected, err.msg);
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK, "%s", err.msg);
    arb_result_init(&res);
    arb_buf_init(&out, 0);
    /* twice: the second run reuses what the first kept (the expected surface, the layout) */
    for (run = 0; run < 2; run++) {
        arb_buf_reset(&out);
        cr_assert_eq(arb_check_run(c, observed, strlen(observed), ce, &res, &err), ARB_OK, "%s",
                     err.msg);
        cr_assert_eq(arb_result_write_json(&res, &out), ARB_OK);
    }
    arb_result_release(&res);
    arb_check_free(c);
    cJSON_Delete(cfg);
    cJSON_Delete(ce);
    return arb_buf_detach(&out, NULL);
}

static void assert_compared(const char *config, const char *observed, const char *case_expected,
                            const char *want)
{
    char *r = record(config, observed, case_expected);

    cr_assert(strstr(r, want), "%s\nwants %s", r, want);
    free(r);
}

Test(json_members, should_write_surfaces_in_rfc8785_order_with_their_escapes)
{
    /* UTF-16 order puts U+1F600 (a surrogate pair, D83D) before U+E000; U+0000 first */
    static const char want[] =
        "\"compared\":{\"expected\":{\"\":0,\"a\\u0000\":5,\"x\\\"y\":4,\"\xF0\x9F\x98\x80\":1,"
        "\"\xEE\x80\x80\":2},\"observed\":{\"\":0,\"a\\u0000\":5,\"x\\\"y\":4,"
        "\"\xF0\x9F\x98\x80\":1,\"\xEE\x80\x80\":2.5}";
    static const char obs[] = "{\"\xEE\x80\x80\":2.5,\"x\\\"y\":4,\"\":0,\"a\\u0000\":5,"
                              "\"\xF0\x9F\x98\x80\":1,\"z\":9}";
    static const char exp[] =
        "{\"\xEE\x80\x80\":2,\"\xF0\x9F\x98\x80\":1,\"x\\\"y\":4,\"\":0,\"a\\u0000\":5}";
    char config[256];

    snprintf(config, sizeof(config), "{\"op\":\"json_match\",\"expected\":\"%s\"}",
             "{\\\"\xEE\x80\x80\\\":2,\\\"\xF0\x9F\x98\x80\\\":1,\\\"x\\\\\\\"y\\\":4,"
             "\\\"\\\":0,\\\"a\\\\u0000\\\":5}");
    assert_compared(config, obs, NULL, want);
    assert_compared("{\"op\":\"json_match\"}", obs, exp, want);
}

Test(json_members, should_write_the_same_record_for_own_and_case_expected)
{
    static const char *const cases[][3] = {
        {"{\"a\":1,\"b\":null,\"c\":{\"y\":[1,2],\"x\":\"s\"}}", "",
         "{\"c\":{\"x\":\"s\",\"y\":[1,2]},\"a\":1.0}"},
        {"{\"a\":1,\"b\":2}", ",\"keys\":[\"b\",\"z\",\"b\",\"a\"]", "{\"z\":0,\"a\":1,\"b\":3}"},
        {"{\"a\":1,\"b\":2}", ",\"keys\":[]", "{\"a\":1}"},
        {"{\"a\":null}", "", "{\"b\":1}"},
        {"{\"a\":1,\"a\":2}", "", "{\"a\":1,\"a\":2,\"b\":{\"c\":1,\"c\":1}}"},
        {"{\"a\":1}", "", "[1]"},
        {"{\"a\":1}", "", "{\"a\":1"},
        {"{\"a\":1}", ",\"keys\":[\"a\"]", "\xEF\xBB\xBF {\"a\" : 1}"},
    };
    char own[512], by_case[512];
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *r1, *r2;

        snprintf(own, sizeof(own), "{\"op\":\"json_match\",\"expected\":%s%s}", cases[i][0],
                 cases[i][1]);
        snprintf(by_case, sizeof(by_case), "{\"op\":\"json_match\"%s}", cases[i][1]);
        r1 = record(own, cases[i][2], NULL);
        r2 = record(by_case, cases[i][2], cases[i][0]);
        cr_assert_str_eq(r2, r1, "case %zu", i);
        free(r1);
        free(r2);
    }
    assert_compared("{\"op\":\"json_match\",\"expected\":{\"a\":1,\"b\":null},"
                    "\"keys\":[\"b\",\"a\",\"b\",\"q\"]}",
                    "{\"q\":[],\"a\":1}", NULL,
                    "\"compared\":{\"expected\":{\"a\":1,\"b\":null},\"observed\":{\"a\":1,"
                    "\"b\":null,\"q\":[]}");
}
