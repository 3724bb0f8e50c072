/*
 * comparison.json is written as text (src/run/jtext.c) where it was a cJSON tree printed by
 * cJSON_PrintUnformatted: the stored bytes must not change.  Numbers and strings are checked
 * here against cJSON itself, over many values; decide_write against the tree it replaced is
 * in test_comparison_json.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/run/run_int.h"
#include "arbiter/json.h"

static void assert_number_as_cjson(double d)
{
    cJSON *n = cJSON_CreateNumber(d);
    char *want = n ? cJSON_PrintUnformatted(n) : NULL;
    char got[JTEXT_NUMBER_MAX];
    size_t len = jtext_number(d, got);

    cr_assert(want != NULL);
    cr_assert_str_eq(got, want, "%.17g: jtext '%s', cJSON '%s'", d, got, want);
    cr_assert_eq(len, strlen(want));
    cJSON_free(want);
    cJSON_Delete(n);
}

/* A 64-bit generator (splitmix64): the same values on every run. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

Test(jtext, should_print_numbers_as_cjson_does)
{
    static const double fixed[] = {0.0,
                                   -0.0,
                                   1.0,
                                   -1.0,
                                   0.5,
                                   -0.5,
                                   2.7,
                                   5.4,
                                   9.0,
                                   0.1,
                                   0.2,
                                   0.3,
                                   0.1 + 0.2,
                                   2.0 / 3.0,
                                   1.0 / 3.0,
                                   0.8,
                                   0.6,
                                   1e-5,
                                   1e-4,
                                   123456789.5,
                                   2147483647.0,
                                   2147483648.0,
                                   -2147483648.0,
                                   -2147483649.0,
                                   1e15,
                                   1e16,
                                   1e17,
                                   1e21,
                                   99999999999999.9,
                                   999999999999999.9,
                                   4.35,
                                   4.7,
                                   4.3,
                                   1e300,
                                   -1e-300,
                                   5e-324};
    uint64_t s = 21;
    size_t i;
    int k, m;

    for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        assert_number_as_cjson(fixed[i]);
    assert_number_as_cjson(NAN);
    assert_number_as_cjson(INFINITY);
    assert_number_as_cjson(-INFINITY);
    /* the figures comparison.json holds: tenths, hundredths, pass rates, and their negatives */
    for (k = -2000; k <= 2000; k++) {
        assert_number_as_cjson(k / 10.0);
        assert_number_as_cjson(round(k * 1.37) / 100.0);
        assert_number_as_cjson(k * 1e9 / 10.0);
    }
    for (m = 1; m <= 40; m++)
        for (k = 0; k <= m; k++)
            assert_number_as_cjson((double)k / (double)m);
    for (i = 0; i < 20000; i++) {
        uint64_t bits = next(&s);
        double d;

        memcpy(&d, &bits, sizeof(d));
        assert_number_as_cjson(d);
        assert_number_as_cjson((double)(int64_t)(bits >> 20) / 10.0);
        assert_number_as_cjson((double)(bits % 100000) / 1000.0);
    }
}

Test(jtext, should_escape_strings_as_cjson_does)
{
    char s[300];
    struct arb_buf out;
    struct jtext j;
    cJSON *o = cJSON_CreateObject();
    char *want;
    size_t i;

    for (i = 0; i < 255; i++)
        s[i] = (char)(i + 1); /* every byte but NUL, the UTF-8 and invalid ones included */
    s[255] = '\0';
    cr_assert(cJSON_AddStringToObject(o, s, s) != NULL);
    cr_assert(cJSON_AddStringToObject(o, "k", "a\"b\\c\nd\te\x7f") != NULL);
    want = cJSON_PrintUnformatted(o);
    arb_buf_init(&out, 0);
    jtext_init(&j, &out);
    jtext_open(&j, NULL, '{');
    jtext_str(&j, s, s);
    jtext_str(&j, "k", "a\"b\\c\nd\te\x7f");
    jtext_close(&j, '}');
    cr_assert_eq(j.st, ARB_OK);
    cr_assert_str_eq(out.ptr, want);
    arb_buf_release(&out);
    cJSON_free(want);
    cJSON_Delete(o);
}

