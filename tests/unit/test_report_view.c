/*
 * test_report_view.c - cmp_view_read (src/report/view.c) against what cJSON
 * makes of the same text, read the way the report used to read its tree
 * (cJSON_GetObjectItemCaseSensitive: the first of repeated keys), on the
 * comparisons a run writes and on thousands of generated ones: repeated
 * keys, escapes, surrogate pairs, numbers of every shape, values of the wrong
 * type, junk members with brackets inside strings.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <criterion/criterion.h>

#include "arbiter/buf.h"
#include "../../src/report/report_int.h"
#include "../common/view_oracle.h"

/* cmp_view_read agrees with cJSON on text (which must be a JSON object). */
static void check_same(const char *text, const char *label)
{
    cJSON *root = cJSON_Parse(text);
    char why[200] = "";

    cr_assert(cJSON_IsObject(root), "%s: not a JSON object: %s", label, text);
    cJSON_Delete(root);
    cr_assert(view_agrees(text, why, sizeof(why)), "%s: %s in %s", label, why, text);
}

Test(report_view, should_read_what_a_run_writes)
{
    check_same("{\"winner\":\"B\",\"status\":\"decided\",\"reasoning\":\"B has the higher "
               "overall rubric score (3.4 vs 1.8).\",\"rubric\":{\"A\":{\"content\":{\"quality\":"
               "1.8},\"structure\":{},\"content_score\":1.8,\"structure_score\":null,"
               "\"overall_score\":1.8},\"B\":{\"content\":{\"quality\":3.4},\"structure\":{},"
               "\"content_score\":3.4,\"structure_score\":null,\"overall_score\":3.4}},"
               "\"output_quality\":{\"A\":{\"score\":1.8,\"strengths\":[],\"weaknesses\":["
               "\"quality\"]},\"B\":{\"score\":3.4,\"strengths\":[],\"weaknesses\":[]}},"
               "\"unresolved\":[]}",
               "a run's");
    check_same("{\"rubric\":{},\"expectation_results\":{\"A\":{\"passed\":1,\"failed\":0,"
               "\"details\":[{\"id\":\"total\",\"text\":\"The total is right\",\"passed\":true},"
               "{\"id\":\"tone\",\"text\":\"Polite\",\"passed\":null,\"method\":\"judge\"}]},"
               "\"B\":{\"details\":[{\"id\":\"total\",\"passed\":false}]}}}",
               "expectations");
}

Test(report_view, should_not_be_fooled_by_what_strings_hold)
{
    /* Quotes, braces, escaped backslashes before a closing quote, a key-like text. */
    check_same("{\"reasoning\":\"say \\\"rubric\\\": {[ \\\\\",\"rubric\":{\"A\":1},"
               "\"output_quality\":\"}}]]\",\"expectation_results\":{\"B\":[1,{\"x\":\"}\"}]}}",
               "strings");
    /* A criterion named like a top-level member, inside the rubric. */
    check_same("{\"rubric\":{\"A\":{\"content\":{\"expectation_results\":4}}},"
               "\"expectation_results\":{\"A\":{\"details\":[]}}}",
               "a criterion's name");
    /* Whitespace everywhere, members missing, numbers and literals skipped. */
    check_same(" { \"winner\" : null , \"x\" : -1.5e3 , \"y\" : true ,\n \"rubric\" : [ ] } ",
               "whitespace");
    check_same("{}", "empty");
    /* An escaped key spells a wanted one. */
    check_same("{\"rub\\u0072ic\":{\"A\":{\"overall_score\":2}}}", "an escaped key");
    /* A repeated key: the first counts. */
    check_same("{\"rubric\":{\"A\":{\"overall_score\":2,\"overall_score\":3}},"
               "\"rubric\":{\"B\":{\"overall_score\":4}}}",
               "repeated keys");
}

Test(report_view, should_refuse_what_is_not_json)
{
    struct cmp_view v;
    /* (A skipped member is only delimited, not checked: only what is read must be JSON.) */
    const char *bad[] = {"",
                         "[]",
                         "{",
                         "{\"rubric\":{\"A\":",
                         "{\"rubric\" 1}",
                         "{\"rubric\":{\"A\":{\"content\":{\"x\":1,}}}}",
                         "{\"rubric\":{\"A\":{\"content\":{\"\\q\":1}}}}",
                         "{\"rubric\":{\"A\":{\"content\":{\"\\ud800\":1}}}}",
                         "{\"a\":1 \"b\":2}",
                         "{\"a\":[1,2}"};

    cmp_view_init(&v);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_assert_eq(cmp_view_read(&v, bad[i]), ARB_EPARSE, "accepted: %s", bad[i]);
    cmp_view_release(&v);
}

