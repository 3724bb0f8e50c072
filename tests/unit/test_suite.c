/*
 * Unit tests for suite loading (include/arbiter/suite.h): a full suite loads
 * with its counts and defaults; every error names file:line:col, the JSON
 * pointer and what was expected; cases and outputs stream from JSONL files
 * (BOM, CRLF, blank lines) and directories (sub-directories, hidden files,
 * binary files, the size cap, symlinks).  Fixtures are in tests/data/suite/;
 * tests run from the repository root.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "arbiter/file.h"
#include "arbiter/json.h"
#include "arbiter/suite.h"

#include "../../src/suite/suite_int.h"

#define D "tests/data/suite/"

static struct arb_suite *load_ok(const char *path)
{
    struct arb_err err = {""};
    struct arb_suite *s = NULL;

    cr_assert_eq(arb_suite_load(path, &s, &err), ARB_OK, "load %s: %s", path, err.msg);
    cr_assert_not_null(s);
    return s;
}

/* Load path, expect status st and exactly msg. */
static void expect_load_error(const char *path, enum arb_status st, const char *msg)
{
    struct arb_err err = {""};
    struct arb_suite *s = NULL;

    cr_assert_eq(arb_suite_load(path, &s, &err), st, "status for %s: %s", path, err.msg);
    cr_assert_null(s);
    cr_assert_str_eq(err.msg, msg);
}

/* ---- the schema ------------------------------------------------------------------------ */

