/*
 * bench_checks.c - checks per second for each operator family, on 100,000
 * generated inputs each, in one process (`make bench`).  A benchmark, not a
 * test: it prints figures and fails only if a check errors.
 *
 * Each row compiles the check once and runs it on every input, then writes
 * each record as JSON too (the "+record" column), since `check --batch`
 * pays for both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arbiter/compare.h"
#include "arbiter/json.h"

#define N_INPUTS 100000

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned long long rng_next(unsigned long long *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Inputs of a kind: short answers, invoice JSON, ranked lists, call lists. */
enum kind { K_TEXT, K_NUMBER, K_JSON, K_LIST, K_CALLS };

static char *make_input(enum kind k, unsigned long long *rng)
{
    char *s = malloc(512);
    unsigned long long r = rng_next(rng);

    if (!s)
        return NULL;
    switch (k) {
    case K_TEXT:
        snprintf(s, 512, "%sThe answer is %llu.%s", r & 1 ? "" : "  ", r % 101,
                 r & 2 ? "" : " Acme Corp");
        break;
    case K_NUMBER:
        snprintf(s, 512, "$%llu,%03llu.%02llu", r % 100, (r >> 8) % 1000, (r >> 20) % 100);
        break;
    case K_JSON:
        snprintf(s, 512,
                 "{\"invoiceNumber\": \"INV-%04llu\", \"vendor\": \"Acme\", \"total\": %llu.5, "
                 "\"lineItems\": [{\"description\": \"Widget\", \"price\": %llu}]}",
                 r % 10000, r % 500, (r >> 10) % 100);
        break;
    case K_LIST:
        snprintf(s, 512, "[\"doc-%llu\", \"doc-%llu\", \"doc-%llu\", \"doc-2\", \"doc-%llu\"]",
                 r % 50, (r >> 8) % 50, (r >> 16) % 50, (r >> 24) % 50);
        break;
    case K_CALLS:
        snprintf(s, 512,
                 "[{\"name\": \"search\", \"args\": {\"q\": \"q%llu\"}}, {\"name\": \"open\", "
                 "\"args\": {\"id\": %llu}}]",
                 r % 3, r % 5);
        break;
    }
    return s;
}

struct row {
    const char *family;
    const char *check;
    enum kind kind;
};

static const struct row rows[] = {
    {"text", "{\"op\":\"exact\",\"expected\":\"The answer is 42.\"}", K_TEXT},
    {"text", "{\"op\":\"contains\",\"expected\":\"42\"}", K_TEXT},
    {"text", "{\"op\":\"starts_with\",\"expected\":\"The\"}", K_TEXT},
    {"text", "{\"op\":\"membership\",\"expected\":[\"a\",\"b\",\"The answer is 4.\"]}", K_TEXT},
    {"text", "{\"op\":\"normalized_exact\",\"expected\":\"the answer is 42.\"}", K_TEXT},
    {"text", "{\"op\":\"icontains\",\"expected\":\"ACME\"}", K_TEXT},
    {"text", "{\"op\":\"levenshtein\",\"expected\":\"The answer is 42.\"}", K_TEXT},
    {"text", "{\"op\":\"name\",\"expected\":\"Acme Corporation\"}", K_TEXT},
    {"regex", "{\"op\":\"regex\",\"expected\":\"answer is \\\\d+\"}", K_TEXT},
    {"regex", "{\"op\":\"regex\",\"expected\":\"^the answer is \\\\d{2}\\\\.\",\"flags\":\"i\"}",
     K_TEXT},
    {"regex", "{\"op\":\"regex\",\"expected\":\".*Acme.*\",\"mode\":\"fullmatch\"}", K_TEXT},
    {"numeric", "{\"op\":\"numeric\",\"expected\":12345.5,\"rtol\":0.01}", K_NUMBER},
    {"numeric", "{\"op\":\"within\",\"expected\":50000,\"tolerance\":10,\"percent\":true}",
     K_NUMBER},
    {"json", "{\"op\":\"json_valid\"}", K_JSON},
    {"json", "{\"op\":\"json_match\",\"expected\":{\"vendor\":\"Acme\",\"total\":10.5}}", K_JSON},
    {"json", "{\"op\":\"json_subset\",\"expected\":{\"vendor\":\"Acme\"}}", K_JSON},
    {"json", "{\"op\":\"json_canonical\",\"expected\":{\"vendor\":\"Acme\"}}", K_JSON},
    {"json",
     "{\"op\":\"json_distance\",\"expected\":{\"invoiceNumber\":\"INV-0001\",\"vendor\":"
     "\"Acme\",\"total\":1.5,\"lineItems\":[{\"description\":\"Widget\",\"price\":3}]}}",
     K_JSON},
    {"json", "{\"op\":\"exact\",\"expected\":\"Acme\",\"extract\":\"/vendor\"}", K_JSON},
    {"retrieval", "{\"op\":\"top_k\",\"expected\":[\"doc-2\",\"doc-7\"],\"k\":5}", K_LIST},
    {"trajectory",
     "{\"op\":\"trajectory_in_order\",\"expected\":[{\"name\":\"search\"},"
     "{\"name\":\"open\"}],\"match_args\":false}",
     K_CALLS},
    {"trajectory",
     "{\"op\":\"trajectory_any_order\",\"expected\":[{\"name\":\"open\",\"args\":"
     "{\"id\":1}}]}",
     K_CALLS},
    {"aggregate",
     "{\"op\":\"all\",\"checks\":[{\"op\":\"contains\",\"expected\":\"answer\"},"
     "{\"op\":\"regex\",\"expected\":\"\\\\d+\"},{\"op\":\"icontains\","
     "\"expected\":\"acme\"}]}",
     K_TEXT},
};

