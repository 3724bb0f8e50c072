/*
 * Unit tests for the JSON text scanner and its locator (src/util/jscan.h): the cursor that
 * reads as cJSON reads, the items of a container, offsets as line and column, and JSON
 * pointers found in text.  The strict check is tested through arb_json_parse (test_json.c) and
 * the cursor against cJSON through the report's view (test_report_view.c).
 *
 * Texts are exact-length heap copies with no NUL after them, so the sanitizer build catches a
 * read past the length.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/util/jscan.h"

static char *copy_of(const char *text)
{
    size_t n = strlen(text);
    char *c = malloc(n ? n : 1);

    cr_assert_not_null(c);
    memcpy(c, text, n);
    return c;
}

/* ---- the cursor ---- */

Test(jscan_cursor, should_delimit_values_without_reading_past_the_length)
{
    static const struct {
        const char *text;
        int ok;
        size_t end;
    } cases[] = {
        {"\"a\\\"b\" ,", 0, 6},
        {"{\"k\": [1, \"]\"]} x", 0, 15},
        {"-1.5e3,", 0, 6},
        {"true ", 0, 4},
        {"[1 2 3]", 0, 7}, /* only delimited, not checked */
        {"\"unterminated", -1, 0},
        {"\"ends in \\", -1, 0},
        {"]", -1, 0},
        {"{\"a\": [1}", -1, 0},
        {"", -1, 0},
        {",", -1, 0},
        {"\x01", -1, 0}, /* cJSON's white space is no value */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *t = copy_of(cases[i].text);
        struct arb_jscan sc = {t, strlen(cases[i].text), 0};

        cr_assert_eq(arb_jscan_skip(&sc), cases[i].ok, "%s", cases[i].text);
        cr_assert_eq(sc.pos, cases[i].end, "%s: ends at %zu", cases[i].text, sc.pos);
        free(t);
    }
}

Test(jscan_cursor, should_skip_white_space_as_cjson_does)
{
    struct arb_jscan sc = {"\x01\t\x1f \n\r\x7fx", 8, 0};

    arb_jscan_ws(&sc);
    cr_assert_eq(sc.pos, 6, "bytes 1 to 32 are white space, DEL is not");
}

Test(jscan_cursor, should_decode_strings_as_cjson_does)
{
    static const struct {
        const char *text;
        const char *decoded; /* NULL: refused */
        size_t n;
    } cases[] = {
        {"\"caf\\u00e9 \\ud83d\\ude00\"", "caf\xC3\xA9 \xF0\x9F\x98\x80", 10},
        {"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\/\b\f\n\r\t", 8},
        {"\"a\\u00zzb\"", "a\0b", 3}, /* digits that are not all hex read as 0 */
        {"\"raw \x01 byte\"", "raw \x01 byte", 10},
        {"\"\\q\"", NULL, 0},
        {"\"\\ud800\"", NULL, 0},
        {"\"\\udc00\"", NULL, 0},
        {"\"\\ud800\\u0041\"", NULL, 0},
        {"\"\\u12\"", NULL, 0},
        {"\"open", NULL, 0},
        {"x", NULL, 0},
    };
    struct arb_buf b;

    arb_buf_init(&b, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *t = copy_of(cases[i].text);
        struct arb_jscan sc = {t, strlen(cases[i].text), 0};
        enum arb_status st;

        arb_buf_reset(&b);
        st = arb_jscan_string(&sc, &b);
        if (!cases[i].decoded) {
            cr_assert_eq(st, ARB_EPARSE, "accepted %s", cases[i].text);
            cr_assert_eq(sc.pos, 0);
        } else {
            cr_assert_eq(st, ARB_OK, "refused %s", cases[i].text);
            cr_assert_eq(b.len, cases[i].n + 1, "%s: %zu bytes", cases[i].text, b.len);
            cr_assert(memcmp(b.ptr, cases[i].decoded, cases[i].n + 1) == 0, "%s", cases[i].text);
            cr_assert_eq(sc.pos, strlen(cases[i].text));
        }
        free(t);
    }
    arb_buf_release(&b);
}

