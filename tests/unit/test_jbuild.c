/*
 * jbuild.c builds the tree cJSON builds of checked text: compared node by node with cJSON's
 * own over random texts (every kind of value, escapes, surrogate pairs, numbers strtod must
 * round, repeated keys, white space) and over texts where it must give up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "../../src/util/jbuild.h"
#include "../../src/util/jscan.h"
#include "arbiter/buf.h"

static unsigned rnd(unsigned *seed, unsigned n)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) % n;
}

static void ws(struct arb_buf *b, unsigned *seed)
{
    static const char *const w[] = {"", "", "", " ", "\n", "\t ", "\r\n  "};

    cr_assert_eq(arb_buf_adds(b, w[rnd(seed, 7)]), ARB_OK);
}

static void gen_string(struct arb_buf *b, unsigned *seed)
{
    static const char *const piece[] = {"a",
                                        "Zq",
                                        "\\\"",
                                        "\\\\",
                                        "\\/",
                                        "\\b",
                                        "\\f",
                                        "\\n",
                                        "\\r",
                                        "\\t",
                                        "\\u00e9",
                                        "\\u20AC",
                                        "\\u0041",
                                        "\\uD83D\\uDE00",
                                        "\xc3\xa9",
                                        "\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80",
                                        "\\u007f",
                                        "\\u0800",
                                        "\\uffff",
                                        " ",
                                        "key"};
    unsigned n = rnd(seed, 20) ? rnd(seed, 6) : 40 + rnd(seed, 100), i; /* some past 256 bytes */

    cr_assert_eq(arb_buf_addc(b, '"'), ARB_OK);
    for (i = 0; i < n; i++)
        cr_assert_eq(arb_buf_adds(b, piece[rnd(seed, sizeof(piece) / sizeof(piece[0]))]), ARB_OK);
    cr_assert_eq(arb_buf_addc(b, '"'), ARB_OK);
}

static void gen_number(struct arb_buf *b, unsigned *seed)
{
    static const char *const num[] = {"0",
                                      "-0",
                                      "1",
                                      "-1",
                                      "1.5",
                                      "0.1",
                                      "100",
                                      "2147483647",
                                      "2147483648",
                                      "-2147483648",
                                      "-2147483649",
                                      "123456789012345",
                                      "1234567890123456",
                                      "0.000001",
                                      "3.14159265358979",
                                      "9007199254740993",
                                      "1e5",
                                      "1E-3",
                                      "-2.5e+10",
                                      "1e400",
                                      "0.30000000000000004",
                                      "99999999999999.9",
                                      "4.35",
                                      "1.7976931348623157e308",
                                      "5e-324"};
    char tmp[40];

    if (rnd(seed, 3) == 0) {
        /* a random decimal of up to 17 digits */
        unsigned long long m =
            ((unsigned long long)rnd(seed, 1u << 30) << 24) ^ rnd(seed, 1u << 24);
        unsigned frac = rnd(seed, 8);
        char digits[32];
        int n = snprintf(digits, sizeof(digits), "%llu", m);

        if (frac && (int)frac < n)
            snprintf(tmp, sizeof(tmp), "%s%.*s.%s", rnd(seed, 2) ? "-" : "", n - (int)frac, digits,
                     digits + n - frac);
        else
            snprintf(tmp, sizeof(tmp), "%s", digits);
        cr_assert_eq(arb_buf_adds(b, tmp), ARB_OK);
        return;
    }
    cr_assert_eq(arb_buf_adds(b, num[rnd(seed, sizeof(num) / sizeof(num[0]))]), ARB_OK);
}

