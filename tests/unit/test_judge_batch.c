/*
 * test_judge_batch.c - the judge's provider batches (include/arbiter/batch.h) below the
 * command line: the config's batch keys and their absence from the hash, migration 9, the
 * record of batches and their requests (what a resume reads to know what was submitted),
 * and the payloads in each provider's shape; the protocol clients against a scripted server
 * serving real providers' shapes that judge_sim does not (CRLF line ends, no final newline,
 * every Anthropic result type, a results_url on another origin, a token on a later list page,
 * an OpenAI batch failed with errors.data).  Kills and resumes are tests/cli/judge_batch.sh's,
 * against judge_sim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <cjson/cJSON.h>

#include "arbiter/batch.h"
#include "arbiter/judge.h"
#include "arbiter/store.h"
#include "http_fixture.h"
#include "store_fixture.h"

static enum arb_status parse(const char *json, struct arb_judge_config *cfg, struct arb_err *err)
{
    cJSON *o = cJSON_Parse(json);
    enum arb_status st;

    cr_assert_not_null(o, "bad test JSON: %s", json);
    st = arb_judge_config_parse(o, cfg, err);
    cJSON_Delete(o);
    return st;
}

#define BASE "{\"provider\": \"openai\", \"model\": \"m\", \"api_key_env\": \"K\""

Test(judge_batch, should_default_to_sync_with_the_providers_limits)
{
    struct arb_judge_config cfg;
    struct arb_err err = {{0}};

    cr_assert_eq(parse(BASE "}", &cfg, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(cfg.batch, 0);
    cr_assert_eq(cfg.batch_retry, ARB_BATCH_RETRY_SYNC);
    cr_assert_eq(cfg.batch_max_requests, 50000);
    cr_assert_float_eq(cfg.batch_poll_s, 30.0, 1e-9);
    arb_judge_config_release(&cfg);
    cr_assert_eq(parse("{\"provider\": \"anthropic\", \"model\": \"m\", \"api_key_env\": \"K\"}",
                       &cfg, &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(cfg.batch_max_requests, 100000);
    arb_judge_config_release(&cfg);
}

Test(judge_batch, should_read_the_batch_keys_and_keep_them_out_of_the_hash)
{
    struct arb_judge_config sync, batch;
    struct arb_err err = {{0}};
    cJSON *stored;
    const cJSON *mode;

    cr_assert_eq(parse(BASE "}", &sync, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(parse(BASE ", \"mode\": \"batch\", \"batch_poll_s\": 2.5, \"batch_max_requests\": "
                            "10, \"batch_retry\": \"none\"}",
                       &batch, &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(batch.batch, 1);
    cr_assert_float_eq(batch.batch_poll_s, 2.5, 1e-9);
    cr_assert_eq(batch.batch_max_requests, 10);
    cr_assert_eq(batch.batch_retry, ARB_BATCH_RETRY_NONE);
    /* The same question either way: one cache, one calibration. */
    cr_assert_str_eq(sync.hash, batch.hash);
    /* Stored with the run (for --resume) when on, and a sync config's stored JSON unchanged. */
    stored = arb_judge_config_json(&batch);
    mode = cJSON_GetObjectItemCaseSensitive(stored, "mode");
    cr_assert(cJSON_IsString(mode) && strcmp(mode->valuestring, "batch") == 0);
    cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(stored, "batch_retry")->valuestring, "none");
    cJSON_Delete(stored);
    stored = arb_judge_config_json(&sync);
    cr_assert_null(cJSON_GetObjectItemCaseSensitive(stored, "mode"));
    cJSON_Delete(stored);
    arb_judge_config_release(&sync);
    arb_judge_config_release(&batch);
}

