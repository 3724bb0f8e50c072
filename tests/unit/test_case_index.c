/*
 * Unit tests for the case index of `arbiter view` (case_index.h): a run of ten cases between
 * systems x and y whose records give each flag, written through the store API into a real
 * file, then read through a read-only store as the viewer reads it.
 *
 *   seq id                 record                                          flags
 *   0   c-decided          decided, x wins 9 to 7, an output "100% sure_thing"
 *   1   b-pending          pending_judge, a judge slot failed               judge failed
 *   2   a-missing          missing_output
 *   3   h-judge-failed     judge_failed, the judge's error, BA invalid      judge failed
 *   4   e-inconsistent     TIE 8 to 8, orders A then B                      judged, inconsistent
 *   5   d-disagree         x wins on the rubric (6 to 9, A is y), the judge judged, disagree
 *                          says A (y) twice; prompt "Zebra stripes"
 *   6   g-expfail          y wins 7 to 8.5, x failed an expectation, an     expectation failed,
 *                          llm_judge check of x failed                      judge failed
 *   7   f-unjudged         no verdict yet, blinded y/x; y failed an         expectation failed
 *                          expectation
 *   8   i-bare             no verdict, no blinding: the pair x/y
 *   9   j-agree            x wins 9 to 8, the judge says A (x) twice, its   judged
 *                          AB slot retried successfully
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <criterion/criterion.h>

#include "arbiter/case_index.h"
#include "arbiter/select.h"
#include "arbiter/status.h"
#include "arbiter/store.h"
#include "store_fixture.h"

#define N_CASES 10

static const char *const ids[N_CASES] = {
    "c-decided",  "b-pending", "a-missing",  "h-judge-failed", "e-inconsistent",
    "d-disagree", "g-expfail", "f-unjudged", "i-bare",         "j-agree"};

static void ok(enum arb_status rc, const struct arb_err *err)
{
    cr_assert_eq(rc, ARB_OK, "%s", err->msg);
}

static int64_t new_run(struct arb_store *st, const char *systems_json)
{
    struct arb_run_row r = {
        .suite_path = "suite.json",
        .suite_name = "index",
        .suite_sha256 = "00ff",
        .suite_json = "{}",
        .systems_json = systems_json,
        .version = "0",
    };
    struct arb_err err = {{0}};
    int64_t id = 0;

    ok(arb_store_run_create(st, &r, &id, &err), &err);
    return id;
}

static void put_output(struct arb_store *st, int64_t run, const char *c, const char *sys,
                       const char *text)
{
    struct arb_output_row o = {c, sys, "", text, strlen(text), 0, "h", NULL, 0};
    struct arb_err err = {{0}};

    ok(arb_store_put_output(st, run, &o, &err), &err);
}

static void put_check(struct arb_store *st, int64_t run, const char *c, const char *sys,
                      const char *kind, const char *verdict)
{
    struct arb_check_row k = {c, sys, kind, "e1", "{}", verdict, 1.0, 0, 0};
    struct arb_err err = {{0}};

    ok(arb_store_put_check(st, run, &k, &err), &err);
}

/* A verdict of pair (a, b) with its judge member (NULL for none) in comparison_json. */
static void put_verdict(struct arb_store *st, int64_t run, const char *c, const char *a,
                        const char *b, const char *status, const char *winner, double sa, double sb,
                        double pa, double pb, const char *judge)
{
    char cmp[512];
    struct arb_verdict_row v = {c, a, b, status, winner, sa, sb, pa, pb, cmp};
    struct arb_err err = {{0}};

    snprintf(cmp, sizeof(cmp), "{\"winner\":null,\"reasoning\":\"r\"%s%s}",
             judge ? ",\"judge\":" : "", judge ? judge : "");
    ok(arb_store_put_verdict(st, run, &v, &err), &err);
}

static void put_judgment(struct arb_store *st, int64_t run, const char *c, const char *a,
                         const char *b, const char *ord, int attempt, int valid, const char *error)
{
    struct arb_judgment_row j = {c, a, b, ord, 0, attempt, "k", valid, 0, "{}", error, NULL, ""};
    struct arb_err err = {{0}};

    ok(arb_store_put_judgment(st, run, &j, &err), &err);
}

