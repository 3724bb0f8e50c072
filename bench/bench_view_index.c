/*
 * bench_view_index.c - the case index of `arbiter view` (case_index.h) on a 100,000-case run.
 *
 * Writes a run through the store API into a fresh file in a mkdtemp directory under /tmp:
 * 100,000 cases x 2 systems, each case with a prompt (~250 bytes), two outputs (~600 bytes
 * each), 6 check records per system and a verdict whose comparison.json is ~1.5 KB.  One
 * case in 10 is judged (two judgments), one in 20 with the orders disagreeing; one in 200 has
 * a judge that failed, one in 50 a missing output, one in 100 is pending the judge and the
 * last 1,000 cases have no verdict yet; the candidate fails an expectation in one case in 5,
 * and one output in 97 holds the word "Zebracorn".  Then the file is opened read-only, as the
 * viewer opens it, and the index is built and queried.
 *
 * Prints, in ms, the reading of the texts the search looks through (and the memory they
 * take), the build, then best of 5 of: a first page, a filtered page (position-inconsistent),
 * a deep page (offset 90,000), a search for a new text (8 texts: each, the best and the worst)
 * and the next page of one, a sorted page (margin, descending; its first use makes the sort's
 * index, timed alone), a sorted filtered deep page and a neighbour lookup; then, on a new
 * connection, the first search of the run when its texts were not read before.  Pages hold 50 rows.
 * usage: bench_view_index [N [PATH]]   (PATH: write there and keep the file)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arbiter/case_index.h"
#include "arbiter/status.h"
#include "arbiter/store.h"

#define PER_TXN 1000
#define PAGE    50
#define BEST_OF 5

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *const systems[2] = {"baseline", "candidate"};
static const char *const words[] = {
    "invoice", "total",  "vendor",   "amount",   "line",    "item",    "price",  "quantity",
    "tax",     "net",    "gross",    "currency", "date",    "due",     "paid",   "order",
    "the",     "of",     "and",      "with",     "for",     "is",      "a",      "shipping",
    "address", "street", "city",     "customer", "account", "number",  "widget", "gadget",
    "service", "hours",  "discount", "rate",     "balance", "payment", "terms",  "reference"};
#define N_WORDS (sizeof(words) / sizeof(words[0]))

/* Append about len bytes of words chosen by *seed to out (cap bytes, NUL-terminated). */
static size_t prose(char *out, size_t cap, size_t len, uint32_t *seed)
{
    size_t n = 0;

    while (n < len && n + 16 < cap) {
        *seed = *seed * 1103515245u + 12345u;
        n += (size_t)snprintf(out + n, cap - n, "%s ", words[(*seed >> 16) % N_WORDS]);
    }
    out[n] = '\0';
    return n;
}

static enum arb_status put_output(struct arb_store *st, int64_t run, const char *case_id, int s,
                                  int i, struct arb_err *err)
{
    char text[1024];
    uint32_t seed = (uint32_t)(i * 2 + s + 1);
    size_t n = (size_t)snprintf(text, sizeof(text), "{\"invoice\": \"INV-%06d\", \"notes\": \"", i);

    n += prose(text + n, sizeof(text) - n, 560, &seed);
    if ((i * 2 + s) % 97 == 0)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "Zebracorn ");
    n += (size_t)snprintf(text + n, sizeof(text) - n, "\"}");
    struct arb_output_row o = {case_id, systems[s], "", text, n, 0, "00", NULL, 0};

    return arb_store_put_output(st, run, &o, err);
}

static enum arb_status put_checks(struct arb_store *st, int64_t run, const char *case_id, int s,
                                  int i, struct arb_err *err)
{
    static const char *const items[6] = {"valid-json",  "has-total", "number",
                                         "correctness", "vendor",    "formatting"};
    enum arb_status ret = ARB_OK;
    char record[320];

    for (int k = 0; k < 6 && ret == ARB_OK; k++) {
        int fail = s == 1 && k == 1 && i % 5 == 0;
        struct arb_check_row c = {case_id,         systems[s], k < 3 ? "expectation" : "criterion",
                                  items[k],        record,     fail ? "fail" : "pass",
                                  fail ? 0.0 : 1.0, 0, 0};

        snprintf(record, sizeof(record),
                 "{\"operator\":\"icontains\",\"expected\":\"\\\"total\\\"\",\"observed\":"
                 "\"{\\\"invoice\\\": \\\"INV-%06d\\\"...\",\"normalization\":[],\"notes\":[],"
                 "\"score\":%d,\"threshold\":1.0,\"fail_below\":null,\"verdict\":\"%s\"}",
                 i, !fail, c.verdict);
        ret = arb_store_put_check(st, run, &c, err);
    }
    return ret;
}

