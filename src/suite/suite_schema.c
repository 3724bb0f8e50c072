/*
 * suite_schema.c - schemas/suite.schema.json embedded as text, so the library
 * never looks for schemas/ at run time.  One literal per line of the file (C11
 * only promises 4095 bytes per literal).  tests/unit/test_suite.c checks that
 * the text equals the file byte for byte; after editing the file, regenerate
 * the literals (each line escaped for C, "\n" kept) and rerun the tests.
 */
#include <stdio.h>
#include <string.h>

#include "arbiter/json.h"
#include "suite_int.h"

static const char *const schema_lines[] = {
    "{\n",
    "  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n",
    "  \"$id\": \"https://arbiter.invalid/schemas/suite.schema.json\",\n",
    "  \"title\": \"Arbiter suite file\",\n",
    "  \"description\": \"DESIGN.md 'The suite file'; checks are validated by arb_check_compile.\",\n",
    "  \"type\": \"object\",\n",
    "  \"required\": [\"cases\"],\n",
    "  \"properties\": {\n",
    "    \"name\": {\"type\": \"string\"},\n",
    "    \"task\": {\"type\": \"string\"},\n",
    "    \"seed\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 9007199254740991},\n",
    "    \"systems\": {\n",
    "      \"type\": \"object\",\n",
    "      \"description\": \"name -> outputs path; 'TIE' is the verdicts' word for a tie, not a name\",\n",
    "      \"propertyNames\": {\"minLength\": 1, \"not\": {\"const\": \"TIE\"}},\n",
    "      \"additionalProperties\": {\"type\": \"string\", \"minLength\": 1}\n",
    "    },\n",
    "    \"redact\": {\"type\": \"array\", \"items\": {\"type\": \"string\", \"minLength\": 1}},\n",
    "    \"fields\": {\"type\": \"object\"},\n",
    "    \"rubric\": {\n",
    "      \"type\": \"object\",\n",
    "      \"properties\": {\n",
    "        \"content\": {\"$ref\": \"#/$defs/criteria\"},\n",
    "        \"structure\": {\"$ref\": \"#/$defs/criteria\"}\n",
    "      },\n",
    "      \"additionalProperties\": false\n",
    "    },\n",
    "    \"expectations\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/expectation\"}},\n",
    "    \"judge\": {\n",
    "      \"type\": \"object\",\n",
    "      \"properties\": {\n",
    "        \"provider\": {\"enum\": [\"openai\", \"anthropic\", \"command\"]},\n",
    "        \"base_url\": {\"type\": \"string\"},\n",
    "        \"model\": {\"type\": \"string\"},\n",
    "        \"api_key_env\": {\"type\": \"string\"},\n",
    "        \"swap\": {\"type\": \"boolean\"},\n",
    "        \"feedback\": {\"type\": \"boolean\", \"description\": \"also ask each response's strengths and weaknesses (default false; compare: true)\"},\n",
    "        \"samples\": {\"type\": \"integer\", \"minimum\": 1},\n",
    "        \"temperature\": {\"type\": \"number\", \"minimum\": 0},\n",
    "        \"concurrency\": {\"type\": \"integer\", \"minimum\": 1},\n",
    "        \"timeout_s\": {\"type\": \"number\", \"exclusiveMinimum\": 0},\n",
    "        \"max_retries\": {\"type\": \"integer\", \"minimum\": 0},\n",
    "        \"command\": {\"type\": [\"string\", \"array\"], \"items\": {\"type\": \"string\"}},\n",
    "        \"cwd\": {\"type\": \"string\"},\n",
    "        \"response_format\": {\"enum\": [\"json_schema\", \"json_schema_loose\", \"json_object\", \"prompt\"]},\n",
    "        \"max_tokens_field\": {\"enum\": [\"max_tokens\", \"max_completion_tokens\"]},\n",
    "        \"max_tokens_cap\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 1000000},\n",
    "        \"extra_body\": {\"type\": \"object\"},\n",
    "        \"headers\": {\"type\": \"object\"},\n",
    "        \"max_tokens\": {\"type\": \"integer\", \"minimum\": 1},\n",
    "        \"seed\": {\"type\": \"integer\"},\n",
    "        \"mode\": {\"enum\": [\"sync\", \"batch\"], \"description\": \"batch: through the provider's batch API (README 'Judge batches')\"},\n",
    "        \"batch_poll_s\": {\"type\": \"number\", \"minimum\": 0.01, \"maximum\": 86400},\n",
    "        \"batch_max_requests\": {\"type\": \"integer\", \"minimum\": 1, \"maximum\": 100000},\n",
    "        \"batch_retry\": {\"enum\": [\"sync\", \"batch\", \"none\"]},\n",
    "        \"price\": {\n",
    "          \"type\": \"object\",\n",
    "          \"description\": \"US dollars per million tokens; cached_input defaults to input\",\n",
    "          \"properties\": {\n",
    "            \"input\": {\"type\": \"number\", \"minimum\": 0},\n",
    "            \"output\": {\"type\": \"number\", \"minimum\": 0},\n",
    "            \"cached_input\": {\"type\": \"number\", \"minimum\": 0}\n",
    "          },\n",
    "          \"required\": [\"input\", \"output\"],\n",
    "          \"additionalProperties\": false\n",
    "        }\n",
    "      },\n",
    "      \"additionalProperties\": false\n",
    "    },\n",
    "    \"policy\": {\n",
    "      \"type\": \"object\",\n",
    "      \"properties\": {\n",
    "        \"tie_epsilon\": {\"type\": \"number\", \"minimum\": 0},\n",
    "        \"position_inconsistent\": {\"enum\": [\"tie\", \"unresolved\"]},\n",
    "        \"decide_by\": {\"enum\": [\"rubric\", \"judge\", \"rubric_then_judge\"]}\n",
    "      },\n",
    "      \"additionalProperties\": false\n",
    "    },\n",
    "    \"max_output_bytes\": {\"type\": \"integer\", \"minimum\": 1},\n",
    "    \"cases\": {\n",
    "      \"type\": [\"array\", \"string\"],\n",
    "      \"items\": {\"$ref\": \"#/$defs/case\"},\n",
    "      \"minLength\": 1\n",
    "    }\n",
    "  },\n",
    "  \"additionalProperties\": false,\n",
    "  \"$defs\": {\n",
    "    \"check\": {\"type\": \"object\"},\n",
    "    \"criteria\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/criterion\"}},\n",
    "    \"criterion\": {\n",
    "      \"type\": \"object\",\n",
    "      \"required\": [\"name\"],\n",
    "      \"properties\": {\n",
    "        \"name\": {\"type\": \"string\", \"minLength\": 1},\n",
    "        \"check\": {\"$ref\": \"#/$defs/check\"},\n",
    "        \"graded\": {\"type\": \"boolean\"},\n",
    "        \"description\": {\"type\": \"string\"},\n",
    "        \"anchors\": {\n",
    "          \"type\": \"object\",\n",
    "          \"description\": \"what a score of 1, 3 and 5 means; the judge is told these\",\n",
    "          \"properties\": {\n",
    "            \"1\": {\"type\": \"string\", \"minLength\": 1},\n",
    "            \"3\": {\"type\": \"string\", \"minLength\": 1},\n",
    "            \"5\": {\"type\": \"string\", \"minLength\": 1}\n",
    "          },\n",
    "          \"minProperties\": 1,\n",
    "          \"additionalProperties\": false\n",
    "        }\n",
    "      },\n",
    "      \"additionalProperties\": false\n",
    "    },\n",
    "    \"expectation\": {\n",
    "      \"type\": \"object\",\n",
    "      \"required\": [\"id\", \"text\"],\n",
    "      \"properties\": {\n",
    "        \"id\": {\"type\": \"string\", \"minLength\": 1},\n",
    "        \"text\": {\"type\": \"string\"},\n",
    "        \"description\": {\"type\": \"string\"},\n",
    "        \"check\": {\"$ref\": \"#/$defs/check\"}\n",
    "      },\n",
    "      \"additionalProperties\": false\n",
    "    },\n",
    "    \"case\": {\n",
    "      \"type\": \"object\",\n",
    "      \"required\": [\"id\"],\n",
    "      \"properties\": {\n",
    "        \"id\": {\"type\": \"string\", \"minLength\": 1},\n",
    "        \"prompt\": {\"type\": \"string\"},\n",
    "        \"expected\": true,\n",
    "        \"expectations\": {\"type\": \"array\", \"items\": {\"$ref\": \"#/$defs/expectation\"}}\n",
    "      },\n",
    "      \"additionalProperties\": false\n",
    "    }\n",
    "  }\n",
    "}\n",
    NULL,
};