/* Every case: a case row with a prompt, x's and y's outputs, a passing expectation each. */
static void put_cases(struct arb_store *st, int64_t run)
{
    struct arb_err err = {{0}};

    for (int i = 0; i < N_CASES; i++) {
        const char *prompt = i == 5 ? "Zebra stripes, counted" : "Extract the invoice";
        const char *x_out = i == 0 ? "a 100% sure_thing" : "plain text x";

        ok(arb_store_put_case(st, run, ids[i], i, prompt, NULL, "{}", &err), &err);
        put_output(st, run, ids[i], "x", x_out);
        put_output(st, run, ids[i], "y", "plain text y");
        if (i != 6)
            put_check(st, run, ids[i], "x", "expectation", "pass");
        if (i != 7)
            put_check(st, run, ids[i], "y", "expectation", "pass");
        put_check(st, run, ids[i], "x", "criterion", "fail");
        if (i != 8)
            ok(arb_store_put_blinding(st, run, ids[i], i == 5 || i == 7 ? "y" : "x",
                                      i == 5 || i == 7 ? "x" : "y", "ab", &err),
               &err);
    }
}

static void put_records(struct arb_store *st, int64_t run)
{
    const double u = NAN;

    put_verdict(st, run, "c-decided", "x", "y", "decided", "x", 9, 7, 1, 1, NULL);
    put_verdict(st, run, "b-pending", "x", "y", "pending_judge", NULL, u, u, 1, 1, NULL);
    put_judgment(st, run, "b-pending", "x", "y", "AB", 0, 0, "HTTP 500");
    put_verdict(st, run, "a-missing", "x", "y", "missing_output", NULL, u, u, u, u, NULL);
    put_verdict(st, run, "h-judge-failed", "x", "y", "judge_failed", NULL, u, u, 1, 1,
                "{\"error\":\"HTTP 500\",\"judgments\":2}");
    put_judgment(st, run, "h-judge-failed", "x", "y", "AB", 0, 1, NULL);
    put_judgment(st, run, "h-judge-failed", "x", "y", "BA", 0, 0, "HTTP 500");
    put_verdict(st, run, "e-inconsistent", "x", "y", "decided", "TIE", 8, 8, 1, 1,
                "{\"winner\":\"TIE\",\"position_inconsistent\":true,\"sample_agreement\":0,"
                "\"order_winners\":[\"A\",\"B\"],\"judgments\":2}");
    put_verdict(st, run, "d-disagree", "y", "x", "decided", "x", 6, 9, 1, 1,
                "{\"winner\":\"A\",\"position_inconsistent\":false,\"sample_agreement\":1,"
                "\"order_winners\":[\"A\",\"A\"],\"judgments\":2}");
    put_verdict(st, run, "g-expfail", "x", "y", "decided", "y", 7, 8.5, 0.5, 1, NULL);
    put_check(st, run, "g-expfail", "x", "expectation", "fail");
    put_judgment(st, run, "g-expfail", "x", "llm_judge:expectation:e2", "AB", 0, 0,
                 "no valid reply");
    put_check(st, run, "f-unjudged", "y", "expectation", "fail");
    put_verdict(st, run, "j-agree", "x", "y", "decided", "x", 9, 8, 1, 1,
                "{\"winner\":\"A\",\"position_inconsistent\":false,\"sample_agreement\":1,"
                "\"order_winners\":[\"A\",\"A\"],\"judgments\":2}");
    put_judgment(st, run, "j-agree", "x", "y", "AB", 0, 0, "schema");
    put_judgment(st, run, "j-agree", "x", "y", "AB", 1, 1, NULL);
    put_judgment(st, run, "j-agree", "x", "y", "BA", 0, 1, NULL);
}

/* Run 1 as the table above says; then the file is read through a read-only store. */
static struct arb_store *the_run(void)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_err err = {{0}};
    int64_t run;

    ok(arb_store_begin(st, &err), &err);
    run = new_run(st, "[{\"name\":\"x\"},{\"name\":\"y\"}]");
    cr_assert_eq(run, 1);
    put_cases(st, run);
    put_records(st, run);
    ok(arb_store_commit(st, &err), &err);
    arb_store_close(st);
    return fx_open_store(ARB_STORE_READONLY);
}

/* ---- reading a page ------------------------------------------------------------------------ */