Test(judge_batch, should_refuse_bad_batch_keys_naming_them)
{
    static const struct {
        const char *json, *msg;
    } cases[] = {
        {BASE ", \"mode\": \"async\"}", "/judge/mode: expected \"sync\" or \"batch\""},
        {BASE ", \"mode\": true}", "/judge/mode: expected"},
        {BASE ", \"batch_retry\": \"later\"}", "/judge/batch_retry: expected \"sync\""},
        {BASE ", \"batch_poll_s\": 0}", "/judge/batch_poll_s: expected seconds"},
        {BASE ", \"batch_poll_s\": \"5\"}", "/judge/batch_poll_s"},
        {BASE ", \"batch_max_requests\": 0}", "from 1 to 50000"},
        {BASE ", \"batch_max_requests\": 50001}", "from 1 to 50000"},
        {BASE ", \"batch_max_requests\": 2.5}", "/judge/batch_max_requests"},
        {"{\"provider\": \"command\", \"command\": [\"x\"], \"mode\": \"batch\"}",
         "not a command judge"},
        {"{\"provider\": \"command\", \"command\": [\"x\"], \"batch_retry\": \"sync\"}",
         "not a command judge"},
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct arb_judge_config cfg;
        struct arb_err err = {{0}};

        cr_assert_eq(parse(cases[i].json, &cfg, &err), ARB_ESCHEMA, "%s", cases[i].json);
        cr_assert(strstr(err.msg, cases[i].msg), "%s: got '%s'", cases[i].json, err.msg);
    }
}

/* ---- the payloads ------------------------------------------------------------------------ */