enum arb_status suite_schema_text(struct arb_buf *out)
{
    enum arb_status st = ARB_OK;
    size_t i;

    for (i = 0; schema_lines[i] && !st; i++)
        st = arb_buf_adds(out, schema_lines[i]);
    return st;
}

enum arb_status suite_schema_load(const char *start, cJSON **doc, struct arb_schema **out,
                                  struct arb_err *err)
{
    struct arb_buf text;
    struct arb_err perr = {{0}};
    cJSON *root = NULL, *wrap = NULL, *defs;
    enum arb_status st;

    *doc = NULL;
    *out = NULL;
    arb_buf_init(&text, 0);
    st = suite_schema_text(&text);
    if (st) {
        arb_buf_release(&text);
        return arb_err_set(err, st, "out of memory");
    }
    st = arb_json_parse(text.ptr, text.len, 0, &root, &perr);
    arb_buf_release(&text);
    if (st)
        return arb_err_set(err, st == ARB_ENOMEM ? st : ARB_EINTERNAL, "embedded suite schema: %s",
                           perr.msg);
    if (!start[0]) {
        st = arb_schema_compile(root, NULL, out, &perr);
    } else {
        /* A schema for one part: {"$defs": the suite's, "$ref": "#<start>"}. */
        char ref[64];

        snprintf(ref, sizeof(ref), "#%s", start);
        wrap = cJSON_CreateObject();
        defs = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(root, "$defs"), 1);
        if (!wrap || !defs || !cJSON_AddItemToObject(wrap, "$defs", defs)) {
            cJSON_Delete(defs);
            st = ARB_ENOMEM;
        } else if (!cJSON_AddStringToObject(wrap, "$ref", ref)) {
            st = ARB_ENOMEM;
        } else {
            st = arb_schema_compile(wrap, NULL, out, &perr);
        }
        cJSON_Delete(wrap);
    }
    if (st) {
        cJSON_Delete(root);
        return arb_err_set(err, st == ARB_ENOMEM ? st : ARB_EINTERNAL, "embedded suite schema: %s",
                           perr.msg[0] ? perr.msg : "out of memory");
    }
    *doc = root;
    return ARB_OK;
}
