/*
 * One output shared by the checks run on it (compare.h, struct arb_observed): a run parses an
 * output once for all its JSON operators (json_match, json_valid, extract's JSON pointer,
 * schema, subset, canonical, trajectories, and the children of an aggregate).  Every record
 * must be the one the check writes from its own parse (arb_check_run), byte for byte, for
 * JSON, malformed JSON, repeated keys, U+0000, invalid UTF-8 and text that is not JSON alike,
 * whatever order the checks run in.
 */
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/compare.h"

static const char *const checks[] = {
    "{\"op\": \"json_match\", \"keys\": [\"id\", \"total\"]}",
    "{\"op\": \"json_match\"}",
    "{\"op\": \"name\", \"expected\": \"Acme\", \"extract\": \"/vendor\"}",
    "{\"op\": \"exact\", \"expected\": \"x\", \"extract\": \"/items/0\"}",
    "{\"op\": \"json_valid\"}",
    "{\"op\": \"json_valid\", \"not\": true}",
    "{\"op\": \"json_subset\", \"expected\": {\"id\": \"INV-1\"}}",
    "{\"op\": \"json_canonical\"}",
    "{\"op\": \"json_schema\", \"expected\": {\"type\": \"object\", \"required\": [\"id\"]}}",
    "{\"op\": \"trajectory_exact\", \"expected\": [{\"name\": \"a\"}]}",
    "{\"op\": \"all\", \"checks\": [{\"op\": \"json_valid\"}, {\"op\": \"json_match\", \"keys\": "
    "[\"id\"]}, {\"op\": \"contains\", \"expected\": \"INV\", \"extract\": \"/id\"}]}",
    "{\"op\": \"regex\", \"expected\": \"INV-\\\\d+\"}",
    "{\"op\": \"icontains\", \"expected\": \"\\\"total\\\"\"}",
};

/* What the checks read: JSON, malformed JSON, repeats, U+0000, bad UTF-8, a BOM, prose. */
static const char *const outputs[] = {
    "{\"id\": \"INV-1\", \"vendor\": \"ACME Corporation\", \"total\": 1.5}",
    "Sure: {\"id\": \"INV-1\", \"vendor\": \"Acme\", \"total\": 0.5}",
    "{\"id\": \"INV-1\", \"vendor\": \"Acme\", \"total\": 0.5",
    "{\"id\": \"INV-0\", \"id\": \"INV-1\", \"vendor\": {\"a\": 1, \"a\": 2}, \"total\": 1.5}",
    "{\"id\": \"IN\\u0000V\", \"vendor\": \"Ac\\u0000me\", \"total\": 1e400}",
    "{\"id\": \"INV-1\", \"vendor\": \"Acme \xff\xfe\", \"total\": 1}",
    "\xef\xbb\xbf{\"id\": \"INV-1\", \"items\": [\"x\"], \"total\": 2}",
    "[{\"name\": \"a\"}, {\"name\": \"b\"}]",
    "42",
    "",
};

#define N_CHECKS  (sizeof(checks) / sizeof(checks[0]))
#define N_OUTPUTS (sizeof(outputs) / sizeof(outputs[0]))

static struct arb_check *compile(const char *text)
{
    cJSON *cfg = cJSON_Parse(text);
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};

    cr_assert(cfg != NULL, "%s", text);
    cr_assert_eq(arb_check_compile(cfg, NULL, &c, &err), ARB_OK, "%s: %s", text, err.msg);
    cJSON_Delete(cfg);
    return c;
}