Test(jscan_cursor, should_read_numbers_as_cjson_does)
{
    static const struct {
        const char *text;
        int read;
        double value;
        size_t end;
    } cases[] = {
        {"12.5,", 1, 12.5, 4},
        {"-0", 1, -0.0, 2},
        {"1e3}", 1, 1000, 3},
        {"01", 1, 1, 2},
        {"1.", 1, 1, 2},
        {"0x1A", 1, 0, 1}, /* no hex */
        {"1-2", 1, 1, 1},
        {"-", 0, 0, 0},
        {"-inf", 0, 0, 0},
        {"x", 0, 0, 0},
        {"", 0, 0, 0},
        {"0.1000000000000000055511151231257827021181583404541015625000000000001", 1, 0.1, 69},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *t = copy_of(cases[i].text);
        struct arb_jscan sc = {t, strlen(cases[i].text), 0};
        double v = NAN;

        cr_assert_eq(arb_jscan_number(&sc, &v), cases[i].read, "%s", cases[i].text);
        cr_assert_eq(sc.pos, cases[i].end, "%s: ends at %zu", cases[i].text, sc.pos);
        if (cases[i].read)
            cr_assert(v == cases[i].value && signbit(v) == signbit(cases[i].value), "%s: %g",
                      cases[i].text, v);
        free(t);
    }
}

Test(jscan_cursor, should_read_literals_and_brackets)
{
    char *t = copy_of("[ true , fals, null ]");
    struct arb_jscan sc = {t, 21, 0};

    cr_assert_eq(arb_jscan_open(&sc), 1);
    cr_assert_eq(arb_jscan_literal(&sc), 't');
    cr_assert_eq(arb_jscan_next(&sc, ']'), 1);
    cr_assert_eq(arb_jscan_literal(&sc), 0, "'fals' is no literal");
    cr_assert_eq(sc.pos, 9);
    cr_assert_eq(arb_jscan_skip(&sc), 0);
    cr_assert_eq(arb_jscan_next(&sc, ']'), 1);
    cr_assert_eq(arb_jscan_literal(&sc), 'n');
    cr_assert_eq(arb_jscan_next(&sc, '}'), -1, "the wrong closer");
    cr_assert_eq(arb_jscan_next(&sc, ']'), 0);
    cr_assert_eq(sc.pos, 21);
    sc.pos = 2;
    cr_assert_eq(arb_jscan_open(&sc), -1, "no bracket there");
    free(t);
}

/* ---- the locator ---- */

Test(jscan_locate, should_count_lines_across_cr_lf_and_crlf_and_columns_in_code_points)
{
    const char *t = "a\r\nb\rc\n\xC3\xA9x";
    struct arb_jscan_pos p;
    struct arb_err err = {""};

    p = arb_jscan_pos(t, strlen(t), 0);
    cr_assert(p.line == 1 && p.col == 1);
    p = arb_jscan_pos(t, strlen(t), 3);
    cr_assert(p.line == 2 && p.col == 1, "CRLF is one line end");
    p = arb_jscan_pos(t, strlen(t), 5);
    cr_assert(p.line == 3 && p.col == 1, "a lone CR ends a line");
    p = arb_jscan_pos(t, strlen(t), 9);
    cr_assert(p.line == 4 && p.col == 2, "%zu:%zu", p.line, p.col);
    cr_assert_eq(arb_jscan_err_at(&err, ARB_EPARSE, t, strlen(t), 9, "what"), ARB_EPARSE);
    cr_assert_str_eq(err.msg, "line 4, column 2: what");
}