struct page {
    char ids[N_CASES * 2][40];
    struct arb_case_entry rows[N_CASES * 2];
    char status[N_CASES * 2][24], winner[N_CASES * 2][8], judge[N_CASES * 2][8];
    char sys_a[N_CASES * 2][8], sys_b[N_CASES * 2][8];
    int n;
};

static void keep(char *dst, size_t len, const char *s)
{
    snprintf(dst, len, "%s", s ? s : "(null)");
}

static int on_row(void *ctx, const struct arb_case_entry *e)
{
    struct page *p = ctx;

    cr_assert_lt(p->n, N_CASES * 2);
    keep(p->ids[p->n], sizeof(p->ids[0]), e->case_id);
    keep(p->status[p->n], sizeof(p->status[0]), e->status);
    keep(p->winner[p->n], sizeof(p->winner[0]), e->winner);
    keep(p->judge[p->n], sizeof(p->judge[0]), e->judge_winner);
    keep(p->sys_a[p->n], sizeof(p->sys_a[0]), e->system_a);
    keep(p->sys_b[p->n], sizeof(p->sys_b[0]), e->system_b);
    p->rows[p->n] = *e;
    p->n++;
    return 0;
}

/* The ids of a page joined by spaces, and *total. */
static const char *page_ids(struct arb_store *st, const struct arb_case_query *q, int64_t *total,
                            struct page *p)
{
    static char out[N_CASES * 2 * 40];
    struct arb_err err = {{0}};
    size_t len = 0;

    memset(p, 0, sizeof(*p));
    ok(arb_case_index_query(st, q, on_row, p, total, &err), &err);
    out[0] = '\0';
    for (int i = 0; i < p->n; i++)
        len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", i ? " " : "", p->ids[i]);
    return out;
}

static const char *ids_of(struct arb_store *st, const struct arb_case_query *q, int64_t *total)
{
    static struct page p;

    return page_ids(st, q, total, &p);
}

/* The matching ids for one filter, with their total. */
static void expect(struct arb_store *st, const struct arb_case_query *q, const char *want)
{
    int64_t total = -1;
    const char *got = ids_of(st, q, &total);
    int64_t words = want[0] != '\0';

    for (const char *c = want; *c; c++)
        words += *c == ' ';
    cr_assert_str_eq(got, want);
    cr_assert_eq(total, words, "total %lld for '%s'", (long long)total, want);
}

static struct arb_case_query all_rows(void)
{
    struct arb_case_query q = {.run = 1, .limit = 100};

    return q;
}

Test(case_index, should_derive_each_flag_from_the_records, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();

    expect(st, &q,
           "c-decided b-pending a-missing h-judge-failed e-inconsistent d-disagree g-expfail "
           "f-unjudged i-bare j-agree");
    q.flags = ARB_CASE_JUDGED;
    expect(st, &q, "e-inconsistent d-disagree j-agree");
    q.flags = ARB_CASE_POSITION_INCONSISTENT;
    expect(st, &q, "e-inconsistent");
    q.flags = ARB_CASE_JUDGE_FAILED;
    expect(st, &q, "b-pending h-judge-failed g-expfail");
    q.flags = ARB_CASE_DISAGREE;
    expect(st, &q, "d-disagree");
    q.flags = ARB_CASE_EXPECTATION_FAILED;
    expect(st, &q, "g-expfail f-unjudged");
    arb_store_close(st);
}

Test(case_index, should_filter_on_status_and_winner_alone_and_combined, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();

    q.status = "decided";
    expect(st, &q, "c-decided e-inconsistent d-disagree g-expfail j-agree");
    q.status = "pending";
    expect(st, &q, "f-unjudged i-bare");
    q.status = "missing_output";
    expect(st, &q, "a-missing");
    q.status = "";
    q.winner = "x";
    expect(st, &q, "c-decided d-disagree j-agree");
    q.winner = "TIE";
    expect(st, &q, "e-inconsistent");
    q.winner = "none";
    expect(st, &q, "b-pending a-missing h-judge-failed f-unjudged i-bare");
    q.winner = "x";
    q.status = "decided";
    q.flags = ARB_CASE_JUDGED;
    expect(st, &q, "d-disagree j-agree");
    q.flags = ARB_CASE_JUDGED | ARB_CASE_DISAGREE;
    expect(st, &q, "d-disagree");
    q.flags = ARB_CASE_JUDGE_FAILED | ARB_CASE_EXPECTATION_FAILED;
    q.status = NULL;
    q.winner = NULL;
    expect(st, &q, "g-expfail");
    q.flags = ARB_CASE_POSITION_INCONSISTENT | ARB_CASE_DISAGREE;
    expect(st, &q, "");
    q.flags = 0;
    q.winner = "nobody";
    expect(st, &q, "");
    arb_store_close(st);
}