Test(suite_schema, embedded_schema_should_equal_the_schema_file)
{
    struct arb_buf file, embedded;
    struct arb_err err = {""};

    arb_buf_init(&file, 0);
    arb_buf_init(&embedded, 0);
    cr_assert_eq(arb_file_read("schemas/suite.schema.json", &file, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(suite_schema_text(&embedded), ARB_OK);
    cr_assert_eq(embedded.len, file.len, "embedded %zu bytes, file %zu", embedded.len, file.len);
    cr_assert(memcmp(embedded.ptr, file.ptr, file.len) == 0,
              "src/suite/suite_schema.c is out of date with schemas/suite.schema.json");
    arb_buf_release(&file);
    arb_buf_release(&embedded);
}

/* ---- loading --------------------------------------------------------------------------- */

Test(suite_load, should_load_a_full_suite_with_counts_and_settings)
{
    struct arb_suite *s = load_ok(D "full/suite.json");

    cr_assert_str_eq(s->name, "invoice-extractor bake-off");
    cr_assert_str_eq(s->dir, D "full");
    cr_assert_eq(s->seed, 7);
    cr_assert_eq(s->n_systems, 3);
    cr_assert_eq(s->n_redact, 3);
    cr_assert_str_eq(s->redact[2], "skill-x");
    cr_assert_eq(s->n_criteria, 6);
    cr_assert_str_eq(s->criteria[0].name, "correctness");
    cr_assert_eq(s->criteria[0].dim, ARB_DIM_CONTENT);
    cr_assert_not_null(s->criteria[0].check);
    cr_assert_null(s->criteria[1].check);
    cr_assert_null(s->criteria[1].check_json);
    cr_assert(s->criteria[2].graded);
    cr_assert_not(s->criteria[0].graded);
    cr_assert_str_eq(s->criteria[3].name, "organization");
    cr_assert_eq(s->criteria[3].dim, ARB_DIM_STRUCTURE);
    cr_assert_eq(s->n_expectations, 3);
    cr_assert_str_eq(s->expectations[1].id, "sum");
    cr_assert_null(s->expectations[1].check);
    cr_assert_str_eq(s->expectations[0].check_json, "{\"op\":\"json_valid\"}");
    cr_assert_not_null(s->fields);
    cr_assert_not_null(s->fields_check);
    cr_assert_str_eq(arb_check_op(s->fields_check), "fields");
    cr_assert_str_eq(cJSON_GetObjectItem(s->judge, "model")->valuestring, "gpt-4o-mini");
    cr_assert_float_eq(s->policy.tie_epsilon, 0.25, 1e-12);
    cr_assert_eq(s->policy.inconsistent, ARB_INCONSISTENT_UNRESOLVED);
    cr_assert_eq(s->max_output_bytes, 4096);
    cr_assert_null(s->cases_file);
    cr_assert_eq(strlen(s->sha256), 64);
    cr_assert_not_null(s->schemas);
    arb_suite_free(s);
}

Test(suite_load, should_use_the_default_rubric_and_settings_when_absent)
{
    struct arb_suite *s = load_ok(D "minimal.json");
    const char *names[] = {"correctness",  "completeness", "accuracy",
                           "organization", "formatting",   "usability"};
    size_t i;

    cr_assert_str_eq(s->name, "minimal");
    cr_assert_null(s->task);
    cr_assert_eq(s->seed, 0);
    cr_assert_eq(s->n_systems, 0);
    cr_assert_eq(s->n_expectations, 0);
    cr_assert_null(s->fields);
    cr_assert_null(s->fields_check);
    cr_assert_null(s->judge);
    cr_assert_eq(s->max_output_bytes, ARB_OUTPUT_CAP_DEFAULT);
    cr_assert_eq(s->policy.inconsistent, ARB_INCONSISTENT_TIE);
    cr_assert_eq(s->policy.tie_epsilon, 0.0);
    cr_assert_eq(s->n_criteria, 6);
    for (i = 0; i < 6; i++) {
        cr_assert_str_eq(s->criteria[i].name, names[i]);
        cr_assert_eq(s->criteria[i].dim, i < 3 ? ARB_DIM_CONTENT : ARB_DIM_STRUCTURE);
        cr_assert_null(s->criteria[i].check);
    }
    arb_suite_free(s);
}

Test(suite_load, should_keep_default_structure_criteria_when_only_content_is_given)
{
    struct arb_suite *s = load_ok(D "jsonl/suite.json");

    cr_assert_eq(s->n_criteria, 4);
    cr_assert_str_eq(s->criteria[0].name, "correctness");
    cr_assert_str_eq(s->criteria[1].name, "organization");
    cr_assert_str_eq(s->cases_file, D "jsonl/cases.jsonl");
    arb_suite_free(s);
}

Test(suite_load, should_resolve_system_paths_relative_to_the_suite)
{
    struct arb_suite *s = load_ok(D "full/suite.json");

    cr_assert_str_eq(s->systems[0].name, "baseline");
    cr_assert_str_eq(s->systems[0].path, D "full/runs/baseline.jsonl");
    cr_assert_str_eq(s->systems[1].name, "candidate");
    cr_assert_str_eq(s->systems[1].path, D "full/runs/candidate");
    cr_assert_str_eq(s->systems[2].path, "/tmp/x", "absolute paths are kept");
    arb_suite_free(s);
}

Test(suite_load, should_inject_the_suite_fields_map_into_fields_checks)
{
    struct arb_suite *s = load_ok(D "full/suite.json");
    struct arb_result res;
    struct arb_err err = {""};
    const char *good = "{\"invoiceNumber\": \"INV-0042\", \"vendor\": \"Acme Inc.\", "
                       "\"lineItems\": [], \"total\": 10}";
    cJSON *expected = cJSON_Parse("{\"invoiceNumber\": \"INV-0042\", \"vendor\": \"ACME\", "
                                  "\"lineItems\": [], \"total\": 10.05}");

    cr_assert(strstr(s->criteria[0].check_json, "\"fields\":{\"invoiceNumber\":\"exact\""),
              "check_json holds the injected map: %s", s->criteria[0].check_json);
    arb_result_init(&res);
    cr_assert_eq(arb_check_run(s->criteria[0].check, good, strlen(good), expected, &res, &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(res.verdict, ARB_PASS, "score %g", res.score);
    arb_result_release(&res);
    cJSON_Delete(expected);
    arb_suite_free(s);
}

Test(suite_load, should_read_expected_file_relative_to_the_suite)
{
    struct arb_suite *s = load_ok(D "full/suite.json");
    struct arb_result res;
    struct arb_err err = {""};
    const char *good = "{\"invoiceNumber\": 1}";

    cr_assert_str_eq(arb_check_op(s->criteria[4].check), "json_schema");
    arb_result_init(&res);
    cr_assert_eq(arb_check_run(s->criteria[4].check, "{}", 2, NULL, &res, &err), ARB_OK);
    cr_assert_eq(res.verdict, ARB_FAIL, "the schema requires invoiceNumber");
    cr_assert_eq(arb_check_run(s->criteria[4].check, good, strlen(good), NULL, &res, &err), ARB_OK);
    cr_assert_eq(res.verdict, ARB_PASS);
    arb_result_release(&res);
    arb_suite_free(s);
}

/* The files a run reads besides the suite: a rubric check's (inside an aggregate) and a
 * case's check's, each once, resolved from the suite's folder (runs.inputs_json). */
Test(suite_load, should_list_every_expected_file_its_checks_and_cases_read)
{
    struct arb_suite *s = load_ok("tests/bad-input/lib/files/suite.json");

    cr_assert_eq(s->n_files, 2);
    cr_assert_str_eq(s->files[0].name, "item.schema.json");
    cr_assert_str_eq(s->files[0].path, "tests/bad-input/lib/files/item.schema.json");
    cr_assert_str_eq(s->files[1].name, "c1.expected.json");
    cr_assert_str_eq(s->files[1].path, "tests/bad-input/lib/files/c1.expected.json");
    arb_suite_free(s);
}

Test(suite_load, should_hash_the_canonical_form_of_the_suite)
{
    struct arb_suite *a = load_ok(D "full/suite.json");
    struct arb_suite *b = load_ok(D "full/suite.json");
    struct arb_suite *c = load_ok(D "minimal.json");
    char *canon = NULL;
    char hex[65];

    cr_assert_str_eq(a->sha256, b->sha256);
    cr_assert_str_neq(a->sha256, c->sha256);
    cr_assert_eq(arb_jcs_string(c->doc, &canon, NULL, NULL), ARB_OK);
    cr_assert_str_eq(canon, "{\"cases\":[]}");
    cr_assert_eq(sha256_hex(canon, strlen(canon), hex), ARB_OK);
    cr_assert_str_eq(c->sha256, hex);
    free(canon);
    arb_suite_free(a);
    arb_suite_free(b);
    arb_suite_free(c);
}

Test(suite_load, should_report_an_unknown_top_level_key_with_line_and_column)
{
    expect_load_error(D "bad/unknown_key.json", ARB_ESCHEMA,
                      D "bad/unknown_key.json:3:3: /sed: unknown key 'sed' (valid: name, task, "
                        "seed, systems, redact, fields, rubric, expectations, judge, policy, "
                        "max_output_bytes, cases)");
}

Test(suite_load, should_report_an_unknown_key_in_a_criterion)
{
    expect_load_error(D "bad/criterion_key.json", ARB_ESCHEMA,
                      D "bad/criterion_key.json:4:31: /rubric/content/0/weight: unknown key "
                        "'weight' (valid: name, check, graded, description, anchors)");
}

Test(suite_load, should_report_the_wrong_type_of_seed)
{
    expect_load_error(D "bad/seed_type.json", ARB_ESCHEMA,
                      D "bad/seed_type.json:2:11: /seed: expected an integer, got a string");
}

Test(suite_load, should_report_an_unknown_operator_in_a_rubric_check)
{
    struct arb_err err = {""};
    struct arb_suite *s = NULL;
    const char *want = D "bad/unknown_op.json:14:17: /rubric/content/0/check/op: unknown "
                         "operator 'exactt' (did you mean 'exact'?)";

    cr_assert_eq(arb_suite_load(D "bad/unknown_op.json", &s, &err), ARB_ESCHEMA);
    cr_assert_null(s);
    cr_assert(strncmp(err.msg, want, strlen(want)) == 0, "got '%s'", err.msg);
    cr_assert(strncmp(err.msg + strlen(want), "; valid operators: exact, ", 26) == 0, "got '%s'",
              err.msg);
}

Test(suite_load, should_refuse_an_invalid_regex_in_an_expectation_check)
{
    expect_load_error(D "bad/bad_regex.json", ARB_ESCHEMA,
                      D "bad/bad_regex.json:4:89: /expectations/1/check/expected: invalid regex "
                        "pattern: missing closing parenthesis at offset 8");
}

Test(suite_load, should_refuse_an_invalid_regex_in_a_case_expectation_at_load_time)
{
    expect_load_error(D "bad/case_regex.json", ARB_ESCHEMA,
                      D "bad/case_regex.json:3:96: /cases/0/expectations/0/check/expected: "
                        "invalid regex pattern: missing terminating ] for character class at "
                        "offset 1");
}

Test(suite_load, should_report_malformed_json_with_line_and_column)
{
    expect_load_error(D "bad/malformed.json", ARB_EPARSE,
                      D "bad/malformed.json:4:3: unexpected character '\"', expected ',' or '}'");
}

Test(suite_load, should_refuse_a_duplicate_key)
{
    expect_load_error(D "bad/dup_key.json", ARB_EPARSE,
                      D "bad/dup_key.json:4:3: duplicate key at '/seed'");
}

Test(suite_load, should_report_a_missing_cases_file)
{
    expect_load_error(D "bad/missing_cases.json", ARB_EIO,
                      D "bad/missing_cases.json:2:12: /cases: cannot open cases file '" D
                        "bad/no-such-cases.jsonl': No such file or directory");
}

Test(suite_load, should_report_a_missing_suite_file)
{
    expect_load_error(D "no-such-suite.json", ARB_EIO,
                      "cannot read suite: cannot open '" D
                      "no-such-suite.json': No such file or directory");
}

Test(suite_load, should_report_a_missing_required_key_at_its_object)
{
    expect_load_error(D "bad/no_cases.json", ARB_ESCHEMA,
                      D "bad/no_cases.json:1:1: missing required key 'cases'");
}

Test(suite_load, should_list_the_valid_values_of_an_enum)
{
    expect_load_error(D "bad/provider.json", ARB_ESCHEMA,
                      D "bad/provider.json:2:25: /judge/provider: expected one of 'openai', "
                        "'anthropic', 'command', got 'openia'");
}

Test(suite_load, should_report_a_fields_check_when_the_suite_has_no_map)
{
    expect_load_error(D "bad/fields_no_map.json", ARB_ESCHEMA,
                      D "bad/fields_no_map.json:2:59: /expectations/0/check: operator 'fields' "
                        "needs 'fields' (the comparator map)");
}

Test(suite_load, should_report_a_case_of_the_wrong_shape_in_jsonl)
{
    expect_load_error(D "bad/case_shape.json", ARB_ESCHEMA,
                      D "bad/case_shape.jsonl:2:45: /expectations/0: missing required key 'text' "
                        "(+1 more)");
}

Test(suite_load, should_report_a_duplicate_case_id_in_jsonl_with_both_lines)
{
    expect_load_error(D "bad/dup_cases.json", ARB_ESCHEMA,
                      D "bad/dup_cases.jsonl:3:8: /id: duplicate case id 'a' (first at line 1)");
}

Test(suite_load, should_report_a_duplicate_inline_case_id_with_both_lines)
{
    expect_load_error(D "bad/dup_inline.json", ARB_ESCHEMA,
                      D "bad/dup_inline.json:5:12: /cases/2/id: duplicate case id 'a' (first at "
                        "line 3)");
}

/* ---- --system -------------------------------------------------------------------------- */

Test(suite_system, should_replace_an_existing_system)
{
    struct arb_suite *s = load_ok(D "full/suite.json");
    struct arb_err err = {""};

    cr_assert_eq(arb_suite_set_system(s, "candidate=other/run.jsonl", &err), ARB_OK);
    cr_assert_eq(s->n_systems, 3);
    cr_assert_str_eq(s->systems[1].name, "candidate");
    cr_assert_str_eq(s->systems[1].path, "other/run.jsonl", "relative to the current directory");
    arb_suite_free(s);
}

Test(suite_system, should_add_a_new_system_after_the_suites_own)
{
    struct arb_suite *s = load_ok(D "minimal.json");
    struct arb_err err = {""};

    cr_assert_eq(arb_suite_set_system(s, "a=x.jsonl", &err), ARB_OK);
    cr_assert_eq(arb_suite_set_system(s, "b=dir/=odd", &err), ARB_OK);
    cr_assert_eq(s->n_systems, 2);
    cr_assert_str_eq(s->systems[0].name, "a");
    cr_assert_str_eq(s->systems[1].name, "b");
    cr_assert_str_eq(s->systems[1].path, "dir/=odd");
    arb_suite_free(s);
}

Test(suite_system, should_refuse_a_malformed_system_option)
{
    struct arb_suite *s = load_ok(D "minimal.json");
    struct arb_err err = {""};

    cr_assert_eq(arb_suite_set_system(s, "noequals", &err), ARB_EUSAGE);
    cr_assert_str_eq(err.msg, "--system expects NAME=PATH, got 'noequals'");
    cr_assert_eq(arb_suite_set_system(s, "=path", &err), ARB_EUSAGE);
    cr_assert_eq(arb_suite_set_system(s, "name=", &err), ARB_EUSAGE);
    cr_assert_eq(s->n_systems, 0);
    arb_suite_free(s);
}

/* ---- cases ----------------------------------------------------------------------------- */

Test(suite_cases, should_stream_inline_cases_with_their_expectations)
{
    struct arb_suite *s = load_ok(D "full/suite.json");
    struct arb_case_reader *r = NULL;
    struct arb_case c;
    struct arb_err err = {""};

    cr_assert_eq(arb_case_reader_open(s, &r, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_case_reader_next(r, &c, &err), 1, "%s", err.msg);
    cr_assert_str_eq(c.id, "inv-001");
    cr_assert_str_eq(c.prompt, "Invoice INV-0042 from Acme");
    cr_assert_str_eq(cJSON_GetObjectItem(c.expected, "invoiceNumber")->valuestring, "INV-0042");
    cr_assert_eq(c.n_expectations, 1);
    cr_assert_str_eq(c.expectations[0].id, "vendor");
    cr_assert_str_eq(arb_check_op(c.expectations[0].check), "icontains");
    cr_assert_eq(c.line, 0);
    cr_assert_not_null(c.raw);
    arb_case_release(&c);
    cr_assert_eq(arb_case_reader_next(r, &c, &err), 1);
    cr_assert_str_eq(c.id, "inv-002");
    cr_assert_null(c.prompt);
    cr_assert_eq(c.n_expectations, 0);
    arb_case_release(&c);
    cr_assert_eq(arb_case_reader_next(r, &c, &err), 0);
    arb_case_reader_free(r);
    arb_suite_free(s);
}

Test(suite_cases, should_read_jsonl_cases_with_bom_crlf_and_blank_lines)
{
    struct arb_suite *s = load_ok(D "jsonl/suite.json");
    struct arb_case_reader *r = NULL;
    struct arb_case c;
    struct arb_err err = {""};

    cr_assert_eq(arb_case_reader_open(s, &r, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_case_reader_next(r, &c, &err), 1, "%s", err.msg);
    cr_assert_str_eq(c.id, "c1");
    cr_assert_eq(c.line, 1);
    cr_assert_str_eq(c.expected->valuestring, "one");
    arb_case_release(&c);
    cr_assert_eq(arb_case_reader_next(r, &c, &err), 1, "%s", err.msg);
    cr_assert_str_eq(c.id, "c2");
    cr_assert_eq(c.line, 3, "blank lines count");
    cr_assert_eq(c.n_expectations, 1);
    cr_assert_str_eq(c.expectations[0].check_json, "{\"expected\":\"2\",\"op\":\"contains\"}");
    arb_case_release(&c);
    cr_assert_eq(arb_case_reader_next(r, &c, &err), 1, "%s", err.msg);
    cr_assert_str_eq(c.id, "c3");
    cr_assert_eq(c.line, 5, "the last line has no newline");
    cr_assert_null(c.expected);
    arb_case_release(&c);
    cr_assert_eq(arb_case_reader_next(r, &c, &err), 0);
    arb_case_reader_free(r);
    arb_suite_free(s);
}

/* ---- outputs --------------------------------------------------------------------------- */

static struct arb_output_reader *open_outputs(const char *path, size_t cap)
{
    struct arb_output_reader *r = NULL;
    struct arb_err err = {""};

    cr_assert_eq(arb_output_reader_open(path, cap, &r, &err), ARB_OK, "%s", err.msg);
    return r;
}

Test(suite_outputs, should_read_jsonl_outputs_with_capture_fields_in_meta)
{
    struct arb_output_reader *r = open_outputs(D "outputs/out.jsonl", 0);
    struct arb_output o;
    struct arb_err err = {""};

    cr_assert_eq(arb_output_reader_next(r, &o, &err), 1, "%s", err.msg);
    cr_assert_str_eq(o.case_id, "c1");
    cr_assert_null(o.file);
    cr_assert_str_eq(o.text, "hello");
    cr_assert_eq(o.len, 5);
    cr_assert_eq(o.line, 1);
    cr_assert_not(o.binary);
    cr_assert_str_eq(o.sha256, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    cr_assert(cJSON_IsArray(cJSON_GetObjectItem(o.meta, "trajectory")));
    cr_assert_not_null(cJSON_GetObjectItem(o.meta, "timing"));
    cr_assert_not_null(cJSON_GetObjectItem(o.meta, "toolErrors"));
    cr_assert_null(cJSON_GetObjectItem(o.meta, "id"));
    cr_assert_null(cJSON_GetObjectItem(o.meta, "output"));
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 1, "%s", err.msg);
    cr_assert_str_eq(o.case_id, "c2");
    cr_assert_str_eq(o.text, "{\"a\":1,\"b\":2}", "a non-string output is its RFC 8785 text");
    cr_assert_eq(o.line, 3);
    cr_assert_str_eq(cJSON_GetObjectItem(o.meta, "custom")->valuestring, "kept");
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 1, "%s", err.msg);
    cr_assert_str_eq(o.case_id, "c1", "a duplicate id is returned for the caller to report");
    cr_assert_null(o.meta);
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 0);
    arb_output_reader_free(r);
}

Test(suite_outputs, should_report_bad_jsonl_lines_and_go_on)
{
    struct arb_output_reader *r = open_outputs(D "outputs/bad.jsonl", 0);
    struct arb_output o;
    struct arb_err err = {""};

    cr_assert_eq(arb_output_reader_next(r, &o, &err), 1);
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), -ARB_EPARSE);
    cr_assert_str_eq(err.msg, D "outputs/bad.jsonl:2:24: unterminated string");
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 1);
    cr_assert_str_eq(o.case_id, "c3");
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), -ARB_ESCHEMA);
    cr_assert_str_eq(err.msg, D "outputs/bad.jsonl:4:1: missing required key 'id'");
    cr_assert_eq(arb_output_reader_next(r, &o, &err), -ARB_ESCHEMA);
    cr_assert_str_eq(err.msg, D "outputs/bad.jsonl:5:1: expected an object {\"id\": ..., "
                                "\"output\": ...}, got an array");
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 0);
    arb_output_reader_free(r);
}

