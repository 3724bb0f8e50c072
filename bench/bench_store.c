/*
 * bench_store.c - time writing one run's records into a fresh SQLite file.
 *
 * 10,000 cases x 2 systems x 6 checks: 120,000 check records, 20,000
 * outputs and 10,000 verdicts (plus the 10,000 cases and blindings), in
 * transactions of 100 cases as `arbiter run` commits them, into a new file
 * in a mkdtemp directory under /tmp that is removed afterwards.  The time
 * runs from opening (creating the schema) to closing (the final WAL
 * checkpoint).  A figure to watch, not a test (goal of issue 4: well under 1 s).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arbiter/status.h"
#include "arbiter/store.h"

#define CASES   10000
#define SYSTEMS 2
#define CHECKS  6
#define PER_TXN 100

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *const systems[SYSTEMS] = {"baseline", "candidate"};
static const char *const items[CHECKS] = {"valid-json",  "vendor",     "total",
                                          "correctness", "formatting", "sum"};

/* The records of one case; bufs are scratch space for its texts. */
static enum arb_status put_case(struct arb_store *st, int64_t run, int i, struct arb_err *err)
{
    char case_id[32], output[512], record[256], comparison[256];
    enum arb_status ret;

    snprintf(case_id, sizeof(case_id), "inv-%05d", i);
    ret = arb_store_put_case(st, run, case_id, i, "Extract the invoice as JSON.",
                             "{\"invoiceNumber\":\"INV-0042\",\"total\":1234.5}", "{}", err);
    if (ret == ARB_OK)
        ret = arb_store_put_blinding(
            st, run, case_id, systems[i % 2], systems[1 - i % 2],
            "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", err);
    for (int s = 0; s < SYSTEMS && ret == ARB_OK; s++) {
        int n = snprintf(output, sizeof(output),
                         "{\"invoiceNumber\":\"INV-%05d\",\"vendor\":\"Acme Corp\",\"lineItems\":"
                         "[{\"description\":\"widget\",\"price\":12.5},{\"description\":\"gadget"
                         "\",\"price\":99}],\"total\":%d.5,\"system\":%d}",
                         i, 1000 + i, s);
        struct arb_output_row o = {
            case_id,
            systems[s],
            "",
            output,
            (size_t)n,
            0,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "{\"duration_ms\":1200}",
            0};

        ret = arb_store_put_output(st, run, &o, err);
        for (int k = 0; k < CHECKS && ret == ARB_OK; k++) {
            struct arb_check_row c = {case_id,
                                      systems[s],
                                      k < 3 ? "expectation" : "criterion",
                                      items[k],
                                      record,
                                      (i + k + s) % 7 ? "pass" : "fail",
                                      (i + k + s) % 7 ? 1.0 : 0.0, 0, 0};

            snprintf(record, sizeof(record),
                     "{\"operator\":\"exact\",\"expected\":\"INV-0042\",\"observed\":\"INV-%05d\","
                     "\"normalization\":[],\"notes\":[],\"score\":%d,\"threshold\":1.0,"
                     "\"fail_below\":null,\"verdict\":\"%s\"}",
                     i, (i + k + s) % 7 ? 1 : 0, c.verdict);
            ret = arb_store_put_check(st, run, &c, err);
        }
    }
    if (ret == ARB_OK) {
        struct arb_verdict_row v = {case_id,
                                    systems[i % 2],
                                    systems[1 - i % 2],
                                    "decided",
                                    i % 3 ? systems[i % 2] : "TIE",
                                    8.5,
                                    7.0,
                                    1.0,
                                    0.67,
                                    comparison};

        snprintf(comparison, sizeof(comparison),
                 "{\"winner\":\"%s\",\"reasoning\":\"Output A names the vendor and totals "
                 "correctly.\",\"rubric\":{}}",
                 i % 3 ? "A" : "TIE");
        ret = arb_store_put_verdict(st, run, &v, err);
    }
    return ret;
}

static enum arb_status write_run(const char *path, struct arb_err *err)
{
    struct arb_run_row r = {
        .suite_path = "examples/invoices/suite.json",
        .suite_name = "bench",
        .suite_sha256 = "00",
        .suite_json = "{}",
        .systems_json = "[{\"name\":\"baseline\",\"path\":\"b.jsonl\"},"
                        "{\"name\":\"candidate\",\"path\":\"c.jsonl\"}]",
        .seed = 7,
        .version = "bench",
    };
    struct arb_store *st = NULL;
    enum arb_status ret = arb_store_open(path, 0, &st, err);
    int64_t run = 0;

    if (ret == ARB_OK)
        ret = arb_store_run_create(st, &r, &run, err);
    for (int i = 0; i < CASES && ret == ARB_OK; i += PER_TXN) {
        ret = arb_store_begin(st, err);
        for (int k = i; k < i + PER_TXN && ret == ARB_OK; k++)
            ret = put_case(st, run, k, err);
        if (ret == ARB_OK)
            ret = arb_store_commit(st, err);
    }
    arb_store_close(st);
    return ret;
}

int main(void)
{
    char dir[] = "/tmp/arb-bench-store-XXXXXX";
    char path[64], side[80];
    struct arb_err err = {{0}};
    enum arb_status ret;
    double t0, ms;

    if (!mkdtemp(dir)) {
        perror("bench_store: mkdtemp");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/bench.db", dir);
    t0 = now_ms();
    ret = write_run(path, &err);
    ms = now_ms() - t0;
    unlink(path);
    snprintf(side, sizeof(side), "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", path);
    unlink(side);
    rmdir(dir);
    if (ret != ARB_OK) {
        fprintf(stderr, "bench_store: %s\n", err.msg);
        return 1;
    }
    printf("store: %d checks + %d outputs + %d verdicts in %.0f ms\n", CASES * SYSTEMS * CHECKS,
           CASES * SYSTEMS, CASES, ms);
    return 0;
}
