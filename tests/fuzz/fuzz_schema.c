/*
 * fuzz_schema.c - libFuzzer target for the JSON Schema compiler and
 * validator (arb_schema_compile, arb_schema_validate, arb_schema_errors_write).
 *
 * Input: the first line is the schema, the rest the instance.  The schema is
 * compiled as draft 2020-12 and again as draft 7 (a `$schema` in it wins
 * either way); when the instance parses it is validated twice, with and
 * without an error collector, and the two answers must agree: the fast
 * yes/no path and the full one are the same rules, so a difference is a bug
 * and aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arbiter/json.h"
#include "arbiter/schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void validate(const struct arb_schema *s, const cJSON *instance)
{
    struct arb_schema_errors errs;
    struct arb_buf notes;
    int full, fast;

    arb_schema_errors_init(&errs);
    full = arb_schema_validate(s, instance, &errs);
    fast = arb_schema_validate(s, instance, NULL);
    if ((full == 1) != (fast == 1) && full >= 0 && fast >= 0)
        abort();
    if (full == 1 && errs.total != 0)
        abort();
    arb_buf_init(&notes, (size_t)1 << 20);
    arb_schema_errors_write(&errs, &notes);
    arb_buf_release(&notes);
}

static void compile_and_validate(const cJSON *schema, enum arb_schema_draft draft,
                                 const cJSON *instance)
{
    struct arb_schema_opts opts = {draft, NULL, NULL};
    struct arb_schema *s = NULL;
    struct arb_err err = {{0}};

    if (arb_schema_compile(schema, &opts, &s, &err) != ARB_OK)
        return;
    arb_schema_draft(s);
    if (instance)
        validate(s, instance);
    arb_schema_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t schema_len = nl ? (size_t)(nl - data) : size;
    struct arb_err err = {{0}};
    cJSON *schema = NULL, *instance = NULL;

    if (arb_json_parse((const char *)data, schema_len, 0, &schema, &err) != ARB_OK)
        return 0;
    if (nl && arb_json_parse((const char *)nl + 1, size - schema_len - 1, 0, &instance, &err) !=
                  ARB_OK)
        instance = NULL;
    compile_and_validate(schema, ARB_SCHEMA_DRAFT_2020_12, instance);
    compile_and_validate(schema, ARB_SCHEMA_DRAFT_7, instance);
    cJSON_Delete(instance);
    cJSON_Delete(schema);
    return 0;
}