/* The judge member of comparison.json: i % 10 == 0 judged, i % 20 == 0 inconsistent. */
static const char *judge_member(int i)
{
    if (i % 200 == 0)
        return ",\"judge\":{\"error\":\"HTTP 500: upstream\",\"judgments\":2}";
    if (i % 20 == 0)
        return ",\"judge\":{\"winner\":\"TIE\",\"position_inconsistent\":true,"
               "\"sample_agreement\":0.5,\"order_winners\":[\"A\",\"B\"],\"judgments\":2}";
    if (i % 10 == 0)
        return ",\"judge\":{\"winner\":\"A\",\"position_inconsistent\":false,"
               "\"sample_agreement\":1,\"order_winners\":[\"A\",\"A\"],\"judgments\":2}";
    return "";
}

static enum arb_status put_judgments(struct arb_store *st, int64_t run, const char *case_id, int i,
                                     struct arb_err *err)
{
    static const char *const ords[2] = {"AB", "BA"};
    enum arb_status ret = ARB_OK;

    for (int o = 0; o < 2 && ret == ARB_OK && i % 10 == 0; o++) {
        int bad = i % 200 == 0 && o == 1;
        struct arb_judgment_row j = {case_id,
                                     systems[i % 2],
                                     systems[1 - i % 2],
                                     ords[o],
                                     0,
                                     0,
                                     "k",
                                     !bad,
                                     0,
                                     bad ? NULL : "{\"winner\":\"A\",\"reasoning\":\"fine\"}",
                                     bad ? "HTTP 500: upstream" : NULL,
                                     NULL,
                                     ""};

        ret = arb_store_put_judgment(st, run, &j, err);
    }
    return ret;
}

static enum arb_status put_verdict(struct arb_store *st, int64_t run, const char *case_id, int i,
                                   struct arb_err *err)
{
    char cmp[2048], pad[1024];
    uint32_t seed = (uint32_t)i + 7u;
    int missing = i % 50 == 7, pending = i % 100 == 13, failed = i % 200 == 0;
    double sa = missing ? NAN : 8.0 + (double)(i % 21) / 10.0;
    double sb = missing ? NAN : 9.0 + (double)(i % 11) / 10.0;
    const char *status = missing   ? "missing_output"
                         : pending ? "pending_judge"
                         : failed  ? "judge_failed"
                                   : "decided";
    const char *winner = strcmp(status, "decided") != 0 ? NULL
                         : i % 20 == 0                  ? "TIE"
                         : sa > sb                      ? systems[i % 2]
                         : sb > sa                      ? systems[1 - i % 2]
                                                        : "TIE";

    prose(pad, sizeof(pad), 900, &seed);
    snprintf(cmp, sizeof(cmp),
             "{\"winner\":null,\"status\":\"%s\",\"reasoning\":\"%s\",\"rubric\":{\"A\":"
             "{\"overall_score\":%g},\"B\":{\"overall_score\":%g}},\"expectation_results\":"
             "{\"A\":{\"passed\":3,\"total\":3},\"B\":{\"passed\":%d,\"total\":3}},"
             "\"unresolved\":[]%s}",
             status, pad, missing ? 0.0 : sa, missing ? 0.0 : sb, 3 - (i % 5 == 0),
             judge_member(i));
    /* The candidate (B when i is even) fails an expectation when i % 5 == 0. */
    double cand = i % 5 == 0 ? 2.0 / 3.0 : 1.0;
    struct arb_verdict_row v = {case_id, systems[i % 2],     systems[1 - i % 2], status, winner, sa,
                                sb,      i % 2 ? cand : 1.0, i % 2 ? 1.0 : cand, cmp};

    return arb_store_put_verdict(st, run, &v, err);
}

