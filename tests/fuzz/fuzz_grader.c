/*
 * fuzz_grader.c - libFuzzer target for a comparison grader's answer
 * (grader_read_answer, internal to src/report/: the custom strategy's
 * parser of what a grader program writes on its standard output).
 *
 * Input: the grader's standard output, read against a case whose runs are
 * "a", "b" and "c"; a good answer's object is freed here, a bad one must
 * leave nothing behind.
 */
#include <stddef.h>
#include <stdint.h>

#include "../../src/report/strategy_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *runs = cJSON_Parse("{\"a\": {}, \"b\": {}, \"c\": {}}"), *out = NULL;
    struct arb_err err = {{0}};

    if (!runs)
        return 0;
    if (grader_read_answer((const char *)data, size, runs, &out, &err) == ARB_OK)
        cJSON_Delete(out);
    cJSON_Delete(runs);
    return 0;
}