Test(jscan_locate, should_step_through_the_items_of_a_container)
{
    const char *t = "{ \"a\" : [1, {\"b\": 2}] , \"c\\\"\":null }";
    struct arb_jscan_items it;

    arb_jscan_items_init(&it, t, strlen(t), 0);
    cr_assert(arb_jscan_items_next(&it));
    cr_assert(it.close == '}' && it.index == 0 && it.key_at == 2 && it.key_end == 5);
    cr_assert_eq(it.value_at, 8);
    cr_assert(arb_jscan_items_next(&it));
    cr_assert(it.index == 1 && it.key_at == 24 && it.key_end == 29 && it.value_at == 30);
    cr_assert_not(arb_jscan_items_next(&it));
    cr_assert_not(arb_jscan_items_next(&it));
    arb_jscan_items_init(&it, t, strlen(t), 8);
    cr_assert(arb_jscan_items_next(&it) && it.key_at == 9 && it.value_at == 9);
    cr_assert(arb_jscan_items_next(&it) && it.index == 1 && it.value_at == 12);
    cr_assert_not(arb_jscan_items_next(&it));
    arb_jscan_items_init(&it, t, strlen(t), 9);
    cr_assert_not(arb_jscan_items_next(&it), "a number has no items");
}

Test(jscan_locate, should_locate_pointers_with_escaped_keys_and_code_point_columns)
{
    const char *text = "{\"é\": [1,\n  {\"a/b\": \"x\", \"t~\": [true, {\"k\": null}]}]}";
    struct arb_jscan_pos v, k;

    cr_assert(arb_jscan_locate(text, strlen(text), "/é/1/a~1b", &v, &k));
    cr_assert_eq(v.line, 2);
    cr_assert_eq(v.col, 11);
    cr_assert_eq(k.col, 4);
    cr_assert(arb_jscan_locate(text, strlen(text), "/é/1/t~0/1/k", &v, &k));
    cr_assert_eq(v.line, 2);
    cr_assert_eq(v.col, 35);
    cr_assert_eq(k.col, 30);
    cr_assert(arb_jscan_locate(text, strlen(text), "/é", &v, &k));
    cr_assert_eq(v.line, 1);
    cr_assert_eq(v.col, 7, "columns count code points, not bytes");
    cr_assert(arb_jscan_locate(text, strlen(text), "", &v, &k));
    cr_assert_eq(v.col, 1);
    cr_assert_not(arb_jscan_locate(text, strlen(text), "/é/2", &v, &k));
}

Test(jscan_locate, should_find_the_first_value_a_pointer_names_in_the_text)
{
    /* the first "a" has no "y": the second one's is the first /a/y in the text */
    const char *t = "{\"a\": {\"x\": 1}, \"a\": {\"y\": 2}, \"\\u0061\": {\"y\": 3}}";
    size_t v = 0, k = 0;

    cr_assert(arb_jscan_find(t, strlen(t), "/a/y", &v, &k));
    cr_assert_eq(v, 27);
    cr_assert_eq(k, 22);
    cr_assert(arb_jscan_find(t, strlen(t), "/a", &v, &k));
    cr_assert_eq(k, 1);
    cr_assert_not(arb_jscan_find(t, strlen(t), "a", &v, &k), "not a pointer");
    cr_assert_not(arb_jscan_find(t, strlen(t), "/a/x/0", &v, &k));
    cr_assert_not(arb_jscan_find("[1, 2]", 6, "/01", &v, &k), "an index has no leading zero");
    cr_assert(arb_jscan_find("[1, 2]", 6, "/1", &v, &k) && v == 4 && k == 4);
    cr_assert_not(arb_jscan_find("   ", 3, "", &v, &k), "no value at all");
}

Test(jscan_locate, should_skip_a_byte_order_mark_without_counting_it)
{
    const char *t = "\xEF\xBB\xBF{\"a\": 1}";
    struct arb_jscan_pos v, k;

    cr_assert(arb_jscan_locate(t, strlen(t), "/a", &v, &k));
    cr_assert(v.line == 1 && v.col == 7 && k.col == 2, "%zu, %zu", v.col, k.col);
}