Test(jtext, should_nest_and_separate_as_cjson_does)
{
    struct arb_buf out;
    struct jtext j;

    arb_buf_init(&out, 0);
    jtext_init(&j, &out);
    jtext_open(&j, NULL, '{');
    jtext_open(&j, "a", '[');
    jtext_close(&j, ']');
    jtext_open(&j, "b", '[');
    jtext_null(&j, NULL);
    jtext_bool(&j, NULL, 1);
    jtext_open(&j, NULL, '{');
    jtext_close(&j, '}');
    jtext_num(&j, NULL, 0.25);
    jtext_close(&j, ']');
    jtext_bool(&j, "c", 0);
    jtext_close(&j, '}');
    cr_assert_eq(j.st, ARB_OK);
    cr_assert_str_eq(out.ptr, "{\"a\":[],\"b\":[null,true,{},0.25],\"c\":false}");
    jtext_str(&j, "d", NULL); /* cJSON refuses a NULL string: so does this */
    cr_assert_eq(j.st, ARB_ENOMEM);
    arb_buf_release(&out);
}

/* Numbers printed with printf are kept by value (struct jtext_nums): printed again, the same. */
Test(jtext, should_print_kept_numbers_as_cjson_does)
{
    struct jtext_nums nums;
    struct arb_buf out;
    struct jtext j;
    cJSON *arr = cJSON_CreateArray();
    char *want;
    int pass, k;

    memset(&nums, 0, sizeof(nums));
    arb_buf_init(&out, 0);
    jtext_init(&j, &out);
    j.nums = &nums;
    jtext_open(&j, NULL, '[');
    for (pass = 0; pass < 3; pass++) {
        for (k = 1; k <= 60; k++) {
            double d = (double)(k % 7) / (double)(k % 11 + 1) + (pass == 2 ? k * 1e-3 : 0.0);

            jtext_num(&j, NULL, d);
            cr_assert(cJSON_AddItemToArray(arr, cJSON_CreateNumber(d)));
        }
    }
    jtext_close(&j, ']');
    want = cJSON_PrintUnformatted(arr);
    cr_assert_eq(j.st, ARB_OK);
    cr_assert_str_eq(out.ptr, want);
    arb_buf_release(&out);
    cJSON_free(want);
    cJSON_Delete(arr);
}

/* arb_json_plain8 (json.h) against the byte-by-byte rule, on words mixing every kind of byte. */
Test(jtext, should_find_plain_words_as_byte_by_byte)
{
    static const unsigned char kinds[] = {0x00, 0x01, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b,
                                          0x5c, 0x5d, 0x7f, 0x80, 0xc3, 0xff, 'a',  'Z'};
    uint64_t s = 7;
    size_t i, k, n, want, want_ascii;
    char buf[24];

    for (i = 0; i < 200000; i++) {
        uint64_t r = next(&s);

        n = (size_t)(r % 24);
        for (k = 0; k < n; k++)
            buf[k] = (char)(next(&s) % 4 ? 'a' + (char)(k % 26) : kinds[next(&s) % sizeof(kinds)]);
        for (want = 0; want < n; want++) {
            unsigned char c = (unsigned char)buf[want];

            if (c < 0x20 || c == '"' || c == '\\')
                break;
        }
        for (want_ascii = 0; want_ascii < n; want_ascii++) {
            unsigned char c = (unsigned char)buf[want_ascii];

            if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80)
                break;
        }
        cr_assert_eq(arb_json_plain8(buf, n, 0), want / 8 * 8);
        cr_assert_eq(arb_json_plain8(buf, n, 1), want_ascii / 8 * 8);
    }
}