/* The record of check c on text, each way: alone, and through the shared o. */
static void assert_same_record(struct arb_check *c, struct arb_observed *o, const char *text,
                               const cJSON *expected, const char *what)
{
    struct arb_result alone, shared;
    struct arb_buf a, b;
    struct arb_err e1 = {{0}}, e2 = {{0}};
    size_t len = strlen(text);

    arb_result_init(&alone);
    arb_result_init(&shared);
    arb_buf_init(&a, 0);
    arb_buf_init(&b, 0);
    cr_assert_eq(arb_check_run(c, text, len, expected, &alone, &e1), ARB_OK, "%s", e1.msg);
    cr_assert_eq(arb_check_run_on(c, o, expected, &shared, &e2), ARB_OK, "%s", e2.msg);
    cr_assert_eq(arb_result_write_json(&alone, &a), ARB_OK);
    cr_assert_eq(arb_result_write_json(&shared, &b), ARB_OK);
    cr_assert_str_eq(b.ptr, a.ptr, "%s on '%s'", what, text);
    cr_assert_eq(shared.verdict, alone.verdict);
    cr_assert_eq(shared.score, alone.score);
    arb_buf_release(&a);
    arb_buf_release(&b);
    arb_result_release(&alone);
    arb_result_release(&shared);
}

Test(observed, should_give_every_check_the_record_of_its_own_parse)
{
    struct arb_check *c[N_CHECKS];
    struct arb_observed *o = NULL;
    cJSON *expected = cJSON_Parse("{\"id\": \"INV-1\", \"vendor\": \"Acme Corp\", \"total\": 1.5}");
    size_t i, k, pass;

    cr_assert(expected != NULL);
    for (k = 0; k < N_CHECKS; k++)
        c[k] = compile(checks[k]);
    cr_assert_eq(arb_observed_new(&o), ARB_OK);
    /* forwards, then backwards: whichever check parses first, the others read its parse */
    for (pass = 0; pass < 2; pass++) {
        for (i = 0; i < N_OUTPUTS; i++) {
            arb_observed_set(o, outputs[i], strlen(outputs[i]));
            for (k = 0; k < N_CHECKS; k++) {
                size_t at = pass ? N_CHECKS - 1 - k : k;

                assert_same_record(c[at], o, outputs[i], expected, checks[at]);
            }
            /* and again on the same output: nothing derived is spent by a run */
            for (k = 0; k < N_CHECKS; k++)
                assert_same_record(c[k], o, outputs[i], expected, checks[k]);
        }
    }
    arb_observed_free(o);
    for (k = 0; k < N_CHECKS; k++)
        arb_check_free(c[k]);
    cJSON_Delete(expected);
}

/* A text set after another is read as itself: nothing of the first one's parse is kept. */
Test(observed, should_forget_the_last_output_when_set_to_the_next)
{
    struct arb_check *valid = compile("{\"op\": \"json_valid\"}");
    struct arb_check *match = compile("{\"op\": \"json_match\", \"keys\": [\"id\"]}");
    struct arb_observed *o = NULL;
    struct arb_result res;
    struct arb_err err = {{0}};
    cJSON *expected = cJSON_Parse("{\"id\": 1}");
    static const char good[] = "{\"id\": 1}", bad[] = "{\"id\": 1";

    arb_result_init(&res);
    cr_assert_eq(arb_observed_new(&o), ARB_OK);
    arb_observed_set(o, good, strlen(good));
    cr_assert_eq(arb_check_run_on(valid, o, NULL, &res, &err), ARB_OK);
    cr_assert_eq(res.verdict, ARB_PASS);
    arb_observed_set(o, bad, strlen(bad));
    cr_assert_eq(arb_check_run_on(match, o, expected, &res, &err), ARB_OK);
    cr_assert_eq(res.verdict, ARB_FAIL);
    cr_assert(res.n_notes >= 1 && strcmp(res.notes[0], "json_parse_failed") == 0);
    cr_assert_eq(arb_check_run_on(valid, o, NULL, &res, &err), ARB_OK);
    cr_assert_eq(res.verdict, ARB_FAIL);
    arb_observed_set(o, good, strlen(good));
    cr_assert_eq(arb_check_run_on(match, o, expected, &res, &err), ARB_OK);
    cr_assert_eq(res.verdict, ARB_PASS);
    arb_result_release(&res);
    arb_observed_free(o);
    arb_check_free(valid);
    arb_check_free(match);
    cJSON_Delete(expected);
}