static enum arb_status put_case(struct arb_store *st, int64_t run, int i, int n,
                                struct arb_err *err)
{
    char case_id[32], prompt[512];
    uint32_t seed = (uint32_t)i * 31u + 3u;
    enum arb_status ret;
    size_t k = (size_t)snprintf(prompt, sizeof(prompt),
                                "Extract invoice %d as JSON with its total and vendor: ", i);

    prose(prompt + k, sizeof(prompt) - k, 200, &seed);
    snprintf(case_id, sizeof(case_id), "case-%06d", i);
    ret = arb_store_put_case(st, run, case_id, i, prompt, "{\"total\":1}", "{}", err);
    if (ret == ARB_OK)
        ret =
            arb_store_put_blinding(st, run, case_id, systems[i % 2], systems[1 - i % 2], "00", err);
    for (int s = 0; s < 2 && ret == ARB_OK; s++) {
        ret = put_output(st, run, case_id, s, i, err);
        if (ret == ARB_OK)
            ret = put_checks(st, run, case_id, s, i, err);
    }
    if (ret == ARB_OK)
        ret = put_judgments(st, run, case_id, i, err);
    if (ret == ARB_OK && i < n - 1000)
        ret = put_verdict(st, run, case_id, i, err);
    return ret;
}

static enum arb_status write_run(const char *path, int n, struct arb_err *err)
{
    struct arb_run_row r = {
        .suite_path = "suite.json",
        .suite_name = "bench",
        .suite_sha256 = "00",
        .suite_json = "{}",
        .systems_json = "[{\"name\":\"baseline\"},{\"name\":\"candidate\"}]",
        .seed = 7,
        .version = "bench",
    };
    struct arb_store *st = NULL;
    enum arb_status ret = arb_store_open(path, 0, &st, err);
    int64_t run = 0;

    if (ret == ARB_OK)
        ret = arb_store_run_create(st, &r, &run, err);
    for (int i = 0; i < n && ret == ARB_OK; i += PER_TXN) {
        ret = arb_store_begin(st, err);
        for (int k = i; k < i + PER_TXN && k < n && ret == ARB_OK; k++)
            ret = put_case(st, run, k, n, err);
        if (ret == ARB_OK)
            ret = arb_store_commit(st, err);
    }
    arb_store_close(st);
    return ret;
}

static int count_row(void *ctx, const struct arb_case_entry *e)
{
    (void)e;
    ++*(int *)ctx;
    return 0;
}

/* Best of BEST_OF of one query; *rows and *total from the last. */
static enum arb_status time_query(struct arb_store *st, const struct arb_case_query *q,
                                  double *best, int *rows, int64_t *total, struct arb_err *err)
{
    enum arb_status ret = ARB_OK;

    *best = INFINITY;
    for (int k = 0; k < BEST_OF && ret == ARB_OK; k++) {
        double t0 = now_ms();

        *rows = 0;
        ret = arb_case_index_query(st, q, count_row, rows, total, err);
        if (now_ms() - t0 < *best)
            *best = now_ms() - t0;
    }
    return ret;
}

static enum arb_status report(struct arb_store *st, const char *what,
                              const struct arb_case_query *q, struct arb_err *err)
{
    double ms;
    int rows;
    int64_t total;
    enum arb_status ret = time_query(st, q, &ms, &rows, &total, err);

    if (ret == ARB_OK)
        printf("  %-38s %8.2f ms  (%d rows of %lld)\n", what, ms, rows, (long long)total);
    return ret;
}

/* One call of q, timed: the first use of a sort or of a search text. */
static enum arb_status once(struct arb_store *st, const char *what, const struct arb_case_query *q,
                            double *ms, struct arb_err *err)
{
    int rows = 0;
    int64_t total = 0;
    double t0 = now_ms();
    enum arb_status ret = arb_case_index_query(st, q, count_row, &rows, &total, err);

    *ms = now_ms() - t0;
    if (ret == ARB_OK && what)
        printf("  %-38s %8.2f ms  (%d rows of %lld)\n", what, *ms, rows, (long long)total);
    return ret;
}

/*
 * New texts: rare and common words, two letters found nowhere, a word in nearly every case
 * ("the").  Each is searched in BEST_OF rounds over them all, so each search is of a text
 * other than the last one (a new one: only the last search's hits are kept), and its best is
 * kept.  Prints the text whose best is least, with its CPU time, and the one whose best is
 * most.
 */