static void gen_value(struct arb_buf *b, unsigned *seed, int depth)
{
    unsigned k = rnd(seed, depth > 4 ? 6 : 8), n, i;

    ws(b, seed);
    switch (k) {
    case 0:
        cr_assert_eq(arb_buf_adds(b, "null"), ARB_OK);
        break;
    case 1:
        cr_assert_eq(arb_buf_adds(b, rnd(seed, 2) ? "true" : "false"), ARB_OK);
        break;
    case 2:
    case 3:
        gen_number(b, seed);
        break;
    case 4:
    case 5:
        gen_string(b, seed);
        break;
    case 6:
        n = rnd(seed, 5);
        cr_assert_eq(arb_buf_addc(b, '['), ARB_OK);
        for (i = 0; i < n; i++) {
            if (i)
                cr_assert_eq(arb_buf_addc(b, ','), ARB_OK);
            gen_value(b, seed, depth + 1);
        }
        ws(b, seed);
        cr_assert_eq(arb_buf_addc(b, ']'), ARB_OK);
        break;
    default:
        n = rnd(seed, 5);
        cr_assert_eq(arb_buf_addc(b, '{'), ARB_OK);
        for (i = 0; i < n; i++) {
            if (i)
                cr_assert_eq(arb_buf_addc(b, ','), ARB_OK);
            ws(b, seed);
            gen_string(b, seed);
            ws(b, seed);
            cr_assert_eq(arb_buf_addc(b, ':'), ARB_OK);
            gen_value(b, seed, depth + 1);
        }
        ws(b, seed);
        cr_assert_eq(arb_buf_addc(b, '}'), ARB_OK);
    }
    ws(b, seed);
}

/* Node by node: type, names, strings, both numbers bit for bit, the links of each list. */
static void same_tree(const cJSON *x, const cJSON *y, const char *text)
{
    const cJSON *cx, *cy, *last_x = NULL;

    cr_assert_eq(x->type, y->type, "type in %s", text);
    cr_assert_eq(x->valueint, y->valueint, "valueint in %s", text);
    cr_assert(memcmp(&x->valuedouble, &y->valuedouble, sizeof(double)) == 0,
              "valuedouble %.17g vs %.17g in %s", x->valuedouble, y->valuedouble, text);
    cr_assert_eq(!x->string, !y->string, "name in %s", text);
    if (x->string)
        cr_assert_str_eq(x->string, y->string, "name in %s", text);
    cr_assert_eq(!x->valuestring, !y->valuestring, "string in %s", text);
    if (x->valuestring)
        cr_assert_str_eq(x->valuestring, y->valuestring, "string in %s", text);
    for (cx = x->child, cy = y->child; cx && cy; cx = cx->next, cy = cy->next) {
        if (cx != x->child)
            cr_assert_eq(cx->prev, last_x, "prev link in %s", text);
        last_x = cx;
        same_tree(cx, cy, text);
    }
    cr_assert(!cx && !cy, "child count in %s", text);
    if (x->child) {
        cr_assert_eq(x->child->prev, last_x, "first child's prev in %s", text);
        cr_assert(y->child->prev != NULL);
    }
}

Test(jbuild, should_build_the_tree_cjson_builds)
{
    struct arb_buf b;
    unsigned seed = 12345;
    size_t n, built = 0;

    arb_buf_init(&b, 0);
    for (n = 0; n < 100000; n++) {
        struct arb_jscan_report rep;
        const char *e1 = NULL, *e2 = NULL;
        cJSON *mine, *theirs;

        arb_buf_reset(&b);
        gen_value(&b, &seed, 0);
        cr_assert_eq(arb_jscan_check(b.ptr, b.len, &rep), ARB_OK, "%s: %s", b.ptr, rep.what);
        theirs = cJSON_ParseWithLengthOpts(b.ptr, b.len, &e2, 0);
        cr_assert_not_null(theirs, "%s", b.ptr);
        mine = arb_json_build(b.ptr, b.len, &e1);
        if (mine) {
            built++;
            cr_assert_eq(e1, e2, "end in %s", b.ptr);
            same_tree(mine, theirs, b.ptr);
        }
        cJSON_Delete(mine);
        cJSON_Delete(theirs);
    }
    /* it gives up on an exponent or 16 digits, not on much else */
    cr_assert_gt(built, 50000, "built %zu", built);
    arb_buf_release(&b);
}

Test(jbuild, should_give_up_where_cjson_must_decide)
{
    static const char *const texts[] = {"1e5", "[1,2.5e-3]", "1234567890123456", "\"a\\u0000b\"",
                                        "{\"k\":0.12345678901234567}"};
    cJSON *empty;
    size_t i;

    for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        cr_assert_null(arb_json_build(texts[i], strlen(texts[i]), NULL), "%s", texts[i]);
    empty = arb_json_build("[]", 2, NULL);
    cr_assert_not_null(empty);
    cJSON_Delete(empty);
}