Test(case_index, should_fill_each_row_from_its_verdict, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();
    static struct page p;
    int64_t total = 0;

    page_ids(st, &q, &total, &p);
    cr_assert_eq(p.n, N_CASES);
    /* d-disagree: A is y, the judge's winner y, the rubric's x. */
    cr_assert_str_eq(p.sys_a[5], "y");
    cr_assert_str_eq(p.sys_b[5], "x");
    cr_assert_str_eq(p.judge[5], "y");
    cr_assert_str_eq(p.winner[5], "x");
    cr_assert_eq(p.rows[5].seq, 5);
    cr_assert_float_eq(p.rows[5].score_a, 6.0, 1e-9);
    cr_assert_float_eq(p.rows[5].score_b, 9.0, 1e-9);
    /* Inconsistent orders name no judge's winner; agreeing ones name the system. */
    cr_assert_str_eq(p.judge[4], "(null)");
    cr_assert_str_eq(p.judge[9], "x");
    cr_assert_str_eq(p.judge[3], "(null)", "a failed judge names no winner");
    /* Unknowns: NaN scores and pass rates, NULL status and winner. */
    cr_assert(isnan(p.rows[2].score_a) && isnan(p.rows[2].pass_rate_b));
    cr_assert_float_eq(p.rows[6].pass_rate_a, 0.5, 1e-9);
    cr_assert_str_eq(p.status[7], "(null)");
    cr_assert_str_eq(p.winner[7], "(null)");
    /* Without a verdict: the blinded pair, else the systems in the suite's order. */
    cr_assert_str_eq(p.sys_a[7], "y");
    cr_assert_str_eq(p.sys_b[7], "x");
    cr_assert_str_eq(p.sys_a[8], "x");
    cr_assert_str_eq(p.sys_b[8], "y");
    cr_assert_eq(p.rows[0].flags, 0u);
    cr_assert_eq(p.rows[6].flags, ARB_CASE_JUDGE_FAILED | ARB_CASE_EXPECTATION_FAILED);
    arb_store_close(st);
}

Test(case_index, should_count_each_flag, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_err err = {{0}};
    int64_t counts[5] = {-1, -1, -1, -1, -1}, all = -1;

    ok(arb_case_index_counts(st, 1, counts, &all, &err), &err);
    cr_assert_eq(all, N_CASES);
    cr_assert_eq(counts[0], 3, "judged");
    cr_assert_eq(counts[1], 1, "position inconsistent");
    cr_assert_eq(counts[2], 3, "judge failed");
    cr_assert_eq(counts[3], 1, "disagree");
    cr_assert_eq(counts[4], 2, "expectation failed");
    cr_assert_eq(arb_case_index_counts(st, 7, counts, &all, &err), ARB_EUSAGE);
    cr_assert(strstr(err.msg, "no run 7") != NULL, "%s", err.msg);
    arb_store_close(st);
}

/* ---- search -------------------------------------------------------------------------------- */

Test(case_index, should_search_ids_prompts_and_outputs_without_case, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();

    q.search = "judge-f";
    expect(st, &q, "h-judge-failed");
    q.search = "ZEBRA";
    expect(st, &q, "d-disagree");
    q.search = "zebra stripes";
    expect(st, &q, "d-disagree");
    q.search = "SURE_thing";
    expect(st, &q, "c-decided");
    q.search = "plain text y";
    expect(st, &q,
           "c-decided b-pending a-missing h-judge-failed e-inconsistent d-disagree g-expfail "
           "f-unjudged i-bare j-agree");
    q.search = "nowhere at all";
    expect(st, &q, "");
    /* Flags and a search together, then the search again from its kept hits. */
    q.search = "zebra";
    q.flags = ARB_CASE_JUDGED;
    expect(st, &q, "d-disagree");
    q.flags = ARB_CASE_POSITION_INCONSISTENT;
    expect(st, &q, "");
    arb_store_close(st);
}