#define N_TEXTS 8
static enum arb_status new_searches(struct arb_store *st, struct arb_err *err)
{
    static const char *const texts[N_TEXTS] = {
        "zebracorn", "invoice 4242", "Gross Tax", "widget gadget",
        "terms due", "the",          "zq",        "case-0999"};
    struct arb_case_query q = {.run = 1, .limit = PAGE};
    double best[N_TEXTS], cpu[N_TEXTS], ms;
    int lo = 0, hi = 0;
    enum arb_status ret = ARB_OK;

    for (int k = 0; k < N_TEXTS; k++)
        best[k] = INFINITY;
    for (int round = 0; round < BEST_OF && ret == ARB_OK; round++) {
        for (int k = 0; k < N_TEXTS && ret == ARB_OK; k++) {
            clock_t c0 = clock();

            q.search = texts[k];
            ret = once(st, NULL, &q, &ms, err);
            if (ms < best[k]) {
                best[k] = ms;
                cpu[k] = (double)(clock() - c0) * 1e3 / CLOCKS_PER_SEC;
            }
        }
    }
    for (int k = 1; k < N_TEXTS; k++) {
        lo = best[k] < best[lo] ? k : lo;
        hi = best[k] > best[hi] ? k : hi;
    }
    if (ret != ARB_OK)
        return ret;
    printf("  %-38s %8.2f ms  (%.0f ms of CPU, '%s'; most %.2f ms, '%s', of %d texts)\n",
           "search, a new text (texts held)", best[lo], cpu[lo], texts[lo], best[hi], texts[hi],
           N_TEXTS);
    printf("    each text, ms:");
    for (int k = 0; k < N_TEXTS; k++)
        printf(" '%s' %.1f", texts[k], best[k]);
    printf("\n");
    return ret;
}

static enum arb_status pages(struct arb_store *st, int n, struct arb_err *err)
{
    struct arb_case_query q = {.run = 1, .limit = PAGE};
    enum arb_status ret = report(st, "first page", &q, err);
    double ms;

    q.flags = ARB_CASE_POSITION_INCONSISTENT;
    if (ret == ARB_OK)
        ret = report(st, "filtered page (position-inconsistent)", &q, err);
    q.flags = 0;
    q.offset = n * 9 / 10;
    if (ret == ARB_OK)
        ret = report(st, "deep page (offset 90%)", &q, err);
    q.offset = 0;
    if (ret == ARB_OK)
        ret = new_searches(st, err);
    q.search = "zebracorn";
    q.offset = PAGE;
    if (ret == ARB_OK)
        ret = report(st, "search, its next page (kept hits)", &q, err);
    q.search = NULL;
    q.offset = 0;
    q.sort = ARB_CASE_SORT_MARGIN;
    q.descending = 1;
    if (ret == ARB_OK)
        ret = once(st, "sorted page, first (makes its index)", &q, &ms, err);
    if (ret == ARB_OK)
        ret = report(st, "sorted page (margin, descending)", &q, err);
    q.sort = ARB_CASE_SORT_WINNER;
    q.descending = 0;
    q.offset = n / 20;
    q.flags = ARB_CASE_JUDGED;
    if (ret == ARB_OK)
        ret = once(st, NULL, &q, &ms, err);
    if (ret == ARB_OK)
        ret = report(st, "sorted, filtered deep page (winner)", &q, err);
    return ret;
}

/* From a position-inconsistent case in the middle (i % 20 == 0 but not % 200) to the next. */
static enum arb_status neighbour(struct arb_store *st, int n, struct arb_err *err)
{
    struct arb_case_query q = {.run = 1, .limit = PAGE, .sort = ARB_CASE_SORT_STATUS};
    double best = INFINITY, t0;
    char from[32], next[64] = "";
    int i = n / 2 / 20 * 20 + 20;
    enum arb_status ret = ARB_OK;

    snprintf(from, sizeof(from), "case-%06d", i % 200 ? i : i + 20);
    q.flags = ARB_CASE_POSITION_INCONSISTENT;
    for (int k = 0; k < BEST_OF && ret == ARB_OK; k++) {
        t0 = now_ms();
        ret = arb_case_index_neighbor(st, &q, from, 1, next, sizeof(next), err);
        if (now_ms() - t0 < best)
            best = now_ms() - t0;
    }
    if (ret == ARB_OK)
        printf("  %-38s %8.2f ms  (after %s: %s)\n", "neighbour (status, filtered)", best, from,
               next);
    return ret;
}

