/*
 * Comparator behaviours the JSONL data cannot express: invalid UTF-8, huge
 * inputs, record output for hostile text, reuse of one compiled check.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/compare.h"
#include "arbiter/json.h"

static struct arb_check *compile(const char *json)
{
    cJSON *cfg = cJSON_Parse(json);
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};

    cr_assert_not_null(cfg, "bad test JSON: %s", json);
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK, "%s", err.msg);
    cJSON_Delete(cfg);
    return c;
}

static int has_note(const struct arb_result *r, const char *prefix)
{
    size_t i;

    for (i = 0; i < r->n_notes; i++)
        if (strncmp(r->notes[i], prefix, strlen(prefix)) == 0)
            return 1;
    return 0;
}

/* Run and return the record as parsed JSON (the record must be valid JSON). */
static cJSON *record(struct arb_check *c, const char *obs, size_t len, struct arb_result *r)
{
    struct arb_err err = {{0}};
    struct arb_buf out;
    cJSON *rec = NULL;

    cr_assert_eq(arb_check_run(c, obs, len, NULL, r, &err), ARB_OK, "%s", err.msg);
    arb_buf_init(&out, 0);
    cr_assert_eq(arb_result_write_json(r, &out), ARB_OK);
    cr_assert_eq(arb_json_parse(out.ptr, out.len, 0, &rec, &err), ARB_OK,
                 "record is not valid JSON (%s): %s", err.msg, out.ptr);
    arb_buf_release(&out);
    return rec;
}

Test(compare, should_note_invalid_utf8_and_still_write_valid_json)
{
    struct arb_check *c = compile("{\"op\":\"contains\",\"expected\":\"ab\"}");
    struct arb_result r;
    const char bad[] = "xx\xff\xfe ab \xc0\x80";
    cJSON *rec;

    arb_result_init(&r);
    rec = record(c, bad, sizeof(bad) - 1, &r);
    cr_assert(has_note(&r, "invalid_utf8"));
    cr_assert_eq(r.verdict, ARB_PASS, "byte operators still work on invalid text");
    cr_assert_str_eq(cJSON_GetObjectItem(rec, "observed")->valuestring,
                     "xx\xef\xbf\xbd\xef\xbf\xbd ab \xef\xbf\xbd\xef\xbf\xbd");
    cJSON_Delete(rec);
    arb_result_release(&r);
    arb_check_free(c);
}

Test(compare, should_fail_regex_on_invalid_utf8_with_a_note)
{
    struct arb_check *c = compile("{\"op\":\"regex\",\"expected\":\"a\"}");
    struct arb_result r;
    cJSON *rec;

    arb_result_init(&r);
    rec = record(c, "a\xe2\x28\xa1", 4, &r);
    cr_assert(has_note(&r, "invalid_utf8"));
    cr_assert_eq(r.verdict, ARB_FAIL);
    cJSON_Delete(rec);
    arb_result_release(&r);
    arb_check_free(c);
}

Test(compare, should_measure_levenshtein_on_replacement_characters)
{
    struct arb_check *c = compile("{\"op\":\"levenshtein\",\"expected\":\"ab\",\"threshold\":0.1}");
    struct arb_result r;
    struct arb_err err = {{0}};

    arb_result_init(&r);
    cr_assert_eq(arb_check_run(c, "a\xff", 2, NULL, &r, &err), ARB_OK);
    cr_assert_float_eq(r.score, 0.5, 1e-12);
    arb_result_release(&r);
    arb_check_free(c);
}

Test(compare, should_handle_a_10_megabyte_output)
{
    size_t n = 10u << 20, i;
    char *big = malloc(n + 1);
    struct arb_result r;
    struct arb_err err = {{0}};
    struct arb_check *checks[5];
    const char *cfgs[] = {
        "{\"op\":\"contains\",\"expected\":\"needle\"}",
        "{\"op\":\"regex\",\"expected\":\"needle$\"}",
        "{\"op\":\"normalized_exact\",\"expected\":\"x\"}",
        "{\"op\":\"icontains\",\"expected\":\"NEEDLE\"}",
        "{\"op\":\"levenshtein\",\"expected\":\"abcdefghijklmnopqrstuvwxyz0123456789\"}",
    };

    cr_assert_not_null(big);
    for (i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    memcpy(big + n - 6, "needle", 6);
    big[n] = '\0';
    arb_result_init(&r);
    for (i = 0; i < 5; i++) {
        checks[i] = compile(cfgs[i]);
        cr_assert_eq(arb_check_run(checks[i], big, n, NULL, &r, &err), ARB_OK, "%s", err.msg);
        if (i < 2 || i == 3)
            cr_assert_eq(r.verdict, ARB_PASS, "%s", cfgs[i]);
        else
            cr_assert_eq(r.verdict, ARB_FAIL, "%s", cfgs[i]);
        arb_check_free(checks[i]);
    }
    arb_result_release(&r);
    free(big);
}

Test(compare, should_refuse_quadratic_distance_on_huge_inputs_with_a_note)
{
    size_t n = 1u << 20, i;
    char *a = malloc(n + 1);
    cJSON *cfg = cJSON_CreateObject();
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};
    struct arb_result r;

    cr_assert_not_null(a);
    for (i = 0; i < n; i++)
        a[i] = (char)('a' + (i * 7) % 26);
    a[n] = '\0';
    cJSON_AddStringToObject(cfg, "op", "levenshtein");
    cJSON_AddStringToObject(cfg, "expected", a);
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK);
    for (i = 0; i < n; i++)
        a[i] = (char)('z' - (i * 3) % 26);
    arb_result_init(&r);
    cr_assert_eq(arb_check_run(c, a, n, NULL, &r, &err), ARB_OK);
    cr_assert(has_note(&r, "input_too_large"));
    cr_assert_eq(r.verdict, ARB_FAIL);
    arb_result_release(&r);
    arb_check_free(c);
    cJSON_Delete(cfg);
    free(a);
}

