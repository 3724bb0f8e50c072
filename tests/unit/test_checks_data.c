/*
 * Data-driven operator tests: every line of tests/data/checks/ *.jsonl is
 *   {"name": ..., "check": {...}, "observed": ..., "expected": ..., "want": {...}}
 * and the record the library produces must contain "want" (numbers within
 * 1e-9; arrays compared item by item).  A line may instead carry
 * "error": "substring" when compiling or running the check must fail with a
 * message containing it.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "arbiter/compare.h"
#include "arbiter/file.h"
#include "arbiter/json.h"

static int contains_json(const cJSON *want, const cJSON *got, char *why, size_t whylen,
                         const char *at)
{
    const cJSON *w;
    char sub[512];
    int i = 0;

    if (cJSON_IsNumber(want)) {
        if (!cJSON_IsNumber(got) || fabs(want->valuedouble - got->valuedouble) > 1e-9) {
            snprintf(why, whylen, "%s: want %.17g", at, want->valuedouble);
            return 0;
        }
        return 1;
    }
    if (cJSON_IsObject(want)) {
        cJSON_ArrayForEach(w, want)
        {
            snprintf(sub, sizeof(sub), "%s/%s", at, w->string);
            if (!contains_json(w, cJSON_GetObjectItemCaseSensitive(got, w->string), why, whylen,
                               sub))
                return 0;
        }
        return 1;
    }
    if (cJSON_IsArray(want)) {
        const cJSON *g;

        if (!cJSON_IsArray(got) || cJSON_GetArraySize(want) != cJSON_GetArraySize(got)) {
            snprintf(why, whylen, "%s: array sizes differ", at);
            return 0;
        }
        g = got->child;
        cJSON_ArrayForEach(w, want)
        {
            snprintf(sub, sizeof(sub), "%s/%d", at, i++);
            if (!contains_json(w, g, why, whylen, sub))
                return 0;
            g = g->next;
        }
        return 1;
    }
    if (!got || !arb_json_equal(want, got)) {
        snprintf(why, whylen, "%s: differs", at);
        return 0;
    }
    return 1;
}

static const char *data_dir(void)
{
    return "tests/data/checks";
}

/* Run one case; returns 1 when it behaves as the line says. */
static int run_case(const cJSON *tc, char *why, size_t whylen)
{
    const cJSON *cfg = cJSON_GetObjectItemCaseSensitive(tc, "check");
    const cJSON *obs = cJSON_GetObjectItemCaseSensitive(tc, "observed");
    const cJSON *exp = cJSON_GetObjectItemCaseSensitive(tc, "expected");
    const cJSON *want = cJSON_GetObjectItemCaseSensitive(tc, "want");
    const cJSON *want_err = cJSON_GetObjectItemCaseSensitive(tc, "error");
    struct arb_check_opts opts = {.base_dir = "tests/data/checks"};
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};
    struct arb_result r;
    struct arb_buf out;
    cJSON *rec = NULL;
    char *otext = NULL;
    const char *o = "";
    size_t olen = 0;
    enum arb_status st;
    int ok = 0;

    st = arb_check_compile(cfg, &opts, &c, &err);
    arb_result_init(&r);
    arb_buf_init(&out, 0);
    if (!st && obs) {
        if (cJSON_IsString(obs)) {
            o = obs->valuestring;
            olen = strlen(o);
        } else if (arb_jcs_string(obs, &otext, &olen, NULL) == ARB_OK) {
            o = otext;
        }
        st = arb_check_run(c, o, olen, exp, &r, &err);
    }
    if (want_err) {
        if (!st)
            snprintf(why, whylen, "expected an error containing '%s', got none",
                     want_err->valuestring);
        else if (!strstr(err.msg, want_err->valuestring))
            snprintf(why, whylen, "error '%s' lacks '%s'", err.msg, want_err->valuestring);
        else
            ok = 1;
        goto out;
    }
    if (st) {
        snprintf(why, whylen, "unexpected error: %s", err.msg);
        goto out;
    }
    if (arb_result_write_json(&r, &out) ||
        arb_json_parse(out.ptr, out.len, ARB_JSON_ALLOW_NUL, &rec, &err)) {
        snprintf(why, whylen, "record is not valid JSON: %s", out.ptr ? out.ptr : "");
        goto out;
    }
    ok = contains_json(want, rec, why, whylen, "");
    if (!ok) {
        size_t n = strlen(why);

        snprintf(why + n, whylen - n, "; record: %.600s", out.ptr);
    }
out:
    cJSON_Delete(rec);
    free(otext);
    arb_buf_release(&out);
    arb_result_release(&r);
    arb_check_free(c);
    return ok;
}

Test(checks_data, should_match_every_case_in_tests_data_checks)
{
    DIR *d = opendir(data_dir());
    struct dirent *de;
    size_t cases = 0, failures = 0;

    cr_assert_not_null(d, "cannot open %s (run the tests from the repository root)", data_dir());
    while ((de = readdir(d)) != NULL) {
        char path[1024];
        struct arb_buf text;
        struct arb_err err = {{0}};
        size_t line = 0, i = 0;
        size_t n = strlen(de->d_name);

        if (n < 6 || strcmp(de->d_name + n - 6, ".jsonl") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", data_dir(), de->d_name);
        arb_buf_init(&text, 0);
        cr_assert_eq(arb_file_read(path, &text, &err), ARB_OK, "%s", err.msg);
        while (i < text.len) {
            char *nl = memchr(text.ptr + i, '\n', text.len - i);
            size_t end = nl ? (size_t)(nl - text.ptr) : text.len;
            cJSON *tc = NULL;
            char why[2048] = "";

            line++;
            if (end > i && text.ptr[i] != '#') {
                cr_assert_eq(arb_json_parse(text.ptr + i, end - i, ARB_JSON_ALLOW_NUL, &tc, &err),
                             ARB_OK, "%s:%zu: %s", path, line, err.msg);
                cases++;
                if (!run_case(tc, why, sizeof(why))) {
                    const cJSON *name = cJSON_GetObjectItemCaseSensitive(tc, "name");

                    failures++;
                    cr_log_error("%s:%zu (%s): %s", path, line,
                                 cJSON_IsString(name) ? name->valuestring : "?", why);
                }
                cJSON_Delete(tc);
            }
            i = end + 1;
        }
        arb_buf_release(&text);
    }
    closedir(d);
    cr_assert_gt(cases, 100, "only %zu cases found", cases);
    cr_assert_eq(failures, 0, "%zu of %zu cases failed (see the log above)", failures, cases);
}
