/*
 * fuzz_check.c - libFuzzer target for the comparator family: the check
 * parser (arb_check_compile), every operator (arb_check_run) and the result
 * record writer (arb_result_write_json).
 *
 * Input: the first line is the check's JSON, the rest (any bytes, NULs
 * included) is the observed text.  A check that compiles is run on the
 * observed text twice, once without a case expected value and once with the
 * observed text itself as the case's expected value when it parses as JSON,
 * so that operators which take their expected value from the case are
 * reached.  expected_file names resolve from a folder that does not exist.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/compare.h"
#include "arbiter/json.h"
#include "arbiter/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run c on observed and write the record, as `arbiter check` does. */
static void run_once(struct arb_check *c, const char *observed, size_t len,
                     const cJSON *case_expected)
{
    struct arb_result res;
    struct arb_buf out;
    struct arb_err err = {{0}};
    cJSON *tree;

    arb_result_init(&res);
    arb_buf_init(&out, (size_t)64 << 20);
    if (arb_check_run(c, observed, len, case_expected, &res, &err) == ARB_OK) {
        arb_result_write_json(&res, &out);
        tree = arb_result_to_cjson(&res);
        cJSON_Delete(tree);
    }
    arb_buf_release(&out);
    arb_result_release(&res);
}

/* The record of an output the check could not run on (binary, or a directory). */
static void fail_once(const struct arb_check *c)
{
    struct arb_result res;
    struct arb_buf out;

    arb_result_init(&res);
    arb_buf_init(&out, (size_t)64 << 20);
    if (arb_check_fail(c, NULL, "output is binary", &res) == ARB_OK)
        arb_result_write_json(&res, &out);
    arb_buf_release(&out);
    arb_result_release(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t check_len = nl ? (size_t)(nl - data) : size;
    const char *observed = nl ? (const char *)nl + 1 : "";
    size_t observed_len = nl ? size - check_len - 1 : 0;
    struct arb_check_opts opts = {"/nonexistent/arbiter-fuzz", NULL, 1 << 20};
    struct arb_check *c = NULL;
    struct arb_err err = {{0}};
    cJSON *config = NULL, *expected = NULL;
    char *copy;

    if (arb_json_parse((const char *)data, check_len, 0, &config, &err) != ARB_OK)
        return 0;
    if (arb_schema_cache_new(NULL, &opts.schema_cache) != ARB_OK) {
        cJSON_Delete(config);
        return 0;
    }
    if (arb_check_compile(config, &opts, &c, &err) == ARB_OK) {
        arb_check_op(c);
        arb_check_has_expected(c);
        arb_check_file(c);
        arb_check_problem(c);
        fail_once(c);
        /* a copy of exactly observed_len bytes, so ASan sees any read past the end */
        copy = malloc(observed_len ? observed_len : 1);
        if (copy) {
            memcpy(copy, observed, observed_len);
            run_once(c, copy, observed_len, NULL);
            if (arb_json_parse(copy, observed_len, 0, &expected, &err) == ARB_OK) {
                run_once(c, copy, observed_len, expected);
                cJSON_Delete(expected);
            }
            free(copy);
        }
        arb_check_free(c);
    }
    arb_schema_cache_free(opts.schema_cache);
    cJSON_Delete(config);
    return 0;
}