static void payload_of(const char *provider, char **out)
{
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_err err = {{0}};
    const char *ids[] = {"tok-0", "tok-1"};
    const char *bodies[] = {"{\"model\":\"m\",\"n\":1}", "{\"model\":\"m\",\"n\":2}"};
    char json[160];
    size_t len = 0;

    snprintf(json, sizeof(json), "{\"provider\": \"%s\", \"model\": \"m\", \"api_key_env\": \"K\"}",
             provider);
    cr_assert_eq(parse(json, &cfg, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_batch_client_new(&cfg, "secret-key-123", &c, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_batch_payload(c, ids, bodies, 2, out, &len, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(strlen(*out), len);
    cr_assert_null(strstr(*out, "secret-key-123"));
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
}

Test(judge_batch, should_build_openai_input_lines_with_the_compact_body)
{
    char *p = NULL;

    payload_of("openai", &p);
    cr_assert_str_eq(p, "{\"custom_id\":\"tok-0\",\"method\":\"POST\",\"url\":\"/v1/chat/"
                        "completions\",\"body\":{\"model\":\"m\",\"n\":1}}\n"
                        "{\"custom_id\":\"tok-1\",\"method\":\"POST\",\"url\":\"/v1/chat/"
                        "completions\",\"body\":{\"model\":\"m\",\"n\":2}}\n");
    free(p);
}

Test(judge_batch, should_build_an_anthropic_requests_body)
{
    char *p = NULL;

    payload_of("anthropic", &p);
    cr_assert_str_eq(p,
                     "{\"requests\":[{\"custom_id\":\"tok-0\",\"params\":{\"model\":\"m\","
                     "\"n\":1}},{\"custom_id\":\"tok-1\",\"params\":{\"model\":\"m\",\"n\":2}}]}");
    free(p);
}

Test(judge_batch, should_draw_distinct_tokens)
{
    char a[17], b[17];

    cr_assert_eq(arb_batch_token(a), ARB_OK);
    cr_assert_eq(arb_batch_token(b), ARB_OK);
    cr_assert_eq(strlen(a), 16);
    cr_assert_str_neq(a, b);
}

/* ---- the record --------------------------------------------------------------------------- */

struct seen {
    char state[16], batch_state[16], result[64];
    long status;
};

static int on_found(void *ctx, const struct arb_batch_request_row *r, const char *batch_state)
{
    struct seen *s = ctx;

    snprintf(s->state, sizeof(s->state), "%s", r->state);
    snprintf(s->batch_state, sizeof(s->batch_state), "%s", batch_state);
    snprintf(s->result, sizeof(s->result), "%s", r->result_json ? r->result_json : "");
    s->status = r->http_status;
    return 0;
}

static int count_batch(void *ctx, const struct arb_batch_row *b)
{
    (void)b;
    (*(int *)ctx)++;
    return 0;
}

static void request(struct arb_batch_request_row *r, const char *id, const char *key)
{
    memset(r, 0, sizeof(*r));
    r->custom_id = id;
    r->key = key;
    r->case_id = "c1";
    r->system_a = "a";
    r->system_b = "b";
    r->ord = "AB";
    r->fence = "0123456789abcdef";
    r->request_json = "{\"model\":\"m\"}";
}

Test(judge_batch, should_record_what_was_submitted_and_its_results, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    struct arb_batch_request_row rows[2], res;
    struct arb_batch_row b;
    struct seen s;
    int64_t id = 0, id2 = 0;
    int submits = -1, matched = -1, known = -1, n = 0;

    fx_raw_exec("INSERT INTO runs (id, created_at, suite_path, suite_sha256, suite_json, "
                "systems_json, seed, version) VALUES (1, 'now', 's', 'h', '{}', '[]', 1, 'v')");
    request(&rows[0], "tok-0", "k0");
    request(&rows[1], "tok-1", "k1");
    rows[1].ord = "BA";
    cr_assert_eq(arb_store_batch_create(st, 1, "openai", "tok", rows, 2, &id, &err), ARB_OK, "%s",
                 err.msg);
    memset(&s, 0, sizeof(s));
    cr_assert_eq(arb_store_batch_lookup(st, 1, "k0", on_found, &s, &submits, &err), ARB_OK);
    cr_assert_eq(submits, 1);
    cr_assert_str_eq(s.state, "pending");
    cr_assert_str_eq(s.batch_state, "intent");
    cr_assert_eq(arb_store_batch_lookup(st, 1, "nothing", on_found, &s, &submits, &err), ARB_OK);
    cr_assert_eq(submits, 0);

    /* Submitted: the provider's id is known, so no other row adopts it. */
    memset(&b, 0, sizeof(b));
    b.id = id;
    b.state = "submitted";
    b.remote_id = "batch_1";
    b.remote_status = "in_progress";
    cr_assert_eq(arb_store_batch_update(st, &b, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_batch_known(st, "openai", "batch_1", &known, &err), ARB_OK);
    cr_assert_eq(known, 1);
    cr_assert_eq(arb_store_batch_known(st, "anthropic", "batch_1", &known, &err), ARB_OK);
    cr_assert_eq(known, 0);

    /* Results in one transaction: a foreign line matches nothing; the unanswered go missing. */
    cr_assert_eq(arb_store_begin(st, &err), ARB_OK);
    memset(&res, 0, sizeof(res));
    res.custom_id = "tok-0";
    res.state = "succeeded";
    res.http_status = 200;
    res.result_json = "{\"id\":\"r\"}";
    cr_assert_eq(arb_store_batch_put_result(st, id, &res, &matched, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(matched, 1);
    res.custom_id = "other-0";
    cr_assert_eq(arb_store_batch_put_result(st, id, &res, &matched, &err), ARB_OK);
    cr_assert_eq(matched, 0);
    cr_assert_eq(arb_store_batch_downloaded(st, id, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_store_commit(st, &err), ARB_OK);
    cr_assert_eq(arb_store_batch_lookup(st, 1, "k0", on_found, &s, &submits, &err), ARB_OK);
    cr_assert_str_eq(s.state, "succeeded");
    cr_assert_str_eq(s.batch_state, "downloaded");
    cr_assert_str_eq(s.result, "{\"id\":\"r\"}");
    cr_assert_eq(s.status, 200);
    cr_assert_eq(arb_store_batch_lookup(st, 1, "k1", on_found, &s, &submits, &err), ARB_OK);
    cr_assert_str_eq(s.state, "missing");

    /* Put in a second batch (a retry): the newest row answers, and both count. */
    cr_assert_eq(arb_store_batch_create(st, 1, "openai", "tok2", &rows[1], 1, &id2, &err), ARB_OK);
    cr_assert_eq(arb_store_batch_lookup(st, 1, "k1", on_found, &s, &submits, &err), ARB_OK);
    cr_assert_eq(submits, 2);
    cr_assert_str_eq(s.state, "pending");
    cr_assert_eq(arb_store_batches_ingested(st, 1, &err), ARB_OK);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM judge_batches WHERE state = 'ingested'"), 1);
    cr_assert_eq(arb_store_batches(st, 1, count_batch, &n, &err), ARB_OK);
    cr_assert_eq(n, 2);
    /* A token is one submission's: never reused. */
    cr_assert_neq(arb_store_batch_create(st, 1, "openai", "tok", rows, 1, &id2, &err), ARB_OK);
    arb_store_close(st);
    cr_assert_eq(fx_integrity_ok(), 1);
}

Test(judge_batch, should_migrate_a_version_8_file_adding_the_batch_tables, .init = fx_setup,
     .fini = fx_teardown)
{
    arb_store_close(fx_open_store(0));
    fx_raw_exec(UNDO_MIGRATION_10 "DROP TABLE judge_batch_requests; DROP TABLE judge_batches; "
                                  "PRAGMA user_version = 8");
    arb_store_close(fx_open_store(0));
    cr_assert_eq(fx_raw_int("PRAGMA user_version"), arb_store_latest_schema());
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM pragma_table_info('judge_batches')"), 18);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM pragma_table_info('judge_batch_requests')"), 15);
    cr_assert_eq(fx_integrity_ok(), 1);
}

/* ---- the protocols against real providers' shapes (a scripted server) --------------------- */

struct got {
    char lines[8][160];
    int n;
};

static int on_result(void *ctx, const struct arb_batch_result_line *r)
{
    struct got *g = ctx;

    if (g->n < 8)
        snprintf(g->lines[g->n++], sizeof(g->lines[0]), "%s %s %ld %s", r->custom_id, r->state,
                 r->http_status, r->error ? r->error : "-");
    return 0;
}

static int has_line(const struct got *g, const char *want)
{
    int i;

    for (i = 0; i < g->n; i++)
        if (strcmp(g->lines[i], want) == 0)
            return 1;
    return 0;
}

static int never_known(void *ctx, const char *id)
{
    (void)ctx;
    (void)id;
    return 0;
}

static void client_at(const char *provider, int port, struct arb_judge_config *cfg,
                      struct arb_batch_client **c)
{
    char json[256];
    struct arb_err err = {{0}};

    snprintf(json, sizeof(json),
             "{\"provider\": \"%s\", \"model\": \"m\", \"api_key_env\": \"K\", \"base_url\": "
             "\"http://127.0.0.1:%d%s\", \"max_retries\": 0}",
             provider, port, strcmp(provider, "openai") == 0 ? "/v1" : "");
    cr_assert_eq(parse(json, cfg, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_batch_client_new(cfg, "sk-secret-42", c, &err), ARB_OK, "%s", err.msg);
}

Test(judge_batch, should_read_openai_result_files_with_crlf_and_no_final_newline)
{
    /* The output file with CRLF line ends, a blank line and no newline at the end; then the
     * error file: a 500 in the batch, an expired request. */
    static const char out[] =
        "{\"id\":\"batch_req_1\",\"custom_id\":\"t-0\",\"response\":{\"status_code\":200,"
        "\"request_id\":\"r\",\"body\":{\"id\":\"chatcmpl-1\",\"choices\":[]}},\"error\":null}\r\n"
        "\r\n"
        "{\"id\":\"batch_req_2\",\"custom_id\":\"t-1\",\"response\":{\"status_code\":200,"
        "\"request_id\":\"r\",\"body\":{\"id\":\"chatcmpl-2\",\"choices\":[]}},\"error\":null}";
    static const char errs[] =
        "{\"id\":\"batch_req_3\",\"custom_id\":\"t-2\",\"response\":{\"status_code\":500,"
        "\"request_id\":\"r\",\"body\":{\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}"
        "},"
        "\"error\":null}\n"
        "{\"id\":\"batch_req_4\",\"custom_id\":\"t-3\",\"response\":null,\"error\":{\"code\":"
        "\"batch_expired\",\"message\":\"This request could not be executed before the completion "
        "window expired.\"}}\n";
    struct hs_reply replies[] = {{200, NULL, out, 0, 0, 0}, {200, NULL, errs, 0, 0, 0}};
    struct hs_server s;
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_batch_remote b;
    struct arb_err err = {{0}};
    struct got g;

    hs_start(&s, replies, 2);
    client_at("openai", s.port, &cfg, &c);
    memset(&b, 0, sizeof(b));
    memset(&g, 0, sizeof(g));
    snprintf(b.id, sizeof(b.id), "batch_1");
    snprintf(b.output_file_id, sizeof(b.output_file_id), "file-out");
    snprintf(b.error_file_id, sizeof(b.error_file_id), "file-err");
    cr_assert_eq(arb_batch_results(c, &b, on_result, &g, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(g.n, 4);
    cr_assert(has_line(&g, "t-0 succeeded 200 -"));
    cr_assert(has_line(&g, "t-1 succeeded 200 -"));
    cr_assert(has_line(&g, "t-2 errored 500 HTTP 500 in the batch"));
    cr_assert(has_line(&g, "t-3 expired 0 batch_expired in the batch: This request could not be "
                           "executed before the completion window expired."));
    cr_assert(strstr(s.seen, "GET /v1/files/file-out/content "));
    cr_assert(strstr(s.seen, "GET /v1/files/file-err/content "));
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);
}

Test(judge_batch, should_send_the_configs_extra_headers_on_batch_calls)
{
    /* A gateway's headers go on every call, as on the synchronous path (they did not). */
    static const char out[] =
        "{\"id\":\"batch_req_1\",\"custom_id\":\"t-0\",\"response\":{\"status_code\":200,"
        "\"request_id\":\"r\",\"body\":{\"id\":\"chatcmpl-1\",\"choices\":[]}},\"error\":null}\n";
    struct hs_reply replies[] = {{200, NULL, out, 0, 0, 0}};
    struct hs_server s;
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_batch_remote b;
    struct arb_err err = {{0}};
    struct got g;
    char json[400];

    cr_assert_eq(setenv("ARB_TEST_BATCH_GW", "gw-secret-value-1", 1), 0);
    hs_start(&s, replies, 1);
    snprintf(json, sizeof(json),
             "{\"provider\": \"openai\", \"model\": \"m\", \"api_key_env\": \"K\", "
             "\"base_url\": \"http://127.0.0.1:%d/v1\", \"max_retries\": 0, \"headers\": "
             "{\"X-Title\": \"Arbiter\", \"X-Gateway-Key\": {\"env\": \"ARB_TEST_BATCH_GW\"}}}",
             s.port);
    cr_assert_eq(parse(json, &cfg, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_batch_client_new(&cfg, "sk-secret-42", &c, &err), ARB_OK, "%s", err.msg);
    memset(&b, 0, sizeof(b));
    memset(&g, 0, sizeof(g));
    snprintf(b.id, sizeof(b.id), "batch_1");
    snprintf(b.output_file_id, sizeof(b.output_file_id), "file-out");
    cr_assert_eq(arb_batch_results(c, &b, on_result, &g, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(g.n, 1);
    cr_assert(strstr(s.seen, "X-Title: Arbiter\r\n"), "sent: %s", s.seen);
    cr_assert(strstr(s.seen, "X-Gateway-Key: gw-secret-value-1\r\n"), "sent: %s", s.seen);
    cr_assert(strstr(s.seen, "Authorization: Bearer sk-secret-42\r\n"), "sent: %s", s.seen);
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);
    /* A header whose variable is unset is refused, naming it. */
    cr_assert_eq(unsetenv("ARB_TEST_BATCH_GW"), 0);
    cr_assert_eq(parse(json, &cfg, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(arb_batch_client_new(&cfg, "sk-secret-42", &c, &err), ARB_EUSAGE);
    cr_assert_null(c);
    cr_assert(strstr(err.msg, "/judge/headers/X-Gateway-Key"), "%s", err.msg);
    arb_judge_config_release(&cfg);
}

Test(judge_batch, should_read_anthropic_results_of_every_type)
{
    static const char res[] =
        "{\"custom_id\":\"t-0\",\"result\":{\"type\":\"succeeded\",\"message\":{\"id\":\"msg_1\","
        "\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}}\r\n"
        "{\"custom_id\":\"t-1\",\"result\":{\"type\":\"errored\",\"error\":{\"type\":\"error\","
        "\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad params\"}}}}\r\n"
        "{\"custom_id\":\"t-2\",\"result\":{\"type\":\"errored\",\"error\":{\"type\":\"error\","
        "\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}}}\n"
        "{\"custom_id\":\"t-3\",\"result\":{\"type\":\"canceled\"}}\n"
        "{\"custom_id\":\"t-4\",\"result\":{\"type\":\"expired\"}}";
    struct hs_reply replies[] = {{200, NULL, res, 0, 0, 0}};
    struct hs_server s, other;
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_batch_remote b;
    struct arb_err err = {{0}};
    struct got g;

    hs_start(&s, replies, 1);
    hs_start(&other, replies, 1);
    client_at("anthropic", s.port, &cfg, &c);
    memset(&b, 0, sizeof(b));
    memset(&g, 0, sizeof(g));
    snprintf(b.id, sizeof(b.id), "msgbatch_1");
    /* A results_url on another origin: read from the batch's own path, the key not sent there. */
    snprintf(b.results_url, sizeof(b.results_url),
             "http://127.0.0.1:%d/v1/messages/batches/msgbatch_1/results", other.port);
    cr_assert_eq(arb_batch_results(c, &b, on_result, &g, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(g.n, 5);
    cr_assert(has_line(&g, "t-0 succeeded 200 -"));
    cr_assert(has_line(&g, "t-1 errored 400 invalid_request_error in the batch: bad params"));
    cr_assert(has_line(&g, "t-2 errored 529 overloaded_error in the batch: Overloaded"));
    cr_assert(has_line(&g, "t-3 canceled 0 canceled in the batch"));
    cr_assert(has_line(&g, "t-4 expired 0 expired in the batch"));
    cr_assert(strstr(s.seen, "GET /v1/messages/batches/msgbatch_1/results "));
    cr_assert_eq(hs_requests(&other), 0);
    cr_assert_null(strstr(other.seen, "sk-secret-42"));
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);
    hs_stop(&other);
}

Test(judge_batch, should_find_an_openai_batch_by_token_on_a_later_page)
{
    static const char p1[] =
        "{\"object\":\"list\",\"data\":[{\"id\":\"batch_b\",\"status\":\"in_progress\","
        "\"metadata\":{\"arbiter_token\":\"other\"}},{\"id\":\"batch_a\",\"status\":\"completed\","
        "\"metadata\":null}],\"first_id\":\"batch_b\",\"last_id\":\"batch_a\",\"has_more\":true}";
    static const char p2[] =
        "{\"object\":\"list\",\"data\":[{\"id\":\"batch_9\",\"status\":\"finalizing\","
        "\"created_at\":1732270300,\"request_counts\":{\"total\":2,\"completed\":0,\"failed\":0},"
        "\"metadata\":{\"arbiter_token\":\"0123456789abcdef\"}}],\"first_id\":\"batch_9\","
        "\"last_id\":\"batch_9\",\"has_more\":false}";
    struct hs_reply replies[] = {{200, NULL, p1, 0, 0, 0}, {200, NULL, p2, 0, 0, 0}};
    struct hs_server s;
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_batch_remote b;
    struct arb_err err = {{0}};
    int found = 0;

    hs_start(&s, replies, 2);
    client_at("openai", s.port, &cfg, &c);
    cr_assert_eq(arb_batch_find(c, "0123456789abcdef", "2024-11-22T10:00:00Z", 2, NULL, NULL, &b,
                                &found, &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(found, 1);
    cr_assert_str_eq(b.id, "batch_9");
    cr_assert_str_eq(b.status, "finalizing");
    cr_assert_eq(b.ended, 0);
    cr_assert(strstr(s.seen, "GET /v1/batches?limit=100 "));
    cr_assert(strstr(s.seen, "GET /v1/batches?limit=100&after=batch_a "));
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);
}

Test(judge_batch, should_read_openai_batch_statuses_as_ended_or_not)
{
    static const char failed[] =
        "{\"id\":\"batch_f\",\"object\":\"batch\",\"status\":\"failed\",\"errors\":{\"object\":"
        "\"list\",\"data\":[{\"code\":\"token_limit_exceeded\",\"message\":\"Enqueued token limit "
        "reached\",\"param\":null,\"line\":null}]},\"output_file_id\":null,\"error_file_id\":null,"
        "\"created_at\":1732270300,\"request_counts\":{\"total\":0,\"completed\":0,\"failed\":0}}";
    static const char cancelling[] =
        "{\"id\":\"batch_c\",\"status\":\"cancelling\",\"errors\":null}";
    static const char expired[] = "{\"id\":\"batch_e\",\"status\":\"expired\",\"output_file_id\":"
                                  "\"file-o\",\"error_file_id\":\"file-e\"}";
    struct hs_reply replies[] = {{200, NULL, failed, 0, 0, 0},
                                 {200, NULL, cancelling, 0, 0, 0},
                                 {200, NULL, expired, 0, 0, 0}};
    struct hs_server s;
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_batch_remote b;
    struct arb_err err = {{0}};

    hs_start(&s, replies, 3);
    client_at("openai", s.port, &cfg, &c);
    cr_assert_eq(arb_batch_get(c, "batch_f", &b, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(b.ended, 1);
    cr_assert_str_eq(b.error, "token_limit_exceeded: Enqueued token limit reached");
    cr_assert_str_eq(b.output_file_id, "");
    cr_assert_str_eq(b.created_at, "2024-11-22T10:11:40Z");
    cr_assert_eq(arb_batch_get(c, "batch_c", &b, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(b.ended, 0);
    cr_assert_eq(arb_batch_get(c, "batch_e", &b, &err), ARB_OK, "%s", err.msg);
    cr_assert_eq(b.ended, 1);
    cr_assert_str_eq(b.error_file_id, "file-e");
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);
}

/* The list is newest first: the search for a lost batch stops at the first batch created well
 * before the intent (a day on OpenAI, where the token decides; two minutes on Anthropic), and a search that could not get that far is an error, never
 * "not found" (which would submit the batch a second time). */
Test(judge_batch, should_stop_the_openai_search_at_batches_older_than_the_intent)
{
    static const char newer[] =
        "{\"object\":\"list\",\"data\":[{\"id\":\"batch_n\",\"status\":\"in_progress\","
        "\"created_at\":1732270300,\"metadata\":{}}],\"has_more\":true}";
    static const char older[] =
        "{\"object\":\"list\",\"data\":[{\"id\":\"batch_o\",\"status\":\"completed\","
        "\"created_at\":1732100000,\"metadata\":{}}],\"has_more\":true}";
    struct hs_reply replies[] = {{200, NULL, newer, 0, 0, 0}, {200, NULL, older, 0, 0, 0}};
    struct hs_server s;
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_batch_remote b;
    struct arb_err err = {{0}};
    int found = 1;

    hs_start(&s, replies, 2);
    client_at("openai", s.port, &cfg, &c);
    /* 1732270300 is 2024-11-22T10:11:40Z. */
    cr_assert_eq(arb_batch_find(c, "0123456789abcdef", "2024-11-22T10:10:00Z", 2, NULL, NULL, &b,
                                &found, &err),
                 ARB_OK, "%s", err.msg);
    cr_assert_eq(found, 0);
    cr_assert_eq(hs_requests(&s), 2);
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);
}

Test(judge_batch, should_not_call_a_batch_missing_when_the_search_could_not_finish)
{
    static const char oa[] =
        "{\"object\":\"list\",\"data\":[{\"id\":\"batch_n\",\"status\":\"in_progress\","
        "\"created_at\":1732270300,\"metadata\":{}}],\"has_more\":true}";
    static const char an[] =
        "{\"data\":[{\"id\":\"msgbatch_n\",\"type\":\"message_batch\",\"processing_status\":"
        "\"in_progress\",\"request_counts\":{\"processing\":7,\"succeeded\":0,\"errored\":0,"
        "\"canceled\":0,\"expired\":0},\"created_at\":\"2024-11-22T10:11:40.5Z\"}],"
        "\"has_more\":true,\"first_id\":\"msgbatch_n\",\"last_id\":\"msgbatch_n\"}";
    struct hs_reply r_oa[] = {{200, NULL, oa, 0, 0, 0}}, r_an[] = {{200, NULL, an, 0, 0, 0}};
    struct hs_server s;
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_batch_remote b;
    struct arb_err err = {{0}};
    int found = 0;

    /* Every page newer than the intent, always one more: the search gives up with an error. */
    hs_start(&s, r_oa, 1);
    client_at("openai", s.port, &cfg, &c);
    cr_assert_eq(arb_batch_find(c, "0123456789abcdef", "2024-11-22T10:10:00Z", 2, NULL, NULL, &b,
                                &found, &err),
                 ARB_EREMOTE);
    cr_assert(strstr(err.msg, "resume again"), "%s", err.msg);
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);

    hs_start(&s, r_an, 1);
    client_at("anthropic", s.port, &cfg, &c);
    memset(&err, 0, sizeof(err));
    cr_assert_eq(arb_batch_find(c, "0123456789abcdef", "2024-11-22T10:10:00Z", 2, never_known, NULL,
                                &b, &found, &err),
                 ARB_EREMOTE);
    cr_assert(strstr(err.msg, "resume again"), "%s", err.msg);
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);
}

Test(judge_batch, should_refuse_to_guess_among_more_anthropic_candidates_than_it_keeps)
{
    char page[16384];
    size_t at = 0;
    int i, found = 0;
    struct hs_reply replies[1];
    struct hs_server s;
    struct arb_judge_config cfg;
    struct arb_batch_client *c = NULL;
    struct arb_batch_remote b;
    struct arb_err err = {{0}};

    at += (size_t)snprintf(page + at, sizeof(page) - at, "{\"data\":[");
    for (i = 0; i < 40; i++)
        at += (size_t)snprintf(page + at, sizeof(page) - at,
                               "%s{\"id\":\"msgbatch_%d\",\"processing_status\":\"ended\","
                               "\"request_counts\":{\"succeeded\":2},\"created_at\":"
                               "\"2024-11-22T10:11:40Z\"}",
                               i ? "," : "", i);
    snprintf(page + at, sizeof(page) - at, "],\"has_more\":false}");
    replies[0] = (struct hs_reply){200, NULL, page, 0, 0, 0};
    hs_start(&s, replies, 1);
    client_at("anthropic", s.port, &cfg, &c);
    cr_assert_eq(arb_batch_find(c, "0123456789abcdef", "2024-11-22T10:10:00Z", 2, never_known, NULL,
                                &b, &found, &err),
                 ARB_EREMOTE);
    cr_assert(strstr(err.msg, "more than 32"), "%s", err.msg);
    cr_assert_eq(hs_requests(&s), 1); /* no candidate's results read: the answer is known */
    arb_batch_client_free(c);
    arb_judge_config_release(&cfg);
    hs_stop(&s);
}