Test(case_index, should_take_percent_underscore_and_backslash_literally, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();

    q.search = "%";
    expect(st, &q, "c-decided");
    q.search = "_";
    expect(st, &q, "c-decided");
    q.search = "100%";
    expect(st, &q, "c-decided");
    /* Unescaped, _ would match the % and % any text. */
    q.search = "100_";
    expect(st, &q, "");
    q.search = "e%t";
    expect(st, &q, "");
    q.search = "\\";
    expect(st, &q, "");
    q.search = "h-judge\\";
    expect(st, &q, "");
    /* An empty search is none. */
    q.search = "";
    expect(st, &q,
           "c-decided b-pending a-missing h-judge-failed e-inconsistent d-disagree g-expfail "
           "f-unjudged i-bare j-agree");
    arb_store_close(st);
}

/* ---- sorting and paging -------------------------------------------------------------------- */

static void expect_sorted(struct arb_store *st, enum arb_case_sort sort, int desc, const char *want)
{
    struct arb_case_query q = all_rows();

    q.sort = sort;
    q.descending = desc;
    expect(st, &q, want);
}

Test(case_index, should_sort_both_ways_with_unknown_keys_last, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = the_run();

    expect_sorted(st, ARB_CASE_SORT_SEQ, 1,
                  "j-agree i-bare f-unjudged g-expfail d-disagree e-inconsistent h-judge-failed "
                  "a-missing b-pending c-decided");
    expect_sorted(st, ARB_CASE_SORT_ID, 0,
                  "a-missing b-pending c-decided d-disagree e-inconsistent f-unjudged g-expfail "
                  "h-judge-failed i-bare j-agree");
    expect_sorted(st, ARB_CASE_SORT_ID, 1,
                  "j-agree i-bare h-judge-failed g-expfail f-unjudged e-inconsistent d-disagree "
                  "c-decided b-pending a-missing");
    expect_sorted(st, ARB_CASE_SORT_STATUS, 0,
                  "c-decided e-inconsistent d-disagree g-expfail j-agree h-judge-failed "
                  "a-missing b-pending f-unjudged i-bare");
    expect_sorted(st, ARB_CASE_SORT_STATUS, 1,
                  "b-pending a-missing h-judge-failed j-agree g-expfail d-disagree "
                  "e-inconsistent c-decided f-unjudged i-bare");
    expect_sorted(st, ARB_CASE_SORT_WINNER, 0,
                  "e-inconsistent c-decided d-disagree j-agree g-expfail b-pending a-missing "
                  "h-judge-failed f-unjudged i-bare");
    expect_sorted(st, ARB_CASE_SORT_WINNER, 1,
                  "g-expfail j-agree d-disagree c-decided e-inconsistent b-pending a-missing "
                  "h-judge-failed f-unjudged i-bare");
    /* Margins: e 0, j 1, g 1.5, c 2, d 3. */
    expect_sorted(st, ARB_CASE_SORT_MARGIN, 0,
                  "e-inconsistent j-agree g-expfail c-decided d-disagree b-pending a-missing "
                  "h-judge-failed f-unjudged i-bare");
    expect_sorted(st, ARB_CASE_SORT_MARGIN, 1,
                  "d-disagree c-decided g-expfail j-agree e-inconsistent b-pending a-missing "
                  "h-judge-failed f-unjudged i-bare");
    arb_store_close(st);
}

Test(case_index, should_page_with_totals_across_the_unknown_keys, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();
    int64_t total = 0;

    q.limit = 3;
    cr_assert_str_eq(ids_of(st, &q, &total), "c-decided b-pending a-missing");
    cr_assert_eq(total, N_CASES);
    q.offset = 9;
    cr_assert_str_eq(ids_of(st, &q, &total), "j-agree");
    q.offset = 10;
    cr_assert_str_eq(ids_of(st, &q, &total), "");
    cr_assert_eq(total, N_CASES, "a page past the end still counts every row");
    /* Winner: five with one, then five without; a page across them. */
    q.sort = ARB_CASE_SORT_WINNER;
    q.limit = 4;
    q.offset = 4;
    cr_assert_str_eq(ids_of(st, &q, &total), "g-expfail b-pending a-missing h-judge-failed");
    q.offset = 7;
    cr_assert_str_eq(ids_of(st, &q, &total), "h-judge-failed f-unjudged i-bare");
    q.descending = 1;
    q.offset = 3;
    cr_assert_str_eq(ids_of(st, &q, &total), "c-decided e-inconsistent b-pending a-missing");
    /* A filtered page counts the filtered rows: g (y wins), then b and h (no winner). */
    q.flags = ARB_CASE_JUDGE_FAILED;
    q.offset = 1;
    q.limit = 1;
    cr_assert_str_eq(ids_of(st, &q, &total), "b-pending");
    cr_assert_eq(total, 3);
    q.search = "plain";
    q.sort = ARB_CASE_SORT_MARGIN;
    cr_assert_str_eq(ids_of(st, &q, &total), "b-pending");
    cr_assert_eq(total, 3);
    arb_store_close(st);
}

