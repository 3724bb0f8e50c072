/*
 * U+0000 in JSON strings and repeated keys, as the comparators read JSON (json.h):
 * ARB_JSON_ALLOW_NUL holds "\u0000" as C0 80 and RFC 8785 writes it back as "\u0000";
 * ARB_JSON_LAST_KEY_WINS keeps a repeated key's last value and names each such key.
 * The strings are the JSON-Schema-Test-Suite's const/enum "nul characters in strings" case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/buf.h"
#include "arbiter/json.h"

static cJSON *parse(const char *text, unsigned flags)
{
    cJSON *v = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_json_parse(text, strlen(text), flags, &v, &err), ARB_OK, "%s: %s", text,
                 err.msg);
    return v;
}

static void assert_jcs(const cJSON *v, const char *want)
{
    char *s = NULL;
    size_t n = 0;

    cr_assert_eq(arb_jcs_string(v, &s, &n, NULL), ARB_OK);
    cr_assert_str_eq(s, want);
    cr_assert_eq(n, strlen(want));
    free(s);
}

Test(json_nul, should_refuse_u0000_without_the_flag)
{
    cJSON *v = NULL;
    struct arb_err err = {{0}};

    cr_assert_eq(arb_json_parse("\"a\\u0000b\"", 10, 0, &v, &err), ARB_EPARSE);
    cr_assert(strstr(err.msg, "string contains \\u0000"), "%s", err.msg);
}

Test(json_nul, should_keep_the_whole_string_and_write_it_back_as_u0000)
{
    cJSON *with = parse("\"hello\\u0000there\"", ARB_JSON_ALLOW_NUL);
    cJSON *lacking = parse("\"hellothere\"", ARB_JSON_ALLOW_NUL);
    cJSON *cut = parse("\"hello\"", ARB_JSON_ALLOW_NUL);
    cJSON *again = parse("[\"hello\\u0000there\"]", ARB_JSON_ALLOW_NUL);

    cr_assert_eq(strlen(with->valuestring), 12, "C0 80 keeps the length: %zu",
                 strlen(with->valuestring));
    cr_assert(arb_json_equal(with, again->child));
    cr_assert_not(arb_json_equal(with, lacking));
    cr_assert_not(arb_json_equal(with, cut));
    assert_jcs(with, "\"hello\\u0000there\"");
    assert_jcs(again, "[\"hello\\u0000there\"]");
    cJSON_Delete(with);
    cJSON_Delete(lacking);
    cJSON_Delete(cut);
    cJSON_Delete(again);
}

Test(json_nul, should_leave_an_escaped_backslash_before_u0000_alone)
{
    cJSON *v = parse("[\"a\\\\u0000\", \"\\u0000\\\\\\u0000\"]", ARB_JSON_ALLOW_NUL);

    cr_assert_str_eq(v->child->valuestring, "a\\u0000");
    assert_jcs(v, "[\"a\\\\u0000\",\"\\u0000\\\\\\u0000\"]");
    cJSON_Delete(v);
}

Test(json_nul, should_sort_a_key_with_u0000_by_utf16_code_units)
{
    /* "a" < "a\u0000" < "a\u0001" < "ab" in UTF-16 code unit order (RFC 8785 3.2.3) */
    cJSON *v = parse("{\"ab\":4,\"a\\u0001\":3,\"a\\u0000\":2,\"a\":1}", ARB_JSON_ALLOW_NUL);

    assert_jcs(v, "{\"a\":1,\"a\\u0000\":2,\"a\\u0001\":3,\"ab\":4}");
    cJSON_Delete(v);
}

Test(json_nul, should_locate_errors_after_a_u0000)
{
    cJSON *v = NULL;
    struct arb_err err = {{0}};
    const char *text = "[\"\\u0000\", 1e400]";

    /* found on the tree parsed from the text with C0 80, located in the text as written */
    cr_assert_eq(arb_json_parse(text, strlen(text), ARB_JSON_ALLOW_NUL, &v, &err), ARB_EPARSE);
    cr_assert(strstr(err.msg, "line 1, column 12"), "%s", err.msg);
}

Test(json_dup, should_keep_the_last_value_of_a_repeated_key_and_name_it)
{
    const char *text = "{\"a\":1,\"x\":[{\"id\":1,\"id\":2,\"id\":3}],\"a\":2,\"a/b\":0,\"a/b\":5}";
    struct arb_buf dups;
    struct arb_err err = {{0}};
    cJSON *v = NULL;

    arb_buf_init(&dups, 0);
    cr_assert_eq(arb_json_parse_ex(text, strlen(text), ARB_JSON_LAST_KEY_WINS, &v, &dups, &err),
                 ARB_OK, "%s", err.msg);
    assert_jcs(v, "{\"a\":2,\"a/b\":5,\"x\":[{\"id\":3}]}");
    /* each pointer once, NUL-terminated, in the order the walk met them */
    cr_assert_eq(dups.len, sizeof("/a\0/a~1b\0/x/0/id") /* counts the final NUL */);
    cr_assert_eq(memcmp(dups.ptr, "/a\0/a~1b\0/x/0/id\0", dups.len), 0);
    arb_buf_release(&dups);
    cJSON_Delete(v);
}

Test(json_dup, should_keep_the_last_value_in_a_large_object)
{
    struct arb_buf text, dups;
    cJSON *v = NULL;
    int i;

    arb_buf_init(&text, 0);
    arb_buf_init(&dups, 0);
    arb_buf_adds(&text, "{");
    for (i = 0; i < 40; i++)
        arb_buf_printf(&text, "\"k%d\":%d,", i % 30, i);
    arb_buf_adds(&text, "\"end\":true}");
    cr_assert_eq(arb_json_parse_ex(text.ptr, text.len, ARB_JSON_LAST_KEY_WINS, &v, &dups, NULL),
                 ARB_OK);
    cr_assert_eq(cJSON_GetArraySize(v), 31);
    for (i = 0; i < 10; i++) {
        char key[8];

        snprintf(key, sizeof(key), "k%d", i);
        cr_assert_eq(cJSON_GetObjectItemCaseSensitive(v, key)->valueint, 30 + i);
    }
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(v, "k10")->valueint, 10);
    cr_assert_eq(dups.len, 10 * 4 - 0 /* "/k0\0" .. "/k9\0" */);
    arb_buf_release(&text);
    arb_buf_release(&dups);
    cJSON_Delete(v);
}

Test(json_dup, should_keep_every_member_without_the_flag)
{
    cJSON *v = parse("{\"a\":1,\"a\":2}", 0);

    cr_assert_eq(cJSON_GetArraySize(v), 2);
    cr_assert_eq(cJSON_GetObjectItemCaseSensitive(v, "a")->valueint, 1);
    cJSON_Delete(v);
}