Test(suite_outputs, should_refuse_a_jsonl_output_over_the_cap)
{
    struct arb_output_reader *r = open_outputs(D "outputs/sizes.jsonl", 10);
    struct arb_output o;
    struct arb_err err = {""};

    cr_assert_eq(arb_output_reader_next(r, &o, &err), 1);
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), -ARB_ETOOBIG);
    cr_assert_str_eq(err.msg, D "outputs/sizes.jsonl:2:25: /output: output of case 'big' is 11 "
                                "bytes, over the cap of 10 bytes");
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 0);
    arb_output_reader_free(r);
}

/* The next output must be case_id (and file); returns it for more checks. */
static void expect_output(struct arb_output_reader *r, struct arb_output *o, const char *case_id,
                          const char *file)
{
    struct arb_err err = {""};

    cr_assert_eq(arb_output_reader_next(r, o, &err), 1, "%s", err.msg);
    cr_assert_str_eq(o->case_id, case_id);
    if (file)
        cr_assert_str_eq(o->file, file);
    else
        cr_assert_null(o->file);
    cr_assert_eq(o->line, 0);
    cr_assert_eq(strlen(o->sha256), 64);
}

Test(suite_outputs, should_read_a_directory_with_files_and_case_subdirectories)
{
    struct arb_output_reader *r = open_outputs(D "outputs/dir", 0);
    struct arb_output o;
    struct arb_err err = {""};

    expect_output(r, &o, "inv-001", NULL);
    cr_assert_str_eq(o.text, "{\"answer\": 42}\n");
    arb_output_release(&o);
    expect_output(r, &o, "inv-002", NULL);
    arb_output_release(&o);
    expect_output(r, &o, "inv-003", "a.txt");
    cr_assert_str_eq(o.text, "first file\n");
    arb_output_release(&o);
    expect_output(r, &o, "inv-003", "nested/b.txt");
    arb_output_release(&o);
    expect_output(r, &o, "logo", NULL);
    arb_output_release(&o);
    expect_output(r, &o, "utf8", NULL);
    arb_output_release(&o);
    expect_output(r, &o, "zz-big", NULL);
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 0, "hidden files are skipped");
    arb_output_reader_free(r);
}