static int stop_at_two(void *ctx, const struct arb_case_entry *e)
{
    (void)e;
    return ++*(int *)ctx == 2;
}

Test(case_index, should_refuse_a_bad_page_and_stop_when_told, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();
    struct arb_err err = {{0}};
    int64_t total = 0;
    int n = 0;

    q.limit = 0;
    cr_assert_eq(arb_case_index_query(st, &q, stop_at_two, &n, &total, &err), ARB_EUSAGE);
    q.limit = 1001;
    cr_assert_eq(arb_case_index_query(st, &q, stop_at_two, &n, &total, &err), ARB_EUSAGE);
    q.limit = 10;
    q.offset = -1;
    cr_assert_eq(arb_case_index_query(st, &q, stop_at_two, &n, &total, &err), ARB_EUSAGE);
    q.offset = 0;
    q.sort = (enum arb_case_sort)9;
    cr_assert_eq(arb_case_index_query(st, &q, stop_at_two, &n, &total, &err), ARB_EUSAGE);
    q.sort = ARB_CASE_SORT_SEQ;
    q.run = 5;
    cr_assert_eq(arb_case_index_query(st, &q, stop_at_two, &n, &total, &err), ARB_EUSAGE);
    q.run = 1;
    ok(arb_case_index_query(st, &q, stop_at_two, &n, &total, &err), &err);
    cr_assert_eq(n, 2, "the callback stops the page");
    cr_assert_eq(total, N_CASES);
    arb_store_close(st);
}

/* ---- neighbours ---------------------------------------------------------------------------- */

static const char *near(struct arb_store *st, const struct arb_case_query *q, const char *id,
                        int dir)
{
    static char buf[64];
    struct arb_err err = {{0}};

    ok(arb_case_index_neighbor(st, q, id, dir, buf, sizeof(buf), &err), &err);
    return buf;
}

Test(case_index, should_step_through_a_filter_to_its_ends, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();

    q.offset = 5; /* ignored */
    cr_assert_str_eq(near(st, &q, "c-decided", 1), "b-pending");
    cr_assert_str_eq(near(st, &q, "c-decided", -1), "");
    cr_assert_str_eq(near(st, &q, "j-agree", 1), "");
    cr_assert_str_eq(near(st, &q, "j-agree", -1), "i-bare");
    /* Judge failed: b, h, g in reading order. */
    q.flags = ARB_CASE_JUDGE_FAILED;
    cr_assert_str_eq(near(st, &q, "b-pending", 1), "h-judge-failed");
    cr_assert_str_eq(near(st, &q, "h-judge-failed", 1), "g-expfail");
    cr_assert_str_eq(near(st, &q, "g-expfail", 1), "");
    cr_assert_str_eq(near(st, &q, "g-expfail", -1), "h-judge-failed");
    cr_assert_str_eq(near(st, &q, "b-pending", -1), "");
    cr_assert_str_eq(near(st, &q, "c-decided", 1), "", "a case the filter leaves out");
    cr_assert_str_eq(near(st, &q, "zz", 1), "", "a case the run lacks");
    /* Descending ids under a search: j, i, h, g ... every case holds "plain". */
    q.flags = 0;
    q.search = "plain";
    q.sort = ARB_CASE_SORT_ID;
    q.descending = 1;
    cr_assert_str_eq(near(st, &q, "j-agree", 1), "i-bare");
    cr_assert_str_eq(near(st, &q, "a-missing", 1), "");
    cr_assert_str_eq(near(st, &q, "a-missing", -1), "b-pending");
    arb_store_close(st);
}