/* The texts the search reads, then the index (arb_case_index_build reads both: timed apart). */
static enum arb_status build(struct arb_store *st, int n, struct arb_err *err)
{
    double t0 = now_ms();
    clock_t c0 = clock();
    size_t bytes = 0;
    enum arb_status ret = arb_case_index_load_search(st, 1, &bytes, err);

    if (ret == ARB_OK)
        printf("  %-38s %8.2f ms  (%.0f ms of CPU, %.1f MB held)\n", "search texts read",
               now_ms() - t0, (double)(clock() - c0) * 1e3 / CLOCKS_PER_SEC, (double)bytes / 1e6);
    t0 = now_ms();
    c0 = clock();
    if (ret == ARB_OK)
        ret = arb_case_index_build(st, 1, err);
    if (ret == ARB_OK)
        printf("  %-38s %8.2f ms  (%.0f ms of CPU, %d cases)\n", "index build", now_ms() - t0,
               (double)(clock() - c0) * 1e3 / CLOCKS_PER_SEC, n);
    return ret;
}

/* On a new connection, a page builds the index alone; then the first search reads the texts. */
static enum arb_status first_search(const char *path, struct arb_err *err)
{
    struct arb_case_query q = {.run = 1, .limit = PAGE};
    struct arb_store *st = NULL;
    enum arb_status ret = arb_store_open(path, ARB_STORE_READONLY, &st, err);
    double ms;
    clock_t c0;

    if (ret == ARB_OK)
        ret = once(st, NULL, &q, &ms, err);
    q.search = "zebracorn";
    c0 = clock();
    if (ret == ARB_OK)
        ret = once(st, NULL, &q, &ms, err);
    if (ret == ARB_OK)
        printf("  %-38s %8.2f ms  (%.0f ms of CPU)\n", "search, first of a run (reads texts)", ms,
               (double)(clock() - c0) * 1e3 / CLOCKS_PER_SEC);
    arb_store_close(st);
    return ret;
}

static enum arb_status measure(const char *path, int n, struct arb_err *err)
{
    struct arb_store *st = NULL;
    enum arb_status ret = arb_store_open(path, ARB_STORE_READONLY, &st, err);

    if (ret == ARB_OK)
        ret = build(st, n, err);
    if (ret == ARB_OK)
        ret = pages(st, n, err);
    if (ret == ARB_OK)
        ret = neighbour(st, n, err);
    arb_store_close(st);
    return ret == ARB_OK ? first_search(path, err) : ret;
}

static void remove_db(const char *path)
{
    char side[128];

    unlink(path);
    snprintf(side, sizeof(side), "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof(side), "%s-shm", path);
    unlink(side);
}

int main(int argc, char **argv)
{
    char dir[] = "/tmp/arb-bench-view-XXXXXX", path[96];
    struct arb_err err = {{0}};
    int n = argc > 1 ? atoi(argv[1]) : 100000, keep = argc > 2;
    enum arb_status ret = ARB_OK;
    double t0;

    if (n < 1000) {
        fprintf(stderr, "usage: bench_view_index [N >= 1000 [PATH]]\n");
        return 2;
    }
    if (keep) {
        snprintf(path, sizeof(path), "%s", argv[2]);
    } else if (!mkdtemp(dir)) {
        perror("bench_view_index: mkdtemp");
        return 1;
    } else {
        snprintf(path, sizeof(path), "%s/view.db", dir);
    }
    if (!keep || access(path, F_OK) != 0) {
        t0 = now_ms();
        ret = write_run(path, n, &err);
        printf("view index: %d cases written in %.1f s\n", n, (now_ms() - t0) / 1e3);
    }
    if (ret == ARB_OK)
        ret = measure(path, n, &err);
    if (!keep) {
        remove_db(path);
        rmdir(dir);
    }
    if (ret != ARB_OK) {
        fprintf(stderr, "bench_view_index: %s\n", err.msg);
        return 1;
    }
    return 0;
}