/* ---- generated comparisons ---- */

struct gen {
    uint64_t s;
    struct arb_buf b;
};

static unsigned pick(struct gen *g, unsigned n)
{
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(g->s >> 33) % n;
}

static void put(struct gen *g, const char *s)
{
    cr_assert_eq(arb_buf_adds(&g->b, s), ARB_OK);
}

static void gen_string(struct gen *g, const char *const *pool, unsigned n)
{
    static const char *const extra[] = {
        "x", "caf\\u00e9", "\\ud83d\\ude00", "a\\\"b", "{[\\\\]}", "\\n\\t", "", "\\u0041B"};

    put(g, "\"");
    put(g, pick(g, 4) ? pool[pick(g, n)] : extra[pick(g, 8)]);
    put(g, "\"");
}

static void gen_number(struct gen *g)
{
    static const char *const nums[] = {"0",
                                       "-0",
                                       "1.8",
                                       "3.4",
                                       "5",
                                       "0.1",
                                       "1e3",
                                       "-2.5E-2",
                                       "123456789012345678",
                                       "3.3333333333333335",
                                       "4.000000000000001",
                                       "1E+2",
                                       "0.5"};

    put(g, nums[pick(g, 13)]);
}

static void gen_value(struct gen *g, int depth);

static void gen_junk(struct gen *g, int depth)
{
    static const char *const keys[] = {"winner", "reasoning", "x", "details", "passed"};

    switch (depth > 2 ? pick(g, 4) : pick(g, 6)) {
    case 0:
        gen_number(g);
        break;
    case 1:
        put(g, pick(g, 3) ? (pick(g, 2) ? "true" : "false") : "null");
        break;
    case 2:
    case 3:
        gen_string(g, keys, 5);
        break;
    case 4:
        put(g, "[");
        for (unsigned i = 0, n = pick(g, 3); i < n; i++) {
            if (i)
                put(g, ",");
            gen_value(g, depth + 1);
        }
        put(g, "]");
        break;
    default:
        put(g, "{");
        for (unsigned i = 0, n = pick(g, 3); i < n; i++) {
            if (i)
                put(g, ", ");
            gen_string(g, keys, 5);
            put(g, ":");
            gen_value(g, depth + 1);
        }
        put(g, "}");
    }
}

static void gen_value(struct gen *g, int depth)
{
    gen_junk(g, depth);
}

/* An object whose members come from keys, each value from fn (or junk), some repeated. */
static void gen_object(struct gen *g, const char *const *keys, unsigned n_keys,
                       void (*fn)(struct gen *g, const char *key), int depth)
{
    unsigned n = pick(g, n_keys + 3);

    if (!pick(g, 12)) { /* sometimes not an object at all */
        gen_junk(g, depth + 1);
        return;
    }
    put(g, pick(g, 2) ? "{" : "{ ");
    for (unsigned i = 0; i < n; i++) {
        const char *k = keys[pick(g, n_keys)];

        if (i)
            put(g, pick(g, 2) ? "," : ",\n ");
        if (!pick(g, 6)) {
            put(g, "\"other\":");
            gen_junk(g, depth + 1);
            continue;
        }
        put(g, "\"");
        put(g, k);
        put(g, "\": ");
        if (fn && pick(g, 8))
            fn(g, k);
        else
            gen_junk(g, depth + 1);
    }
    put(g, "}");
}

static void gen_crit_values(struct gen *g, const char *key)
{
    static const char *const names[] = {"quality", "clarity", "tone", "c\\u00e9"};
    unsigned n = pick(g, 4);

    (void)key;
    put(g, "{");
    for (unsigned i = 0; i < n; i++) {
        if (i)
            put(g, ",");
        gen_string(g, names, 4);
        put(g, ":");
        if (pick(g, 4))
            gen_number(g);
        else
            gen_junk(g, 3);
    }
    put(g, "}");
}

static void gen_side_member(struct gen *g, const char *key)
{
    if (strcmp(key, "content") == 0 || strcmp(key, "structure") == 0)
        gen_crit_values(g, key);
    else if (pick(g, 4))
        gen_number(g);
    else
        gen_junk(g, 3);
}

static void gen_rubric_side(struct gen *g, const char *key)
{
    static const char *const keys[] = {"content", "structure", "content_score", "structure_score",
                                       "overall_score"};

    (void)key;
    gen_object(g, keys, 5, gen_side_member, 2);
}