Test(compare, should_refuse_deep_nesting_as_a_parse_note)
{
    size_t depth = 10000, i;
    char *s = malloc(2 * depth + 1);
    struct arb_check *c = compile("{\"op\":\"json_valid\"}");
    struct arb_result r;
    cJSON *rec;

    for (i = 0; i < depth; i++) {
        s[i] = '[';
        s[2 * depth - 1 - i] = ']';
    }
    s[2 * depth] = '\0';
    arb_result_init(&r);
    rec = record(c, s, 2 * depth, &r);
    cr_assert_eq(r.verdict, ARB_FAIL);
    cr_assert(has_note(&r, "json_parse_failed"));
    cJSON_Delete(rec);
    arb_result_release(&r);
    arb_check_free(c);
    free(s);
}

Test(compare, should_give_the_same_record_when_a_check_is_reused)
{
    struct arb_check *c = compile("{\"op\":\"regex\",\"expected\":\"(\\\\d+)-(\\\\d+)\"}");
    struct arb_result r;
    struct arb_err err = {{0}};
    int i;

    arb_result_init(&r);
    for (i = 0; i < 1000; i++) {
        cr_assert_eq(arb_check_run(c, i % 2 ? "12-34" : "nope", i % 2 ? 5 : 4, NULL, &r, &err),
                     ARB_OK);
        cr_assert_eq(r.verdict, i % 2 ? ARB_PASS : ARB_FAIL);
    }
    arb_result_release(&r);
    arb_check_free(c);
}

Test(compare, should_escape_control_characters_in_the_record)
{
    struct arb_check *c = compile("{\"op\":\"exact\",\"expected\":\"a\\u0001\\\"\\\\\"}");
    struct arb_result r;
    cJSON *rec;

    arb_result_init(&r);
    rec = record(c, "a\x01\"\\", 4, &r);
    cr_assert_eq(r.verdict, ARB_PASS);
    cr_assert_str_eq(cJSON_GetObjectItem(rec, "observed")->valuestring, "a\x01\"\\");
    cJSON_Delete(rec);
    arb_result_release(&r);
    arb_check_free(c);
}

Test(compare, should_list_every_operator_once)
{
    size_t i, j;
    const char *a, *b;

    for (i = 0; (a = arb_operator_name(i)) != NULL; i++)
        for (j = i + 1; (b = arb_operator_name(j)) != NULL; j++)
            cr_assert_str_neq(a, b);
    cr_assert_geq(i, 25);
}

Test(compare, should_report_problem_of_invalid_pattern_at_compile_time)
{
    struct arb_check *c = compile("{\"op\":\"regex\",\"expected\":\"a{2,1}\"}");
    struct arb_check *ok = compile("{\"op\":\"regex\",\"expected\":\"a\"}");

    cr_assert_not_null(arb_check_problem(c));
    cr_assert_null(arb_check_problem(ok));
    arb_check_free(c);
    arb_check_free(ok);
}

/* Issue 15: Python's re matches ^(a|b)*$ on 200,000 a's; PCRE2 stops at its depth limit. */
Test(compare, should_leave_a_regex_depth_limit_unresolved)
{
    struct arb_check *c = compile("{\"op\": \"regex\", \"expected\": \"^(a|b)*$\"}");
    struct arb_result r;
    size_t n = 200000;
    char *obs = malloc(n);

    cr_assert_not_null(obs);
    memset(obs, 'a', n);
    arb_result_init(&r);
    cr_assert_eq(arb_check_run(c, obs, n, NULL, &r, NULL), ARB_OK);
    cr_assert_eq(r.verdict, ARB_UNRESOLVED);
    cr_assert(has_note(&r, "regex_depth_limit: PCRE2's depth limit (100000)"));
    arb_result_release(&r);
    arb_check_free(c);
    free(obs);
}