Test(suite_outputs, should_mark_binary_files_by_size_and_hash)
{
    struct arb_output_reader *r = open_outputs(D "outputs/dir", 0);
    struct arb_output o;
    struct arb_err err = {""};
    char hex[65];
    int seen = 0;

    while (arb_output_reader_next(r, &o, &err) == 1) {
        if (strcmp(o.case_id, "logo") == 0) {
            cr_assert(o.binary, "NUL bytes and invalid UTF-8");
            cr_assert_eq(o.len, 16);
            cr_assert_eq(sha256_hex(o.text, o.len, hex), ARB_OK);
            cr_assert_str_eq(o.sha256, hex);
            seen++;
        } else {
            cr_assert_not(o.binary, "%s is UTF-8 text", o.case_id);
        }
        arb_output_release(&o);
    }
    cr_assert_eq(seen, 1);
    arb_output_reader_free(r);
}

Test(suite_outputs, should_refuse_a_file_over_the_cap_and_go_on)
{
    struct arb_output_reader *r = open_outputs(D "outputs/dir", 16);
    struct arb_output o;
    struct arb_err err = {""};
    int got, n = 0, too_big = 0;

    while ((got = arb_output_reader_next(r, &o, &err)) != 0) {
        if (got < 0) {
            cr_assert_eq(got, -ARB_ETOOBIG);
            cr_assert_str_eq(err.msg, "output '" D "outputs/dir/zz-big.txt' is 20 bytes, over the "
                                      "cap of 16 bytes");
            too_big++;
            continue;
        }
        n++;
        arb_output_release(&o);
    }
    cr_assert_eq(n, 6);
    cr_assert_eq(too_big, 1);
    arb_output_reader_free(r);
}