static void gen_detail(struct gen *g)
{
    static const char *const ids[] = {"total", "tone", "e1"};
    unsigned n = pick(g, 5);

    if (!pick(g, 10)) {
        gen_junk(g, 3);
        return;
    }
    put(g, "{");
    for (unsigned i = 0; i < n; i++) {
        unsigned k = pick(g, 4);

        if (i)
            put(g, ",");
        put(g, k == 0 ? "\"id\":" : k == 1 ? "\"text\":" : k == 2 ? "\"passed\":" : "\"m\":");
        if (k < 2 && pick(g, 5))
            gen_string(g, ids, 3);
        else if (k == 2 && pick(g, 5))
            put(g, pick(g, 2) ? "true" : "false");
        else
            gen_junk(g, 3);
    }
    put(g, "}");
}

static void gen_exp_side(struct gen *g, const char *key)
{
    unsigned n = pick(g, 4), named = !pick(g, 8); /* details an object: cJSON walks its values */

    (void)key;
    put(g, named ? "{\"details\":{" : "{\"details\":[");
    for (unsigned i = 0; i < n; i++) {
        if (i)
            put(g, ",");
        if (named)
            put(g, i % 2 ? "\"k\":" : "\"m\":");
        gen_detail(g);
    }
    put(g, named ? "}}" : "]}");
}

static void gen_dispatch(struct gen *g, const char *key)
{
    static const char *const sides[] = {"A", "B"};

    if (strcmp(key, "rubric") == 0)
        gen_object(g, sides, 2, gen_rubric_side, 1);
    else if (strcmp(key, "expectation_results") == 0)
        gen_object(g, sides, 2, gen_exp_side, 1);
    else if (strcmp(key, "content") == 0 || strcmp(key, "structure") == 0)
        gen_crit_values(g, key);
    else
        gen_junk(g, 2);
}

Test(report_view, should_agree_with_cjson_on_generated_comparisons)
{
    static const char *const keys[] = {"rubric", "expectation_results", "winner", "reasoning"};
    struct gen g = {20261122, {0}};
    char label[32];
    int checked = 0;

    arb_buf_init(&g.b, 0);
    for (int i = 0; i < 5000; i++) {
        cJSON *ok;

        arb_buf_reset(&g.b);
        put(&g, "{");
        for (unsigned k = 0, n = 1 + pick(&g, 5); k < n; k++) {
            const char *key = keys[pick(&g, 4)];

            if (k)
                put(&g, ",");
            put(&g, "\"");
            put(&g, key);
            put(&g, "\":");
            if (strcmp(key, "rubric") == 0 || strcmp(key, "expectation_results") == 0)
                gen_dispatch(&g, key);
            else
                gen_junk(&g, 1);
        }
        put(&g, "}");
        ok = cJSON_Parse(g.b.ptr);
        cr_assert_not_null(ok, "the generator made text that is not JSON: %s", g.b.ptr);
        cJSON_Delete(ok);
        snprintf(label, sizeof(label), "generated #%d", i);
        check_same(g.b.ptr, label);
        checked++;
    }
    cr_assert_eq(checked, 5000);
    arb_buf_release(&g.b);
}

/* Every number the view reads is what strtod reads, whichever path it takes. */
Test(report_view, should_read_numbers_exactly_as_strtod)
{
    struct cmp_view v;
    struct gen g = {7, {0}};
    char num[64], text[160];
    int mismatches = 0;

    cmp_view_init(&v);
    for (int i = 0; i < 200000; i++) {
        unsigned n = 1 + pick(&g, 19), dot = pick(&g, n + 1), len = 0;

        if (pick(&g, 2))
            num[len++] = '-';
        for (unsigned k = 0; k < n; k++) {
            if (k == dot && k > 0)
                num[len++] = '.';
            num[len++] =
                (char)((k == 0 && n > 1 && dot != 1 ? 1 + pick(&g, 9) : pick(&g, 10)) + '0');
        }
        if (!pick(&g, 8))
            len += (unsigned)snprintf(num + len, sizeof(num) - len, "e%d", (int)pick(&g, 40) - 20);
        num[len] = '\0';
        snprintf(text, sizeof(text), "{\"rubric\":{\"A\":{\"overall_score\":%s}}}", num);
        cr_assert_eq(cmp_view_read(&v, text), ARB_OK, "%s", text);
        if (!v.side[0].score_is_number[2] || v.side[0].score[2] != strtod(num, NULL)) {
            cr_log_error("%s read as %.17g, strtod %.17g", num, v.side[0].score[2],
                         strtod(num, NULL));
            mismatches++;
        }
    }
    cr_assert_eq(mismatches, 0);
    cmp_view_release(&v);
}
