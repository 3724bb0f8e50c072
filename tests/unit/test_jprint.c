/*
 * jprint.c writes what cJSON_PrintUnformatted writes: held to the installed cJSON's own output
 * over random trees (every kind of value, every byte a string can hold, nesting, references)
 * and over numbers chosen to sit on each of its paths (integers near 10^15 and 2^53, negative
 * zero, values "%1.15g" loses, tiny and huge exponents, NaN and infinities).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/json.h"

static unsigned rnd(unsigned *seed, unsigned n)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) % n;
}

static void same_as_cjson(const cJSON *v)
{
    char *want = cJSON_PrintUnformatted(v), *got;
    size_t len = 0;

    cr_assert_not_null(want);
    got = arb_json_print_string(v, &len);
    cr_assert_not_null(got);
    cr_assert_str_eq(got, want);
    cr_assert_eq(len, strlen(want));
    free(got);
    cJSON_free(want);
}

static double some_number(unsigned *seed)
{
    static const double fixed[] = {0.0,
                                   -0.0,
                                   1.0,
                                   -1.0,
                                   0.1,
                                   0.5,
                                   1.0 / 3,
                                   2.0 / 3,
                                   1e15,
                                   -1e15,
                                   999999999999999.0,
                                   1e15 + 1,
                                   9007199254740992.0,
                                   9007199254740993.0,
                                   4294967296.0,
                                   2147483647.0,
                                   2147483648.0,
                                   -2147483649.0,
                                   1e-7,
                                   1e-300,
                                   5e-324,
                                   DBL_MIN,
                                   DBL_MAX,
                                   1e21,
                                   123456789012345.6,
                                   0.30000000000000004,
                                   100.0,
                                   1e100,
                                   -7.25};
    double m;

    switch (rnd(seed, 5)) {
    case 0:
        return fixed[rnd(seed, sizeof(fixed) / sizeof(fixed[0]))];
    case 1:
        return (double)((int)rnd(seed, 2000001) - 1000000);
    case 2:
        return ((double)rnd(seed, 1000000) - 500000) / 1000.0;
    case 3:
        m = (double)rnd(seed, 1u << 30) / (double)(1u << 30);
        return ldexp(m, (int)rnd(seed, 2000) - 1000);
    default: {
        uint64_t bits = (uint64_t)rnd(seed, 1u << 30) << 34 ^ (uint64_t)rnd(seed, 1u << 30) << 4 ^
                        rnd(seed, 16);
        double d;

        memcpy(&d, &bits, sizeof(d));
        return isnan(d) ? 1.5 : d;
    }
    }
}

static char *some_string(unsigned *seed)
{
    static const char *const piece[] = {"a",
                                        "Zq",
                                        "\"",
                                        "\\",
                                        "/",
                                        "\b",
                                        "\f",
                                        "\n",
                                        "\r",
                                        "\t",
                                        "\x01",
                                        "\x1f",
                                        "\x7f",
                                        "\xc3\xa9",
                                        "\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80",
                                        "\xff",
                                        " ",
                                        "plain text of a run"};
    unsigned n = rnd(seed, 10) ? rnd(seed, 8) : 30 + rnd(seed, 80), i;
    char *s = calloc(1, (size_t)n * 20 + 1);
    size_t len = 0;

    cr_assert_not_null(s);
    for (i = 0; i < n; i++) {
        const char *p = piece[rnd(seed, sizeof(piece) / sizeof(piece[0]))];

        memcpy(s + len, p, strlen(p));
        len += strlen(p);
    }
    return s;
}

static cJSON *some_value(unsigned *seed, int depth)
{
    unsigned kind = rnd(seed, depth > 4 ? 5 : 8), n, i;
    cJSON *v = NULL;
    char *s;

    switch (kind) {
    case 0:
        return cJSON_CreateNull();
    case 1:
        return cJSON_CreateBool(rnd(seed, 2));
    case 2:
        return cJSON_CreateNumber(some_number(seed));
    case 3:
    case 4:
        s = some_string(seed);
        v = cJSON_CreateString(s);
        free(s);
        return v;
    case 5:
        v = cJSON_CreateArray();
        n = rnd(seed, 5);
        for (i = 0; i < n; i++)
            cJSON_AddItemToArray(v, some_value(seed, depth + 1));
        return v;
    default:
        v = cJSON_CreateObject();
        n = rnd(seed, 6);
        for (i = 0; i < n; i++) {
            s = some_string(seed);
            cJSON_AddItemToObject(v, s, some_value(seed, depth + 1));
            free(s);
        }
        return v;
    }
}

Test(jprint, random_trees_print_as_cjson_prints_them)
{
    unsigned seed = 20261129, i;

    for (i = 0; i < 20000; i++) {
        cJSON *v = some_value(&seed, 0);

        cr_assert_not_null(v);
        same_as_cjson(v);
        cJSON_Delete(v);
    }
}

Test(jprint, every_number_path_prints_as_cjson_prints_it)
{
    unsigned seed = 7, i;
    const double special[] = {NAN, INFINITY, -INFINITY, -0.0, 1e15 - 1, -(1e15 - 1), 1e15};

    for (i = 0; i < sizeof(special) / sizeof(special[0]); i++) {
        cJSON *v = cJSON_CreateNumber(special[i]);

        same_as_cjson(v);
        cJSON_Delete(v);
    }
    for (i = 0; i < 200000; i++) {
        cJSON *v = cJSON_CreateNumber(some_number(&seed));

        same_as_cjson(v);
        cJSON_Delete(v);
    }
}

Test(jprint, every_control_byte_and_references)
{
    char s[2] = {0, 0};
    cJSON *o = cJSON_CreateObject(), *inner = cJSON_CreateObject(), *raw;
    int c;

    for (c = 1; c < 256; c++) {
        s[0] = (char)c;
        cJSON_AddItemToObject(o, s, cJSON_CreateString(s));
    }
    cJSON_AddNumberToObject(inner, "n", 42);
    cJSON_AddItemReferenceToObject(o, "ref", inner);
    raw = cJSON_CreateRaw("{\"already\": [1, 2]}");
    cJSON_AddItemToObject(o, "raw", raw);
    cJSON_AddItemToObject(o, "", cJSON_CreateArray());
    same_as_cjson(o);
    cJSON_Delete(o);
    cJSON_Delete(inner);
}

Test(jprint, what_cjson_cannot_print_is_refused_and_deep_trees_still_print)
{
    cJSON *raw = cJSON_CreateRaw("x"), *root = cJSON_CreateArray(), *at = root;
    struct arb_buf b;
    int i;

    /* A raw item without its text: cJSON prints nothing, and neither does jprint. */
    free(raw->valuestring);
    raw->valuestring = NULL;
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_json_print(raw, &b), ARB_EUSAGE);
    cr_assert_eq(b.len, 0);
    arb_buf_release(&b);
    cJSON_Delete(raw);
    /* Deeper than jprint recurses: cJSON's text, unchanged. */
    for (i = 0; i < CJSON_NESTING_LIMIT + 20; i++) {
        cJSON *next = cJSON_CreateArray();

        cJSON_AddItemToArray(at, next);
        at = next;
    }
    cJSON_AddItemToArray(at, cJSON_CreateNumber(1.5));
    same_as_cjson(root);
    cJSON_Delete(root);
}