/* The next entry must be case_id's, not read, with a problem containing what. */
static void expect_problem(struct arb_output_reader *r, const char *case_id, const char *what)
{
    struct arb_output o;
    struct arb_err err = {""};

    cr_assert_eq(arb_output_reader_next(r, &o, &err), 1, "%s", err.msg);
    cr_assert_str_eq(o.case_id, case_id);
    cr_assert_null(o.text);
    cr_assert_not_null(o.problem, "case %s: no problem", case_id);
    cr_assert(strstr(o.problem, what), "case %s: '%s' lacks '%s'", case_id, o.problem, what);
    arb_output_release(&o);
}

Test(suite_outputs, should_follow_a_link_to_a_file_and_name_every_other_entry)
{
    char dir[] = "/tmp/arbiter-suite-XXXXXX";
    char path[160], cmd[400];
    struct arb_output_reader *r;
    struct arb_output o;
    struct arb_err err = {""};
    FILE *f;

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/a-real.txt", dir);
    f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("real", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/b-link.txt", dir);
    cr_assert_eq(symlink("a-real.txt", path), 0);
    snprintf(path, sizeof(path), "%s/c-fifo.txt", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    snprintf(path, sizeof(path), "%s/d-dangling.txt", dir);
    cr_assert_eq(symlink("no-such-file", path), 0);
    snprintf(path, sizeof(path), "%s/e-dirlink", dir);
    cr_assert_eq(symlink("/tmp", path), 0);
    snprintf(path, sizeof(path), "%s/f-case", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/f-case/pipe", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    r = open_outputs(dir, 0);
    expect_output(r, &o, "a-real", NULL);
    arb_output_release(&o);
    expect_output(r, &o, "b-link", NULL);
    cr_assert_str_eq(o.text, "real", "a link to a regular file is read");
    cr_assert_null(o.problem);
    arb_output_release(&o);
    expect_problem(r, "c-fifo", "c-fifo.txt' is not a regular file (a FIFO)");
    expect_problem(r, "d-dangling", "d-dangling.txt' is a symbolic link that leads nowhere");
    expect_problem(r, "e-dirlink", "e-dirlink' is a symbolic link to a directory");
    expect_problem(r, "f-case", "f-case/pipe' is not a regular file (a FIFO)");
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 0);
    arb_output_reader_free(r);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(suite_outputs, should_refuse_a_fifo_as_the_outputs_file_without_blocking)
{
    char dir[] = "/tmp/arbiter-suite-XXXXXX";
    char path[160];
    struct arb_output_reader *r = NULL;
    struct arb_err err = {""};

    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof(path), "%s/out.jsonl", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_assert_eq(arb_output_reader_open(path, 0, &r, &err), ARB_EIO);
    cr_assert_null(r);
    cr_assert(strstr(err.msg, "out.jsonl' is not a regular file (a FIFO)"), "%s", err.msg);
    unlink(path);
    rmdir(dir);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[256];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    fclose(f);
}

static struct arb_input_id identify(const char *path)
{
    struct arb_input_id id;
    struct arb_err err = {""};

    cr_assert_eq(arb_input_identify(path, "outputs", &id, &err), ARB_OK, "%s", err.msg);
    return id;
}

Test(suite_identity, should_identify_a_file_by_size_and_sha256)
{
    struct arb_input_id id = identify(D "outputs/out.jsonl");
    char cmd[300], want[80] = "";
    FILE *p;

    snprintf(cmd, sizeof(cmd), "sha256sum '%s'", D "outputs/out.jsonl");
    p = popen(cmd, "r");
    cr_assert_not_null(p);
    cr_assert_not_null(fgets(want, sizeof(want), p));
    pclose(p);
    cr_assert_not(id.is_dir);
    cr_assert_eq(strncmp(id.sha256, want, 64), 0, "%s vs %s", id.sha256, want);
}

Test(suite_identity, should_change_a_directorys_digest_with_its_listing_or_contents_only)
{
    char dir[] = "/tmp/arbiter-ident-XXXXXX";
    char path[160], cmd[200];
    struct arb_input_id a, b;
    struct arb_err err = {""};

    cr_assert_not_null(mkdtemp(dir));
    write_text(dir, "c1.txt", "one");
    snprintf(path, sizeof(path), "%s/c2", dir);
    cr_assert_eq(mkdir(path, 0700), 0);
    write_text(dir, "c2/a.txt", "two");
    snprintf(path, sizeof(path), "%s/c3.txt", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    a = identify(dir);
    cr_assert(a.is_dir);
    cr_assert_eq(a.entries, 4, "c1.txt, c2, c2/a.txt and the FIFO (never opened)");
    cr_assert_eq(a.size, 6);
    write_text(dir, ".hidden", "skipped, as the reader skips it");
    b = identify(dir);
    cr_assert_str_eq(a.sha256, b.sha256, "a hidden file is no output");
    write_text(dir, "c2/a.txt", "TWO");
    b = identify(dir);
    cr_assert_eq(b.size, a.size);
    cr_assert_str_neq(a.sha256, b.sha256, "same size, other content");
    write_text(dir, "c2/a.txt", "two");
    cr_assert_str_eq(identify(dir).sha256, a.sha256, "put back");
    snprintf(path, sizeof(path), "%s/c1.txt", dir);
    snprintf(cmd, sizeof(cmd), "%s/c1.md", dir);
    cr_assert_eq(rename(path, cmd), 0);
    cr_assert_str_neq(identify(dir).sha256, a.sha256, "a renamed entry");
    snprintf(path, sizeof(path), "%s/c3.txt", dir);
    cr_assert_eq(arb_input_identify(path, "outputs", &b, &err), ARB_EIO);
    cr_assert(strstr(err.msg, "c3.txt' is not a regular file or a directory (a FIFO)"), "%s",
              err.msg);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(suite_outputs, should_report_a_missing_outputs_path)
{
    struct arb_output_reader *r = NULL;
    struct arb_err err = {""};

    cr_assert_eq(arb_output_reader_open(D "outputs/none.jsonl", 0, &r, &err), ARB_EIO);
    cr_assert_null(r);
    cr_assert_str_eq(err.msg,
                     "cannot open outputs '" D "outputs/none.jsonl': No such file or directory");
}

Test(suite_outputs, should_read_each_systems_outputs_from_its_resolved_path)
{
    struct arb_suite *s = load_ok(D "full/suite.json");
    struct arb_output_reader *r = open_outputs(s->systems[0].path, s->max_output_bytes);
    struct arb_output o;
    struct arb_err err = {""};

    cr_assert_eq(arb_output_reader_next(r, &o, &err), 1, "%s", err.msg);
    cr_assert_str_eq(o.case_id, "inv-001");
    cr_assert_str_eq(o.text, "{\"invoiceNumber\": \"INV-0042\"}");
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 0);
    arb_output_reader_free(r);
    r = open_outputs(s->systems[1].path, s->max_output_bytes);
    expect_output(r, &o, "inv-001", NULL);
    arb_output_release(&o);
    expect_output(r, &o, "inv-002", "a.txt");
    arb_output_release(&o);
    expect_output(r, &o, "inv-002", "sub/b.txt");
    arb_output_release(&o);
    cr_assert_eq(arb_output_reader_next(r, &o, &err), 0);
    arb_output_reader_free(r);
    arb_suite_free(s);
}

/* ---- locating messages about files that are not suites ---- */

Test(locate, should_locate_a_pointer_message_in_its_own_file)
{
    const char *text = "{\n  \"op\": \"all\",\n  \"checks\": [\n    {\"op\": \"x\"}\n  ]\n}\n";
    struct arb_err err = {{0}};
    size_t line, col;

    arb_json_pointer_pos(text, strlen(text), "/checks/0/op", &line, &col);
    cr_assert_eq(line, 4);
    cr_assert_eq(col, 12);
    snprintf(err.msg, sizeof(err.msg), "/checks/0/op: unknown operator 'x'");
    arb_err_locate(&err, "c.json", text, strlen(text), NULL);
    cr_assert_str_eq(err.msg, "c.json:4:12: /checks/0/op: unknown operator 'x'");
    /* A suite-shaped pointer into a file that is only the judge object. */
    snprintf(err.msg, sizeof(err.msg), "/judge/checks: unknown key");
    arb_err_locate(&err, "j.json", text, strlen(text), "/judge");
    cr_assert_str_eq(err.msg, "j.json:3:13: /checks: unknown key");
    /* No pointer: the file only. */
    snprintf(err.msg, sizeof(err.msg), "missing model");
    arb_err_locate(&err, "j.json", text, strlen(text), "/judge");
    cr_assert_str_eq(err.msg, "j.json: missing model");
}