Test(case_index, should_step_across_the_unknown_keys_both_ways, .init = fx_setup,
     .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();

    /* e j g c d | b a h f i */
    q.sort = ARB_CASE_SORT_MARGIN;
    cr_assert_str_eq(near(st, &q, "e-inconsistent", -1), "");
    cr_assert_str_eq(near(st, &q, "g-expfail", 1), "c-decided");
    cr_assert_str_eq(near(st, &q, "d-disagree", 1), "b-pending");
    cr_assert_str_eq(near(st, &q, "b-pending", -1), "d-disagree");
    cr_assert_str_eq(near(st, &q, "h-judge-failed", 1), "f-unjudged");
    cr_assert_str_eq(near(st, &q, "i-bare", 1), "");
    /* d c g j e | b a h f i */
    q.descending = 1;
    cr_assert_str_eq(near(st, &q, "d-disagree", -1), "");
    cr_assert_str_eq(near(st, &q, "c-decided", 1), "g-expfail");
    cr_assert_str_eq(near(st, &q, "e-inconsistent", 1), "b-pending");
    cr_assert_str_eq(near(st, &q, "b-pending", -1), "e-inconsistent");
    cr_assert_str_eq(near(st, &q, "a-missing", -1), "b-pending");
    /* Status, decided ones among them: c e d g j | h a b | f i (the last two: no verdict). */
    q.descending = 0;
    q.sort = ARB_CASE_SORT_STATUS;
    cr_assert_str_eq(near(st, &q, "j-agree", 1), "h-judge-failed");
    cr_assert_str_eq(near(st, &q, "b-pending", 1), "f-unjudged");
    cr_assert_str_eq(near(st, &q, "f-unjudged", -1), "b-pending");
    q.sort = ARB_CASE_SORT_WINNER;
    q.winner = "x";
    cr_assert_str_eq(near(st, &q, "c-decided", 1), "d-disagree");
    cr_assert_str_eq(near(st, &q, "j-agree", 1), "");
    arb_store_close(st);
}

Test(case_index, should_refuse_a_bad_step, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();
    struct arb_err err = {{0}};
    char buf[4] = "zz";

    cr_assert_eq(arb_case_index_neighbor(st, &q, "c-decided", 0, buf, sizeof(buf), &err),
                 ARB_EUSAGE);
    cr_assert_eq(arb_case_index_neighbor(st, &q, "c-decided", 1, buf, 0, &err), ARB_EUSAGE);
    ok(arb_case_index_neighbor(st, &q, "c-decided", 1, buf, sizeof(buf), &err), &err);
    cr_assert_str_eq(buf, "b-p", "cut to the buffer");
    arb_store_close(st);
}

/* Three systems: p has pairs x/y (x wins) and x/z (z wins), q has x/y (y) and y/z (z). */
Test(case_index, should_visit_a_case_of_several_pairs_once, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = fx_open_store(0);
    struct arb_case_query q = all_rows();
    struct arb_err err = {{0}};
    int64_t run, total = 0;

    ok(arb_store_begin(st, &err), &err);
    run = new_run(st, "[{\"name\":\"x\"},{\"name\":\"y\"},{\"name\":\"z\"}]");
    ok(arb_store_put_case(st, run, "p", 0, "", NULL, "{}", &err), &err);
    ok(arb_store_put_case(st, run, "q", 1, "", NULL, "{}", &err), &err);
    ok(arb_store_put_case(st, run, "r", 2, "", NULL, "{}", &err), &err);
    put_verdict(st, run, "p", "x", "y", "decided", "x", 9, 8, 1, 1, NULL);
    put_verdict(st, run, "p", "x", "z", "decided", "z", 7, 8, 1, 1, NULL);
    put_verdict(st, run, "q", "x", "y", "decided", "y", 7, 8, 1, 1, NULL);
    put_verdict(st, run, "q", "y", "z", "decided", "z", 7, 8, 1, 1, NULL);
    ok(arb_store_commit(st, &err), &err);
    q.run = run;
    /* r has no verdict nor blinding: the three pairs of the suite's systems. */
    cr_assert_str_eq(ids_of(st, &q, &total), "p p q q r r r");
    /* By winner: p (x), q (y), p (z), q (z), then r's three. */
    q.sort = ARB_CASE_SORT_WINNER;
    cr_assert_str_eq(ids_of(st, &q, &total), "p q p q r r r");
    cr_assert_str_eq(near(st, &q, "p", 1), "q");
    cr_assert_str_eq(near(st, &q, "q", 1), "r", "p's second row does not bring p back");
    cr_assert_str_eq(near(st, &q, "r", -1), "q");
    cr_assert_str_eq(near(st, &q, "q", -1), "p");
    q.descending = 1; /* q (z), p (z), q (y), p (x), then r's */
    cr_assert_str_eq(near(st, &q, "q", 1), "p");
    cr_assert_str_eq(near(st, &q, "p", 1), "r");
    cr_assert_str_eq(near(st, &q, "p", -1), "q");
    arb_store_close(st);
}