int main(void)
{
    char **inputs[5] = {0};
    unsigned long long rng = 0x9E3779B97F4A7C15ull;
    size_t i, k, r;
    struct arb_result res;
    struct arb_buf out;

    for (k = 0; k < 5; k++) {
        inputs[k] = malloc(N_INPUTS * sizeof(char *));
        if (!inputs[k])
            return 1;
        for (i = 0; i < N_INPUTS; i++) {
            inputs[k][i] = make_input((enum kind)k, &rng);
            if (!inputs[k][i])
                return 1;
        }
    }
    arb_result_init(&res);
    arb_buf_init(&out, 0);
    printf("%-10s %-22s %14s %16s   (%d inputs, one core)\n", "family", "operator", "checks/s",
           "checks/s+record", N_INPUTS);
    for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
        cJSON *cfg = cJSON_Parse(rows[r].check);
        struct arb_check *c = NULL;
        struct arb_err err = {{0}};
        double t0, t1, t2;
        size_t passes = 0;

        if (!cfg || arb_check_compile(cfg, NULL, &c, &err)) {
            fprintf(stderr, "bench: cannot compile %s: %s\n", rows[r].check, err.msg);
            return 1;
        }
        t0 = now();
        for (i = 0; i < N_INPUTS; i++) {
            const char *s = inputs[rows[r].kind][i];

            if (arb_check_run(c, s, strlen(s), NULL, &res, &err)) {
                fprintf(stderr, "bench: %s\n", err.msg);
                return 1;
            }
            passes += res.verdict == ARB_PASS;
        }
        t1 = now();
        for (i = 0; i < N_INPUTS; i++) {
            const char *s = inputs[rows[r].kind][i];

            arb_check_run(c, s, strlen(s), NULL, &res, &err);
            arb_buf_reset(&out);
            arb_result_write_json(&res, &out);
        }
        t2 = now();
        printf("%-10s %-22s %14.0f %16.0f   (%zu passed)\n", rows[r].family, arb_check_op(c),
               N_INPUTS / (t1 - t0), N_INPUTS / (t2 - t1), passes);
        arb_check_free(c);
        cJSON_Delete(cfg);
    }
    arb_result_release(&res);
    arb_buf_release(&out);
    for (k = 0; k < 5; k++) {
        for (i = 0; i < N_INPUTS; i++)
            free(inputs[k][i]);
        free(inputs[k]);
    }
    return 0;
}