/* A memo reused across records and checks writes each record's own bytes, kept or not. */
Test(compare, should_write_the_same_record_with_a_memo)
{
    static const char *const cfgs[] = {"{\"op\":\"contains\",\"expected\":\"ab\\\"c\"}",
                                       "{\"op\":\"json_match\",\"expected\":{\"k\":[1,2.5,\"x\"]}}",
                                       "{\"op\":\"regex\",\"expected\":\"a+\",\"extract\":\"/k\"}",
                                       "{\"op\":\"numeric\",\"expected\":3.25}",
                                       "{\"op\":\"json_valid\"}"};
    const char text[] = "{\"k\": \"ab\\\"c \xff aaa\", \"n\": 3.25}";
    const char other[] = "{\"k\": \"ab\\\"c \xff aaa\", \"n\": 3.25}";
    struct arb_record_memo m;
    struct arb_result r;
    struct arb_buf plain, memo;
    struct arb_err err = {{0}};
    struct arb_check *c[sizeof(cfgs) / sizeof(cfgs[0])];
    size_t i, round;

    /* the checks live as long as the memo keeps their expected values (as a run's do) */
    for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
        c[i] = compile(cfgs[i]);
    arb_result_init(&r);
    arb_buf_init(&plain, 0);
    arb_buf_init(&memo, 0);
    arb_record_memo_init(&m);
    /* the first two held for good, the others kept from one reset to the next */
    arb_record_memo_hold(&m, arb_check_expected(c[0]));
    arb_record_memo_hold(&m, arb_check_expected(c[1]));
    for (round = 0; round < 6; round++) {
        if (round % 2 == 0) {
            arb_record_memo_reset(&m);
            cr_assert_eq(m.n_slots, 2);
            arb_record_memo_keep(&m, text, sizeof(text) - 1);
        }
        for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
            /* the kept text, and an equal text elsewhere that the memo must not take for it */
            const char *obs = round % 3 == 1 ? other : text;

            cr_assert_eq(arb_check_run(c[i], obs, sizeof(text) - 1, NULL, &r, &err), ARB_OK, "%s",
                         err.msg);
            arb_buf_reset(&plain);
            arb_buf_reset(&memo);
            cr_assert_eq(arb_result_write_json(&r, &plain), ARB_OK);
            cr_assert_eq(arb_result_write_json_memo(&r, &memo, &m), ARB_OK);
            cr_assert_str_eq(memo.ptr, plain.ptr);
        }
    }
    arb_record_memo_release(&m);
    arb_buf_release(&plain);
    arb_buf_release(&memo);
    arb_result_release(&r);
    for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
        arb_check_free(c[i]);
}

/* name and icontains keep what they derive from their own expected: a reused check writes the
 * records a fresh one does, and a case's expected (not the check's) is read each time. */
Test(compare, should_write_the_same_records_from_a_reused_name_or_icontains_check)
{
    static const char *const cfgs[] = {"{\"op\":\"name\",\"expected\":\"Acme, Inc.\"}",
                                       "{\"op\":\"icontains\",\"expected\":\"ÄBC\"}",
                                       "{\"op\":\"name\",\"expected\":\"\"}", "{\"op\":\"name\"}",
                                       "{\"op\":\"icontains\"}"};
    static const char *const texts[] = {"ACME Incorporated", "xx äbc yy", "", "Acme Corp."};
    cJSON *case_expected = cJSON_CreateString("acme corp");
    struct arb_result r;
    struct arb_buf fresh, reused;
    struct arb_err err = {{0}};
    size_t i, k;

    arb_result_init(&r);
    arb_buf_init(&fresh, 0);
    arb_buf_init(&reused, 0);
    for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++) {
        struct arb_check *kept = compile(cfgs[i]);

        for (k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
            struct arb_check *c = compile(cfgs[i]);
            size_t n = strlen(texts[k]);

            arb_buf_reset(&fresh);
            arb_buf_reset(&reused);
            cr_assert_eq(arb_check_run(c, texts[k], n, case_expected, &r, &err), ARB_OK);
            cr_assert_eq(arb_result_write_json(&r, &fresh), ARB_OK);
            cr_assert_eq(arb_check_run(kept, texts[k], n, case_expected, &r, &err), ARB_OK);
            cr_assert_eq(arb_result_write_json(&r, &reused), ARB_OK);
            cr_assert_str_eq(reused.ptr, fresh.ptr);
            arb_check_free(c);
        }
        arb_check_free(kept);
    }
    cJSON_Delete(case_expected);
    arb_buf_release(&fresh);
    arb_buf_release(&reused);
    arb_result_release(&r);
}