/* ---- the connection and the file ----------------------------------------------------------- */

Test(case_index, should_leave_a_read_only_file_as_it_was, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_case_query q = all_rows();
    struct arb_err err = {{0}};
    struct stat before, after;
    size_t len0, len1;
    char *bytes0, *bytes1, buf[64];
    int64_t counts[5], all, total;

    cr_assert_eq(stat(fx_db_path, &before), 0);
    bytes0 = fx_read_file(fx_db_path, &len0);
    ok(arb_case_index_build(st, 1, &err), &err);
    q.search = "zebra";
    q.sort = ARB_CASE_SORT_MARGIN;
    ids_of(st, &q, &total);
    ok(arb_case_index_neighbor(st, &q, "d-disagree", 1, buf, sizeof(buf), &err), &err);
    ok(arb_case_index_counts(st, 1, counts, &all, &err), &err);
    arb_store_close(st);
    cr_assert_eq(stat(fx_db_path, &after), 0);
    bytes1 = fx_read_file(fx_db_path, &len1);
    cr_assert_eq(len0, len1);
    cr_assert(memcmp(bytes0, bytes1, len0) == 0, "the file's bytes are unchanged");
    cr_assert(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
              before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
    free(bytes0);
    free(bytes1);
    cr_assert_eq(fx_raw_int("SELECT count(*) FROM sqlite_master WHERE name LIKE 'arb_ci%'"), 0);
}

Test(case_index, should_build_once_per_connection, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_err err = {{0}};
    struct arb_case_query q = all_rows();
    struct arb_store *w;
    int64_t total = 0;

    ok(arb_case_index_build(st, 1, &err), &err);
    ok(arb_case_index_build(st, 1, &err), &err);
    cr_assert_eq(arb_case_index_build(st, 2, &err), ARB_EUSAGE);
    /* A verdict added since: this connection keeps its index, a new one sees it. */
    w = fx_open_store(0);
    ok(arb_store_begin(w, &err), &err);
    put_verdict(w, 1, "i-bare", "x", "y", "decided", "y", 1, 2, 1, 1, NULL);
    ok(arb_store_commit(w, &err), &err);
    arb_store_close(w);
    q.status = "pending";
    cr_assert_str_eq(ids_of(st, &q, &total), "f-unjudged i-bare");
    cr_assert_eq(total, 2, "the rows are there once");
    arb_store_close(st);
    st = fx_open_store(ARB_STORE_READONLY);
    cr_assert_str_eq(ids_of(st, &q, &total), "f-unjudged");
    arb_store_close(st);
}

Test(case_index, should_index_only_the_cases_of_a_scope, .init = fx_setup, .fini = fx_teardown)
{
    struct arb_store *st = the_run();
    struct arb_err err = {{0}};
    const char *named[] = {"g-expfail", "a-missing", "d-disagree"};
    struct arb_case_select sel = {0, named, 3};
    struct arb_case_query q = all_rows();
    int64_t counts[5], all = 0;

    ok(arb_store_scope(st, 1, &sel, &err), &err);
    expect(st, &q, "a-missing d-disagree g-expfail");
    q.search = "plain";
    q.flags = ARB_CASE_EXPECTATION_FAILED;
    expect(st, &q, "g-expfail");
    ok(arb_case_index_counts(st, 1, counts, &all, &err), &err);
    cr_assert_eq(all, 3);
    cr_assert_eq(counts[2], 1, "g's llm_judge slot failed");
    arb_store_close(st);
}
